//! Timers from many tasks on many workers, on the real clock: short
//! durations, and only completion / never-early assertions (no elapsed-time
//! bounds, the machine is noisy). Plus timers firing while every worker is
//! busy, on both schedulers.

use rt::runtime::Builder;
use rt::time::{Instant, interval, sleep, sleep_until, timeout};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

#[test]
fn many_tasks_sleeping_in_loops_on_many_workers_all_finish() {
    let rt = Builder::new_multi_thread()
        .worker_threads(4)
        .enable_all()
        .build()
        .unwrap();
    let finished = Arc::new(AtomicUsize::new(0));
    rt.block_on(async {
        let tasks: Vec<_> = (0..500u64)
            .map(|i| {
                let finished = finished.clone();
                rt::spawn(async move {
                    for round in 0..3u64 {
                        let deadline = Instant::now() + Duration::from_millis((i + round) % 7);
                        sleep_until(deadline).await;
                        assert!(Instant::now() >= deadline, "a timer fired early");
                    }
                    finished.fetch_add(1, Ordering::SeqCst);
                })
            })
            .collect();
        for task in tasks {
            task.await.unwrap();
        }
    });
    assert_eq!(finished.load(Ordering::SeqCst), 500);
}

#[test]
fn timers_registered_from_outside_wake_a_parked_driver() {
    let rt = Builder::new_multi_thread()
        .worker_threads(2)
        .enable_time()
        .build()
        .unwrap();
    // A far timer makes the driver sleep long; the short one registered
    // later from another task must wake it.
    let far = rt.spawn(async { sleep(Duration::from_secs(3600)).await });
    let near = rt.spawn(async {
        rt::task::yield_now().await;
        sleep(Duration::from_millis(3)).await;
        7
    });
    assert_eq!(rt.block_on(near).unwrap(), 7);
    far.abort();
    assert!(rt.block_on(far).unwrap_err().is_cancelled());
}

#[test]
fn timers_fire_while_the_only_worker_is_busy() {
    let rt = Builder::new_multi_thread()
        .worker_threads(1)
        .enable_time()
        .build()
        .unwrap();
    rt.block_on(async {
        let done = Arc::new(AtomicBool::new(false));
        let setter = done.clone();
        rt::spawn(async move {
            sleep(Duration::from_millis(2)).await;
            setter.store(true, Ordering::SeqCst);
        });
        // This task never lets the worker park: only the periodic driver
        // poll between tasks can fire the timer.
        let spinner = rt::spawn(async move {
            while !done.load(Ordering::SeqCst) {
                rt::task::yield_now().await;
            }
        });
        spinner.await.unwrap();
    });
}

#[test]
fn a_timer_fires_while_the_worker_that_left_the_driver_blocks() {
    // Two workers. The first timer wakes a task that then blocks its
    // worker's thread until the second timer's task signals it. The worker
    // that fired the first timer left the driver to run that task; the
    // other one was asleep on its condvar, and must take the driver over,
    // or the second timer never fires. Twenty runtimes, because which
    // worker holds the driver varies.
    for round in 0..20 {
        let rt = Builder::new_multi_thread()
            .worker_threads(2)
            .enable_time()
            .build()
            .unwrap();
        let (signal, signalled) = std::sync::mpsc::channel();
        rt.block_on(async {
            let blocker = rt::spawn(async move {
                sleep(Duration::from_millis(1)).await;
                // Blocks the worker thread on purpose (what a task must
                // not do, and what the runtime must survive).
                signalled
                    .recv_timeout(Duration::from_secs(30))
                    .unwrap_or_else(|e| panic!("round {round}: the second timer never fired: {e}"));
            });
            let signaller = rt::spawn(async move {
                sleep(Duration::from_millis(5)).await;
                signal.send(()).unwrap();
            });
            blocker.await.unwrap();
            signaller.await.unwrap();
        });
    }
}

#[test]
fn timers_fire_while_the_current_thread_runtime_is_busy() {
    let rt = Builder::new_current_thread().enable_time().build().unwrap();
    rt.block_on(async {
        let done = Arc::new(AtomicBool::new(false));
        let setter = done.clone();
        rt::spawn(async move {
            sleep(Duration::from_millis(2)).await;
            setter.store(true, Ordering::SeqCst);
        });
        while !done.load(Ordering::SeqCst) {
            rt::task::yield_now().await;
        }
    });
}

#[test]
fn intervals_and_timeouts_across_workers() {
    let rt = Builder::new_multi_thread()
        .worker_threads(3)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let tasks: Vec<_> = (0..20)
            .map(|_| {
                rt::spawn(async {
                    let mut ticker = interval(Duration::from_millis(1));
                    let mut last = ticker.tick().await;
                    for _ in 0..5 {
                        let due = ticker.tick().await;
                        assert!(due > last, "ticks move forward");
                        last = due;
                    }
                    timeout(Duration::from_millis(2), std::future::pending::<()>())
                        .await
                        .is_err()
                })
            })
            .collect();
        for task in tasks {
            assert!(task.await.unwrap());
        }
    });
}

#[test]
fn dropping_the_runtime_with_pending_timers_is_clean() {
    let rt = Builder::new_multi_thread()
        .worker_threads(2)
        .enable_time()
        .build()
        .unwrap();
    let started = Arc::new(AtomicUsize::new(0));
    for _ in 0..50 {
        let started = started.clone();
        rt.spawn(async move {
            started.fetch_add(1, Ordering::SeqCst);
            sleep(Duration::from_secs(3600)).await;
        });
    }
    rt.block_on(async {
        while started.load(Ordering::SeqCst) < 50 {
            rt::task::yield_now().await;
        }
    });
    drop(rt);
}

/// `shutdown_background` (or a `shutdown_timeout` that runs out) does not
/// wait for a worker stuck in a poll; the task is cancelled once that poll
/// returns. Until then the task goes on, and a timer it armed earlier must
/// look pending, as in tokio: it used to panic as a timer polled after its
/// runtime shut down, a misuse the task never made.
#[test]
fn a_task_caught_mid_poll_by_shutdown_sees_its_timer_pending() {
    let rt = Builder::new_multi_thread()
        .worker_threads(1)
        .enable_time()
        .build()
        .unwrap();
    let (in_poll_tx, in_poll_rx) = std::sync::mpsc::channel();
    let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
    let (polled_tx, polled_rx) = std::sync::mpsc::channel();
    let task = rt.spawn(async move {
        let mut armed = Box::pin(sleep(Duration::from_secs(3600)));
        assert!(is_pending_once(&mut armed));
        in_poll_tx.send(()).unwrap();
        // Blocks the worker until the runtime has shut down.
        release_rx.recv().unwrap();
        let polled =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| is_pending_once(&mut armed)));
        polled_tx.send(polled.is_ok_and(|pending| pending)).unwrap();
        std::future::pending::<()>().await;
    });
    in_poll_rx.recv().unwrap();
    rt.shutdown_background();
    release_tx.send(()).unwrap();
    assert!(
        polled_rx.recv().unwrap(),
        "the armed timer did not poll pending"
    );
    let error = futures::executor::block_on(task).unwrap_err();
    assert!(error.is_cancelled(), "{error}");
}

/// Polls `sleep` once, with a waker that does nothing.
fn is_pending_once(sleep: &mut std::pin::Pin<Box<rt::time::Sleep>>) -> bool {
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    std::future::Future::poll(sleep.as_mut(), &mut cx).is_pending()
}
