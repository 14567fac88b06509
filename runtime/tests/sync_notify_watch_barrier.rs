//! Notify, watch and Barrier.

mod support;

use support::{CountingWaker, miri_or, poll_once, runtimes};

use rt::sync::{Barrier, Notify, watch};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};

#[test]
fn notify_one_without_waiter_stores_one_permit() {
    let notify = Notify::new();
    notify.notify_one();
    notify.notify_one();
    let mut first = Box::pin(notify.notified());
    assert!(poll_once(&mut first).is_ready());
    let mut second = Box::pin(notify.notified());
    assert!(poll_once(&mut second).is_pending());
}

#[test]
fn notify_one_wakes_waiters_in_fifo_order() {
    let notify = Notify::new();
    let mut waiters: Vec<_> = (0..3).map(|_| Box::pin(notify.notified())).collect();
    for waiter in &mut waiters {
        assert!(poll_once(waiter).is_pending());
    }
    for served in 0..3 {
        notify.notify_one();
        for (i, waiter) in waiters.iter_mut().enumerate().skip(served) {
            assert_eq!(poll_once(waiter).is_ready(), i == served);
        }
    }
}

#[test]
fn notify_waiters_wakes_created_futures_and_stores_nothing() {
    let notify = Notify::new();
    let mut polled = Box::pin(notify.notified());
    assert!(poll_once(&mut polled).is_pending());
    let mut unpolled = Box::pin(notify.notified());
    notify.notify_waiters();
    let mut later = Box::pin(notify.notified());
    assert!(poll_once(&mut polled).is_ready());
    assert!(poll_once(&mut unpolled).is_ready());
    assert!(poll_once(&mut later).is_pending());
}

#[test]
fn a_dropped_notified_waiter_passes_the_notification_on() {
    let notify = Notify::new();
    let mut first = Box::pin(notify.notified());
    let mut second = Box::pin(notify.notified());
    assert!(poll_once(&mut first).is_pending());
    assert!(poll_once(&mut second).is_pending());
    notify.notify_one(); // picks `first`
    drop(first);
    assert!(poll_once(&mut second).is_ready());

    // Dropped with no other waiter: it becomes the permit.
    let mut only = Box::pin(notify.notified());
    assert!(poll_once(&mut only).is_pending());
    notify.notify_one();
    drop(only);
    let mut next = Box::pin(notify.notified());
    assert!(poll_once(&mut next).is_ready());
}

#[test]
fn a_dropped_unnotified_waiter_takes_nothing() {
    let notify = Notify::new();
    let mut first = Box::pin(notify.notified());
    assert!(poll_once(&mut first).is_pending());
    drop(first);
    let mut second = Box::pin(notify.notified());
    assert!(poll_once(&mut second).is_pending());
    notify.notify_one();
    assert!(poll_once(&mut second).is_ready());
}

#[test]
fn notify_ping_pong_counts_exactly() {
    const ROUNDS: usize = 500;
    for (_, rt) in runtimes() {
        rt.block_on(async {
            let ping = Arc::new(Notify::new());
            let pong = Arc::new(Notify::new());
            let count = Arc::new(AtomicUsize::new(0));
            let responder = {
                let (ping, pong, count) = (ping.clone(), pong.clone(), count.clone());
                rt::spawn(async move {
                    for _ in 0..ROUNDS {
                        ping.notified().await;
                        count.fetch_add(1, SeqCst);
                        pong.notify_one();
                    }
                })
            };
            for i in 0..ROUNDS {
                ping.notify_one();
                pong.notified().await;
                assert_eq!(count.load(SeqCst), i + 1);
            }
            responder.await.unwrap();
        });
    }
}

#[test]
fn notify_works_outside_a_runtime() {
    let notify = Arc::new(Notify::new());
    let waiter = {
        let notify = notify.clone();
        std::thread::spawn(move || futures::executor::block_on(notify.notified()))
    };
    notify.notify_one();
    waiter.join().unwrap();
}

