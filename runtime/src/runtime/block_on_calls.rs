//! The `block_on` calls in progress on a runtime, for the slow-poll
//! watchdog: the future passed to `block_on` (the body of `#[rt::main]`
//! and `#[rt::test]` among them) is no task, so no worker's counters show
//! its polls, and a blocking call in it went unreported.
//!
//! Only while the watchdog is on (`Config::block_on_calls` is `Some`):
//! 1. `Handle::block_on` registers the call: its site (every public
//!    `block_on` is `#[track_caller]`), its thread, and an id that no task
//!    has; the guard it gets back takes the call out of the list when
//!    `block_on` returns or unwinds;
//! 2. each poll of the future is counted on the calling thread as a
//!    worker counts a task's poll (`WorkerMetrics::poll_started`,
//!    `poll_finished`), and a current-thread call marks itself once it
//!    holds the core (its future then blocks the runtime's tasks too);
//! 3. the monitor samples the calls as it samples the workers
//!    (`watchdog.rs`), from a copy of the list taken under its lock;
//! 4. `block_in_place` in the future declares its blocking intended: the
//!    poll in progress is no longer watched, as a worker's is not once
//!    `block_in_place` hands its core off. The call is found through this
//!    thread's innermost registered call (a `block_in_place` closure may
//!    call `block_on` again, whose guard puts the outer one back).
//! 5. the future is polled with a waker of the call's own (`FutureWaker`),
//!    which forwards its wakes to `block_on`'s, counts its clones and
//!    flags its wakes (each poll's start takes the flag): a poll that
//!    returns `Pending` with no clone of it left anywhere, and no wake
//!    waiting for `block_on` (the flag, its parker's notification, or the
//!    current-thread scheduler's `woken`), leaves the future with nothing
//!    that can ever wake it, and the thread waits for good; so does a
//!    `Pending` poll whose last clone is dropped later with no wake and no
//!    poll since. Either is reported, once per call, as a task's lost waker is
//!    (`task::state`). A clone can only be made from another (with none
//!    left, only by `block_on`'s thread, in a poll), a wake is flagged
//!    before its mark and before its clone's count is released, a poll's
//!    start takes the flags set before it, `block_on` polls again only
//!    when woken, and once it is done (returned or unwinding) nothing more
//!    is checked, so a report is never wrong. Not seen: a
//!    current-thread `block_on` polling its future while another thread
//!    drives the runtime, which polls it again once the core is free (only
//!    the poll that holds the core is checked). A `block_on` nested in
//!    another on one thread (through `block_in_place`) shares its parker,
//!    whose notifications the inner call's parks may consume: the inner
//!    call wakes the outer one when it ends (`park.rs`).
//!
//! With the watchdog off there is no list: `block_on` reads the `None`
//! once, its future gets `block_on`'s own waker, and each poll of it
//! costs one branch on the `None`.

use crate::loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering, fence};
use crate::loom::sync::{Arc, Mutex};
use crate::runtime::arc_waker::{ArcWake, arc_waker};
use crate::runtime::metrics::WorkerMetrics;
use crate::runtime::watchdog;
use crate::task::Id;
use std::cell::RefCell;
use std::fmt;
use std::panic::Location;
use std::task::{Poll, Waker};
use std::thread::ThreadId;

thread_local! {
    /// The innermost registered call on this thread (step 4).
    static CURRENT: RefCell<Option<Arc<BlockOnCall>>> = const { RefCell::new(None) };
}

/// The `block_on` calls of one runtime (steps 1 and 3).
pub(crate) struct BlockOnCalls {
    calls: Mutex<Vec<Arc<BlockOnCall>>>,
}

/// One `block_on` call in progress.
pub(crate) struct BlockOnCall {
    /// Unique in the process, and no task's: a task id drawn for the call.
    pub(crate) id: Id,
    /// Where `block_on` was called.
    pub(crate) location: &'static Location<'static>,
    pub(crate) thread_id: ThreadId,
    pub(crate) thread_name: Option<std::sync::Arc<str>>,
    /// The future's polls, kept as a worker keeps its tasks' (step 2).
    pub(crate) metrics: WorkerMetrics,
    /// Set once a current-thread call holds the core: the runtime's tasks
    /// wait while its future is polled.
    drives_tasks: AtomicBool,
    /// Step 5's report was made: once per call.
    lost_waker_reported: AtomicBool,
}

impl BlockOnCalls {
    pub(crate) fn new() -> BlockOnCalls {
        BlockOnCalls {
            calls: Mutex::new(Vec::new()),
        }
    }

