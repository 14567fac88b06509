//! What the simulated sockets (`socket.rs`'s UDP socket, `tcp_socket.rs`'s
//! stream) share: waiting for readiness the way the real registration
//! does, the answer of a `try_*` call that would wait, and copies into
//! uninitialised buffers.
//!
//! Readiness spends the cooperative budget as on a real socket: one unit
//! per ready `poll_ready`, none for the readiness futures (`ready`,
//! `readable`, `writable`).

use crate::io::registered::poll_budgeted;
use rt_reactor::{Direction, Interest, Ready};
use std::future::poll_fn;
use std::io;
use std::mem::MaybeUninit;
use std::task::{Context, Poll, Waker};

/// A simulated socket whose readiness the network answers.
pub(crate) trait SimReadiness {
    /// The readiness within `mask`, waiting for it with `waker` (if any).
    fn readiness(&self, mask: Ready, waker: Option<&Waker>) -> Poll<Ready>;

    /// Waits for readiness in `direction`, spending budget: the `poll_*`
    /// methods.
    fn poll_ready(&self, cx: &mut Context<'_>, direction: Direction) -> Poll<io::Result<()>> {
        poll_budgeted(cx, |cx| {
            self.readiness(direction.mask(), Some(cx.waker()))
                .map(|_| Ok(()))
        })
    }

    /// Waits for readiness in `direction`, spending no budget.
    async fn ready(&self, direction: Direction) -> io::Result<()> {
        poll_fn(|cx| self.readiness(direction.mask(), Some(cx.waker()))).await;
        Ok(())
    }

    /// Waits for the readiness of `interest`, spending no budget.
    async fn ready_for(&self, interest: Interest) -> io::Result<Ready> {
        Ok(poll_fn(|cx| self.readiness(interest.mask(), Some(cx.waker()))).await)
    }
}

/// A `try_*` call's answer: what the network answered, or `WouldBlock`
/// where a poll would wait (the network never waits without a waker).
pub(crate) fn would_block<T>(polled: Poll<io::Result<T>>) -> io::Result<T> {
    match polled {
        Poll::Ready(result) => result,
        Poll::Pending => Err(io::ErrorKind::WouldBlock.into()),
    }
}

/// Copies what fits of `bytes` into `dst`; returns how many.
pub(crate) fn copy_uninit<'a>(
    dst: &mut [MaybeUninit<u8>],
    bytes: impl IntoIterator<Item = &'a u8>,
) -> usize {
    let mut n = 0;
    for (slot, &byte) in dst.iter_mut().zip(bytes) {
        slot.write(byte);
        n += 1;
    }
    n
}

/// Copies what fits of `bytes` into the spare chunk of `buf` (a full `Vec`
/// or `BytesMut` grows first, as `chunk_mut` does) and advances `buf`
/// past it, as the real `bytes` receives do; returns how many.
#[cfg(feature = "bytes")]
pub(crate) fn copy_to_buf<B: bytes::BufMut + ?Sized>(buf: &mut B, bytes: &[&[u8]]) -> usize {
    let room = buf.chunk_mut().len();
    let mut n = 0;
    for part in bytes {
        let take = part.len().min(room - n);
        buf.put_slice(&part[..take]);
        n += take;
    }
    n
}
