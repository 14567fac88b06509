//! A worker's LIFO slot and its list of yielded tasks: private to the
//! worker, as in tokio, unless the slow-poll watchdog is on; then other
//! workers can take them while the worker is stuck in one poll, so a task
//! that blocks its thread no longer strands the task it just woke (tokio
//! issue 4941) nor the ones that yielded to it.
//!
//! Private, the LIFO slot is an `Option` in the worker's core. Stealable,
//! it is a `LifoSlot`: an atomic pointer in a cache line of its own,
//! reachable from the other workers:
//! 1. the owner pushes into an empty slot with a store: thieves only ever
//!    take a task out, so nobody can fill the slot meanwhile; into a full
//!    slot it swaps, and gets back whatever a thief left;
//! 2. the owner pops with a swap when the slot is not empty, and a thief
//!    takes with a swap: whoever swaps the pointer out owns the task, so
//!    it runs exactly once (the `loom_lifo_slot_*` models).
//!
//! That costs the owner one swap per LIFO pop, which is why it is only
//! paid with the watchdog on. The yielded list is a `Vec` when private
//! and a FIFO deque (whose stealer peers hold) when stealable.

use crate::loom::deque::{Steal, Stealer, Worker as Deque};
use crate::loom::sync::atomic::{AtomicPtr, Ordering};
use crate::task::Notified;
use std::ptr::{self, NonNull};

/// What the LIFO slot holds: an owned value that travels as a pointer.
pub(crate) trait SlotItem: Sized {
    fn into_ptr(self) -> NonNull<()>;

    /// # Safety
    /// `ptr` comes from `into_ptr` of the same type, and is turned back
    /// only once.
    unsafe fn from_ptr(ptr: NonNull<()>) -> Self;
}

impl SlotItem for Notified {
    fn into_ptr(self) -> NonNull<()> {
        Notified::into_ptr(self).cast()
    }

    unsafe fn from_ptr(ptr: NonNull<()>) -> Notified {
        // SAFETY: forwarded from the caller: `ptr` is a `Notified`'s.
        unsafe { Notified::from_ptr(ptr.cast()) }
    }
}

/// A stealable one-task slot; see the module docs.
#[derive(Debug)]
pub(crate) struct LifoSlot<T: SlotItem = Notified> {
    /// Null when empty.
    item: AtomicPtr<()>,
    _owns: std::marker::PhantomData<T>,
}

impl<T: SlotItem> LifoSlot<T> {
    pub(crate) fn new() -> LifoSlot<T> {
        LifoSlot {
            item: AtomicPtr::new(ptr::null_mut()),
            _owns: std::marker::PhantomData,
        }
    }

    fn take(raw: *mut ()) -> Option<T> {
        // SAFETY: a non-null pointer in the slot came from `into_ptr` in
        // `push`, and whoever swapped it out is its only taker.
        NonNull::new(raw).map(|ptr| unsafe { T::from_ptr(ptr) })
    }

    /// The owner puts `item` in; returns the item it displaced, if any.
    #[inline]
    pub(crate) fn push(&self, item: T) -> Option<T> {
        let new = item.into_ptr().as_ptr();
        if self.item.load(Ordering::Relaxed).is_null() {
            // Step 1: nobody but the owner fills the slot. Release: a thief
            // that swaps the pointer out sees the task behind it.
            self.item.store(new, Ordering::Release);
            None
        } else {
            LifoSlot::take(self.item.swap(new, Ordering::AcqRel))
        }
    }

    /// The owner takes its item back.
    #[inline]
    pub(crate) fn pop(&self) -> Option<T> {
        let current = self.item.load(Ordering::Relaxed);
        if current.is_null() {
            return None;
        }
        // Step 2: a thief may swap it out first.
        LifoSlot::take(self.item.swap(ptr::null_mut(), Ordering::Acquire))
    }

    /// Another worker takes the item of a stuck owner.
    pub(crate) fn steal(&self) -> Option<T> {
        if self.item.load(Ordering::Relaxed).is_null() {
            return None;
        }
        LifoSlot::take(self.item.swap(ptr::null_mut(), Ordering::Acquire))
    }

    /// `true` if the slot holds an item (from any thread: a hint).
    pub(crate) fn is_occupied(&self) -> bool {
        !self.item.load(Ordering::Relaxed).is_null()
    }
}

impl<T: SlotItem> Drop for LifoSlot<T> {
    fn drop(&mut self) {
        drop(self.pop());
    }
}

/// The tasks that yielded during this worker's polls, oldest first.
#[derive(Debug)]
pub(crate) enum YieldedTasks {
    Private(Vec<Notified>),
    Stealable(Deque<Notified>),
}

impl YieldedTasks {
    /// The list, and the stealer peers use when it is stealable.
    pub(crate) fn new(stealable: bool) -> (YieldedTasks, Option<Stealer<Notified>>) {
        if stealable {
            let deque = Deque::new_fifo();
            let stealer = deque.stealer();
            (YieldedTasks::Stealable(deque), Some(stealer))
        } else {
            (YieldedTasks::Private(Vec::new()), None)
        }
    }

