//! [`UnixSocket`]: a newtype over rt's, whose `listen`, `connect` and
//! `datagram` hand out the facade's types.

use super::{UnixDatagram, UnixListener, UnixStream};
use crate::net::newtype::{configurable_socket, socket_newtype};
use std::io;
use std::path::Path;

/// A Unix-domain socket configured before it listens, connects or becomes
/// a datagram socket. A newtype over `rt::net::UnixSocket`; its option
/// methods are rt's, through `Deref`.
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

socket_newtype!(UnixSocket, rt::net::UnixSocket);
configurable_socket!(UnixSocket, rt::net::UnixSocket);

impl UnixSocket {
    /// Binds the socket to `path`.
    ///
    /// # Errors
    ///
    /// The OS error, as tokio returns it (`EADDRINUSE` for a path taken;
    /// rt's names the path and wraps it).
    pub fn bind(&self, path: impl AsRef<Path>) -> io::Result<()> {
        self.inner.bind(path).map_err(crate::os_error::os_error)
    }

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
