//! The wakers waiting on one direction of one registration.
//!
//! Two kinds of waiter share a list:
//! - *owned places*, one per waiting future ([`ReadyWaiter`](crate::ReadyWaiter)):
//!   any number of futures can wait at once, each in its own place, and a
//!   future that is dropped frees its place. The first place is inline, so
//!   a lone waiter allocates nothing; further places live in a slab that
//!   keeps its capacity and reuses freed places, so tasks that time out and
//!   retry never make it grow past the most waiters there ever were at once;
//! - the *shared slot* of the `poll_*` style callers
//!   ([`Registration::poll_ready`](crate::Registration::poll_ready)), which
//!   have no future to own a place: the last waker stored there wins.
//!
//! An edge takes every stored waker out ([`WaiterList::drain_wakers`]) but
//! leaves the places held: a woken future that finds the readiness gone
//! again stores a fresh waker in the same place, and only its drop frees
//! it. So a place key is never reused while its future lives.
//!
//! The list is plain data under the cell's lock. Every method that removes
//! or replaces a waker hands it back instead of dropping it, so the caller
//! can drop (or wake) it after the lock is released: a waker's drop may run
//! arbitrary code.

use slab::Slab;
use std::task::Waker;

/// Which place a [`ReadyWaiter`](crate::ReadyWaiter) owns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PlaceKey {
    /// The inline place.
    First,
    /// A place in the overflow slab.
    More(usize),
}

/// An owned place: `None` once its waker was taken by an edge (or never
/// stored), until the owner stores a new one.
type Place = Option<Waker>;

/// Laid out in the order an edge reads it (`repr(C)`): the shared slot,
/// the first place and the flags come first, so that with one waiter the
/// driver's drain touches only the cell's first cache line (see
/// `cell::ReadinessCell`); the slab is read only while `more_stored`.
/// That flag is the second of two: the cell keeps a "may hold a waker"
/// bit per list too (`cell::Waiters::stored`), so that an edge can skip a
/// whole list without reading it. Each sits in the line its check must
/// not leave; both are cleared only by a drain that takes every waker.
#[repr(C)]
#[derive(Debug, Default)]
pub(crate) struct WaiterList {
    /// The `poll_*` callers' slot: the last waker stored wins.
    shared: Option<Waker>,
    /// The first owned place (meaningful while `first_held`).
    first: Place,
    /// Whether a waiter owns the first place.
    first_held: bool,
    /// Whether a place in `more` may hold a waker: set by every store
    /// there, cleared by `drain_wakers`, so an edge reads the slab only
    /// when it may have something to take.
    more_stored: bool,
    /// Owned places beyond the first.
    more: Slab<Place>,
}

/// Stores `waker` in `slot` unless the waker there already wakes the same
/// task; returns the waker it replaced.
fn store(slot: &mut Option<Waker>, waker: &Waker) -> Option<Waker> {
    match slot {
        Some(current) if current.will_wake(waker) => None,
        _ => slot.replace(waker.clone()),
    }
}

impl WaiterList {
    /// Stores `waker` in the shared slot; returns the waker it replaced.
    pub(crate) fn store_shared(&mut self, waker: &Waker) -> Option<Waker> {
        store(&mut self.shared, waker)
    }

    pub(crate) fn take_shared(&mut self) -> Option<Waker> {
        self.shared.take()
    }

    /// A new owned place holding `waker`.
    pub(crate) fn insert(&mut self, waker: &Waker) -> PlaceKey {
        if !self.first_held {
            self.first_held = true;
            self.first = Some(waker.clone());
            PlaceKey::First
        } else {
            self.more_stored = true;
            PlaceKey::More(self.more.insert(Some(waker.clone())))
        }
    }

    fn place(&mut self, key: PlaceKey) -> &mut Place {
        let place = match key {
            PlaceKey::First => self.first_held.then_some(&mut self.first),
            PlaceKey::More(index) => self.more.get_mut(index),
        };
        place.expect("a waiter's place is held until the waiter drops")
    }

    /// Stores `waker` in the place `key`; returns the waker it replaced.
    pub(crate) fn store(&mut self, key: PlaceKey, waker: &Waker) -> Option<Waker> {
        if let PlaceKey::More(_) = key {
            self.more_stored = true;
        }
        store(self.place(key), waker)
    }

