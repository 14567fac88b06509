//! `RuntimeMetrics` on known workloads: exact counts wherever the
//! schedule is deterministic (one polling thread, or a worker blocked on
//! purpose so that only stealing can move its tasks).

mod support;

use rt::runtime::{Builder, Runtime};
use std::sync::mpsc;
use std::time::Duration;
use support::{Kind, expect_panic, wait_until};

/// How long a test waits for a message before calling it a hang. Not a
/// timing assertion: it only turns a hang into a failure.
const HANG: Duration = Duration::from_secs(30);

fn single_pollers() -> [Runtime; 2] {
    [Kind::CurrentThread.build(), Kind::MultiThread(1).build()]
}

#[test]
fn spawned_and_alive_tasks_follow_the_workload() {
    for rt in [Kind::CurrentThread.build(), Kind::MultiThread(2).build()] {
        let metrics = rt.metrics();
        let (release, gate) = futures_channel::oneshot::channel::<()>();
        let gate = futures::future::FutureExt::shared(gate);
        let tasks: Vec<_> = (0..5)
            .map(|_| {
                let gate = gate.clone();
                rt.spawn(async move { gate.await.ok() })
            })
            .collect();
        assert_eq!(metrics.spawned_tasks_count(), 5);
        assert_eq!(metrics.num_alive_tasks(), 5);
        release.send(()).unwrap();
        for task in tasks {
            rt.block_on(task).unwrap();
        }
        assert_eq!(metrics.num_alive_tasks(), 0);
        assert_eq!(metrics.spawned_tasks_count(), 5);
    }
}

#[test]
fn polls_count_every_poll_of_every_task() {
    for rt in single_pollers() {
        let metrics = rt.metrics();
        rt.block_on(async {
            let yielder = rt::spawn(async {
                for _ in 0..4 {
                    rt::task::yield_now().await;
                }
            });
            let once = rt::spawn(async {});
            yielder.await.unwrap();
            once.await.unwrap();
        });
        // Five polls of the yielder, one of the other; `block_on`'s own
        // future is not a task.
        assert_eq!(metrics.worker_poll_count(0), 6);
    }
}

/// A task whose budget ran out counts once for that poll, however many of
/// its futures then find the budget spent (a `join!` or `select!` over
/// several sockets): tokio counts when the budget runs out, and so does rt.
#[test]
fn a_spent_budget_counts_once_however_many_futures_find_it_spent() {
    use rt::task::coop::poll_proceed;
    use std::future::poll_fn;
    use std::task::Poll;

    for rt in single_pollers() {
        let metrics = rt.metrics();
        rt.block_on(rt.spawn(async {
            let mut cut_short = false;
            poll_fn(|cx| {
                if cut_short {
                    return Poll::Ready(());
                }
                while let Poll::Ready(unit) = poll_proceed(cx) {
                    unit.made_progress();
                }
                for _ in 0..3 {
                    assert!(poll_proceed(cx).is_pending());
                }
                cut_short = true;
                Poll::Pending
            })
            .await;
        }))
        .unwrap();
        assert_eq!(metrics.budget_forced_yield_count(), 1);
    }
}

#[test]
fn spent_budgets_count_as_forced_yields() {
    for rt in single_pollers() {
        let metrics = rt.metrics();
        rt.block_on(rt.spawn(async {
            for _ in 0..1000 {
                rt::task::consume_budget().await;
            }
        }))
        .unwrap();
        // 128 units per poll: 1000 units need 8 polls, 7 of them cut short.
        assert_eq!(metrics.worker_budget_forced_yield_count(0), 7);
        assert_eq!(metrics.budget_forced_yield_count(), 7);
        assert_eq!(metrics.worker_poll_count(0), 8);
    }
}

