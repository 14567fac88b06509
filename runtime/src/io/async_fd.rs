//! Readiness on any file descriptor.

use super::async_fd_errors::AsyncFdRegisterError;
use super::async_fd_guard::{AsyncFdReadyGuard, AsyncFdReadyMutGuard};
use super::registered::{
    WouldBlockFrom, current_reactor, poll_budgeted, poll_io, try_io_once, wait,
};
use mio::unix::SourceFd;
use rt_reactor::{Direction, Interest, ReadyEvent, Registration};
use std::fmt;
use std::future::poll_fn;
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, RawFd};
use std::task::{Context, Poll};

mod io_mut;

/// A non-blocking file descriptor registered with the runtime's reactor,
/// so tasks can wait until it is readable or writable.
///
/// `AsyncFd` does not do I/O itself: wait with [`readable`](AsyncFd::readable)
/// / [`writable`](AsyncFd::writable) / [`ready`](AsyncFd::ready), then try
/// the operation inside [`AsyncFdReadyGuard::try_io`], which clears the
/// readiness when the operation would block so the next wait really
/// waits; or let [`async_io`](AsyncFd::async_io) do both. The descriptor
/// must be in non-blocking mode. Dropping the `AsyncFd` deregisters it and
/// drops the inner value.
///
/// The `async fn`s on `&self` (`readable`, `writable`, `ready`,
/// `async_io`) may be awaited by any number of tasks at once, each in a
/// place of its own; the `poll_*` methods share one slot per direction,
/// where the last caller's waker wins.
///
/// # Panics
///
/// [`AsyncFd::register`] (and [`AsyncFd::new`]) panic outside a runtime
/// with I/O enabled.
///
/// # Examples
///
/// ```
/// use rt::io::AsyncFd;
/// use std::io::{Read, Write};
///
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let (reader, mut writer) = std::os::unix::net::UnixStream::pair().unwrap();
///     reader.set_nonblocking(true).unwrap();
///     let reader = AsyncFd::register(reader).unwrap();
///     writer.write_all(b"hello").unwrap();
///     let mut buf = [0; 5];
///     let n = loop {
///         let mut guard = reader.readable().await.unwrap();
///         match guard.try_io(|fd| fd.get_ref().read(&mut buf)) {
///             Ok(result) => break result.unwrap(),
///             Err(_would_block) => continue,
///         }
///     };
///     assert_eq!(&buf[..n], b"hello");
/// });
/// ```
pub struct AsyncFd<T: AsRawFd> {
    inner: Option<T>,
    registration: Registration,
}

impl<T: AsRawFd> AsyncFd<T> {
    /// Registers `inner` for both read and write readiness, taking it
    /// over; if the registration fails, the error hands it back
    /// ([`AsyncFdRegisterError::into_parts`]). tokio's constructor of the
    /// same name and contract.
    ///
    /// `inner` must own an open descriptor in non-blocking mode, and
    /// `as_raw_fd` must give the same one for as long as the `AsyncFd`
    /// holds it. Unlike tokio's, this function is safe: rt's reactor names
    /// a registration by an index and a generation into a table of cells
    /// that are never freed (not by the address of its state), and a
    /// source it could not deregister retires its cell, so a value that
    /// breaks the rule (a borrowed descriptor closed early, a changing
    /// `as_raw_fd`) can cost wrong or missing readiness, never memory
    /// safety.
    ///
    /// # Errors
    ///
    /// The OS error of the registration (e.g. a regular file, which epoll
    /// does not support), with `inner`.
    ///
    /// # Panics
    ///
    /// Panics outside a runtime, or on a runtime without
    /// [`Builder::enable_io`](crate::runtime::Builder::enable_io).
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::AsyncFd;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
    ///     a.set_nonblocking(true).unwrap();
    ///     let fd = AsyncFd::register(a).unwrap();
    ///     assert!(fd.writable().await.unwrap().ready().is_writable());
    ///
    ///     // The poller refuses regular files; the file comes back.
    ///     let file = std::fs::File::open("Cargo.toml").unwrap();
    ///     let (file, cause) = AsyncFd::register(file).unwrap_err().into_parts();
    ///     assert!(file.metadata().unwrap().is_file());
    ///     assert_eq!(cause.kind(), std::io::ErrorKind::PermissionDenied);
    /// });
    /// ```
    #[track_caller]
    pub fn register(inner: T) -> Result<AsyncFd<T>, AsyncFdRegisterError<T>> {
        AsyncFd::register_with_interest(inner, Interest::READABLE | Interest::WRITABLE)
    }

