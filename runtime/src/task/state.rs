//! The task state word.
//!
//! One `AtomicUsize` holds the whole lifecycle of a task: the low bits are
//! flags, the high bits a reference count. Every transition is a single
//! compare-and-swap loop (or one read-modify-write) defined here, next to the
//! bits it touches, so the protocol can be read in one place.
//!
//! Who holds a reference:
//! 1. the owned-task list, from spawn until the task completes;
//! 2. the `JoinHandle`, until it is dropped;
//! 3. a `Notified` (the task sitting in a run queue, or being polled);
//! 4. every `Waker` built for the task;
//! 5. every `AbortHandle`.
//!
//! The allocation is freed by whoever drops the last reference.
//!
//! Between the flags and the count, a second count says how many of the
//! references are `AbortHandle`s (up to 255 of them; more are counted as
//! references only). With it the word tells whether any waker of an idle
//! task exists (`Snapshot::has_lost_waker`): the references left are then
//! the list's, the handle's and the abort handles', and nothing can wake
//! the task again (a waker is only ever made by its poll or cloned from
//! another waker).

use crate::loom::sync::atomic::{AtomicUsize, Ordering};
use std::fmt;

/// Set while a thread has exclusive access to the future: it is being polled
/// or cancelled. Whoever sets it owns the stage until it clears it.
const RUNNING: usize = 0b00_0001;

/// Set once the output (or the error) is stored. Never cleared. After it is
/// set the future is gone and the stage belongs to the join side.
const COMPLETE: usize = 0b00_0010;

/// Set when the task has been woken: it is in a run queue, or will be
/// resubmitted by the worker polling it. A task is queued at most once.
const NOTIFIED: usize = 0b00_0100;

/// Set by `abort()` or runtime shutdown. The next thread to take RUNNING
/// drops the future instead of polling it.
const CANCELLED: usize = 0b00_1000;

/// Set while a `JoinHandle` exists. Without it, whoever completes the task
/// drops the output at once.
const JOIN_INTEREST: usize = 0b01_0000;

/// Set while the join waker slot holds a waker the completing thread must
/// wake. The `JoinHandle` may only write the slot while this is unset; the
/// completing thread only reads it if this was set when it completed.
const JOIN_WAKER: usize = 0b10_0000;

/// Set with NOTIFIED when the running task yields (`yield_now`, a spent
/// budget: `waker::wake_as_yield`): the poller then queues it behind the
/// tasks that wait. Any other wake while it runs (another thread, the
/// driver, its own waker) leaves it clear, and the task queues as woken.
/// Cleared when the poll ends (`transition_to_idle`).
const YIELDED: usize = 0b100_0000;

const FLAG_BITS: u32 = 7;

/// One `AbortHandle` in the abort-handle count (which takes 8 bits).
const ABORT_ONE: usize = 1 << FLAG_BITS;
const ABORT_MASK: usize = 0xff << FLAG_BITS;

/// One reference in the count.
const REF_ONE: usize = 1 << (FLAG_BITS + 8);

/// A new task: referenced by the owned list, its `JoinHandle` and the
/// `Notified` that first schedules it.
const INITIAL: usize = (3 * REF_ONE) | NOTIFIED | JOIN_INTEREST;

pub(crate) struct State {
    word: AtomicUsize,
}

/// A copy of the state word taken at one instant.
#[derive(Copy, Clone, PartialEq, Eq)]
pub(crate) struct Snapshot(usize);

#[derive(Debug, PartialEq, Eq)]
pub(crate) enum ToRunning {
    /// The caller now owns the future and must poll it.
    Success,
    /// The caller owns the future and must drop it (the task was aborted).
    Cancelled,
    /// Someone else runs or already completed the task; the caller's
    /// reference was released.
    Failed,
    /// As `Failed`, and that was the last reference: free the task.
    Dealloc,
}

#[derive(Debug, PartialEq, Eq)]
pub(crate) enum ToIdle {
    /// Parked until a waker fires; the caller's reference was released.
    Ok,
    /// As `Ok`, but no waker of the task exists: nothing will wake it
    /// (`Snapshot::has_lost_waker`).
    OkLostWaker,
    /// Woken during the poll: a new reference backs a `Notified` that
    /// must be submitted, as a yield if the task yielded (`YIELDED`). The
    /// caller keeps its own reference until the scheduler call returns,
    /// then drops it (see `transition_to_notified_by_val`).
    OkNotified { yielded: bool },
    /// As `Ok`, and that was the last reference: free the task.
    OkDealloc,
    /// Aborted during the poll: the caller still owns the future and must
    /// cancel it.
    Cancelled,
}