#[test]
fn a_chain_of_spawns_runs_from_the_lifo_slot() {
    let rt = Kind::MultiThread(1).build();
    rt.block_on(rt.spawn(async {
        // Each task spawns the next from the worker: it waits in the LIFO
        // slot and runs right after its parent's poll.
        drop(rt::spawn(async {
            drop(rt::spawn(async {
                drop(rt::spawn(async {}));
            }));
        }));
    }))
    .unwrap();
    wait_until("the chain ran", || rt.metrics().num_alive_tasks() == 0);
    assert_eq!(rt.metrics().worker_lifo_slot_hits(0), 3);
    assert_eq!(rt.metrics().worker_poll_count(0), 4);
    assert_eq!(rt.metrics().worker_steal_operations(0), 0);
}

/// A task blocks its worker until `count` messages arrive on `done`.
fn block_until(done: &mpsc::Receiver<()>, count: usize) {
    for _ in 0..count {
        done.recv_timeout(HANG).expect("the stolen children ran");
    }
}

#[test]
fn a_blocked_workers_queue_is_stolen_and_counted() {
    let rt = Kind::MultiThread(2).build();
    let metrics = rt.metrics();
    let (done_tx, done) = mpsc::channel();
    rt.block_on(rt.spawn(async move {
        for _ in 0..10 {
            let done_tx = done_tx.clone();
            drop(rt::spawn(async move { done_tx.send(()).unwrap() }));
        }
        // The first nine went to this worker's queue as the next took the
        // LIFO slot: only the other worker, stealing, can run them.
        block_until(&done, 9);
    }))
    .unwrap();
    wait_until("the last child ran", || metrics.num_alive_tasks() == 0);
    let stolen: u64 = (0..2).map(|w| metrics.worker_steal_count(w)).sum();
    let operations: u64 = (0..2).map(|w| metrics.worker_steal_operations(w)).sum();
    assert_eq!(stolen, 9);
    assert!(
        (1..=9).contains(&operations),
        "{operations} steal operations"
    );
    let polls: u64 = (0..2).map(|w| metrics.worker_poll_count(w)).sum();
    assert_eq!(polls, 11);
}

#[test]
fn queue_depths_count_waiting_tasks() {
    // Spawned from outside a current-thread runtime nobody drives: the
    // global queue holds them.
    let rt = Kind::CurrentThread.build();
    let tasks: Vec<_> = (0..3).map(|_| rt.spawn(async {})).collect();
    assert_eq!(rt.metrics().global_queue_depth(), 3);
    for task in tasks {
        rt.block_on(task).unwrap();
    }
    assert_eq!(rt.metrics().global_queue_depth(), 0);

    // A worker blocked after spawning five children: one waits in its
    // LIFO slot, private to it (the watchdog is off), four in its queue.
    let rt = Kind::MultiThread(1).build();
    let (blocked_tx, blocked) = mpsc::channel();
    let (release, released) = mpsc::channel::<()>();
    let parent = rt.spawn(async move {
        for _ in 0..5 {
            drop(rt::spawn(async {}));
        }
        blocked_tx.send(()).unwrap();
        released.recv_timeout(HANG).expect("released");
    });
    blocked.recv_timeout(HANG).expect("the parent blocked");
    assert_eq!(rt.metrics().worker_local_queue_depth(0), 4);
    release.send(()).unwrap();
    rt.block_on(parent).unwrap();
    wait_until("the children ran", || rt.metrics().num_alive_tasks() == 0);
    assert_eq!(rt.metrics().worker_local_queue_depth(0), 0);
}

