//! The registered-I/O layer of [`TcpListener`](super::TcpListener): its
//! one I/O field, `ListenerIo`, and the operations on it (accept, the
//! `Incoming` stream's waiting place, the address and TTL), as
//! `dispatch.rs` is the stream's.
//!
//! Without the `sim` feature `ListenerIo` is the real registration, an
//! accepted connection is the mio stream, and the operations are the
//! registration's own futures and calls, as they always were. With it,
//! `ListenerIo` is an enum of the real registration and a simulated
//! listener, chosen at `bind`, and an accepted connection (`Accepted`) is
//! either kind of stream; each operation matches once. `into_std` and the
//! TTL are refused on a simulated listener with an `Unsupported` error
//! naming the API; its descriptor (`as_fd`, `as_raw_fd`) with a panic.

use super::dispatch::TcpIo;
use crate::io::registered::Registered;
use rt_reactor::{Direction, Interest, Ready, ReadyWaiter};
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::task::{Context, Poll};

/// The listener's I/O: see the module docs.
#[cfg(not(feature = "sim"))]
pub(super) type ListenerIo = Registered<mio::net::TcpListener>;

/// The listener's I/O: see the module docs.
#[cfg(feature = "sim")]
pub(super) enum ListenerIo {
    Real(Registered<mio::net::TcpListener>),
    Sim(crate::sim::SimTcpListener),
}

/// A connection an accept returned, before it becomes a `TcpStream`.
#[cfg(not(feature = "sim"))]
pub(super) type Accepted = mio::net::TcpStream;

/// A connection an accept returned, before it becomes a `TcpStream`.
#[cfg(feature = "sim")]
pub(super) enum Accepted {
    Real(mio::net::TcpStream),
    Sim(crate::sim::SimTcpStream),
}

/// The place an `Incoming` stream waits in (a simulated listener needs
/// none: its network keeps the wakers).
#[cfg(not(feature = "sim"))]
pub(super) type IncomingWaiter<'a> = ReadyWaiter<'a>;

/// The place an `Incoming` stream waits in (a simulated listener needs
/// none: its network keeps the wakers).
#[cfg(feature = "sim")]
pub(super) type IncomingWaiter<'a> = Option<ReadyWaiter<'a>>;

/// The I/O of a listener on a real registration.
#[cfg(not(feature = "sim"))]
pub(super) fn real_listener(io: Registered<mio::net::TcpListener>) -> ListenerIo {
    io
}

/// The I/O of a listener on a real registration.
#[cfg(feature = "sim")]
pub(super) fn real_listener(io: Registered<mio::net::TcpListener>) -> ListenerIo {
    ListenerIo::Real(io)
}

/// A real accepted connection, registered assumed readable and writable
/// (see `TcpStream::accepted`).
fn register_accepted(sys: mio::net::TcpStream) -> io::Result<Registered<mio::net::TcpStream>> {
    Registered::assuming(
        sys,
        Interest::READABLE | Interest::WRITABLE,
        Ready::READABLE | Ready::WRITABLE,
    )
}

/// The I/O of an accepted connection.
#[cfg(not(feature = "sim"))]
pub(super) fn accepted_io(accepted: Accepted) -> io::Result<TcpIo> {
    register_accepted(accepted)
}

/// The I/O of an accepted connection.
#[cfg(feature = "sim")]
pub(super) fn accepted_io(accepted: Accepted) -> io::Result<TcpIo> {
    match accepted {
        Accepted::Real(sys) => Ok(TcpIo::Real(register_accepted(sys)?)),
        Accepted::Sim(sim) => Ok(TcpIo::Sim(sim)),
    }
}

