use super::dispatch::UdpIo;
use crate::io::registered::Registered;
use crate::net::addr::{ToSocketAddrs, each_addr};
use rt_reactor::Interest;
use socket2::SockRef;
use std::fmt;
use std::io;
use std::net::SocketAddr;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, RawFd};

/// A UDP socket.
///
/// Use [`send_to`](UdpSocket::send_to)/[`recv_from`](UdpSocket::recv_from),
/// or [`connect`](UdpSocket::connect) to one peer and then
/// [`send`](UdpSocket::send)/[`recv`](UdpSocket::recv). All methods take
/// `&self`, so one socket can be shared (e.g. in an `Arc`) by any number of
/// tasks: a pool of receivers waiting in `recv_from` at once, senders
/// waiting for room in `send_to`. Each waiting call has a place of its own;
/// a datagram wakes every receiver, one of them gets it and the others wait
/// again. Dropping a waiting call (a timeout) frees its place.
///
/// The `poll_*` methods ([`poll_recv_from`](UdpSocket::poll_recv_from),
/// [`poll_send`](UdpSocket::poll_send), ...) have no future to own a place:
/// they wait in one slot per direction, where the last caller's waker wins,
/// so each direction is polled by one task at a time.
///
/// Once the socket's read side is shut down (`shutdown(Read)` through
/// [`socket2::SockRef`] or on the descriptor) and no datagram is queued,
/// every receive and peek returns no bytes (from the unspecified address,
/// port 0) instead of waiting, as a blocking `recv` does; nothing would
/// end the wait. (tokio's receive spins there, keeping its thread.)
///
/// # Examples
///
/// ```
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let a = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
///     let b = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
///     a.send_to(b"hi", b.local_addr().unwrap()).await.unwrap();
///     let mut buf = [0; 8];
///     let (n, from) = b.recv_from(&mut buf).await.unwrap();
///     assert_eq!((&buf[..n], from), (&b"hi"[..], a.local_addr().unwrap()));
/// });
/// ```
pub struct UdpSocket {
    io: UdpIo,
}

// Unwind-safe, as tokio's: a real socket's readiness is atomics and a
// simulated one's state sits behind the simulation's locks; only the
// simulation's hooks (`dyn Fn`, called, never changed) keep the auto
// traits off under feature `sim`.
impl std::panic::UnwindSafe for UdpSocket {}
impl std::panic::RefUnwindSafe for UdpSocket {}

impl UdpSocket {
    /// Binds a socket to `addr`.
    ///
    /// # Errors
    ///
    /// The OS error of the last address tried, or `InvalidInput` for an
    /// address that is not `ip:port`.
    ///
    /// # Panics
    ///
    /// Panics outside a runtime with I/O enabled.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let socket = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     assert_ne!(socket.local_addr().unwrap().port(), 0);
    /// });
    /// ```
    pub async fn bind(addr: impl ToSocketAddrs) -> io::Result<UdpSocket> {
        each_addr(addr, |addr| async move {
            #[cfg(feature = "sim")]
            if let Some(bound) = crate::sim::in_sim(|sim| crate::sim::SimUdp::bind(sim, addr)) {
                return Ok(UdpSocket {
                    io: UdpIo::Sim(bound?),
                });
            }
            UdpSocket::new(mio::net::UdpSocket::bind(addr)?)
        })
        .await
    }

    #[track_caller]
    fn new(sys: mio::net::UdpSocket) -> io::Result<UdpSocket> {
        let registered = Registered::new(sys, Interest::READABLE | Interest::WRITABLE)?;
        #[cfg(feature = "sim")]
        let registered = UdpIo::Real(registered);
        Ok(UdpSocket { io: registered })
    }

    /// The socket's I/O, for the readiness, `poll_*` and `try_*` methods
    /// (the registration or, in a simulation, the simulated socket: see
    /// `dispatch.rs`).
    pub(super) fn registered(&self) -> &UdpIo {
        &self.io
    }

