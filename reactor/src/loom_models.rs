//! Loom models of the readiness cell and its waiter lists: the protocol
//! of the crate docs' "No lost wake-ups" against edges, clears, shutdown
//! and waiters coming and going.

use crate::cell::{ReadinessCell, Slot};
use crate::ready::{Direction, Interest, Ready};
use crate::waiter::ReadyWaiter;
use loom::sync::Arc;
use loom::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll, Wake, Waker};

/// Counts its wakes (a loom atomic, so the model sees the accesses).
struct WakeCount(AtomicUsize);

impl Wake for WakeCount {
    fn wake(self: std::sync::Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

impl WakeCount {
    fn new() -> (std::sync::Arc<WakeCount>, Waker) {
        let count = std::sync::Arc::new(WakeCount(AtomicUsize::new(0)));
        (count.clone(), Waker::from(count))
    }

    fn woken(&self) -> bool {
        self.0.load(Ordering::SeqCst) > 0
    }
}

/// The driver delivering `ready` to `cell` on a thread of its own.
fn spawn_delivery(cell: &Arc<ReadinessCell>, ready: Ready) -> loom::thread::JoinHandle<()> {
    let cell = cell.clone();
    loom::thread::spawn(move || cell.deliver(ready))
}

/// A reader consumes a readiness edge (poll, `WouldBlock`, clear) and
/// re-arms while the driver delivers a second edge: the second edge is
/// never lost, and the reader either sees it or is woken.
#[test]
fn loom_tick_vs_clear_no_lost_wakeup() {
    loom::model(|| {
        let cell = Arc::new(ReadinessCell::new());
        let mut wake = Vec::new();
        cell.set_ready(0, Ready::READABLE, &mut wake);
        assert!(wake.is_empty());

        let driver = spawn_delivery(&cell, Ready::READABLE);

        let (count, waker) = WakeCount::new();
        let mut cx = Context::from_waker(&waker);
        let first = match cell.poll_ready(
            &mut cx,
            Direction::Read.mask(),
            Slot::Shared(Direction::Read),
        ) {
            Poll::Ready(event) => event.unwrap(),
            Poll::Pending => panic!("the first edge was set before the reader started"),
        };
        // The syscall said WouldBlock.
        cell.clear_ready(first);
        let saw_second = cell
            .poll_ready(
                &mut cx,
                Direction::Read.mask(),
                Slot::Shared(Direction::Read),
            )
            .is_ready();
        driver.join().unwrap();

        assert!(cell.readiness().is_readable(), "the second edge was lost");
        assert!(
            saw_second || count.woken(),
            "the reader was neither ready nor woken"
        );
    });
}

/// Shutdown racing with a waiter: the waiter sees the error or is woken.
#[test]
fn loom_shutdown_wakes_waiter() {
    loom::model(|| {
        let cell = Arc::new(ReadinessCell::new());
        let driver = {
            let cell = cell.clone();
            loom::thread::spawn(move || {
                let mut wake = Vec::new();
                cell.shutdown(&mut wake);
                wake.into_iter().for_each(Waker::wake);
            })
        };
        let (count, waker) = WakeCount::new();
        let mut cx = Context::from_waker(&waker);
        let mut waiter = ReadyWaiter::new(&cell, Direction::Write.mask());
        let result = waiter.poll_ready(&mut cx);
        driver.join().unwrap();
        match result {
            Poll::Ready(result) => assert!(result.is_err()),
            Poll::Pending => assert!(count.woken()),
        }
    });
}

/// Two waiters in one direction, a readiness event, and one of the two
/// dropped while the event lands: the remaining waiter sees the readiness
/// or is woken, and the dropped one leaves no place behind (whether the
/// driver took its waker first or not).
#[test]
fn loom_two_waiters_an_event_and_a_drop() {
    loom::model(|| {
        let cell = Arc::new(ReadinessCell::new());
        let driver = spawn_delivery(&cell, Ready::READABLE);
        let leaver = {
            let cell = cell.clone();
            loom::thread::spawn(move || {
                let (_, waker) = WakeCount::new();
                let mut waiter = ReadyWaiter::new(&cell, Direction::Read.mask());
                let _ = waiter.poll_ready(&mut Context::from_waker(&waker));
                drop(waiter);
            })
        };
        let (count, waker) = WakeCount::new();
        let mut waiter = ReadyWaiter::new(&cell, Direction::Read.mask());
        let saw = waiter
            .poll_ready(&mut Context::from_waker(&waker))
            .is_ready();
        driver.join().unwrap();
        leaver.join().unwrap();
        assert!(
            saw || count.woken(),
            "the remaining waiter was neither ready nor woken"
        );
        assert!(cell.waiter_places(Direction::Read) <= 1);
        drop(waiter);
        assert_eq!(cell.waiter_places(Direction::Read), 0);
        assert_eq!(cell.stored_wakers(Direction::Read), 0);
    });
}

/// Two waiters in one direction on two threads, and an event: each one
/// sees the readiness or is woken (the second never overwrites the first).
#[test]
fn loom_two_waiters_both_woken() {
    loom::model(|| {
        let cell = Arc::new(ReadinessCell::new());
        let driver = spawn_delivery(&cell, Ready::WRITABLE);
        let other = {
            let cell = cell.clone();
            loom::thread::spawn(move || {
                let (count, waker) = WakeCount::new();
                let mut waiter = ReadyWaiter::new(&cell, Direction::Write.mask());
                let saw = waiter
                    .poll_ready(&mut Context::from_waker(&waker))
                    .is_ready();
                // Still waiting (not dropped) when the event lands.
                driver.join().unwrap();
                (saw, count)
            })
        };
        let (count, waker) = WakeCount::new();
        let mut waiter = ReadyWaiter::new(&cell, Direction::Write.mask());
        let saw = waiter
            .poll_ready(&mut Context::from_waker(&waker))
            .is_ready();
        let (other_saw, other_count) = other.join().unwrap();
        assert!(saw || count.woken(), "the first waiter was lost");
        assert!(
            other_saw || other_count.woken(),
            "the second waiter was lost"
        );
    });
}

/// A waiter for reading or writing (one place in each list) while the
/// driver delivers a write edge and then a read edge on another thread:
/// the waiter sees a state it waits for or is woken, and its drop leaves
/// no place or waker in either list.
#[test]
fn loom_interest_waiter_in_two_lists() {
    loom::model(|| {
        let cell = Arc::new(ReadinessCell::new());
        let driver = {
            let cell = cell.clone();
            loom::thread::spawn(move || {
                cell.deliver(Ready::WRITABLE);
                cell.deliver(Ready::READABLE);
            })
        };
        let (count, waker) = WakeCount::new();
        let mut waiter = ReadyWaiter::new(&cell, (Interest::READABLE | Interest::WRITABLE).mask());
        let saw = waiter
            .poll_ready(&mut Context::from_waker(&waker))
            .is_ready();
        driver.join().unwrap();
        assert!(
            saw || count.woken(),
            "the waiter was neither ready nor woken"
        );
        drop(waiter);
        for direction in [Direction::Read, Direction::Write] {
            assert_eq!(cell.waiter_places(direction), 0);
            assert_eq!(cell.stored_wakers(direction), 0);
        }
    });
}

/// A registration that starts with readiness assumed (an accepted socket):
/// its first operation finds nothing and clears the assumption while the
/// poller's first real edge lands on the driver's thread. The real edge is
/// never lost: the reader sees it or is woken, and it stays recorded.
#[test]
fn loom_assumed_readiness_vs_the_first_event() {
    loom::model(|| {
        let cell = Arc::new(ReadinessCell::new());
        let generation = cell.reset(Ready::READABLE | Ready::WRITABLE);
        let driver = {
            let cell = cell.clone();
            loom::thread::spawn(move || {
                let mut wake = Vec::new();
                assert!(cell.set_ready(generation, Ready::READABLE, &mut wake));
                wake.into_iter().for_each(Waker::wake);
            })
        };
        let (count, waker) = WakeCount::new();
        let mut cx = Context::from_waker(&waker);
        let mut waiter = ReadyWaiter::new(&cell, Direction::Read.mask());
        let assumed = match waiter.poll_ready(&mut cx) {
            Poll::Ready(event) => event.unwrap(),
            Poll::Pending => panic!("the assumed readiness was not there"),
        };
        // The read said WouldBlock.
        cell.clear_ready(assumed);
        let saw_edge = waiter.poll_ready(&mut cx).is_ready();
        driver.join().unwrap();
        assert!(cell.readiness().is_readable(), "the first edge was lost");
        assert!(
            saw_edge || count.woken(),
            "the reader was neither ready nor woken"
        );
        assert!(
            cell.readiness().is_writable(),
            "a read's clear took the assumed writability"
        );
    });
}

/// A cell handed to a new owner with readiness assumed while a late event
/// for its previous owner is still being dispatched: the new owner starts
/// with exactly the assumed readiness (the late event neither adds to it
/// nor bumps its tick), and nothing is woken.
#[test]
fn loom_assumed_readiness_vs_a_late_event_for_the_previous_owner() {
    loom::model(|| {
        let cell = Arc::new(ReadinessCell::new());
        let old = cell.reset(Ready::EMPTY);
        let late = {
            let cell = cell.clone();
            loom::thread::spawn(move || {
                let mut wake = Vec::new();
                cell.set_ready(old, Ready::READABLE | Ready::ERROR, &mut wake);
                assert!(wake.is_empty(), "no waiter was there to wake");
            })
        };
        cell.reset(Ready::WRITABLE);
        late.join().unwrap();
        let event = cell
            .check(Ready::ALL)
            .expect("the assumed readiness is recorded")
            .unwrap();
        assert_eq!(event.ready(), Ready::WRITABLE, "the late event leaked in");
        assert_eq!(event.tick, 0, "the late event bumped the new owner's tick");
    });
}
