//! `TcpSocket`: a TCP socket configured before it connects or listens.
//! The socket calls are `socket2`'s.

use super::{TcpListener, TcpStream};
use socket2::{Domain, Protocol, Socket, Type};
use std::fmt;
use std::io;
use std::net::SocketAddr;
use std::os::fd::{AsRawFd, OwnedFd};
use std::time::Duration;

/// `linger` in the whole seconds `SO_LINGER` counts, a fraction rounded
/// up: never down to zero, which would turn a graceful close into a reset.
pub(super) fn whole_seconds(linger: Duration) -> Duration {
    Duration::from_secs(
        linger
            .as_secs()
            .saturating_add(u64::from(linger.subsec_nanos() > 0)),
    )
}

/// `size` as the `int` a buffer-size option holds.
fn buffer_size(size: u32) -> io::Result<usize> {
    if size > i32::MAX as u32 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "a socket buffer size is at most {} bytes, not {size}",
                i32::MAX
            ),
        ));
    }
    Ok(size as usize)
}

/// A TCP socket not yet connected or listening, for the options that must
/// be set before: `SO_REUSEADDR`, `SO_REUSEPORT` (several listeners on one
/// port, the kernel spreading connections over them), buffer sizes, the
/// local address of an outgoing connection. Then [`connect`] or
/// [`listen`] turns it into a [`TcpStream`] or a [`TcpListener`].
///
/// Inside a simulation (feature `sim`), the socket holds its options
/// until `connect` or `listen`, which go over the simulated network; one
/// adopted by [`from_std_stream`](TcpSocket::from_std_stream) too, unless
/// it was bound on the machine (`rt::sim`'s docs list what is refused).
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
    pub(super) socket: Socket,
    /// Inside a simulation, the address `bind` recorded (the descriptor
    /// stays unbound: see `socket_sim.rs`).
    #[cfg(feature = "sim")]
    pub(super) sim_bound: std::sync::OnceLock<SocketAddr>,
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
        TcpSocket::new(Domain::IPV4)
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
        TcpSocket::new(Domain::IPV6)
    }

    /// A non-blocking, close-on-exec TCP socket of `domain`.
    ///
    /// Inside a simulation too: an unconnected socket only holds options
    /// until `connect` or `listen` (see `socket_sim.rs`).
    fn new(domain: Domain) -> io::Result<TcpSocket> {
        let socket = Socket::new(domain, Type::STREAM, Some(Protocol::TCP))?;
        socket.set_nonblocking(true)?;
        Ok(TcpSocket::adopt(socket))
    }

    fn adopt(socket: Socket) -> TcpSocket {
        TcpSocket {
            socket,
            #[cfg(feature = "sim")]
            sim_bound: std::sync::OnceLock::new(),
        }
    }

    /// Takes over a TCP socket made elsewhere and not yet connected or
    /// listening: typically a `socket2::Socket` set up with an option rt
    /// has no method for, converted into a `std::net::TcpStream` (the
    /// type only carries the descriptor). Options already set stay set.
    /// The socket need not be in non-blocking mode:
    /// [`connect`](TcpSocket::connect) and [`listen`](TcpSocket::listen)
    /// switch it.
    ///
    /// # Examples
    ///
    /// ```
    /// use socket2::{Domain, Socket, Type};
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    ///     let raw = Socket::new(Domain::IPV4, Type::STREAM, None).unwrap();
    ///     raw.set_keepalive(true).unwrap();
    ///     let socket = rt::net::TcpSocket::from_std_stream(raw.into());
    ///     assert!(socket.keepalive().unwrap());
    ///     let stream = socket.connect(listener.local_addr().unwrap()).await.unwrap();
    ///     assert!(socket2::SockRef::from(&stream).keepalive().unwrap());
    /// });
    /// ```
    pub fn from_std_stream(std_stream: std::net::TcpStream) -> TcpSocket {
        TcpSocket::adopt(Socket::from(std_stream))
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
        self.socket.set_reuse_address(reuseaddr)
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
        self.socket.reuse_address()
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
    #[cfg(not(any(target_os = "solaris", target_os = "illumos", target_os = "cygwin")))]
    pub fn set_reuseport(&self, reuseport: bool) -> io::Result<()> {
        self.socket.set_reuse_port(reuseport)
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
    #[cfg(not(any(target_os = "solaris", target_os = "illumos", target_os = "cygwin")))]
    pub fn reuseport(&self) -> io::Result<bool> {
        self.socket.reuse_port()
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
        self.socket.set_keepalive(keepalive)
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
        self.socket.keepalive()
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
        self.socket.set_tcp_nodelay(nodelay)
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
        self.socket.tcp_nodelay()
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
        self.socket.set_send_buffer_size(buffer_size(size)?)
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
        Ok(self.socket.send_buffer_size()?.min(u32::MAX as usize) as u32)
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
        self.socket.set_recv_buffer_size(buffer_size(size)?)
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
        Ok(self.socket.recv_buffer_size()?.min(u32::MAX as usize) as u32)
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
        self.socket.set_linger(linger.map(whole_seconds))
    }

    /// Sets `SO_LINGER` to zero, as [`TcpStream::set_zero_linger`]: the
    /// stream or the accepted connections of the listener this socket
    /// becomes close with a reset (`RST`) when dropped.
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
    /// socket.set_zero_linger().unwrap();
    /// assert_eq!(socket.linger().unwrap(), Some(Duration::ZERO));
    /// ```
    pub fn set_zero_linger(&self) -> io::Result<()> {
        self.socket.set_linger(Some(Duration::ZERO))
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
        self.socket.linger()
    }

    cfg_tos_v4! {
        /// Sets the type-of-service byte (`IP_TOS`) of the IPv4 packets this
        /// socket sends (DSCP and ECN bits); a stream from
        /// [`connect`](TcpSocket::connect) keeps it.
        ///
        /// # Errors
        ///
        /// The error of the `setsockopt` call (on an IPv6 socket, say).
        ///
        /// # Examples
        ///
        /// ```
        /// let socket = rt::net::TcpSocket::new_v4().unwrap();
        /// socket.set_tos_v4(0x10).unwrap(); // low delay
        /// assert_eq!(socket.tos_v4().unwrap(), 0x10);
        /// ```
        pub fn set_tos_v4(&self, tos: u32) -> io::Result<()> {
            self.socket.set_tos_v4(tos)
        }

        /// The type-of-service byte (`IP_TOS`) of the IPv4 packets this socket
        /// sends.
        ///
        /// # Errors
        ///
        /// The error of the `getsockopt` call.
        ///
        /// # Examples
        ///
        /// See [`set_tos_v4`](TcpSocket::set_tos_v4).
        pub fn tos_v4(&self) -> io::Result<u32> {
            self.socket.tos_v4()
        }
    }

    cfg_tclass_v6! {
        /// Sets the traffic class (`IPV6_TCLASS`) of the IPv6 packets this
        /// socket sends: the IPv6 counterpart of
        /// [`set_tos_v4`](TcpSocket::set_tos_v4).
        ///
        /// # Errors
        ///
        /// The error of the `setsockopt` call (on an IPv4 socket, say).
        ///
        /// # Examples
        ///
        /// ```
        /// if let Ok(socket) = rt::net::TcpSocket::new_v6() {
        ///     socket.set_tclass_v6(0x10).unwrap();
        ///     assert_eq!(socket.tclass_v6().unwrap(), 0x10);
        /// }
        /// ```
        pub fn set_tclass_v6(&self, tclass: u32) -> io::Result<()> {
            self.socket.set_tclass_v6(tclass)
        }

        /// The traffic class (`IPV6_TCLASS`) of the IPv6 packets this socket
        /// sends.
        ///
        /// # Errors
        ///
        /// The error of the `getsockopt` call.
        ///
        /// # Examples
        ///
        /// See [`set_tclass_v6`](TcpSocket::set_tclass_v6).
        pub fn tclass_v6(&self) -> io::Result<u32> {
            self.socket.tclass_v6()
        }
    }

    cfg_bind_device! {
        /// Binds the socket to the network device named `interface`
        /// (`SO_BINDTODEVICE`; `b"eth0"`, say): its packets then go out and
        /// come in through that device only, whatever the routing table
        /// says; a stream from [`connect`](TcpSocket::connect) or a listener
        /// from [`listen`](TcpSocket::listen) keeps the binding. `None` (or
        /// an empty name) removes it. Changing a binding already set needs
        /// `CAP_NET_RAW` (before Linux 5.7, setting one did too).
        ///
        /// # Errors
        ///
        /// The error of the `setsockopt` call, its message naming the
        /// device: `ENODEV` ("No such device") for a name no device has,
        /// `EPERM` without the capability it needs.
        ///
        /// # Examples
        ///
        /// ```
        /// let socket = rt::net::TcpSocket::new_v4().unwrap();
        /// let err = socket.bind_device(Some(b"no-such-dev0")).unwrap_err();
        /// assert!(err.to_string().contains("no-such-dev0"), "{err}");
        /// assert_eq!(socket.device().unwrap(), None);
        /// ```
        pub fn bind_device(&self, interface: Option<&[u8]>) -> io::Result<()> {
            crate::net::device::bind_device(&self.socket, interface)
        }

        /// The name of the device the socket is bound to
        /// (`SO_BINDTODEVICE`), `None` if unbound.
        ///
        /// # Errors
        ///
        /// The error of the `getsockopt` call.
        ///
        /// # Examples
        ///
        /// See [`bind_device`](TcpSocket::bind_device).
        pub fn device(&self) -> io::Result<Option<Vec<u8>>> {
            self.socket.device()
        }
    }

    /// Takes the socket's pending error (`SO_ERROR`), clearing it.
    ///
    /// # Errors
    ///
    /// The error of the `getsockopt` call.
    ///
    /// # Examples
    ///
    /// ```
    /// let socket = rt::net::TcpSocket::new_v4().unwrap();
    /// assert!(socket.take_error().unwrap().is_none());
    /// ```
    pub fn take_error(&self) -> io::Result<Option<io::Error>> {
        self.socket.take_error()
    }

    /// Checks that `addr` is of this socket's family (asking the socket,
    /// which may come from `from_std_stream`).
    fn check_family(&self, addr: &SocketAddr, what: &str) -> io::Result<()> {
        let v6 = self.local_addr()?.is_ipv6();
        if addr.is_ipv6() == v6 {
            return Ok(());
        }
        let (socket, wanted) = if v6 {
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
        #[cfg(feature = "sim")]
        if crate::sim::is_current() {
            return self.bind_simulated(addr);
        }
        self.socket.bind(&addr.into())
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
        #[cfg(feature = "sim")]
        if let Some(bound) = self.bound_simulated() {
            return Ok(bound);
        }
        self.local_addr_of_descriptor()
    }

    /// The address the descriptor is bound to (`getsockname`).
    pub(super) fn local_addr_of_descriptor(&self) -> io::Result<SocketAddr> {
        self.socket.local_addr()?.as_socket().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                "a TCP socket reported an address that is not an IP one",
            )
        })
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
        #[cfg(feature = "sim")]
        if let Some(sim) = crate::sim::in_sim(Clone::clone) {
            return self.connect_simulated(sim, addr).await;
        }
        #[cfg(feature = "sim")]
        self.refuse_bound_simulated("`TcpSocket::connect`")?;
        // Already so unless the socket came from `from_std_stream`.
        self.socket.set_nonblocking(true)?;
        match self.socket.connect(&addr.into()) {
            Ok(()) => {}
            // Interrupted, a connect goes on in the background (POSIX), as
            // one in progress does.
            Err(e)
                if e.raw_os_error() == Some(libc::EINPROGRESS)
                    || e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
        let std = std::net::TcpStream::from(self.socket);
        let io = TcpStream::register(mio::net::TcpStream::from_std(std))?;
        TcpStream::connected(io).await
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
        #[cfg(feature = "sim")]
        if let Some(sim) = crate::sim::in_sim(Clone::clone) {
            return self.listen_simulated(&sim);
        }
        #[cfg(feature = "sim")]
        self.refuse_bound_simulated("`TcpSocket::listen`")?;
        self.socket
            .listen(i32::try_from(backlog).unwrap_or(i32::MAX))?;
        TcpListener::from_std(std::net::TcpListener::from(self.socket))
    }
}

unregistered_socket_fd!(TcpSocket, "an open TCP socket descriptor");

impl From<TcpSocket> for OwnedFd {
    fn from(socket: TcpSocket) -> OwnedFd {
        socket.socket.into()
    }
}

impl fmt::Debug for TcpSocket {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TcpSocket")
            .field("fd", &self.socket.as_raw_fd())
            .field("local_addr", &self.local_addr().ok())
            .finish()
    }
}
