//! `sync::OnceCell` and `sync::SetOnce`: one initialiser runs, a cancelled
//! or failed one hands over to a waiting task, waiters wake on `set`.

mod support;

use rt::sync::{OnceCell, SetError, SetOnce, SetOnceError, oneshot};
use std::future::{Future, pending};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::Context;
use support::{block_on_each, poll_once, waker_with_drop_hook};

#[test]
fn concurrent_callers_share_one_initialisation() {
    block_on_each(|_| async {
        let cell = Arc::new(OnceCell::new());
        let calls = Arc::new(AtomicUsize::new(0));
        let tasks: Vec<_> = (0..16)
            .map(|i| {
                let (cell, calls) = (cell.clone(), calls.clone());
                rt::spawn(async move {
                    let value = cell
                        .get_or_init(|| async move {
                            calls.fetch_add(1, Ordering::SeqCst);
                            rt::task::yield_now().await;
                            format!("made by {i}")
                        })
                        .await;
                    value.clone()
                })
            })
            .collect();
        let mut values = Vec::new();
        for task in tasks {
            values.push(task.await.unwrap());
        }
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        assert!(values.iter().all(|v| v == &values[0]), "{values:?}");
        assert_eq!(cell.get(), Some(&values[0]));
    });
}

/// The task running the initialiser is aborted mid-way: a waiting task
/// runs its own initialiser and everyone gets that value.
#[test]
fn an_aborted_initialiser_hands_over_to_a_waiter() {
    block_on_each(|_| async {
        let cell = Arc::new(OnceCell::new());
        let (started_tx, started_rx) = oneshot::channel();
        let first = rt::spawn({
            let cell = cell.clone();
            async move {
                cell.get_or_init(|| async move {
                    started_tx.send(()).unwrap();
                    pending::<u32>().await
                })
                .await;
            }
        });
        started_rx.await.unwrap();
        let second = rt::spawn({
            let cell = cell.clone();
            async move { *cell.get_or_init(|| async { 2 }).await }
        });
        // The second task waits for the first...
        rt::task::yield_now().await;
        assert!(!cell.initialized());
        // ...until the first is cancelled.
        first.abort();
        assert!(first.await.unwrap_err().is_cancelled());
        assert_eq!(second.await.unwrap(), 2);
        assert_eq!(cell.get(), Some(&2));
    });
}

/// The initialiser's future loses a `select!` (is dropped): the next call
/// runs a fresh initialiser.
#[test]
fn a_dropped_initialiser_leaves_the_cell_empty() {
    block_on_each(|_| async {
        let cell = OnceCell::new();
        rt::select! {
            _ = cell.get_or_init(pending::<u8>) => unreachable!(),
            () = async {} => {}
        }
        assert!(!cell.initialized());
        assert_eq!(cell.get_or_init(|| async { 9 }).await, &9);
    });
}

/// A failed initialiser leaves the cell empty and wakes a waiter, which
/// tries its own.
#[test]
fn a_failed_initialiser_hands_over_to_a_waiter() {
    block_on_each(|_| async {
        let cell = Arc::new(OnceCell::<u32>::new());
        let (fail_tx, fail_rx) = oneshot::channel::<()>();
        let (started_tx, started_rx) = oneshot::channel();
        let first = rt::spawn({
            let cell = cell.clone();
            async move {
                cell.get_or_try_init(|| async move {
                    started_tx.send(()).unwrap();
                    fail_rx.await.unwrap();
                    Err("first failed")
                })
                .await
                .copied()
            }
        });
        started_rx.await.unwrap();
        let second = rt::spawn({
            let cell = cell.clone();
            async move {
                cell.get_or_try_init(|| async { Ok::<_, &str>(5) })
                    .await
                    .copied()
            }
        });
        rt::task::yield_now().await;
        fail_tx.send(()).unwrap();
        assert_eq!(first.await.unwrap(), Err("first failed"));
        assert_eq!(second.await.unwrap(), Ok(5));
    });
}

#[test]
fn set_reports_why_it_did_not_store() {
    block_on_each(|_| async {
        let cell = Arc::new(OnceCell::new());
        let (started_tx, started_rx) = oneshot::channel();
        let (finish_tx, finish_rx) = oneshot::channel::<()>();
        let initialiser = rt::spawn({
            let cell = cell.clone();
            async move {
                *cell
                    .get_or_init(|| async move {
                        started_tx.send(()).unwrap();
                        finish_rx.await.unwrap();
                        1
                    })
                    .await
            }
        });
        started_rx.await.unwrap();
        let err = cell.set(2).unwrap_err();
        assert!(err.is_initializing_err(), "{err}");
        assert_eq!(err.into_value(), 2);
        finish_tx.send(()).unwrap();
        assert_eq!(initialiser.await.unwrap(), 1);
        assert_eq!(cell.set(3), Err(SetError::AlreadyInitializedError(3)));
        assert_eq!(cell.get(), Some(&1));
    });
}

static SHARED: OnceCell<Vec<u8>> = OnceCell::const_new();

/// A `static` cell is set by the first runtime and read by the next.
#[test]
fn a_static_cell_outlives_runtimes() {
    block_on_each(|_| async {
        let value = SHARED.get_or_init(|| async { vec![1, 2, 3] }).await;
        assert_eq!(value, &[1, 2, 3]);
    });
    assert_eq!(SHARED.get().map(Vec::len), Some(3));
}

