//! The paused test clock: `start_paused`, `pause`, `resume`, `advance`, and
//! auto-advance when only timers are left. Nothing here waits for real
//! time: a one-hour sleep finishes at once.

mod support;

use support::paused;

use rt::runtime::Builder;
use rt::time::{Instant, advance, sleep, timeout};
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[test]
fn an_hour_long_sleep_finishes_instantly() {
    let rt = paused();
    rt.block_on(async {
        let start = Instant::now();
        sleep(Duration::from_secs(3600)).await;
        assert_eq!(start.elapsed(), Duration::from_secs(3600));
    });
}

#[test]
fn a_week_of_timeouts_in_a_loop() {
    let rt = paused();
    rt.block_on(async {
        let start = Instant::now();
        for _ in 0..7 {
            let day = Duration::from_secs(86_400);
            assert!(timeout(day, std::future::pending::<()>()).await.is_err());
        }
        assert_eq!(start.elapsed(), Duration::from_secs(7 * 86_400));
    });
}

#[test]
fn far_future_sleeps_beyond_the_wheel_range_are_not_lost() {
    let rt = paused();
    rt.block_on(async {
        let start = Instant::now();
        let five_years = Duration::from_secs(5 * 365 * 86_400);
        sleep(five_years).await;
        assert!(start.elapsed() >= five_years);
        assert!(start.elapsed() < five_years + Duration::from_millis(2));
    });
}

#[test]
fn the_clock_stands_still_while_paused() {
    let rt = paused();
    rt.block_on(async {
        let a = Instant::now();
        rt::task::yield_now().await;
        std::thread::yield_now();
        assert_eq!(Instant::now(), a);
    });
}

#[test]
fn advance_moves_the_clock_and_fires_due_timers() {
    let rt = paused();
    rt.block_on(async {
        let start = Instant::now();
        let fired = Arc::new(Mutex::new(Vec::new()));
        for delay in [5u64, 15, 25] {
            let fired = fired.clone();
            rt::spawn(async move {
                sleep(Duration::from_millis(delay)).await;
                fired.lock().unwrap().push(delay);
            });
        }
        rt::task::yield_now().await; // let the tasks register their timers
        advance(Duration::from_millis(16)).await;
        rt::task::yield_now().await;
        assert_eq!(*fired.lock().unwrap(), [5, 15]);
        assert_eq!(Instant::now(), start + Duration::from_millis(16));
    });
}

#[test]
fn pause_and_resume_at_run_time() {
    let rt = Builder::new_current_thread().enable_time().build().unwrap();
    rt.block_on(async {
        rt::time::pause();
        let frozen = Instant::now();
        advance(Duration::from_secs(10)).await;
        assert_eq!(Instant::now(), frozen + Duration::from_secs(10));
        rt::time::resume();
        assert!(Instant::now() >= frozen + Duration::from_secs(10));
        // Real time again: a short sleep still completes.
        sleep(Duration::from_millis(2)).await;
    });
}

#[test]
fn many_tasks_complete_in_deadline_order_deterministically() {
    let rt = paused();
    let order = rt.block_on(async {
        let order = Arc::new(Mutex::new(Vec::new()));
        let tasks: Vec<_> = (0..200u64)
            .map(|i| {
                let order = order.clone();
                // Distinct deadlines, spread over every wheel level.
                let delay = Duration::from_millis((i * 7_919) % 1_000_003 + i);
                rt::spawn(async move {
                    sleep(delay).await;
                    order.lock().unwrap().push(delay);
                })
            })
            .collect();
        for task in tasks {
            task.await.unwrap();
        }
        Arc::try_unwrap(order).unwrap().into_inner().unwrap()
    });
    let mut sorted = order.clone();
    sorted.sort();
    assert_eq!(order, sorted);
}

#[test]
#[should_panic(expected = "needs a current-thread runtime")]
fn pause_on_a_multi_thread_runtime_panics() {
    let rt = Builder::new_multi_thread()
        .worker_threads(1)
        .enable_time()
        .build()
        .unwrap();
    rt.block_on(async { rt::time::pause() });
}

