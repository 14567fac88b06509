//! The halves of a split `TcpStream`. Each half uses only its own side of
//! the registration (the read waker or the write waker), so a reader and a
//! writer never steal each other's wake-ups.

use super::TcpStream;
use crate::loom::sync::Arc;
use std::io;
use std::net::SocketAddr;

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
}

impl<'a> ReadHalf<'a> {
    pub(crate) fn new(stream: &'a TcpStream) -> ReadHalf<'a> {
        ReadHalf(stream)
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

    /// The address of the peer.
    ///
    /// # Errors
    ///
    /// As [`TcpStream::peer_addr`].
    ///
    /// # Examples
    ///
    /// See [`OwnedReadHalf`].
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    ///     let client = rt::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
    ///     let (read, _write) = client.into_split();
    ///     assert!(read.peer_addr().unwrap().ip().is_loopback());
    /// });
    /// ```
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.inner.peer_addr()
    }

    /// The local address.
    ///
    /// # Errors
    ///
    /// As [`TcpStream::local_addr`].
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    ///     let client = rt::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
    ///     let (read, _write) = client.into_split();
    ///     assert!(read.local_addr().unwrap().ip().is_loopback());
    /// });
    /// ```
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.inner.local_addr()
    }
}

impl OwnedWriteHalf {
    pub(crate) fn new(inner: Arc<TcpStream>) -> OwnedWriteHalf {
        OwnedWriteHalf { inner }
    }

    /// The address of the peer.
    ///
    /// # Errors
    ///
    /// As [`TcpStream::peer_addr`].
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    ///     let client = rt::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
    ///     let (_read, write) = client.into_split();
    ///     assert_eq!(write.peer_addr().unwrap(), listener.local_addr().unwrap());
    /// });
    /// ```
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.inner.peer_addr()
    }
}

impl Drop for OwnedWriteHalf {
    fn drop(&mut self) {
        // Like closing a socket, dropping cannot report a failure; the peer
        // learns of it from the connection itself.
        let _ = self.inner.shutdown_write();
    }
}

crate::net::halves::read_half! {
    ReadHalf<'_> => |s| s.0;
    OwnedReadHalf => |s| s.inner;
}

crate::net::halves::write_half! {
    WriteHalf<'_> => |s| s.0;
    OwnedWriteHalf => |s| s.inner;
}
