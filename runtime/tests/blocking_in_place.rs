//! `block_in_place`: the worker's other tasks keep running while it blocks.

use rt::runtime::Builder;
use std::future::Future;
use std::sync::mpsc;
use std::time::Duration;

#[test]
fn tasks_queued_on_the_blocking_worker_keep_running() {
    // One worker: the task spawned below can only run if the worker's core
    // moved to another thread while the blocker waits.
    for workers in [1, 2] {
        let rt = Builder::new_multi_thread()
            .worker_threads(workers)
            .build()
            .unwrap();
        let out = rt.block_on(rt.spawn(async {
            let (tx, rx) = mpsc::channel::<u32>();
            let other = rt::spawn(async move {
                rt::task::yield_now().await;
                tx.send(99).unwrap();
                "other done"
            });
            let got = rt::task::block_in_place(|| rx.recv().unwrap());
            (got, other.await.unwrap())
        }));
        assert_eq!(out.unwrap(), (99, "other done"));
        assert_eq!(rt.handle().metrics().num_workers(), workers);
    }
}

#[test]
fn a_task_on_another_worker_completes_while_the_blocker_blocks() {
    let rt = Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let (tx, rx) = mpsc::channel::<&'static str>();
    let blocker = rt.spawn(async move { rt::task::block_in_place(|| rx.recv().unwrap()) });
    let sender = rt.spawn(async move {
        for _ in 0..10 {
            rt::task::yield_now().await;
        }
        tx.send("unblocked").unwrap();
    });
    rt.block_on(sender).unwrap();
    assert_eq!(rt.block_on(blocker).unwrap(), "unblocked");
}

