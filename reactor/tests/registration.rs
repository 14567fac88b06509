//! The reactor on its own: readiness dispatch, shutdown, stale slots, wakers
//! that re-enter the reactor.

use rt_reactor::{Direction, Driver, Interest};
use std::io::{Read, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

struct CountingWaker(AtomicUsize);

impl Wake for CountingWaker {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

fn counting() -> (Arc<CountingWaker>, Waker) {
    let counter = Arc::new(CountingWaker(AtomicUsize::new(0)));
    (counter.clone(), Waker::from(counter))
}

/// Turns until `ready` holds; bounded, each turn waits for real events.
fn turn_until(driver: &mut Driver, mut ready: impl FnMut() -> bool) {
    for _ in 0..100 {
        if ready() {
            return;
        }
        driver.turn(Some(Duration::from_secs(5))).unwrap();
    }
    panic!("the expected readiness never arrived");
}

#[test]
fn read_and_write_wakers_are_separate() {
    let (mut driver, handle) = Driver::new().unwrap();
    let (mut a, mut b) = mio::net::UnixStream::pair().unwrap();
    let registration = handle
        .register(&mut a, Interest::READABLE | Interest::WRITABLE)
        .unwrap();
    let (read_count, read_waker) = counting();
    let (write_count, write_waker) = counting();

    let mut cx = Context::from_waker(&write_waker);
    turn_until(&mut driver, || {
        registration
            .poll_ready(&mut cx, Direction::Write)
            .is_ready()
    });
    let writes_woken = write_count.0.load(Ordering::SeqCst);
    let mut cx = Context::from_waker(&read_waker);
    assert!(
        registration
            .poll_ready(&mut cx, Direction::Read)
            .is_pending()
    );

    b.write_all(b"x").unwrap();
    turn_until(&mut driver, || read_count.0.load(Ordering::SeqCst) > 0);
    // The write side has no waiter any more: the read event wakes only
    // the reader.
    assert_eq!(write_count.0.load(Ordering::SeqCst), writes_woken);
    let mut buf = [0u8; 1];
    assert_eq!(a.read(&mut buf).unwrap(), 1);
    registration.deregister(&mut a).unwrap();
}

#[test]
fn shutdown_wakes_waiters_with_an_error() {
    let (mut driver, handle) = Driver::new().unwrap();
    let (mut a, _b) = mio::net::UnixStream::pair().unwrap();
    let registration = handle.register(&mut a, Interest::READABLE).unwrap();
    let (count, waker) = counting();
    let mut cx = Context::from_waker(&waker);
    assert!(
        registration
            .poll_ready(&mut cx, Direction::Read)
            .is_pending()
    );
    driver.shutdown();
    assert_eq!(count.0.load(Ordering::SeqCst), 1);
    match registration.poll_ready(&mut cx, Direction::Read) {
        Poll::Ready(Err(_)) => {}
        other => panic!("expected a shutdown error, got {other:?}"),
    }
    registration.deregister(&mut a).unwrap();
}

#[test]
fn dropping_a_registration_wakes_its_waiters() {
    let (_driver, handle) = Driver::new().unwrap();
    let (mut a, _b) = mio::net::UnixStream::pair().unwrap();
    let registration = handle.register(&mut a, Interest::READABLE).unwrap();
    let (count, waker) = counting();
    let mut cx = Context::from_waker(&waker);
    assert!(
        registration
            .poll_ready(&mut cx, Direction::Read)
            .is_pending()
    );
    registration.deregister(&mut a).unwrap();
    drop(registration);
    assert_eq!(count.0.load(Ordering::SeqCst), 1);
    assert_eq!(handle.num_registrations(), 0);
}

#[test]
fn a_reused_slot_ignores_events_of_its_previous_owner() {
    let (mut driver, handle) = Driver::new().unwrap();
    let (mut a, mut peer_a) = mio::net::UnixStream::pair().unwrap();
    let first = handle.register(&mut a, Interest::READABLE).unwrap();
    // An event becomes pending in the poller for the first owner...
    peer_a.write_all(b"stale").unwrap();
    // ...which goes away (without deregistering `a`, so `a` stays in the
    // poller under the old token) before the driver turns.
    drop(first);
    let (mut c, _peer_c) = mio::net::UnixStream::pair().unwrap();
    let second = handle.register(&mut c, Interest::READABLE).unwrap();
    assert_eq!(handle.num_registrations(), 1);
    // The pending event carries the old token: it must not reach `second`,
    // now or after many more registrations come and go.
    assert_eq!(driver.turn(Some(Duration::ZERO)).unwrap(), 0);
    assert!(!second.readiness().is_readable());
    for _ in 0..300 {
        let (mut d, _peer_d) = mio::net::UnixStream::pair().unwrap();
        let third = handle.register(&mut d, Interest::READABLE).unwrap();
        third.deregister(&mut d).unwrap();
    }
    peer_a.write_all(b"more").unwrap();
    assert_eq!(driver.turn(Some(Duration::ZERO)).unwrap(), 0);
    assert!(!second.readiness().is_readable());
    second.deregister(&mut c).unwrap();
}

#[test]
fn unpark_interrupts_a_blocked_turn() {
    let (mut driver, handle) = Driver::new().unwrap();
    let thread = std::thread::spawn(move || handle.unpark().unwrap());
    // No timeout: returns only because of the unpark.
    assert_eq!(driver.turn(None).unwrap(), 0);
    thread.join().unwrap();
}

/// A waker that re-enters the reactor when woken and when dropped: it
/// polls `registration` (taking its cell's lock) and registers a new
/// source (taking the table's lock). Woken or dropped under either lock,
/// it would deadlock.
struct ReenteringWaker {
    handle: rt_reactor::Handle,
    registration: Arc<rt_reactor::Registration>,
    reentered: Arc<AtomicUsize>,
}

impl ReenteringWaker {
    fn reenter(&self) {
        let mut cx = Context::from_waker(Waker::noop());
        let _ = self.registration.poll_ready(&mut cx, Direction::Write);
        let mut waiter = self.registration.waiter(Direction::Read);
        let _ = waiter.poll_ready(&mut cx);
        let (mut a, _b) = mio::net::UnixStream::pair().unwrap();
        let other = self.handle.register(&mut a, Interest::READABLE).unwrap();
        other.deregister(&mut a).unwrap();
        self.reentered.fetch_add(1, Ordering::SeqCst);
    }
}

impl Wake for ReenteringWaker {
    fn wake(self: Arc<Self>) {
        self.reenter();
    }
}

impl Drop for ReenteringWaker {
    fn drop(&mut self) {
        self.reenter();
    }
}

/// Runs `body` on a thread; a deadlock fails the test instead of hanging it.
fn without_deadlock(body: impl FnOnce() + Send + 'static) {
    let (done, finished) = std::sync::mpsc::channel();
    let thread = std::thread::spawn(move || {
        body();
        done.send(()).unwrap();
    });
    finished
        .recv_timeout(Duration::from_secs(30))
        .expect("deadlock: a waker ran under a reactor lock");
    thread.join().unwrap();
}

#[test]
fn wakers_are_woken_and_dropped_outside_the_reactor_locks() {
    without_deadlock(|| {
        let (mut driver, handle) = Driver::new().unwrap();
        let (mut a, mut b) = mio::net::UnixStream::pair().unwrap();
        let registration = Arc::new(
            handle
                .register(&mut a, Interest::READABLE | Interest::WRITABLE)
                .unwrap(),
        );
        let reentered = Arc::new(AtomicUsize::new(0));
        let reentering = || {
            Waker::from(Arc::new(ReenteringWaker {
                handle: handle.clone(),
                registration: registration.clone(),
                reentered: reentered.clone(),
            }))
        };

        // Replaced in the shared slot: the old waker is dropped.
        let first = reentering();
        assert!(
            registration
                .poll_ready(&mut Context::from_waker(&first), Direction::Read)
                .is_pending()
        );
        drop(first);
        let (_, plain) = counting();
        assert!(
            registration
                .poll_ready(&mut Context::from_waker(&plain), Direction::Read)
                .is_pending()
        );
        assert_eq!(reentered.load(Ordering::SeqCst), 1);

        // A waiter waiting with the only clone of a re-entering waker.
        let waiting = || {
            let mut waiter = registration.waiter(Direction::Read);
            let waker = reentering();
            assert!(
                waiter
                    .poll_ready(&mut Context::from_waker(&waker))
                    .is_pending()
            );
            waiter
        };

        // Dropped while waiting: its waker is dropped.
        drop(waiting());
        assert_eq!(reentered.load(Ordering::SeqCst), 2);

        // Woken by an event (and dropped after the wake).
        let waiter = waiting();
        b.write_all(b"x").unwrap();
        turn_until(&mut driver, || reentered.load(Ordering::SeqCst) >= 3);
        drop(waiter);

        registration.deregister(&mut a).unwrap();
    });
}
