//! The registered-I/O layer of [`UdpSocket`](super::UdpSocket): the
//! socket's one I/O field, `UdpIo`, and its named operations (send,
//! receive, peek, readiness, connect, addresses), which every public
//! method calls. The ones `UnixDatagram` shares (`net/datagram_io.rs`:
//! `poll_recv`, `try_send_to`, ...) and the readiness ones
//! (`net/registered_io.rs`: `ready`, `poll_ready`, ...) have the names of
//! `Registered`'s own, so the shared macros call them on either type; the
//! UDP-only ones are below.
//!
//! Without the `sim` feature `UdpIo` is the real registration and the
//! operations are its closures over the mio socket, as they always were:
//! the code compiles as before. With it, `UdpIo` is an enum of the real
//! registration and a simulated socket (`rt::sim`), chosen once when the
//! socket is bound (by one look at the thread's runtime), and each
//! operation matches it once (the readiness ones, `try_io`/`async_io` and
//! `real` with `TcpIo`'s, from `net/sim_dispatch.rs`). What only a real
//! socket can do (`try_io`/`async_io`, options, descriptors, `into_std`)
//! is refused on a simulated one: an
//! `Unsupported` error naming the API where it returns a `Result`, a
//! panic saying so where it does not.

use super::socket::{ip_address, no_sender, peek_sender, read_shut_down_end};
use crate::io::registered::{ReadShutDown, Registered};
#[cfg(feature = "bytes")]
use crate::net::datagram_buf::{receive, receive_from};
use rt_reactor::{Direction, Ready};
use socket2::SockRef;
use std::future::Future;
use std::io;
use std::mem::MaybeUninit;
use std::net::SocketAddr;
use std::task::{Context, Poll};

/// The socket's I/O: see the module docs.
#[cfg(not(feature = "sim"))]
pub(super) type UdpIo = Registered<mio::net::UdpSocket>;

/// The socket's I/O: see the module docs.
#[cfg(feature = "sim")]
pub(super) enum UdpIo {
    Real(Registered<mio::net::UdpSocket>),
    Sim(crate::sim::SimUdp),
}

