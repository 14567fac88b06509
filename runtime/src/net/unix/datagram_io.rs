//! `UnixDatagram`'s readiness and the I/O it does without an `async fn`:
//! waiting for an interest, the `poll_*` methods (one shared slot per
//! direction, the last waker wins) and the non-blocking `try_*` attempts.

use super::{SocketAddr, UnixDatagram};
use crate::net::datagram_io::datagram_io;
use std::path::Path;

impl UnixDatagram {
    datagram_io! {
        socket: UnixDatagram, address: SocketAddr,
        target: path: impl AsRef<Path> => path.as_ref(),
        to: "the socket at `path`", full: "the peer's queue is full";

        ready {
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
        }

        readable {
            /// ```
            /// let rt = rt::runtime::Runtime::new().unwrap();
            /// rt.block_on(async {
            ///     let (a, b) = rt::net::UnixDatagram::pair().unwrap();
            ///     a.send(b"hey").await.unwrap();
            ///     b.readable().await.unwrap();
            ///     assert_eq!(b.try_recv(&mut [0; 8]).unwrap(), 3);
            /// });
            /// ```
        }

        /// Waits until a datagram can be sent (the peer's queue has room).
        writable {
            /// ```
            /// let rt = rt::runtime::Runtime::new().unwrap();
            /// rt.block_on(async {
            ///     let (a, _b) = rt::net::UnixDatagram::pair().unwrap();
            ///     a.writable().await.unwrap();
            ///     assert_eq!(a.try_send(b"now").unwrap(), 3);
            /// });
            /// ```
        }

        /// Polls for receive readiness, in the read direction's shared slot
        /// (the last caller's waker wins).
        poll_recv_ready {
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
        }

        poll_send_ready {
            /// ```
            /// use std::future::poll_fn;
            ///
            /// let rt = rt::runtime::Runtime::new().unwrap();
            /// rt.block_on(async {
            ///     let (a, _b) = rt::net::UnixDatagram::pair().unwrap();
            ///     poll_fn(|cx| a.poll_send_ready(cx)).await.unwrap();
            /// });
            /// ```
        }

        poll_recv {
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
        }

        poll_send {
            /// ```
            /// use std::future::poll_fn;
            ///
            /// let rt = rt::runtime::Runtime::new().unwrap();
            /// rt.block_on(async {
            ///     let (a, _b) = rt::net::UnixDatagram::pair().unwrap();
            ///     assert_eq!(poll_fn(|cx| a.poll_send(cx, b"abc")).await.unwrap(), 3);
            /// });
            /// ```
        }

        poll_recv_from {
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
        }

        poll_send_to {
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
        }

        poll_peek_from {
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
        }

        try_recv {
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
        }

        try_send {
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
        }

        try_recv_from {
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
        }

        try_send_to {
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
        }

        try_peek_from {
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
        }

        /// Runs `op` once, without waiting, if the reactor has reported the
        /// readiness of `interest`; an `op` that would block clears that
        /// readiness, not the closed states (final, as in tokio's). For
        /// socket calls rt has no method for (passing descriptors with
        /// `sendmsg`, say).
        try_io {
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
        }

        async_io {
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
        }
    }
}
