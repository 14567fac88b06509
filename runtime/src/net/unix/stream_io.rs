//! `UnixStream`'s readiness and the I/O it does on `&self`: waiting for an
//! interest, the `poll_*_ready` methods, non-blocking `try_*` attempts.

use super::UnixStream;
#[cfg(feature = "bytes")]
use crate::io::sys;
use rt_reactor::{Direction, Interest, Ready};
use std::io::{self, IoSlice, IoSliceMut};
#[cfg(feature = "bytes")]
use std::os::fd::AsRawFd;
use std::task::{Context, Poll};

impl UnixStream {
    /// Waits until the stream has any of the readiness of `interest`
    /// (`Interest::READABLE | Interest::WRITABLE`: either), and says which;
    /// then [`try_read`](UnixStream::try_read) /
    /// [`try_write`](UnixStream::try_write), which clear the readiness when
    /// they would block.
    ///
    /// Any number of tasks may wait at once, each in a place of its own;
    /// dropping the future frees it.
    ///
    /// # Errors
    ///
    /// Fails once the runtime's I/O driver has shut down.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::{AsyncWriteExt, Interest};
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (mut a, b) = rt::net::UnixStream::pair().unwrap();
    ///     a.write_all(b"hi").await.unwrap();
    ///     let ready = b.ready(Interest::READABLE).await.unwrap();
    ///     assert!(ready.is_readable());
    ///     assert_eq!(b.try_read(&mut [0; 8]).unwrap(), 2);
    /// });
    /// ```
    pub async fn ready(&self, interest: Interest) -> io::Result<Ready> {
        self.registered().ready_for(interest).await
    }

    /// Waits until the stream is readable (data, end-of-file or an error).
    ///
    /// Any number of tasks may wait at once; readiness wakes them all.
    ///
    /// # Errors
    ///
    /// Fails once the runtime's I/O driver has shut down.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, b) = rt::net::UnixStream::pair().unwrap();
    ///     drop(a); // end-of-file is readable
    ///     b.readable().await.unwrap();
    ///     assert_eq!(b.try_read(&mut [0; 8]).unwrap(), 0);
    /// });
    /// ```
    pub async fn readable(&self) -> io::Result<()> {
        self.registered().ready(Direction::Read).await.map(drop)
    }

    /// Waits until the stream is writable.
    ///
    /// Any number of tasks may wait at once; readiness wakes them all.
    ///
    /// # Errors
    ///
    /// Fails once the runtime's I/O driver has shut down.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = rt::net::UnixStream::pair().unwrap();
    ///     a.writable().await.unwrap();
    ///     assert_eq!(a.try_write(b"now").unwrap(), 3);
    /// });
    /// ```
    pub async fn writable(&self) -> io::Result<()> {
        self.registered().ready(Direction::Write).await.map(drop)
    }

