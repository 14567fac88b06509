//! The halves of a split `UnixStream`: their types, `reunite` and
//! `forget` (from `net/split_halves.rs`, with the Unix-domain doc
//! examples). Their readiness surface and trait impls, the same as a
//! `TcpStream`'s halves', come from `net/halves.rs`: as for TCP, each half
//! uses only its own side of the registration, so a reader and a writer
//! never steal each other's wake-ups.

use super::{SocketAddr, UnixStream};

crate::net::split_halves::split_halves! {
    stream: UnixStream;
    ReadHalf {
        /// ```
        /// use rt::io::{AsyncReadExt, AsyncWriteExt};
        ///
        /// let rt = rt::runtime::Runtime::new().unwrap();
        /// rt.block_on(async {
        ///     let (mut a, mut b) = rt::net::UnixStream::pair().unwrap();
        ///     a.write_all(b"a").await.unwrap();
        ///     let (mut read, _write) = b.split();
        ///     assert_eq!(read.read(&mut [0; 1]).await.unwrap(), 1);
        /// });
        /// ```
    }
    WriteHalf {
        /// ```
        /// use rt::io::{AsyncReadExt, AsyncWriteExt};
        ///
        /// let rt = rt::runtime::Runtime::new().unwrap();
        /// rt.block_on(async {
        ///     let (mut a, mut b) = rt::net::UnixStream::pair().unwrap();
        ///     let (_read, mut write) = a.split();
        ///     write.write_all(b"a").await.unwrap();
        ///     write.close().await.unwrap();
        ///     let mut got = Vec::new();
        ///     b.read_to_end(&mut got).await.unwrap();
        ///     assert_eq!(got, b"a");
        /// });
        /// ```
    }
    OwnedReadHalf {
        /// ```
        /// let rt = rt::runtime::Runtime::new().unwrap();
        /// rt.block_on(async {
        ///     let (a, _b) = rt::net::UnixStream::pair().unwrap();
        ///     let (read, _write) = a.into_split();
        ///     assert!(read.peer_addr().unwrap().is_unnamed());
        /// });
        /// ```
    }
    OwnedWriteHalf {
        /// ```
        /// use rt::io::AsyncReadExt;
        ///
        /// let rt = rt::runtime::Runtime::new().unwrap();
        /// rt.block_on(async {
        ///     let (a, mut b) = rt::net::UnixStream::pair().unwrap();
        ///     let (_read, write) = a.into_split();
        ///     drop(write);
        ///     assert_eq!(b.read(&mut [0; 1]).await.unwrap(), 0);
        /// });
        /// ```
    }
    ReuniteError {
        /// ```
        /// let rt = rt::runtime::Runtime::new().unwrap();
        /// rt.block_on(async {
        ///     let (a, _) = rt::net::UnixStream::pair().unwrap();
        ///     let (b, _) = rt::net::UnixStream::pair().unwrap();
        ///     let (read, _) = a.into_split();
        ///     let (_, write) = b.into_split();
        ///     let rt::net::unix::ReuniteError(read, write) = read.reunite(write).unwrap_err();
        ///     # drop((read, write));
        /// });
        /// ```
    }
    OwnedReadHalf::reunite {
        /// ```
        /// let rt = rt::runtime::Runtime::new().unwrap();
        /// rt.block_on(async {
        ///     let (a, _b) = rt::net::UnixStream::pair().unwrap();
        ///     let (read, write) = a.into_split();
        ///     let a = read.reunite(write).unwrap();
        ///     assert!(a.peer_addr().unwrap().is_unnamed());
        /// });
        /// ```
    }
    OwnedWriteHalf::reunite {
        /// ```
        /// let rt = rt::runtime::Runtime::new().unwrap();
        /// rt.block_on(async {
        ///     let (a, _b) = rt::net::UnixStream::pair().unwrap();
        ///     let (read, write) = a.into_split();
        ///     let a = write.reunite(read).unwrap();
        ///     # drop(a);
        /// });
        /// ```
    }
    OwnedWriteHalf::forget {
        /// ```
        /// use std::io::Read;
        ///
        /// let rt = rt::runtime::Runtime::new().unwrap();
        /// rt.block_on(async {
        ///     let (a, mut peer) = std::os::unix::net::UnixStream::pair().unwrap();
        ///     let (_read, write) = rt::net::UnixStream::from_std(a).unwrap().into_split();
        ///     write.forget();
        ///     // No end-of-file: the write side is still open.
        ///     peer.set_nonblocking(true).unwrap();
        ///     let err = peer.read(&mut [0; 1]).unwrap_err();
        ///     assert_eq!(err.kind(), std::io::ErrorKind::WouldBlock);
        /// });
        /// ```
    }
}

crate::net::halves::halves! {
    stream: UnixStream, address: SocketAddr;
    ReadHalf<'_>, WriteHalf<'_> => |s| s.0;
    example: "    let (mut peer, mut stream) = rt::net::UnixStream::pair().unwrap();\n\
              \x20   let (read, write) = stream.split();\n";
    OwnedReadHalf, OwnedWriteHalf => |s| s.inner;
    example: "    let (mut peer, stream) = rt::net::UnixStream::pair().unwrap();\n\
              \x20   let (read, write) = stream.into_split();\n";
}
