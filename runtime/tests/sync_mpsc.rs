//! mpsc: capacity, closing, cancellation, many producers.

mod support;

use support::{CountingWaker, poll_once, runtimes};

use rt::sync::mpsc::{
    self,
    error::{TryRecvError, TrySendError},
};
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::Ordering::SeqCst;
use std::task::{Context, Poll};

#[test]
fn send_waits_for_capacity() {
    let (tx, mut rx) = mpsc::channel(1);
    tx.try_send(1).unwrap();
    assert_eq!(tx.try_send(2), Err(TrySendError::Full(2)));
    let mut send = Box::pin(tx.send(3));
    assert!(poll_once(&mut send).is_pending());
    assert_eq!(rx.try_recv(), Ok(1));
    assert!(matches!(poll_once(&mut send), Poll::Ready(Ok(()))));
    assert_eq!(rx.try_recv(), Ok(3));
    assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
}

#[test]
fn waiting_senders_are_served_in_order() {
    let (tx, mut rx) = mpsc::channel(1);
    tx.try_send(0).unwrap();
    let mut sends: Vec<_> = (1..4).map(|i| Box::pin(tx.send(i))).collect();
    for send in &mut sends {
        assert!(poll_once(send).is_pending());
    }
    for expected in 0..3 {
        assert_eq!(rx.try_recv(), Ok(expected));
        for (i, send) in sends.iter_mut().enumerate() {
            if i == expected {
                assert!(poll_once(send).is_ready());
            } else if i > expected {
                assert!(poll_once(send).is_pending());
            }
        }
    }
    assert_eq!(rx.try_recv(), Ok(3));
}

#[test]
fn permits_reserve_slots() {
    let (tx, mut rx) = mpsc::channel(2);
    let permit = tx.try_reserve().unwrap();
    let owned = tx.clone().try_reserve_owned().unwrap();
    assert_eq!(tx.capacity(), 0);
    assert!(matches!(tx.try_send(0), Err(TrySendError::Full(0))));
    drop(permit); // unused: the slot comes back
    assert_eq!(tx.capacity(), 1);
    let _tx2 = owned.send(7);
    futures::executor::block_on(tx.reserve()).unwrap().send(8);
    assert_eq!(rx.try_recv(), Ok(7));
    assert_eq!(rx.try_recv(), Ok(8));
    assert_eq!(tx.capacity(), 2);
    assert_eq!(tx.max_capacity(), 2);
    // The receiver sees the same numbers.
    let permit = tx.try_reserve().unwrap();
    assert_eq!((rx.capacity(), rx.max_capacity()), (1, 2));
    drop(permit);
    assert_eq!(rx.capacity(), 2);
}

#[test]
fn halves_tell_their_channel_and_its_senders() {
    let (tx, rx) = mpsc::channel::<u8>(1);
    let (other_tx, _other_rx) = mpsc::channel::<u8>(1);
    assert!(tx.same_channel(&tx.clone()) && !tx.same_channel(&other_tx));
    let weak = tx.downgrade();
    let tx2 = weak.upgrade().unwrap();
    assert_eq!((rx.sender_strong_count(), rx.sender_weak_count()), (2, 1));
    drop((tx, tx2));
    assert_eq!(rx.sender_strong_count(), 0);
    assert!(rx.is_closed() && weak.upgrade().is_none());
    drop(weak);
    assert_eq!(rx.sender_weak_count(), 0);

    // Owned permits know their channel, and hand their sender back.
    let (tx, _rx) = mpsc::channel::<u8>(2);
    let first = tx.clone().try_reserve_owned().unwrap();
    let second = tx.clone().try_reserve_owned().unwrap();
    assert!(first.same_channel(&second) && first.same_channel_as_sender(&tx));
    let other = other_tx.try_reserve_owned().unwrap();
    assert!(!first.same_channel(&other) && !other.same_channel_as_sender(&tx));
    assert!(first.send(1).same_channel(&second.release()));
    assert_eq!(
        TrySendError::from(mpsc::error::SendError(3)),
        TrySendError::Closed(3)
    );

    let (tx, rx) = mpsc::unbounded_channel::<u8>();
    let (other_tx, _other_rx) = mpsc::unbounded_channel::<u8>();
    assert!(tx.same_channel(&tx.clone()) && !tx.same_channel(&other_tx));
    let weak = tx.downgrade();
    assert_eq!((rx.sender_strong_count(), rx.sender_weak_count()), (1, 1));
    drop(tx);
    assert_eq!(rx.sender_strong_count(), 0);
    assert!(rx.is_closed() && weak.upgrade().is_none());
}

