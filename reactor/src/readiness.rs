//! The readiness cell of one registration: ready bits, a tick, a shutdown
//! flag (one atomic word) and the read and write wakers (under a lock).
//!
//! Word layout: bits 0..6 the [`Ready`] set, bit 6 `SHUTDOWN`, bits 8..16
//! the tick. The protocol (see the crate docs) is:
//! - the driver ORs new readiness in and bumps the tick (`set_ready`), then
//!   takes the lock and collects the wakers of the directions it affects;
//! - a waiter reads the word; if its direction is not ready it stores its
//!   waker under the lock and reads the word again before giving up;
//! - a clear (`clear_ready`) only removes bits if the tick still matches the
//!   one the caller observed.

use crate::loom::{AtomicUsize, Mutex, Ordering};
use crate::ready::{Direction, Ready, ReadyEvent};
use std::io;
use std::task::{Context, Poll, Waker};

const READY_MASK: usize = 0b11_1111;
const SHUTDOWN: usize = 1 << 6;
const TICK_SHIFT: usize = 8;
const TICK_MASK: usize = 0xff << TICK_SHIFT;

/// Readiness states that stay set once seen: a closed side never reopens.
const STICKY: Ready = Ready::from_bits(Ready::READ_CLOSED.bits() | Ready::WRITE_CLOSED.bits());

#[derive(Debug)]
pub(crate) struct ReadinessCell {
    word: AtomicUsize,
    waiters: Mutex<Waiters>,
    /// Which owner of the slab slot this is (see `driver::Token`).
    pub(crate) generation: usize,
}

#[derive(Debug, Default)]
struct Waiters {
    reader: Option<Waker>,
    writer: Option<Waker>,
}

impl Waiters {
    fn slot(&mut self, direction: Direction) -> &mut Option<Waker> {
        match direction {
            Direction::Read => &mut self.reader,
            Direction::Write => &mut self.writer,
        }
    }
}

fn ready_of(word: usize) -> Ready {
    Ready::from_bits((word & READY_MASK) as u8)
}

fn tick_of(word: usize) -> u8 {
    ((word & TICK_MASK) >> TICK_SHIFT) as u8
}

pub(crate) fn shutdown_error() -> io::Error {
    io::Error::other("the I/O driver has shut down (the runtime is shutting down)")
}

impl ReadinessCell {
    pub(crate) fn new(generation: usize) -> ReadinessCell {
        ReadinessCell {
            word: AtomicUsize::new(0),
            waiters: Mutex::new(Waiters::default()),
            generation,
        }
    }

    /// Records an event (step 1 of the driver side) and pushes the wakers
    /// it releases onto `wake`.
    pub(crate) fn set_ready(&self, ready: Ready, wake: &mut Vec<Waker>) {
        let mut current = self.word.load(Ordering::Acquire);
        loop {
            let tick = tick_of(current).wrapping_add(1) as usize;
            let next = (current & !TICK_MASK)
                | (tick << TICK_SHIFT)
                | (ready.bits() as usize & READY_MASK);
            match self.word.compare_exchange_weak(
                current,
                next,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => break,
                Err(actual) => current = actual,
            }
        }
        self.take_wakers(ready, wake);
    }

    /// Marks the cell shut down and releases both wakers.
    pub(crate) fn shutdown(&self, wake: &mut Vec<Waker>) {
        self.word.fetch_or(SHUTDOWN, Ordering::AcqRel);
        self.take_wakers(Ready::ALL, wake);
    }

    fn take_wakers(&self, ready: Ready, wake: &mut Vec<Waker>) {
        let mut waiters = self.waiters.lock().unwrap();
        for direction in [Direction::Read, Direction::Write] {
            if !(ready & direction.mask()).is_empty() {
                if let Some(waker) = waiters.slot(direction).take() {
                    wake.push(waker);
                }
            }
        }
    }

    pub(crate) fn check(&self, direction: Direction) -> Option<io::Result<ReadyEvent>> {
        let word = self.word.load(Ordering::Acquire);
        if word & SHUTDOWN != 0 {
            return Some(Err(shutdown_error()));
        }
        let ready = ready_of(word) & direction.mask();
        if ready.is_empty() {
            None
        } else {
            Some(Ok(ReadyEvent {
                ready,
                tick: tick_of(word),
            }))
        }
    }

