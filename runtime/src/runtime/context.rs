//! The per-thread runtime context: which runtime is current, whether this
//! thread is inside a runtime (where blocking on one is an error), the
//! scheduler running on this thread, the task being polled and its
//! cooperative budget.
//!
//! Every access tolerates the context being gone: a runtime (or a task, a
//! guard) may be dropped by another thread-local's destructor after this
//! one was destroyed, and then it is shut down as if no runtime were
//! current, instead of panicking inside a destructor (which aborts). The
//! per-poll part (`Hot`) has no destructor and is never gone.
//!
//! The current runtime is a stack: each `set_current` guard pushes the
//! handle it makes current and pops it when dropped, and the current
//! runtime is the top one. A guard dropped out of order (before a newer
//! one) takes its own entry out, so no stale handle stays current, and
//! then panics, as misuse, unless the thread is already panicking.

use crate::scheduler;
use crate::task::waits::Recording;
use crate::task::{Budget, Header, Id, Priority};
use std::cell::{Cell, RefCell};
use std::marker::PhantomData;
use std::ptr::NonNull;

struct Context {
    /// The runtimes made current by `Runtime::enter`, `block_on` and on
    /// worker threads, oldest first, with the id of the guard that pushed
    /// each. The last one is current.
    current: RefCell<Vec<(u64, scheduler::Handle)>>,
    /// The id of the next `SetCurrentGuard`.
    next_guard: Cell<u64>,
    /// `true` inside `block_on` or on a worker thread.
    entered: Cell<bool>,
}

impl Context {
    const fn new() -> Context {
        Context {
            current: RefCell::new(Vec::new()),
            next_guard: Cell::new(0),
            entered: Cell::new(false),
        }
    }
}

/// The part of the context read and written on every poll and wake. It
/// holds no value with a destructor, so its thread-local needs no
/// registration and no liveness check on access (the `Context` above,
/// whose handles must be dropped, pays one on every access), and it is
/// never torn down: its accessors work in other thread-locals'
/// destructors too, where nothing is installed.
struct Hot {
    /// The scheduler loop running on this thread, if any.
    scheduler: Cell<*const scheduler::Context>,
    /// The header of the task being polled on this thread (see
    /// `with_task` for why it is valid while set).
    task: Cell<Option<NonNull<Header>>>,
    budget: Cell<Budget>,
    /// Which timer shard this thread registers in (`None`: not chosen
    /// yet); see `timer_shard_hint`.
    timer_shard: Cell<Option<usize>>,
    /// The task being polled records what it waits for in `WAITS`
    /// (`task/waits.rs`): checked by every `Pending` of rt's leaf futures.
    recording_waits: Cell<bool>,
}

impl Hot {
    const fn new() -> Hot {
        Hot {
            scheduler: Cell::new(std::ptr::null()),
            task: Cell::new(None),
            budget: Cell::new(Budget::unconstrained()),
            timer_shard: Cell::new(None),
            recording_waits: Cell::new(false),
        }
    }
}

#[cfg(not(loom))]
thread_local! {
    static CONTEXT: Context = const { Context::new() };
    static HOT: Hot = const { Hot::new() };
    static WAITS: RefCell<Recording> = const { RefCell::new(Recording::new()) };
}

// Loom runs its threads on one OS thread: the context must be loom's
// per-model-thread local.
#[cfg(loom)]
loom::thread_local! {
    static CONTEXT: Context = Context::new();
    static HOT: Hot = Hot::new();
    static WAITS: RefCell<Recording> = RefCell::new(Recording::new());
}

/// Runs `f` with the current runtime's handle, or returns `None` when this
/// thread has no current runtime (or is being torn down).
pub(crate) fn with_current<R>(f: impl FnOnce(&scheduler::Handle) -> R) -> Option<R> {
    try_with_current(f).ok().flatten()
}

/// Like [`with_current`], telling apart "no runtime is current" (`Ok(None)`)
/// from "this thread's context is already destroyed" (`Err`: called from a
/// thread-local destructor).
pub(crate) fn try_with_current<R>(
    f: impl FnOnce(&scheduler::Handle) -> R,
) -> Result<Option<R>, ()> {
    CONTEXT
        .try_with(|cx| cx.current.borrow().last().map(|(_, handle)| f(handle)))
        .map_err(|_| ())
}

/// Makes `handle` current until the guard drops.
pub(crate) fn set_current(handle: &scheduler::Handle) -> SetCurrentGuard {
    let id = CONTEXT
        .try_with(|cx| {
            let id = cx.next_guard.get();
            cx.next_guard.set(id + 1);
            cx.current.borrow_mut().push((id, handle.clone()));
            id
        })
        // The context is gone (a thread-local destructor): nothing to undo.
        .ok();
    SetCurrentGuard {
        id,
        _thread_bound: PhantomData,
    }
}

