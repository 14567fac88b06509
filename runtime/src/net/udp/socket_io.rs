//! `UdpSocket`'s readiness and the I/O it does without an `async fn`:
//! waiting for an interest, the `poll_*` methods (one shared slot per
//! direction, the last waker wins) and the non-blocking `try_*` attempts.

use super::UdpSocket;
use super::socket::peek_sender;
use rt_reactor::{Direction, Interest, Ready};
use std::io;
use std::net::SocketAddr;
use std::task::{Context, Poll};

impl UdpSocket {
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
    ///     let socket = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     let ready = socket.ready(Interest::READABLE | Interest::WRITABLE).await.unwrap();
    ///     assert!(ready.is_writable());
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
    ///     let socket = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     socket.send_to(b"me", socket.local_addr().unwrap()).await.unwrap();
    ///     socket.readable().await.unwrap();
    ///     let mut buf = [0; 4];
    ///     assert_eq!(socket.try_recv_from(&mut buf).unwrap().0, 2);
    /// });
    /// ```
    pub async fn readable(&self) -> io::Result<()> {
        self.registered().ready(Direction::Read).await.map(drop)
    }

    /// Waits until a datagram can be sent.
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
    ///     let socket = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     socket.writable().await.unwrap();
    ///     let to = socket.local_addr().unwrap();
    ///     assert_eq!(socket.try_send_to(b"now", to).unwrap(), 3);
    /// });
    /// ```
    pub async fn writable(&self) -> io::Result<()> {
        self.registered().ready(Direction::Write).await.map(drop)
    }

