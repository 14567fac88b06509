//! A spawned future is pinned in its task, so it must be dropped where it
//! was polled (`Pin`'s drop guarantee): on completion, abort, runtime
//! shutdown, and in a `LocalSet`.

mod support;

use std::future::Future;
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use support::each_runtime;

/// What a `StaysPut` saw: `Some(true)` if dropped at the address it was
/// polled at, `Some(false)` if it had moved; and whether it was polled.
type Verdict = Arc<(Mutex<Option<bool>>, Mutex<bool>)>;

/// A future that remembers where it was first polled and, when dropped,
/// records whether it is still there. Pending until polled `ready_after`
/// times.
struct StaysPut {
    polled_at: usize,
    polls: usize,
    ready_after: usize,
    verdict: Verdict,
    _pinned: PhantomPinned,
}

fn stays_put(ready_after: usize) -> (StaysPut, Verdict) {
    let verdict = Verdict::default();
    let future = StaysPut {
        polled_at: 0,
        polls: 0,
        ready_after,
        verdict: verdict.clone(),
        _pinned: PhantomPinned,
    };
    (future, verdict)
}

impl Future for StaysPut {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        // SAFETY: nothing is moved out of the pinned future; only its
        // plain fields are written.
        let this = unsafe { self.get_unchecked_mut() };
        this.polled_at = this as *const StaysPut as usize;
        this.polls += 1;
        *this.verdict.1.lock().unwrap() = true;
        if this.polls > this.ready_after {
            return Poll::Ready(());
        }
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

impl Drop for StaysPut {
    fn drop(&mut self) {
        if self.polled_at != 0 {
            let here = self as *const StaysPut as usize;
            *self.verdict.0.lock().unwrap() = Some(self.polled_at == here);
        }
    }
}

/// Yields inside `rt` until the future behind `verdict` has been polled
/// (on the multi-thread runtime a worker may not have got to it yet).
fn until_polled(rt: &rt::runtime::Runtime, verdict: &Verdict) {
    rt.block_on(async {
        while !*verdict.1.lock().unwrap() {
            rt::task::yield_now().await;
        }
    });
}

fn assert_dropped_in_place(verdict: &Verdict) {
    assert_eq!(
        *verdict.0.lock().unwrap(),
        Some(true),
        "the pinned future moved before it was dropped (or was never dropped)"
    );
}

#[test]
fn a_completed_future_is_dropped_in_place() {
    each_runtime(|_, rt| {
        let (future, verdict) = stays_put(3);
        rt.block_on(rt.spawn(future)).unwrap();
        assert_dropped_in_place(&verdict);
    });
}

#[test]
fn an_aborted_future_is_dropped_in_place() {
    each_runtime(|_, rt| {
        let (future, verdict) = stays_put(usize::MAX);
        let task = rt.spawn(future);
        until_polled(&rt, &verdict);
        task.abort();
        assert!(rt.block_on(task).unwrap_err().is_cancelled());
        assert_dropped_in_place(&verdict);
    });
}

#[test]
fn a_future_cancelled_by_shutdown_is_dropped_in_place() {
    each_runtime(|_, rt| {
        let (future, verdict) = stays_put(usize::MAX);
        let task = rt.spawn(future);
        until_polled(&rt, &verdict);
        drop(rt);
        drop(task);
        assert_dropped_in_place(&verdict);
    });
}

#[test]
fn local_futures_are_dropped_in_place() {
    let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    let local = rt::task::LocalSet::new();
    let (aborted, aborted_verdict) = stays_put(usize::MAX);
    let (left, left_verdict) = stays_put(usize::MAX);
    let aborted = local.spawn_local(aborted);
    let _left = local.spawn_local(left);
    local.block_on(&rt, rt::task::yield_now());
    aborted.abort();
    assert!(local.block_on(&rt, aborted).unwrap_err().is_cancelled());
    assert_dropped_in_place(&aborted_verdict);
    drop(local);
    assert_dropped_in_place(&left_verdict);
}
