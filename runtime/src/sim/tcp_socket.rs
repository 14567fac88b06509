//! The simulated ends of `rt::net`'s TCP types: what the I/O enums of
//! `TcpListener` and `TcpStream` hold in their simulated variants
//! (`net/tcp/dispatch.rs`). Each operation is one call on the `Network`
//! (`sim/net/tcp_ops.rs`) through `Handle::with_net`, which wakes what the
//! call released once the lock is gone.
//!
//! The cooperative budget is spent as on a real socket: one unit per
//! ready operation and per ready `poll_*_ready`, none for the readiness
//! futures (`ready`, `readable`, `writable`) or the `try_*` calls.
//! Readiness and the `try_*` answers are `endpoint.rs`'s, shared with the
//! UDP socket.

use super::endpoint::{SimReadiness, copy_uninit, would_block};
use crate::io::registered::poll_budgeted;
use crate::loom::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use crate::loom::sync::{Arc, Mutex};
use crate::sim::executor::Handle;
use crate::sim::net::{Binding, ConnId, Side, Take};
use rt_reactor::Ready;
use std::future::poll_fn;
use std::io::{self, IoSlice, IoSliceMut};
use std::mem::MaybeUninit;
use std::net::{Shutdown, SocketAddr};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

/// A bound simulated TCP listener.
pub(crate) struct SimTcpListener {
    sim: Arc<Handle>,
    local: SocketAddr,
    /// Where it is bound in the network (see `sim/net/mod.rs`).
    binding: Binding,
}

impl SimTcpListener {
    /// Binds `addr` on the node of the calling task.
    pub(crate) fn bind(sim: &Arc<Handle>, addr: SocketAddr) -> io::Result<SimTcpListener> {
        let node = sim.current_node("`TcpListener::bind`");
        let (local, binding) = sim.with_net(|net, _| net.tcp_listen(node, addr))?;
        Ok(SimTcpListener {
            sim: sim.clone(),
            local,
            binding,
        })
    }

    pub(crate) fn local_addr(&self) -> SocketAddr {
        self.local
    }

    pub(crate) fn poll_accept(
        &self,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<(SimTcpStream, SocketAddr)>> {
        let binding = self.binding;
        let accepted = poll_budgeted(cx, |cx| {
            self.sim
                .with_net(|net, _| net.tcp_poll_accept(binding, cx.waker()))
        });
        accepted.map_ok(|(conn, peer)| {
            let stream = SimTcpStream::new(self.sim.clone(), conn, Side::Acceptor);
            (stream, peer)
        })
    }

    pub(crate) async fn accept(&self) -> io::Result<(SimTcpStream, SocketAddr)> {
        poll_fn(|cx| self.poll_accept(cx)).await
    }
}

impl Drop for SimTcpListener {
    fn drop(&mut self) {
        let binding = self.binding;
        self.sim
            .with_net(|net, now| net.tcp_close_listener(binding, now));
    }
}

/// One end of a simulated TCP connection.
pub(crate) struct SimTcpStream {
    sim: Arc<Handle>,
    conn: ConnId,
    side: Side,
    local: SocketAddr,
    peer: SocketAddr,
    /// Options a simulated socket records (they change nothing on the
    /// simulated network but a zero linger, which makes a close reset).
    nodelay: AtomicBool,
    ttl: AtomicU32,
    linger: Mutex<Option<Duration>>,
}

/// Linux's default `IP_TTL`.
const DEFAULT_TTL: u32 = 64;

impl SimTcpStream {
    fn new(sim: Arc<Handle>, conn: ConnId, side: Side) -> SimTcpStream {
        let (local, peer) = sim.with_net(|net, _| net.tcp_addrs(conn, side));
        SimTcpStream {
            sim,
            conn,
            side,
            local,
            peer,
            nodelay: AtomicBool::new(false),
            ttl: AtomicU32::new(DEFAULT_TTL),
            linger: Mutex::new(None),
        }
    }

    /// Connects from the calling task's node to `addr` (a refusal, a
    /// timeout and an answer all come over the simulated network).
    pub(crate) async fn connect(sim: Arc<Handle>, addr: SocketAddr) -> io::Result<SimTcpStream> {
        let node = sim.current_node("`TcpStream::connect`");
        let conn = sim.with_net(|net, now| net.tcp_connect(node, addr, now))?;
        // Built first, so that a connect given up (a timeout around it)
        // closes its end.
        let stream = SimTcpStream::new(sim, conn, Side::Connector);
        poll_fn(|cx| {
            stream
                .sim
                .with_net(|net, _| net.tcp_poll_connect(conn, cx.waker()))
        })
        .await?;
        Ok(stream)
    }

