//! `sync::broadcast`: fan-out, lagging, closing, cancel safety, and values
//! freed once every receiver has read them.

mod support;

use support::{DropCounter, block_on_each, expect_panic, poll_once};

use rt::sync::broadcast::{
    self,
    error::{RecvError, TryRecvError},
};
use std::sync::Arc;

#[test]
fn every_receiver_sees_every_value_in_order_across_tasks() {
    const VALUES: u64 = 500;
    block_on_each(|_| async {
        let (tx, rx) = broadcast::channel(VALUES as usize);
        let receivers: Vec<_> = std::iter::once(rx)
            .chain((0..3).map(|_| tx.subscribe()))
            .map(|mut rx| {
                rt::spawn(async move {
                    let mut got = Vec::new();
                    loop {
                        match rx.recv().await {
                            Ok(value) => got.push(value),
                            Err(RecvError::Closed) => return got,
                            Err(RecvError::Lagged(n)) => panic!("lagged by {n} with room for all"),
                        }
                    }
                })
            })
            .collect();
        let senders: Vec<_> = (0..2)
            .map(|half| {
                let tx = tx.clone();
                rt::spawn(async move {
                    for i in (half..VALUES).step_by(2) {
                        tx.send(i).unwrap();
                        rt::task::yield_now().await;
                    }
                })
            })
            .collect();
        drop(tx);
        for sender in senders {
            sender.await.unwrap();
        }
        let mut first: Option<Vec<u64>> = None;
        for receiver in receivers {
            let got = receiver.await.unwrap();
            let mut sorted = got.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..VALUES).collect::<Vec<_>>());
            // One order for everybody: the order of the sends.
            match &first {
                Some(order) => assert_eq!(&got, order),
                None => first = Some(got),
            }
        }
    });
}

#[test]
fn a_lagging_receiver_is_told_how_many_it_missed_and_goes_on_from_the_oldest() {
    let (tx, mut slow) = broadcast::channel(4);
    let mut fast = tx.subscribe();
    for i in 0..10 {
        tx.send(i).unwrap();
        assert_eq!(fast.try_recv(), Ok(i));
    }
    assert_eq!(slow.len(), 4);
    assert_eq!(slow.try_recv(), Err(TryRecvError::Lagged(6)));
    for i in 6..10 {
        assert_eq!(slow.try_recv(), Ok(i));
    }
    assert_eq!(slow.try_recv(), Err(TryRecvError::Empty));
    // The async receive reports the lag the same way.
    for i in 10..16 {
        tx.send(i).unwrap();
    }
    let lagged = futures::executor::block_on(slow.recv());
    assert_eq!(lagged, Err(RecvError::Lagged(2)));
    assert_eq!(futures::executor::block_on(slow.recv()), Ok(12));
}

#[test]
fn closed_only_after_the_last_sender_and_the_last_value() {
    block_on_each(|_| async {
        let (tx, mut rx) = broadcast::channel(8);
        let tx2 = tx.clone();
        tx.send(1).unwrap();
        drop(tx);
        tx2.send(2).unwrap();
        let waiter = rt::spawn(async move {
            let mut got = Vec::new();
            while let Ok(value) = rx.recv().await {
                got.push(value);
            }
            (got, rx.recv().await)
        });
        rt::task::yield_now().await;
        drop(tx2);
        let (got, after) = waiter.await.unwrap();
        assert_eq!(got, [1, 2]);
        assert_eq!(after, Err(RecvError::Closed));
    });
}

#[test]
fn send_without_receivers_hands_the_value_back_and_subscribers_see_only_later_values() {
    let (tx, rx) = broadcast::channel(4);
    drop(rx);
    assert_eq!(tx.receiver_count(), 0);
    assert_eq!(tx.send("lost").unwrap_err().0, "lost");
    let mut first = tx.subscribe();
    assert_eq!(tx.send("a").unwrap(), 1);
    let mut second = first.resubscribe();
    assert_eq!(tx.send("b").unwrap(), 2);
    assert_eq!(first.try_recv(), Ok("a"));
    assert_eq!(first.try_recv(), Ok("b"));
    assert_eq!(second.try_recv(), Ok("b"));
    assert_eq!(second.try_recv(), Err(TryRecvError::Empty));
}

#[test]
fn recv_is_cancel_safe() {
    let (tx, mut rx) = broadcast::channel(4);
    {
        // Polled while empty, then dropped: it takes nothing.
        let mut waiting = Box::pin(rx.recv());
        assert!(poll_once(&mut waiting).is_pending());
        tx.send(1).unwrap();
    }
    tx.send(2).unwrap();
    assert_eq!(rx.try_recv(), Ok(1));
    assert_eq!(rx.try_recv(), Ok(2));
    // A waiting receive is woken by the send.
    let mut waiting = Box::pin(rx.recv());
    assert!(poll_once(&mut waiting).is_pending());
    tx.send(3).unwrap();
    assert!(matches!(
        poll_once(&mut waiting),
        std::task::Poll::Ready(Ok(3))
    ));
}

#[test]
fn a_value_is_freed_once_every_receiver_has_read_it_or_left() {
    let drops = DropCounter::new();
    let (tx, mut a) = broadcast::channel(8);
    let mut b = tx.subscribe();
    let c = tx.subscribe();
    for _ in 0..3 {
        tx.send(Arc::new(drops.guard())).unwrap();
    }
    assert_eq!(tx.len(), 3);
    for _ in 0..3 {
        drop(a.try_recv().unwrap());
        drop(b.try_recv().unwrap());
    }
    // `c` has yet to read them: they are kept for it.
    assert_eq!(drops.alive(), 3);
    assert_eq!(c.len(), 3);
    drop(c);
    assert_eq!(drops.alive(), 0);
    assert!(tx.is_empty());
    // Values nobody reads are freed when the ring overwrites them.
    for _ in 0..10 {
        tx.send(Arc::new(drops.guard())).unwrap();
    }
    assert_eq!(drops.alive(), 8);
    drop((a, b));
    assert_eq!(drops.alive(), 0);
    assert_eq!(drops.created(), 13);
}

#[test]
fn a_zero_capacity_is_refused_with_a_message() {
    let message = expect_panic(|| broadcast::channel::<()>(0));
    assert!(message.contains("capacity of at least 1"), "{message}");
}

#[test]
fn a_panicking_clone_takes_nothing() {
    use std::sync::atomic::{AtomicBool, Ordering};
    static ARMED: AtomicBool = AtomicBool::new(true);
    #[derive(Debug, PartialEq)]
    struct Fragile(u32);
    impl Clone for Fragile {
        fn clone(&self) -> Fragile {
            assert!(
                !ARMED.swap(false, Ordering::SeqCst),
                "the first clone fails"
            );
            Fragile(self.0)
        }
    }
    let (tx, mut a) = broadcast::channel(4);
    let mut b = tx.subscribe();
    tx.send(Fragile(13)).unwrap();
    tx.send(Fragile(1)).unwrap();
    let message = expect_panic(|| a.try_recv());
    assert!(message.contains("the first clone fails"), "{message}");
    // Nothing was taken or lost, by `a` or anybody else.
    assert_eq!(a.len(), 2);
    assert_eq!(a.try_recv(), Ok(Fragile(13)));
    assert_eq!(b.try_recv(), Ok(Fragile(13)));
    assert_eq!(b.try_recv(), Ok(Fragile(1)));
    assert_eq!(a.try_recv(), Ok(Fragile(1)));
    assert!(tx.is_empty());
}