#[test]
fn recv_many_takes_up_to_the_limit() {
    let (tx, mut rx) = mpsc::unbounded_channel();
    for i in 0..5 {
        tx.send(i).unwrap();
    }
    let mut buf = vec![];
    futures::executor::block_on(async {
        assert_eq!(rx.recv_many(&mut buf, 3).await, 3);
        assert_eq!(rx.recv_many(&mut buf, 3).await, 2);
        assert_eq!(rx.recv_many(&mut buf, 0).await, 0);
        drop(tx);
        assert_eq!(rx.recv_many(&mut buf, 3).await, 0);
    });
    assert_eq!(buf, [0, 1, 2, 3, 4]);
}

#[test]
fn receiving_ends_with_none_after_all_senders_drop() {
    let (tx, mut rx) = mpsc::channel(4);
    let tx2 = tx.clone();
    tx.try_send(1).unwrap();
    drop(tx);
    tx2.try_send(2).unwrap();
    let mut recv = Box::pin(async move {
        let mut got = vec![];
        while let Some(v) = rx.recv().await {
            got.push(v);
        }
        got
    });
    assert!(poll_once(&mut recv).is_pending());
    drop(tx2);
    assert_eq!(futures::executor::block_on(recv), [1, 2]);
}

#[test]
fn close_keeps_queued_values_and_fails_new_sends() {
    let (tx, mut rx) = mpsc::channel(1);
    tx.try_send(1).unwrap();
    let mut blocked = Box::pin(tx.send(2));
    assert!(poll_once(&mut blocked).is_pending());
    rx.close();
    assert!(tx.is_closed());
    assert_eq!(
        poll_once(&mut blocked).map(|r| r.unwrap_err().0),
        Poll::Ready(2)
    );
    assert!(matches!(tx.try_send(3), Err(TrySendError::Closed(3))));
    futures::executor::block_on(async {
        tx.closed().await;
        assert_eq!(rx.recv().await, Some(1));
        assert_eq!(rx.recv().await, None);
    });
}

#[test]
fn a_permit_taken_before_close_still_delivers() {
    let (tx, mut rx) = mpsc::channel(2);
    let permit = tx.try_reserve().unwrap();
    rx.close();
    let mut recv = Box::pin(rx.recv());
    assert!(
        poll_once(&mut recv).is_pending(),
        "a reserved slot may still deliver"
    );
    permit.send(5);
    assert_eq!(poll_once(&mut recv), Poll::Ready(Some(5)));
    drop(recv);
    assert_eq!(futures::executor::block_on(rx.recv()), None);
}

#[test]
fn a_closed_receiver_is_woken_when_a_granted_send_is_cancelled() {
    let (tx, mut rx) = mpsc::channel(1);
    tx.try_send(1).unwrap();
    let mut send = Box::pin(tx.send(2));
    assert!(poll_once(&mut send).is_pending());
    assert_eq!(rx.try_recv(), Ok(1)); // the slot is granted to `send`
    rx.close();
    let flag = CountingWaker::new();
    let waker = flag.waker();
    let mut recv = Box::pin(rx.recv());
    // The granted slot may still deliver, so the receiver waits...
    assert!(
        recv.as_mut()
            .poll(&mut Context::from_waker(&waker))
            .is_pending()
    );
    drop(send); // ...until the send is cancelled instead.
    assert_eq!(flag.count(), 1);
    assert_eq!(poll_once(&mut recv), Poll::Ready(None));
}

#[test]
fn dropping_the_receiver_drops_queued_values() {
    let value = Arc::new(());
    let (tx, rx) = mpsc::channel(4);
    tx.try_send(value.clone()).unwrap();
    tx.try_send(value.clone()).unwrap();
    assert_eq!(Arc::strong_count(&value), 3);
    drop(rx);
    assert_eq!(Arc::strong_count(&value), 1);
    assert!(tx.try_send(value.clone()).is_err());
    assert!(futures::executor::block_on(tx.send(value.clone())).is_err());
    assert_eq!(Arc::strong_count(&value), 1);

    let (tx, rx) = mpsc::unbounded_channel();
    tx.send(value.clone()).unwrap();
    drop(rx);
    assert_eq!(Arc::strong_count(&value), 1);
    assert!(tx.send(value.clone()).is_err());
}