    /// A receive into `room` bytes (see `Network::tcp_poll_recv`).
    fn recv(
        &self,
        waker: Option<&Waker>,
        room: usize,
        take: Take,
        copy: impl FnOnce(&[u8], &[u8]) -> usize,
    ) -> Poll<io::Result<usize>> {
        let (conn, side) = (self.conn, self.side);
        self.sim
            .with_net(|net, _| net.tcp_poll_recv(conn, side, waker, room, take, copy))
    }

    /// A send of `len` bytes that `gather` copies out (see
    /// `Network::tcp_poll_send`).
    fn send(
        &self,
        waker: Option<&Waker>,
        len: usize,
        gather: impl FnOnce(usize) -> Vec<u8>,
    ) -> Poll<io::Result<usize>> {
        let (conn, side) = (self.conn, self.side);
        self.sim
            .with_net(|net, now| net.tcp_poll_send(conn, side, waker, len, gather, now))
    }

    /// A receive into `room` bytes waiting with `cx`'s waker, spending a
    /// unit of budget when it is ready.
    fn poll_recv(
        &self,
        cx: &mut Context<'_>,
        room: usize,
        take: Take,
        copy: impl FnOnce(&[u8], &[u8]) -> usize,
    ) -> Poll<io::Result<usize>> {
        poll_budgeted(cx, |cx| self.recv(Some(cx.waker()), room, take, copy))
    }

    pub(crate) fn poll_read(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.poll_copy(cx, buf, Take::Consume)
    }

    pub(crate) fn poll_peek(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.poll_copy(cx, buf, Take::Peek)
    }

    fn poll_copy(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
        take: Take,
    ) -> Poll<io::Result<usize>> {
        let room = buf.len();
        self.poll_recv(cx, room, take, |front, back| {
            Queued { front, back }.copy_to(buf)
        })
    }

    pub(crate) fn poll_read_vectored(
        &self,
        cx: &mut Context<'_>,
        bufs: &mut [IoSliceMut<'_>],
    ) -> Poll<io::Result<usize>> {
        let room = bufs.iter().map(|buf| buf.len()).sum();
        self.poll_recv(cx, room, Take::Consume, |front, back| {
            Queued { front, back }.copy_to_vectored(bufs)
        })
    }

    pub(crate) fn poll_read_uninit(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [MaybeUninit<u8>],
    ) -> Poll<io::Result<usize>> {
        self.poll_copy_uninit(cx, buf, Take::Consume)
    }

    pub(crate) fn poll_peek_uninit(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [MaybeUninit<u8>],
    ) -> Poll<io::Result<usize>> {
        self.poll_copy_uninit(cx, buf, Take::Peek)
    }

    fn poll_copy_uninit(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [MaybeUninit<u8>],
        take: Take,
    ) -> Poll<io::Result<usize>> {
        let room = buf.len();
        self.poll_recv(cx, room, take, |front, back| {
            copy_uninit(buf, front.iter().chain(back))
        })
    }

    pub(crate) async fn peek(&self, buf: &mut [u8]) -> io::Result<usize> {
        poll_fn(|cx| self.poll_peek(cx, buf)).await
    }

    pub(crate) fn try_read(&self, buf: &mut [u8]) -> io::Result<usize> {
        let room = buf.len();
        would_block(self.recv(None, room, Take::Consume, |front, back| {
            Queued { front, back }.copy_to(buf)
        }))
    }

    pub(crate) fn try_read_vectored(&self, bufs: &mut [IoSliceMut<'_>]) -> io::Result<usize> {
        let room = bufs.iter().map(|buf| buf.len()).sum();
        would_block(self.recv(None, room, Take::Consume, |front, back| {
            Queued { front, back }.copy_to_vectored(bufs)
        }))
    }

    /// Into the spare capacity of `buf` (a full `Vec` or `BytesMut`
    /// grows first, as `chunk_mut` does), as the real `try_read_buf`.
    #[cfg(feature = "bytes")]
    pub(crate) fn try_read_buf<B: bytes::BufMut + ?Sized>(&self, buf: &mut B) -> io::Result<usize> {
        let room = buf.chunk_mut().len();
        would_block(self.recv(None, room, Take::Consume, |front, back| {
            super::endpoint::copy_to_buf(buf, &[front, back])
        }))
    }

    pub(crate) fn poll_write(&self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        poll_budgeted(cx, |cx| {
            self.send(Some(cx.waker()), buf.len(), |n| buf[..n].to_vec())
        })
    }

    pub(crate) fn poll_write_vectored(
        &self,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let len = bufs.iter().map(|buf| buf.len()).sum();
        poll_budgeted(cx, |cx| {
            self.send(Some(cx.waker()), len, |n| gather(bufs, n))
        })
    }

    pub(crate) fn try_write(&self, buf: &[u8]) -> io::Result<usize> {
        would_block(self.send(None, buf.len(), |n| buf[..n].to_vec()))
    }

    pub(crate) fn try_write_vectored(&self, bufs: &[IoSlice<'_>]) -> io::Result<usize> {
        let len = bufs.iter().map(|buf| buf.len()).sum();
        would_block(self.send(None, len, |n| gather(bufs, n)))
    }

    pub(crate) fn shutdown(&self, how: Shutdown) -> io::Result<()> {
        let (conn, side) = (self.conn, self.side);
        self.sim
            .with_net(|net, now| net.tcp_shutdown(conn, side, how, now))
    }

    pub(crate) fn local_addr(&self) -> io::Result<SocketAddr> {
        Ok(self.local)
    }

    /// The peer, while connected (a reset connection has none, as
    /// `getpeername` says).
    pub(crate) fn peer_addr(&self) -> io::Result<SocketAddr> {
        let (conn, side) = (self.conn, self.side);
        if self.sim.with_net(|net, _| net.tcp_is_connected(conn, side)) {
            Ok(self.peer)
        } else {
            Err(io::Error::new(
                io::ErrorKind::NotConnected,
                "the simulated connection is closed: it has no peer any more",
            ))
        }
    }

    pub(crate) fn nodelay(&self) -> io::Result<bool> {
        Ok(self.nodelay.load(Ordering::Relaxed))
    }

    pub(crate) fn set_nodelay(&self, nodelay: bool) -> io::Result<()> {
        self.nodelay.store(nodelay, Ordering::Relaxed);
        Ok(())
    }

    pub(crate) fn ttl(&self) -> io::Result<u32> {
        Ok(self.ttl.load(Ordering::Relaxed))
    }

    /// As Linux: 1 to 255.
    pub(crate) fn set_ttl(&self, ttl: u32) -> io::Result<()> {
        if !(1..=255).contains(&ttl) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("a TTL of {ttl} is out of range (1 to 255)"),
            ));
        }
        self.ttl.store(ttl, Ordering::Relaxed);
        Ok(())
    }

