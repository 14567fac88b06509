//! The halves of a split `TcpStream`: their types, `reunite` and `forget`
//! (from `net/split_halves.rs`, with TCP's doc examples), and TCP's
//! `peek`. Their readiness surface and trait impls, the same as a
//! `UnixStream`'s halves', come from `net/halves.rs`: each half uses only
//! its own side of the registration, so a reader and a writer never steal
//! each other's wake-ups.

use super::TcpStream;
use std::io;
use std::net::SocketAddr;
use std::task::{Context, Poll};

crate::net::split_halves::split_halves! {
    stream: TcpStream;
    ReadHalf {
        /// See [`TcpStream::split`].
        ///
        /// ```
        /// use rt::io::{AsyncReadExt, AsyncWriteExt};
        ///
        /// let rt = rt::runtime::Runtime::new().unwrap();
        /// rt.block_on(async {
        ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        ///     let mut client = rt::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
        ///     let (mut server, _) = listener.accept().await.unwrap();
        ///     client.write_all(b"a").await.unwrap();
        ///     let (mut read, _write) = server.split();
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
        ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        ///     let mut client = rt::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
        ///     let (mut server, _) = listener.accept().await.unwrap();
        ///     let (_read, mut write) = server.split();
        ///     write.write_all(b"a").await.unwrap();
        ///     assert_eq!(client.read(&mut [0; 1]).await.unwrap(), 1);
        /// });
        /// ```
    }
    OwnedReadHalf {
        /// See [`TcpStream::into_split`].
        ///
        /// ```
        /// let rt = rt::runtime::Runtime::new().unwrap();
        /// rt.block_on(async {
        ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        ///     let client = rt::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
        ///     let (read, _write) = client.into_split();
        ///     assert_eq!(read.peer_addr().unwrap(), listener.local_addr().unwrap());
        /// });
        /// ```
    }
    OwnedWriteHalf {
        /// ```
        /// use rt::io::AsyncReadExt;
        ///
        /// let rt = rt::runtime::Runtime::new().unwrap();
        /// rt.block_on(async {
        ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        ///     let client = rt::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
        ///     let (mut server, _) = listener.accept().await.unwrap();
        ///     let (_read, write) = client.into_split();
        ///     drop(write);
        ///     assert_eq!(server.read(&mut [0; 1]).await.unwrap(), 0);
        /// });
        /// ```
    }
    ReuniteError {
        /// ```
        /// let rt = rt::runtime::Runtime::new().unwrap();
        /// rt.block_on(async {
        ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        ///     let addr = listener.local_addr().unwrap();
        ///     let (read, _) = rt::net::TcpStream::connect(addr).await.unwrap().into_split();
        ///     let (_, write) = rt::net::TcpStream::connect(addr).await.unwrap().into_split();
        ///     let rt::net::tcp::ReuniteError(read, write) = read.reunite(write).unwrap_err();
        ///     # drop((read, write));
        /// });
        /// ```
    }
    OwnedReadHalf::reunite {
        /// ```
        /// let rt = rt::runtime::Runtime::new().unwrap();
        /// rt.block_on(async {
        ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        ///     let client = rt::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
        ///     let local = client.local_addr().unwrap();
        ///     let (read, write) = client.into_split();
        ///     let client = read.reunite(write).unwrap();
        ///     assert_eq!(client.local_addr().unwrap(), local);
        /// });
        /// ```
    }
    OwnedWriteHalf::reunite {
        /// ```
        /// let rt = rt::runtime::Runtime::new().unwrap();
        /// rt.block_on(async {
        ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        ///     let client = rt::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
        ///     let (read, write) = client.into_split();
        ///     let client = write.reunite(read).unwrap();
        ///     # drop(client);
        /// });
        /// ```
    }
    OwnedWriteHalf::forget {
        /// ```
        /// use std::io::Read;
        ///
        /// let rt = rt::runtime::Runtime::new().unwrap();
        /// rt.block_on(async {
        ///     let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        ///     let mut peer = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        ///     let stream = rt::net::TcpStream::from_std(listener.accept().unwrap().0).unwrap();
        ///     let (_read, write) = stream.into_split();
        ///     write.forget();
        ///     // No end-of-file: the write side is still open.
        ///     peer.set_nonblocking(true).unwrap();
        ///     let err = peer.read(&mut [0; 1]).unwrap_err();
        ///     assert_eq!(err.kind(), std::io::ErrorKind::WouldBlock);
        /// });
        /// ```
    }
}

