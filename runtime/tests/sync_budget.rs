//! Every ready operation spends the cooperative budget, so a task that
//! always finds its resource ready still lets other tasks run.

mod support;

use rt::runtime::Builder;
use rt::sync::{Mutex, Notify, Semaphore, mpsc, watch};
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

#[test]
fn notify_and_watch_spend_budget() {
    yields_to_others(|| {
        let notify = Notify::new();
        Box::pin(async move {
            for _ in 0..1000 {
                notify.notify_one();
                notify.notified().await;
            }
        })
    });
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

/// `closed()` of every sender, awaited in a loop once the receiving side
/// is gone (so ready each time), yields like any other ready operation.
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
        let (tx, rx) = mpsc::channel::<u8>(1);
        drop(rx);
        Box::pin(async move {
            for _ in 0..1000 {
                tx.closed().await;
            }
        })
    });
    yields_to_others(|| {
        let (tx, rx) = mpsc::unbounded_channel::<u8>();
        drop(rx);
        Box::pin(async move {
            for _ in 0..1000 {
                tx.closed().await;
            }
        })
    });
    yields_to_others(|| {
        let (tx, rx) = rt::sync::broadcast::channel::<u8>(1);
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
