//! The thread-safe timer: one or more shards, each a [`Wheel`] of entries
//! behind its own mutex.
//!
//! Sharding is for contention: threads that register and cancel timers
//! at the same time (one worker each) pick different shards and take
//! different locks. The driver fires and queries every shard; the shards
//! advance together, so the timer behaves as one wheel.
//!
//! Entries live in their shard's wheel, each in one node that also holds
//! its waker and fired state (see the wheel's "held entries"). A
//! [`TimerEntry`] owns its node: it is the only thing that frees it (when
//! dropped), so a node is freed exactly once whatever the driver does.
//! Firing only unschedules the entry (the node stays, held), marks it fired
//! and takes its waker, all under the lock, so an entry's waker is woken at
//! most once per arming even when it is cancelled or reset on another
//! thread at the same moment. Wakers are woken after the lock is released,
//! in batches.
//!
//! # Waking the driver
//!
//! The thread that drives the timer sleeps until the next deadline. An
//! entry registered on another thread with an earlier deadline must wake
//! it. The handshake:
//! 1. before sleeping, the driver calls [`Timer::park_deadline`], which
//!    records in each shard that shard's next deadline: the driver sleeps
//!    until the earliest of them, so no later than any;
//! 2. [`Timer::register`] and [`TimerEntry::reset`] return `true` when the
//!    new deadline is earlier than the one recorded in its shard (and
//!    record the new one): the caller must then wake the driver (its
//!    wake-up must be sticky: one that lands before the driver sleeps
//!    cancels the sleep);
//! 3. [`Timer::fire`] marks the driver awake in every shard: until the
//!    next `park_deadline` nothing needs waking, since the driver reads the
//!    wheels again before it sleeps.
//!
//! # What is read without the lock
//!
//! The driver fires on every wake-up, usually with nothing due, and asks
//! for the next deadline when it hands the driver over; a busy server
//! wakes it for every request. So each shard keeps, next to its lock:
//! - `next_due`, its wheel's next deadline, stored under the lock after
//!   every change of the wheel: [`Timer::next_deadline`] reads it without
//!   locking, and `fire` locks a shard only if it is due by `now`. A shard
//!   `fire` skips is not advanced: its wheel's clock stays behind, which
//!   is a valid state (nothing in it is due before `next_due`), and the
//!   first `fire` that finds work catches up, cascading what it must;
//! - `fired_to`, the `now` of the latest `fire`: an entry armed for a
//!   deadline at or before it fires at once, whether or not the wheel's
//!   own clock got there;
//! - `wake_at`, the deadline the driver sleeps until (step 1, under the
//!   lock), lowered by registrations under the lock (`fetch_min`, step
//!   2) and cleared by `fire` without it (step 3). A registration racing
//!   that clear may wake the driver for nothing, never miss a wake-up: the
//!   driver takes the lock again before it next sleeps.

use crate::loom::sync::atomic::{AtomicU64, Ordering};
use crate::loom::sync::{Arc, Mutex, MutexGuard};
use crate::wheel::{Key, Wheel};
use std::fmt;
use std::task::Waker;

/// How many wakers `fire` collects before releasing the lock to wake them.
const WAKE_BATCH: usize = 32;

/// A thread-safe timer: a wheel of entries with wakers. Cheap to clone;
/// clones share the same wheel. Time is in ticks (`u64`), as for [`Wheel`].
///
/// # Examples
///
/// ```
/// use rt_timer::Timer;
/// use std::task::Waker;
///
/// let timer = Timer::new();
/// let (entry, _wake_driver) = timer.register(10, Waker::noop());
/// assert_eq!(timer.next_deadline(), Some(10));
/// assert_eq!(timer.fire(9), 0);
/// assert_eq!(timer.fire(10), 1);
/// assert!(entry.is_fired());
/// ```
#[derive(Clone)]
pub struct Timer {
    shards: Arc<Shards>,
}

/// The shards, in a cache line apart from the `Arc`'s counts: every clone
/// and drop (one per armed entry) writes the counts, and every lock of a
/// shard reads where the shards are. Sharing a line, each entry armed on
/// one worker cost the other worker a cache miss on its next timer call.
#[repr(align(128))]
struct Shards(Vec<Shard>);

impl std::ops::Deref for Shards {
    type Target = [Shard];

    fn deref(&self) -> &[Shard] {
        &self.0
    }
}

