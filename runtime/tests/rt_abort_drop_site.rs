//! Where an aborted task's future is dropped: always by its own runtime,
//! never on the thread that aborts it. That thread may be outside any
//! runtime (a destructor that spawns would fail there) or hold a lock the
//! destructor takes (it would deadlock). Covers `JoinHandle::abort`,
//! `AbortHandle::abort`, `JoinSet::abort_all` and drop, and `TaskGroup`
//! scopes dropped outside the runtime.

mod support;

use rt::task::{JoinSet, TaskGroup};
use std::cell::Cell;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread;
use support::each_runtime;

thread_local! {
    /// Set while this thread is inside an abort call made by the test.
    static ABORTING: Cell<bool> = const { Cell::new(false) };
}

/// Runs `abort` (a call that aborts tasks) with `ABORTING` set.
fn aborting<R>(abort: impl FnOnce() -> R) -> R {
    ABORTING.with(|flag| flag.set(true));
    let result = abort();
    ABORTING.with(|flag| flag.set(false));
    result
}

fn is_aborting() -> bool {
    ABORTING.with(Cell::get)
}

/// Where a `DropProbe` was dropped.
#[derive(Debug)]
struct DropSite {
    /// Inside the abort call itself, on the aborting thread.
    during_abort: bool,
    /// A runtime was current there, so the destructor could spawn.
    in_runtime: bool,
}

/// Held by a task's future. Its destructor reports where it ran and, when
/// a runtime is current, spawns a task that reports back too (what a
/// connection's destructor does when it hands its cleanup to a task).
struct DropProbe {
    sites: mpsc::Sender<DropSite>,
    follow_up: mpsc::Sender<()>,
}

impl Drop for DropProbe {
    fn drop(&mut self) {
        let in_runtime = rt::runtime::Handle::try_current().is_ok();
        if in_runtime {
            let follow_up = self.follow_up.clone();
            drop(rt::spawn(async move { follow_up.send(()).unwrap() }));
        }
        self.sites
            .send(DropSite {
                during_abort: is_aborting(),
                in_runtime,
            })
            .unwrap();
    }
}

struct Probes {
    sites_tx: mpsc::Sender<DropSite>,
    sites: mpsc::Receiver<DropSite>,
    follow_up_tx: mpsc::Sender<()>,
    follow_ups: mpsc::Receiver<()>,
}

impl Probes {
    fn new() -> Probes {
        let (sites_tx, sites) = mpsc::channel();
        let (follow_up_tx, follow_ups) = mpsc::channel();
        Probes {
            sites_tx,
            sites,
            follow_up_tx,
            follow_ups,
        }
    }

    fn probe(&self) -> DropProbe {
        DropProbe {
            sites: self.sites_tx.clone(),
            follow_up: self.follow_up_tx.clone(),
        }
    }

    /// Waits for `count` drops; each ran inside the runtime, not within
    /// the abort call, and its follow-up task ran.
    fn expect_dropped_in_runtime(&self, rt: &rt::runtime::Runtime, count: usize) {
        for _ in 0..count {
            // A current-thread runtime only runs inside `block_on`.
            let site = rt.block_on(async {
                loop {
                    match self.sites.try_recv() {
                        Ok(site) => return site,
                        Err(mpsc::TryRecvError::Empty) => rt::task::yield_now().await,
                        Err(mpsc::TryRecvError::Disconnected) => unreachable!(),
                    }
                }
            });
            assert!(site.in_runtime, "dropped outside the runtime: {site:?}");
            assert!(!site.during_abort, "dropped by the abort call: {site:?}");
        }
        for _ in 0..count {
            rt.block_on(async {
                while self.follow_ups.try_recv().is_err() {
                    rt::task::yield_now().await;
                }
            });
        }
    }
}

/// Spawns a task holding `probe` that has been polled once (so it is
/// idle, parked on a future that never completes) by the time this
/// returns.
fn spawn_idle(rt: &rt::runtime::Runtime, probe: DropProbe) -> rt::task::JoinHandle<()> {
    let (polled_tx, polled_rx) = rt::sync::oneshot::channel();
    let handle = rt.spawn(async move {
        let _probe = probe;
        polled_tx.send(()).unwrap();
        std::future::pending::<()>().await;
    });
    rt.block_on(polled_rx).unwrap();
    handle
}

#[test]
fn join_handle_abort_from_a_plain_thread_drops_the_future_in_the_runtime() {
    each_runtime(|_, rt| {
        let probes = Probes::new();
        let handle = spawn_idle(&rt, probes.probe());
        let handle = thread::spawn(move || {
            aborting(|| handle.abort());
            handle
        })
        .join()
        .unwrap();
        assert!(rt.block_on(handle).unwrap_err().is_cancelled());
        probes.expect_dropped_in_runtime(&rt, 1);
    });
}

#[test]
fn abort_handle_from_a_plain_thread_drops_the_future_in_the_runtime() {
    each_runtime(|_, rt| {
        let probes = Probes::new();
        let handle = spawn_idle(&rt, probes.probe());
        let abort = handle.abort_handle();
        // The aborting thread is this one, outside `block_on`.
        aborting(|| abort.abort());
        assert!(rt.block_on(handle).unwrap_err().is_cancelled());
        probes.expect_dropped_in_runtime(&rt, 1);
    });
}

