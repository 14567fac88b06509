//! What the halves of a split stream have in common, for TCP and
//! Unix-domain streams alike, borrowed ([`split`]) or owned
//! ([`into_split`]): the `AsyncRead` / `AsyncWrite`, `Debug` and
//! `AsRef<stream>` impls, and tokio's readiness surface on each half
//! (`ready`, `readable`/`writable`, the scalar and vectored `try_*`
//! calls, `try_read_buf` with the `bytes` feature, the two addresses).
//! Every half forwards to its stream on `&self`, and only ever to its own
//! side of the registration (the read waker or the write waker), so a
//! reader and a writer never steal each other's wake-ups; a write half's
//! close is the stream's `shutdown_write`.
//!
//! The half types themselves, `reunite` and `forget` come from
//! `split_halves.rs`; what differs stays in `tcp/split.rs` and
//! `unix/split.rs` (the doc examples, and TCP's `peek`).
//!
//! [`split`]: crate::net::TcpStream::split
//! [`into_split`]: crate::net::TcpStream::into_split

/// One doc example: the `use` lines, then `setup` (which names the halves
/// `read` and `write` and the other end `peer`) and `body` inside a
/// runtime.
macro_rules! example {
    ($uses:literal, $setup:literal, $body:expr) => {
        concat!(
            "# Examples\n\n```\n",
            $uses,
            "\n\nlet rt = rt::runtime::Runtime::new().unwrap();\nrt.block_on(async {\n",
            $setup,
            $body,
            "});\n```",
        )
    };
}