/// One shard, on cache lines of its own: threads working on neighbouring
/// shards must not invalidate each other's lock word.
#[repr(align(128))]
struct Shard {
    state: Mutex<State>,
    /// The wheel's next deadline (`u64::MAX`: none); see the module docs.
    next_due: AtomicU64,
    /// The `now` of the latest `fire`; see the module docs.
    fired_to: AtomicU64,
    /// The deadline the driver sleeps until (`u64::MAX`: no deadline), or
    /// 0 while it is awake; see the module docs.
    wake_at: AtomicU64,
}

/// One registered timer. It stays in its timer until it fires or is
/// dropped; dropping it cancels it (from any thread).
///
/// # Examples
///
/// ```
/// use rt_timer::Timer;
/// use std::task::Waker;
///
/// let timer = Timer::new();
/// let (entry, _) = timer.register(10, Waker::noop());
/// drop(entry);
/// assert_eq!(timer.fire(100), 0);
/// assert_eq!(timer.len(), 0);
/// ```
pub struct TimerEntry {
    timer: Timer,
    shard: u32,
    key: Key,
}

struct State {
    /// The entries, pending ones scheduled, fired ones held.
    wheel: Wheel<Slot>,
    is_shutdown: bool,
}

/// What an entry keeps next to its deadline in the wheel.
struct Slot {
    waker: Option<Waker>,
    fired: Option<Fired>,
}

/// Why an entry is no longer pending.
///
/// # Examples
///
/// ```
/// use rt_timer::{Fired, Timer};
/// use std::task::Waker;
///
/// let timer = Timer::new();
/// let (a, _) = timer.register(1, Waker::noop());
/// let (b, _) = timer.register(1 << 30, Waker::noop());
/// timer.fire(1);
/// timer.shutdown();
/// assert_eq!(a.poll_fired(Waker::noop()), Some(Fired::Elapsed));
/// assert_eq!(b.poll_fired(Waker::noop()), Some(Fired::Shutdown));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fired {
    /// Its deadline passed.
    Elapsed,
    /// The timer shut down before the deadline.
    Shutdown,
}

impl Timer {
    /// A timer at tick 0 with no entries.
    ///
    /// # Examples
    ///
    /// ```
    /// let timer = rt_timer::Timer::new();
    /// assert_eq!(timer.next_deadline(), None);
    /// ```
    pub fn new() -> Timer {
        Timer::with_shards(1)
    }

    /// A timer at tick 0 with no entries, split into `shards` independently
    /// locked wheels (see the module docs); one per thread that registers
    /// timers concurrently is the useful number.
    ///
    /// # Panics
    ///
    /// Panics if `shards` is 0 or above `u32::MAX`.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::task::Waker;
    /// let timer = rt_timer::Timer::with_shards(4);
    /// let (_a, _) = timer.register_on(1, 30, Waker::noop());
    /// let (_b, _) = timer.register_on(3, 20, Waker::noop());
    /// assert_eq!(timer.next_deadline(), Some(20));
    /// assert_eq!(timer.len(), 2);
    /// ```
    pub fn with_shards(shards: usize) -> Timer {
        assert!(
            shards > 0 && u32::try_from(shards).is_ok(),
            "rt-timer: a timer needs between 1 and u32::MAX shards, not {shards}"
        );
        let shards = (0..shards)
            .map(|_| Shard {
                state: Mutex::new(State {
                    wheel: Wheel::new(),
                    is_shutdown: false,
                }),
                next_due: AtomicU64::new(u64::MAX),
                fired_to: AtomicU64::new(0),
                wake_at: AtomicU64::new(0),
            })
            .collect();
        Timer {
            shards: Arc::new(Shards(shards)),
        }
    }

    /// How many shards the timer has.
    ///
    /// # Examples
    ///
    /// ```
    /// assert_eq!(rt_timer::Timer::with_shards(3).shards(), 3);
    /// ```
    pub fn shards(&self) -> usize {
        self.shards.len()
    }

    /// Arms a new entry due at `deadline`; `waker` is woken when it fires.
    /// A deadline that has already passed (at or before
    /// [`elapsed`](Timer::elapsed)), or a timer that was shut down, gives an
    /// entry that is fired at once, and `waker` is woken at once (so a
    /// caller that returns `Pending` after registering is polled again).
    /// The `bool` is `true` when the driver must be woken (see the module
    /// docs).
    ///
    /// # Examples
    ///
    /// ```
    /// let timer = rt_timer::Timer::new();
    /// assert_eq!(timer.park_deadline(), None); // the driver sleeps indefinitely
    /// let (_entry, wake_driver) = timer.register(5, std::task::Waker::noop());
    /// assert!(wake_driver);
    /// ```
    pub fn register(&self, deadline: u64, waker: &Waker) -> (TimerEntry, bool) {
        self.register_on(0, deadline, waker)
    }