#[test]
fn watch_receivers_see_the_latest_value() {
    let (tx, mut rx) = watch::channel(0);
    let mut rx2 = rx.clone();
    assert!(!rx.has_changed().unwrap());
    tx.send(1).unwrap();
    tx.send(2).unwrap();
    futures::executor::block_on(async {
        rx.changed().await.unwrap();
        assert_eq!(*rx.borrow(), 2);
        assert_eq!(*rx2.borrow_and_update(), 2);
    });
    let mut pending = Box::pin(rx.changed());
    assert!(poll_once(&mut pending).is_pending());
    drop(pending); // cancelled: nothing is marked seen
    tx.send_modify(|v| *v += 1);
    assert!(rx.has_changed().unwrap());
    assert!(rx2.has_changed().unwrap());
    drop(tx);
    futures::executor::block_on(async {
        rx.changed().await.unwrap(); // the unseen value first
        assert_eq!(*rx.borrow(), 3);
        assert!(rx.changed().await.is_err());
        assert!(rx2.changed().await.is_ok());
        assert!(rx2.changed().await.is_err());
    });
}

#[test]
fn watch_sender_knows_when_receivers_are_gone() {
    let (tx, rx) = watch::channel(());
    assert_eq!(tx.receiver_count(), 1);
    let mut closed = Box::pin(tx.closed());
    assert!(poll_once(&mut closed).is_pending());
    drop(rx);
    assert!(poll_once(&mut closed).is_ready());
    assert!(tx.send(()).is_err());
}

#[test]
fn watch_values_arrive_in_order_under_contention() {
    for (_, rt) in runtimes() {
        rt.block_on(async {
            let (tx, rx) = watch::channel(0usize);
            let readers: Vec<_> = (0..4)
                .map(|_| {
                    let mut rx = rx.clone();
                    rt::spawn(async move {
                        let mut last = 0;
                        while rx.changed().await.is_ok() {
                            let now = *rx.borrow_and_update();
                            assert!(now > last, "values went backwards: {last} then {now}");
                            last = now;
                        }
                        last
                    })
                })
                .collect();
            drop(rx);
            for i in 1..=300 {
                tx.send(i).unwrap();
                if i % 10 == 0 {
                    rt::task::yield_now().await;
                }
            }
            drop(tx);
            for reader in readers {
                assert_eq!(reader.await.unwrap(), 300);
            }
        });
    }
}

#[test]
fn barrier_releases_each_generation_with_one_leader() {
    for (_, rt) in runtimes() {
        rt.block_on(async {
            let barrier = Arc::new(Barrier::new(4));
            let leaders = Arc::new(AtomicUsize::new(0));
            let arrived = Arc::new(AtomicUsize::new(0));
            let tasks: Vec<_> = (0..4)
                .map(|_| {
                    let (barrier, leaders, arrived) =
                        (barrier.clone(), leaders.clone(), arrived.clone());
                    rt::spawn(async move {
                        for generation in 0..10 {
                            arrived.fetch_add(1, SeqCst);
                            if barrier.wait().await.is_leader() {
                                leaders.fetch_add(1, SeqCst);
                            }
                            // Nobody passes generation g before all reached it.
                            assert!(arrived.load(SeqCst) >= (generation + 1) * 4);
                        }
                    })
                })
                .collect();
            for task in tasks {
                task.await.unwrap();
            }
            assert_eq!(leaders.load(SeqCst), 10);
        });
    }
}

#[test]
fn notify_last_wakes_the_newest_waiter() {
    let notify = Notify::new();
    let mut waiters: Vec<_> = (0..3).map(|_| Box::pin(notify.notified())).collect();
    for waiter in &mut waiters {
        assert!(poll_once(waiter).is_pending());
    }
    notify.notify_last();
    let ready: Vec<bool> = waiters
        .iter_mut()
        .map(|w| poll_once(w).is_ready())
        .collect();
    assert_eq!(ready, [false, false, true]);
    drop(waiters);
    // With no waiter, it stores the permit like `notify_one`.
    notify.notify_last();
    assert!(poll_once(&mut Box::pin(notify.notified())).is_ready());
}

