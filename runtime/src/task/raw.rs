//! The task allocation and its type-erased handle.
//!
//! A task is one heap allocation, a `Cell<F, S>`: the header (state word,
//! vtable, id, owned-list slot) first, so a pointer to the header is a
//! pointer to the cell, then the scheduler, the stage (future or output)
//! and the join waker. Everything outside this file and `harness.rs` sees
//! only `RawTask`, a pointer to the header.

use crate::loom::cell::UnsafeCell;
use crate::task::error::JoinError;
use crate::task::harness;
use crate::task::id::Id;
use crate::task::meta::TaskMeta;
use crate::task::state::{State, ToNotified};
use crate::task::stats::TaskStats;
use crate::task::trace::{TaskEvent, TaskSpan, task_event};
use crate::task::{Priority, Schedule};
use std::future::Future;
use std::ptr::{self, NonNull};
use std::task::Waker;

/// The part of a task every handle can reach without knowing `F` or `S`.
#[repr(C)]
pub(crate) struct Header {
    pub(crate) state: State,
    pub(crate) vtable: &'static Vtable,
    pub(crate) id: Id,
    /// Its polls and the last one's time, for the task dump.
    pub(crate) stats: TaskStats,
    /// The task's `tracing` span (no bytes without the feature).
    pub(crate) span: TaskSpan,
    /// The task's key in its owned-list shard. Written and read only while
    /// holding that shard's lock.
    pub(crate) owned_key: UnsafeCell<usize>,
}

impl Header {
    /// The task's priority (kept in its vtable).
    pub(crate) fn priority(&self) -> Priority {
        self.vtable.priority
    }
}

/// The operations that need the concrete `F` and `S`, and the task's
/// priority.
pub(crate) struct Vtable {
    /// Run the task. Consumes the caller's `Notified` reference.
    pub(crate) poll: unsafe fn(NonNull<Header>),
    /// Hand a `Notified` (whose reference is already counted) to the scheduler.
    pub(crate) schedule: unsafe fn(NonNull<Header>),
    /// Free the allocation.
    pub(crate) dealloc: unsafe fn(NonNull<Header>),
    /// Write `Poll<Result<F::Output, JoinError>>` into the destination if
    /// the task finished, else register the waker.
    pub(crate) try_read_output: unsafe fn(NonNull<Header>, *mut (), &Waker),
    /// The `JoinHandle` is dropped.
    pub(crate) drop_join_handle: unsafe fn(NonNull<Header>),
    /// Abort / shutdown: cancel now if idle, else mark for the poller.
    pub(crate) shutdown: unsafe fn(NonNull<Header>),
    /// Which of its scheduler's queues the task waits in; fixed for life
    /// (see `harness::vtable`).
    pub(crate) priority: Priority,
    /// Tell the scheduler a waker is being woken (`Schedule::woken`):
    /// `None` unless it asks to hear of every wake (a simulation's).
    #[cfg(feature = "sim")]
    pub(crate) woken: Option<unsafe fn(NonNull<Header>)>,
}

/// The stage of the future: running, finished with an output, or with the
/// output taken.
pub(crate) enum Stage<F: Future> {
    Running(F),
    Finished(Result<F::Output, JoinError>),
    Consumed,
}

#[repr(C)]
pub(crate) struct Cell<F: Future, S> {
    pub(crate) header: Header,
    pub(crate) scheduler: S,
    /// Owned by whoever holds RUNNING; after COMPLETE, by the join side.
    pub(crate) stage: UnsafeCell<Stage<F>>,
    /// See `JOIN_WAKER` in `state.rs` for who may touch it when.
    pub(crate) join_waker: UnsafeCell<Option<Waker>>,
}

/// Task allocations not yet freed, across every runtime in the process.
/// Debug builds only: it is one atomic shared by every spawn and free, a
/// contended cache line release builds do without. The stress tests read
/// it (`task::__live_task_allocations`) to check that every task is freed.
#[cfg(debug_assertions)]
pub(super) static LIVE_ALLOCATIONS: std::sync::atomic::AtomicUsize =
    std::sync::atomic::AtomicUsize::new(0);

