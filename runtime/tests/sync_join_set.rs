//! JoinSet: completion order, aborting, dropping.

mod support;

use support::runtimes;

use rt::runtime::Builder;
use rt::sync::{mpsc, oneshot};
use rt::task::JoinSet;

#[test]
fn results_come_in_completion_order() {
    for (_, rt) in runtimes() {
        rt.block_on(async {
            let mut set = JoinSet::new();
            let mut triggers = Vec::new();
            for i in 0..3 {
                let (tx, rx) = oneshot::channel::<()>();
                triggers.push(Some(tx));
                set.spawn(async move {
                    rx.await.unwrap();
                    i
                });
            }
            for i in [2, 0, 1] {
                triggers[i].take().unwrap().send(()).unwrap();
                assert_eq!(set.join_next().await.unwrap().unwrap(), i);
            }
            assert!(set.join_next().await.is_none());
            assert!(set.is_empty());
        });
    }
}

#[test]
fn many_tasks_sum_exactly() {
    for (_, rt) in runtimes() {
        rt.block_on(async {
            let mut set = JoinSet::new();
            for i in 0..2000u64 {
                set.spawn(async move {
                    if i % 3 == 0 {
                        rt::task::yield_now().await;
                    }
                    i
                });
            }
            assert_eq!(set.len(), 2000);
            let mut sum = 0;
            while let Some(result) = set.join_next().await {
                sum += result.unwrap();
            }
            assert_eq!(sum, 1999 * 2000 / 2);
        });
    }
}

#[test]
fn try_join_next_only_returns_finished_tasks() {
    for (_, rt) in runtimes() {
        rt.block_on(async {
            let mut set = JoinSet::new();
            let (tx, rx) = oneshot::channel::<()>();
            set.spawn(async move {
                rx.await.unwrap();
                "done"
            });
            assert!(set.try_join_next().is_none());
            tx.send(()).unwrap();
            let result = loop {
                if let Some(result) = set.try_join_next() {
                    break result;
                }
                rt::task::yield_now().await;
            };
            assert_eq!(result.unwrap(), "done");
        });
    }
}

#[test]
fn abort_all_and_shutdown_cancel_tasks() {
    for (_, rt) in runtimes() {
        rt.block_on(async {
            let mut set = JoinSet::<()>::new();
            for _ in 0..5 {
                set.spawn(std::future::pending());
            }
            set.abort_all();
            let mut cancelled = 0;
            while let Some(result) = set.join_next().await {
                assert!(result.unwrap_err().is_cancelled());
                cancelled += 1;
            }
            assert_eq!(cancelled, 5);

            for _ in 0..5 {
                set.spawn(std::future::pending());
            }
            set.shutdown().await;
            assert!(set.is_empty());
        });
    }
}

#[test]
fn panics_are_reported() {
    let rt = Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    rt.block_on(async {
        let mut set = JoinSet::new();
        set.spawn(async { panic!("child panicked") });
        let err = set.join_next().await.unwrap().unwrap_err();
        assert!(err.is_panic());
    });
}

#[test]
fn dropping_the_set_aborts_its_tasks() {
    for (_, rt) in runtimes() {
        rt.block_on(async {
            let (alive, mut gone) = mpsc::channel::<()>(1);
            let mut set = JoinSet::new();
            for _ in 0..4 {
                let alive = alive.clone();
                set.spawn(async move {
                    let _alive = alive;
                    std::future::pending::<()>().await
                });
            }
            drop(alive);
            drop(set);
            // Every task's future (and its sender) was dropped.
            assert_eq!(gone.recv().await, None);
        });
    }
}

#[test]
fn spawn_on_from_outside_a_runtime() {
    let rt = Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let mut set = JoinSet::new();
    for i in 0..10 {
        set.spawn_on(async move { i }, rt.handle());
    }
    let sum = rt.block_on(async {
        let mut sum = 0;
        while let Some(r) = set.join_next().await {
            sum += r.unwrap();
        }
        sum
    });
    assert_eq!(sum, 45);
}

