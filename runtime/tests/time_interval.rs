//! `interval` and its missed-tick behaviours, on the paused clock.

mod support;

use support::{ms, paused};

use rt::runtime::Builder;
use rt::time::{Instant, MissedTickBehavior, interval, interval_at};
use std::time::Duration;

#[test]
fn ticks_follow_the_period_and_the_first_is_immediate() {
    let rt = paused();
    rt.block_on(async {
        let start = Instant::now();
        let mut ticker = interval(ms(10));
        for n in 0..5 {
            let due = ticker.tick().await;
            assert_eq!(due, start + ms(10 * n));
            assert_eq!(Instant::now(), due);
        }
    });
}

#[test]
fn interval_at_starts_at_the_given_instant() {
    let rt = paused();
    rt.block_on(async {
        let start = Instant::now() + ms(100);
        let mut ticker = interval_at(start, ms(7));
        assert_eq!(ticker.tick().await, start);
        assert_eq!(ticker.tick().await, start + ms(7));
    });
}

/// Ticks once, then falls behind by 35 ms (three and a half periods).
async fn fall_behind(behavior: MissedTickBehavior) -> (Instant, rt::time::Interval) {
    let start = Instant::now();
    let mut ticker = interval(ms(10));
    ticker.set_missed_tick_behavior(behavior);
    assert_eq!(ticker.tick().await, start);
    rt::time::advance(ms(35)).await;
    (start, ticker)
}

#[test]
fn burst_catches_up_at_once_then_keeps_the_schedule() {
    let rt = paused();
    rt.block_on(async {
        let (start, mut ticker) = fall_behind(MissedTickBehavior::Burst).await;
        let late = Instant::now();
        for n in 1..=3 {
            assert_eq!(ticker.tick().await, start + ms(10 * n));
            assert_eq!(Instant::now(), late, "missed ticks complete at once");
        }
        assert_eq!(ticker.tick().await, start + ms(40));
        assert_eq!(Instant::now(), start + ms(40));
    });
}

#[test]
fn delay_ticks_once_then_restarts_the_period_from_now() {
    let rt = paused();
    rt.block_on(async {
        let (start, mut ticker) = fall_behind(MissedTickBehavior::Delay).await;
        assert_eq!(ticker.tick().await, start + ms(10));
        assert_eq!(ticker.tick().await, start + ms(45));
        assert_eq!(ticker.tick().await, start + ms(55));
    });
}

#[test]
fn skip_ticks_once_then_rejoins_the_original_schedule() {
    let rt = paused();
    rt.block_on(async {
        let (start, mut ticker) = fall_behind(MissedTickBehavior::Skip).await;
        assert_eq!(ticker.tick().await, start + ms(10));
        assert_eq!(ticker.tick().await, start + ms(40));
        assert_eq!(ticker.tick().await, start + ms(50));
    });
}

#[test]
fn reset_restarts_from_now() {
    let rt = paused();
    rt.block_on(async {
        let start = Instant::now();
        let mut ticker = interval(ms(10));
        ticker.tick().await;
        rt::time::advance(ms(4)).await;
        ticker.reset();
        assert_eq!(ticker.tick().await, start + ms(14));
    });
}

#[test]
fn a_late_burst_on_the_real_clock_catches_up_without_waiting() {
    // Real clock: the ticker is created with a start far in the past, so
    // every tick up to now is missed; Burst completes them all at once
    // (the test would take minutes otherwise).
    let rt = Builder::new_current_thread().enable_time().build().unwrap();
    rt.block_on(async {
        let start = Instant::now() - Duration::from_secs(60);
        let mut ticker = interval_at(start, ms(100));
        for n in 0..500 {
            assert_eq!(ticker.tick().await, start + ms(100 * n));
        }
    });
}

#[test]
#[should_panic(expected = "non-zero period")]
fn a_zero_period_panics() {
    let rt = paused();
    rt.block_on(async {
        let _ = interval(Duration::ZERO);
    });
}

/// `Duration::MAX` as a period: the first tick comes (late, so the
/// missed-tick arithmetic runs too), the next one never does, and
/// `reset` schedules it "never" as well; nothing overflows.
#[test]
fn an_interval_of_duration_max_ticks_once_then_never() {
    let rt = paused();
    rt.block_on(async {
        let a_year = Duration::from_secs(365 * 24 * 3600);
        for behavior in [
            MissedTickBehavior::Burst,
            MissedTickBehavior::Delay,
            MissedTickBehavior::Skip,
        ] {
            let start = Instant::now();
            let mut ticker = interval(Duration::MAX);
            ticker.set_missed_tick_behavior(behavior);
            rt::time::advance(ms(50)).await;
            assert_eq!(ticker.tick().await, start, "{behavior:?}");
            let next = rt::time::timeout(a_year, ticker.tick()).await;
            assert!(next.is_err(), "{behavior:?}: a second tick came");
            ticker.reset();
            let next = rt::time::timeout(a_year, ticker.tick()).await;
            assert!(next.is_err(), "{behavior:?}: a tick came after reset");
        }
    });
}

#[test]
fn reset_variants_move_the_next_tick() {
    let rt = paused();
    rt.block_on(async {
        let mut ticker = interval(ms(100));
        ticker.tick().await;
        let now = Instant::now();
        ticker.reset_immediately();
        assert_eq!(ticker.tick().await, now);
        assert_eq!(ticker.tick().await, now + ms(100), "the period goes on");
        ticker.reset_after(ms(7));
        let after = Instant::now() + ms(7);
        assert_eq!(ticker.tick().await, after);
        let at = Instant::now() + ms(30);
        ticker.reset_at(at);
        assert_eq!(ticker.tick().await, at);
        assert_eq!(ticker.tick().await, at + ms(100));
    });
}
