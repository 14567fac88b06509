//! The hierarchical timing wheel: a pure, deterministic data structure.
//!
//! Time is a `u64` count of ticks (the runtime uses 1 ms ticks). The wheel
//! has [`LEVELS`] levels of [`SLOTS`] slots; a slot of level `L` spans
//! `64^L` ticks, so level 0 holds the next 64 ticks one per slot and level 5
//! spans [`MAX_SPAN`] ticks (2^36 ms, about 2.2 years). Each slot is a
//! doubly-linked list threaded through one node arena, and each level keeps
//! a 64-bit "occupied" bitmap, so:
//!
//! - insert and remove are O(1): compute the slot, link or unlink a node;
//! - the next deadline is found without scanning: for the lowest level with
//!   a non-empty bitmap, rotate the bitmap to the current slot and take
//!   `trailing_zeros`.
//!
//! # Where an entry goes
//!
//! An entry due at `deadline` is filed at the level of the highest 6-bit
//! digit in which `deadline` differs from `elapsed` (the wheel's current
//! time), in the slot given by that digit of `deadline`. So level-0 entries
//! are due within the current 64-tick block, level-1 entries within the
//! current 4096-tick block, and so on; an entry on a lower level is always
//! due before every entry on a higher one. Entries already due
//! (`deadline <= elapsed`) go to a separate *expired* list.
//!
//! Deadlines further than the top level reaches are clamped to the top
//! level: they sit in the slot named by their top digit, which the wheel
//! reaches at most one rotation (`MAX_SPAN`) later, and are filed again
//! from there. They are never lost and never fire early.
//!
//! # Held entries
//!
//! [`insert`](Wheel::insert) and [`poll`](Wheel::poll) give the pure use:
//! an entry lives from insert until it is removed or expires. A caller
//! that keeps per-entry state after expiry (the [`Timer`](crate::Timer)
//! keeps each entry's waker and fired flag until its owner drops it) can
//! instead keep the node itself: [`poll_held`](Wheel::poll_held) unlinks
//! an expired entry but leaves it, value and key, in the arena, *held*;
//! [`insert_held`](Wheel::insert_held) makes one held from the start,
//! [`reschedule`](Wheel::reschedule) links a held or pending entry again,
//! and [`remove`](Wheel::remove) frees either kind. Keeping the caller's
//! state in the node means one arena, one index and one cache line per
//! entry, instead of two.
//!
//! # Advancing (`poll`)
//!
//! 1. If the expired list is not empty, pop one entry from it and return it.
//! 2. Otherwise find the next occupied slot (lowest level first). If it
//!    starts after `now`, set `elapsed = now` and stop.
//! 3. Otherwise set `elapsed` to the slot's start and *cascade*: unlink every
//!    entry of that slot and file it again relative to the new `elapsed`.
//!    A level-0 slot's entries are all due at its start, so they land on
//!    the expired list; a higher slot's entries move to lower levels (or to
//!    the expired list if due exactly at the slot's start). Go to 1.

use std::fmt;

/// How many levels the wheel has.
pub const LEVELS: usize = 6;
/// How many slots each level has.
pub const SLOTS: usize = 64;
/// How many ticks ahead of `elapsed` the wheel's levels reach (2^36); later
/// deadlines are clamped to the top level and filed again as time passes.
pub const MAX_SPAN: u64 = 1 << (SLOT_BITS as usize * LEVELS);

const SLOT_BITS: u32 = 6;
const SLOT_MASK: u64 = SLOTS as u64 - 1;
/// Index of the expired list in `heads` (after the `LEVELS * SLOTS` slots).
const EXPIRED: usize = LEVELS * SLOTS;
const LISTS: usize = EXPIRED + 1;
/// The null link.
const NIL: u32 = u32::MAX;
/// The `list` of a free node.
const FREE: u16 = u16::MAX;
/// The `list` of a held node: allocated, in no list (see the module docs).
const HELD: u16 = u16::MAX - 1;

/// Names one entry of a [`Wheel`], from [`Wheel::insert`] (or
/// [`insert_held`](Wheel::insert_held)) until the entry is removed or
/// returned by [`Wheel::poll`]. Keys of gone entries are reused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key(u32);