#[derive(Debug, PartialEq, Eq)]
pub(crate) enum ToNotified {
    /// Nothing to do.
    DoNothing,
    /// Submit a `Notified` backed by one reference (already accounted for).
    Submit,
    /// The last reference was released: free the task.
    Dealloc,
}

impl State {
    pub(crate) fn new() -> State {
        State {
            word: AtomicUsize::new(INITIAL),
        }
    }

    pub(crate) fn load(&self) -> Snapshot {
        Snapshot(self.word.load(Ordering::Acquire))
    }

    fn update<R>(&self, mut f: impl FnMut(Snapshot) -> (Option<Snapshot>, R)) -> R {
        let mut current = self.load();
        loop {
            let (next, result) = f(current);
            let Some(next) = next else {
                return result;
            };
            match self.word.compare_exchange_weak(
                current.0,
                next.0,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => return result,
                Err(actual) => current = Snapshot(actual),
            }
        }
    }

    /// A worker popped a `Notified` and wants to poll the task.
    pub(crate) fn transition_to_running(&self) -> ToRunning {
        self.update(|s| {
            debug_assert!(s.is_notified(), "polling a task that was not notified");
            if s.is_running() || s.is_complete() {
                debug_assert!(s.ref_count() > 0);
                let next = Snapshot(s.0 - REF_ONE);
                let result = if next.ref_count() == 0 {
                    ToRunning::Dealloc
                } else {
                    ToRunning::Failed
                };
                return (Some(next), result);
            }
            let next = Snapshot((s.0 | RUNNING) & !NOTIFIED);
            let result = if s.is_cancelled() {
                ToRunning::Cancelled
            } else {
                ToRunning::Success
            };
            (Some(next), result)
        })
    }

    /// The poll returned `Pending`.
    pub(crate) fn transition_to_idle(&self) -> ToIdle {
        self.update(|s| {
            debug_assert!(s.is_running());
            if s.is_cancelled() {
                return (None, ToIdle::Cancelled);
            }
            let mut next = s.0 & !(RUNNING | YIELDED);
            if s.is_notified() {
                let yielded = s.0 & YIELDED != 0;
                return (
                    Some(Snapshot(next + REF_ONE)),
                    ToIdle::OkNotified { yielded },
                );
            }
            debug_assert!(s.ref_count() > 0);
            next -= REF_ONE;
            let next = Snapshot(next);
            let result = if next.ref_count() == 0 {
                ToIdle::OkDealloc
            } else if next.has_lost_waker() {
                ToIdle::OkLostWaker
            } else {
                ToIdle::Ok
            };
            (Some(next), result)
        })
    }

    /// The output (or error) is stored: RUNNING -> COMPLETE in one step.
    /// Returns the state just before.
    pub(crate) fn transition_to_complete(&self) -> Snapshot {
        let prev = Snapshot(self.word.fetch_xor(RUNNING | COMPLETE, Ordering::AcqRel));
        debug_assert!(prev.is_running() && !prev.is_complete());
        prev
    }

    /// A waker is consumed by `wake()`; it owned one reference.
    pub(crate) fn transition_to_notified_by_val(&self) -> ToNotified {
        self.update(|s| {
            debug_assert!(s.ref_count() > 0);
            if s.is_running() {
                // The polling worker resubmits; our reference is not needed.
                let next = Snapshot((s.0 | NOTIFIED) - REF_ONE);
                debug_assert!(next.ref_count() > 0, "the poller holds a reference");
                return (Some(next), ToNotified::DoNothing);
            }
            if s.is_complete() || s.is_notified() {
                let next = Snapshot(s.0 - REF_ONE);
                let result = if next.ref_count() == 0 {
                    ToNotified::Dealloc
                } else {
                    ToNotified::DoNothing
                };
                return (Some(next), result);
            }
            // Idle: a new reference backs the Notified. The waker keeps its
            // own until the scheduler call returns: once the Notified is in
            // a queue a worker may run the task to completion and drop
            // every other reference while that call still runs, and its
            // `&self` is the scheduler stored in the task (Miri found the
            // free under it: `loom_wake_by_val_outlives_the_schedule_call`).
            (
                Some(Snapshot((s.0 | NOTIFIED) + REF_ONE)),
                ToNotified::Submit,
            )
        })
    }

    /// `wake_by_ref()`: the waker keeps its reference.
    pub(crate) fn transition_to_notified_by_ref(&self) -> ToNotified {
        self.update(|s| {
            if s.is_complete() || s.is_notified() {
                return (None, ToNotified::DoNothing);
            }
            if s.is_running() {
                return (Some(Snapshot(s.0 | NOTIFIED)), ToNotified::DoNothing);
            }
            let next = Snapshot((s.0 | NOTIFIED) + REF_ONE);
            (Some(next), ToNotified::Submit)
        })
    }

