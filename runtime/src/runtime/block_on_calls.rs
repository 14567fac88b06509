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
//!
//! With the watchdog off there is no list: `block_on` reads the `None`
//! once, and each poll of its future costs one branch on it.

use crate::loom::sync::atomic::{AtomicBool, Ordering};
use crate::loom::sync::{Arc, Mutex};
use crate::runtime::metrics::WorkerMetrics;
use crate::task::Id;
use std::cell::RefCell;
use std::fmt;
use std::panic::Location;
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

/// Step 2: runs `poll` (one poll of the future passed to `block_on`),
/// counted when the call is watched; with the watchdog off (`call` is
/// `None`), one branch.
#[inline]
pub(crate) fn poll_counted<R>(call: Option<&BlockOnCall>, poll: impl FnOnce() -> R) -> R {
    let Some(call) = call else {
        return poll();
    };
    call.metrics.poll_started(call.id.as_u64());
    let polled = poll();
    call.metrics.poll_finished();
    polled
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
    pub(crate) fn call(&self) -> &BlockOnCall {
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