#[test]
#[should_panic(expected = "already paused")]
fn pausing_twice_panics() {
    let rt = paused();
    rt.block_on(async { rt::time::pause() });
}

#[test]
#[should_panic(expected = "call `rt::time::pause()` first")]
fn advance_needs_paused_time() {
    let rt = Builder::new_current_thread().enable_time().build().unwrap();
    rt.block_on(advance(Duration::from_secs(1)));
}

#[test]
#[should_panic(expected = "not paused")]
fn resume_needs_paused_time() {
    let rt = Builder::new_current_thread().enable_time().build().unwrap();
    rt.block_on(async { rt::time::resume() });
}

/// A misuse panic in a task is caught with the task (its `JoinHandle`
/// reports it); the runtime goes on, and its clock must still work.
#[test]
fn a_misuse_panic_in_a_task_leaves_the_clock_working() {
    let rt = paused();
    rt.block_on(async {
        let twice = rt::spawn(async { rt::time::pause() }).await.unwrap_err();
        assert!(twice.is_panic());
        let start = Instant::now();
        sleep(Duration::from_secs(10)).await;
        assert_eq!(start.elapsed(), Duration::from_secs(10));

        rt::time::resume();
        let unpaused = rt::spawn(async { rt::time::resume() }).await.unwrap_err();
        assert!(unpaused.is_panic());
        let unpaused = rt::spawn(advance(Duration::from_secs(1)))
            .await
            .unwrap_err();
        assert!(unpaused.is_panic());
        rt::time::pause();
        let start = Instant::now();
        sleep(Duration::from_secs(10)).await;
        // Paused between ticks: the clock jumps to the tick after the deadline.
        let elapsed = start.elapsed();
        assert!(elapsed >= Duration::from_secs(10) && elapsed <= Duration::from_millis(10_001));
    });
}

#[test]
#[should_panic(expected = "Builder::enable_time()")]
fn pause_without_the_time_driver_panics() {
    let rt = Builder::new_current_thread().build().unwrap();
    rt.block_on(async { rt::time::pause() });
}

#[test]
#[should_panic(expected = "needs a current-thread runtime")]
fn start_paused_on_a_multi_thread_runtime_panics() {
    let _ = Builder::new_multi_thread().start_paused(true).build();
}

/// While a blocking task is in flight the runtime is not idle: the paused
/// clock must not jump to the next timer under it. The blocking closure
/// waits until the runtime has parked (it then has nothing to run but the
/// timer), then reads the clock: it must not have moved.
#[test]
fn blocking_work_in_flight_holds_auto_advance() {
    let parked = Arc::new((Mutex::new(false), std::sync::Condvar::new()));
    let on_park = parked.clone();
    let rt = Builder::new_current_thread()
        .start_paused(true)
        .on_thread_park(move || {
            *on_park.0.lock().unwrap() = true;
            on_park.1.notify_all();
        })
        .build()
        .unwrap();
    rt.block_on(async move {
        let start = Instant::now();
        let sleeper = rt::spawn(async { sleep(Duration::from_secs(3600)).await });
        let seen = rt::spawn_blocking(move || {
            let (flag, condvar) = &*parked;
            let mut has_parked = flag.lock().unwrap();
            while !*has_parked {
                has_parked = condvar.wait(has_parked).unwrap();
            }
            Instant::now()
        })
        .await
        .unwrap();
        assert_eq!(seen, start, "the clock advanced while blocking work ran");
        // With the blocking work done, the runtime idles on the timer alone
        // and auto-advance resumes.
        sleeper.await.unwrap();
        assert!(Instant::now() - start >= Duration::from_secs(3600));
    });
}

