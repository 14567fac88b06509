//! The datagram sockets' receives into a `bytes::BufMut` (feature
//! `bytes`), the same for [`UdpSocket`](crate::net::UdpSocket) and
//! [`UnixDatagram`](crate::net::UnixDatagram): tokio's `recv_buf`,
//! `recv_buf_from` and their `try_` forms. The kernel writes each datagram
//! straight into the buffer's spare capacity (`io::sys::recv_buf`,
//! `recv_buf_from`): nothing is zeroed first.
//!
//! A datagram longer than the spare chunk (`BufMut::chunk_mut`) is cut to
//! it and the rest is discarded, as with a slice too short for `recv`; a
//! buffer with no room at all discards the whole datagram and gets 0. A
//! full `Vec<u8>` or `BytesMut` (`Vec::new()` included) offers a 64-byte
//! chunk: reserve room for the largest datagram expected first.
//!
//! Each socket type gives the macro its four receives (`bytes_recv`,
//! `bytes_recv_from`, `bytes_try_recv`, `bytes_try_recv_from`): the Unix
//! datagram socket's read through its registration, the UDP socket's go
//! through its I/O layer, which a simulation (`rt::sim`) takes over.

/// One doc example: `setup` makes the connected pair `a` (sender) and `b`
/// (receiver), then `body` runs, inside a runtime.
macro_rules! example {
    ($setup:literal, $body:expr) => {
        concat!(
            "# Examples\n\n```\nlet rt = rt::runtime::Runtime::new().unwrap();\n",
            "rt.block_on(async {\n",
            $setup,
            "    let mut buf = bytes::BytesMut::with_capacity(1500);\n",
            $body,
            "});\n```",
        )
    };
}