    /// [`register`](Timer::register) in shard `shard_hint` modulo the
    /// number of shards: threads registering at the same time should pass
    /// different hints (a worker its index, say) so that they do not
    /// contend on one lock.
    ///
    /// # Examples
    ///
    /// ```
    /// let timer = rt_timer::Timer::with_shards(2);
    /// let (entry, _) = timer.register_on(7, 5, std::task::Waker::noop());
    /// assert_eq!(timer.fire(5), 1);
    /// assert!(entry.is_fired());
    /// ```
    pub fn register_on(
        &self,
        shard_hint: usize,
        deadline: u64,
        waker: &Waker,
    ) -> (TimerEntry, bool) {
        let (entry, fired, wake_driver) = self.arm_on(shard_hint, deadline, waker);
        if fired.is_some() {
            waker.wake_by_ref();
        }
        (entry, wake_driver)
    }

    /// [`register_on`](Timer::register_on) for a caller that looks at the
    /// outcome at once: an entry fired at registration (its deadline had
    /// passed, or the timer was shut down) comes back with why it fired
    /// (`Some`) and `waker` is not woken, so a future can complete on the
    /// poll that registered it. `waker` is kept only for an entry that has
    /// not fired. The last value is [`register_on`](Timer::register_on)'s
    /// `bool`.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::task::Waker;
    ///
    /// let timer = rt_timer::Timer::new();
    /// timer.fire(10);
    /// let (_late, fired, _) = timer.arm_on(0, 4, Waker::noop());
    /// assert_eq!(fired, Some(rt_timer::Fired::Elapsed));
    /// let (_later, fired, _) = timer.arm_on(0, 20, Waker::noop());
    /// assert_eq!(fired, None);
    /// ```
    pub fn arm_on(
        &self,
        shard_hint: usize,
        deadline: u64,
        waker: &Waker,
    ) -> (TimerEntry, Option<Fired>, bool) {
        // `with_shards` checked that the count fits in a u32.
        let shard = (shard_hint % self.shards.len()) as u32;
        let mut state = self.lock(shard);
        let fired = self.fired_for(shard, &state, deadline);
        let key = match fired {
            // A fired entry needs no waker: the caller learns it fired.
            Some(fired) => state.wheel.insert_held(
                deadline,
                Slot {
                    waker: None,
                    fired: Some(fired),
                },
            ),
            None => state.wheel.insert(
                deadline,
                Slot {
                    waker: Some(waker.clone()),
                    fired: None,
                },
            ),
        };
        let wake_driver = fired.is_none() && self.record_deadline(shard, &state, deadline, true);
        drop(state);
        (
            TimerEntry {
                timer: self.clone(),
                shard,
                key,
            },
            fired,
            wake_driver,
        )
    }

    /// The earliest tick at which [`fire`](Timer::fire) has work (see
    /// [`Wheel::next_deadline`]), or `None` with no armed entry.
    ///
    /// # Examples
    ///
    /// ```
    /// let timer = rt_timer::Timer::new();
    /// let (_entry, _) = timer.register(3, std::task::Waker::noop());
    /// assert_eq!(timer.next_deadline(), Some(3));
    /// ```
    pub fn next_deadline(&self) -> Option<u64> {
        // Without the locks (see the module docs): a change made on
        // another thread at this moment may or may not be seen.
        self.shards
            .iter()
            .map(|shard| shard.next_due.load(Ordering::Acquire))
            .min()
            .filter(|&next| next != u64::MAX)
    }

    /// Like [`next_deadline`](Timer::next_deadline), and records it as the
    /// deadline the driver is about to sleep until, so that registering an
    /// earlier one reports that the driver must be woken.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::task::Waker;
    /// let timer = rt_timer::Timer::new();
    /// let (_a, _) = timer.register(10, Waker::noop());
    /// assert_eq!(timer.park_deadline(), Some(10));
    /// let (_b, wake_driver) = timer.register(20, Waker::noop());
    /// assert!(!wake_driver);
    /// let (_c, wake_driver) = timer.register(5, Waker::noop());
    /// assert!(wake_driver);
    /// ```
    pub fn park_deadline(&self) -> Option<u64> {
        self.each_shard()
            .filter_map(|index| {
                let shard = &self.shards[index as usize];
                // Under the lock for the handshake (see the module docs);
                // `next_due` is exact while it is held: every change of
                // the wheel stores it.
                let _state = self.lock(index);
                let next = shard.next_due.load(Ordering::Relaxed);
                shard.wake_at.store(next, Ordering::Relaxed);
                (next != u64::MAX).then_some(next)
            })
            .min()
    }

