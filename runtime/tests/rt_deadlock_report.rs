//! The watchdog's deadlock report (`Builder::on_deadlock`): with the
//! watchdog on and waits tracked, a cycle of tasks waiting on one
//! another's locks is reported by itself, once, with the tasks, their
//! names and the lines they wait at; a cycle a task may leave (a `select!`
//! with a timeout) or whose tasks keep being polled is not; nothing is
//! reported without tracking or without the watchdog. On both schedulers
//! and in a `LocalSet`.
//!
//! No sleeps: each test waits for a report on a channel, the timeout only
//! turning a hang into a failure. "Not reported" is shown by a witness: a
//! deadlock formed after the one that must not be reported, whose report
//! comes only after the watchdog has looked twice with both there.

mod support;

use rt::runtime::{Builder, Deadlock, Runtime, TaskDump, TaskState};
use rt::sync::Mutex;
use rt::task::{Id, JoinHandle};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;
use support::Kind;

const KINDS: [Kind; 2] = [Kind::CurrentThread, Kind::MultiThread(2)];

/// How long a test waits for a report before calling it a hang. Not a
/// timing assertion: the watchdog reports within two seconds or so.
const HANG: Duration = Duration::from_secs(60);

const THRESHOLD: Duration = Duration::from_millis(50);

/// A runtime whose watchdog sends its deadlock reports on the channel
/// returned (`on_deadlock`, which turns wait tracking on).
fn watched(kind: Kind) -> (Runtime, mpsc::Receiver<Deadlock>) {
    let (report, reports) = mpsc::channel();
    let rt = kind
        .builder()
        .slow_poll_threshold(THRESHOLD)
        .on_deadlock(move |deadlock: &Deadlock| {
            let _ = report.send(deadlock.clone());
        })
        .build()
        .unwrap();
    (rt, reports)
}

/// Drives `rt` until its dump satisfies `done` (turns of
/// `block_on(yield_now())`, which run a current-thread runtime's tasks
/// and leave a multi-thread one's workers to run theirs).
fn drive_until(rt: &Runtime, what: &str, mut done: impl FnMut(&TaskDump) -> bool) {
    for _ in 0..100_000 {
        if done(&rt.handle().dump()) {
            return;
        }
        rt.block_on(rt::task::yield_now());
        std::thread::yield_now();
    }
    panic!("never {what}:\n{}", rt.handle().dump());
}

/// Whether task `id` is idle in the dump, with a wait of `kind` (a
/// `select!` records its branches in the order it polled them).
fn idle_on(dump: &TaskDump, id: Id, kind: &str) -> bool {
    dump.iter().any(|task| {
        task.id() == id
            && task.state() == TaskState::Idle
            && task.waits().iter().any(|wait| wait.kind() == kind)
    })
}

/// Spawns, named `name`, a task that locks a `Mutex` it holds, and
/// drives `rt` until it waits; returns it and the line of the second lock.
fn relock(rt: &Runtime, name: &str) -> (JoinHandle<()>, u32) {
    let mutex = Arc::new(Mutex::new(()));
    let task = rt::task::Builder::new()
        .name(name)
        .spawn_on(
            async move {
                let _held = mutex.lock().await;
                let _again = mutex.lock().await;
            },
            rt.handle(),
        )
        .unwrap();
    let line = line!() - 5;
    drive_until(rt, "relocked", |dump| {
        idle_on(dump, task.id(), "Mutex::lock")
    });
    (task, line)
}

/// Aborts `tasks` and waits for them.
fn abort_all(rt: &Runtime, tasks: impl IntoIterator<Item = JoinHandle<()>>) {
    for task in tasks {
        task.abort();
        let _ = rt.block_on(task);
    }
}

fn next_report(reports: &mpsc::Receiver<Deadlock>) -> Deadlock {
    reports
        .recv_timeout(HANG)
        .expect("the watchdog reported the deadlock")
}

