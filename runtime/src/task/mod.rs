//! Tasks: the unit of work the schedulers run.
//!
//! A spawned future lives in one heap allocation together with its state
//! word, its id and its join waker (`raw.rs`). The state machine is in
//! `state.rs`, the typed operations in `harness.rs`, wakers in `waker.rs`.
//! Schedulers see only `Notified` (a task to run) and the owned-task list.
//! `LocalSet` (`local.rs`) runs `!Send` tasks on one thread with the same
//! task machinery and its own queues; the runtimes that drive a set list
//! it (`local_set_list.rs`) for their diagnostics.
//! Task-local values (`task_local!`, `LocalKey`) live in `task_local.rs`
//! and need nothing from the scheduler: they travel inside the future.

mod builder;
pub mod coop;
mod error;
mod group;
mod harness;
mod id;
mod join;
mod join_set;
pub(crate) mod list;
pub(crate) mod local;
pub(crate) mod local_set_list;
#[cfg(test)]
mod loom_task;
mod meta;
mod priority;
mod raw;
mod state;
mod stats;
mod task_local;
mod trace;
pub(crate) mod waits;
mod waker;
mod yield_now;

pub use builder::Builder;
pub use coop::{Unconstrained, consume_budget, unconstrained};
pub use error::JoinError;
pub use group::{GroupError, Scope, TaskGroup};
pub use id::Id;
pub use join::{AbortHandle, JoinHandle};
pub use join_set::JoinSet;
pub use local::{LocalEnterGuard, LocalSet, RunUntil, spawn_local};
pub use priority::{Priority, priority};
pub use task_local::{AccessError, LocalKey, TaskLocalFuture};
pub use waits::{LockHolder, WaitSite};
pub use yield_now::yield_now;

/// The futures of task-local scopes, at tokio's path
/// (`tokio::task::futures`).
pub mod futures {
    pub use super::TaskLocalFuture;
}

pub(crate) use coop::{Budget, budget as budget_scope};
#[allow(unused_imports)]
pub(crate) use coop::{RestoreOnPending, cooperative, poll_budget_available, poll_proceed};
use list::OwnedTasks;
pub(crate) use meta::TaskMeta;
pub(crate) use raw::Header;
use raw::RawTask;

pub use crate::blocking::{block_in_place, spawn_blocking};
pub use crate::runtime::spawn::spawn;

use std::future::Future;
use std::ptr::NonNull;

/// What a task needs from the scheduler that spawned it.
pub(crate) trait Schedule: Send + Sync + Sized + 'static {
    /// Queue a woken task.
    fn schedule(&self, task: Notified);

    /// Queue a task that yielded (`yield_now`, a spent budget) while
    /// being polled.
    fn yield_now(&self, task: Notified) {
        self.schedule(task);
    }

    /// Queue a task woken while it was being polled, other than by a
    /// yield (by another thread, the driver, or its own waker), from the
    /// thread that polled it: behind the work queued there, but not behind
    /// the tasks that yielded.
    fn woken_while_running(&self, task: Notified) {
        self.schedule(task);
    }

    /// The owned list the scheduler's tasks are in; `None` for tasks no
    /// list tracks (see `new_unowned_task`). The task leaves it when it
    /// completes, or, if its `JoinHandle` still waits then, when the
    /// handle reads the output or is dropped (see `list.rs`).
    fn owned_tasks(&self) -> Option<&OwnedTasks>;

    /// Whether the runtime's watchdog is on (`runtime/watchdog.rs`): then
    /// a panic nobody will read (its `JoinHandle` dropped), and a task
    /// that returns `Pending` with no waker left, are reported with the
    /// task's name and spawn location.
    fn watchdog_on(&self) -> bool {
        false
    }

    /// Whether the scheduler's tasks record what they wait for, for the
    /// task dump (`Builder::track_waits`, see `waits.rs`): asked once per
    /// task, at its spawn, to pick its vtable (`harness::vtable`).
    fn tracks_waits(&self) -> bool {
        false
    }

    /// The task completed and its `JoinHandle`, if one waits, was woken:
    /// the last the scheduler hears of it. Whatever must not be let go
    /// before the task's result can be seen is let go here (the blocking
    /// pool's hold on a paused clock).
    fn completed(&self) {}

    /// Whether the scheduler hears of every wake of its tasks (`woken`):
    /// only a simulation's does, so no other task's wake pays a call.
    #[cfg(feature = "sim")]
    const HEARS_WAKES: bool = false;

    /// A waker of task `id` is being woken (or the task aborted) on this
    /// thread, whatever the task's state: also when it is queued or
    /// running already, and no `schedule` follows. For a simulation's check that wakes come from
    /// its own thread (a real thread's wake changes what the task sees
    /// when it is next polled, by the machine's timing, even when it
    /// queues nothing).
    #[cfg(feature = "sim")]
    fn woken(&self, _id: Id) {}
}

/// A task to run: owns one reference, and the right to poll.
#[derive(Debug)]
pub(crate) struct Notified(RawTask);

impl Notified {
    /// # Safety
    /// The caller transfers one counted reference backing a NOTIFIED task.
    unsafe fn from_raw(raw: RawTask) -> Notified {
        Notified(raw)
    }

    pub(crate) fn run(self) {
        let raw = self.0;
        std::mem::forget(self);
        // SAFETY: `self` owned the reference of a NOTIFIED task; forgetting
        // it hands that reference to the poll.
        unsafe { raw.poll() };
    }

