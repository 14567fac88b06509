//! The cooperative budget.
//!
//! Every task poll starts with a budget of 128 units. Runtime resources
//! (sockets, channels, locks, timers, join handles) spend one unit each
//! time they return a ready result; once the budget is spent they return
//! `Pending` and wake the task immediately, so the task yields back to the
//! scheduler and one busy task cannot starve the others on its worker.
//!
//! The functions here are also re-exported from [`rt::task`](crate::task).
//!
//! # Examples
//!
//! ```
//! use rt::task::coop;
//!
//! let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
//! rt.block_on(async {
//!     // Spend the whole budget: the next ready operation would yield.
//!     while coop::has_budget_remaining() {
//!         coop::consume_budget().await;
//!     }
//!     coop::consume_budget().await; // yields once, then has a fresh budget
//!     assert!(coop::has_budget_remaining());
//! });
//! ```

use crate::runtime::context;
use pin_project_lite::pin_project;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

const INITIAL: u8 = 128;

/// Units left in the current poll, or `None` when unconstrained.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Budget(Option<u8>);

impl Budget {
    pub(crate) const fn unconstrained() -> Budget {
        Budget(None)
    }

    /// The budget after spending one unit (a spent or unconstrained
    /// budget stays as it is).
    #[inline]
    fn spend_one(self) -> Budget {
        match self.0 {
            Some(units) => Budget(Some(units.saturating_sub(1))),
            None => self,
        }
    }
}

/// Runs `f` with a fresh budget (one task poll).
pub(crate) fn budget<R>(f: impl FnOnce() -> R) -> R {
    with_budget(Budget(Some(INITIAL)), f)
}

fn with_budget<R>(budget: Budget, f: impl FnOnce() -> R) -> R {
    struct Reset(Budget);
    impl Drop for Reset {
        #[inline]
        fn drop(&mut self) {
            context::set_budget(self.0);
        }
    }
    let _reset = Reset(context::replace_budget(budget));
    f()
}

/// Spends one unit. On `Ready`, the caller must call `made_progress` on the
/// guard if its operation was ready; otherwise the unit is given back when
/// the guard drops.
#[inline]
pub(crate) fn poll_proceed(cx: &mut Context<'_>) -> Poll<RestoreOnPending> {
    // Inlined, and one thread-local access for the read and the write:
    // sockets and timers call it on every poll.
    let budget = context::update_budget(Budget::spend_one);
    if budget.0 == Some(0) {
        forced_yield(cx);
        return Poll::Pending;
    }
    Poll::Ready(RestoreOnPending(budget))
}

/// Whether the task may go on without yielding: `Pending` (after waking
/// the task) once its budget is spent, else `Ready` without spending a
/// unit. For combinators (`select!`, `join!`) that poll other futures:
/// they spend no budget themselves, but stop polling children that would
/// only yield.
pub(crate) fn poll_budget_available(cx: &mut Context<'_>) -> Poll<()> {
    if context::budget().0 == Some(0) {
        forced_yield(cx);
        Poll::Pending
    } else {
        Poll::Ready(())
    }
}

/// The budget is spent: wake the task so it runs again after yielding,
/// and count the forced yield on the worker running it.
#[cold]
#[inline(never)]
fn forced_yield(cx: &mut Context<'_>) {
    cx.waker().wake_by_ref();
    context::with_scheduler(|scheduler| {
        if let Some(scheduler) = scheduler {
            scheduler.budget_forced_yield();
        }
    });
}

/// Gives the unit back unless the operation made progress.
#[derive(Debug)]
pub(crate) struct RestoreOnPending(Budget);

impl RestoreOnPending {
    #[inline]
    pub(crate) fn made_progress(mut self) {
        self.0 = Budget::unconstrained();
    }
}

impl Drop for RestoreOnPending {
    #[inline]
    fn drop(&mut self) {
        if self.0.0.is_some() {
            context::set_budget(self.0);
        }
    }
}

/// Runs `inner` as one ready operation: spends a unit when it returns
/// `Ready` (given back when it is `Pending`), and, once the budget is
/// spent, yields without polling it, so nothing `inner` would consume is
/// taken. For operations built of other awaits (a watch receiver's
/// `wait_for`) whose ready path must cost budget like any other.
pub(crate) fn cooperative<F: Future>(inner: F) -> Cooperative<F> {
    Cooperative { inner }
}

pin_project! {
    /// The future returned by [`cooperative`].
    pub(crate) struct Cooperative<F> {
        #[pin]
        inner: F,
    }
}

impl<F: Future> Future for Cooperative<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let coop = std::task::ready!(poll_proceed(cx));
        let output = std::task::ready!(self.project().inner.poll(cx));
        coop.made_progress();
        Poll::Ready(output)
    }
}

/// Spends one unit of the task's budget, yielding to the scheduler first if
/// it is spent. Call it in loops that make progress without touching any
/// runtime resource, so they still give other tasks a turn.
///
/// # Examples
///
/// ```
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let mut sum = 0u64;
/// for i in 0..10_000 {
///     rt::task::consume_budget().await;
///     sum += i;
/// }
/// assert_eq!(sum, 49_995_000);
/// # });
/// ```
pub async fn consume_budget() {
    let mut status = Poll::Pending;
    std::future::poll_fn(move |cx| {
        if status.is_ready() {
            return status;
        }
        status = poll_proceed(cx).map(RestoreOnPending::made_progress);
        status
    })
    .await
}

/// `true` if the task being polled may still spend budget: its next ready
/// operation on a runtime resource will not make it yield. Always `true`
/// outside a task and inside [`unconstrained`].
///
/// # Examples
///
/// ```
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     assert!(rt::task::coop::has_budget_remaining());
/// });
/// ```
pub fn has_budget_remaining() -> bool {
    context::budget().0 != Some(0)
}

/// Runs `future` with no cooperative budget: runtime resources inside it
/// never force it to yield. Use with care; it can starve other tasks.
///
/// # Examples
///
/// ```
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// let value = rt.block_on(rt::task::unconstrained(async { 7 }));
/// assert_eq!(value, 7);
/// ```
pub fn unconstrained<F: Future>(future: F) -> Unconstrained<F> {
    Unconstrained { inner: future }
}

pin_project! {
    /// The future returned by [`unconstrained`].
    #[derive(Debug)]
    #[must_use = "futures do nothing unless you `.await` or poll them"]
    pub struct Unconstrained<F> {
        #[pin]
        inner: F,
    }
}

impl<F: Future> Future for Unconstrained<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let inner = self.project().inner;
        with_budget(Budget::unconstrained(), || inner.poll(cx))
    }
}