impl Key {
    /// The key's index in the wheel's arena (stable while the entry lives).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut wheel = rt_timer::Wheel::new();
    /// let key = wheel.insert(5, "a");
    /// assert_eq!(key.index(), 0);
    /// ```
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// An entry the wheel handed back because its deadline passed.
#[derive(Debug, PartialEq, Eq)]
pub struct Expired<T> {
    /// The key the entry had (now free for reuse).
    pub key: Key,
    /// When the entry was due.
    pub deadline: u64,
    /// What was stored.
    pub value: T,
}

struct Node<T> {
    value: Option<T>,
    deadline: u64,
    prev: u32,
    /// Next node of the same list, or the next free node.
    next: u32,
    /// Which list holds the node (`level * SLOTS + slot`, `EXPIRED`), or
    /// `HELD` or `FREE`.
    list: u16,
}

/// A hierarchical timing wheel of values of type `T` (see the module docs
/// for the layout and the cascade).
///
/// # Examples
///
/// ```
/// use rt_timer::Wheel;
///
/// let mut wheel = Wheel::new();
/// let early = wheel.insert(10, "early");
/// wheel.insert(5_000, "late");
/// assert_eq!(wheel.next_deadline(), Some(10));
/// assert!(wheel.poll(9).is_none());
/// let fired = wheel.poll(4_999).unwrap();
/// assert_eq!((fired.key, fired.value), (early, "early"));
/// assert!(wheel.poll(4_999).is_none());
/// assert_eq!(wheel.poll(5_000).unwrap().value, "late");
/// assert!(wheel.is_empty());
/// ```
pub struct Wheel<T> {
    nodes: Vec<Node<T>>,
    free: u32,
    heads: Box<[u32; LISTS]>,
    occupied: [u64; LEVELS],
    elapsed: u64,
    len: usize,
}

impl<T> Wheel<T> {
    /// An empty wheel at time 0.
    ///
    /// # Examples
    ///
    /// ```
    /// let wheel = rt_timer::Wheel::<()>::new();
    /// assert_eq!(wheel.elapsed(), 0);
    /// ```
    pub fn new() -> Wheel<T> {
        Wheel {
            nodes: Vec::new(),
            free: NIL,
            heads: Box::new([NIL; LISTS]),
            occupied: [0; LEVELS],
            elapsed: 0,
            len: 0,
        }
    }

    /// The wheel's current time: the `now` of the last [`poll`](Wheel::poll)
    /// that found nothing more to return.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut wheel = rt_timer::Wheel::<()>::new();
    /// assert!(wheel.poll(42).is_none());
    /// assert_eq!(wheel.elapsed(), 42);
    /// ```
    pub fn elapsed(&self) -> u64 {
        self.elapsed
    }

    /// How many entries the wheel holds, held ones not counted.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut wheel = rt_timer::Wheel::new();
    /// wheel.insert(1, ());
    /// assert_eq!(wheel.len(), 1);
    /// ```
    pub fn len(&self) -> usize {
        self.len
    }

