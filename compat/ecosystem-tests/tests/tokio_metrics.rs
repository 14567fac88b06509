//! tokio-metrics on rt through the facade: `TaskMonitor` instrumenting
//! tasks that sleep, yield and poll slowly on the paused clock (the
//! monitor times them with the facade's `tokio::time::Instant`, so every
//! duration is the clock's own and exact), and `RuntimeMonitor` reading the
//! facade's `RuntimeMetrics` (without `--cfg tokio_unstable` it reads the
//! stable ones: `num_workers`, `num_alive_tasks`, `global_queue_depth`,
//! `worker_park_count` and `worker_total_busy_duration`).

use rt_ecosystem_tests::{assert_rt_runs, bounded};
use std::time::Duration;
use tokio::sync::oneshot;
use tokio::time::{Instant, advance, sleep};
use tokio_metrics::{RuntimeMonitor, TaskMonitor};

const MS: Duration = Duration::from_millis(1);

#[tokio::test(start_paused = true)]
async fn task_monitor_sees_sleeps_yields_and_slow_polls() {
    let monitor = TaskMonitor::with_slow_poll_threshold(10 * MS);
    let mut intervals = monitor.intervals();

    // Instrumented, then first polled 20 ms later.
    let late = monitor.instrument(async {});
    advance(20 * MS).await;
    let task = tokio::spawn(late);
    assert_rt_runs(task.id());
    bounded("the late task", task).await.unwrap();
    let interval = intervals.next().unwrap();
    assert_eq!(interval.instrumented_count, 1);
    assert_eq!(interval.dropped_count, 1);
    assert_eq!(interval.first_poll_count, 1);
    assert_eq!(interval.total_first_poll_delay, 20 * MS);
    assert_eq!(interval.total_poll_count, 1);

    // Three sleeps of 100 ms: idle three times, 300 ms in all; woken and
    // polled at once each time.
    let start = Instant::now();
    let task = tokio::spawn(monitor.instrument(async {
        for _ in 0..3 {
            sleep(100 * MS).await;
        }
    }));
    assert_rt_runs(task.id());
    bounded("the sleeper", task).await.unwrap();
    assert_eq!(start.elapsed(), 300 * MS);
    let interval = intervals.next().unwrap();
    assert_eq!(interval.instrumented_count, 1);
    assert_eq!(interval.first_poll_count, 1);
    assert_eq!(interval.total_first_poll_delay, Duration::ZERO);
    assert_eq!(interval.total_poll_count, 4);
    assert_eq!(interval.total_idled_count, 3);
    assert_eq!(interval.total_idle_duration, 300 * MS);
    assert_eq!(interval.max_idle_duration, 100 * MS);
    assert_eq!(interval.total_scheduled_count, 3);
    assert_eq!(interval.total_scheduled_duration, Duration::ZERO);
    assert_eq!(interval.total_slow_poll_count, 0);

    // Five yields: woken during its own poll each time, never idle. Not
    // counted as scheduled: the monitor stores a wake's time as nanoseconds
    // since the task was instrumented, and takes 0 (the paused clock has
    // not moved since) for no wake; real tokio gives the same counts.
    let task = tokio::spawn(monitor.instrument(async {
        for _ in 0..5 {
            tokio::task::yield_now().await;
        }
    }));
    assert_rt_runs(task.id());
    bounded("the yielder", task).await.unwrap();
    let interval = intervals.next().unwrap();
    assert_eq!(interval.total_poll_count, 6);
    assert_eq!(interval.total_idled_count, 0);
    assert_eq!(interval.total_scheduled_count, 0);
    assert_eq!(interval.total_fast_poll_count, 6);

    // One slow poll: the clock moves 50 ms while the task is polled.
    let task = tokio::spawn(monitor.instrument(async {
        advance(50 * MS).await;
    }));
    bounded("the slow poller", task).await.unwrap();
    let interval = intervals.next().unwrap();
    assert_eq!(interval.total_slow_poll_count, 1);
    assert_eq!(interval.total_slow_poll_duration, 50 * MS);

    // Dropped before it is ever polled: instrumented and dropped, no poll.
    drop(monitor.instrument(async {}));
    let interval = intervals.next().unwrap();
    assert_eq!(
        (interval.instrumented_count, interval.dropped_count),
        (1, 1)
    );
    assert_eq!(interval.first_poll_count, 0);
    assert_eq!(interval.total_poll_count, 0);

    let all = monitor.cumulative();
    assert_eq!(all.instrumented_count, 5);
    assert_eq!(all.dropped_count, 5);
}