    pub(crate) fn poll_ready(
        &self,
        cx: &mut Context<'_>,
        direction: Direction,
    ) -> Poll<io::Result<ReadyEvent>> {
        if let Some(result) = self.check(direction) {
            return Poll::Ready(result);
        }
        let mut waiters = self.waiters.lock().unwrap();
        let slot = waiters.slot(direction);
        match slot {
            Some(waker) if waker.will_wake(cx.waker()) => {}
            _ => *slot = Some(cx.waker().clone()),
        }
        // Step 3: an event that landed before we took the lock is visible
        // now; one that lands after will find the waker.
        match self.check(direction) {
            Some(result) => {
                waiters.slot(direction).take();
                Poll::Ready(result)
            }
            None => Poll::Pending,
        }
    }

    /// Clears `event.ready` unless a newer event arrived since it was seen.
    pub(crate) fn clear_ready(&self, event: ReadyEvent) {
        let clear = event.ready - STICKY;
        let mut current = self.word.load(Ordering::Acquire);
        loop {
            if tick_of(current) != event.tick {
                return;
            }
            let next = current & !(clear.bits() as usize);
            match self.word.compare_exchange_weak(
                current,
                next,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => return,
                Err(actual) => current = actual,
            }
        }
    }

    pub(crate) fn readiness(&self) -> Ready {
        ready_of(self.word.load(Ordering::Acquire))
    }
}

#[cfg(all(test, loom))]
mod loom_model {
    use super::*;
    use loom::sync::Arc;
    use loom::sync::atomic::AtomicBool;
    use std::task::Wake;

    struct Flag(AtomicBool);

    impl Wake for Flag {
        fn wake(self: std::sync::Arc<Self>) {
            self.0.store(true, Ordering::SeqCst);
        }
    }

    /// A reader consumes a readiness edge (poll, `WouldBlock`, clear) and
    /// re-arms while the driver delivers a second edge: the second edge is
    /// never lost, and the reader either sees it or is woken.
    #[test]
    fn loom_tick_vs_clear_no_lost_wakeup() {
        loom::model(|| {
            let cell = Arc::new(ReadinessCell::new(0));
            let mut wake = Vec::new();
            cell.set_ready(Ready::READABLE, &mut wake);
            assert!(wake.is_empty());

            let driver = {
                let cell = cell.clone();
                loom::thread::spawn(move || {
                    let mut wake = Vec::new();
                    cell.set_ready(Ready::READABLE, &mut wake);
                    wake.into_iter().for_each(Waker::wake);
                })
            };

            let flag = std::sync::Arc::new(Flag(AtomicBool::new(false)));
            let waker = Waker::from(flag.clone());
            let mut cx = Context::from_waker(&waker);
            let first = match cell.poll_ready(&mut cx, Direction::Read) {
                Poll::Ready(event) => event.unwrap(),
                Poll::Pending => panic!("the first edge was set before the reader started"),
            };
            // The syscall said WouldBlock.
            cell.clear_ready(first);
            let saw_second = cell.poll_ready(&mut cx, Direction::Read).is_ready();
            driver.join().unwrap();

            assert!(cell.readiness().is_readable(), "the second edge was lost");
            assert!(
                saw_second || flag.0.load(Ordering::SeqCst),
                "the reader was neither ready nor woken"
            );
        });
    }

    /// Shutdown racing with a waiter: the waiter sees the error or is woken.
    #[test]
    fn loom_shutdown_wakes_waiter() {
        loom::model(|| {
            let cell = Arc::new(ReadinessCell::new(0));
            let driver = {
                let cell = cell.clone();
                loom::thread::spawn(move || {
                    let mut wake = Vec::new();
                    cell.shutdown(&mut wake);
                    wake.into_iter().for_each(Waker::wake);
                })
            };
            let flag = std::sync::Arc::new(Flag(AtomicBool::new(false)));
            let waker = Waker::from(flag.clone());
            let mut cx = Context::from_waker(&waker);
            let result = cell.poll_ready(&mut cx, Direction::Write);
            driver.join().unwrap();
            match result {
                Poll::Ready(result) => assert!(result.is_err()),
                Poll::Pending => assert!(flag.0.load(Ordering::SeqCst)),
            }
        });
    }
}