    /// Advances to `now` and fires every entry due by then, waking their
    /// wakers (outside the lock). Returns how many fired. Marks the driver
    /// awake (see the module docs).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::task::Waker;
    /// let timer = rt_timer::Timer::new();
    /// let (a, _) = timer.register(1, Waker::noop());
    /// let (b, _) = timer.register(1_000_000, Waker::noop());
    /// assert_eq!(timer.fire(500), 1);
    /// assert!(a.is_fired() && !b.is_fired());
    /// assert_eq!(timer.elapsed(), 500);
    /// ```
    pub fn fire(&self, now: u64) -> usize {
        let mut wakers: Vec<Waker> = Vec::new();
        self.each_shard()
            .map(|index| {
                let shard = &self.shards[index as usize];
                shard.fired_to.fetch_max(now, Ordering::Relaxed);
                shard.wake_at.store(0, Ordering::Relaxed);
                // Nothing due: no lock (see the module docs).
                if shard.next_due.load(Ordering::Acquire) > now {
                    return 0;
                }
                self.fire_shard(index, now, &mut wakers)
            })
            .sum()
    }

    /// [`fire`](Timer::fire) for one shard; `wakers` is an empty buffer.
    fn fire_shard(&self, shard: u32, now: u64, wakers: &mut Vec<Waker>) -> usize {
        let mut fired = 0;
        loop {
            let mut state = self.lock(shard);
            let mut done = true;
            while let Some(key) = state.wheel.poll_held(now) {
                fired += 1;
                let slot = state.slot(key);
                slot.fired = Some(Fired::Elapsed);
                if let Some(waker) = slot.waker.take() {
                    wakers.push(waker);
                    if wakers.len() == WAKE_BATCH {
                        done = false;
                        break;
                    }
                }
            }
            self.sync_next_due(shard, &state);
            drop(state);
            for waker in wakers.drain(..) {
                waker.wake();
            }
            if done {
                return fired;
            }
        }
    }

    /// The timer's current tick: the `now` of the last [`fire`](Timer::fire).
    ///
    /// # Examples
    ///
    /// ```
    /// let timer = rt_timer::Timer::new();
    /// timer.fire(12);
    /// assert_eq!(timer.elapsed(), 12);
    /// ```
    pub fn elapsed(&self) -> u64 {
        // Every `fire` records its `now` in every shard: any one tells.
        self.shards[0].fired_to.load(Ordering::Relaxed)
    }

    /// How many entries are armed (registered, not yet fired or dropped).
    ///
    /// # Examples
    ///
    /// ```
    /// let timer = rt_timer::Timer::new();
    /// let (_entry, _) = timer.register(3, std::task::Waker::noop());
    /// assert_eq!(timer.len(), 1);
    /// ```
    pub fn len(&self) -> usize {
        self.each_shard()
            .map(|shard| self.lock(shard).wheel.len())
            .sum()
    }

    /// `true` if no entry is armed.
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(rt_timer::Timer::new().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Fires every armed entry, whatever its deadline, and makes later
    /// registrations fire at once: the timer's driver is going away.
    /// Entries can tell with [`is_shutdown`](Timer::is_shutdown).
    ///
    /// # Examples
    ///
    /// ```
    /// let timer = rt_timer::Timer::new();
    /// let (entry, _) = timer.register(1 << 40, std::task::Waker::noop());
    /// timer.shutdown();
    /// assert!(entry.is_fired() && timer.is_shutdown());
    /// ```
    pub fn shutdown(&self) {
        for shard in self.each_shard() {
            self.shutdown_shard(shard);
        }
    }

    fn shutdown_shard(&self, shard: u32) {
        let wakers: Vec<Waker> = {
            let mut state = self.lock(shard);
            state.is_shutdown = true;
            let keys: Vec<Key> = state.wheel.unschedule_all().collect();
            self.sync_next_due(shard, &state);
            keys.into_iter()
                .filter_map(|key| {
                    let slot = state.slot(key);
                    slot.fired = Some(Fired::Shutdown);
                    slot.waker.take()
                })
                .collect()
        };
        for waker in wakers {
            waker.wake();
        }
    }

    /// `true` once [`shutdown`](Timer::shutdown) was called.
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(!rt_timer::Timer::new().is_shutdown());
    /// ```
    pub fn is_shutdown(&self) -> bool {
        // `shutdown` marks the shards in order; the last one tells that
        // all are.
        self.lock(self.shards.len() as u32 - 1).is_shutdown
    }

    fn each_shard(&self) -> std::ops::Range<u32> {
        // `with_shards` checked that the count fits in a u32.
        0..self.shards.len() as u32
    }

    fn lock(&self, shard: u32) -> MutexGuard<'_, State> {
        // A panic while the lock is held can only come from a bug in the
        // wheel (wakers run outside it); the state is then unusable.
        self.shards[shard as usize]
            .state
            .lock()
            .expect("rt-timer: a thread panicked while holding the timer lock")
    }