#[test]
fn a_lock_order_deadlock_and_a_relock_are_each_reported_once_with_their_lines() {
    for kind in KINDS {
        let (rt, reports) = watched(kind);
        let a = Arc::new(Mutex::new(()));
        let b = Arc::new(Mutex::new(()));
        let barrier = Arc::new(rt::sync::Barrier::new(2));
        let (ab, ab_line) = support::lock_in_order(&rt, "takes a then b", &a, &b, &barrier);
        let (ba, ba_line) = support::lock_in_order(&rt, "takes b then a", &b, &a, &barrier);
        drive_until(&rt, "deadlocked", |dump| {
            idle_on(dump, ab.id(), "Mutex::lock") && idle_on(dump, ba.id(), "Mutex::lock")
        });

        let deadlock = next_report(&reports);
        let tasks = deadlock.tasks();
        let ids: Vec<Id> = tasks.iter().map(|task| task.id()).collect();
        assert_eq!(
            ids,
            [ab.id().min(ba.id()), ab.id().max(ba.id())],
            "{kind:?}"
        );
        for task in tasks {
            let (line, other) = if task.id() == ab.id() {
                (ab_line, ba.id())
            } else {
                (ba_line, ab.id())
            };
            let [wait] = task.waits() else {
                panic!("one wait: {deadlock}")
            };
            assert_eq!(wait.kind(), "Mutex::lock");
            assert_eq!(wait.location().unwrap().line(), line);
            assert_eq!(wait.held_by().unwrap().task(), Some(other));
        }
        let printed = deadlock.to_string();
        assert!(
            printed.starts_with(&format!("deadlock: tasks {}, {}", ids[0], ids[1])),
            "{printed}"
        );
        for (name, line) in [("takes a then b", ab_line), ("takes b then a", ba_line)] {
            let at = support::SUPPORT_FILE;
            let wait = format!("'{name}' waits for Mutex::lock at {at}:{line}");
            assert!(printed.contains(&wait), "{printed}");
        }

        // Formed after the first report, reported after two more looks,
        // at which the first was still there: it is not reported again.
        let (relocking, line) = relock(&rt, "relocks");
        let deadlock = next_report(&reports);
        assert_eq!(deadlock.tasks().len(), 1, "{deadlock}");
        assert_eq!(deadlock.tasks()[0].id(), relocking.id());
        assert_eq!(deadlock.tasks()[0].name(), Some("relocks"));
        let printed = deadlock.to_string();
        assert!(
            printed.starts_with(&format!(
                "deadlock: task {} waits for a lock it holds itself",
                relocking.id()
            )),
            "{printed}"
        );
        assert!(
            printed.contains(&format!("Mutex::lock at {}:{line}", file!())),
            "{printed}"
        );
        assert!(reports.try_recv().is_err(), "reported again");
        abort_all(&rt, [ab, ba, relocking]);
    }
}

/// A task holding a lock and awaiting the `JoinHandle` of a task that
/// waits for that lock: a cycle through a `JoinHandle`, reported too.
#[test]
fn awaiting_a_task_that_waits_for_your_lock_is_reported() {
    for kind in KINDS {
        let (rt, reports) = watched(kind);
        let mutex = Arc::new(Mutex::new(()));
        let (inner_tx, inner_rx) = mpsc::channel();
        let outer = rt.spawn(async move {
            let _guard = mutex.lock().await;
            let inner = {
                let mutex = mutex.clone();
                rt::spawn(async move { drop(mutex.lock().await) })
            };
            inner_tx.send(inner.id()).unwrap();
            let _ = inner.await;
        });
        drive_until(&rt, "joining", |dump| {
            idle_on(dump, outer.id(), "JoinHandle")
        });
        let inner = inner_rx.try_recv().unwrap();
        let deadlock = next_report(&reports);
        let ids: Vec<Id> = deadlock.tasks().iter().map(|task| task.id()).collect();
        assert_eq!(ids, [outer.id().min(inner), outer.id().max(inner)]);
        let outer_task = deadlock.tasks().iter().find(|task| task.id() == outer.id());
        let wait = &outer_task.unwrap().waits()[0];
        assert_eq!((wait.kind(), wait.task()), ("JoinHandle", Some(inner)));
        let printed = deadlock.to_string();
        assert!(
            printed.contains(&format!("waits for JoinHandle of task {inner}")),
            "{printed}"
        );
        abort_all(&rt, [outer]);
    }
}