/// The hold on the clock lasts until the blocking task's result can be
/// seen, not only until its closure returned: the task's future is
/// dropped before its `JoinHandle` is woken, and a clock let go there
/// jumped to the next timer while the result was on its way (tokio's
/// `task_blocking::blocking_when_paused` failed that way in CI, one run
/// in many). Here the handle's waker holds the finishing pool thread
/// inside the wake-up, so that window stays open: the 1 ms timer beside
/// the handle must not fire. The waker waits for that timer for up to a
/// quarter of a second (a runtime that let the clock go fires it within
/// a few turns of its driver), then wakes the task.
#[test]
fn auto_advance_waits_until_the_blocking_result_is_delivered() {
    use std::sync::Condvar;
    use std::sync::mpsc;
    use std::task::{Context, Poll, Wake, Waker};

    /// Set when the timer fires; the held wake-up ends early then.
    type Fired = Arc<(Mutex<bool>, Condvar)>;

    struct HoldingWaker {
        task: Waker,
        fired: Fired,
    }

    impl Wake for HoldingWaker {
        fn wake(self: Arc<Self>) {
            self.wake_by_ref();
        }

        fn wake_by_ref(self: &Arc<Self>) {
            let (flag, condvar) = &*self.fired;
            let fired = flag.lock().unwrap();
            let _ = condvar
                .wait_timeout_while(fired, Duration::from_millis(250), |fired| !*fired)
                .unwrap();
            self.task.wake_by_ref();
        }
    }

    let rt = paused();
    rt.block_on(async {
        let fired: Fired = Arc::default();
        let (go, wait) = mpsc::channel::<()>();
        let mut handle = rt::spawn_blocking(move || {
            wait.recv().unwrap();
            7
        });
        let mut timer = std::pin::pin!(sleep(Duration::from_millis(1)));
        let mut holding: Option<Waker> = None;
        let outcome = std::future::poll_fn(|cx| {
            if timer.as_mut().poll(cx).is_ready() {
                *fired.0.lock().unwrap() = true;
                fired.1.notify_all();
                return Poll::Ready(Err("the timer fired before the result arrived"));
            }
            let waker = holding.get_or_insert_with(|| {
                Waker::from(Arc::new(HoldingWaker {
                    task: cx.waker().clone(),
                    fired: fired.clone(),
                }))
            });
            let polled = std::pin::Pin::new(&mut handle).poll(&mut Context::from_waker(waker));
            // The closure finishes only once its handle holds our waker.
            let _ = go.send(());
            match polled {
                Poll::Ready(result) => Poll::Ready(Ok(result.unwrap())),
                Poll::Pending => Poll::Pending,
            }
        })
        .await;
        assert_eq!(outcome, Ok(7));
    });
}

/// Advancing the paused clock by `Duration::MAX` moves it as far as
/// "never" is (where a `sleep(Duration::MAX)` ends), without overflowing.
#[test]
fn advance_by_duration_max_does_not_overflow() {
    let rt = paused();
    rt.block_on(async {
        let start = Instant::now();
        advance(Duration::MAX).await;
        assert!(start.elapsed() > Duration::from_secs(365 * 24 * 3600));
    });
}

/// Bytes already waiting on a socket are work: the paused clock must not
/// jump to the next timer while the reactor has a read to hand out (a
/// loopback write lands in the peer's queue at once, so the poll that
/// precedes an auto-advance sees it). A server's header-read timeout
/// would otherwise fire under a request that had already arrived.
#[test]
fn io_ready_when_the_runtime_idles_holds_auto_advance() {
    use rt::io::{AsyncReadExt, AsyncWriteExt};
    for pause_at_run_time in [false, true] {
        eprintln!("-- paused at run time: {pause_at_run_time}");
        let rt = Builder::new_current_thread()
            .enable_all()
            .start_paused(!pause_at_run_time)
            .build()
            .unwrap();
        rt.block_on(async {
            if pause_at_run_time {
                rt::time::pause();
            }
            let (mut client, mut server) = rt::net::UnixStream::pair().unwrap();
            let _timer = rt::spawn(sleep(Duration::from_secs(3600)));
            let start = Instant::now();
            for round in 0..100u8 {
                // The server task parks on the read first; then the
                // write makes it readable while nothing else can run.
                let reader = rt::spawn(async move {
                    let mut byte = [0u8; 1];
                    server.read_exact(&mut byte).await.unwrap();
                    (server, byte[0], Instant::now())
                });
                rt::task::yield_now().await;
                client.write_all(&[round]).await.unwrap();
                let (back, byte, read_at) = reader.await.unwrap();
                server = back;
                assert_eq!(byte, round);
                assert_eq!(read_at, start, "the clock jumped while a read was ready");
            }
        });
    }
}

