//! Which futures spend the cooperative budget, and when, as in tokio: a
//! resource future spends one unit for each poll that returns a result,
//! none for a poll that returns `Pending`, and yields (woken at once)
//! instead of returning a result once the budget is spent.

use rt::runtime::Builder;
use rt::task::coop::poll_proceed;
use std::future::{Future, poll_fn};
use std::pin::pin;
use std::task::{Context, Poll};

/// A task's budget at the start of a poll.
const BUDGET: usize = 128;

/// Runs `body` as a task on a current-thread runtime.
fn in_a_task(body: impl Future<Output = ()> + Send + 'static) {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async { rt::spawn(body).await.unwrap() });
}

/// Within one poll: how many units are left, found by spending them all
/// (so the task yields once this poll ends).
fn units_left(cx: &mut Context<'_>) -> usize {
    let mut units = 0;
    while let Poll::Ready(coop) = poll_proceed(cx) {
        coop.made_progress();
        units += 1;
        assert!(units <= BUDGET, "the budget never ran out");
    }
    units
}

/// Polls once, at the start of a fresh task poll, with `poll`, and
/// returns what it returned and the units of budget that poll spent.
async fn units_spent_by<T>(mut poll: impl FnMut(&mut Context<'_>) -> Poll<T>) -> (Poll<T>, usize) {
    // The task runs again with a fresh budget.
    rt::task::yield_now().await;
    poll_fn(|cx| {
        let polled = poll(cx);
        Poll::Ready((polled, BUDGET - units_left(cx)))
    })
    .await
}

/// tokio's `Recv` spends a unit only for a value: a receive that waits
/// for one spends none (rt's used to spend one before looking).
#[test]
fn broadcast_recv_spends_budget_only_when_ready() {
    in_a_task(async {
        let (tx, mut rx) = rt::sync::broadcast::channel(4);
        let mut recv = pin!(rx.recv());
        let (polled, spent) = units_spent_by(|cx| recv.as_mut().poll(cx)).await;
        assert!(polled.is_pending());
        assert_eq!(spent, 0, "a receive that waits spent budget");
        tx.send(7).unwrap();
        let (polled, spent) = units_spent_by(|cx| recv.as_mut().poll(cx)).await;
        assert_eq!(polled, Poll::Ready(Ok(7)));
        assert_eq!(spent, 1, "a received value costs one unit");
    });
}