    /// As [`AsyncFd::register`], for the readiness in `interest` only
    /// (e.g. [`Interest::PRIORITY`] for a descriptor that reports it).
    ///
    /// # Errors
    ///
    /// As [`AsyncFd::register`].
    ///
    /// # Panics
    ///
    /// As [`AsyncFd::register`].
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::{AsyncFd, Interest};
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
    ///     a.set_nonblocking(true).unwrap();
    ///     let fd = AsyncFd::register_with_interest(a, Interest::READABLE).unwrap();
    ///     # drop(fd);
    ///     let file = std::fs::File::open("Cargo.toml").unwrap();
    ///     let error = AsyncFd::register_with_interest(file, Interest::READABLE).unwrap_err();
    ///     let (file, _cause) = error.into_parts();
    ///     assert!(file.metadata().is_ok());
    /// });
    /// ```
    #[track_caller]
    pub fn register_with_interest(
        inner: T,
        interest: Interest,
    ) -> Result<AsyncFd<T>, AsyncFdRegisterError<T>> {
        let reactor = current_reactor();
        let fd: RawFd = inner.as_raw_fd();
        match reactor.register(&mut SourceFd(&fd), interest) {
            Ok(registration) => Ok(AsyncFd {
                inner: Some(inner),
                registration,
            }),
            Err(cause) => Err(AsyncFdRegisterError::new(inner, cause)),
        }
    }

    /// As [`AsyncFd::register`], with the plain `io::Error` (`inner` is
    /// dropped if the registration fails).
    ///
    /// Not deprecated, unlike tokio's: tokio deprecated its safe
    /// constructors because they are unsound there; rt's are sound (see
    /// [`AsyncFd::register`]).
    ///
    /// # Errors
    ///
    /// As [`AsyncFd::register`], without `inner`: the bare OS error (so
    /// that `raw_os_error` still gives its number), without the hint that
    /// [`AsyncFdRegisterError`]'s message adds for a regular file or a
    /// descriptor registered twice.
    ///
    /// # Panics
    ///
    /// As [`AsyncFd::register`].
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
    ///     a.set_nonblocking(true).unwrap();
    ///     let fd = rt::io::AsyncFd::new(a).unwrap();
    ///     # drop(fd);
    /// });
    /// ```
    #[track_caller]
    pub fn new(inner: T) -> io::Result<AsyncFd<T>> {
        AsyncFd::with_interest(inner, Interest::READABLE | Interest::WRITABLE)
    }

    /// [`AsyncFd::register`] under its older name (tokio's, which tokio
    /// deprecated with its safe constructors; rt's are sound, see
    /// [`AsyncFd::register`]).
    ///
    /// # Errors
    ///
    /// As [`AsyncFd::register`].
    ///
    /// # Panics
    ///
    /// As [`AsyncFd::register`].
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
    ///     let fd = rt::io::AsyncFd::try_new(a).unwrap();
    ///     # drop(fd);
    /// });
    /// ```
    #[track_caller]
    pub fn try_new(inner: T) -> Result<AsyncFd<T>, AsyncFdRegisterError<T>> {
        AsyncFd::register(inner)
    }

    /// As [`AsyncFd::register_with_interest`], with the plain `io::Error`
    /// (`inner` is dropped if the registration fails). Not deprecated
    /// (see [`AsyncFd::new`]).
    ///
    /// # Errors
    ///
    /// As [`AsyncFd::register`], without `inner`.
    ///
    /// # Panics
    ///
    /// As [`AsyncFd::register`].
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::{AsyncFd, Interest};
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
    ///     a.set_nonblocking(true).unwrap();
    ///     let fd = AsyncFd::with_interest(a, Interest::READABLE).unwrap();
    ///     # drop(fd);
    /// });
    /// ```
    #[track_caller]
    pub fn with_interest(inner: T, interest: Interest) -> io::Result<AsyncFd<T>> {
        AsyncFd::register_with_interest(inner, interest).map_err(io::Error::from)
    }

