//! `JoinSet::spawn_local` and `spawn_local_on`: `!Send` tasks in a set,
//! joined, aborted (also from another thread) and dropped.

mod support;

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use support::{DropCounter, expect_panic, runtimes};

use rt::sync::oneshot;
use rt::task::{JoinSet, LocalSet};

#[test]
fn local_tasks_are_joined_in_completion_order() {
    for (_, rt) in runtimes() {
        let log = Rc::new(RefCell::new(Vec::new()));
        LocalSet::new().block_on(&rt, async {
            let mut set = JoinSet::new();
            let mut triggers = Vec::new();
            for i in 0..3 {
                let (tx, rx) = oneshot::channel::<()>();
                triggers.push(Some(tx));
                let log = log.clone();
                set.spawn_local(async move {
                    rx.await.unwrap();
                    log.borrow_mut().push(i);
                    Rc::new(i)
                });
            }
            for i in [1, 2, 0] {
                triggers[i].take().unwrap().send(()).unwrap();
                assert_eq!(*set.join_next().await.unwrap().unwrap(), i);
            }
            assert!(set.join_next().await.is_none());
        });
        assert_eq!(*log.borrow(), [1, 2, 0]);
    }
}

#[test]
fn local_and_send_tasks_share_one_set() {
    for (_, rt) in runtimes() {
        let ran_here = Rc::new(Cell::new(false));
        let outputs = LocalSet::new().block_on(&rt, async {
            let mut set = JoinSet::new();
            set.spawn(async { 1 });
            let ran_here = ran_here.clone();
            set.spawn_local(async move {
                ran_here.set(true);
                2
            });
            set.join_all().await
        });
        let mut outputs = outputs;
        outputs.sort();
        assert_eq!(outputs, [1, 2]);
        assert!(ran_here.get());
    }
}

#[test]
fn spawn_local_outside_a_local_set_panics_naming_the_fix() {
    for (_, rt) in runtimes() {
        let message = expect_panic(|| {
            rt.block_on(async {
                let mut set = JoinSet::new();
                set.spawn_local(async {});
            })
        });
        assert!(message.contains("outside a `LocalSet`"), "{message}");
        assert!(message.contains("spawn_local_on"), "{message}");
    }
}

#[test]
fn spawn_local_on_runs_when_the_local_set_is_driven() {
    for (_, rt) in runtimes() {
        let local = LocalSet::new();
        let mut set = JoinSet::new();
        let started = Rc::new(Cell::new(false));
        let flag = started.clone();
        set.spawn_local_on(
            async move {
                flag.set(true);
                "done"
            },
            &local,
        );
        // Nothing drives the local set yet.
        assert!(!started.get());
        assert!(set.try_join_next().is_none());
        let joined = local.block_on(&rt, set.join_next());
        assert_eq!(joined.unwrap().unwrap(), "done");
        assert!(started.get());
    }
}

#[test]
fn dropping_the_set_aborts_its_local_tasks() {
    for (_, rt) in runtimes() {
        let counter = DropCounter::new();
        let local = LocalSet::new();
        local.block_on(&rt, async {
            let mut set = JoinSet::new();
            let (started_tx, started_rx) = oneshot::channel();
            let guard = counter.guard();
            set.spawn_local(async move {
                let _guard = guard;
                let _not_send = Rc::new(());
                started_tx.send(()).unwrap();
                std::future::pending::<()>().await
            });
            let guard = counter.guard();
            set.spawn_local_on(
                async move {
                    let _guard = guard;
                    std::future::pending::<()>().await
                },
                &local,
            );
            // Drop the set while one task is parked at its await point and
            // the other has never been polled.
            started_rx.await.unwrap();
            drop(set);
            // Aborted local tasks are dropped by their set on its next tick.
            while counter.alive() > 0 {
                rt::task::yield_now().await;
            }
        });
        assert_eq!(counter.created(), 2);
        assert_eq!(counter.dropped(), 2);
    }
}

#[test]
fn a_local_task_aborted_from_another_thread_is_cancelled() {
    for (_, rt) in runtimes() {
        LocalSet::new().block_on(&rt, async {
            let mut set = JoinSet::new();
            let (started_tx, started_rx) = oneshot::channel();
            let abort = set.spawn_local(async move {
                let _not_send = Rc::new(());
                started_tx.send(()).unwrap();
                std::future::pending::<u32>().await
            });
            set.spawn_local(async { 7 });
            started_rx.await.unwrap();
            std::thread::spawn(move || abort.abort()).join().unwrap();
            let mut cancelled = 0;
            let mut finished = Vec::new();
            while let Some(joined) = set.join_next().await {
                match joined {
                    Ok(value) => finished.push(value),
                    Err(error) => {
                        assert!(error.is_cancelled());
                        cancelled += 1;
                    }
                }
            }
            assert_eq!((cancelled, finished), (1, vec![7]));
        });
    }
}

#[test]
fn a_dropped_join_next_loses_no_local_result() {
    for (_, rt) in runtimes() {
        LocalSet::new().block_on(&rt, async {
            let mut set = JoinSet::new();
            let (tx, rx) = oneshot::channel::<()>();
            set.spawn_local(async move {
                rx.await.unwrap();
                Rc::new(5)
            });
            {
                // Polled once (registered), then dropped at its await point.
                let join = std::pin::pin!(set.join_next());
                let waker = std::task::Waker::noop();
                let mut cx = std::task::Context::from_waker(waker);
                assert!(join.poll(&mut cx).is_pending());
            }
            tx.send(()).unwrap();
            assert_eq!(*set.join_next().await.unwrap().unwrap(), 5);
        });
    }
}