    /// How an entry armed now for `deadline` in `shard` (whose lock the
    /// caller holds, as `state`) fires at once, if it does.
    fn fired_for(&self, shard: u32, state: &State, deadline: u64) -> Option<Fired> {
        if state.is_shutdown {
            Some(Fired::Shutdown)
        } else if deadline <= self.shards[shard as usize].fired_to.load(Ordering::Relaxed) {
            Some(Fired::Elapsed)
        } else {
            None
        }
    }

    /// Records a newly scheduled `deadline` in `shard` (under its lock,
    /// `state`), for a new entry (`inserted`) or a reset one; returns
    /// whether the driver must be woken (see the module docs).
    fn record_deadline(&self, shard: u32, state: &State, deadline: u64, inserted: bool) -> bool {
        let shard_index = shard;
        let shard = &self.shards[shard as usize];
        // A new entry due no earlier than the wheel's next deadline leaves
        // it as it is: its slot starts no earlier (a lower level's slots
        // all start before a higher level's next one). (One exception: a
        // deadline clamped to the top level may sit in an earlier top
        // slot, whose cascade only files it again; `fire` does that when
        // it gets there anyway.) A reset entry may have been the next
        // one: look again.
        if !inserted || deadline < shard.next_due.load(Ordering::Relaxed) {
            self.sync_next_due(shard_index, state);
        }
        // Read first: the read-modify-write is a locked instruction, and
        // mostly the driver is awake (0) or sleeps until earlier.
        deadline < shard.wake_at.load(Ordering::Relaxed)
            && shard.wake_at.fetch_min(deadline, Ordering::Relaxed) > deadline
    }

    /// Publishes `shard`'s next deadline (under its lock, `state`) for the
    /// lock-free readers, and returns it.
    fn sync_next_due(&self, shard: u32, state: &State) -> Option<u64> {
        let next = state.wheel.next_deadline();
        self.shards[shard as usize]
            .next_due
            .store(next.unwrap_or(u64::MAX), Ordering::Release);
        next
    }
}

impl State {
    fn slot(&mut self, key: Key) -> &mut Slot {
        self.wheel
            .get_mut(key)
            .expect("rt-timer: a live entry keeps its node")
    }
}

impl TimerEntry {
    /// The tick the entry is (or was) due at.
    ///
    /// # Examples
    ///
    /// ```
    /// let timer = rt_timer::Timer::new();
    /// let (entry, _) = timer.register(8, std::task::Waker::noop());
    /// assert_eq!(entry.deadline(), 8);
    /// ```
    pub fn deadline(&self) -> u64 {
        self.timer
            .lock(self.shard)
            .wheel
            .deadline(self.key)
            .expect("rt-timer: a live entry keeps its node")
    }

    /// Takes out the waker of an entry that has not fired: the timer will
    /// not wake it. For a caller about to drop the entry whose waiter must
    /// still be told (a sleep reset to a deadline that already passed
    /// completes without its entry, and wakes the task that waited on it).
    ///
    /// # Examples
    ///
    /// ```
    /// let timer = rt_timer::Timer::new();
    /// let (entry, _) = timer.register(9, std::task::Waker::noop());
    /// assert!(entry.take_waker().is_some());
    /// assert!(entry.take_waker().is_none(), "taken already");
    /// ```
    pub fn take_waker(&self) -> Option<Waker> {
        let mut state = self.timer.lock(self.shard);
        let slot = state.slot(self.key);
        if slot.fired.is_some() {
            return None;
        }
        slot.waker.take()
    }

