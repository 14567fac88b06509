//! `Waker`s for tasks: the task pointer plus one reference.

use crate::task::raw::{Header, RawTask};
use crate::task::state::ToNotified;
use crate::task::trace::{TaskEvent, WakerOp, task_event, waker_event};
use std::mem::ManuallyDrop;
use std::ops::Deref;
use std::ptr::NonNull;
use std::task::{RawWaker, RawWakerVTable, Waker};

static VTABLE: RawWakerVTable = RawWakerVTable::new(clone, wake_by_val, wake_by_ref, drop_waker);

/// A waker that borrows the poller's reference instead of owning one.
pub(crate) struct BorrowedWaker {
    waker: ManuallyDrop<Waker>,
}

impl Deref for BorrowedWaker {
    type Target = Waker;
    fn deref(&self) -> &Waker {
        &self.waker
    }
}

/// # Safety
/// The caller must hold a reference to the task for as long as the
/// returned waker is alive. Clones own their own reference.
pub(crate) unsafe fn borrowed(ptr: NonNull<Header>) -> BorrowedWaker {
    // SAFETY: the vtable's functions uphold the `RawWaker` contract for a
    // task pointer; the borrowed waker is never dropped (ManuallyDrop), so
    // it never releases the reference it does not own.
    let waker = unsafe { Waker::from_raw(RawWaker::new(ptr.as_ptr() as *const (), &VTABLE)) };
    BorrowedWaker {
        waker: ManuallyDrop::new(waker),
    }
}

/// # Safety
/// `data` must be a task header pointer created by this module, backed by
/// a reference the caller holds.
unsafe fn raw(data: *const ()) -> RawTask {
    // SAFETY: per the caller, `data` is a live, non-null header pointer.
    unsafe { RawTask::from_raw(NonNull::new_unchecked(data as *mut Header)) }
}

/// The `RawWaker` contract's `clone`.
///
/// # Safety
/// `data` comes from a live task waker (which owns or borrows a reference).
unsafe fn clone(data: *const ()) -> RawWaker {
    // SAFETY: the waker being cloned keeps the task alive.
    let task = unsafe { raw(data) };
    waker_event(task.header(), WakerOp::Clone);
    task.ref_inc();
    RawWaker::new(data, &VTABLE)
}

/// The `RawWaker` contract's `wake`.
///
/// # Safety
/// `data` comes from an owned task waker, whose reference is consumed.
unsafe fn wake_by_val(data: *const ()) {
    // SAFETY: the waker being consumed owns a reference.
    let task = unsafe { raw(data) };
    waker_event(task.header(), WakerOp::Wake);
    task_event(task.header(), TaskEvent::Wake);
    #[cfg(feature = "sim")]
    task.note_wake();
    match task.header().state.transition_to_notified_by_val() {
        ToNotified::DoNothing => {}
        ToNotified::Submit => {
            // SAFETY: the transition counted a new reference for the
            // Notified; the waker's own keeps the task alive through the
            // scheduler call and is given up after it.
            unsafe {
                task.schedule();
                task.drop_reference();
            }
        }
        // SAFETY: the waker's reference was the last one.
        ToNotified::Dealloc => unsafe { task.dealloc() },
    }
}

/// The `RawWaker` contract's `wake_by_ref`.
///
/// # Safety
/// `data` comes from a live task waker.
unsafe fn wake_by_ref(data: *const ()) {
    // SAFETY: the waker keeps the task alive for this call.
    let task = unsafe { raw(data) };
    waker_event(task.header(), WakerOp::WakeByRef);
    task_event(task.header(), TaskEvent::Wake);
    #[cfg(feature = "sim")]
    task.note_wake();
    match task.header().state.transition_to_notified_by_ref() {
        ToNotified::DoNothing => {}
        // SAFETY: the transition counted a new reference for the Notified.
        ToNotified::Submit => unsafe { task.schedule() },
        ToNotified::Dealloc => unreachable!("wake_by_ref never drops the last reference"),
    }
}

/// Wakes the task `waker` belongs to as a yield: if it is an rt task's
/// waker and the task is running, the poller queues it behind the tasks
/// that wait (`state::YIELDED`), not as a task woken from elsewhere. Any
/// other waker (a combinator's, another executor's, `block_on`'s) is
/// woken as it is.
#[inline]
pub(crate) fn wake_as_yield(waker: &Waker) {
    if !std::ptr::eq(waker.vtable(), &VTABLE) {
        waker.wake_by_ref();
        return;
    }
    // SAFETY: a waker with this module's vtable holds a task pointer and
    // keeps the task alive for as long as it is borrowed here.
    let task = unsafe { raw(waker.data()) };
    waker_event(task.header(), WakerOp::WakeByRef);
    task_event(task.header(), TaskEvent::Wake);
    match task.header().state.transition_to_yielded() {
        ToNotified::DoNothing => {}
        // SAFETY: the transition counted a new reference for the Notified.
        ToNotified::Submit => unsafe { task.schedule() },
        ToNotified::Dealloc => unreachable!("a yield never drops the last reference"),
    }
}

/// The `RawWaker` contract's `drop`.
///
/// # Safety
/// `data` comes from an owned task waker, whose reference is released.
unsafe fn drop_waker(data: *const ()) {
    // SAFETY: the waker being dropped owns a reference, given up here
    // (after its event, which reads the header it may free).
    let task = unsafe { raw(data) };
    waker_event(task.header(), WakerOp::Drop);
    // SAFETY: as above: the reference is the dropped waker's.
    unsafe { task.drop_reference() };
}