/// The cycles through an `RwLock`'s readers: a reader waiting for a
/// mutex whose holder waits to write, and the classic reentrant read (a
/// task reading again while a writer queued behind its first read waits:
/// the fair lock queues the second read behind the writer).
#[test]
fn cycles_through_an_rwlocks_readers_are_reported() {
    for kind in KINDS {
        let (rt, reports) = watched(kind);
        let lock = Arc::new(rt::sync::RwLock::new(0));
        let mutex = Arc::new(Mutex::new(()));
        let barrier = Arc::new(rt::sync::Barrier::new(2));
        let named = |name: &'static str| rt::task::Builder::new().name(name);
        let reader = named("reads then locks")
            .spawn_on(
                {
                    let (lock, mutex, barrier) = (lock.clone(), mutex.clone(), barrier.clone());
                    async move {
                        let _read = lock.read().await;
                        barrier.wait().await;
                        drop(mutex.lock().await);
                    }
                },
                rt.handle(),
            )
            .unwrap();
        let read_line = line!() - 8;
        let writer = named("locks then writes")
            .spawn_on(
                {
                    let (lock, mutex, barrier) = (lock.clone(), mutex.clone(), barrier.clone());
                    async move {
                        let _held = mutex.lock().await;
                        barrier.wait().await;
                        *lock.write().await += 1;
                    }
                },
                rt.handle(),
            )
            .unwrap();
        let write_line = line!() - 6;
        drive_until(&rt, "deadlocked", |dump| {
            idle_on(dump, reader.id(), "Mutex::lock") && idle_on(dump, writer.id(), "RwLock::write")
        });
        let deadlock = next_report(&reports);
        let ids: Vec<Id> = deadlock.tasks().iter().map(|task| task.id()).collect();
        assert_eq!(
            ids,
            [reader.id().min(writer.id()), reader.id().max(writer.id())],
            "{kind:?}: {deadlock}"
        );
        let writing = deadlock
            .tasks()
            .iter()
            .find(|task| task.id() == writer.id());
        let wait = &writing.unwrap().waits()[0];
        assert_eq!(wait.kind(), "RwLock::write");
        assert!(wait.held_by().is_none());
        assert_eq!(wait.readers(), 1);
        assert_eq!(wait.read_by()[0].task(), Some(reader.id()));
        assert_eq!(wait.read_by()[0].acquired_at().line(), read_line);
        let printed = deadlock.to_string();
        for expected in [
            format!(
                "'locks then writes' waits for RwLock::write at {}:{write_line}:",
                file!()
            ),
            format!(
                ", read by task {} 'reads then locks' (acquired at {}:{read_line}:",
                reader.id(),
                file!()
            ),
        ] {
            assert!(printed.contains(&expected), "{printed}");
        }
        abort_all(&rt, [reader, writer]);

        // The reentrant read.
        let (go, gone) = rt::sync::oneshot::channel::<()>();
        let rereader = named("reads twice")
            .spawn_on(
                {
                    let lock = lock.clone();
                    async move {
                        let _first = lock.read().await;
                        gone.await.unwrap();
                        let _second = lock.read().await;
                    }
                },
                rt.handle(),
            )
            .unwrap();
        let second_line = line!() - 6;
        drive_until(&rt, "reading", |dump| {
            idle_on(dump, rereader.id(), "oneshot::Receiver")
        });
        let queued = {
            let lock = lock.clone();
            rt.spawn(async move { *lock.write().await += 1 })
        };
        drive_until(&rt, "writer queued", |dump| {
            idle_on(dump, queued.id(), "RwLock::write")
        });
        go.send(()).unwrap();
        drive_until(&rt, "reading again", |dump| {
            idle_on(dump, rereader.id(), "RwLock::read")
        });
        let deadlock = next_report(&reports);
        assert_eq!(deadlock.tasks().len(), 1, "{deadlock}");
        assert_eq!(deadlock.tasks()[0].id(), rereader.id());
        let printed = deadlock.to_string();
        assert!(
            printed.starts_with(&format!(
                "deadlock: task {} waits for a lock it holds itself",
                rereader.id()
            )),
            "{printed}"
        );
        assert!(
            printed.contains(&format!("RwLock::read at {}:{second_line}", file!())),
            "{printed}"
        );
        abort_all(&rt, [rereader, queued]);
    }
}

