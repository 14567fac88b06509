//! Simulated TCP: listeners with a backlog, connections as two ends, each
//! an ordered, reliable byte stream in, with the errors Linux's sockets
//! give, in the order it gives them. The operations the sockets call are
//! in `tcp_ops.rs`; this file holds the state and what arriving packets
//! do to it.
//!
//! A connection's life:
//! 1. `connect` sends a SYN and waits (its end `Connecting`, with a
//!    deadline); the SYN finds a listener bound to its destination (which
//!    queues the acceptor's end in its backlog and answers SYN-ACK) or no
//!    one (RST: refused); a listener whose backlog is full (more than
//!    `BACKLOG`, the real listener's 1024, waiting to be accepted) drops
//!    the SYN, as Linux does, and the connector sends it again after 1 s,
//!    2 s, 4 s, ... (Linux's SYN retransmissions); no answer by the
//!    deadline is `TimedOut`, and an answer that comes later is ignored (a
//!    SYN-ACK for a given-up connect is reset);
//! 2. bytes written go out as data packets, at most `WINDOW` bytes ahead
//!    of what the peer has read (a full window makes the writer wait);
//! 3. `shutdown(Write)` sends a FIN: the peer reads what came before, then
//!    end of file, and may go on writing;
//! 4. closing an end (dropping the stream, or its host's crash: a crashed
//!    process's sockets are closed by its kernel) sends a FIN, or a RST
//!    when it held unread bytes or its linger was zero (as Linux does);
//!    closing a listener resets the connections it had not accepted; a
//!    data packet for a closed end is answered with a RST;
//! 5. a RST sets the end's pending error (`SO_ERROR`): `ConnectionReset`,
//!    or `BrokenPipe` if the peer had already sent its FIN (Linux's
//!    `CLOSE_WAIT`). Bytes received before it stay readable; then the
//!    first read or write reports the error (once), later reads see end
//!    of file and later writes `BrokenPipe`, as on Linux.

use super::{BoundKey, Packet, PacketKind, bound_for};
use rt_reactor::Ready;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::io;
use std::net::SocketAddr;
use std::task::Waker;

/// How many written bytes may be in flight or unread at the peer.
pub(super) const WINDOW: usize = 64 * 1024;

/// A listener's backlog (`listen(2)`'s, as the real `TcpListener::bind`
/// asks for): Linux queues at most one more connection than this.
pub(super) const BACKLOG: usize = 1024;

/// Linux's first SYN retransmission timeout (`TCP_TIMEOUT_INIT`), in
/// ticks; it doubles with each retransmission.
const SYN_RTO: u64 = 1_000;

/// A connection: an index that is never reused within a run, so a late
/// packet can never reach a newer connection.
pub(crate) type ConnId = usize;

/// Which end of a connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Side {
    Connector,
    Acceptor,
}

impl Side {
    pub(super) fn index(self) -> usize {
        match self {
            Side::Connector => 0,
            Side::Acceptor => 1,
        }
    }

    pub(crate) fn peer(self) -> Side {
        match self {
            Side::Connector => Side::Acceptor,
            Side::Acceptor => Side::Connector,
        }
    }
}

#[derive(Default)]
pub(crate) struct Tcp {
    pub(super) listeners: BTreeMap<BoundKey, Listener>,
    pub(super) conns: Vec<Conn>,
    /// Ports taken by connectors' ends on each node.
    pub(super) ports: BTreeSet<(usize, u16)>,
    /// Connects waiting for an answer, by deadline.
    pub(super) connecting: BTreeSet<(u64, ConnId)>,
}

pub(super) struct Listener {
    /// The binding's number (`Network::next_binding`): a listener that
    /// outlived its host's crash finds another number on its port.
    pub(super) id: u64,
    pub(super) backlog: VecDeque<ConnId>,
    pub(super) wakers: Vec<Waker>,
}

pub(super) struct Conn {
    /// Indexed by `Side::index`.
    pub(super) ends: [End; 2],
    /// Where the connector aimed (a listener's address).
    pub(super) target: SocketAddr,
    /// The tick the last packet towards each end is due: the next one is
    /// not due before it (in-order delivery).
    pub(super) last_due: [u64; 2],
    /// How many times a full backlog dropped the SYN (step 1).
    pub(super) syn_retries: u32,
}

