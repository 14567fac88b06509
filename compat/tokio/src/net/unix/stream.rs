//! [`UnixStream`]: a newtype over rt's, for tokio's `AsyncRead` and
//! `AsyncWrite`.

use super::split::{OwnedReadHalf, OwnedWriteHalf, ReadHalf, WriteHalf};
use crate::net::newtype::{forward, socket_newtype, stream_io, stream_methods};
use std::io;
use std::path::Path;

/// A Unix-domain stream. A newtype over `rt::net::UnixStream` (tokio's
/// I/O traits instead of futures-io's); the rest (`peer_cred`, addresses,
/// readiness, `try_*`, ...) forwards to rt's.
///
/// # Examples
///
/// ```
/// use tokio::io::{AsyncReadExt, AsyncWriteExt};
///
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let (mut a, mut b) = tokio::net::UnixStream::pair().unwrap();
/// a.write_all(b"ping").await.unwrap();
/// let mut buf = [0; 4];
/// b.read_exact(&mut buf).await.unwrap();
/// assert_eq!(&buf, b"ping");
/// # });
/// ```
pub struct UnixStream {
    inner: rt::net::UnixStream,
}

socket_newtype!(UnixStream, rt::net::UnixStream);
stream_io!(read: UnixStream => |s| s.inner);
stream_io!(write: UnixStream);

impl UnixStream {
    stream_methods!(super::SocketAddr);

    forward! {
        /// The peer process's credentials (`SO_PEERCRED`).
        fn peer_cred(&self) -> io::Result<super::UCred>;
    }

    /// Connects to the socket at `path`.
    ///
    /// # Errors
    ///
    /// The OS error of `connect`.
    ///
    /// # Panics
    ///
    /// Outside an rt runtime with I/O enabled.
    pub async fn connect<P: AsRef<Path>>(path: P) -> io::Result<UnixStream> {
        rt::net::UnixStream::connect(path)
            .await
            .map(UnixStream::from)
    }

    /// Connects to `addr` (a path or, on Linux, an abstract name).
    ///
    /// # Errors
    ///
    /// The OS error of `connect`.
    ///
    /// # Panics
    ///
    /// Outside an rt runtime with I/O enabled.
    pub async fn connect_addr(addr: &super::SocketAddr) -> io::Result<UnixStream> {
        rt::net::UnixStream::connect_addr(addr)
            .await
            .map(UnixStream::from)
    }

    /// Two streams connected to each other.
    ///
    /// # Errors
    ///
    /// The OS error of `socketpair`.
    ///
    /// # Panics
    ///
    /// Outside an rt runtime with I/O enabled.
    #[track_caller]
    pub fn pair() -> io::Result<(UnixStream, UnixStream)> {
        let (a, b) = rt::net::UnixStream::pair()?;
        Ok((a.into(), b.into()))
    }

    /// Wraps a connected std stream, which must be in non-blocking mode.
    ///
    /// # Errors
    ///
    /// The registration's OS error.
    ///
    /// # Panics
    ///
    /// Outside an rt runtime with I/O enabled.
    #[track_caller]
    pub fn from_std(stream: std::os::unix::net::UnixStream) -> io::Result<UnixStream> {
        rt::net::UnixStream::from_std(stream).map(UnixStream::from)
    }

    /// Deregisters the stream and hands it back as a std stream.
    ///
    /// # Errors
    ///
    /// The OS error of deregistering.
    pub fn into_std(self) -> io::Result<std::os::unix::net::UnixStream> {
        self.inner.into_std()
    }

    /// Splits the stream into halves borrowing it (no lock).
    pub fn split(&mut self) -> (ReadHalf<'_>, WriteHalf<'_>) {
        let (read, write) = self.inner.split();
        (read.into(), write.into())
    }

    /// Splits the stream into owned halves (no lock); dropping the write
    /// half shuts the write side down.
    pub fn into_split(self) -> (OwnedReadHalf, OwnedWriteHalf) {
        let (read, write) = self.inner.into_split();
        (read.into(), write.into())
    }
}

impl TryFrom<std::os::unix::net::UnixStream> for UnixStream {
    type Error = io::Error;

    /// As [`UnixStream::from_std`].
    fn try_from(stream: std::os::unix::net::UnixStream) -> io::Result<UnixStream> {
        UnixStream::from_std(stream)
    }
}