/// Waits on readers that do not make a deadlock: a read held back only
/// by a full set of readers (`with_max_readers`) gets in when any one of
/// them lets go, so a task reading again beside a reader that waits on a
/// channel is not stuck on itself; and an owned read guard moved into
/// another task is no longer its taker's, so the taker waiting to write
/// does not wait on itself. Neither is reported (the witness, formed
/// after them, is).
#[test]
fn reads_that_one_reader_can_free_and_moved_owned_guards_are_not_deadlocks() {
    for kind in KINDS {
        let (rt, reports) = watched(kind);
        // Two reader slots: this task's first read and another's.
        let lock = Arc::new(rt::sync::RwLock::with_max_readers(0, 2));
        let (release, released) = rt::sync::oneshot::channel::<()>();
        let other_reader = {
            let lock = lock.clone();
            rt.spawn(async move {
                let _read = lock.read().await;
                released.await.unwrap();
            })
        };
        drive_until(&rt, "the other reader waiting", |dump| {
            idle_on(dump, other_reader.id(), "oneshot::Receiver")
        });
        let rereader = {
            let lock = lock.clone();
            rt.spawn(async move {
                let _first = lock.read().await;
                let _second = lock.read().await;
            })
        };
        drive_until(&rt, "reading again", |dump| {
            idle_on(dump, rereader.id(), "RwLock::read")
        });

        // An owned read guard handed to a task that holds it until told.
        let owned_lock = Arc::new(rt::sync::RwLock::new(0));
        let (drop_it, dropped) = rt::sync::oneshot::channel::<()>();
        let (keeper_tx, keeper_rx) = std::sync::mpsc::channel();
        let taker = {
            let lock = owned_lock.clone();
            rt.spawn(async move {
                let guard = lock.clone().read_owned().await;
                let keeper = rt::spawn(async move {
                    dropped.await.unwrap();
                    drop(guard);
                });
                keeper_tx.send(keeper).unwrap();
                *lock.write().await += 1;
            })
        };
        drive_until(&rt, "the taker writing", |dump| {
            idle_on(dump, taker.id(), "RwLock::write")
        });
        let keeper = keeper_rx.try_recv().unwrap();
        let dump = rt.handle().dump();
        let writing = dump.iter().find(|task| task.id() == taker.id()).unwrap();
        let reader = &writing.waits()[0].read_by()[0];
        assert_eq!(reader.task(), Some(taker.id()));
        assert!(reader.is_owned_guard());
        assert!(
            writing.waits()[0].to_string().contains(&format!(
                "read by task {} (an owned guard acquired at",
                taker.id()
            )),
            "{dump}"
        );

        let (witness, _) = relock(&rt, "witness");
        let deadlock = next_report(&reports);
        assert_eq!(deadlock.tasks()[0].id(), witness.id(), "{deadlock}");
        assert!(reports.try_recv().is_err());

        // Both end as they should.
        release.send(()).unwrap();
        rt.block_on(other_reader).unwrap();
        rt.block_on(rereader).unwrap();
        drop_it.send(()).unwrap();
        rt.block_on(keeper).unwrap();
        rt.block_on(taker).unwrap();
        abort_all(&rt, [witness]);
    }
}

