//! The halves of a split `UnixStream`. As for TCP, each half uses only its
//! own side of the registration (the read waker or the write waker), so a
//! reader and a writer never steal each other's wake-ups.

use super::{SocketAddr, UnixStream};
use crate::loom::sync::Arc;
use rt_reactor::{Interest, Ready};
use std::error::Error;
use std::fmt;
use std::io;

/// The read half of [`UnixStream::split`].
///
/// # Examples
///
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
pub struct ReadHalf<'a>(&'a UnixStream);

/// The write half of [`UnixStream::split`]. Closing it shuts down the
/// write side of the stream.
///
/// # Examples
///
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
pub struct WriteHalf<'a>(&'a UnixStream);

/// The read half of [`UnixStream::into_split`].
///
/// # Examples
///
/// ```
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let (a, _b) = rt::net::UnixStream::pair().unwrap();
///     let (read, _write) = a.into_split();
///     assert!(read.peer_addr().unwrap().is_unnamed());
/// });
/// ```
pub struct OwnedReadHalf {
    inner: Arc<UnixStream>,
}

/// The write half of [`UnixStream::into_split`]. Dropping or closing it
/// shuts down the write side, so the peer reads end-of-file.
///
/// # Examples
///
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
pub struct OwnedWriteHalf {
    inner: Arc<UnixStream>,
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
///     let (a, _) = rt::net::UnixStream::pair().unwrap();
///     let (b, _) = rt::net::UnixStream::pair().unwrap();
///     let (read, _) = a.into_split();
///     let (_, write) = b.into_split();
///     let rt::net::unix::ReuniteError(read, write) = read.reunite(write).unwrap_err();
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
        f.write_str("tried to reunite halves that are not from the same UnixStream")
    }
}

impl Error for ReuniteError {}

/// `read` and `write` put back together, if they are the halves of one
/// stream.
fn reunite(read: OwnedReadHalf, mut write: OwnedWriteHalf) -> Result<UnixStream, ReuniteError> {
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
    pub(crate) fn new(stream: &'a UnixStream) -> ReadHalf<'a> {
        ReadHalf(stream)
    }
}

impl<'a> WriteHalf<'a> {
    pub(crate) fn new(stream: &'a UnixStream) -> WriteHalf<'a> {
        WriteHalf(stream)
    }
}

impl OwnedReadHalf {
    pub(crate) fn new(inner: Arc<UnixStream>) -> OwnedReadHalf {
        OwnedReadHalf { inner }
    }

    /// Waits for the readiness of `interest`, as [`UnixStream::ready`].
    ///
    /// # Errors
    ///
    /// Fails once the runtime's I/O driver has shut down.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::{AsyncWriteExt, Interest};
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, mut b) = rt::net::UnixStream::pair().unwrap();
    ///     let (read, _write) = a.into_split();
    ///     b.write_all(b"hi").await.unwrap();
    ///     let ready = read.ready(Interest::READABLE).await.unwrap();
    ///     assert!(ready.is_readable());
    /// });
    /// ```
    pub async fn ready(&self, interest: Interest) -> io::Result<Ready> {
        self.inner.ready(interest).await
    }

    /// Waits until the stream is readable, as [`UnixStream::readable`].
    ///
    /// # Errors
    ///
    /// Fails once the runtime's I/O driver has shut down.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::AsyncWriteExt;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, mut b) = rt::net::UnixStream::pair().unwrap();
    ///     let (read, _write) = a.into_split();
    ///     b.write_all(b"hi").await.unwrap();
    ///     read.readable().await.unwrap();
    ///     assert_eq!(read.try_read(&mut [0; 8]).unwrap(), 2);
    /// });
    /// ```
    pub async fn readable(&self) -> io::Result<()> {
        self.inner.readable().await
    }

    /// Reads once without waiting, as [`UnixStream::try_read`].
    ///
    /// # Errors
    ///
    /// `WouldBlock` if no data is ready, or the OS error of `read`.
    ///
    /// # Examples
    ///
    /// See [`OwnedReadHalf::readable`].
    ///
    /// ```
    /// use rt::io::AsyncWriteExt;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, mut b) = rt::net::UnixStream::pair().unwrap();
    ///     let (read, _write) = a.into_split();
    ///     b.write_all(b"hi").await.unwrap();
    ///     read.readable().await.unwrap();
    ///     let mut buf = [0; 8];
    ///     let n = read.try_read(&mut buf).unwrap();
    ///     assert_eq!(&buf[..n], b"hi");
    /// });
    /// ```
    pub fn try_read(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.try_read(buf)
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
    ///     let (a, _b) = rt::net::UnixStream::pair().unwrap();
    ///     let (read, write) = a.into_split();
    ///     let a = read.reunite(write).unwrap();
    ///     assert!(a.peer_addr().unwrap().is_unnamed());
    /// });
    /// ```
    pub fn reunite(self, other: OwnedWriteHalf) -> Result<UnixStream, ReuniteError> {
        reunite(self, other)
    }

    /// The peer's address.
    ///
    /// # Errors
    ///
    /// As [`UnixStream::peer_addr`].
    ///
    /// # Examples
    ///
    /// See [`OwnedReadHalf`].
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = rt::net::UnixStream::pair().unwrap();
    ///     let (read, _write) = a.into_split();
    ///     assert!(read.peer_addr().unwrap().as_pathname().is_none());
    /// });
    /// ```
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.inner.peer_addr()
    }

    /// The local address.
    ///
    /// # Errors
    ///
    /// As [`UnixStream::local_addr`].
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = rt::net::UnixStream::pair().unwrap();
    ///     let (read, _write) = a.into_split();
    ///     assert!(read.local_addr().unwrap().is_unnamed());
    /// });
    /// ```
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.inner.local_addr()
    }
}

