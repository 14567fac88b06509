//! `UnixDatagram`'s readiness and the I/O it does without an `async fn`:
//! waiting for an interest, the `poll_*` methods (one shared slot per
//! direction, the last waker wins) and the non-blocking `try_*` attempts.

use super::datagram::peek_from;
use super::{SocketAddr, UnixDatagram};
use rt_reactor::{Direction, Interest, Ready};
use std::io;
use std::path::Path;
use std::task::{Context, Poll};

impl UnixDatagram {
    /// Waits until the socket has any of the readiness of `interest`
    /// (`Interest::READABLE | Interest::WRITABLE`: either), and says which;
    /// then the `try_*` methods, which clear the readiness when they would
    /// block.
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
    /// use rt::io::Interest;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, b) = rt::net::UnixDatagram::pair().unwrap();
    ///     a.send(b"x").await.unwrap();
    ///     assert!(b.ready(Interest::READABLE).await.unwrap().is_readable());
    /// });
    /// ```
    pub async fn ready(&self, interest: Interest) -> io::Result<Ready> {
        self.registered().ready_for(interest).await
    }

    /// Waits until a datagram (or an error) can be received.
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
    ///     let (a, b) = rt::net::UnixDatagram::pair().unwrap();
    ///     a.send(b"hey").await.unwrap();
    ///     b.readable().await.unwrap();
    ///     assert_eq!(b.try_recv(&mut [0; 8]).unwrap(), 3);
    /// });
    /// ```
    pub async fn readable(&self) -> io::Result<()> {
        self.registered().ready(Direction::Read).await.map(drop)
    }

    /// Waits until a datagram can be sent (the peer's queue has room).
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
    ///     let (a, _b) = rt::net::UnixDatagram::pair().unwrap();
    ///     a.writable().await.unwrap();
    ///     assert_eq!(a.try_send(b"now").unwrap(), 3);
    /// });
    /// ```
    pub async fn writable(&self) -> io::Result<()> {
        self.registered().ready(Direction::Write).await.map(drop)
    }

