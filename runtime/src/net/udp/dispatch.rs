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
//! operation matches it once. What only a real socket can do
//! (`try_io`/`async_io`, the `bytes` receives `recv_buf*`, options,
//! descriptors, `into_std`) is refused on a simulated one: an
//! `Unsupported` error naming the API where it returns a `Result`, a
//! panic saying so where it does not.

use super::socket::{ip_address, peek_sender};
use crate::io::registered::Registered;
use rt_reactor::Direction;
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
impl Registered<mio::net::UdpSocket> {
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
        self.async_io(Direction::Read, |sys| sys.recv(buf))
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
        self.async_io(Direction::Read, |sys| sys.recv_from(buf))
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
        self.async_io(Direction::Read, |sys| sys.peek_from(buf))
    }

    pub(super) fn udp_peek<'a>(
        &'a self,
        buf: &'a mut [u8],
    ) -> impl Future<Output = io::Result<usize>> + 'a {
        self.async_io(Direction::Read, |sys| sys.peek(buf))
    }

    pub(super) fn udp_peek_sender(&self) -> impl Future<Output = io::Result<SocketAddr>> + '_ {
        self.async_io(Direction::Read, peek_sender)
    }

    pub(super) fn poll_peek(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.poll_io(cx, Direction::Read, |sys| sys.peek(buf))
    }

    pub(super) fn poll_peek_sender(&self, cx: &mut Context<'_>) -> Poll<io::Result<SocketAddr>> {
        self.poll_io(cx, Direction::Read, peek_sender)
    }

    pub(super) fn try_peek(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.try_io(Direction::Read, |sys| sys.peek(buf))
    }

    pub(super) fn try_peek_sender(&self) -> io::Result<SocketAddr> {
        self.try_io(Direction::Read, peek_sender)
    }

    pub(super) fn poll_recv_uninit(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [MaybeUninit<u8>],
    ) -> Poll<io::Result<usize>> {
        self.poll_io(cx, Direction::Read, |sys| SockRef::from(sys).recv(buf))
    }

    pub(super) fn poll_recv_from_uninit(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [MaybeUninit<u8>],
    ) -> Poll<io::Result<(usize, SocketAddr)>> {
        self.poll_io(cx, Direction::Read, |sys| {
            let (n, from) = SockRef::from(sys).recv_from(buf)?;
            Ok((n, ip_address(&from)?))
        })
    }

    pub(super) fn poll_peek_uninit(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [MaybeUninit<u8>],
    ) -> Poll<io::Result<usize>> {
        self.poll_io(cx, Direction::Read, |sys| SockRef::from(sys).peek(buf))
    }

    pub(super) fn poll_peek_from_uninit(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [MaybeUninit<u8>],
    ) -> Poll<io::Result<(usize, SocketAddr)>> {
        self.poll_io(cx, Direction::Read, |sys| {
            let (n, from) = SockRef::from(sys).peek_from(buf)?;
            Ok((n, ip_address(&from)?))
        })
    }
}

