//! Blocking a plain thread on a future: a parker whose waker unparks it.
//!
//! Used by `Handle::block_on` on the multi-thread runtime (the calling
//! thread is not a worker; it just waits) and by the current-thread
//! scheduler while another thread holds its core.
//!
//! The parker is one atomic state, `EMPTY`, `PARKED` or `NOTIFIED`, plus a
//! mutex and condvar for the sleep itself:
//! 1. `unpark` swaps the state to `NOTIFIED`; only if it was `PARKED` does
//!    it take the mutex (so it cannot slip between the parker's last check
//!    and its wait) and signal the condvar. A wake-up with nobody asleep,
//!    such as a future waking itself when its cooperative budget runs out,
//!    is one atomic swap, not a lock and a futex call;
//! 2. `park` first consumes a `NOTIFIED` state if there is one;
//! 3. otherwise it spins for a while if its recent sleeps were short (see
//!    `scheduler::idle_spin`; a wake-up then costs neither side a system
//!    call), checking for `NOTIFIED`;
//! 4. otherwise, under the mutex, it moves `EMPTY` to `PARKED` (failing
//!    only if a notification arrived: it consumes it and returns) and
//!    waits on the condvar until the state is `NOTIFIED`, which it resets
//!    to `EMPTY`.

use crate::loom::sync::atomic::{AtomicUsize, Ordering};
use crate::loom::sync::{Arc, Condvar, Mutex};
use crate::scheduler::idle_spin::IdleSpin;
use std::future::Future;
use std::task::{Context, Poll, RawWaker, RawWakerVTable, Waker};
use std::time::Duration;

const EMPTY: usize = 0;
const PARKED: usize = 1;
const NOTIFIED: usize = 2;

#[derive(Debug)]
pub(crate) struct ThreadParker {
    inner: Arc<Inner>,
    /// Off (max zero) unless `block_on` is given a spin.
    spin: IdleSpin,
}

#[derive(Debug)]
struct Inner {
    state: AtomicUsize,
    lock: Mutex<()>,
    condvar: Condvar,
}

impl ThreadParker {
    pub(crate) fn new() -> ThreadParker {
        ThreadParker {
            inner: Arc::new(Inner {
                state: AtomicUsize::new(EMPTY),
                lock: Mutex::new(()),
                condvar: Condvar::new(),
            }),
            spin: IdleSpin::new(Duration::ZERO),
        }
    }

    /// Blocks until the waker is woken (returns at once if it already was
    /// since the last park).
    pub(crate) fn park(&self) {
        let inner = &*self.inner;
        // Step 2.
        if inner.take_notification() {
            return;
        }
        // Step 3.
        if self
            .spin
            .spin(|| inner.take_notification().then_some(()))
            .is_some()
        {
            return;
        }
        let asleep_since = self.spin.sleep_starts();
        inner.sleep();
        self.spin.slept(asleep_since);
    }

    pub(crate) fn waker(&self) -> Waker {
        let raw = Arc::into_raw(self.inner.clone());
        // SAFETY: `raw` came from `Arc::into_raw` and the vtable below keeps
        // the count balanced: clone adds one, wake and drop release one.
        unsafe { Waker::from_raw(RawWaker::new(raw.cast(), &VTABLE)) }
    }

    /// Polls `future` on this thread until it completes, sleeping between
    /// wake-ups, after spinning for up to `spin_before_park` if recent
    /// sleeps were that short.
    pub(crate) fn block_on<F: Future>(&self, future: F, spin_before_park: Duration) -> F::Output {
        self.spin.set_max(spin_before_park);
        let waker = self.waker();
        let mut cx = Context::from_waker(&waker);
        let mut future = std::pin::pin!(future);
        loop {
            if let Poll::Ready(output) = crate::task::budget_scope(|| future.as_mut().poll(&mut cx))
            {
                return output;
            }
            self.park();
        }
    }
}

impl Inner {
    /// Step 4.
    fn sleep(&self) {
        let mut guard = self.lock.lock().unwrap();
        if self
            .state
            .compare_exchange(EMPTY, PARKED, Ordering::SeqCst, Ordering::SeqCst)
            .is_err()
        {
            // Notified since step 2: the state is `NOTIFIED`.
            self.state.store(EMPTY, Ordering::SeqCst);
            return;
        }
        loop {
            guard = self.condvar.wait(guard).unwrap();
            if self.take_notification() {
                return;
            }
            // A spurious wake-up: still `PARKED`.
        }
    }

    /// Consumes a pending notification, if any.
    fn take_notification(&self) -> bool {
        self.state
            .compare_exchange(NOTIFIED, EMPTY, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    }

    /// Step 1.
    fn unpark(&self) {
        if self.state.swap(NOTIFIED, Ordering::SeqCst) == PARKED {
            // The parker is waiting on the condvar, or about to: taking the
            // lock waits until it is inside `wait`.
            drop(self.lock.lock().unwrap());
            self.condvar.notify_one();
        }
    }
}

static VTABLE: RawWakerVTable = RawWakerVTable::new(clone, wake, wake_by_ref, drop_waker);

/// # Safety
/// `data` must come from `Arc::<Inner>::into_raw` and still own its count.
unsafe fn arc(data: *const ()) -> Arc<Inner> {
    // SAFETY: per the caller.
    unsafe { Arc::from_raw(data.cast::<Inner>()) }
}

unsafe fn clone(data: *const ()) -> RawWaker {
    // SAFETY: the waker being cloned owns a count; we put it back below.
    let inner = unsafe { arc(data) };
    let cloned = Arc::into_raw(inner.clone());
    std::mem::forget(inner);
    RawWaker::new(cloned.cast(), &VTABLE)
}

unsafe fn wake(data: *const ()) {
    // SAFETY: the waker being consumed owns a count, released on drop here.
    unsafe { arc(data) }.unpark();
}

unsafe fn wake_by_ref(data: *const ()) {
    // SAFETY: the waker owns a count; we put it back with forget.
    let inner = unsafe { arc(data) };
    inner.unpark();
    std::mem::forget(inner);
}

unsafe fn drop_waker(data: *const ()) {
    // SAFETY: the waker being dropped owns a count.
    drop(unsafe { arc(data) });
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
