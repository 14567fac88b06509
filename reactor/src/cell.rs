//! The readiness cell of one registration: ready bits, a shutdown flag,
//! the owner's generation and a tick in one atomic word, and per direction
//! a [`WaiterList`] under a lock.
//!
//! Word layout: bits 0..6 the [`Ready`] set, bit 6 `SHUTDOWN`, bit 7
//! unused, bits 8..15 the generation (which owner of a reused cell this
//! is, see `cell_table`), bits 15.. the tick (all the rest of the word: 49
//! bits on 64-bit targets, 17 on 32-bit ones; see the crate docs for why a
//! wrap cannot erase fresh readiness). The protocol (numbered as in the
//! crate docs):
//! - the driver ORs new readiness in and bumps the tick (`set_ready`) if
//!   the event's generation is the cell's, then takes the lock and moves
//!   out the wakers of the directions it affects;
//! - a waiter reads the word; if its direction is not ready it stores its
//!   waker under the lock and reads the word again before returning
//!   `Pending` (step 3);
//! - a clear (`clear_ready`) only removes bits if the tick still matches the
//!   one the caller observed (step 2).
//!
//! No waker is woken or dropped under the lock: every function that takes
//! one out of a list either pushes it onto the caller's `wake` vector or
//! drops it after the guard is gone.

use crate::loom::{AtomicUsize, Mutex, Ordering};
use crate::ready::{Direction, Ready, ReadyEvent};
use crate::waiter_list::{PlaceKey, WaiterList};
use std::io;
use std::task::{Context, Poll, Waker};

const READY_MASK: usize = 0b11_1111;
const SHUTDOWN: usize = 1 << 6;
const GENERATION_SHIFT: u32 = 8;
/// Generations wrap at 7 bits, so that a token (24 bits of index and the
/// generation) fits a 32-bit `usize`.
pub(crate) const GENERATION_MASK: usize = 0x7f;
const TICK_SHIFT: u32 = 15;
/// One tick: adding it to the word bumps the tick; the carry out of the
/// top bit falls off, so the tick wraps without touching the low bits.
const TICK_ONE: usize = 1 << TICK_SHIFT;
const TICK_MASK: usize = !0 << TICK_SHIFT;

/// Readiness states that a plain clear keeps: a socket's closed side never
/// reopens. A FIFO's can (a new writer or reader opens it), and only an
/// operation that returns `WouldBlock` says so (`clear_ready_reopened`).
const STICKY: Ready = Ready::from_bits(Ready::READ_CLOSED.bits() | Ready::WRITE_CLOSED.bits());

/// One registration's cell, on cache lines of its own: an event and the
/// poll that follows it touch the word, the lock and the read list's
/// first slots, which sit in the cell's first 64 bytes (the cell,
/// `Waiters` and `WaiterList` are `repr(C)` for it); the write list and
/// the read list's slab are read only when they may hold a waker
/// (`Waiters::stored`, `WaiterList`'s `more_stored`). An event mostly
/// reports a socket readable and writable at once, and nobody waits to
/// write: without the flags each event read all three lines of the cell,
/// and cells that straddled lines (176 bytes, packed) a fourth. At
/// thousands of connections every cell is cold when its event comes.
#[derive(Debug)]
#[repr(C, align(64))]
pub(crate) struct ReadinessCell {
    word: AtomicUsize,
    waiters: Mutex<Waiters>,
}

#[repr(C)]
#[derive(Debug, Default)]
struct Waiters {
    /// Which lists may hold a waker, a bit per direction (`bit`): set by
    /// every store (`storing`), cleared when an edge drains the list. A
    /// list whose bit is clear holds none, so the edge skips it.
    stored: u8,
    read: WaiterList,
    write: WaiterList,
}

impl Waiters {
    fn bit(direction: Direction) -> u8 {
        match direction {
            Direction::Read => 1,
            Direction::Write => 2,
        }
    }

    fn list(&mut self, direction: Direction) -> &mut WaiterList {
        match direction {
            Direction::Read => &mut self.read,
            Direction::Write => &mut self.write,
        }
    }

    /// `direction`'s list, for a caller that may store a waker in it.
    fn storing(&mut self, direction: Direction) -> &mut WaiterList {
        self.stored |= Waiters::bit(direction);
        self.list(direction)
    }

    /// Moves the wakers of `direction`'s list onto `wake`, if it may hold
    /// any.
    fn drain(&mut self, direction: Direction, wake: &mut Vec<Waker>) {
        let bit = Waiters::bit(direction);
        if self.stored & bit != 0 {
            self.stored &= !bit;
            self.list(direction).drain_wakers(wake);
        }
    }
}