    /// A yield (`waker::wake_as_yield`): as `transition_to_notified_by_ref`,
    /// and a running task is marked `YIELDED` too.
    pub(crate) fn transition_to_yielded(&self) -> ToNotified {
        self.update(|s| {
            if s.is_complete() {
                return (None, ToNotified::DoNothing);
            }
            if s.is_running() {
                let next = Snapshot(s.0 | NOTIFIED | YIELDED);
                return ((next != s).then_some(next), ToNotified::DoNothing);
            }
            if s.is_notified() {
                return (None, ToNotified::DoNothing);
            }
            let next = Snapshot((s.0 | NOTIFIED) + REF_ONE);
            (Some(next), ToNotified::Submit)
        })
    }

    /// `abort()` through a `JoinHandle` or `AbortHandle`: marks the task
    /// CANCELLED and never touches the future itself, since the aborting
    /// thread may be outside the runtime or hold a lock the future's
    /// destructor takes. A task being polled, or sitting in a run queue, is
    /// cancelled by whoever takes RUNNING next (`transition_to_running` or
    /// `transition_to_idle` return `Cancelled`). An idle task is notified
    /// too, with a new reference, and the caller must submit it to its
    /// scheduler (`Submit`), whose worker then drops the future inside the
    /// runtime.
    pub(crate) fn transition_to_notified_and_cancel(&self) -> ToNotified {
        self.update(|s| {
            if s.is_complete() || s.is_cancelled() {
                // Finished, or an earlier abort already arranged the cancel.
                return (None, ToNotified::DoNothing);
            }
            if s.is_running() || s.is_notified() {
                return (Some(Snapshot(s.0 | CANCELLED)), ToNotified::DoNothing);
            }
            let next = Snapshot((s.0 | CANCELLED | NOTIFIED) + REF_ONE);
            (Some(next), ToNotified::Submit)
        })
    }

    /// A spawn call that must report failure takes back the task it
    /// queued: marks it CANCELLED unless a thread has already taken
    /// RUNNING (or completed it). Returns `true` if it did, or if the
    /// queue already cancelled it: whoever takes the queued `Notified`
    /// then drops the future unpolled (`transition_to_running` returns
    /// `Cancelled`), so the task never runs. `false`: it runs or ran, and
    /// the call did not fail. (No `abort` can have set CANCELLED: the
    /// caller has not handed out the `JoinHandle` yet.)
    pub(crate) fn cancel_unless_started(&self) -> bool {
        self.update(|s| {
            if s.is_cancelled() {
                return (None, true);
            }
            if s.is_running() || s.is_complete() {
                return (None, false);
            }
            debug_assert!(s.is_notified(), "a task just spawned is queued");
            (Some(Snapshot(s.0 | CANCELLED)), true)
        })
    }

    /// Runtime shutdown, once no worker polls any more (or a queue that will
    /// never run the task drops it). Returns `true` if the caller took
    /// RUNNING (and a reference that backs it, as a poller holds one) and
    /// must cancel the task now: it was idle, or queued, maybe already
    /// marked by an `abort()` whose queue entry will never run. A task that
    /// is being polled (a worker shutdown gave up waiting for) is only
    /// marked, and its poller cancels it.
    pub(crate) fn transition_to_shutdown(&self) -> bool {
        self.update(|s| {
            if s.is_complete() {
                return (None, false);
            }
            if s.is_running() {
                if s.is_cancelled() {
                    return (None, false);
                }
                return (Some(Snapshot(s.0 | CANCELLED)), false);
            }
            (Some(Snapshot((s.0 | CANCELLED | RUNNING) + REF_ONE)), true)
        })
    }

    /// The `JoinHandle` is dropped. `Err` means the task already completed
    /// and the handle owns the output. On `Ok` the returned snapshot tells
    /// whether the handle must drop the waker it had stored.
    pub(crate) fn unset_join_interested(&self) -> Result<Snapshot, Snapshot> {
        self.update(|s| {
            debug_assert!(s.is_join_interested());
            if s.is_complete() {
                return (None, Err(s));
            }
            (Some(Snapshot(s.0 & !(JOIN_INTEREST | JOIN_WAKER))), Ok(s))
        })
    }

    /// Publish the waker just written to the slot. `Err` means the task
    /// completed first; the slot still belongs to the handle.
    pub(crate) fn set_join_waker(&self) -> Result<Snapshot, Snapshot> {
        self.update(|s| {
            debug_assert!(s.is_join_interested() && !s.is_join_waker_set());
            if s.is_complete() {
                return (None, Err(s));
            }
            (Some(Snapshot(s.0 | JOIN_WAKER)), Ok(s))
        })
    }