/// The operations on the real registration (the only ones without the
/// feature). Each returns the registration's own future, so without the
/// feature a socket method awaits exactly what it awaited before.
///
/// Every receive and peek (and `peek_sender`) returns instead of waiting
/// once the read side is shut down and nothing is queued, as a blocking
/// call does: no bytes, from the address of [`read_shut_down_end`] (see
/// `io::registered::ReadShutDown`).
impl Registered<mio::net::UdpSocket> {
    /// The `end` of the receives that give the sender.
    fn end_with_sender(&self) -> impl Fn(Ready) -> Option<(usize, SocketAddr)> + '_ {
        |ready| read_shut_down_end(self.get_ref(), ready)
    }

    /// The `end` of `peek_sender`: the sender of [`read_shut_down_end`].
    fn sender_end(&self) -> impl Fn(Ready) -> Option<SocketAddr> + '_ {
        |ready| ready.is_read_closed().then(|| no_sender(self.get_ref()))
    }

    pub(super) fn udp_send<'a>(
        &'a self,
        buf: &'a [u8],
    ) -> impl Future<Output = io::Result<usize>> + 'a {
        self.async_io(Direction::Write, |sys| sys.send(buf))
    }

    pub(super) fn udp_recv<'a>(
        &'a self,
        buf: &'a mut [u8],
    ) -> impl Future<Output = io::Result<usize>> + 'a {
        self.async_recv_ending(|sys| sys.recv(buf), usize::if_read_closed)
    }

    pub(super) fn udp_send_to<'a>(
        &'a self,
        buf: &'a [u8],
        target: SocketAddr,
    ) -> impl Future<Output = io::Result<usize>> + 'a {
        self.async_io(Direction::Write, move |sys| sys.send_to(buf, target))
    }

    pub(super) fn udp_recv_from<'a>(
        &'a self,
        buf: &'a mut [u8],
    ) -> impl Future<Output = io::Result<(usize, SocketAddr)>> + 'a {
        self.async_recv_ending(|sys| sys.recv_from(buf), self.end_with_sender())
    }

    pub(super) fn udp_connect(&self, addr: SocketAddr) -> io::Result<()> {
        self.get_ref().connect(addr)
    }

    pub(super) fn udp_local_addr(&self) -> io::Result<SocketAddr> {
        self.get_ref().local_addr()
    }

    pub(super) fn udp_peer_addr(&self) -> io::Result<SocketAddr> {
        self.get_ref().peer_addr()
    }

    pub(super) fn udp_peek_from<'a>(
        &'a self,
        buf: &'a mut [u8],
    ) -> impl Future<Output = io::Result<(usize, SocketAddr)>> + 'a {
        self.async_recv_ending(|sys| sys.peek_from(buf), self.end_with_sender())
    }

    pub(super) fn udp_peek<'a>(
        &'a self,
        buf: &'a mut [u8],
    ) -> impl Future<Output = io::Result<usize>> + 'a {
        self.async_recv_ending(|sys| sys.peek(buf), usize::if_read_closed)
    }

    pub(super) fn udp_peek_sender(&self) -> impl Future<Output = io::Result<SocketAddr>> + '_ {
        self.async_recv_ending(peek_sender, self.sender_end())
    }

    /// The `bytes` receives (`net/datagram_buf.rs`): straight into the
    /// buffer's spare capacity through the descriptor.
    #[cfg(feature = "bytes")]
    pub(super) fn udp_recv_buf<'a, B: bytes::BufMut + ?Sized>(
        &'a self,
        buf: &'a mut B,
    ) -> impl Future<Output = io::Result<usize>> + 'a {
        self.async_recv_ending(|sys| receive(sys, buf), usize::if_read_closed)
    }

    #[cfg(feature = "bytes")]
    pub(super) fn udp_recv_buf_from<'a, B: bytes::BufMut + ?Sized>(
        &'a self,
        buf: &'a mut B,
    ) -> impl Future<Output = io::Result<(usize, SocketAddr)>> + 'a {
        self.async_recv_ending(
            |sys| receive_from(sys, buf, ip_address),
            self.end_with_sender(),
        )
    }

    #[cfg(feature = "bytes")]
    pub(super) fn udp_try_recv_buf<B: bytes::BufMut + ?Sized>(
        &self,
        buf: &mut B,
    ) -> io::Result<usize> {
        self.try_recv_ending(|sys| receive(sys, buf), usize::if_read_closed)
    }

    #[cfg(feature = "bytes")]
    pub(super) fn udp_try_recv_buf_from<B: bytes::BufMut + ?Sized>(
        &self,
        buf: &mut B,
    ) -> io::Result<(usize, SocketAddr)> {
        self.try_recv_ending(
            |sys| receive_from(sys, buf, ip_address),
            self.end_with_sender(),
        )
    }

    pub(super) fn poll_peek(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.poll_recv_ending(cx, |sys| sys.peek(buf), usize::if_read_closed)
    }

    pub(super) fn poll_peek_sender(&self, cx: &mut Context<'_>) -> Poll<io::Result<SocketAddr>> {
        self.poll_recv_ending(cx, peek_sender, self.sender_end())
    }

    pub(super) fn try_peek(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.try_recv_ending(|sys| sys.peek(buf), usize::if_read_closed)
    }

    pub(super) fn try_peek_sender(&self) -> io::Result<SocketAddr> {
        self.try_recv_ending(peek_sender, self.sender_end())
    }

    pub(super) fn poll_recv_uninit(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [MaybeUninit<u8>],
    ) -> Poll<io::Result<usize>> {
        self.poll_recv_ending(
            cx,
            |sys| SockRef::from(sys).recv(buf),
            usize::if_read_closed,
        )
    }

    pub(super) fn poll_recv_from_uninit(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [MaybeUninit<u8>],
    ) -> Poll<io::Result<(usize, SocketAddr)>> {
        let op = |sys: &mio::net::UdpSocket| {
            let (n, from) = SockRef::from(sys).recv_from(buf)?;
            Ok((n, ip_address(&from)?))
        };
        self.poll_recv_ending(cx, op, self.end_with_sender())
    }

    pub(super) fn poll_peek_uninit(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [MaybeUninit<u8>],
    ) -> Poll<io::Result<usize>> {
        self.poll_recv_ending(
            cx,
            |sys| SockRef::from(sys).peek(buf),
            usize::if_read_closed,
        )
    }

    pub(super) fn poll_peek_from_uninit(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [MaybeUninit<u8>],
    ) -> Poll<io::Result<(usize, SocketAddr)>> {
        let op = |sys: &mio::net::UdpSocket| {
            let (n, from) = SockRef::from(sys).peek_from(buf)?;
            Ok((n, ip_address(&from)?))
        };
        self.poll_recv_ending(cx, op, self.end_with_sender())
    }
}

