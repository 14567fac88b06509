//! The simulated ends of `rt::net`'s sockets: what the registered-I/O
//! layer's enum holds in its simulated variant (`net/udp/dispatch.rs`).
//! Each knows its simulation, its node and its port, and turns every
//! named operation into one call on the `Network`, through
//! `Handle::with_net` (which wakes what the call released once the lock
//! is gone).
//!
//! The cooperative budget is spent as on a real socket: one unit per
//! ready `poll_*` call, none for the readiness futures, the `try_*` calls
//! or the `async` sends and receives (a simulated send never waits).
//! Readiness and the `try_*` answers are `endpoint.rs`'s, shared with
//! the TCP stream.

use super::endpoint::{SimReadiness, copy_uninit, would_block};
use crate::io::registered::poll_budgeted;
use crate::loom::sync::Arc;
use crate::sim::executor::{self, Handle};
use crate::sim::net::{Binding, Take};
use rt_reactor::Ready;
use std::future::poll_fn;
use std::io;
use std::mem::MaybeUninit;
use std::net::SocketAddr;
use std::task::{Context, Poll, Waker};

/// A bound simulated UDP socket. Its peer (`connect`) is kept by the
/// network, which filters arriving datagrams by it (`sim/net/udp.rs`).
pub(crate) struct SimUdp {
    sim: Arc<Handle>,
    local: SocketAddr,
    /// Where it is bound in the network (see `sim/net/mod.rs`).
    binding: Binding,
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
        let (local, binding) = sim.with_net(|net, _| net.udp_bind(node, addr))?;
        Ok(SimUdp {
            sim: sim.clone(),
            local,
            binding,
        })
    }

    pub(crate) fn connect(&self, addr: SocketAddr) -> io::Result<()> {
        let binding = self.binding;
        self.sim.with_net(|net, _| net.udp_connect(binding, addr))
    }

    pub(crate) fn local_addr(&self) -> io::Result<SocketAddr> {
        Ok(self.local)
    }

    pub(crate) fn peer_addr(&self) -> io::Result<SocketAddr> {
        let binding = self.binding;
        self.sim.with_net(|net, _| net.udp_peer(binding))
    }

    pub(crate) async fn send_to(&self, buf: &[u8], to: SocketAddr) -> io::Result<usize> {
        self.try_send_to(buf, to)
    }

    pub(crate) async fn send(&self, buf: &[u8]) -> io::Result<usize> {
        self.try_send(buf)
    }

    /// A receive from the head of the queue (see `Network::udp_poll_recv`).
    fn receive(
        &self,
        waker: Option<&Waker>,
        take: Take,
        copy: impl FnOnce(&[u8]) -> usize,
    ) -> Poll<io::Result<(usize, SocketAddr)>> {
        let binding = self.binding;
        self.sim
            .with_net(|net, _| net.udp_poll_recv(binding, waker, take, copy))
    }

    /// A receive into `buf`, waiting with `cx`'s waker and spending a unit
    /// of budget when it is ready, as the real `poll_*` methods do.
    fn poll_receive(
        &self,
        cx: &mut Context<'_>,
        take: Take,
        buf: &mut [u8],
    ) -> Poll<io::Result<(usize, SocketAddr)>> {
        poll_budgeted(cx, |cx| {
            self.receive(Some(cx.waker()), take, copy_into(buf))
        })
    }

    fn poll_receive_uninit(
        &self,
        cx: &mut Context<'_>,
        take: Take,
        buf: &mut [MaybeUninit<u8>],
    ) -> Poll<io::Result<(usize, SocketAddr)>> {
        poll_budgeted(cx, |cx| {
            self.receive(Some(cx.waker()), take, |bytes| copy_uninit(buf, bytes))
        })
    }

    /// A receive into `buf` without waiting: `WouldBlock` with nothing
    /// queued.
    fn try_receive(&self, take: Take, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        would_block(self.receive(None, take, copy_into(buf)))
    }

    /// The next datagram.
    pub(crate) async fn recv_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        poll_fn(|cx| self.receive(Some(cx.waker()), Take::Consume, copy_into(buf))).await
    }

    pub(crate) async fn recv(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.recv_from(buf).await.map(|(n, _)| n)
    }

    /// The next datagram into the spare capacity of `buf` (feature
    /// `bytes`), as the real `recv_buf_from`.
    #[cfg(feature = "bytes")]
    pub(crate) async fn recv_buf_from<B: bytes::BufMut + ?Sized>(
        &self,
        buf: &mut B,
    ) -> io::Result<(usize, SocketAddr)> {
        poll_fn(|cx| {
            self.receive(Some(cx.waker()), Take::Consume, |bytes| {
                super::endpoint::copy_to_buf(buf, &[bytes])
            })
        })
        .await
    }

    /// As `recv_buf_from`, without waiting.
    #[cfg(feature = "bytes")]
    pub(crate) fn try_recv_buf_from<B: bytes::BufMut + ?Sized>(
        &self,
        buf: &mut B,
    ) -> io::Result<(usize, SocketAddr)> {
        would_block(self.receive(None, Take::Consume, |bytes| {
            super::endpoint::copy_to_buf(buf, &[bytes])
        }))
    }

    pub(crate) async fn peek_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        poll_fn(|cx| self.receive(Some(cx.waker()), Take::Peek, copy_into(buf))).await
    }

    pub(crate) async fn peek(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.peek_from(buf).await.map(|(n, _)| n)
    }

    pub(crate) async fn peek_sender(&self) -> io::Result<SocketAddr> {
        let peeked = self.peek_from(&mut []).await;
        peeked.map(|(_, from)| from)
    }

    pub(crate) fn poll_recv_from(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<(usize, SocketAddr)>> {
        self.poll_receive(cx, Take::Consume, buf)
    }

    pub(crate) fn poll_recv(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.poll_recv_from(cx, buf).map_ok(|(n, _)| n)
    }

    pub(crate) fn poll_peek_from(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<(usize, SocketAddr)>> {
        self.poll_receive(cx, Take::Peek, buf)
    }

    pub(crate) fn poll_peek(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.poll_peek_from(cx, buf).map_ok(|(n, _)| n)
    }

    pub(crate) fn poll_peek_sender(&self, cx: &mut Context<'_>) -> Poll<io::Result<SocketAddr>> {
        self.poll_peek_from(cx, &mut []).map_ok(|(_, from)| from)
    }

    pub(crate) fn poll_recv_from_uninit(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [MaybeUninit<u8>],
    ) -> Poll<io::Result<(usize, SocketAddr)>> {
        self.poll_receive_uninit(cx, Take::Consume, buf)
    }

    pub(crate) fn poll_recv_uninit(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [MaybeUninit<u8>],
    ) -> Poll<io::Result<usize>> {
        self.poll_recv_from_uninit(cx, buf).map_ok(|(n, _)| n)
    }

    pub(crate) fn poll_peek_from_uninit(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [MaybeUninit<u8>],
    ) -> Poll<io::Result<(usize, SocketAddr)>> {
        self.poll_receive_uninit(cx, Take::Peek, buf)
    }

    pub(crate) fn poll_peek_uninit(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [MaybeUninit<u8>],
    ) -> Poll<io::Result<usize>> {
        self.poll_peek_from_uninit(cx, buf).map_ok(|(n, _)| n)
    }

    pub(crate) fn try_recv_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        self.try_receive(Take::Consume, buf)
    }

    pub(crate) fn try_recv(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.try_recv_from(buf).map(|(n, _)| n)
    }

    pub(crate) fn try_peek_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        self.try_receive(Take::Peek, buf)
    }

    pub(crate) fn try_peek(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.try_peek_from(buf).map(|(n, _)| n)
    }

    pub(crate) fn try_peek_sender(&self) -> io::Result<SocketAddr> {
        self.try_peek_from(&mut []).map(|(_, from)| from)
    }

    /// A send to `to`, or to the peer (`None`). It never waits: a
    /// simulated socket's send buffer never fills.
    fn send_now(&self, buf: &[u8], to: Option<SocketAddr>) -> io::Result<usize> {
        let binding = self.binding;
        self.sim
            .with_net(|net, now| net.udp_send_to(binding, to, buf, now))
    }

    pub(crate) fn try_send_to(&self, buf: &[u8], to: SocketAddr) -> io::Result<usize> {
        self.send_now(buf, Some(to))
    }

    /// To the peer: Linux's `EDESTADDRREQ` without one.
    pub(crate) fn try_send(&self, buf: &[u8]) -> io::Result<usize> {
        self.send_now(buf, None)
    }

    /// A send, spending a unit of budget as the real `poll_send_to`.
    pub(crate) fn poll_send_to(
        &self,
        cx: &mut Context<'_>,
        buf: &[u8],
        to: SocketAddr,
    ) -> Poll<io::Result<usize>> {
        poll_budgeted(cx, |_| Poll::Ready(self.try_send_to(buf, to)))
    }

    pub(crate) fn poll_send(&self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        poll_budgeted(cx, |_| Poll::Ready(self.try_send(buf)))
    }
}

impl SimReadiness for SimUdp {
    fn readiness(&self, mask: Ready, waker: Option<&Waker>) -> Poll<Ready> {
        let binding = self.binding;
        self.sim
            .with_net(|net, _| net.udp_poll_ready(binding, mask, waker))
    }
}

/// Copies what fits of a datagram into `buf` (the rest is lost, as a
/// real socket truncates it); says how many bytes.
fn copy_into(buf: &mut [u8]) -> impl FnOnce(&[u8]) -> usize + '_ {
    |bytes| {
        let n = buf.len().min(bytes.len());
        buf[..n].copy_from_slice(&bytes[..n]);
        n
    }
}

impl Drop for SimUdp {
    fn drop(&mut self) {
        let binding = self.binding;
        self.sim.with_net(|net, _| net.udp_close(binding));
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
