//! TaskGroup: waiting for children, error propagation, cancellation.

mod support;

use support::runtimes;

use rt::runtime::Builder;
use rt::sync::mpsc::error::TryRecvError;
use rt::sync::{mpsc, oneshot};
use rt::task::{GroupError, TaskGroup};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};

#[test]
fn scope_returns_after_every_child_and_grandchild() {
    for (_, rt) in runtimes() {
        rt.block_on(async {
            let done = Arc::new(AtomicUsize::new(0));
            let result = TaskGroup::<()>::scope(|group| {
                let done = done.clone();
                async move {
                    for _ in 0..10 {
                        let (done, inner) = (done.clone(), group.clone());
                        group.spawn(async move {
                            for _ in 0..5 {
                                rt::task::yield_now().await;
                            }
                            let done2 = done.clone();
                            inner.spawn(async move {
                                rt::task::yield_now().await;
                                done2.fetch_add(1, SeqCst);
                                Ok(())
                            });
                            done.fetch_add(1, SeqCst);
                            Ok(())
                        });
                    }
                    Ok(42)
                }
            })
            .await;
            assert_eq!(result.unwrap(), 42);
            assert_eq!(done.load(SeqCst), 20);
        });
    }
}

#[test]
fn first_child_error_cancels_siblings_and_body() {
    for (_, rt) in runtimes() {
        rt.block_on(async {
            let (alive, mut gone) = mpsc::channel::<()>(1);
            let result: Result<(), GroupError<&str>> = TaskGroup::scope(|group| {
                let alive = alive.clone();
                async move {
                    for _ in 0..3 {
                        let alive = alive.clone();
                        group.spawn(async move {
                            let _alive = alive;
                            std::future::pending().await
                        });
                    }
                    let (fail_tx, fail_rx) = oneshot::channel::<()>();
                    group.spawn(async move {
                        fail_rx.await.unwrap();
                        Err("child failed")
                    });
                    fail_tx.send(()).unwrap();
                    // The body is cancelled too.
                    let _alive = alive;
                    std::future::pending().await
                }
            })
            .await;
            assert!(matches!(result, Err(GroupError::Failed("child failed"))));
            drop(alive);
            // Every sibling and the body were dropped before `scope` returned.
            assert_eq!(gone.try_recv(), Err(TryRecvError::Disconnected));
        });
    }
}

#[test]
fn a_child_panic_is_returned() {
    for (_, rt) in runtimes() {
        rt.block_on(async {
            let result: Result<(), GroupError<()>> = TaskGroup::scope(|group| async move {
                group.spawn(std::future::pending());
                group.spawn(async { panic!("child panicked") });
                Ok(())
            })
            .await;
            match result {
                Err(GroupError::Panicked(err)) => {
                    let payload = err.into_panic();
                    assert_eq!(*payload.downcast::<&str>().unwrap(), "child panicked");
                }
                other => panic!("expected a panic error, got {:?}", other.map(|_| ())),
            }
        });
    }
}

#[test]
fn a_body_error_cancels_children() {
    let rt = Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    rt.block_on(async {
        let (alive, mut gone) = mpsc::channel::<()>(1);
        let result: Result<(), GroupError<u8>> = TaskGroup::scope(|group| {
            let alive = alive.clone();
            async move {
                group.spawn(async move {
                    let _alive = alive;
                    std::future::pending().await
                });
                Err(7)
            }
        })
        .await;
        assert!(matches!(result, Err(GroupError::Failed(7))));
        drop(alive);
        assert_eq!(gone.try_recv(), Err(TryRecvError::Disconnected));
    });
}

#[test]
fn a_child_aborted_by_its_handle_is_not_a_failure() {
    let rt = Builder::new_current_thread().build().unwrap();
    let result = rt.block_on(TaskGroup::<()>::scope(|group| async move {
        let abort = group.spawn(std::future::pending());
        abort.abort();
        Ok("fine")
    }));
    assert_eq!(result.unwrap(), "fine");
}

