//! Yielding tasks: they keep running (on a saturated runtime too), they
//! do not starve other work, and shutdown drops them.

mod support;

use rt::runtime::{Builder, Runtime};
use rt::task::Priority;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use support::{SINGLE_POLLER, each};

fn multi_thread(workers: usize) -> Runtime {
    Builder::new_multi_thread()
        .worker_threads(workers)
        .build()
        .unwrap()
}

#[test]
fn many_yielding_tasks_all_finish() {
    let rt = multi_thread(2);
    let handles: Vec<_> = (0..50)
        .map(|i| {
            rt.spawn(async move {
                for _ in 0..200 {
                    rt::task::yield_now().await;
                }
                i
            })
        })
        .collect();
    let sum: usize = rt.block_on(async {
        let mut sum = 0;
        for handle in handles {
            sum += handle.await.unwrap();
        }
        sum
    });
    assert_eq!(sum, (0..50).sum());
}

#[test]
fn remote_spawns_run_while_workers_only_yield() {
    let rt = multi_thread(2);
    let running = Arc::new(AtomicBool::new(true));
    for _ in 0..4 {
        let running = running.clone();
        rt.spawn(async move {
            while running.load(Ordering::Relaxed) {
                rt::task::yield_now().await;
            }
        });
    }
    let done = Arc::new(AtomicUsize::new(0));
    let handles: Vec<_> = (0..1_000)
        .map(|_| {
            let done = done.clone();
            rt.spawn(async move {
                done.fetch_add(1, Ordering::Relaxed);
            })
        })
        .collect();
    rt.block_on(async {
        for handle in handles {
            handle.await.unwrap();
        }
    });
    running.store(false, Ordering::Relaxed);
    assert_eq!(done.load(Ordering::Relaxed), 1_000);
}

#[test]
fn yielders_on_one_worker_let_a_later_task_run() {
    // One worker, two tasks spinning on `yield_now` until a flag is set by
    // a task spawned after them: they finish only if yielding lets it run.
    let rt = multi_thread(1);
    let flag = Arc::new(AtomicBool::new(false));
    let spinners: Vec<_> = (0..2)
        .map(|_| {
            let flag = flag.clone();
            rt.spawn(async move {
                let mut yields = 0u64;
                while !flag.load(Ordering::Acquire) {
                    rt::task::yield_now().await;
                    yields += 1;
                }
                yields
            })
        })
        .collect();
    rt.spawn(async move { flag.store(true, Ordering::Release) });
    let yields: Vec<u64> = rt.block_on(async {
        let mut yields = Vec::new();
        for spinner in spinners {
            yields.push(spinner.await.unwrap());
        }
        yields
    });
    // Spawned first, each spinner was polled before the setter ran.
    assert!(yields.iter().all(|&n| n >= 1), "{yields:?}");
}

#[test]
fn shutdown_drops_tasks_parked_in_a_yield() {
    let rt = multi_thread(2);
    let token = Arc::new(());
    let started = Arc::new(AtomicUsize::new(0));
    for _ in 0..8 {
        let token = token.clone();
        let started = started.clone();
        rt.spawn(async move {
            let _token = token;
            started.fetch_add(1, Ordering::SeqCst);
            loop {
                rt::task::yield_now().await;
            }
        });
    }
    // Every task has been polled once (and so holds its token in a yield).
    rt.block_on(async {
        while started.load(Ordering::SeqCst) < 8 {
            rt::task::yield_now().await;
        }
    });
    drop(rt);
    assert_eq!(
        Arc::strong_count(&token),
        1,
        "a yielded task's future leaked"
    );
}

/// On the current-thread scheduler a task that keeps yielding lets the
/// I/O driver run after each yield (as tokio does): a datagram that
/// arrives for a waiting reader is delivered after a yield or two, not
/// after `event_interval` of them. (The multi-thread worker polls the
/// driver every `event_interval` ticks instead; see its step 5.)
#[test]
fn a_yielding_task_lets_io_in_after_each_yield() {
    let rt = Builder::new_current_thread()
        .event_interval(1000)
        .enable_all()
        .build()
        .unwrap();
    let yields = datagram_delivery_yields(&rt);
    assert!(yields <= 3, "the datagram waited {yields} yields");
}