    /// Step 1: lists a call made at `location` on this thread until the
    /// guard drops.
    pub(crate) fn register(&self, location: &'static Location<'static>) -> Registered<'_> {
        let thread = std::thread::current();
        let call = Arc::new(BlockOnCall {
            id: Id::next(),
            location,
            thread_id: thread.id(),
            thread_name: thread.name().map(std::sync::Arc::from),
            metrics: WorkerMetrics::default(),
            drives_tasks: AtomicBool::new(false),
            lost_waker_reported: AtomicBool::new(false),
        });
        self.calls.lock().unwrap().push(call.clone());
        // Fails only while this thread's thread-locals are torn down: the
        // call is then watched, just not found by `block_in_place`.
        let outer = CURRENT
            .try_with(|current| current.replace(Some(call.clone())))
            .ok()
            .flatten();
        Registered {
            calls: self,
            call,
            outer,
        }
    }

    /// Step 3: the calls listed now.
    pub(crate) fn snapshot(&self) -> Vec<Arc<BlockOnCall>> {
        self.calls.lock().unwrap().clone()
    }
}

impl BlockOnCall {
    /// Step 2, for a current-thread call: it holds the core from now on.
    pub(crate) fn drives_tasks(&self) {
        self.drives_tasks.store(true, Ordering::Relaxed);
    }

    pub(crate) fn is_driving_tasks(&self) -> bool {
        self.drives_tasks.load(Ordering::Relaxed)
    }
}

/// Steps 2 and 5: the waker a `block_on` future is polled with, and its
/// polls. With the watchdog off (no call), `block_on`'s own waker and one
/// branch per poll.
pub(crate) struct FutureWaker<'a> {
    call: Option<&'a BlockOnCall>,
    waker: Waker,
    /// Step 5, while the call is watched: what `waker` points to.
    watched: Option<Arc<Watched>>,
}

/// A watched call's waker (step 5): `block_on`'s own, behind counts of
/// its own.
struct Watched {
    inner: Waker,
    call: Arc<BlockOnCall>,
    /// The wakers made from this one, `FutureWaker`'s own included.
    wakers: AtomicUsize,
    /// A wake came since the poll in progress or the last one began (set
    /// before the wake reaches `inner`, taken by the next poll's start).
    notified: AtomicBool,
    /// The polls begun, counted before each takes `notified`.
    polls: AtomicUsize,
    /// The number of the `Pending` poll that left clones and no wake
    /// waiting, whose check found it so; 0 before that and once
    /// `block_on` is done. Stale once a later poll began (`polls` moved).
    idle_after: AtomicUsize,
}

impl ArcWake for Watched {
    fn wake_by_ref(&self) {
        // The flag first, then the wake's mark (the parker's notification,
        // `woken`): a poll that consumes the mark starts after the flag is
        // set, and takes it (`FutureWaker::poll`); a flag set after that
        // poll began is seen by its check or by the last release.
        self.notified.store(true, Ordering::SeqCst);
        self.inner.wake_by_ref();
    }

    fn cloned(&self) {
        self.wakers.fetch_add(1, Ordering::Relaxed);
    }

    fn released(&self) {
        // The last clone (only `FutureWaker`'s own is left) gone after a
        // `Pending` poll that left clones, with no wake since and no poll
        // begun since: nothing can wake the future any more. During a
        // poll the poll's own check sees the count.
        if self.wakers.fetch_sub(1, Ordering::SeqCst) == 2 {
            // Pairs with the fence in `check`: of a clone's last release
            // and a poll's check, one sees the other.
            fence(Ordering::SeqCst);
            let idle_after = self.idle_after.load(Ordering::SeqCst);
            // Read after the check that marked the call idle: a clone made
            // in that poll, after this count's decrement (which then was
            // not the last), shows here; its own release decides.
            let wakers = self.wakers.load(Ordering::SeqCst);
            // A poll's start counts itself before it takes `notified`: a
            // `false` read from that take is seen with the later count.
            let notified = self.notified.load(Ordering::SeqCst);
            let polls = self.polls.load(Ordering::SeqCst);
            if idle_after != 0 && wakers == 1 && !notified && polls == idle_after {
                self.report();
            }
        }
    }
}

impl Watched {
    /// Once per call.
    fn report(&self) {
        if !self.call.lost_waker_reported.swap(true, Ordering::Relaxed) {
            watchdog::report_block_on_lost_waker(&self.call);
        }
    }
}

