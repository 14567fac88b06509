//! `Handle::dump` lists the tasks of the `LocalSet`s driven on (or entered
//! under) the runtime, marked with their set and its thread: taken from
//! another thread while a local task waits, with the set entered but not
//! yet driven, on both schedulers; a dropped set's tasks leave the dump;
//! many sets on their own threads, dumped while their tasks finish and the
//! sets are dropped.

mod support;

use rt::runtime::{Handle, Runtime, TaskDump, TaskSnapshot, TaskState};
use rt::sync::{Semaphore, oneshot};
use rt::task::{Builder, Id, JoinHandle, LocalSet};
use std::future::Future;
use std::panic::Location;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use support::{Kind, each, miri_or, wait_until};

const KINDS: [Kind; 2] = [Kind::CurrentThread, Kind::MultiThread(2)];

/// Spawns `future` named `name` on `local`, and says from where.
#[track_caller]
fn spawn_named_local<F>(
    local: &LocalSet,
    name: &str,
    future: F,
) -> (JoinHandle<()>, Location<'static>)
where
    F: Future<Output = ()> + 'static,
{
    let task = Builder::new()
        .name(name)
        .spawn_local_on(future, local)
        .unwrap();
    (task, *Location::caller())
}

fn find(dump: &TaskDump, id: Id) -> &TaskSnapshot {
    dump.iter()
        .find(|task| task.id() == id)
        .unwrap_or_else(|| panic!("task {id} missing from the dump:\n{dump}"))
}

fn lists(dump: &TaskDump, id: Id) -> bool {
    dump.iter().any(|task| task.id() == id)
}

/// Dumps `handle` on another thread until task `id` is seen idle, and
/// sends that dump back.
fn dump_when_idle(handle: Handle, id: Id) -> (thread::JoinHandle<()>, oneshot::Receiver<TaskDump>) {
    let (dump_tx, dump_rx) = oneshot::channel();
    let dumper = thread::spawn(move || {
        let mut found = None;
        wait_until("the local task waits", || {
            let dump = handle.dump();
            let idle = dump
                .iter()
                .any(|task| task.id() == id && task.state() == TaskState::Idle);
            found = idle.then_some(dump);
            idle
        });
        dump_tx.send(found.unwrap()).unwrap();
    });
    (dumper, dump_rx)
}

#[test]
fn a_waiting_local_task_is_listed_by_a_dump_from_another_thread() {
    each(&KINDS, |kind, rt| {
        let local = LocalSet::new();
        let (release, released) = oneshot::channel::<()>();
        let (task, location) = spawn_named_local(&local, "waits for release", async move {
            let _ = released.await;
        });
        let id = task.id();
        let (dumper, dumped) = dump_when_idle(rt.handle().clone(), id);
        let set_id = local.id();
        local.block_on(&rt, async move {
            // The set runs its task while this waits for the dump.
            let dump = dumped.await.unwrap();
            let listed = find(&dump, id);
            assert_eq!(listed.name(), Some("waits for release"), "{kind:?}");
            assert_eq!(listed.location(), &location);
            assert_eq!(listed.state(), TaskState::Idle);
            assert_eq!(listed.polls(), 1, "{dump}");
            assert!(listed.since_last_poll().is_some());
            let set = listed.local_set().expect("marked as local");
            assert_eq!(set.id(), set_id);
            assert_eq!(set.thread_id(), thread::current().id());
            let table = dump.to_string();
            let line = table
                .lines()
                .find(|line| line.contains("waits for release"))
                .unwrap();
            assert!(line.contains(&format!("local set {set_id} on ")), "{line}");
            release.send(()).unwrap();
            task.await.unwrap();
        });
        dumper.join().unwrap();
        wait_until("the finished task leaves", || {
            !lists(&rt.handle().dump(), id)
        });
    });
}

#[test]
fn runtime_tasks_are_not_marked_local() {
    each(&KINDS, |_, rt| {
        let local = LocalSet::new();
        let (_release, released) = oneshot::channel::<()>();
        let runtime_task = rt.spawn(async move {
            let _ = released.await;
        });
        let (_hold, held) = oneshot::channel::<()>();
        let (local_task, _) = spawn_named_local(&local, "local", async move {
            let _ = held.await;
        });
        local.block_on(&rt, rt::task::yield_now());
        let dump = rt.handle().dump();
        assert!(
            find(&dump, runtime_task.id()).local_set().is_none(),
            "{dump}"
        );
        assert!(find(&dump, local_task.id()).local_set().is_some(), "{dump}");
        runtime_task.abort();
    });
}

#[test]
fn a_set_entered_under_the_runtime_is_listed_before_it_runs() {
    each(&KINDS, |_, rt| {
        let local = LocalSet::new();
        let task = {
            let _runtime = rt.enter();
            let _set = local.enter();
            rt::task::spawn_local(async {})
        };
        let dump = rt.handle().dump();
        let listed = find(&dump, task.id());
        assert_eq!(listed.state(), TaskState::Scheduled);
        assert_eq!(listed.polls(), 0);
        assert_eq!(listed.local_set().unwrap().id(), local.id());
        local.block_on(&rt, task).unwrap();
    });
}

#[test]
fn a_set_never_driven_on_a_runtime_is_not_in_its_dump() {
    let rt = Kind::CurrentThread.build();
    let local = LocalSet::new();
    let _task = local.spawn_local(async {});
    assert!(rt.handle().dump().is_empty());
}

#[test]
fn a_dropped_set_leaves_the_dump_of_every_runtime_it_ran_on() {
    let first = Kind::CurrentThread.build();
    let second = Kind::CurrentThread.build();
    let local = LocalSet::new();
    let (_release, released) = futures_channel::oneshot::channel::<()>();
    let (waiting, _) = spawn_named_local(&local, "never released", async move {
        let _ = released.await;
    });
    let (_hold, held) = futures_channel::oneshot::channel::<()>();
    let runtime_task = first.spawn(async move {
        let _ = held.await;
    });
    local.block_on(&first, rt::task::yield_now());
    local.block_on(&second, rt::task::yield_now());
    for rt in [&first, &second] {
        let dump = rt.handle().dump();
        assert_eq!(find(&dump, waiting.id()).state(), TaskState::Idle, "{dump}");
    }
    drop(local);
    for rt in [&first, &second] {
        let dump = rt.handle().dump();
        assert!(!lists(&dump, waiting.id()), "{dump}");
    }
    // Only the set's tasks went: the runtime's own stays.
    assert!(lists(&first.handle().dump(), runtime_task.id()));
    let error = first.block_on(waiting).unwrap_err();
    assert!(error.is_cancelled());
}

/// A thread that drives its own set on the shared runtime: its tasks wait
/// for `go`, then finish; the set is dropped when they have.
fn run_set_on_a_thread(
    rt: Arc<Runtime>,
    go: Arc<Semaphore>,
    tasks: usize,
    spawned: std::sync::mpsc::Sender<Vec<Id>>,
) -> thread::JoinHandle<()> {
    thread::spawn(move || {
        let local = LocalSet::new();
        local.block_on(&rt, async move {
            let handles: Vec<JoinHandle<()>> = (0..tasks)
                .map(|_| {
                    let go = go.clone();
                    let not_send = std::rc::Rc::new(());
                    rt::task::spawn_local(async move {
                        // `close` wakes every waiter with an error.
                        let _ = go.acquire().await;
                        rt::task::yield_now().await;
                        drop(not_send);
                    })
                })
                .collect();
            spawned
                .send(handles.iter().map(|h| h.id()).collect())
                .unwrap();
            for handle in handles {
                handle.await.unwrap();
            }
        });
        drop(local);
    })
}

#[test]
fn many_sets_on_their_threads_are_dumped_while_their_tasks_finish() {
    // Multi-thread only: each thread's `block_on` runs its set at once (on
    // a current-thread runtime they would wait for one another).
    each(&[Kind::MultiThread(2)], |_, rt| {
        many_sets_dumped_while_finishing(Arc::new(rt))
    });
}

fn many_sets_dumped_while_finishing(rt: Arc<Runtime>) {
    let threads = miri_or(4, 2);
    let tasks_per_set = miri_or(32, 3);
    let go = Arc::new(Semaphore::new(0));
    let (spawned_tx, spawned_rx) = std::sync::mpsc::channel();
    let runners: Vec<_> = (0..threads)
        .map(|_| run_set_on_a_thread(rt.clone(), go.clone(), tasks_per_set, spawned_tx.clone()))
        .collect();
    let ids: Vec<Id> = spawned_rx.iter().take(threads).flatten().collect();
    let runner_threads: Vec<thread::ThreadId> = runners.iter().map(|r| r.thread().id()).collect();
    // Every task of every set is listed, waiting, with its set's thread.
    wait_until("every local task waits", || {
        let dump = rt.handle().dump();
        ids.iter().all(|&id| {
            dump.iter()
                .any(|task| task.id() == id && task.state() == TaskState::Idle)
        })
    });
    let dump = rt.handle().dump();
    for &id in &ids {
        let set = find(&dump, id).local_set().unwrap();
        assert!(runner_threads.contains(&set.thread_id()));
    }
    // Now they finish and their sets drop, while another thread dumps.
    let finished = Arc::new(AtomicBool::new(false));
    let dumper = {
        let handle = rt.handle().clone();
        let finished = finished.clone();
        thread::spawn(move || {
            let mut dumps = 0;
            while !finished.load(Ordering::Acquire) || dumps == 0 {
                let dump = handle.dump();
                let mut seen: Vec<Id> = dump.iter().map(|task| task.id()).collect();
                let listed = seen.len();
                seen.sort();
                seen.dedup();
                assert_eq!(seen.len(), listed, "a task listed twice:\n{dump}");
                for task in &dump {
                    assert!(task.local_set().is_some(), "{dump}");
                    assert!(task.name().is_none());
                }
                dumps += 1;
            }
        })
    };
    go.close();
    for runner in runners {
        runner.join().unwrap();
    }
    finished.store(true, Ordering::Release);
    dumper.join().unwrap();
    let dump = rt.handle().dump();
    assert!(dump.is_empty(), "the sets are gone:\n{dump}");
}
