//! The typed half of the task: what the vtable entries do with a concrete
//! `Cell<F, S>`.
//!
//! Polling a task:
//! 1. take RUNNING (`transition_to_running`); the task may have been
//!    cancelled or already taken, then nothing is polled;
//! 2. poll the future under the cooperative budget, catching panics;
//! 3. on `Ready` (or a panic) store the result and complete; on `Pending`
//!    give RUNNING back (`transition_to_idle`) and resubmit the task if it
//!    was woken meanwhile (as a yield if it yielded, `waker::wake_as_yield`;
//!    else as a task woken while it ran), or cancel it if it was aborted
//!    meanwhile.
//!
//! Completing a task:
//! 1. settle the owned-list entry first (so a joiner that sees the task
//!    complete never sees it counted alive): with no `JoinHandle` left
//!    (join interest never comes back), remove it; else keep it, counted
//!    as complete (`OwnedTasks::hold_complete`), for the dump to show;
//! 2. RUNNING -> COMPLETE in one step; the snapshot says whether a
//!    `JoinHandle` still wants the output and has a waker stored;
//! 3. no handle: drop the output here (and the entry, if the handle went
//!    between steps 1 and 2); a waker: wake it; then tell the scheduler
//!    (`Schedule::completed`);
//! 4. drop the owned list's reference, if the entry left, along with the
//!    poller's own.
//!
//! A kept entry leaves when the `JoinHandle` takes the output
//! (`try_read_output`) or is dropped (`drop_join_handle`), whichever comes
//! first, unless shutdown drained it before: `release_held` drops the
//! list's reference for whoever removed it.

use crate::loom::cell::UnsafeCell;
use crate::runtime::context;
use crate::task::coop;
use crate::task::error::JoinError;
use crate::task::raw::{Cell, Header, RawTask, Stage, Vtable};
use crate::task::state::{ToIdle, ToRunning};
use crate::task::trace::{TaskEvent, task_event};
use crate::task::{Notified, Priority, Schedule, waker};
use std::future::Future;
use std::marker::PhantomData;
use std::panic::{self, AssertUnwindSafe};
use std::pin::Pin;
use std::ptr::NonNull;
use std::task::{Context, Poll, Waker};

/// The vtable of a `Cell<F, S>` whose task has `priority`, and whose
/// polls record what it waits for if `tracks_waits` (`waits.rs`).
#[inline]
pub(super) fn vtable<F, S>(priority: Priority, tracks_waits: bool) -> &'static Vtable
where
    F: Future + 'static,
    F::Output: 'static,
    S: Schedule,
{
    if tracks_waits {
        Vtables::<F, S>::TRACKING_WAITS[priority.index()]
    } else {
        Vtables::<F, S>::BY_PRIORITY[priority.index()]
    }
}

/// One vtable per priority for each `F` and `S`, and as many again for
/// the tasks whose runtime tracks their waits: the priority lives in the
/// vtable rather than in the header, where a byte more would grow every
/// task's allocation by a word; the tracking, so that an untracked poll
/// does not even check a flag (a check per poll, and the second copy of
/// the poll it guards, cost ct_yield_many 5% of its instructions).
struct Vtables<F, S>(PhantomData<(F, S)>);

impl<F, S> Vtables<F, S>
where
    F: Future + 'static,
    F::Output: 'static,
    S: Schedule,
{
    /// Indexed by `Priority::index`.
    const BY_PRIORITY: [&'static Vtable; 3] = [
        &Vtables::<F, S>::with::<false>(Priority::Low),
        &Vtables::<F, S>::with::<false>(Priority::Normal),
        &Vtables::<F, S>::with::<false>(Priority::High),
    ];

    /// As `BY_PRIORITY`, for tasks that record their waits.
    const TRACKING_WAITS: [&'static Vtable; 3] = [
        &Vtables::<F, S>::with::<true>(Priority::Low),
        &Vtables::<F, S>::with::<true>(Priority::Normal),
        &Vtables::<F, S>::with::<true>(Priority::High),
    ];

    const fn with<const TRACKS_WAITS: bool>(priority: Priority) -> Vtable {
        Vtable {
            poll: poll::<F, S, TRACKS_WAITS>,
            schedule: schedule::<F, S>,
            dealloc: dealloc::<F, S>,
            try_read_output: try_read_output::<F, S>,
            drop_join_handle: drop_join_handle::<F, S>,
            shutdown: shutdown::<F, S>,
            priority,
            #[cfg(feature = "sim")]
            woken: if S::HEARS_WAKES {
                Some(woken::<F, S>)
            } else {
                None
            },
        }
    }
}

