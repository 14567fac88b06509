//! Aborts the way users hit them beyond the plain cases of `rt_abort.rs`:
//! from another runtime's task, of a task blocked in `block_in_place`,
//! racing the runtime's shutdown, with destructors that panic or ask for
//! their task's id, and through `JoinSet` from other threads.

mod support;

use rt::task::{JoinSet, block_in_place};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Barrier, Mutex};
use support::{DropCounter, Kind, each, each_runtime, wait_until};

/// Sends its task's id (as seen from its destructor) when dropped.
struct ReportsId(mpsc::Sender<Option<rt::task::Id>>);

impl Drop for ReportsId {
    fn drop(&mut self) {
        let _ = self.0.send(rt::task::try_id());
    }
}

/// A future aborted by a task of another runtime: the future is dropped
/// by its own runtime, the handle (awaited in the other runtime) yields
/// `Cancelled`.
#[test]
fn abort_from_a_task_of_another_runtime() {
    each_runtime(|kind, rt| {
        for other_kind in [Kind::CurrentThread, Kind::MultiThread(2)] {
            let other = other_kind.build();
            let drops = DropCounter::new();
            let guard = drops.guard();
            let (started_tx, started_rx) = rt::sync::oneshot::channel();
            let handle = rt.spawn(async move {
                let _guard = guard;
                started_tx.send(()).unwrap();
                std::future::pending::<()>().await;
            });
            rt.block_on(started_rx).unwrap();
            // The aborted runtime runs its tasks only inside `block_on` on
            // a current-thread runtime: drive it from a thread of its own.
            let error = std::thread::scope(|s| {
                let (done_tx, done_rx) = rt::sync::oneshot::channel::<()>();
                s.spawn(|| rt.block_on(done_rx));
                let error = other.block_on(async move {
                    let handle = rt::spawn(async move {
                        handle.abort();
                        handle.await
                    });
                    handle.await.unwrap().unwrap_err()
                });
                done_tx.send(()).unwrap();
                error
            });
            assert!(
                error.is_cancelled(),
                "{kind:?} from {other_kind:?}: {error}"
            );
            assert_eq!(drops.dropped(), 1);
        }
    });
}

/// A task blocked in `block_in_place`, aborted meanwhile: the closure
/// runs to its end (nothing can stop it), then the task is cancelled at
/// its next suspension; its output never appears.
#[test]
fn abort_of_a_task_inside_block_in_place() {
    each(&[Kind::MultiThread(1), Kind::MultiThread(2)], |_, rt| {
        let drops = DropCounter::new();
        let guard = drops.guard();
        let (inside_tx, inside_rx) = mpsc::channel();
        let (release_tx, release_rx) = mpsc::channel::<()>();
        let reached = Arc::new(AtomicUsize::new(0));
        let seen = reached.clone();
        let handle = rt.spawn(async move {
            let _guard = guard;
            block_in_place(|| {
                inside_tx.send(()).unwrap();
                release_rx.recv().unwrap();
            });
            seen.fetch_add(1, Ordering::SeqCst);
            rt::task::yield_now().await;
            seen.fetch_add(1, Ordering::SeqCst);
        });
        inside_rx.recv().unwrap();
        handle.abort();
        assert!(!handle.is_finished());
        // Other tasks still run while the worker is blocked.
        assert_eq!(rt.block_on(rt.spawn(async { 7 })).unwrap(), 7);
        release_tx.send(()).unwrap();
        let error = rt.block_on(handle).unwrap_err();
        assert!(error.is_cancelled());
        assert_eq!(reached.load(Ordering::SeqCst), 1);
        assert_eq!(drops.dropped(), 1);
    });
}

