//! oneshot: delivery, closing from either side, cancellation.

mod support;

use support::{CountingWaker, expect_panic, runtimes};

use rt::sync::oneshot::{self, TryRecvError};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

fn poll<F: Future + Unpin>(future: &mut F) -> Poll<F::Output> {
    Pin::new(future).poll(&mut Context::from_waker(Waker::noop()))
}

#[test]
fn value_arrives_and_errors_when_the_other_side_is_gone() {
    let (tx, rx) = oneshot::channel();
    tx.send(1).unwrap();
    assert_eq!(futures::executor::block_on(rx), Ok(1));

    let (tx, rx) = oneshot::channel::<u8>();
    drop(tx);
    assert!(futures::executor::block_on(rx).is_err());

    let value = Arc::new(());
    let (tx, rx) = oneshot::channel();
    drop(rx);
    assert!(tx.is_closed());
    let back = tx.send(value.clone()).unwrap_err();
    assert!(Arc::ptr_eq(&back, &value));
}

#[test]
fn a_value_left_in_a_dropped_receiver_is_dropped() {
    let value = Arc::new(());
    let (tx, rx) = oneshot::channel();
    tx.send(value.clone()).unwrap();
    assert_eq!(Arc::strong_count(&value), 2);
    drop(rx);
    assert_eq!(Arc::strong_count(&value), 1);
}

#[test]
fn try_recv_and_close() {
    let (tx, mut rx) = oneshot::channel();
    assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
    tx.send(5).unwrap();
    rx.close();
    // Sent before the close: still there.
    assert_eq!(rx.try_recv(), Ok(5));
    assert_eq!(rx.try_recv(), Err(TryRecvError::Closed));

    let (tx, mut rx) = oneshot::channel::<u8>();
    rx.close();
    assert_eq!(tx.send(1), Err(1));
    assert!(futures::executor::block_on(rx).is_err());
}

#[test]
fn receiving_by_reference_is_cancel_safe() {
    let (tx, mut rx) = oneshot::channel();
    {
        let mut borrowed = &mut rx;
        assert!(poll(&mut borrowed).is_pending());
    } // the borrowed receive is dropped here
    tx.send("kept").unwrap();
    assert_eq!(futures::executor::block_on(rx), Ok("kept"));
}

#[test]
fn sender_closed_wakes_when_the_receiver_goes() {
    for (_, rt) in runtimes() {
        rt.block_on(async {
            let (mut tx, rx) = oneshot::channel::<()>();
            let mut closed = Box::pin(async move {
                tx.closed().await;
                tx.is_closed()
            });
            assert!(poll(&mut closed).is_pending());
            rt::spawn(async move { drop(rx) }).await.unwrap();
            assert!(closed.await);
        });
    }
}

#[test]
fn many_request_replies_across_tasks() {
    for (_, rt) in runtimes() {
        rt.block_on(async {
            let (requests, mut inbox) =
                rt::sync::mpsc::unbounded_channel::<(u64, oneshot::Sender<u64>)>();
            let server = rt::spawn(async move {
                let mut served = 0;
                while let Some((n, reply)) = inbox.recv().await {
                    reply.send(n * 2).unwrap();
                    served += 1;
                }
                served
            });
            let clients: Vec<_> = (0..8u64)
                .map(|c| {
                    let requests = requests.clone();
                    rt::spawn(async move {
                        let mut sum = 0;
                        for i in 0..100 {
                            let (tx, rx) = oneshot::channel();
                            requests.send((c * 1000 + i, tx)).unwrap();
                            sum += rx.await.unwrap();
                        }
                        sum
                    })
                })
                .collect();
            drop(requests);
            let mut total = 0;
            for client in clients {
                total += client.await.unwrap();
            }
            let expected: u64 = (0..8u64)
                .flat_map(|c| (0..100).map(move |i| 2 * (c * 1000 + i)))
                .sum();
            assert_eq!(total, expected);
            assert_eq!(server.await.unwrap(), 800);
        });
    }
}

/// Each half lets go of the waker it registered when it is dropped (or,
/// for the sender, consumed by `send`), not when the other half goes.
#[test]
fn a_dropped_half_releases_its_waker_at_once() {
    let counter = CountingWaker::new();
    let waker = counter.waker();
    let mut cx = std::task::Context::from_waker(&waker);

    let (tx, mut rx) = oneshot::channel::<u8>();
    assert!(std::pin::Pin::new(&mut rx).poll(&mut cx).is_pending());
    drop(rx);
    assert_eq!(
        Arc::strong_count(&counter),
        2,
        "the receiver's waker is held"
    );
    drop(tx);

    for send in [false, true] {
        let (mut tx, rx) = oneshot::channel::<u8>();
        assert!(tx.poll_closed(&mut cx).is_pending());
        if send {
            tx.send(1).unwrap();
        } else {
            drop(tx);
        }
        assert_eq!(
            Arc::strong_count(&counter),
            2,
            "the sender's waker is held (send: {send})"
        );
        drop(rx);
    }
}

#[test]
fn is_empty_and_is_terminated_follow_the_value() {
    let (tx, mut rx) = oneshot::channel();
    assert!(rx.is_empty() && !rx.is_terminated());
    tx.send(4).unwrap();
    assert!(!rx.is_empty() && !rx.is_terminated());
    assert_eq!(poll(&mut rx), Poll::Ready(Ok(4)));
    assert!(rx.is_empty() && rx.is_terminated());

    let (tx, mut rx) = oneshot::channel::<u8>();
    drop(tx);
    assert!(rx.is_empty() && !rx.is_terminated());
    assert!(poll(&mut rx).is_ready());
    assert!(rx.is_terminated());

    let (tx, mut rx) = oneshot::channel();
    tx.send(1).unwrap();
    assert_eq!(rx.try_recv(), Ok(1));
    assert!(rx.is_terminated(), "try_recv took the value");
}

/// A receiver that returned its result has nothing more to give: polling
/// it again is misuse and panics naming the fix, as tokio's does (tokio's
/// `sync_oneshot::close_try_recv_poll`), whether the result came from a
/// poll or from `try_recv`, a value or an error.
#[test]
fn polling_a_terminated_receiver_panics_naming_is_terminated() {
    let (tx, mut rx) = oneshot::channel();
    tx.send(4).unwrap();
    assert_eq!(poll(&mut rx), Poll::Ready(Ok(4)));
    let message = expect_panic(|| poll(&mut rx));
    assert!(message.contains("is_terminated()"), "{message}");

    let (_tx, mut rx) = oneshot::channel::<u8>();
    rx.close();
    assert_eq!(rx.try_recv(), Err(TryRecvError::Closed));
    let message = expect_panic(|| poll(&mut rx));
    assert!(
        message.contains("polled after it returned its result"),
        "{message}"
    );

    // `try_recv` of an empty channel returns no result: polling goes on.
    let (tx, mut rx) = oneshot::channel();
    assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
    assert_eq!(poll(&mut rx), Poll::Pending);
    tx.send(1).unwrap();
    assert_eq!(poll(&mut rx), Poll::Ready(Ok(1)));
}

#[test]
fn errors_live_under_the_error_module_too() {
    let (tx, mut rx) = oneshot::channel::<u8>();
    let empty: oneshot::error::TryRecvError = rx.try_recv().unwrap_err();
    assert_eq!(empty, TryRecvError::Empty);
    drop(tx);
    let closed: oneshot::error::RecvError = futures::executor::block_on(rx).unwrap_err();
    assert_eq!(closed.to_string(), "oneshot sender dropped without sending");
}
