//! Loom models: cancel and reset racing the driver's fire, and a
//! registration racing the driver going to sleep. Each arming wakes at
//! most once and every node is freed exactly once.

use super::*;
use crate::loom::sync::atomic::{AtomicUsize, Ordering};
use std::task::Wake;

struct CountWakes(AtomicUsize);

impl Wake for CountWakes {
    fn wake(self: std::sync::Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// The timer's only node was freed exactly once: the next two entries
/// get node 0 (reused) and node 1 (new). A node freed twice would be
/// handed out twice.
fn assert_freed_once(timer: &Timer) {
    let (a, _) = timer.register(1_000, Waker::noop());
    let (b, _) = timer.register(1_000, Waker::noop());
    assert_eq!((a.key.index(), b.key.index()), (0, 1));
}

#[test]
fn loom_cancel_races_fire() {
    loom::model(|| {
        let timer = Timer::new();
        let count = std::sync::Arc::new(CountWakes(AtomicUsize::new(0)));
        let (entry, _) = timer.register(1, &Waker::from(count.clone()));
        let driver = timer.clone();
        let firing = loom::thread::spawn(move || driver.fire(1));
        drop(entry);
        let fired = firing.join().unwrap();
        let wakes = count.0.load(Ordering::SeqCst);
        assert!(wakes <= 1);
        assert_eq!(wakes, fired);
        assert!(timer.is_empty());
        assert_freed_once(&timer);
    });
}

#[test]
fn loom_reset_races_fire() {
    loom::model(|| {
        let timer = Timer::new();
        let count = std::sync::Arc::new(CountWakes(AtomicUsize::new(0)));
        let (mut entry, _) = timer.register(1, &Waker::from(count.clone()));
        let driver = timer.clone();
        let firing = loom::thread::spawn(move || driver.fire(1));
        entry.reset(5);
        let fired = firing.join().unwrap();
        assert_eq!(count.0.load(Ordering::SeqCst), fired);
        assert!(fired <= 1);
        // Whatever the order, the entry is armed for 5 now.
        assert_eq!(entry.poll_fired(&Waker::from(count.clone())), None);
        assert_eq!(timer.fire(5), 1);
        assert_eq!(count.0.load(Ordering::SeqCst), fired + 1);
        drop(entry);
        assert_freed_once(&timer);
    });
}

#[test]
fn loom_register_from_other_thread_wakes_sleeping_driver() {
    loom::model(|| {
        let timer = Timer::new();
        let (_far, _) = timer.register(100, Waker::noop());
        let registrar = timer.clone();
        let other = loom::thread::spawn(move || registrar.register(10, Waker::noop()));
        let sleep_until = timer.park_deadline();
        let (entry, wake_driver) = other.join().unwrap();
        // Either the driver saw the new deadline, or it must be woken.
        assert!(sleep_until == Some(10) || wake_driver);
        drop(entry);
    });
}
