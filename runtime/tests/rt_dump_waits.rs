//! `Builder::track_waits`: the task dump says what each idle task waits
//! for (which of rt's futures, made on which line) and who holds the lock
//! it waits on; two tasks each waiting for the other's lock are reported
//! as a deadlock; without tracking nothing is recorded or allocated. On
//! both schedulers and in a `LocalSet`; every wait is reached through
//! channels and `yield_now` loops that watch the dump, never a sleep.

mod support;

use rt::runtime::{Builder, Runtime, TaskDump, TaskState};
use rt::sync::{Mutex, Notify, RwLock};
use rt::task::{Id, JoinHandle, WaitSite};
use std::sync::Arc;
use std::time::Duration;
use support::Kind;

const KINDS: [Kind; 2] = [Kind::CurrentThread, Kind::MultiThread(2)];

fn tracking(kind: Kind) -> Runtime {
    let mut builder = kind.builder();
    builder.track_waits(true);
    builder.build().unwrap()
}

/// Drives `rt` until the dump shows task `id` idle with at least `count`
/// waits recorded, and returns them (turns of `block_on(yield_now())`,
/// which run the current-thread runtime's tasks and let the multi-thread
/// one's workers run theirs).
fn idle_waits(rt: &Runtime, id: Id, count: usize) -> Vec<WaitSite> {
    for _ in 0..100_000 {
        let dump = rt.handle().dump();
        if let Some(task) = dump.iter().find(|task| task.id() == id) {
            if task.state() == TaskState::Idle && task.waits().len() >= count {
                return task.waits().to_vec();
            }
        }
        rt.block_on(rt::task::yield_now());
        std::thread::yield_now();
    }
    panic!(
        "task {id} never showed {count} wait(s):\n{}",
        rt.handle().dump()
    );
}

/// The one wait of the idle task `id`: its kind and line.
fn one_wait(rt: &Runtime, id: Id) -> (&'static str, u32) {
    let waits = idle_waits(rt, id, 1);
    assert_eq!(waits.len(), 1, "{waits:?}");
    let wait = &waits[0];
    let location = wait.location().expect("a located wait");
    assert_eq!(location.file(), file!());
    (wait.kind(), location.line())
}

#[test]
fn a_mutex_held_by_block_on_names_the_waiter_and_the_holder() {
    for kind in KINDS {
        let rt = tracking(kind);
        let mutex = Arc::new(Mutex::new(0));
        let guard = rt.block_on(mutex.lock());
        let acquired = line!() - 1;
        let waiter = {
            let mutex = mutex.clone();
            rt.spawn(async move {
                *mutex.lock().await += 1;
            })
        };
        let line = line!() - 3;
        let waits = idle_waits(&rt, waiter.id(), 1);
        assert_eq!(waits[0].kind(), "Mutex::lock");
        assert_eq!(waits[0].location().unwrap().line(), line);
        let holder = waits[0].held_by().expect("the lock's holder");
        assert_eq!(holder.task(), None, "{kind:?}");
        assert_eq!(holder.acquired_at().line(), acquired);
        let printed = rt.handle().dump().to_string();
        assert!(
            printed.contains(&format!("waiting: Mutex::lock at {}:{line}", file!())),
            "{printed}"
        );
        assert!(
            printed.contains("held by code outside any task"),
            "{printed}"
        );
        drop(guard);
        rt.block_on(waiter).unwrap();
        assert_eq!(*mutex.try_lock().unwrap(), 1);
    }
}

/// A task locking a `Mutex` it holds waits for itself: a cycle of one.
/// The tasks queued behind it on the same lock lead into that cycle but
/// are not in it, and the dump says so once.
#[test]
fn a_task_relocking_its_own_mutex_is_a_deadlock_and_its_queue_is_not() {
    for kind in KINDS {
        let rt = tracking(kind);
        let mutex = Arc::new(Mutex::new(()));
        let relocking = {
            let mutex = mutex.clone();
            rt.spawn(async move {
                let _held = mutex.lock().await;
                let _again = mutex.lock().await;
            })
        };
        let waits = idle_waits(&rt, relocking.id(), 1);
        assert_eq!(waits[0].held_by().unwrap().task(), Some(relocking.id()));
        let queued: Vec<_> = (0..3)
            .map(|_| {
                let mutex = mutex.clone();
                rt.spawn(async move { drop(mutex.lock().await) })
            })
            .collect();
        for task in &queued {
            let waits = idle_waits(&rt, task.id(), 1);
            assert_eq!(waits[0].held_by().unwrap().task(), Some(relocking.id()));
        }
        let printed = rt.handle().dump().to_string();
        let deadlock = deadlock_paragraph(&printed);
        let first_line = deadlock.lines().next().unwrap();
        assert_eq!(
            first_line,
            format!(" task {} waits for a lock it holds itself", relocking.id()),
            "{printed}"
        );
        assert_eq!(printed.matches("deadlock:").count(), 1, "{printed}");
        relocking.abort();
        assert!(rt.block_on(relocking).unwrap_err().is_cancelled());
        for task in queued {
            rt.block_on(task).unwrap();
        }
    }
}