    pub(crate) fn id(&self) -> Id {
        self.0.id()
    }

    /// Records, for the task dump, that the task is about to be polled at
    /// `now` (a scheduler's cached clock).
    #[inline]
    pub(crate) fn record_poll(&self, now: crate::runtime::coarse_time::Stamp) {
        self.0.header().stats.poll_started(now);
    }

    /// Which of its scheduler's queues the task goes to.
    pub(crate) fn priority(&self) -> Priority {
        self.0.priority()
    }

    /// Gives up the `Notified` for a pointer that still owns its
    /// reference (to keep it in an atomic slot); see `from_ptr`.
    pub(crate) fn into_ptr(self) -> NonNull<Header> {
        let ptr = self.0.as_ptr();
        std::mem::forget(self);
        ptr
    }

    /// Takes back a `Notified` given up with `into_ptr`.
    ///
    /// # Safety
    /// `ptr` comes from `Notified::into_ptr`, and this is the only
    /// `from_ptr` for it: the reference it owns moves into the result.
    pub(crate) unsafe fn from_ptr(ptr: NonNull<Header>) -> Notified {
        // SAFETY: per the caller, the task is alive (the reference `ptr`
        // owns keeps it so) and came from `RawTask::new`.
        let raw = unsafe { RawTask::from_raw(ptr) };
        // SAFETY: the reference `into_ptr` kept moves into this Notified.
        unsafe { Notified::from_raw(raw) }
    }

    /// Cancels a queued task that will never run (its queue is shut down):
    /// the future is dropped and the `JoinHandle` yields `Cancelled`.
    pub(crate) fn cancel(self) {
        self.0.shutdown();
        // Dropping `self` releases the queue's reference.
    }
}

impl Drop for Notified {
    fn drop(&mut self) {
        // SAFETY: the Notified owns one reference, given up here.
        unsafe { self.0.drop_reference() };
    }
}

/// Allocates a task. The caller must pass the `RawTask` to an owned list
/// (`OwnedTasks::bind`), which yields the first `Notified`.
fn new_task<F, S>(future: F, scheduler: S, meta: &TaskMeta) -> (RawTask, JoinHandle<F::Output>)
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
    S: Schedule,
{
    let raw = RawTask::new(future, scheduler, meta);
    // SAFETY: the initial state holds the join interest and a reference
    // for the handle; the output type is `F::Output`.
    let join = unsafe { JoinHandle::new(raw) };
    (raw, join)
}

/// Allocates a task whose future and output need not be `Send` (a
/// `LocalSet` task). As `new_task` otherwise.
///
/// # Safety
///
/// The scheduler `S` must poll the task, and drop its future (by
/// completing or cancelling it), only on the thread that calls this. (An
/// `abort()` elsewhere never drops the future: it schedules the task.) The
/// output is dropped where the `JoinHandle` is (which is `Send` only if
/// the output is), or by the polling thread when there is no handle.
unsafe fn new_local_task<F, S>(
    future: F,
    scheduler: S,
    meta: &TaskMeta,
) -> (RawTask, JoinHandle<F::Output>)
where
    F: Future + 'static,
    F::Output: 'static,
    S: Schedule,
{
    // SAFETY: forwarded from the caller.
    let raw = unsafe { RawTask::new_local(future, scheduler, meta) };
    // SAFETY: as in `new_task`.
    let join = unsafe { JoinHandle::new(raw) };
    (raw, join)
}

/// Allocates a task that no owned list tracks (a blocking-pool task):
/// returns the `Notified` that first schedules it. Its scheduler's
/// `owned_tasks` must return `None`.
pub(crate) fn new_unowned_task<F, S>(
    future: F,
    scheduler: S,
    meta: TaskMeta,
) -> (Notified, JoinHandle<F::Output>)
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
    S: Schedule,
{
    let (raw, join) = new_task(future, scheduler, &meta);
    // The initial state counts a reference for an owned list; there is
    // none, and the JoinHandle's reference keeps the task alive.
    let last = raw.header().state.ref_dec();
    debug_assert!(
        !last,
        "the JoinHandle and the Notified still hold references"
    );
    // SAFETY: the initial state counts a reference for the first Notified.
    (unsafe { Notified::from_raw(raw) }, join)
}

/// How many task allocations, of every runtime in this process, are not
/// freed yet; `None` in builds without debug assertions, which do not
/// count them. For the stress tests, which check that every spawned task
/// is freed in the end; not a stable API.
#[doc(hidden)]
pub fn __live_task_allocations() -> Option<usize> {
    #[cfg(debug_assertions)]
    return Some(raw::LIVE_ALLOCATIONS.load(std::sync::atomic::Ordering::Acquire));
    #[cfg(not(debug_assertions))]
    None
}

/// The id of the task being polled on this thread.
///
/// # Panics
///
/// Panics when called outside a task; use [`try_id`] to check.
///
/// # Examples
///
/// ```
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// let handle = rt.spawn(async { rt::task::id() });
/// let id = handle.id();
/// assert_eq!(rt.block_on(handle).unwrap(), id);
/// ```
#[track_caller]
pub fn id() -> Id {
    try_id().expect(
        "`rt::task::id()` called outside a task; use `rt::task::try_id()` where that can happen",
    )
}

/// The id of the task being polled on this thread, or `None` outside a task.
///
/// # Examples
///
/// ```
/// assert!(rt::task::try_id().is_none());
/// ```
pub fn try_id() -> Option<Id> {
    crate::runtime::context::current_task_id()
}