/// A task still queued (never polled) when it is aborted is dropped by the
/// runtime as well.
#[test]
fn abort_of_a_queued_task_drops_it_in_the_runtime() {
    each_runtime(|_, rt| {
        let probes = Probes::new();
        let probe = probes.probe();
        let handle = rt.spawn(async move {
            let _probe = probe;
            std::future::pending::<()>().await;
        });
        // On a multi-thread runtime a worker may have polled it already.
        aborting(|| handle.abort());
        assert!(rt.block_on(handle).unwrap_err().is_cancelled());
        probes.expect_dropped_in_runtime(&rt, 1);
    });
}

/// The aborting thread holds a lock that the future's destructor takes:
/// the abort returns without running the destructor, which runs on a
/// worker once the lock is released.
#[test]
fn abort_while_holding_a_lock_the_destructor_takes() {
    struct LocksOnDrop {
        log: Arc<Mutex<Vec<&'static str>>>,
    }
    impl Drop for LocksOnDrop {
        fn drop(&mut self) {
            // Taking the lock inside the abort would deadlock; fail instead.
            assert!(!is_aborting(), "the future was dropped by abort()");
            self.log.lock().unwrap().push("dropped");
        }
    }

    each_runtime(|_, rt| {
        let log = Arc::new(Mutex::new(Vec::new()));
        let guard = LocksOnDrop { log: log.clone() };
        let (polled_tx, polled_rx) = rt::sync::oneshot::channel();
        let handle = rt.spawn(async move {
            let _guard = guard;
            polled_tx.send(()).unwrap();
            std::future::pending::<()>().await;
        });
        rt.block_on(polled_rx).unwrap();
        {
            let mut locked = log.lock().unwrap();
            aborting(|| {
                handle.abort();
                handle.abort_handle().abort();
            });
            locked.push("aborted");
            // The destructor cannot have run: it needs this lock.
            assert!(!handle.is_finished());
        }
        assert!(rt.block_on(handle).unwrap_err().is_cancelled());
        assert_eq!(*log.lock().unwrap(), ["aborted", "dropped"]);
    });
}

#[test]
fn join_set_dropped_on_a_plain_thread_drops_its_tasks_in_the_runtime() {
    const TASKS: usize = 8;
    each_runtime(|_, rt| {
        let probes = Probes::new();
        let mut set = JoinSet::new();
        let mut polled = Vec::new();
        for _ in 0..TASKS {
            let probe = probes.probe();
            let (polled_tx, polled_rx) = rt::sync::oneshot::channel();
            polled.push(polled_rx);
            set.spawn_on(
                async move {
                    let _probe = probe;
                    polled_tx.send(()).unwrap();
                    std::future::pending::<()>().await;
                },
                rt.handle(),
            );
        }
        for polled_rx in polled {
            rt.block_on(polled_rx).unwrap();
        }
        thread::spawn(move || aborting(|| drop(set)))
            .join()
            .unwrap();
        probes.expect_dropped_in_runtime(&rt, TASKS);
    });
}

#[test]
fn join_set_abort_all_from_a_plain_thread_drops_its_tasks_in_the_runtime() {
    const TASKS: usize = 8;
    each_runtime(|_, rt| {
        let probes = Probes::new();
        let mut set = JoinSet::new();
        for _ in 0..TASKS {
            let probe = probes.probe();
            set.spawn_on(
                async move {
                    let _probe = probe;
                    std::future::pending::<()>().await;
                },
                rt.handle(),
            );
        }
        let mut set = thread::spawn(move || {
            aborting(|| set.abort_all());
            set
        })
        .join()
        .unwrap();
        probes.expect_dropped_in_runtime(&rt, TASKS);
        rt.block_on(async {
            let mut cancelled = 0;
            while let Some(result) = set.join_next().await {
                assert!(result.unwrap_err().is_cancelled());
                cancelled += 1;
            }
            assert_eq!(cancelled, TASKS);
        });
    });
}

/// A `TaskGroup` scope, started on the runtime, dropped on a plain thread
/// (its caller gave up on it): the children it aborts are dropped by the
/// runtime.
#[test]
fn task_group_scope_dropped_on_a_plain_thread_drops_its_children_in_the_runtime() {
    const CHILDREN: usize = 4;
    each_runtime(|_, rt| {
        let probes = Probes::new();
        let (spawned_tx, spawned_rx) = rt::sync::oneshot::channel();
        let child_probes: Vec<DropProbe> = (0..CHILDREN).map(|_| probes.probe()).collect();
        let mut scope = Box::pin(TaskGroup::<()>::scope(move |group| async move {
            for probe in child_probes {
                group.spawn(async move {
                    let _probe = probe;
                    std::future::pending::<Result<(), ()>>().await
                });
            }
            spawned_tx.send(()).unwrap();
            std::future::pending::<Result<(), ()>>().await
        }));
        // Poll the scope on the runtime until its body has spawned.
        rt.block_on(async {
            let mut spawned_rx = std::pin::pin!(spawned_rx);
            std::future::poll_fn(|cx| {
                let _ = scope.as_mut().poll(cx);
                spawned_rx.as_mut().poll(cx).map(|r| r.unwrap())
            })
            .await
        });
        thread::spawn(move || aborting(|| drop(scope)))
            .join()
            .unwrap();
        probes.expect_dropped_in_runtime(&rt, CHILDREN);
    });
}
