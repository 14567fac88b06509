//! The task allocation and its type-erased handle.
//!
//! A task is one heap allocation, a `Cell<F, S>`: the header (state word,
//! vtable, id, owned-list slot) first, so a pointer to the header is a
//! pointer to the cell, then the scheduler, the stage (future or output)
//! and the join waker. Everything outside this file and `harness.rs` sees
//! only `RawTask`, a pointer to the header.

use crate::loom::cell::UnsafeCell;
use crate::task::Schedule;
use crate::task::error::JoinError;
use crate::task::harness;
use crate::task::id::Id;
use crate::task::state::State;
use std::future::Future;
use std::ptr::NonNull;
use std::task::Waker;

/// The part of a task every handle can reach without knowing `F` or `S`.
#[repr(C)]
pub(crate) struct Header {
    pub(crate) state: State,
    pub(crate) vtable: &'static Vtable,
    pub(crate) id: Id,
    /// The task's key in its owned-list shard. Written and read only while
    /// holding that shard's lock.
    pub(crate) owned_key: UnsafeCell<usize>,
}

/// The operations that need the concrete `F` and `S`.
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

/// A type-erased pointer to a task. Copying it does not touch the
/// reference count; the typed handles in `task/mod.rs` own references.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct RawTask {
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
    pub(crate) fn new<F, S>(future: F, scheduler: S, id: Id) -> RawTask
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
        S: Schedule,
    {
        RawTask::allocate(future, scheduler, id)
    }

    /// A task whose future and output need not be `Send`.
    ///
    /// # Safety
    ///
    /// See `task::new_local_task`: the scheduler polls and drops the future
    /// only on the calling thread.
    pub(crate) unsafe fn new_local<F, S>(future: F, scheduler: S, id: Id) -> RawTask
    where
        F: Future + 'static,
        F::Output: 'static,
        S: Schedule,
    {
        RawTask::allocate(future, scheduler, id)
    }

    fn allocate<F, S>(future: F, scheduler: S, id: Id) -> RawTask
    where
        F: Future + 'static,
        F::Output: 'static,
        S: Schedule,
    {
        let cell = Box::new(Cell {
            header: Header {
                state: State::new(),
                vtable: harness::vtable::<F, S>(),
                id,
                owned_key: UnsafeCell::new(usize::MAX),
            },
            scheduler,
            stage: UnsafeCell::new(Stage::Running(future)),
            join_waker: UnsafeCell::new(None),
        });
        let ptr = NonNull::from(Box::leak(cell)).cast::<Header>();
        RawTask { ptr }
    }

    /// # Safety
    /// `ptr` must point to the header of a live task.
    pub(crate) unsafe fn from_raw(ptr: NonNull<Header>) -> RawTask {
        RawTask { ptr }
    }

    pub(crate) fn as_ptr(self) -> NonNull<Header> {
        self.ptr
    }

    pub(crate) fn header(&self) -> &Header {
        // SAFETY: a `RawTask` is only used while some reference keeps the
        // allocation alive, and the header is never mutated except through
        // its atomics and the lock-guarded `owned_key`.
        unsafe { self.ptr.as_ref() }
    }

    pub(crate) fn id(&self) -> Id {
        self.header().id
    }

    pub(crate) fn ref_inc(self) {
        self.header().state.ref_inc();
    }

    /// Drops one reference, freeing the task if it was the last.
    pub(crate) fn drop_reference(self) {
        if self.header().state.ref_dec() {
            self.dealloc();
        }
    }

    /// Runs the task; consumes one `Notified` reference.
    pub(crate) fn poll(self) {
        // SAFETY: the vtable was built for this cell's `F` and `S`, and the
        // caller gives up the reference the poll consumes.
        unsafe { (self.header().vtable.poll)(self.ptr) }
    }

    pub(crate) fn schedule(self) {
        // SAFETY: as in `poll`; the reference backing the new `Notified` is
        // already counted by the caller's state transition.
        unsafe { (self.header().vtable.schedule)(self.ptr) }
    }

    pub(crate) fn dealloc(self) {
        // SAFETY: only called when the last reference was just dropped, so
        // nothing else can reach the allocation.
        unsafe { (self.header().vtable.dealloc)(self.ptr) }
    }

    /// # Safety
    /// `dst` must point to a `Poll<Result<T, JoinError>>` where `T` is the
    /// task's output type, and the caller must hold the join interest.
    pub(crate) unsafe fn try_read_output(self, dst: *mut (), waker: &Waker) {
        // SAFETY: forwarded from the caller.
        unsafe { (self.header().vtable.try_read_output)(self.ptr, dst, waker) }
    }

    /// Releases the join interest and the `JoinHandle`'s reference.
    pub(crate) fn drop_join_handle(self) {
        // SAFETY: the vtable matches the cell; the caller is the join handle.
        unsafe { (self.header().vtable.drop_join_handle)(self.ptr) }
    }

    /// Cancels the task (now, if nobody is polling it).
    pub(crate) fn shutdown(self) {
        // SAFETY: the vtable matches the cell; the caller holds a reference.
        unsafe { (self.header().vtable.shutdown)(self.ptr) }
    }
}