impl<'a> FutureWaker<'a> {
    /// The waker for a call (`None`: not watched) whose `block_on` wakes
    /// through `waker`, its future's loss of it reported (step 5).
    pub(crate) fn new(call: Option<&'a Arc<BlockOnCall>>, waker: Waker) -> FutureWaker<'a> {
        let Some(call) = call else {
            return FutureWaker::counted(None, waker);
        };
        let watched = Arc::new(Watched {
            inner: waker,
            call: call.clone(),
            wakers: AtomicUsize::new(1),
            notified: AtomicBool::new(false),
            polls: AtomicUsize::new(0),
            idle_after: AtomicUsize::new(0),
        });
        FutureWaker {
            call: Some(call),
            waker: arc_waker(watched.clone()),
            watched: Some(watched),
        }
    }

    /// `block_on`'s own waker, the polls counted (step 2) but step 5 not
    /// checked: a current-thread `block_on` polling its future while
    /// another thread holds the core polls it again once the core is free.
    pub(crate) fn counted(call: Option<&'a Arc<BlockOnCall>>, waker: Waker) -> FutureWaker<'a> {
        FutureWaker {
            call: call.map(|call| &**call),
            waker,
            watched: None,
        }
    }

    pub(crate) fn waker(&self) -> &Waker {
        &self.waker
    }

    /// Runs `poll` (one poll of the future, with `self.waker()`), counted
    /// if the call is watched, and reports a `Pending` that leaves the
    /// future no waker, then or when its last clone is dropped without a
    /// wake (step 5); `woken` says whether a wake is waiting for
    /// `block_on`, whose next poll would see what it was for.
    #[inline]
    pub(crate) fn poll<T>(
        &self,
        poll: impl FnOnce() -> Poll<T>,
        woken: impl FnOnce() -> bool,
    ) -> Poll<T> {
        let Some(call) = self.call else {
            return poll();
        };
        let number = self.watched.as_ref().map(|watched| {
            let number = watched.polls.fetch_add(1, Ordering::SeqCst) + 1;
            // Takes the wakes that led here (an RMW: this poll sees what
            // they were for).
            watched.notified.swap(false, Ordering::SeqCst);
            number
        });
        call.metrics.poll_started(call.id.as_u64());
        let polled = poll();
        call.metrics.poll_finished();
        if let (Some(watched), Some(number)) = (&self.watched, number) {
            if polled.is_pending() {
                watched.check(number, woken);
            }
        }
        polled
    }
}

impl Drop for FutureWaker<'_> {
    fn drop(&mut self) {
        // `block_on` is done (returned, or unwinding after a `Pending`
        // poll): no release may report from now on. Without this, the
        // drop of `self.waker` below, with one clone left elsewhere, would
        // be taken for the last clone's release (2 -> 1).
        if let Some(watched) = &self.watched {
            watched.idle_after.store(0, Ordering::SeqCst);
        }
    }
}

impl Watched {
    /// Step 5 after `Pending` poll `number`, on `block_on`'s thread. A
    /// wake flagged since the poll began is seen here or by the last
    /// release (which comes after it); one taken by the poll's start came
    /// before the poll. With no clone left and no wake, report; with
    /// clones left, mark the call idle after this poll, for the last
    /// clone's release (and a clone released between the two reads of
    /// `wakers` is seen by the second).
    fn check(&self, number: usize, woken: impl FnOnce() -> bool) {
        let alone = self.wakers.load(Ordering::SeqCst) == 1;
        if self.notified.load(Ordering::SeqCst) || woken() {
            return;
        }
        if alone {
            self.report();
            return;
        }
        self.idle_after.store(number, Ordering::SeqCst);
        // Pairs with the fence in `released`: a last clone released now
        // either sees `idle_after` or is seen here.
        fence(Ordering::SeqCst);
        if self.wakers.load(Ordering::SeqCst) == 1 && !self.notified.load(Ordering::SeqCst) {
            self.report();
        }
    }
}

/// Step 4: the poll in progress of this thread's `block_on` future, if
/// the watchdog watches one, blocks on purpose (`block_in_place`): it is
/// no longer watched.
pub(crate) fn blocks_on_purpose() {
    let _ = CURRENT.try_with(|current| {
        if let Some(call) = current.borrow().as_ref() {
            call.metrics.poll_finished();
        }
    });
}

/// Keeps a call listed; see [`BlockOnCalls::register`].
pub(crate) struct Registered<'a> {
    calls: &'a BlockOnCalls,
    call: Arc<BlockOnCall>,
    /// The call this one is nested in, current again when it ends.
    outer: Option<Arc<BlockOnCall>>,
}

impl Registered<'_> {
    pub(crate) fn call(&self) -> &Arc<BlockOnCall> {
        &self.call
    }
}

impl Drop for Registered<'_> {
    fn drop(&mut self) {
        let outer = self.outer.take();
        let _ = CURRENT.try_with(|current| current.replace(outer));
        let mut calls = self.calls.calls.lock().unwrap();
        if let Some(index) = calls.iter().position(|c| Arc::ptr_eq(c, &self.call)) {
            calls.swap_remove(index);
        }
    }
}