/// ```text
/// halves! {
///     stream: TcpStream, address: SocketAddr;
///     ReadHalf<'_>, WriteHalf<'_> => |s| expression giving the stream;
///     example: "lines making `read`, `write` and `peer`";
///     ...
/// }
/// ```
macro_rules! halves {
    (
        stream: $Stream:ident, address: $Addr:ty;
        $(
            $read:ty, $write:ty => |$s:ident| $stream:expr;
            example: $setup:literal;
        )*
    ) => {$(
        impl $read {
            #[doc = concat!(
                "Waits until the stream is readable (data, end-of-file or an error), as [`",
                stringify!($Stream), "::readable`].\n\n",
                "# Errors\n\nFails once the runtime's I/O driver has shut down.\n",
            )]
            #[doc = crate::net::halves::example!(
                "use rt::io::AsyncWriteExt;",
                $setup,
                "    peer.write_all(b\"hi\").await.unwrap();\n\
                 \x20   read.readable().await.unwrap();\n\
                 \x20   assert_eq!(read.try_read(&mut [0; 8]).unwrap(), 2);\n"
            )]
            pub async fn readable(&self) -> ::std::io::Result<()> {
                let $s = self;
                $stream.readable().await
            }

            #[doc = concat!(
                "Reads once without waiting, as [`", stringify!($Stream), "::try_read`]; ",
                "`Ok(0)` is end-of-file (or an empty `buf`).\n\n",
                "# Errors\n\n`WouldBlock` if no data is ready (or readiness was not ",
                "reported yet), or the OS error of `read`.\n",
            )]
            #[doc = crate::net::halves::example!(
                "use rt::io::AsyncWriteExt;",
                $setup,
                "    let mut buf = [0; 8];\n\
                 \x20   let err = read.try_read(&mut buf).unwrap_err();\n\
                 \x20   assert_eq!(err.kind(), std::io::ErrorKind::WouldBlock);\n\
                 \x20   peer.write_all(b\"hi\").await.unwrap();\n\
                 \x20   read.readable().await.unwrap();\n\
                 \x20   let n = read.try_read(&mut buf).unwrap();\n\
                 \x20   assert_eq!(&buf[..n], b\"hi\");\n"
            )]
            pub fn try_read(&self, buf: &mut [u8]) -> ::std::io::Result<usize> {
                let $s = self;
                $stream.try_read(buf)
            }

            #[doc = concat!(
                "Reads once without waiting (feature `bytes`) into the spare capacity of ",
                "`buf`, advancing it past the bytes read, as [`", stringify!($Stream),
                "::try_read_buf`]; `Ok(0)` is end-of-file (or no room in `buf`).\n\n",
                "# Errors\n\n`WouldBlock` if no data is ready (or readiness was not ",
                "reported yet), or the OS error of `recv`; `buf` is then left as it was.\n",
            )]
            #[doc = crate::net::halves::example!(
                "use rt::io::AsyncWriteExt;",
                $setup,
                "    let mut buf = bytes::BytesMut::with_capacity(8);\n\
                 \x20   let err = read.try_read_buf(&mut buf).unwrap_err();\n\
                 \x20   assert_eq!(err.kind(), std::io::ErrorKind::WouldBlock);\n\
                 \x20   peer.write_all(b\"hi\").await.unwrap();\n\
                 \x20   while buf.len() < 2 {\n\
                 \x20       read.readable().await.unwrap();\n\
                 \x20       match read.try_read_buf(&mut buf) {\n\
                 \x20           Ok(n) => assert!(n > 0),\n\
                 \x20           Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}\n\
                 \x20           Err(e) => panic!(\"{e}\"),\n\
                 \x20       }\n\
                 \x20   }\n\
                 \x20   assert_eq!(&buf[..], b\"hi\");\n"
            )]
            #[cfg(feature = "bytes")]
            pub fn try_read_buf<B: ::bytes::BufMut + ?Sized>(
                &self,
                buf: &mut B,
            ) -> ::std::io::Result<usize> {
                let $s = self;
                $stream.try_read_buf(buf)
            }

            #[doc = concat!(
                "Reads once into several buffers without waiting (one `readv`), as [`",
                stringify!($Stream), "::try_read_vectored`].\n\n",
                "# Errors\n\n`WouldBlock` if no data is ready (or readiness was not ",
                "reported yet), or the OS error of `readv`.\n",
            )]
            #[doc = crate::net::halves::example!(
                "use rt::io::AsyncWriteExt;\nuse std::io::IoSliceMut;",
                $setup,
                "    peer.write_all(b\"hi\").await.unwrap();\n\
                 \x20   read.readable().await.unwrap();\n\
                 \x20   let (mut head, mut rest) = ([0; 1], [0; 8]);\n\
                 \x20   let mut bufs = [IoSliceMut::new(&mut head), IoSliceMut::new(&mut rest)];\n\
                 \x20   assert_eq!(read.try_read_vectored(&mut bufs).unwrap(), 2);\n\
                 \x20   assert_eq!((&head, rest[0]), (b\"h\", b'i'));\n"
            )]
            pub fn try_read_vectored(
                &self,
                bufs: &mut [::std::io::IoSliceMut<'_>],
            ) -> ::std::io::Result<usize> {
                let $s = self;
                $stream.try_read_vectored(bufs)
            }

        }

        impl $write {
            #[doc = concat!(
                "Waits until the stream is writable, as [`",
                stringify!($Stream), "::writable`].\n\n",
                "# Errors\n\nFails once the runtime's I/O driver has shut down.\n",
            )]
            #[doc = crate::net::halves::example!(
                "use rt::io::AsyncReadExt;",
                $setup,
                "    write.writable().await.unwrap();\n\
                 \x20   assert_eq!(write.try_write(b\"hi\").unwrap(), 2);\n\
                 \x20   let mut got = [0; 2];\n\
                 \x20   peer.read_exact(&mut got).await.unwrap();\n\
                 \x20   assert_eq!(&got, b\"hi\");\n"
            )]
            pub async fn writable(&self) -> ::std::io::Result<()> {
                let $s = self;
                $stream.writable().await
            }

            #[doc = concat!(
                "Writes once without waiting, as [`", stringify!($Stream), "::try_write`]: ",
                "as much of `buf` as the socket buffer takes.\n\n",
                "# Errors\n\n`WouldBlock` if the socket buffer is full (or writability ",
                "was not reported yet), or the OS error of `write`.\n",
            )]
            #[doc = crate::net::halves::example!(
                "",
                $setup,
                "    // Fill the socket buffer: then a write waits for the peer to read.\n\
                 \x20   let chunk = [0; 64 * 1024];\n\
                 \x20   loop {\n\
                 \x20       write.writable().await.unwrap();\n\
                 \x20       match write.try_write(&chunk) {\n\
                 \x20           Ok(n) => assert!(n > 0),\n\
                 \x20           Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,\n\
                 \x20           Err(e) => panic!(\"{e}\"),\n\
                 \x20       }\n\
                 \x20   }\n"
            )]
            pub fn try_write(&self, buf: &[u8]) -> ::std::io::Result<usize> {
                let $s = self;
                $stream.try_write(buf)
            }

            #[doc = concat!(
                "Writes several buffers once without waiting (one `writev`), as [`",
                stringify!($Stream), "::try_write_vectored`].\n\n",
                "# Errors\n\n`WouldBlock` if the socket buffer is full (or writability ",
                "was not reported yet), or the OS error of `writev`.\n",
            )]
            #[doc = crate::net::halves::example!(
                "use rt::io::AsyncReadExt;\nuse std::io::IoSlice;",
                $setup,
                "    write.writable().await.unwrap();\n\
                 \x20   let bufs = [IoSlice::new(b\"he\"), IoSlice::new(b\"llo\")];\n\
                 \x20   assert_eq!(write.try_write_vectored(&bufs).unwrap(), 5);\n\
                 \x20   let mut got = [0; 5];\n\
                 \x20   peer.read_exact(&mut got).await.unwrap();\n\
                 \x20   assert_eq!(&got, b\"hello\");\n"
            )]
            pub fn try_write_vectored(
                &self,
                bufs: &[::std::io::IoSlice<'_>],
            ) -> ::std::io::Result<usize> {
                let $s = self;
                $stream.try_write_vectored(bufs)
            }


        }

        crate::net::registered_io::async_read_write! {
            read: $read, write: $write => |$s| $stream
        }

        crate::net::halves::halves! {
            @common $read, "read" => |$s| $stream, $Stream, $Addr, $setup;
            ready example: "use rt::io::{AsyncWriteExt, Interest};",
                "    peer.write_all(b\"hi\").await.unwrap();\n\
                 \x20   assert!(read.ready(Interest::READABLE).await.unwrap().is_readable());\n"
        }
        crate::net::halves::halves! {
            @common $write, "write" => |$s| $stream, $Stream, $Addr, $setup;
            ready example: "use rt::io::Interest;",
                "    assert!(write.ready(Interest::WRITABLE).await.unwrap().is_writable());\n"
        }
    )*};

    // `ready`, the addresses, `Debug` and `AsRef<stream>`, the same for
    // both halves; `$half` names the half in the examples.
    (
        @common $ty:ty, $half:literal => |$s:ident| $stream:expr,
        $Stream:ident, $Addr:ty, $setup:literal;
        ready example: $ready_uses:literal, $ready_body:literal
    ) => {
        impl $ty {
            #[doc = concat!(
                "Waits for the readiness of `interest`, as [`",
                stringify!($Stream), "::ready`].\n\n",
                "# Errors\n\nFails once the runtime's I/O driver has shut down.\n",
            )]
            #[doc = crate::net::halves::example!($ready_uses, $setup, $ready_body)]
            pub async fn ready(
                &self,
                interest: ::rt_reactor::Interest,
            ) -> ::std::io::Result<::rt_reactor::Ready> {
                let $s = self;
                $stream.ready(interest).await
            }

            #[doc = concat!(
                "The address of the peer, as [`", stringify!($Stream), "::peer_addr`].\n\n",
                "# Errors\n\nThe OS error of `getpeername`.\n",
            )]
            #[doc = crate::net::halves::example!(
                "",
                $setup,
                concat!(
                    "    let (ours, theirs) = (", $half, ".peer_addr().unwrap(), ",
                    "peer.local_addr().unwrap());\n",
                    "    assert_eq!(format!(\"{ours:?}\"), format!(\"{theirs:?}\"));\n",
                )
            )]
            pub fn peer_addr(&self) -> ::std::io::Result<$Addr> {
                let $s = self;
                $stream.peer_addr()
            }

            #[doc = concat!(
                "The local address, as [`", stringify!($Stream), "::local_addr`].\n\n",
                "# Errors\n\nThe OS error of `getsockname`.\n",
            )]
            #[doc = crate::net::halves::example!(
                "",
                $setup,
                concat!(
                    "    let (ours, theirs) = (", $half, ".local_addr().unwrap(), ",
                    "peer.peer_addr().unwrap());\n",
                    "    assert_eq!(format!(\"{ours:?}\"), format!(\"{theirs:?}\"));\n",
                )
            )]
            pub fn local_addr(&self) -> ::std::io::Result<$Addr> {
                let $s = self;
                $stream.local_addr()
            }
        }

        impl ::std::fmt::Debug for $ty {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                let $s = self;
                f.debug_tuple(stringify!($ty)).field(&*$stream).finish()
            }
        }

        impl ::std::convert::AsRef<$Stream> for $ty {
            fn as_ref(&self) -> &$Stream {
                let $s = self;
                &$stream
            }
        }
    };
}

pub(crate) use example;
pub(crate) use halves;
