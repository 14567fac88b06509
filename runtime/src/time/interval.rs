//! `interval`, `interval_at`, the `Interval` stream and its
//! `MissedTickBehavior`.

use crate::task::waits::Site;
use crate::time::clock::current_runtime;
use crate::time::{Instant, Sleep};
use std::fmt;
use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

/// A tick this much late or less counts as on time (the driver wakes a
/// little after the deadline on a real clock).
const LATENESS_TOLERANCE: Duration = Duration::from_millis(5);

/// A ticker that completes every `period`, the first tick at once.
///
/// # Panics
///
/// Panics if `period` is zero, when called outside a runtime, or on a
/// runtime built without the time driver (use `Builder::enable_time()`).
///
/// # Examples
///
/// ```
/// use std::time::Duration;
///
/// let rt = rt::runtime::Builder::new_current_thread().start_paused(true).build().unwrap();
/// rt.block_on(async {
///     let mut interval = rt::time::interval(Duration::from_secs(1));
///     let first = interval.tick().await;
///     let second = interval.tick().await;
///     assert_eq!(second - first, Duration::from_secs(1));
/// });
/// ```
#[track_caller]
pub fn interval(period: Duration) -> Interval {
    assert!(
        !period.is_zero(),
        "`rt::time::interval` needs a non-zero period"
    );
    Interval::new(Instant::now(), period, "rt::time::interval")
}

/// A ticker whose first tick completes at `start`, then every `period`.
///
/// # Panics
///
/// Panics if `period` is zero, when called outside a runtime, or on a
/// runtime built without the time driver (use `Builder::enable_time()`).
///
/// # Examples
///
/// ```
/// use rt::time::Instant;
/// use std::time::Duration;
///
/// let rt = rt::runtime::Builder::new_current_thread().start_paused(true).build().unwrap();
/// rt.block_on(async {
///     let start = Instant::now() + Duration::from_secs(3);
///     let mut interval = rt::time::interval_at(start, Duration::from_secs(1));
///     assert_eq!(interval.tick().await, start);
/// });
/// ```
#[track_caller]
pub fn interval_at(start: Instant, period: Duration) -> Interval {
    assert!(
        !period.is_zero(),
        "`rt::time::interval_at` needs a non-zero period"
    );
    Interval::new(start, period, "rt::time::interval_at")
}

/// What an [`Interval`] does after ticks were missed (the task came back
/// to `tick` later than a whole period after a deadline).
///
/// # Examples
///
/// ```
/// use rt::time::MissedTickBehavior;
/// assert_eq!(MissedTickBehavior::default(), MissedTickBehavior::Burst);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MissedTickBehavior {
    /// Complete the missed ticks at once, one per `tick`, until caught up:
    /// the ticks keep their original schedule `start + n * period`.
    #[default]
    Burst,
    /// Complete one tick now, then tick every `period` from now on.
    Delay,
    /// Complete one tick now, then skip to the next tick of the original
    /// schedule that is still in the future.
    Skip,
}

impl MissedTickBehavior {
    /// The deadline after a tick due at `missed` was taken late, at `now`
    /// ("never", not an overflow, for a huge period).
    fn next(self, missed: Instant, now: Instant, period: Duration) -> Instant {
        match self {
            MissedTickBehavior::Burst => missed.deadline_in(period),
            MissedTickBehavior::Delay => now.deadline_in(period),
            MissedTickBehavior::Skip => {
                let late = (now - missed).as_nanos() % period.as_nanos();
                // `late < period`, which is a `Duration`, so it fits.
                now.deadline_in(period - Duration::from_nanos(late as u64))
            }
        }
    }
}

/// The ticker of [`interval`] and [`interval_at`].
///
/// # Examples
///
/// ```
/// use rt::time::MissedTickBehavior;
/// use std::time::Duration;
///
/// let rt = rt::runtime::Builder::new_current_thread().start_paused(true).build().unwrap();
/// rt.block_on(async {
///     let mut interval = rt::time::interval(Duration::from_millis(10));
///     interval.set_missed_tick_behavior(MissedTickBehavior::Skip);
///     assert_eq!(interval.period(), Duration::from_millis(10));
///     for _ in 0..3 {
///         interval.tick().await;
///     }
/// });
/// ```
pub struct Interval {
    delay: Sleep,
    period: Duration,
    missed_tick_behavior: MissedTickBehavior,
}

impl Interval {
    #[track_caller]
    fn new(start: Instant, period: Duration, what: &str) -> Interval {
        Interval {
            delay: Sleep::new(start, Instant::now(), current_runtime(what)),
            period,
            missed_tick_behavior: MissedTickBehavior::default(),
        }
    }

    /// Waits for the next tick; returns the instant it was due.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let rt = rt::runtime::Builder::new_current_thread().start_paused(true).build().unwrap();
    /// rt.block_on(async {
    ///     let mut interval = rt::time::interval(Duration::from_secs(60));
    ///     let start = interval.tick().await;
    ///     assert_eq!(interval.tick().await, start + Duration::from_secs(60));
    /// });
    /// ```
    #[track_caller]
    pub fn tick(&mut self) -> impl Future<Output = Instant> {
        let site = Site::here("Interval::tick");
        // `!Unpin`, as tokio's `async fn tick` is.
        async move { poll_fn(|cx| site.pending(self.poll_tick(cx))).await }
    }