/// A task waiting for a lock in a `select!` with a timeout may time out
/// and release its own lock: the dump shows the cycle (through its first
/// wait), the watchdog does not report it.
#[test]
fn a_cycle_a_select_timeout_may_break_is_not_reported() {
    for kind in KINDS {
        let (rt, reports) = watched(kind);
        let a = Arc::new(Mutex::new(()));
        let b = Arc::new(Mutex::new(()));
        let barrier = Arc::new(rt::sync::Barrier::new(2));
        let patient = {
            let (a, b, barrier) = (a.clone(), b.clone(), barrier.clone());
            rt.spawn(async move {
                let _a = a.lock().await;
                barrier.wait().await;
                rt::select! {
                    _ = b.lock() => {}
                    _ = rt::time::sleep(Duration::from_secs(3600)) => {}
                }
            })
        };
        let (stuck, _) = support::lock_in_order(&rt, "takes b then a", &b, &a, &barrier);
        drive_until(&rt, "in the cycle", |dump| {
            idle_on(dump, patient.id(), "Mutex::lock") && idle_on(dump, stuck.id(), "Mutex::lock")
        });
        // The dump shows the cycle, as one the timeout may break.
        let printed = rt.handle().dump().to_string();
        let possible = format!(
            "possible deadlock: tasks {}, {} wait for each other",
            patient.id().min(stuck.id()),
            patient.id().max(stuck.id())
        );
        assert!(printed.contains(&possible), "{printed}");
        let also = format!("task {} also waits for sleep at {}", patient.id(), file!());
        assert!(printed.contains(&also), "{printed}");
        if kind == Kind::CurrentThread {
            println!("{printed}");
        }

        let (witness, _) = relock(&rt, "witness");
        let deadlock = next_report(&reports);
        assert_eq!(deadlock.tasks()[0].id(), witness.id(), "{deadlock}");
        assert!(reports.try_recv().is_err());
        abort_all(&rt, [patient, stuck, witness]);
    }
}

/// A cycle seen at every look, one of whose tasks is polled between
/// looks (woken through a channel not of rt's, which records no wait),
/// is not reported: that task still runs. (This thread pokes it once per
/// turn, many times between two looks, which are a second or more apart;
/// were the thread kept off the CPU for longer than that, the watchdog
/// would find the task unpolled across two looks and rightly report it.)
#[test]
fn a_cycle_whose_task_keeps_being_polled_is_not_reported() {
    use futures::StreamExt;
    for kind in KINDS {
        let (rt, reports) = watched(kind);
        let a = Arc::new(Mutex::new(()));
        let b = Arc::new(Mutex::new(()));
        let barrier = Arc::new(rt::sync::Barrier::new(2));
        let (mut poke, mut poked) = futures_channel::mpsc::channel::<()>(1);
        let poked_task = {
            let (a, b, barrier) = (a.clone(), b.clone(), barrier.clone());
            rt.spawn(async move {
                let _a = a.lock().await;
                barrier.wait().await;
                loop {
                    rt::select! {
                        _ = b.lock() => break,
                        _ = poked.next() => {}
                    }
                }
            })
        };
        let (stuck, _) = support::lock_in_order(&rt, "takes b then a", &b, &a, &barrier);
        drive_until(&rt, "in the cycle", |dump| {
            idle_on(dump, poked_task.id(), "Mutex::lock")
                && idle_on(dump, stuck.id(), "Mutex::lock")
        });

        let (witness, _) = relock(&rt, "witness");
        // Idle in the cycle nearly all the time, and polled once per turn.
        let deadlock = loop {
            match reports.try_recv() {
                Ok(deadlock) => break deadlock,
                Err(mpsc::TryRecvError::Empty) => {
                    let polls = |dump: &TaskDump| {
                        let task = dump.iter().find(|task| task.id() == poked_task.id());
                        task.map_or(0, |task| task.polls())
                    };
                    let before = polls(&rt.handle().dump());
                    poke.try_send(()).unwrap();
                    drive_until(&rt, "poked", |dump| {
                        polls(dump) > before && idle_on(dump, poked_task.id(), "Mutex::lock")
                    });
                }
                Err(mpsc::TryRecvError::Disconnected) => unreachable!(),
            }
        };
        assert_eq!(deadlock.tasks()[0].id(), witness.id(), "{deadlock}");
        abort_all(&rt, [poked_task, stuck, witness]);
    }
}