/// Where a poll stores its waker.
#[derive(Debug)]
pub(crate) enum Slot<'a> {
    /// The shared slot of `direction`'s `poll_*` callers: the last waker
    /// wins.
    Shared(Direction),
    /// A waiter's own places, one in each list its mask needs (see
    /// [`lists_for`]), taken on its first `Pending`.
    Owned(&'a mut Places),
}

/// The places one waiter owns: at most one in each direction's list.
#[derive(Debug, Default)]
pub(crate) struct Places {
    read: Option<PlaceKey>,
    write: Option<PlaceKey>,
}

impl Places {
    fn key(&mut self, direction: Direction) -> &mut Option<PlaceKey> {
        match direction {
            Direction::Read => &mut self.read,
            Direction::Write => &mut self.write,
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.read.is_none() && self.write.is_none()
    }
}

/// The states only a read-side edge reports, and only a write-side one.
const READ_SIDE: Ready =
    Ready::from_bits(Ready::READABLE.bits() | Ready::READ_CLOSED.bits() | Ready::PRIORITY.bits());
const WRITE_SIDE: Ready = Ready::from_bits(Ready::WRITABLE.bits() | Ready::WRITE_CLOSED.bits());

/// The lists a waiter for `mask` waits in: the read list for read-side
/// states, the write list for write-side states. An error wakes both lists
/// (it is in both directions' masks), so a waiter for errors alone waits in
/// the read list only, and one for writing does not also wait there.
fn lists_for(mask: Ready) -> [Option<Direction>; 2] {
    let write = !(mask & WRITE_SIDE).is_empty();
    let read = !(mask & READ_SIDE).is_empty() || !write;
    [
        read.then_some(Direction::Read),
        write.then_some(Direction::Write),
    ]
}

/// The states whose edge wakes `direction`'s list: every state a waiter
/// there may wait for (see [`lists_for`]), so priority for the read list,
/// although a read itself does not wait for it (`Direction::mask`).
fn wakes_list(direction: Direction) -> Ready {
    match direction {
        Direction::Read => READ_SIDE | Ready::ERROR,
        Direction::Write => WRITE_SIDE | Ready::ERROR,
    }
}

impl Slot<'_> {
    /// The lists this slot stores a waker in, for a wait on `mask`.
    fn lists(&self, mask: Ready) -> [Option<Direction>; 2] {
        match self {
            Slot::Shared(direction) => [Some(*direction), None],
            Slot::Owned(_) => lists_for(mask),
        }
    }

    /// Stores `waker` in `direction`'s `list`; returns the waker it
    /// replaced.
    fn store(
        &mut self,
        list: &mut WaiterList,
        direction: Direction,
        waker: &Waker,
    ) -> Option<Waker> {
        match self {
            Slot::Shared(_) => list.store_shared(waker),
            Slot::Owned(places) => match places.key(direction) {
                Some(key) => list.store(*key, waker),
                place => {
                    *place = Some(list.insert(waker));
                    None
                }
            },
        }
    }

    /// Takes back the waker `store` put in `direction`'s `list` (the place
    /// stays held).
    fn take(&mut self, list: &mut WaiterList, direction: Direction) -> Option<Waker> {
        match self {
            Slot::Shared(_) => list.take_shared(),
            Slot::Owned(places) => places.key(direction).and_then(|key| list.take(key)),
        }
    }
}

fn ready_of(word: usize) -> Ready {
    Ready::from_bits((word & READY_MASK) as u8)
}

fn generation_of(word: usize) -> usize {
    (word >> GENERATION_SHIFT) & GENERATION_MASK
}

fn tick_of(word: usize) -> usize {
    (word & TICK_MASK) >> TICK_SHIFT
}

/// The error of an operation that cannot run because the runtime it
/// belongs to has shut down: the one a registration reports once its
/// driver is gone, which [`is_shutdown_error`] recognises. For the
/// runtime's other resources (its blocking pool) that fail the same way.
///
/// # Examples
///
/// ```
/// let err = rt_reactor::shutdown_error();
/// assert!(rt_reactor::is_shutdown_error(&err));
/// assert_eq!(err.kind(), std::io::ErrorKind::Other);
/// ```
pub fn shutdown_error() -> io::Error {
    io::Error::other(DriverShutDown)
}

