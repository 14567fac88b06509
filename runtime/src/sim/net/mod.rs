//! The simulated network: a pure, deterministic model of hosts, links,
//! TCP connections and UDP sockets, driven by the simulated clock (whole
//! 1 ms ticks). It knows nothing of tasks: operations take the current
//! tick, register wakers, and leave the wakers they release in
//! `Network::woken` for the caller to wake once it holds no lock.
//!
//! Wired into the run loop, the faults and `rt::net`'s sockets (see "The
//! network" in `sim/mod.rs`).
//!
//! Packets:
//! 1. every send becomes a packet in flight, due at `now + latency` (a
//!    seeded draw in the link's latency range); a stream's packets in one
//!    direction are never due before the previous one, so bytes arrive in
//!    order;
//! 2. `advance(now)` delivers every packet due by `now`, in due order
//!    (ties in send order), and fails the connects whose timeout passed;
//! 3. a packet due on a partitioned link is dropped if it is a datagram
//!    and held if it belongs to a stream (TCP retransmits until the link
//!    heals); on a held link every packet is held; repairing or releasing
//!    the link sends the held packets again, in their order, each with a
//!    fresh latency;
//! 4. a packet for an endpoint that is gone (dropped, or its host crashed)
//!    is answered with a reset, as a real host answers a segment for a
//!    closed port.
//!
//! Every bind (a UDP socket, a TCP listener) is a `Binding`: the node, the
//! port, the address bound (one of the node's, loopback, or unspecified
//! for all of them) and a binding number, never reused within a run.
//! Each operation names it: a socket that outlives its host's crash (kept
//! in a `static`, or leaked) finds another number on its port once the
//! restarted host binds it again, so it can neither close nor read the
//! new socket. (Connections need none: their numbers are never reused.)
//!
//! Addresses are bound as Linux binds them: a port bound on one address
//! (`127.0.0.1`) may be bound again on another (the node's own), not on
//! the unspecified address, which takes every address of the node; what
//! arrives goes to the socket bound to its destination address, else to
//! the one bound to all of them, so a socket bound to loopback only hears
//! its own node. (One difference: `local_addr` of a socket bound to
//! `0.0.0.0` says the node's address, the one its peers reach it at.)

#![cfg_attr(not(test), allow(dead_code))]

mod tcp;
mod tcp_ops;
mod udp;

use crate::sim::rng::SimRng;
use std::collections::BTreeMap;
use std::io;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::task::Waker;
use std::time::Duration;

pub(crate) use tcp::{ConnId, Side};
pub(crate) use tcp_ops::Take;

/// The first ephemeral port a host hands out (the IANA range).
const EPHEMERAL_START: u16 = 49152;

/// The network's settings, from the `Sim`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct NetConfig {
    /// The default latency of every link, in ticks: each packet draws one
    /// in `min..=max`.
    pub(crate) latency: (u64, u64),
    /// The chance that a datagram is lost, and that one is delivered
    /// twice.
    pub(crate) udp_loss: f64,
    pub(crate) udp_duplication: f64,
    /// How long a connect waits for its answer before `TimedOut`.
    pub(crate) connect_timeout: u64,
}

impl Default for NetConfig {
    fn default() -> NetConfig {
        NetConfig {
            latency: (1, 1),
            udp_loss: 0.0,
            udp_duplication: 0.0,
            connect_timeout: 5_000,
        }
    }
}

pub(crate) struct Network {
    config: NetConfig,
    rng: SimRng,
    hosts: Vec<Host>,
    /// By the pair of nodes, lower index first.
    links: BTreeMap<(usize, usize), Link>,
    pub(super) tcp: tcp::Tcp,
    pub(super) udp: udp::Udp,
    /// Due tick and send sequence number: the delivery order.
    in_flight: BTreeMap<(u64, u64), Packet>,
    /// Packets a partition or a hold keeps back, in send order.
    held: Vec<Packet>,
    next_seq: u64,
    /// The next binding number (module docs).
    next_binding: u64,
    /// Packets handed to their endpoint so far (held or lost ones not).
    pub(crate) delivered: u64,
    /// Wakers released by the last operations; see the module docs.
    pub(crate) woken: Vec<Waker>,
}

struct Host {
    name: String,
    ip: IpAddr,
    next_port: u16,
}

#[derive(Default)]
struct Link {
    partitioned: bool,
    held: bool,
    latency: Option<(u64, u64)>,
}

/// Something on the wire from node `from` to node `to`.
#[derive(Debug)]
pub(super) struct Packet {
    pub(super) from: usize,
    pub(super) to: usize,
    pub(super) kind: PacketKind,
}

