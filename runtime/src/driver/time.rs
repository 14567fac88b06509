//! The time layer of the driver stack: an `rt_timer::Timer` on 1 ms ticks
//! counted from the runtime's start, read through the runtime's `Clock`.
//!
//! Parking through this layer (`Driver::park`):
//! 1. read the timer's next deadline, recording it as the one the driver
//!    sleeps until (so a timer registered meanwhile with an earlier
//!    deadline wakes the driver, see `rt_timer::Timer`);
//! 2. park the layer below with `min(timeout, time until that deadline)`;
//!    when the clock is paused and the park would only be waiting for a
//!    timer, instead poll the layer below without blocking and, if that
//!    poll released no waiter (readiness already reported by the OS, such
//!    as bytes a loopback peer wrote, is work the runtime has not seen
//!    yet) and nothing woke the driver, move the clock to the deadline
//!    (auto-advance) --
//!    unless blocking tasks are in flight: then wait for a wake-up without
//!    moving the clock, as the runtime is waiting on their results;
//! 3. fire every timer due by the clock's current tick.
//!
//! Deadlines round up to the next tick and the current time rounds down,
//! so a timer never fires before its deadline.

use crate::loom::sync::Arc;
use crate::loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use crate::time::clock::Clock;
use rt_timer::Timer;
use std::fmt;
use std::time::{Duration, Instant as StdInstant};

/// The tick length (`instant_of` assumes 1 ms).
const TICK: Duration = Duration::from_millis(1);
/// Ticks are capped here (millions of years) so tick arithmetic never
/// overflows; later deadlines are the same as "never" in practice.
const MAX_TICK: u64 = 1 << 62;

/// The whole ticks in `span`, the last partial one counted if `round_up`,
/// capped at `MAX_TICK`. From the seconds and the sub-second nanoseconds
/// apart (a second is a whole number of ticks), not `as_nanos`: its u128
/// division costs a library call on every sleep registered.
fn ticks_in(span: Duration, round_up: bool) -> u64 {
    const _: () = assert!(TICK.as_secs() == 0 && 1_000_000_000 % TICK.subsec_nanos() == 0);
    const TICK_NANOS: u32 = TICK.subsec_nanos();
    const TICKS_PER_SEC: u64 = 1_000_000_000 / TICK_NANOS as u64;
    let nanos = span.subsec_nanos();
    let mut part = u64::from(nanos / TICK_NANOS);
    if round_up && nanos % TICK_NANOS != 0 {
        part += 1;
    }
    span.as_secs()
        .saturating_mul(TICKS_PER_SEC)
        .saturating_add(part)
        .min(MAX_TICK)
}

/// The parking half of the time layer.
pub(crate) struct Driver {
    handle: Handle,
}

/// The shared half: the timer, the clock and the tick conversions. Cheap to
/// clone.
#[derive(Clone)]
pub(crate) struct Handle {
    inner: Arc<Inner>,
}

struct Inner {
    timer: Timer,
    clock: Clock,
    /// The instant of tick 0.
    start: StdInstant,
    /// Set by every unpark of the driver; cleared by an auto-advance
    /// decision, which must not advance the clock past work that a wake-up
    /// announced.
    unparked: AtomicBool,
    /// Blocking tasks in flight: while any runs, the paused clock does not
    /// auto-advance (the runtime is not idle, it waits for their results).
    inhibitors: AtomicUsize,
}

/// Held by a blocking task from its spawn until its result can be seen:
/// stops the paused clock from jumping ahead of that result. Let go by
/// `release` or, at the latest, by the drop.
pub(crate) struct AutoAdvanceInhibit {
    driver: crate::driver::Handle,
    held: AtomicBool,
}

impl AutoAdvanceInhibit {
    /// `None` when the runtime has no time driver.
    pub(crate) fn new(driver: &crate::driver::Handle) -> Option<AutoAdvanceInhibit> {
        let time = driver.time()?;
        time.inner.inhibitors.fetch_add(1, Ordering::AcqRel);
        Some(AutoAdvanceInhibit {
            driver: driver.clone(),
            held: AtomicBool::new(true),
        })
    }

    /// Lets the clock auto-advance again (as far as this hold goes); the
    /// second call and the drop after it do nothing.
    pub(crate) fn release(&self) {
        if !self.held.swap(false, Ordering::AcqRel) {
            return;
        }
        if let Some(time) = self.driver.time() {
            time.inner.inhibitors.fetch_sub(1, Ordering::AcqRel);
        }
        // The driver may be parked waiting for this result with timers
        // pending; let it reconsider auto-advancing.
        self.driver.unpark();
    }
}

impl Drop for AutoAdvanceInhibit {
    fn drop(&mut self) {
        self.release();
    }
}

impl fmt::Debug for AutoAdvanceInhibit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AutoAdvanceInhibit").finish_non_exhaustive()
    }
}

impl Driver {
    pub(crate) fn new(start_paused: bool, shards: usize) -> (Driver, Handle) {
        let clock = Clock::new(start_paused);
        let handle = Handle {
            inner: Arc::new(Inner {
                timer: Timer::with_shards(shards),
                start: clock.now(),
                clock,
                unparked: AtomicBool::new(false),
                inhibitors: AtomicUsize::new(0),
            }),
        };
        (
            Driver {
                handle: handle.clone(),
            },
            handle,
        )
    }

