//! `sleep`, `sleep_until` and `Sleep`: ordering, cancellation on drop,
//! reset, budget, and the misuse panics. Paused clock unless noted, so
//! nothing waits for real time.

mod support;

use support::{CountingWaker, ms, paused};

use rt::runtime::Builder;
use rt::time::{Instant, sleep, sleep_until};
use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

#[test]
fn sleeps_complete_in_deadline_order() {
    let rt = paused();
    let order = rt.block_on(async {
        let order = Arc::new(Mutex::new(Vec::new()));
        let delays = [50u64, 10, 40, 20, 30, 10_000, 1, 3_600_000];
        let tasks: Vec<_> = delays
            .iter()
            .map(|&delay| {
                let order = order.clone();
                rt::spawn(async move {
                    sleep(ms(delay)).await;
                    order.lock().unwrap().push(delay);
                })
            })
            .collect();
        for task in tasks {
            task.await.unwrap();
        }
        Arc::try_unwrap(order).unwrap().into_inner().unwrap()
    });
    assert_eq!(order, [1, 10, 20, 30, 40, 50, 10_000, 3_600_000]);
}

#[test]
fn sleep_never_completes_before_its_deadline() {
    let rt = paused();
    rt.block_on(async {
        for delay in [0, 1, 2, 63, 64, 65, 4_095, 4_096, 100_000] {
            let deadline = Instant::now() + ms(delay);
            sleep_until(deadline).await;
            assert!(Instant::now() >= deadline);
        }
    });
}

#[test]
fn zero_and_past_deadlines_are_ready_at_once() {
    let rt = paused();
    rt.block_on(async {
        let start = Instant::now();
        sleep(Duration::ZERO).await;
        let mut past = sleep_until(start - ms(5));
        assert!(
            poll_fn(|cx| Poll::Ready(Pin::new(&mut past).poll(cx)))
                .await
                .is_ready()
        );
        assert!(past.is_elapsed());
        assert_eq!(Instant::now(), start, "no time passed");
    });
}

#[test]
fn a_deadline_that_passed_before_the_first_poll_completes_without_moving_time() {
    let rt = paused();
    rt.block_on(async {
        let start = Instant::now();
        let late = sleep(ms(10));
        let late_until = sleep_until(start + ms(12));
        rt::time::advance(ms(15)).await;
        // Both register on their first poll; the timer is already past
        // their ticks, so it fires them at once and the clock stays put.
        late.await;
        late_until.await;
        assert_eq!(Instant::now(), start + ms(15));
    });
}

#[test]
fn dropping_a_sleep_cancels_it_and_releases_its_waker() {
    let rt = paused();
    rt.block_on(async {
        let count = CountingWaker::new();
        let waker = count.waker();
        let mut cx = Context::from_waker(&waker);
        let mut sleeper = sleep(ms(10));
        assert!(Pin::new(&mut sleeper).poll(&mut cx).is_pending());
        assert_eq!(Arc::strong_count(&count), 3, "the timer holds a clone");
        drop(sleeper);
        assert_eq!(Arc::strong_count(&count), 2, "the timer let go of it");
        rt::time::advance(ms(20)).await;
        assert_eq!(count.count(), 0, "a cancelled timer never wakes");
    });
}

#[test]
fn a_polled_sleep_is_woken_once_when_it_fires() {
    let rt = paused();
    rt.block_on(async {
        let count = CountingWaker::new();
        let waker = count.waker();
        let mut cx = Context::from_waker(&waker);
        let mut sleeper = sleep(ms(10));
        assert!(Pin::new(&mut sleeper).poll(&mut cx).is_pending());
        rt::time::advance(ms(9)).await;
        assert_eq!(count.count(), 0);
        assert!(!sleeper.is_elapsed());
        rt::time::advance(ms(1)).await;
        assert_eq!(count.count(), 1);
        assert!(sleeper.is_elapsed());
        assert!(Pin::new(&mut sleeper).poll(&mut cx).is_ready());
        rt::time::advance(ms(100)).await;
        assert_eq!(count.count(), 1);
    });
}

