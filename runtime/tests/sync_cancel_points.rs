//! Dropping a sync primitive's future at every point it can stop: a
//! `select!` or a `timeout` drops the loser wherever it was. Each test
//! builds a fresh primitive for `n = 0, 1, 2, ...`, polls the victim
//! future `n` times (moving the world on after each `Pending`), drops it,
//! and then checks that what it waited for was not lost: the waiter queued
//! behind it is woken (its waker counts the wake, so a lost wake-up fails
//! even though a re-poll would succeed) and gets the resource, and the
//! resource is whole afterwards. The loop ends once the victim finished
//! within its `n` polls.

mod support;

use rt::sync::{Barrier, Mutex, Notify, OnceCell, RwLock, Semaphore, mpsc};
use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;
use support::CountingWaker;

/// Polls `victim` at most `polls` times with a waker of its own, running
/// `between(i)` after its `i`th `Pending`, then drops it. `true` if it
/// finished (its output is dropped at once).
fn poll_then_drop<F: Future>(victim: F, polls: usize, mut between: impl FnMut(usize)) -> bool {
    let waker = CountingWaker::new();
    let mut victim = Box::pin(victim);
    for i in 0..polls {
        if waker.poll(&mut victim).is_ready() {
            return true;
        }
        between(i);
    }
    false
}

/// A future polled by hand with a counting waker: the waiter queued
/// behind the victim.
struct Waiter<F: Future> {
    future: Pin<Box<F>>,
    waker: Arc<CountingWaker>,
    output: Option<F::Output>,
}

impl<F: Future> Waiter<F> {
    fn new(future: F) -> Waiter<F> {
        Waiter {
            future: Box::pin(future),
            waker: CountingWaker::new(),
            output: None,
        }
    }

    /// Polls it once unless it has finished; `true` once it has.
    fn poll(&mut self) -> bool {
        if self.output.is_none() {
            if let Poll::Ready(output) = self.waker.poll(&mut self.future) {
                self.output = Some(output);
            }
        }
        self.output.is_some()
    }

    fn woken(&self) -> bool {
        self.waker.count() > 0
    }
}

/// `acquire_many(3)` on an empty semaphore, fed one permit after each
/// poll, with an `acquire()` queued behind it: the permits assigned to
/// the victim (some of them, or all of them before it saw the grant) go
/// to the waiter behind it, which is woken, and no permit is lost.
#[test]
fn semaphore_acquire_many_dropped_at_every_point() {
    for n in 0.. {
        let semaphore = Semaphore::new(0);
        let added = Cell::new(0);
        let behind = RefCell::new(None);
        let finished = poll_then_drop(semaphore.acquire_many(3), n, |i| {
            if i == 0 {
                let mut waiter = Waiter::new(semaphore.acquire());
                assert!(!waiter.poll(), "n = {n}: the waiter overtook the victim");
                *behind.borrow_mut() = Some(waiter);
            }
            semaphore.add_permits(1);
            added.set(added.get() + 1);
        });
        let mut behind = behind
            .into_inner()
            .unwrap_or_else(|| Waiter::new(semaphore.acquire()));
        if added.get() == 0 {
            assert!(!behind.poll());
            semaphore.add_permits(1);
            added.set(1);
        } else {
            assert!(behind.woken(), "n = {n}: the waiter behind was not woken");
        }
        assert!(behind.poll(), "n = {n}: the waiter behind got no permit");
        let permit = behind.output.take().unwrap().unwrap();
        assert_eq!(
            semaphore.available_permits(),
            added.get() - 1,
            "n = {n}: permits lost"
        );
        drop(permit);
        assert_eq!(semaphore.available_permits(), added.get());
        if finished {
            assert!(n > 3);
            break;
        }
    }
}

/// `Mutex::lock` queued behind a holder, with another `lock` queued
/// behind it; the holder lets go after the victim's first poll, so the
/// victim is granted the lock and then dropped (before or after it saw
/// the grant): the lock passes on.
#[test]
fn mutex_lock_dropped_at_every_point() {
    for n in 0.. {
        let mutex = Mutex::new(0);
        let holder = RefCell::new(Some(mutex.try_lock().unwrap()));
        let behind = RefCell::new(None);
        let finished = poll_then_drop(mutex.lock(), n, |i| {
            if i == 0 {
                let mut waiter = Waiter::new(mutex.lock());
                assert!(!waiter.poll());
                *behind.borrow_mut() = Some(waiter);
                holder.borrow_mut().take();
            }
        });
        let mut behind = behind
            .into_inner()
            .unwrap_or_else(|| Waiter::new(mutex.lock()));
        if let Some(holder) = holder.borrow_mut().take() {
            assert!(!behind.poll());
            drop(holder);
        }
        assert!(behind.woken() || n == 0, "n = {n}: not woken");
        assert!(behind.poll(), "n = {n}: the lock was lost");
        drop(behind);
        assert!(mutex.try_lock().is_ok(), "n = {n}: the lock is still held");
        if finished {
            break;
        }
    }
}