#[test]
fn dropping_the_scope_cancels_children() {
    for (_, rt) in runtimes() {
        rt.block_on(async {
            let (alive, mut gone) = mpsc::channel::<()>(1);
            let (started_tx, started_rx) = oneshot::channel::<()>();
            let scope_task = rt::spawn({
                let alive = alive.clone();
                TaskGroup::<()>::scope(|group| async move {
                    for _ in 0..3 {
                        let alive = alive.clone();
                        group.spawn(async move {
                            let _alive = alive;
                            std::future::pending().await
                        });
                    }
                    started_tx.send(()).unwrap();
                    std::future::pending::<Result<(), ()>>().await
                })
            });
            started_rx.await.unwrap();
            scope_task.abort();
            assert!(scope_task.await.unwrap_err().is_cancelled());
            drop(alive);
            assert_eq!(gone.recv().await, None);
        });
    }
}

#[test]
fn spawning_after_the_scope_ended_panics() {
    let rt = Builder::new_current_thread().build().unwrap();
    let escaped = rt.block_on(async {
        let (tx, rx) = oneshot::channel();
        TaskGroup::<()>::scope(|group| async move {
            tx.send(group).unwrap();
            Ok(())
        })
        .await
        .unwrap();
        rx.await.unwrap()
    });
    let _enter = rt.enter();
    let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        escaped.spawn(async { Ok(()) });
    }));
    let message = panicked.unwrap_err();
    assert!(
        message
            .downcast_ref::<&str>()
            .unwrap()
            .contains("after its scope ended")
    );
}

#[test]
fn the_body_may_borrow_from_the_caller() {
    let rt = Builder::new_current_thread().build().unwrap();
    let names = vec![String::from("a"), String::from("b")];
    let total = rt.block_on(TaskGroup::<()>::scope(|group| {
        let names = &names; // borrowed, not moved: the body is not spawned
        async move {
            for name in names {
                let name = name.clone();
                group.spawn(async move {
                    assert!(!name.is_empty());
                    Ok(())
                });
            }
            Ok(names.len())
        }
    }));
    assert_eq!(total.unwrap(), 2);
    assert_eq!(names.len(), 2);
}

/// A scope dropped from outside (its task aborted, a `timeout` or a
/// `select!` that lost) while a child is in the middle of a poll on
/// another worker: that child, and the destructor of a child the drop
/// cancels, may still spawn into the group, as they may once a failure
/// cancels it. The new child is aborted at once instead of the spawn
/// panicking with the message meant for a handle that escaped a scope
/// which returned.
#[test]
fn children_of_a_dropped_scope_may_still_spawn() {
    /// Spawns into the group when dropped, reporting whether it panicked.
    struct SpawnOnDrop(TaskGroup<()>, std::sync::mpsc::Sender<bool>);
    impl Drop for SpawnOnDrop {
        fn drop(&mut self) {
            let spawned = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                self.0.spawn(async { Ok(()) })
            }));
            self.1.send(spawned.is_ok()).unwrap();
        }
    }
    let rt = Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let (in_poll_tx, in_poll_rx) = std::sync::mpsc::channel();
    let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
    let (spawned_tx, spawned_rx) = std::sync::mpsc::channel();
    let (dropped_tx, dropped_rx) = std::sync::mpsc::channel();
    let scope_task = rt.spawn(TaskGroup::<()>::scope(move |group| async move {
        let busy = group.clone();
        group.spawn(async move {
            in_poll_tx.send(()).unwrap();
            // Holds its worker until the scope is gone.
            release_rx.recv().unwrap();
            let spawned = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                busy.spawn(async { Ok(()) })
            }));
            spawned_tx.send(spawned.map(|abort| abort.id())).unwrap();
            std::future::pending().await
        });
        let on_drop = SpawnOnDrop(group.clone(), dropped_tx);
        group.spawn(async move {
            let _on_drop = on_drop;
            std::future::pending().await
        });
        std::future::pending::<Result<(), ()>>().await
    }));
    in_poll_rx.recv().unwrap();
    scope_task.abort();
    assert!(rt.block_on(scope_task).unwrap_err().is_cancelled());
    // The idle child was cancelled by the scope's drop.
    assert!(
        dropped_rx.recv().unwrap(),
        "a cancelled child's destructor could not spawn"
    );
    release_tx.send(()).unwrap();
    let spawned = spawned_rx.recv().unwrap();
    assert!(spawned.is_ok(), "a running child's spawn panicked");
    drop(rt);
}