/// Instrumented tasks spread over the workers of a multi-thread runtime,
/// each polled once to wait for its channel and once more after the send:
/// the monitor's counts are exact whichever worker polled them (the
/// durations, on the real clock, are only checked to add up).
#[tokio::test(flavor = "multi_thread", worker_threads = 3)]
async fn task_monitor_across_workers() {
    const TASKS: u64 = 100;
    let monitor = TaskMonitor::new();
    let mut intervals = monitor.intervals();
    let mut tasks = Vec::new();
    for _ in 0..TASKS {
        let (tx, rx) = oneshot::channel::<()>();
        let task = tokio::spawn(monitor.instrument(async move { rx.await.unwrap() }));
        assert_rt_runs(task.id());
        tasks.push((tx, task));
    }
    // The monitor counts a poll once it has returned: when it has counted
    // all the first polls, every task is waiting (idle), so each send
    // wakes an idle task. (Nothing else signals that a poll returned.)
    bounded("the first polls", async {
        while monitor.cumulative().total_poll_count < TASKS {
            tokio::task::yield_now().await;
        }
    })
    .await;
    for (tx, task) in tasks {
        tx.send(()).unwrap();
        bounded("an instrumented task", task).await.unwrap();
    }
    let interval = intervals.next().unwrap();
    assert_eq!(interval.instrumented_count, TASKS);
    assert_eq!(interval.dropped_count, TASKS);
    assert_eq!(interval.first_poll_count, TASKS);
    assert_eq!(interval.total_poll_count, 2 * TASKS);
    assert_eq!(interval.total_idled_count, TASKS);
    assert_eq!(interval.total_scheduled_count, TASKS);
    assert_eq!(
        interval.total_fast_poll_count + interval.total_slow_poll_count,
        interval.total_poll_count
    );
    assert_eq!(
        interval.total_fast_poll_duration + interval.total_slow_poll_duration,
        interval.total_poll_duration
    );
    assert!(interval.max_idle_duration <= interval.total_idle_duration);
}

/// `n` tasks spawned and waiting on a channel each, with their senders.
fn spawn_waiting(n: usize) -> Vec<(oneshot::Sender<()>, tokio::task::JoinHandle<()>)> {
    (0..n)
        .map(|_| {
            let (tx, rx) = oneshot::channel::<()>();
            let task = tokio::spawn(async move { rx.await.unwrap() });
            assert_rt_runs(task.id());
            (tx, task)
        })
        .collect()
}

async fn finish(waiting: Vec<(oneshot::Sender<()>, tokio::task::JoinHandle<()>)>) {
    for (tx, task) in waiting {
        tx.send(()).unwrap();
        bounded("a waiting task", task).await.unwrap();
    }
}

/// A task that keeps its worker busy for 30 ms in one poll.
async fn busy_for_30_ms() {
    let task = tokio::spawn(async { std::thread::sleep(30 * MS) });
    assert_rt_runs(task.id());
    bounded("the busy task", task).await.unwrap();
}

#[tokio::test]
async fn runtime_monitor_current_thread() {
    let monitor = RuntimeMonitor::new(&tokio::runtime::Handle::current());
    let mut intervals = monitor.intervals();
    let interval = intervals.next().unwrap();
    assert_eq!(interval.workers_count, 1);
    assert_eq!(interval.live_tasks_count, 0);
    assert_eq!(interval.global_queue_depth, 0);

    let waiting = spawn_waiting(10);
    let interval = intervals.next().unwrap();
    assert_eq!(interval.live_tasks_count, 10);
    // Nothing ran between the two samples: `block_on` (the one worker)
    // neither parked nor recorded busy time.
    assert_eq!(interval.total_park_count, 0);
    assert_eq!(interval.total_busy_duration, Duration::ZERO);

    finish(waiting).await;
    busy_for_30_ms().await;
    // Waiting for a timer, `block_on` parks, recording its busy time.
    sleep(MS).await;
    let interval = intervals.next().unwrap();
    assert_eq!(interval.live_tasks_count, 0);
    assert!(interval.total_park_count >= 1, "{interval:?}");
    assert!(interval.total_busy_duration >= 30 * MS, "{interval:?}");
    // One worker: its values are the minimum and the maximum.
    assert_eq!(interval.max_park_count, interval.total_park_count);
    assert_eq!(interval.min_park_count, interval.total_park_count);
    assert_eq!(interval.max_busy_duration, interval.total_busy_duration);
    assert_eq!(interval.min_busy_duration, interval.total_busy_duration);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 3)]
async fn runtime_monitor_multi_thread() {
    let handle = tokio::runtime::Handle::current();
    let monitor = RuntimeMonitor::new(&handle);
    let busy_before: Duration = (0..3)
        .map(|worker| handle.metrics().worker_total_busy_duration(worker))
        .sum();
    let mut intervals = monitor.intervals();
    let interval = intervals.next().unwrap();
    assert_eq!(interval.workers_count, 3);
    assert_eq!(interval.live_tasks_count, 0);

    let waiting = spawn_waiting(10);
    assert_eq!(intervals.next().unwrap().live_tasks_count, 10);
    finish(waiting).await;
    busy_for_30_ms().await;

    // A worker records its busy time when it parks (or at a maintenance
    // tick, every few dozen polls): sampled every millisecond, as
    // tokio-metrics' users sample, the 30 ms show once the worker that ran
    // the task has gone idle.
    let (mut busy, mut parks) = (Duration::ZERO, 0);
    bounded("the busy time recorded", async {
        while busy < 30 * MS {
            sleep(MS).await;
            let interval = intervals.next().unwrap();
            assert_eq!(interval.workers_count, 3);
            assert_eq!(interval.live_tasks_count, 0);
            assert!(interval.max_busy_duration <= interval.total_busy_duration);
            assert!(interval.min_park_count <= interval.max_park_count);
            busy += interval.total_busy_duration;
            parks += interval.total_park_count;
        }
    })
    .await;
    // The worker parked to record it; and the intervals add up to no
    // more than the workers' totals since the monitor started.
    assert!(parks >= 1);
    let busy_now: Duration = (0..3)
        .map(|worker| handle.metrics().worker_total_busy_duration(worker))
        .sum();
    assert!(
        busy + busy_before <= busy_now,
        "{busy:?} + {busy_before:?} > {busy_now:?}"
    );
}
