//! Simulated UDP: sockets bound to a node's port, each with a queue of
//! datagrams received. A datagram may be lost or duplicated (seeded
//! draws at the configured rates), is lost across a partition, and is
//! dropped at a port nobody has bound; datagrams may arrive out of order
//! (each draws its own latency). A datagram longer than the receiver's
//! buffer is truncated, as a real socket truncates it. Each socket has its
//! binding number (see the `net` module docs): an operation naming another
//! finds the socket closed.

use super::tcp_ops::closed_by_crash;
use super::{Network, Packet, PacketKind, Take, local_addr};
use rt_reactor::Ready;
use std::collections::{BTreeMap, VecDeque};
use std::io;
use std::net::SocketAddr;
use std::task::{Poll, Waker};

/// The largest UDP payload over IPv4.
const MAX_DATAGRAM: usize = 65_507;

#[derive(Default)]
pub(crate) struct Udp {
    pub(super) sockets: BTreeMap<(usize, u16), Socket>,
}

pub(super) struct Socket {
    pub(super) id: u64,
    queue: VecDeque<(SocketAddr, Vec<u8>)>,
    wakers: Vec<Waker>,
}

impl Network {
    /// Binds a UDP socket on `node` at `addr`; returns its local address
    /// and its binding number.
    pub(crate) fn udp_bind(
        &mut self,
        node: usize,
        addr: SocketAddr,
    ) -> io::Result<(SocketAddr, u64)> {
        let sockets = &self.udp.sockets;
        let local = local_addr(&mut self.hosts, node, addr, |port| {
            sockets.contains_key(&(node, port))
        })?;
        let id = self.next_binding();
        let socket = Socket {
            id,
            queue: VecDeque::new(),
            wakers: Vec::new(),
        };
        self.udp.sockets.insert((node, local.port()), socket);
        Ok((local, id))
    }

    /// Closes socket `id` on `node`'s `port`; what it had queued is lost.
    /// A socket that outlived its host's crash closes nothing.
    pub(crate) fn udp_close(&mut self, node: usize, port: u16, id: u64) {
        if self.udp.socket(node, port, id).is_none() {
            return;
        }
        if let Some(mut socket) = self.udp.sockets.remove(&(node, port)) {
            self.woken.append(&mut socket.wakers);
        }
    }

    /// Sends `bytes` from `local` (socket `id` of `node`) to `to`.
    pub(crate) fn udp_send_to(
        &mut self,
        node: usize,
        (local, id): (SocketAddr, u64),
        to: SocketAddr,
        bytes: &[u8],
        now: u64,
    ) -> io::Result<usize> {
        if self.udp.socket(node, local.port(), id).is_none() {
            return Err(closed_by_crash("UDP socket"));
        }
        if bytes.len() > MAX_DATAGRAM {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "a datagram of {} bytes is longer than UDP allows",
                    bytes.len()
                ),
            ));
        }
        let Some(target) = self.node_of(node, to.ip()) else {
            // No node has that address: the datagram goes nowhere.
            return Ok(bytes.len());
        };
        let from = if to.ip().is_loopback() {
            SocketAddr::new(to.ip(), local.port())
        } else {
            SocketAddr::new(self.ip(node), local.port())
        };
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

    /// A receive by socket `id` on `node`'s `port` from the datagram at
    /// the head of its queue: `copy` copies what fits of its payload and
    /// says how many bytes; `take` says whether the datagram leaves the
    /// queue. Returns that count and the sender. A socket connected to
    /// `peer` takes only `peer`'s datagrams: any other at the head is
    /// dropped first, as the kernel drops them for a connected socket.
    /// With nothing queued, `waker` (if any) waits for a datagram.
    pub(crate) fn udp_poll_recv(
        &mut self,
        (node, port, id): (usize, u16, u64),
        peer: Option<SocketAddr>,
        waker: Option<&Waker>,
        take: Take,
        copy: impl FnOnce(&[u8]) -> usize,
    ) -> Poll<io::Result<(usize, SocketAddr)>> {
        let Some(socket) = self.udp.socket(node, port, id) else {
            return Poll::Ready(Err(closed_by_crash("UDP socket")));
        };
        socket.drop_strangers(peer);
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

    /// The readiness of socket `id` on `node`'s `port` within `mask`:
    /// readable with a datagram queued (from `peer`, once connected),
    /// always writable (a simulated socket's send buffer never fills). A
    /// socket gone with its host's crash is ready either way, so that the
    /// operation that follows reports the error. Otherwise `waker` (if
    /// any) waits for a datagram.
    pub(crate) fn udp_poll_ready(
        &mut self,
        (node, port, id): (usize, u16, u64),
        peer: Option<SocketAddr>,
        mask: Ready,
        waker: Option<&Waker>,
    ) -> Poll<Ready> {
        let Some(socket) = self.udp.socket(node, port, id) else {
            return Poll::Ready(mask);
        };
        socket.drop_strangers(peer);
        let mut ready = Ready::WRITABLE;
        if !socket.queue.is_empty() {
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
    /// Drops the datagrams at the head of the queue that a socket
    /// connected to `peer` does not receive.
    fn drop_strangers(&mut self, peer: Option<SocketAddr>) {
        let Some(peer) = peer else { return };
        while self.queue.front().is_some_and(|(from, _)| *from != peer) {
            self.queue.pop_front();
        }
    }

    /// Keeps `waker` until the next datagram (once per task).
    fn wait(&mut self, waker: &Waker) {
        if !self.wakers.iter().any(|w| w.will_wake(waker)) {
            self.wakers.push(waker.clone());
        }
    }
}

impl Udp {
    /// Socket `id` on `node`'s `port`, if it is still bound there.
    fn socket(&mut self, node: usize, port: u16, id: u64) -> Option<&mut Socket> {
        self.sockets
            .get_mut(&(node, port))
            .filter(|socket| socket.id == id)
    }

    pub(super) fn deliver(
        &mut self,
        node: usize,
        from: SocketAddr,
        to: SocketAddr,
        bytes: Vec<u8>,
        woken: &mut Vec<Waker>,
    ) {
        if let Some(socket) = self.sockets.get_mut(&(node, to.port())) {
            socket.queue.push_back((from, bytes));
            woken.append(&mut socket.wakers);
        }
    }

    /// A crash of `node`: its sockets vanish.
    pub(super) fn close_node(&mut self, node: usize, woken: &mut Vec<Waker>) {
        self.sockets.retain(|&(n, _), socket| {
            if n == node {
                woken.append(&mut socket.wakers);
            }
            n != node
        });
    }
}