    /// `true` if the wheel holds no entry.
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(rt_timer::Wheel::<()>::new().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Adds `value`, due at `deadline`, in O(1). A deadline at or before
    /// [`elapsed`](Wheel::elapsed) is due at once: the next `poll` returns it.
    ///
    /// # Panics
    ///
    /// Panics if the wheel already holds `u32::MAX - 1` entries.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut wheel = rt_timer::Wheel::new();
    /// wheel.insert(0, "now");
    /// assert_eq!(wheel.poll(0).unwrap().value, "now");
    /// ```
    pub fn insert(&mut self, deadline: u64, value: T) -> Key {
        let index = self.alloc(deadline, value);
        self.link(index);
        self.len += 1;
        Key(index)
    }

    /// Removes the entry `key` names in O(1), returning its value.
    ///
    /// # Panics
    ///
    /// Panics if `key` names no entry (it was removed or returned by `poll`).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut wheel = rt_timer::Wheel::new();
    /// let key = wheel.insert(100, "cancelled");
    /// assert_eq!(wheel.remove(key), "cancelled");
    /// assert!(wheel.poll(1_000).is_none());
    /// ```
    #[track_caller]
    pub fn remove(&mut self, key: Key) -> T {
        self.remove_reporting(key).0
    }

    /// [`remove`](Wheel::remove), also telling whether the removal may
    /// have changed [`next_deadline`](Wheel::next_deadline): only when it
    /// emptied the entry's list (a slot's or the expired one), as that
    /// answer depends on which lists hold something, not on what.
    #[track_caller]
    pub(crate) fn remove_reporting(&mut self, key: Key) -> (T, bool) {
        self.check_live(key, "remove");
        let list = self.nodes[key.0 as usize].list;
        self.hold(key.0);
        let emptied = list != HELD && self.heads[list as usize] == NIL;
        (self.release(key.0), emptied)
    }

    /// Adds `value`, due at `deadline`, as a held entry (see the module
    /// docs): not scheduled, and never returned by `poll`, until
    /// [`reschedule`](Wheel::reschedule)d.
    ///
    /// # Panics
    ///
    /// Panics if the wheel already holds `u32::MAX - 1` entries.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut wheel = rt_timer::Wheel::new();
    /// let key = wheel.insert_held(3, "kept");
    /// assert!(wheel.poll(10).is_none());
    /// assert_eq!(wheel.get(key), Some(&"kept"));
    /// assert_eq!(wheel.remove(key), "kept");
    /// ```
    pub fn insert_held(&mut self, deadline: u64, value: T) -> Key {
        let index = self.alloc(deadline, value);
        self.nodes[index as usize].list = HELD;
        Key(index)
    }

    /// Like [`poll`](Wheel::poll), but the entry returned is held, not
    /// freed: its key and value stay until [`remove`](Wheel::remove).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut wheel = rt_timer::Wheel::new();
    /// let key = wheel.insert(5, 'a');
    /// assert_eq!(wheel.poll_held(5), Some(key));
    /// assert!(wheel.is_empty() && wheel.poll_held(5).is_none());
    /// *wheel.get_mut(key).unwrap() = 'b';
    /// assert_eq!(wheel.remove(key), 'b');
    /// ```
    pub fn poll_held(&mut self, now: u64) -> Option<Key> {
        let index = self.poll_index(now)?;
        self.nodes[index as usize].list = HELD;
        Some(Key(index))
    }

    /// Files the entry `key` names, pending or held, again for `deadline`.
    ///
    /// # Panics
    ///
    /// Panics if `key` names no entry.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut wheel = rt_timer::Wheel::new();
    /// let key = wheel.insert(5, 'a');
    /// wheel.reschedule(key, 80);
    /// assert!(wheel.poll(79).is_none());
    /// assert_eq!(wheel.poll_held(80), Some(key));
    /// wheel.reschedule(key, 90);
    /// assert_eq!(wheel.poll(90).unwrap().value, 'a');
    /// ```
    #[track_caller]
    pub fn reschedule(&mut self, key: Key, deadline: u64) {
        self.check_live(key, "reschedule");
        self.hold(key.0);
        self.nodes[key.0 as usize].deadline = deadline;
        self.link(key.0);
        self.len += 1;
    }

    /// Takes the entry `key` names out of the schedule if it is pending,
    /// keeping it held, and sets its deadline (as recorded, not scheduled).
    ///
    /// # Panics
    ///
    /// Panics if `key` names no entry.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut wheel = rt_timer::Wheel::new();
    /// let key = wheel.insert(5, 'a');
    /// wheel.unschedule(key, 3);
    /// assert!(wheel.is_empty() && wheel.poll(5).is_none());
    /// assert_eq!(wheel.get(key), Some(&'a'));
    /// assert_eq!(wheel.deadline(key), Some(3));
    /// ```
    #[track_caller]
    pub fn unschedule(&mut self, key: Key, deadline: u64) {
        self.check_live(key, "unschedule");
        self.hold(key.0);
        self.nodes[key.0 as usize].deadline = deadline;
    }

    /// The value of the entry `key` names, pending or held.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut wheel = rt_timer::Wheel::new();
    /// let key = wheel.insert(5, 'a');
    /// assert_eq!(wheel.get(key), Some(&'a'));
    /// wheel.remove(key);
    /// assert_eq!(wheel.get(key), None);
    /// ```
    pub fn get(&self, key: Key) -> Option<&T> {
        self.nodes
            .get(key.0 as usize)
            .and_then(|node| node.value.as_ref())
    }

    /// The value of the entry `key` names, pending or held, to change.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut wheel = rt_timer::Wheel::new();
    /// let key = wheel.insert(5, 1);
    /// *wheel.get_mut(key).unwrap() += 1;
    /// assert_eq!(wheel.remove(key), 2);
    /// ```
    pub fn get_mut(&mut self, key: Key) -> Option<&mut T> {
        self.nodes
            .get_mut(key.0 as usize)
            .and_then(|node| node.value.as_mut())
    }

    /// Unschedules every pending entry, keeping them held, and returns
    /// their keys, in arena order, without advancing time.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut wheel = rt_timer::Wheel::new();
    /// let a = wheel.insert(1, 'a');
    /// let b = wheel.insert(1 << 40, 'b');
    /// assert_eq!(wheel.unschedule_all().collect::<Vec<_>>(), [a, b]);
    /// assert!(wheel.is_empty());
    /// assert_eq!(wheel.get(b), Some(&'b'));
    /// ```
    pub fn unschedule_all(&mut self) -> impl Iterator<Item = Key> + '_ {
        let mut index = 0;
        std::iter::from_fn(move || {
            while index < self.nodes.len() {
                let key = Key(index as u32);
                index += 1;
                if !matches!(self.nodes[key.0 as usize].list, FREE | HELD) {
                    self.hold(key.0);
                    return Some(key);
                }
            }
            None
        })
    }

