//! `timeout`, `timeout_at` and `Timeout`: rt's, in tokio's shape. A newtype
//! because tokio's `Timeout` is `!Unpin` (rt's is `Unpin` when its future
//! is), so that code that compiles against the facade compiles against
//! tokio.

use super::{Duration, Instant, error::Elapsed};
use pin_project_lite::pin_project;
use std::fmt;
use std::future::{Future, IntoFuture};
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::task::{Context, Poll};

/// Runs `future` with a time limit: `Ok(output)` if it completes within
/// `duration`, `Err(Elapsed)` otherwise. The future is polled first, so a
/// ready one always wins.
///
/// # Panics
///
/// Panics when called outside a runtime, or on one built without
/// `enable_time`.
///
/// # Examples
///
/// ```
/// # #[cfg(feature = "rt")]
/// # {
/// use tokio::time::Duration;
///
/// let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
/// rt.block_on(async {
///     assert_eq!(tokio::time::timeout(Duration::from_secs(1), async { 7 }).await, Ok(7));
///     let never = std::future::pending::<()>();
///     assert!(tokio::time::timeout(Duration::from_millis(1), never).await.is_err());
/// });
/// # }
/// ```
#[track_caller]
pub fn timeout<F: IntoFuture>(duration: Duration, future: F) -> Timeout<F::IntoFuture> {
    Timeout::from(rt::time::timeout(duration, future))
}

/// Like [`timeout`], with a deadline instead of a duration.
///
/// # Panics
///
/// As [`timeout`].
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
///     let never = std::future::pending::<()>();
///     assert!(tokio::time::timeout_at(deadline, never).await.is_err());
///     assert!(Instant::now() >= deadline);
/// });
/// # }
/// ```
#[track_caller]
pub fn timeout_at<F: IntoFuture>(deadline: Instant, future: F) -> Timeout<F::IntoFuture> {
    Timeout::from(rt::time::timeout_at(deadline, future))
}

pin_project! {
    /// The future of [`timeout`] and [`timeout_at`]: rt's `Timeout`,
    /// `!Unpin` as tokio's is.
    ///
    /// # Examples
    ///
    /// ```
    /// # #[cfg(feature = "rt")]
    /// # {
    /// use tokio::time::Duration;
    ///
    /// let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
    /// rt.block_on(async {
    ///     // `!Unpin`: pinned to be polled by reference, as with tokio.
    ///     let limited = tokio::time::timeout(Duration::from_secs(1), async { 1 });
    ///     tokio::pin!(limited);
    ///     assert_eq!(limited.as_mut().await, Ok(1));
    /// });
    /// # }
    /// ```
    #[must_use = "futures do nothing unless you `.await` or poll them"]
    pub struct Timeout<F> {
        #[pin]
        inner: rt::time::Timeout<F>,
        // tokio's `Timeout` is `!Unpin`; so is this one.
        #[pin]
        _pinned: PhantomPinned,
    }
}

impl<F> Timeout<F> {
    /// The wrapped future.
    ///
    /// # Examples
    ///
    /// ```
    /// # #[cfg(feature = "rt")]
    /// # {
    /// let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
    /// let _guard = rt.enter();
    /// let limited = tokio::time::timeout(std::time::Duration::from_secs(1), std::future::ready(3));
    /// let _inner: &std::future::Ready<i32> = limited.get_ref();
    /// # }
    /// ```
    pub fn get_ref(&self) -> &F {
        self.inner.get_ref()
    }

    /// The wrapped future, mutably.
    ///
    /// # Examples
    ///
    /// ```
    /// # #[cfg(feature = "rt")]
    /// # {
    /// let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
    /// let _guard = rt.enter();
    /// let mut limited =
    ///     tokio::time::timeout(std::time::Duration::from_secs(1), std::future::ready(3));
    /// let _inner: &mut std::future::Ready<i32> = limited.get_mut();
    /// # }
    /// ```
    pub fn get_mut(&mut self) -> &mut F {
        self.inner.get_mut()
    }

    /// Drops the time limit, returning the wrapped future.
    ///
    /// # Examples
    ///
    /// ```
    /// # #[cfg(feature = "rt")]
    /// # {
    /// let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
    /// let limited = rt.block_on(async {
    ///     tokio::time::timeout(std::time::Duration::from_secs(1), async { 5 })
    /// });
    /// assert_eq!(rt.block_on(limited.into_inner()), 5);
    /// # }
    /// ```
    pub fn into_inner(self) -> F {
        self.inner.into_inner()
    }
}

impl<F: Future> Future for Timeout<F> {
    type Output = Result<F::Output, Elapsed>;

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        self.project().inner.poll(cx)
    }
}

impl<F> From<rt::time::Timeout<F>> for Timeout<F> {
    fn from(inner: rt::time::Timeout<F>) -> Timeout<F> {
        Timeout {
            inner,
            _pinned: PhantomPinned,
        }
    }
}

impl<F> From<Timeout<F>> for rt::time::Timeout<F> {
    fn from(timeout: Timeout<F>) -> rt::time::Timeout<F> {
        timeout.inner
    }
}

impl<F: fmt::Debug> fmt::Debug for Timeout<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}