pub(super) struct End {
    pub(super) node: usize,
    pub(super) addr: SocketAddr,
    pub(super) state: State,
    pub(super) recv: VecDeque<u8>,
    pub(super) fin_received: bool,
    /// A RST arrived: the connection is over (step 5).
    pub(super) reset: bool,
    /// What the next read or write reports, once (step 5).
    pub(super) error: Option<io::ErrorKind>,
    /// Closed by its owner, or by its host's crash.
    pub(super) dropped: bool,
    pub(super) read_shut: bool,
    pub(super) write_shut: bool,
    /// `SO_LINGER` of zero: closing resets instead of ending cleanly.
    pub(super) abort_on_close: bool,
    /// Bytes this end wrote that the peer has not read (the window).
    pub(super) unread_at_peer: usize,
    pub(super) readers: Vec<Waker>,
    pub(super) writers: Vec<Waker>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum State {
    /// The acceptor's end before the SYN reaches a listener.
    Unborn,
    Connecting {
        deadline: u64,
    },
    Open,
    Failed(io::ErrorKind),
}

impl End {
    pub(super) fn new(node: usize, addr: SocketAddr, state: State) -> End {
        End {
            node,
            addr,
            state,
            recv: VecDeque::new(),
            fin_received: false,
            reset: false,
            error: None,
            dropped: false,
            read_shut: false,
            write_shut: false,
            abort_on_close: false,
            unread_at_peer: 0,
            readers: Vec::new(),
            writers: Vec::new(),
        }
    }

    /// Wakes everyone waiting on this end.
    pub(super) fn wake_all(&mut self, woken: &mut Vec<Waker>) {
        woken.append(&mut self.readers);
        woken.append(&mut self.writers);
    }

    /// What a poller would report for this end now (epoll's view: data or
    /// end of file is readable, room in the window is writable, a reset
    /// is everything at once).
    pub(super) fn readiness(&self) -> Ready {
        if self.dropped {
            // Only a socket that outlived its host's crash is used after
            // it was closed: every operation fails at once.
            return Ready::ALL;
        }
        let mut ready = Ready::EMPTY;
        if !self.recv.is_empty() {
            ready |= Ready::READABLE;
        }
        if self.fin_received || self.reset || self.read_shut {
            ready |= Ready::READABLE | Ready::READ_CLOSED;
        }
        if self.error.is_some() {
            ready |= Ready::ERROR | Ready::READABLE | Ready::WRITABLE;
        }
        if self.reset || self.write_shut {
            ready |= Ready::WRITABLE | Ready::WRITE_CLOSED;
        } else if self.state == State::Open && self.unread_at_peer < WINDOW {
            ready |= Ready::WRITABLE;
        }
        ready
    }
}

pub(super) fn register(wakers: &mut Vec<Waker>, waker: &Waker) {
    if !wakers.iter().any(|w| w.will_wake(waker)) {
        wakers.push(waker.clone());
    }
}

impl Tcp {
    /// The nodes a packet from `side` of `conn` goes between.
    pub(super) fn nodes(&self, conn: ConnId, side: Side) -> (usize, usize) {
        let ends = &self.conns[conn].ends;
        (ends[side.index()].node, ends[side.peer().index()].node)
    }

    /// Whether `conn`'s end `side` is closed in order (step 3 both ways):
    /// its FIN reached the peer and the peer's reached it, so the
    /// connection is over (Linux's `TIME_WAIT`, or `CLOSE` once the
    /// last FIN is acknowledged, which this counts from the FIN's
    /// arrival): `peer_addr` and `shutdown` fail with `NotConnected`.
    pub(super) fn closed_in_order(&self, conn: ConnId, side: Side) -> bool {
        let ends = &self.conns[conn].ends;
        let (end, peer) = (&ends[side.index()], &ends[side.peer().index()]);
        end.write_shut && end.fin_received && peer.fin_received
    }

    /// `conn`'s end `side` and its peer's, both mutable.
    pub(super) fn ends_mut(&mut self, conn: ConnId, side: Side) -> (&mut End, &mut End) {
        let [connector, acceptor] = &mut self.conns[conn].ends;
        match side {
            Side::Connector => (connector, acceptor),
            Side::Acceptor => (acceptor, connector),
        }
    }

    /// The earliest tick `packet` may be due: not before the previous
    /// packet towards the same end.
    pub(super) fn order_floor(&self, packet: &Packet) -> Option<u64> {
        let (conn, to) = Tcp::stream_target(&packet.kind)?;
        Some(self.conns[conn].last_due[to.index()])
    }

    pub(super) fn note_due(&mut self, packet: &Packet, due: u64) {
        if let Some((conn, to)) = Tcp::stream_target(&packet.kind) {
            self.conns[conn].last_due[to.index()] = due;
        }
    }