    pub(crate) fn linger(&self) -> io::Result<Option<Duration>> {
        Ok(*self
            .linger
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner))
    }

    /// Records `linger` (in whole seconds, as the kernel keeps it); zero
    /// makes the close a reset, as on a real socket.
    pub(crate) fn set_linger(&self, linger: Option<Duration>) -> io::Result<()> {
        let linger = linger.map(|d| Duration::from_secs(d.as_secs()));
        *self
            .linger
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = linger;
        let (conn, side) = (self.conn, self.side);
        let abort = linger == Some(Duration::ZERO);
        self.sim
            .with_net(|net, _| net.tcp_set_abort_on_close(conn, side, abort));
        Ok(())
    }

    pub(crate) fn take_error(&self) -> io::Result<Option<io::Error>> {
        let (conn, side) = (self.conn, self.side);
        Ok(self.sim.with_net(|net, _| net.tcp_take_error(conn, side)))
    }
}

impl SimReadiness for SimTcpStream {
    fn readiness(&self, mask: Ready, waker: Option<&Waker>) -> Poll<Ready> {
        let (conn, side) = (self.conn, self.side);
        self.sim
            .with_net(|net, _| net.tcp_poll_ready(conn, side, mask, waker))
    }
}

impl Drop for SimTcpStream {
    fn drop(&mut self) {
        let (conn, side) = (self.conn, self.side);
        self.sim.with_net(|net, now| net.tcp_close(conn, side, now));
    }
}

/// The first `n` bytes of `bufs`, in one buffer.
fn gather(bufs: &[IoSlice<'_>], n: usize) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(n);
    for buf in bufs {
        let take = buf.len().min(n - bytes.len());
        bytes.extend_from_slice(&buf[..take]);
        if bytes.len() == n {
            break;
        }
    }
    bytes
}

/// The bytes a receive may take: a queue's two halves, front first.
struct Queued<'a> {
    front: &'a [u8],
    back: &'a [u8],
}

impl Queued<'_> {
    /// Copies as much as fits into `dst`, advancing past it; returns how
    /// many bytes.
    fn copy_to(&mut self, dst: &mut [u8]) -> usize {
        let mut n = 0;
        for src in [&mut self.front, &mut self.back] {
            let all = std::mem::take(src);
            let take = all.len().min(dst.len() - n);
            dst[n..n + take].copy_from_slice(&all[..take]);
            *src = &all[take..];
            n += take;
        }
        n
    }

    fn copy_to_vectored(&mut self, bufs: &mut [IoSliceMut<'_>]) -> usize {
        let mut n = 0;
        for buf in bufs {
            n += self.copy_to(buf);
            if self.front.is_empty() && self.back.is_empty() {
                break;
            }
        }
        n
    }
}