/// Children spawned once the group is cancelling are aborted at once:
/// none of them is ever polled, even on a multi-thread runtime whose busy
/// workers take a new child from the injector the moment it is queued.
#[test]
fn a_child_spawned_while_cancelling_is_never_polled() {
    /// Lets the spawning thread go when the failure's abort drops it.
    struct SignalOnDrop(std::sync::mpsc::Sender<()>);
    impl Drop for SignalOnDrop {
        fn drop(&mut self) {
            let _ = self.0.send(());
        }
    }
    const CHILDREN: usize = 2000;
    let rt = Builder::new_multi_thread()
        .worker_threads(4)
        .build()
        .unwrap();
    let polled = Arc::new(AtomicUsize::new(0));
    let seen = polled.clone();
    // Made inside the runtime: the children go to it from any thread.
    let scope = async move {
        TaskGroup::<()>::scope(move |group| async move {
            let (cancelling_tx, cancelling_rx) = std::sync::mpsc::channel::<()>();
            let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
            let (in_poll_tx, in_poll_rx) = std::sync::mpsc::channel::<()>();
            // Workers busy with tasks that yield look at the injector all
            // the time.
            let spinning = Arc::new(std::sync::atomic::AtomicBool::new(true));
            for _ in 0..3 {
                let spinning = spinning.clone();
                rt::spawn(async move {
                    while spinning.load(SeqCst) {
                        rt::task::yield_now().await;
                    }
                });
            }
            // A child in the middle of a poll keeps the scope from
            // returning (an abort cannot stop it) until the spawns are done.
            group.spawn(async move {
                in_poll_tx.send(()).unwrap();
                done_rx.recv().unwrap();
                Ok(())
            });
            // A child that spawns from a thread outside the runtime, so
            // each new child goes to the injector.
            let spawner = group.clone();
            rt::spawn_blocking(move || {
                cancelling_rx.recv().unwrap();
                for _ in 0..CHILDREN {
                    let seen = seen.clone();
                    spawner.spawn(async move {
                        seen.fetch_add(1, SeqCst);
                        Ok(())
                    });
                }
                spinning.store(false, SeqCst);
                done_tx.send(()).unwrap();
            });
            let signal = SignalOnDrop(cancelling_tx);
            group.spawn(async move {
                let _signal = signal;
                std::future::pending().await
            });
            in_poll_rx.recv().unwrap();
            // The body fails: the group cancels, aborting the idle child.
            Err::<(), ()>(())
        })
        .await
    };
    let result = rt.block_on(scope);
    assert!(matches!(result, Err(GroupError::Failed(()))));
    assert_eq!(
        polled.load(SeqCst),
        0,
        "children spawned while cancelling ran"
    );
}

/// When a child fails while the body still runs, the body is dropped as
/// part of cancelling the group: children its destructors spawn are
/// spawned into a cancelling group, and none of them runs, even on busy
/// workers that take new tasks from the injector at once.
#[test]
fn children_spawned_by_the_dropped_body_are_never_polled() {
    /// Spawns `CHILDREN` children from a thread outside the runtime (so
    /// they go to the injector) when dropped.
    struct SpawnOnDrop(TaskGroup<()>, Arc<AtomicUsize>);
    impl Drop for SpawnOnDrop {
        fn drop(&mut self) {
            let (group, seen) = (self.0.clone(), self.1.clone());
            std::thread::spawn(move || {
                for _ in 0..CHILDREN {
                    let seen = seen.clone();
                    group.spawn(async move {
                        seen.fetch_add(1, SeqCst);
                        Ok(())
                    });
                }
            })
            .join()
            .unwrap();
        }
    }
    const CHILDREN: usize = 2000;
    let rt = Builder::new_multi_thread()
        .worker_threads(4)
        .build()
        .unwrap();
    let polled = Arc::new(AtomicUsize::new(0));
    let seen = polled.clone();
    let scope = async move {
        let spinning = Arc::new(std::sync::atomic::AtomicBool::new(true));
        // Workers busy with tasks that yield look at the injector all the
        // time.
        for _ in 0..3 {
            let spinning = spinning.clone();
            rt::spawn(async move {
                while spinning.load(SeqCst) {
                    rt::task::yield_now().await;
                }
            });
        }
        let result = TaskGroup::<()>::scope(move |group| async move {
            let _on_drop = SpawnOnDrop(group.clone(), seen);
            group.spawn(async { Err(()) });
            std::future::pending::<Result<(), ()>>().await
        })
        .await;
        spinning.store(false, SeqCst);
        result
    };
    let result = rt.block_on(scope);
    assert!(matches!(result, Err(GroupError::Failed(()))));
    assert_eq!(
        polled.load(SeqCst),
        0,
        "children spawned by the dropped body ran"
    );
}