/// A type-erased pointer to a task. Copying it does not touch the
/// reference count; the typed handles in `task/mod.rs` own references.
///
/// Visible only inside `task/`: every method relies on its caller holding
/// a counted reference (the handle that owns the `RawTask`), and the ones
/// that move or release that reference are `unsafe fn`s saying which.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct RawTask {
    ptr: NonNull<Header>,
}

// SAFETY: a task may be woken and dropped from any thread, and polled
// from any thread its scheduler chooses: the future and the scheduler are
// `Send` (`RawTask::new`), or the scheduler touches the future only on the
// thread that created it (`RawTask::new_local`'s contract); all shared
// access goes through the atomic state word.
unsafe impl Send for RawTask {}
// SAFETY: as above; `&RawTask` only exposes the header.
unsafe impl Sync for RawTask {}

impl RawTask {
    pub(super) fn new<F, S>(future: F, scheduler: S, meta: &TaskMeta) -> RawTask
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
        S: Schedule,
    {
        RawTask::allocate(future, scheduler, meta)
    }

    /// A task whose future and output need not be `Send`.
    ///
    /// # Safety
    ///
    /// See `task::new_local_task`: the scheduler polls and drops the future
    /// only on the calling thread.
    pub(super) unsafe fn new_local<F, S>(future: F, scheduler: S, meta: &TaskMeta) -> RawTask
    where
        F: Future + 'static,
        F::Output: 'static,
        S: Schedule,
    {
        RawTask::allocate(future, scheduler, meta)
    }

    fn allocate<F, S>(future: F, scheduler: S, meta: &TaskMeta) -> RawTask
    where
        F: Future + 'static,
        F::Output: 'static,
        S: Schedule,
    {
        // Each field is written in place: a cell built on the stack and
        // moved into its box costs a `memcpy` of the whole cell per spawn.
        let mut cell = Box::<Cell<F, S>>::new_uninit();
        let slot = cell.as_mut_ptr();
        // SAFETY: `slot` points to the cell just allocated, uninitialised;
        // `addr_of_mut!` makes field pointers without creating references
        // to uninitialised memory, and each field is written exactly once.
        unsafe {
            ptr::addr_of_mut!((*slot).header).write(Header {
                state: State::new(),
                vtable: harness::vtable::<F, S>(meta.priority, scheduler.tracks_waits()),
                span: TaskSpan::new(meta),
                id: meta.id,
                stats: TaskStats::new(),
                owned_key: UnsafeCell::new(usize::MAX),
            });
            ptr::addr_of_mut!((*slot).scheduler).write(scheduler);
            ptr::addr_of_mut!((*slot).stage).write(UnsafeCell::new(Stage::Running(future)));
            ptr::addr_of_mut!((*slot).join_waker).write(UnsafeCell::new(None));
        }
        // SAFETY: every field of the cell was written above.
        let cell = unsafe { cell.assume_init() };
        #[cfg(debug_assertions)]
        LIVE_ALLOCATIONS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        // The pointer keeps the provenance of the whole cell: `dealloc`
        // frees through it (or a copy of it), never through a reference.
        let ptr = NonNull::new(Box::into_raw(cell))
            .expect("Box::into_raw is never null")
            .cast::<Header>();
        let task = RawTask { ptr };
        task_event(task.header(), TaskEvent::Spawn);
        task
    }

    /// # Safety
    /// `ptr` must point to the header of a live task (one from
    /// `RawTask::new`), and the returned `RawTask` may only be used while
    /// a counted reference keeps it alive.
    pub(super) unsafe fn from_raw(ptr: NonNull<Header>) -> RawTask {
        RawTask { ptr }
    }

    pub(super) fn as_ptr(self) -> NonNull<Header> {
        self.ptr
    }

    pub(super) fn header(&self) -> &Header {
        // SAFETY: a `RawTask` is only used while some reference keeps the
        // allocation alive, and the header is never mutated except through
        // its atomics and the lock-guarded `owned_key`.
        unsafe { self.ptr.as_ref() }
    }

    pub(super) fn id(&self) -> Id {
        self.header().id
    }

    pub(crate) fn priority(&self) -> Priority {
        self.header().priority()
    }

    pub(super) fn ref_inc(self) {
        self.header().state.ref_inc();
    }

