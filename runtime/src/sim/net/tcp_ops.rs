//! The operations on simulated TCP that the sockets (`sim/tcp_socket.rs`)
//! call: listen, accept, connect, receive, send, readiness, shutdown and
//! close, each on the `Network` at the current tick. The numbered steps
//! are those of `tcp.rs`.
//!
//! An operation that would wait takes an `Option<&Waker>`: with one, it
//! registers it and returns `Pending` (the `poll_*` methods and futures);
//! without, it returns `WouldBlock` (the `try_*` methods).

use super::tcp::{ConnId, End, Listener, Side, State, WINDOW, register};
use super::{
    Binding, Network, Packet, PacketKind, bind_addr, clashes, on_port, unspecified_as_loopback,
};
use rt_reactor::{Direction, Ready};
use std::collections::VecDeque;
use std::io;
use std::net::{Shutdown, SocketAddr};
use std::task::{Poll, Waker};

/// Whether a receive takes the bytes it copies or leaves them (a peek).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Take {
    Consume,
    Peek,
}

impl Network {
    /// Binds a listener on `node` at `addr`; returns its local address
    /// and its binding.
    pub(crate) fn tcp_listen(
        &mut self,
        node: usize,
        addr: SocketAddr,
    ) -> io::Result<(SocketAddr, Binding)> {
        let (ports, listeners) = (&self.tcp.ports, &self.tcp.listeners);
        let (local, ip) = bind_addr(&mut self.hosts, node, addr, |port, ip| {
            ports.contains(&(node, port)) || clashes(listeners, node, port, ip)
        })?;
        let binding = Binding {
            node,
            port: local.port(),
            ip,
            id: self.next_binding(),
        };
        self.tcp.listeners.insert(
            binding.key(),
            Listener {
                id: binding.id,
                backlog: VecDeque::new(),
                wakers: Vec::new(),
            },
        );
        Ok((local, binding))
    }

    /// Closes the listener of `binding`: connections not accepted yet are
    /// reset. A listener that outlived its host's crash closes nothing
    /// (the port may be a new process's).
    pub(crate) fn tcp_close_listener(&mut self, binding: Binding, now: u64) {
        for packet in self
            .tcp
            .close_listener(binding.key(), Some(binding.id), &mut self.woken)
        {
            self.send(packet, now);
        }
    }

