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
    assert_eq!(again.index, 0, "the slot was reused");
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
