//! The cooperative budget.
//!
//! Every task poll starts with a budget of 128 units. Runtime resources
//! (sockets, channels, locks, timers, join handles) spend one unit each
//! time they return a ready result; once the budget is spent they return
//! `Pending` and wake the task immediately, so the task yields back to the
//! scheduler and one busy task cannot starve the others on its worker.
//!
//! The functions here are also re-exported from [`rt::task`](crate::task).
//! A resource of your own (a channel from another crate, a queue) joins in
//! the same way as rt's: [`poll_proceed`] at the top of its `poll` and
//! [`RestoreOnPending::made_progress`] when it returns a value, or wrap a
//! future in [`cooperative`]. These are tokio's `task::coop` items, with
//! tokio's contract.
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
use std::cell::Cell;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

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

/// Runs `f` without a budget, then puts the caller's back (spent or
/// not). `block_in_place` and `spawn_blocking` run their closures this
/// way, as tokio's do: the closure may drive futures on the spot
/// (`futures::executor::block_on`), which a spent budget would only make
/// spin; once it returns, the task is a worker's task again and its
/// budget applies to the rest of the poll (tokio's
/// `rt_threaded::coop_and_block_in_place`). Resources that charge their
/// own unit per result (`fs::File`, `Stdin`) poll the handle of their
/// blocking job this way, so that a result costs one unit.
pub(crate) fn without_budget<R>(f: impl FnOnce() -> R) -> R {
    with_budget(Budget::unconstrained(), f)
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

/// Spends one unit of the task's budget for an operation about to be
/// tried. `Pending` (the task is woken at once, to run again after it
/// yields) if the budget is spent; otherwise the returned
/// [`RestoreOnPending`] gives the unit back when dropped, unless
/// [`made_progress`](RestoreOnPending::made_progress) is called on it once
/// the operation produced a result. So a poll that ends `Pending` costs
/// nothing, and only results are counted.
///
/// It restores the budget as it was before this call: anything spent
/// between this call and the guard's drop is given back too, unless
/// progress is reported. Outside a task, and inside
/// [`unconstrained`], it is always `Ready` and spends nothing.
///
/// # Examples
///
/// A channel from another crate made to spend budget per message, like
/// rt's own channels:
///
/// ```
/// use futures::channel::mpsc::UnboundedReceiver;
/// use futures::stream::{Stream, StreamExt};
/// use rt::task::coop;
/// use std::pin::Pin;
/// use std::task::{Context, Poll, ready};
///
/// struct Budgeted<T>(UnboundedReceiver<T>);
///
/// impl<T> Stream for Budgeted<T> {
///     type Item = T;
///
///     fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
///         let coop = ready!(coop::poll_proceed(cx));
///         let next = self.0.poll_next_unpin(cx);
///         if next.is_ready() {
///             coop.made_progress();
///         }
///         next
///     }
/// }
///
/// # let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
/// # rt.block_on(async {
/// let (tx, rx) = futures::channel::mpsc::unbounded();
/// for i in 0..1000 {
///     tx.unbounded_send(i).unwrap();
/// }
/// drop(tx);
/// let mut rx = Budgeted(rx);
/// let mut sum = 0;
/// // 1000 ready messages: the task yields every 128 of them.
/// while let Some(i) = rx.next().await {
///     sum += i;
/// }
/// assert_eq!(sum, 499_500);
/// # });
/// ```
#[inline]
pub fn poll_proceed(cx: &mut Context<'_>) -> Poll<RestoreOnPending> {
    // Inlined, and one thread-local access for the read and the write:
    // sockets and timers call it on every poll.
    let budget = context::update_budget(Budget::spend_one);
    match budget.0 {
        Some(0) => {
            forced_yield(cx);
            Poll::Pending
        }
        // This unit was the last: the task will be made to yield, counted
        // once here, as tokio counts it, not once per future that then
        // finds the budget spent.
        Some(1) => {
            budget_ran_out();
            Poll::Ready(RestoreOnPending::new(budget))
        }
        _ => Poll::Ready(RestoreOnPending::new(budget)),
    }
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

/// The budget is spent: wake the task so it runs again after yielding.
#[cold]
#[inline(never)]
fn forced_yield(cx: &mut Context<'_>) {
    crate::task::waker::wake_as_yield(cx.waker());
}

/// The task's last unit is spent: count the forced yield to come on the
/// worker running it.
#[cold]
#[inline(never)]
fn budget_ran_out() {
    context::with_scheduler(|scheduler| {
        if let Some(scheduler) = scheduler {
            scheduler.budget_forced_yield();
        }
    });
}

/// The unit [`poll_proceed`] spent, given back when this is dropped unless
/// [`made_progress`](RestoreOnPending::made_progress) was called: the
/// guard of one attempt at an operation. Not `Send`: it restores the
/// budget of the thread's current task.
///
/// # Examples
///
/// ```
/// use rt::task::coop::{has_budget_remaining, poll_proceed};
/// use std::future::poll_fn;
/// use std::task::Poll;
///
/// # let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
/// # rt.block_on(async {
/// // Attempts that produce nothing cost nothing: the budget is never spent.
/// for _ in 0..1000 {
///     poll_fn(|cx| poll_proceed(cx).map(drop)).await;
/// }
/// assert!(has_budget_remaining());
/// # });
/// ```
#[derive(Debug)]
#[must_use = "dropping it at once gives the unit back: call `made_progress` once the operation produced a result"]
pub struct RestoreOnPending(Cell<Budget>, PhantomData<*mut ()>);

impl RestoreOnPending {
    #[inline]
    fn new(budget: Budget) -> RestoreOnPending {
        RestoreOnPending(Cell::new(budget), PhantomData)
    }

    /// The operation produced a result: keep the unit spent.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::task::coop::{has_budget_remaining, poll_proceed};
    /// use std::future::poll_fn;
    /// use std::task::Poll;
    ///
    /// # let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    /// # rt.block_on(async {
    /// let mut results = 0;
    /// poll_fn(|cx| {
    ///     // 128 results spend the whole budget within one poll.
    ///     while has_budget_remaining() {
    ///         let coop = std::task::ready!(poll_proceed(cx));
    ///         results += 1;
    ///         coop.made_progress();
    ///     }
    ///     Poll::Ready(())
    /// })
    /// .await;
    /// assert_eq!(results, 128);
    /// # });
    /// ```
    #[inline]
    pub fn made_progress(&self) {
        self.0.set(Budget::unconstrained());
    }
}

impl Drop for RestoreOnPending {
    #[inline]
    fn drop(&mut self) {
        let budget = self.0.get();
        if budget.0.is_some() {
            context::set_budget(budget);
        }
    }
}

/// Makes `future` spend a unit of the task's budget each time it completes,
/// as rt's own resources do: each poll first calls [`poll_proceed`] (so a
/// task whose budget is spent yields instead of polling it), and the unit
/// is kept only when `future` is ready.
///
/// # Examples
///
/// A loop over a channel from another crate that never waits would keep
/// its worker to itself; wrapped, it yields every 128 messages:
///
/// ```
/// use futures::StreamExt;
/// use rt::task::coop::cooperative;
///
/// # let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
/// # rt.block_on(async {
/// let (tx, mut rx) = futures::channel::mpsc::unbounded();
/// for i in 0..300u32 {
///     tx.unbounded_send(i).unwrap();
/// }
/// drop(tx);
/// let mut received = 0;
/// while let Some(_) = cooperative(rx.next()).await {
///     received += 1;
/// }
/// assert_eq!(received, 300);
/// # });
/// ```
#[inline]
pub fn cooperative<F: Future>(future: F) -> Coop<F> {
    Coop { inner: future }
}

pin_project! {
    /// The future returned by [`cooperative`].
    #[derive(Debug)]
    #[must_use = "futures do nothing unless you `.await` or poll them"]
    pub struct Coop<F: Future> {
        #[pin]
        inner: F,
    }
}

impl<F: Future> Future for Coop<F> {
    type Output = F::Output;

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let coop = ready!(poll_proceed(cx));
        let output = ready!(self.project().inner.poll(cx));
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
        status = poll_proceed(cx).map(|coop| coop.made_progress());
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