/// Aborts from a plain thread racing the runtime's drop: every future is
/// dropped exactly once, every handle yields `Cancelled`, nothing hangs.
#[test]
fn abort_racing_runtime_shutdown() {
    for round in 0..50 {
        each_runtime(|kind, rt| {
            let drops = DropCounter::new();
            let mut handles = Vec::new();
            for _ in 0..16 {
                let guard = drops.guard();
                handles.push(rt.spawn(async move {
                    let _guard = guard;
                    loop {
                        rt::task::yield_now().await;
                    }
                }));
            }
            let aborts: Vec<_> = handles.iter().map(|h| h.abort_handle()).collect();
            let barrier = Arc::new(Barrier::new(2));
            let aborter = {
                let barrier = barrier.clone();
                std::thread::spawn(move || {
                    barrier.wait();
                    for abort in &aborts {
                        abort.abort();
                    }
                    aborts
                })
            };
            barrier.wait();
            drop(rt);
            let aborts = aborter.join().unwrap();
            for handle in handles {
                let error = futures::executor::block_on(handle).unwrap_err();
                assert!(error.is_cancelled(), "round {round} on {kind:?}: {error}");
            }
            assert!(aborts.iter().all(|a| a.is_finished()));
            assert_eq!(drops.alive(), 0, "round {round} on {kind:?}");
        });
    }
}

/// An aborted task's future sees its own id in its destructor, whether
/// the abort or the runtime's shutdown drops it, and whether the handle
/// is kept or detached.
#[test]
fn an_aborted_future_knows_its_id_in_drop() {
    each_runtime(|kind, rt| {
        let (ids_tx, ids_rx) = mpsc::channel();
        // Aborted, handle awaited.
        let report = ReportsId(ids_tx.clone());
        let (started_tx, started_rx) = rt::sync::oneshot::channel();
        let handle = rt.spawn(async move {
            let _report = report;
            started_tx.send(()).unwrap();
            std::future::pending::<()>().await;
        });
        rt.block_on(started_rx).unwrap();
        let id = handle.id();
        handle.abort();
        assert!(rt.block_on(handle).unwrap_err().is_cancelled());
        assert_eq!(ids_rx.recv().unwrap(), Some(id), "{kind:?}: abort");
        // Aborted before its first poll, handle detached.
        let report = ReportsId(ids_tx.clone());
        let handle = rt.spawn(async move {
            let _report = report;
            std::future::pending::<()>().await;
        });
        let id = handle.id();
        handle.abort();
        drop(handle);
        rt.block_on(async {
            let metrics = rt::runtime::Handle::current().metrics();
            while metrics.num_alive_tasks() != 0 {
                rt::task::yield_now().await;
            }
        });
        assert_eq!(ids_rx.recv().unwrap(), Some(id), "{kind:?}: detached");
        // Cancelled by shutdown.
        let report = ReportsId(ids_tx.clone());
        let handle = rt.spawn(async move {
            let _report = report;
            std::future::pending::<()>().await;
        });
        let id = handle.id();
        drop(rt);
        assert_eq!(ids_rx.recv().unwrap(), Some(id), "{kind:?}: shutdown");
        drop(handle);
    });
}

/// A future that panics when dropped, aborted with its handle detached:
/// the panic is contained (the runtime and its worker go on), and the
/// future was dropped.
#[test]
fn a_detached_aborted_future_that_panics_in_drop_is_contained() {
    struct PanicOnDrop(Arc<AtomicUsize>);
    impl Drop for PanicOnDrop {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
            panic!("boom in drop");
        }
    }
    each_runtime(|kind, rt| {
        let dropped = Arc::new(AtomicUsize::new(0));
        for _ in 0..8 {
            let bomb = PanicOnDrop(dropped.clone());
            let (started_tx, started_rx) = rt::sync::oneshot::channel();
            let handle = rt.spawn(async move {
                let _bomb = bomb;
                started_tx.send(()).unwrap();
                std::future::pending::<()>().await;
            });
            rt.block_on(started_rx).unwrap();
            let abort = handle.abort_handle();
            drop(handle);
            abort.abort();
            rt.block_on(async {
                while !abort.is_finished() {
                    rt::task::yield_now().await;
                }
            });
        }
        assert_eq!(dropped.load(Ordering::SeqCst), 8, "{kind:?}");
        assert_eq!(rt.block_on(rt.spawn(async { 5 })).unwrap(), 5);
        // And at shutdown.
        let bomb = PanicOnDrop(dropped.clone());
        let handle = rt.spawn(async move {
            let _bomb = bomb;
            std::future::pending::<()>().await;
        });
        drop(rt);
        assert_eq!(dropped.load(Ordering::SeqCst), 9, "{kind:?}");
        let error = futures::executor::block_on(handle).unwrap_err();
        assert!(error.is_panic(), "{kind:?}: {error}");
    });
}

