//! Simulated TCP: listeners with a backlog, connections as two ends, each
//! an ordered, reliable byte stream in, with the errors real sockets
//! give (`ConnectionRefused`, `TimedOut`, `ConnectionReset`,
//! `BrokenPipe`).
//!
//! A connection's life:
//! 1. `connect` sends a SYN and waits (its end `Connecting`, with a
//!    deadline); the SYN finds a listener (which queues the acceptor's end
//!    in its backlog and answers SYN-ACK) or no one (RST: refused); no
//!    answer by the deadline is `TimedOut`, and an answer that comes
//!    later is ignored;
//! 2. bytes written go out as data packets, at most `WINDOW` bytes ahead
//!    of what the peer has read (a full window makes the writer wait);
//! 3. `shutdown_write` sends a FIN: the peer reads what came before, then
//!    end of file, and may go on writing;
//! 4. dropping an end sends a FIN, or a RST when it held unread bytes (as
//!    Linux does); a data packet for a dropped end is answered with a RST;
//!    a RST makes the peer's reads and writes fail with
//!    `ConnectionReset`.

use super::{Network, Packet, PacketKind, local_addr};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::io;
use std::net::SocketAddr;
use std::task::{Context, Poll, Waker};

/// How many written bytes may be in flight or unread at the peer.
pub(super) const WINDOW: usize = 64 * 1024;

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
    fn index(self) -> usize {
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
    listeners: BTreeMap<(usize, u16), Listener>,
    conns: Vec<Conn>,
    /// Ports taken on each node: listeners' and connectors' ends.
    ports: BTreeSet<(usize, u16)>,
    /// Connects waiting for an answer, by deadline.
    connecting: BTreeSet<(u64, ConnId)>,
}

#[derive(Default)]
struct Listener {
    backlog: VecDeque<ConnId>,
    wakers: Vec<Waker>,
}

struct Conn {
    /// Indexed by `Side::index`.
    ends: [End; 2],
    /// Where the connector aimed (a listener's address).
    target: SocketAddr,
    /// The tick the last packet towards each end is due: the next one is
    /// not due before it (in-order delivery).
    last_due: [u64; 2],
}

struct End {
    node: usize,
    addr: SocketAddr,
    state: State,
    recv: VecDeque<u8>,
    fin_received: bool,
    reset: bool,
    dropped: bool,
    write_shut: bool,
    /// Bytes this end wrote that the peer has not read (the window).
    unread_at_peer: usize,
    readers: Vec<Waker>,
    writers: Vec<Waker>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Connecting { deadline: u64 },
    Open,
    Failed(io::ErrorKind),
}

impl End {
    fn new(node: usize, addr: SocketAddr, state: State) -> End {
        End {
            node,
            addr,
            state,
            recv: VecDeque::new(),
            fin_received: false,
            reset: false,
            dropped: false,
            write_shut: false,
            unread_at_peer: 0,
            readers: Vec::new(),
            writers: Vec::new(),
        }
    }

    /// Wakes everyone waiting on this end.
    fn wake_all(&mut self, woken: &mut Vec<Waker>) {
        woken.append(&mut self.readers);
        woken.append(&mut self.writers);
    }
}

fn register(wakers: &mut Vec<Waker>, waker: &Waker) {
    if !wakers.iter().any(|w| w.will_wake(waker)) {
        wakers.push(waker.clone());
    }
}

fn reset_error() -> io::Error {
    io::Error::new(
        io::ErrorKind::ConnectionReset,
        "connection reset by the simulated peer",
    )
}

impl Network {
    /// Binds a listener on `node` at `addr`; returns its local address.
    pub(crate) fn tcp_listen(&mut self, node: usize, addr: SocketAddr) -> io::Result<SocketAddr> {
        let ports = &self.tcp.ports;
        let local = local_addr(&mut self.hosts, node, addr, |port| {
            ports.contains(&(node, port))
        })?;
        self.tcp.ports.insert((node, local.port()));
        self.tcp
            .listeners
            .insert((node, local.port()), Listener::default());
        Ok(local)
    }

