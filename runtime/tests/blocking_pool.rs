//! The blocking pool: `spawn_blocking` results, panics, the thread cap,
//! keep-alive, thread names and shutdown.

mod support;

use support::{runtimes, wait_until};

use rt::runtime::{Builder, Runtime};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier, mpsc};
use std::time::Duration;

#[test]
fn spawn_blocking_returns_the_output() {
    for (_, rt) in runtimes() {
        let out = rt.block_on(async {
            let call = rt::task::spawn_blocking(|| (1..=100u64).sum::<u64>());
            call.await.unwrap()
        });
        assert_eq!(out, 5050);
    }
}

#[test]
fn spawn_blocking_panic_is_a_join_error() {
    for (_, rt) in runtimes() {
        let err = rt
            .block_on(rt.spawn_blocking(|| -> u32 { panic!("blocking boom") }))
            .unwrap_err();
        assert!(err.is_panic());
        assert_eq!(
            *err.into_panic().downcast::<&str>().unwrap(),
            "blocking boom"
        );
        // The pool survives the panic.
        assert_eq!(rt.block_on(rt.spawn_blocking(|| 7)).unwrap(), 7);
    }
}

#[test]
fn spawn_blocking_sees_its_runtime_and_may_block_on_it() {
    for (_, rt) in runtimes() {
        let flavor = rt.handle().runtime_flavor();
        let out = rt.block_on(rt.spawn_blocking(move || {
            let handle = rt::runtime::Handle::current();
            assert_eq!(handle.runtime_flavor(), flavor);
            let task = handle.spawn(async { 21 });
            handle.block_on(task).unwrap() * 2
        }));
        assert_eq!(out.unwrap(), 42);
    }
}

#[test]
#[should_panic(expected = "`rt::spawn_blocking` called outside a runtime")]
fn spawn_blocking_outside_a_runtime_panics() {
    drop(rt::spawn_blocking(|| ()));
}

#[test]
fn blocking_threads_carry_the_runtime_thread_name() {
    let rt = Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name("blk-named")
        .build()
        .unwrap();
    let name = rt
        .block_on(rt.spawn_blocking(|| std::thread::current().name().map(String::from)))
        .unwrap();
    assert_eq!(name.as_deref(), Some("blk-named"));
}

#[test]
fn more_calls_than_threads_all_complete_and_the_cap_holds() {
    const CAP: usize = 2;
    const CALLS: usize = 16;
    for kind in ["current", "multi"] {
        let mut builder = match kind {
            "current" => Builder::new_current_thread(),
            _ => Builder::new_multi_thread(),
        };
        let rt = builder.max_blocking_threads(CAP).build().unwrap();
        let running = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let (release_tx, release_rx) = mpsc::channel::<()>();
        let release_rx = Arc::new(std::sync::Mutex::new(release_rx));
        let calls: Vec<_> = (0..CALLS)
            .map(|i| {
                let running = running.clone();
                let most = most.clone();
                let release_rx = release_rx.clone();
                rt.spawn_blocking(move || {
                    let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(now, Ordering::SeqCst);
                    release_rx.lock().unwrap().recv().unwrap();
                    running.fetch_sub(1, Ordering::SeqCst);
                    i
                })
            })
            .collect();
        let metrics = rt.handle().metrics();
        // Both threads are busy and the rest wait in the queue.
        wait_until("the queue to fill", || {
            running.load(Ordering::SeqCst) == CAP && metrics.blocking_queue_depth() == CALLS - CAP
        });
        assert_eq!(metrics.num_blocking_threads(), CAP);
        for _ in 0..CALLS {
            release_tx.send(()).unwrap();
        }
        for (i, call) in calls.into_iter().enumerate() {
            assert_eq!(rt.block_on(call).unwrap(), i);
        }
        assert_eq!(most.load(Ordering::SeqCst), CAP, "{kind}");
        assert!(metrics.num_blocking_threads() <= CAP);
    }
}

#[test]
fn many_tasks_spawning_blocking_calls_all_complete() {
    let rt = Builder::new_multi_thread()
        .worker_threads(2)
        .max_blocking_threads(4)
        .build()
        .unwrap();
    let total = rt.block_on(async {
        let tasks: Vec<_> = (0..32u64)
            .map(|t| {
                rt::spawn(async move {
                    let mut sum = 0;
                    for i in 0..50u64 {
                        sum += rt::spawn_blocking(move || t * 1000 + i).await.unwrap();
                    }
                    sum
                })
            })
            .collect();
        let mut total = 0;
        for task in tasks {
            total += task.await.unwrap();
        }
        total
    });
    let expected: u64 = (0..32u64)
        .flat_map(|t| (0..50u64).map(move |i| t * 1000 + i))
        .sum();
    assert_eq!(total, expected);
}