#[test]
fn cancelled_send_and_recv_lose_nothing() {
    let (tx, mut rx) = mpsc::channel(1);
    tx.try_send(1).unwrap();
    let mut send = Box::pin(tx.send(2));
    assert!(poll_once(&mut send).is_pending());
    drop(send); // cancelled while waiting: no slot taken
    assert_eq!(rx.try_recv(), Ok(1));
    let mut send = Box::pin(tx.send(3));
    let mut other = Box::pin(tx.send(4));
    tx.try_send(9).unwrap();
    assert!(poll_once(&mut send).is_pending());
    assert!(poll_once(&mut other).is_pending());
    assert_eq!(rx.try_recv(), Ok(9)); // the slot is granted to `send`...
    drop(send); // ...which is cancelled before it looks: `other` gets it
    assert!(matches!(poll_once(&mut other), Poll::Ready(Ok(()))));
    assert_eq!(rx.try_recv(), Ok(4));

    tx.try_send(6).unwrap();
    let mut reserve = Box::pin(tx.reserve());
    assert!(poll_once(&mut reserve).is_pending());
    assert_eq!(rx.try_recv(), Ok(6)); // the slot is granted to `reserve`...
    drop(reserve); // ...which is cancelled: the slot comes back
    assert_eq!(tx.capacity(), 1);

    let mut recv = Box::pin(rx.recv());
    assert!(poll_once(&mut recv).is_pending());
    drop(recv); // cancelled receive
    tx.try_send(5).unwrap();
    assert_eq!(rx.try_recv(), Ok(5));
    assert_eq!(tx.capacity(), 1);
}

fn many_producers_exact(bounded: bool) {
    const PRODUCERS: u64 = 5;
    const EACH: u64 = if cfg!(miri) { 40 } else { 1000 };
    for (_, rt) in runtimes() {
        let received = rt.block_on(async {
            let mut got = Vec::new();
            if bounded {
                let (tx, mut rx) = mpsc::channel(16);
                for p in 0..PRODUCERS {
                    let tx = tx.clone();
                    rt::spawn(async move {
                        for i in 0..EACH {
                            tx.send(p * EACH + i).await.unwrap();
                        }
                    });
                }
                drop(tx);
                let mut buf = Vec::new();
                while rx.recv_many(&mut buf, 7).await > 0 {
                    got.append(&mut buf);
                }
            } else {
                let (tx, mut rx) = mpsc::unbounded_channel();
                for p in 0..PRODUCERS {
                    let tx = tx.clone();
                    rt::spawn(async move {
                        for i in 0..EACH {
                            tx.send(p * EACH + i).unwrap();
                            if i % 64 == 0 {
                                rt::task::yield_now().await;
                            }
                        }
                    });
                }
                drop(tx);
                while let Some(v) = rx.recv().await {
                    got.push(v);
                }
            }
            got
        });
        assert_eq!(received.len() as u64, PRODUCERS * EACH);
        // Per producer, values arrive in the order sent, each exactly once.
        for p in 0..PRODUCERS {
            let mine: Vec<u64> = received.iter().copied().filter(|v| v / EACH == p).collect();
            let expected: Vec<u64> = (0..EACH).map(|i| p * EACH + i).collect();
            assert_eq!(mine, expected);
        }
    }
}

#[test]
fn many_producers_bounded() {
    many_producers_exact(true);
}

#[test]
fn many_producers_unbounded() {
    many_producers_exact(false);
}

#[test]
fn channels_work_across_plain_threads() {
    let (tx, mut rx) = mpsc::channel(2);
    let producers: Vec<_> = (0..3)
        .map(|p| {
            let tx = tx.clone();
            std::thread::spawn(move || {
                for i in 0..200 {
                    futures::executor::block_on(tx.send(p * 200 + i)).unwrap();
                }
            })
        })
        .collect();
    drop(tx);
    let mut sum = 0;
    futures::executor::block_on(async {
        while let Some(v) = rx.recv().await {
            sum += v;
        }
    });
    for producer in producers {
        producer.join().unwrap();
    }
    assert_eq!(sum, (0..600).sum::<i32>());
}

/// Counts its drops.
struct Counted(Arc<std::sync::atomic::AtomicUsize>);

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_add(1, SeqCst);
    }
}

