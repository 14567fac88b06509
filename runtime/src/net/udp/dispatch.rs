//! The registered-I/O layer of [`UdpSocket`](super::UdpSocket): the
//! socket's one I/O field, `UdpIo`, and its named operations (send,
//! receive, connect, addresses), which every public method calls.
//!
//! Without the `sim` feature `UdpIo` is the real registration and the
//! operations are its closures over the mio socket, as they always were:
//! the code compiles exactly as before. With it, `UdpIo` is an enum of
//! the real registration and a simulated socket (`rt::sim`), chosen once
//! when the socket is bound (by one look at the thread's runtime), and
//! each operation matches it once. What only a real socket can do (the
//! `try_*`/`poll_*` methods, `try_io`/`async_io`, options, `peek*`,
//! descriptors, `into_std`) is refused on a simulated one: an
//! `Unsupported` error naming the API where it returns a `Result`, a
//! panic saying so where it does not.

use crate::io::registered::Registered;
use rt_reactor::Direction;
use std::future::Future;
use std::io;
use std::net::SocketAddr;

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

    /// The real registration, for the methods only it supports.
    #[cfg(not(feature = "sim"))]
    pub(super) fn real(&self, _api: &str) -> io::Result<&Registered<mio::net::UdpSocket>> {
        Ok(self)
    }
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