/// `count` blocking calls that each wait for all the others: they finish
/// only if each one got a thread of its own.
fn all_at_once(rt: &Runtime, count: usize) {
    let barrier = Arc::new(Barrier::new(count));
    let calls: Vec<_> = (0..count)
        .map(|_| {
            let barrier = barrier.clone();
            rt.spawn_blocking(move || {
                barrier.wait();
            })
        })
        .collect();
    for call in calls {
        rt.block_on(call).unwrap();
    }
}

#[test]
fn idle_threads_exit_after_the_keep_alive() {
    const THREADS: usize = 4;
    let rt = Builder::new_multi_thread()
        .worker_threads(1)
        .thread_keep_alive(Duration::from_millis(50))
        .build()
        .unwrap();
    // All four calls wait for each other, so four threads must exist.
    all_at_once(&rt, THREADS);
    let metrics = rt.handle().metrics();
    assert!(metrics.num_blocking_threads() >= THREADS);
    wait_until("idle blocking threads to exit", || {
        metrics.num_blocking_threads() == 0
    });
    assert_eq!(metrics.num_idle_blocking_threads(), 0);
    // The pool starts threads again afterwards.
    assert_eq!(rt.block_on(rt.spawn_blocking(|| 5)).unwrap(), 5);
}

#[test]
fn a_burst_wakes_every_idle_thread_it_needs() {
    const THREADS: usize = 6;
    for (_, rt) in runtimes() {
        all_at_once(&rt, THREADS);
        let metrics = rt.handle().metrics();
        wait_until("every thread to go idle", || {
            metrics.num_idle_blocking_threads() == metrics.num_blocking_threads()
        });
        let threads = metrics.num_blocking_threads();
        assert!(threads >= THREADS);
        // The producer wakes one idle thread; each woken thread wakes the
        // next while calls are left, so all of them run at once again,
        // on the same threads.
        all_at_once(&rt, THREADS);
        assert_eq!(metrics.num_blocking_threads(), threads);
    }
}

#[test]
fn idle_threads_are_reused() {
    let rt = Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    let metrics = rt.handle().metrics();
    for i in 0..20 {
        assert_eq!(rt.block_on(rt.spawn_blocking(move || i)).unwrap(), i);
        // The output is delivered just before the thread goes idle.
        wait_until("the thread to go idle", || {
            metrics.num_idle_blocking_threads() == 1
        });
    }
    // Each call found the previous call's thread idle.
    assert_eq!(metrics.num_blocking_threads(), 1);
}

#[test]
fn abort_cancels_a_queued_call() {
    let rt = Builder::new_multi_thread()
        .max_blocking_threads(1)
        .build()
        .unwrap();
    let (release_tx, release_rx) = mpsc::channel::<()>();
    let (started_tx, started_rx) = mpsc::channel::<()>();
    let first = rt.spawn_blocking(move || {
        started_tx.send(()).unwrap();
        release_rx.recv().unwrap();
    });
    started_rx.recv().unwrap();
    let ran = Arc::new(AtomicBool::new(false));
    let ran2 = ran.clone();
    let queued = rt.spawn_blocking(move || ran2.store(true, Ordering::SeqCst));
    queued.abort();
    release_tx.send(()).unwrap();
    assert!(rt.block_on(queued).unwrap_err().is_cancelled());
    rt.block_on(first).unwrap();
    // Later calls still run: the cancelled one did not hold the thread.
    rt.block_on(rt.spawn_blocking(|| ())).unwrap();
    assert!(!ran.load(Ordering::SeqCst));
}

/// A blocking call that reports when it starts and then waits for `release`.
fn gated_call(
    rt: &Runtime,
    finished: Arc<AtomicBool>,
) -> (
    rt::task::JoinHandle<u32>,
    mpsc::Receiver<()>,
    mpsc::Sender<()>,
) {
    let (started_tx, started_rx) = mpsc::channel::<()>();
    let (release_tx, release_rx) = mpsc::channel::<()>();
    let call = rt.spawn_blocking(move || {
        started_tx.send(()).unwrap();
        release_rx.recv().unwrap();
        finished.store(true, Ordering::SeqCst);
        11
    });
    (call, started_rx, release_tx)
}