#[test]
fn parks_unparks_and_busy_time_move_with_idleness() {
    let rt = Kind::MultiThread(2).build();
    let metrics = rt.metrics();
    rt.block_on(async {
        for _ in 0..10 {
            rt::spawn(async {}).await.unwrap();
        }
    });
    // Once the runtime is idle, every worker is asleep: one park more
    // than unparks, and tokio's combined count is odd and their sum. All
    // read together, and waited for: a worker notified as it parked (for
    // a task a peer then took) wakes once more, finds nothing and parks
    // again, so "both asleep" seen once may not last.
    wait_until("both workers sleep, by both counts", || {
        (0..2).all(|w| {
            let combined = metrics.worker_park_unpark_count(w);
            let (parks, unparks) = (metrics.worker_park_count(w), metrics.worker_unpark_count(w));
            parks == unparks + 1 && combined == parks + unparks && combined % 2 == 1
        })
    });
    let busy: Duration = (0..2).map(|w| metrics.worker_total_busy_duration(w)).sum();
    assert!(busy > Duration::ZERO);
    let unparks_before = metrics.worker_unpark_count(0) + metrics.worker_unpark_count(1);
    rt.block_on(rt.spawn(async {})).unwrap();
    let unparks_after = metrics.worker_unpark_count(0) + metrics.worker_unpark_count(1);
    assert!(unparks_after > unparks_before, "a worker woke for the task");
}

/// A current-thread `block_on` whose tasks never leave it idle never
/// parks; the time it ran them still counts as busy (tokio's
/// `rt_metrics::worker_total_busy_duration`), and the park count shows it
/// did not sleep.
#[test]
fn current_thread_busy_time_counts_a_block_on_that_never_parked() {
    let rt = Kind::CurrentThread.build();
    let metrics = rt.metrics();
    rt.block_on(async {
        for _ in 0..5 {
            rt::spawn(async { rt::task::yield_now().await })
                .await
                .unwrap();
        }
    });
    assert_eq!(metrics.worker_park_count(0), 0, "it never slept");
    assert!(metrics.worker_total_busy_duration(0) > Duration::ZERO);
}

#[test]
fn current_thread_parks_when_idle() {
    let rt = Kind::CurrentThread.build();
    let metrics = rt.metrics();
    let (tx, rx) = futures_channel::oneshot::channel::<()>();
    let sender = std::thread::spawn(move || {
        // Whether or not the runtime is asleep yet, the send wakes it.
        tx.send(()).unwrap();
    });
    rt.block_on(async { rx.await.unwrap() });
    sender.join().unwrap();
    let (parks, unparks) = (metrics.worker_park_count(0), metrics.worker_unpark_count(0));
    assert_eq!(parks, unparks, "not asleep outside block_on");
    assert_eq!(metrics.worker_park_unpark_count(0), parks + unparks);
    assert_eq!(metrics.worker_park_unpark_count(0) % 2, 0);
}

#[test]
fn io_and_timer_gauges() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let metrics = rt.metrics();
    rt.block_on(async {
        let registered = metrics.io_driver_registrations();
        let receiver = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let sender = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
        assert_eq!(metrics.io_driver_registrations(), registered + 2);
        let ready_before = metrics.io_driver_ready_count();
        sender
            .send_to(b"ping", receiver.local_addr().unwrap())
            .await
            .unwrap();
        let mut buf = [0; 4];
        receiver.recv_from(&mut buf).await.unwrap();
        assert!(metrics.io_driver_ready_count() > ready_before);
        drop((receiver, sender));
        assert_eq!(metrics.io_driver_registrations(), registered);

        assert_eq!(metrics.num_pending_timers(), 0);
        let long = rt::spawn(rt::time::sleep(Duration::from_secs(3600)));
        rt::task::yield_now().await;
        assert_eq!(metrics.num_pending_timers(), 1);
        long.abort();
        assert!(long.await.unwrap_err().is_cancelled());
        assert_eq!(metrics.num_pending_timers(), 0);
    });
}

#[test]
fn a_worker_index_out_of_range_panics_naming_the_range() {
    let rt = Kind::MultiThread(2).build();
    let message = expect_panic(|| rt.metrics().worker_poll_count(2));
    assert!(message.contains("2 worker(s)"), "{message}");
    let message = expect_panic(|| rt.metrics().worker_local_queue_depth(7));
    assert!(message.contains("out of range"), "{message}");
}

