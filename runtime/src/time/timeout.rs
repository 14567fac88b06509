//! `timeout`, `timeout_at` and the `Timeout` future.

use crate::task::coop;
use crate::task::waits::Site;
use crate::time::clock::current_runtime;
use crate::time::error::Elapsed;
use crate::time::{Instant, Sleep};
use pin_project_lite::pin_project;
use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

/// Runs `future` with a time limit: `Ok(output)` if it completes within
/// `duration`, `Err(Elapsed)` otherwise (and `future` is dropped with the
/// `Timeout`). The future is polled first, so a ready future always wins,
/// and no timer is registered unless it is pending. Anything that is
/// [`IntoFuture`] is accepted (a request builder, say), as with `.await`.
///
/// Timing out spends one unit of the task's cooperative budget, as a ready
/// [`Sleep`] does, so a loop of timeouts that elapse at once yields now and
/// then; when the wrapped future spent the last unit on that same poll, the
/// timeout fires anyway.
///
/// # Panics
///
/// Panics when called outside a runtime, or on a runtime built without the
/// time driver (use `Builder::enable_time()` or `enable_all()`).
///
/// # Examples
///
/// ```
/// use std::time::Duration;
///
/// let rt = rt::runtime::Builder::new_current_thread().start_paused(true).build().unwrap();
/// rt.block_on(async {
///     assert_eq!(rt::time::timeout(Duration::from_secs(1), async { 7 }).await, Ok(7));
///     let never = std::future::pending::<()>();
///     assert!(rt::time::timeout(Duration::from_secs(1), never).await.is_err());
/// });
/// ```
#[track_caller]
pub fn timeout<F: IntoFuture>(duration: Duration, future: F) -> Timeout<F::IntoFuture> {
    let now = Instant::now();
    let deadline = now.deadline_in(duration);
    Timeout::new(future.into_future(), deadline, now, "rt::time::timeout")
        .waiting_as(Site::here("timeout"))
}

/// Like [`timeout`], with a deadline instead of a duration.
///
/// # Panics
///
/// Panics when called outside a runtime, or on a runtime built without the
/// time driver (use `Builder::enable_time()` or `enable_all()`).
///
/// # Examples
///
/// ```
/// use rt::time::Instant;
/// use std::time::Duration;
///
/// let rt = rt::runtime::Builder::new_current_thread().start_paused(true).build().unwrap();
/// rt.block_on(async {
///     let deadline = Instant::now() + Duration::from_millis(10);
///     let slow = rt::time::sleep(Duration::from_millis(20));
///     assert!(rt::time::timeout_at(deadline, slow).await.is_err());
///     assert_eq!(Instant::now(), deadline);
/// });
/// ```
#[track_caller]
pub fn timeout_at<F: IntoFuture>(deadline: Instant, future: F) -> Timeout<F::IntoFuture> {
    Timeout::new(
        future.into_future(),
        deadline,
        Instant::now(),
        "rt::time::timeout_at",
    )
    .waiting_as(Site::here("timeout_at"))
}

pin_project! {
    /// The future of [`timeout`] and [`timeout_at`].
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let timeout: rt::time::Timeout<_> = rt::time::timeout(Duration::from_secs(1), async { 1 });
    ///     assert_eq!(timeout.await, Ok(1));
    /// });
    /// ```
    #[derive(Debug)]
    #[must_use = "futures do nothing unless you `.await` or poll them"]
    pub struct Timeout<F> {
        #[pin]
        value: F,
        delay: Sleep,
    }
}

impl<F> Timeout<F> {
    #[track_caller]
    fn new(value: F, deadline: Instant, now: Instant, what: &str) -> Timeout<F> {
        Timeout {
            value,
            delay: Sleep::new(deadline, now, current_runtime(what)),
        }
    }

    fn waiting_as(mut self, site: Site) -> Timeout<F> {
        self.delay = self.delay.waiting_as(Some(site));
        self
    }

    /// The wrapped future.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let _guard = rt.enter();
    /// let timeout = rt::time::timeout(std::time::Duration::from_secs(1), std::future::ready(3));
    /// let _inner: &std::future::Ready<i32> = timeout.get_ref();
    /// ```
    pub fn get_ref(&self) -> &F {
        &self.value
    }

    /// The wrapped future, mutably.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let _guard = rt.enter();
    /// let mut timeout = rt::time::timeout(std::time::Duration::from_secs(1), std::future::ready(3));
    /// let _inner: &mut std::future::Ready<i32> = timeout.get_mut();
    /// ```
    pub fn get_mut(&mut self) -> &mut F {
        &mut self.value
    }

    /// Drops the time limit, returning the wrapped future.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let timeout = rt.block_on(async {
    ///     rt::time::timeout(std::time::Duration::from_secs(1), async { 5 })
    /// });
    /// assert_eq!(rt.block_on(timeout.into_inner()), 5);
    /// ```
    pub fn into_inner(self) -> F {
        self.value
    }
}

impl<F: Future> Future for Timeout<F> {
    type Output = Result<F::Output, Elapsed>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let had_budget = coop::has_budget_remaining();
        if let Poll::Ready(output) = this.value.poll(cx) {
            return Poll::Ready(Ok(output));
        }
        let elapsed = if had_budget && !coop::has_budget_remaining() {
            // The inner future spent the last of the budget: the timer is
            // still looked at, unbudgeted, or a future that always spends
            // it would never time out.
            this.delay.poll_elapsed(cx)
        } else {
            // Otherwise the timer spends budget like any: a loop of
            // timeouts that elapsed (a zero limit, a deadline that passed)
            // must yield now and then, as tokio's does.
            Pin::new(this.delay).poll(cx)
        };
        elapsed.map(|()| Err(Elapsed::new()))
    }
}