    /// Parks through `park_lower` (the layer below) until `timeout` or the
    /// next timer deadline, then fires the expired timers. `park_lower`
    /// returns `true` if its park released waiters (I/O readiness woke
    /// tasks).
    pub(crate) fn park(
        &mut self,
        timeout: Option<Duration>,
        park_lower: impl FnOnce(Option<Duration>) -> bool,
    ) {
        if timeout == Some(Duration::ZERO) {
            // A poll, not a park (a busy worker, a yield): no deadline to
            // sleep until, nor to record (`fire_expired` marks the driver
            // awake), so the shards are locked once, not twice.
            park_lower(timeout);
            self.handle.fire_expired();
            return;
        }
        let inner = &*self.handle.inner;
        let until_timer = inner.timer.park_deadline().map(|tick| {
            self.handle
                .instant_of(tick)
                .saturating_duration_since(inner.clock.now())
        });
        let requested = timeout;
        let timeout = match (timeout, until_timer) {
            (Some(timeout), Some(until)) => Some(timeout.min(until)),
            (timeout, None) => timeout,
            (None, until) => until,
        };
        let paused = inner.clock.is_paused();
        match timeout {
            // Paused, but blocking work is in flight: the clock stays put
            // until that work (or anything else) wakes the driver.
            Some(wait)
                if until_timer.is_some()
                    && paused
                    && !wait.is_zero()
                    && inner.inhibitors.load(Ordering::Acquire) > 0 =>
            {
                park_lower(requested);
            }
            Some(wait) if until_timer.is_some() && !wait.is_zero() && paused => {
                let released = park_lower(Some(Duration::ZERO));
                let woken = inner.unparked.swap(false, Ordering::AcqRel);
                if !released && !woken {
                    inner.clock.advance_by(wait);
                }
            }
            timeout => {
                park_lower(timeout);
            }
        }
        self.handle.fire_expired();
    }

    /// Fires every timer (their futures then report the shutdown).
    pub(crate) fn shutdown(&mut self) {
        self.handle.inner.timer.shutdown();
    }
}

impl Handle {
    pub(crate) fn timer(&self) -> &Timer {
        &self.inner.timer
    }

    pub(crate) fn clock(&self) -> &Clock {
        &self.inner.clock
    }

    /// The first tick at or after `deadline`.
    pub(crate) fn deadline_tick(&self, deadline: StdInstant) -> u64 {
        ticks_in(deadline.saturating_duration_since(self.inner.start), true)
    }

    /// The last tick at or before the clock's now.
    pub(crate) fn now_tick(&self) -> u64 {
        let since = self
            .inner
            .clock
            .now()
            .saturating_duration_since(self.inner.start);
        ticks_in(since, false)
    }

    pub(crate) fn instant_of(&self, tick: u64) -> StdInstant {
        self.inner
            .start
            .checked_add(Duration::from_millis(tick))
            .expect("rt: timer deadline overflows `Instant`")
    }

    /// How far `instant` is past tick 0 (zero before it).
    #[cfg(feature = "sim")]
    pub(crate) fn since_start(&self, instant: StdInstant) -> Duration {
        instant.saturating_duration_since(self.inner.start)
    }

    /// How far the clock is past tick 0.
    #[cfg(feature = "sim")]
    pub(crate) fn elapsed_since_start(&self) -> Duration {
        self.since_start(self.inner.clock.now())
    }

    /// Fires every timer due by the clock's current tick.
    pub(crate) fn fire_expired(&self) -> usize {
        self.inner.timer.fire(self.now_tick())
    }

    /// `true` if a timer may be due within `horizon` of the last firing
    /// (an entry on a coarse level of the wheel counts from when it moves
    /// down a level, so this may say yes early). For a caller that just
    /// turned the driver, which fired at the clock's now: no clock read,
    /// and no lock.
    pub(crate) fn due_within(&self, horizon: Duration) -> bool {
        let horizon = u64::try_from(horizon.as_nanos() / TICK.as_nanos()).unwrap_or(MAX_TICK);
        let timer = &self.inner.timer;
        timer
            .next_deadline()
            .is_some_and(|next| next <= timer.elapsed().saturating_add(horizon))
    }

    /// Records that the driver was unparked (see `Inner::unparked`).
    pub(crate) fn note_unpark(&self) {
        self.inner.unparked.store(true, Ordering::Release);
    }
}

impl fmt::Debug for Driver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("time::Driver").finish_non_exhaustive()
    }
}

impl fmt::Debug for Handle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("time::Handle")
            .field("timer", &self.inner.timer)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::{MAX_TICK, ticks_in};
    use std::time::Duration;

    #[test]
    fn ticks_in_rounds_a_partial_tick_up_only_when_asked() {
        let span = Duration::new(3, 1);
        assert_eq!(ticks_in(span, false), 3_000);
        assert_eq!(ticks_in(span, true), 3_001);
        let exact = Duration::from_millis(2_500);
        assert_eq!(ticks_in(exact, false), 2_500);
        assert_eq!(ticks_in(exact, true), 2_500);
        assert_eq!(ticks_in(Duration::ZERO, true), 0);
        assert_eq!(ticks_in(Duration::new(0, 999_999_999), true), 1_000);
        assert_eq!(ticks_in(Duration::new(0, 999_999_999), false), 999);
    }

    #[test]
    fn ticks_in_caps_huge_spans() {
        assert_eq!(ticks_in(Duration::MAX, true), MAX_TICK);
        assert_eq!(ticks_in(Duration::MAX, false), MAX_TICK);
        assert_eq!(
            ticks_in(Duration::from_secs(u64::MAX / 1_000), false),
            MAX_TICK
        );
    }
}