#[test]
fn a_full_local_queue_overflows_half_into_the_global_queue() {
    let rt = Kind::MultiThread(1).build();
    let metrics = rt.metrics();
    let (done_tx, done) = mpsc::channel();
    let inside = metrics.clone();
    rt.block_on(rt.spawn(async move {
        for _ in 0..600 {
            let done_tx = done_tx.clone();
            drop(rt::spawn(async move { done_tx.send(()).unwrap() }));
        }
        // The only worker runs none of them before this task ends. Each
        // spawn puts the child in the LIFO slot and the one it displaces
        // in the queue; at 256 queued, the newest 128 and the displaced
        // one go to the global queue: three times in 600 spawns.
        assert_eq!(inside.worker_overflow_count(0), 3);
        assert_eq!(inside.global_queue_depth(), 3 * 129);
        assert_eq!(inside.worker_local_queue_depth(0), 600 - 1 - 3 * 129);
    }))
    .unwrap();
    block_until(&done, 600);
    wait_until("every child ran", || metrics.num_alive_tasks() == 0);
    assert_eq!(metrics.global_queue_depth(), 0);
    assert_eq!(metrics.worker_overflow_count(0), 3);
}

#[test]
fn an_overflow_keeps_the_older_half_of_the_queue() {
    // The older half of a full queue is where an overloaded worker's
    // batches from the global queue wait: it stays, so none of them goes
    // back to the global queue's tail before it runs. One worker, an
    // interval too long to come round, so the order is: the LIFO slot,
    // the local queue, then the global queue.
    let rt = Builder::new_multi_thread()
        .worker_threads(1)
        .global_queue_interval(u32::MAX)
        .build()
        .unwrap();
    let metrics = rt.metrics();
    let (ran_tx, ran) = mpsc::channel();
    rt.block_on(rt.spawn(async move {
        for child in 0..300 {
            let ran_tx = ran_tx.clone();
            drop(rt::spawn(async move { ran_tx.send(child).unwrap() }));
        }
    }))
    .unwrap();
    let order: Vec<usize> = (0..300)
        .map(|_| ran.recv_timeout(HANG).expect("every child ran"))
        .collect();
    // Child `i` entered the queue when child `i + 1` took the LIFO slot;
    // child 256 found 0..=255 queued and went to the global queue with
    // the newer half, 128..=255. Then 257..=298 queued behind 0..=127.
    assert_eq!(metrics.worker_overflow_count(0), 1);
    let expected: Vec<usize> = std::iter::once(299)
        .chain(0..128)
        .chain(257..299)
        .chain(128..257)
        .collect();
    assert_eq!(order, expected);
}

#[test]
fn tasks_that_overflowed_run_on_another_worker_while_theirs_is_blocked() {
    let rt = Kind::MultiThread(2).build();
    let metrics = rt.metrics();
    // One worker blocks in `parked` until the spawner is done, so nobody
    // steals while the spawner's queue fills.
    let (started_tx, started) = mpsc::channel();
    let (release, parked) = mpsc::channel::<()>();
    let blocker = rt.spawn(async move {
        started_tx.send(()).unwrap();
        parked
            .recv_timeout(HANG)
            .expect("the spawner released this worker");
    });
    started.recv_timeout(HANG).expect("the blocker started");
    let inside = metrics.clone();
    let (done_tx, done) = mpsc::channel();
    let done = rt
        .block_on(rt.spawn(async move {
            for _ in 0..1000 {
                let done_tx = done_tx.clone();
                drop(rt::spawn(async move { done_tx.send(()).unwrap() }));
            }
            // At 256 queued, 129 go to the global queue: at spawns 258,
            // 387, ... 903.
            let overflows: u64 = (0..2).map(|w| inside.worker_overflow_count(w)).sum();
            assert_eq!(overflows, 6);
            assert_eq!(inside.global_queue_depth(), 6 * 129);
            // The freed worker runs all but the LIFO slot's child, from
            // this worker's queue and the global one, while this one
            // blocks.
            release.send(()).unwrap();
            block_until(&done, 999);
            done
        }))
        .unwrap();
    block_until(&done, 1);
    rt.block_on(blocker).unwrap();
    wait_until("the last child ran", || metrics.num_alive_tasks() == 0);
    assert_eq!(metrics.global_queue_depth(), 0);
}