/// Takes its runtime off the current stack when dropped.
#[derive(Debug)]
pub(crate) struct SetCurrentGuard {
    /// Its entry on the stack; `None` if it pushed none.
    id: Option<u64>,
    /// `!Send`: it must drop on the thread whose stack it pushed on. But
    /// `Sync` (a `MutexGuard<()>` is both, as tokio's `EnterGuard` is): a
    /// shared reference reads nothing but the id.
    _thread_bound: PhantomData<std::sync::MutexGuard<'static, ()>>,
}

impl Drop for SetCurrentGuard {
    fn drop(&mut self) {
        let Some(id) = self.id else { return };
        let in_order = CONTEXT.try_with(|cx| {
            let mut current = cx.current.borrow_mut();
            let position = current.iter().rposition(|&(entry, _)| entry == id);
            let in_order = position.is_none_or(|at| at + 1 == current.len());
            // Out of order too: its runtime stops being current at once
            // (newer guards keep theirs), so none is left behind.
            let removed = position.map(|at| current.remove(at));
            drop(current);
            // A handle's drop may be the runtime's last: not under the borrow.
            drop(removed);
            in_order
        });
        if matches!(in_order, Ok(false)) && !std::thread::panicking() {
            panic!(
                "`EnterGuard`s dropped out of order: the guards of `Runtime::enter` and \
                 `Handle::enter` must be dropped newest first (the reverse of the order they \
                 were created in); the runtime of the dropped guard is no longer current"
            );
        }
    }
}

/// Marks this thread as running inside a runtime (a worker or
/// `block_on`), so that a nested `block_on` panics instead of deadlocking.
///
/// # Panics
///
/// Panics if this thread is already inside a runtime.
#[track_caller]
pub(crate) fn enter_runtime(handle: &scheduler::Handle) -> EnterRuntimeGuard {
    // Gone (a thread-local destructor): there is no runtime to be inside.
    let already = CONTEXT
        .try_with(|cx| cx.entered.replace(true))
        .unwrap_or(false);
    if already {
        panic!(
            "Cannot start a runtime from within a runtime: `block_on` was called while this \
             thread is already driving async tasks (inside a task or another `block_on`). \
             Use `.await` instead, or run the blocking code with `rt::task::spawn_blocking`."
        );
    }
    EnterRuntimeGuard {
        _current: set_current(handle),
    }
}

/// Leaves the runtime when dropped.
#[derive(Debug)]
pub(crate) struct EnterRuntimeGuard {
    _current: SetCurrentGuard,
}

impl Drop for EnterRuntimeGuard {
    fn drop(&mut self) {
        let _ = CONTEXT.try_with(|cx| cx.entered.set(false));
    }
}

/// `true` if this thread is inside a runtime (where blocking is not allowed).
pub(crate) fn is_entered() -> bool {
    CONTEXT.try_with(|cx| cx.entered.get()).unwrap_or(false)
}

/// Temporarily leaves the runtime (for `block_in_place`), so blocking
/// operations are allowed until the guard drops.
#[allow(dead_code)]
pub(crate) fn exit_runtime<R>(f: impl FnOnce() -> R) -> R {
    struct Reset(bool);
    impl Drop for Reset {
        fn drop(&mut self) {
            let _ = CONTEXT.try_with(|cx| cx.entered.set(self.0));
        }
    }
    let _reset = Reset(
        CONTEXT
            .try_with(|cx| cx.entered.replace(false))
            .unwrap_or(false),
    );
    f()
}

/// Runs `f` with `scheduler` installed as this thread's scheduler loop.
#[inline]
pub(crate) fn set_scheduler<R>(scheduler: &scheduler::Context, f: impl FnOnce() -> R) -> R {
    struct Reset(*const scheduler::Context);
    impl Drop for Reset {
        #[inline]
        fn drop(&mut self) {
            let _ = HOT.try_with(|cx| cx.scheduler.set(self.0));
        }
    }
    let prev = HOT
        .try_with(|cx| cx.scheduler.replace(scheduler))
        .unwrap_or(std::ptr::null());
    let _reset = Reset(prev);
    f()
}

/// Runs `f` with the scheduler loop running on this thread, if any.
#[inline]
pub(crate) fn with_scheduler<R>(f: impl FnOnce(Option<&scheduler::Context>) -> R) -> R {
    let ptr = HOT
        .try_with(|cx| cx.scheduler.get())
        .unwrap_or(std::ptr::null());
    // SAFETY: the pointer is set only by `set_scheduler`, which keeps the
    // referent borrowed for as long as it is installed, and is reset when
    // that call returns or unwinds. It is only read on this thread.
    f(unsafe { ptr.as_ref() })
}

/// Runs `f` (the poll of the task whose header is `task`) with that task
/// recorded as the one being polled. The caller holds a reference to the
/// task for the whole call, and the record is reset when `f` returns or
/// unwinds: the header stays valid for as long as it is recorded.
#[inline]
pub(crate) fn with_task<R>(task: &Header, f: impl FnOnce() -> R) -> R {
    struct Reset(Option<NonNull<Header>>);
    impl Drop for Reset {
        #[inline]
        fn drop(&mut self) {
            let _ = HOT.try_with(|cx| cx.task.set(self.0));
        }
    }
    let _reset = Reset(
        HOT.try_with(|cx| cx.task.replace(Some(NonNull::from(task))))
            .unwrap_or(None),
    );
    f()
}

