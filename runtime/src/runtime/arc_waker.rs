//! `Waker`s made from an `Arc`, for the shim's `Arc`.
//!
//! std's `Wake` trait does this for `std::sync::Arc` only; under loom the
//! runtime's `Arc` is loom's, whose counts loom checks for leaks. This is
//! the one vtable the runtime writes for it (the thread parker's waker and
//! the current-thread scheduler's main-future waker use it); task wakers
//! have their own, in `task/waker.rs`, since they count references in the
//! task's state word.

use crate::loom::sync::Arc;
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::task::{RawWaker, RawWakerVTable, Waker};

/// What an `Arc` waker does when woken (and, for a type that counts its
/// wakers, when one is cloned or gives its count back).
pub(crate) trait ArcWake: Send + Sync + 'static {
    /// Wakes whatever waits on `self`; the waker keeps its count.
    fn wake_by_ref(&self);

    /// A waker of `self` was cloned.
    fn cloned(&self) {}

    /// A waker of `self` gives its count back: it is dropped, or woken by
    /// value (after `wake_by_ref`). Called before the count is released.
    fn released(&self) {}
}

/// A waker that owns one count of `arc`.
pub(crate) fn arc_waker<W: ArcWake>(arc: Arc<W>) -> Waker {
    let data = Arc::into_raw(arc).cast::<()>();
    // SAFETY: `data` owns one count of an `Arc<W>`, which is what every
    // function of `Vtable::<W>::VTABLE` expects and keeps balanced.
    unsafe { Waker::from_raw(RawWaker::new(data, &Vtable::<W>::VTABLE)) }
}

/// One vtable per `W` (an associated const, so `&` of it is `'static`).
struct Vtable<W>(PhantomData<W>);

impl<W: ArcWake> Vtable<W> {
    const VTABLE: RawWakerVTable =
        RawWakerVTable::new(clone::<W>, wake::<W>, wake_by_ref::<W>, drop_waker::<W>);
}

/// The `Arc` a waker's data pointer owns a count of, without taking the
/// count: dropping the result does not release it.
///
/// # Safety
/// `data` must come from `arc_waker::<W>` (an `Arc::<W>::into_raw`) and
/// its count must still be owned by a live waker for as long as the
/// result is used.
unsafe fn borrow<W>(data: *const ()) -> ManuallyDrop<Arc<W>> {
    // SAFETY: per the caller; `ManuallyDrop` keeps the count where it is.
    ManuallyDrop::new(unsafe { Arc::from_raw(data.cast::<W>()) })
}

/// The `RawWaker` contract's `clone`.
///
/// # Safety
/// `data` comes from `arc_waker::<W>` and belongs to a live waker.
unsafe fn clone<W: ArcWake>(data: *const ()) -> RawWaker {
    // SAFETY: the waker being cloned owns a count, which it keeps.
    let arc = unsafe { borrow::<W>(data) };
    arc.cloned();
    let cloned = Arc::into_raw(Arc::clone(&arc)).cast::<()>();
    RawWaker::new(cloned, &Vtable::<W>::VTABLE)
}

/// The `RawWaker` contract's `wake`.
///
/// # Safety
/// `data` comes from `arc_waker::<W>`; the waker's count is released.
unsafe fn wake<W: ArcWake>(data: *const ()) {
    // SAFETY: the waker being consumed owns a count, dropped after the wake.
    let arc = unsafe { Arc::from_raw(data.cast::<W>()) };
    arc.wake_by_ref();
    arc.released();
}

/// The `RawWaker` contract's `wake_by_ref`.
///
/// # Safety
/// `data` comes from `arc_waker::<W>` and belongs to a live waker.
unsafe fn wake_by_ref<W: ArcWake>(data: *const ()) {
    // SAFETY: the waker owns a count, which it keeps.
    let arc = unsafe { borrow::<W>(data) };
    arc.wake_by_ref();
}

/// The `RawWaker` contract's `drop`.
///
/// # Safety
/// `data` comes from `arc_waker::<W>`; the waker's count is released.
unsafe fn drop_waker<W: ArcWake>(data: *const ()) {
    // SAFETY: the waker being dropped owns a count.
    let arc = unsafe { Arc::from_raw(data.cast::<W>()) };
    arc.released();
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::{ArcWake, arc_waker};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Wakes, clones and releases seen.
    #[derive(Default)]
    struct Count(AtomicUsize, AtomicUsize, AtomicUsize);

    impl ArcWake for Count {
        fn wake_by_ref(&self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }

        fn cloned(&self) {
            self.1.fetch_add(1, Ordering::SeqCst);
        }

        fn released(&self) {
            self.2.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn counts_stay_balanced_through_clone_wake_and_drop() {
        let count = Arc::new(Count::default());
        let waker = arc_waker(count.clone());
        assert_eq!(Arc::strong_count(&count), 2);
        let cloned = waker.clone();
        assert_eq!(Arc::strong_count(&count), 3);
        cloned.wake_by_ref();
        cloned.wake();
        assert_eq!(Arc::strong_count(&count), 2);
        waker.wake_by_ref();
        drop(waker);
        assert_eq!(Arc::strong_count(&count), 1);
        assert_eq!(count.0.load(Ordering::SeqCst), 3);
        // One clone; the clone woken by value and the original dropped.
        assert_eq!(count.1.load(Ordering::SeqCst), 1);
        assert_eq!(count.2.load(Ordering::SeqCst), 2);
    }
}