#[test]
fn yielded_tasks_going_back_to_the_queue_respect_its_bound() {
    // One worker, 1000 tasks yielding over and over: the yielded ones go
    // back to the local queue in rounds (every maintenance tick, and when
    // the queue and the global queue are empty), and a round that finds
    // the queue nearly full overflows like a spawn does.
    let rt = Kind::MultiThread(1).build();
    let metrics = rt.metrics();
    let (done_tx, done) = mpsc::channel();
    let (depth_tx, depths) = mpsc::channel();
    rt.block_on(rt.spawn({
        let metrics = metrics.clone();
        async move {
            for _ in 0..1000 {
                let done_tx = done_tx.clone();
                let depth_tx = depth_tx.clone();
                let metrics = metrics.clone();
                drop(rt::spawn(async move {
                    for _ in 0..20 {
                        depth_tx.send(metrics.worker_local_queue_depth(0)).unwrap();
                        rt::task::yield_now().await;
                    }
                    done_tx.send(()).unwrap();
                }));
            }
        }
    }))
    .unwrap();
    block_until(&done, 1000);
    drop(rt);
    let deepest = depths.try_iter().max().expect("the tasks ran");
    assert!(deepest <= 256, "the local queue held {deepest} tasks");
    assert!(
        deepest > 200,
        "the queue never filled ({deepest}): the test lost its point"
    );
}

#[test]
fn a_current_thread_queue_never_overflows() {
    let rt = Kind::CurrentThread.build();
    rt.block_on(async {
        for _ in 0..1000 {
            drop(rt::spawn(async {}));
        }
        rt::task::yield_now().await;
    });
    assert_eq!(rt.metrics().worker_overflow_count(0), 0);
}

/// A worker that never runs out of work never parks; its busy time still
/// grows while it runs (tokio adds it at each maintenance tick), or a
/// saturated runtime would look idle to whoever reads it.
#[test]
fn busy_time_grows_while_a_worker_never_parks() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    for rt in single_pollers() {
        let metrics = rt.metrics();
        let stop = Arc::new(AtomicBool::new(false));
        let (started_tx, started) = mpsc::channel();
        let busy = {
            let stop = stop.clone();
            // A chain of children, each awaited: the worker always has
            // the next one or its parent to run.
            async move {
                started_tx.send(()).unwrap();
                while !stop.load(Ordering::Relaxed) {
                    rt::spawn(async {}).await.unwrap();
                }
            }
        };
        let driver = {
            let rt_handle = rt.handle().clone();
            std::thread::spawn(move || rt_handle.block_on(rt_handle.spawn(busy)).unwrap())
        };
        started.recv_timeout(HANG).expect("the busy task started");
        let before = metrics.worker_total_busy_duration(0);
        wait_until("the busy time grows", || {
            metrics.worker_total_busy_duration(0) > before
        });
        stop.store(true, Ordering::Relaxed);
        driver.join().unwrap();
    }
}

/// Tasks a current-thread `block_on` left queued when it returned wait
/// for the next one: its local queue depth says so until then, and 0 once
/// the runtime is gone and the tasks with it.
#[test]
fn current_thread_queue_depth_counts_tasks_left_queued_by_block_on() {
    let rt = Kind::CurrentThread.build();
    let metrics = rt.metrics();
    rt.block_on(async {
        for _ in 0..3 {
            drop(rt::spawn(async {}));
        }
    });
    assert_eq!(metrics.num_alive_tasks(), 3);
    assert_eq!(metrics.worker_local_queue_depth(0), 3);
    drop(rt);
    assert_eq!(metrics.worker_local_queue_depth(0), 0);
}