    fn stream_target(kind: &PacketKind) -> Option<(ConnId, Side)> {
        match *kind {
            PacketKind::Syn(conn) => Some((conn, Side::Acceptor)),
            PacketKind::SynAck(conn) => Some((conn, Side::Connector)),
            PacketKind::Rst(conn, to)
            | PacketKind::Data(conn, to, _)
            | PacketKind::Fin(conn, to) => Some((conn, to)),
            PacketKind::Datagram { .. } | PacketKind::Unreachable { .. } => None,
        }
    }

    pub(super) fn next_timeout(&self) -> Option<u64> {
        self.connecting.first().map(|&(deadline, _)| deadline)
    }

    /// Step 1's timeout.
    pub(super) fn time_out_connects(&mut self, now: u64, woken: &mut Vec<Waker>) {
        while let Some(&(deadline, conn)) = self.connecting.first() {
            if deadline > now {
                break;
            }
            self.connecting.pop_first();
            let end = &mut self.conns[conn].ends[Side::Connector.index()];
            if matches!(end.state, State::Connecting { .. }) {
                end.state = State::Failed(io::ErrorKind::TimedOut);
                end.wake_all(woken);
            }
        }
    }

    /// Step 4 for one end: marks it closed and returns the packet its
    /// kernel sends (a FIN, a RST, or nothing when the connection is over
    /// or never opened). Closing twice does nothing.
    pub(super) fn close_end(
        &mut self,
        conn: ConnId,
        side: Side,
        woken: &mut Vec<Waker>,
    ) -> Option<Packet> {
        let (end, _) = self.ends_mut(conn, side);
        if std::mem::replace(&mut end.dropped, true) {
            return None;
        }
        end.wake_all(woken);
        let (node, port) = (end.node, end.addr.port());
        if let State::Connecting { deadline } = end.state {
            // A connect given up: it no longer times out.
            self.connecting.remove(&(deadline, conn));
        }
        let (end, _) = self.ends_mut(conn, side);
        let kind = if end.reset || end.state != State::Open {
            None
        } else if end.abort_on_close || !end.recv.is_empty() {
            Some(PacketKind::Rst(conn, side.peer()))
        } else if !end.write_shut {
            end.write_shut = true;
            Some(PacketKind::Fin(conn, side.peer()))
        } else {
            None
        };
        if side == Side::Connector {
            self.ports.remove(&(node, port));
        }
        let (from, to) = self.nodes(conn, side);
        kind.map(|kind| Packet { from, to, kind })
    }

    /// Step 4 for a listener: it goes, and the connections in its
    /// backlog are reset. `id` must be the listener's binding number (a
    /// listener that outlived its host's crash has another one: it closes
    /// nothing).
    pub(super) fn close_listener(
        &mut self,
        key: BoundKey,
        id: Option<u64>,
        woken: &mut Vec<Waker>,
    ) -> Vec<Packet> {
        if self
            .listeners
            .get(&key)
            .is_none_or(|listener| id.is_some_and(|id| id != listener.id))
        {
            return Vec::new();
        }
        let mut listener = self.listeners.remove(&key).expect("found above");
        woken.append(&mut listener.wakers);
        let mut resets = Vec::new();
        for conn in listener.backlog {
            let (end, _) = self.ends_mut(conn, Side::Acceptor);
            end.dropped = true;
            if end.reset {
                continue;
            }
            let (from, to) = self.nodes(conn, Side::Acceptor);
            resets.push(Packet {
                from,
                to,
                kind: PacketKind::Rst(conn, Side::Connector),
            });
        }
        resets
    }

    /// A crash of `node`: its kernel closes what the process had open,
    /// listeners first (step 4); returns the packets that sends.
    pub(super) fn close_node(&mut self, node: usize, woken: &mut Vec<Waker>) -> Vec<Packet> {
        let listening: Vec<BoundKey> = self
            .listeners
            .keys()
            .filter(|&&(n, _, _)| n == node)
            .copied()
            .collect();
        let mut packets = Vec::new();
        for key in listening {
            packets.extend(self.close_listener(key, None, woken));
        }
        for conn in 0..self.conns.len() {
            for side in [Side::Connector, Side::Acceptor] {
                if self.conns[conn].ends[side.index()].node == node {
                    packets.extend(self.close_end(conn, side, woken));
                }
            }
        }
        self.ports.retain(|&(n, _)| n != node);
        packets
    }