/// A `write()` queued behind a reader, with readers queued behind it (a
/// waiting writer keeps new readers out): once the victim is dropped, at
/// any point, the readers behind it are woken and enter.
#[test]
fn rwlock_write_dropped_at_every_point_lets_the_readers_behind_in() {
    for n in 0.. {
        let lock = RwLock::new(0);
        let reader = lock.try_read().unwrap();
        let behind = RefCell::new(Vec::new());
        let finished = poll_then_drop(lock.write(), n, |i| {
            if i == 0 {
                for _ in 0..2 {
                    let mut waiter = Waiter::new(lock.read());
                    assert!(!waiter.poll(), "n = {n}: a reader overtook a writer");
                    behind.borrow_mut().push(waiter);
                }
            }
        });
        assert!(!finished);
        let mut behind = behind.into_inner();
        for waiter in &mut behind {
            assert!(waiter.woken(), "n = {n}: a reader behind was not woken");
            assert!(waiter.poll(), "n = {n}: a reader behind stayed out");
        }
        drop(behind);
        drop(reader);
        assert!(lock.try_write().is_ok());
        if n == 3 {
            break;
        }
    }
}

/// A `read()` queued behind a writer, a `write()` queued behind it; the
/// writer leaves after the victim's first poll: once the victim (granted
/// or not) is dropped, the writer behind gets the lock.
#[test]
fn rwlock_read_dropped_at_every_point() {
    for n in 0.. {
        let lock = RwLock::new(0);
        let writer = RefCell::new(Some(lock.try_write().unwrap()));
        let behind = RefCell::new(None);
        let finished = poll_then_drop(lock.read(), n, |i| {
            if i == 0 {
                let mut waiter = Waiter::new(lock.write());
                assert!(!waiter.poll());
                *behind.borrow_mut() = Some(waiter);
                writer.borrow_mut().take();
            }
        });
        let mut behind = behind
            .into_inner()
            .unwrap_or_else(|| Waiter::new(lock.write()));
        if let Some(writer) = writer.borrow_mut().take() {
            assert!(!behind.poll());
            drop(writer);
        }
        assert!(behind.woken() || n == 0, "n = {n}: not woken");
        assert!(behind.poll(), "n = {n}: the lock was lost");
        drop(behind);
        assert!(lock.try_write().is_ok());
        if finished {
            break;
        }
    }
}

/// `send` (and `reserve`) on a full bounded channel with another sender
/// queued behind: a slot freed for the victim goes to the sender behind
/// once the victim is dropped, and the victim's value is delivered only if
/// its send finished.
#[test]
fn mpsc_send_and_reserve_dropped_at_every_point() {
    for reserve in [false, true] {
        for n in 0.. {
            let (tx, mut rx) = mpsc::channel::<u32>(1);
            tx.try_send(0).unwrap();
            let behind = RefCell::new(None);
            let received = RefCell::new(Vec::new());
            let victim = async {
                if reserve {
                    tx.reserve().await.unwrap().send(1);
                } else {
                    tx.send(1).await.unwrap();
                }
            };
            let finished = poll_then_drop(victim, n, |i| {
                if i == 0 {
                    let mut waiter = Waiter::new(tx.reserve());
                    assert!(!waiter.poll());
                    *behind.borrow_mut() = Some(waiter);
                    received.borrow_mut().push(rx.try_recv().unwrap());
                }
            });
            let mut behind = behind
                .into_inner()
                .unwrap_or_else(|| Waiter::new(tx.reserve()));
            if received.borrow().is_empty() {
                assert!(!behind.poll());
                received.borrow_mut().push(rx.try_recv().unwrap());
            }
            if finished {
                // The victim's value took the slot; the one behind waits
                // for it to be read.
                assert!(!behind.poll());
                received.borrow_mut().push(rx.try_recv().unwrap());
            }
            assert!(behind.woken() || n == 0, "n = {n}: not woken");
            assert!(
                behind.poll(),
                "n = {n}, reserve {reserve}: the slot was lost"
            );
            behind.output.take().unwrap().unwrap().send(2);
            drop(behind);
            received.borrow_mut().push(rx.try_recv().unwrap());
            let expected: &[u32] = if finished { &[0, 1, 2] } else { &[0, 2] };
            assert_eq!(*received.borrow(), expected, "n = {n}, reserve {reserve}");
            assert_eq!(tx.capacity(), 1);
            if finished {
                break;
            }
        }
    }
}

/// `notified()` picked by `notify_one` and dropped before it saw it: the
/// notification goes to the next waiter (as tokio documents); with no
/// waiter behind, it is stored as the permit.
#[test]
fn notified_dropped_at_every_point_forwards_notify_one() {
    for with_waiter_behind in [true, false] {
        for n in 0.. {
            let notify = Notify::new();
            let behind = RefCell::new(None);
            let finished = poll_then_drop(notify.notified(), n, |i| {
                if i == 0 {
                    if with_waiter_behind {
                        let mut waiter = Waiter::new(notify.notified());
                        assert!(!waiter.poll());
                        *behind.borrow_mut() = Some(waiter);
                    }
                    notify.notify_one();
                }
            });
            let notified = n > 0;
            let mut behind = behind
                .into_inner()
                .unwrap_or_else(|| Waiter::new(notify.notified()));
            if finished {
                // The victim took the notification.
                assert!(!behind.poll());
                notify.notify_one();
            } else if !notified {
                assert!(!behind.poll());
                notify.notify_one();
            } else if with_waiter_behind {
                assert!(behind.woken(), "n = {n}: not forwarded");
            }
            assert!(behind.poll(), "n = {n}: the notification was lost");
            // Exactly one was passed on: nothing is left stored.
            let mut after = Waiter::new(notify.notified());
            assert!(!after.poll(), "n = {n}: a notification was doubled");
            if finished {
                break;
            }
        }
    }
}

