//! `TcpSocket`: a TCP socket configured before it connects or listens.

use super::{TcpListener, TcpStream};
use crate::io::sys;
use std::fmt;
use std::future::poll_fn;
use std::io;
use std::net::SocketAddr;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::time::Duration;

/// A TCP socket not yet connected or listening, for the options that must
/// be set before: `SO_REUSEADDR`, `SO_REUSEPORT` (several listeners on one
/// port, the kernel spreading connections over them), buffer sizes, the
/// local address of an outgoing connection. Then [`connect`] or
/// [`listen`] turns it into a [`TcpStream`] or a [`TcpListener`].
///
/// [`connect`]: TcpSocket::connect
/// [`listen`]: TcpSocket::listen
///
/// # Examples
///
/// ```
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let socket = rt::net::TcpSocket::new_v4().unwrap();
/// socket.set_reuseaddr(true).unwrap();
/// socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
/// let listener = socket.listen(1024).unwrap();
/// let addr = listener.local_addr().unwrap();
///
/// let client = rt::net::TcpSocket::new_v4().unwrap().connect(addr).await.unwrap();
/// let (server, _) = listener.accept().await.unwrap();
/// assert_eq!(server.peer_addr().unwrap(), client.local_addr().unwrap());
/// # });
/// ```
pub struct TcpSocket {
    fd: OwnedFd,
    v6: bool,
}

impl TcpSocket {
    /// A new IPv4 socket.
    ///
    /// # Errors
    ///
    /// The error of the `socket` call (for example, too many open files).
    ///
    /// # Examples
    ///
    /// ```
    /// let socket = rt::net::TcpSocket::new_v4().unwrap();
    /// # drop(socket);
    /// ```
    pub fn new_v4() -> io::Result<TcpSocket> {
        Ok(TcpSocket {
            fd: sys::tcp_socket(libc::AF_INET)?,
            v6: false,
        })
    }

    /// A new IPv6 socket.
    ///
    /// # Errors
    ///
    /// The error of the `socket` call (for example, IPv6 is disabled).
    ///
    /// # Examples
    ///
    /// ```
    /// if let Ok(socket) = rt::net::TcpSocket::new_v6() {
    ///     # drop(socket);
    /// }
    /// ```
    pub fn new_v6() -> io::Result<TcpSocket> {
        Ok(TcpSocket {
            fd: sys::tcp_socket(libc::AF_INET6)?,
            v6: true,
        })
    }

    fn set_flag(&self, level: libc::c_int, name: libc::c_int, on: bool) -> io::Result<()> {
        sys::set_int_option(self.fd.as_raw_fd(), level, name, libc::c_int::from(on))
    }

    fn flag(&self, level: libc::c_int, name: libc::c_int) -> io::Result<bool> {
        Ok(sys::int_option(self.fd.as_raw_fd(), level, name)? != 0)
    }

