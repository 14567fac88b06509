//! The forms of `rt::select!`, `rt::join!` and `rt::try_join!` that tokio's
//! macros accept and its own test suite uses: `biased;` joins, a `select!`
//! of only an `else`, temporaries borrowed by a branch's future, handler
//! patterns that bind by `ref mut`, uninhabited outputs, and what the
//! future of a `select!`/`join!` costs in memory.

mod support;

use std::cell::RefCell;
use std::convert::Infallible;
use std::future::{Future, pending, ready};
use std::pin::Pin;
use std::task::{Context, Poll};
use support::block_on_each;

/// A future that records `name` at each poll and finishes on its third.
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

fn recorder<'a>(name: &'static str, log: &'a RefCell<Vec<&'static str>>) -> Recorder<'a> {
    Recorder { name, left: 3, log }
}

#[test]
fn biased_join_polls_in_the_order_written_every_time() {
    block_on_each(|_| async {
        let log = RefCell::new(Vec::new());
        let ((), (), ()) = rt::join!(
            biased;
            recorder("a", &log),
            recorder("b", &log),
            recorder("c", &log),
        );
        assert_eq!(log.take(), ["a", "b", "c", "a", "b", "c", "a", "b", "c"]);

        let ok = rt::try_join!(biased; async {
            recorder("x", &log).await;
            Ok::<_, ()>(1)
        }, async {
            recorder("y", &log).await;
            Ok(2)
        });
        assert_eq!(ok, Ok((1, 2)));
        assert_eq!(log.take(), ["x", "y", "x", "y", "x", "y"]);

        assert_eq!(rt::join!(biased; ready(1)), (1,));
        assert_eq!(rt::join!(biased; ready(1), ready(2),), (1, 2));
        let () = rt::join!(biased;);
        assert_eq!(rt::try_join!(biased;), Ok::<(), ()>(()));
    });
}

#[test]
fn biased_try_join_stops_at_the_first_error_in_order() {
    block_on_each(|_| async {
        let err =
            rt::try_join!(biased; ready(Err::<u8, _>("first")), ready(Err::<u8, _>("second")));
        assert_eq!(err, Err("first"));
    });
}

#[test]
fn a_variable_named_biased_is_still_a_future() {
    block_on_each(|_| async {
        let biased = ready(7);
        assert_eq!(rt::join!(biased), (7,));
    });
}

#[test]
fn select_of_only_else_is_its_handler() {
    block_on_each(|_| async {
        let value: u32 = rt::select! {
            else => 1,
        };
        assert_eq!(value, 1);
        let value: u32 = rt::select! {
            biased;
            else => 2,
        };
        assert_eq!(value, 2);
    });
}

#[test]
fn a_temporary_borrowed_by_a_branch_lives_until_the_select_is_done() {
    block_on_each(|_| async {
        let got = rt::select! {
            () = &mut ready(()) => 1,
            v = &mut Box::pin(pending::<u32>()) => v,
        };
        assert_eq!(got, 1);
    });
}

#[test]
fn handler_patterns_bind_by_ref_mut_and_by_mut() {
    block_on_each(|_| async {
        let last = rt::select! {
            Some(ref mut word) = async { Some("one".to_owned()) } => {
                word.push_str(" two");
                word.clone()
            }
        };
        assert_eq!(last, "one two");
        let n = rt::select! {
            mut n = async { 1 } => {
                n += 1;
                n
            }
        };
        assert_eq!(n, 2);
    });
}

#[test]
#[deny(unreachable_code)]
fn uninhabited_outputs_leave_no_unreachable_code() {
    block_on_each(|_| async {
        let never = || pending::<Infallible>();
        let mut join = Box::pin(async { rt::join!(never(), async { 1 }) });
        assert!(futures::poll!(join.as_mut()).is_pending());
        let mut join = Box::pin(async { rt::join!(biased; async { 1 }, never()) });
        assert!(futures::poll!(join.as_mut()).is_pending());

        let ok = rt::try_join!(ready(Ok::<_, Infallible>(1)), ready(Ok(2)));
        assert_eq!(ok, Ok((1, 2)));

        let value = rt::select! {
            _ = never() => 0,
            v = async { 3 } => v,
        };
        assert_eq!(value, 3);
    });
}

/// The future of a `join!` or `select!` holds its futures and two words
/// (one for a biased `join!`): one pointer to the pinned futures and the
/// rotation counter or the disabled-branch mask. No more than tokio's own
/// tests assert for tokio's expansion (rt's two-future `join!` is 8 bytes
/// smaller: 40 where tokio's is 48).
#[test]
#[cfg(target_pointer_width = "64")]
fn select_and_join_cost_their_futures_plus_two_words() {
    use std::mem::size_of_val;

    let join1 = async {
        let a = ready(0i32);
        rt::join!(a)
    };
    let join2 = async {
        let a = ready(0i32);
        let b = ready(0i32);
        rt::join!(a, b)
    };
    let biased1 = async {
        let a = ready(0i32);
        rt::join!(biased; a)
    };
    let biased2 = async {
        let a = ready(0i32);
        let b = ready(0i32);
        rt::join!(biased; a, b)
    };
    let select1 = async {
        let a = ready(0i32);
        rt::select! { _ = a => {} }
    };
    let select2 = async {
        let a = ready(0i32);
        let b = ready(0i32);
        rt::select! { _ = a => {}, _ = b => {} }
    };
    let select3 = async {
        let a = ready(0i32);
        let b = ready(0i32);
        let c = ready(0i32);
        rt::select! { _ = a => {}, _ = b => {}, _ = c => {} }
    };
    let sizes = [
        ("join 1", size_of_val(&join1), 32),
        ("join 2", size_of_val(&join2), 48),
        ("biased join 1", size_of_val(&biased1), 24),
        ("biased join 2", size_of_val(&biased2), 40),
        ("select 1", size_of_val(&select1), 32),
        ("select 2", size_of_val(&select2), 40),
        ("select 3", size_of_val(&select3), 48),
    ];
    for (what, size, tokio) in sizes {
        eprintln!("{what}: {size} bytes (tokio: {tokio})");
        assert!(size <= tokio, "{what}: {size} bytes, tokio's is {tokio}");
    }
}

/// A branch whose future's output type nothing names (a `poll_fn` that
/// only panics), disabled by its precondition: its output type falls back
/// as in any other code, as with tokio's `select!`.
#[test]
fn a_disabled_branch_may_leave_its_output_type_to_inference() {
    block_on_each(|_| async {
        let never = std::future::poll_fn(|_| panic!("a disabled branch is never polled"));
        let got = rt::select! {
            _ = never, if false => unreachable!(),
            v = ready(5) => v,
        };
        assert_eq!(got, 5);
    });
}