#[test]
fn a_lock_order_deadlock_is_reported_as_a_cycle() {
    for kind in KINDS {
        let rt = tracking(kind);
        let a = Arc::new(Mutex::new(()));
        let b = Arc::new(Mutex::new(()));
        // Each task takes its first lock, meets the other at the barrier,
        // then waits for the other's lock.
        let barrier = Arc::new(rt::sync::Barrier::new(2));
        let (ab, _) = support::lock_in_order(&rt, "takes a then b", &a, &b, &barrier);
        let (ba, _) = support::lock_in_order(&rt, "takes b then a", &b, &a, &barrier);
        // Both past the barrier, each waiting for the other's lock.
        let waits_ab = idle_waits_of_kind(&rt, ab.id(), "Mutex::lock");
        let waits_ba = idle_waits_of_kind(&rt, ba.id(), "Mutex::lock");
        assert_eq!(waits_ab[0].held_by().unwrap().task(), Some(ba.id()));
        assert_eq!(waits_ba[0].held_by().unwrap().task(), Some(ab.id()));
        let printed = rt.handle().dump().to_string();
        let deadlock = deadlock_paragraph(&printed);
        assert!(deadlock.contains("'takes a then b'"), "{printed}");
        assert!(deadlock.contains("'takes b then a'"), "{printed}");
        assert_eq!(printed.matches("deadlock:").count(), 1, "{printed}");
        if kind == Kind::CurrentThread {
            println!("{printed}");
        }
        // Aborting one frees its lock: the other may then finish.
        ab.abort();
        assert!(rt.block_on(ab).unwrap_err().is_cancelled());
        rt.block_on(ba).unwrap();
    }
}

/// What a printed dump says from its (first) `deadlock:` on.
fn deadlock_paragraph(printed: &str) -> &str {
    printed
        .split_once("deadlock:")
        .unwrap_or_else(|| panic!("no deadlock paragraph:\n{printed}"))
        .1
}

/// As `idle_waits`, until the first wait is of `kind`.
fn idle_waits_of_kind(rt: &Runtime, id: Id, kind: &str) -> Vec<WaitSite> {
    for _ in 0..100_000 {
        let waits = idle_waits(rt, id, 1);
        if waits[0].kind() == kind {
            return waits;
        }
        rt.block_on(rt::task::yield_now());
    }
    panic!("task {id} never waited on {kind}:\n{}", rt.handle().dump());
}

#[test]
fn untracked_runtimes_record_nothing_and_allocate_nothing() {
    for kind in KINDS {
        let rt = kind.builder().build().unwrap();
        let mutex = Arc::new(Mutex::new(()));
        let guard = mutex.try_lock().unwrap();
        let waiter = {
            let mutex = mutex.clone();
            rt.spawn(async move { drop(mutex.lock().await) })
        };
        let dump = wait_idle_after(&rt, waiter.id(), 1);
        let task = dump.iter().find(|task| task.id() == waiter.id()).unwrap();
        assert!(task.waits().is_empty());
        assert!(!task.__has_side_allocation(), "{kind:?}");
        assert!(!dump.to_string().contains("waiting:"));
        drop(guard);
        rt.block_on(waiter).unwrap();
    }
}

#[test]
fn a_task_past_a_wait_no_longer_shows_it() {
    for kind in KINDS {
        let rt = tracking(kind);
        let first = Arc::new(Notify::new());
        let (tx, rx) = futures_channel::oneshot::channel::<()>();
        let task = {
            let first = first.clone();
            rt.spawn(async move {
                first.notified().await;
                // Another crate's channel: rt records nothing for it.
                rx.await.unwrap();
            })
        };
        let (kind_seen, _) = one_wait(&rt, task.id());
        assert_eq!(kind_seen, "Notify::notified");
        first.notify_one();
        let dump = wait_idle_after(&rt, task.id(), 2);
        let snapshot = dump.iter().find(|t| t.id() == task.id()).unwrap();
        assert!(snapshot.waits().is_empty(), "{dump}");
        tx.send(()).unwrap();
        rt.block_on(task).unwrap();
    }
}

