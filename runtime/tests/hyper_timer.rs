//! `rt::hyper::Timer` as hyper uses it for its timeouts: `now()`, then
//! `sleep_until(now + timeout)`. Its `sleep_until` skips the clock read
//! `rt::time::sleep_until` makes to settle whether the deadline has
//! passed (hyper has just read the clock): these tests pin what that may
//! not change: a sleep never completes before its deadline, and one
//! whose deadline has passed completes without the clock moving, on both
//! schedulers.

use futures_util::FutureExt;
use hyper::rt::Timer as _;
use rt::hyper::Timer;
use std::time::Duration;

#[test]
fn a_sleep_never_completes_before_its_deadline() {
    let rt = rt::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .unwrap();
    rt.block_on(async {
        let timer = Timer::new();
        let deadline = timer.now() + Duration::from_millis(10);
        let mut sleep = timer.sleep_until(deadline);
        assert!(sleep.as_mut().now_or_never().is_none());
        rt::time::advance(Duration::from_millis(9)).await;
        assert!(sleep.as_mut().now_or_never().is_none());
        rt::time::advance(Duration::from_millis(1)).await;
        sleep.await;
        assert!(timer.now() >= deadline);
    });
}

#[test]
fn a_passed_deadline_completes_without_the_clock_moving() {
    let rt = rt::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .unwrap();
    rt.block_on(async {
        let timer = Timer::new();
        let deadline = timer.now();
        // Past the deadline, but the timer has not fired since.
        rt::time::advance(Duration::from_micros(1500)).await;
        let before = timer.now();
        timer.sleep_until(deadline).await;
        // Long past it, and the timer has fired since: completes by its
        // second poll (the first may only register it, and the timer then
        // fires it at once).
        rt::time::advance(Duration::from_secs(1)).await;
        let mut sleep = timer.sleep_until(deadline);
        if sleep.as_mut().now_or_never().is_none() {
            assert!(sleep.now_or_never().is_some());
        }
        assert_eq!(timer.now(), before + Duration::from_secs(1));
    });
}

#[test]
fn a_passed_deadline_completes_on_a_multi_thread_runtime() {
    let rt = rt::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_time()
        .build()
        .unwrap();
    rt.block_on(rt.spawn(async {
        let timer = Timer::new();
        let deadline = timer.now();
        timer.sleep_until(deadline).await;
        assert!(timer.now() >= deadline);
    }))
    .unwrap();
}