#[test]
fn the_runtime_keeps_working_after_many_block_in_place_calls() {
    let rt = Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let total = rt.block_on(async {
        let tasks: Vec<_> = (0..16u64)
            .map(|i| {
                rt::spawn(async move {
                    let mut sum = 0;
                    for j in 0..4 {
                        sum += rt::task::block_in_place(|| i * 10 + j);
                        rt::task::yield_now().await;
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
    let expected: u64 = (0..16u64)
        .flat_map(|i| (0..4).map(move |j| i * 10 + j))
        .sum();
    assert_eq!(total, expected);
    // The hand-offs kept exactly two worker cores; shutdown waits for both.
    rt.shutdown_timeout(Duration::from_secs(30));
}

#[test]
fn nested_block_in_place_and_block_on_inside_it() {
    let rt = Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    let out = rt.block_on(rt.spawn(async {
        rt::task::block_in_place(|| {
            // Blocking on the runtime is allowed here.
            let handle = rt::runtime::Handle::current();
            let inner = handle.block_on(async { rt::spawn(async { 5 }).await.unwrap() });
            inner + rt::task::block_in_place(|| 1)
        })
    }));
    assert_eq!(out.unwrap(), 6);
}

#[test]
fn outside_a_runtime_it_just_runs() {
    assert_eq!(rt::task::block_in_place(|| 3), 3);
    let rt = Builder::new_multi_thread().build().unwrap();
    // Inside a multi-thread `block_on` (not a worker) it runs too.
    assert_eq!(rt.block_on(async { rt::task::block_in_place(|| 4) }), 4);
}

/// A `LocalSet` driven by a multi-thread `block_on` runs on that thread,
/// not on a worker, so its tasks' calls run inline like `block_on`'s own
/// (the set's other tasks wait meanwhile). tokio panics there.
#[test]
fn in_a_local_set_on_a_multi_thread_block_on_it_just_runs() {
    let rt = Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    let local = rt::task::LocalSet::new();
    let out = local.block_on(&rt, async {
        let task = rt::task::spawn_local(async { rt::task::block_in_place(|| 5) });
        rt::task::block_in_place(|| 6) + task.await.unwrap()
    });
    assert_eq!(out, 11);
}

/// On a current-thread runtime a `LocalSet` shares the one thread, so the
/// call panics there as in the runtime's own tasks.
#[test]
#[should_panic(expected = "called on a current-thread runtime")]
fn in_a_local_set_on_a_current_thread_runtime_it_panics() {
    let rt = Builder::new_current_thread().build().unwrap();
    let local = rt::task::LocalSet::new();
    local.block_on(&rt, async { rt::task::block_in_place(|| ()) });
}

#[test]
#[should_panic(expected = "called on a current-thread runtime")]
fn current_thread_runtime_panics() {
    let rt = Builder::new_current_thread().build().unwrap();
    rt.block_on(async { rt::task::block_in_place(|| ()) });
}

#[test]
fn current_thread_task_gets_the_panic_as_a_join_error() {
    let rt = Builder::new_current_thread().build().unwrap();
    let err = rt
        .block_on(rt.spawn(async { rt::task::block_in_place(|| ()) }))
        .unwrap_err();
    assert!(err.is_panic());
}

/// A task's destructor that calls `block_in_place` (a blocking flush,
/// say) runs it when a current-thread runtime's shutdown drops the task,
/// as tokio does: shutting down, the runtime blocks no task by blocking.
/// Before, the call panicked there (the runtime's scheduler is installed
/// while the shutdown drops its tasks), the panic hook printing "called
/// on a current-thread runtime" for a clean shutdown.
#[test]
fn a_destructor_run_by_a_current_thread_shutdown_may_block_in_place() {
    struct FlushesOnDrop(mpsc::Sender<u32>);
    impl Drop for FlushesOnDrop {
        fn drop(&mut self) {
            let flushed = rt::task::block_in_place(|| 7);
            self.0.send(flushed).unwrap();
        }
    }
    let rt = Builder::new_current_thread().build().unwrap();
    let (flushed_tx, flushed_rx) = mpsc::channel();
    let (started_tx, started_rx) = rt::sync::oneshot::channel();
    let task = rt.spawn(async move {
        let _flushes = FlushesOnDrop(flushed_tx);
        started_tx.send(()).unwrap();
        std::future::pending::<()>().await;
    });
    rt.block_on(started_rx).unwrap();
    drop(rt);
    assert_eq!(flushed_rx.try_recv(), Ok(7));
    let error = futures::executor::block_on(task).unwrap_err();
    assert!(error.is_cancelled(), "{error}");
}

#[test]
fn shutdown_with_a_worker_blocked_in_place() {
    let rt = Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    let (started_tx, started_rx) = mpsc::channel::<()>();
    let (release_tx, release_rx) = mpsc::channel::<()>();
    let blocker = rt.spawn(async move {
        rt::task::block_in_place(|| {
            started_tx.send(()).unwrap();
            release_rx.recv().unwrap();
        })
    });
    started_rx.recv().unwrap();
    assert_eq!(rt.block_on(rt.spawn(async { 8 })).unwrap(), 8);
    // The worker's core is on a pool thread and stops at once; the thread
    // blocked in place no longer counts as a worker, so even a plain drop
    // (which waits for every worker core and pool thread) returns while
    // it is still blocked.
    let (dropped_tx, dropped_rx) = mpsc::channel::<()>();
    std::thread::spawn(move || {
        drop(rt);
        dropped_tx.send(()).unwrap();
    });
    dropped_rx
        .recv_timeout(Duration::from_secs(60))
        .expect("dropping the runtime waited for the thread blocked in place");
    release_tx.send(()).unwrap();
    // The task was being polled when shutdown came, so it completes.
    assert!(futures::executor::block_on(blocker).is_ok());
}

/// A poll that has spent its budget, then calls `block_in_place`: the
/// closure runs without a budget (as in tokio), so it can drive a channel
/// to its end with a plain executor however many values it holds; after
/// it, the poll's budget is spent again, so the task still yields (tokio's
/// `rt_threaded::coop_and_block_in_place`); on a worker task and in
/// `block_on`.
#[test]
fn block_in_place_lifts_the_budget_for_its_closure_only() {
    use std::future::poll_fn;
    use std::task::Poll;

    // All in one poll: spend the budget, then block in place.
    async fn spend_budget_then_block() -> (bool, usize, bool) {
        poll_fn(|cx| {
            while let Poll::Ready(coop) = rt::task::coop::poll_proceed(cx) {
                coop.made_progress();
            }
            assert!(!rt::task::coop::has_budget_remaining());
            let (tx, mut rx) = rt::sync::mpsc::unbounded_channel();
            for i in 0..300 {
                tx.send(i).unwrap();
            }
            drop(tx);
            let (inside, drained) = rt::task::block_in_place(|| {
                let inside = rt::task::coop::has_budget_remaining();
                let mut drained = 0;
                // With the budget still spent, every receive would yield
                // and this loop would spin forever: skip it then.
                if inside {
                    futures::executor::block_on(async {
                        while rx.recv().await.is_some() {
                            drained += 1;
                        }
                    });
                }
                (inside, drained)
            });
            Poll::Ready((inside, drained, rt::task::coop::has_budget_remaining()))
        })
        .await
    }

    let rt = Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let on_worker = rt.block_on(rt.spawn(spend_budget_then_block()));
    assert_eq!(on_worker.unwrap(), (true, 300, false));
    let in_block_on = rt.block_on(spend_budget_then_block());
    assert_eq!(in_block_on, (true, 300, false));
}

/// A `spawn_blocking` call racing another task's `block_in_place` on a
/// pool capped at one thread: the thread started for the hand-off counts
/// in the pool until it leaves the count to run the worker loop, so the
/// call may find the pool full and be left to busy threads; the leaving
/// thread must pass it on. Before, the call stayed queued with no pool
/// thread at all (in about 3 rounds of 4). The time-out only turns a hang
/// into a failure.
#[test]
fn a_call_racing_a_hand_off_in_a_full_pool_still_runs() {
    for round in 0..100 {
        let rt = Builder::new_multi_thread()
            .worker_threads(2)
            .max_blocking_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let ran = rt.block_on(async {
            let both = std::sync::Arc::new(std::sync::Barrier::new(2));
            let other = both.clone();
            let blocker = rt::spawn(async move {
                other.wait();
                rt::task::block_in_place(|| ());
            });
            both.wait();
            let call = rt::task::spawn_blocking(|| 7);
            let ran = rt::time::timeout(Duration::from_secs(60), call).await;
            blocker.await.unwrap();
            ran
        });
        assert_eq!(
            ran.expect("the call never started").unwrap(),
            7,
            "round {round}"
        );
    }
}

/// `block_in_place` outside a worker calls its closure on the same
/// thread, so a `block_on` there nests in the outer `block_on`, and both
/// sleep on the thread's one parker. A wake of the outer future that
/// lands while the inner call waits was consumed by the inner call's
/// parks, and the outer call, its poll `Pending`, slept for good: the
/// nested call now wakes the outer one when it ends.
#[test]
fn a_wake_of_the_outer_block_on_during_a_nested_one_is_kept() {
    let rt = Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let handle = rt.handle().clone();
    let (done, finished) = mpsc::channel();
    std::thread::spawn(move || {
        let (outer_tx, mut outer_rx) = rt::sync::oneshot::channel::<u32>();
        let mut outer_tx = Some(outer_tx);
        let out = rt.block_on(std::future::poll_fn(move |cx| {
            if let std::task::Poll::Ready(value) = std::pin::Pin::new(&mut outer_rx).poll(cx) {
                return std::task::Poll::Ready(value.unwrap());
            }
            if let Some(outer_tx) = outer_tx.take() {
                let (inner_tx, inner_rx) = rt::sync::oneshot::channel::<()>();
                // The outer future's wake first, then the inner one's:
                // the inner call sees both notifications.
                let waking = std::thread::spawn(move || {
                    outer_tx.send(7).unwrap();
                    inner_tx.send(()).unwrap();
                });
                rt::task::block_in_place(|| handle.block_on(inner_rx)).unwrap();
                waking.join().unwrap();
            }
            std::task::Poll::Pending
        }));
        done.send(out).unwrap();
    });
    // Before the fix the outer call never returned.
    assert_eq!(finished.recv_timeout(Duration::from_secs(60)), Ok(7));
}