    /// A stream packet arrives at `to` (from `from`); returns what goes
    /// out in answer, each packet with the ticks it waits before it leaves
    /// (a reply: none).
    pub(super) fn deliver(
        &mut self,
        from: usize,
        to: usize,
        kind: PacketKind,
        woken: &mut Vec<Waker>,
    ) -> Vec<(Packet, u64)> {
        let reply = |kind| Packet {
            from: to,
            to: from,
            kind,
        };
        match kind {
            PacketKind::Syn(conn) => match self.deliver_syn(conn, to, woken) {
                SynAnswer::Reply(kind) => Some(reply(kind)),
                SynAnswer::Dropped => {
                    // Step 1: the connector sends it again.
                    let retries = &mut self.conns[conn].syn_retries;
                    let rto = SYN_RTO << (*retries).min(16);
                    *retries += 1;
                    let syn = Packet {
                        from,
                        to,
                        kind: PacketKind::Syn(conn),
                    };
                    return vec![(syn, rto)];
                }
                SynAnswer::Ignored => None,
            },
            PacketKind::SynAck(conn) => {
                let end = &mut self.conns[conn].ends[Side::Connector.index()];
                let State::Connecting { deadline } = end.state else {
                    return vec![(reply(PacketKind::Rst(conn, Side::Acceptor)), 0)];
                };
                if end.dropped {
                    return vec![(reply(PacketKind::Rst(conn, Side::Acceptor)), 0)];
                }
                end.state = State::Open;
                end.wake_all(woken);
                self.connecting.remove(&(deadline, conn));
                None
            }
            PacketKind::Rst(conn, side) => {
                let end = &mut self.conns[conn].ends[side.index()];
                match end.state {
                    State::Connecting { deadline } => {
                        end.state = State::Failed(io::ErrorKind::ConnectionRefused);
                        self.connecting.remove(&(deadline, conn));
                    }
                    State::Open if !end.reset => {
                        end.reset = true;
                        // Linux: `EPIPE` in CLOSE_WAIT (the peer's FIN came
                        // and this end still writes), `ECONNRESET` otherwise.
                        end.error = Some(if end.fin_received && !end.write_shut {
                            io::ErrorKind::BrokenPipe
                        } else {
                            io::ErrorKind::ConnectionReset
                        });
                    }
                    _ => {}
                }
                end.wake_all(woken);
                None
            }
            PacketKind::Data(conn, side, bytes) => {
                let end = &mut self.conns[conn].ends[side.index()];
                if end.dropped || end.reset {
                    return vec![(reply(PacketKind::Rst(conn, side.peer())), 0)];
                }
                end.recv.extend(bytes);
                woken.append(&mut end.readers);
                None
            }
            PacketKind::Fin(conn, side) => {
                let end = &mut self.conns[conn].ends[side.index()];
                end.fin_received = true;
                woken.append(&mut end.readers);
                None
            }
            PacketKind::Datagram { .. } | PacketKind::Unreachable { .. } => {
                unreachable!("datagrams and port unreachables go to `Udp`")
            }
        }
        .into_iter()
        .map(|packet| (packet, 0))
        .collect()
    }

    /// A SYN for `conn` arrives at node `to` (step 1).
    fn deliver_syn(&mut self, conn: ConnId, to: usize, woken: &mut Vec<Waker>) -> SynAnswer {
        let target = self.conns[conn].target;
        let connector = &self.conns[conn].ends[Side::Connector.index()];
        if !matches!(connector.state, State::Connecting { .. }) || connector.dropped {
            // The connect gave up (timed out) or its stream is gone.
            return SynAnswer::Ignored;
        }
        let Some(key) = bound_for(&self.listeners, to, target) else {
            return SynAnswer::Reply(PacketKind::Rst(conn, Side::Connector));
        };
        let listener = self.listeners.get_mut(&key).expect("found above");
        if listener.backlog.len() > BACKLOG {
            return SynAnswer::Dropped;
        }
        listener.backlog.push_back(conn);
        woken.append(&mut listener.wakers);
        let local = SocketAddr::new(
            if target.ip().is_loopback() || target.ip().is_unspecified() {
                target.ip()
            } else {
                self.conns[conn].ends[Side::Acceptor.index()].addr.ip()
            },
            target.port(),
        );
        self.conns[conn].ends[Side::Acceptor.index()] = End::new(to, local, State::Open);
        SynAnswer::Reply(PacketKind::SynAck(conn))
    }
}

/// What a listener's node does with a SYN (step 1).
enum SynAnswer {
    /// A SYN-ACK, or a RST when nothing listens there.
    Reply(PacketKind),
    /// Dropped for a full backlog: the connector sends it again.
    Dropped,
    /// For a connect given up: nothing.
    Ignored,
}