/// ```text
/// datagram_buf! {
///     socket: UdpSocket, address: SocketAddr;
///     example: "lines making the connected pair `a`, `b`";
/// }
/// ```
macro_rules! datagram_buf {
    (
        socket: $Socket:ident, address: $Addr:ty;
        example: $setup:literal;
    ) => {
        impl $Socket {
            #[doc = concat!(
                "Receives a datagram from the connected peer into the spare capacity of ",
                "`buf` (feature `bytes`), advancing `buf` past it; returns its length. ",
                "Bytes beyond the spare chunk are discarded: reserve room for the largest ",
                "datagram first (a full `Vec` or `BytesMut` offers 64 bytes).\n\n",
                "# Errors\n\nThe OS error of `recv`.\n",
            )]
            #[doc = crate::net::datagram_buf::example!(
                $setup,
                "    a.send(b\"ping\").await.unwrap();\n\
                 \x20   assert_eq!(b.recv_buf(&mut buf).await.unwrap(), 4);\n\
                 \x20   assert_eq!(&buf[..], b\"ping\");\n"
            )]
            pub async fn recv_buf<B: ::bytes::BufMut + ?Sized>(
                &self,
                buf: &mut B,
            ) -> ::std::io::Result<usize> {
                self.bytes_recv(buf).await
            }

            #[doc = concat!(
                "Receives a datagram and the address it came from into the spare capacity ",
                "of `buf` (feature `bytes`), advancing `buf` past it; returns its length ",
                "and the sender. Bytes beyond the spare chunk are discarded: reserve room ",
                "for the largest datagram first (a full `Vec` or `BytesMut` offers 64 ",
                "bytes).\n\n",
                "# Errors\n\nThe OS error of `recvfrom`.\n",
            )]
            #[doc = crate::net::datagram_buf::example!(
                $setup,
                "    a.send(b\"hello\").await.unwrap();\n\
                 \x20   let (n, from) = b.recv_buf_from(&mut buf).await.unwrap();\n\
                 \x20   assert_eq!(n, 5);\n\
                 \x20   assert_eq!(format!(\"{from:?}\"), format!(\"{:?}\", a.local_addr().unwrap()));\n\
                 \x20   assert_eq!(&buf[..], b\"hello\");\n"
            )]
            pub async fn recv_buf_from<B: ::bytes::BufMut + ?Sized>(
                &self,
                buf: &mut B,
            ) -> ::std::io::Result<(usize, $Addr)> {
                self.bytes_recv_from(buf).await
            }

            #[doc = concat!(
                "Receives a datagram from the connected peer into the spare capacity of ",
                "`buf` without waiting (feature `bytes`), as [`recv_buf`](",
                stringify!($Socket), "::recv_buf).\n\n",
                "# Errors\n\n`WouldBlock` if none is ready (or readiness was not reported ",
                "yet), or the OS error of `recv`; `buf` is then left as it was.\n",
            )]
            #[doc = crate::net::datagram_buf::example!(
                $setup,
                "    let err = b.try_recv_buf(&mut buf).unwrap_err();\n\
                 \x20   assert_eq!(err.kind(), std::io::ErrorKind::WouldBlock);\n\
                 \x20   a.send(b\"now\").await.unwrap();\n\
                 \x20   b.readable().await.unwrap();\n\
                 \x20   assert_eq!(b.try_recv_buf(&mut buf).unwrap(), 3);\n\
                 \x20   assert_eq!(&buf[..], b\"now\");\n"
            )]
            pub fn try_recv_buf<B: ::bytes::BufMut + ?Sized>(
                &self,
                buf: &mut B,
            ) -> ::std::io::Result<usize> {
                self.bytes_try_recv(buf)
            }

            #[doc = concat!(
                "Receives a datagram and its sender into the spare capacity of `buf` ",
                "without waiting (feature `bytes`), as [`recv_buf_from`](",
                stringify!($Socket), "::recv_buf_from).\n\n",
                "# Errors\n\n`WouldBlock` if none is ready (or readiness was not reported ",
                "yet), or the OS error of `recvfrom`; `buf` is then left as it was.\n",
            )]
            #[doc = crate::net::datagram_buf::example!(
                $setup,
                "    let err = b.try_recv_buf_from(&mut buf).unwrap_err();\n\
                 \x20   assert_eq!(err.kind(), std::io::ErrorKind::WouldBlock);\n\
                 \x20   a.send(b\"now\").await.unwrap();\n\
                 \x20   b.readable().await.unwrap();\n\
                 \x20   let (n, from) = b.try_recv_buf_from(&mut buf).unwrap();\n\
                 \x20   assert_eq!(n, 3);\n\
                 \x20   assert_eq!(format!(\"{from:?}\"), format!(\"{:?}\", a.local_addr().unwrap()));\n\
                 \x20   assert_eq!(&buf[..], b\"now\");\n"
            )]
            pub fn try_recv_buf_from<B: ::bytes::BufMut + ?Sized>(
                &self,
                buf: &mut B,
            ) -> ::std::io::Result<(usize, $Addr)> {
                self.bytes_try_recv_from(buf)
            }
        }
    };
}

/// One `recv` from `socket` into `buf`'s spare capacity.
pub(crate) fn receive<B>(socket: &impl std::os::fd::AsRawFd, buf: &mut B) -> std::io::Result<usize>
where
    B: bytes::BufMut + ?Sized,
{
    crate::io::sys::recv_buf(socket.as_raw_fd(), buf)
}

/// One `recvfrom` from `socket` into `buf`'s spare capacity, with the
/// sender converted by `sender` (an IP or a Unix-domain address).
pub(crate) fn receive_from<B, A>(
    socket: &impl std::os::fd::AsFd,
    buf: &mut B,
    sender: fn(&socket2::SockAddr) -> std::io::Result<A>,
) -> std::io::Result<(usize, A)>
where
    B: bytes::BufMut + ?Sized,
{
    let (received, from) = crate::io::sys::recv_buf_from(socket2::SockRef::from(socket), buf)?;
    Ok((received, sender(&from)?))
}

pub(crate) use datagram_buf;
pub(crate) use example;