    /// Drops one reference, freeing the task if it was the last.
    ///
    /// # Safety
    /// The caller owns one counted reference and gives it up: it must not
    /// use this `RawTask` (or a copy backed by that reference) afterwards.
    pub(super) unsafe fn drop_reference(self) {
        if self.header().state.ref_dec() {
            // SAFETY: that was the last reference.
            unsafe { self.dealloc() };
        }
    }

    /// Runs the task.
    ///
    /// # Safety
    /// The caller owns the reference of a `Notified` (the task is NOTIFIED
    /// on its behalf) and gives it up: the poll consumes it.
    pub(super) unsafe fn poll(self) {
        // SAFETY: the vtable was built for this cell's `F` and `S`, and the
        // caller gives up the reference the poll consumes.
        unsafe { (self.header().vtable.poll)(self.ptr) }
    }

    /// Hands the task to its scheduler as a new `Notified`.
    ///
    /// # Safety
    /// The caller's state transition set NOTIFIED and counted a reference
    /// for the new `Notified`; that reference moves into it.
    pub(super) unsafe fn schedule(self) {
        // SAFETY: the vtable matches; the reference is the caller's.
        unsafe { (self.header().vtable.schedule)(self.ptr) }
    }

    /// Tells the task's scheduler that one of its wakers is being woken
    /// (or the task aborted), if it asked to hear of that
    /// (`Schedule::woken`).
    #[cfg(feature = "sim")]
    pub(super) fn note_wake(self) {
        if let Some(woken) = self.header().vtable.woken {
            // SAFETY: the vtable matches, and the caller (the waker being
            // woken, the handle aborting) holds or borrows a reference
            // that keeps the task alive for the call.
            unsafe { woken(self.ptr) }
        }
    }

    /// Frees the allocation.
    ///
    /// # Safety
    /// The caller just dropped the last reference: nothing else can reach
    /// the task, and nothing may use it afterwards.
    pub(super) unsafe fn dealloc(self) {
        // SAFETY: the vtable matches; per the caller, the task is ours alone.
        unsafe { (self.header().vtable.dealloc)(self.ptr) }
    }

    /// # Safety
    /// `dst` must point to a `Poll<Result<T, JoinError>>` where `T` is the
    /// task's output type, and the caller must hold the join interest.
    pub(super) unsafe fn try_read_output(self, dst: *mut (), waker: &Waker) {
        // SAFETY: forwarded from the caller.
        unsafe { (self.header().vtable.try_read_output)(self.ptr, dst, waker) }
    }

    /// Releases the join interest and the `JoinHandle`'s reference.
    ///
    /// # Safety
    /// The caller is the `JoinHandle` (it holds the join interest and one
    /// reference), and gives both up.
    pub(super) unsafe fn drop_join_handle(self) {
        // SAFETY: the vtable matches the cell; per the caller.
        unsafe { (self.header().vtable.drop_join_handle)(self.ptr) }
    }

    /// `abort()`: marks the task cancelled; an idle one is scheduled so a
    /// worker of its own runtime drops the future (see
    /// `State::transition_to_notified_and_cancel`). The caller's thread
    /// never runs the future's destructor.
    pub(super) fn remote_abort(self) {
        task_event(self.header(), TaskEvent::Abort);
        // An abort wakes the task as a wake does, also when it queues
        // nothing (the task is queued or running: it is cancelled at its
        // next poll).
        #[cfg(feature = "sim")]
        self.note_wake();
        match self.header().state.transition_to_notified_and_cancel() {
            // SAFETY: the transition counted a reference for the Notified.
            ToNotified::Submit => unsafe { self.schedule() },
            ToNotified::DoNothing => {}
            ToNotified::Dealloc => unreachable!("abort never drops a reference"),
        }
    }

    /// See `State::cancel_unless_started`.
    pub(super) fn cancel_unless_started(self) -> bool {
        self.header().state.cancel_unless_started()
    }

    /// Runtime shutdown: cancels the task now unless a thread is polling
    /// it (see `State::transition_to_shutdown`). Only for the shutdown
    /// sweep and for queue entries that will never run: the future is
    /// dropped on the caller's thread (`abort()` uses `remote_abort`).
    pub(super) fn shutdown(self) {
        // SAFETY: the vtable matches the cell; the caller holds a reference.
        unsafe { (self.header().vtable.shutdown)(self.ptr) }
    }
}
