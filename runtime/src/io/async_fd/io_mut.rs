//! `AsyncFd`'s I/O through `&mut self`: the operation gets the inner value
//! mutably (a `File`'s or a device's `read` that needs `&mut`), and only
//! the holder of the `AsyncFd` can run it.

use super::AsyncFd;
use crate::io::registered::{WouldBlockFrom, poll_io, try_io_once};
use rt_reactor::Interest;
use std::future::poll_fn;
use std::io;
use std::os::fd::AsRawFd;

impl<T: AsRawFd> AsyncFd<T> {
    /// [`try_io`](AsyncFd::try_io) with the inner value borrowed mutably:
    /// runs `op` once, without waiting, if the reactor has reported the
    /// readiness of `interest`; an `op` that would block clears that
    /// readiness, not the closed states (final, as in tokio).
    ///
    /// # Errors
    ///
    /// `WouldBlock` if the readiness was not reported (`op` is not run) or
    /// `op` would block; otherwise `op`'s error.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::Interest;
    /// use std::io::{ErrorKind, Read, Write};
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, mut b) = std::os::unix::net::UnixStream::pair().unwrap();
    ///     a.set_nonblocking(true).unwrap();
    ///     let mut fd = rt::io::AsyncFd::new(a).unwrap();
    ///     // Nothing was reported readable: the read is not even tried.
    ///     let err = fd.try_io_mut(Interest::READABLE, |_| Ok(())).unwrap_err();
    ///     assert_eq!(err.kind(), ErrorKind::WouldBlock);
    ///     b.write_all(b"hi").unwrap();
    ///     fd.readable_mut().await.unwrap().retain_ready();
    ///     let mut buf = [0; 2];
    ///     let n = fd.try_io_mut(Interest::READABLE, |s| s.read(&mut buf)).unwrap();
    ///     assert_eq!(&buf[..n], b"hi");
    /// });
    /// ```
    pub fn try_io_mut<R>(
        &mut self,
        interest: Interest,
        op: impl FnOnce(&mut T) -> io::Result<R>,
    ) -> io::Result<R> {
        let observed = self.registration.try_ready_for(interest);
        let AsyncFd {
            inner,
            registration,
        } = self;
        let op = || op(inner.as_mut().expect("present until drop"));
        try_io_once(registration, observed, op, WouldBlockFrom::Closure)
    }

    /// [`async_io`](AsyncFd::async_io) with the inner value borrowed
    /// mutably: waits for the readiness of `interest` and runs `op`, again
    /// and again until it does not fail with `WouldBlock` (each
    /// `WouldBlock` clears the readiness, so the next wait blocks; a closed
    /// state stays, and `op` is then called again after a yield).
    ///
    /// # Errors
    ///
    /// `op`'s error other than `WouldBlock`, or the I/O driver's shutdown.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::Interest;
    /// use std::io::{Read, Write};
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, mut b) = std::os::unix::net::UnixStream::pair().unwrap();
    ///     a.set_nonblocking(true).unwrap();
    ///     let mut fd = rt::io::AsyncFd::new(a).unwrap();
    ///     let writer = std::thread::spawn(move || b.write_all(b"later").unwrap());
    ///     let mut buf = [0; 8];
    ///     let n = fd.async_io_mut(Interest::READABLE, |s| s.read(&mut buf)).await.unwrap();
    ///     assert!(n > 0 && b"later".starts_with(&buf[..n]));
    ///     writer.join().unwrap();
    /// });
    /// ```
    pub async fn async_io_mut<R>(
        &mut self,
        interest: Interest,
        mut op: impl FnMut(&mut T) -> io::Result<R>,
    ) -> io::Result<R> {
        let AsyncFd {
            inner,
            registration,
        } = self;
        let inner = inner.as_mut().expect("present until drop");
        let registration = &*registration;
        let mut waiter = registration.waiter_for(interest);
        poll_fn(|cx| {
            poll_io(
                registration,
                cx,
                |cx| waiter.poll_ready(cx),
                || op(inner),
                WouldBlockFrom::Closure,
                |_| false,
            )
        })
        .await
    }
}
