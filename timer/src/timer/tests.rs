//! Unit tests of the thread-safe timer: batches, cancellation, reset,
//! the driver-wake handshake.

use super::*;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::Wake;

struct CountWakes(AtomicUsize);

impl Wake for CountWakes {
    fn wake(self: std::sync::Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

fn counter() -> (std::sync::Arc<CountWakes>, Waker) {
    let count = std::sync::Arc::new(CountWakes(AtomicUsize::new(0)));
    (count.clone(), Waker::from(count))
}

#[test]
fn fires_more_than_a_batch_of_wakers() {
    let timer = Timer::new();
    let (count, waker) = counter();
    let entries: Vec<_> = (0..100)
        .map(|i| timer.register(1 + i % 3, &waker).0)
        .collect();
    assert_eq!(timer.fire(3), 100);
    assert_eq!(count.0.load(Ordering::SeqCst), 100);
    assert!(entries.iter().all(TimerEntry::is_fired));
}

#[test]
fn cancelled_entries_never_wake_and_free_their_slot() {
    let timer = Timer::new();
    let (count, waker) = counter();
    let (entry, _) = timer.register(5, &waker);
    drop(entry);
    assert_eq!(timer.fire(10), 0);
    assert_eq!(count.0.load(Ordering::SeqCst), 0);
    let (again, _) = timer.register(20, &waker);
    assert_eq!(again.key.index(), 0, "the node was reused");
}

#[test]
fn registering_a_passed_deadline_wakes_at_once() {
    let timer = Timer::new();
    let (count, waker) = counter();
    timer.fire(10);
    let (entry, wake_driver) = timer.register(10, &waker);
    assert!(!wake_driver);
    assert_eq!(count.0.load(Ordering::SeqCst), 1);
    assert_eq!(entry.poll_fired(&waker), Some(Fired::Elapsed));
    timer.shutdown();
    let (late, _) = timer.register(1_000, &waker);
    assert_eq!(count.0.load(Ordering::SeqCst), 2);
    assert_eq!(late.poll_fired(&waker), Some(Fired::Shutdown));
}

#[test]
fn reset_moves_the_deadline_and_rearms() {
    let timer = Timer::new();
    let (count, waker) = counter();
    let (mut entry, _) = timer.register(5, &waker);
    entry.reset(50);
    assert_eq!(timer.fire(49), 0);
    assert_eq!(timer.fire(50), 1);
    assert_eq!(count.0.load(Ordering::SeqCst), 1);
    entry.reset(60);
    assert!(!entry.is_fired());
    assert_eq!(entry.poll_fired(&waker), None);
    assert_eq!(timer.fire(60), 1);
    assert_eq!(count.0.load(Ordering::SeqCst), 2);
}

/// A pending entry reset to a deadline the timer has already passed fires
/// at once, and its waiter must hear of it: no `fire` will wake it now.
/// (A sleep reset on one thread as the driver moves past its new deadline
/// on another left the task waiting on it asleep for good.)
#[test]
fn reset_to_a_passed_deadline_wakes_the_waiter() {
    let timer = Timer::new();
    let (count, waker) = counter();
    let (mut entry, _) = timer.register(100, &waker);
    assert_eq!(timer.fire(20), 0);
    assert!(!entry.reset(15));
    assert!(entry.is_fired());
    assert_eq!(count.0.load(Ordering::SeqCst), 1, "the waiter was woken");
    // Once, and a fired entry's reset to the past wakes nobody again.
    entry.reset(10);
    assert_eq!(count.0.load(Ordering::SeqCst), 1);
    // A timer that shut down fires a reset pending entry as well.
    entry.reset(200);
    assert_eq!(entry.poll_fired(&waker), None);
    timer.shutdown();
    assert_eq!(count.0.load(Ordering::SeqCst), 2);
    entry.reset(300);
    assert_eq!(entry.poll_fired(&waker), Some(Fired::Shutdown));
    assert_eq!(count.0.load(Ordering::SeqCst), 2);
}

#[test]
fn wake_driver_only_when_earlier_than_its_sleep() {
    let timer = Timer::new();
    let waker = Waker::noop();
    let (_a, _) = timer.register(40, waker);
    assert_eq!(timer.park_deadline(), Some(40));
    assert!(!timer.register(50, waker).1);
    assert!(timer.register(20, waker).1);
    assert!(!timer.register(30, waker).1, "20 is already recorded");
    timer.fire(0);
    assert!(!timer.register(10, waker).1, "an awake driver re-reads");
}

#[test]
fn shards_behave_as_one_wheel() {
    let timer = Timer::with_shards(3);
    let (count, waker) = counter();
    // Deadlines spread over the shards, some cancelled, some reset.
    let mut entries: Vec<_> = (0..60u64)
        .map(|i| timer.register_on(i as usize, 10 + (i * 7) % 50, &waker).0)
        .collect();
    assert_eq!(timer.len(), 60);
    assert_eq!(timer.next_deadline(), Some(10));
    entries.truncate(40);
    entries[0].reset(100);
    assert_eq!(timer.len(), 40);
    // Entries 1..40 have deadlines 17, 24, ... modulo 50 (plus 10):
    // fire exactly those due by each step, whichever shard holds them.
    let due_by = |now: u64| (1..40u64).filter(|i| 10 + (i * 7) % 50 <= now).count();
    assert_eq!(timer.fire(30), due_by(30));
    assert_eq!(timer.fire(59), due_by(59) - due_by(30));
    // (`next_deadline` may be a cascade point before 100, never after.)
    assert!(timer.next_deadline().is_some_and(|next| next <= 100));
    assert_eq!(timer.fire(99), 0);
    assert_eq!(timer.fire(100), 1);
    assert_eq!(count.0.load(Ordering::SeqCst), 40);
    assert!(timer.is_empty());
    assert_eq!(timer.elapsed(), 100);
}

#[test]
fn sharded_wake_driver_handshake_and_shutdown() {
    let timer = Timer::with_shards(2);
    let (_a, _) = timer.register_on(0, 10, Waker::noop());
    let (_b, _) = timer.register_on(1, 30, Waker::noop());
    // The driver sleeps until 10: an earlier deadline in either shard
    // must wake it, a later one in either need not.
    assert_eq!(timer.park_deadline(), Some(10));
    assert!(!timer.register_on(0, 20, Waker::noop()).1);
    assert!(timer.register_on(1, 5, Waker::noop()).1);
    assert!(timer.register_on(0, 4, Waker::noop()).1);
    timer.shutdown();
    assert!(timer.is_shutdown());
    let (late, wake_driver) = timer.register_on(1, 50, Waker::noop());
    assert!(!wake_driver);
    assert_eq!(late.poll_fired(Waker::noop()), Some(Fired::Shutdown));
}

#[test]
#[should_panic(expected = "between 1 and u32::MAX shards")]
fn zero_shards_is_refused() {
    let _ = Timer::with_shards(0);
}

/// `fire` leaves a shard with nothing due untouched (no lock, its wheel's
/// clock behind): what that shard does afterwards is as if it had moved.
#[test]
fn a_fire_that_skips_a_shard_with_nothing_due_loses_nothing() {
    let timer = Timer::with_shards(2);
    let (count, waker) = counter();
    // Shard 1 has a far entry (a coarse level of its wheel), shard 0 none.
    let (far, _) = timer.register_on(1, 10_000, &waker);
    // The wheel's next deadline for it is when its coarse slot cascades.
    assert_eq!(timer.next_deadline(), Some(8_192));
    // Neither shard has anything due by 5_000: nothing fires, and the
    // timer's time is still 5_000.
    assert_eq!(timer.fire(5_000), 0);
    assert_eq!(timer.elapsed(), 5_000);
    // A deadline the timer has passed fires at once, in either shard,
    // although neither wheel's clock moved.
    let (passed, wake_driver) = timer.register_on(0, 4_000, &waker);
    assert!(passed.is_fired() && !wake_driver);
    assert_eq!(count.0.load(Ordering::SeqCst), 1);
    let (mut reset, _) = timer.register_on(1, 20_000, &waker);
    assert!(!reset.reset(5_000));
    assert!(reset.is_fired());
    // A later one waits for its own deadline, however far the skipped
    // wheel has to catch up when it fires.
    let (near, _) = timer.register_on(0, 5_001, &waker);
    assert_eq!(timer.fire(5_000), 0);
    assert_eq!(timer.fire(5_001), 1);
    assert!(near.is_fired() && !far.is_fired());
    assert_eq!(timer.fire(9_999), 0);
    assert_eq!(timer.fire(10_000), 1);
    assert!(far.is_fired());
    assert_eq!(timer.next_deadline(), None);
}

/// The driver goes to sleep with a deadline recorded, and a `fire` that
/// skips every shard still marks it awake: a registration then needs no
/// wake-up, until the driver records a deadline again.
#[test]
fn a_skipping_fire_still_marks_the_driver_awake() {
    let timer = Timer::with_shards(2);
    let (_far, _) = timer.register_on(0, 60, Waker::noop());
    assert_eq!(timer.park_deadline(), Some(60));
    let (_earlier, wake_driver) = timer.register_on(1, 50, Waker::noop());
    assert!(wake_driver);
    assert_eq!(timer.fire(10), 0);
    let (_awake, wake_driver) = timer.register_on(1, 40, Waker::noop());
    assert!(!wake_driver);
    assert_eq!(timer.park_deadline(), Some(40));
    let (_asleep, wake_driver) = timer.register_on(0, 30, Waker::noop());
    assert!(wake_driver);
}

/// A waker that owns an entry of the same timer: dropping the last clone
/// cancels that entry, which takes its shard's lock.
struct OwnsEntry {
    _entry: TimerEntry,
}

impl Wake for OwnsEntry {
    fn wake(self: std::sync::Arc<Self>) {}
}

#[test]
fn a_replaced_waker_is_dropped_outside_the_lock() {
    let timer = Timer::new();
    let (entry, _) = timer.register(10, Waker::noop());
    let (owned, _) = timer.register(20, Waker::noop());
    let owner = std::sync::Arc::new(OwnsEntry { _entry: owned });
    assert_eq!(entry.poll_fired(&Waker::from(owner)), None);
    // The entry holds the owner's only reference: replacing its waker drops
    // the owner, which cancels `owned` (this deadlocked on the shard lock).
    assert_eq!(entry.poll_fired(Waker::noop()), None);
    assert_eq!(timer.len(), 1);
}