/// tokio's `sync_notify::notified_multi_notify_last_drop`: the newest
/// waiter, picked by `notify_last`, is dropped before it sees it; the
/// notification goes to the newest one left (not the oldest, as a
/// `notify_one`'s would), for the owned future too.
#[test]
fn a_dropped_waiter_passes_notify_last_to_the_newest_left() {
    let notify = Notify::new();
    let mut waiters: Vec<_> = (0..3).map(|_| Box::pin(notify.notified())).collect();
    for waiter in &mut waiters {
        assert!(poll_once(waiter).is_pending());
    }
    notify.notify_last();
    drop(waiters.pop());
    assert!(poll_once(&mut waiters[1]).is_ready(), "the second waiter");
    assert!(poll_once(&mut waiters[0]).is_pending(), "not the first");
    drop(waiters);

    let notify = Arc::new(Notify::new());
    let mut waiters: Vec<_> = (0..3)
        .map(|_| Box::pin(notify.clone().notified_owned()))
        .collect();
    for waiter in &mut waiters {
        assert!(poll_once(waiter).is_pending());
    }
    notify.notify_last();
    drop(waiters.pop());
    assert!(poll_once(&mut waiters[1]).is_ready(), "the second waiter");
    assert!(poll_once(&mut waiters[0]).is_pending(), "not the first");
}

#[test]
fn watch_senders_clone_and_the_last_one_closes() {
    let (tx, mut rx) = watch::channel(0);
    let tx2 = tx.clone();
    assert_eq!(tx.sender_count(), 2);
    drop(tx);
    tx2.send(1).unwrap();
    assert!(futures::executor::block_on(rx.changed()).is_ok());
    drop(tx2);
    assert!(futures::executor::block_on(rx.changed()).is_err());
}

#[test]
fn watch_sender_new_starts_without_receivers() {
    let tx = watch::Sender::new(5);
    assert_eq!(tx.receiver_count(), 0);
    assert!(tx.send(6).is_err(), "nobody to send to");
    let mut rx = tx.subscribe();
    assert_eq!(*rx.borrow_and_update(), 5);
    tx.send(7).unwrap();
    assert!(rx.has_changed().unwrap());
}

#[test]
fn watch_mark_changed_and_unchanged() {
    let (tx, mut rx) = watch::channel(0);
    rx.mark_changed();
    assert!(rx.has_changed().unwrap());
    futures::executor::block_on(rx.changed()).unwrap();
    tx.send(1).unwrap();
    rx.mark_unchanged();
    assert!(!rx.has_changed().unwrap());
}

#[test]
fn an_enabled_notified_takes_notify_one_before_its_first_poll() {
    let notify = Notify::new();
    let mut enabled = Box::pin(notify.notified());
    assert!(!enabled.as_mut().enable());
    notify.notify_one();
    // The notification went to the enabled future, not to a permit.
    assert!(enabled.as_mut().enable());
    assert!(poll_once(&mut Box::pin(notify.notified())).is_pending());
    assert!(poll_once(&mut enabled).is_ready());

    // Enabled and dropped unpolled: a notification it was given passes on.
    let mut dropped = Box::pin(notify.notified());
    dropped.as_mut().enable();
    notify.notify_one();
    drop(dropped);
    assert!(poll_once(&mut Box::pin(notify.notified())).is_ready());
}

#[test]
fn enable_returning_true_receives_the_notification_so_a_drop_passes_nothing_on() {
    // As tokio's: once `enable` said `true`, the future has taken the
    // `notify_one`; dropping it then must not hand the same notification
    // to another waiter, nor store it as a permit.
    let notify = Notify::new();
    let mut taker = Box::pin(notify.notified());
    assert!(poll_once(&mut taker).is_pending());
    let mut other = Box::pin(notify.notified());
    assert!(poll_once(&mut other).is_pending());
    notify.notify_one(); // picks `taker`, the oldest
    assert!(taker.as_mut().enable(), "`taker` was notified");
    drop(taker);
    assert!(
        poll_once(&mut other).is_pending(),
        "one notify_one was delivered twice: to `taker` and, on its drop, to `other`"
    );
    drop(other);
    assert!(
        poll_once(&mut Box::pin(notify.notified())).is_pending(),
        "no permit was stored either"
    );

    // The same for `notify_last` and the owned future.
    let notify = Arc::new(Notify::new());
    let mut taker = Box::pin(notify.clone().notified_owned());
    assert!(!taker.as_mut().enable());
    notify.notify_last();
    assert!(taker.as_mut().enable());
    assert!(taker.as_mut().enable(), "still notified");
    drop(taker);
    assert!(poll_once(&mut Box::pin(notify.clone().notified_owned())).is_pending());

    // Polled after `enable` said `true`: ready at once, with nothing left over.
    let notify = Notify::new();
    let mut taker = Box::pin(notify.notified());
    assert!(!taker.as_mut().enable());
    notify.notify_one();
    assert!(taker.as_mut().enable());
    assert!(poll_once(&mut taker).is_ready());
    drop(taker);
    assert!(poll_once(&mut Box::pin(notify.notified())).is_pending());
}