/// The operations on the real registration (the only ones without the
/// feature), each the registration's own future or call.
impl Registered<mio::net::TcpListener> {
    pub(super) fn accept(
        &self,
    ) -> impl Future<Output = io::Result<(mio::net::TcpStream, SocketAddr)>> + '_ {
        self.async_io(Direction::Read, mio::net::TcpListener::accept)
    }

    pub(super) fn poll_accept(
        &self,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<(mio::net::TcpStream, SocketAddr)>> {
        self.poll_io(cx, Direction::Read, mio::net::TcpListener::accept)
    }

    pub(super) fn poll_accept_in(
        &self,
        cx: &mut Context<'_>,
        waiter: &mut ReadyWaiter<'_>,
    ) -> Poll<io::Result<(mio::net::TcpStream, SocketAddr)>> {
        self.poll_io_in(cx, waiter, mio::net::TcpListener::accept)
    }

    #[cfg(not(feature = "sim"))]
    pub(super) fn incoming_waiter(&self) -> IncomingWaiter<'_> {
        self.waiter(Direction::Read)
    }

    pub(super) fn local_addr(&self) -> io::Result<SocketAddr> {
        self.get_ref().local_addr()
    }

    pub(super) fn ttl(&self) -> io::Result<u32> {
        self.get_ref().ttl()
    }

    pub(super) fn set_ttl(&self, ttl: u32) -> io::Result<()> {
        self.get_ref().set_ttl(ttl)
    }
}

#[cfg(feature = "sim")]
impl ListenerIo {
    pub(super) async fn accept(&self) -> io::Result<(Accepted, SocketAddr)> {
        match self {
            ListenerIo::Real(real) => real
                .accept()
                .await
                .map(|(sys, peer)| (Accepted::Real(sys), peer)),
            ListenerIo::Sim(sim) => sim
                .accept()
                .await
                .map(|(stream, peer)| (Accepted::Sim(stream), peer)),
        }
    }

    pub(super) fn poll_accept(
        &self,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<(Accepted, SocketAddr)>> {
        match self {
            ListenerIo::Real(real) => real
                .poll_accept(cx)
                .map_ok(|(sys, peer)| (Accepted::Real(sys), peer)),
            ListenerIo::Sim(sim) => sim
                .poll_accept(cx)
                .map_ok(|(stream, peer)| (Accepted::Sim(stream), peer)),
        }
    }

    pub(super) fn incoming_waiter(&self) -> IncomingWaiter<'_> {
        match self {
            ListenerIo::Real(real) => Some(real.waiter(Direction::Read)),
            ListenerIo::Sim(_) => None,
        }
    }

    pub(super) fn poll_accept_in(
        &self,
        cx: &mut Context<'_>,
        waiter: &mut IncomingWaiter<'_>,
    ) -> Poll<io::Result<(Accepted, SocketAddr)>> {
        match (self, waiter) {
            (ListenerIo::Real(real), Some(waiter)) => real
                .poll_accept_in(cx, waiter)
                .map_ok(|(sys, peer)| (Accepted::Real(sys), peer)),
            (ListenerIo::Real(_), None) => {
                unreachable!("a real listener's `Incoming` has its waiter")
            }
            (ListenerIo::Sim(_), _) => self.poll_accept(cx),
        }
    }

    pub(super) fn local_addr(&self) -> io::Result<SocketAddr> {
        match self {
            ListenerIo::Real(real) => real.local_addr(),
            ListenerIo::Sim(sim) => Ok(sim.local_addr()),
        }
    }

    pub(super) fn ttl(&self) -> io::Result<u32> {
        self.real("`TcpListener::ttl`")?.ttl()
    }

    pub(super) fn set_ttl(&self, ttl: u32) -> io::Result<()> {
        self.real("`TcpListener::set_ttl`")?.set_ttl(ttl)
    }

    fn real(&self, api: &str) -> io::Result<&Registered<mio::net::TcpListener>> {
        match self {
            ListenerIo::Real(real) => Ok(real),
            ListenerIo::Sim(_) => Err(crate::sim::unsupported(api)),
        }
    }

    /// The mio listener, for the descriptor.
    ///
    /// # Panics
    ///
    /// Panics on a simulated listener, which has no descriptor.
    #[track_caller]
    pub(super) fn get_ref(&self) -> &mio::net::TcpListener {
        match self {
            ListenerIo::Real(real) => real.get_ref(),
            ListenerIo::Sim(_) => panic!(
                "{}",
                crate::sim::unsupported("the descriptor of a `TcpListener` (`as_fd`, `as_raw_fd`)")
            ),
        }
    }

    pub(super) fn into_inner(self) -> io::Result<mio::net::TcpListener> {
        match self {
            ListenerIo::Real(real) => real.into_inner(),
            ListenerIo::Sim(_) => Err(crate::sim::unsupported("`TcpListener::into_std`")),
        }
    }
}
