//! Simulated UDP: sockets bound to an address and port of a node, each
//! with a queue of datagrams received. A datagram may be lost or
//! duplicated (seeded draws at the configured rates), is lost across a
//! partition, and is dropped where no socket is bound to its destination
//! (see the `net` module docs for which socket that is); datagrams may
//! arrive out of order (each draws its own latency). A datagram longer
//! than the receiver's buffer is truncated, as a real socket truncates it.
//! Each socket has its binding (see the `net` module docs): an operation
//! naming another finds the socket closed.
//!
//! `connect` works as Linux's: it sets the default destination of `send`
//! and, from then on, the socket is found only by datagrams from that
//! peer (others are dropped on arrival, as the kernel's lookup skips a
//! connected socket for them); datagrams queued before the connect stay
//! queued and are received, whoever sent them. A `send` with no peer set
//! fails with Linux's `EDESTADDRREQ`, `peer_addr` with its `ENOTCONN`.
//!
//! A datagram that no socket on its node takes is answered with a port
//! unreachable (ICMP, `PacketKind::Unreachable`), back to the sender's
//! node with the link's latency, lost across a partition as a datagram
//! is. As on Linux without `IP_RECVERR`, only a socket connected to the
//! datagram's destination takes it: it becomes the socket's pending
//! error, `ConnectionRefused`, which the next receive (before any datagram
//! queued) or send reports, once; meanwhile the socket is readable. An
//! unconnected socket ignores it.

use super::tcp_ops::closed_by_crash;
use super::{
    Binding, BoundKey, Network, Packet, PacketKind, Take, bind_addr, bound_for, clashes,
    unspecified_as_loopback,
};
use rt_reactor::Ready;
use std::collections::{BTreeMap, VecDeque};
use std::io;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::task::{Poll, Waker};

/// The largest UDP payload over IPv4.
const MAX_DATAGRAM: usize = 65_507;

#[derive(Default)]
pub(crate) struct Udp {
    pub(super) sockets: BTreeMap<BoundKey, Socket>,
}

pub(super) struct Socket {
    pub(super) id: u64,
    /// The peer `connect` set (module docs).
    peer: Option<SocketAddr>,
    /// A port unreachable came for a datagram to `peer` (module docs):
    /// the next receive or send reports it.
    refused: bool,
    queue: VecDeque<(SocketAddr, Vec<u8>)>,
    wakers: Vec<Waker>,
}

impl Network {
    /// Binds a UDP socket on `node` at `addr`; returns its local address
    /// and its binding.
    pub(crate) fn udp_bind(
        &mut self,
        node: usize,
        addr: SocketAddr,
    ) -> io::Result<(SocketAddr, Binding)> {
        let sockets = &self.udp.sockets;
        let (local, ip) = bind_addr(&mut self.hosts, node, addr, |port, ip| {
            clashes(sockets, node, port, ip)
        })?;
        let binding = Binding {
            node,
            port: local.port(),
            ip,
            id: self.next_binding(),
        };
        let socket = Socket {
            id: binding.id,
            peer: None,
            refused: false,
            queue: VecDeque::new(),
            wakers: Vec::new(),
        };
        self.udp.sockets.insert(binding.key(), socket);
        Ok((local, binding))
    }

    /// Closes the socket of `binding`; what it had queued is lost. A
    /// socket that outlived its host's crash closes nothing.
    pub(crate) fn udp_close(&mut self, binding: Binding) {
        if self.udp.socket(binding).is_none() {
            return;
        }
        if let Some(mut socket) = self.udp.sockets.remove(&binding.key()) {
            self.woken.append(&mut socket.wakers);
        }
    }

    /// `connect`: sets the socket's peer (module docs).
    pub(crate) fn udp_connect(&mut self, binding: Binding, peer: SocketAddr) -> io::Result<()> {
        let socket = self.udp.socket(binding);
        // The peer as Linux records it, so that its replies (which come
        // from loopback) match it.
        socket.ok_or_else(|| closed_by_crash("UDP socket"))?.peer =
            Some(unspecified_as_loopback(peer));
        Ok(())
    }

    /// The peer `connect` set: Linux's `ENOTCONN` if none.
    pub(crate) fn udp_peer(&mut self, binding: Binding) -> io::Result<SocketAddr> {
        let socket = self.udp.socket(binding);
        let peer = socket.ok_or_else(|| closed_by_crash("UDP socket"))?.peer;
        peer.ok_or_else(|| io::Error::from_raw_os_error(libc::ENOTCONN))
    }

