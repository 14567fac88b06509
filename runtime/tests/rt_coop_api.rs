//! `task::coop`'s public items with tokio's contract: `poll_proceed`
//! spends a unit and yields once the budget is spent, `RestoreOnPending`
//! gives the unit back unless `made_progress` is called, and
//! `cooperative` makes any future spend a unit per completion.

mod support;

use rt::task::coop::{RestoreOnPending, cooperative, has_budget_remaining, poll_proceed};
use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use support::{SINGLE_POLLER, each, each_runtime};

/// Within one poll: how many `poll_proceed` + `made_progress` rounds pass
/// before `poll_proceed` turns `Pending`.
fn units_left(cx: &mut Context<'_>) -> usize {
    let mut units = 0;
    loop {
        match poll_proceed(cx) {
            Poll::Ready(coop) => {
                coop.made_progress();
                units += 1;
                assert!(units <= 1000, "the budget never ran out");
            }
            Poll::Pending => return units,
        }
    }
}

#[test]
fn poll_proceed_spends_one_unit_per_result_and_yields_at_128() {
    each_runtime(|_, rt| {
        let (first, second) = rt.block_on(async {
            rt::spawn(async {
                let first = poll_fn(|cx| Poll::Ready(units_left(cx))).await;
                // Spent: the next `poll_proceed` woke the task and returned
                // `Pending`; after the yield the task has a fresh budget.
                assert!(!has_budget_remaining());
                rt::task::yield_now().await;
                let second = poll_fn(|cx| Poll::Ready(units_left(cx))).await;
                (first, second)
            })
            .await
            .unwrap()
        });
        assert_eq!((first, second), (128, 128));
    });
}

#[test]
fn restore_on_pending_refunds_when_no_progress_is_made() {
    each_runtime(|_, rt| {
        let left = rt.block_on(async {
            rt::spawn(poll_fn(|cx| {
                // A thousand attempts that produced nothing (their guards
                // dropped without `made_progress`) cost nothing.
                for _ in 0..1000 {
                    let coop: RestoreOnPending = match poll_proceed(cx) {
                        Poll::Ready(coop) => coop,
                        Poll::Pending => panic!("attempts without progress spent the budget"),
                    };
                    drop(coop);
                }
                Poll::Ready(units_left(cx))
            }))
            .await
            .unwrap()
        });
        assert_eq!(left, 128);
    });
}

#[test]
fn restore_on_pending_restores_the_budget_from_before_its_call() {
    each_runtime(|_, rt| {
        let (before, after) = rt.block_on(async {
            rt::spawn(poll_fn(|cx| {
                // Spend 10, then take a guard, spend 20 more under it, and
                // drop the guard without progress: back to 118 left.
                for _ in 0..10 {
                    let Poll::Ready(coop) = poll_proceed(cx) else {
                        unreachable!()
                    };
                    coop.made_progress();
                }
                let guard = match poll_proceed(cx) {
                    Poll::Ready(guard) => guard,
                    Poll::Pending => unreachable!(),
                };
                for _ in 0..20 {
                    let Poll::Ready(coop) = poll_proceed(cx) else {
                        unreachable!()
                    };
                    coop.made_progress();
                }
                drop(guard);
                let after = units_left(cx);
                Poll::Ready((118, after))
            }))
            .await
            .unwrap()
        });
        assert_eq!(after, before);
    });
}

#[test]
fn poll_proceed_outside_a_task_and_unconstrained_never_yields() {
    let waker = std::task::Waker::noop();
    let mut cx = Context::from_waker(waker);
    for _ in 0..1000 {
        let Poll::Ready(coop) = poll_proceed(&mut cx) else {
            panic!("no budget outside a task")
        };
        coop.made_progress();
    }
    each_runtime(|_, rt| {
        rt.block_on(rt.spawn(rt::task::unconstrained(poll_fn(|cx| {
            for _ in 0..1000 {
                let Poll::Ready(coop) = poll_proceed(cx) else {
                    panic!("`unconstrained` has no budget")
                };
                coop.made_progress();
            }
            Poll::Ready(())
        }))))
        .unwrap();
    });
}

/// Ready at once, every time: a loop over it alone never yields.
async fn always_ready() {}

#[test]
fn cooperative_makes_a_never_waiting_loop_yield() {
    each(&SINGLE_POLLER, |_, rt| {
        let metrics = rt.metrics();
        let yields_before = metrics.budget_forced_yield_count();
        let flag = Arc::new(AtomicBool::new(false));
        let seen_after = rt.block_on(async {
            let seen = flag.clone();
            let looping = rt::spawn(async move {
                // Queued on this task's own worker before the loop starts
                // (spawned from outside, on a slow machine it could come
                // after the whole loop): only a yield lets it run.
                let setter = seen.clone();
                rt::spawn(async move { setter.store(true, Ordering::SeqCst) });
                // Without `cooperative`, 1000 ready completions run in one
                // poll and the other task cannot run before the end.
                for i in 0..1000 {
                    if seen.load(Ordering::SeqCst) {
                        return Some(i);
                    }
                    cooperative(always_ready()).await;
                }
                None
            });
            looping.await.unwrap()
        });
        let seen_after = seen_after.expect("the other task never ran during the loop");
        assert!(
            seen_after >= 128,
            "yielded before spending the budget: {seen_after}"
        );
        assert!(metrics.budget_forced_yield_count() > yields_before);
    });
}

/// `Pending` `n` times (waking itself), then ready.
struct PendingTimes(usize);

impl Future for PendingTimes {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 == 0 {
            return Poll::Ready(());
        }
        self.0 -= 1;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

#[test]
fn cooperative_spends_only_when_the_future_completes() {
    each_runtime(|_, rt| {
        let left = rt.block_on(async {
            rt::spawn(async {
                let mut coop = std::pin::pin!(cooperative(PendingTimes(3)));
                // Three `Pending` polls within one task poll: the units
                // they took are given back.
                poll_fn(|cx| {
                    for _ in 0..3 {
                        assert!(coop.as_mut().poll(cx).is_pending());
                    }
                    assert!(coop.as_mut().poll(cx).is_ready());
                    Poll::Ready(units_left(cx))
                })
                .await
            })
            .await
            .unwrap()
        });
        assert_eq!(left, 127);
    });
}
