//! `sync::broadcast`: fan-out, lagging, closing, cancel safety, and values
//! freed once every receiver has read them.

mod support;

use support::{CountingWaker, DropCounter, block_on_each, expect_panic, poll_once};

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
    // More than the capacity behind: the next receive reports the lag.
    assert_eq!(slow.len(), 10);
    assert_eq!(slow.try_recv(), Err(TryRecvError::Lagged(6)));
    assert_eq!(slow.len(), 4);
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
    let (tx, mut rx) = broadcast::channel(8);
    let tx2 = tx.clone();
    tx.send(1).unwrap();
    drop(tx);
    tx2.send(2).unwrap();
    assert_eq!(rx.try_recv(), Ok(1));
    assert_eq!(rx.try_recv(), Ok(2));
    // A sender is left: the receiver waits, it is not closed.
    let waker = CountingWaker::new();
    let mut waiting = Box::pin(rx.recv());
    assert!(waker.poll(&mut waiting).is_pending());
    assert_eq!(waker.count(), 0);
    // The last sender's drop wakes it, and then it is closed.
    drop(tx2);
    assert_eq!(waker.count(), 1);
    assert!(matches!(
        waker.poll(&mut waiting),
        std::task::Poll::Ready(Err(RecvError::Closed))
    ));
    drop(waiting);
    assert_eq!(rx.try_recv(), Err(TryRecvError::Closed));
}

