//! The halves of a split `UnixStream`: their types, `reunite` and
//! `forget`. Their readiness surface and trait impls, the same as a
//! `TcpStream`'s halves', come from `net/halves.rs`: as for TCP, each half
//! uses only its own side of the registration, so a reader and a writer
//! never steal each other's wake-ups.

use super::{SocketAddr, UnixStream};
use crate::loom::sync::Arc;
use std::error::Error;
use std::fmt;

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
}

impl OwnedWriteHalf {
    pub(crate) fn new(inner: Arc<UnixStream>) -> OwnedWriteHalf {
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
    stream: UnixStream, address: SocketAddr;
    ReadHalf<'_>, WriteHalf<'_> => |s| s.0;
    example: "    let (mut peer, mut stream) = rt::net::UnixStream::pair().unwrap();\n\
              \x20   let (read, write) = stream.split();\n";
    OwnedReadHalf, OwnedWriteHalf => |s| s.inner;
    example: "    let (mut peer, stream) = rt::net::UnixStream::pair().unwrap();\n\
              \x20   let (read, write) = stream.into_split();\n";
}
