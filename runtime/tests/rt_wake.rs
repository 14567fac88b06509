//! Wake-ups from outside the runtime: a task woken by a std thread, a
//! `block_on` future woken by a std thread, wakers outliving their task.

mod support;

use futures_channel::oneshot;
use std::future::Future;
use std::pin::Pin;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use support::{DropCounter, each_runtime};

/// A one-shot flag set by a plain thread. The future reports (through
/// `registered`) each time it has stored its waker and returned `Pending`,
/// so the setter can be sure to wake a parked future.
#[derive(Default)]
struct Flag {
    state: Mutex<(bool, Option<Waker>)>,
}

impl Flag {
    fn set(&self, by_ref: bool) {
        let waker = {
            let mut state = self.state.lock().unwrap();
            state.0 = true;
            state.1.take()
        };
        if let Some(waker) = waker {
            if by_ref {
                waker.wake_by_ref();
            } else {
                waker.wake();
            }
        }
    }

    fn wait(self: &Arc<Self>, registered: mpsc::Sender<()>) -> WaitFlag {
        WaitFlag {
            flag: self.clone(),
            registered,
        }
    }
}

struct WaitFlag {
    flag: Arc<Flag>,
    registered: mpsc::Sender<()>,
}

impl Future for WaitFlag {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut state = self.flag.state.lock().unwrap();
        if state.0 {
            return Poll::Ready(());
        }
        state.1 = Some(cx.waker().clone());
        drop(state);
        let _ = self.registered.send(());
        Poll::Pending
    }
}

/// Starts a thread that sets `flag` once the future reported it is waiting.
fn set_when_registered(
    flag: Arc<Flag>,
    registered: mpsc::Receiver<()>,
    by_ref: bool,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        registered.recv().unwrap();
        flag.set(by_ref);
    })
}

#[test]
fn a_task_woken_from_a_foreign_thread() {
    each_runtime(|_, rt| {
        for round in 0..200 {
            let flag = Arc::new(Flag::default());
            let (registered_tx, registered_rx) = mpsc::channel();
            let task = rt.spawn(flag.wait(registered_tx));
            let setter = set_when_registered(flag, registered_rx, round % 2 == 0);
            rt.block_on(task).unwrap();
            setter.join().unwrap();
        }
    });
}

#[test]
fn block_on_a_future_woken_from_a_foreign_thread() {
    each_runtime(|_, rt| {
        for round in 0..200 {
            let flag = Arc::new(Flag::default());
            let (registered_tx, registered_rx) = mpsc::channel();
            let setter = set_when_registered(flag.clone(), registered_rx, round % 2 == 1);
            // The `block_on` thread parks (in the driver on a current-thread
            // runtime, on its own parker on a multi-thread one) until the
            // other thread wakes it.
            rt.block_on(flag.wait(registered_tx));
            setter.join().unwrap();
        }
    });
}

#[test]
fn block_on_a_channel_fed_by_a_foreign_thread() {
    each_runtime(|_, rt| {
        let (tx, rx) = oneshot::channel();
        let (go_tx, go_rx) = mpsc::channel::<()>();
        let sender = std::thread::spawn(move || {
            go_rx.recv().unwrap();
            tx.send("sent from a std thread").unwrap();
        });
        let received = rt.block_on(async move {
            go_tx.send(()).unwrap();
            rx.await.unwrap()
        });
        assert_eq!(received, "sent from a std thread");
        sender.join().unwrap();
    });
}

#[test]
fn many_tasks_woken_from_many_threads() {
    each_runtime(|_, rt| {
        let mut tasks = Vec::new();
        let mut setters = Vec::new();
        for _ in 0..32 {
            let flag = Arc::new(Flag::default());
            let (registered_tx, registered_rx) = mpsc::channel();
            tasks.push(rt.spawn(flag.wait(registered_tx)));
            setters.push(set_when_registered(flag, registered_rx, false));
        }
        rt.block_on(async {
            for task in tasks {
                task.await.unwrap();
            }
        });
        for setter in setters {
            setter.join().unwrap();
        }
    });
}

#[test]
fn a_waker_outliving_its_task_is_harmless() {
    each_runtime(|_, rt| {
        let drops = DropCounter::new();
        let guard = drops.guard();
        let (waker_tx, waker_rx) = mpsc::channel::<Waker>();
        let task = rt.spawn(async move {
            let _guard = guard;
            std::future::poll_fn(|cx| {
                waker_tx.send(cx.waker().clone()).unwrap();
                Poll::Ready(())
            })
            .await;
        });
        rt.block_on(task).unwrap();
        let waker = waker_rx.recv().unwrap();
        assert_eq!(drops.dropped(), 1);
        // The task is gone; waking it from another thread does nothing and
        // dropping the last waker frees it.
        std::thread::spawn(move || {
            waker.wake_by_ref();
            let clone = waker.clone();
            clone.wake();
            waker.wake();
        })
        .join()
        .unwrap();
        assert_eq!(rt.block_on(async { 3 }), 3);
    });
}

#[test]
fn a_task_woken_while_it_runs_is_polled_again() {
    each_runtime(|_, rt| {
        // The task wakes itself through a clone from another thread while
        // its poll is still running: the wake must not be lost.
        let polls = rt.block_on(rt.spawn(async {
            let mut polls = 0;
            std::future::poll_fn(|cx| {
                polls += 1;
                if polls == 3 {
                    return Poll::Ready(polls);
                }
                let waker = cx.waker().clone();
                std::thread::spawn(move || waker.wake()).join().unwrap();
                Poll::Pending
            })
            .await
        }));
        assert_eq!(polls.unwrap(), 3);
    });
}
