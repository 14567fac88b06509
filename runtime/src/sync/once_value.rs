//! `OnceValue`: the storage of [`OnceCell`](super::OnceCell) and
//! [`SetOnce`](super::SetOnce), a slot written at most once and then read
//! by reference, that (unlike `std::sync::OnceLock`) can be built holding a
//! value in a `const` context, for their `const_new_with`.
//!
//! The protocol:
//! 1. a writer is the only one: its caller serialises writers (the
//!    `OnceCell` turn, the `SetOnce` waiters lock) and checks that the
//!    slot is empty first (`write`'s contract);
//! 2. the writer stores the value, then sets `set` with `Release`;
//! 3. a reader loads `set` with `Acquire` and only then reads the value:
//!    it sees the whole value, and no writer touches it again (the slot is
//!    emptied only through `&mut self`).

use crate::loom::cell::UnsafeCell;
use crate::loom::sync::atomic::{AtomicBool, Ordering};
use std::mem::MaybeUninit;

pub(super) struct OnceValue<T> {
    /// The value is written (step 2).
    set: AtomicBool,
    value: UnsafeCell<MaybeUninit<T>>,
}

// SAFETY: sharing a `OnceValue` shares `&T` between threads (`T: Sync`)
// and lets any thread store the `T` that the owner's thread later drops
// (`T: Send`), the bounds of `std::sync::OnceLock`. The protocol in the
// module docs orders the one write before every read.
unsafe impl<T: Send + Sync> Sync for OnceValue<T> {}
// SAFETY: moving a `OnceValue` moves its `T` (if any) to another thread.
unsafe impl<T: Send> Send for OnceValue<T> {}

impl<T> OnceValue<T> {
    #[cfg(not(loom))]
    pub(super) const fn new() -> OnceValue<T> {
        OnceValue {
            set: AtomicBool::new(false),
            value: UnsafeCell::new(MaybeUninit::uninit()),
        }
    }

    #[cfg(loom)]
    pub(super) fn new() -> OnceValue<T> {
        OnceValue {
            set: AtomicBool::new(false),
            value: UnsafeCell::new(MaybeUninit::uninit()),
        }
    }

    /// A slot holding `value`, in a `const` context.
    #[cfg(not(loom))]
    pub(super) const fn new_with(value: T) -> OnceValue<T> {
        OnceValue {
            set: AtomicBool::new(true),
            value: UnsafeCell::new(MaybeUninit::new(value)),
        }
    }

    pub(super) fn get(&self) -> Option<&T> {
        if !self.set.load(Ordering::Acquire) {
            return None;
        }
        // SAFETY: `set` is true (loaded with `Acquire`, pairing with the
        // writer's `Release`), so the value was fully written before, and
        // no one writes or drops it while `self` is borrowed (step 3).
        Some(
            self.value
                .with(|value| unsafe { (*value).assume_init_ref() }),
        )
    }

    /// Stores `value` (steps 1 and 2).
    ///
    /// # Safety
    ///
    /// The slot is empty, and no other thread calls `write` until this one
    /// returns: the caller serialises writers and checked `get()` was
    /// `None` while holding that exclusion.
    pub(super) unsafe fn write(&self, value: T) {
        // SAFETY: by this function's contract there is no other writer and
        // the slot is empty, so no reader reads it yet (`set` is false) and
        // nothing is overwritten.
        self.value.with_mut(|slot| unsafe { (*slot).write(value) });
        self.set.store(true, Ordering::Release);
    }

    pub(super) fn get_mut(&mut self) -> Option<&mut T> {
        if !self.set.load(Ordering::Acquire) {
            return None;
        }
        // SAFETY: the value is set, and `&mut self` excludes every other
        // access.
        Some(
            self.value
                .with_mut(|value| unsafe { (*value).assume_init_mut() }),
        )
    }

    /// Takes the value out, leaving the slot empty.
    pub(super) fn take(&mut self) -> Option<T> {
        if !self.set.swap(false, Ordering::Acquire) {
            return None;
        }
        // SAFETY: the value was set and is now marked empty, so it is read
        // out exactly once; `&mut self` excludes every other access.
        Some(
            self.value
                .with(|value| unsafe { (*value).assume_init_read() }),
        )
    }
}

impl<T> Drop for OnceValue<T> {
    fn drop(&mut self) {
        drop(self.take());
    }
}

#[cfg(all(test, loom))]
mod loom_once_value {
    use crate::loom::sync::Arc;
    use crate::sync::SetOnce;
    use loom::thread;

    /// Steps 1 to 3: two setters race while a third thread reads; one
    /// setter wins, and a reader that sees a value sees it whole.
    #[test]
    fn loom_once_value_racing_setters_and_a_reader() {
        loom::model(|| {
            let once = Arc::new(SetOnce::new());
            let setter = {
                let once = once.clone();
                thread::spawn(move || once.set(String::from("one")).is_ok())
            };
            let reader = {
                let once = once.clone();
                thread::spawn(move || once.get().cloned())
            };
            let mine = once.set(String::from("two")).is_ok();
            let theirs = setter.join().unwrap();
            assert!(mine != theirs, "exactly one set wins");
            let winner = if mine { "two" } else { "one" };
            if let Some(seen) = reader.join().unwrap() {
                assert_eq!(seen, winner);
            }
            assert_eq!(once.get().map(String::as_str), Some(winner));
        });
    }
}