/// How many times a task yields before a datagram sent to a waiting
/// reader is delivered.
fn datagram_delivery_yields(rt: &Runtime) -> usize {
    rt.block_on(async {
        let (sender, receiver) = rt::net::UnixDatagram::pair().unwrap();
        let delivered = Arc::new(AtomicBool::new(false));
        let (waiting_tx, waiting_rx) = rt::sync::oneshot::channel();
        rt::spawn({
            let delivered = delivered.clone();
            async move {
                let mut buf = [0; 1];
                let mut recv = std::pin::pin!(receiver.recv(&mut buf));
                let mut waiting = Some(waiting_tx);
                std::future::poll_fn(|cx| {
                    let polled = recv.as_mut().poll(cx);
                    // Told after the first poll: the reader now waits on
                    // the driver.
                    if let Some(waiting) = waiting.take() {
                        waiting.send(()).unwrap();
                    }
                    polled
                })
                .await
                .unwrap();
                delivered.store(true, Ordering::SeqCst);
            }
        });
        let spinner = rt::spawn(async move {
            waiting_rx.await.unwrap();
            sender.send(b"x").await.unwrap();
            let mut yields = 0;
            while !delivered.load(Ordering::SeqCst) {
                rt::task::yield_now().await;
                yields += 1;
            }
            yields
        });
        spinner.await.unwrap()
    })
}

/// tokio's `rt_common::ping_pong_saturation`: pairs of tasks ping-pong over
/// unbounded channels, so the run queue is never empty, and a task that
/// yields five times must still finish. (On the current-thread scheduler
/// yielded tasks used to go back only when the queues ran dry, which a
/// saturated runtime never lets happen.) Each pair stops on its own after
/// `MAX_ROUNDS`, so a starved yielder fails the test instead of hanging it:
/// a yielded task runs again within `event_interval` ticks plus the queue
/// ahead of it, far below the 200 000 polls the pairs allow. The yielder
/// runs at each priority: a `Low` one gets its turns by the starvation
/// bound, a `High` one goes first. It stops the pairs itself, and one
/// thread runs every task (the current-thread runtime, a one-worker
/// multi-thread one; the test's body runs in a task too), so the count of
/// rounds depends on the scheduler's choices alone, not on how the OS
/// schedules threads (with more workers, or the body in `block_on`'s own
/// thread, a thread descheduled by a busy machine lets the others run
/// pairs meanwhile).
#[test]
fn a_yielding_task_finishes_on_a_saturated_runtime() {
    const PAIRS: usize = 100;
    const MAX_ROUNDS: usize = 1_000;
    for priority in [Priority::Normal, Priority::Low, Priority::High] {
        each(&SINGLE_POLLER, |_, rt| {
            eprintln!("    yielder at {priority:?}");
            let running = Arc::new(AtomicBool::new(true));
            let capped = Arc::new(AtomicUsize::new(0));
            // In a task: on the multi-thread runtime, `block_on`'s future
            // runs on a thread of its own.
            let (running2, capped2) = (running.clone(), capped.clone());
            let body = async move {
                let (running, capped) = (running2, capped2);
                let (spawned_tx, mut spawned_rx) = rt::sync::mpsc::unbounded_channel();
                let mut tasks = Vec::new();
                for _ in 0..PAIRS {
                    let (tx1, mut rx1) = rt::sync::mpsc::unbounded_channel();
                    let (tx2, mut rx2) = rt::sync::mpsc::unbounded_channel();
                    let spawned_tx = spawned_tx.clone();
                    let running = running.clone();
                    let capped = capped.clone();
                    tasks.push(rt::spawn(async move {
                        spawned_tx.send(()).unwrap();
                        let mut rounds = 0;
                        while running.load(Ordering::Relaxed) {
                            if rounds == MAX_ROUNDS {
                                capped.fetch_add(1, Ordering::Relaxed);
                                break;
                            }
                            rounds += 1;
                            tx1.send(()).unwrap();
                            rx2.recv().await.unwrap();
                        }
                        // Close the channel and wait for the other task to exit.
                        drop(tx1);
                        assert!(rx2.recv().await.is_none());
                    }));
                    tasks.push(rt::spawn(async move {
                        while rx1.recv().await.is_some() {
                            tx2.send(()).unwrap();
                        }
                    }));
                }
                for _ in 0..PAIRS {
                    spawned_rx.recv().await.unwrap();
                }
                let stop = running.clone();
                let yielder = rt::task::Builder::new()
                    .priority(priority)
                    .spawn(async move {
                        for _ in 0..5 {
                            rt::task::yield_now().await;
                        }
                        stop.store(false, Ordering::Relaxed);
                    })
                    .unwrap();
                yielder.await.unwrap();
                for task in tasks {
                    task.await.unwrap();
                }
            };
            rt.block_on(rt.spawn(body)).unwrap();
            assert_eq!(
                capped.load(Ordering::Relaxed),
                0,
                "the {priority:?} yielding task finished only after the ping-pong pairs gave up"
            );
        });
    }
}