    /// Polls for read readiness, in the read direction's shared slot (the
    /// one `AsyncRead::poll_read` uses): the last caller's waker wins.
    ///
    /// # Errors
    ///
    /// Fails once the runtime's I/O driver has shut down.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::AsyncWriteExt;
    /// use std::future::poll_fn;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (mut a, b) = rt::net::UnixStream::pair().unwrap();
    ///     a.write_all(b"x").await.unwrap();
    ///     poll_fn(|cx| b.poll_read_ready(cx)).await.unwrap();
    ///     assert_eq!(b.try_read(&mut [0; 4]).unwrap(), 1);
    /// });
    /// ```
    pub fn poll_read_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.registered()
            .poll_ready(cx, Direction::Read)
            .map_ok(drop)
    }

    /// Polls for write readiness, in the write direction's shared slot
    /// (`AsyncWrite::poll_write`'s): the last caller's waker wins.
    ///
    /// # Errors
    ///
    /// Fails once the runtime's I/O driver has shut down.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::future::poll_fn;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = rt::net::UnixStream::pair().unwrap();
    ///     poll_fn(|cx| a.poll_write_ready(cx)).await.unwrap();
    ///     assert_eq!(a.try_write(b"hi").unwrap(), 2);
    /// });
    /// ```
    pub fn poll_write_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.registered()
            .poll_ready(cx, Direction::Write)
            .map_ok(drop)
    }

    /// Reads once without waiting.
    ///
    /// # Errors
    ///
    /// `WouldBlock` if no data is ready (or readability was not reported
    /// yet), or the OS error of `read`.
    ///
    /// # Examples
    ///
    /// See [`UnixStream::readable`].
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = rt::net::UnixStream::pair().unwrap();
    ///     let err = a.try_read(&mut [0; 4]).unwrap_err();
    ///     assert_eq!(err.kind(), std::io::ErrorKind::WouldBlock);
    /// });
    /// ```
    pub fn try_read(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.registered()
            .try_io(Direction::Read, |mut sys| io::Read::read(&mut sys, buf))
    }

    /// Reads once without waiting (feature `bytes`), straight into the
    /// spare capacity of `buf` (its `chunk_mut`: a full `BytesMut` or
    /// `Vec<u8>` grows by 64 bytes first), which is advanced past the
    /// bytes read; returns how many. `Ok(0)` is end-of-file (or no room in
    /// `buf`). The kernel writes into the uninitialised capacity: nothing
    /// is zeroed first.
    ///
    /// # Errors
    ///
    /// `WouldBlock` if no data is ready (or readiness was not reported
    /// yet), or the OS error of `recv`; `buf` is then left as it was.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::AsyncWriteExt;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (mut a, b) = rt::net::UnixStream::pair().unwrap();
    ///     let mut buf = Vec::with_capacity(64);
    ///     a.write_all(b"hello").await.unwrap();
    ///     a.shutdown().await.unwrap();
    ///     loop {
    ///         b.readable().await.unwrap();
    ///         match b.try_read_buf(&mut buf) {
    ///             Ok(0) => break,
    ///             Ok(_) => {}
    ///             Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
    ///             Err(e) => panic!("{e}"),
    ///         }
    ///     }
    ///     assert_eq!(buf, b"hello");
    /// });
    /// ```
    #[cfg(feature = "bytes")]
    pub fn try_read_buf<B: bytes::BufMut + ?Sized>(&self, buf: &mut B) -> io::Result<usize> {
        self.registered()
            .try_io(Direction::Read, |sys| sys::recv_buf(sys.as_raw_fd(), buf))
    }

    /// Writes once without waiting.
    ///
    /// # Errors
    ///
    /// `WouldBlock` if the socket buffer is full (or writability was not
    /// reported yet), or the OS error of `write`.
    ///
    /// # Examples
    ///
    /// See [`UnixStream::writable`].
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = rt::net::UnixStream::pair().unwrap();
    ///     a.writable().await.unwrap();
    ///     assert_eq!(a.try_write(b"x").unwrap(), 1);
    /// });
    /// ```
    pub fn try_write(&self, buf: &[u8]) -> io::Result<usize> {
        self.registered()
            .try_io(Direction::Write, |mut sys| io::Write::write(&mut sys, buf))
    }

    /// Reads once without waiting, into several buffers (`readv`).
    ///
    /// # Errors
    ///
    /// `WouldBlock` if no data is ready, or the OS error of `readv`.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::AsyncWriteExt;
    /// use std::io::IoSliceMut;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (mut a, b) = rt::net::UnixStream::pair().unwrap();
    ///     a.write_all(b"abcdef").await.unwrap();
    ///     b.readable().await.unwrap();
    ///     let (mut head, mut body) = ([0; 2], [0; 8]);
    ///     let n = b
    ///         .try_read_vectored(&mut [IoSliceMut::new(&mut head), IoSliceMut::new(&mut body)])
    ///         .unwrap();
    ///     assert_eq!(n, 6);
    ///     assert_eq!((&head, &body[..4]), (b"ab", &b"cdef"[..]));
    /// });
    /// ```
    pub fn try_read_vectored(&self, bufs: &mut [IoSliceMut<'_>]) -> io::Result<usize> {
        self.registered().try_io(Direction::Read, |mut sys| {
            io::Read::read_vectored(&mut sys, bufs)
        })
    }

    /// Writes once without waiting, from several buffers (`writev`).
    ///
    /// # Errors
    ///
    /// `WouldBlock` if the socket buffer is full (or writability was not
    /// reported yet), or the OS error of `writev`.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::AsyncReadExt;
    /// use std::io::IoSlice;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, mut b) = rt::net::UnixStream::pair().unwrap();
    ///     a.writable().await.unwrap();
    ///     let n = a.try_write_vectored(&[IoSlice::new(b"he"), IoSlice::new(b"llo")]).unwrap();
    ///     assert_eq!(n, 5);
    ///     let mut got = [0; 5];
    ///     b.read_exact(&mut got).await.unwrap();
    ///     assert_eq!(&got, b"hello");
    /// });
    /// ```
    pub fn try_write_vectored(&self, bufs: &[IoSlice<'_>]) -> io::Result<usize> {
        self.registered().try_io(Direction::Write, |mut sys| {
            io::Write::write_vectored(&mut sys, bufs)
        })
    }

    /// Runs `op` once, without waiting, if the reactor has reported the
    /// readiness of `interest`; an `op` that would block clears that
    /// readiness. For socket calls rt has no method for (passing
    /// descriptors with `sendmsg`, say).
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
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = rt::net::UnixStream::pair().unwrap();
    ///     a.writable().await.unwrap();
    ///     let socket = socket2::SockRef::from(&a);
    ///     let n = a.try_io(Interest::WRITABLE, || socket.send(b"raw")).unwrap();
    ///     assert_eq!(n, 3);
    /// });
    /// ```
    pub fn try_io<R>(
        &self,
        interest: Interest,
        op: impl FnOnce() -> io::Result<R>,
    ) -> io::Result<R> {
        self.registered().try_io_for(interest, |_| op())
    }

    /// Waits for the readiness of `interest` and runs `op`, again and again
    /// until it does not fail with `WouldBlock` (each `WouldBlock` clears
    /// the readiness, so the next wait blocks).
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
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = rt::net::UnixStream::pair().unwrap();
    ///     let socket = socket2::SockRef::from(&a);
    ///     let n = a.async_io(Interest::WRITABLE, || socket.send(b"raw")).await.unwrap();
    ///     assert_eq!(n, 3);
    /// });
    /// ```
    pub async fn async_io<R>(
        &self,
        interest: Interest,
        mut op: impl FnMut() -> io::Result<R>,
    ) -> io::Result<R> {
        self.registered().async_io_for(interest, |_| op()).await
    }
}