#[test]
fn a_receiver_task_sees_every_value_then_the_close() {
    block_on_each(|_| async {
        let (tx, mut rx) = broadcast::channel(8);
        let waiter = rt::spawn(async move {
            let mut got = Vec::new();
            while let Ok(value) = rx.recv().await {
                got.push(value);
            }
            got
        });
        for i in 0..5 {
            tx.send(i).unwrap();
            rt::task::yield_now().await;
        }
        drop(tx);
        assert_eq!(waiter.await.unwrap(), [0, 1, 2, 3, 4]);
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
fn recv_is_cancel_safe_and_woken_by_a_send() {
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
    // A waiting receive is woken by the send, once.
    let waker = CountingWaker::new();
    let mut waiting = Box::pin(rx.recv());
    assert!(waker.poll(&mut waiting).is_pending());
    tx.send(3).unwrap();
    assert_eq!(waker.count(), 1);
    assert!(matches!(
        waker.poll(&mut waiting),
        std::task::Poll::Ready(Ok(3))
    ));
}

#[test]
fn a_panicking_destructor_of_an_overwritten_value_loses_no_wake_up() {
    struct Bomb(bool);
    impl Clone for Bomb {
        fn clone(&self) -> Bomb {
            Bomb(false)
        }
    }
    impl Drop for Bomb {
        fn drop(&mut self) {
            if self.0 && !std::thread::panicking() {
                panic!("the overwritten value's destructor panics");
            }
        }
    }
    let (tx, mut rx) = broadcast::channel(1);
    let _other = tx.subscribe(); // keeps the first value unread
    tx.send(Bomb(true)).unwrap();
    assert!(rx.try_recv().is_ok());
    let waker = CountingWaker::new();
    let mut waiting = Box::pin(rx.recv());
    assert!(waker.poll(&mut waiting).is_pending());
    // This send overwrites the bomb, which panics in the sender's thread;
    // the new value is in, and the waiting receiver was woken for it.
    let message = expect_panic(|| tx.send(Bomb(false)));
    assert!(message.contains("destructor panics"), "{message}");
    assert_eq!(waker.count(), 1);
    assert!(matches!(
        waker.poll(&mut waiting),
        std::task::Poll::Ready(Ok(_))
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

/// The receiver whose clone panicked has read the value (it moves past
/// it, as in tokio); nobody else is affected.
#[test]
fn a_panicking_clone_moves_only_that_receiver_past_the_value() {
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
    assert_eq!(a.len(), 1);
    assert_eq!(b.try_recv(), Ok(Fragile(13)));
    assert_eq!(b.try_recv(), Ok(Fragile(1)));
    assert_eq!(a.try_recv(), Ok(Fragile(1)));
    assert!(tx.is_empty());
}

#[test]
fn sender_closed_waits_for_the_last_receiver() {
    let (tx, rx) = broadcast::channel::<u8>(2);
    let other = rx.resubscribe();
    assert!(tx.same_channel(&tx.clone()) && rx.same_channel(&other));
    let waker = CountingWaker::new();
    let mut closed = Box::pin(tx.closed());
    assert!(waker.poll(&mut closed).is_pending());
    drop(rx);
    assert_eq!(waker.count(), 0, "a receiver is left");
    assert!(!tx.is_closed());
    drop(other);
    assert_eq!(waker.count(), 1);
    assert!(waker.poll(&mut closed).is_ready());
    drop(closed);
    assert!(tx.is_closed());
    // Closed at once when no receiver exists.
    assert!(poll_once(&mut Box::pin(tx.closed())).is_ready());
    // A receiver's view: closed once the senders are gone.
    let mut rx = tx.subscribe();
    assert!(!rx.is_closed());
    drop(tx);
    assert!(rx.is_closed());
    assert_eq!(rx.try_recv(), Err(TryRecvError::Closed));
}

/// A value whose clone panics: the receiving call panics once, and the
/// receiver moves past it (it does not panic again on the same value);
/// the value is freed once every receiver moved past it.
#[test]
fn a_receiver_moves_past_a_value_whose_clone_panicked() {
    struct CloneBomb {
        explodes: bool,
        _guard: support::DropGuard,
    }
    impl Clone for CloneBomb {
        fn clone(&self) -> CloneBomb {
            assert!(!self.explodes, "this value cannot be cloned");
            unreachable!("only the exploding value is received")
        }
    }
    let drops = DropCounter::new();
    let (tx, mut rx) = broadcast::channel(4);
    tx.send(CloneBomb {
        explodes: true,
        _guard: drops.guard(),
    })
    .unwrap();
    let message = expect_panic(|| rx.try_recv().map(drop));
    assert_eq!(message, "this value cannot be cloned");
    assert_eq!(rx.try_recv().err(), Some(TryRecvError::Empty));
    assert_eq!(drops.alive(), 0, "read by its only receiver, yet kept");
    // The same with `recv`.
    tx.send(CloneBomb {
        explodes: true,
        _guard: drops.guard(),
    })
    .unwrap();
    let message = expect_panic(|| futures::executor::block_on(rx.recv()).map(drop));
    assert_eq!(message, "this value cannot be cloned");
    assert_eq!(rx.len(), 0);
    assert_eq!(drops.alive(), 0);
}

#[test]
fn sender_new_starts_without_receivers() {
    let tx = broadcast::Sender::new(2);
    assert_eq!(tx.receiver_count(), 0);
    assert!(tx.send(1).is_err(), "nobody to send to");
    let mut rx = tx.subscribe();
    tx.send(2).unwrap();
    assert_eq!(rx.try_recv(), Ok(2));
}

#[test]
fn a_weak_sender_sends_while_others_live_and_does_not_keep_the_channel_open() {
    let (tx, mut rx) = broadcast::channel(4);
    let weak = tx.downgrade();
    let weak2 = weak.clone();
    assert_eq!((tx.strong_count(), tx.weak_count()), (1, 2));
    let upgraded = weak.upgrade().unwrap();
    assert_eq!(rx.sender_strong_count(), 2);
    upgraded.send("via weak").unwrap();
    drop((upgraded, tx));
    assert_eq!(rx.try_recv(), Ok("via weak"));
    // Weak senders alone: the channel is closed for the receiver.
    assert!(matches!(
        rx.try_recv(),
        Err(broadcast::error::TryRecvError::Closed)
    ));
    assert!(weak.upgrade().is_none());
    assert_eq!((weak.strong_count(), rx.sender_weak_count()), (0, 2));
    drop((weak, weak2));
    assert_eq!(rx.sender_weak_count(), 0);
}

/// As in tokio (since RUSTSEC-2025-0023), the channel's handles are `Send`
/// and `Sync` when `T` is only `Send`: clones of one value are serialised
/// by its slot's lock, so no two threads share a `&T`. tokio-stream's
/// `BroadcastStream<T: Send>` boxes `recv()` as a `Send` future, and
/// `recv()`'s future is `Sync` too (tokio's `async_send_sync.rs`): it never
/// holds a received `T` across a suspension point.
#[test]
fn handles_are_send_and_sync_for_send_only_values() {
    fn send_sync<T: Send + Sync>(_: &T) {}
    #[derive(Clone)]
    struct NotSync(std::cell::Cell<u32>);
    let (tx, mut rx) = rt::sync::broadcast::channel::<NotSync>(2);
    send_sync(&tx);
    send_sync(&rx);
    send_sync(&rx.recv());

    // And it works across threads: each receiver clones on its own thread.
    let receivers: Vec<_> = (0..4).map(|_| tx.subscribe()).collect();
    tx.send(NotSync(std::cell::Cell::new(7))).unwrap();
    let threads: Vec<_> = receivers
        .into_iter()
        .map(|mut rx| std::thread::spawn(move || rx.try_recv().map(|v| v.0.get()).ok()))
        .collect();
    for thread in threads {
        assert_eq!(thread.join().unwrap(), Some(7));
    }
    assert_eq!(rx.try_recv().map(|v| v.0.get()).ok(), Some(7));
}

/// The capacity is rounded up to a power of two, as tokio does: with 3
/// asked for, 4 values are kept, and a receiver lags only at the sixth
/// value sent once it has read the first.
#[test]
fn capacity_is_rounded_up_to_a_power_of_two() {
    let (tx, mut rx) = broadcast::channel(3);
    for i in 1..=4 {
        tx.send(i).unwrap();
    }
    assert_eq!(rx.len(), 4);
    assert_eq!(rx.try_recv(), Ok(1), "four values fit: no lag yet");
    tx.send(5).unwrap();
    assert_eq!(rx.len(), 4);
    tx.send(6).unwrap();
    assert_eq!(rx.len(), 5);
    assert_eq!(rx.try_recv(), Err(TryRecvError::Lagged(1)));
    for i in 3..=6 {
        assert_eq!(rx.try_recv(), Ok(i));
    }
    assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
}