/// The error inside the `io::Error` of an operation on a registration
/// whose driver has shut down; see [`is_shutdown_error`].
#[derive(Debug)]
struct DriverShutDown;

impl std::fmt::Display for DriverShutDown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the I/O driver has shut down (the runtime is shutting down)")
    }
}

impl std::error::Error for DriverShutDown {}

/// Whether `err` is the error of an operation that failed because the
/// I/O driver it was registered with has shut down.
///
/// # Examples
///
/// ```
/// let other = std::io::Error::other("something else");
/// assert!(!rt_reactor::is_shutdown_error(&other));
/// ```
pub fn is_shutdown_error(err: &io::Error) -> bool {
    err.get_ref()
        .is_some_and(|inner| inner.is::<DriverShutDown>())
}

impl ReadinessCell {
    pub(crate) fn new() -> ReadinessCell {
        ReadinessCell {
            word: AtomicUsize::new(0),
            waiters: Mutex::new(Waiters::default()),
        }
    }

    /// Readies the cell for its next owner (it has none now): `assumed`
    /// ready (see `Handle::register_assuming`), at tick 0, not shut down,
    /// no waiter, the next generation. Returns the generation.
    ///
    /// The assumed readiness goes in with the update that starts the
    /// generation, before the owner's source enters the poller and before
    /// its `Registration` exists: no waiter can be in the lists yet and no
    /// event for this generation can land, so the assumption can neither
    /// hide an edge from a waiter nor wake one. From then on it is
    /// readiness like any other, observed at tick 0: the first `WouldBlock`
    /// clears it unless an event has bumped the tick since.
    pub(crate) fn reset(&self, assumed: Ready) -> usize {
        let ready = assumed.bits() as usize & READY_MASK;
        // A compare-and-swap, not a load and a store, so that the driver's
        // `set_ready` for the previous owner (also one) is ordered with it:
        // either it lands first and this overwrites it, or it lands after
        // and fails the generation check. (loom found a plain store
        // modelled as concurrent with that update, the stale event then
        // surviving in the new owner's word.)
        let mut current = self.word.load(Ordering::Acquire);
        let generation = loop {
            let generation = (generation_of(current) + 1) & GENERATION_MASK;
            match self.word.compare_exchange_weak(
                current,
                generation << GENERATION_SHIFT | ready,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => break generation,
                Err(actual) => current = actual,
            }
        };
        // The previous owner's drop took every waker out (`shutdown`); what
        // is left is places a leaked waiter never freed, and memory.
        let stale = std::mem::take(&mut *self.waiters.lock().unwrap());
        drop(stale);
        generation
    }

    /// Records an event for the owner of `generation` (step 1 of the
    /// driver side) and pushes the wakers it releases onto `wake`, for the
    /// caller to wake once it holds no lock. Returns `false`, doing
    /// nothing, if the event is for an earlier owner.
    pub(crate) fn set_ready(&self, generation: usize, ready: Ready, wake: &mut Vec<Waker>) -> bool {
        let bits = ready.bits() as usize & READY_MASK;
        let mut current = self.word.load(Ordering::Acquire);
        loop {
            if generation_of(current) != generation {
                return false;
            }
            let next = current.wrapping_add(TICK_ONE) | bits;
            match self.word.compare_exchange_weak(
                current,
                next,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => break,
                Err(actual) => current = actual,
            }
        }
        self.take_wakers(ready, wake);
        true
    }

    /// The driver's whole handling of an event for generation 0 (a fresh
    /// cell's): record it, then wake with the lock released.
    #[cfg(test)]
    pub(crate) fn deliver(&self, ready: Ready) {
        let mut wake = Vec::new();
        self.set_ready(0, ready, &mut wake);
        wake.into_iter().for_each(Waker::wake);
    }

    /// Marks the cell shut down and moves every waker onto `wake`.
    pub(crate) fn shutdown(&self, wake: &mut Vec<Waker>) {
        self.word.fetch_or(SHUTDOWN, Ordering::AcqRel);
        self.take_wakers(Ready::ALL, wake);
    }

    fn take_wakers(&self, ready: Ready, wake: &mut Vec<Waker>) {
        let mut waiters = self.waiters.lock().unwrap();
        for direction in [Direction::Read, Direction::Write] {
            if !(ready & wakes_list(direction)).is_empty() {
                waiters.drain(direction, wake);
            }
        }
    }