/// A sleep made before the clock moved past its deadline, first polled
/// after that (never registered with the timer until then), is ready on
/// that first poll, as in tokio: tokio-util's `DelayQueue` polls its inner
/// sleep once after the caller's own sleep and expects its entries expired.
#[test]
fn a_sleep_first_polled_after_its_deadline_passed_is_ready_at_once() {
    use futures::FutureExt;

    let rt = paused();
    rt.block_on(async {
        let mut early = sleep(Duration::from_millis(10));
        sleep(Duration::from_millis(80)).await;
        assert!(!early.is_elapsed(), "not polled yet");
        assert_eq!((&mut early).now_or_never(), Some(()));
        assert!(early.is_elapsed());
        // A deadline exactly where the caller's own sleep ended.
        let mut exact = sleep(Duration::from_millis(64));
        sleep(Duration::from_millis(64)).await;
        assert_eq!((&mut exact).now_or_never(), Some(()));
    });
}

/// A sleep some task waits on, reset to a deadline that has already
/// passed, wakes that task (its next poll completes), as tokio's timer
/// fires such a reset at once: tokio-util's `DelayQueue::reset_at` relies
/// on it.
#[test]
fn resetting_a_waited_on_sleep_into_the_past_wakes_its_waiter() {
    let rt = paused();
    rt.block_on(async {
        let start = Instant::now();
        let waiter = support::CountingWaker::new();
        let mut sleep_a = Box::pin(sleep(Duration::from_millis(200)));
        assert!(waiter.poll(&mut sleep_a).is_pending());
        sleep(Duration::from_millis(80)).await;
        assert_eq!(waiter.count(), 0);
        sleep_a.as_mut().reset(start + Duration::from_millis(64));
        assert_eq!(waiter.count(), 1, "woken by the reset");
        assert!(waiter.poll(&mut sleep_a).is_ready());
    });
}

/// A task that yields is work: the clock must not jump while one is
/// runnable, whether it is a spawned task or a local one (a
/// `LocalRuntime`'s or a `LocalSet`'s), as in tokio.
#[test]
fn no_auto_advance_while_a_yielding_task_is_runnable() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    const ROUNDS: usize = 2_000;
    let yields = Arc::new(AtomicUsize::new(0));
    let yielding = |yields: Arc<AtomicUsize>| async move {
        for _ in 0..ROUNDS {
            yields.fetch_add(1, Ordering::SeqCst);
            rt::task::yield_now().await;
        }
    };
    let check = |yields: Arc<AtomicUsize>| async move {
        sleep(Duration::from_millis(10)).await;
        assert_eq!(
            yields.swap(0, Ordering::SeqCst),
            ROUNDS,
            "the clock jumped first"
        );
    };
    paused().block_on(async {
        let task = rt::spawn(yielding(yields.clone()));
        check(yields.clone()).await;
        task.await.unwrap();
    });
    let local = Builder::new_current_thread()
        .start_paused(true)
        .build_local()
        .unwrap();
    local.block_on(async {
        let task = rt::task::spawn_local(yielding(yields.clone()));
        check(yields.clone()).await;
        task.await.unwrap();
    });
    let set = rt::task::LocalSet::new();
    set.block_on(&paused(), async {
        let task = rt::task::spawn_local(yielding(yields.clone()));
        check(yields.clone()).await;
        task.await.unwrap();
    });
}