    /// A connection accepted by the listener of `binding`, with its
    /// peer's address.
    pub(crate) fn tcp_poll_accept(
        &mut self,
        binding: Binding,
        waker: &Waker,
    ) -> Poll<io::Result<(ConnId, SocketAddr)>> {
        let listener = self.tcp.listeners.get_mut(&binding.key());
        let Some(listener) = listener.filter(|listener| listener.id == binding.id) else {
            return Poll::Ready(Err(closed_by_crash("listener")));
        };
        match listener.backlog.pop_front() {
            Some(conn) => {
                let peer = self.tcp.conns[conn].ends[Side::Connector.index()].addr;
                Poll::Ready(Ok((conn, peer)))
            }
            None => {
                register(&mut listener.wakers, waker);
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
        let to = unspecified_as_loopback(to);
        let (ports, listeners) = (&self.tcp.ports, &self.tcp.listeners);
        let unspecified = SocketAddr::new(std::net::Ipv4Addr::UNSPECIFIED.into(), 0);
        let (mut local, _) = bind_addr(&mut self.hosts, node, unspecified, |port, _| {
            ports.contains(&(node, port)) || on_port(listeners, node, port).next().is_some()
        })?;
        let target_node = self.node_of(node, to.ip());
        if to.ip().is_loopback() {
            local.set_ip(to.ip());
        }
        self.tcp.ports.insert((node, local.port()));
        // A timeout too long for the clock (`Duration::MAX`) is none: the
        // connect waits for as long as it takes, and is no event to jump to.
        let deadline = now.saturating_add(self.config.connect_timeout);
        let conn = self.tcp.conns.len();
        let unborn = End::new(target_node.unwrap_or(node), to, State::Unborn);
        self.tcp.conns.push(super::tcp::Conn {
            ends: [
                End::new(node, local, State::Connecting { deadline }),
                unborn,
            ],
            target: to,
            last_due: [0; 2],
            syn_retries: 0,
        });
        if deadline != u64::MAX {
            self.tcp.connecting.insert((deadline, conn));
        }
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
    pub(crate) fn tcp_poll_connect(&mut self, conn: ConnId, waker: &Waker) -> Poll<io::Result<()>> {
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
            State::Connecting { .. } | State::Unborn => {
                register(&mut end.writers, waker);
                Poll::Pending
            }
        }
    }

    /// The local and peer addresses of `conn`'s end `side`.
    pub(crate) fn tcp_addrs(&self, conn: ConnId, side: Side) -> (SocketAddr, SocketAddr) {
        let ends = &self.tcp.conns[conn].ends;
        (ends[side.index()].addr, ends[side.peer().index()].addr)
    }

    /// Whether `conn`'s end `side` is still connected (not reset): a
    /// reset connection has no peer address, as `getpeername` says.
    pub(crate) fn tcp_is_connected(&self, conn: ConnId, side: Side) -> bool {
        let end = &self.tcp.conns[conn].ends[side.index()];
        !end.reset && !end.dropped && !self.tcp.closed_in_order(conn, side)
    }

    /// A receive into `room` bytes: `copy` gets what is queued (the two
    /// halves of the queue) and returns how many bytes it took; with
    /// `Take::Consume` they leave the queue and the peer's window opens.
    /// Data first, then end of file after a FIN, then the pending error
    /// (once), then end of file after a reset or `shutdown(Read)` (step 5).
    pub(crate) fn tcp_poll_recv(
        &mut self,
        conn: ConnId,
        side: Side,
        waker: Option<&Waker>,
        room: usize,
        take: Take,
        copy: impl FnOnce(&[u8], &[u8]) -> usize,
    ) -> Poll<io::Result<usize>> {
        let (end, peer) = self.tcp.ends_mut(conn, side);
        if end.dropped {
            return Poll::Ready(Err(closed_by_crash("stream")));
        }
        if room == 0 {
            return Poll::Ready(Ok(0));
        }
        if !end.recv.is_empty() {
            let (front, back) = end.recv.as_slices();
            let n = copy(front, back);
            if take == Take::Consume && n > 0 {
                end.recv.drain(..n);
                peer.unread_at_peer -= n;
                self.woken.append(&mut peer.writers);
            }
            return Poll::Ready(Ok(n));
        }
        if end.fin_received {
            return Poll::Ready(Ok(0));
        }
        if let Some(kind) = end.error.take() {
            return Poll::Ready(Err(error_of(kind)));
        }
        if end.reset || end.read_shut {
            return Poll::Ready(Ok(0));
        }
        match waker {
            Some(waker) => {
                register(&mut end.readers, waker);
                Poll::Pending
            }
            None => Poll::Ready(Err(io::ErrorKind::WouldBlock.into())),
        }
    }

    /// Step 2: a send of `len` bytes; `gather(n)` copies out the first `n`
    /// of them once the window says how many go.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn tcp_poll_send(
        &mut self,
        conn: ConnId,
        side: Side,
        waker: Option<&Waker>,
        len: usize,
        gather: impl FnOnce(usize) -> Vec<u8>,
        now: u64,
    ) -> Poll<io::Result<usize>> {
        let end = &mut self.tcp.conns[conn].ends[side.index()];
        if end.dropped {
            return Poll::Ready(Err(closed_by_crash("stream")));
        }
        if let Some(kind) = end.error.take() {
            return Poll::Ready(Err(error_of(kind)));
        }
        if end.reset || end.write_shut {
            return Poll::Ready(Err(error_of(io::ErrorKind::BrokenPipe)));
        }
        if len == 0 {
            return Poll::Ready(Ok(0));
        }
        let room = WINDOW - end.unread_at_peer;
        if room == 0 {
            return match waker {
                Some(waker) => {
                    register(&mut end.writers, waker);
                    Poll::Pending
                }
                None => Poll::Ready(Err(io::ErrorKind::WouldBlock.into())),
            };
        }
        let n = len.min(room);
        end.unread_at_peer += n;
        let bytes = gather(n);
        let (from, to) = self.tcp.nodes(conn, side);
        self.send(
            Packet {
                from,
                to,
                kind: PacketKind::Data(conn, side.peer(), bytes),
            },
            now,
        );
        Poll::Ready(Ok(n))
    }

    /// The readiness of `conn`'s end `side` within `mask`; with a waker,
    /// waits for it in each direction `mask` touches.
    pub(crate) fn tcp_poll_ready(
        &mut self,
        conn: ConnId,
        side: Side,
        mask: Ready,
        waker: Option<&Waker>,
    ) -> Poll<Ready> {
        let end = &mut self.tcp.conns[conn].ends[side.index()];
        let ready = end.readiness() & mask;
        if !ready.is_empty() {
            return Poll::Ready(ready);
        }
        if let Some(waker) = waker {
            if !(mask & Direction::Read.mask()).is_empty() {
                register(&mut end.readers, waker);
            }
            if !(mask & Direction::Write.mask()).is_empty() {
                register(&mut end.writers, waker);
            }
        }
        Poll::Pending
    }

    /// `shutdown(2)` on `conn`'s end `side`; step 3 for the write side.
    /// Reads after `shutdown(Read)` return what is queued, then end of
    /// file (Linux's behaviour).
    pub(crate) fn tcp_shutdown(
        &mut self,
        conn: ConnId,
        side: Side,
        how: Shutdown,
        now: u64,
    ) -> io::Result<()> {
        let end = &mut self.tcp.conns[conn].ends[side.index()];
        if end.dropped {
            return Err(closed_by_crash("stream"));
        }
        if end.reset {
            return Err(io::Error::new(
                io::ErrorKind::NotConnected,
                "the simulated connection was reset: nothing left to shut down",
            ));
        }
        if self.tcp.closed_in_order(conn, side) {
            return Err(io::Error::new(
                io::ErrorKind::NotConnected,
                "the simulated connection is closed both ways: nothing left to shut down",
            ));
        }
        let end = &mut self.tcp.conns[conn].ends[side.index()];
        if matches!(how, Shutdown::Read | Shutdown::Both) {
            end.read_shut = true;
            self.woken.append(&mut end.readers);
        }
        if matches!(how, Shutdown::Write | Shutdown::Both)
            && !std::mem::replace(&mut end.write_shut, true)
        {
            self.woken.append(&mut end.writers);
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
        Ok(())
    }

    /// `SO_LINGER` of zero (`abort`) or not: whether closing resets.
    pub(crate) fn tcp_set_abort_on_close(&mut self, conn: ConnId, side: Side, abort: bool) {
        self.tcp.conns[conn].ends[side.index()].abort_on_close = abort;
    }

    /// `SO_ERROR`: the pending error, taken.
    pub(crate) fn tcp_take_error(&mut self, conn: ConnId, side: Side) -> Option<io::Error> {
        let end = &mut self.tcp.conns[conn].ends[side.index()];
        end.error.take().map(error_of)
    }

    /// Step 4: the stream's owner dropped it.
    pub(crate) fn tcp_close(&mut self, conn: ConnId, side: Side, now: u64) {
        if let Some(packet) = self.tcp.close_end(conn, side, &mut self.woken) {
            self.send(packet, now);
        }
    }
}

/// The error of `kind` as a simulated socket reports it.
fn error_of(kind: io::ErrorKind) -> io::Error {
    let text = match kind {
        io::ErrorKind::ConnectionReset => "connection reset by the simulated peer",
        io::ErrorKind::BrokenPipe => "broken pipe: the simulated connection is closed for writing",
        _ => return kind.into(),
    };
    io::Error::new(kind, text)
}

/// The error of a socket used after its host crashed or its run ended
/// (it outlived either in a `static` or a leak): that closed it.
pub(super) fn closed_by_crash(what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::NotConnected,
        format!(
            "this simulated {what} is closed: its host crashed, or its simulation ended (a \
             socket kept past either, in a `static` or leaked, is dead; the restarted host, or \
             the next run, binds its own)"
        ),
    )
}