/// A detached task whose output panics when dropped: the panic stays in
/// the runtime, which goes on.
#[test]
fn a_detached_output_that_panics_in_drop_is_contained() {
    struct PanicOnDrop(Arc<AtomicUsize>);
    impl Drop for PanicOnDrop {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
            panic!("boom in output drop");
        }
    }
    each_runtime(|kind, rt| {
        let dropped = Arc::new(AtomicUsize::new(0));
        for _ in 0..8 {
            let output = PanicOnDrop(dropped.clone());
            let (go_tx, go_rx) = rt::sync::oneshot::channel::<()>();
            drop(rt.spawn(async move {
                go_rx.await.unwrap();
                output
            }));
            go_tx.send(()).unwrap();
        }
        rt.block_on(async {
            let metrics = rt::runtime::Handle::current().metrics();
            while metrics.num_alive_tasks() != 0 {
                rt::task::yield_now().await;
            }
        });
        wait_until("every output is dropped", || {
            dropped.load(Ordering::SeqCst) == 8
        });
        assert_eq!(rt.block_on(rt.spawn(async { 5 })).unwrap(), 5, "{kind:?}");
    });
}

/// `JoinSet::abort_all`, `shutdown` and `detach_all`, and a set with many
/// tasks dropped on a plain thread: aborted tasks' futures are dropped
/// (detached ones keep running), and `shutdown` returns once all are gone.
#[test]
fn join_set_abort_all_shutdown_detach_all_and_drop_elsewhere() {
    each_runtime(|kind, rt| {
        let drops = DropCounter::new();
        rt.block_on(async {
            let mut set = JoinSet::new();
            for _ in 0..64 {
                let guard = drops.guard();
                set.spawn(async move {
                    let _guard = guard;
                    std::future::pending::<()>().await;
                });
            }
            set.shutdown().await;
            assert!(set.is_empty());
            assert_eq!(drops.alive(), 0, "{kind:?}: shutdown returned early");

            for _ in 0..64 {
                let guard = drops.guard();
                set.spawn(async move {
                    let _guard = guard;
                    std::future::pending::<()>().await;
                });
            }
            set.abort_all();
            let mut cancelled = 0;
            while let Some(joined) = set.join_next().await {
                assert!(joined.unwrap_err().is_cancelled());
                cancelled += 1;
            }
            assert_eq!(cancelled, 64);
            assert_eq!(drops.alive(), 0);

            // Detached tasks keep running to their end.
            let (tx, mut rx) = rt::sync::mpsc::unbounded_channel();
            let gate = Arc::new(rt::sync::Semaphore::new(0));
            for i in 0..16 {
                let tx = tx.clone();
                let gate = gate.clone();
                set.spawn(async move {
                    gate.acquire().await.unwrap().forget();
                    tx.send(i).unwrap();
                });
            }
            drop(tx);
            set.detach_all();
            assert!(set.is_empty());
            drop(set);
            gate.add_permits(16);
            let mut got = Vec::new();
            while let Some(i) = rx.recv().await {
                got.push(i);
            }
            got.sort_unstable();
            assert_eq!(got, (0..16).collect::<Vec<_>>());
        });

        // Dropped on a plain thread.
        let mut set = JoinSet::new();
        for _ in 0..256 {
            let guard = drops.guard();
            set.spawn_on(
                async move {
                    let _guard = guard;
                    std::future::pending::<()>().await;
                },
                rt.handle(),
            );
        }
        std::thread::spawn(move || drop(set)).join().unwrap();
        rt.block_on(async {
            let metrics = rt::runtime::Handle::current().metrics();
            while metrics.num_alive_tasks() != 0 {
                rt::task::yield_now().await;
            }
        });
        wait_until("every aborted future is dropped", || drops.alive() == 0);
    });
}

