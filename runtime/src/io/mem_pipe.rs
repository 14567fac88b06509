//! `MemPipe`: one direction of an in-memory byte stream, shared by
//! [`duplex`](super::duplex) (two of them, crossed) and
//! [`simplex`](super::simplex) (one).
//!
//! A byte queue of at most `max` bytes behind a mutex, the waker of a
//! reader waiting for bytes and the waker of a writer waiting for room.
//! Wakers are taken out under the lock and woken (or dropped, when one
//! replaces another) after it is released, since a waker may run
//! arbitrary code. Every ready read or write spends one unit of the task's
//! cooperative budget, as a socket's does.

use crate::loom::sync::{Mutex, MutexGuard};
use crate::task::poll_proceed;
use std::collections::VecDeque;
use std::io;
use std::task::{Context, Poll, Waker, ready};

/// One direction: the bytes in flight and who waits on them.
#[derive(Debug)]
pub(super) struct MemPipe {
    bytes: VecDeque<u8>,
    max: usize,
    /// The writer shut down or was dropped: end-of-file after the
    /// buffered bytes.
    write_closed: bool,
    /// The reader was dropped: writes fail.
    read_closed: bool,
    reader: Option<Waker>,
    writer: Option<Waker>,
}

impl MemPipe {
    pub(super) fn new(max: usize) -> Mutex<MemPipe> {
        Mutex::new(MemPipe {
            bytes: VecDeque::new(),
            max,
            write_closed: false,
            read_closed: false,
            reader: None,
            writer: None,
        })
    }
}

fn lock(pipe: &Mutex<MemPipe>) -> MutexGuard<'_, MemPipe> {
    pipe.lock().unwrap_or_else(|e| e.into_inner())
}

/// Releases the lock, then wakes `waker` (if any): a waker may run
/// arbitrary code, which must not run under the pipe's lock.
fn unlock_and_wake(pipe: MutexGuard<'_, MemPipe>, waker: Option<Waker>) {
    drop(pipe);
    if let Some(waker) = waker {
        waker.wake();
    }
}

/// Stores `cx`'s waker in `slot` unless an equivalent one is there;
/// returns the one it replaced, to be dropped after the lock is released.
fn register(slot: &mut Option<Waker>, cx: &Context<'_>) -> Option<Waker> {
    match slot {
        Some(waker) if waker.will_wake(cx.waker()) => None,
        _ => slot.replace(cx.waker().clone()),
    }
}

/// Reads what is buffered into `buf`, which may be uninitialised (the
/// bytes are copied in, nothing is zeroed first); `Ok(0)` once the writer
/// closed and everything was read.
pub(super) fn poll_read(
    pipe: &Mutex<MemPipe>,
    cx: &mut Context<'_>,
    buf: &mut [std::mem::MaybeUninit<u8>],
) -> Poll<io::Result<usize>> {
    if buf.is_empty() {
        return Poll::Ready(Ok(0));
    }
    let coop = ready!(poll_proceed(cx));
    let mut pipe = lock(pipe);
    if pipe.bytes.is_empty() {
        if pipe.write_closed {
            coop.made_progress();
            return Poll::Ready(Ok(0));
        }
        let replaced = register(&mut pipe.reader, cx);
        drop(pipe);
        drop(replaced);
        return Poll::Pending;
    }
    let n = buf.len().min(pipe.bytes.len());
    let (front, back) = pipe.bytes.as_slices();
    let from_front = n.min(front.len());
    buf[..from_front].copy_from_slice(as_uninit(&front[..from_front]));
    buf[from_front..n].copy_from_slice(as_uninit(&back[..n - from_front]));
    pipe.bytes.drain(..n);
    let writer = pipe.writer.take();
    unlock_and_wake(pipe, writer);
    coop.made_progress();
    Poll::Ready(Ok(n))
}

/// Initialised bytes seen as memory that may be uninitialised, the type a
/// copy into uninitialised memory takes.
fn as_uninit(bytes: &[u8]) -> &[std::mem::MaybeUninit<u8>] {
    // SAFETY: `MaybeUninit<u8>` has `u8`'s layout, and a shared slice
    // cannot be used to de-initialise anything.
    unsafe { &*(std::ptr::from_ref::<[u8]>(bytes) as *const [std::mem::MaybeUninit<u8>]) }
}

/// Buffers as much of `buf` as there is room for; waits while the pipe is
/// full. `BrokenPipe` once either side closed: the message says why
/// (`reader_gone` if the reader was dropped, `shut_down` if this writer
/// was shut down).
pub(super) fn poll_write(
    pipe: &Mutex<MemPipe>,
    cx: &mut Context<'_>,
    buf: &[u8],
    reader_gone: &'static str,
    shut_down: &'static str,
) -> Poll<io::Result<usize>> {
    let coop = ready!(poll_proceed(cx));
    let mut pipe = lock(pipe);
    if pipe.read_closed || pipe.write_closed {
        coop.made_progress();
        let why = if pipe.read_closed {
            reader_gone
        } else {
            shut_down
        };
        return Poll::Ready(Err(io::Error::new(io::ErrorKind::BrokenPipe, why)));
    }
    if buf.is_empty() {
        return Poll::Ready(Ok(0));
    }
    let room = pipe.max - pipe.bytes.len();
    if room == 0 {
        let replaced = register(&mut pipe.writer, cx);
        drop(pipe);
        drop(replaced);
        return Poll::Pending;
    }
    let n = room.min(buf.len());
    pipe.bytes.extend(&buf[..n]);
    let reader = pipe.reader.take();
    unlock_and_wake(pipe, reader);
    coop.made_progress();
    Poll::Ready(Ok(n))
}

/// End-of-file for the reader, once it has read what is there.
pub(super) fn close_write(pipe: &Mutex<MemPipe>) {
    let mut pipe = lock(pipe);
    pipe.write_closed = true;
    let reader = pipe.reader.take();
    unlock_and_wake(pipe, reader);
}

/// The reader is gone: the bytes are dropped and writes fail.
pub(super) fn close_read(pipe: &Mutex<MemPipe>) {
    let mut pipe = lock(pipe);
    pipe.read_closed = true;
    pipe.bytes = VecDeque::new();
    let writer = pipe.writer.take();
    unlock_and_wake(pipe, writer);
}