/// `on_deadlock` turns wait tracking on by itself (without it there would
/// be no waits to follow, and the callback would never be called): a
/// runtime built with the callback and no `track_waits` (`watched`)
/// reports its deadlock.
#[test]
fn on_deadlock_alone_turns_tracking_on() {
    for kind in KINDS {
        let (rt, reports) = watched(kind);
        let (stuck, _) = relock(&rt, "relocks");
        assert_eq!(next_report(&reports).tasks()[0].id(), stuck.id());
        abort_all(&rt, [stuck]);
    }
}

/// The tasks of a `LocalSet` driven on the runtime are watched too, and
/// reported with their set.
#[test]
fn a_local_set_deadlock_is_reported_with_its_set() {
    for kind in KINDS {
        let (rt, reports) = watched(kind);
        let local = rt::task::LocalSet::new();
        let a = Arc::new(Mutex::new(()));
        let b = Arc::new(Mutex::new(()));
        let barrier = Arc::new(rt::sync::Barrier::new(2));
        let spawn = |first: &Arc<Mutex<()>>, second: &Arc<Mutex<()>>| {
            let (first, second, barrier) = (first.clone(), second.clone(), barrier.clone());
            local.spawn_local(async move {
                let _first = first.lock().await;
                barrier.wait().await;
                let _second = second.lock().await;
            })
        };
        let ab = spawn(&a, &b);
        let ba = spawn(&b, &a);
        for _ in 0..100_000 {
            let dump = rt.handle().dump();
            if idle_on(&dump, ab.id(), "Mutex::lock") && idle_on(&dump, ba.id(), "Mutex::lock") {
                break;
            }
            local.block_on(&rt, rt::task::yield_now());
        }
        let deadlock = next_report(&reports);
        let mut ids: Vec<Id> = deadlock.tasks().iter().map(|task| task.id()).collect();
        ids.sort();
        let mut expected = [ab.id(), ba.id()];
        expected.sort();
        assert_eq!(ids, expected, "{deadlock}");
        for task in deadlock.tasks() {
            assert_eq!(task.local_set().map(|set| set.id()), Some(local.id()));
        }
        for task in [ab, ba] {
            task.abort();
            let _ = local.block_on(&rt, task);
        }
    }
}

/// Runs this binary's test `name` as a child, `RT_DEBUG` unset, and
/// returns it with the lines of its stderr as they come; closing its
/// stdin releases it.
fn child_with_stderr_lines(name: &str) -> (std::process::Child, mpsc::Receiver<String>) {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", name, "--nocapture"])
        .env("RT_DEADLOCK_CHILD", "1")
        .env_remove("RT_DEBUG")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let lines = support::stderr_lines(&mut child);
    (child, lines)
}

/// Without a callback the report goes to stderr, once; a runtime that
/// tracks waits without the watchdog reports nothing (the child's
/// unwatched deadlock is formed before the watched one).
#[test]
fn stderr_has_the_watched_deadlock_once_and_not_the_unwatched_one() {
    let (mut child, lines) =
        child_with_stderr_lines("child_deadlocks_with_and_without_the_watchdog");
    let mut seen = Vec::new();
    let wait = loop {
        let line = lines
            .recv_timeout(HANG)
            .unwrap_or_else(|_| panic!("no report on stderr:\n{}", seen.join("\n")));
        let found = line.contains("'watched' waits for Mutex::lock at");
        seen.push(line);
        if found {
            break seen.last().unwrap().clone();
        }
    };
    drop(child.stdin.take());
    assert!(child.wait().unwrap().success());
    seen.extend(lines.try_iter());
    let stderr = seen.join("\n");
    assert!(wait.contains(file!()), "{stderr}");
    assert_eq!(stderr.matches("rt: deadlock:").count(), 1, "{stderr}");
    assert!(stderr.contains("found by the watchdog"), "{stderr}");
    assert!(!stderr.contains("'unwatched'"), "{stderr}");
}

