//! Spawning: from inside and outside the runtime, many tasks, nested
//! tasks, detached tasks, task ids.

mod support;

use futures_channel::oneshot;
use rt::runtime::Handle;
use std::collections::HashSet;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use support::{Kind, block_on_each, each_runtime, miri_or, wait_until};

#[test]
fn spawn_from_outside_with_runtime_spawn() {
    each_runtime(|_, rt| {
        let handles: Vec<_> = (0..10u32).map(|i| rt.spawn(async move { i * 2 })).collect();
        let outputs: Vec<u32> = handles
            .into_iter()
            .map(|h| rt.block_on(h).unwrap())
            .collect();
        assert_eq!(outputs, (0..10).map(|i| i * 2).collect::<Vec<_>>());
    });
}

#[test]
fn spawn_from_a_foreign_thread_through_handle() {
    each_runtime(|_, rt| {
        let handle = rt.handle().clone();
        let join = std::thread::spawn(move || handle.spawn(async { "from a thread" }))
            .join()
            .unwrap();
        assert_eq!(rt.block_on(join).unwrap(), "from a thread");
    });
}

#[test]
fn spawn_from_inside_block_on_and_from_a_task() {
    block_on_each(|_| async {
        let outer = rt::spawn(async {
            // rt::spawn inside a task targets the task's runtime.
            let inner = rt::spawn(async { 20 });
            inner.await.unwrap() + 1
        });
        assert_eq!(outer.await.unwrap(), 21);
    });
}

#[test]
fn hundred_thousand_tasks_complete() {
    const TASKS: usize = miri_or(100_000, 50);
    each_runtime(|_, rt| {
        let ran = Arc::new(AtomicUsize::new(0));
        let sum = rt.block_on({
            let ran = ran.clone();
            async move {
                let handles: Vec<_> = (0..TASKS)
                    .map(|i| {
                        let ran = ran.clone();
                        rt::spawn(async move {
                            ran.fetch_add(1, Ordering::Relaxed);
                            i as u64
                        })
                    })
                    .collect();
                let mut sum = 0;
                for handle in handles {
                    sum += handle.await.unwrap();
                }
                sum
            }
        });
        assert_eq!(ran.load(Ordering::Relaxed), TASKS);
        assert_eq!(sum, (TASKS as u64 - 1) * TASKS as u64 / 2);
        let metrics = rt.handle().metrics();
        wait_until("every task left the owned list", || {
            metrics.num_alive_tasks() == 0
        });
    });
}

fn tree(depth: u32) -> Pin<Box<dyn Future<Output = usize> + Send>> {
    Box::pin(async move {
        if depth == 0 {
            return 1;
        }
        let left = rt::spawn(tree(depth - 1));
        let right = rt::spawn(tree(depth - 1));
        1 + left.await.unwrap() + right.await.unwrap()
    })
}

#[test]
fn nested_spawns_form_a_tree() {
    block_on_each(|_| async {
        // Every task spawns two children and waits for them.
        let depth = miri_or(10, 5) as u32;
        assert_eq!(tree(depth).await, (1 << (depth + 1)) - 1);
    });
}

#[test]
fn detached_tasks_still_run() {
    block_on_each(|_| async {
        let (done_tx, done_rx) = oneshot::channel();
        let (go_tx, go_rx) = oneshot::channel::<()>();
        // Dropping the JoinHandle detaches the task; it keeps running, even
        // across a suspension point after the handle is gone.
        drop(rt::spawn(async move {
            go_rx.await.unwrap();
            done_tx.send("ran to the end").unwrap();
        }));
        go_tx.send(()).unwrap();
        assert_eq!(done_rx.await.unwrap(), "ran to the end");
    });
}

#[test]
fn detached_tasks_spawned_from_outside_run() {
    each_runtime(|_, rt| {
        let (done_tx, done_rx) = oneshot::channel();
        drop(rt.spawn(async move { done_tx.send(7).unwrap() }));
        assert_eq!(rt.block_on(done_rx).unwrap(), 7);
    });
}

#[test]
fn handle_block_on_from_another_thread() {
    each_runtime(|_, rt| {
        let handle = rt.handle().clone();
        let (release_tx, release_rx) = oneshot::channel::<()>();
        // The other thread drives a future that spawns on the runtime and
        // waits for the task, while this thread is inside `block_on` too.
        let other = std::thread::spawn(move || {
            let out = handle.block_on(async {
                let task = rt::spawn(async { std::thread::current().id() });
                task.await.unwrap()
            });
            release_tx.send(()).unwrap();
            out
        });
        rt.block_on(async { release_rx.await.unwrap() });
        other.join().unwrap();
    });
}

#[test]
fn handle_block_on_alone_on_another_thread() {
    each_runtime(|_, rt| {
        let handle = rt.handle().clone();
        let out = std::thread::spawn(move || {
            handle.block_on(async {
                let a = rt::spawn(async { 40 });
                let b = Handle::current().spawn(async { 2 });
                a.await.unwrap() + b.await.unwrap()
            })
        })
        .join()
        .unwrap();
        assert_eq!(out, 42);
    });
}