    /// The readiness in `mask` recorded now, for a one-shot attempt:
    /// readiness recorded before a shutdown still lets the operation run
    /// (bytes the kernel queued before the driver went are read, as with
    /// tokio); the shutdown error comes once nothing in `mask` is ready.
    pub(crate) fn check_for_attempt(&self, mask: Ready) -> Option<io::Result<ReadyEvent>> {
        let word = self.word.load(Ordering::Acquire);
        let ready = ready_of(word) & mask;
        if !ready.is_empty() {
            return Some(Ok(ReadyEvent {
                ready,
                tick: tick_of(word),
            }));
        }
        (word & SHUTDOWN != 0).then(|| Err(shutdown_error()))
    }

    /// The readiness in `mask` recorded now: `None` if there is none. A
    /// shutdown comes first: a waiter learns the driver is gone.
    pub(crate) fn check(&self, mask: Ready) -> Option<io::Result<ReadyEvent>> {
        let word = self.word.load(Ordering::Acquire);
        if word & SHUTDOWN != 0 {
            return Some(Err(shutdown_error()));
        }
        let ready = ready_of(word) & mask;
        if ready.is_empty() {
            None
        } else {
            Some(Ok(ReadyEvent {
                ready,
                tick: tick_of(word),
            }))
        }
    }

    /// `Ready` once a state in `mask` is ready; otherwise stores the waker
    /// in `slot` and returns `Pending`.
    pub(crate) fn poll_ready(
        &self,
        cx: &mut Context<'_>,
        mask: Ready,
        mut slot: Slot<'_>,
    ) -> Poll<io::Result<ReadyEvent>> {
        if let Some(result) = self.check(mask) {
            return Poll::Ready(result);
        }
        let lists = slot.lists(mask);
        // Replaced wakers, then wakers taken back: dropped after the lock.
        let mut unneeded: [Option<Waker>; 4] = Default::default();
        let result = {
            let mut waiters = self.waiters.lock().unwrap();
            for (i, direction) in lists.into_iter().enumerate() {
                if let Some(direction) = direction {
                    unneeded[i] = slot.store(waiters.storing(direction), direction, cx.waker());
                }
            }
            // Step 3: an event that landed before we took the lock is
            // visible now; one that lands after will find the waker.
            let result = self.check(mask);
            if result.is_some() {
                for (i, direction) in lists.into_iter().enumerate() {
                    if let Some(direction) = direction {
                        unneeded[2 + i] = slot.take(waiters.list(direction), direction);
                    }
                }
            }
            result
        };
        drop(unneeded);
        match result {
            Some(result) => Poll::Ready(result),
            None => Poll::Pending,
        }
    }

    /// Frees the owned `places` (their waiter is going away).
    pub(crate) fn leave(&self, places: &mut Places) {
        let mut freed: [Option<Waker>; 2] = Default::default();
        {
            let mut waiters = self.waiters.lock().unwrap();
            for (i, direction) in [Direction::Read, Direction::Write].into_iter().enumerate() {
                if let Some(key) = places.key(direction).take() {
                    freed[i] = waiters.list(direction).remove(key);
                }
            }
        }
        drop(freed);
    }

    /// Clears `event.ready` unless a newer event arrived since it was seen.
    pub(crate) fn clear_ready(&self, event: ReadyEvent) {
        self.clear_bits(event, event.ready - STICKY);
    }

    /// As [`clear_ready`](Cell::clear_ready), closed states included: for
    /// an operation that returned `WouldBlock` under them, which proves the
    /// side open again (a FIFO that a new writer or reader opened after
    /// the last one left). Left set, the closed state would end every wait
    /// at once and the operation would retry forever without yielding.
    pub(crate) fn clear_ready_reopened(&self, event: ReadyEvent) {
        self.clear_bits(event, event.ready);
    }

    /// Removes `clear` from the word if the tick is still `event`'s (step 2
    /// of the module docs).
    fn clear_bits(&self, event: ReadyEvent, clear: Ready) {
        let mut current = self.word.load(Ordering::Acquire);
        loop {
            if tick_of(current) != event.tick {
                return;
            }
            let next = current & !(clear.bits() as usize);
            match self.word.compare_exchange_weak(
                current,
                next,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => return,
                Err(actual) => current = actual,
            }
        }
    }

    pub(crate) fn readiness(&self) -> Ready {
        ready_of(self.word.load(Ordering::Acquire))
    }

    /// How many waiters own a place in `direction`'s list.
    #[cfg(test)]
    pub(crate) fn waiter_places(&self, direction: Direction) -> usize {
        self.waiters.lock().unwrap().list(direction).places()
    }