impl OwnedWriteHalf {
    pub(crate) fn new(inner: Arc<UnixStream>) -> OwnedWriteHalf {
        OwnedWriteHalf {
            inner,
            shutdown_on_drop: true,
        }
    }

    /// Waits for the readiness of `interest`, as [`UnixStream::ready`].
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
    ///     let (a, _b) = rt::net::UnixStream::pair().unwrap();
    ///     let (_read, write) = a.into_split();
    ///     assert!(write.ready(Interest::WRITABLE).await.unwrap().is_writable());
    /// });
    /// ```
    pub async fn ready(&self, interest: Interest) -> io::Result<Ready> {
        self.inner.ready(interest).await
    }

    /// Waits until the stream is writable, as [`UnixStream::writable`].
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
    ///     let (a, _b) = rt::net::UnixStream::pair().unwrap();
    ///     let (_read, write) = a.into_split();
    ///     write.writable().await.unwrap();
    ///     assert_eq!(write.try_write(b"hi").unwrap(), 2);
    /// });
    /// ```
    pub async fn writable(&self) -> io::Result<()> {
        self.inner.writable().await
    }

    /// Writes once without waiting, as [`UnixStream::try_write`].
    ///
    /// # Errors
    ///
    /// `WouldBlock` if the socket buffer is full (or writability was not
    /// reported yet), or the OS error of `write`.
    ///
    /// # Examples
    ///
    /// See [`OwnedWriteHalf::writable`].
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = rt::net::UnixStream::pair().unwrap();
    ///     let (_read, write) = a.into_split();
    ///     write.writable().await.unwrap();
    ///     assert_eq!(write.try_write(b"x").unwrap(), 1);
    /// });
    /// ```
    pub fn try_write(&self, buf: &[u8]) -> io::Result<usize> {
        self.inner.try_write(buf)
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
    ///     let (a, _b) = rt::net::UnixStream::pair().unwrap();
    ///     let (read, write) = a.into_split();
    ///     let a = write.reunite(read).unwrap();
    ///     # drop(a);
    /// });
    /// ```
    pub fn reunite(self, other: OwnedReadHalf) -> Result<UnixStream, ReuniteError> {
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
    ///     let (a, mut peer) = std::os::unix::net::UnixStream::pair().unwrap();
    ///     let (_read, write) = rt::net::UnixStream::from_std(a).unwrap().into_split();
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

    /// The peer's address.
    ///
    /// # Errors
    ///
    /// As [`UnixStream::peer_addr`].
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = rt::net::UnixStream::pair().unwrap();
    ///     let (_read, write) = a.into_split();
    ///     assert!(write.peer_addr().unwrap().is_unnamed());
    /// });
    /// ```
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.inner.peer_addr()
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

crate::net::halves::read_half! {
    ReadHalf<'_> => |s| s.0;
    OwnedReadHalf => |s| s.inner;
}

crate::net::halves::write_half! {
    WriteHalf<'_> => |s| s.0;
    OwnedWriteHalf => |s| s.inner;
}