    /// Sets the buffer-size option `name` (`SO_SNDBUF`, `SO_RCVBUF`).
    fn set_size(&self, name: libc::c_int, size: u32) -> io::Result<()> {
        let size = libc::c_int::try_from(size).map_err(|_| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "a socket buffer size is at most {} bytes, not {size}",
                    libc::c_int::MAX
                ),
            )
        })?;
        sys::set_int_option(self.fd.as_raw_fd(), libc::SOL_SOCKET, name, size)
    }

    /// Reads the buffer-size option `name`.
    fn size(&self, name: libc::c_int) -> io::Result<u32> {
        let size = sys::int_option(self.fd.as_raw_fd(), libc::SOL_SOCKET, name)?;
        Ok(size.max(0) as u32)
    }

    /// Sets `SO_REUSEADDR`: a listener may bind a port whose previous
    /// connections are still in `TIME_WAIT` (what a restarted server
    /// wants).
    ///
    /// # Errors
    ///
    /// The error of the `setsockopt` call.
    ///
    /// # Examples
    ///
    /// ```
    /// let socket = rt::net::TcpSocket::new_v4().unwrap();
    /// socket.set_reuseaddr(true).unwrap();
    /// assert!(socket.reuseaddr().unwrap());
    /// ```
    pub fn set_reuseaddr(&self, reuseaddr: bool) -> io::Result<()> {
        self.set_flag(libc::SOL_SOCKET, libc::SO_REUSEADDR, reuseaddr)
    }

    /// Whether `SO_REUSEADDR` is set.
    ///
    /// # Errors
    ///
    /// The error of the `getsockopt` call.
    ///
    /// # Examples
    ///
    /// See [`set_reuseaddr`](TcpSocket::set_reuseaddr).
    pub fn reuseaddr(&self) -> io::Result<bool> {
        self.flag(libc::SOL_SOCKET, libc::SO_REUSEADDR)
    }

    /// Sets `SO_REUSEPORT`: several sockets (of one user) may listen on
    /// the same address and port, and the kernel spreads new connections
    /// over them.
    ///
    /// # Errors
    ///
    /// The error of the `setsockopt` call.
    ///
    /// # Examples
    ///
    /// ```
    /// let socket = rt::net::TcpSocket::new_v4().unwrap();
    /// socket.set_reuseport(true).unwrap();
    /// assert!(socket.reuseport().unwrap());
    /// ```
    pub fn set_reuseport(&self, reuseport: bool) -> io::Result<()> {
        self.set_flag(libc::SOL_SOCKET, libc::SO_REUSEPORT, reuseport)
    }

    /// Whether `SO_REUSEPORT` is set.
    ///
    /// # Errors
    ///
    /// The error of the `getsockopt` call.
    ///
    /// # Examples
    ///
    /// See [`set_reuseport`](TcpSocket::set_reuseport).
    pub fn reuseport(&self) -> io::Result<bool> {
        self.flag(libc::SOL_SOCKET, libc::SO_REUSEPORT)
    }

    /// Sets `SO_KEEPALIVE`: the kernel probes an idle connection and fails
    /// it if the peer is gone.
    ///
    /// # Errors
    ///
    /// The error of the `setsockopt` call.
    ///
    /// # Examples
    ///
    /// ```
    /// let socket = rt::net::TcpSocket::new_v4().unwrap();
    /// socket.set_keepalive(true).unwrap();
    /// assert!(socket.keepalive().unwrap());
    /// ```
    pub fn set_keepalive(&self, keepalive: bool) -> io::Result<()> {
        self.set_flag(libc::SOL_SOCKET, libc::SO_KEEPALIVE, keepalive)
    }

    /// Whether `SO_KEEPALIVE` is set.
    ///
    /// # Errors
    ///
    /// The error of the `getsockopt` call.
    ///
    /// # Examples
    ///
    /// See [`set_keepalive`](TcpSocket::set_keepalive).
    pub fn keepalive(&self) -> io::Result<bool> {
        self.flag(libc::SOL_SOCKET, libc::SO_KEEPALIVE)
    }

    /// Sets `TCP_NODELAY` (no Nagle delay for small writes); streams from
    /// [`connect`](TcpSocket::connect) keep it.
    ///
    /// # Errors
    ///
    /// The error of the `setsockopt` call.
    ///
    /// # Examples
    ///
    /// ```
    /// let socket = rt::net::TcpSocket::new_v4().unwrap();
    /// socket.set_nodelay(true).unwrap();
    /// assert!(socket.nodelay().unwrap());
    /// ```
    pub fn set_nodelay(&self, nodelay: bool) -> io::Result<()> {
        self.set_flag(libc::IPPROTO_TCP, libc::TCP_NODELAY, nodelay)
    }

    /// Whether `TCP_NODELAY` is set.
    ///
    /// # Errors
    ///
    /// The error of the `getsockopt` call.
    ///
    /// # Examples
    ///
    /// See [`set_nodelay`](TcpSocket::set_nodelay).
    pub fn nodelay(&self) -> io::Result<bool> {
        self.flag(libc::IPPROTO_TCP, libc::TCP_NODELAY)
    }

    /// Asks for a send buffer of `size` bytes (`SO_SNDBUF`; Linux doubles
    /// it for bookkeeping and clamps it to its limits).
    ///
    /// # Errors
    ///
    /// The error of the `setsockopt` call, or `InvalidInput` above
    /// `i32::MAX`.
    ///
    /// # Examples
    ///
    /// ```
    /// let socket = rt::net::TcpSocket::new_v4().unwrap();
    /// socket.set_send_buffer_size(64 * 1024).unwrap();
    /// assert!(socket.send_buffer_size().unwrap() >= 64 * 1024);
    /// ```
    pub fn set_send_buffer_size(&self, size: u32) -> io::Result<()> {
        self.set_size(libc::SO_SNDBUF, size)
    }

    /// The send buffer size (`SO_SNDBUF`).
    ///
    /// # Errors
    ///
    /// The error of the `getsockopt` call.
    ///
    /// # Examples
    ///
    /// See [`set_send_buffer_size`](TcpSocket::set_send_buffer_size).
    pub fn send_buffer_size(&self) -> io::Result<u32> {
        self.size(libc::SO_SNDBUF)
    }

    /// Asks for a receive buffer of `size` bytes (`SO_RCVBUF`; Linux
    /// doubles it for bookkeeping and clamps it to its limits).
    ///
    /// # Errors
    ///
    /// The error of the `setsockopt` call, or `InvalidInput` above
    /// `i32::MAX`.
    ///
    /// # Examples
    ///
    /// ```
    /// let socket = rt::net::TcpSocket::new_v4().unwrap();
    /// socket.set_recv_buffer_size(64 * 1024).unwrap();
    /// assert!(socket.recv_buffer_size().unwrap() >= 64 * 1024);
    /// ```
    pub fn set_recv_buffer_size(&self, size: u32) -> io::Result<()> {
        self.set_size(libc::SO_RCVBUF, size)
    }

    /// The receive buffer size (`SO_RCVBUF`).
    ///
    /// # Errors
    ///
    /// The error of the `getsockopt` call.
    ///
    /// # Examples
    ///
    /// See [`set_recv_buffer_size`](TcpSocket::set_recv_buffer_size).
    pub fn recv_buffer_size(&self) -> io::Result<u32> {
        self.size(libc::SO_RCVBUF)
    }

    /// Sets `SO_LINGER`, as [`TcpStream::set_linger`] (whose warning holds:
    /// a non-zero linger makes dropping the stream block its thread).
    ///
    /// # Errors
    ///
    /// The error of the `setsockopt` call.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// let socket = rt::net::TcpSocket::new_v4().unwrap();
    /// socket.set_linger(Some(Duration::ZERO)).unwrap(); // close with a reset
    /// assert_eq!(socket.linger().unwrap(), Some(Duration::ZERO));
    /// ```
    pub fn set_linger(&self, linger: Option<Duration>) -> io::Result<()> {
        sys::set_linger(self.fd.as_raw_fd(), linger)
    }

    /// `SO_LINGER`, as [`TcpStream::linger`].
    ///
    /// # Errors
    ///
    /// The error of the `getsockopt` call.
    ///
    /// # Examples
    ///
    /// See [`set_linger`](TcpSocket::set_linger).
    pub fn linger(&self) -> io::Result<Option<Duration>> {
        sys::linger(self.fd.as_raw_fd())
    }

    /// Checks that `addr` is of this socket's family.
    fn check_family(&self, addr: &SocketAddr, what: &str) -> io::Result<()> {
        if addr.is_ipv6() == self.v6 {
            return Ok(());
        }
        let (socket, wanted) = if self.v6 {
            ("IPv6", "new_v4")
        } else {
            ("IPv4", "new_v6")
        };
        Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "cannot {what} an {socket} socket to {addr}: make the socket with \
                 `TcpSocket::{wanted}`"
            ),
        ))
    }

    /// Binds the socket to `addr` (port 0: the kernel picks one).
    ///
    /// # Errors
    ///
    /// `InvalidInput` for an address of the other family; the error of
    /// the `bind` call, such as `AddrInUse`.
    ///
    /// # Examples
    ///
    /// ```
    /// let socket = rt::net::TcpSocket::new_v4().unwrap();
    /// socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    /// assert_ne!(socket.local_addr().unwrap().port(), 0);
    /// ```
    pub fn bind(&self, addr: SocketAddr) -> io::Result<()> {
        self.check_family(&addr, "bind")?;
        sys::bind(self.fd.as_raw_fd(), &addr)
    }

    /// The address the socket is bound to.
    ///
    /// # Errors
    ///
    /// The error of the `getsockname` call.
    ///
    /// # Examples
    ///
    /// See [`bind`](TcpSocket::bind).
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        sys::local_addr(self.fd.as_raw_fd())
    }

    /// Connects to `addr`, keeping the options set (and the address bound,
    /// if any).
    ///
    /// # Errors
    ///
    /// `InvalidInput` for an address of the other family; the connection's
    /// error, such as `ConnectionRefused`.
    ///
    /// # Panics
    ///
    /// Panics outside a runtime with I/O enabled.
    ///
    /// # Examples
    ///
    /// See [`TcpSocket`].
    pub async fn connect(self, addr: SocketAddr) -> io::Result<TcpStream> {
        self.check_family(&addr, "connect")?;
        sys::start_connect(self.fd.as_raw_fd(), &addr)?;
        let std = std::net::TcpStream::from(self.fd);
        let stream = TcpStream::new(mio::net::TcpStream::from_std(std))?;
        poll_fn(|cx| stream.poll_connected(cx)).await?;
        Ok(stream)
    }

    /// Starts listening, with at most `backlog` connections waiting to be
    /// accepted (the kernel caps it at `net.core.somaxconn`). Bind first:
    /// an unbound socket listens on every interface, at a port the kernel
    /// picks.
    ///
    /// # Errors
    ///
    /// The error of the `listen` call, or of registering with the reactor.
    ///
    /// # Panics
    ///
    /// Panics outside a runtime with I/O enabled.
    ///
    /// # Examples
    ///
    /// See [`TcpSocket`].
    pub fn listen(self, backlog: u32) -> io::Result<TcpListener> {
        sys::listen(self.fd.as_raw_fd(), backlog)?;
        TcpListener::from_std(std::net::TcpListener::from(self.fd))
    }
}

impl AsRawFd for TcpSocket {
    fn as_raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}

impl AsFd for TcpSocket {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

impl From<TcpSocket> for OwnedFd {
    fn from(socket: TcpSocket) -> OwnedFd {
        socket.fd
    }
}

impl fmt::Debug for TcpSocket {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TcpSocket")
            .field("fd", &self.fd.as_raw_fd())
            .field("v6", &self.v6)
            .finish()
    }
}