/// # Safety
/// `ptr` must point to a live `Cell<F, S>` that stays alive for `'a`: the
/// caller picks a lifetime no longer than its counted reference, and
/// stops using the result before that reference may be the last.
unsafe fn cell<'a, F: Future, S>(ptr: NonNull<Header>) -> &'a Cell<F, S> {
    // SAFETY: the header is the first field of the `repr(C)` cell, and the
    // caller guarantees the cell's types and liveness.
    unsafe { ptr.cast::<Cell<F, S>>().as_ref() }
}

/// The vtable's `poll`; `TRACKS_WAITS`: it records what the task waits
/// for (`waits.rs`).
///
/// # Safety
/// `ptr` points to a live `Cell<F, S>`, and the caller gives up the
/// reference of the `Notified` it ran.
unsafe fn poll<F, S, const TRACKS_WAITS: bool>(ptr: NonNull<Header>)
where
    F: Future + 'static,
    F::Output: 'static,
    S: Schedule,
{
    // SAFETY: the vtable that called us was built for `Cell<F, S>`, and
    // the caller's `Notified` reference keeps it alive.
    let cell = unsafe { cell::<F, S>(ptr) };
    match cell.header.state.transition_to_running() {
        ToRunning::Success => {}
        ToRunning::Cancelled => {
            cancel_future(cell);
            // SAFETY: we hold RUNNING and the poller's reference.
            unsafe { complete::<F, S>(ptr) };
            return;
        }
        ToRunning::Failed => return,
        ToRunning::Dealloc => {
            // SAFETY: the last reference was just dropped.
            unsafe { dealloc::<F, S>(ptr) };
            return;
        }
    }

    // SAFETY: we hold a reference for as long as the borrowed waker lives.
    let waker = unsafe { waker::borrowed(ptr) };
    let mut cx = Context::from_waker(&waker);
    let polled = if TRACKS_WAITS {
        poll_recording_waits(cell, &mut cx)
    } else {
        poll_future(cell, &mut cx)
    };
    if polled.is_ready() {
        // SAFETY: we hold RUNNING and the poller's reference.
        unsafe { complete::<F, S>(ptr) };
        return;
    }
    match cell.header.state.transition_to_idle() {
        ToIdle::Ok => {}
        ToIdle::OkLostWaker => report_lost_waker(cell),
        ToIdle::OkNotified { yielded } => {
            // SAFETY: the transition counted a new reference for this
            // Notified.
            let task = unsafe { Notified::from_raw(RawTask::from_raw(ptr)) };
            if yielded {
                cell.scheduler.yield_now(task);
            } else {
                // Woken by another thread, the driver, or a waker of its
                // own that is not a yield: not behind the yielders.
                cell.scheduler.woken_while_running(task);
            }
            // The poller's reference kept the task (and `cell`) alive
            // through the call; another worker may have run it since.
            if cell.header.state.ref_dec() {
                // SAFETY: that was the last reference; `cell` is not used
                // again.
                unsafe { dealloc::<F, S>(ptr) };
            }
        }
        // SAFETY: the last reference was just dropped.
        ToIdle::OkDealloc => unsafe { dealloc::<F, S>(ptr) },
        ToIdle::Cancelled => {
            cancel_future(cell);
            // SAFETY: we still hold RUNNING and the poller's reference.
            unsafe { complete::<F, S>(ptr) };
        }
    }
}

