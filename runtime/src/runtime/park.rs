//! Blocking a plain thread on a future: a parker whose waker unparks it,
//! and `ParkState`, the sticky notification both it and the multi-thread
//! scheduler's worker parker are built on.
//!
//! `ThreadParker` is used by `Handle::block_on` on the multi-thread
//! runtime (the calling thread is not a worker; it just waits) and by the
//! current-thread scheduler while another thread holds its core.
//!
//! The state is one atomic, `EMPTY`, `NOTIFIED`, `PARKED_CONDVAR` or
//! `PARKED_ELSEWHERE`, plus a mutex and condvar for the sleep itself:
//! 1. `unpark` swaps the state to `NOTIFIED`; only if it was
//!    `PARKED_CONDVAR` does it take the mutex (so it cannot slip between
//!    the sleeper's last check and its wait) and signal the condvar. A
//!    wake-up with nobody asleep, such as a future waking itself when its
//!    cooperative budget runs out, is one atomic swap, not a lock and a
//!    futex call. If it was `PARKED_ELSEWHERE` the owner wakes its thread
//!    by its own means (a worker blocked in the driver);
//! 2. `park` first consumes a `NOTIFIED` state if there is one;
//! 3. otherwise `ThreadParker` spins for a while if its recent sleeps were
//!    short (see `scheduler::idle_spin`; a wake-up then costs neither side
//!    a system call), checking for `NOTIFIED`;
//! 4. otherwise, under the mutex, it moves `EMPTY` to `PARKED_CONDVAR`
//!    (failing only if a notification arrived: it consumes it and
//!    returns) and waits on the condvar until the state is `NOTIFIED`,
//!    which it resets to `EMPTY`. Blocking elsewhere is the same with
//!    `PARKED_ELSEWHERE`, minus the mutex: the owner's own wake-up (the
//!    driver's) is sticky.

use crate::loom::sync::atomic::{AtomicUsize, Ordering};
use crate::loom::sync::{Arc, Condvar, Mutex};
use crate::runtime::arc_waker::{ArcWake, arc_waker};
use crate::runtime::block_on_calls::{BlockOnCall, FutureWaker};
use crate::scheduler::idle_spin::IdleSpin;
use std::future::Future;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

const EMPTY: usize = 0;
const NOTIFIED: usize = 1;
const PARKED_CONDVAR: usize = 2;
const PARKED_ELSEWHERE: usize = 3;

/// A sticky notification and a condvar to sleep on until it comes; see
/// the module docs for the protocol.
#[derive(Debug)]
pub(crate) struct ParkState {
    state: AtomicUsize,
    lock: Mutex<()>,
    condvar: Condvar,
}

/// What `ParkState::unpark` found.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Unparked {
    /// Nothing more to do: nobody was asleep, or the condvar was signalled.
    Done,
    /// The thread blocks elsewhere (`enter_elsewhere`): the caller must
    /// wake it there.
    Elsewhere,
}

impl ParkState {
    pub(crate) fn new() -> ParkState {
        ParkState {
            state: AtomicUsize::new(EMPTY),
            lock: Mutex::new(()),
            condvar: Condvar::new(),
        }
    }

    /// Whether a notification is pending (step 1 stored it, no park has
    /// consumed it yet).
    pub(crate) fn is_notified(&self) -> bool {
        self.state.load(Ordering::SeqCst) == NOTIFIED
    }