/// Threads send while the receiver is dropped mid-stream: every value is
/// dropped exactly once (received, refused and handed back, or dropped
/// with the receiver), and none later than the receiver's drop and the
/// sends all returned.
#[test]
fn values_racing_the_receivers_drop_are_dropped_once() {
    const SENDERS: usize = 4;
    const EACH: usize = 500;
    for bounded in [true, false] {
        let drops = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counted = || Counted(drops.clone());
        let (btx, mut brx) = mpsc::channel(64);
        let (utx, mut urx) = mpsc::unbounded_channel();
        let senders: Vec<_> = (0..SENDERS)
            .map(|_| {
                let (btx, utx) = (btx.clone(), utx.clone());
                let values: Vec<_> = (0..EACH).map(|_| counted()).collect();
                std::thread::spawn(move || {
                    for value in values {
                        if bounded {
                            let _ = futures::executor::block_on(btx.send(value));
                        } else {
                            let _ = utx.send(value);
                        }
                    }
                })
            })
            .collect();
        drop((btx, utx));
        for _ in 0..EACH {
            if bounded {
                drop(futures::executor::block_on(brx.recv()));
            } else {
                drop(futures::executor::block_on(urx.recv()));
            }
        }
        drop((brx, urx));
        for sender in senders {
            sender.join().unwrap();
        }
        assert_eq!(drops.load(SeqCst), SENDERS * EACH, "bounded: {bounded}");
    }
}

/// Holds a sender of its own channel and sends on it when dropped.
struct SendsOnDrop {
    drops: Arc<std::sync::atomic::AtomicUsize>,
    tx: Option<mpsc::UnboundedSender<SendsOnDrop>>,
}

impl Drop for SendsOnDrop {
    fn drop(&mut self) {
        self.drops.fetch_add(1, SeqCst);
        if let Some(tx) = self.tx.take() {
            let echo = SendsOnDrop {
                drops: self.drops.clone(),
                tx: None,
            };
            // The receiver is gone: refused, and the echo comes back to be
            // dropped here. Then this (maybe last) sender drops too.
            assert!(tx.send(echo).is_err());
        }
    }
}

/// Values queued when the receiver drops are dropped with it, each once,
/// even when their destructors send on and drop senders of the channel
/// being torn down.
#[test]
fn a_destructor_may_use_the_channel_being_dropped() {
    let drops = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let (tx, rx) = mpsc::unbounded_channel();
    for _ in 0..40 {
        let value = SendsOnDrop {
            drops: drops.clone(),
            tx: Some(tx.clone()),
        };
        tx.send(value).unwrap();
    }
    drop(tx);
    drop(rx);
    // 40 queued values, each with its refused echo.
    assert_eq!(drops.load(SeqCst), 80);
}

/// Counts its drop, then panics if told to.
struct DropThenMaybePanic {
    dropped: Arc<std::sync::atomic::AtomicUsize>,
    panics: bool,
}

impl Drop for DropThenMaybePanic {
    fn drop(&mut self) {
        self.dropped.fetch_add(1, SeqCst);
        if self.panics {
            panic!("a message's destructor panicked");
        }
    }
}

/// The receiver's drop drops every queued value even when one destructor
/// panics (the panic goes on afterwards), while the senders are alive.
#[test]
fn a_panicking_destructor_does_not_keep_the_other_values_alive() {
    for bounded in [true, false] {
        let dropped = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let value = |panics| DropThenMaybePanic {
            dropped: dropped.clone(),
            panics,
        };
        let (bounded_tx, bounded_rx) = mpsc::channel(4);
        let (unbounded_tx, unbounded_rx) = mpsc::unbounded_channel();
        let receiver: Box<dyn std::any::Any + Send> = if bounded {
            for panics in [false, true, false] {
                bounded_tx.try_send(value(panics)).unwrap();
            }
            Box::new(bounded_rx)
        } else {
            for panics in [false, true, false] {
                unbounded_tx.send(value(panics)).unwrap();
            }
            Box::new(unbounded_rx)
        };
        let message = support::expect_panic(move || drop(receiver));
        assert_eq!(message, "a message's destructor panicked");
        assert_eq!(dropped.load(SeqCst), 3, "bounded: {bounded}");
        assert!(if bounded {
            bounded_tx.is_closed()
        } else {
            unbounded_tx.is_closed()
        });
    }
}