#[test]
fn wait_for_returns_the_first_value_meeting_the_condition() {
    let (tx, mut rx) = watch::channel(1);
    let mut wait = Box::pin(rx.wait_for(|&v| v % 2 == 0));
    assert!(poll_once(&mut wait).is_pending(), "1 is odd");
    tx.send(3).unwrap();
    assert!(poll_once(&mut wait).is_pending());
    tx.send(4).unwrap();
    match poll_once(&mut wait) {
        std::task::Poll::Ready(Ok(value)) => {
            assert_eq!(*value, 4);
            // Marked seen by the wait before the condition looked at it.
            assert!(!value.has_changed());
        }
        other => panic!("not ready with 4: {:?}", other.map(|r| r.map(|v| *v))),
    }
    drop(wait);
    assert!(!rx.has_changed().unwrap(), "the value it returned is seen");
    // The current value counts; once closed without a match, it fails.
    assert_eq!(
        *futures::executor::block_on(rx.wait_for(|&v| v == 4)).unwrap(),
        4
    );
    drop(tx);
    assert!(futures::executor::block_on(rx.wait_for(|&v| v == 5)).is_err());
}

/// `wait_for`'s borrow says `has_changed` as tokio's does (checked
/// against tokio 1.54.1): `true` only for an unseen value the condition
/// met at once; a value that came while it waited was marked seen by the
/// wait, before the condition looked at it, so it says `false` (rt's said
/// `true`). Either way the receiver has seen it afterwards.
#[test]
fn wait_for_says_has_changed_as_tokio_s() {
    fn has_changed<'a, F>(wait: &mut std::pin::Pin<Box<F>>) -> bool
    where
        F: Future<Output = Result<watch::Ref<'a, u32>, watch::error::RecvError>>,
    {
        match poll_once(wait) {
            std::task::Poll::Ready(Ok(value)) => value.has_changed(),
            _ => panic!("wait_for not ready"),
        }
    }
    let (tx, mut rx) = watch::channel(0);
    tx.send(1).unwrap();
    assert!(
        has_changed(&mut Box::pin(rx.wait_for(|&v| v == 1))),
        "unseen, met at once"
    );
    assert!(!rx.has_changed().unwrap());
    assert!(
        !has_changed(&mut Box::pin(rx.wait_for(|&v| v == 1))),
        "seen, met at once"
    );

    let mut wait = Box::pin(rx.wait_for(|&v| v == 2));
    assert!(poll_once(&mut wait).is_pending());
    tx.send(2).unwrap();
    assert!(!has_changed(&mut wait), "came while it waited");
    drop(wait);
    assert!(!rx.has_changed().unwrap());

    // Marked changed by hand, it waits all the same: the value it returns
    // came while it waited.
    rx.mark_changed();
    let mut wait = Box::pin(rx.wait_for(|&v| v == 3));
    assert!(poll_once(&mut wait).is_pending());
    tx.send(3).unwrap();
    drop(tx);
    assert!(!has_changed(&mut wait), "sent, then the sender closed");
    drop(wait);
    assert!(rx.has_changed().is_err(), "closed");
}

