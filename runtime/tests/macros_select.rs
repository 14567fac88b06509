//! `rt::select!`, `rt::join!`, `rt::try_join!` and `rt::pin!` at run time:
//! which branch wins, what is dropped when, and what runs where.

mod support;

use rt::io::{AsyncReadExt, AsyncWriteExt};
use rt::sync::{Notify, mpsc, oneshot};
use std::cell::{Cell, RefCell};
use std::future::{Future, pending, poll_fn, ready};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use support::{DropCounter, DropGuard, block_on_each, expect_panic, ms, tcp_pair};

/// `future`, holding `guard` until it finishes or is dropped.
async fn tracked<F: Future>(future: F, guard: DropGuard) -> F::Output {
    let _guard = guard;
    future.await
}

/// One loop selecting over a `JoinHandle`, `Notified`, an mpsc `recv()`, a
/// socket read and a `Sleep`: each source is made ready in turn, the
/// matching branch wins, and every losing branch's future has been dropped
/// by the time its handler runs.
#[test]
fn select_loop_over_every_kind_of_source() {
    block_on_each(|_| async {
        let notify = Arc::new(Notify::new());
        let (tx, mut rx) = mpsc::channel::<u32>(4);
        let (mut client, mut server) = tcp_pair().await;
        let (gate_tx, gate_rx) = oneshot::channel::<()>();
        let mut gate_tx = Some(gate_tx);
        let mut handle = rt::spawn(async move {
            gate_rx.await.unwrap();
            5u32
        });
        let sleep = rt::time::sleep(ms(1));
        rt::pin!(sleep);

        let drops = DropCounter::new();
        let mut joined = false;
        let mut events = Vec::new();
        let mut buf = [0u8; 16];
        // Stage 0 is armed here; each handler arms the next stage.
        tx.send(11).await.unwrap();
        loop {
            let all_sources_done = events.len() == 4;
            rt::select! {
                Some(v) = tracked(rx.recv(), drops.guard()) => {
                    assert_eq!(drops.alive(), 0, "losers dropped before the handler");
                    events.push(format!("recv {v}"));
                    notify.notify_one();
                }
                () = tracked(notify.notified(), drops.guard()) => {
                    assert_eq!(drops.alive(), 0, "losers dropped before the handler");
                    events.push("notified".to_owned());
                    client.write_all(b"ping").await.unwrap();
                }
                n = tracked(server.read(&mut buf), drops.guard()) => {
                    assert_eq!(drops.alive(), 0, "losers dropped before the handler");
                    let n = n.unwrap();
                    events.push(format!("read {}", String::from_utf8_lossy(&buf[..n])));
                    gate_tx.take().unwrap().send(()).unwrap();
                }
                out = tracked(&mut handle, drops.guard()), if !joined => {
                    assert_eq!(drops.alive(), 0, "losers dropped before the handler");
                    joined = true;
                    events.push(format!("joined {}", out.unwrap()));
                }
                () = tracked(&mut sleep, drops.guard()), if all_sources_done => {
                    assert_eq!(drops.alive(), 0, "losers dropped before the handler");
                    break;
                }
            }
            assert_eq!(drops.alive(), 0);
        }
        assert_eq!(events, ["recv 11", "notified", "read ping", "joined 5"]);
        // Five futures per iteration (disabled ones are built, then dropped).
        assert_eq!(drops.created(), 25);
        assert_eq!(drops.dropped(), 25);
        // The dropped `recv()`s and `notified()`s lost nothing: the channel
        // and the `Notify` still work.
        tx.send(12).await.unwrap();
        assert_eq!(rx.recv().await, Some(12));
        notify.notify_one();
        notify.notified().await;
    });
}

#[test]
fn biased_polls_branches_in_the_order_written() {
    block_on_each(|_| async {
        for _ in 0..100 {
            let winner = rt::select! {
                biased;
                v = ready(1) => v,
                v = ready(2) => v,
                v = ready(3) => v,
            };
            assert_eq!(winner, 1);
        }
    });
}

#[test]
fn unbiased_select_starts_at_varying_branches() {
    block_on_each(|_| async {
        let mut wins = [0u32; 3];
        for _ in 0..300 {
            let winner: usize = rt::select! {
                v = ready(0) => v,
                v = ready(1) => v,
                v = ready(2) => v,
            };
            wins[winner] += 1;
        }
        // Each branch wins about a third of the time; all three winning at
        // least once fails by chance with probability below 1e-50.
        assert!(wins.iter().all(|&w| w > 0), "{wins:?}");
    });
}