    /// Polls for receive readiness, in the read direction's shared slot
    /// (the last caller's waker wins).
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
    ///     let (a, b) = rt::net::UnixDatagram::pair().unwrap();
    ///     a.send(b"x").await.unwrap();
    ///     poll_fn(|cx| b.poll_recv_ready(cx)).await.unwrap();
    /// });
    /// ```
    pub fn poll_recv_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.registered()
            .poll_ready(cx, Direction::Read)
            .map_ok(drop)
    }

    /// Polls for send readiness, in the write direction's shared slot (the
    /// last caller's waker wins).
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
    ///     let (a, _b) = rt::net::UnixDatagram::pair().unwrap();
    ///     poll_fn(|cx| a.poll_send_ready(cx)).await.unwrap();
    /// });
    /// ```
    pub fn poll_send_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.registered()
            .poll_ready(cx, Direction::Write)
            .map_ok(drop)
    }

    /// Polls to receive a datagram from the connected peer, as
    /// [`recv`](UnixDatagram::recv), in the read direction's shared slot
    /// (the last waker wins).
    ///
    /// # Errors
    ///
    /// The OS error of `recv`.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::future::poll_fn;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, b) = rt::net::UnixDatagram::pair().unwrap();
    ///     a.send(b"hi").await.unwrap();
    ///     let mut buf = [0; 8];
    ///     assert_eq!(poll_fn(|cx| b.poll_recv(cx, &mut buf)).await.unwrap(), 2);
    /// });
    /// ```
    pub fn poll_recv(&self, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>> {
        self.registered()
            .poll_io(cx, Direction::Read, |sys| sys.recv(buf))
    }

    /// Polls to send a datagram to the connected peer, as
    /// [`send`](UnixDatagram::send), in the write direction's shared slot
    /// (the last waker wins).
    ///
    /// # Errors
    ///
    /// The OS error of `send`.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::future::poll_fn;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = rt::net::UnixDatagram::pair().unwrap();
    ///     assert_eq!(poll_fn(|cx| a.poll_send(cx, b"abc")).await.unwrap(), 3);
    /// });
    /// ```
    pub fn poll_send(&self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        self.registered()
            .poll_io(cx, Direction::Write, |sys| sys.send(buf))
    }

    /// Polls to receive a datagram and its sender, as
    /// [`recv_from`](UnixDatagram::recv_from), in the read direction's
    /// shared slot (the last waker wins).
    ///
    /// # Errors
    ///
    /// The OS error of `recvfrom`.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::future::poll_fn;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, b) = rt::net::UnixDatagram::pair().unwrap();
    ///     a.send(b"hi").await.unwrap();
    ///     let mut buf = [0; 8];
    ///     let (n, from) = poll_fn(|cx| b.poll_recv_from(cx, &mut buf)).await.unwrap();
    ///     assert_eq!(n, 2);
    ///     assert!(from.is_unnamed());
    /// });
    /// ```
    pub fn poll_recv_from(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<(usize, SocketAddr)>> {
        self.registered()
            .poll_io(cx, Direction::Read, |sys| sys.recv_from(buf))
    }

    /// Polls to send a datagram to the socket at `path`, as
    /// [`send_to`](UnixDatagram::send_to), in the write direction's shared
    /// slot (the last waker wins).
    ///
    /// # Errors
    ///
    /// The OS error of `sendto`.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::future::poll_fn;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let path = std::env::temp_dir().join(format!("rt-doc-udpst-{}.sock", std::process::id()));
    ///     let _ = std::fs::remove_file(&path);
    ///     let server = rt::net::UnixDatagram::bind(&path).unwrap();
    ///     let client = rt::net::UnixDatagram::unbound().unwrap();
    ///     let n = poll_fn(|cx| client.poll_send_to(cx, b"hey", &path)).await.unwrap();
    ///     assert_eq!(server.recv(&mut [0; 8]).await.unwrap(), n);
    ///     std::fs::remove_file(&path).unwrap();
    /// });
    /// ```
    pub fn poll_send_to(
        &self,
        cx: &mut Context<'_>,
        buf: &[u8],
        path: impl AsRef<Path>,
    ) -> Poll<io::Result<usize>> {
        let path = path.as_ref();
        self.registered()
            .poll_io(cx, Direction::Write, |sys| sys.send_to(buf, path))
    }

    /// Polls to peek at the next datagram and its sender, as
    /// [`peek_from`](UnixDatagram::peek_from), in the read direction's
    /// shared slot (the last waker wins).
    ///
    /// # Errors
    ///
    /// The OS error of `recvfrom(MSG_PEEK)`.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::future::poll_fn;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, b) = rt::net::UnixDatagram::pair().unwrap();
    ///     a.send(b"stay").await.unwrap();
    ///     let mut buf = [0; 8];
    ///     let (n, _) = poll_fn(|cx| b.poll_peek_from(cx, &mut buf)).await.unwrap();
    ///     assert_eq!(b.recv(&mut buf).await.unwrap(), n);
    /// });
    /// ```
    pub fn poll_peek_from(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<(usize, SocketAddr)>> {
        self.registered()
            .poll_io(cx, Direction::Read, |sys| peek_from(sys, buf))
    }

    /// Receives a datagram from the connected peer without waiting.
    ///
    /// # Errors
    ///
    /// `WouldBlock` if none is ready (or readiness was not reported yet),
    /// or the OS error of `recv`.
    ///
    /// # Examples
    ///
    /// See [`UnixDatagram::readable`].
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = rt::net::UnixDatagram::pair().unwrap();
    ///     let err = a.try_recv(&mut [0; 4]).unwrap_err();
    ///     assert_eq!(err.kind(), std::io::ErrorKind::WouldBlock);
    /// });
    /// ```
    pub fn try_recv(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.registered()
            .try_io(Direction::Read, |sys| sys.recv(buf))
    }

    /// Sends a datagram to the connected peer without waiting.
    ///
    /// # Errors
    ///
    /// `WouldBlock` if the peer's queue is full (or writability was not
    /// reported yet), or the OS error of `send`.
    ///
    /// # Examples
    ///
    /// See [`UnixDatagram::writable`].
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = rt::net::UnixDatagram::pair().unwrap();
    ///     a.writable().await.unwrap();
    ///     assert_eq!(a.try_send(b"x").unwrap(), 1);
    /// });
    /// ```
    pub fn try_send(&self, buf: &[u8]) -> io::Result<usize> {
        self.registered()
            .try_io(Direction::Write, |sys| sys.send(buf))
    }

    /// Receives a datagram and its sender without waiting.
    ///
    /// # Errors
    ///
    /// `WouldBlock` if none is ready (or readiness was not reported yet),
    /// or the OS error of `recvfrom`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, b) = rt::net::UnixDatagram::pair().unwrap();
    ///     a.send(b"hi").await.unwrap();
    ///     b.readable().await.unwrap();
    ///     let (n, from) = b.try_recv_from(&mut [0; 8]).unwrap();
    ///     assert!(n == 2 && from.is_unnamed());
    /// });
    /// ```
    pub fn try_recv_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        self.registered()
            .try_io(Direction::Read, |sys| sys.recv_from(buf))
    }

    /// Sends a datagram to the socket at `path` without waiting.
    ///
    /// # Errors
    ///
    /// `WouldBlock` if the peer's queue is full (or writability was not
    /// reported yet), or the OS error of `sendto`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let path = std::env::temp_dir().join(format!("rt-doc-udtst-{}.sock", std::process::id()));
    ///     let _ = std::fs::remove_file(&path);
    ///     let server = rt::net::UnixDatagram::bind(&path).unwrap();
    ///     let client = rt::net::UnixDatagram::unbound().unwrap();
    ///     client.writable().await.unwrap();
    ///     assert_eq!(client.try_send_to(b"hey", &path).unwrap(), 3);
    ///     assert_eq!(server.recv(&mut [0; 8]).await.unwrap(), 3);
    ///     std::fs::remove_file(&path).unwrap();
    /// });
    /// ```
    pub fn try_send_to(&self, buf: &[u8], path: impl AsRef<Path>) -> io::Result<usize> {
        let path = path.as_ref();
        self.registered()
            .try_io(Direction::Write, |sys| sys.send_to(buf, path))
    }

    /// Peeks at the next datagram and its sender without waiting.
    ///
    /// # Errors
    ///
    /// `WouldBlock` if none is ready (or readiness was not reported yet),
    /// or the OS error of `recvfrom(MSG_PEEK)`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, b) = rt::net::UnixDatagram::pair().unwrap();
    ///     a.send(b"x").await.unwrap();
    ///     b.readable().await.unwrap();
    ///     let mut buf = [0; 4];
    ///     assert_eq!(b.try_peek_from(&mut buf).unwrap().0, 1);
    ///     assert_eq!(b.try_recv(&mut buf).unwrap(), 1);
    /// });
    /// ```
    pub fn try_peek_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        self.registered()
            .try_io(Direction::Read, |sys| peek_from(sys, buf))
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
    ///     let (a, _b) = rt::net::UnixDatagram::pair().unwrap();
    ///     a.writable().await.unwrap();
    ///     let socket = socket2::SockRef::from(&a);
    ///     assert_eq!(a.try_io(Interest::WRITABLE, || socket.send(b"raw")).unwrap(), 3);
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
    ///     let (a, _b) = rt::net::UnixDatagram::pair().unwrap();
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