/// `poll_future`, keeping what the future waits for in the task's
/// owned-list entry when it returns `Pending` (steps 1 to 3 of
/// `waits.rs`).
#[cold]
#[inline(never)]
fn poll_recording_waits<F: Future, S: Schedule>(
    cell: &Cell<F, S>,
    cx: &mut Context<'_>,
) -> Poll<()> {
    let (polled, waits) = context::recording_waits(|| poll_future(cell, cx));
    // A poll that recorded nothing takes no lock: the waits of an earlier
    // poll are stale once the poll count moved past them (`list.rs`).
    if polled.is_pending() && !waits.is_empty() {
        if let Some(owned) = cell.scheduler.owned_tasks() {
            owned.set_waits(&cell.header, waits);
        }
    }
    polled
}

/// Polls the future (the caller holds RUNNING). On `Ready` or a panic the
/// stage now holds the result.
#[inline(always)]
fn poll_future<F: Future, S>(cell: &Cell<F, S>, cx: &mut Context<'_>) -> Poll<()> {
    let id = cell.header.id;
    let span = &cell.header.span;
    let outcome = span.in_poll(|| {
        panic::catch_unwind(AssertUnwindSafe(|| {
            context::with_task(&cell.header, || {
                // A poll that panics drops the future during the unwind (as
                // tokio does), so its destructors see `thread::panicking()`.
                let drop_on_unwind = DropStageOnUnwind(&cell.stage);
                let polled = coop::budget(|| {
                    cell.stage.with_mut(|stage| {
                        // SAFETY: RUNNING gives us exclusive access to the stage.
                        match unsafe { &mut *stage } {
                            Stage::Running(future) => {
                                // SAFETY: the future lives in the task allocation
                                // and is never moved until it is dropped in place.
                                unsafe { Pin::new_unchecked(future) }.poll(cx)
                            }
                            _ => unreachable!("rt: polled a task whose future is gone"),
                        }
                    })
                });
                std::mem::forget(drop_on_unwind);
                polled
            })
        }))
    });
    let result = match outcome {
        Ok(Poll::Pending) => return Poll::Pending,
        Ok(Poll::Ready(output)) => Ok(output),
        Err(payload) => Err(JoinError::panic(id, payload)),
    };
    // The future is dropped before the result is stored; a panic while
    // dropping a finished future is reported in its place.
    let result = match take_stage(&cell.header, &cell.stage) {
        Ok(()) => result,
        Err(payload) => Err(JoinError::panic(id, payload)),
    };
    set_stage(&cell.stage, Stage::Finished(result));
    Poll::Ready(())
}

/// Drops the stage in place if dropped itself, which only a panicking poll
/// lets happen (it is forgotten otherwise). The caller holds RUNNING.
struct DropStageOnUnwind<'a, F: Future>(&'a UnsafeCell<Stage<F>>);

impl<F: Future> Drop for DropStageOnUnwind<'_, F> {
    fn drop(&mut self) {
        // SAFETY: RUNNING gives this thread the stage, and the poll that
        // borrowed the future has unwound, so nothing refers to it. The
        // stage becomes `Consumed`, which `poll_future` then drops again
        // harmlessly.
        let old = self
            .0
            .with_mut(|stage| unsafe { std::mem::replace(&mut *stage, Stage::Consumed) });
        drop(old);
    }
}

/// Drops the future of a cancelled task and stores the error.
fn cancel_future<F: Future, S>(cell: &Cell<F, S>) {
    let id = cell.header.id;
    let error = match take_stage(&cell.header, &cell.stage) {
        Ok(()) => JoinError::cancelled(id),
        Err(payload) => JoinError::panic(id, payload),
    };
    set_stage(&cell.stage, Stage::Finished(Err(error)));
}

/// Drops the stage in place and leaves `Consumed` there, catching a panic
/// from its destructor. The caller owns the stage of the task `task`.
/// The destructors run with `task` recorded as the current task, as in
/// tokio, so `task::id()` works in them wherever the drop happens: after
/// the last poll, on cancellation, at shutdown, or in the `JoinHandle`'s
/// drop on another task or thread.
///
/// In place, never moved out first: the future was pinned in the task (it
/// is polled through `Pin::new_unchecked`), and `Pin`'s drop guarantee
/// says its memory stays put until its destructor has run. A future whose
/// destructor unlinks it from an intrusive list by address relies on that.
fn take_stage<F: Future>(task: &Header, stage: &UnsafeCell<Stage<F>>) -> std::thread::Result<()> {
    let dropped = panic::catch_unwind(AssertUnwindSafe(|| {
        context::with_task(task, || {
            // SAFETY: the caller owns the stage, so nothing else reads or
            // writes it while it is dropped; the write below makes sure the
            // dropped value is never used or dropped again.
            stage.with_mut(|stage| unsafe { std::ptr::drop_in_place(stage) })
        })
    }));
    // SAFETY: the caller owns the stage; the old value was dropped above
    // (an unwinding destructor still drops the rest of it), so writing
    // over it without dropping it is what is left to do.
    stage.with_mut(|stage| unsafe { stage.write(Stage::Consumed) });
    dropped
}