#[derive(Debug)]
pub(super) enum PacketKind {
    /// Opens `conn` (the connector's side sends it).
    Syn(ConnId),
    SynAck(ConnId),
    /// A reset for `conn`'s end `Side`: the answer to a SYN for a port
    /// nobody listens on, or to a segment for a gone endpoint.
    Rst(ConnId, Side),
    Data(ConnId, Side, Vec<u8>),
    Fin(ConnId, Side),
    Datagram {
        from: SocketAddr,
        to: SocketAddr,
        bytes: Vec<u8>,
    },
    /// ICMP's port unreachable, back to the node that sent a datagram
    /// from `from` to `to` that no socket took (see `udp.rs`).
    Unreachable {
        from: SocketAddr,
        to: SocketAddr,
    },
}

impl PacketKind {
    /// Not part of a stream: lost across a partition, never held for it.
    fn is_datagram(&self) -> bool {
        matches!(
            self,
            PacketKind::Datagram { .. } | PacketKind::Unreachable { .. }
        )
    }
}

impl Network {
    /// A network of `names` (the nodes, in the simulation's order), each
    /// with the IP address `address_of` gives it.
    pub(crate) fn new(config: NetConfig, rng: SimRng, names: &[String]) -> Network {
        let hosts = names
            .iter()
            .enumerate()
            .map(|(node, name)| Host {
                name: name.clone(),
                ip: address_of(node),
                next_port: EPHEMERAL_START,
            })
            .collect();
        Network {
            config,
            rng,
            hosts,
            links: BTreeMap::new(),
            tcp: tcp::Tcp::default(),
            udp: udp::Udp::default(),
            in_flight: BTreeMap::new(),
            held: Vec::new(),
            next_seq: 0,
            next_binding: 0,
            delivered: 0,
            woken: Vec::new(),
        }
    }

    /// A fresh binding number (module docs).
    fn next_binding(&mut self) -> u64 {
        self.next_binding += 1;
        self.next_binding
    }

    /// `node`'s IP address.
    pub(crate) fn ip(&self, node: usize) -> IpAddr {
        self.hosts[node].ip
    }