#[test]
fn shutdown_timeout_cancels_queued_work_and_leaves_running_work_behind() {
    for mut builder in [Builder::new_current_thread(), Builder::new_multi_thread()] {
        let rt = builder.max_blocking_threads(1).build().unwrap();
        let finished = Arc::new(AtomicBool::new(false));
        let (running, started, release) = gated_call(&rt, finished.clone());
        started.recv().unwrap();
        let queued_ran = Arc::new(AtomicBool::new(false));
        let flag = queued_ran.clone();
        let queued = rt.spawn_blocking(move || flag.store(true, Ordering::SeqCst));
        rt.shutdown_timeout(Duration::from_millis(10));
        // The running call was not interrupted: it finishes once released
        // and delivers its output.
        release.send(()).unwrap();
        assert_eq!(futures::executor::block_on(running).unwrap(), 11);
        assert!(finished.load(Ordering::SeqCst));
        assert!(
            futures::executor::block_on(queued)
                .unwrap_err()
                .is_cancelled()
        );
        assert!(!queued_ran.load(Ordering::SeqCst));
    }
}

#[test]
fn dropping_the_runtime_waits_for_running_blocking_work() {
    for mut builder in [Builder::new_current_thread(), Builder::new_multi_thread()] {
        let rt = builder.build().unwrap();
        let finished = Arc::new(AtomicBool::new(false));
        let (running, started, release) = gated_call(&rt, finished.clone());
        started.recv().unwrap();
        // Released whenever this thread gets to run; drop must wait for it.
        let releaser = std::thread::spawn(move || release.send(()).unwrap());
        drop(rt);
        assert!(finished.load(Ordering::SeqCst));
        assert_eq!(futures::executor::block_on(running).unwrap(), 11);
        releaser.join().unwrap();
    }
}

#[test]
fn shutdown_background_does_not_wait_for_running_work() {
    let rt = Builder::new_multi_thread().build().unwrap();
    let finished = Arc::new(AtomicBool::new(false));
    let (running, started, release) = gated_call(&rt, finished.clone());
    started.recv().unwrap();
    // Would deadlock if it waited: the call is only released afterwards.
    rt.shutdown_background();
    assert!(!finished.load(Ordering::SeqCst));
    release.send(()).unwrap();
    assert_eq!(futures::executor::block_on(running).unwrap(), 11);
}

/// tokio's `rt_handle_block_on::spawn_blocking_started_before_shutdown_continues`:
/// a call that had to start a pool thread (the pool had none to spare, and
/// no call waited before it) becomes that thread's own job, no longer
/// queued, so a shutdown that follows at once, before the new thread got
/// going, does not cancel it: it runs, and the shutdown waits for it.
/// (Calls queued behind busy threads at the cap are still cancelled:
/// `shutdown_timeout_cancels_queued_work_and_leaves_running_work_behind`.)
#[test]
fn a_call_that_started_a_thread_runs_despite_an_immediate_shutdown() {
    for mut builder in [Builder::new_current_thread(), Builder::new_multi_thread()] {
        // Each round a fresh runtime, whose pool has no thread yet; the new
        // thread's first steps race the shutdown differently each time.
        for _ in 0..20 {
            let rt = builder.build().unwrap();
            let ran = Arc::new(AtomicBool::new(false));
            let flag = ran.clone();
            let call = rt.spawn_blocking(move || {
                flag.store(true, Ordering::SeqCst);
                42
            });
            rt.shutdown_timeout(Duration::from_secs(600));
            assert!(
                ran.load(Ordering::SeqCst),
                "shutdown returned before the call ran"
            );
            assert_eq!(futures::executor::block_on(call).unwrap(), 42);
        }
    }
}

/// The same from inside the runtime, as a program's last act: a blocking
/// call (flushing a log, say) spawned just before `block_on` returns and
/// the runtime is dropped still runs to completion.
#[test]
fn a_blocking_call_spawned_as_block_on_returns_runs_before_the_drop_returns() {
    for mut builder in [Builder::new_current_thread(), Builder::new_multi_thread()] {
        let rt = builder.build().unwrap();
        let ran = Arc::new(AtomicBool::new(false));
        let flag = ran.clone();
        let mut call = None;
        rt.block_on(async {
            // Not awaited: `block_on` returns at once.
            call = Some(rt::task::spawn_blocking(move || {
                flag.store(true, Ordering::SeqCst)
            }));
        });
        drop(rt);
        assert!(ran.load(Ordering::SeqCst));
        futures::executor::block_on(call.unwrap()).unwrap();
    }
}

