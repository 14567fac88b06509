//! Deadlines on every level of the timer wheel (slots of 1, 64, 4096, ...
//! ticks, and beyond its 2^36-tick reach), on the paused clock, where the
//! clock jumps straight to each deadline: whole-millisecond timers must
//! complete exactly at their deadline, never a tick early or late, however
//! the wheel got there (cascades, a wheel left behind by a long idle
//! advance, resets, timeouts, intervals).

mod support;

use rt::time::{Instant, advance, interval, sleep, timeout};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Waker};
use support::{ms, paused};

/// The first tick of each level's slots, and the wheel's reach.
const LEVEL_SPANS: [u64; 7] = [1, 64, 4096, 262_144, 16_777_216, 1 << 30, 1 << 36];

/// A xorshift generator: the same seed gives the same run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number of milliseconds at, just before, just after, or below a
    /// level boundary.
    fn span(&mut self) -> u64 {
        let level = LEVEL_SPANS[(self.next() % LEVEL_SPANS.len() as u64) as usize];
        match self.next() % 4 {
            0 => level,
            1 => level - 1,
            2 => level + 1,
            _ => self.next() % (2 * level + 1),
        }
    }
}

/// Arms `sleep` (its first poll registers it) without waiting.
fn arm(sleep: &mut Pin<Box<rt::time::Sleep>>) {
    let _ = sleep.as_mut().poll(&mut Context::from_waker(Waker::noop()));
}

#[test]
fn level_boundaries_after_a_long_idle_advance() {
    // With nothing armed, `advance` leaves the wheel's own time behind;
    // the next timer is filed from where the wheel was.
    for idle in [
        (1 << 36) - 1,
        1 << 36,
        5 * 365 * 86_400_000,
        3 * (1 << 36) + 12_345,
    ] {
        for level in LEVEL_SPANS {
            for span in [level - 1, level, level + 1] {
                paused().block_on(async {
                    advance(ms(idle)).await;
                    let start = Instant::now();
                    sleep(ms(span)).await;
                    assert_eq!(start.elapsed(), ms(span), "{span} ms after {idle} ms idle");
                });
            }
        }
    }
}

#[test]
fn random_timers_on_every_level_complete_exactly_at_their_deadline() {
    for seed in 1..=24u64 {
        paused().block_on(async move {
            let tasks: Vec<_> = (0..8u64)
                .map(|task| rt::spawn(timer_rounds(Rng(seed * 1_000 + task + 1))))
                .collect();
            for task in tasks {
                task.await.unwrap();
            }
        });
    }
}

/// Six rounds of sleeps, resets, timeouts, intervals and cancelled
/// timers, each checked against the clock.
async fn timer_rounds(mut rng: Rng) {
    for _ in 0..6 {
        let start = Instant::now();
        match rng.next() % 5 {
            0 => {
                let span = rng.span();
                sleep(ms(span)).await;
                assert_eq!(start.elapsed(), ms(span), "sleep of {span} ms");
            }
            1 => {
                let (armed, reset) = (rng.span(), rng.span());
                let mut sleep = Box::pin(sleep(ms(armed)));
                arm(&mut sleep);
                sleep.as_mut().reset(start + ms(reset));
                sleep.await;
                assert_eq!(start.elapsed(), ms(reset), "{armed} ms reset to {reset} ms");
            }
            2 => {
                let (limit, span) = (rng.span(), rng.span());
                let result = timeout(ms(limit), sleep(ms(span))).await;
                assert_eq!(result.is_ok(), span <= limit);
                assert_eq!(
                    start.elapsed(),
                    ms(span.min(limit)),
                    "{span} ms in {limit} ms"
                );
            }
            3 => {
                let period = rng.span().max(1);
                let mut ticks = interval(ms(period));
                for n in 0..3 {
                    let due = ticks.tick().await;
                    assert_eq!(due, start + ms(period * n), "tick {n} of {period} ms");
                    assert_eq!(Instant::now(), due);
                }
            }
            _ => {
                let span = rng.span();
                let mut cancelled = Box::pin(sleep(ms(span + 5)));
                arm(&mut cancelled);
                drop(cancelled);
                sleep(ms(span)).await;
                assert_eq!(
                    start.elapsed(),
                    ms(span),
                    "sleep of {span} ms beside a cancelled one"
                );
            }
        }
    }
}