    /// [`AsyncFd::register_with_interest`] under its older name (see
    /// [`AsyncFd::try_new`]).
    ///
    /// # Errors
    ///
    /// As [`AsyncFd::register`].
    ///
    /// # Panics
    ///
    /// As [`AsyncFd::register`].
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::{AsyncFd, Interest};
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let file = std::fs::File::open("Cargo.toml").unwrap();
    ///     // The poller refuses regular files; the file comes back.
    ///     let error = AsyncFd::try_with_interest(file, Interest::READABLE).unwrap_err();
    ///     let (file, _cause) = error.into_parts();
    ///     assert!(file.metadata().is_ok());
    /// });
    /// ```
    #[track_caller]
    pub fn try_with_interest(
        inner: T,
        interest: Interest,
    ) -> Result<AsyncFd<T>, AsyncFdRegisterError<T>> {
        AsyncFd::register_with_interest(inner, interest)
    }

    /// The wrapped value.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::os::fd::AsRawFd;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
    ///     let raw = a.as_raw_fd();
    ///     let fd = rt::io::AsyncFd::new(a).unwrap();
    ///     assert_eq!(fd.get_ref().as_raw_fd(), raw);
    /// });
    /// ```
    pub fn get_ref(&self) -> &T {
        self.inner.as_ref().expect("present until drop")
    }

    /// The wrapped value, mutably.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
    ///     let mut fd = rt::io::AsyncFd::new(a).unwrap();
    ///     fd.get_mut().set_nonblocking(true).unwrap();
    /// });
    /// ```
    pub fn get_mut(&mut self) -> &mut T {
        self.inner.as_mut().expect("present until drop")
    }

    /// Deregisters the descriptor and returns the wrapped value.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
    ///     let fd = rt::io::AsyncFd::new(a).unwrap();
    ///     let a: std::os::unix::net::UnixStream = fd.into_inner();
    ///     # drop(a);
    /// });
    /// ```
    pub fn into_inner(mut self) -> T {
        self.deregister();
        self.inner.take().expect("present until drop")
    }

    fn deregister(&mut self) {
        if let Some(inner) = &self.inner {
            let fd = inner.as_raw_fd();
            // The descriptor may already be closed by a custom `T`, and
            // closing removes it from the poller anyway: nothing to report.
            let _ = self.registration.deregister(&mut SourceFd(&fd));
        }
    }

    pub(super) fn registration(&self) -> &Registration {
        &self.registration
    }

    /// Waits in `direction`'s shared slot (the `poll_*` methods).
    fn poll_ready(
        &self,
        cx: &mut Context<'_>,
        direction: Direction,
    ) -> Poll<io::Result<ReadyEvent>> {
        poll_budgeted(cx, |cx| self.registration.poll_ready(cx, direction))
    }

    /// Polls for read readiness.
    ///
    /// A `poll_*` method has no future to own a place among the tasks
    /// waiting on the descriptor: it waits in one read slot shared by all
    /// `poll_read_ready` callers, where the last caller's waker wins (an
    /// earlier caller's task is not woken). Tasks sharing an `AsyncFd`
    /// await [`readable`](AsyncFd::readable) instead, which any number of
    /// tasks may wait in at once.
    ///
    /// # Errors
    ///
    /// Fails once the runtime has shut down its I/O driver.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::future::poll_fn;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, b) = std::os::unix::net::UnixStream::pair().unwrap();
    ///     drop(b); // the peer hung up: read-closed
    ///     let fd = rt::io::AsyncFd::new(a).unwrap();
    ///     let ready = poll_fn(|cx| fd.poll_read_ready(cx).map_ok(|g| g.ready())).await.unwrap();
    ///     assert!(ready.is_read_closed());
    /// });
    /// ```
    pub fn poll_read_ready(
        &self,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<AsyncFdReadyGuard<'_, T>>> {
        self.poll_ready(cx, Direction::Read)
            .map_ok(|event| AsyncFdReadyGuard::new(self, event))
    }