fn set_stage<F: Future>(stage: &UnsafeCell<Stage<F>>, value: Stage<F>) {
    // SAFETY: the caller owns the stage, which is `Consumed` (nothing to
    // drop) whenever this is called.
    stage.with_mut(|stage| unsafe { stage.write(value) });
}

/// Stores nothing itself (the stage already holds the result): leaves the
/// owned list, publishes COMPLETE, then drops the poller's reference and
/// the list's, freeing the task if those were the last.
///
/// # Safety
/// `ptr` points to a live `Cell<F, S>` whose RUNNING bit the caller holds,
/// along with the poller's reference, which is given up. The caller keeps
/// no reference into the cell across this call: the task may be freed
/// here, through `ptr`, whose provenance covers the whole allocation.
unsafe fn complete<F: Future, S: Schedule>(ptr: NonNull<Header>) {
    // SAFETY: per the caller; `cell` is not used past the last `ref_dec`.
    let cell = unsafe { cell::<F, S>(ptr) };
    task_event(&cell.header, TaskEvent::Complete);
    let header = &cell.header;
    let owned = cell.scheduler.owned_tasks();
    // Settle the entry first, so that once the JoinHandle can see the task
    // complete, the runtime no longer counts it as alive.
    let mut held = false;
    let mut released = false;
    if let Some(owned) = owned {
        if header.state.load().is_join_interested() {
            owned.hold_complete(header);
            held = true;
        } else {
            report_lost_panic(cell);
            released = owned.remove(header);
        }
    }
    let snapshot = header.state.transition_to_complete();
    if !snapshot.is_join_interested() {
        if held {
            report_lost_panic(cell);
            // The JoinHandle was dropped since: nobody will remove the
            // entry but us (or shutdown, if it drained it already).
            released = owned.is_some_and(|owned| owned.remove_complete(header));
        }
        // Nobody will read the output. A panic from its destructor has no
        // one to be reported to and must not take down the worker.
        let _ = take_stage(&cell.header, &cell.stage);
    } else if snapshot.is_join_waker_set() {
        cell.join_waker.with(|waker| {
            // SAFETY: JOIN_WAKER was set when we completed, so the handle
            // will not write the slot again; it holds a waker.
            let waker = unsafe { (*waker).as_ref() };
            waker
                .expect("rt: JOIN_WAKER set without a waker")
                .wake_by_ref();
        });
    }
    cell.scheduler.completed();
    if cell.header.state.ref_dec_many(1 + usize::from(released)) {
        // SAFETY: those were the last references; `cell` is dead from here
        // on, and `ptr` (not a pointer derived from `cell`) frees the task.
        unsafe { dealloc::<F, S>(ptr) };
    }
}

/// The `JoinHandle` of a task that completed while it waited takes the
/// output or is dropped: the owned list lets go of the task (step 1 of
/// the completion kept it), unless shutdown drained it first.
///
/// The caller is the `JoinHandle`, which saw the task complete and still
/// holds its reference, so the list's is never the last one.
fn release_held<F: Future, S: Schedule>(cell: &Cell<F, S>) {
    let Some(owned) = cell.scheduler.owned_tasks() else {
        return;
    };
    if owned.remove_complete(&cell.header) {
        let last = cell.header.state.ref_dec();
        debug_assert!(!last, "the JoinHandle still holds a reference");
    }
}

