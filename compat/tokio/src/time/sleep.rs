//! `Sleep`: rt's sleep in tokio's shape. A newtype because tokio's
//! `reset` takes `self: Pin<&mut Self>` (rt's `Sleep` is `Unpin` and
//! takes `&mut self`, which a pinned projection such as tokio-stream's
//! `me.deadline.reset(..)` cannot call), and because tokio's `Sleep` is
//! `!Unpin`: code that compiles against the facade must compile against
//! tokio, so it may not move a `Sleep` after polling it either.

use super::Instant;
use pin_project_lite::pin_project;
use std::fmt;
use std::future::Future;
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

/// Waits until `duration` has elapsed, on rt's timer wheel.
///
/// # Panics
///
/// Panics when the returned future is created outside an rt runtime, or
/// on one built without `enable_time`.
///
/// # Examples
///
/// ```
/// # #[cfg(feature = "rt")]
/// # {
/// let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
/// rt.block_on(async {
///     tokio::time::sleep(std::time::Duration::from_millis(1)).await;
/// });
/// # }
/// ```
#[track_caller]
pub fn sleep(duration: Duration) -> Sleep {
    Sleep::from(rt::time::sleep(duration))
}

/// Waits until `deadline`, on rt's timer wheel.
///
/// # Panics
///
/// As [`sleep`].
///
/// # Examples
///
/// ```
/// # #[cfg(feature = "rt")]
/// # {
/// use tokio::time::{Duration, Instant};
///
/// let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
/// rt.block_on(async {
///     let deadline = Instant::now() + Duration::from_millis(1);
///     tokio::time::sleep_until(deadline).await;
///     assert!(Instant::now() >= deadline);
/// });
/// # }
/// ```
#[track_caller]
pub fn sleep_until(deadline: Instant) -> Sleep {
    Sleep::from(rt::time::sleep_until(deadline))
}

pin_project! {
    /// The future of [`sleep`] and [`sleep_until`]: rt's `Sleep` with
    /// tokio's pinned `reset`, `!Unpin` as tokio's is (pin it with
    /// `tokio::pin!` or `Box::pin` to poll it by reference).
    ///
    /// # Examples
    ///
    /// ```
    /// # #[cfg(all(feature = "rt", feature = "test-util"))]
    /// # {
    /// use tokio::time::{Duration, Instant};
    ///
    /// let rt = tokio::runtime::Builder::new_current_thread()
    ///     .enable_time()
    ///     .start_paused(true)
    ///     .build()
    ///     .unwrap();
    /// rt.block_on(async {
    ///     let start = Instant::now();
    ///     let sleep = tokio::time::sleep(Duration::from_secs(5));
    ///     tokio::pin!(sleep);
    ///     sleep.as_mut().reset(start + Duration::from_secs(1));
    ///     sleep.as_mut().await;
    ///     assert_eq!(start.elapsed(), Duration::from_secs(1));
    ///     assert!(sleep.is_elapsed());
    /// });
    /// # }
    /// ```
    #[must_use = "futures do nothing unless you `.await` or poll them"]
    pub struct Sleep {
        inner: rt::time::Sleep,
        // tokio's `Sleep` is `!Unpin`; so is this one.
        #[pin]
        _pinned: PhantomPinned,
    }
}

impl Sleep {
    /// The instant this sleep completes at.
    ///
    /// # Examples
    ///
    /// ```
    /// # #[cfg(feature = "rt")]
    /// # {
    /// use tokio::time::{Duration, Instant};
    ///
    /// let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
    /// let _guard = rt.enter();
    /// let deadline = Instant::now() + Duration::from_secs(1);
    /// assert_eq!(tokio::time::sleep_until(deadline).deadline(), deadline);
    /// # }
    /// ```
    pub fn deadline(&self) -> Instant {
        self.inner.deadline()
    }

    /// Whether the sleep has completed.
    ///
    /// # Examples
    ///
    /// ```
    /// # #[cfg(feature = "rt")]
    /// # {
    /// let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
    /// let _guard = rt.enter();
    /// let sleep = tokio::time::sleep(std::time::Duration::from_secs(60));
    /// assert!(!sleep.is_elapsed());
    /// # }
    /// ```
    pub fn is_elapsed(&self) -> bool {
        self.inner.is_elapsed()
    }

    /// Moves the deadline, whether or not the sleep completed: it then
    /// completes again at `deadline` (at once if that has passed).
    ///
    /// # Examples
    ///
    /// See [`Sleep`].
    pub fn reset(self: Pin<&mut Self>, deadline: Instant) {
        self.project().inner.reset(deadline);
    }
}

impl Future for Sleep {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        Pin::new(self.project().inner).poll(cx)
    }
}

impl From<rt::time::Sleep> for Sleep {
    fn from(sleep: rt::time::Sleep) -> Sleep {
        Sleep {
            inner: sleep,
            _pinned: PhantomPinned,
        }
    }
}

impl From<Sleep> for rt::time::Sleep {
    fn from(sleep: Sleep) -> rt::time::Sleep {
        sleep.inner
    }
}

impl fmt::Debug for Sleep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}