#[test]
fn a_dropped_join_next_loses_no_result() {
    let rt = Builder::new_current_thread().build().unwrap();
    rt.block_on(async {
        let mut set = JoinSet::new();
        let (tx, rx) = oneshot::channel::<()>();
        set.spawn(async move {
            rx.await.unwrap();
            1
        });
        {
            let mut next = Box::pin(set.join_next());
            let waker = std::task::Waker::noop();
            let pending = std::future::Future::poll(
                next.as_mut(),
                &mut std::task::Context::from_waker(waker),
            );
            assert!(pending.is_pending());
        }
        tx.send(()).unwrap();
        assert_eq!(set.join_next().await.unwrap().unwrap(), 1);
    });
}

#[test]
fn spawn_blocking_join_all_collect_and_extend() {
    for (_, rt) in runtimes() {
        rt.block_on(async {
            let mut set: JoinSet<u32> = (1..=3).map(|i| async move { i }).collect();
            set.extend((4..=5).map(|i| async move { i }));
            set.spawn_blocking(|| 6);
            let mut outputs = set.join_all().await;
            outputs.sort();
            assert_eq!(outputs, [1, 2, 3, 4, 5, 6]);
        });
        let mut set = JoinSet::new();
        set.spawn_blocking_on(|| "blocking", rt.handle());
        assert_eq!(rt.block_on(set.join_next()).unwrap().unwrap(), "blocking");
    }
}

#[test]
fn join_all_passes_a_panic_on() {
    let rt = rt::runtime::Runtime::new().unwrap();
    let message = support::expect_panic(|| {
        rt.block_on(async {
            let mut set = JoinSet::new();
            set.spawn(async { panic!("a task failed") });
            set.spawn(std::future::pending::<()>());
            set.join_all().await
        })
    });
    assert_eq!(message, "a task failed");
}

#[test]
fn results_with_id_name_the_task_that_finished_or_failed() {
    for (_, rt) in runtimes() {
        rt.block_on(async {
            let mut set = JoinSet::new();
            let (tx, rx) = oneshot::channel::<()>();
            let waiting = set.spawn(async move {
                rx.await.unwrap();
                "waited"
            });
            let doomed = set.spawn(std::future::pending());
            let quick = set.spawn(async { "quick" });
            assert_eq!(
                set.join_next_with_id().await.unwrap().unwrap(),
                (quick.id(), "quick")
            );
            doomed.abort();
            let err = set.join_next_with_id().await.unwrap().unwrap_err();
            assert!(err.is_cancelled());
            assert_eq!(err.id(), doomed.id());
            assert!(set.try_join_next_with_id().is_none(), "still waiting");
            tx.send(()).unwrap();
            let joined = loop {
                if let Some(joined) = set.try_join_next_with_id() {
                    break joined;
                }
                rt::task::yield_now().await;
            };
            assert_eq!(joined.unwrap(), (waiting.id(), "waited"));
            assert!(set.join_next_with_id().await.is_none());
        });
    }
}

/// Outside a runtime, each spawn method's panic names the method the user
/// called and the one that works there, not the `rt::spawn` inside it.
#[test]
fn spawning_outside_a_runtime_names_the_method_called() {
    let mut set = JoinSet::<()>::new();
    let message = support::expect_panic(|| set.spawn(async {}));
    assert!(
        message.contains("`JoinSet::spawn` called outside a runtime"),
        "{message}"
    );
    assert!(message.contains("`JoinSet::spawn_on`"), "{message}");
    let message = support::expect_panic(|| set.spawn_blocking(|| ()));
    assert!(
        message.contains("`JoinSet::spawn_blocking` called outside a runtime"),
        "{message}"
    );
    assert!(
        message.contains("`JoinSet::spawn_blocking_on`"),
        "{message}"
    );
    let message = support::expect_panic(|| set.extend([async {}]));
    assert!(
        message.contains("`JoinSet::extend` called outside a runtime"),
        "{message}"
    );
    let message = support::expect_panic(|| [async {}].into_iter().collect::<JoinSet<()>>());
    assert!(
        message.contains("`collect::<JoinSet<_>>` called outside a runtime"),
        "{message}"
    );
    assert!(set.is_empty());
}
