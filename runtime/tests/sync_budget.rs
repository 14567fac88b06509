//! Every ready operation spends the cooperative budget, so a task that
//! always finds its resource ready still lets other tasks run; an
//! operation that has to wait spends none and is not woken by it. (The
//! exceptions, tokio's too, are in `coop_parity.rs`.)

mod support;

use rt::runtime::Builder;
use rt::sync::{Mutex, Semaphore, mpsc, watch};
use rt::task::JoinSet;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering::SeqCst};

type Busy = Pin<Box<dyn Future<Output = ()> + Send>>;

/// On a current-thread runtime, runs `busy` (1000 always-ready operations)
/// spawned before a task that sets a flag; the flag must be set before
/// `busy` finishes, so `busy` yielded.
fn yields_to_others(make_busy: impl FnOnce() -> Busy) {
    let rt = Builder::new_current_thread().build().unwrap();
    rt.block_on(async {
        let flag = Arc::new(AtomicBool::new(false));
        let busy = make_busy();
        let seen = {
            let flag = flag.clone();
            rt::spawn(async move {
                busy.await;
                flag.load(SeqCst)
            })
        };
        let flag2 = flag.clone();
        rt::spawn(async move { flag2.store(true, SeqCst) });
        assert!(seen.await.unwrap(), "the busy task never yielded");
    });
}

#[test]
fn mpsc_recv_spends_budget() {
    yields_to_others(|| {
        let (tx, mut rx) = mpsc::unbounded_channel();
        for i in 0..1000 {
            tx.send(i).unwrap();
        }
        Box::pin(async move {
            for _ in 0..1000 {
                rx.recv().await.unwrap();
            }
        })
    });
}

#[test]
fn mpsc_send_spends_budget() {
    yields_to_others(|| {
        let (tx, rx) = mpsc::channel(2000);
        Box::pin(async move {
            for i in 0..1000 {
                tx.send(i).await.unwrap();
            }
            drop(rx);
        })
    });
}

#[test]
fn semaphore_and_mutex_spend_budget() {
    yields_to_others(|| {
        let semaphore = Semaphore::new(1);
        Box::pin(async move {
            for _ in 0..1000 {
                drop(semaphore.acquire().await.unwrap());
            }
        })
    });
    yields_to_others(|| {
        let mutex = Mutex::new(0);
        Box::pin(async move {
            for _ in 0..1000 {
                *mutex.lock().await += 1;
            }
        })
    });
}

/// (`Notify`'s futures spend none, as tokio's: `coop_parity.rs`.)
#[test]
fn watch_changed_spends_budget() {
    yields_to_others(|| {
        let (tx, mut rx) = watch::channel(0);
        Box::pin(async move {
            for i in 0..1000 {
                tx.send(i).unwrap();
                rx.changed().await.unwrap();
            }
        })
    });
}

#[test]
fn join_set_spends_budget() {
    let rt = Builder::new_current_thread().build().unwrap();
    rt.block_on(async {
        let mut set = JoinSet::new();
        for i in 0..1000 {
            set.spawn(async move { i });
        }
        // Let every task finish first, so each join is ready at once.
        while set.try_join_next().is_none() {
            rt::task::yield_now().await;
        }
        let flag = Arc::new(AtomicBool::new(false));
        let seen = {
            let flag = flag.clone();
            rt::spawn(async move {
                while set.join_next().await.is_some() {}
                flag.load(SeqCst)
            })
        };
        let flag2 = flag.clone();
        rt::spawn(async move { flag2.store(true, SeqCst) });
        assert!(seen.await.unwrap());
    });
}

/// `closed()` of the `watch` and `oneshot` senders, awaited in a loop once
/// the receiving side is gone (so ready each time), yields like any other
/// ready operation. (The `mpsc` and `broadcast` senders' spend no budget,
/// as tokio's: `coop_parity.rs`.)
#[test]
fn closed_futures_spend_budget() {
    yields_to_others(|| {
        let (tx, rx) = watch::channel(0);
        drop(rx);
        Box::pin(async move {
            for _ in 0..1000 {
                tx.closed().await;
            }
        })
    });
    yields_to_others(|| {
        let (mut tx, rx) = rt::sync::oneshot::channel::<u8>();
        drop(rx);
        Box::pin(async move {
            for _ in 0..1000 {
                tx.closed().await;
            }
        })
    });
}

