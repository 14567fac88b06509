//! [`UdpSocket`]: a newtype over rt's, for tokio's `poll_recv`,
//! `poll_recv_from`, `poll_peek` and `poll_peek_from`, which receive into a
//! `ReadBuf` (straight into its uninitialised part).

use crate::io::ReadBuf;
use crate::net::ToSocketAddrs;
use crate::net::newtype::{datagram_methods, forward, socket_newtype};
use std::io;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};
use std::task::{Context, Poll, ready};

/// A UDP socket. A newtype over `rt::net::UdpSocket` for tokio's
/// `ReadBuf`-taking `poll_*` receives; everything else (`send_to`,
/// `recv_from`, `connect`, options, `try_*`, ...) forwards to rt's.
///
/// # Examples
///
/// ```
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let a = tokio::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
/// let b = tokio::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
/// b.send_to(b"hi", a.local_addr().unwrap()).await.unwrap();
/// let mut buf = [0; 8];
/// let (n, from) = a.recv_from(&mut buf).await.unwrap();
/// assert_eq!((&buf[..n], from), (&b"hi"[..], b.local_addr().unwrap()));
/// # });
/// ```
pub struct UdpSocket {
    inner: rt::net::UdpSocket,
}

socket_newtype!(UdpSocket, rt::net::UdpSocket);

/// A datagram receive into `buf`'s unfilled part, returning what `recv`
/// returns besides the count. A full `buf` still receives (an empty slice):
/// the datagram is consumed, as with tokio.
pub(crate) fn poll_recv_datagram<T>(
    buf: &mut ReadBuf<'_>,
    recv: impl FnOnce(&mut [std::mem::MaybeUninit<u8>]) -> Poll<io::Result<(usize, T)>>,
) -> Poll<io::Result<T>> {
    // SAFETY: `recv` (a kernel receive) only writes initialised bytes into
    // the unfilled part; it never de-initialises any.
    let unfilled = unsafe { buf.unfilled_mut() };
    let room = unfilled.len();
    let (n, extra) = ready!(recv(unfilled))?;
    assert!(
        n <= room,
        "rt: a receive reported more bytes than it was given"
    );
    // SAFETY: the receive initialised the first `n` unfilled bytes.
    unsafe { buf.assume_init(n) };
    buf.advance(n);
    Poll::Ready(Ok(extra))
}

impl UdpSocket {
    datagram_methods!(SocketAddr);

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

    forward! {
        /// Connects the socket to the first address of `addr` that works.
        @async fn connect[A: ToSocketAddrs](&self, addr: A) -> io::Result<()>;
        /// Sends a datagram to `addr` (its first resolved address).
        @async fn send_to[A: ToSocketAddrs](&self, buf: &[u8], addr: A) -> io::Result<usize>;
        /// Polls a send of a datagram to `target`.
        fn poll_send_to(&self, cx: &mut Context<'_>, buf: &[u8], target: SocketAddr) -> Poll<io::Result<usize>>;
        /// Sends to `target` without waiting.
        fn try_send_to(&self, buf: &[u8], target: SocketAddr) -> io::Result<usize>;
        /// Looks at the next datagram without consuming it.
        @async fn peek(&self, buf: &mut [u8]) -> io::Result<usize>;
        /// Looks at the next datagram without consuming it or waiting.
        fn try_peek(&self, buf: &mut [u8]) -> io::Result<usize>;
        /// Looks at the next datagram and its sender without consuming it.
        @async fn peek_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)>;
        /// Looks at the next datagram and its sender without consuming it or waiting.
        fn try_peek_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)>;
        /// The next datagram's sender, without consuming the datagram.
        @async fn peek_sender(&self) -> io::Result<SocketAddr>;
        /// Polls for the next datagram's sender, without consuming it.
        fn poll_peek_sender(&self, cx: &mut Context<'_>) -> Poll<io::Result<SocketAddr>>;
        /// The next datagram's sender, without consuming it or waiting.
        fn try_peek_sender(&self) -> io::Result<SocketAddr>;
        /// `SO_BROADCAST`.
        fn broadcast(&self) -> io::Result<bool>;
        /// Sets `SO_BROADCAST`.
        fn set_broadcast(&self, on: bool) -> io::Result<()>;
        /// `IP_MULTICAST_LOOP`.
        fn multicast_loop_v4(&self) -> io::Result<bool>;
        /// Sets `IP_MULTICAST_LOOP`.
        fn set_multicast_loop_v4(&self, on: bool) -> io::Result<()>;
        /// `IP_MULTICAST_TTL`.
        fn multicast_ttl_v4(&self) -> io::Result<u32>;
        /// Sets `IP_MULTICAST_TTL`.
        fn set_multicast_ttl_v4(&self, ttl: u32) -> io::Result<()>;
        /// `IPV6_MULTICAST_LOOP`.
        fn multicast_loop_v6(&self) -> io::Result<bool>;
        /// Sets `IPV6_MULTICAST_LOOP`.
        fn set_multicast_loop_v6(&self, on: bool) -> io::Result<()>;
        /// `IPV6_TCLASS`.
        #[cfg(any(target_os = "android", target_os = "linux"))]
        fn tclass_v6(&self) -> io::Result<u32>;
        /// Sets `IPV6_TCLASS`.
        #[cfg(any(target_os = "android", target_os = "linux"))]
        fn set_tclass_v6(&self, tclass: u32) -> io::Result<()>;
        /// `IP_TTL`.
        fn ttl(&self) -> io::Result<u32>;
        /// Sets `IP_TTL`.
        fn set_ttl(&self, ttl: u32) -> io::Result<()>;
        /// `IP_TOS`.
        #[cfg(any(target_os = "android", target_os = "linux"))]
        fn tos_v4(&self) -> io::Result<u32>;
        /// Sets `IP_TOS`.
        #[cfg(any(target_os = "android", target_os = "linux"))]
        fn set_tos_v4(&self, tos: u32) -> io::Result<()>;
        /// The device the socket is bound to (`SO_BINDTODEVICE`).
        #[cfg(any(target_os = "android", target_os = "fuchsia", target_os = "linux"))]
        fn device(&self) -> io::Result<Option<Vec<u8>>>;
        /// Joins an IPv4 multicast group.
        fn join_multicast_v4(&self, multiaddr: Ipv4Addr, interface: Ipv4Addr) -> io::Result<()>;
        /// Joins an IPv6 multicast group.
        fn join_multicast_v6(&self, multiaddr: &Ipv6Addr, interface: u32) -> io::Result<()>;
        /// Leaves an IPv4 multicast group.
        fn leave_multicast_v4(&self, multiaddr: Ipv4Addr, interface: Ipv4Addr) -> io::Result<()>;
        /// Leaves an IPv6 multicast group.
        fn leave_multicast_v6(&self, multiaddr: &Ipv6Addr, interface: u32) -> io::Result<()>;
    }

