//! `Handle::dump`: tasks waiting on a `Notify`, a sleep and a socket read
//! are listed with their names, spawn locations and states, from outside
//! the runtime and from a task inside it, on both schedulers; the dump
//! stays consistent while tasks are spawned and finish around it.

mod support;

use futures::AsyncReadExt as _;
use rt::runtime::{Handle, TaskDump, TaskSnapshot, TaskState};
use rt::sync::Notify;
use rt::task::{Builder, Id, JoinHandle};
use std::future::Future;
use std::panic::Location;
use std::sync::Arc;
use std::time::Duration;
use support::{Kind, tcp_pair, wait_until};

/// Spawns `future` named `name` on `handle`, and says from where.
#[track_caller]
fn spawn_named<F>(handle: &Handle, name: &str, future: F) -> (JoinHandle<()>, Location<'static>)
where
    F: Future<Output = ()> + Send + 'static,
{
    let task = Builder::new().name(name).spawn_on(future, handle).unwrap();
    (task, *Location::caller())
}

fn find(dump: &TaskDump, id: Id) -> &TaskSnapshot {
    dump.iter()
        .find(|task| task.id() == id)
        .unwrap_or_else(|| panic!("task {id} missing from the dump:\n{dump}"))
}

/// Three tasks, each waiting on something different.
struct Waiters {
    notify: Arc<Notify>,
    tasks: Vec<(JoinHandle<()>, Location<'static>, &'static str)>,
}

fn spawn_waiters(handle: &Handle) -> Waiters {
    let notify = Arc::new(Notify::new());
    let waiter = notify.clone();
    let on_notify = spawn_named(handle, "waits on a Notify", async move {
        waiter.notified().await;
    });
    let on_sleep = spawn_named(handle, "sleeps an hour", async {
        rt::time::sleep(Duration::from_secs(3600)).await;
    });
    let on_read = spawn_named(handle, "reads a socket", async {
        let (mut client, _server) = tcp_pair().await;
        let mut buf = [0; 1];
        let _ = client.read(&mut buf).await;
    });
    let names = ["waits on a Notify", "sleeps an hour", "reads a socket"];
    let tasks = [on_notify, on_sleep, on_read]
        .into_iter()
        .zip(names)
        .map(|((task, location), name)| (task, location, name))
        .collect();
    Waiters { notify, tasks }
}

impl Waiters {
    fn all_idle(&self, dump: &TaskDump) -> bool {
        self.tasks.iter().all(|(task, _, _)| {
            dump.iter()
                .any(|t| t.id() == task.id() && t.state() == TaskState::Idle)
        })
    }

    fn check(&self, dump: &TaskDump) {
        for (task, location, name) in &self.tasks {
            let snapshot = find(dump, task.id());
            assert_eq!(snapshot.name(), Some(*name));
            assert_eq!(snapshot.location(), location, "{name}");
            assert_eq!(snapshot.state(), TaskState::Idle, "{name}:\n{dump}");
            assert!(snapshot.polls() >= 1, "{name} was polled");
            assert!(snapshot.since_last_poll().is_some());
            assert!(snapshot.since_last_poll().unwrap() <= snapshot.since_spawn());
        }
        let table = dump.to_string();
        for (_, location, name) in &self.tasks {
            let line = table
                .lines()
                .find(|line| line.contains(name))
                .unwrap_or_else(|| panic!("{name} missing from the table:\n{table}"));
            assert!(line.contains("idle"), "{line}");
            assert!(line.contains(&location.to_string()), "{line}");
        }
    }

    fn finish(self, rt: &rt::runtime::Runtime) {
        self.notify.notify_one();
        let mut tasks = self.tasks.into_iter();
        let (notified, _, _) = tasks.next().unwrap();
        rt.block_on(notified).unwrap();
        for (task, _, _) in tasks {
            task.abort();
            assert!(rt.block_on(task).unwrap_err().is_cancelled());
        }
    }
}

/// Entries come longest idle first.
fn assert_sorted(dump: &TaskDump) {
    let idle: Vec<Duration> = dump
        .iter()
        .map(|t| t.since_last_poll().unwrap_or(t.since_spawn()))
        .collect();
    assert!(
        idle.windows(2).all(|w| w[0] >= w[1]),
        "not sorted: {idle:?}"
    );
}

#[test]
fn dump_from_outside_lists_waiting_tasks() {
    let _serial = shared();
    for kind in [Kind::CurrentThread, Kind::MultiThread(2)] {
        let rt = kind.build();
        let waiters = spawn_waiters(rt.handle());
        // The current-thread runtime runs its tasks inside `block_on` only.
        // The dump checked is the one that showed them all idle: an event
        // of the new connection may still wake the reader after that (it
        // reads nothing and waits again; helper runs caught it scheduled
        // in a later dump about once in 40), which is no matter here.
        let mut dump = None;
        wait_until("the waiters wait", || {
            rt.block_on(rt::task::yield_now());
            let now = rt.handle().dump();
            let idle = waiters.all_idle(&now);
            dump = Some(now);
            idle
        });
        let dump = dump.unwrap();
        assert_eq!(dump.len(), 3, "{dump}");
        waiters.check(&dump);
        assert_sorted(&dump);
        waiters.finish(&rt);
        assert!(rt.handle().dump().is_empty());
    }
}

#[test]
fn dump_from_inside_a_task_finds_itself_running() {
    let _serial = shared();
    for kind in [Kind::CurrentThread, Kind::MultiThread(2)] {
        let rt = kind.build();
        let waiters = spawn_waiters(rt.handle());
        let (dumper, location) = {
            let task = Builder::new()
                .name("dumper")
                .spawn_on(
                    async {
                        loop {
                            let dump = Handle::current().dump();
                            let idle = dump.iter().filter(|t| t.state() == TaskState::Idle).count();
                            if idle == 3 {
                                return (rt::task::id(), dump);
                            }
                            rt::task::yield_now().await;
                        }
                    },
                    rt.handle(),
                )
                .unwrap();
            (task, Location::caller())
        };
        let (me, dump) = rt.block_on(dumper).unwrap();
        assert_eq!(dump.len(), 4, "{dump}");
        waiters.check(&dump);
        let dumper = find(&dump, me);
        assert_eq!(dumper.name(), Some("dumper"));
        assert_eq!(dumper.location().file(), location.file());
        let expected_worker = Some(0).filter(|_| kind == Kind::CurrentThread);
        match dumper.state() {
            TaskState::Running { worker } if kind == Kind::CurrentThread => {
                assert_eq!(worker, expected_worker)
            }
            TaskState::Running { worker: Some(w) } => assert!(w < 2),
            other => panic!("the dumping task shows as {other:?}:\n{dump}"),
        }
        assert!(dump.to_string().contains("running@"), "{dump}");
        waiters.finish(&rt);
    }
}

#[test]
fn a_task_never_polled_is_scheduled_with_no_poll_time() {
    let _serial = shared();
    let rt = Kind::CurrentThread.build();
    let task = rt.spawn(async {});
    let dump = rt.handle().dump();
    let snapshot = find(&dump, task.id());
    assert_eq!(snapshot.state(), TaskState::Scheduled);
    assert_eq!(snapshot.polls(), 0);
    assert_eq!(snapshot.since_last_poll(), None);
    assert_eq!(snapshot.name(), None);
    assert!(dump.to_string().contains("never"), "{dump}");
    rt.block_on(task).unwrap();
}

#[test]
fn polls_are_counted_per_task() {
    let _serial = shared();
    let rt = Kind::MultiThread(2).build();
    let (release, released) = futures_channel::oneshot::channel::<()>();
    let task = rt.spawn(async move {
        for _ in 0..5 {
            rt::task::yield_now().await;
        }
        released.await.unwrap();
    });
    wait_until("the task waits", || {
        rt.handle()
            .dump()
            .iter()
            .any(|t| t.id() == task.id() && t.state() == TaskState::Idle)
    });
    assert_eq!(find(&rt.handle().dump(), task.id()).polls(), 6);
    release.send(()).unwrap();
    rt.block_on(task).unwrap();
}

#[test]
fn dumps_stay_consistent_while_tasks_come_and_go() {
    let _serial = shared();
    let rt = Kind::MultiThread(4).build();
    let handle = rt.handle().clone();
    let churn = std::thread::spawn(move || {
        for _ in 0..50 {
            let tasks: Vec<_> = (0..200)
                .map(|i| {
                    handle.spawn(async move {
                        if i % 2 == 0 {
                            rt::task::yield_now().await;
                        }
                    })
                })
                .collect();
            for task in tasks {
                handle.block_on(task).unwrap();
            }
        }
    });
    let mut dumps = 0;
    while !churn.is_finished() {
        let dump = rt.handle().dump();
        // Shard by shard, not at one instant: a dump may catch the end of
        // one round of 200 in a shard and the next round in a later one,
        // but never a task twice.
        assert!(dump.len() <= 400, "{} tasks", dump.len());
        let ids: std::collections::HashSet<Id> = dump.iter().map(|t| t.id()).collect();
        assert_eq!(ids.len(), dump.len());
        assert_sorted(&dump);
        for task in &dump {
            assert!(task.polls() <= 2);
            assert_eq!(task.location().file(), file!());
        }
        dumps += 1;
    }
    churn.join().unwrap();
    assert!(dumps > 0);
    wait_until("all finished", || rt.handle().dump().is_empty());
}

/// Serializes the tests that count task allocations, which are
/// process-wide, against every other test here.
static SERIAL: std::sync::RwLock<()> = std::sync::RwLock::new(());

fn shared() -> std::sync::RwLockReadGuard<'static, ()> {
    SERIAL
        .read()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn exclusive() -> std::sync::RwLockWriteGuard<'static, ()> {
    SERIAL
        .write()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Waits (driving a current-thread runtime, which runs its tasks only
/// inside `block_on`) until task `id` shows as complete, and returns it.
fn wait_complete(rt: &rt::runtime::Runtime, id: Id) -> TaskSnapshot {
    wait_until("the task is complete", || {
        rt.block_on(rt::task::yield_now());
        rt.handle()
            .dump()
            .iter()
            .any(|t| t.id() == id && t.state() == TaskState::Complete)
    });
    find(&rt.handle().dump(), id).clone()
}

/// The output a finished task holds; counts its drops.
struct Output(Arc<()>);

#[test]
fn a_finished_task_whose_handle_is_held_is_listed_complete() {
    let _serial = shared();
    for kind in [Kind::CurrentThread, Kind::MultiThread(2)] {
        let rt = kind.build();
        let (release, released) = futures_channel::oneshot::channel::<()>();
        let (waiting, _) = spawn_named(rt.handle(), "still waiting", async move {
            released.await.unwrap();
        });
        let (finished, location) = spawn_named(rt.handle(), "finished", async {});
        let snapshot = wait_complete(&rt, finished.id());
        assert_eq!(snapshot.name(), Some("finished"));
        assert_eq!(snapshot.location(), &location);
        assert_eq!(snapshot.polls(), 1);
        let dump = rt.handle().dump();
        assert_eq!(dump.len(), 2, "{dump}");
        assert_sorted(&dump);
        let line = dump.to_string();
        let line = line.lines().find(|l| l.contains("finished")).unwrap();
        assert!(line.contains("complete"), "{line}");
        // Finished tasks are not alive; the waiting one is.
        assert_eq!(rt.metrics().num_alive_tasks(), 1);

        // Awaiting the handle takes the task out of the dump.
        rt.block_on(finished).unwrap();
        let dump = rt.handle().dump();
        assert_eq!(dump.len(), 1, "{dump}");
        assert_eq!(dump.tasks()[0].id(), waiting.id());

        // So does dropping the handle, for a task that panicked or was
        // aborted: its JoinError waits in the handle the same way.
        let panicked = rt.spawn(async { panic!("boom") });
        let aborted = rt.spawn(std::future::pending::<()>());
        aborted.abort();
        wait_complete(&rt, panicked.id());
        wait_complete(&rt, aborted.id());
        assert_eq!(rt.metrics().num_alive_tasks(), 1);
        drop(panicked);
        assert!(rt.block_on(aborted).unwrap_err().is_cancelled());
        let dump = rt.handle().dump();
        assert_eq!(dump.len(), 1, "{dump}");

        release.send(()).unwrap();
        rt.block_on(waiting).unwrap();
        assert!(rt.handle().dump().is_empty());
        assert_eq!(rt.metrics().num_alive_tasks(), 0);
    }
}

#[test]
fn a_detached_task_leaves_the_dump_when_it_finishes() {
    let _serial = shared();
    for kind in [Kind::CurrentThread, Kind::MultiThread(2)] {
        let rt = kind.build();
        let (release, released) = futures_channel::oneshot::channel::<()>();
        let (done_tx, done) = std::sync::mpsc::channel();
        let task = rt.spawn(async move {
            released.await.unwrap();
            done_tx.send(()).unwrap();
        });
        drop(task);
        release.send(()).unwrap();
        wait_until("the task ran", || {
            rt.block_on(rt::task::yield_now());
            done.try_recv().is_ok()
        });
        wait_until("the task is gone", || rt.handle().dump().is_empty());
        assert_eq!(rt.metrics().num_alive_tasks(), 0);
    }
}

#[test]
fn a_complete_task_outlives_its_runtime_and_is_freed() {
    let _serial = exclusive();
    let baseline = rt::task::__live_task_allocations();
    for kind in [Kind::CurrentThread, Kind::MultiThread(2)] {
        let output = Arc::new(());
        let rt = kind.build();
        let read_later = {
            let output = output.clone();
            rt.spawn(async move { Output(output) })
        };
        let dropped_later = {
            let output = output.clone();
            rt.spawn(async move { Output(output) })
        };
        let panicked = rt.spawn(async { panic!("boom") });
        let cancelled = rt.spawn(std::future::pending::<()>());
        for task in [read_later.id(), dropped_later.id(), panicked.id()] {
            wait_complete(&rt, task);
        }
        assert_eq!(Arc::strong_count(&output), 3, "both outputs are held");
        drop(rt);
        // The outputs stayed in their tasks, and the pending task was
        // cancelled by the shutdown.
        let read = futures::executor::block_on(read_later).unwrap();
        assert!(Arc::ptr_eq(&read.0, &output));
        drop(read);
        drop(dropped_later);
        assert_eq!(Arc::strong_count(&output), 1, "both outputs dropped");
        assert!(
            futures::executor::block_on(panicked)
                .unwrap_err()
                .is_panic()
        );
        assert!(
            futures::executor::block_on(cancelled)
                .unwrap_err()
                .is_cancelled()
        );
    }
    // Debug builds count task allocations: every one was freed.
    if let Some(baseline) = baseline {
        wait_until("every task is freed", || {
            rt::task::__live_task_allocations() == Some(baseline)
        });
    }
}

/// A task aborted while it is stuck in a poll still blocks its worker
/// until the poll returns: the dump says where it runs, not that it is
/// about to be dropped; once the poll returns, it is dropped and gone.
#[test]
fn an_aborted_task_stuck_in_a_poll_is_listed_running_on_its_worker() {
    let _serial = shared();
    let rt = Kind::MultiThread(2).build();
    let (in_poll, entered) = std::sync::mpsc::channel::<()>();
    let (release, released) = std::sync::mpsc::channel::<()>();
    let (stuck, _) = spawn_named(rt.handle(), "stuck", async move {
        in_poll.send(()).unwrap();
        released.recv().unwrap();
        std::future::pending::<()>().await;
    });
    entered.recv().unwrap();
    stuck.abort();
    let dump = rt.handle().dump();
    let state = find(&dump, stuck.id()).state();
    assert!(
        matches!(state, TaskState::Running { worker: Some(_) }),
        "{state:?}:\n{dump}"
    );
    release.send(()).unwrap();
    assert!(rt.block_on(stuck).unwrap_err().is_cancelled());
    assert!(rt.handle().dump().is_empty());
}

/// Every way to spawn a task records the line that called it, not a line
/// inside rt: each call below is checked against the line it is on.
#[test]
fn every_spawn_path_records_the_callers_line() {
    use rt::task::{JoinSet, LocalSet, TaskGroup};
    use std::future::pending;
    let _serial = shared();
    let rt = Kind::MultiThread(2).build();
    let mut spawned: Vec<(Id, u32, &str)> = Vec::new();
    let mut set: JoinSet<()> = JoinSet::new();
    let handle = rt.handle().clone();
    spawned.push((rt.spawn(pending::<()>()).id(), line!(), "Runtime::spawn"));
    spawned.push((handle.spawn(pending::<()>()).id(), line!(), "Handle::spawn"));
    let from_thread = std::thread::spawn(move || (handle.spawn(pending::<()>()).id(), line!()));
    let (id, line) = from_thread.join().unwrap();
    spawned.push((id, line, "Handle::spawn off the runtime"));
    let task = Builder::new()
        .spawn_on(pending::<()>(), rt.handle())
        .unwrap();
    spawned.push((task.id(), line!() - 2, "Builder::spawn_on"));
    let task = set.spawn_on(pending(), rt.handle());
    spawned.push((task.id(), line!() - 1, "JoinSet::spawn_on"));
    let in_runtime = rt.block_on(async {
        let mut in_runtime: Vec<(Id, u32, &str)> = Vec::new();
        in_runtime.push((rt::spawn(pending::<()>()).id(), line!(), "rt::spawn"));
        let task = Builder::new().name("b").spawn(pending::<()>()).unwrap();
        in_runtime.push((task.id(), line!() - 1, "Builder::spawn"));
        in_runtime.push((set.spawn(pending()).id(), line!(), "JoinSet::spawn"));
        set.extend([pending()]);
        let extended = line!() - 1;
        let (tx, rx) = futures_channel::oneshot::channel();
        let group = TaskGroup::<()>::scope(|group| async move {
            let child = group.spawn(async { pending().await });
            tx.send((child.id(), line!() - 1)).unwrap();
            pending::<Result<(), ()>>().await
        });
        let group = rt::spawn(group);
        let (id, line) = rx.await.unwrap();
        in_runtime.push((id, line, "TaskGroup::spawn"));
        (in_runtime, extended, group)
    });
    let (in_runtime, extended, _group) = in_runtime;
    spawned.extend(in_runtime);
    let local = LocalSet::new();
    let mut local_set: JoinSet<()> = JoinSet::new();
    let local_spawned = local.block_on(&rt, async {
        let mut local_spawned: Vec<(Id, u32, &str)> = Vec::new();
        let task = rt::task::spawn_local(pending::<()>());
        local_spawned.push((task.id(), line!() - 1, "spawn_local"));
        let task = local.spawn_local(pending::<()>());
        local_spawned.push((task.id(), line!() - 1, "LocalSet::spawn_local"));
        let task = Builder::new().spawn_local(pending::<()>()).unwrap();
        local_spawned.push((task.id(), line!() - 1, "Builder::spawn_local"));
        let task = local_set.spawn_local(pending());
        local_spawned.push((task.id(), line!() - 1, "JoinSet::spawn_local"));
        local_spawned
    });
    spawned.extend(local_spawned);
    let dump = rt.handle().dump();
    for (id, line, how) in spawned {
        let location = find(&dump, id).location();
        assert_eq!(
            (location.file(), location.line()),
            (file!(), line),
            "{how}:\n{dump}"
        );
    }
    let extended_in_dump = dump
        .iter()
        .filter(|task| task.location().line() == extended);
    assert_eq!(extended_in_dump.count(), 1, "JoinSet::extend:\n{dump}");
    drop((set, local_set, local));
}

/// A loop spawning a task that never ends, the classic leak: the dump
/// counts its tasks per spawn location under the table, and a precision
/// limits the table without hiding the count.
#[test]
fn a_spawn_leaking_tasks_is_counted_by_location() {
    let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    for _ in 0..30 {
        rt.spawn(std::future::pending::<()>());
    }
    let leaks_line = line!() - 2;
    let other = rt.spawn(std::future::pending::<()>());
    let other_line = line!() - 1;
    let dump = rt.handle().dump();
    let by_location = dump.by_location();
    let lines: Vec<_> = by_location.iter().map(|(at, n)| (at.line(), *n)).collect();
    assert_eq!(lines, [(leaks_line, 30), (other_line, 1)], "{dump}");

    let full = dump.to_string();
    assert_eq!(full.lines().count(), 1 + 31 + 3, "{full}");
    let summary = format!(
        "31 task(s), by spawn location:\n      30  {}:{leaks_line}:",
        file!()
    );
    assert!(full.contains(&summary), "{full}");
    let other_at = by_location[1].0;
    assert!(full.ends_with(&format!("\n       1  {other_at}")), "{full}");

    let short = format!("{dump:.5}");
    assert_eq!(short.lines().count(), 1 + 5 + 1 + 3, "{short}");
    assert!(short.contains("     ...  (26 more)\n31 task(s)"), "{short}");
    assert!(short.contains(&summary), "{short}");
    drop(other);
}

/// A dump whose tasks all come from different places has no summary.
#[test]
fn a_dump_without_repeated_locations_has_no_summary() {
    let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    let _a = rt.spawn(std::future::pending::<()>());
    let _b = rt.spawn(std::future::pending::<()>());
    let dump = rt.handle().dump().to_string();
    assert!(dump.ends_with("2 task(s)"), "{dump}");
}
