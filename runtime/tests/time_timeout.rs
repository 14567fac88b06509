//! `timeout` and `timeout_at`.

mod support;

use support::{ms, paused};

use rt::runtime::Builder;
use rt::time::{Instant, error::Elapsed, sleep, timeout, timeout_at};
use std::future::pending;
use std::time::Duration;

#[test]
fn a_future_that_finishes_in_time_gives_its_value() {
    let rt = paused();
    rt.block_on(async {
        assert_eq!(timeout(ms(10), async { 42 }).await, Ok(42));
        let start = Instant::now();
        let value = timeout(ms(100), async {
            sleep(ms(30)).await;
            "done"
        })
        .await;
        assert_eq!(value, Ok("done"));
        assert_eq!(Instant::now(), start + ms(30));
    });
}

#[test]
fn a_future_that_is_too_slow_gives_elapsed_at_the_deadline() {
    let rt = paused();
    rt.block_on(async {
        let start = Instant::now();
        let result: Result<(), Elapsed> = timeout(ms(25), pending()).await;
        assert!(result.is_err());
        assert_eq!(Instant::now(), start + ms(25));
        let result = timeout_at(start + ms(60), sleep(ms(1_000))).await;
        assert!(result.is_err());
        assert_eq!(Instant::now(), start + ms(60));
    });
}

#[test]
fn a_ready_future_wins_even_with_a_zero_limit() {
    let rt = paused();
    rt.block_on(async {
        assert_eq!(timeout(Duration::ZERO, async { 1 }).await, Ok(1));
        let past = Instant::now() - ms(10);
        assert_eq!(timeout_at(past, async { 2 }).await, Ok(2));
        assert!(timeout(Duration::ZERO, pending::<()>()).await.is_err());
    });
}

#[test]
fn a_huge_limit_does_not_overflow() {
    let rt = paused();
    rt.block_on(async {
        assert_eq!(timeout(Duration::MAX, async { 3 }).await, Ok(3));
    });
}

#[test]
fn dropping_the_timeout_drops_the_inner_future() {
    struct SetOnDrop(std::sync::Arc<std::sync::atomic::AtomicBool>);
    impl Drop for SetOnDrop {
        fn drop(&mut self) {
            self.0.store(true, std::sync::atomic::Ordering::SeqCst);
        }
    }
    let rt = paused();
    rt.block_on(async {
        let dropped = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let guard = SetOnDrop(dropped.clone());
        let result = timeout(ms(5), async move {
            let _guard = guard;
            pending::<()>().await
        })
        .await;
        assert!(result.is_err());
        assert!(dropped.load(std::sync::atomic::Ordering::SeqCst));
    });
}

#[test]
fn timeouts_on_the_multi_thread_scheduler() {
    let rt = Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let slow = rt::spawn(async { timeout(ms(5), pending::<()>()).await });
        assert!(slow.await.unwrap().is_err());
        let fast = rt::spawn(async { timeout(Duration::from_secs(60), async { 9 }).await });
        assert_eq!(fast.await.unwrap(), Ok(9));
    });
}

#[test]
fn elapsed_converts_to_a_timed_out_io_error() {
    let rt = paused();
    let err = rt
        .block_on(async { timeout(ms(1), pending::<()>()).await })
        .unwrap_err();
    let io: std::io::Error = err.into();
    assert_eq!(io.kind(), std::io::ErrorKind::TimedOut);
}

#[test]
#[should_panic(expected = "needs a running rt runtime")]
fn timeout_outside_a_runtime_panics() {
    drop(timeout(ms(1), async {}));
}

/// A builder that is awaited through `IntoFuture`, as HTTP clients' request
/// builders are: `timeout` takes it as `.await` would.
struct Request(u32);

impl std::future::IntoFuture for Request {
    type Output = u32;
    type IntoFuture = std::future::Ready<u32>;

    fn into_future(self) -> Self::IntoFuture {
        std::future::ready(self.0 * 2)
    }
}

#[test]
fn timeout_takes_anything_into_future() {
    let rt = paused();
    rt.block_on(async {
        assert_eq!(timeout(ms(10), Request(21)).await, Ok(42));
        let limited: rt::time::Timeout<std::future::Ready<u32>> =
            timeout_at(Instant::now() + ms(10), Request(4));
        assert_eq!(limited.await, Ok(8));
    });
}

/// A timeout that has elapsed spends the task's budget like any timer, so
/// a loop of timeouts yields now and then and the other tasks run, as
/// tokio's does. It spent none: a task polling with a zero limit kept a
/// current-thread runtime to itself for good.
#[test]
fn elapsed_timeouts_spend_the_budget_so_others_run() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    paused().block_on(async {
        let ran = Arc::new(AtomicBool::new(false));
        let flag = ran.clone();
        rt::spawn(async move { flag.store(true, Ordering::SeqCst) });
        for _ in 0..10_000 {
            if ran.load(Ordering::SeqCst) {
                break;
            }
            let polled = timeout(Duration::ZERO, pending::<()>()).await;
            assert!(polled.is_err());
        }
        assert!(ran.load(Ordering::SeqCst), "the spawned task never ran");
    });
}

/// The other half: when the wrapped future spends the last of the budget,
/// the timeout still fires on that poll, or a future that always spends
/// it would never time out.
#[test]
fn a_timeout_fires_when_its_future_spent_the_whole_budget() {
    paused().block_on(async {
        let (tx, mut rx) = rt::sync::mpsc::unbounded_channel::<()>();
        let greedy = async move {
            loop {
                tx.send(()).unwrap();
                rx.recv().await.unwrap();
            }
        };
        assert!(timeout(Duration::ZERO, greedy).await.is_err());
    });
}