    /// Binds to `addr` (the first address that binds).
    ///
    /// # Errors
    ///
    /// The bind error of the last address tried.
    ///
    /// # Panics
    ///
    /// Outside an rt runtime with I/O enabled.
    pub async fn bind<A: ToSocketAddrs>(addr: A) -> io::Result<UdpSocket> {
        rt::net::UdpSocket::bind(addr).await.map(UdpSocket::from)
    }

    /// `IP_TOS` (tokio's deprecated name for [`UdpSocket::tos_v4`]).
    ///
    /// # Errors
    ///
    /// The OS error of `getsockopt`.
    #[cfg(any(target_os = "android", target_os = "linux"))]
    #[deprecated = "use `tos_v4`"]
    pub fn tos(&self) -> io::Result<u32> {
        self.inner.tos_v4()
    }

    /// Sets `IP_TOS` (tokio's deprecated name for [`UdpSocket::set_tos_v4`]).
    ///
    /// # Errors
    ///
    /// The OS error of `setsockopt`.
    #[cfg(any(target_os = "android", target_os = "linux"))]
    #[deprecated = "use `set_tos_v4`"]
    pub fn set_tos(&self, tos: u32) -> io::Result<()> {
        self.inner.set_tos_v4(tos)
    }

    /// Wraps a std socket, which must be in non-blocking mode.
    ///
    /// # Errors
    ///
    /// The registration's OS error.
    ///
    /// # Panics
    ///
    /// Outside an rt runtime with I/O enabled.
    #[track_caller]
    pub fn from_std(socket: std::net::UdpSocket) -> io::Result<UdpSocket> {
        rt::net::UdpSocket::from_std(socket).map(UdpSocket::from)
    }

    /// Deregisters the socket and hands it back as a std socket.
    ///
    /// # Errors
    ///
    /// The OS error of deregistering.
    pub fn into_std(self) -> io::Result<std::net::UdpSocket> {
        self.inner.into_std()
    }

    /// Receives a datagram from the connected peer into `buf`'s unfilled
    /// part (one waker slot: the last caller's wins).
    ///
    /// # Errors
    ///
    /// The OS error of `recv`.
    ///
    /// # Examples
    ///
    /// ```
    /// use tokio::io::ReadBuf;
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let a = tokio::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    /// let b = tokio::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    /// a.connect(b.local_addr().unwrap()).await.unwrap();
    /// b.send_to(b"hi", a.local_addr().unwrap()).await.unwrap();
    /// let mut memory = [std::mem::MaybeUninit::uninit(); 8];
    /// let mut buf = ReadBuf::uninit(&mut memory);
    /// std::future::poll_fn(|cx| a.poll_recv(cx, &mut buf)).await.unwrap();
    /// assert_eq!(buf.filled(), b"hi");
    /// # });
    /// ```
    pub fn poll_recv(&self, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        poll_recv_datagram(buf, |unfilled| {
            self.inner
                .poll_recv_uninit(cx, unfilled)
                .map_ok(|n| (n, ()))
        })
    }

    /// Receives a datagram and its sender into `buf`'s unfilled part.
    ///
    /// # Errors
    ///
    /// The OS error of `recvfrom`.
    pub fn poll_recv_from(
        &self,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<SocketAddr>> {
        poll_recv_datagram(buf, |unfilled| {
            self.inner.poll_recv_from_uninit(cx, unfilled)
        })
    }

    /// Looks at the next datagram without consuming it, into `buf`'s
    /// unfilled part.
    ///
    /// # Errors
    ///
    /// The OS error of `recv`.
    pub fn poll_peek(&self, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        poll_recv_datagram(buf, |unfilled| {
            self.inner
                .poll_peek_uninit(cx, unfilled)
                .map_ok(|n| (n, ()))
        })
    }

    /// Looks at the next datagram and its sender without consuming it, into
    /// `buf`'s unfilled part.
    ///
    /// # Errors
    ///
    /// The OS error of `recvfrom`.
    pub fn poll_peek_from(
        &self,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<SocketAddr>> {
        poll_recv_datagram(buf, |unfilled| {
            self.inner.poll_peek_from_uninit(cx, unfilled)
        })
    }
}

impl TryFrom<std::net::UdpSocket> for UdpSocket {
    type Error = io::Error;

    /// As [`UdpSocket::from_std`].
    fn try_from(socket: std::net::UdpSocket) -> io::Result<UdpSocket> {
        UdpSocket::from_std(socket)
    }
}