/// `notified()` woken by `notify_waiters` and dropped: that notification
/// was for everyone waiting then, so nothing is forwarded or stored.
#[test]
fn notified_dropped_after_notify_waiters_forwards_nothing() {
    let notify = Notify::new();
    let mut victim = Waiter::new(notify.notified());
    let mut behind = Waiter::new(notify.notified());
    assert!(!victim.poll());
    assert!(!behind.poll());
    notify.notify_waiters();
    drop(victim);
    assert!(behind.woken());
    assert!(behind.poll());
    let mut later = Waiter::new(notify.notified());
    assert!(!later.poll(), "notify_waiters left a permit");
}

/// A `Barrier` wait dropped after arriving still counts, as in tokio: the
/// barrier is not left one short (no hang) and the next generation starts
/// from zero.
#[test]
fn barrier_wait_dropped_after_arriving_still_counts() {
    let barrier = Barrier::new(2);
    assert!(!poll_then_drop(barrier.wait(), 1, |_| {}));
    let mut second = Waiter::new(barrier.wait());
    assert!(second.poll(), "the dropped arrival was forgotten");
    assert!(second.output.take().unwrap().is_leader());
    // A fresh generation of two.
    let mut a = Waiter::new(barrier.wait());
    let mut b = Waiter::new(barrier.wait());
    assert!(!a.poll());
    assert!(b.poll());
    assert!(a.woken());
    assert!(a.poll());
    // Never polled: never arrived.
    assert!(!poll_then_drop(barrier.wait(), 0, |_| {}));
    let mut c = Waiter::new(barrier.wait());
    assert!(!c.poll());
}

/// `get_or_init` whose initialiser is dropped halfway, with another
/// `get_or_init` waiting for it: the waiter is woken, runs its own
/// initialiser, and the cell ends up with its value.
#[test]
fn once_cell_initialiser_dropped_at_every_point() {
    for n in 0.. {
        let cell = OnceCell::new();
        let gate = Notify::new();
        let behind = RefCell::new(None);
        let second = || cell.get_or_init(|| async { 2 });
        let victim = cell.get_or_init(|| async {
            gate.notified().await;
            1
        });
        let finished = poll_then_drop(victim, n, |i| {
            if i == 0 {
                let mut waiter = Waiter::new(second());
                assert!(!waiter.poll(), "n = {n}: two initialisers at once");
                *behind.borrow_mut() = Some(waiter);
                gate.notify_one();
            }
        });
        let mut behind = behind.into_inner().unwrap_or_else(|| Waiter::new(second()));
        if n > 0 {
            assert!(behind.woken(), "n = {n}: the waiter was not woken");
        }
        assert!(behind.poll(), "n = {n}: the waiter never got its turn");
        let expected = if finished { 1 } else { 2 };
        assert_eq!(*behind.output.take().unwrap(), expected);
        if finished {
            break;
        }
    }
}

/// The same for an `OwnedNotified`, and for a `Notified` that was only
/// enabled (never polled): once picked by `notify_one`, dropping it
/// passes the notification to the waiter behind, or stores it.
#[test]
fn enabled_and_owned_notified_dropped_after_being_picked_forward_it() {
    for enabled in [false, true] {
        for with_waiter_behind in [true, false] {
            let notify = Arc::new(Notify::new());
            let mut victim: Pin<Box<dyn Future<Output = ()>>> = if enabled {
                let mut notified = Box::pin(notify.clone().notified_owned());
                assert!(!notified.as_mut().enable());
                notified
            } else {
                let mut notified = Box::pin(notify.clone().notified_owned());
                let waker = CountingWaker::new().waker();
                let mut cx = std::task::Context::from_waker(&waker);
                assert!(notified.as_mut().poll(&mut cx).is_pending());
                notified
            };
            let mut behind = None;
            if with_waiter_behind {
                let mut waiter = Waiter::new(notify.notified());
                assert!(!waiter.poll());
                behind = Some(waiter);
            }
            notify.notify_one();
            drop(std::mem::replace(&mut victim, Box::pin(async {})));
            let mut behind = behind.unwrap_or_else(|| Waiter::new(notify.notified()));
            if with_waiter_behind {
                assert!(behind.woken(), "enabled {enabled}: not forwarded");
            }
            assert!(
                behind.poll(),
                "enabled {enabled}: the notification was lost"
            );
            let mut after = Waiter::new(notify.notified());
            assert!(
                !after.poll(),
                "enabled {enabled}: a notification was doubled"
            );
        }
    }
}
