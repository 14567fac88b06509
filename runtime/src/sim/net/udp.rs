//! Simulated UDP: sockets bound to a node's port, each with a queue of
//! datagrams received. A datagram may be lost or duplicated (seeded
//! draws at the configured rates), is lost across a partition, and is
//! dropped at a port nobody has bound; datagrams may arrive out of order
//! (each draws its own latency). A datagram longer than the receiver's
//! buffer is truncated, as a real socket truncates it.

use super::{Network, Packet, PacketKind, local_addr};
use std::collections::{BTreeMap, VecDeque};
use std::io;
use std::net::SocketAddr;
use std::task::{Context, Poll, Waker};

/// The largest UDP payload over IPv4.
const MAX_DATAGRAM: usize = 65_507;

#[derive(Default)]
pub(crate) struct Udp {
    sockets: BTreeMap<(usize, u16), Socket>,
}

#[derive(Default)]
struct Socket {
    queue: VecDeque<(SocketAddr, Vec<u8>)>,
    wakers: Vec<Waker>,
}

impl Network {
    /// Binds a UDP socket on `node` at `addr`; returns its local address.
    pub(crate) fn udp_bind(&mut self, node: usize, addr: SocketAddr) -> io::Result<SocketAddr> {
        let sockets = &self.udp.sockets;
        let local = local_addr(&mut self.hosts, node, addr, |port| {
            sockets.contains_key(&(node, port))
        })?;
        self.udp
            .sockets
            .insert((node, local.port()), Socket::default());
        Ok(local)
    }

    /// Closes the socket on `node`'s `port`; what it had queued is lost.
    pub(crate) fn udp_close(&mut self, node: usize, port: u16) {
        if let Some(mut socket) = self.udp.sockets.remove(&(node, port)) {
            self.woken.append(&mut socket.wakers);
        }
    }

    /// Sends `bytes` from `local` (a socket of `node`) to `to`.
    pub(crate) fn udp_send_to(
        &mut self,
        node: usize,
        local: SocketAddr,
        to: SocketAddr,
        bytes: &[u8],
        now: u64,
    ) -> io::Result<usize> {
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

    /// A datagram received on `node`'s `port`, with its sender.
    pub(crate) fn udp_poll_recv_from(
        &mut self,
        node: usize,
        port: u16,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<(usize, SocketAddr)>> {
        let Some(socket) = self.udp.sockets.get_mut(&(node, port)) else {
            return Poll::Ready(Err(io::Error::new(
                io::ErrorKind::NotConnected,
                "the simulated UDP socket is closed",
            )));
        };
        match socket.queue.pop_front() {
            Some((from, bytes)) => {
                let n = buf.len().min(bytes.len());
                buf[..n].copy_from_slice(&bytes[..n]);
                Poll::Ready(Ok((n, from)))
            }
            None => {
                if !socket.wakers.iter().any(|w| w.will_wake(cx.waker())) {
                    socket.wakers.push(cx.waker().clone());
                }
                Poll::Pending
            }
        }
    }
}

impl Udp {
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