/// The blocking pool's gauges with its one thread busy and two calls
/// queued behind it, then idle; and a task aborted before its first poll
/// leaves `num_alive_tasks` (both schedulers).
#[test]
fn blocking_pool_gauges_and_aborted_tasks() {
    for mut builder in [Builder::new_current_thread(), Builder::new_multi_thread()] {
        let rt = builder.max_blocking_threads(1).build().unwrap();
        let metrics = rt.metrics();
        let (started_tx, started) = mpsc::channel();
        let (go_tx, go) = mpsc::channel::<()>();
        let first = rt.spawn_blocking(move || {
            started_tx.send(()).unwrap();
            go.recv_timeout(HANG).expect("released");
        });
        started.recv_timeout(HANG).expect("the first call started");
        let queued = [rt.spawn_blocking(|| {}), rt.spawn_blocking(|| {})];
        assert_eq!(metrics.num_blocking_threads(), 1);
        assert_eq!(metrics.num_idle_blocking_threads(), 0);
        assert_eq!(metrics.blocking_queue_depth(), 2);
        // Blocking calls are not tasks.
        assert_eq!(metrics.spawned_tasks_count(), 0);
        assert_eq!(metrics.num_alive_tasks(), 0);
        go_tx.send(()).unwrap();
        rt.block_on(first).unwrap();
        for call in queued {
            rt.block_on(call).unwrap();
        }
        assert_eq!(metrics.blocking_queue_depth(), 0);
        wait_until("the thread is idle", || {
            metrics.num_idle_blocking_threads() == 1
        });

        let task = rt.spawn(std::future::pending::<()>());
        task.abort();
        assert!(rt.block_on(task).unwrap_err().is_cancelled());
        assert_eq!(metrics.num_alive_tasks(), 0);
        assert_eq!(metrics.spawned_tasks_count(), 1);
    }
}

/// tokio's `num_blocking_threads` counts every thread the runtime started
/// beyond its workers, so the thread that took over a worker's tasks in
/// `block_in_place` is counted while it runs them. Before, rt left it
/// out (the pool does not count it against its cap) and said 0.
#[test]
fn a_thread_taking_over_from_block_in_place_counts_as_a_blocking_thread() {
    let rt = Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    let metrics = rt.metrics();
    assert_eq!(metrics.num_blocking_threads(), 0);
    let (blocked_tx, blocked_rx) = mpsc::channel::<()>();
    let (release_tx, release_rx) = mpsc::channel::<()>();
    let blocker = rt.spawn(async move {
        rt::task::block_in_place(|| {
            blocked_tx.send(()).unwrap();
            release_rx.recv().unwrap();
        })
    });
    blocked_rx.recv().unwrap();
    // The only core now runs on the new thread: a task completing shows
    // that thread has taken it over (and counted itself).
    rt.block_on(rt.spawn(async {})).unwrap();
    assert_eq!(metrics.num_blocking_threads(), 1);
    release_tx.send(()).unwrap();
    rt.block_on(blocker).unwrap();
}

/// On a `LocalRuntime`, tasks spawned with `spawn_local` are the
/// runtime's tasks, as in tokio: spawned, alive and polled on its one
/// worker. Before, the runtime's metrics left them out (they live in the
/// runtime's local set) and said 0.
#[test]
fn local_runtime_metrics_count_spawn_local_tasks() {
    let rt = Builder::new_current_thread().build_local().unwrap();
    let metrics = rt.metrics();
    let (release_tx, release_rx) = futures_channel::oneshot::channel::<()>();
    let waiting = rt.spawn_local(async move { release_rx.await.unwrap() });
    let yielding = rt.spawn_local(async { rt::task::yield_now().await });
    rt.block_on(yielding).unwrap();
    assert_eq!(metrics.spawned_tasks_count(), 2);
    assert_eq!(metrics.num_alive_tasks(), 1, "the task still waiting");
    // `waiting` polled once, `yielding` twice.
    assert_eq!(metrics.worker_poll_count(0), 3);
    release_tx.send(()).unwrap();
    rt.block_on(waiting).unwrap();
    assert_eq!(metrics.num_alive_tasks(), 0);
    assert_eq!(metrics.worker_poll_count(0), 4);
}