/// Drives `rt` until task `id` is idle after at least `polls` polls.
fn wait_idle_after(rt: &Runtime, id: Id, polls: u64) -> TaskDump {
    for _ in 0..100_000 {
        let dump = rt.handle().dump();
        let idle = dump.iter().any(|task| {
            task.id() == id && task.state() == TaskState::Idle && task.polls() >= polls
        });
        if idle {
            return dump;
        }
        rt.block_on(rt::task::yield_now());
        std::thread::yield_now();
    }
    panic!("task {id} never went idle:\n{}", rt.handle().dump());
}

#[test]
fn select_over_two_waits_shows_both() {
    for kind in KINDS {
        let rt = tracking(kind);
        let notify = Arc::new(Notify::new());
        let (_tx, mut rx) = rt::sync::mpsc::channel::<()>(1);
        let task = {
            let notify = notify.clone();
            rt.spawn(async move {
                let notified = notify.notified();
                let line = line!() - 1;
                let recv = rx.recv();
                rt::select! {
                    _ = notified => {}
                    _ = recv => {}
                }
                line
            })
        };
        let waits = idle_waits(&rt, task.id(), 2);
        let mut kinds: Vec<_> = waits.iter().map(|wait| wait.kind()).collect();
        kinds.sort_unstable();
        assert_eq!(kinds, ["Notify::notified", "mpsc::Receiver::recv"]);
        notify.notify_one();
        let line = rt.block_on(task).unwrap();
        let notified = waits
            .iter()
            .find(|w| w.kind() == "Notify::notified")
            .unwrap();
        assert_eq!(notified.location().unwrap().line(), line);
    }
}

#[test]
fn rwlock_waits_name_the_writer_or_the_readers() {
    for kind in KINDS {
        let rt = tracking(kind);
        let lock = Arc::new(RwLock::new(0));
        let writer = rt.block_on({
            let lock = lock.clone();
            async move { lock.write_owned().await }
        });
        let reader = {
            let lock = lock.clone();
            rt.spawn(async move { *lock.read().await })
        };
        let line = line!() - 2;
        let (kind_seen, seen) = one_wait(&rt, reader.id());
        assert_eq!((kind_seen, seen), ("RwLock::read", line));
        let waits = idle_waits(&rt, reader.id(), 1);
        assert_eq!(waits[0].held_by().unwrap().task(), None);
        assert_eq!(waits[0].readers(), 0);
        drop(writer);
        assert_eq!(rt.block_on(reader).unwrap(), 0);

        // Read by this thread and by a task that holds its guard while
        // it waits: a writer's wait names both, oldest first.
        let read_here = lock.try_read().unwrap();
        let here_line = line!() - 1;
        let (release, released) = rt::sync::oneshot::channel::<()>();
        let holding = {
            let lock = lock.clone();
            rt.spawn(async move {
                let _read = lock.read().await;
                released.await.unwrap();
            })
        };
        let task_line = line!() - 4;
        let waits = idle_waits(&rt, holding.id(), 1);
        assert_eq!(waits[0].kind(), "oneshot::Receiver");
        let writer = {
            let lock = lock.clone();
            rt.spawn(async move { *lock.write().await += 1 })
        };
        let waits = idle_waits(&rt, writer.id(), 1);
        assert_eq!(waits[0].kind(), "RwLock::write");
        assert!(waits[0].held_by().is_none(), "{:?}", waits[0]);
        assert_eq!(waits[0].readers(), 2);
        let read_by: Vec<(Option<rt::task::Id>, u32)> = waits[0]
            .read_by()
            .iter()
            .map(|reader| (reader.task(), reader.acquired_at().line()))
            .collect();
        assert_eq!(
            read_by,
            [(None, here_line), (Some(holding.id()), task_line)]
        );
        let shown = waits[0].to_string();
        for expected in [
            format!(
                ", read by code outside any task on thread '{}' (acquired at {}:{here_line}:",
                std::thread::current().name().unwrap(),
                file!()
            ),
            format!(
                "), task {} (acquired at {}:{task_line}:",
                holding.id(),
                file!()
            ),
        ] {
            assert!(shown.contains(&expected), "{shown}");
        }
        // A reader that lets go leaves the list; the writer then waits on
        // the task alone.
        drop(read_here);
        let waits = idle_waits(&rt, writer.id(), 1);
        assert_eq!(waits[0].readers(), 1);
        assert_eq!(waits[0].read_by()[0].task(), Some(holding.id()));
        release.send(()).unwrap();
        rt.block_on(holding).unwrap();
        rt.block_on(writer).unwrap();
    }
}

