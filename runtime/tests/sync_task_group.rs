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