impl fmt::Debug for BlockOnCalls {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BlockOnCalls").finish_non_exhaustive()
    }
}

#[cfg(all(test, loom))]
mod loom_future_waker {
    use super::{BlockOnCalls, FutureWaker};
    use crate::loom::sync::atomic::Ordering;
    use crate::loom::thread;
    use crate::runtime::park::ThreadParker;
    use std::panic::Location;
    use std::task::Poll;

    /// What a thread given a clone of the future's waker does with it.
    #[derive(Clone, Copy)]
    enum Holder {
        Drops,
        Wakes,
    }

    /// One watched call: its first poll gives a clone of its waker to a
    /// thread per entry of `holders` and returns `Pending`; then `after`
    /// runs (more parks and polls; it returns the waker to keep it alive
    /// until the threads are joined, or drops it, as `block_on` returning
    /// does), and the call must have been reported as a lost waker exactly
    /// if `lost`.
    fn model(
        holders: &'static [Holder],
        lost: bool,
        after: for<'a> fn(FutureWaker<'a>, &ThreadParker) -> Option<FutureWaker<'a>>,
    ) {
        loom::model(move || {
            let calls = BlockOnCalls::new();
            let registered = calls.register(Location::caller());
            let reported = || {
                registered
                    .call()
                    .lost_waker_reported
                    .load(Ordering::Relaxed)
            };
            let parker = ThreadParker::new();
            let waker = FutureWaker::new(Some(registered.call()), parker.waker());
            let mut threads = Vec::new();
            let polled = waker.poll(
                || {
                    for &holder in holders {
                        let clone = waker.waker().clone();
                        threads.push(thread::spawn(move || match holder {
                            Holder::Drops => drop(clone),
                            Holder::Wakes => clone.wake(),
                        }));
                    }
                    Poll::<()>::Pending
                },
                || parker.is_notified(),
            );
            assert!(polled.is_pending());
            let kept = after(waker, &parker);
            for thread in threads {
                thread.join().unwrap();
            }
            drop(kept);
            assert_eq!(reported(), lost, "reported as a lost waker: {}", reported());
        });
    }

    /// Step 5's check against a holder on another thread that wakes its
    /// clone by value (the wake, then the count's release) while the poll
    /// returns: whichever the check reads, the count still held or the
    /// wake, the future is never taken for lost, and the wake reaches
    /// `block_on`'s parker.
    #[test]
    fn loom_a_clone_woken_and_dropped_elsewhere_is_not_a_lost_waker() {
        model(&[Holder::Wakes], false, |waker, parker| {
            parker.park();
            Some(waker)
        });
    }

    /// A clone dropped unwoken on another thread, during the poll or after
    /// it: the poll's check or the drop's reports it, whichever comes
    /// last, and once.
    #[test]
    fn loom_a_clone_dropped_unwoken_elsewhere_is_a_lost_waker() {
        model(&[Holder::Drops], true, |waker, _| Some(waker));
    }

    /// Two clones on two threads: one dropped unwoken, the other woken by
    /// value. Whatever the order, the wake is seen and nothing reported.
    #[test]
    fn loom_a_clone_dropped_unwoken_beside_a_woken_one_is_not_a_lost_waker() {
        model(&[Holder::Drops, Holder::Wakes], false, |waker, parker| {
            parker.park();
            Some(waker)
        });
    }

    /// As above, and the wake makes `block_on` poll again, `Ready`, and
    /// return (its waker dropped before the holders are done): whatever
    /// the order of the drops, the re-poll's start and `FutureWaker`'s own
    /// drop, nothing is reported.
    #[test]
    fn loom_a_repoll_after_a_wake_then_ready_is_not_a_lost_waker() {
        model(&[Holder::Drops, Holder::Wakes], false, |waker, parker| {
            parker.park();
            let polled = waker.poll(|| Poll::Ready(()), || parker.is_notified());
            assert!(polled.is_ready());
            None
        });
    }

    /// As above, but the poll after the wake is `Pending` again and keeps
    /// no clone: once both holders are done, nothing can wake the future,
    /// which is reported in every interleaving.
    #[test]
    fn loom_a_repoll_after_a_wake_then_pending_is_a_lost_waker() {
        model(&[Holder::Drops, Holder::Wakes], true, |waker, parker| {
            parker.park();
            let polled = waker.poll(|| Poll::<()>::Pending, || parker.is_notified());
            assert!(polled.is_pending());
            Some(waker)
        });
    }
}