#[test]
fn runtime_enter_makes_the_runtime_current() {
    each_runtime(|_, rt| {
        assert!(Handle::try_current().is_err());
        let task = {
            let _guard = rt.enter();
            assert!(Handle::current() == *rt.handle());
            rt::spawn(async { "spawned after enter" })
        };
        // The guard restored "no runtime".
        assert!(Handle::try_current().is_err());
        assert_eq!(rt.block_on(task).unwrap(), "spawned after enter");
    });
}

#[test]
fn nested_enter_restores_the_outer_runtime() {
    let outer = Kind::CurrentThread.build();
    let inner = Kind::MultiThread(2).build();
    let _outer_guard = outer.enter();
    {
        let _inner_guard = inner.enter();
        assert!(Handle::current() == *inner.handle());
    }
    assert!(Handle::current() == *outer.handle());
}

/// An `EnterGuard` is `Sync`, as tokio's is: a reference to it may go to
/// another thread, which can only print it. It stays `!Send`: it must be
/// dropped on the thread whose current runtime it set. So is a local
/// runtime's guard, which also makes its local set current.
#[test]
fn enter_guards_are_sync_but_not_send() {
    /// `not_send` resolves only for a `!Send` type (for a `Send` one the
    /// two impls make the call ambiguous: a compile error).
    trait NotSend<Which> {
        fn not_send(&self) {}
    }
    impl<T: ?Sized> NotSend<()> for T {}
    impl<T: ?Sized + Send> NotSend<u8> for T {}

    fn share_with_a_thread(guard: &rt::runtime::EnterGuard<'_>) {
        NotSend::not_send(guard);
        let printed = std::thread::scope(|s| s.spawn(|| format!("{guard:?}")).join().unwrap());
        assert!(printed.starts_with("EnterGuard"), "{printed}");
    }

    let rt = Kind::CurrentThread.build();
    share_with_a_thread(&rt.enter());
    let local = rt::runtime::LocalRuntime::new().unwrap();
    share_with_a_thread(&local.enter());
}

/// Enter guards dropped oldest first: the drop that breaks the order
/// panics and says so, and neither runtime stays current afterwards (nor
/// is kept alive by the thread).
#[test]
fn enter_guards_dropped_out_of_order_panic_and_leave_no_runtime_current() {
    let first = Kind::CurrentThread.build();
    let second = Kind::CurrentThread.build();
    let first_guard = first.enter();
    let second_guard = second.enter();
    let message = support::expect_panic(move || drop(first_guard));
    assert!(message.contains("out of order"), "{message}");
    // The newer guard still holds its runtime current.
    assert!(Handle::current() == *second.handle());
    drop(second_guard);
    assert!(
        Handle::try_current().is_err(),
        "a dropped guard's runtime is still current"
    );
    // The thread holds no handle: the runtime can shut down and go.
    let handle = first.handle().clone();
    drop(first);
    assert_eq!(handle.metrics().num_alive_tasks(), 0);
}

#[test]
fn task_id_inside_and_outside_tasks() {
    each_runtime(|_, rt| {
        assert_eq!(rt::task::try_id(), None);
        let handle = rt.spawn(async { (rt::task::id(), rt::task::try_id()) });
        let expected = handle.id();
        let (id, try_id) = rt.block_on(handle).unwrap();
        assert_eq!(id, expected);
        assert_eq!(try_id, Some(expected));
        // The future given to `block_on` is not a task.
        assert_eq!(rt.block_on(async { rt::task::try_id() }), None);
        // Inside a task, a nested task's id is its own.
        let (outer, inner, seen_by_inner) = rt.block_on(async {
            rt::spawn(async {
                let nested = rt::spawn(async { rt::task::id() });
                let inner = nested.id();
                (rt::task::id(), inner, nested.await.unwrap())
            })
            .await
            .unwrap()
        });
        assert_ne!(outer, inner);
        assert_eq!(inner, seen_by_inner);
    });
}

#[test]
fn task_ids_are_unique() {
    const TASKS: usize = miri_or(1000, 30);
    each_runtime(|_, rt| {
        let ids: HashSet<_> = rt.block_on(async {
            let handles: Vec<_> = (0..TASKS)
                .map(|_| rt::spawn(async { rt::task::id() }))
                .collect();
            let mut ids = HashSet::new();
            for handle in handles {
                let id = handle.id();
                assert_eq!(handle.await.unwrap(), id);
                ids.insert(id);
            }
            ids
        });
        assert_eq!(ids.len(), TASKS);
    });
}

#[test]
fn task_id_outside_a_task_panics() {
    let message = support::expect_panic(rt::task::id);
    assert!(
        message.contains("`rt::task::id()` called outside a task"),
        "{message}"
    );
}