    /// `true` once the entry fired (and until it is reset).
    ///
    /// # Examples
    ///
    /// ```
    /// let timer = rt_timer::Timer::new();
    /// let (entry, _) = timer.register(0, std::task::Waker::noop());
    /// assert!(entry.is_fired());
    /// ```
    pub fn is_fired(&self) -> bool {
        self.timer.lock(self.shard).slot(self.key).fired.is_some()
    }

    /// Why the entry fired, or `None` if it is pending: then `waker` is
    /// stored (replacing the previous one) to be woken when it fires.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::task::Waker;
    /// let timer = rt_timer::Timer::new();
    /// let (entry, _) = timer.register(4, Waker::noop());
    /// assert_eq!(entry.poll_fired(Waker::noop()), None);
    /// timer.fire(4);
    /// assert_eq!(entry.poll_fired(Waker::noop()), Some(rt_timer::Fired::Elapsed));
    /// ```
    pub fn poll_fired(&self, waker: &Waker) -> Option<Fired> {
        let mut state = self.timer.lock(self.shard);
        let slot = state.slot(self.key);
        if slot.fired.is_some() {
            return slot.fired;
        }
        let replaced = match &mut slot.waker {
            Some(current) if current.will_wake(waker) => None,
            stored => stored.replace(waker.clone()),
        };
        drop(state);
        // A waker's drop may run arbitrary code (cancel another entry of
        // this shard, say): outside the lock.
        drop(replaced);
        None
    }

    /// Re-arms the entry for `deadline` (fired or not). An entry that has
    /// not fired keeps its waker; a fired one used its waker up, so call
    /// [`poll_fired`](TimerEntry::poll_fired) to store a new one. A
    /// deadline that has already passed (at or before
    /// [`elapsed`](Timer::elapsed)), or a timer that was shut down, fires
    /// the entry at once and wakes the waker it kept, as
    /// [`register`](Timer::register) does: its waiter is polled again. Returns
    /// `true` when the driver must be woken (see the module docs).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::task::Waker;
    /// let timer = rt_timer::Timer::new();
    /// let (mut entry, _) = timer.register(4, Waker::noop());
    /// timer.fire(4);
    /// entry.reset(10);
    /// assert!(!entry.is_fired());
    /// assert_eq!(timer.next_deadline(), Some(10));
    /// ```
    pub fn reset(&mut self, deadline: u64) -> bool {
        let timer = &self.timer;
        let mut state = timer.lock(self.shard);
        let fired = timer.fired_for(self.shard, &state, deadline);
        match fired {
            Some(_) => state.wheel.unschedule(self.key, deadline),
            None => state.wheel.reschedule(self.key, deadline),
        }
        let slot = state.slot(self.key);
        slot.fired = fired;
        // Fired at once: no `fire` will wake the waiter of a pending entry
        // any more (a task waiting on a sleep that another thread resets
        // just as the driver moves past the new deadline).
        let waiter = fired.and_then(|_| slot.waker.take());
        let wake_driver = match fired {
            Some(_) => {
                timer.sync_next_due(self.shard, &state);
                false
            }
            None => timer.record_deadline(self.shard, &state, deadline, false),
        };
        drop(state);
        // A waker may run arbitrary code: outside the lock.
        if let Some(waiter) = waiter {
            waiter.wake();
        }
        wake_driver
    }

    /// The timer this entry belongs to.
    ///
    /// # Examples
    ///
    /// ```
    /// let timer = rt_timer::Timer::new();
    /// let (entry, _) = timer.register(4, std::task::Waker::noop());
    /// assert_eq!(entry.timer().len(), 1);
    /// ```
    pub fn timer(&self) -> &Timer {
        &self.timer
    }
}

impl Drop for TimerEntry {
    fn drop(&mut self) {
        let mut state = self.timer.lock(self.shard);
        let (slot, emptied) = state.wheel.remove_reporting(self.key);
        // The next deadline only moves when a list empties: mostly the
        // entry shares its slot with others (a server's many header-read
        // timeouts), and the search is skipped.
        if emptied {
            self.timer.sync_next_due(self.shard, &state);
        }
        drop(state);
        // A waker's drop may run arbitrary code: outside the lock.
        drop(slot);
    }
}

impl Default for Timer {
    fn default() -> Timer {
        Timer::new()
    }
}

impl fmt::Debug for Timer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Timer").finish_non_exhaustive()
    }
}

impl fmt::Debug for TimerEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TimerEntry")
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests;

#[cfg(all(test, loom))]
mod loom_models;