    /// The address `host:port` names: a node's name, `localhost` (the
    /// node itself, at 127.0.0.1), or an IP literal (any address; one no
    /// node has leads nowhere).
    pub(crate) fn resolve(&self, host: &str, port: u16) -> io::Result<SocketAddr> {
        if host == "localhost" {
            return Ok(SocketAddr::new(Ipv4Addr::LOCALHOST.into(), port));
        }
        if let Ok(ip) = host.parse::<IpAddr>() {
            return Ok(SocketAddr::new(ip, port));
        }
        match self.hosts.iter().find(|h| h.name == host) {
            Some(h) => Ok(SocketAddr::new(h.ip, port)),
            None => Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!(
                    "could not resolve `{host}`: no host or client of the simulation has that name"
                ),
            )),
        }
    }

    /// The node `ip` leads to from `from` (loopback, and the unspecified
    /// address as Linux takes it, is `from` itself).
    fn node_of(&self, from: usize, ip: IpAddr) -> Option<usize> {
        if ip.is_loopback() || ip.is_unspecified() {
            return Some(from);
        }
        self.hosts.iter().position(|h| h.ip == ip)
    }

    fn link(&mut self, a: usize, b: usize) -> &mut Link {
        self.links.entry((a.min(b), a.max(b))).or_default()
    }

    /// Cuts the link between `a` and `b` (both ways). A node's loopback
    /// is no link: nothing cuts or holds it (a loop over every pair of
    /// nodes meets it).
    pub(crate) fn partition(&mut self, a: usize, b: usize) {
        if a != b {
            self.link(a, b).partitioned = true;
        }
    }

    /// Heals a partition; held stream packets go out again.
    pub(crate) fn repair(&mut self, a: usize, b: usize, now: u64) {
        self.link(a, b).partitioned = false;
        self.resend_held(now);
    }

    /// Holds every packet on the link between `a` and `b` until `release`
    /// (none on a node's loopback, as `partition`).
    pub(crate) fn hold(&mut self, a: usize, b: usize) {
        if a != b {
            self.link(a, b).held = true;
        }
    }

    pub(crate) fn release(&mut self, a: usize, b: usize, now: u64) {
        self.link(a, b).held = false;
        self.resend_held(now);
    }

    /// The latency range of the link between `a` and `b`, in ticks.
    pub(crate) fn set_latency(&mut self, a: usize, b: usize, min: u64, max: u64) {
        self.link(a, b).latency = Some((min, max.max(min)));
    }

    /// A process crash of `node`: its kernel closes what it had open (UDP
    /// sockets vanish; TCP as `tcp.rs`'s step 4: listeners reset their
    /// backlogs, connections end with a FIN, or a RST where bytes were
    /// unread); packets that reach it later find no endpoint (step 4
    /// above). A restart needs nothing here: the new process binds afresh.
    pub(crate) fn crash(&mut self, node: usize, now: u64) {
        self.udp.close_node(node, &mut self.woken);
        for packet in self.tcp.close_node(node, &mut self.woken) {
            self.send(packet, now);
        }
    }

    /// Puts `packet` in flight (step 1 of the module docs).
    pub(super) fn send(&mut self, packet: Packet, now: u64) {
        let (min, max) = match self
            .links
            .get(&(packet.from.min(packet.to), packet.from.max(packet.to)))
        {
            Some(Link {
                latency: Some(range),
                ..
            }) => *range,
            _ => self.config.latency,
        };
        let latency = if packet.from == packet.to {
            0
        } else {
            min + self.rng.below((max - min + 1) as usize) as u64
        };
        // A latency too long for the clock (`Duration::MAX`): never due.
        let mut due = now.saturating_add(latency);
        if let Some(floor) = self.tcp.order_floor(&packet) {
            due = due.max(floor);
        }
        self.tcp.note_due(&packet, due);
        let seq = self.next_seq;
        self.next_seq += 1;
        self.in_flight.insert((due, seq), packet);
    }

    /// The next tick at which something happens on the network: a packet
    /// due or a connect timing out.
    pub(crate) fn next_event(&self) -> Option<u64> {
        let packet = self.in_flight.keys().next().map(|&(due, _)| due);
        let timeout = self.tcp.next_timeout();
        match (packet, timeout) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Step 2 of the module docs.
    pub(crate) fn advance(&mut self, now: u64) {
        while let Some(entry) = self.in_flight.first_entry() {
            if entry.key().0 > now {
                break;
            }
            let due = entry.key().0;
            let packet = entry.remove();
            // Replies leave when the packet arrives, not at `now`.
            self.deliver(packet, due);
        }
        self.tcp.time_out_connects(now, &mut self.woken);
    }

    /// Step 3, then hands the packet (arriving at tick `now`) to its
    /// protocol.
    fn deliver(&mut self, packet: Packet, now: u64) {
        let link = self
            .links
            .get(&(packet.from.min(packet.to), packet.from.max(packet.to)));
        let (partitioned, held) = link.map_or((false, false), |l| (l.partitioned, l.held));
        if held || (partitioned && !packet.kind.is_datagram()) {
            self.held.push(packet);
            return;
        }
        if partitioned {
            // A datagram across a partition: lost.
            return;
        }
        self.delivered += 1;
        match packet.kind {
            PacketKind::Datagram { from, to, bytes } => {
                if !self
                    .udp
                    .deliver(packet.to, from, to, bytes, &mut self.woken)
                {
                    let unreachable = Packet {
                        from: packet.to,
                        to: packet.from,
                        kind: PacketKind::Unreachable { from, to },
                    };
                    self.send(unreachable, now);
                }
            }
            PacketKind::Unreachable { from, to } => {
                self.udp
                    .deliver_unreachable(packet.to, from, to, &mut self.woken);
            }
            kind => {
                let answers = self
                    .tcp
                    .deliver(packet.from, packet.to, kind, &mut self.woken);
                for (answer, wait) in answers {
                    self.send(answer, now + wait);
                }
            }
        }
    }

    /// Step 3's second half: what a link kept back goes out again, if its
    /// link lets it now.
    fn resend_held(&mut self, now: u64) {
        let held = std::mem::take(&mut self.held);
        for packet in held {
            let key = (packet.from.min(packet.to), packet.from.max(packet.to));
            let (partitioned, held) = self
                .links
                .get(&key)
                .map_or((false, false), |l| (l.partitioned, l.held));
            if held || partitioned {
                self.held.push(packet);
            } else {
                self.send(packet, now);
            }
        }
    }

    /// A draw against probability `p`.
    fn chance(&mut self, p: f64) -> bool {
        let unit = (self.rng.next_u64() >> 11) as f64 / ((1u64 << 53) as f64);
        p > 0.0 && unit < p
    }
}

/// Where a bind put a socket (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Binding {
    pub(crate) node: usize,
    pub(crate) port: u16,
    /// The address bound: unspecified for every address of the node.
    pub(crate) ip: IpAddr,
    /// The binding number.
    pub(crate) id: u64,
}

impl Binding {
    /// Its key in a table of bound sockets.
    pub(super) fn key(&self) -> BoundKey {
        (self.node, self.port, self.ip)
    }
}

/// A bound socket's place: node, port and the address bound.
pub(super) type BoundKey = (usize, u16, IpAddr);