impl<'a> ReadHalf<'a> {
    /// Receives data without removing it from the queue, as
    /// [`TcpStream::peek`].
    ///
    /// # Errors
    ///
    /// As [`TcpStream::peek`].
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::{AsyncReadExt, AsyncWriteExt};
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    ///     let mut client = rt::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
    ///     let (mut server, _) = listener.accept().await.unwrap();
    ///     client.write_all(b"a").await.unwrap();
    ///     let (mut read, _write) = server.split();
    ///     let mut buf = [0; 4];
    ///     assert_eq!(read.peek(&mut buf).await.unwrap(), 1);
    ///     assert_eq!(read.read(&mut buf).await.unwrap(), 1);
    /// });
    /// ```
    pub async fn peek(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.peek(buf).await
    }

    /// Polls for a peek, as [`TcpStream::poll_peek`] (the read direction's
    /// shared slot: the last waker wins).
    ///
    /// # Errors
    ///
    /// As [`TcpStream::peek`].
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::AsyncWriteExt;
    /// use std::future::poll_fn;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    ///     let mut client = rt::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
    ///     let (mut server, _) = listener.accept().await.unwrap();
    ///     client.write_all(b"a").await.unwrap();
    ///     let (mut read, _write) = server.split();
    ///     let mut buf = [0; 4];
    ///     assert_eq!(poll_fn(|cx| read.poll_peek(cx, &mut buf)).await.unwrap(), 1);
    /// });
    /// ```
    pub fn poll_peek(&mut self, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>> {
        self.0.poll_peek(cx, buf)
    }
}

impl OwnedReadHalf {
    /// Receives data without removing it from the queue, as
    /// [`TcpStream::peek`].
    ///
    /// # Errors
    ///
    /// As [`TcpStream::peek`].
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::AsyncWriteExt;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    ///     let client = rt::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
    ///     let (mut server, _) = listener.accept().await.unwrap();
    ///     let (mut read, _write) = client.into_split();
    ///     server.write_all(b"ab").await.unwrap();
    ///     let mut buf = [0; 1];
    ///     assert_eq!(read.peek(&mut buf).await.unwrap(), 1);
    ///     assert_eq!(&buf, b"a");
    /// });
    /// ```
    pub async fn peek(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.peek(buf).await
    }

    /// Polls for a peek, as [`TcpStream::poll_peek`] (the read direction's
    /// shared slot: the last waker wins).
    ///
    /// # Errors
    ///
    /// As [`TcpStream::peek`].
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::AsyncWriteExt;
    /// use std::future::poll_fn;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    ///     let client = rt::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
    ///     let (mut server, _) = listener.accept().await.unwrap();
    ///     let (mut read, _write) = client.into_split();
    ///     server.write_all(b"z").await.unwrap();
    ///     let mut buf = [0; 4];
    ///     assert_eq!(poll_fn(|cx| read.poll_peek(cx, &mut buf)).await.unwrap(), 1);
    /// });
    /// ```
    pub fn poll_peek(&mut self, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>> {
        self.inner.poll_peek(cx, buf)
    }
}

crate::net::halves::halves! {
    stream: TcpStream, address: SocketAddr;
    ReadHalf<'_>, WriteHalf<'_> => |s| s.0;
    example: "    let listener = rt::net::TcpListener::bind(\"127.0.0.1:0\").await.unwrap();\n\
              \x20   let mut peer = rt::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();\n\
              \x20   let (mut stream, _) = listener.accept().await.unwrap();\n\
              \x20   let (read, write) = stream.split();\n";
    OwnedReadHalf, OwnedWriteHalf => |s| s.inner;
    example: "    let listener = rt::net::TcpListener::bind(\"127.0.0.1:0\").await.unwrap();\n\
              \x20   let mut peer = rt::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();\n\
              \x20   let (stream, _) = listener.accept().await.unwrap();\n\
              \x20   let (read, write) = stream.into_split();\n";
}
