//! `Notify::notified_owned`: the `'static` future, in spawned tasks,
//! enabled, dropped after a pick, aborted from another thread.

mod support;

use support::{Kind, poll_once, runtimes};

use rt::sync::{Notify, OwnedNotified};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

/// A task holding an owned waiter in a struct of its own.
struct Worker {
    id: usize,
    ready: OwnedNotified,
}

#[test]
fn owned_waiters_created_before_spawning_see_notify_waiters() {
    for (_, rt) in runtimes() {
        rt.block_on(async {
            let notify = Arc::new(Notify::new());
            let tasks: Vec<_> = (0..4)
                .map(|id| Worker {
                    id,
                    ready: notify.clone().notified_owned(),
                })
                .map(|worker| {
                    rt::spawn(async move {
                        worker.ready.await;
                        worker.id
                    })
                })
                .collect();
            // Every future exists already: none of them can miss this.
            notify.notify_waiters();
            let mut ids = Vec::new();
            for task in tasks {
                ids.push(task.await.unwrap());
            }
            assert_eq!(ids, [0, 1, 2, 3]);
            // `notify_waiters` stores no permit.
            let mut later = Box::pin(notify.clone().notified_owned());
            assert!(poll_once(&mut later).is_pending());
        });
    }
}

#[test]
fn notify_one_ping_pong_between_tasks_counts_exactly() {
    for (_, rt) in runtimes() {
        rt.block_on(async {
            let ping = Arc::new(Notify::new());
            let pong = Arc::new(Notify::new());
            let rounds = 200;
            let responder = {
                let (ping, pong) = (ping.clone(), pong.clone());
                rt::spawn(async move {
                    for _ in 0..rounds {
                        ping.clone().notified_owned().await;
                        pong.notify_one();
                    }
                })
            };
            for _ in 0..rounds {
                let answer = pong.clone().notified_owned();
                ping.notify_one();
                answer.await;
            }
            responder.await.unwrap();
        });
    }
}

#[test]
fn enable_queues_the_owned_waiter_before_its_first_poll() {
    let notify = Arc::new(Notify::new());
    let mut enabled = Box::pin(notify.clone().notified_owned());
    assert!(!enabled.as_mut().enable());
    notify.notify_one(); // goes to `enabled`, not to a permit
    let mut other = Box::pin(notify.clone().notified_owned());
    assert!(poll_once(&mut other).is_pending());
    assert!(enabled.as_mut().enable());
    assert!(poll_once(&mut enabled).is_ready());
    // Ready stays ready.
    assert!(enabled.as_mut().enable());
    assert!(poll_once(&mut enabled).is_ready());
}

#[test]
fn a_dropped_owned_waiter_passes_its_notification_on() {
    let notify = Arc::new(Notify::new());
    let mut first = Box::pin(notify.clone().notified_owned());
    let mut second = Box::pin(notify.notified());
    assert!(poll_once(&mut first).is_pending());
    assert!(poll_once(&mut second).is_pending());
    notify.notify_one(); // picks `first`
    drop(first);
    // The borrowed and owned futures share one queue.
    assert!(poll_once(&mut second).is_ready());

    // Dropped with no one else waiting: it becomes the permit.
    let mut only = Box::pin(notify.clone().notified_owned());
    assert!(!only.as_mut().enable());
    notify.notify_one();
    drop(only);
    let mut next = Box::pin(notify.clone().notified_owned());
    assert!(poll_once(&mut next).is_ready());
    let mut after = Box::pin(notify.clone().notified_owned());
    assert!(poll_once(&mut after).is_pending());
}

#[test]
fn a_dropped_unnotified_owned_waiter_takes_nothing() {
    let notify = Arc::new(Notify::new());
    let mut waiter = Box::pin(notify.clone().notified_owned());
    assert!(poll_once(&mut waiter).is_pending());
    drop(waiter);
    // The Arc the future held was released too.
    assert_eq!(Arc::strong_count(&notify), 1);
    notify.notify_one();
    let mut next = Box::pin(notify.clone().notified_owned());
    assert!(poll_once(&mut next).is_ready());
}

/// A task parked on an owned waiter that `notify_one` picked, aborted
/// from another thread before it ran: dropping the task's future passes
/// the notification on, so it is the stored permit afterwards.
#[test]
fn a_picked_owned_waiter_aborted_from_another_thread_passes_it_on() {
    let rt = Kind::CurrentThread.build();
    rt.block_on(async {
        let notify = Arc::new(Notify::new());
        let mut ready = Box::pin(notify.clone().notified_owned());
        assert!(!ready.as_mut().enable());
        let task = rt::spawn(async move {
            ready.await;
            std::future::pending::<()>().await
        });
        notify.notify_one(); // picks the task's waiter
        let abort = task.abort_handle();
        // The current-thread runtime runs the task only once block_on
        // yields, so the waiter is still unobserved here.
        std::thread::spawn(move || abort.abort()).join().unwrap();
        assert!(task.await.unwrap_err().is_cancelled());
        let mut next = Box::pin(notify.clone().notified_owned());
        assert!(poll_once(&mut next).is_ready(), "the permit was passed on");
    });
}

/// A task parked on an owned waiter, aborted at that await point from
/// another thread, leaves no slot: the next `notify_one` is a permit.
#[test]
fn an_owned_waiter_aborted_at_its_await_point_takes_nothing() {
    for (_, rt) in runtimes() {
        rt.block_on(async {
            let notify = Arc::new(Notify::new());
            let (parked_tx, parked_rx) = rt::sync::oneshot::channel();
            let task = {
                let notify = notify.clone();
                rt::spawn(async move {
                    let mut ready = Box::pin(notify.notified_owned());
                    assert!(!ready.as_mut().enable());
                    parked_tx.send(()).unwrap();
                    ready.await;
                })
            };
            parked_rx.await.unwrap();
            let abort = task.abort_handle();
            std::thread::spawn(move || abort.abort()).join().unwrap();
            // Nothing notifies it: the task can only end cancelled.
            assert!(task.await.unwrap_err().is_cancelled());
            assert_eq!(Arc::strong_count(&notify), 1, "the future was dropped");
            notify.notify_one();
            let mut next = Box::pin(notify.clone().notified_owned());
            assert!(poll_once(&mut next).is_ready());
        });
    }
}

#[test]
fn owned_notified_is_a_static_send_future() {
    fn spawnable<F: Future + Send + 'static>(_: &F) {}
    let notify = Arc::new(Notify::new());
    let owned = notify.clone().notified_owned();
    spawnable(&owned);
    let pinned: Pin<Box<dyn Future<Output = ()> + Send>> = Box::pin(owned);
    drop(pinned);
    assert!(format!("{notify:?}").contains("waiters: 0"));
}