/// The receiver's drop lets go of the waker it registered at once, not
/// when the last sender goes.
#[test]
fn dropping_a_waiting_receiver_releases_its_waker() {
    let counter = CountingWaker::new();
    let waker = counter.waker();
    let (tx, mut rx) = mpsc::channel::<u8>(1);
    let (unbounded_tx, mut unbounded_rx) = mpsc::unbounded_channel::<u8>();
    let mut cx = Context::from_waker(&waker);
    assert!(rx.poll_recv(&mut cx).is_pending());
    assert!(unbounded_rx.poll_recv(&mut cx).is_pending());
    drop(waker);
    assert_eq!(Arc::strong_count(&counter), 3);
    drop(rx);
    drop(unbounded_rx);
    assert_eq!(
        Arc::strong_count(&counter),
        1,
        "a dropped receiver's waker is still held"
    );
    drop((tx, unbounded_tx));
}

/// A `reserve` that was granted a slot before `close` but had not
/// returned it yet fails, as any reserve after the close; the slot goes
/// back, so the closed, drained receiver is woken and finishes.
#[test]
fn a_reserve_granted_before_close_fails_after_it() {
    let (tx, mut rx) = mpsc::channel(1);
    tx.try_send(1).unwrap();
    let mut reserve = Box::pin(tx.reserve());
    assert!(poll_once(&mut reserve).is_pending());
    assert_eq!(rx.try_recv(), Ok(1)); // the freed slot is granted to `reserve`
    rx.close();
    let counter = CountingWaker::new();
    let waker = counter.waker();
    let mut recv = Box::pin(rx.recv());
    assert!(
        recv.as_mut()
            .poll(&mut Context::from_waker(&waker))
            .is_pending(),
        "the granted slot may still deliver"
    );
    assert!(matches!(poll_once(&mut reserve), Poll::Ready(Err(_))));
    assert_eq!(counter.count(), 1, "the receiver was not woken");
    assert_eq!(poll_once(&mut recv), Poll::Ready(None));
}

#[test]
fn reserve_many_hands_out_that_many_slots() {
    let (tx, mut rx) = mpsc::channel(3);
    let mut permits = futures::executor::block_on(tx.reserve_many(2)).unwrap();
    assert_eq!(permits.len(), 2);
    assert_eq!(tx.capacity(), 1);
    permits.next().unwrap().send(1);
    // The unused slot goes back when the iterator drops.
    drop(permits);
    assert_eq!(tx.capacity(), 2);
    assert_eq!(rx.try_recv(), Ok(1));
    assert_eq!(tx.capacity(), 3);
    // More than the channel holds can never be reserved.
    assert!(futures::executor::block_on(tx.reserve_many(4)).is_err());
    assert!(
        futures::executor::block_on(tx.reserve_many(0))
            .unwrap()
            .next()
            .is_none()
    );
}

#[test]
fn reserve_many_waits_for_all_its_slots_at_once() {
    let (tx, mut rx) = mpsc::channel(2);
    tx.try_send(0).unwrap();
    let mut reserve = Box::pin(tx.reserve_many(2));
    assert!(poll_once(&mut reserve).is_pending());
    // One slot free is not enough; nor does a later sender get ahead.
    assert_eq!(rx.try_recv(), Ok(0));
    assert!(matches!(tx.try_send(9), Err(TrySendError::Full(9))));
    let Poll::Ready(Ok(permits)) = poll_once(&mut reserve) else {
        panic!("two free slots were not granted");
    };
    for (i, permit) in permits.enumerate() {
        permit.send(i);
    }
    assert_eq!((rx.try_recv(), rx.try_recv()), (Ok(0), Ok(1)));
    drop(reserve);
    rx.close();
    assert!(futures::executor::block_on(tx.reserve_many(1)).is_err());
}

#[test]
fn try_reserve_many_fails_instead_of_waiting() {
    let (tx, rx) = mpsc::channel::<u8>(2);
    let permits = tx.try_reserve_many(2).unwrap();
    assert!(matches!(
        tx.try_reserve_many(1),
        Err(TrySendError::Full(()))
    ));
    drop(permits);
    assert!(matches!(
        tx.try_reserve_many(3),
        Err(TrySendError::Full(()))
    ));
    assert_eq!(tx.try_reserve_many(0).unwrap().len(), 0);
    drop(rx);
    assert!(matches!(
        tx.try_reserve_many(1),
        Err(TrySendError::Closed(()))
    ));
}