/// A read guard keeps its place among the holders when it is narrowed,
/// moved to another task, or made by a downgrade, and leaves when it
/// drops, wherever that is.
#[test]
fn rwlock_readers_follow_their_guards() {
    use rt::sync::{OwnedRwLockReadGuard, OwnedRwLockWriteGuard, RwLockWriteGuard};
    for kind in KINDS {
        let rt = tracking(kind);
        let lock = Arc::new(RwLock::new((1, 2)));
        let readers_seen_by_a_writer = |expected: usize| {
            let writer = {
                let lock = lock.clone();
                rt.spawn(async move { lock.write().await.0 += 1 })
            };
            let waits = idle_waits(&rt, writer.id(), 1);
            let found = (waits[0].readers(), waits[0].held_by().is_some());
            writer.abort();
            let _ = rt.block_on(writer);
            assert_eq!(found, (expected, false), "{:?}", waits[0]);
        };
        // Taken by one task, narrowed, handed to another.
        let (hand, handed) = rt::sync::oneshot::channel();
        let taker = {
            let lock = lock.clone();
            rt.spawn(async move {
                let guard = lock.read_owned().await;
                hand.send(OwnedRwLockReadGuard::map(guard, |pair| &pair.1))
                    .unwrap_or_else(|_| panic!("the keeper is gone"));
            })
        };
        let (drop_it, dropped) = rt::sync::oneshot::channel::<()>();
        let keeper = rt.spawn(async move {
            let guard = handed.await.unwrap();
            dropped.await.unwrap();
            *guard
        });
        rt.block_on(taker).unwrap();
        readers_seen_by_a_writer(1);
        drop_it.send(()).unwrap();
        assert_eq!(rt.block_on(keeper).unwrap(), 2);
        // Dropped in the other task: no reader left.
        let free = lock.try_write().map(drop).is_ok();
        assert!(free);
        // A downgraded writer is a reader, with its write's line.
        let downgraded = RwLockWriteGuard::downgrade(rt.block_on(lock.write()));
        readers_seen_by_a_writer(1);
        drop(downgraded);
        let owned = OwnedRwLockWriteGuard::downgrade(rt.block_on(lock.clone().write_owned()));
        readers_seen_by_a_writer(1);
        drop(owned);
        assert!(lock.try_write().is_ok());
    }
}

#[test]
fn a_local_set_task_shows_its_wait() {
    let rt = tracking(Kind::CurrentThread);
    let local = rt::task::LocalSet::new();
    let notify = std::rc::Rc::new(Notify::new());
    let task: JoinHandle<()> = {
        let notify = notify.clone();
        local.spawn_local(async move { notify.notified().await })
    };
    let line = line!() - 2;
    for _ in 0..100 {
        local.block_on(&rt, rt::task::yield_now());
    }
    let dump = rt.handle().dump();
    let snapshot = dump.iter().find(|t| t.id() == task.id()).unwrap();
    assert!(snapshot.local_set().is_some());
    assert_eq!(snapshot.waits()[0].kind(), "Notify::notified");
    assert_eq!(snapshot.waits()[0].location().unwrap().line(), line);
    notify.notify_one();
    local.block_on(&rt, task).unwrap();
}

#[test]
fn sleeps_on_the_paused_clock_show_their_line() {
    let rt = Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .track_waits(true)
        .build()
        .unwrap();
    let task = rt.spawn(async {
        rt::time::sleep(Duration::from_secs(3600)).await;
    });
    let line = line!() - 2;
    assert_eq!(one_wait(&rt, task.id()), ("sleep", line));
    task.abort();
    let _ = rt.block_on(task);
}

/// Spawns `future` on `rt`; the task must come to wait on `kind` made at
/// `line` (or, `line` 0, with no location).
fn expect_wait<F>(rt: &Runtime, kind: &str, line: u32, future: F) -> JoinHandle<()>
where
    F: std::future::Future<Output = ()> + Send + 'static,
{
    let task = rt.spawn(future);
    let waits = idle_waits(rt, task.id(), 1);
    let found = waits.iter().any(|wait| {
        wait.kind() == kind
            && match wait.location() {
                Some(location) => location.file() == file!() && location.line() == line,
                None => line == 0,
            }
    });
    assert!(found, "expected {kind} at line {line}, got {waits:?}");
    task
}