/// `is_finished` turns true only once the aborted future is gone, and
/// stays false for a running task marked cancelled.
#[test]
fn is_finished_follows_the_drop_of_an_aborted_future() {
    each(&[Kind::MultiThread(2)], |_, rt| {
        let dropped = Arc::new(Mutex::new(false));
        struct Flag(Arc<Mutex<bool>>, mpsc::Receiver<()>);
        impl Drop for Flag {
            fn drop(&mut self) {
                // Held until the test lets the drop finish.
                self.1.recv().unwrap();
                *self.0.lock().unwrap() = true;
            }
        }
        let (finish_drop_tx, finish_drop_rx) = mpsc::channel();
        let flag = Flag(dropped.clone(), finish_drop_rx);
        let (started_tx, started_rx) = mpsc::channel();
        let handle = rt.spawn(async move {
            let _flag = flag;
            started_tx.send(()).unwrap();
            std::future::pending::<()>().await;
        });
        started_rx.recv().unwrap();
        handle.abort();
        // The worker is inside the destructor now, or about to be.
        assert!(!handle.is_finished());
        finish_drop_tx.send(()).unwrap();
        let abort = handle.abort_handle();
        wait_until("the aborted task finishes", || abort.is_finished());
        assert!(*dropped.lock().unwrap());
        assert!(rt.block_on(handle).unwrap_err().is_cancelled());
    });
}

/// A `JoinSet` whose runtime was dropped: every task comes back cancelled
/// from `join_next`, polled outside any runtime, and the set then ends.
#[test]
fn join_set_outlives_its_runtime() {
    each_runtime(|kind, rt| {
        let drops = DropCounter::new();
        let mut set = JoinSet::new();
        for _ in 0..16 {
            let guard = drops.guard();
            set.spawn_on(
                async move {
                    let _guard = guard;
                    std::future::pending::<()>().await;
                },
                rt.handle(),
            );
        }
        drop(rt);
        assert_eq!(drops.alive(), 0, "{kind:?}");
        let mut cancelled = 0;
        futures::executor::block_on(async {
            while let Some(joined) = set.join_next().await {
                assert!(joined.unwrap_err().is_cancelled());
                cancelled += 1;
            }
        });
        assert_eq!(cancelled, 16, "{kind:?}");
        assert!(set.try_join_next().is_none());
    });
}

/// `Interval::tick` dropped before its tick came (a `select!` that another
/// branch won) loses no tick: the next `tick()` returns the one that was
/// due, at its scheduled instant, and the period goes on from there.
#[test]
fn interval_tick_dropped_before_it_fires_loses_no_tick() {
    let rt = support::paused();
    rt.block_on(async {
        let start = rt::time::Instant::now();
        let mut interval = rt::time::interval(std::time::Duration::from_millis(10));
        assert_eq!(interval.tick().await, start);
        for round in 1..=5u32 {
            // Polled once (pending), then dropped, like a losing branch.
            let lost =
                rt::time::timeout(std::time::Duration::from_millis(3), interval.tick()).await;
            assert!(lost.is_err(), "round {round}: ticked early");
            let due = start + std::time::Duration::from_millis(10) * round;
            assert_eq!(interval.tick().await, due, "round {round}");
            assert_eq!(
                rt::time::Instant::now(),
                due,
                "round {round}: waited past the tick"
            );
        }
    });
}