#[test]
fn failed_pattern_disables_the_branch_and_the_others_go_on() {
    block_on_each(|_| async {
        let (tx, mut rx) = mpsc::channel::<u32>(1);
        let sender = rt::spawn(async move {
            rt::task::yield_now().await;
            tx.send(9).await.unwrap();
        });
        let polls = Cell::new(0);
        // Biased, so the mismatched branch is polled first: unbiased, a
        // first poll that starts at the channel finds the value already
        // sent (the sender may run on another worker) and never polls it.
        let got = rt::select! {
            biased;
            Some(v) = counting_polls(&polls, ready(None::<u32>)) => v,
            Some(v) = rx.recv() => v + 100,
        };
        assert_eq!(got, 109);
        // The mismatched branch was polled once, then never again.
        assert_eq!(polls.get(), 1);
        sender.await.unwrap();
    });
}

#[test]
fn else_runs_when_every_branch_is_disabled() {
    block_on_each(|_| async {
        let value = rt::select! {
            Some(v) = ready(None::<u32>) => v,
            Ok(v) = ready(Err::<u32, ()>(())) => v,
            else => 77,
        };
        assert_eq!(value, 77);
    });
}

#[test]
fn no_branch_left_and_no_else_panics() {
    let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    let message = expect_panic(|| {
        rt.block_on(async {
            rt::select! {
                Some(v) = ready(None::<u32>) => v,
            }
        })
    });
    assert!(message.contains("no `else` branch"), "{message}");
}

/// A future that counts its polls.
fn counting_polls<'a, F: Future + 'a>(
    polls: &'a Cell<u32>,
    future: F,
) -> impl Future<Output = F::Output> + 'a {
    let mut future = Box::pin(future);
    poll_fn(move |cx| {
        polls.set(polls.get() + 1);
        future.as_mut().poll(cx)
    })
}

#[test]
fn false_precondition_builds_the_future_but_never_polls_it() {
    block_on_each(|_| async {
        let built = Cell::new(0);
        let polls = Cell::new(0);
        let make = || {
            built.set(built.get() + 1);
            counting_polls(&polls, ready(1))
        };
        let value = rt::select! {
            v = make(), if false => v,
            v = ready(2) => v,
        };
        assert_eq!(value, 2);
        assert_eq!((built.get(), polls.get()), (1, 0));

        let value = rt::select! {
            v = make(), if false => v,
            else => 3,
        };
        assert_eq!(value, 3);
        assert_eq!((built.get(), polls.get()), (2, 0));
    });
}

#[test]
fn preconditions_are_evaluated_before_the_futures() {
    block_on_each(|_| async {
        let order = RefCell::new(Vec::new());
        let step = |name: &'static str| order.borrow_mut().push(name);
        rt::select! {
            () = async { step("future a") }, if { step("condition a"); true } => {}
            () = async { step("future b") }, if { step("condition b"); true } => {}
        }
        let order = order.into_inner();
        assert_eq!(&order[..2], ["condition a", "condition b"]);
    });
}

async fn first_even(values: Vec<u32>) -> Result<u32, String> {
    let mut values = values.into_iter();
    loop {
        let next = values.next();
        rt::select! {
            // `?` in a handler returns from this function.
            Some(v) = ready(next) => {
                let v = if v > 100 { Err(format!("{v} is too big"))? } else { v };
                if v % 2 == 1 {
                    continue;
                }
                return Ok(v);
            }
            else => break,
        }
    }
    Err("no even value".to_owned())
}

#[test]
fn handlers_run_in_the_enclosing_function() {
    block_on_each(|_| async {
        assert_eq!(first_even(vec![1, 3, 4, 5]).await, Ok(4));
        assert_eq!(first_even(vec![1, 3]).await, Err("no even value".into()));
        assert_eq!(first_even(vec![1, 300]).await, Err("300 is too big".into()));
    });
}

/// A future that is `!Unpin` and needs no `.fuse()`; the values a pattern
/// binds move into the handler.
#[test]
fn branches_take_any_future_and_patterns_bind_by_move() {
    block_on_each(|_| async {
        let owned = String::from("moved");
        let (text, n) = rt::select! {
            (mut s, n) = async move {
                rt::task::yield_now().await;
                (owned, 3usize)
            } => {
                s.push('!');
                (s, n)
            }
            () = pending::<()>() => unreachable!(),
        };
        assert_eq!((text.as_str(), n), ("moved!", 3));

        // `&` patterns and `ref` bindings work too.
        let value = 5u32;
        let got = rt::select! {
            &v = ready(&value) => v,
        };
        let tuple = rt::select! {
            (ref a, _) = ready((String::from("a"), 1)) => a.clone(),
        };
        assert_eq!((got, tuple.as_str()), (5, "a"));
    });
}

