//! The simulated ends of `rt::net`'s sockets: what the registered-I/O
//! layer's enum holds in its simulated variant (`net/udp/dispatch.rs`).
//! Each knows its simulation, its node and its port, and turns every
//! named operation into one call on the `Network`, through
//! `Handle::with_net` (which wakes what the call released once the lock
//! is gone).

use crate::loom::sync::{Arc, Mutex};
use crate::sim::executor::{self, Handle};
use std::future::poll_fn;
use std::io;
use std::net::SocketAddr;
use std::task::Poll;

/// A bound simulated UDP socket.
pub(crate) struct SimUdp {
    sim: Arc<Handle>,
    node: usize,
    local: SocketAddr,
    /// Its binding number in the network (see `sim/net/mod.rs`).
    id: u64,
    /// The default peer `connect` set: `send` goes there and `recv`
    /// takes only its datagrams, as a connected real socket does.
    peer: Mutex<Option<SocketAddr>>,
}

/// Runs `f` with the simulation current on this thread, if one is: a
/// socket created there is simulated.
pub(crate) fn in_sim<R>(f: impl FnOnce(&Arc<Handle>) -> R) -> Option<R> {
    executor::with_current(f)
}

impl SimUdp {
    /// Binds `addr` on the node of the calling task.
    pub(crate) fn bind(sim: &Arc<Handle>, addr: SocketAddr) -> io::Result<SimUdp> {
        let node = sim.current_node("`UdpSocket::bind`");
        let (local, id) = sim.with_net(|net, _| net.udp_bind(node, addr))?;
        Ok(SimUdp {
            sim: sim.clone(),
            node,
            local,
            id,
            peer: Mutex::new(None),
        })
    }

    fn peer(&self) -> Option<SocketAddr> {
        *self
            .peer
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(crate) fn connect(&self, addr: SocketAddr) -> io::Result<()> {
        *self
            .peer
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(addr);
        Ok(())
    }

    pub(crate) fn local_addr(&self) -> io::Result<SocketAddr> {
        Ok(self.local)
    }

    pub(crate) fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.peer().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::NotConnected,
                "this simulated UDP socket has no peer: call `connect` first",
            )
        })
    }

    pub(crate) async fn send_to(&self, buf: &[u8], to: SocketAddr) -> io::Result<usize> {
        let (node, local, id) = (self.node, self.local, self.id);
        self.sim
            .with_net(|net, now| net.udp_send_to(node, (local, id), to, buf, now))
    }

    pub(crate) async fn send(&self, buf: &[u8]) -> io::Result<usize> {
        let to = self.peer_addr()?;
        self.send_to(buf, to).await
    }

    /// The next datagram (from the peer only, once connected).
    pub(crate) async fn recv_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        let socket = (self.node, self.local.port(), self.id);
        let peer = self.peer();
        poll_fn(|cx| {
            loop {
                let received = self
                    .sim
                    .with_net(|net, _| net.udp_poll_recv_from(socket, cx, buf));
                match received {
                    Poll::Ready(Ok((_, from))) if peer.is_some_and(|peer| peer != from) => {}
                    other => return other,
                }
            }
        })
        .await
    }

    pub(crate) async fn recv(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.recv_from(buf).await.map(|(n, _)| n)
    }
}

impl Drop for SimUdp {
    fn drop(&mut self) {
        let (node, port, id) = (self.node, self.local.port(), self.id);
        self.sim.with_net(|net, _| net.udp_close(node, port, id));
    }
}

/// The `Unsupported` error of `api` on a simulated socket: it needs the
/// real socket (a descriptor, a closure over the mio type, an option).
pub(crate) fn unsupported(api: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::Unsupported,
        format!(
            "{api} is not supported on a simulated socket (`rt::sim`): it needs the real \
             socket, which a seed cannot replay"
        ),
    )
}