    /// As [`poll_read_ready`](AsyncFd::poll_read_ready), with a guard that
    /// borrows the `AsyncFd` mutably.
    ///
    /// # Errors
    ///
    /// Fails once the runtime has shut down its I/O driver.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::future::poll_fn;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, b) = std::os::unix::net::UnixStream::pair().unwrap();
    ///     drop(b);
    ///     let mut fd = rt::io::AsyncFd::new(a).unwrap();
    ///     let ready = poll_fn(|cx| fd.poll_read_ready_mut(cx).map_ok(|g| g.ready())).await.unwrap();
    ///     assert!(ready.is_read_closed());
    /// });
    /// ```
    pub fn poll_read_ready_mut(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<AsyncFdReadyMutGuard<'_, T>>> {
        match self.poll_ready(cx, Direction::Read) {
            Poll::Ready(Ok(event)) => Poll::Ready(Ok(AsyncFdReadyMutGuard::new(self, event))),
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => Poll::Pending,
        }
    }

    /// Polls for write readiness.
    ///
    /// As [`poll_read_ready`](AsyncFd::poll_read_ready), in the write
    /// direction: one shared slot, the last caller's waker wins; tasks
    /// sharing an `AsyncFd` await [`writable`](AsyncFd::writable).
    ///
    /// # Errors
    ///
    /// Fails once the runtime has shut down its I/O driver.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::future::poll_fn;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
    ///     let fd = rt::io::AsyncFd::new(a).unwrap();
    ///     let ready = poll_fn(|cx| fd.poll_write_ready(cx).map_ok(|g| g.ready())).await.unwrap();
    ///     assert!(ready.is_writable());
    /// });
    /// ```
    pub fn poll_write_ready(
        &self,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<AsyncFdReadyGuard<'_, T>>> {
        self.poll_ready(cx, Direction::Write)
            .map_ok(|event| AsyncFdReadyGuard::new(self, event))
    }

    /// As [`poll_write_ready`](AsyncFd::poll_write_ready), with a guard
    /// that borrows the `AsyncFd` mutably.
    ///
    /// # Errors
    ///
    /// Fails once the runtime has shut down its I/O driver.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::future::poll_fn;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
    ///     let mut fd = rt::io::AsyncFd::new(a).unwrap();
    ///     let ready = poll_fn(|cx| fd.poll_write_ready_mut(cx).map_ok(|g| g.ready())).await.unwrap();
    ///     assert!(ready.is_writable());
    /// });
    /// ```
    pub fn poll_write_ready_mut(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<AsyncFdReadyMutGuard<'_, T>>> {
        match self.poll_ready(cx, Direction::Write) {
            Poll::Ready(Ok(event)) => Poll::Ready(Ok(AsyncFdReadyMutGuard::new(self, event))),
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => Poll::Pending,
        }
    }