#[test]
fn watch_halves_tell_their_channel_and_when_it_closed() {
    let tx: watch::Sender<u32> = Default::default();
    let rx = tx.subscribe();
    assert_eq!(*rx.borrow(), 0);
    let (other_tx, other_rx) = watch::channel(0);
    assert!(tx.same_channel(&tx.clone()) && !tx.same_channel(&other_tx));
    assert!(rx.same_channel(&tx.subscribe()) && !rx.same_channel(&other_rx));
    let tx2 = tx.clone();
    drop(tx);
    assert!(!rx.is_closed(), "a clone still sends");
    tx2.send(3).unwrap();
    drop(tx2);
    assert!(rx.is_closed());
    assert_eq!(*rx.borrow(), 3, "the last value stays readable");
}

#[test]
fn notified_is_at_tokios_path_too() {
    let notify = Notify::new();
    let notified: rt::sync::futures::Notified<'_> = notify.notified();
    notify.notify_waiters();
    futures::executor::block_on(notified);
}

/// A waiter polled again with the waker it already stored (a `select!`
/// whose other branch woke the task) still sees every notification: the
/// re-poll that skips the lock must not hide a `notify_one` or a
/// `notify_waiters`, and a new waker still replaces the old one.
#[test]
fn a_waiter_re_polled_with_its_waker_sees_every_notification() {
    let notify = Notify::new();
    let (first, second) = (CountingWaker::new(), CountingWaker::new());
    let mut picked = Box::pin(notify.notified());
    let mut freed = Box::pin(notify.notified());
    for _ in 0..3 {
        assert!(first.poll(&mut picked).is_pending());
        assert!(second.poll(&mut freed).is_pending());
    }
    assert_eq!((first.count(), second.count()), (0, 0));
    notify.notify_one();
    assert_eq!(first.count(), 1);
    assert!(first.poll(&mut picked).is_ready());
    assert!(second.poll(&mut freed).is_pending());
    notify.notify_waiters();
    assert_eq!(second.count(), 1);
    assert!(second.poll(&mut freed).is_ready());

    // Re-polled with another task's waker: that one is woken, and the
    // old one is released.
    let (old, new) = (CountingWaker::new(), CountingWaker::new());
    let mut moved = Box::pin(notify.notified());
    assert!(old.poll(&mut moved).is_pending());
    assert!(new.poll(&mut moved).is_pending());
    assert!(new.poll(&mut moved).is_pending());
    assert_eq!(Arc::strong_count(&old), 1, "the old waker was released");
    notify.notify_one();
    assert_eq!((old.count(), new.count()), (0, 1));
    assert!(new.poll(&mut moved).is_ready());
}

/// What a server does: every connection task waits on one shared
/// shutdown `Notify` beside its own work, and is polled again and again
/// for that work while its shutdown waiter stays queued (re-polls with
/// the waker it stored). `notify_waiters` still reaches every task.
#[test]
fn tasks_polled_for_other_work_while_waiting_still_see_shutdown() {
    // Under Miri the full counts take minutes (3200 round trips).
    const TASKS: usize = miri_or(32, 8);
    const ROUNDS: usize = miri_or(50, 4);
    for (name, rt) in runtimes() {
        eprintln!("-- on the {name} scheduler");
        rt.block_on(async {
            let shutdown = Arc::new(Notify::new());
            let (ack_tx, mut ack_rx) = rt::sync::mpsc::unbounded_channel();
            let mut work = Vec::new();
            let mut tasks = Vec::new();
            for _ in 0..TASKS {
                let (tx, mut rx) = rt::sync::mpsc::unbounded_channel::<()>();
                work.push(tx);
                let ack_tx = ack_tx.clone();
                // Created before the task runs: it counts as waiting for
                // `notify_waiters` from here on.
                let mut stop = shutdown.clone().notified_owned();
                tasks.push(rt::spawn(async move {
                    let mut served = 0;
                    loop {
                        rt::select! {
                            _ = &mut stop => return served,
                            Some(()) = rx.recv() => {
                                served += 1;
                                ack_tx.send(()).unwrap();
                            }
                        }
                    }
                }));
            }
            for _ in 0..ROUNDS {
                for tx in &work {
                    tx.send(()).unwrap();
                }
                for _ in 0..TASKS {
                    ack_rx.recv().await.unwrap();
                }
            }
            shutdown.notify_waiters();
            for task in tasks {
                assert_eq!(task.await.unwrap(), ROUNDS);
            }
        });
    }
}
