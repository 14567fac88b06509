//! Parking a worker thread.
//!
//! Each worker has a `Parker`; the runtime has one driver. A parking
//! worker that can take the driver lock blocks in the driver (so it also
//! waits for I/O and timers); the others wait on their own condvar.
//! `Unparker::unpark` knows which of the two its worker is blocked in.
//!
//! The state is a `ParkState` (see `runtime/park.rs`), which makes unpark
//! sticky: an unpark that lands before the worker blocks turns the next
//! park into a no-op. Blocking in the driver is its "parked elsewhere":
//! `unpark` then wakes the driver instead of the condvar.
//!
//! The I/O wakers a turn of the driver releases are woken after the driver
//! lock is released (a waker may run arbitrary code): the driver pushes
//! them onto the parker's `woken` vector under the lock, and the parker
//! wakes them once it has dropped the guard.

use crate::driver::{self, Driver, wake_all};
use crate::loom::sync::atomic::{AtomicBool, Ordering, fence};
use crate::loom::sync::{Arc, Mutex};
use crate::runtime::park::{ParkState, Unparked};
use std::task::Waker;
use std::time::Duration;

#[derive(Debug)]
pub(crate) struct Parker {
    inner: Arc<Inner>,
    /// The I/O wakers of the last driver turn, woken once the driver lock
    /// is released (kept to reuse its capacity).
    woken: Vec<Waker>,
}

#[derive(Debug, Clone)]
pub(crate) struct Unparker {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    state: ParkState,
    shared: Arc<Shared>,
}

/// The runtime's one driver, shared by all parkers.
#[derive(Debug)]
pub(crate) struct Shared {
    driver: Mutex<Driver>,
    handle: driver::Handle,
    /// A worker is blocked in the driver, watching I/O and timers.
    driver_watched: AtomicBool,
}

impl Shared {
    pub(crate) fn new(driver: Driver, handle: driver::Handle) -> Arc<Shared> {
        Arc::new(Shared {
            driver: Mutex::new(driver),
            handle,
            driver_watched: AtomicBool::new(false),
        })
    }

    /// `true` while a worker is blocked in the driver: I/O and timer events
    /// are seen as they happen, so another worker may spin instead of
    /// parking (in the driver) itself.
    ///
    /// Relaxed: as a hint (spinning) a stale answer costs a spin or a
    /// wake-up. Where a lost wake-up is at stake, the last searcher
    /// (`Core::transition_from_searching`) issues a SeqCst fence between
    /// its searching-count decrement and this read; see `park_driver` for
    /// the other half of that pair.
    pub(crate) fn driver_watched(&self) -> bool {
        self.driver_watched.load(Ordering::Relaxed)
    }

    /// Shuts the driver down (waiting for a worker still parked in it).
    pub(crate) fn shutdown(&self) {
        let mut woken = Vec::new();
        let mut driver = self.driver.lock().unwrap();
        driver.shutdown(&self.handle, &mut woken);
        drop(driver);
        wake_all(&mut woken);
    }
}

impl Parker {
    pub(crate) fn new(shared: Arc<Shared>) -> Parker {
        Parker {
            inner: Arc::new(Inner {
                state: ParkState::new(),
                shared,
            }),
            woken: Vec::new(),
        }
    }

    pub(crate) fn unparker(&self) -> Unparker {
        Unparker {
            inner: self.inner.clone(),
        }
    }

    /// Blocks until unparked. Returns `true` if it blocked in the driver,
    /// so the caller, leaving it, knows nobody may be watching I/O and
    /// timers now. The timers that came due are fired; the I/O wakers the
    /// turn released wait for `wake_io`.
    pub(crate) fn park(&mut self) -> bool {
        self.inner.park(None, &mut self.woken)
    }

    /// Wakes the I/O wakers of the last driver turn (`park`, `poll_driver`).
    pub(crate) fn wake_io(&mut self) {
        wake_all(&mut self.woken);
    }