    /// Waits until the descriptor is readable (or read-closed, or has an
    /// error).
    ///
    /// Any number of tasks may wait at once, each in a place of its own;
    /// readiness wakes them all. Dropping the future frees its place.
    ///
    /// # Errors
    ///
    /// Fails once the runtime has shut down its I/O driver.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::io::Write;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, mut b) = std::os::unix::net::UnixStream::pair().unwrap();
    ///     let fd = rt::io::AsyncFd::new(a).unwrap();
    ///     b.write_all(b"x").unwrap();
    ///     assert!(fd.readable().await.unwrap().ready().is_readable());
    /// });
    /// ```
    pub async fn readable(&self) -> io::Result<AsyncFdReadyGuard<'_, T>> {
        let event = wait(self.registration.waiter(Direction::Read)).await?;
        Ok(AsyncFdReadyGuard::new(self, event))
    }

    /// As [`readable`](AsyncFd::readable), with a guard that borrows the
    /// `AsyncFd` mutably (for an inner value whose reads take `&mut self`).
    ///
    /// # Errors
    ///
    /// Fails once the runtime has shut down its I/O driver.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::io::{Read, Write};
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, mut b) = std::os::unix::net::UnixStream::pair().unwrap();
    ///     a.set_nonblocking(true).unwrap();
    ///     let mut fd = rt::io::AsyncFd::new(a).unwrap();
    ///     b.write_all(b"x").unwrap();
    ///     let mut guard = fd.readable_mut().await.unwrap();
    ///     let n = guard.try_io(|fd| fd.get_mut().read(&mut [0; 4])).unwrap().unwrap();
    ///     assert_eq!(n, 1);
    /// });
    /// ```
    pub async fn readable_mut(&mut self) -> io::Result<AsyncFdReadyMutGuard<'_, T>> {
        self.ready_mut(Interest::READABLE).await
    }

    /// Waits until the descriptor is writable (or write-closed, or has an
    /// error).
    ///
    /// Any number of tasks may wait at once, each in a place of its own;
    /// readiness wakes them all. Dropping the future frees its place.
    ///
    /// # Errors
    ///
    /// Fails once the runtime has shut down its I/O driver.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
    ///     let fd = rt::io::AsyncFd::new(a).unwrap();
    ///     assert!(fd.writable().await.unwrap().ready().is_writable());
    /// });
    /// ```
    pub async fn writable(&self) -> io::Result<AsyncFdReadyGuard<'_, T>> {
        let event = wait(self.registration.waiter(Direction::Write)).await?;
        Ok(AsyncFdReadyGuard::new(self, event))
    }

    /// As [`writable`](AsyncFd::writable), with a guard that borrows the
    /// `AsyncFd` mutably.
    ///
    /// # Errors
    ///
    /// Fails once the runtime has shut down its I/O driver.
    ///
    /// # Examples
    ///
    /// See [`AsyncFdReadyMutGuard`].
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
    ///     let mut fd = rt::io::AsyncFd::new(a).unwrap();
    ///     assert!(fd.writable_mut().await.unwrap().ready().is_writable());
    /// });
    /// ```
    pub async fn writable_mut(&mut self) -> io::Result<AsyncFdReadyMutGuard<'_, T>> {
        self.ready_mut(Interest::WRITABLE).await
    }

    /// Waits until the descriptor has any of the readiness of `interest`
    /// ([`Interest::mask`]): readable or writable at once, an error alone
    /// ([`Interest::ERROR`]), priority data ([`Interest::PRIORITY`], for a
    /// descriptor registered with it). The guard's
    /// [`ready`](AsyncFdReadyGuard::ready) says which.
    ///
    /// Any number of tasks may wait at once, each in a place of its own;
    /// dropping the future frees it.
    ///
    /// # Errors
    ///
    /// Fails once the runtime has shut down its I/O driver.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::Interest;
    /// use std::io::Write;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, mut b) = std::os::unix::net::UnixStream::pair().unwrap();
    ///     let fd = rt::io::AsyncFd::new(a).unwrap();
    ///     b.write_all(b"x").unwrap();
    ///     let guard = fd.ready(Interest::READABLE | Interest::WRITABLE).await.unwrap();
    ///     assert!(guard.ready().is_writable() || guard.ready().is_readable());
    /// });
    /// ```
    pub async fn ready(&self, interest: Interest) -> io::Result<AsyncFdReadyGuard<'_, T>> {
        let event = wait(self.registration.waiter_for(interest)).await?;
        Ok(AsyncFdReadyGuard::new(self, event))
    }

    /// As [`ready`](AsyncFd::ready), with a guard that borrows the
    /// `AsyncFd` mutably.
    ///
    /// # Errors
    ///
    /// Fails once the runtime has shut down its I/O driver.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::Interest;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
    ///     let mut fd = rt::io::AsyncFd::new(a).unwrap();
    ///     let guard = fd.ready_mut(Interest::WRITABLE).await.unwrap();
    ///     assert!(guard.ready().is_writable());
    /// });
    /// ```
    pub async fn ready_mut(
        &mut self,
        interest: Interest,
    ) -> io::Result<AsyncFdReadyMutGuard<'_, T>> {
        let event = wait(self.registration.waiter_for(interest)).await?;
        Ok(AsyncFdReadyMutGuard::new(self, event))
    }

    /// Runs `op` on the inner value once, without waiting, if the reactor
    /// has reported the readiness of `interest`; an `op` that would block
    /// clears that readiness, not the closed states: they are final, as in
    /// tokio (`op` may say `WouldBlock` for reasons of its own, and the end
    /// of a stream must stay visible to every task sharing it).
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
    /// use std::io::{ErrorKind, Write};
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
    ///     a.set_nonblocking(true).unwrap();
    ///     let fd = rt::io::AsyncFd::new(a).unwrap();
    ///     fd.writable().await.unwrap().retain_ready();
    ///     assert_eq!(fd.try_io(Interest::WRITABLE, |mut s| s.write(b"hi")).unwrap(), 2);
    ///     // Nothing was reported readable: the read is not even tried.
    ///     let err = fd.try_io(Interest::READABLE, |_| Ok(())).unwrap_err();
    ///     assert_eq!(err.kind(), ErrorKind::WouldBlock);
    /// });
    /// ```
    pub fn try_io<R>(
        &self,
        interest: Interest,
        op: impl FnOnce(&T) -> io::Result<R>,
    ) -> io::Result<R> {
        let observed = self.registration.try_ready_for(interest);
        let op = || op(self.get_ref());
        try_io_once(&self.registration, observed, op, WouldBlockFrom::Closure)
    }

    /// Waits for the readiness of `interest` and runs `op` on the inner
    /// value, again and again until it does not fail with `WouldBlock`
    /// (each `WouldBlock` clears the readiness, so the next wait blocks;
    /// a closed state stays, as in [`try_io`](AsyncFd::try_io), and `op`
    /// is then called again after a yield).
    ///
    /// Any number of tasks may wait at once, each in a place of its own.
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
    ///     let fd = rt::io::AsyncFd::new(a).unwrap();
    ///     let mut buf = [0; 8];
    ///     let writer = std::thread::spawn(move || b.write_all(b"later").unwrap());
    ///     let n = fd.async_io(Interest::READABLE, |mut s| s.read(&mut buf)).await.unwrap();
    ///     assert!(n > 0 && b"later".starts_with(&buf[..n]));
    ///     writer.join().unwrap();
    /// });
    /// ```
    pub async fn async_io<R>(
        &self,
        interest: Interest,
        mut op: impl FnMut(&T) -> io::Result<R>,
    ) -> io::Result<R> {
        let mut waiter = self.registration.waiter_for(interest);
        poll_fn(|cx| {
            poll_io(
                &self.registration,
                cx,
                |cx| waiter.poll_ready(cx),
                || op(self.get_ref()),
                WouldBlockFrom::Closure,
                |_| false,
            )
        })
        .await
    }
}

impl<T: AsRawFd> Drop for AsyncFd<T> {
    fn drop(&mut self) {
        self.deregister();
    }
}

/// The wrapped descriptor, as tokio's `AsyncFd` exposes it: code that
/// holds the `AsyncFd` can pass it where a descriptor is wanted.
impl<T: AsRawFd> AsRawFd for AsyncFd<T> {
    fn as_raw_fd(&self) -> RawFd {
        self.get_ref().as_raw_fd()
    }
}

impl<T: AsRawFd> AsFd for AsyncFd<T> {
    fn as_fd(&self) -> BorrowedFd<'_> {
        // SAFETY: the descriptor is `inner`'s, and `inner` stays in this
        // `AsyncFd` until it is dropped or `into_inner` moves it out, both
        // of which need the `AsyncFd` by value: neither can happen while
        // this borrow of `self` lives, so the descriptor stays open for
        // the returned `BorrowedFd`'s lifetime (tokio's impl rests on the
        // same argument).
        unsafe { BorrowedFd::borrow_raw(self.as_raw_fd()) }
    }
}

impl<T: AsRawFd + fmt::Debug> fmt::Debug for AsyncFd<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AsyncFd")
            .field("inner", &self.inner)
            .finish_non_exhaustive()
    }
}