    /// Polls for receive readiness, in the read direction's shared slot
    /// (the last caller's waker wins; tasks sharing the socket await
    /// [`readable`](UdpSocket::readable)).
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
    ///     let socket = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     socket.send_to(b"x", socket.local_addr().unwrap()).await.unwrap();
    ///     poll_fn(|cx| socket.poll_recv_ready(cx)).await.unwrap();
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
    ///     let socket = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     poll_fn(|cx| socket.poll_send_ready(cx)).await.unwrap();
    /// });
    /// ```
    pub fn poll_send_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.registered()
            .poll_ready(cx, Direction::Write)
            .map_ok(drop)
    }

    /// Polls to receive a datagram from the connected peer, as
    /// [`recv`](UdpSocket::recv), in the read direction's shared slot (the
    /// last waker wins).
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
    ///     let socket = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     socket.connect(socket.local_addr().unwrap()).await.unwrap();
    ///     socket.send(b"loop").await.unwrap();
    ///     let mut buf = [0; 8];
    ///     let n = poll_fn(|cx| socket.poll_recv(cx, &mut buf)).await.unwrap();
    ///     assert_eq!(&buf[..n], b"loop");
    /// });
    /// ```
    pub fn poll_recv(&self, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>> {
        self.registered()
            .poll_io(cx, Direction::Read, |sys| sys.recv(buf))
    }

    /// Polls to send a datagram to the connected peer, as
    /// [`send`](UdpSocket::send), in the write direction's shared slot
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
    ///     let socket = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     socket.connect(socket.local_addr().unwrap()).await.unwrap();
    ///     assert_eq!(poll_fn(|cx| socket.poll_send(cx, b"abc")).await.unwrap(), 3);
    /// });
    /// ```
    pub fn poll_send(&self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        self.registered()
            .poll_io(cx, Direction::Write, |sys| sys.send(buf))
    }

    /// Polls to receive a datagram and its sender, as
    /// [`recv_from`](UdpSocket::recv_from), in the read direction's shared
    /// slot (the last waker wins).
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
    ///     let socket = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     let me = socket.local_addr().unwrap();
    ///     socket.send_to(b"hi", me).await.unwrap();
    ///     let mut buf = [0; 8];
    ///     let (n, from) = poll_fn(|cx| socket.poll_recv_from(cx, &mut buf)).await.unwrap();
    ///     assert_eq!((n, from), (2, me));
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

    /// Polls to send a datagram to `target`, as
    /// [`send_to`](UdpSocket::send_to), in the write direction's shared
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
    ///     let socket = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     let me = socket.local_addr().unwrap();
    ///     assert_eq!(poll_fn(|cx| socket.poll_send_to(cx, b"hi", me)).await.unwrap(), 2);
    /// });
    /// ```
    pub fn poll_send_to(
        &self,
        cx: &mut Context<'_>,
        buf: &[u8],
        target: SocketAddr,
    ) -> Poll<io::Result<usize>> {
        self.registered()
            .poll_io(cx, Direction::Write, |sys| sys.send_to(buf, target))
    }

    /// Polls to peek at the next datagram and its sender, as
    /// [`peek_from`](UdpSocket::peek_from), in the read direction's shared
    /// slot (the last waker wins).
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
    ///     let socket = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     let me = socket.local_addr().unwrap();
    ///     socket.send_to(b"stay", me).await.unwrap();
    ///     let mut buf = [0; 8];
    ///     let (n, _) = poll_fn(|cx| socket.poll_peek_from(cx, &mut buf)).await.unwrap();
    ///     assert_eq!(socket.recv_from(&mut buf).await.unwrap().0, n);
    /// });
    /// ```
    pub fn poll_peek_from(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<(usize, SocketAddr)>> {
        self.registered()
            .poll_io(cx, Direction::Read, |sys| sys.peek_from(buf))
    }

    /// Polls to peek at the next datagram from the connected peer, as
    /// [`peek`](UdpSocket::peek), in the read direction's shared slot (the
    /// last waker wins).
    ///
    /// # Errors
    ///
    /// The OS error of `recv(MSG_PEEK)`.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::future::poll_fn;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let socket = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     socket.connect(socket.local_addr().unwrap()).await.unwrap();
    ///     socket.send(b"stay").await.unwrap();
    ///     let mut buf = [0; 8];
    ///     let n = poll_fn(|cx| socket.poll_peek(cx, &mut buf)).await.unwrap();
    ///     assert_eq!(socket.recv(&mut buf).await.unwrap(), n);
    /// });
    /// ```
    pub fn poll_peek(&self, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>> {
        self.registered()
            .poll_io(cx, Direction::Read, |sys| sys.peek(buf))
    }

    /// Polls for the sender of the next datagram, as
    /// [`peek_sender`](UdpSocket::peek_sender), in the read direction's
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
    ///     let socket = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     let me = socket.local_addr().unwrap();
    ///     socket.send_to(b"x", me).await.unwrap();
    ///     assert_eq!(poll_fn(|cx| socket.poll_peek_sender(cx)).await.unwrap(), me);
    /// });
    /// ```
    pub fn poll_peek_sender(&self, cx: &mut Context<'_>) -> Poll<io::Result<SocketAddr>> {
        self.registered().poll_io(cx, Direction::Read, peek_sender)
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
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let socket = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     socket.connect(socket.local_addr().unwrap()).await.unwrap();
    ///     let err = socket.try_recv(&mut [0; 4]).unwrap_err();
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
    /// `WouldBlock` if the socket buffer is full (or writability was not
    /// reported yet), or the OS error of `send`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let socket = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     socket.connect(socket.local_addr().unwrap()).await.unwrap();
    ///     socket.writable().await.unwrap();
    ///     assert_eq!(socket.try_send(b"now").unwrap(), 3);
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
    /// See [`UdpSocket::readable`].
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let socket = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     let err = socket.try_recv_from(&mut [0; 4]).unwrap_err();
    ///     assert_eq!(err.kind(), std::io::ErrorKind::WouldBlock);
    /// });
    /// ```
    pub fn try_recv_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        self.registered()
            .try_io(Direction::Read, |sys| sys.recv_from(buf))
    }

    /// Sends a datagram to `target` without waiting.
    ///
    /// # Errors
    ///
    /// `WouldBlock` if the socket buffer is full (or writability was not
    /// reported yet), or the OS error of `sendto`.
    ///
    /// # Examples
    ///
    /// See [`UdpSocket::writable`].
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let socket = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     socket.writable().await.unwrap();
    ///     let me = socket.local_addr().unwrap();
    ///     assert_eq!(socket.try_send_to(b"x", me).unwrap(), 1);
    /// });
    /// ```
    pub fn try_send_to(&self, buf: &[u8], target: SocketAddr) -> io::Result<usize> {
        self.registered()
            .try_io(Direction::Write, |sys| sys.send_to(buf, target))
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
    ///     let socket = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     socket.send_to(b"x", socket.local_addr().unwrap()).await.unwrap();
    ///     socket.readable().await.unwrap();
    ///     let mut buf = [0; 4];
    ///     assert_eq!(socket.try_peek_from(&mut buf).unwrap().0, 1);
    ///     assert_eq!(socket.try_recv_from(&mut buf).unwrap().0, 1);
    /// });
    /// ```
    pub fn try_peek_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        self.registered()
            .try_io(Direction::Read, |sys| sys.peek_from(buf))
    }

    /// Peeks at the next datagram from the connected peer without waiting.
    ///
    /// # Errors
    ///
    /// `WouldBlock` if none is ready (or readiness was not reported yet),
    /// or the OS error of `recv(MSG_PEEK)`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let socket = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     socket.connect(socket.local_addr().unwrap()).await.unwrap();
    ///     socket.send(b"x").await.unwrap();
    ///     socket.readable().await.unwrap();
    ///     let mut buf = [0; 4];
    ///     assert_eq!(socket.try_peek(&mut buf).unwrap(), 1);
    ///     assert_eq!(socket.try_recv(&mut buf).unwrap(), 1);
    /// });
    /// ```
    pub fn try_peek(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.registered()
            .try_io(Direction::Read, |sys| sys.peek(buf))
    }

    /// The sender of the next datagram, without waiting; the datagram stays
    /// in the queue.
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
    ///     let socket = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     let me = socket.local_addr().unwrap();
    ///     let err = socket.try_peek_sender().unwrap_err();
    ///     assert_eq!(err.kind(), std::io::ErrorKind::WouldBlock);
    ///     socket.send_to(b"x", me).await.unwrap();
    ///     socket.readable().await.unwrap();
    ///     assert_eq!(socket.try_peek_sender().unwrap(), me);
    /// });
    /// ```
    pub fn try_peek_sender(&self) -> io::Result<SocketAddr> {
        self.registered().try_io(Direction::Read, peek_sender)
    }

    /// Runs `op` once, without waiting, if the reactor has reported the
    /// readiness of `interest`; an `op` that would block clears that
    /// readiness. For socket calls rt has no method for (`sendmsg` through
    /// [`socket2::SockRef`], say).
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
    ///     let socket = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     let me = socket.local_addr().unwrap();
    ///     socket.writable().await.unwrap();
    ///     let sent = socket
    ///         .try_io(Interest::WRITABLE, || socket2::SockRef::from(&socket).send_to(b"raw", &me.into()))
    ///         .unwrap();
    ///     assert_eq!(sent, 3);
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
    ///     let socket = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     let me = socket.local_addr().unwrap();
    ///     let sent = socket
    ///         .async_io(Interest::WRITABLE, || socket2::SockRef::from(&socket).send_to(b"raw", &me.into()))
    ///         .await
    ///         .unwrap();
    ///     assert_eq!(sent, 3);
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