    /// The `bytes` receives of `datagram_buf.rs`: named operations of the
    /// I/O layer (`dispatch.rs`), so a simulated socket has them too.
    #[cfg(feature = "bytes")]
    async fn bytes_recv<B: bytes::BufMut + ?Sized>(&self, buf: &mut B) -> io::Result<usize> {
        self.io.udp_recv_buf(buf).await
    }

    #[cfg(feature = "bytes")]
    async fn bytes_recv_from<B: bytes::BufMut + ?Sized>(
        &self,
        buf: &mut B,
    ) -> io::Result<(usize, SocketAddr)> {
        self.io.udp_recv_buf_from(buf).await
    }

    #[cfg(feature = "bytes")]
    fn bytes_try_recv<B: bytes::BufMut + ?Sized>(&self, buf: &mut B) -> io::Result<usize> {
        self.io.udp_try_recv_buf(buf)
    }

    #[cfg(feature = "bytes")]
    fn bytes_try_recv_from<B: bytes::BufMut + ?Sized>(
        &self,
        buf: &mut B,
    ) -> io::Result<(usize, SocketAddr)> {
        self.io.udp_try_recv_buf_from(buf)
    }

    /// The socket itself, for its options.
    pub(super) fn sys(&self) -> &mio::net::UdpSocket {
        self.io.get_ref()
    }

    /// Wraps a socket bound with `std` (it is switched to non-blocking).
    ///
    /// # Errors
    ///
    /// The OS error of switching modes or of the registration.
    ///
    /// # Panics
    ///
    /// Panics outside a runtime with I/O enabled.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let std = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    ///     let socket = rt::net::UdpSocket::from_std(std).unwrap();
    ///     # drop(socket);
    /// });
    /// ```
    #[track_caller]
    pub fn from_std(socket: std::net::UdpSocket) -> io::Result<UdpSocket> {
        #[cfg(feature = "sim")]
        crate::sim::refuse_naming_fix(
            "`UdpSocket::from_std`",
            "; bind the socket inside the simulation with `UdpSocket::bind`",
        )?;
        socket.set_nonblocking(true)?;
        UdpSocket::new(mio::net::UdpSocket::from_std(socket))
    }

    /// Deregisters the socket and returns it as a (non-blocking) `std`
    /// one.
    ///
    /// # Errors
    ///
    /// The OS error of the deregistration.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let socket = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     let addr = socket.local_addr().unwrap();
    ///     let std = socket.into_std().unwrap();
    ///     assert_eq!(std.local_addr().unwrap(), addr);
    /// });
    /// ```
    pub fn into_std(self) -> io::Result<std::net::UdpSocket> {
        Ok(self.io.into_inner()?.into())
    }

    /// Sets the default peer: `send` goes there, and `recv` only receives
    /// from it.
    ///
    /// # Errors
    ///
    /// The OS error of `connect` for the last address tried.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let a = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     let b = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     a.connect(b.local_addr().unwrap()).await.unwrap();
    ///     assert_eq!(a.peer_addr().unwrap(), b.local_addr().unwrap());
    /// });
    /// ```
    pub async fn connect(&self, addr: impl ToSocketAddrs) -> io::Result<()> {
        each_addr(addr, |addr| async move { self.io.udp_connect(addr) }).await
    }

    /// Sends a datagram to the connected peer.
    ///
    /// # Errors
    ///
    /// The OS error of `send` (e.g. `ConnectionRefused` reported from an
    /// earlier datagram, or `NotConnected`).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let a = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     let b = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     a.connect(b.local_addr().unwrap()).await.unwrap();
    ///     b.connect(a.local_addr().unwrap()).await.unwrap();
    ///     a.send(b"ping").await.unwrap();
    ///     let mut buf = [0; 4];
    ///     assert_eq!(b.recv(&mut buf).await.unwrap(), 4);
    /// });
    /// ```
    pub async fn send(&self, buf: &[u8]) -> io::Result<usize> {
        self.io.udp_send(buf).await
    }