/// The key in `table` of the socket on `node` that a packet for `to`
/// reaches: the one bound to `to`'s address, else the one bound to all.
pub(super) fn bound_for<T>(
    table: &BTreeMap<BoundKey, T>,
    node: usize,
    to: SocketAddr,
) -> Option<BoundKey> {
    [to.ip(), Ipv4Addr::UNSPECIFIED.into()]
        .into_iter()
        .map(|ip| (node, to.port(), ip))
        .find(|key| table.contains_key(key))
}

/// Whether `table` has a socket on `node`'s `port` that a bind of `ip`
/// there would clash with: one on the same address, or either of them on
/// all addresses.
pub(super) fn clashes<T>(
    table: &BTreeMap<BoundKey, T>,
    node: usize,
    port: u16,
    ip: IpAddr,
) -> bool {
    on_port(table, node, port)
        .any(|bound| bound == ip || bound.is_unspecified() || ip.is_unspecified())
}

/// The addresses bound on `node`'s `port` in `table`.
pub(super) fn on_port<T>(
    table: &BTreeMap<BoundKey, T>,
    node: usize,
    port: u16,
) -> impl Iterator<Item = IpAddr> + '_ {
    let lowest = IpAddr::V4(Ipv4Addr::UNSPECIFIED);
    let highest = IpAddr::V6(std::net::Ipv6Addr::from(u128::MAX));
    table
        .range((node, port, lowest)..=(node, port, highest))
        .map(|(&(_, _, ip), _)| ip)
}

/// Where a connect or send to `addr` goes: Linux takes the unspecified
/// address (`0.0.0.0`, `::`) as loopback.
pub(super) fn unspecified_as_loopback(addr: SocketAddr) -> SocketAddr {
    if addr.ip().is_unspecified() {
        SocketAddr::new(Ipv4Addr::LOCALHOST.into(), addr.port())
    } else {
        addr
    }
}

/// A bind of `addr` on `node`: the address it reports (its own for the
/// unspecified address, see the module docs) and the address bound; a
/// fresh ephemeral port for port 0. `clash(port, ip)` says whether the
/// port is taken for that address.
fn bind_addr(
    hosts: &mut [Host],
    node: usize,
    addr: SocketAddr,
    clash: impl Fn(u16, IpAddr) -> bool,
) -> io::Result<(SocketAddr, IpAddr)> {
    let host = &mut hosts[node];
    let ip = addr.ip();
    if !(ip.is_unspecified() || ip.is_loopback() || ip == host.ip) {
        return Err(io::Error::new(
            io::ErrorKind::AddrNotAvailable,
            format!(
                "{ip} is not an address of this simulated host ({})",
                host.ip
            ),
        ));
    }
    let port = match addr.port() {
        0 => ephemeral_port(host, |port| clash(port, ip))?,
        port if clash(port, ip) => {
            return Err(io::Error::new(
                io::ErrorKind::AddrInUse,
                format!("{ip}:{port} is already in use on this simulated host"),
            ));
        }
        port => port,
    };
    if ip.is_unspecified() {
        // `0.0.0.0` and `::` alike: every address of the node (a dual-stack
        // socket, as Linux's `::` is by default).
        return Ok((SocketAddr::new(host.ip, port), Ipv4Addr::UNSPECIFIED.into()));
    }
    Ok((SocketAddr::new(ip, port), ip))
}

/// The next free port of the ephemeral range, handed out in order.
fn ephemeral_port(host: &mut Host, in_use: impl Fn(u16) -> bool) -> io::Result<u16> {
    for _ in EPHEMERAL_START..=u16::MAX {
        let port = host.next_port;
        host.next_port = if port == u16::MAX {
            EPHEMERAL_START
        } else {
            port + 1
        };
        if !in_use(port) {
            return Ok(port);
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AddrInUse,
        "every ephemeral port of this simulated host is in use",
    ))
}

/// A latency in whole ticks of 1 ms: rounded up, and at least one.
pub(crate) fn ticks_of(latency: Duration) -> u64 {
    let ticks = latency.as_nanos().div_ceil(1_000_000).max(1);
    u64::try_from(ticks).unwrap_or(u64::MAX)
}

/// The IP address of node `node`: in the documentation ranges of RFC
/// 5737 (never routed), 192.0.2.1 onwards, then 198.51.100.x and
/// 203.0.113.x.
///
/// # Panics
///
/// Panics past 762 nodes.
pub(crate) fn address_of(node: usize) -> IpAddr {
    let (block, host) = (node / 254, (node % 254) as u8 + 1);
    let prefix = match block {
        0 => [192, 0, 2],
        1 => [198, 51, 100],
        2 => [203, 0, 113],
        _ => panic!("rt::sim: a simulation has at most 762 hosts and clients"),
    };
    IpAddr::V4(Ipv4Addr::new(prefix[0], prefix[1], prefix[2], host))
}

#[cfg(test)]
mod tests;