    /// Closes the listener on `node`'s `port`: connections not accepted
    /// yet are reset.
    pub(crate) fn tcp_close_listener(&mut self, node: usize, port: u16, now: u64) {
        self.tcp.ports.remove(&(node, port));
        let Some(listener) = self.tcp.listeners.remove(&(node, port)) else {
            return;
        };
        // Connections nobody accepted are reset, as a closing listener's
        // kernel does.
        for conn in listener.backlog {
            self.tcp.conns[conn].ends[Side::Acceptor.index()].dropped = true;
            let (from, to) = self.tcp.nodes(conn, Side::Acceptor);
            self.send(
                Packet {
                    from,
                    to,
                    kind: PacketKind::Rst(conn, Side::Connector),
                },
                now,
            );
        }
    }

    /// A connection accepted on `node`'s `port`, with its peer's address.
    pub(crate) fn tcp_poll_accept(
        &mut self,
        node: usize,
        port: u16,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<(ConnId, SocketAddr)>> {
        let Some(listener) = self.tcp.listeners.get_mut(&(node, port)) else {
            return Poll::Ready(Err(io::Error::new(
                io::ErrorKind::NotConnected,
                "the simulated listener is closed",
            )));
        };
        match listener.backlog.pop_front() {
            Some(conn) => {
                let peer = self.tcp.conns[conn].ends[Side::Connector.index()].addr;
                Poll::Ready(Ok((conn, peer)))
            }
            None => {
                register(&mut listener.wakers, cx.waker());
                Poll::Pending
            }
        }
    }

    /// Step 1: starts connecting from `node` to `to`.
    pub(crate) fn tcp_connect(
        &mut self,
        node: usize,
        to: SocketAddr,
        now: u64,
    ) -> io::Result<ConnId> {
        let ports = &self.tcp.ports;
        let unspecified = SocketAddr::new(std::net::Ipv4Addr::UNSPECIFIED.into(), 0);
        let mut local = local_addr(&mut self.hosts, node, unspecified, |port| {
            ports.contains(&(node, port))
        })?;
        let target_node = self.node_of(node, to.ip());
        if to.ip().is_loopback() {
            local.set_ip(to.ip());
        }
        self.tcp.ports.insert((node, local.port()));
        let deadline = now + self.config.connect_timeout;
        let conn = self.tcp.conns.len();
        let placeholder = End::new(target_node.unwrap_or(node), to, State::Open);
        self.tcp.conns.push(Conn {
            ends: [
                End::new(node, local, State::Connecting { deadline }),
                placeholder,
            ],
            target: to,
            last_due: [0; 2],
        });
        self.tcp.connecting.insert((deadline, conn));
        if let Some(target) = target_node {
            self.send(
                Packet {
                    from: node,
                    to: target,
                    kind: PacketKind::Syn(conn),
                },
                now,
            );
        }
        Ok(conn)
    }

    /// Whether the connect has its answer.
    pub(crate) fn tcp_poll_connect(
        &mut self,
        conn: ConnId,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<()>> {
        let end = &mut self.tcp.conns[conn].ends[Side::Connector.index()];
        match end.state {
            State::Open => Poll::Ready(Ok(())),
            State::Failed(kind) => Poll::Ready(Err(match kind {
                io::ErrorKind::ConnectionRefused => io::Error::new(
                    kind,
                    "connection refused: nothing listens there on the simulated host",
                ),
                io::ErrorKind::TimedOut => io::Error::new(
                    kind,
                    "connect timed out: no answer across the simulated network",
                ),
                kind => kind.into(),
            })),
            State::Connecting { .. } => {
                register(&mut end.writers, cx.waker());
                Poll::Pending
            }
        }
    }

    /// The local and peer addresses of `conn`'s end `side`.
    pub(crate) fn tcp_addrs(&self, conn: ConnId, side: Side) -> (SocketAddr, SocketAddr) {
        let ends = &self.tcp.conns[conn].ends;
        (ends[side.index()].addr, ends[side.peer().index()].addr)
    }

    pub(crate) fn tcp_poll_read(
        &mut self,
        conn: ConnId,
        side: Side,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        let [connector, acceptor] = &mut self.tcp.conns[conn].ends;
        let (end, peer) = match side {
            Side::Connector => (connector, acceptor),
            Side::Acceptor => (acceptor, connector),
        };
        if end.reset {
            return Poll::Ready(Err(reset_error()));
        }
        if !end.recv.is_empty() {
            let n = buf.len().min(end.recv.len());
            for (slot, byte) in buf.iter_mut().zip(end.recv.drain(..n)) {
                *slot = byte;
            }
            peer.unread_at_peer -= n;
            self.woken.append(&mut peer.writers);
            return Poll::Ready(Ok(n));
        }
        if end.fin_received || buf.is_empty() {
            return Poll::Ready(Ok(0));
        }
        register(&mut end.readers, cx.waker());
        Poll::Pending
    }

    /// Step 2.
    pub(crate) fn tcp_poll_write(
        &mut self,
        conn: ConnId,
        side: Side,
        cx: &mut Context<'_>,
        buf: &[u8],
        now: u64,
    ) -> Poll<io::Result<usize>> {
        let end = &mut self.tcp.conns[conn].ends[side.index()];
        if end.reset {
            return Poll::Ready(Err(reset_error()));
        }
        if end.write_shut {
            return Poll::Ready(Err(io::Error::new(
                io::ErrorKind::BrokenPipe,
                "the write side of this simulated stream was shut down",
            )));
        }
        if buf.is_empty() {
            return Poll::Ready(Ok(0));
        }
        let room = WINDOW - end.unread_at_peer;
        if room == 0 {
            register(&mut end.writers, cx.waker());
            return Poll::Pending;
        }
        let n = buf.len().min(room);
        end.unread_at_peer += n;
        let (from, to) = self.tcp.nodes(conn, side);
        self.send(
            Packet {
                from,
                to,
                kind: PacketKind::Data(conn, side.peer(), buf[..n].to_vec()),
            },
            now,
        );
        Poll::Ready(Ok(n))
    }

    /// Step 3.
    pub(crate) fn tcp_shutdown_write(&mut self, conn: ConnId, side: Side, now: u64) {
        let end = &mut self.tcp.conns[conn].ends[side.index()];
        if std::mem::replace(&mut end.write_shut, true) || end.reset {
            return;
        }
        let (from, to) = self.tcp.nodes(conn, side);
        self.send(
            Packet {
                from,
                to,
                kind: PacketKind::Fin(conn, side.peer()),
            },
            now,
        );
    }

    /// Step 4: the stream's owner dropped it.
    pub(crate) fn tcp_close(&mut self, conn: ConnId, side: Side, now: u64) {
        let end = &mut self.tcp.conns[conn].ends[side.index()];
        if std::mem::replace(&mut end.dropped, true) {
            return;
        }
        let unread = !end.recv.is_empty();
        let gone = end.reset || !matches!(end.state, State::Open);
        let write_shut = end.write_shut;
        if side == Side::Connector {
            self.tcp.ports.remove(&(end.node, end.addr.port()));
        }
        let kind = if gone {
            return;
        } else if unread {
            PacketKind::Rst(conn, side.peer())
        } else if !write_shut {
            PacketKind::Fin(conn, side.peer())
        } else {
            return;
        };
        let (from, to) = self.tcp.nodes(conn, side);
        self.send(Packet { from, to, kind }, now);
    }
}

impl Tcp {
    /// The nodes a packet from `side` of `conn` goes between.
    fn nodes(&self, conn: ConnId, side: Side) -> (usize, usize) {
        let ends = &self.conns[conn].ends;
        (ends[side.index()].node, ends[side.peer().index()].node)
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
            PacketKind::Datagram { .. } => None,
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

    /// A stream packet arrives at `to` (from `from`); returns the replies.
    pub(super) fn deliver(
        &mut self,
        from: usize,
        to: usize,
        kind: PacketKind,
        woken: &mut Vec<Waker>,
    ) -> Vec<Packet> {
        let reply = |kind| Packet {
            from: to,
            to: from,
            kind,
        };
        match kind {
            PacketKind::Syn(conn) => {
                let target = self.conns[conn].target;
                let connector = &self.conns[conn].ends[Side::Connector.index()];
                if !matches!(connector.state, State::Connecting { .. }) || connector.dropped {
                    // The connect gave up (timed out) or its stream is gone.
                    return Vec::new();
                }
                let Some(listener) = self.listeners.get_mut(&(to, target.port())) else {
                    return vec![reply(PacketKind::Rst(conn, Side::Connector))];
                };
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
                vec![reply(PacketKind::SynAck(conn))]
            }
            PacketKind::SynAck(conn) => {
                let end = &mut self.conns[conn].ends[Side::Connector.index()];
                if end.dropped || !matches!(end.state, State::Connecting { .. }) {
                    return vec![reply(PacketKind::Rst(conn, Side::Acceptor))];
                }
                end.state = State::Open;
                end.wake_all(woken);
                Vec::new()
            }
            PacketKind::Rst(conn, side) => {
                let end = &mut self.conns[conn].ends[side.index()];
                match end.state {
                    State::Connecting { .. } => {
                        end.state = State::Failed(io::ErrorKind::ConnectionRefused);
                    }
                    _ => end.reset = true,
                }
                end.wake_all(woken);
                Vec::new()
            }
            PacketKind::Data(conn, side, bytes) => {
                let end = &mut self.conns[conn].ends[side.index()];
                if end.dropped || end.reset {
                    return vec![reply(PacketKind::Rst(conn, side.peer()))];
                }
                end.recv.extend(bytes);
                woken.append(&mut end.readers);
                Vec::new()
            }
            PacketKind::Fin(conn, side) => {
                let end = &mut self.conns[conn].ends[side.index()];
                end.fin_received = true;
                woken.append(&mut end.readers);
                Vec::new()
            }
            PacketKind::Datagram { .. } => unreachable!("datagrams go to `Udp::deliver`"),
        }
    }

    /// A crash of `node`: its listeners go, its ends are dropped, and the
    /// peers of its open ends get a reset (returned, to send).
    pub(super) fn close_node(&mut self, node: usize, woken: &mut Vec<Waker>) -> Vec<Packet> {
        let mut resets = Vec::new();
        let gone: Vec<(usize, u16)> = self
            .listeners
            .keys()
            .filter(|&&(n, _)| n == node)
            .copied()
            .collect();
        for key in gone {
            if let Some(mut listener) = self.listeners.remove(&key) {
                woken.append(&mut listener.wakers);
            }
        }
        self.ports.retain(|&(n, _)| n != node);
        for (conn, c) in self.conns.iter_mut().enumerate() {
            for side in [Side::Connector, Side::Acceptor] {
                let (end, peer) = {
                    let [a, b] = &mut c.ends;
                    match side {
                        Side::Connector => (a, b),
                        Side::Acceptor => (b, a),
                    }
                };
                if end.node != node || end.dropped {
                    continue;
                }
                end.dropped = true;
                end.wake_all(woken);
                if end.state == State::Open && !end.reset && !peer.dropped {
                    resets.push(Packet {
                        from: node,
                        to: peer.node,
                        kind: PacketKind::Rst(conn, side.peer()),
                    });
                }
            }
        }
        resets
    }
}