#[test]
fn reset_moves_the_deadline_both_ways() {
    let rt = paused();
    rt.block_on(async {
        let start = Instant::now();
        let mut sleeper = sleep(ms(100));
        // Register, then move earlier.
        assert!(
            poll_fn(|cx| Poll::Ready(Pin::new(&mut sleeper).poll(cx)))
                .await
                .is_pending()
        );
        sleeper.reset(start + ms(30));
        (&mut sleeper).await;
        assert_eq!(Instant::now(), start + ms(30));
        // Reset after completion, later this time.
        sleeper.reset(start + ms(500));
        assert!(!sleeper.is_elapsed());
        (&mut sleeper).await;
        assert_eq!(Instant::now(), start + ms(500));
        assert_eq!(sleeper.deadline(), start + ms(500));
    });
}

#[test]
fn reset_before_the_first_poll() {
    let rt = paused();
    rt.block_on(async {
        let start = Instant::now();
        let mut sleeper = sleep(Duration::from_secs(3600));
        sleeper.reset(start + ms(7));
        sleeper.await;
        assert_eq!(Instant::now(), start + ms(7));
    });
}

#[test]
fn ready_sleeps_spend_the_budget_so_others_run() {
    let rt = paused();
    rt.block_on(async {
        let flag = Arc::new(AtomicBool::new(false));
        let setter = flag.clone();
        rt::spawn(async move { setter.store(true, Ordering::SeqCst) });
        let past = Instant::now();
        let mut rounds = 0u64;
        // Every sleep is ready at once; only the budget lets the spawned
        // task run on this single thread.
        while !flag.load(Ordering::SeqCst) {
            sleep_until(past).await;
            rounds += 1;
        }
        assert!(rounds >= 1);
    });
}

#[test]
fn sleeps_work_on_the_multi_thread_scheduler() {
    let rt = Builder::new_multi_thread()
        .worker_threads(2)
        .enable_time()
        .build()
        .unwrap();
    rt.block_on(async {
        let deadline = Instant::now() + ms(5);
        sleep_until(deadline).await;
        assert!(Instant::now() >= deadline);
    });
}

#[test]
#[should_panic(expected = "needs a running rt runtime")]
fn sleep_outside_a_runtime_panics() {
    drop(sleep(ms(1)));
}

#[test]
#[should_panic(expected = "Builder::enable_time()")]
fn sleep_without_the_time_driver_panics() {
    let rt = Builder::new_current_thread().build().unwrap();
    rt.block_on(async {
        sleep(ms(1)).await;
    });
}

#[test]
#[should_panic(expected = "Builder::enable_time()")]
fn sleep_without_the_time_driver_on_multi_thread_panics() {
    let rt = Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    let _guard = rt.enter();
    drop(sleep(ms(1)));
}

#[test]
#[should_panic(expected = "after its runtime shut down")]
#[allow(clippy::async_yields_async)] // the sleep is handed out on purpose, unawaited
fn polling_a_sleep_after_its_runtime_shut_down_panics() {
    let rt = Builder::new_current_thread().enable_time().build().unwrap();
    let mut sleeper = rt.block_on(async {
        let mut sleeper = sleep(Duration::from_secs(3600));
        let polled = poll_fn(|cx| Poll::Ready(Pin::new(&mut sleeper).poll(cx))).await;
        assert!(polled.is_pending());
        sleeper
    });
    drop(rt);
    let mut cx = Context::from_waker(Waker::noop());
    let _ = Pin::new(&mut sleeper).poll(&mut cx);
}

/// A sleep whose deadline has already passed is not elapsed until it is
/// polled (it never registers with the timer, so nothing else fires it),
/// also after a reset to a past deadline.
#[test]
fn a_sleep_already_due_is_elapsed_only_once_polled() {
    let rt = paused();
    rt.block_on(async {
        let mut sleep = sleep(Duration::ZERO);
        assert!(!sleep.is_elapsed());
        (&mut sleep).await;
        assert!(sleep.is_elapsed());
        sleep.reset(Instant::now());
        assert!(!sleep.is_elapsed(), "a reset sleep starts over");
        (&mut sleep).await;
        assert!(sleep.is_elapsed());
    });
}