#[test]
fn spawn_blocking_after_shutdown_is_cancelled() {
    let rt = Builder::new_multi_thread().build().unwrap();
    let handle = rt.handle().clone();
    rt.shutdown_timeout(Duration::from_secs(10));
    let call = handle.spawn_blocking(|| 1);
    assert!(
        futures::executor::block_on(call)
            .unwrap_err()
            .is_cancelled()
    );
}

#[test]
fn a_runtime_dropped_in_its_own_blocking_task_shuts_down() {
    for mut builder in [Builder::new_current_thread(), Builder::new_multi_thread()] {
        let rt = builder.build().unwrap();
        let handle = rt.handle().clone();
        let (dropped_tx, dropped_rx) = mpsc::channel::<()>();
        // The pool's shutdown must not wait for the thread doing it.
        let call = handle.spawn_blocking(move || {
            drop(rt);
            dropped_tx.send(()).unwrap();
        });
        dropped_rx
            .recv_timeout(Duration::from_secs(60))
            .expect("dropping a runtime inside its own blocking task deadlocked");
        futures::executor::block_on(call).unwrap();
    }
}

#[test]
#[should_panic(expected = "`max_blocking_threads` must be at least 1")]
fn zero_max_blocking_threads_panics() {
    Builder::new_multi_thread().max_blocking_threads(0);
}

#[test]
fn an_unrepresentable_keep_alive_means_forever() {
    let rt = Builder::new_multi_thread()
        .thread_keep_alive(Duration::MAX)
        .build()
        .unwrap();
    assert_eq!(rt.block_on(rt.spawn_blocking(|| 3)).unwrap(), 3);
    let metrics = rt.handle().metrics();
    wait_until("the thread to go idle", || {
        metrics.num_idle_blocking_threads() == 1
    });
    // Shutdown still wakes and stops the idle thread.
    drop(rt);
    assert_eq!(metrics.num_blocking_threads(), 0);
}

/// Calls that each wait for a message take a thread apiece for as long as
/// they wait, so none of them may be left queued behind another: a call
/// pushed while a thread was spinning after its last call (counted as
/// coming for the queue, so the producer woke nobody) was left to that
/// thread, which, when its spin ended with nothing and it then found two
/// such calls, ran one and left the other queued for good, and the sender
/// waiting on it hung. Fresh runtimes, threads going from busy to spinning
/// to idle and back between the calls, as in tokio's
/// `rt_spawn_blocking::issue_8056_regression_test` (which found it on the
/// facade under load; the loom model
/// `loom_blocking_jobs_left_to_a_spinner_that_stops_each_get_a_thread`
/// states the race). The time-out only turns a hang into a failure: the
/// round takes about a millisecond.
#[test]
fn calls_that_wait_for_each_other_are_never_left_queued_behind_one() {
    /// Two calls, each looping on a channel's `blocking_recv` until its
    /// sender is dropped.
    fn receivers() -> (Vec<rt::sync::mpsc::Sender<()>>, rt::task::JoinSet<()>) {
        let mut calls = rt::task::JoinSet::new();
        let senders = (0..2)
            .map(|_| {
                let (tx, mut rx) = rt::sync::mpsc::channel::<()>(1);
                calls.spawn_blocking(move || while rx.blocking_recv().is_some() {});
                tx
            })
            .collect();
        (senders, calls)
    }

    /// Sends each receiver a message (which needs it running), then lets
    /// them finish.
    async fn finish(
        (senders, mut calls): (Vec<rt::sync::mpsc::Sender<()>>, rt::task::JoinSet<()>),
    ) {
        for tx in &senders {
            tx.send(()).await.unwrap();
        }
        drop(senders);
        while let Some(call) = calls.join_next().await {
            call.unwrap();
        }
    }

    async fn short_calls() {
        for _ in 0..2 {
            rt::task::spawn_blocking(|| {}).await.unwrap();
        }
    }

    for round in 0..500 {
        let rt = Builder::new_current_thread().enable_all().build().unwrap();
        let round_calls = async {
            short_calls().await;
            let first = receivers();
            for _ in 0..2 {
                short_calls().await;
                // Released at once: they end without a message.
                let (senders, calls) = receivers();
                drop(senders);
                finish((Vec::new(), calls)).await;
            }
            short_calls().await;
            let second = receivers();
            finish(first).await;
            finish(second).await;
        };
        let finished =
            rt.block_on(async { rt::time::timeout(Duration::from_secs(60), round_calls).await });
        assert!(
            finished.is_ok(),
            "round {round}: a blocking call never started (pool threads {}, idle {}, queued {})",
            rt.metrics().num_blocking_threads(),
            rt.metrics().num_idle_blocking_threads(),
            rt.metrics().blocking_queue_depth()
        );
    }
}