    #[track_caller]
    fn check_live(&self, key: Key, what: &str) {
        let node = self.nodes.get(key.0 as usize);
        assert!(
            node.is_some_and(|node| node.list != FREE),
            "Wheel::{what}: the key names no entry (removed or expired already)"
        );
    }

    /// Unlinks node `index` if it is scheduled, leaving it held.
    fn hold(&mut self, index: u32) {
        if self.nodes[index as usize].list != HELD {
            self.unlink(index);
            self.nodes[index as usize].list = HELD;
            self.len -= 1;
        }
    }

    /// The deadline of the entry `key` names (pending or held), or `None`
    /// if it is gone.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut wheel = rt_timer::Wheel::new();
    /// let key = wheel.insert(7, ());
    /// assert_eq!(wheel.deadline(key), Some(7));
    /// ```
    pub fn deadline(&self, key: Key) -> Option<u64> {
        self.nodes
            .get(key.0 as usize)
            .filter(|node| node.list != FREE)
            .map(|node| node.deadline)
    }

    /// The earliest time at which [`poll`](Wheel::poll) has work, without
    /// scanning: `elapsed` if an entry is already due, otherwise the start
    /// of the next occupied slot. It is never later than the earliest
    /// deadline, and equals it when that deadline lies within the current
    /// 64-tick block; for later deadlines it is the time of the next
    /// cascade, after which the answer is more precise.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut wheel = rt_timer::Wheel::new();
    /// assert_eq!(wheel.next_deadline(), None);
    /// wheel.insert(10, ());
    /// wheel.insert(3, ());
    /// assert_eq!(wheel.next_deadline(), Some(3));
    /// ```
    pub fn next_deadline(&self) -> Option<u64> {
        if self.heads[EXPIRED] != NIL {
            return Some(self.elapsed);
        }
        self.next_slot().map(|(_, deadline)| deadline)
    }

    /// Advances the wheel to `now` and returns one entry due by then, or
    /// `None` once there is none left (then `elapsed() == max(elapsed, now)`).
    /// Call it in a loop to fire everything due. Entries due at the same
    /// tick come back in no particular order; entries due at different
    /// ticks come back in deadline order.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut wheel = rt_timer::Wheel::new();
    /// wheel.insert(70, 'b');
    /// wheel.insert(2, 'a');
    /// let mut fired = Vec::new();
    /// while let Some(expired) = wheel.poll(100) {
    ///     fired.push(expired.value);
    /// }
    /// assert_eq!(fired, ['a', 'b']);
    /// ```
    pub fn poll(&mut self, now: u64) -> Option<Expired<T>> {
        let index = self.poll_index(now)?;
        let deadline = self.nodes[index as usize].deadline;
        let value = self.release(index);
        Some(Expired {
            key: Key(index),
            deadline,
            value,
        })
    }

    /// Advances as `poll` does and unlinks one due entry, leaving its node
    /// allocated (in no list) for the caller to release or hold.
    fn poll_index(&mut self, now: u64) -> Option<u32> {
        loop {
            let head = self.heads[EXPIRED];
            if head != NIL {
                self.unlink(head);
                self.len -= 1;
                return Some(head);
            }
            match self.next_slot() {
                Some((list, start)) if start <= now => self.cascade(list, start),
                _ => {
                    self.elapsed = self.elapsed.max(now);
                    return None;
                }
            }
        }
    }

    /// Removes every entry, in arena order, without advancing time.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut wheel = rt_timer::Wheel::new();
    /// wheel.insert(1, 'a');
    /// wheel.insert(1 << 40, 'b');
    /// let mut all: Vec<_> = wheel.drain().map(|e| e.value).collect();
    /// all.sort();
    /// assert_eq!(all, ['a', 'b']);
    /// assert!(wheel.is_empty());
    /// ```
    pub fn drain(&mut self) -> impl Iterator<Item = Expired<T>> + '_ {
        let mut index = 0;
        std::iter::from_fn(move || {
            while index < self.nodes.len() {
                let key = Key(index as u32);
                index += 1;
                if let Some(deadline) = self.deadline(key) {
                    let value = self.remove(key);
                    return Some(Expired {
                        key,
                        deadline,
                        value,
                    });
                }
            }
            None
        })
    }