/// How many always-ready operations a task may run in one poll before a
/// test calls it uncooperative: far above the budget (128 units).
const NEVER_YIELDED: usize = 10_000;

/// tokio's `sync_watch::receiver_wait_for_is_cooperative`: `wait_for` on a
/// closed channel fails at once, every time; a loop of them must still
/// yield, so the `yield_now` branch of a biased `select!` gets its turn.
#[test]
fn watch_wait_for_on_a_closed_channel_spends_budget() {
    support::on_both(|| async {
        let (tx, mut rx) = watch::channel(0);
        drop(tx);
        rt::select! {
            biased;
            _ = async {
                for _ in 0..NEVER_YIELDED {
                    assert!(rx.wait_for(|&v| v == 1).await.is_err());
                }
                panic!("`wait_for` on a closed channel never yielded");
            } => {}
            _ = rt::task::yield_now() => {}
        }
    });
}

/// tokio's `sync_watch::receiver_wait_for_is_cooperative_ok`: the same
/// with the condition already met.
#[test]
fn watch_wait_for_a_met_condition_spends_budget() {
    support::on_both(|| async {
        let (tx, mut rx) = watch::channel(0);
        rt::select! {
            biased;
            _ = async {
                for _ in 0..NEVER_YIELDED {
                    tx.send(1).unwrap();
                    assert!(rx.wait_for(|&v| v == 1).await.is_ok());
                }
                panic!("`wait_for` on a met condition never yielded");
            } => {}
            _ = rt::task::yield_now() => {}
        }
    });
}

/// A future polled by hand inside a task (so with that task's budget), as
/// tokio-test's `spawn` does: it tells whether it was woken since its last
/// poll.
struct Mock<F: Future> {
    future: Pin<Box<F>>,
    wakes: Arc<support::WakeCounter>,
    wakes_at_poll: usize,
}

impl<F: Future> Mock<F> {
    fn new(future: F) -> Mock<F> {
        Mock {
            future: Box::pin(future),
            wakes: support::WakeCounter::new(),
            wakes_at_poll: 0,
        }
    }

    fn poll(&mut self) -> std::task::Poll<F::Output> {
        self.wakes_at_poll = self.wakes.wakes();
        let waker = self.wakes.waker();
        self.future
            .as_mut()
            .poll(&mut std::task::Context::from_waker(&waker))
    }

    fn is_woken(&self) -> bool {
        self.wakes.wakes() > self.wakes_at_poll
    }
}

/// Spends the polling task's whole budget without yielding.
fn spend_the_budget() {
    use futures::FutureExt;
    while rt::task::consume_budget().now_or_never().is_some() {}
}

/// The three locks' acquire paths (they share the semaphore's), each as an
/// owned acquire of a lock with one holder's worth of room.
#[derive(Clone)]
enum Primitive {
    Mutex(Arc<Mutex<()>>),
    RwLock(Arc<rt::sync::RwLock<()>>),
    Semaphore(Arc<Semaphore>),
}

type Held = Box<dyn std::any::Any + Send>;

impl Primitive {
    fn all() -> [Primitive; 3] {
        [
            Primitive::Mutex(Arc::new(Mutex::new(()))),
            Primitive::RwLock(Arc::new(rt::sync::RwLock::new(()))),
            Primitive::Semaphore(Arc::new(Semaphore::new(1))),
        ]
    }

    fn acquire(&self) -> Pin<Box<dyn Future<Output = Held> + Send>> {
        match self.clone() {
            Primitive::Mutex(m) => Box::pin(async move { Box::new(m.lock_owned().await) as Held }),
            Primitive::RwLock(l) => {
                Box::pin(async move { Box::new(l.write_owned().await) as Held })
            }
            Primitive::Semaphore(s) => {
                Box::pin(async move { Box::new(s.acquire_owned().await.unwrap()) as Held })
            }
        }
    }

