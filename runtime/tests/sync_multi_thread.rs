//! The sync primitives on the multi-thread runtime under the races users
//! meet: `watch::Receiver::wait_for` with a panicking condition, watch and
//! broadcast with many receivers on many workers (lagging, closing while
//! they wait), `JoinSet::abort_all` racing completions, bounded senders
//! and oneshot receivers aborted from another thread, an `RwLock` writer
//! cancelled by `select!` with a reader queued behind it, locks and
//! semaphores cancelled at varying points (every permit comes back),
//! `OnceCell` initialisers cancelled or panicking, `recv_many` freeing
//! slots, and `Notify` with enabled futures against `notify_one` and
//! `notify_waiters`.

use futures::FutureExt;
use rt::sync::{Barrier, Notify, OnceCell, RwLock, Semaphore, broadcast, mpsc, oneshot, watch};
use rt::task::JoinSet;
use std::collections::VecDeque;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::Poll;
use std::time::Duration;

fn multi_thread(workers: usize) -> rt::runtime::Runtime {
    rt::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()
        .unwrap()
}

/// Ready after `n` polls, waking itself each time: a cancellation point
/// that lands at varying moments without a clock.
fn after_polls(mut n: usize) -> impl std::future::Future<Output = ()> {
    std::future::poll_fn(move |cx| {
        if n == 0 {
            Poll::Ready(())
        } else {
            n -= 1;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    })
}

#[test]
fn a_wait_for_whose_condition_panics_leaves_the_channel_usable() {
    multi_thread(2).block_on(async {
        let (tx, mut rx) = watch::channel(0);
        let panicked =
            AssertUnwindSafe(rx.wait_for(|&v| if v == 0 { panic!("boom") } else { false }))
                .catch_unwind()
                .await
                .is_err();
        assert!(panicked);
        // The read lock went with the panic: the sender is not blocked.
        tx.send(1).unwrap();
        assert!(rx.has_changed().unwrap());
        let waiter = rt::spawn(async move { *rx.wait_for(|&v| v == 5).await.unwrap() });
        for i in 2..=5 {
            tx.send(i).unwrap();
        }
        assert_eq!(waiter.await.unwrap(), 5);
    });
}

#[test]
fn watch_receivers_on_many_workers_end_on_the_last_value() {
    for _ in 0..20 {
        multi_thread(4).block_on(async {
            let (tx, rx) = watch::channel(0usize);
            let receivers: Vec<_> = (0..8)
                .map(|_| {
                    let mut rx = rx.clone();
                    rt::spawn(async move {
                        let mut last = 0;
                        while rx.changed().await.is_ok() {
                            let value = *rx.borrow_and_update();
                            assert!(value >= last, "{value} after {last}");
                            last = value;
                        }
                        *rx.borrow()
                    })
                })
                .collect();
            drop(rx);
            for i in 1..=2000 {
                tx.send(i).unwrap();
                if i % 100 == 0 {
                    rt::task::yield_now().await;
                }
            }
            drop(tx);
            for receiver in receivers {
                assert_eq!(receiver.await.unwrap(), 2000);
            }
        });
    }
}

#[test]
fn lagging_broadcast_receivers_on_many_workers_stay_in_order_and_see_the_close() {
    for _ in 0..10 {
        multi_thread(4).block_on(async {
            let (tx, rx) = broadcast::channel::<usize>(4);
            let receivers: Vec<_> = (0..8)
                .map(|_| {
                    let mut rx = rx.resubscribe();
                    rt::spawn(async move {
                        let mut last = None;
                        loop {
                            match rx.recv().await {
                                Ok(value) => {
                                    if let Some(last) = last {
                                        assert!(value > last, "{value} after {last}");
                                    }
                                    last = Some(value);
                                }
                                Err(broadcast::error::RecvError::Lagged(_)) => {}
                                Err(broadcast::error::RecvError::Closed) => return last,
                            }
                        }
                    })
                })
                .collect();
            drop(rx);
            for i in 0..5000 {
                tx.send(i).unwrap();
                if i % 64 == 0 {
                    rt::task::yield_now().await;
                }
            }
            drop(tx);
            for receiver in receivers {
                assert_eq!(receiver.await.unwrap(), Some(4999));
            }
        });
    }
}

#[test]
fn broadcast_receivers_waiting_on_many_workers_see_the_last_sender_go() {
    multi_thread(4).block_on(async {
        let (tx, rx) = broadcast::channel::<usize>(4);
        let barrier = Arc::new(Barrier::new(9));
        let receivers: Vec<_> = (0..8)
            .map(|_| {
                let (mut rx, barrier) = (rx.resubscribe(), barrier.clone());
                rt::spawn(async move {
                    barrier.wait().await;
                    rx.recv().await
                })
            })
            .collect();
        barrier.wait().await;
        drop(tx);
        for receiver in receivers {
            assert_eq!(
                receiver.await.unwrap(),
                Err(broadcast::error::RecvError::Closed)
            );
        }
    });
}

#[test]
fn abort_all_racing_completions_reports_every_task_once() {
    for round in 0..50 {
        multi_thread(4).block_on(async {
            const TASKS: usize = 64;
            let mut set = JoinSet::new();
            for i in 0..TASKS {
                set.spawn(async move {
                    if i % 2 == 0 {
                        rt::task::yield_now().await;
                    }
                    i
                });
            }
            rt::task::yield_now().await;
            set.abort_all();
            let mut joined = 0;
            while let Some(result) = set.join_next().await {
                if let Err(e) = result {
                    assert!(e.is_cancelled(), "{e}");
                }
                joined += 1;
            }
            assert_eq!(joined, TASKS, "round {round}");
        });
    }
}

#[test]
fn senders_aborted_from_another_thread_while_waiting_for_room_lose_no_slot() {
    for _ in 0..20 {
        multi_thread(4).block_on(async {
            let (tx, mut rx) = mpsc::channel::<usize>(2);
            tx.send(0).await.unwrap();
            tx.send(1).await.unwrap();
            let waiting: Vec<_> = (0..16)
                .map(|i| {
                    let tx = tx.clone();
                    rt::spawn(async move { tx.send(100 + i).await })
                })
                .collect();
            rt::task::yield_now().await;
            let aborts: Vec<_> = waiting
                .iter()
                .step_by(2)
                .map(|h| h.abort_handle())
                .collect();
            let aborter = std::thread::spawn(move || aborts.into_iter().for_each(|a| a.abort()));
            let receiver = rt::spawn(async move {
                let mut received = 0;
                while rx.recv().await.is_some() {
                    received += 1;
                }
                received
            });
            aborter.join().unwrap();
            let mut sent = 2;
            for handle in waiting {
                if let Ok(result) = handle.await {
                    result.unwrap();
                    sent += 1;
                }
            }
            drop(tx);
            assert_eq!(receiver.await.unwrap(), sent);
        });
    }
}

#[test]
fn a_oneshot_receiver_aborted_while_the_value_is_sent_drops_it_once() {
    struct Counted(Arc<AtomicUsize>);
    impl Drop for Counted {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
    let rt = multi_thread(2);
    for _ in 0..200 {
        rt.block_on(async {
            let drops = Arc::new(AtomicUsize::new(0));
            let (tx, rx) = oneshot::channel::<Counted>();
            let receiver = rt::spawn(async move {
                let _ = rx.await;
            });
            let abort = receiver.abort_handle();
            let aborter = std::thread::spawn(move || abort.abort());
            let _ = tx.send(Counted(drops.clone()));
            aborter.join().unwrap();
            let _ = receiver.await;
            assert_eq!(drops.load(Ordering::SeqCst), 1);
        });
    }
}

#[test]
fn sender_closed_wakes_when_the_receivers_task_is_aborted_from_another_thread() {
    multi_thread(2).block_on(async {
        for _ in 0..100 {
            let (mut tx, rx) = oneshot::channel::<u8>();
            let receiver = rt::spawn(async move {
                let _ = rx.await;
            });
            let abort = receiver.abort_handle();
            let closed = rt::spawn(async move { tx.closed().await });
            std::thread::spawn(move || abort.abort()).join().unwrap();
            closed.await.unwrap();
        }
    });
}

#[test]
fn a_writer_cancelled_by_select_lets_the_reader_queued_behind_it_in() {
    let rt = rt::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .unwrap();
    rt.block_on(async {
        let lock = Arc::new(RwLock::new(0));
        let _held = lock.clone().read_owned().await;
        let writing = lock.clone();
        let writer = rt::spawn(async move {
            rt::select! {
                _guard = writing.write() => false,
                () = rt::time::sleep(Duration::from_secs(1)) => true,
            }
        });
        rt::task::yield_now().await;
        // Queued behind the writer (fairness), though only readers hold it.
        let reading = lock.clone();
        let reader = rt::spawn(async move { *reading.read().await });
        rt::task::yield_now().await;
        assert!(writer.await.unwrap(), "the writer gave up at its timeout");
        assert_eq!(reader.await.unwrap(), 0);
    });
}

#[test]
fn locks_and_semaphores_cancelled_at_varying_points_give_every_permit_back() {
    for round in 0..30 {
        multi_thread(4).block_on(async {
            let lock = Arc::new(RwLock::with_max_readers(0usize, 3));
            let mutex = Arc::new(rt::sync::Mutex::new(0usize));
            let semaphore = Arc::new(Semaphore::new(5));
            let tasks: Vec<_> = (0..16usize)
                .map(|t| {
                    let (lock, mutex, semaphore) = (lock.clone(), mutex.clone(), semaphore.clone());
                    rt::spawn(async move {
                        for i in 0..200usize {
                            let k = (t * 7 + i * 13) % 11;
                            match (t + i) % 4 {
                                0 => rt::select! {
                                    mut guard = lock.write() => {
                                        *guard += 1;
                                        after_polls(k % 3).await;
                                    }
                                    () = after_polls(k) => {}
                                },
                                1 => rt::select! {
                                    guard = lock.read() => {
                                        let _ = *guard;
                                        after_polls(k % 2).await;
                                    }
                                    () = after_polls(k) => {}
                                },
                                2 => rt::select! {
                                    mut guard = mutex.lock() => *guard += 1,
                                    () = after_polls(k) => {}
                                },
                                _ => rt::select! {
                                    permit = semaphore.acquire_many((k % 5 + 1) as u32) => {
                                        let _permit = permit.unwrap();
                                        after_polls(1).await;
                                    }
                                    () = after_polls(k) => {}
                                },
                            }
                        }
                    })
                })
                .collect();
            for task in tasks {
                task.await.unwrap();
            }
            assert!(lock.try_write().is_ok(), "round {round}");
            assert!(mutex.try_lock().is_ok(), "round {round}");
            assert_eq!(semaphore.available_permits(), 5, "round {round}");
        });
    }
}

#[test]
fn an_initialiser_cancelled_by_select_hands_the_cell_to_a_waiter() {
    multi_thread(2).block_on(async {
        let cell = Arc::new(OnceCell::<u32>::new());
        let never = Arc::new(Notify::new());
        let (started_tx, started) = oneshot::channel();
        let (give_up_tx, give_up) = oneshot::channel::<()>();
        let (initialising, never) = (cell.clone(), never.clone());
        let first = rt::spawn(async move {
            rt::select! {
                value = initialising.get_or_init(|| async move {
                    let _ = started_tx.send(());
                    never.notified().await;
                    1
                }) => Some(*value),
                _ = give_up => None,
            }
        });
        started.await.unwrap();
        let waiting = cell.clone();
        let second = rt::spawn(async move { *waiting.get_or_init(|| async { 2 }).await });
        give_up_tx.send(()).unwrap();
        assert_eq!(first.await.unwrap(), None);
        assert_eq!(second.await.unwrap(), 2);
    });
}

#[test]
fn an_initialiser_that_panics_hands_the_cell_to_a_waiter() {
    multi_thread(2).block_on(async {
        let cell = Arc::new(OnceCell::<u32>::new());
        let (started_tx, started) = oneshot::channel::<()>();
        let (go_tx, go) = oneshot::channel::<()>();
        let initialising = cell.clone();
        let first = rt::spawn(async move {
            *initialising
                .get_or_init(|| async move {
                    let _ = started_tx.send(());
                    let _ = go.await;
                    panic!("the initialiser fails");
                })
                .await
        });
        started.await.unwrap();
        let waiting = cell.clone();
        let second = rt::spawn(async move { *waiting.get_or_init(|| async { 2 }).await });
        go_tx.send(()).unwrap();
        assert!(first.await.unwrap_err().is_panic());
        assert_eq!(second.await.unwrap(), 2);
        assert_eq!(cell.get(), Some(&2));
    });
}

#[test]
fn recv_many_frees_a_slot_per_value_for_waiting_senders() {
    multi_thread(2).block_on(async {
        let (tx, mut rx) = mpsc::channel::<usize>(4);
        for i in 0..4 {
            tx.send(i).await.unwrap();
        }
        let waiting: Vec<_> = (4..8)
            .map(|i| {
                let tx = tx.clone();
                rt::spawn(async move { tx.send(i).await.unwrap() })
            })
            .collect();
        let mut buf = Vec::new();
        assert_eq!(rx.recv_many(&mut buf, 4).await, 4);
        for sender in waiting {
            sender.await.unwrap();
        }
        assert_eq!(rx.recv_many(&mut buf, 10).await, 4);
        // The waiting senders ran on any worker: their order is theirs.
        buf[4..].sort_unstable();
        assert_eq!(buf, (0..8).collect::<Vec<_>>());
        assert_eq!(tx.capacity(), 4);
        let permit = tx.clone().reserve_owned().await.unwrap();
        rx.close();
        permit.send(9);
        assert_eq!(rx.recv().await, Some(9));
        assert_eq!(rx.recv().await, None);
    });
}

#[test]
fn enabled_waiters_and_notify_one_lose_no_item() {
    for round in 0..20 {
        multi_thread(4).block_on(async {
            const ITEMS: usize = 4000;
            const DONE: usize = usize::MAX;
            let queue = Arc::new(std::sync::Mutex::new(VecDeque::new()));
            let notify = Arc::new(Notify::new());
            let consumers: Vec<_> = (0..4)
                .map(|_| {
                    let (queue, notify) = (queue.clone(), notify.clone());
                    rt::spawn(async move {
                        let mut taken = 0;
                        loop {
                            let mut notified = std::pin::pin!(notify.notified());
                            notified.as_mut().enable();
                            let item = queue.lock().unwrap().pop_front();
                            match item {
                                Some(DONE) => return taken,
                                Some(_) => taken += 1,
                                None => notified.await,
                            }
                        }
                    })
                })
                .collect();
            let producers: Vec<_> = (0..2)
                .map(|p| {
                    let (queue, notify) = (queue.clone(), notify.clone());
                    rt::spawn(async move {
                        for i in 0..ITEMS / 2 {
                            queue.lock().unwrap().push_back(p * ITEMS + i);
                            notify.notify_one();
                            if i % 50 == 0 {
                                rt::task::yield_now().await;
                            }
                        }
                    })
                })
                .collect();
            for producer in producers {
                producer.await.unwrap();
            }
            for _ in 0..4 {
                queue.lock().unwrap().push_back(DONE);
                notify.notify_one();
            }
            let mut taken = 0;
            for consumer in consumers {
                taken += consumer.await.unwrap();
            }
            assert_eq!(taken, ITEMS, "round {round}");
        });
    }
}

#[test]
fn enabled_waiters_see_every_notify_waiters_they_need() {
    for _ in 0..20 {
        multi_thread(4).block_on(async {
            const LAST: usize = 1000;
            let version = Arc::new(AtomicUsize::new(0));
            let notify = Arc::new(Notify::new());
            let waiters: Vec<_> = (0..6)
                .map(|_| {
                    let (version, notify) = (version.clone(), notify.clone());
                    rt::spawn(async move {
                        loop {
                            let mut notified = std::pin::pin!(notify.notified());
                            notified.as_mut().enable();
                            if version.load(Ordering::SeqCst) == LAST {
                                return;
                            }
                            notified.await;
                        }
                    })
                })
                .collect();
            for i in 1..=LAST {
                version.store(i, Ordering::SeqCst);
                notify.notify_waiters();
                if i % 10 == 0 {
                    rt::task::yield_now().await;
                }
            }
            // Each waiter returns only if no wake-up was lost.
            for waiter in waiters {
                waiter.await.unwrap();
            }
        });
    }
}