    /// Receives a datagram from the connected peer; bytes beyond `buf`'s
    /// length are discarded.
    ///
    /// # Errors
    ///
    /// The OS error of `recv`.
    ///
    /// # Examples
    ///
    /// See [`UdpSocket::send`].
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let a = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     let b = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     b.connect(a.local_addr().unwrap()).await.unwrap();
    ///     a.send_to(b"abc", b.local_addr().unwrap()).await.unwrap();
    ///     let mut buf = [0; 2];
    ///     assert_eq!(b.recv(&mut buf).await.unwrap(), 2);
    /// });
    /// ```
    pub async fn recv(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.io.udp_recv(buf).await
    }

    /// Sends a datagram to `target`: to the first of its addresses that
    /// takes it (tokio's sends to the first only; here a name that
    /// resolves to an IPv6 and an IPv4 address reaches an IPv4 socket).
    ///
    /// # Errors
    ///
    /// `InvalidInput` if `target` gives no address, the lookup's error for
    /// a name, or the OS error of `sendto` to the last address tried.
    ///
    /// # Examples
    ///
    /// See [`UdpSocket`].
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let a = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     let n = a.send_to(b"x", a.local_addr().unwrap()).await.unwrap();
    ///     assert_eq!(n, 1);
    /// });
    /// ```
    pub async fn send_to(&self, buf: &[u8], target: impl ToSocketAddrs) -> io::Result<usize> {
        each_addr(target, |target| self.io.udp_send_to(buf, target)).await
    }

    /// Receives a datagram and the address it came from.
    ///
    /// # Errors
    ///
    /// The OS error of `recvfrom`.
    ///
    /// # Examples
    ///
    /// See [`UdpSocket`].
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let a = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     a.send_to(b"self", a.local_addr().unwrap()).await.unwrap();
    ///     let mut buf = [0; 8];
    ///     let (n, from) = a.recv_from(&mut buf).await.unwrap();
    ///     assert_eq!((n, from), (4, a.local_addr().unwrap()));
    /// });
    /// ```
    pub async fn recv_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        self.io.udp_recv_from(buf).await
    }

    /// Receives the next datagram and the address it came from without
    /// removing it from the queue: the next receive returns it again.
    ///
    /// # Errors
    ///
    /// The OS error of `recvfrom(MSG_PEEK)`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let a = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     a.send_to(b"again", a.local_addr().unwrap()).await.unwrap();
    ///     let mut buf = [0; 8];
    ///     let (n, from) = a.peek_from(&mut buf).await.unwrap();
    ///     assert_eq!((&buf[..n], from), (&b"again"[..], a.local_addr().unwrap()));
    ///     assert_eq!(a.recv_from(&mut buf).await.unwrap(), (n, from));
    /// });
    /// ```
    pub async fn peek_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        self.io.udp_peek_from(buf).await
    }

    /// Receives the next datagram from the connected peer without removing
    /// it from the queue: the next receive returns it again, whole. A
    /// datagram longer than `buf` fills it and the rest is not returned.
    ///
    /// # Errors
    ///
    /// The OS error of `recv(MSG_PEEK)`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let socket = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     socket.connect(socket.local_addr().unwrap()).await.unwrap();
    ///     socket.send(b"again").await.unwrap();
    ///     let mut buf = [0; 8];
    ///     let n = socket.peek(&mut buf).await.unwrap();
    ///     assert_eq!(&buf[..n], b"again");
    ///     assert_eq!(socket.recv(&mut buf).await.unwrap(), n);
    /// });
    /// ```
    pub async fn peek(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.io.udp_peek(buf).await
    }

    /// The address the next datagram came from, waiting for one; the
    /// datagram stays in the queue. What [`peek_from`](UdpSocket::peek_from)
    /// says without a buffer for the payload: look up the peer's state
    /// before choosing where to receive its datagram.
    ///
    /// UDP does not authenticate senders: the address is the one the
    /// datagram carries, which anyone can forge.
    ///
    /// # Errors
    ///
    /// The OS error of `recvfrom(MSG_PEEK)`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let a = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     let b = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     a.send_to(b"who", b.local_addr().unwrap()).await.unwrap();
    ///     assert_eq!(b.peek_sender().await.unwrap(), a.local_addr().unwrap());
    ///     let mut buf = [0; 8];
    ///     assert_eq!(b.recv_from(&mut buf).await.unwrap(), (3, a.local_addr().unwrap()));
    /// });
    /// ```
    pub async fn peek_sender(&self) -> io::Result<SocketAddr> {
        self.io.udp_peek_sender().await
    }

    /// The local address.
    ///
    /// # Errors
    ///
    /// The OS error of `getsockname`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let socket = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     assert!(socket.local_addr().unwrap().ip().is_loopback());
    /// });
    /// ```
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.io.udp_local_addr()
    }

    /// The connected peer's address.
    ///
    /// # Errors
    ///
    /// `NotConnected` before [`connect`](UdpSocket::connect).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let socket = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     assert!(socket.peer_addr().is_err());
    /// });
    /// ```
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.io.udp_peer_addr()
    }
}

