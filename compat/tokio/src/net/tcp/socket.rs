//! [`TcpSocket`]: a newtype over rt's, whose `connect` and `listen` hand
//! out the facade's stream and listener.

use super::{TcpListener, TcpStream};
use std::io;
use std::net::SocketAddr;

/// A TCP socket configured before it connects or listens. A newtype over
/// `rt::net::TcpSocket` whose `connect`/`listen` give the facade's types;
/// its option setters and getters are rt's, through `Deref`.
///
/// # Examples
///
/// ```
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let socket = tokio::net::TcpSocket::new_v4().unwrap();
/// socket.set_reuseaddr(true).unwrap();
/// socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
/// let listener = socket.listen(16).unwrap();
/// # drop(listener);
/// # });
/// ```
pub struct TcpSocket {
    inner: rt::net::TcpSocket,
}

impl From<rt::net::TcpSocket> for TcpSocket {
    fn from(inner: rt::net::TcpSocket) -> TcpSocket {
        TcpSocket { inner }
    }
}

impl From<TcpSocket> for rt::net::TcpSocket {
    fn from(socket: TcpSocket) -> rt::net::TcpSocket {
        socket.inner
    }
}

/// rt's option setters and getters, whose shape is tokio's.
impl std::ops::Deref for TcpSocket {
    type Target = rt::net::TcpSocket;

    fn deref(&self) -> &rt::net::TcpSocket {
        &self.inner
    }
}

impl std::os::fd::AsRawFd for TcpSocket {
    fn as_raw_fd(&self) -> std::os::fd::RawFd {
        std::os::fd::AsRawFd::as_raw_fd(&self.inner)
    }
}

impl std::os::fd::AsFd for TcpSocket {
    fn as_fd(&self) -> std::os::fd::BorrowedFd<'_> {
        std::os::fd::AsFd::as_fd(&self.inner)
    }
}

impl std::os::fd::IntoRawFd for TcpSocket {
    fn into_raw_fd(self) -> std::os::fd::RawFd {
        std::os::fd::IntoRawFd::into_raw_fd(self.inner)
    }
}

impl std::os::fd::FromRawFd for TcpSocket {
    /// # Safety
    ///
    /// `fd` must be an open TCP socket that nothing else owns.
    unsafe fn from_raw_fd(fd: std::os::fd::RawFd) -> TcpSocket {
        // SAFETY: the caller's contract, passed on.
        TcpSocket::from(unsafe { rt::net::TcpSocket::from_raw_fd(fd) })
    }
}

impl std::fmt::Debug for TcpSocket {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.inner, f)
    }
}

impl TcpSocket {
    /// A new IPv4 TCP socket.
    ///
    /// # Errors
    ///
    /// The OS error of `socket`.
    pub fn new_v4() -> io::Result<TcpSocket> {
        rt::net::TcpSocket::new_v4().map(TcpSocket::from)
    }

    /// A new IPv6 TCP socket.
    ///
    /// # Errors
    ///
    /// The OS error of `socket`.
    pub fn new_v6() -> io::Result<TcpSocket> {
        rt::net::TcpSocket::new_v6().map(TcpSocket::from)
    }

    /// Adopts a std stream's socket, to configure it further.
    pub fn from_std_stream(std_stream: std::net::TcpStream) -> TcpSocket {
        TcpSocket::from(rt::net::TcpSocket::from_std_stream(std_stream))
    }

    /// Connects to `addr`.
    ///
    /// # Errors
    ///
    /// The connection error.
    ///
    /// # Panics
    ///
    /// Outside an rt runtime with I/O enabled.
    pub async fn connect(self, addr: SocketAddr) -> io::Result<TcpStream> {
        self.inner.connect(addr).await.map(TcpStream::from)
    }

    /// Listens, with a queue of `backlog` pending connections.
    ///
    /// # Errors
    ///
    /// The OS error of `listen`.
    ///
    /// # Panics
    ///
    /// Outside an rt runtime with I/O enabled.
    pub fn listen(self, backlog: u32) -> io::Result<TcpListener> {
        self.inner.listen(backlog).map(TcpListener::from)
    }
}