    /// Take the slot back to replace its waker. `Err` means the task
    /// completed first.
    pub(crate) fn unset_join_waker(&self) -> Result<Snapshot, Snapshot> {
        self.update(|s| {
            debug_assert!(s.is_join_interested() && s.is_join_waker_set());
            if s.is_complete() {
                return (None, Err(s));
            }
            (Some(Snapshot(s.0 & !JOIN_WAKER)), Ok(s))
        })
    }

    pub(crate) fn ref_inc(&self) {
        let prev = self.word.fetch_add(REF_ONE, Ordering::Relaxed);
        // Far more references than memory could back means a leak loop;
        // wrapping would free a live task.
        if prev > usize::MAX / 2 {
            std::process::abort();
        }
    }

    /// A new `AbortHandle`'s reference. `true` if it is counted as an
    /// abort handle too (the count is full at 255): the handle must then
    /// release it with `abort_handle_dec(true)`.
    pub(crate) fn abort_handle_inc(&self) -> bool {
        self.update(|s| {
            // As in `ref_inc`.
            if s.0 > usize::MAX / 2 {
                std::process::abort();
            }
            if s.0 & ABORT_MASK == ABORT_MASK {
                (Some(Snapshot(s.0 + REF_ONE)), false)
            } else {
                (Some(Snapshot(s.0 + REF_ONE + ABORT_ONE)), true)
            }
        })
    }

    /// Drops an `AbortHandle`'s reference (and its place in the count if
    /// `counted`); `true` if it was the last reference.
    pub(crate) fn abort_handle_dec(&self, counted: bool) -> bool {
        let one = if counted {
            REF_ONE + ABORT_ONE
        } else {
            REF_ONE
        };
        let prev = Snapshot(self.word.fetch_sub(one, Ordering::AcqRel));
        debug_assert!(prev.ref_count() >= 1, "task reference count underflow");
        prev.ref_count() == 1
    }

    /// Drops one reference; `true` if it was the last.
    pub(crate) fn ref_dec(&self) -> bool {
        self.ref_dec_many(1)
    }

    /// Drops `count` references at once; `true` if they were the last.
    pub(crate) fn ref_dec_many(&self, count: usize) -> bool {
        let prev = Snapshot(self.word.fetch_sub(count * REF_ONE, Ordering::AcqRel));
        debug_assert!(prev.ref_count() >= count, "task reference count underflow");
        prev.ref_count() == count
    }
}

impl Snapshot {
    pub(crate) fn is_running(self) -> bool {
        self.0 & RUNNING != 0
    }
    pub(crate) fn is_complete(self) -> bool {
        self.0 & COMPLETE != 0
    }
    pub(crate) fn is_notified(self) -> bool {
        self.0 & NOTIFIED != 0
    }
    pub(crate) fn is_cancelled(self) -> bool {
        self.0 & CANCELLED != 0
    }
    pub(crate) fn is_join_interested(self) -> bool {
        self.0 & JOIN_INTEREST != 0
    }
    pub(crate) fn is_join_waker_set(self) -> bool {
        self.0 & JOIN_WAKER != 0
    }
    pub(crate) fn ref_count(self) -> usize {
        self.0 / REF_ONE
    }
    /// The `AbortHandle`s counted among the references.
    fn abort_handles(self) -> usize {
        (self.0 & ABORT_MASK) / ABORT_ONE
    }

    /// The task is idle (not queued, polled, finished or aborted) and no
    /// waker of it exists: every reference left is its owned list's, its
    /// `JoinHandle`'s or a counted `AbortHandle`'s. Nothing can wake it
    /// then, as a waker is only made by a poll or cloned from another:
    /// only an abort or its runtime's shutdown will touch it again. (An
    /// uncounted abort handle, past the 255th, or a `JoinHandle` dropped
    /// between its two steps, counts as a waker here: the answer errs
    /// towards `false`.)
    pub(crate) fn has_lost_waker(self) -> bool {
        if self.0 & (RUNNING | NOTIFIED | COMPLETE | CANCELLED) != 0 {
            return false;
        }
        let handle = usize::from(self.is_join_interested());
        self.ref_count() <= 1 + handle + self.abort_handles()
    }
}

impl fmt::Debug for Snapshot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Snapshot")
            .field("running", &self.is_running())
            .field("complete", &self.is_complete())
            .field("notified", &self.is_notified())
            .field("cancelled", &self.is_cancelled())
            .field("join_interested", &self.is_join_interested())
            .field("join_waker", &self.is_join_waker_set())
            .field("refs", &self.ref_count())
            .field("abort_handles", &self.abort_handles())
            .finish()
    }
}

impl fmt::Debug for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.load().fmt(f)
    }
}