    /// How many wakers `direction`'s list holds (the shared slot's included).
    #[cfg(test)]
    pub(crate) fn stored_wakers(&self, direction: Direction) -> usize {
        self.waiters.lock().unwrap().list(direction).stored_wakers()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn the_tick_wraps_without_touching_the_ready_bits_or_shutdown() {
        let cell = ReadinessCell::new();
        cell.word.store(
            TICK_MASK | SHUTDOWN | (5 << GENERATION_SHIFT),
            Ordering::SeqCst,
        );
        let mut wake = Vec::new();
        assert!(cell.set_ready(5, Ready::WRITABLE, &mut wake));
        let word = cell.word.load(Ordering::SeqCst);
        assert_eq!(tick_of(word), 0);
        assert_eq!(word & SHUTDOWN, SHUTDOWN);
        assert_eq!(generation_of(word), 5);
        assert_eq!(ready_of(word), Ready::WRITABLE);
    }

    #[test]
    fn an_event_for_an_earlier_owner_is_dropped() {
        let cell = ReadinessCell::new();
        let old = cell.reset(Ready::EMPTY);
        let new = cell.reset(Ready::EMPTY);
        let mut wake = Vec::new();
        assert!(!cell.set_ready(old, Ready::READ_CLOSED, &mut wake));
        assert!(cell.readiness().is_empty());
        assert!(cell.set_ready(new, Ready::READABLE, &mut wake));
        assert_eq!(cell.readiness(), Ready::READABLE);
    }

    /// The layout `ReadinessCell`'s docs describe: what an edge and the
    /// poll after it touch, with one waiter reading, lies in the cell's
    /// first 64 bytes.
    #[test]
    fn an_edge_with_one_reader_touches_one_cache_line() {
        fn at<T>(field: &T) -> usize {
            field as *const T as usize
        }
        assert_eq!(std::mem::align_of::<ReadinessCell>(), 64);
        let cell = ReadinessCell::new();
        let base = at(&cell);
        let waiters = cell.waiters.lock().unwrap();
        // The lock's own state comes before its data, after the word.
        assert!(at(&cell.waiters) > at(&cell.word) && at(&*waiters) > at(&cell.waiters));
        assert!(at(&waiters.stored) < at(&waiters.read));
        let edge_end = at(&waiters.read) + WaiterList::edge_bytes() - base;
        assert!(edge_end <= 64, "an edge reads up to byte {edge_end}");
    }

    /// The flags never hide a waker: a list drained by one edge and
    /// stored in again is drained by the next, and so is every owned
    /// place, the first and those beyond it.
    #[test]
    fn wakers_stored_after_an_edge_are_taken_by_the_next() {
        let cell = ReadinessCell::new();
        let generation = cell.reset(Ready::EMPTY);
        let both = Ready::READABLE | Ready::WRITABLE;
        let waker = std::task::Waker::noop();
        let mut cx = Context::from_waker(waker);
        let mut places: Vec<Places> = (0..3).map(|_| Places::default()).collect();
        for _ in 0..3 {
            assert!(
                cell.poll_ready(&mut cx, Ready::READABLE, Slot::Shared(Direction::Read))
                    .is_pending()
            );
            assert!(
                cell.poll_ready(&mut cx, Ready::WRITABLE, Slot::Shared(Direction::Write))
                    .is_pending()
            );
            for places in &mut places {
                assert!(
                    cell.poll_ready(&mut cx, Ready::READABLE, Slot::Owned(places))
                        .is_pending()
                );
            }
            assert_eq!(cell.stored_wakers(Direction::Read), 4);
            assert_eq!(cell.stored_wakers(Direction::Write), 1);
            let mut wake = Vec::new();
            assert!(cell.set_ready(generation, both, &mut wake));
            assert_eq!(wake.len(), 5);
            assert_eq!(cell.stored_wakers(Direction::Read), 0);
            assert_eq!(cell.stored_wakers(Direction::Write), 0);
            // The places stay held; the next round stores in them again.
            assert_eq!(cell.waiter_places(Direction::Read), 3);
            let event = cell.check(both).unwrap().unwrap();
            cell.clear_ready(event);
        }
        for places in &mut places {
            cell.leave(places);
        }
        assert_eq!(cell.waiter_places(Direction::Read), 0);
    }

    #[test]
    fn the_tick_has_at_least_fifteen_bits() {
        assert!(tick_of(TICK_MASK) >= (1 << 15) - 1);
    }
}