/// Several threads in `block_on` on one runtime at once: on a
/// current-thread runtime one of them drives the tasks and hands the
/// scheduler over when its own future is done.
#[test]
fn concurrent_block_on_from_many_threads() {
    const ROUNDS: u64 = miri_or(300, 5) as u64;
    each_runtime(|_, rt| {
        let threads: Vec<_> = (0..4u64)
            .map(|t| {
                let handle = rt.handle().clone();
                std::thread::spawn(move || {
                    handle.block_on(async move {
                        let mut sum = 0;
                        for i in 0..ROUNDS {
                            sum += rt::spawn(async move {
                                rt::task::yield_now().await;
                                t * 1000 + i
                            })
                            .await
                            .unwrap();
                        }
                        sum
                    })
                })
            })
            .collect();
        for (t, thread) in threads.into_iter().enumerate() {
            let t = t as u64;
            assert_eq!(
                thread.join().unwrap(),
                ROUNDS * t * 1000 + (ROUNDS - 1) * ROUNDS / 2
            );
        }
    });
}

/// `TryCurrentError` tells "no runtime here" from "called while the thread
/// tears its thread-locals down" (tokio's `is_missing_context` and
/// `is_thread_local_destroyed`). Thread-local destructors run in reverse
/// order of registration, so a probe registered before rt's context is
/// touched is destroyed after it.
#[test]
fn try_current_error_kinds() {
    use std::cell::Cell;

    let outside = rt::runtime::Handle::try_current().unwrap_err();
    assert!(outside.is_missing_context());
    assert!(!outside.is_thread_local_destroyed());

    struct Probe(Cell<Option<std::sync::mpsc::Sender<(bool, bool)>>>);
    impl Drop for Probe {
        fn drop(&mut self) {
            if let Some(tx) = self.0.take() {
                let err = rt::runtime::Handle::try_current().unwrap_err();
                let _ = tx.send((err.is_missing_context(), err.is_thread_local_destroyed()));
            }
        }
    }
    thread_local! {
        static PROBE: Probe = const { Probe(Cell::new(None)) };
    }

    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        PROBE.with(|probe| probe.0.set(Some(tx)));
        // Registers rt's context after the probe: destroyed before it.
        let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
        rt.block_on(async {});
    })
    .join()
    .unwrap();
    let (missing, destroyed) = rx.recv_timeout(std::time::Duration::from_secs(10)).unwrap();
    assert!(destroyed, "the probe ran after rt's context was destroyed");
    assert!(!missing);
}

/// Sends `rt::task::try_id()` when dropped.
struct SendsIdOnDrop(Option<rt::sync::oneshot::Sender<Option<rt::task::Id>>>);

impl Drop for SendsIdOnDrop {
    fn drop(&mut self) {
        let _ = self.0.take().unwrap().send(rt::task::try_id());
    }
}

/// A task's future and its output are dropped with the task's id current
/// (as in tokio), wherever that happens: after the last poll, when the
/// task is aborted, and when the `JoinHandle` drops an output nobody read
/// (from the task that owned the handle, or after the handle is gone).
#[test]
fn task_id_is_current_while_the_future_and_the_output_are_dropped() {
    use rt::sync::oneshot::channel;

    each_runtime(|kind, rt| {
        // The future, dropped after its last poll.
        let (tx, rx) = channel();
        let guard = SendsIdOnDrop(Some(tx));
        let handle = rt.spawn(async move {
            let _guard = guard;
        });
        let id = handle.id();
        rt.block_on(handle).unwrap();
        assert_eq!(rt.block_on(rx).unwrap(), Some(id), "completed, on {kind:?}");

        // The future of an aborted task.
        let (tx, rx) = channel();
        let guard = SendsIdOnDrop(Some(tx));
        let handle = rt.spawn(async move {
            let _guard = guard;
            std::future::pending::<()>().await;
        });
        let id = handle.id();
        handle.abort();
        assert!(rt.block_on(handle).unwrap_err().is_cancelled());
        assert_eq!(rt.block_on(rx).unwrap(), Some(id), "aborted, on {kind:?}");

        // An output dropped by the JoinHandle's drop, in another task.
        let (tx, rx) = channel();
        let (id, seen) = rt.block_on(async move {
            let handle = rt::spawn(async move { SendsIdOnDrop(Some(tx)) });
            let id = handle.id();
            while !handle.is_finished() {
                rt::task::yield_now().await;
            }
            drop(handle);
            (id, rx.await.unwrap())
        });
        assert_eq!(seen, Some(id), "output via the handle, on {kind:?}");

        // An output nobody will read: the handle was dropped first.
        let (tx, rx) = channel();
        let (go_tx, go_rx) = channel::<()>();
        let handle = rt.spawn(async move {
            go_rx.await.unwrap();
            SendsIdOnDrop(Some(tx))
        });
        let id = handle.id();
        drop(handle);
        go_tx.send(()).unwrap();
        assert_eq!(
            rt.block_on(rx).unwrap(),
            Some(id),
            "detached output, on {kind:?}"
        );
    });
}
