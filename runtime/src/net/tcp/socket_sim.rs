//! [`TcpSocket`] inside a simulation (feature `sim`).
//!
//! Until `connect` or `listen`, a `TcpSocket` is a real socket that is
//! neither bound nor connected: making one and setting its options sends
//! nothing anywhere. So inside a simulation it stays a real descriptor
//! holding the options (their getters read the kernel, as outside), made
//! by `new_v4`/`new_v6` or adopted by `from_std_stream` from a
//! `socket2::Socket` built elsewhere (hyper-util's `HttpConnector` builds
//! its sockets that way). What would reach the network is simulated:
//! 1. `bind` records the address for `listen` and binds nothing on the
//!    machine (the nodes' addresses are not the machine's, and a port
//!    taken there is not the simulation's to give);
//! 2. `connect` reads the options the simulated network acts on from the
//!    descriptor (`TCP_NODELAY`, kept by the stream; `SO_LINGER`, a zero
//!    linger making its close a reset), closes the descriptor and
//!    connects from the calling task's node, as `TcpStream::connect`;
//! 3. `listen` closes the descriptor and listens on the recorded address
//!    (`0.0.0.0:0` if none), as `TcpListener::bind`: the backlog is the
//!    simulation's (1024), and `SO_REUSEPORT` shares no port (a second
//!    listener on it fails with `AddrInUse`).
//!
//! Refused with `Unsupported`, naming the fix: a socket already bound on
//! the machine when it was adopted (its address is the machine's, not a
//! node's), `connect` after a `bind` that picks an address or a port (the
//! simulated network picks a connection's local address itself; a bind
//! to `0.0.0.0:0` picks nothing and is let through), and `listen` with a
//! linger set (the simulated listener hands it to no accepted stream).
//!
//! `local_addr` before `listen` answers the recorded address as given
//! (port 0 stays 0: the port is picked by `listen`, and the listener's
//! `local_addr` has it); the descriptor itself stays unbound, so its
//! `as_fd`/`into_raw_fd` carry no bind.

use super::{TcpListener, TcpSocket, TcpStream};
use crate::loom::sync::Arc;
use crate::sim::{Handle, SimTcpListener, SimTcpStream};
use std::io;
use std::net::SocketAddr;

impl TcpSocket {
    /// Step 1: records `addr` as the address `listen` binds.
    pub(super) fn bind_simulated(&self, addr: SocketAddr) -> io::Result<()> {
        self.sim_bound.set(addr).map_err(|_| {
            let already = self.sim_bound.get().copied().unwrap_or(addr);
            // Linux: EINVAL for a second bind.
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("the socket is already bound to {already}: bind it once"),
            )
        })
    }

    /// The address recorded by a `bind` inside a simulation.
    pub(super) fn bound_simulated(&self) -> Option<SocketAddr> {
        self.sim_bound.get().copied()
    }

    /// The descriptor's address, the unspecified one of its family
    /// (`0.0.0.0:0`, `[::]:0`); `Err` if it is bound on the machine (it
    /// came so through `from_std_stream`): the simulation cannot use that.
    fn refuse_machine_bound(&self, api: &str) -> io::Result<SocketAddr> {
        let local = self.local_addr_of_descriptor()?;
        // An address with port 0 may still be bound (`IP_BIND_ADDRESS_NO_PORT`).
        if local.port() == 0 && local.ip().is_unspecified() {
            return Ok(local);
        }
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            format!(
                "{api} of a socket bound on the machine (to {local}) is not supported inside \
                 a simulation (`rt::sim`): its address is not a simulated node's; adopt the \
                 socket with `TcpSocket::from_std_stream` before binding it, then bind it \
                 with `TcpSocket::bind`"
            ),
        ))
    }

    /// Step 2: connects over the simulated network with the options the
    /// descriptor holds.
    pub(super) async fn connect_simulated(
        self,
        sim: Arc<Handle>,
        addr: SocketAddr,
    ) -> io::Result<TcpStream> {
        self.refuse_machine_bound("`TcpSocket::connect`")?;
        // A bind to the unspecified address and port 0 picks nothing.
        let picks = |bound: &SocketAddr| !(bound.ip().is_unspecified() && bound.port() == 0);
        if let Some(bound) = self.bound_simulated().filter(picks) {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                format!(
                    "`TcpSocket::connect` after `bind` (to {bound}) is not supported inside a \
                     simulation (`rt::sim`): the simulated network picks the local address of \
                     a connection; leave out the bind"
                ),
            ));
        }
        let nodelay = self.socket.tcp_nodelay()?;
        let linger = self.socket.linger()?;
        drop(self);
        let stream = SimTcpStream::connect(sim, addr).await?;
        stream.set_nodelay(nodelay)?;
        if linger.is_some() {
            stream.set_linger(linger)?;
        }
        Ok(TcpStream::simulated(stream))
    }

    /// Step 3: listens on the simulated network at the recorded address.
    pub(super) fn listen_simulated(self, sim: &Arc<Handle>) -> io::Result<TcpListener> {
        let unbound = self.refuse_machine_bound("`TcpSocket::listen`")?;
        if let Some(linger) = self.socket.linger()? {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                format!(
                    "`TcpSocket::listen` with a linger set ({linger:?}) is not supported inside \
                     a simulation (`rt::sim`): the simulated listener does not hand it to the \
                     streams it accepts; set it on each accepted stream with \
                     `TcpStream::set_linger`"
                ),
            ));
        }
        let addr = self.bound_simulated().unwrap_or(unbound);
        drop(self);
        SimTcpListener::bind(sim, addr).map(TcpListener::simulated)
    }

    /// Outside a simulation: `Err` if a `bind` inside one recorded an
    /// address that the descriptor does not have.
    pub(super) fn refuse_bound_simulated(&self, api: &str) -> io::Result<()> {
        match self.bound_simulated() {
            None => Ok(()),
            Some(bound) => Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{api} outside the simulation (`rt::sim`) whose `bind` recorded {bound}: \
                     the socket is not bound on the machine; make it again outside"
                ),
            )),
        }
    }
}
