//! [`TcpSocket`]: a newtype over rt's, whose `connect` and `listen` hand
//! out the facade's stream and listener.

use super::{TcpListener, TcpStream};
use crate::net::newtype::{configurable_socket, socket_newtype};
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

socket_newtype!(TcpSocket, rt::net::TcpSocket);
configurable_socket!(TcpSocket, rt::net::TcpSocket);

impl TcpSocket {
    /// Binds the socket to a device (`SO_BINDTODEVICE`); `None` unbinds.
    ///
    /// # Errors
    ///
    /// The OS error, as tokio returns it (rt's names the device and wraps
    /// it).
    #[cfg(any(target_os = "android", target_os = "fuchsia", target_os = "linux"))]
    pub fn bind_device(&self, interface: Option<&[u8]>) -> io::Result<()> {
        self.inner
            .bind_device(interface)
            .map_err(crate::os_error::os_error)
    }

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