    /// Polls the driver without blocking, if no other worker holds it.
    /// Returns `true` if it did: a worker that tried to park meanwhile
    /// found the lock taken and sleeps on its condvar, so nobody may be
    /// watching I/O and timers now. As `park`, it leaves the I/O wakers
    /// for `wake_io`.
    pub(crate) fn poll_driver(&mut self) -> bool {
        match self.inner.shared.driver.try_lock() {
            Ok(mut driver) => {
                let handle = &self.inner.shared.handle;
                driver.park(handle, Some(Duration::ZERO), &mut self.woken);
                true
            }
            Err(_) => false,
        }
    }
}

impl Inner {
    /// Pushes the I/O wakers of a driver turn onto `woken` (the caller
    /// wakes them): the driver lock is released on return.
    fn park(&self, timeout: Option<Duration>, woken: &mut Vec<Waker>) -> bool {
        if self.state.take_notification() {
            return false;
        }
        if let Ok(mut driver) = self.shared.driver.try_lock() {
            self.park_driver(&mut driver, timeout, woken)
        } else {
            self.state.sleep();
            false
        }
    }

    /// `true` if it blocked in the driver (`false`: it was notified first).
    fn park_driver(
        &self,
        driver: &mut Driver,
        timeout: Option<Duration>,
        woken: &mut Vec<Waker>,
    ) -> bool {
        if !self.state.enter_elsewhere() {
            return false;
        }
        let watching = timeout != Some(Duration::ZERO);
        if watching {
            self.shared.driver_watched.store(true, Ordering::Relaxed);
        }
        driver.park(&self.shared.handle, timeout, woken);
        if watching {
            // A Dekker pair with the last searcher, whose side is: searching
            // count decremented (SeqCst), SeqCst fence, then this flag read
            // (`Core::transition_from_searching`). Ours: this store, the
            // fence below, then the searching count read in
            // `Handle::hand_off_driver_for_timers` (or, for a worker that
            // wakes as a searcher, its own `transition_from_searching`).
            // With a SeqCst fence between each side's write and read, the
            // fences are ordered one way or the other, and the side whose
            // fence comes second sees the other's write: either the searcher
            // sees the driver unwatched and wakes a peer to park in it, or
            // this worker sees no searcher and hands the driver off itself.
            // The fence is here, next to the store, rather than relying on
            // one several calls up; loom checks fences, not the total order
            // of SeqCst accesses.
            self.shared.driver_watched.store(false, Ordering::Relaxed);
            fence(Ordering::SeqCst);
        }
        self.state.leave_elsewhere();
        true
    }
}

impl Unparker {
    pub(crate) fn unpark(&self) {
        let inner = &self.inner;
        if inner.state.unpark() == Unparked::Elsewhere {
            inner.shared.handle.unpark();
        }
    }
}

#[cfg(all(test, loom))]
mod loom_park {
    use super::{Parker, Shared};
    use crate::driver::{Driver, DriverConfig};
    use crate::loom::sync::Arc;
    use crate::loom::sync::atomic::{Ordering, fence};
    use crate::loom::thread;
    use crate::scheduler::multi_thread::idle::Idle;

    /// Two workers park while two unparks race them: one parks in the
    /// driver, the other on its condvar, and neither misses its unpark
    /// (loom reports a deadlock if one does).
    #[test]
    fn loom_unpark_races_park_on_driver_and_condvar() {
        loom::model(|| {
            let (driver, handle) = Driver::new(&DriverConfig::default(), 1).unwrap();
            let shared = Shared::new(driver, handle);
            let mut first = Parker::new(shared.clone());
            let mut second = Parker::new(shared);
            let (wake_first, wake_second) = (first.unparker(), second.unparker());
            let parked = thread::spawn(move || second.park());
            let waker = thread::spawn(move || wake_first.unpark());
            wake_second.unpark();
            first.park();
            parked.join().unwrap();
            waker.join().unwrap();
        });
    }