/// The vtable's `schedule`.
///
/// # Safety
/// `ptr` points to a live `Cell<F, S>`; the caller's state transition set
/// NOTIFIED and counted the reference that moves into the new `Notified`.
unsafe fn schedule<F: Future, S: Schedule>(ptr: NonNull<Header>) {
    // SAFETY: the vtable matches, and the caller's counted reference keeps
    // the cell alive.
    let cell = unsafe { cell::<F, S>(ptr) };
    // SAFETY: the caller's counted reference moves into the Notified.
    let task = unsafe { Notified::from_raw(RawTask::from_raw(ptr)) };
    cell.scheduler.schedule(task);
}

/// The vtable's `woken`.
///
/// # Safety
/// `ptr` points to a live `Cell<F, S>` that the caller's reference (its
/// waker's, its abort handle's) keeps alive for the call.
#[cfg(feature = "sim")]
unsafe fn woken<F: Future, S: Schedule>(ptr: NonNull<Header>) {
    // SAFETY: the vtable matches, and the caller's reference keeps the
    // cell alive.
    let cell = unsafe { cell::<F, S>(ptr) };
    cell.scheduler.woken(cell.header.id);
}

/// The vtable's `dealloc`.
///
/// # Safety
/// `ptr` is the pointer `RawTask::new` made for a `Cell<F, S>` (or a copy),
/// the last reference was just dropped, and no reference into the cell
/// is live.
unsafe fn dealloc<F: Future, S>(ptr: NonNull<Header>) {
    // SAFETY: the cell came from `Box::into_raw` in `RawTask::new`, and the
    // caller dropped the last reference, so no one else can reach it.
    drop(unsafe { Box::from_raw(ptr.cast::<Cell<F, S>>().as_ptr()) });
    #[cfg(debug_assertions)]
    crate::task::raw::LIVE_ALLOCATIONS.fetch_sub(1, std::sync::atomic::Ordering::Release);
}

/// The vtable's `try_read_output`.
///
/// # Safety
/// `ptr` points to a live `Cell<F, S>`, the caller holds the join interest
/// and a reference, and `dst` points to a writable
/// `Poll<Result<F::Output, JoinError>>`.
unsafe fn try_read_output<F: Future, S: Schedule>(
    ptr: NonNull<Header>,
    dst: *mut (),
    waker: &Waker,
) {
    // SAFETY: the vtable matches, the JoinHandle's reference keeps it alive.
    let cell = unsafe { cell::<F, S>(ptr) };
    if !can_read_output(cell, waker) {
        return;
    }
    // SAFETY: COMPLETE is set and we hold the join interest: the stage is ours.
    let stage = cell
        .stage
        .with_mut(|stage| unsafe { std::mem::replace(&mut *stage, Stage::Consumed) });
    let output = match stage {
        Stage::Finished(output) => output,
        _ => panic!("rt: JoinHandle polled after it returned Ready"),
    };
    // The output is out of the task: it no longer shows in the dump.
    release_held(cell);
    // SAFETY: the caller passes a `*mut Poll<Result<F::Output, JoinError>>`.
    unsafe { *dst.cast::<Poll<Result<F::Output, JoinError>>>() = Poll::Ready(output) };
}

/// `true` if the task has completed; otherwise makes sure `waker` is the
/// one that will be woken when it does.
fn can_read_output<F: Future, S>(cell: &Cell<F, S>, waker: &Waker) -> bool {
    let state = &cell.header.state;
    let snapshot = state.load();
    if snapshot.is_complete() {
        return true;
    }
    let result = if !snapshot.is_join_waker_set() {
        store_join_waker(cell, waker.clone())
    } else {
        // SAFETY: while JOIN_WAKER is set the completing side only reads
        // the slot, so reading it here is fine.
        let same = cell
            .join_waker
            .with(|slot| unsafe { (*slot).as_ref() }.is_some_and(|w| w.will_wake(waker)));
        if same {
            return false;
        }
        state
            .unset_join_waker()
            .and_then(|_| store_join_waker(cell, waker.clone()))
    };
    match result {
        Ok(_) => false,
        Err(snapshot) => {
            debug_assert!(snapshot.is_complete());
            true
        }
    }
}