    #[inline]
    pub(crate) fn push(&mut self, task: Notified) {
        match self {
            YieldedTasks::Private(tasks) => tasks.push(task),
            YieldedTasks::Stealable(tasks) => push_stealable(tasks, task),
        }
    }

    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        match self {
            YieldedTasks::Private(tasks) => tasks.is_empty(),
            YieldedTasks::Stealable(tasks) => tasks.is_empty(),
        }
    }

    pub(crate) fn len(&self) -> usize {
        match self {
            YieldedTasks::Private(tasks) => tasks.len(),
            YieldedTasks::Stealable(tasks) => tasks.len(),
        }
    }

    /// Hands every task to `push`, oldest first; returns how many.
    pub(crate) fn drain(&mut self, mut push: impl FnMut(Notified)) -> usize {
        let mut moved = 0;
        match self {
            YieldedTasks::Private(tasks) => {
                for task in tasks.drain(..) {
                    push(task);
                    moved += 1;
                }
            }
            YieldedTasks::Stealable(tasks) => {
                while let Some(task) = tasks.pop() {
                    push(task);
                    moved += 1;
                }
            }
        }
        moved
    }

    /// Drops every task (shutdown).
    pub(crate) fn clear(&mut self) {
        match self {
            YieldedTasks::Private(tasks) => tasks.clear(),
            YieldedTasks::Stealable(tasks) => while tasks.pop().is_some() {},
        }
    }
}

/// Out of line: the watchdog is off by default, and the yield path is the
/// hottest there is.
#[cold]
fn push_stealable(tasks: &Deque<Notified>, task: Notified) {
    tasks.push(task);
}

/// Takes a batch of a stuck worker's yielded tasks into `dest`, returning
/// one to run.
pub(crate) fn steal_yielded(from: &Stealer<Notified>, dest: &Deque<Notified>) -> Option<Notified> {
    loop {
        match from.steal_batch_and_pop(dest) {
            Steal::Success(task) => return Some(task),
            Steal::Empty => return None,
            Steal::Retry => continue,
        }
    }
}

#[cfg(all(test, loom))]
mod loom_lifo_slot {
    use super::{LifoSlot, SlotItem};
    use crate::loom::sync::Arc;
    use crate::loom::sync::atomic::{AtomicUsize, Ordering};
    use crate::loom::thread;
    use std::ptr::NonNull;

    /// A value that counts how many times it was taken (run) and dropped.
    struct Item {
        taken: Arc<AtomicUsize>,
    }

    impl SlotItem for Box<Item> {
        fn into_ptr(self) -> NonNull<()> {
            NonNull::from(Box::leak(self)).cast()
        }

        unsafe fn from_ptr(ptr: NonNull<()>) -> Box<Item> {
            // SAFETY: `ptr` came from `Box::leak` in `into_ptr`, once.
            unsafe { Box::from_raw(ptr.cast::<Item>().as_ptr()) }
        }
    }

    fn run(item: Box<Item>) {
        item.taken.fetch_add(1, Ordering::SeqCst);
    }

    /// The owner pushes two items (the second displaces the first) and pops
    /// while a thief steals: every item is run exactly once, by someone.
    #[test]
    fn loom_lifo_slot_owner_and_thief_take_each_item_once() {
        loom::model(|| {
            let slot = Arc::new(LifoSlot::<Box<Item>>::new());
            let taken = Arc::new(AtomicUsize::new(0));
            let item = || {
                Box::new(Item {
                    taken: taken.clone(),
                })
            };
            assert!(slot.push(item()).is_none());
            let thief = {
                let slot = slot.clone();
                thread::spawn(move || {
                    if let Some(stolen) = slot.steal() {
                        run(stolen);
                    }
                })
            };
            if let Some(displaced) = slot.push(item()) {
                run(displaced);
            }
            if let Some(popped) = slot.pop() {
                run(popped);
            }
            thief.join().unwrap();
            // Whatever is still in the slot runs now.
            while let Some(rest) = slot.pop() {
                run(rest);
            }
            assert_eq!(taken.load(Ordering::SeqCst), 2);
        });
    }

    /// Two thieves race the owner's pop for one item.
    #[test]
    fn loom_lifo_slot_two_thieves_and_the_owner() {
        loom::model(|| {
            let slot = Arc::new(LifoSlot::<Box<Item>>::new());
            let taken = Arc::new(AtomicUsize::new(0));
            slot.push(Box::new(Item {
                taken: taken.clone(),
            }));
            let thieves: Vec<_> = (0..2)
                .map(|_| {
                    let slot = slot.clone();
                    thread::spawn(move || {
                        if let Some(stolen) = slot.steal() {
                            run(stolen);
                        }
                    })
                })
                .collect();
            if let Some(popped) = slot.pop() {
                run(popped);
            }
            for thief in thieves {
                thief.join().unwrap();
            }
            assert_eq!(taken.load(Ordering::SeqCst), 1);
        });
    }
}
