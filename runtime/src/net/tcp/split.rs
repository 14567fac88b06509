//! The halves of a split `TcpStream`: their types, `reunite`, `forget`
//! and TCP's `peek`. Their readiness surface and trait impls, the same as
//! a `UnixStream`'s halves', come from `net/halves.rs`: each half uses only
//! its own side of the registration, so a reader and a writer never steal
//! each other's wake-ups.

use super::TcpStream;
use crate::loom::sync::Arc;
use std::error::Error;
use std::fmt;
use std::io;
use std::net::SocketAddr;
use std::task::{Context, Poll};

/// The read half of [`TcpStream::split`].
///
/// # Examples
///
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
pub struct ReadHalf<'a>(&'a TcpStream);

/// The write half of [`TcpStream::split`]. Closing it shuts down the
/// write side of the stream.
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
///     let (_read, mut write) = server.split();
///     write.write_all(b"a").await.unwrap();
///     assert_eq!(client.read(&mut [0; 1]).await.unwrap(), 1);
/// });
/// ```
pub struct WriteHalf<'a>(&'a TcpStream);

/// The read half of [`TcpStream::into_split`].
///
/// # Examples
///
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
pub struct OwnedReadHalf {
    inner: Arc<TcpStream>,
}

/// The write half of [`TcpStream::into_split`]. Dropping or closing it
/// shuts down the write side, so the peer reads end-of-file.
///
/// # Examples
///
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
pub struct OwnedWriteHalf {
    inner: Arc<TcpStream>,
    /// Cleared by `reunite` and `forget`: the stream lives on.
    shutdown_on_drop: bool,
}

/// The error of [`OwnedReadHalf::reunite`] and
/// [`OwnedWriteHalf::reunite`]: the two halves came from different
/// streams. Both are handed back.
///
/// # Examples
///
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
pub struct ReuniteError(pub OwnedReadHalf, pub OwnedWriteHalf);

impl fmt::Debug for ReuniteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ReuniteError")
            .field(&self.0)
            .field(&self.1)
            .finish()
    }
}

impl fmt::Display for ReuniteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("tried to reunite halves that are not from the same TcpStream")
    }
}

impl Error for ReuniteError {}

/// `read` and `write` put back together, if they are the halves of one
/// stream.
fn reunite(read: OwnedReadHalf, mut write: OwnedWriteHalf) -> Result<TcpStream, ReuniteError> {
    if !Arc::ptr_eq(&read.inner, &write.inner) {
        return Err(ReuniteError(read, write));
    }
    write.shutdown_on_drop = false;
    drop(write);
    Ok(Arc::try_unwrap(read.inner).unwrap_or_else(|_| {
        unreachable!("the two halves hold the only references to their stream")
    }))
}

impl<'a> ReadHalf<'a> {
    pub(crate) fn new(stream: &'a TcpStream) -> ReadHalf<'a> {
        ReadHalf(stream)
    }

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

impl<'a> WriteHalf<'a> {
    pub(crate) fn new(stream: &'a TcpStream) -> WriteHalf<'a> {
        WriteHalf(stream)
    }
}

impl OwnedReadHalf {
    pub(crate) fn new(inner: Arc<TcpStream>) -> OwnedReadHalf {
        OwnedReadHalf { inner }
    }

    /// Puts the stream back together from its two halves.
    ///
    /// # Errors
    ///
    /// [`ReuniteError`], holding both halves, if `other` is the write half
    /// of another stream.
    ///
    /// # Examples
    ///
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
    pub fn reunite(self, other: OwnedWriteHalf) -> Result<TcpStream, ReuniteError> {
        reunite(self, other)
    }

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

impl OwnedWriteHalf {
    pub(crate) fn new(inner: Arc<TcpStream>) -> OwnedWriteHalf {
        OwnedWriteHalf {
            inner,
            shutdown_on_drop: true,
        }
    }

    /// Puts the stream back together from its two halves.
    ///
    /// # Errors
    ///
    /// [`ReuniteError`], holding both halves, if `other` is the read half
    /// of another stream.
    ///
    /// # Examples
    ///
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
    pub fn reunite(self, other: OwnedReadHalf) -> Result<TcpStream, ReuniteError> {
        reunite(other, self)
    }

    /// Drops the write half without shutting down the write side: the
    /// stream stays open for writing until the read half is dropped too
    /// (which closes the socket).
    ///
    /// # Examples
    ///
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
    pub fn forget(mut self) {
        self.shutdown_on_drop = false;
    }
}

impl Drop for OwnedWriteHalf {
    fn drop(&mut self) {
        if self.shutdown_on_drop {
            // Like closing a socket, dropping cannot report a failure; the
            // peer learns of it from the connection itself.
            let _ = self.inner.shutdown_write();
        }
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