    /// Takes the free lock, whatever the budget.
    fn take(&self) -> Held {
        let acquire = rt::task::unconstrained(self.acquire());
        futures::FutureExt::now_or_never(acquire).expect("the lock is free")
    }

    fn is_free(&self) -> bool {
        match self {
            Primitive::Mutex(m) => m.try_lock().is_ok(),
            Primitive::RwLock(l) => l.try_write().is_ok(),
            Primitive::Semaphore(s) => s.try_acquire().is_ok(),
        }
    }
}

/// Runs `body` in a task (whose budget the mock futures share) on both
/// schedulers, once per kind of lock.
fn in_a_task_for_each_lock(body: fn(Primitive)) {
    support::on_both(|| async move {
        for lock in Primitive::all() {
            rt::spawn(async move { body(lock) }).await.unwrap();
        }
    });
}

/// tokio's `sync_mutex::mutex_fifo_with_coop_budget`, for Mutex, RwLock
/// and Semaphore: A spends its budget, then waits for the held lock; B,
/// polled on the same spent budget, queues after it. Releasing the lock
/// wakes A (first in line) and not B: an acquire that has to wait is not
/// woken by a forced yield (it used to be, before its turn).
#[test]
fn a_waiting_acquire_is_not_woken_by_the_spent_budget() {
    in_a_task_for_each_lock(|lock| {
        let held = lock.take();
        let mut a = Mock::new({
            let acquire = lock.acquire();
            async move {
                spend_the_budget();
                acquire.await
            }
        });
        assert!(a.poll().is_pending());
        let mut b = Mock::new(lock.acquire());
        assert!(b.poll().is_pending());
        assert!(!b.is_woken(), "a waiting acquire was woken to yield");
        drop(held);
        assert!(a.is_woken(), "the first in line was not woken");
        assert!(!b.is_woken(), "the second in line was woken");
    });
}

/// tokio's `sync_mutex::mutex_coop_drop_after_take_permit`: an acquire
/// polled out of budget while the lock is free yields without keeping it.
#[test]
fn an_acquire_out_of_budget_on_a_free_lock_keeps_nothing() {
    in_a_task_for_each_lock(|lock| {
        let mut a = Mock::new({
            let acquire = lock.acquire();
            async move {
                spend_the_budget();
                acquire.await
            }
        });
        assert!(a.poll().is_pending());
        assert!(a.is_woken(), "a forced yield wakes the task");
        drop(a);
        assert!(lock.is_free());
    });
}

/// A waiter granted the lock while it waited, polled on a spent budget:
/// it yields (woken to run again) holding the lock, which it returns on
/// its next poll, or gives back if it is dropped instead.
#[test]
fn a_granted_acquire_out_of_budget_keeps_its_turn() {
    in_a_task_for_each_lock(|lock| {
        for drop_it in [false, true] {
            let held = lock.take();
            let mut waiter = Mock::new(lock.acquire());
            assert!(waiter.poll().is_pending());
            drop(held);
            assert!(waiter.is_woken());
            spend_the_budget();
            assert!(waiter.poll().is_pending(), "ready on a spent budget");
            assert!(waiter.is_woken(), "a forced yield wakes the task");
            assert!(!lock.is_free(), "the granted lock was given up");
            if drop_it {
                drop(waiter);
                assert!(lock.is_free(), "a dropped waiter kept the lock");
            } else {
                // With budget (here: none to spend), it completes.
                let polled = rt::task::unconstrained(std::future::poll_fn(|_| {
                    std::task::Poll::Ready(waiter.poll())
                }));
                let polled = futures::FutureExt::now_or_never(polled);
                let Some(std::task::Poll::Ready(held)) = polled else {
                    panic!("the granted lock was lost");
                };
                assert!(!lock.is_free());
                drop(held);
                assert!(lock.is_free());
            }
        }
    });
}