/// Each operation matches the enum once (see the module docs).
#[cfg(feature = "sim")]
macro_rules! dispatch {
    ($io:expr, |$x:ident| $body:expr) => {
        match $io {
            UdpIo::Real($x) => $body,
            UdpIo::Sim($x) => $body,
        }
    };
}

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

    // The readiness futures, as the operations above.
    pub(crate) async fn ready(&self, direction: Direction) -> io::Result<()> {
        match self {
            UdpIo::Real(real) => real.ready(direction).await.map(drop),
            UdpIo::Sim(sim) => sim.ready(direction).await,
        }
    }

    pub(crate) async fn ready_for(
        &self,
        interest: rt_reactor::Interest,
    ) -> io::Result<rt_reactor::Ready> {
        match self {
            UdpIo::Real(real) => real.ready_for(interest).await,
            UdpIo::Sim(sim) => sim.ready_for(interest).await,
        }
    }

    #[inline]
    pub(crate) fn poll_ready(
        &self,
        cx: &mut Context<'_>,
        direction: Direction,
    ) -> Poll<io::Result<()>> {
        match self {
            UdpIo::Real(real) => real.poll_ready(cx, direction).map_ok(drop),
            UdpIo::Sim(sim) => sim.poll_ready(cx, direction),
        }
    }

    pub(crate) fn try_io_for<R>(
        &self,
        interest: rt_reactor::Interest,
        op: impl FnOnce(&mio::net::UdpSocket) -> io::Result<R>,
    ) -> io::Result<R> {
        self.real("`UdpSocket::try_io`")?.try_io_for(interest, op)
    }

    pub(crate) async fn async_io_for<R>(
        &self,
        interest: rt_reactor::Interest,
        op: impl FnMut(&mio::net::UdpSocket) -> io::Result<R>,
    ) -> io::Result<R> {
        self.real("`UdpSocket::async_io`")?
            .async_io_for(interest, op)
            .await
    }

    /// For the `bytes` receives (`net/datagram_buf.rs`), which read into
    /// the buffer's spare capacity through the descriptor.
    #[cfg(feature = "bytes")]
    pub(crate) fn try_io<R>(
        &self,
        direction: Direction,
        op: impl FnOnce(&mio::net::UdpSocket) -> io::Result<R>,
    ) -> io::Result<R> {
        self.real("`UdpSocket::try_recv_buf` (and `try_recv_buf_from`)")?
            .try_io(direction, op)
    }

    /// As `try_io`.
    #[cfg(feature = "bytes")]
    pub(crate) async fn async_io<R>(
        &self,
        direction: Direction,
        op: impl FnMut(&mio::net::UdpSocket) -> io::Result<R>,
    ) -> io::Result<R> {
        self.real("`UdpSocket::recv_buf` (and `recv_buf_from`)")?
            .async_io(direction, op)
            .await
    }

    #[inline]
    pub(crate) fn poll_recv(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        dispatch!(self, |io| io.poll_recv(cx, buf))
    }

    #[inline]
    pub(crate) fn poll_send(&self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        dispatch!(self, |io| io.poll_send(cx, buf))
    }

    #[inline]
    pub(crate) fn poll_recv_from(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<(usize, SocketAddr)>> {
        dispatch!(self, |io| io.poll_recv_from(cx, buf))
    }

    #[inline]
    pub(crate) fn poll_send_to(
        &self,
        cx: &mut Context<'_>,
        buf: &[u8],
        target: SocketAddr,
    ) -> Poll<io::Result<usize>> {
        dispatch!(self, |io| io.poll_send_to(cx, buf, target))
    }

    #[inline]
    pub(crate) fn poll_peek_from(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<(usize, SocketAddr)>> {
        dispatch!(self, |io| io.poll_peek_from(cx, buf))
    }

    #[inline]
    pub(crate) fn try_recv(&self, buf: &mut [u8]) -> io::Result<usize> {
        dispatch!(self, |io| io.try_recv(buf))
    }

    #[inline]
    pub(crate) fn try_send(&self, buf: &[u8]) -> io::Result<usize> {
        dispatch!(self, |io| io.try_send(buf))
    }

    #[inline]
    pub(crate) fn try_recv_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        dispatch!(self, |io| io.try_recv_from(buf))
    }

    #[inline]
    pub(crate) fn try_send_to(&self, buf: &[u8], target: SocketAddr) -> io::Result<usize> {
        dispatch!(self, |io| io.try_send_to(buf, target))
    }

    #[inline]
    pub(crate) fn try_peek_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        dispatch!(self, |io| io.try_peek_from(buf))
    }

    pub(super) fn poll_peek(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        dispatch!(self, |io| io.poll_peek(cx, buf))
    }

    pub(super) fn poll_peek_sender(&self, cx: &mut Context<'_>) -> Poll<io::Result<SocketAddr>> {
        dispatch!(self, |io| io.poll_peek_sender(cx))
    }

    pub(super) fn try_peek(&self, buf: &mut [u8]) -> io::Result<usize> {
        dispatch!(self, |io| io.try_peek(buf))
    }

    pub(super) fn try_peek_sender(&self) -> io::Result<SocketAddr> {
        dispatch!(self, |io| io.try_peek_sender())
    }

    pub(super) fn poll_recv_uninit(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [MaybeUninit<u8>],
    ) -> Poll<io::Result<usize>> {
        dispatch!(self, |io| io.poll_recv_uninit(cx, buf))
    }

    pub(super) fn poll_recv_from_uninit(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [MaybeUninit<u8>],
    ) -> Poll<io::Result<(usize, SocketAddr)>> {
        dispatch!(self, |io| io.poll_recv_from_uninit(cx, buf))
    }

    pub(super) fn poll_peek_uninit(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [MaybeUninit<u8>],
    ) -> Poll<io::Result<usize>> {
        dispatch!(self, |io| io.poll_peek_uninit(cx, buf))
    }

    pub(super) fn poll_peek_from_uninit(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [MaybeUninit<u8>],
    ) -> Poll<io::Result<(usize, SocketAddr)>> {
        dispatch!(self, |io| io.poll_peek_from_uninit(cx, buf))
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

    /// The real registration, for the methods only it supports; an
    /// `Unsupported` error naming `api` on a simulated socket.
    pub(super) fn real(&self, api: &str) -> io::Result<&Registered<mio::net::UdpSocket>> {
        match self {
            UdpIo::Real(real) => Ok(real),
            UdpIo::Sim(_) => Err(crate::sim::unsupported(api)),
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