    /// Sends `bytes` from the socket of `binding` to `to`, or to its peer (`None`: `send`; Linux's `EDESTADDRREQ`
    /// without one).
    pub(crate) fn udp_send_to(
        &mut self,
        binding: Binding,
        to: Option<SocketAddr>,
        bytes: &[u8],
        now: u64,
    ) -> io::Result<usize> {
        let socket = self.udp.socket(binding);
        let socket = socket.ok_or_else(|| closed_by_crash("UDP socket"))?;
        if std::mem::take(&mut socket.refused) {
            return Err(refused());
        }
        let Some(to) = to.or(socket.peer) else {
            return Err(io::Error::from_raw_os_error(libc::EDESTADDRREQ));
        };
        let to = unspecified_as_loopback(to);
        if bytes.len() > MAX_DATAGRAM {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "a datagram of {} bytes is longer than UDP allows",
                    bytes.len()
                ),
            ));
        }
        let node = binding.node;
        if binding.ip.is_loopback() && !to.ip().is_loopback() {
            // Linux: no route from a loopback address to another host.
            return Err(io::Error::from_raw_os_error(libc::EINVAL));
        }
        let Some(target) = self.node_of(node, to.ip()) else {
            // No node has that address: the datagram goes nowhere.
            return Ok(bytes.len());
        };
        // The source address Linux picks: the one bound, else loopback's
        // own towards loopback, else the node's.
        let ip: IpAddr = match binding.ip {
            ip if !ip.is_unspecified() => ip,
            _ if to.ip().is_loopback() => Ipv4Addr::LOCALHOST.into(),
            _ => self.ip(node),
        };
        let from = SocketAddr::new(ip, binding.port);
        let copies = match () {
            () if self.chance(self.config.udp_loss) => 0,
            () if self.chance(self.config.udp_duplication) => 2,
            () => 1,
        };
        for _ in 0..copies {
            let packet = Packet {
                from: node,
                to: target,
                kind: PacketKind::Datagram {
                    from,
                    to,
                    bytes: bytes.to_vec(),
                },
            };
            self.send(packet, now);
        }
        Ok(bytes.len())
    }

    /// A receive by the socket of `binding` from the datagram at the head
    /// of its queue: `copy` copies what fits of its payload and says how
    /// many bytes; `take` says whether the datagram leaves the queue.
    /// Returns that count and the sender. With nothing queued, `waker`
    /// (if any) waits for a datagram.
    pub(crate) fn udp_poll_recv(
        &mut self,
        binding: Binding,
        waker: Option<&Waker>,
        take: Take,
        copy: impl FnOnce(&[u8]) -> usize,
    ) -> Poll<io::Result<(usize, SocketAddr)>> {
        let Some(socket) = self.udp.socket(binding) else {
            return Poll::Ready(Err(closed_by_crash("UDP socket")));
        };
        // Linux reports the pending error before any datagram queued.
        if std::mem::take(&mut socket.refused) {
            return Poll::Ready(Err(refused()));
        }
        let Some((from, bytes)) = socket.queue.front() else {
            if let Some(waker) = waker {
                socket.wait(waker);
            }
            return Poll::Pending;
        };
        let (n, from) = (copy(bytes), *from);
        if take == Take::Consume {
            socket.queue.pop_front();
        }
        Poll::Ready(Ok((n, from)))
    }

    /// The readiness of the socket of `binding` within `mask`: readable
    /// with a datagram queued, always writable (a simulated socket's send
    /// buffer never fills). A socket gone with its host's crash is ready
    /// either way, so that the operation that follows reports the error.
    /// Otherwise `waker` (if any) waits for a datagram.
    pub(crate) fn udp_poll_ready(
        &mut self,
        binding: Binding,
        mask: Ready,
        waker: Option<&Waker>,
    ) -> Poll<Ready> {
        let Some(socket) = self.udp.socket(binding) else {
            return Poll::Ready(mask);
        };
        let mut ready = Ready::WRITABLE;
        if !socket.queue.is_empty() || socket.refused {
            ready |= Ready::READABLE;
        }
        let ready = ready & mask;
        if !ready.is_empty() {
            return Poll::Ready(ready);
        }
        if let Some(waker) = waker {
            socket.wait(waker);
        }
        Poll::Pending
    }
}

impl Socket {
    /// Keeps `waker` until the next datagram (once per task).
    fn wait(&mut self, waker: &Waker) {
        if !self.wakers.iter().any(|w| w.will_wake(waker)) {
            self.wakers.push(waker.clone());
        }
    }
}

impl Udp {
    /// The socket of `binding`, if it is still bound.
    fn socket(&mut self, binding: Binding) -> Option<&mut Socket> {
        self.sockets
            .get_mut(&binding.key())
            .filter(|socket| socket.id == binding.id)
    }

    /// A datagram from `from` arrives at `node` for `to`: queued at the
    /// socket bound there, unless that socket is connected to another
    /// peer (module docs). `false` if no socket took it.
    pub(super) fn deliver(
        &mut self,
        node: usize,
        from: SocketAddr,
        to: SocketAddr,
        bytes: Vec<u8>,
        woken: &mut Vec<Waker>,
    ) -> bool {
        let Some(socket) = self.receiver(node, from, to) else {
            return false;
        };
        socket.queue.push_back((from, bytes));
        woken.append(&mut socket.wakers);
        true
    }

    /// A port unreachable arrives at `node` for the datagram it sent from
    /// `from` to `to`: the socket connected to `to` takes it (module docs;
    /// Linux finds it as it would a datagram from `to` to `from`).
    pub(super) fn deliver_unreachable(
        &mut self,
        node: usize,
        from: SocketAddr,
        to: SocketAddr,
        woken: &mut Vec<Waker>,
    ) {
        let Some(socket) = self.receiver(node, to, from) else {
            return;
        };
        if socket.peer == Some(to) {
            socket.refused = true;
            woken.append(&mut socket.wakers);
        }
    }

    /// The socket on `node` that a datagram from `from` to `to` reaches.
    fn receiver(&mut self, node: usize, from: SocketAddr, to: SocketAddr) -> Option<&mut Socket> {
        let key = bound_for(&self.sockets, node, to)?;
        let socket = self.sockets.get_mut(&key).expect("found above");
        if socket.peer.is_some_and(|peer| peer != from) {
            return None;
        }
        Some(socket)
    }

    /// A crash of `node`: its sockets vanish.
    pub(super) fn close_node(&mut self, node: usize, woken: &mut Vec<Waker>) {
        self.sockets.retain(|&(n, _, _), socket| {
            if n == node {
                woken.append(&mut socket.wakers);
            }
            n != node
        });
    }
}

/// The pending error a port unreachable leaves on a connected socket.
fn refused() -> io::Error {
    io::Error::new(
        io::ErrorKind::ConnectionRefused,
        "connection refused: no socket at the simulated peer's port (a port unreachable \
         came back for an earlier datagram)",
    )
}