#[test]
fn each_kind_of_wait_shows_its_kind_and_line() {
    use futures::AsyncReadExt as _;
    for kind in KINDS {
        let rt = tracking(kind);
        let mut tasks = Vec::new();

        let semaphore = Arc::new(rt::sync::Semaphore::new(0));
        let s = semaphore.clone();
        let line = line!() + 2;
        tasks.push(expect_wait(&rt, "Semaphore::acquire", line, async move {
            drop(s.acquire().await);
        }));
        let s = semaphore.clone();
        let line = line!() + 6;
        tasks.push(expect_wait(
            &rt,
            "Semaphore::acquire_many_owned",
            line,
            async move {
                drop(s.acquire_many_owned(2).await);
            },
        ));

        let (_otx, orx) = rt::sync::oneshot::channel::<()>();
        tasks.push(expect_wait(&rt, "oneshot::Receiver", 0, async move {
            let _ = orx.await;
        }));

        let (btx, mut brx) = rt::sync::broadcast::channel::<u8>(4);
        let line = line!() + 6;
        tasks.push(expect_wait(
            &rt,
            "broadcast::Receiver::recv",
            line,
            async move {
                let _ = brx.recv().await;
            },
        ));

        let (_wtx, mut wrx) = rt::sync::watch::channel(0u8);
        let line = line!() + 6;
        tasks.push(expect_wait(
            &rt,
            "watch::Receiver::changed",
            line,
            async move {
                let _ = wrx.changed().await;
            },
        ));

        let (mtx, _mrx) = rt::sync::mpsc::channel::<u8>(1);
        mtx.try_send(0).unwrap();
        let line = line!() + 2;
        tasks.push(expect_wait(&rt, "mpsc::Sender::send", line, async move {
            let _ = mtx.send(1).await;
        }));

        let barrier = Arc::new(rt::sync::Barrier::new(2));
        let b = barrier.clone();
        let line = line!() + 2;
        tasks.push(expect_wait(&rt, "Barrier::wait", line, async move {
            b.wait().await;
        }));

        let forever = rt.spawn(std::future::pending::<()>());
        let forever_id = forever.id();
        let joiner = expect_wait(&rt, "JoinHandle", 0, async move {
            let _ = forever.await;
        });
        let waits = idle_waits(&rt, joiner.id(), 1);
        assert_eq!(waits[0].task(), Some(forever_id));
        tasks.push(joiner);

        let line = line!() + 4;
        tasks.push(expect_wait(&rt, "JoinSet::join_next", line, async move {
            let mut set = rt::task::JoinSet::new();
            set.spawn(std::future::pending::<()>());
            let _ = set.join_next().await;
        }));

        let line = line!() + 3;
        tasks.push(expect_wait(&rt, "timeout", line, async move {
            let _ =
                rt::time::timeout(Duration::from_secs(3600), std::future::pending::<()>()).await;
        }));
        let line = line!() + 4;
        tasks.push(expect_wait(&rt, "Interval::tick", line, async move {
            let mut interval = rt::time::interval(Duration::from_secs(3600));
            interval.tick().await;
            interval.tick().await;
        }));
        let line = line!() + 3;
        tasks.push(expect_wait(&rt, "sleep_until", line, async move {
            let deadline = rt::time::Instant::now() + Duration::from_secs(3600);
            rt::time::sleep_until(deadline).await;
        }));

        let listener = rt
            .block_on(rt::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let address = listener.local_addr().unwrap();
        let line = line!() + 2;
        tasks.push(expect_wait(&rt, "TcpListener::accept", line, async move {
            let _ = listener.accept().await;
        }));
        let (client, server) = rt.block_on(async {
            let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let client = rt::net::TcpStream::connect(listener.local_addr().unwrap());
            let client = client.await.unwrap();
            let (server, _) = listener.accept().await.unwrap();
            (client, server)
        });
        support::clear_assumed_readability(&client);
        let client = Arc::new(client);
        let c = client.clone();
        let line = line!() + 2;
        tasks.push(expect_wait(&rt, "readable", line, async move {
            let _ = c.readable().await;
        }));
        support::clear_assumed_readability(&server);
        tasks.push(expect_wait(&rt, "TcpStream read", 0, async move {
            let mut server = server;
            let mut buf = [0; 1];
            let _ = server.read(&mut buf).await;
        }));

        let printed = rt.handle().dump().to_string();
        assert!(printed.contains("waiting: TcpStream read\n"), "{printed}");
        assert!(
            printed.contains("waiting: JoinHandle of task "),
            "{printed}"
        );
        for task in tasks {
            task.abort();
            let _ = rt.block_on(task);
        }
        drop((btx, barrier, semaphore, address));
    }
}

#[test]
fn awaiting_a_task_that_waits_for_your_lock_is_a_deadlock() {
    for kind in KINDS {
        let rt = tracking(kind);
        let mutex = Arc::new(Mutex::new(()));
        let (inner_tx, inner_rx) = std::sync::mpsc::channel();
        let outer = {
            let mutex = mutex.clone();
            rt::task::Builder::new()
                .name("holds and joins")
                .spawn_on(
                    async move {
                        let _guard = mutex.lock().await;
                        let inner = {
                            let mutex = mutex.clone();
                            rt::spawn(async move { drop(mutex.lock().await) })
                        };
                        inner_tx.send(inner.id()).unwrap();
                        let _ = inner.await;
                    },
                    rt.handle(),
                )
                .unwrap()
        };
        // Driven by `idle_waits` (a current-thread runtime runs nothing
        // while this thread blocks), then the inner task's id is there.
        let outer_waits = idle_waits(&rt, outer.id(), 1);
        let inner = inner_rx.try_recv().unwrap();
        assert_eq!(outer_waits[0].task(), Some(inner));
        let inner_waits = idle_waits(&rt, inner, 1);
        assert_eq!(inner_waits[0].held_by().unwrap().task(), Some(outer.id()));
        let printed = rt.handle().dump().to_string();
        assert!(
            printed.contains(&format!("deadlock: tasks {}", outer.id().min(inner))),
            "{printed}"
        );
        assert!(
            printed.contains("waits for JoinHandle of task"),
            "{printed}"
        );
        outer.abort();
        let _ = rt.block_on(outer);
    }
}

#[test]
fn a_lock_held_by_a_blocking_job_or_a_plain_thread_names_it() {
    for kind in KINDS {
        let rt = tracking(kind);
        let mutex = Arc::new(Mutex::new(()));
        // A `spawn_blocking` job: named by its task id.
        let (held_tx, held_rx) = std::sync::mpsc::channel();
        let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
        let job = {
            let mutex = mutex.clone();
            rt.spawn_blocking(move || {
                let _guard = mutex.blocking_lock();
                held_tx.send(line!() - 1).unwrap();
                release_rx.recv().unwrap();
            })
        };
        let acquired = held_rx.recv().unwrap();
        let waiter = {
            let mutex = mutex.clone();
            rt.spawn(async move { drop(mutex.lock().await) })
        };
        let waits = idle_waits(&rt, waiter.id(), 1);
        let held_by = waits[0].held_by().expect("the job holds it");
        assert_eq!(held_by.task(), Some(job.id()));
        assert_eq!(held_by.acquired_at().line(), acquired);
        release_tx.send(()).unwrap();
        rt.block_on(job).unwrap();
        rt.block_on(waiter).unwrap();

        // A thread of the user's, outside any task: named by its name.
        let (held_tx, held_rx) = std::sync::mpsc::channel();
        let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
        let thread = {
            let mutex = mutex.clone();
            std::thread::Builder::new()
                .name("flusher".into())
                .spawn(move || {
                    let _guard = mutex.blocking_lock();
                    held_tx.send(()).unwrap();
                    release_rx.recv().unwrap();
                })
                .unwrap()
        };
        held_rx.recv().unwrap();
        let waiter = {
            let mutex = mutex.clone();
            rt.spawn(async move { drop(mutex.lock().await) })
        };
        let waits = idle_waits(&rt, waiter.id(), 1);
        let held_by = waits[0].held_by().expect("the thread holds it");
        assert_eq!(held_by.task(), None);
        assert_eq!(held_by.thread_name(), Some("flusher"));
        let printed = rt.handle().dump().to_string();
        assert!(
            printed.contains("held by code outside any task on thread 'flusher'"),
            "{printed}"
        );
        release_tx.send(()).unwrap();
        thread.join().unwrap();
        rt.block_on(waiter).unwrap();
    }
}