/// The sender of the datagram at the head of `socket`'s queue, leaving it
/// there (`recvfrom(MSG_PEEK)` through `socket2`; `mio` has no such call).
pub(super) fn peek_sender(socket: &mio::net::UdpSocket) -> io::Result<SocketAddr> {
    ip_address(&SockRef::from(socket).peek_sender()?)
}

/// What a receive that gives the sender returns instead of waiting, once
/// the read side is shut down (`shutdown(Read)`, through `socket2` or on
/// the raw descriptor) and nothing is queued: no bytes, as a blocking
/// `recvfrom(2)`, from the unspecified address of the socket's family,
/// port 0 (the blocking call gives no address at all). `None` while the
/// read side is open: the receive waits. See
/// `io::registered::ReadShutDown`.
pub(crate) fn read_shut_down_end(
    socket: &mio::net::UdpSocket,
    ready: rt_reactor::Ready,
) -> Option<(usize, SocketAddr)> {
    ready.is_read_closed().then(|| (0, no_sender(socket)))
}

/// The sender [`read_shut_down_end`] reports.
pub(super) fn no_sender(socket: &mio::net::UdpSocket) -> SocketAddr {
    let unspecified = match socket.local_addr() {
        Ok(SocketAddr::V6(_)) => std::net::Ipv6Addr::UNSPECIFIED.into(),
        _ => std::net::Ipv4Addr::UNSPECIFIED.into(),
    };
    SocketAddr::new(unspecified, 0)
}

/// A datagram's sender, as `socket2` reports it, as an IP address.
pub(super) fn ip_address(sender: &socket2::SockAddr) -> io::Result<SocketAddr> {
    sender.as_socket().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            "a UDP socket received a datagram from an address that is not an IP one",
        )
    })
}

impl AsRawFd for UdpSocket {
    fn as_raw_fd(&self) -> RawFd {
        self.io.get_ref().as_raw_fd()
    }
}

/// For socket options rt has no method for:
/// `socket2::SockRef::from(&socket)`.
impl AsFd for UdpSocket {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.io.get_ref().as_fd()
    }
}

impl fmt::Debug for UdpSocket {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UdpSocket")
            .field("local_addr", &self.local_addr().ok())
            .finish()
    }
}

#[cfg(feature = "bytes")]
crate::net::datagram_buf::datagram_buf! {
    socket: UdpSocket, address: SocketAddr;
    example: "    let a = rt::net::UdpSocket::bind(\"127.0.0.1:0\").await.unwrap();\n\
              \x20   let b = rt::net::UdpSocket::bind(\"127.0.0.1:0\").await.unwrap();\n\
              \x20   a.connect(b.local_addr().unwrap()).await.unwrap();\n\
              \x20   b.connect(a.local_addr().unwrap()).await.unwrap();\n";
}
