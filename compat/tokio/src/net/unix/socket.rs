//! [`UnixSocket`]: a newtype over rt's, whose `listen`, `connect` and
//! `datagram` hand out the facade's types.

use super::{UnixDatagram, UnixListener, UnixStream};
use std::io;
use std::path::Path;

/// A Unix-domain socket configured before it listens, connects or becomes
/// a datagram socket. A newtype over `rt::net::UnixSocket`; `bind` is
/// rt's, through `Deref`.
///
/// # Examples
///
/// ```
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let path = std::env::temp_dir().join(format!("facade-sock-{}.sock", std::process::id()));
/// let _ = std::fs::remove_file(&path);
/// let socket = tokio::net::UnixSocket::new_stream().unwrap();
/// socket.bind(&path).unwrap();
/// let listener = socket.listen(8).unwrap();
/// # drop(listener);
/// std::fs::remove_file(&path).unwrap();
/// # });
/// ```
pub struct UnixSocket {
    inner: rt::net::UnixSocket,
}

impl From<rt::net::UnixSocket> for UnixSocket {
    fn from(inner: rt::net::UnixSocket) -> UnixSocket {
        UnixSocket { inner }
    }
}

impl From<UnixSocket> for rt::net::UnixSocket {
    fn from(socket: UnixSocket) -> rt::net::UnixSocket {
        socket.inner
    }
}

/// rt's `bind`, whose shape is tokio's.
impl std::ops::Deref for UnixSocket {
    type Target = rt::net::UnixSocket;

    fn deref(&self) -> &rt::net::UnixSocket {
        &self.inner
    }
}

impl std::os::fd::AsRawFd for UnixSocket {
    fn as_raw_fd(&self) -> std::os::fd::RawFd {
        std::os::fd::AsRawFd::as_raw_fd(&self.inner)
    }
}

impl std::os::fd::AsFd for UnixSocket {
    fn as_fd(&self) -> std::os::fd::BorrowedFd<'_> {
        std::os::fd::AsFd::as_fd(&self.inner)
    }
}

impl std::fmt::Debug for UnixSocket {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.inner, f)
    }
}

impl UnixSocket {
    /// A new stream socket.
    ///
    /// # Errors
    ///
    /// The OS error of `socket`.
    pub fn new_stream() -> io::Result<UnixSocket> {
        rt::net::UnixSocket::new_stream().map(UnixSocket::from)
    }

    /// A new datagram socket.
    ///
    /// # Errors
    ///
    /// The OS error of `socket`.
    pub fn new_datagram() -> io::Result<UnixSocket> {
        rt::net::UnixSocket::new_datagram().map(UnixSocket::from)
    }

    /// Listens (a stream socket), with a queue of `backlog`.
    ///
    /// # Errors
    ///
    /// The OS error of `listen`, or `InvalidInput` for a datagram socket.
    ///
    /// # Panics
    ///
    /// Outside an rt runtime with I/O enabled.
    pub fn listen(self, backlog: u32) -> io::Result<UnixListener> {
        self.inner.listen(backlog).map(UnixListener::from)
    }

    /// Connects (a stream socket) to `path`.
    ///
    /// # Errors
    ///
    /// The OS error of `connect`, or `InvalidInput` for a datagram socket.
    ///
    /// # Panics
    ///
    /// Outside an rt runtime with I/O enabled.
    pub async fn connect(self, path: impl AsRef<Path>) -> io::Result<UnixStream> {
        self.inner.connect(path).await.map(UnixStream::from)
    }

    /// Turns a datagram socket into a [`UnixDatagram`].
    ///
    /// # Errors
    ///
    /// `InvalidInput` for a stream socket, or the registration's error.
    ///
    /// # Panics
    ///
    /// Outside an rt runtime with I/O enabled.
    pub fn datagram(self) -> io::Result<UnixDatagram> {
        self.inner.datagram().map(UnixDatagram::from)
    }
}