    /// Polls for the next tick: `Ready(due instant)` once it is due, else
    /// `Pending` (and the task is woken when it is). Spends cooperative
    /// budget like any timer.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let rt = rt::runtime::Builder::new_current_thread().start_paused(true).build().unwrap();
    /// rt.block_on(async {
    ///     let mut interval = rt::time::interval(Duration::from_secs(1));
    ///     let first = std::future::poll_fn(|cx| interval.poll_tick(cx)).await;
    ///     assert!(first <= rt::time::Instant::now());
    /// });
    /// ```
    pub fn poll_tick(&mut self, cx: &mut Context<'_>) -> Poll<Instant> {
        ready!(Pin::new(&mut self.delay).poll(cx));
        let due = self.delay.deadline();
        let now = Instant::now();
        let next = if now.saturating_duration_since(due) > LATENESS_TOLERANCE {
            self.missed_tick_behavior.next(due, now, self.period)
        } else {
            due.deadline_in(self.period)
        };
        self.delay.reset_at(next, now);
        Poll::Ready(due)
    }

    /// Restarts the schedule: the next tick is one `period` from now.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::time::Instant;
    /// use std::time::Duration;
    ///
    /// let rt = rt::runtime::Builder::new_current_thread().start_paused(true).build().unwrap();
    /// rt.block_on(async {
    ///     let mut interval = rt::time::interval(Duration::from_secs(1));
    ///     interval.tick().await;
    ///     rt::time::advance(Duration::from_millis(500)).await;
    ///     interval.reset();
    ///     let due = interval.tick().await;
    ///     assert_eq!(due, Instant::now());
    ///     assert_eq!(Instant::now() - due, Duration::ZERO);
    /// });
    /// ```
    pub fn reset(&mut self) {
        self.reset_after(self.period);
    }

    /// Restarts the schedule from now: the next tick is due at once, the
    /// ones after it every `period`.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::time::Instant;
    /// use std::time::Duration;
    ///
    /// let rt = rt::runtime::Builder::new_current_thread().start_paused(true).build().unwrap();
    /// rt.block_on(async {
    ///     let mut interval = rt::time::interval(Duration::from_secs(10));
    ///     interval.tick().await;
    ///     interval.reset_immediately();
    ///     let now = Instant::now();
    ///     assert_eq!(interval.tick().await, now);
    /// });
    /// ```
    pub fn reset_immediately(&mut self) {
        self.reset_after(Duration::ZERO);
    }

    /// Restarts the schedule: the next tick is due `after` from now, the
    /// ones after it every `period`.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::time::Instant;
    /// use std::time::Duration;
    ///
    /// let rt = rt::runtime::Builder::new_current_thread().start_paused(true).build().unwrap();
    /// rt.block_on(async {
    ///     let mut interval = rt::time::interval(Duration::from_secs(10));
    ///     interval.tick().await;
    ///     let start = Instant::now();
    ///     interval.reset_after(Duration::from_secs(3));
    ///     assert_eq!(interval.tick().await, start + Duration::from_secs(3));
    /// });
    /// ```
    pub fn reset_after(&mut self, after: Duration) {
        self.delay.reset(Instant::now().deadline_in(after));
    }

    /// Restarts the schedule: the next tick is due at `deadline` (at once
    /// if it has passed), the ones after it every `period`.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::time::Instant;
    /// use std::time::Duration;
    ///
    /// let rt = rt::runtime::Builder::new_current_thread().start_paused(true).build().unwrap();
    /// rt.block_on(async {
    ///     let mut interval = rt::time::interval(Duration::from_secs(10));
    ///     let deadline = Instant::now() + Duration::from_secs(1);
    ///     interval.reset_at(deadline);
    ///     assert_eq!(interval.tick().await, deadline);
    /// });
    /// ```
    pub fn reset_at(&mut self, deadline: Instant) {
        self.delay.reset(deadline);
    }

    /// The current missed-tick behaviour (default [`MissedTickBehavior::Burst`]).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let _guard = rt.enter();
    /// let interval = rt::time::interval(std::time::Duration::from_secs(1));
    /// assert_eq!(interval.missed_tick_behavior(), rt::time::MissedTickBehavior::Burst);
    /// ```
    pub fn missed_tick_behavior(&self) -> MissedTickBehavior {
        self.missed_tick_behavior
    }

    /// Sets what happens after missed ticks.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::time::MissedTickBehavior;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let _guard = rt.enter();
    /// let mut interval = rt::time::interval(std::time::Duration::from_secs(1));
    /// interval.set_missed_tick_behavior(MissedTickBehavior::Delay);
    /// assert_eq!(interval.missed_tick_behavior(), MissedTickBehavior::Delay);
    /// ```
    pub fn set_missed_tick_behavior(&mut self, behavior: MissedTickBehavior) {
        self.missed_tick_behavior = behavior;
    }

    /// The period between ticks.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let _guard = rt.enter();
    /// let interval = rt::time::interval(std::time::Duration::from_secs(2));
    /// assert_eq!(interval.period(), std::time::Duration::from_secs(2));
    /// ```
    pub fn period(&self) -> Duration {
        self.period
    }
}

impl fmt::Debug for Interval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Interval")
            .field("deadline", &self.delay.deadline())
            .field("period", &self.period)
            .field("missed_tick_behavior", &self.missed_tick_behavior)
            .finish()
    }
}