/// The child of `stderr_has_the_watched_deadlock_once_and_not_the_unwatched_one`.
#[test]
fn child_deadlocks_with_and_without_the_watchdog() {
    if std::env::var_os("RT_DEADLOCK_CHILD").is_none() {
        return;
    }
    let unwatched = Builder::new_multi_thread()
        .worker_threads(1)
        .track_waits(true)
        .build()
        .unwrap();
    let (stuck, _) = relock(&unwatched, "unwatched");
    let watched = Builder::new_multi_thread()
        .worker_threads(1)
        .track_waits(true)
        .slow_poll_threshold(THRESHOLD)
        .build()
        .unwrap();
    let (reported, _) = relock(&watched, "watched");
    // Until the parent has seen the report (and more looks pass).
    std::io::Read::read_to_end(&mut std::io::stdin(), &mut Vec::new()).unwrap();
    abort_all(&unwatched, [stuck]);
    abort_all(&watched, [reported]);
}

/// With a global `tracing` subscriber, the report is a WARN event of
/// target `rt::watchdog`, its message the paragraph, its `tasks` field
/// the ids; nothing goes to stderr. In a child: the subscriber is global.
#[cfg(feature = "tracing")]
#[test]
fn with_a_tracing_subscriber_the_report_is_an_event() {
    let output = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child_reports_through_tracing", "--nocapture"])
        .env("RT_DEADLOCK_CHILD", "1")
        .env_remove("RT_DEBUG")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "the child failed:\n{stderr}");
    assert!(!stderr.contains("rt: deadlock"), "{stderr}");
}

/// The child of `with_a_tracing_subscriber_the_report_is_an_event`.
#[cfg(feature = "tracing")]
#[test]
fn child_reports_through_tracing() {
    use std::collections::HashMap;
    use tracing_subscriber::layer::SubscriberExt;

    /// Sends the fields of each event of the watchdog.
    struct Watchdog(std::sync::Mutex<mpsc::Sender<HashMap<String, String>>>);
    struct Fields<'a>(&'a mut HashMap<String, String>);
    impl tracing::field::Visit for Fields<'_> {
        fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
            self.0.insert(field.name().to_owned(), format!("{value:?}"));
        }
    }
    impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Watchdog {
        fn on_event(
            &self,
            event: &tracing::Event<'_>,
            _: tracing_subscriber::layer::Context<'_, S>,
        ) {
            if event.metadata().target() == "rt::watchdog" {
                let mut fields = HashMap::new();
                event.record(&mut Fields(&mut fields));
                let _ = self.0.lock().unwrap().send(fields);
            }
        }
    }

    if std::env::var_os("RT_DEADLOCK_CHILD").is_none() {
        return;
    }
    let (event, events) = mpsc::channel();
    let subscriber = tracing_subscriber::registry().with(Watchdog(std::sync::Mutex::new(event)));
    tracing::subscriber::set_global_default(subscriber).unwrap();
    let rt = Builder::new_multi_thread()
        .worker_threads(1)
        .track_waits(true)
        .slow_poll_threshold(THRESHOLD)
        .build()
        .unwrap();
    let (task, line) = relock(&rt, "traced");
    let fields = events.recv_timeout(HANG).expect("the deadlock's event");
    let message = &fields["message"];
    assert!(message.starts_with("deadlock: task"), "{fields:?}");
    assert!(
        message.contains(&format!(
            "'traced' waits for Mutex::lock at {}:{line}",
            file!()
        )),
        "{fields:?}"
    );
    assert_eq!(fields["tasks"], format!("[{}]", task.id()), "{fields:?}");
    abort_all(&rt, [task]);
}
