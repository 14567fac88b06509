//! `Instant`: `std::time::Instant` read from the runtime's clock.

use std::fmt;
use std::ops::{Add, AddAssign, Sub, SubAssign};
use std::time::Duration;

/// A point in time on the runtime's clock: like `std::time::Instant`, but
/// when the current runtime's clock is paused ([`pause`](crate::time::pause))
/// it follows that clock. Convert to and from the std type freely.
///
/// # Examples
///
/// ```
/// use rt::time::Instant;
/// use std::time::Duration;
///
/// let start = Instant::now();
/// let later = start + Duration::from_millis(5);
/// assert_eq!(later - start, Duration::from_millis(5));
/// assert_eq!(later.duration_since(start), Duration::from_millis(5));
/// let std: std::time::Instant = later.into();
/// assert_eq!(Instant::from_std(std), later);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Instant {
    std: std::time::Instant,
}

impl Instant {
    /// The current instant (on the current runtime's clock, if it was
    /// paused; otherwise the system's monotonic clock).
    ///
    /// # Examples
    ///
    /// ```
    /// let a = rt::time::Instant::now();
    /// let b = rt::time::Instant::now();
    /// assert!(b >= a);
    /// ```
    pub fn now() -> Instant {
        Instant {
            std: crate::time::clock::now(),
        }
    }

    /// Wraps a `std::time::Instant`.
    ///
    /// # Examples
    ///
    /// ```
    /// let std = std::time::Instant::now();
    /// assert_eq!(rt::time::Instant::from_std(std).into_std(), std);
    /// ```
    pub fn from_std(std: std::time::Instant) -> Instant {
        Instant { std }
    }

    /// The `std::time::Instant` this is.
    ///
    /// # Examples
    ///
    /// ```
    /// let now = rt::time::Instant::now();
    /// let _std: std::time::Instant = now.into_std();
    /// ```
    pub fn into_std(self) -> std::time::Instant {
        self.std
    }

    /// The time from `earlier` to `self`, or zero if `earlier` is later.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// let a = rt::time::Instant::now();
    /// let b = a + Duration::from_secs(1);
    /// assert_eq!(b.duration_since(a), Duration::from_secs(1));
    /// assert_eq!(a.duration_since(b), Duration::ZERO);
    /// ```
    pub fn duration_since(&self, earlier: Instant) -> Duration {
        self.std.saturating_duration_since(earlier.std)
    }

    /// The time from `earlier` to `self`, or `None` if `earlier` is later.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// let a = rt::time::Instant::now();
    /// let b = a + Duration::from_secs(1);
    /// assert_eq!(a.checked_duration_since(b), None);
    /// ```
    pub fn checked_duration_since(&self, earlier: Instant) -> Option<Duration> {
        self.std.checked_duration_since(earlier.std)
    }

    /// Same as [`duration_since`](Instant::duration_since).
    ///
    /// # Examples
    ///
    /// ```
    /// let a = rt::time::Instant::now();
    /// assert_eq!(a.saturating_duration_since(a), std::time::Duration::ZERO);
    /// ```
    pub fn saturating_duration_since(&self, earlier: Instant) -> Duration {
        self.std.saturating_duration_since(earlier.std)
    }

    /// The time since `self`, on the same clock as [`Instant::now`].
    ///
    /// # Examples
    ///
    /// ```
    /// let start = rt::time::Instant::now();
    /// assert!(start.elapsed() < std::time::Duration::from_secs(3600));
    /// ```
    pub fn elapsed(&self) -> Duration {
        Instant::now().duration_since(*self)
    }

    /// `self + duration`, or `None` on overflow.
    ///
    /// # Examples
    ///
    /// ```
    /// let now = rt::time::Instant::now();
    /// assert!(now.checked_add(std::time::Duration::MAX).is_none());
    /// ```
    pub fn checked_add(&self, duration: Duration) -> Option<Instant> {
        self.std.checked_add(duration).map(Instant::from_std)
    }

    /// `self - duration`, or `None` on overflow.
    ///
    /// # Examples
    ///
    /// ```
    /// let now = rt::time::Instant::now();
    /// assert!(now.checked_sub(std::time::Duration::MAX).is_none());
    /// ```
    pub fn checked_sub(&self, duration: Duration) -> Option<Instant> {
        self.std.checked_sub(duration).map(Instant::from_std)
    }

    /// The deadline `duration` after `self` (the current instant); one
    /// that would overflow becomes about 30 years after `self`: "never".
    pub(crate) fn deadline_in(self, duration: Duration) -> Instant {
        Instant::from_std(far_capped_add(self.std, duration))
    }
}

/// How far "never" is: about 30 years.
const FAR_FUTURE: Duration = Duration::from_secs(86_400 * 365 * 30);

/// `instant + duration`, or [`FAR_FUTURE`] after `instant` where that would
/// overflow (`Duration::MAX`): the one way the crate adds a duration it
/// did not choose to an instant.
pub(crate) fn far_capped_add(
    instant: std::time::Instant,
    duration: Duration,
) -> std::time::Instant {
    instant
        .checked_add(duration)
        .unwrap_or_else(|| instant + FAR_FUTURE)
}

impl From<std::time::Instant> for Instant {
    fn from(std: std::time::Instant) -> Instant {
        Instant::from_std(std)
    }
}

impl From<Instant> for std::time::Instant {
    fn from(instant: Instant) -> std::time::Instant {
        instant.into_std()
    }
}

impl Add<Duration> for Instant {
    type Output = Instant;

    /// # Panics
    ///
    /// Panics on overflow; use [`Instant::checked_add`].
    fn add(self, duration: Duration) -> Instant {
        Instant::from_std(self.std + duration)
    }
}

impl AddAssign<Duration> for Instant {
    fn add_assign(&mut self, duration: Duration) {
        *self = *self + duration;
    }
}

impl Sub<Duration> for Instant {
    type Output = Instant;

    /// # Panics
    ///
    /// Panics on overflow; use [`Instant::checked_sub`].
    fn sub(self, duration: Duration) -> Instant {
        Instant::from_std(self.std - duration)
    }
}

impl SubAssign<Duration> for Instant {
    fn sub_assign(&mut self, duration: Duration) {
        *self = *self - duration;
    }
}

impl Sub<Instant> for Instant {
    type Output = Duration;

    /// Saturates to zero when `earlier` is later.
    fn sub(self, earlier: Instant) -> Duration {
        self.duration_since(earlier)
    }
}

impl fmt::Debug for Instant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.std.fmt(f)
    }
}