    /// Step 2: consumes a pending notification, if any.
    pub(crate) fn take_notification(&self) -> bool {
        self.state
            .compare_exchange(NOTIFIED, EMPTY, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    }

    /// Step 4: sleeps on the condvar until notified (returns at once if a
    /// notification is pending, consuming it).
    pub(crate) fn sleep(&self) {
        let mut guard = self.lock.lock().unwrap();
        match self
            .state
            .compare_exchange(EMPTY, PARKED_CONDVAR, Ordering::SeqCst, Ordering::SeqCst)
        {
            Ok(_) => {}
            Err(NOTIFIED) => {
                self.state.store(EMPTY, Ordering::SeqCst);
                return;
            }
            Err(actual) => panic!("rt: inconsistent park state {actual}"),
        }
        loop {
            guard = self.condvar.wait(guard).unwrap();
            if self.take_notification() {
                return;
            }
            // A spurious wake-up: still `PARKED_CONDVAR`.
        }
    }

    /// Announces that the thread is about to block elsewhere, woken by
    /// its owner's own means when `unpark` returns `Elsewhere`. `false` if
    /// a notification came first (consumed): do not block.
    pub(crate) fn enter_elsewhere(&self) -> bool {
        match self.state.compare_exchange(
            EMPTY,
            PARKED_ELSEWHERE,
            Ordering::SeqCst,
            Ordering::SeqCst,
        ) {
            Ok(_) => true,
            Err(NOTIFIED) => {
                self.state.store(EMPTY, Ordering::SeqCst);
                false
            }
            Err(actual) => panic!("rt: inconsistent park state {actual}"),
        }
    }

    /// The thread is back from blocking elsewhere; a notification that
    /// woke it (or landed meanwhile) is consumed.
    pub(crate) fn leave_elsewhere(&self) {
        match self.state.swap(EMPTY, Ordering::SeqCst) {
            NOTIFIED | PARKED_ELSEWHERE => {}
            actual => panic!("rt: inconsistent park state {actual}"),
        }
    }

    /// Step 1.
    pub(crate) fn unpark(&self) -> Unparked {
        match self.state.swap(NOTIFIED, Ordering::SeqCst) {
            EMPTY | NOTIFIED => Unparked::Done,
            PARKED_CONDVAR => {
                // The sleeper is waiting on the condvar, or about to: taking
                // the lock waits until it is inside `wait`.
                drop(self.lock.lock().unwrap());
                self.condvar.notify_one();
                Unparked::Done
            }
            PARKED_ELSEWHERE => Unparked::Elsewhere,
            actual => panic!("rt: inconsistent park state {actual}"),
        }
    }
}

#[derive(Debug)]
pub(crate) struct ThreadParker {
    state: Arc<ThreadState>,
    /// Off (max zero) unless `block_on` is given a spin.
    spin: IdleSpin,
    /// `block_on` calls in progress on this parker: more than one when a
    /// `block_in_place` closure calls `block_on` again on the thread's
    /// shared parker, whose parks may consume the outer call's wakes.
    depth: std::cell::Cell<usize>,
}

/// What the parker's wakers point to.
#[derive(Debug)]
struct ThreadState(ParkState);

impl ArcWake for ThreadState {
    fn wake_by_ref(&self) {
        let unparked = self.0.unpark();
        debug_assert_eq!(
            unparked,
            Unparked::Done,
            "a thread parker only sleeps on its condvar"
        );
    }
}

impl ThreadParker {
    pub(crate) fn new() -> ThreadParker {
        ThreadParker {
            state: Arc::new(ThreadState(ParkState::new())),
            spin: IdleSpin::new(Duration::ZERO),
            depth: std::cell::Cell::new(0),
        }
    }

    /// Blocks until the waker is woken (returns at once if it already was
    /// since the last park).
    pub(crate) fn park(&self) {
        let state = &self.state.0;
        // Step 2.
        if state.take_notification() {
            return;
        }
        // Step 3.
        if self
            .spin
            .spin(|| state.take_notification().then_some(()))
            .is_some()
        {
            return;
        }
        let asleep_since = self.spin.sleep_starts();
        state.sleep();
        self.spin.slept(asleep_since);
    }

    pub(crate) fn waker(&self) -> Waker {
        arc_waker(self.state.clone())
    }

    /// Whether a wake is pending for the next `park`.
    pub(crate) fn is_notified(&self) -> bool {
        self.state.0.is_notified()
    }

    /// Polls `future` on this thread until it completes, sleeping between
    /// wake-ups, after spinning for up to `spin_before_park` if recent
    /// sleeps were that short; the polls are counted in `call`, if given
    /// (the watchdog watches it, and the future's waker: `FutureWaker`).
    pub(crate) fn block_on<F: Future>(
        &self,
        future: F,
        spin_before_park: Duration,
        call: Option<&Arc<BlockOnCall>>,
    ) -> F::Output {
        self.spin.set_max(spin_before_park);
        // A nested call's parks may have consumed a wake of the outer
        // call's future (same parker): when it ends, even by a panic, the
        // outer call is woken, so it polls again (at worst spuriously).
        struct Nested<'a>(&'a ThreadParker, bool);
        impl Drop for Nested<'_> {
            fn drop(&mut self) {
                self.0.depth.set(self.0.depth.get() - 1);
                if self.1 {
                    self.0.state.wake_by_ref();
                }
            }
        }
        let depth = self.depth.get();
        self.depth.set(depth + 1);
        let _nested = Nested(self, depth > 0);
        let waker = FutureWaker::new(call, self.waker());
        let mut cx = Context::from_waker(waker.waker());
        let mut future = std::pin::pin!(future);
        loop {
            let polled = waker.poll(
                || crate::task::budget_scope(|| future.as_mut().poll(&mut cx)),
                || self.is_notified(),
            );
            if let Poll::Ready(output) = polled {
                return output;
            }
            self.park();
        }
    }
}

#[cfg(all(test, loom))]
mod loom_thread_parker {
    use super::ThreadParker;
    use crate::loom::thread;

    /// A wake from another thread racing the park, twice in a row: the
    /// parker returns both times (a lost wake-up is a loom deadlock), and
    /// a wake that lands before a park is kept for it.
    #[test]
    fn loom_unpark_races_park() {
        loom::model(|| {
            let parker = ThreadParker::new();
            let waker = parker.waker();
            let waking = thread::spawn(move || {
                waker.wake_by_ref();
                waker.wake();
            });
            parker.park();
            waking.join().unwrap();
            // Both wakes may have landed before the first park: at most
            // one notification is left, and a park after a fresh wake
            // returns.
            parker.waker().wake();
            parker.park();
        });
    }
}