fn store_join_waker<F: Future, S>(
    cell: &Cell<F, S>,
    waker: Waker,
) -> Result<crate::task::state::Snapshot, crate::task::state::Snapshot> {
    // SAFETY: JOIN_WAKER is unset and we hold the join interest, so the
    // completing side will not read the slot: it is ours to write.
    cell.join_waker
        .with_mut(|slot| unsafe { *slot = Some(waker) });
    let result = cell.header.state.set_join_waker();
    if result.is_err() {
        // SAFETY: completion won the race with JOIN_WAKER unset, so the slot
        // is still ours.
        cell.join_waker.with_mut(|slot| unsafe { *slot = None });
    }
    result
}

/// Reports the panic the finished stage holds, if it holds one, as lost:
/// its `JoinHandle` is gone without reading it, and the panic hook's
/// message names no task. Only when the scheduler asks for it (its
/// watchdog is on). The caller owns the stage, and the task is still in
/// its owned list (unless shutdown drained it: then only its id is known).
fn report_lost_panic<F: Future, S: Schedule>(cell: &Cell<F, S>) {
    if !cell.scheduler.watchdog_on() {
        return;
    }
    // SAFETY: the caller owns the stage; this only reads it.
    let panicked = cell.stage.with(
        |stage| matches!(unsafe { &*stage }, Stage::Finished(Err(error)) if error.is_panic()),
    );
    if panicked {
        crate::runtime::watchdog::report_lost_panic(cell.header.id, cell.scheduler.owned_tasks());
    }
}

/// The task returned `Pending` and no waker of it is left: with the
/// watchdog on, the report names it (no poll ever comes again to say so).
/// Nothing was released here, and the owned list's reference keeps the
/// task alive (`has_lost_waker` counts it).
#[cold]
#[inline(never)]
fn report_lost_waker<F: Future, S: Schedule>(cell: &Cell<F, S>) {
    if cell.scheduler.watchdog_on() {
        crate::runtime::watchdog::report_lost_waker(cell.header.id, cell.scheduler.owned_tasks());
    }
}

/// The vtable's `drop_join_handle`.
///
/// # Safety
/// `ptr` points to a live `Cell<F, S>`; the caller is its `JoinHandle` and
/// gives up the join interest and the handle's reference.
unsafe fn drop_join_handle<F: Future, S: Schedule>(ptr: NonNull<Header>) {
    // SAFETY: the vtable matches, the JoinHandle's reference keeps it alive.
    let cell = unsafe { cell::<F, S>(ptr) };
    match cell.header.state.unset_join_interested() {
        // Completed: the output is ours to drop.
        Err(_) => {
            // SAFETY: COMPLETE is set and we hold the join interest: the
            // stage is ours.
            let read = cell
                .stage
                .with(|stage| matches!(unsafe { &*stage }, Stage::Consumed));
            if !read {
                report_lost_panic(cell);
                // Still held in the owned list (reading would have
                // released it): leave it before the output goes.
                release_held(cell);
            }
            // A panic in the output's destructor stays here, as in tokio:
            // the panic hook has reported it, and the handle's owner (often
            // a destructor itself, or a thread already unwinding, where a
            // second panic aborts) never asked for the value.
            let _ = take_stage(&cell.header, &cell.stage);
        }
        Ok(prev) => {
            if prev.is_join_waker_set() {
                // SAFETY: we cleared JOIN_WAKER before completion, so the
                // completing side will not read the slot.
                cell.join_waker.with_mut(|slot| unsafe { *slot = None });
            }
        }
    }
    if cell.header.state.ref_dec() {
        // SAFETY: that was the last reference.
        unsafe { dealloc::<F, S>(ptr) };
    }
}

/// The vtable's `shutdown`.
///
/// # Safety
/// `ptr` points to a live `Cell<F, S>` and the caller holds a reference.
unsafe fn shutdown<F: Future, S: Schedule>(ptr: NonNull<Header>) {
    // SAFETY: the vtable matches, the caller's reference keeps it alive.
    let cell = unsafe { cell::<F, S>(ptr) };
    if cell.header.state.transition_to_shutdown() {
        cancel_future(cell);
        // SAFETY: the transition gave us RUNNING and a reference to give up.
        unsafe { complete::<F, S>(ptr) };
    }
}