    /// The next occupied slot: its list index and start time.
    fn next_slot(&self) -> Option<(usize, u64)> {
        let level = self.occupied.iter().position(|&bits| bits != 0)?;
        let shift = SLOT_BITS * level as u32;
        let slot_span = 1u64 << shift;
        let level_span = slot_span << SLOT_BITS;
        // Search from the slot after the current one: the current slot of a
        // level holds nothing due in this rotation (its start is not after
        // `elapsed`), only clamped far-future entries of the top level.
        let current = (self.elapsed >> shift) & SLOT_MASK;
        let from = (current + 1) & SLOT_MASK;
        let slot = (from
            + self.occupied[level]
                .rotate_right(from as u32)
                .trailing_zeros() as u64)
            & SLOT_MASK;
        let level_start = self.elapsed & !(level_span - 1);
        let mut start = level_start + slot * slot_span;
        if slot <= current {
            // Only clamped entries wrap around: they are a rotation ahead.
            debug_assert_eq!(level, LEVELS - 1, "only the top level wraps");
            start += level_span;
        }
        Some((level * SLOTS + slot as usize, start))
    }

    /// Moves time to `start` and files every entry of slot `list` again.
    fn cascade(&mut self, list: usize, start: u64) {
        debug_assert!(start > self.elapsed);
        self.elapsed = start;
        let mut index = std::mem::replace(&mut self.heads[list], NIL);
        self.occupied[list / SLOTS] &= !(1 << (list % SLOTS));
        while index != NIL {
            let next = self.nodes[index as usize].next;
            self.link(index);
            index = next;
        }
    }

    fn alloc(&mut self, deadline: u64, value: T) -> u32 {
        let node = Node {
            value: Some(value),
            deadline,
            prev: NIL,
            next: NIL,
            list: FREE,
        };
        if self.free != NIL {
            let index = self.free;
            self.free = self.nodes[index as usize].next;
            self.nodes[index as usize] = node;
            index
        } else {
            let index = u32::try_from(self.nodes.len())
                .ok()
                .filter(|&index| index != NIL)
                .expect("rt-timer: more than u32::MAX - 1 timers at once");
            self.nodes.push(node);
            index
        }
    }

    fn release(&mut self, index: u32) -> T {
        let node = &mut self.nodes[index as usize];
        node.list = FREE;
        node.prev = NIL;
        node.next = self.free;
        self.free = index;
        node.value.take().expect("a live node holds a value")
    }

    /// Files node `index` (not in any list) by its deadline.
    fn link(&mut self, index: u32) {
        let deadline = self.nodes[index as usize].deadline;
        let list = if deadline <= self.elapsed {
            EXPIRED
        } else {
            let level = level_for(self.elapsed, deadline);
            let slot = ((deadline >> (SLOT_BITS * level as u32)) & SLOT_MASK) as usize;
            self.occupied[level] |= 1 << slot;
            level * SLOTS + slot
        };
        let head = self.heads[list];
        if head != NIL {
            self.nodes[head as usize].prev = index;
        }
        let node = &mut self.nodes[index as usize];
        node.list = list as u16;
        node.prev = NIL;
        node.next = head;
        self.heads[list] = index;
    }

    /// Takes node `index` out of its list.
    fn unlink(&mut self, index: u32) {
        let (list, prev, next) = {
            let node = &self.nodes[index as usize];
            (node.list as usize, node.prev, node.next)
        };
        if prev == NIL {
            self.heads[list] = next;
        } else {
            self.nodes[prev as usize].next = next;
        }
        if next != NIL {
            self.nodes[next as usize].prev = prev;
        }
        if list != EXPIRED && self.heads[list] == NIL {
            self.occupied[list / SLOTS] &= !(1 << (list % SLOTS));
        }
    }
}

/// The level of the highest 6-bit digit in which `deadline` differs from
/// `elapsed`, clamped to the top level.
fn level_for(elapsed: u64, deadline: u64) -> usize {
    let masked = ((elapsed ^ deadline) | SLOT_MASK).min(MAX_SPAN - 1);
    let significant = 63 - masked.leading_zeros();
    (significant / SLOT_BITS) as usize
}

impl<T> Default for Wheel<T> {
    fn default() -> Wheel<T> {
        Wheel::new()
    }
}

impl<T> fmt::Debug for Wheel<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Wheel")
            .field("elapsed", &self.elapsed)
            .field("len", &self.len)
            .field("occupied", &self.occupied)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests;