// Each operation matches the enum once (see the module docs); the
// readiness ones, `try_io`/`async_io` and `real` are `net/sim_dispatch.rs`'s.
#[cfg(feature = "sim")]
use crate::net::sim_dispatch::each_kind;

#[cfg(feature = "sim")]
crate::net::sim_dispatch::sim_readiness!(UdpIo, mio::net::UdpSocket, "UdpSocket");

#[cfg(feature = "sim")]
impl UdpIo {
    // An `async fn` each: measured cheaper than returning an `Either` of
    // the two futures, whose `poll` the compiler did not inline.
    pub(super) async fn udp_send(&self, buf: &[u8]) -> io::Result<usize> {
        match self {
            UdpIo::Real(real) => real.udp_send(buf).await,
            UdpIo::Sim(sim) => sim.send(buf).await,
        }
    }

    pub(super) async fn udp_recv(&self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            UdpIo::Real(real) => real.udp_recv(buf).await,
            UdpIo::Sim(sim) => sim.recv(buf).await,
        }
    }

    pub(super) async fn udp_send_to(&self, buf: &[u8], target: SocketAddr) -> io::Result<usize> {
        match self {
            UdpIo::Real(real) => real.udp_send_to(buf, target).await,
            UdpIo::Sim(sim) => sim.send_to(buf, target).await,
        }
    }

    pub(super) async fn udp_recv_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        match self {
            UdpIo::Real(real) => real.udp_recv_from(buf).await,
            UdpIo::Sim(sim) => sim.recv_from(buf).await,
        }
    }

    pub(super) async fn udp_peek_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        match self {
            UdpIo::Real(real) => real.udp_peek_from(buf).await,
            UdpIo::Sim(sim) => sim.peek_from(buf).await,
        }
    }

    pub(super) async fn udp_peek(&self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            UdpIo::Real(real) => real.udp_peek(buf).await,
            UdpIo::Sim(sim) => sim.peek(buf).await,
        }
    }

    pub(super) async fn udp_peek_sender(&self) -> io::Result<SocketAddr> {
        match self {
            UdpIo::Real(real) => real.udp_peek_sender().await,
            UdpIo::Sim(sim) => sim.peek_sender().await,
        }
    }

    #[cfg(feature = "bytes")]
    pub(super) async fn udp_recv_buf<B: bytes::BufMut + ?Sized>(
        &self,
        buf: &mut B,
    ) -> io::Result<usize> {
        match self {
            UdpIo::Real(real) => real.udp_recv_buf(buf).await,
            UdpIo::Sim(sim) => sim.recv_buf_from(buf).await.map(|(n, _)| n),
        }
    }

    #[cfg(feature = "bytes")]
    pub(super) async fn udp_recv_buf_from<B: bytes::BufMut + ?Sized>(
        &self,
        buf: &mut B,
    ) -> io::Result<(usize, SocketAddr)> {
        match self {
            UdpIo::Real(real) => real.udp_recv_buf_from(buf).await,
            UdpIo::Sim(sim) => sim.recv_buf_from(buf).await,
        }
    }

    #[cfg(feature = "bytes")]
    pub(super) fn udp_try_recv_buf<B: bytes::BufMut + ?Sized>(
        &self,
        buf: &mut B,
    ) -> io::Result<usize> {
        match self {
            UdpIo::Real(real) => real.udp_try_recv_buf(buf),
            UdpIo::Sim(sim) => sim.try_recv_buf_from(buf).map(|(n, _)| n),
        }
    }

    #[cfg(feature = "bytes")]
    pub(super) fn udp_try_recv_buf_from<B: bytes::BufMut + ?Sized>(
        &self,
        buf: &mut B,
    ) -> io::Result<(usize, SocketAddr)> {
        match self {
            UdpIo::Real(real) => real.udp_try_recv_buf_from(buf),
            UdpIo::Sim(sim) => sim.try_recv_buf_from(buf),
        }
    }

    #[inline]
    pub(crate) fn poll_recv(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        each_kind!(UdpIo, self, |io| io.poll_recv(cx, buf))
    }

    #[inline]
    pub(crate) fn poll_send(&self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        each_kind!(UdpIo, self, |io| io.poll_send(cx, buf))
    }

    #[inline]
    pub(crate) fn poll_recv_from(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<(usize, SocketAddr)>> {
        each_kind!(UdpIo, self, |io| io.poll_recv_from(cx, buf))
    }

    #[inline]
    pub(crate) fn poll_send_to(
        &self,
        cx: &mut Context<'_>,
        buf: &[u8],
        target: SocketAddr,
    ) -> Poll<io::Result<usize>> {
        each_kind!(UdpIo, self, |io| io.poll_send_to(cx, buf, target))
    }

    #[inline]
    pub(crate) fn poll_peek_from(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<(usize, SocketAddr)>> {
        each_kind!(UdpIo, self, |io| io.poll_peek_from(cx, buf))
    }

    #[inline]
    pub(crate) fn try_recv(&self, buf: &mut [u8]) -> io::Result<usize> {
        each_kind!(UdpIo, self, |io| io.try_recv(buf))
    }

    #[inline]
    pub(crate) fn try_send(&self, buf: &[u8]) -> io::Result<usize> {
        each_kind!(UdpIo, self, |io| io.try_send(buf))
    }

    #[inline]
    pub(crate) fn try_recv_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        each_kind!(UdpIo, self, |io| io.try_recv_from(buf))
    }

    #[inline]
    pub(crate) fn try_send_to(&self, buf: &[u8], target: SocketAddr) -> io::Result<usize> {
        each_kind!(UdpIo, self, |io| io.try_send_to(buf, target))
    }

    #[inline]
    pub(crate) fn try_peek_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        each_kind!(UdpIo, self, |io| io.try_peek_from(buf))
    }

    pub(super) fn poll_peek(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        each_kind!(UdpIo, self, |io| io.poll_peek(cx, buf))
    }

    pub(super) fn poll_peek_sender(&self, cx: &mut Context<'_>) -> Poll<io::Result<SocketAddr>> {
        each_kind!(UdpIo, self, |io| io.poll_peek_sender(cx))
    }

    pub(super) fn try_peek(&self, buf: &mut [u8]) -> io::Result<usize> {
        each_kind!(UdpIo, self, |io| io.try_peek(buf))
    }

    pub(super) fn try_peek_sender(&self) -> io::Result<SocketAddr> {
        each_kind!(UdpIo, self, |io| io.try_peek_sender())
    }

    pub(super) fn poll_recv_uninit(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [MaybeUninit<u8>],
    ) -> Poll<io::Result<usize>> {
        each_kind!(UdpIo, self, |io| io.poll_recv_uninit(cx, buf))
    }

    pub(super) fn poll_recv_from_uninit(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [MaybeUninit<u8>],
    ) -> Poll<io::Result<(usize, SocketAddr)>> {
        each_kind!(UdpIo, self, |io| io.poll_recv_from_uninit(cx, buf))
    }

    pub(super) fn poll_peek_uninit(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [MaybeUninit<u8>],
    ) -> Poll<io::Result<usize>> {
        each_kind!(UdpIo, self, |io| io.poll_peek_uninit(cx, buf))
    }

    pub(super) fn poll_peek_from_uninit(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [MaybeUninit<u8>],
    ) -> Poll<io::Result<(usize, SocketAddr)>> {
        each_kind!(UdpIo, self, |io| io.poll_peek_from_uninit(cx, buf))
    }

    pub(super) fn udp_connect(&self, addr: SocketAddr) -> io::Result<()> {
        match self {
            UdpIo::Real(real) => real.udp_connect(addr),
            UdpIo::Sim(sim) => sim.connect(addr),
        }
    }

    pub(super) fn udp_local_addr(&self) -> io::Result<SocketAddr> {
        match self {
            UdpIo::Real(real) => real.udp_local_addr(),
            UdpIo::Sim(sim) => sim.local_addr(),
        }
    }

    pub(super) fn udp_peer_addr(&self) -> io::Result<SocketAddr> {
        match self {
            UdpIo::Real(real) => real.udp_peer_addr(),
            UdpIo::Sim(sim) => sim.peer_addr(),
        }
    }

    /// The real registration, for the methods only it supports that have
    /// no error to return.
    ///
    /// # Panics
    ///
    /// Panics on a simulated socket, naming `api`.
    #[track_caller]
    pub(super) fn real_or_panic(&self, api: &str) -> &Registered<mio::net::UdpSocket> {
        match self {
            UdpIo::Real(real) => real,
            UdpIo::Sim(_) => panic!("{}", crate::sim::unsupported(api)),
        }
    }

    pub(super) fn into_inner(self) -> io::Result<mio::net::UdpSocket> {
        match self {
            UdpIo::Real(real) => real.into_inner(),
            UdpIo::Sim(_) => Err(crate::sim::unsupported("UdpSocket::into_std")),
        }
    }

    pub(super) fn get_ref(&self) -> &mio::net::UdpSocket {
        self.real_or_panic("this UdpSocket method (an option or the descriptor)")
            .get_ref()
    }
}