/// Runs `f` (a task's poll) recording the waits of rt's leaf futures
/// (steps 1 and 3 of `task/waits.rs`); returns its result and the waits.
/// The recording of an enclosing poll (a `LocalSet` driven inside a task)
/// is put aside meanwhile and restored after, also on unwinding.
pub(crate) fn recording_waits<R>(f: impl FnOnce() -> R) -> (R, Recording) {
    struct Restore {
        was_recording: bool,
        outer: Option<Recording>,
    }
    impl Drop for Restore {
        fn drop(&mut self) {
            let _ = HOT.try_with(|cx| cx.recording_waits.set(self.was_recording));
            if let Some(outer) = self.outer.take() {
                let _ = WAITS.try_with(|waits| *waits.borrow_mut() = outer);
            }
        }
    }
    let was_recording = HOT
        .try_with(|cx| cx.recording_waits.replace(true))
        .unwrap_or(false);
    let outer = WAITS
        .try_with(|waits| std::mem::take(&mut *waits.borrow_mut()))
        .ok();
    let restore = Restore {
        was_recording,
        outer,
    };
    let result = f();
    let recorded = WAITS
        .try_with(|waits| std::mem::take(&mut *waits.borrow_mut()))
        .unwrap_or_default();
    drop(restore);
    (result, recorded)
}

/// Calls `f` with the recording of the task polled on this thread, if
/// its runtime tracks waits (step 2 of `task/waits.rs`).
#[inline]
pub(crate) fn with_wait_recording(f: impl FnOnce(&mut Recording)) {
    if HOT.try_with(|cx| cx.recording_waits.get()).unwrap_or(false) {
        let _ = WAITS.try_with(|waits| {
            if let Ok(mut waits) = waits.try_borrow_mut() {
                f(&mut waits);
            }
        });
    }
}

/// Whether the task polled on this thread records its waits.
#[inline]
pub(crate) fn recording_waits_here() -> bool {
    HOT.try_with(|cx| cx.recording_waits.get()).unwrap_or(false)
}

/// How many waits the poll in progress has recorded so far, if it
/// records them.
#[inline]
pub(crate) fn wait_mark() -> Option<usize> {
    if !recording_waits_here() {
        return None;
    }
    WAITS
        .try_with(|waits| waits.try_borrow().map(|waits| waits.len()).ok())
        .ok()
        .flatten()
}

/// Runs `f` with the header of the task being polled on this thread.
#[inline]
fn with_current_task<R>(f: impl FnOnce(&Header) -> R) -> Option<R> {
    let task = HOT.try_with(|cx| cx.task.get()).ok().flatten()?;
    // SAFETY: `with_task` records a header only while its caller holds a
    // reference to the task, and resets the record before that ends; the
    // record is only read on this thread, within that call.
    Some(f(unsafe { task.as_ref() }))
}

/// The timer shard this thread registers timers in: a worker's index
/// (set by the worker), else a number handed out to each thread in turn,
/// so that threads registering at once mostly take different locks.
pub(crate) fn timer_shard_hint() -> usize {
    // Only spreads threads over shards; no ordering with anything, so a
    // plain std atomic (loom has no timer driver to model).
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    HOT.try_with(|cx| match cx.timer_shard.get() {
        Some(hint) => hint,
        None => {
            let hint = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            cx.timer_shard.set(Some(hint));
            hint
        }
    })
    .unwrap_or(0)
}

/// Makes this worker thread register its timers in shard `index`.
pub(crate) fn set_timer_shard(index: usize) {
    let _ = HOT.try_with(|cx| cx.timer_shard.set(Some(index)));
}

pub(crate) fn current_task_id() -> Option<Id> {
    with_current_task(|task| task.id)
}

/// The priority of the task being polled, `Normal` outside a task.
pub(crate) fn current_task_priority() -> Priority {
    with_current_task(Header::priority).unwrap_or(Priority::Normal)
}

#[inline]
pub(crate) fn budget() -> Budget {
    HOT.try_with(|cx| cx.budget.get())
        .unwrap_or(Budget::unconstrained())
}

#[inline]
pub(crate) fn set_budget(budget: Budget) {
    let _ = HOT.try_with(|cx| cx.budget.set(budget));
}

/// Sets the budget to `update` of the current one, which it returns: one
/// thread-local access for both.
#[inline]
pub(crate) fn update_budget(update: impl FnOnce(Budget) -> Budget) -> Budget {
    HOT.try_with(|cx| {
        let budget = cx.budget.get();
        cx.budget.set(update(budget));
        budget
    })
    .unwrap_or(Budget::unconstrained())
}

#[inline]
pub(crate) fn replace_budget(budget: Budget) -> Budget {
    HOT.try_with(|cx| cx.budget.replace(budget))
        .unwrap_or(Budget::unconstrained())
}
