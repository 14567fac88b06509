//! [`UnixListener`]: a newtype over rt's, whose `accept` hands out the
//! facade's [`UnixStream`].

use super::{SocketAddr, UnixStream};
use crate::net::newtype::{forward, socket_newtype};
use std::io;
use std::path::Path;
use std::task::{Context, Poll};

/// A Unix-domain listener. A newtype over `rt::net::UnixListener` whose
/// accepted streams are the facade's; `local_addr` and `take_error`
/// forward to rt's.
///
/// # Examples
///
/// ```
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let path = std::env::temp_dir().join(format!("facade-doc-{}.sock", std::process::id()));
/// let _ = std::fs::remove_file(&path);
/// let listener = tokio::net::UnixListener::bind(&path).unwrap();
/// let _client = tokio::net::UnixStream::connect(&path).await.unwrap();
/// let (_server, _) = listener.accept().await.unwrap();
/// std::fs::remove_file(&path).unwrap();
/// # });
/// ```
pub struct UnixListener {
    inner: rt::net::UnixListener,
}

socket_newtype!(UnixListener, rt::net::UnixListener);

impl UnixListener {
    forward! {
        /// The local address.
        fn local_addr(&self) -> io::Result<SocketAddr>;
        /// Takes the socket's pending error (`SO_ERROR`).
        fn take_error(&self) -> io::Result<Option<io::Error>>;
    }

    /// Binds to `path`.
    ///
    /// # Errors
    ///
    /// The OS error of `bind` or `listen`.
    ///
    /// # Panics
    ///
    /// Outside an rt runtime with I/O enabled.
    #[track_caller]
    pub fn bind<P: AsRef<Path>>(path: P) -> io::Result<UnixListener> {
        rt::net::UnixListener::bind(path).map(UnixListener::from)
    }

    /// Binds to `addr` (a path or, on Linux, an abstract name).
    ///
    /// # Errors
    ///
    /// The OS error of `bind` or `listen`.
    ///
    /// # Panics
    ///
    /// Outside an rt runtime with I/O enabled.
    #[track_caller]
    pub fn bind_addr(addr: &SocketAddr) -> io::Result<UnixListener> {
        rt::net::UnixListener::bind_addr(addr).map(UnixListener::from)
    }

    /// Accepts a connection. Cancel-safe.
    ///
    /// # Errors
    ///
    /// The OS error of `accept`.
    #[track_caller]
    pub fn accept(&self) -> impl Future<Output = io::Result<(UnixStream, SocketAddr)>> {
        let accept = self.inner.accept();
        async move {
            let (stream, addr) = accept.await?;
            Ok((stream.into(), addr))
        }
    }

    /// Polls for a connection (one waker slot: the last caller's wins).
    ///
    /// # Errors
    ///
    /// The OS error of `accept`.
    pub fn poll_accept(&self, cx: &mut Context<'_>) -> Poll<io::Result<(UnixStream, SocketAddr)>> {
        self.inner
            .poll_accept(cx)
            .map_ok(|(stream, addr)| (stream.into(), addr))
    }

    /// Wraps a bound std listener, which must be in non-blocking mode.
    ///
    /// # Errors
    ///
    /// The registration's OS error.
    ///
    /// # Panics
    ///
    /// Outside an rt runtime with I/O enabled.
    #[track_caller]
    pub fn from_std(listener: std::os::unix::net::UnixListener) -> io::Result<UnixListener> {
        rt::net::UnixListener::from_std(listener).map(UnixListener::from)
    }

    /// Deregisters the listener and hands it back as a std listener.
    ///
    /// # Errors
    ///
    /// The OS error of deregistering.
    pub fn into_std(self) -> io::Result<std::os::unix::net::UnixListener> {
        self.inner.into_std()
    }
}

impl TryFrom<std::os::unix::net::UnixListener> for UnixListener {
    type Error = io::Error;

    /// As [`UnixListener::from_std`].
    fn try_from(listener: std::os::unix::net::UnixListener) -> io::Result<UnixListener> {
        UnixListener::from_std(listener)
    }
}
