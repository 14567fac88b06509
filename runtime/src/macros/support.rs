//! What the expansions of `select!`, `join!` and `try_join!` call, through
//! `$crate::macros::support`. Not part of the API: names and signatures
//! change without notice.

use crate::scheduler::FastRand;
use pin_project_lite::pin_project;
use std::cell::RefCell;
use std::hash::{BuildHasher, RandomState};
use std::pin::Pin;
use std::task::{Context, Poll};

pub use futures_util::future::MaybeDone;
pub use rt_macros::{join, select, try_join};

thread_local! {
    /// Seeded from std's per-process random hash keys, so two threads
    /// (and two runs) start their branch sequences apart.
    static BRANCH_RNG: RefCell<FastRand> =
        RefCell::new(FastRand::new(RandomState::new().hash_one(std::thread::current().id())));
}

/// A branch index in `0..branches`, for `select!` to start polling at.
pub fn random_start(branches: usize) -> usize {
    // Inside a simulation the draw is the simulation's, so a seed replays
    // the same branch order.
    #[cfg(feature = "sim")]
    if let Some(start) = crate::sim::random_below(branches) {
        return start;
    }
    BRANCH_RNG
        .try_with(|rng| rng.borrow_mut().below(branches))
        .unwrap_or(0)
}

/// `Pending` (after waking the task) once the task's cooperative budget is
/// spent, so a `select!` or `join!` loop over always-ready futures still
/// yields.
pub fn poll_budget_available(cx: &mut Context<'_>) -> Poll<()> {
    crate::task::poll_budget_available(cx)
}

pin_project! {
    /// The futures of one `select!` or `join!`: the first one and a list of
    /// the others (`()` ends the list). The expansion pins the whole list
    /// once, so its poll function reaches every future through one pointer
    /// (a future per branch and one word, as tokio's expansion costs), and
    /// [`split`](Cons::split) projects the pin to each future without any
    /// `unsafe` in the caller's crate.
    #[derive(Debug)]
    pub struct Cons<H, T> {
        #[pin]
        head: H,
        #[pin]
        tail: T,
    }
}

impl<H, T> Cons<H, T> {
    /// `head` in front of the list `tail`.
    pub fn new(head: H, tail: T) -> Cons<H, T> {
        Cons { head, tail }
    }

    /// The pinned first future and the pinned rest of the list.
    pub fn split(self: Pin<&mut Self>) -> (Pin<&mut H>, Pin<&mut T>) {
        let this = self.project();
        (this.head, this.tail)
    }
}

/// Whether a finished `try_join!` branch failed.
pub fn is_err<T, E>(output: Option<&mut Result<T, E>>) -> bool {
    matches!(output, Some(Err(_)))
}

/// The error of a branch [`is_err`] found failed, as the `Err` that
/// `try_join!` returns (built here, so that an uninhabited error type puts
/// no unreachable expression in the caller's code).
pub fn take_err<T, E, U>(output: Option<Result<T, E>>) -> Result<U, E> {
    match output {
        Some(Err(error)) => Err(error),
        _ => unreachable!("`try_join!` took the error of a branch that did not fail"),
    }
}

/// The value of a branch that finished with `Ok`.
pub fn take_ok<T, E>(output: Option<Result<T, E>>) -> T {
    match output {
        Some(Ok(value)) => value,
        _ => unreachable!("`try_join!` took the value of a branch that did not succeed"),
    }
}

/// The output of a finished `join!` branch.
pub fn take_output<T>(output: Option<T>) -> T {
    output.expect("`join!` took the output of an unfinished branch")
}