/// Polls `future` once: whether it was ready.
async fn ready_now<F: Future>(future: F) -> bool {
    let mut future = std::pin::pin!(future);
    poll_fn(|cx| Poll::Ready(future.as_mut().poll(cx).is_ready())).await
}

/// Runs `spin` (one step of a loop that never waits) on a current-thread
/// runtime next to another task: the loop must give that task a turn
/// within a few budgets' worth of steps. Each step receives from a channel
/// full of messages, which spends a unit of budget, next to a future that
/// is always ready: once the budget is spent the receive is `Pending`, and
/// only the macro's own budget check can make the step yield.
fn assert_yields_to_other_tasks(mut spin: impl AsyncFnMut(&mut mpsc::UnboundedReceiver<u32>)) {
    let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    rt.block_on(async {
        let (tx, mut rx) = mpsc::unbounded_channel::<u32>();
        for i in 0..10_000 {
            tx.send(i).unwrap();
        }
        let ran = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let other = rt::spawn({
            let ran = ran.clone();
            async move { ran.store(true, std::sync::atomic::Ordering::SeqCst) }
        });
        let mut steps = 0;
        while !ran.load(std::sync::atomic::Ordering::SeqCst) {
            steps += 1;
            assert!(steps < 5_000, "the other task never ran");
            spin(&mut rx).await;
        }
        other.await.unwrap();
    });
}

#[test]
fn select_yields_once_the_budget_is_spent() {
    assert_yields_to_other_tasks(async |rx| {
        rt::select! {
            biased;
            Some(_) = rx.recv() => {}
            () = ready(()) => {}
        }
    });
}

#[test]
fn join_yields_once_the_budget_is_spent() {
    assert_yields_to_other_tasks(async |rx| {
        let (_received, ()) = rt::join!(ready_now(rx.recv()), ready(()));
    });
}

#[test]
fn join_returns_every_output_in_order() {
    block_on_each(|_| async {
        let (a, b, c) = rt::join!(
            async {
                rt::time::sleep(ms(2)).await;
                "slept"
            },
            async {
                rt::task::yield_now().await;
                2u8
            },
            ready(vec![3]),
        );
        assert_eq!((a, b, c), ("slept", 2, vec![3]));
        let () = rt::join!();
        assert_eq!(rt::join!(ready(1)), (1,));
    });
}

/// A future that records `name` at each poll and finishes on its `polls`th.
struct Recorder<'a> {
    name: &'static str,
    left: u32,
    log: &'a RefCell<Vec<&'static str>>,
}

impl Future for Recorder<'_> {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        self.log.borrow_mut().push(self.name);
        self.left -= 1;
        if self.left == 0 {
            Poll::Ready(())
        } else {
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

#[test]
fn join_starts_each_poll_one_future_later() {
    block_on_each(|_| async {
        let log = RefCell::new(Vec::new());
        let recorder = |name| Recorder {
            name,
            left: 3,
            log: &log,
        };
        rt::join!(recorder("a"), recorder("b"), recorder("c"));
        assert_eq!(
            log.into_inner(),
            ["a", "b", "c", "b", "c", "a", "c", "a", "b"]
        );
    });
}

#[test]
fn try_join_returns_every_value_or_the_first_error() {
    block_on_each(|_| async {
        let ok = rt::try_join!(
            async {
                rt::task::yield_now().await;
                Ok::<_, String>(1)
            },
            ready(Ok("two")),
        );
        assert_eq!(ok, Ok((1, "two")));
        assert_eq!(rt::try_join!(), Ok::<(), ()>(()));

        // The error ends the join while the other future is still pending;
        // that future is dropped before `try_join!` returns.
        let drops = DropCounter::new();
        let err = rt::try_join!(
            tracked(pending::<Result<u8, String>>(), drops.guard()),
            async {
                rt::task::yield_now().await;
                Err::<u8, _>("failed".to_owned())
            },
        );
        assert_eq!(err, Err("failed".to_owned()));
        assert_eq!((drops.created(), drops.dropped()), (1, 1));
    });
}

#[test]
fn pin_statement_and_declaration_forms() {
    block_on_each(|_| async {
        let a = async { 1 };
        let b = async { 2 };
        rt::pin!(a, b);
        assert_eq!(a.as_mut().await + b.as_mut().await, 3);

        rt::pin! {
            let c = async { 3 };
            let d = rt::time::sleep(ms(1));
        }
        assert_eq!(c.await, 3);
        (&mut d).await;
        assert!(d.is_elapsed());
    });
}