    /// Worker 0 leaves the driver to run a task that will block its thread,
    /// with a timer due soon, while worker 1 parks: worker 1 must end up
    /// blocked in the driver, where the timer's wake-up (here a plain
    /// driver unpark) reaches it, never asleep on its condvar. The steps
    /// are the workers' (`Context::park`, `Handle::hand_off_driver_for_timers`,
    /// `Handle::notify_if_work_pending`); loom reports a deadlock if
    /// worker 1 sleeps on its condvar un-notified.
    #[test]
    fn loom_driver_handed_off_to_a_parking_worker() {
        loom::model(|| {
            let (driver, handle) = Driver::new(&DriverConfig::default(), 1).unwrap();
            let shared = Shared::new(driver, handle.clone());
            let idle = Arc::new(Idle::new(2));
            let leaver = Parker::new(shared.clone());
            let parker = Parker::new(shared.clone());
            let unparkers = [leaver.unparker(), parker.unparker()];

            // Worker 0 is in the driver, listed as parked.
            idle.transition_worker_to_parked(0, false);
            let in_driver = shared.driver.try_lock().unwrap();

            let parking = park_until_woken_in_the_driver(idle.clone(), parker);

            // Worker 0 woke with a task queued: out of the driver, off the
            // list (`Context::park`), then the hand-off
            // (`hand_off_driver_for_timers`, the timer due).
            drop(in_driver);
            idle.unpark_worker_by_id(0);
            hand_off(&idle, &unparkers);
            // Worker 0 now blocks in its task. The timer comes due.
            handle.unpark();
            parking.join().unwrap();
        });
    }

    /// Worker 1 parking as `Context::park` does, on a thread: it returns
    /// only once it was woken in the driver; woken on its condvar (by a
    /// notifier, who counted it as searching), it finds nothing and parks
    /// again.
    fn park_until_woken_in_the_driver(
        idle: Arc<Idle>,
        mut parker: Parker,
    ) -> thread::JoinHandle<()> {
        thread::spawn(move || {
            let mut searching = false;
            loop {
                idle.transition_worker_to_parked(1, searching);
                // `notify_if_work_pending`'s fence (no work queued).
                fence(Ordering::SeqCst);
                if parker.park() {
                    return;
                }
                searching = !idle.is_parked(1);
            }
        })
    }

    /// `Handle::hand_off_driver_for_timers` with its timer due, over the
    /// parts a `Handle` would reach.
    fn hand_off(idle: &Idle, unparkers: &[super::Unparker]) {
        fence(Ordering::SeqCst);
        if !idle.should_notify() {
            return;
        }
        if let Some(index) = idle.worker_to_notify(None) {
            unparkers[index].unpark();
        }
    }

    /// As `loom_driver_handed_off_to_a_parking_worker`, but worker 0 is
    /// busy and holds the driver only for its periodic poll
    /// (`Context::maintenance`), listed as awake: worker 1, parking
    /// meanwhile, may find the lock taken and sleep on its condvar, so the
    /// poll must hand off too. (The model starts inside the poll: were
    /// worker 1 to take the lock first, loom 0.7 would count the poll's
    /// pending `try_lock` as blocked behind it, a false deadlock, see
    /// tokio-rs/loom#376; in that order worker 1 is in the driver anyway.)
    #[test]
    fn loom_driver_handed_off_after_a_maintenance_poll() {
        loom::model(|| {
            let (driver, handle) = Driver::new(&DriverConfig::default(), 1).unwrap();
            let shared = Shared::new(driver, handle.clone());
            let idle = Arc::new(Idle::new(2));
            let busy = Parker::new(shared.clone());
            let parker = Parker::new(shared.clone());
            let unparkers = [busy.unparker(), parker.unparker()];

            let mut polling = shared.driver.try_lock().unwrap();
            let parking = park_until_woken_in_the_driver(idle.clone(), parker);

            polling.park(
                &shared.handle,
                Some(std::time::Duration::ZERO),
                &mut Vec::new(),
            );
            drop(polling);
            hand_off(&idle, &unparkers);
            // Worker 0 now blocks in its task. The timer comes due.
            handle.unpark();
            parking.join().unwrap();
        });
    }
}