#[test]
fn receivers_report_closed_length_and_emptiness() {
    let (tx, mut rx) = mpsc::channel(4);
    let (unbounded_tx, mut unbounded_rx) = mpsc::unbounded_channel();
    assert!(!rx.is_closed() && !unbounded_rx.is_closed());
    tx.try_send(1).unwrap();
    unbounded_tx.send(1).unwrap();
    assert_eq!((rx.len(), unbounded_rx.len()), (1, 1));
    assert!(!rx.is_empty() && !unbounded_rx.is_empty());
    rx.close();
    unbounded_rx.close();
    assert!(rx.is_closed() && unbounded_rx.is_closed());
    let (tx2, rx2) = mpsc::channel::<u8>(1);
    drop(tx2);
    assert!(rx2.is_closed(), "closed once every sender is gone");
    drop(tx);
}

#[test]
fn weak_senders_do_not_keep_the_channel_open() {
    let (tx, mut rx) = mpsc::channel::<u8>(2);
    let weak = tx.downgrade();
    let tx2 = weak.upgrade().unwrap();
    assert_eq!((tx.strong_count(), tx.weak_count()), (2, 1));
    let weak2 = weak.clone();
    assert_eq!((weak.strong_count(), weak.weak_count()), (2, 2));
    drop((tx, tx2));
    // Only weak senders left: the receiver ends, and none upgrades.
    assert_eq!(futures::executor::block_on(rx.recv()), None);
    assert!(weak.upgrade().is_none() && weak2.upgrade().is_none());
    assert_eq!(weak.strong_count(), 0);

    let (tx, mut rx) = mpsc::unbounded_channel::<u8>();
    let weak = tx.downgrade();
    weak.upgrade().unwrap().send(3).unwrap();
    assert_eq!((tx.strong_count(), tx.weak_count()), (1, 1));
    drop(tx);
    assert_eq!(rx.try_recv(), Ok(3));
    assert_eq!(rx.try_recv(), Err(TryRecvError::Disconnected));
    assert!(weak.upgrade().is_none());
}

#[test]
fn send_timeout_gives_the_value_back_when_no_slot_comes() {
    let rt = support::paused();
    rt.block_on(async {
        let (tx, mut rx) = mpsc::channel(1);
        tx.send_timeout(1, support::ms(10)).await.unwrap();
        let start = rt::time::Instant::now();
        let full = tx.send_timeout(2, support::ms(10)).await;
        assert_eq!(full, Err(mpsc::error::SendTimeoutError::Timeout(2)));
        assert_eq!(start.elapsed(), support::ms(10));
        assert_eq!(rx.recv().await, Some(1));
        rx.close();
        let closed = tx.send_timeout(3, support::ms(10)).await;
        assert_eq!(closed.unwrap_err().into_inner(), 3);
    });
}

#[test]
fn poll_recv_many_registers_its_waker_and_a_send_wakes_it() {
    let (tx, mut rx) = mpsc::channel::<u8>(4);
    let counter = CountingWaker::new();
    let waker = counter.waker();
    let mut cx = Context::from_waker(&waker);
    let mut buf = Vec::new();
    assert_eq!(rx.poll_recv_many(&mut cx, &mut buf, 4), Poll::Pending);
    tx.try_send(1).unwrap();
    tx.try_send(2).unwrap();
    assert!(counter.count() >= 1, "the first send woke the receiver");
    assert_eq!(rx.poll_recv_many(&mut cx, &mut buf, 4), Poll::Ready(2));
    drop(tx);
    assert_eq!(rx.poll_recv_many(&mut cx, &mut buf, 4), Poll::Ready(0));
    assert_eq!(buf, [1, 2]);
}

#[test]
fn dropping_the_receiver_frees_the_slots_of_the_values_it_drops() {
    // As tokio's: the receiver's drop empties the queue and gives each
    // value's slot back, so `capacity` counts only what senders still
    // hold (here one unused permit).
    let (tx, rx) = mpsc::channel::<u8>(3);
    tx.try_send(1).unwrap();
    tx.try_send(2).unwrap();
    let permit = tx.try_reserve().unwrap();
    assert_eq!(tx.capacity(), 0);
    drop(rx);
    assert!(tx.is_closed());
    assert_eq!(
        tx.capacity(),
        2,
        "the dropped values' slots stayed taken after the receiver was gone"
    );
    drop(permit);
    assert_eq!(tx.capacity(), 3);
}
