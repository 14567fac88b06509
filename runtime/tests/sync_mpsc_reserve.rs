//! mpsc reservations and a closed receiver: the receiver finishes once
//! no reserved or reserving slot can deliver a value any more, and is
//! woken then, not before.

mod support;

use support::{CountingWaker, poll_once};

use rt::sync::mpsc;
use std::task::Poll;

/// tokio's `sync_mpsc::failed_reserve_many_wakes_closed_receiver`: one of
/// two slots is held by a permit and a `reserve_many(2)` waits for both.
/// After `close`, returning the permit must not wake the receiver while
/// the reservation is still pending; the reservation then fails, and that
/// leaves the channel idle and wakes the receiver.
#[test]
fn failed_reserve_many_wakes_closed_receiver() {
    let (tx, mut rx) = mpsc::channel::<()>(2);
    let permit = tx.try_reserve().unwrap();
    let mut reserve = Box::pin(tx.reserve_many(2));
    assert!(poll_once(&mut reserve).is_pending());
    rx.close();
    let recv_waker = CountingWaker::new();
    let mut recv = Box::pin(rx.recv());
    assert!(recv_waker.poll(&mut recv).is_pending());
    drop(permit);
    assert_eq!(
        recv_waker.count(),
        0,
        "woken while a reservation was pending"
    );
    assert!(matches!(poll_once(&mut reserve), Poll::Ready(Err(_))));
    assert_eq!(recv_waker.count(), 1, "not woken once the channel was idle");
    assert_eq!(poll_once(&mut recv), Poll::Ready(None));
}

/// tokio's `sync_mpsc::cancelled_reserve_many_wakes_closed_receiver`: as
/// above, with the reservation dropped instead of polled.
#[test]
fn cancelled_reserve_many_wakes_closed_receiver() {
    let (tx, mut rx) = mpsc::channel::<()>(2);
    let permit = tx.try_reserve().unwrap();
    let mut reserve = Box::pin(tx.reserve_many(2));
    assert!(poll_once(&mut reserve).is_pending());
    rx.close();
    let recv_waker = CountingWaker::new();
    let mut recv = Box::pin(rx.recv());
    assert!(recv_waker.poll(&mut recv).is_pending());
    drop(permit);
    assert_eq!(
        recv_waker.count(),
        0,
        "woken while a reservation was pending"
    );
    drop(reserve);
    assert_eq!(recv_waker.count(), 1, "not woken once the channel was idle");
    assert_eq!(poll_once(&mut recv), Poll::Ready(None));
}

/// tokio's `sync_mpsc::reserve_many_zero`, with a sender queued for a
/// slot of the full channel: reserving no slots waits for none, so it is
/// ready at once instead of queueing behind that sender; closed, it fails.
#[test]
fn reserve_many_zero_does_not_wait_behind_a_queued_sender() {
    let (tx, rx) = mpsc::channel::<u32>(1);
    tx.try_send(1).unwrap();
    let mut send = Box::pin(tx.send(2));
    assert!(poll_once(&mut send).is_pending());

    let mut reserve = Box::pin(tx.reserve_many(0));
    match poll_once(&mut reserve) {
        Poll::Ready(Ok(mut permits)) => assert!(permits.next().is_none()),
        Poll::Ready(Err(_)) => panic!("reserve_many(0) failed on an open channel"),
        Poll::Pending => panic!("reserve_many(0) waits behind a queued sender"),
    }
    drop(reserve);
    assert!(tx.try_reserve_many(0).is_ok_and(|mut p| p.next().is_none()));

    drop(send);
    drop(rx);
    assert!(matches!(
        poll_once(&mut Box::pin(tx.reserve_many(0))),
        Poll::Ready(Err(_))
    ));
    assert!(tx.try_reserve_many(0).is_err());
}
