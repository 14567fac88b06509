//! `UdpSocket`'s readiness and the I/O it does without an `async fn`:
//! waiting for an interest, the `poll_*` methods (one shared slot per
//! direction, the last waker wins) and the non-blocking `try_*` attempts.

use super::UdpSocket;
use crate::net::datagram_io::datagram_io;
use std::io;
use std::net::SocketAddr;
use std::task::{Context, Poll};

impl UdpSocket {
    datagram_io! {
        socket: UdpSocket, address: SocketAddr, target: target: SocketAddr => target,
        to: "`target`", full: "the socket buffer is full";

        ready {
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
        }

        readable {
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
        }

        /// Waits until a datagram can be sent.
        writable {
            /// ```
            /// let rt = rt::runtime::Runtime::new().unwrap();
            /// rt.block_on(async {
            ///     let socket = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
            ///     socket.writable().await.unwrap();
            ///     let to = socket.local_addr().unwrap();
            ///     assert_eq!(socket.try_send_to(b"now", to).unwrap(), 3);
            /// });
            /// ```
        }

        /// Polls for receive readiness, in the read direction's shared slot
        /// (the last caller's waker wins; tasks sharing the socket await
        /// [`readable`](UdpSocket::readable)).
        poll_recv_ready {
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
        }

        poll_send_ready {
            /// ```
            /// use std::future::poll_fn;
            ///
            /// let rt = rt::runtime::Runtime::new().unwrap();
            /// rt.block_on(async {
            ///     let socket = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
            ///     poll_fn(|cx| socket.poll_send_ready(cx)).await.unwrap();
            /// });
            /// ```
        }

        poll_recv {
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
        }

        poll_send {
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
        }

        poll_recv_from {
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
        }

        poll_send_to {
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
        }

        poll_peek_from {
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
        }
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
        self.registered().poll_peek(cx, buf)
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
        self.registered().poll_peek_sender(cx)
    }

    datagram_io! {
        socket: UdpSocket, address: SocketAddr, target: target: SocketAddr => target,
        to: "`target`", full: "the socket buffer is full";

        try_recv {
            /// ```
            /// let rt = rt::runtime::Runtime::new().unwrap();
            /// rt.block_on(async {
            ///     let socket = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
            ///     socket.connect(socket.local_addr().unwrap()).await.unwrap();
            ///     let err = socket.try_recv(&mut [0; 4]).unwrap_err();
            ///     assert_eq!(err.kind(), std::io::ErrorKind::WouldBlock);
            /// });
            /// ```
        }

        try_send {
            /// ```
            /// let rt = rt::runtime::Runtime::new().unwrap();
            /// rt.block_on(async {
            ///     let socket = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
            ///     socket.connect(socket.local_addr().unwrap()).await.unwrap();
            ///     socket.writable().await.unwrap();
            ///     assert_eq!(socket.try_send(b"now").unwrap(), 3);
            /// });
            /// ```
        }

        try_recv_from {
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
        }

        try_send_to {
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
        }

        try_peek_from {
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
        }
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
        self.registered().try_peek(buf)
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
        self.registered().try_peek_sender()
    }

    datagram_io! {
        socket: UdpSocket, address: SocketAddr, target: target: SocketAddr => target,
        to: "`target`", full: "the socket buffer is full";

        /// Runs `op` once, without waiting, if the reactor has reported the
        /// readiness of `interest`; an `op` that would block clears that
        /// readiness, not the closed states (final, as in tokio's). For
        /// socket calls rt has no method for (`sendmsg` through
        /// [`socket2::SockRef`], say).
        try_io {
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
        }

        async_io {
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
        }
    }
}