    /// Takes the waker out of the place `key`, which stays held.
    pub(crate) fn take(&mut self, key: PlaceKey) -> Option<Waker> {
        self.place(key).take()
    }

    /// Frees the place `key`; returns the waker it held.
    pub(crate) fn remove(&mut self, key: PlaceKey) -> Option<Waker> {
        match key {
            PlaceKey::First => {
                assert!(
                    self.first_held,
                    "a waiter's place is held until the waiter drops"
                );
                self.first_held = false;
                self.first.take()
            }
            PlaceKey::More(index) => self.more.remove(index),
        }
    }

    /// Moves every stored waker (the shared slot's and every place's) onto
    /// `wake`. The places stay held by their waiters.
    pub(crate) fn drain_wakers(&mut self, wake: &mut Vec<Waker>) {
        wake.extend(self.shared.take());
        // `None` unless held.
        wake.extend(self.first.take());
        if self.more_stored {
            self.more_stored = false;
            wake.extend(self.more.iter_mut().filter_map(|(_, place)| place.take()));
        }
    }

    /// How many bytes from its start hold what an edge reads with one
    /// waiter (all but the slab).
    #[cfg(test)]
    pub(crate) fn edge_bytes() -> usize {
        std::mem::offset_of!(WaiterList, more)
    }

    /// How many owned places are held.
    #[cfg(test)]
    pub(crate) fn places(&self) -> usize {
        usize::from(self.first_held) + self.more.len()
    }

    /// How many wakers are stored (the shared slot's included).
    #[cfg(test)]
    pub(crate) fn stored_wakers(&self) -> usize {
        usize::from(self.shared.is_some())
            + usize::from(self.first.is_some())
            + self
                .more
                .iter()
                .filter(|(_, place)| place.is_some())
                .count()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::test_support::counting;
    use std::sync::Arc;
    use std::task::Waker;

    #[test]
    fn one_waiter_uses_the_inline_place_and_no_slab() {
        let mut list = WaiterList::default();
        let (_, waker) = counting();
        let key = list.insert(&waker);
        assert_eq!(key, PlaceKey::First);
        assert_eq!(list.more.capacity(), 0, "the first waiter allocated");
        assert!(list.remove(key).is_some());
        assert_eq!(list.places(), 0);
    }

    #[test]
    fn an_edge_takes_every_waker_and_keeps_the_places() {
        let mut list = WaiterList::default();
        let counts: Vec<_> = (0..5).map(|_| counting()).collect();
        let keys: Vec<_> = counts.iter().map(|(_, w)| list.insert(w)).collect();
        let (_, shared) = counting();
        assert!(list.store_shared(&shared).is_none());
        let mut wake = Vec::new();
        list.drain_wakers(&mut wake);
        assert_eq!(wake.len(), 6);
        wake.into_iter().for_each(Waker::wake);
        for (count, _) in &counts {
            assert_eq!(count.wakes(), 1);
        }
        assert_eq!(list.places(), 5);
        assert_eq!(list.stored_wakers(), 0);
        for key in keys {
            assert!(list.remove(key).is_none(), "the edge took the waker");
        }
        assert_eq!(list.places(), 0);
    }

    #[test]
    fn storing_the_same_task_again_keeps_the_old_waker() {
        let mut list = WaiterList::default();
        let (count, waker) = counting();
        let key = list.insert(&waker);
        assert!(list.store(key, &waker).is_none());
        let (_, other) = counting();
        let replaced = list
            .store(key, &other)
            .expect("a different task's waker replaces");
        assert!(replaced.will_wake(&waker));
        drop(replaced);
        // The list holds `other` only: `waker`'s task is no longer referenced.
        assert_eq!(Arc::strong_count(&count), 2);
        assert!(list.remove(key).unwrap().will_wake(&other));
    }

    #[test]
    fn freed_places_are_reused_so_retries_do_not_grow_the_list() {
        let mut list = WaiterList::default();
        let (_, waker) = counting();
        let stay = list.insert(&waker);
        for _ in 0..10_000 {
            let a = list.insert(&waker);
            let b = list.insert(&waker);
            list.remove(a);
            list.remove(b);
        }
        assert_eq!(list.places(), 1);
        assert!(list.more.capacity() <= 4);
        list.remove(stay);
    }
}