#[test]
fn owned_value_and_traits() {
    let mut cell = OnceCell::from(String::from("a"));
    cell.get_mut().unwrap().push('b');
    assert_eq!(cell.clone(), OnceCell::new_with(Some(String::from("ab"))));
    assert_eq!(format!("{cell:?}"), r#"OnceCell { value: Some("ab") }"#);
    assert_eq!(cell.take().as_deref(), Some("ab"));
    assert_eq!(cell.into_inner(), None);
    assert_eq!(OnceCell::<u8>::default(), OnceCell::new());
}

/// A waiting caller's replaced waker is dropped outside the cell's lock:
/// its drop may call into the same cell.
#[test]
fn a_replaced_waker_may_use_the_cell_when_dropped() {
    let cell = Arc::new(OnceCell::<u32>::new());
    // Hold the turn with a first caller, polled by hand.
    let mut holder = Box::pin({
        let cell = cell.clone();
        async move { *cell.get_or_init(pending::<u32>).await }
    });
    assert!(poll_once(&mut holder).is_pending());

    let mut waiter = Box::pin({
        let cell = cell.clone();
        async move { *cell.get_or_init(|| async { 1 }).await }
    });
    let hook_result = Arc::new(Mutex::new(None));
    let hook = {
        let (cell, hook_result) = (cell.clone(), hook_result.clone());
        move || *hook_result.lock().unwrap() = Some(cell.set(7))
    };
    let waker = waker_with_drop_hook(hook);
    assert!(
        waiter
            .as_mut()
            .poll(&mut Context::from_waker(&waker))
            .is_pending()
    );
    drop(waker);
    // A new waker replaces the stored one, whose drop calls `set`.
    assert!(poll_once(&mut waiter).is_pending());
    let result = hook_result.lock().unwrap().take();
    assert_eq!(result, Some(Err(SetError::InitializingError(7))));
    // Dropping the holder gives the turn to the waiter.
    drop(holder);
    assert!(poll_once(&mut waiter).is_ready());
    assert_eq!(cell.get(), Some(&1));
}

#[test]
fn set_once_wakes_every_waiter() {
    block_on_each(|_| async {
        let once = Arc::new(SetOnce::<String>::new());
        let waiters: Vec<_> = (0..8)
            .map(|_| {
                let once = once.clone();
                rt::spawn(async move { once.wait().await.clone() })
            })
            .collect();
        rt::task::yield_now().await;
        once.set(String::from("go")).unwrap();
        for waiter in waiters {
            assert_eq!(waiter.await.unwrap(), "go");
        }
        // Late waiters see it at once; a second set is refused.
        assert_eq!(once.wait().await, "go");
        assert_eq!(once.set("again".into()), Err(SetOnceError("again".into())));
    });
}

/// Waiters that are cancelled leave nothing behind that stops the others.
#[test]
fn set_once_waiters_may_be_cancelled() {
    block_on_each(|_| async {
        let once = Arc::new(SetOnce::<u32>::new());
        let cancelled: Vec<_> = (0..8)
            .map(|_| {
                let once = once.clone();
                rt::spawn(async move { *once.wait().await })
            })
            .collect();
        let kept = rt::spawn({
            let once = once.clone();
            async move { *once.wait().await }
        });
        rt::task::yield_now().await;
        for task in &cancelled {
            task.abort();
        }
        for task in cancelled {
            assert!(task.await.is_err_and(|e| e.is_cancelled()));
        }
        once.set(4).unwrap();
        assert_eq!(kept.await.unwrap(), 4);
    });
}

static READY: SetOnce<u16> = SetOnce::const_new();

#[test]
fn set_once_in_a_static() {
    let rt = rt::runtime::Runtime::new().unwrap();
    let waiter = rt.spawn(async { *READY.wait().await });
    READY.set(443).unwrap();
    assert_eq!(rt.block_on(waiter).unwrap(), 443);
    assert_eq!(SetOnce::from(1).into_inner(), Some(1));
    assert_eq!(
        format!("{:?}", SetOnce::<u8>::default()),
        "SetOnce { value: None }"
    );
}

/// Cancelled-at-every-point stress: callers time out while another holds
/// the turn, over and over; afterwards initialisation still works.
#[test]
fn many_cancelled_waiters_then_init() {
    block_on_each(|_| async {
        let cell = Arc::new(OnceCell::<u32>::new());
        let (release_tx, release_rx) = oneshot::channel::<()>();
        let (started_tx, started_rx) = oneshot::channel();
        let holder = rt::spawn({
            let cell = cell.clone();
            async move {
                *cell
                    .get_or_init(|| async move {
                        started_tx.send(()).unwrap();
                        release_rx.await.unwrap();
                        10
                    })
                    .await
            }
        });
        started_rx.await.unwrap();
        for _ in 0..1_000 {
            rt::select! {
                biased;
                _ = cell.get_or_init(|| async { 0 }) => unreachable!("the turn is held"),
                () = async {} => {}
            }
        }
        release_tx.send(()).unwrap();
        assert_eq!(holder.await.unwrap(), 10);
        assert_eq!(cell.get_or_init(|| async { 0 }).await, &10);
    });
}

fn _assert_send_sync_and_futures_send(cell: &OnceCell<String>, once: &SetOnce<String>) {
    fn send_sync<T: Send + Sync>(_: &T) {}
    fn send<T: Send>(_: T) {}
    send_sync(cell);
    send_sync(once);
    send(cell.get_or_init(|| async { String::new() }));
    send(once.wait());
}
