//! [`TcpStream`]: a newtype over rt's, for tokio's `AsyncRead`/`AsyncWrite`
//! and `poll_peek` taking a `ReadBuf`.

use super::split::{OwnedReadHalf, OwnedWriteHalf, ReadHalf, WriteHalf};
use crate::io::ReadBuf;
use crate::net::ToSocketAddrs;
use crate::net::newtype::{forward, socket_newtype, stream_io, stream_methods};
use std::io;
use std::net::SocketAddr;
use std::task::{Context, Poll};
use std::time::Duration;

/// A TCP connection. A newtype over `rt::net::TcpStream` (tokio's I/O
/// traits instead of futures-io's); the rest (`peer_addr`, `set_nodelay`,
/// `readable`, `try_read`, `ready`, ...) forwards to rt's.
///
/// # Examples
///
/// ```
/// use tokio::io::{AsyncReadExt, AsyncWriteExt};
/// use tokio::net::{TcpListener, TcpStream};
///
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
/// let mut client = TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
/// let (mut server, _) = listener.accept().await.unwrap();
/// client.write_all(b"ping").await.unwrap();
/// let mut buf = [0; 4];
/// server.read_exact(&mut buf).await.unwrap();
/// assert_eq!(&buf, b"ping");
/// # });
/// ```
pub struct TcpStream {
    inner: rt::net::TcpStream,
}

socket_newtype!(TcpStream, rt::net::TcpStream);
stream_io!(read: TcpStream => |s| s.inner);
stream_io!(write: TcpStream);

/// A peek into a `ReadBuf`'s uninitialised part; returns the bytes peeked.
pub(crate) fn poll_peek(
    stream: &rt::net::TcpStream,
    cx: &mut Context<'_>,
    buf: &mut ReadBuf<'_>,
) -> Poll<io::Result<usize>> {
    let before = buf.filled().len();
    crate::io::forward::poll_read_uninit(buf, |unfilled| stream.poll_peek_uninit(cx, unfilled))
        .map_ok(|()| buf.filled().len() - before)
}

impl TcpStream {
    stream_methods!(SocketAddr);

    forward! {
        /// Reads what is queued without consuming it, waiting for data.
        @async fn peek(&self, buf: &mut [u8]) -> io::Result<usize>;
        /// Whether `TCP_NODELAY` is set.
        fn nodelay(&self) -> io::Result<bool>;
        /// Sets `TCP_NODELAY` (no Nagle delay on small writes).
        fn set_nodelay(&self, nodelay: bool) -> io::Result<()>;
        /// Whether `TCP_QUICKACK` is set.
        #[cfg(any(target_os = "android", target_os = "fuchsia", target_os = "linux"))]
        fn quickack(&self) -> io::Result<bool>;
        /// Sets `TCP_QUICKACK`.
        #[cfg(any(target_os = "android", target_os = "fuchsia", target_os = "linux"))]
        fn set_quickack(&self, quickack: bool) -> io::Result<()>;
        /// `SO_LINGER`.
        fn linger(&self) -> io::Result<Option<Duration>>;
        /// Sets `SO_LINGER`.
        fn set_linger(&self, dur: Option<Duration>) -> io::Result<()>;
        /// Sets `SO_LINGER` to zero: closing resets the connection.
        fn set_zero_linger(&self) -> io::Result<()>;
        /// `IP_TTL`.
        fn ttl(&self) -> io::Result<u32>;
        /// Sets `IP_TTL`.
        fn set_ttl(&self, ttl: u32) -> io::Result<()>;
    }

    /// Connects to `addr`, trying each address in turn.
    ///
    /// # Errors
    ///
    /// The connection error of the last address tried.
    ///
    /// # Panics
    ///
    /// Outside an rt runtime with I/O enabled.
    pub async fn connect<A: ToSocketAddrs>(addr: A) -> io::Result<TcpStream> {
        rt::net::TcpStream::connect(addr).await.map(TcpStream::from)
    }

    /// Wraps a connected std stream, which must be in non-blocking mode (as
    /// in tokio).
    ///
    /// # Errors
    ///
    /// The registration's OS error.
    ///
    /// # Panics
    ///
    /// Outside an rt runtime with I/O enabled.
    #[track_caller]
    pub fn from_std(stream: std::net::TcpStream) -> io::Result<TcpStream> {
        rt::net::TcpStream::from_std(stream).map(TcpStream::from)
    }

    /// Deregisters the stream and hands it back as a std stream (still
    /// non-blocking).
    ///
    /// # Errors
    ///
    /// The OS error of deregistering.
    pub fn into_std(self) -> io::Result<std::net::TcpStream> {
        self.inner.into_std()
    }

    /// Receives into `buf`'s unfilled part (straight into its
    /// uninitialised memory) without consuming the data; returns how many
    /// bytes.
    ///
    /// # Errors
    ///
    /// The OS error of `recv`.
    ///
    /// # Examples
    ///
    /// ```
    /// use tokio::io::{AsyncWriteExt, ReadBuf};
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// let mut client = tokio::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
    /// let (server, _) = listener.accept().await.unwrap();
    /// client.write_all(b"hi").await.unwrap();
    /// let mut memory = [std::mem::MaybeUninit::uninit(); 8];
    /// let mut buf = ReadBuf::uninit(&mut memory);
    /// let n = std::future::poll_fn(|cx| server.poll_peek(cx, &mut buf)).await.unwrap();
    /// assert_eq!(buf.filled(), &b"hi"[..n]);
    /// # });
    /// ```
    pub fn poll_peek(
        &self,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<usize>> {
        poll_peek(&self.inner, cx, buf)
    }

    /// Splits the stream into halves borrowing it, usable from two futures
    /// of one task at once (no lock).
    pub fn split(&mut self) -> (ReadHalf<'_>, WriteHalf<'_>) {
        let (read, write) = self.inner.split();
        (read.into(), write.into())
    }

    /// Splits the stream into owned halves, usable from two tasks (no
    /// lock); dropping the write half shuts the write side down.
    ///
    /// # Examples
    ///
    /// ```
    /// use tokio::io::{AsyncReadExt, AsyncWriteExt};
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// let client = tokio::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
    /// let (mut server, _) = listener.accept().await.unwrap();
    /// let (read, mut write) = client.into_split();
    /// write.write_all(b"x").await.unwrap();
    /// assert_eq!(server.read_u8().await.unwrap(), b'x');
    /// let _client = read.reunite(write).unwrap();
    /// # });
    /// ```
    pub fn into_split(self) -> (OwnedReadHalf, OwnedWriteHalf) {
        let (read, write) = self.inner.into_split();
        (read.into(), write.into())
    }
}

impl TryFrom<std::net::TcpStream> for TcpStream {
    type Error = io::Error;

    /// As [`TcpStream::from_std`].
    fn try_from(stream: std::net::TcpStream) -> io::Result<TcpStream> {
        TcpStream::from_std(stream)
    }
}
