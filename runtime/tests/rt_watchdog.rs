//! The slow-poll watchdog: a task that blocks its worker is reported once,
//! with its name and spawn location, while the work stranded behind it
//! (its LIFO slot, the worker's yielded tasks, its queue and priority
//! lanes) runs on another worker; `RT_DEBUG=1` turns the watchdog on;
//! the leak report lists the tasks left pending when the runtime is
//! dropped. A `LocalSet`'s tasks are watched and reported too, marked with
//! their set. A stuck poll does not leave its scheduler's cached clock
//! behind for the tasks it polls next.
//!
//! No sleeps: a blocked task blocks on a std channel that the
//! `on_slow_poll` callback (or the stolen work itself) releases.

mod support;

use rt::runtime::{Builder, SlowPoll, TaskState};
use rt::task::JoinHandle;
use std::future::Future;
use std::panic::Location;
use std::process::Command;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::task::{Poll, Waker};
use std::time::Duration;

/// How long a test waits for a message before calling it a hang. Not a
/// timing assertion: it only turns a hang into a failure.
const HANG: Duration = Duration::from_secs(30);

const THRESHOLD: Duration = Duration::from_millis(50);

/// Spawns `future` named `name` from inside the runtime, and says from
/// where (the location the task records).
#[track_caller]
fn spawn_named<F>(name: &str, future: F) -> (JoinHandle<F::Output>, &'static Location<'static>)
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    let task = rt::task::Builder::new().name(name).spawn(future).unwrap();
    (task, Location::caller())
}

/// The callback's side of a test: every report, and the channel it
/// releases the blocked task with once the stranded work has run.
struct Callback {
    reports: Mutex<Vec<SlowPoll>>,
    done: Mutex<mpsc::Receiver<&'static str>>,
    expect_done: usize,
    release: Mutex<mpsc::Sender<()>>,
}

impl Callback {
    /// A two-worker runtime whose watchdog calls back into a `Callback`
    /// that waits for `expect_done` messages on the returned sender, then
    /// releases the returned receiver (the blocked task's).
    fn runtime(
        expect_done: usize,
    ) -> (
        rt::runtime::Runtime,
        Arc<Callback>,
        mpsc::Sender<&'static str>,
        mpsc::Receiver<()>,
    ) {
        let (done_tx, done_rx) = mpsc::channel();
        let (release_tx, release_rx) = mpsc::channel();
        let callback = Arc::new(Callback {
            reports: Mutex::new(Vec::new()),
            done: Mutex::new(done_rx),
            expect_done,
            release: Mutex::new(release_tx),
        });
        let on_slow_poll = callback.clone();
        let rt = Builder::new_multi_thread()
            .worker_threads(2)
            .slow_poll_threshold(THRESHOLD)
            .on_slow_poll(move |report: &SlowPoll| on_slow_poll.on_slow_poll(report))
            .build()
            .unwrap();
        (rt, callback, done_tx, release_rx)
    }

    fn on_slow_poll(&self, report: &SlowPoll) {
        self.reports.lock().unwrap().push(report.clone());
        let done = self.done.lock().unwrap();
        for _ in 0..self.expect_done {
            done.recv_timeout(HANG)
                .expect("the work stranded behind the stuck task ran");
        }
        self.release.lock().unwrap().send(()).unwrap();
    }
}

#[test]
fn a_blocked_worker_is_reported_once_and_its_work_runs_elsewhere() {
    // The yielder, the child in the LIFO slot and three queued tasks.
    let (rt, callback, done_tx, release_rx) = Callback::runtime(5);

    let (located_tx, located_rx) = mpsc::channel();
    let yielder = rt.spawn(async move {
        let blocker_done = done_tx.clone();
        // Spawned from this worker, the blocker waits in its LIFO slot and
        // runs right after this poll, which ends in a yield: this task then
        // waits in the worker's yielded list while the blocker blocks.
        let (blocker, location) = spawn_named("blocker", async move {
            let queued = ["queued 1", "queued 2", "queued 3", "lifo child"];
            for name in queued {
                let done = blocker_done.clone();
                // Each spawn takes the LIFO slot and pushes the previous
                // task into the worker's queue: the last one stays in the
                // slot, the others queue behind this task.
                drop(rt::spawn(async move { done.send(name).unwrap() }));
            }
            release_rx
                .recv_timeout(HANG)
                .expect("the watchdog's callback released the blocker");
        });
        located_tx.send(location).unwrap();
        rt::task::yield_now().await;
        done_tx.send("yielder").unwrap();
        blocker.await.unwrap();
    });
    rt.block_on(yielder).unwrap();
    let location = located_rx.recv().unwrap();
    drop(rt);

    let reports = callback.reports.lock().unwrap();
    assert_eq!(reports.len(), 1, "{reports:?}");
    let report = &reports[0];
    assert_eq!(report.name(), Some("blocker"));
    assert_eq!(report.location(), location);
    assert!(report.elapsed() >= THRESHOLD, "{report:?}");
    assert!(report.worker().is_some_and(|worker| worker < 2));
    let debug = format!("{report:?}");
    for field in ["id", "name", "location", "elapsed", "worker"] {
        assert!(debug.contains(field), "{debug}");
    }
    // On a multi-thread worker, both fixes apply.
    let message = report.to_string();
    assert!(
        message.contains("`spawn_blocking` or `block_in_place`"),
        "{message}"
    );
}

/// The `High` and `Low` tasks a blocked task queued on its own worker
/// (in that worker's priority lanes, where nobody was woken for the first
/// of each) run on the other worker during the block.
#[test]
fn a_blocked_workers_priority_lanes_run_elsewhere() {
    use rt::task::Priority;
    let (rt, callback, done_tx, release_rx) = Callback::runtime(2);
    let blocker = rt::task::Builder::new()
        .name("blocks with lanes queued")
        .spawn_on(
            async move {
                for (name, priority) in [("high", Priority::High), ("low", Priority::Low)] {
                    let done = done_tx.clone();
                    let task = rt::task::Builder::new()
                        .priority(priority)
                        .spawn(async move { done.send(name).unwrap() });
                    drop(task.unwrap());
                }
                release_rx
                    .recv_timeout(HANG)
                    .expect("the watchdog's callback released the blocker");
            },
            rt.handle(),
        )
        .unwrap();
    rt.block_on(blocker).unwrap();
    drop(rt);
    let reports = callback.reports.lock().unwrap();
    assert_eq!(reports.len(), 1, "{reports:?}");
    assert_eq!(reports[0].name(), Some("blocks with lanes queued"));
}

#[test]
fn a_current_thread_runtime_reports_a_blocked_poll() {
    let (release_tx, release_rx) = mpsc::channel::<()>();
    let (report_tx, report_rx) = mpsc::channel();
    let release = Mutex::new(release_tx);
    let report_tx = Mutex::new(report_tx);
    let rt = Builder::new_current_thread()
        .slow_poll_threshold(THRESHOLD)
        .on_slow_poll(move |report: &SlowPoll| {
            report_tx.lock().unwrap().send(report.clone()).unwrap();
            release.lock().unwrap().send(()).unwrap();
        })
        .build()
        .unwrap();
    let location = rt.block_on(async move {
        let (stuck, location) = spawn_named("stuck on one thread", async move {
            release_rx.recv_timeout(HANG).expect("released");
        });
        stuck.await.unwrap();
        location
    });
    drop(rt);
    let reports: Vec<SlowPoll> = report_rx.try_iter().collect();
    assert_eq!(reports.len(), 1, "{reports:?}");
    assert_eq!(reports[0].name(), Some("stuck on one thread"));
    assert_eq!(reports[0].location(), location);
    assert_eq!(reports[0].worker(), Some(0));
    // `block_in_place` panics on a current-thread runtime: the report
    // must not suggest it (before, it did).
    let message = reports[0].to_string();
    assert!(
        message.contains("`spawn_blocking`") && !message.contains("block_in_place"),
        "{message}"
    );
}

/// A callback that panics (here a bug of its own, as an `unwrap` on a
/// closed channel would be) does not end the watchdog: the next stall is
/// still reported. Before, the panic killed the monitor thread, and no
/// stall was ever reported again.
#[test]
fn a_panicking_callback_does_not_stop_later_reports() {
    let (release_tx, release_rx) = mpsc::channel::<()>();
    let (report_tx, report_rx) = mpsc::channel();
    let release = Mutex::new(release_tx);
    let report_tx = Mutex::new(report_tx);
    let rt = Builder::new_multi_thread()
        .worker_threads(1)
        .slow_poll_threshold(THRESHOLD)
        .on_slow_poll(move |report: &SlowPoll| {
            report_tx.lock().unwrap().send(report.clone()).unwrap();
            release.lock().unwrap().send(()).unwrap();
            if report.name() == Some("first") {
                panic!("the callback's own bug");
            }
        })
        .build()
        .unwrap();
    let released = Arc::new(Mutex::new(release_rx));
    for name in ["first", "second"] {
        let released = released.clone();
        let stuck = rt::task::Builder::new()
            .name(name)
            .spawn_on(
                async move { released.lock().unwrap().recv_timeout(HANG).is_ok() },
                rt.handle(),
            )
            .unwrap();
        assert!(
            rt.block_on(stuck).unwrap(),
            "the `{name}` stall was reported, which released it"
        );
    }
    drop(rt);
    let names: Vec<_> = report_rx
        .try_iter()
        .map(|report| report.name().map(str::to_owned))
        .collect();
    assert_eq!(names, [Some("first".to_owned()), Some("second".to_owned())]);
}

/// Runs one of this file's tests in a child process, with `RT_DEBUG=1`
/// or without it, and returns its stderr.
fn run_child(test: &str, rt_debug: bool) -> String {
    let mut child = Command::new(std::env::current_exe().unwrap());
    child
        .args(["--exact", test, "--nocapture", "--test-threads=1"])
        .env("RT_WATCHDOG_CHILD", "1")
        .env_remove("RT_DEBUG");
    if rt_debug {
        child.env("RT_DEBUG", "1");
    }
    let output = child.output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "the child failed:\n{stderr}");
    stderr
}

/// A multi-thread runtime of one worker, as most children build (its
/// watchdog on when the child runs with `RT_DEBUG=1`).
fn one_worker() -> rt::runtime::Runtime {
    Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap()
}

fn in_child() -> bool {
    std::env::var_os("RT_WATCHDOG_CHILD").is_some()
}

/// The child of `rt_debug_turns_the_watchdog_on_and_reports_leaks`.
#[test]
fn child_blocks_a_worker_then_leaks_a_task() {
    if !in_child() {
        return;
    }
    // Nothing but `RT_DEBUG=1` turns the watchdog on here.
    let rt = Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let stuck = rt::task::Builder::new()
        .name("stuck until the watchdog helps")
        .spawn_on(
            async {
                let (ran_tx, ran) = mpsc::channel();
                // The child waits in this worker's LIFO slot: only the
                // watchdog, finding this worker stuck, lets the other
                // worker take it.
                drop(rt::spawn(async move { ran_tx.send(()).unwrap() }));
                ran.recv_timeout(HANG)
                    .expect("the LIFO child ran while this worker was blocked");
            },
            rt.handle(),
        )
        .unwrap();
    rt.block_on(stuck).unwrap();
    // Finished, its output never collected: complete, not leaked.
    let (finished, _) = rt.block_on(async { spawn_named("finished, output kept", async {}) });
    let (leaked, _) = rt.block_on(async { spawn_named("leaked", std::future::pending::<()>()) });
    support::wait_until("the leaked task waits", || {
        rt.handle()
            .dump()
            .iter()
            .any(|t| t.id() == leaked.id() && t.state() == TaskState::Idle)
    });
    support::wait_until("the finished task is complete", || {
        rt.handle()
            .dump()
            .iter()
            .any(|t| t.id() == finished.id() && t.state() == TaskState::Complete)
    });
    // The LIFO child's send let `stuck` finish while the child's own poll
    // may still be ending on its worker: only once it has, is `leaked` the
    // one task a leak report may list.
    support::wait_until("only the leaked task is pending", || {
        rt.handle()
            .dump()
            .iter()
            .filter(|t| t.state() != TaskState::Complete)
            .count()
            == 1
    });
    drop(leaked);
    drop(rt);
    futures::executor::block_on(finished).unwrap();
}

#[test]
fn rt_debug_turns_the_watchdog_on_and_reports_leaks() {
    if in_child() {
        return;
    }
    let stderr = run_child("child_blocks_a_worker_then_leaks_a_task", true);
    let slow = stderr
        .lines()
        .find(|line| line.starts_with("rt: slow poll:"))
        .unwrap_or_else(|| panic!("no slow-poll report:\n{stderr}"));
    assert!(slow.contains("stuck until the watchdog helps"), "{slow}");
    assert!(slow.contains("rt_watchdog.rs"), "{slow}");
    // The stuck poll returned just before the runtime was dropped: the
    // monitor's last sample, as it stops, says so.
    let ended = stderr
        .lines()
        .find(|line| line.starts_with("rt: slow poll ended:"))
        .unwrap_or_else(|| panic!("the stall's end is not reported:\n{stderr}"));
    assert!(
        ended.contains("(stuck until the watchdog helps)"),
        "{ended}"
    );
    assert!(ended.contains("its poll returned after about"), "{ended}");
    assert!(
        stderr.contains("with 1 task(s) still pending"),
        "no leak report, or not of the one unfinished task:\n{stderr}"
    );
    assert!(
        !stderr.contains("finished, output kept"),
        "a finished task is reported as leaked:\n{stderr}"
    );
    // (Its poll was reported as it returned: `pending()` keeps no waker.)
    let leaked = stderr
        .lines()
        .find(|line| line.contains("leaked") && !line.starts_with("rt: task"))
        .unwrap_or_else(|| panic!("the leaked task is not listed:\n{stderr}"));
    assert!(leaked.contains("idle"), "{leaked}");
    assert!(leaked.contains("rt_watchdog.rs"), "{leaked}");
}

#[test]
fn without_the_watchdog_dropping_a_runtime_reports_nothing() {
    if in_child() {
        return;
    }
    let stderr = run_child("child_leaks_a_task_quietly", false);
    assert!(!stderr.contains("still pending"), "{stderr}");
}

/// The child of `without_the_watchdog_dropping_a_runtime_reports_nothing`.
#[test]
fn child_leaks_a_task_quietly() {
    if !in_child() {
        return;
    }
    assert!(std::env::var_os("RT_DEBUG").is_none());
    let rt = one_worker();
    drop(rt.spawn(std::future::pending::<()>()));
    drop(rt);
}

/// A local task stuck in one poll blocks its set's thread (the `block_on`
/// thread): reported with its set, and no worker.
#[test]
fn a_local_task_stuck_in_one_poll_is_reported_with_its_set() {
    for builder in [Builder::new_current_thread(), Builder::new_multi_thread()] {
        let (rt, reports, released) = reporting_runtime(builder);
        let local = rt::task::LocalSet::new();
        let location = Location::caller();
        let stuck = rt::task::Builder::new()
            .name("local blocker")
            .spawn_local_on(async move { released.recv_timeout(HANG).unwrap() }, &local)
            .unwrap();
        local.block_on(&rt, stuck).unwrap();
        let report = reports.recv_timeout(HANG).unwrap();
        assert_eq!(report.name(), Some("local blocker"));
        assert_eq!(report.location().file(), location.file());
        assert_eq!(report.worker(), None);
        assert_eq!(report.local_set().map(|set| set.id()), Some(local.id()));
        let set = report.local_set().unwrap();
        assert_eq!(set.thread_id(), std::thread::current().id());
        assert!(
            report.to_string().contains("on the thread of local set"),
            "{report}"
        );
        // A set's thread is no worker: `block_in_place` would panic there
        // or block it all the same.
        assert!(!report.to_string().contains("block_in_place"), "{report}");
        drop(rt);
        assert!(reports.try_recv().is_err(), "reported once");
    }
}

#[test]
fn rt_debug_reports_the_pending_tasks_of_local_sets() {
    if in_child() {
        return;
    }
    let stderr = run_child("child_leaks_local_tasks", true);
    let line_of = |name: &str| {
        stderr
            .lines()
            .find(|line| line.contains(name))
            .unwrap_or_else(|| panic!("{name} is not listed:\n{stderr}"))
            .to_owned()
    };
    // A set dropped with a task pending reports it as it cancels it.
    assert!(
        stderr.contains("dropped with 1 task(s) still pending; they are cancelled now"),
        "{stderr}"
    );
    assert!(line_of("dropped with its set").contains("local set"));
    // A set that outlives its runtime: listed apart by the runtime's report.
    assert!(
        stderr.contains("with 1 task(s) still pending in `LocalSet`s that outlive it"),
        "{stderr}"
    );
    assert!(line_of("outlives the runtime").contains("local set"));
    // The runtime's own task: listed as before, not as local.
    assert!(
        stderr.contains("runtime dropped with 1 task(s) still pending; they are cancelled now")
    );
    assert!(!line_of("runtime task").contains("local set"));
    // A `LocalRuntime`'s local task: its set drops first and reports it.
    assert!(line_of("in a LocalRuntime").contains("local set"));
}

/// The child of `rt_debug_reports_the_pending_tasks_of_local_sets`.
#[test]
fn child_leaks_local_tasks() {
    if !in_child() {
        return;
    }
    let pending = || async {
        let (_tx, rx) = futures::channel::oneshot::channel::<()>();
        let _ = rx.await;
    };
    let rt = Builder::new_current_thread().build().unwrap();
    let _runtime_task = rt::task::Builder::new()
        .name("runtime task")
        .spawn_on(pending(), rt.handle())
        .unwrap();
    let dropped = rt::task::LocalSet::new();
    let outliving = rt::task::LocalSet::new();
    for (set, name) in [
        (&dropped, "dropped with its set"),
        (&outliving, "outlives the runtime"),
    ] {
        let _task = rt::task::Builder::new()
            .name(name)
            .spawn_local_on(pending(), set)
            .unwrap();
        set.block_on(&rt, rt::task::yield_now());
    }
    drop(dropped);
    drop(rt);
    // Its tasks were reported with the runtime; now it cancels them.
    drop(outliving);

    let local_rt = Builder::new_current_thread().build_local().unwrap();
    local_rt.block_on(async {
        let _task = rt::task::Builder::new()
            .name("in a LocalRuntime")
            .spawn_local(pending())
            .unwrap();
        rt::task::yield_now().await;
    });
    drop(local_rt);
}

/// A runtime whose watchdog sends every report to the returned receiver
/// and then releases the returned `released` channel (the stuck future's).
fn reporting_runtime(
    mut builder: Builder,
) -> (
    rt::runtime::Runtime,
    mpsc::Receiver<SlowPoll>,
    mpsc::Receiver<()>,
) {
    let (reports, released) = report_and_release(builder.worker_threads(1));
    (builder.build().unwrap(), reports, released)
}

/// Sets `builder`'s watchdog to send each report to the returned
/// `reports`, then release the returned `released` channel.
fn report_and_release(builder: &mut Builder) -> (mpsc::Receiver<SlowPoll>, mpsc::Receiver<()>) {
    let (report_tx, reports) = mpsc::channel::<SlowPoll>();
    let (release, released) = mpsc::channel::<()>();
    let report_tx = Mutex::new(report_tx);
    let release = Mutex::new(release);
    builder
        .slow_poll_threshold(THRESHOLD)
        .on_slow_poll(move |slow: &SlowPoll| {
            report_tx.lock().unwrap().send(slow.clone()).unwrap();
            release.lock().unwrap().send(()).unwrap();
        });
    (reports, released)
}

/// The one report of a stuck `block_on` future: no task's, called on
/// `line` of this file, with the fix that applies to it.
fn assert_block_on_report(reports: &mpsc::Receiver<SlowPoll>, line: u32) -> SlowPoll {
    let report = reports
        .recv_timeout(HANG)
        .expect("the block_on future was reported");
    assert!(report.is_block_on(), "{report:?}");
    assert_eq!(report.name(), None);
    assert_eq!(report.local_set().map(|set| set.id()), None);
    assert_eq!(
        (report.location().file(), report.location().line()),
        (file!(), line),
        "{report}"
    );
    assert!(report.elapsed() >= THRESHOLD, "{report:?}");
    let message = report.to_string();
    assert!(
        message.contains("the future passed to `block_on`")
            && message.contains("`rt::task::spawn_blocking`")
            && !message.contains("block_in_place"),
        "{message}"
    );
    assert!(reports.try_recv().is_err(), "reported once");
    report
}

/// The future passed to a current-thread runtime's `block_on` (the body of
/// a current-thread `#[rt::test]`) blocks the one thread that runs the
/// runtime's tasks. Before, the watchdog never reported it: only tasks
/// were watched.
#[test]
fn a_current_thread_block_on_future_stuck_in_one_poll_is_reported() {
    let (rt, reports, released) = reporting_runtime(Builder::new_current_thread());
    let line = line!() + 1;
    rt.block_on(async move { released.recv_timeout(HANG).unwrap() });
    let report = assert_block_on_report(&reports, line);
    // The runtime's one worker is the thread it blocks.
    assert_eq!(report.worker(), Some(0));
    assert!(
        report.to_string().contains("every task of the runtime"),
        "{report}"
    );
    drop(rt);
    assert!(reports.try_recv().is_err(), "reported once");
}

/// A multi-thread runtime's `block_on` future blocks its caller's thread,
/// which is no worker.
#[test]
fn a_multi_thread_block_on_future_stuck_in_one_poll_is_reported() {
    let (rt, reports, released) = reporting_runtime(Builder::new_multi_thread());
    let line = line!() + 1;
    rt.block_on(async move { released.recv_timeout(HANG).unwrap() });
    let report = assert_block_on_report(&reports, line);
    assert_eq!(report.worker(), None);
    drop(rt);
    assert!(reports.try_recv().is_err(), "reported once");
}

/// `Handle::block_on` on another thread, for both flavours: the report
/// names that call and that thread.
#[test]
fn a_handle_block_on_future_stuck_in_one_poll_is_reported() {
    for builder in [Builder::new_current_thread(), Builder::new_multi_thread()] {
        let (rt, reports, released) = reporting_runtime(builder);
        let handle = rt.handle().clone();
        let report = std::thread::Builder::new()
            .name("blocks on a handle".into())
            .spawn(move || {
                let line = line!() + 1;
                handle.block_on(async move { released.recv_timeout(HANG).unwrap() });
                assert_block_on_report(&reports, line)
            })
            .unwrap()
            .join()
            .unwrap();
        assert!(
            report
                .to_string()
                .contains("on thread `blocks on a handle`"),
            "{report}"
        );
    }
}

/// A `LocalRuntime`'s `block_on` future is reported as such; a local task
/// stuck inside that `block_on` is reported as the task (with its set),
/// and the `block_on` future, stuck in the same poll of the set, is not
/// reported again.
#[test]
fn a_local_runtime_reports_its_block_on_future_or_its_stuck_local_task() {
    let mut builder = Builder::new_current_thread();
    let (reports, released) = report_and_release(&mut builder);
    let rt = builder.build_local().unwrap();

    let line = line!() + 1;
    rt.block_on(async { released.recv_timeout(HANG).unwrap() });
    let report = assert_block_on_report(&reports, line);
    assert_eq!(report.worker(), Some(0));

    // The block_on future spawns the task and waits for it: the set then
    // runs the task inside the same poll of the `block_on` future.
    rt.block_on(async move {
        let stuck = rt::task::Builder::new()
            .name("local task blocking the LocalRuntime")
            .spawn_local(async move { released.recv_timeout(HANG).unwrap() })
            .unwrap();
        stuck.await.unwrap();
    });
    let report = reports.recv_timeout(HANG).unwrap();
    assert!(!report.is_block_on(), "{report:?}");
    assert_eq!(report.name(), Some("local task blocking the LocalRuntime"));
    assert!(report.local_set().is_some(), "{report:?}");
    drop(rt);
    assert!(reports.try_recv().is_err(), "reported once");
}

// The child of `rt_debug_reports_an_rt_test_body_that_blocks`: a
// current-thread `#[rt::test]` body that blocks its thread without
// spawning anything, until the parent, having seen the report, closes
// this process's stdin. (A comment, not docs: the constant names the
// attribute's line, the next one.)
const RT_TEST_LINE: u32 = line!() + 1;
#[rt::test]
async fn child_rt_test_body_blocks() {
    if !in_child() {
        return;
    }
    let mut line = String::new();
    std::io::stdin().read_line(&mut line).unwrap();
}

/// With `RT_DEBUG=1`, the body of an `#[rt::test]` (what it passes to
/// `block_on`) stuck in one poll is reported on stderr, at the attribute's
/// line. Before, nothing was reported: the test just hung.
#[test]
fn rt_debug_reports_an_rt_test_body_that_blocks() {
    if in_child() {
        return;
    }
    let (mut child, lines) = child_with_stderr_lines("child_rt_test_body_blocks", true);
    let report = loop {
        let line = lines
            .recv_timeout(HANG)
            .expect("the child reported its body");
        if line.starts_with("rt: slow poll:") {
            break line;
        }
    };
    drop(child.stdin.take());
    assert!(child.wait().unwrap().success());
    assert!(
        report.contains(
            "the future passed to `block_on` (or the body of `#[rt::main]`/`#[rt::test]`)"
        ),
        "{report}"
    );
    let at = format!("at {}:{RT_TEST_LINE}:", file!());
    assert!(report.contains(&at), "not {at}: {report}");
    assert!(report.contains("`rt::task::spawn_blocking`"), "{report}");
}

/// The child of `a_shutdown_waiting_for_a_blocking_job_says_which`: drops
/// a runtime whose watchdog is on while a named blocking job runs, until
/// the parent, having seen the report, closes this process's stdin.
#[test]
fn child_drops_a_runtime_waiting_for_a_blocking_job() {
    if !in_child() {
        return;
    }
    let rt = Builder::new_multi_thread()
        .slow_poll_threshold(THRESHOLD)
        .build()
        .unwrap();
    let (started_tx, started) = mpsc::channel();
    let read_stdin = move || {
        started_tx.send(()).unwrap();
        let mut line = String::new();
        std::io::stdin().read_line(&mut line).unwrap();
    };
    let named = rt::task::Builder::new().name("reads stdin");
    eprintln!("child: spawned at {}:{}:", file!(), line!() + 1);
    let job = named.spawn_blocking_on(read_stdin, rt.handle());
    // Running, not queued: a queued job would be cancelled, not waited for.
    started.recv_timeout(HANG).unwrap();
    drop(rt);
    futures::executor::block_on(job.unwrap()).unwrap();
    eprintln!("child: the runtime is dropped");
}

/// Dropping a runtime waits for the blocking jobs still running; with the
/// watchdog on, once it has waited the threshold, it says (once) which
/// jobs, where they were spawned, for how long they have run, and what to
/// do. Before, the drop just hung, saying nothing.
#[test]
fn a_shutdown_waiting_for_a_blocking_job_says_which() {
    if in_child() {
        return;
    }
    let (mut child, lines) =
        child_with_stderr_lines("child_drops_a_runtime_waiting_for_a_blocking_job", false);
    let next_line = || lines.recv_timeout(HANG).expect("the child went on");
    let spawned_at = loop {
        let line = next_line();
        if let Some(at) = line.strip_prefix("child: ") {
            break at.to_owned();
        }
    };
    let report = loop {
        let line = next_line();
        if line.starts_with("rt: runtime shutdown has waited") {
            break line;
        }
    };
    let job = next_line();
    drop(child.stdin.take());
    assert!(child.wait().unwrap().success());
    // The rest, up to the end of the child's stderr.
    let rest: Vec<String> = lines.iter().collect();

    assert!(
        report.contains("1 blocking job(s) still running"),
        "{report}"
    );
    assert!(
        report.contains("`Runtime::shutdown_timeout`")
            && report.contains("`Runtime::shutdown_background`"),
        "{report}"
    );
    assert!(job.contains("blocking job (reads stdin)"), "{job}");
    assert!(job.contains(&spawned_at), "not {spawned_at}: {job}");
    assert!(job.contains("running for"), "{job}");
    assert!(
        rest.iter()
            .any(|line| line == "child: the runtime is dropped"),
        "{rest:?}"
    );
    assert!(
        !rest.iter().any(|line| line.contains("shutdown has waited")),
        "reported once: {rest:?}"
    );
}

/// The child of `a_shutdown_waiting_for_an_rt_fs_job_names_the_operation`:
/// drops a runtime whose watchdog is on while an `rt::fs::write` to a
/// FIFO blocks on the full pipe, until the parent, having seen the
/// report, closes this process's stdin (and the FIFO's reader goes, which
/// ends the write).
#[test]
fn child_drops_a_runtime_waiting_for_an_fs_write() {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    if !in_child() {
        return;
    }
    let fifo = std::env::temp_dir().join(format!("rt-watchdog-fifo-{}", std::process::id()));
    let _ = std::fs::remove_file(&fifo);
    support::mkfifo(&fifo);
    let rt = Builder::new_multi_thread()
        .slow_poll_threshold(THRESHOLD)
        .build()
        .unwrap();
    // More than the pipe holds: the job blocks until the reader goes.
    let write = rt.spawn(rt::fs::write(fifo.clone(), vec![0u8; 1 << 20]));
    let mut reader = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&fifo)
        .unwrap();
    // Once its bytes arrive the job is running, not queued (a queued one
    // would be cancelled, not waited for).
    support::wait_until("the write job has written", || {
        matches!(reader.read(&mut [0; 1]), Ok(1))
    });
    std::thread::spawn(move || {
        let mut line = String::new();
        std::io::stdin().read_line(&mut line).unwrap();
        // The write fails with a broken pipe (SIGPIPE is ignored).
        drop(reader);
    });
    drop(rt);
    // Its task was cancelled by the shutdown; the job itself ran to the end.
    assert!(
        futures::executor::block_on(write)
            .unwrap_err()
            .is_cancelled()
    );
    std::fs::remove_file(&fifo).unwrap();
    eprintln!("child: the runtime is dropped");
}

/// rt's own blocking jobs name their operation in the shutdown report:
/// their spawn location is inside rt, which alone says nothing. Before,
/// an `rt::fs::write` was reported as an unnamed job spawned in
/// `fs/blocking_io.rs`.
#[test]
fn a_shutdown_waiting_for_an_rt_fs_job_names_the_operation() {
    if in_child() {
        return;
    }
    let (mut child, lines) =
        child_with_stderr_lines("child_drops_a_runtime_waiting_for_an_fs_write", false);
    let next_line = || lines.recv_timeout(HANG).expect("the child went on");
    let report = loop {
        let line = next_line();
        if line.starts_with("rt: runtime shutdown has waited") {
            break line;
        }
    };
    let job = next_line();
    drop(child.stdin.take());
    let rest: Vec<String> = lines.iter().collect();
    assert!(child.wait().unwrap().success(), "{rest:?}");
    assert!(
        report.contains("1 blocking job(s) still running"),
        "{report}"
    );
    assert!(job.contains("blocking job (rt::fs::write)"), "{job}");
    assert!(
        rest.iter()
            .any(|line| line == "child: the runtime is dropped"),
        "{rest:?}"
    );
}

/// `block_in_place` in a multi-thread runtime's `block_on` future declares
/// its blocking intended, as it does in a task (whose worker is then no
/// longer watched): the `block_on` future is not reported, and a
/// `block_on` nested in it (the closure calling `Handle::block_on`) is
/// watched on its own. Before, the outer future was reported as stuck
/// (twice over with a stuck nested `block_on`).
#[test]
fn a_block_on_future_in_block_in_place_is_not_reported() {
    let (rt, reports, released) = reporting_runtime(Builder::new_multi_thread());
    let handle = rt.handle().clone();
    let released = Arc::new(Mutex::new(released));
    let nested_line = rt.block_on(async move {
        rt::task::block_in_place(|| {
            // A task stuck on the worker, reported and released, then a
            // nested `block_on` stuck the same way. Meanwhile this poll of
            // the outer future stays in progress: had it been watched, it
            // would have been reported with the first, at the latest (it
            // has been running since before that task's poll began).
            let witness = released.clone();
            let stuck = rt::task::Builder::new()
                .name("witness")
                .spawn_on(
                    async move { witness.lock().unwrap().recv_timeout(HANG).unwrap() },
                    &handle,
                )
                .unwrap();
            handle.block_on(stuck).unwrap();
            let nested_line = line!() + 1;
            handle.block_on(async { released.lock().unwrap().recv_timeout(HANG).unwrap() });
            nested_line
        })
    });
    drop(rt);
    let reports: Vec<SlowPoll> = reports.try_iter().collect();
    assert_eq!(reports.len(), 2, "{reports:?}");
    assert_eq!(reports[0].name(), Some("witness"));
    assert!(reports[1].is_block_on(), "{:?}", reports[1]);
    assert_eq!(reports[1].location().line(), nested_line);
}

/// Runs this binary's test `name` as a child (`RT_WATCHDOG_CHILD` set,
/// `RT_DEBUG=1` if `rt_debug`, else unset), its stdin piped for the
/// parent to release it, and returns it with the lines of its stderr as
/// they come.
fn child_with_stderr_lines(
    name: &str,
    rt_debug: bool,
) -> (std::process::Child, mpsc::Receiver<String>) {
    use std::process::Stdio;
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args(["--exact", name, "--nocapture"])
        .env("RT_WATCHDOG_CHILD", "1")
        .stdin(Stdio::piped())
        .stderr(Stdio::piped());
    if rt_debug {
        command.env("RT_DEBUG", "1");
    } else {
        command.env_remove("RT_DEBUG");
    }
    let mut child = command.spawn().unwrap();
    let lines = support::stderr_lines(&mut child);
    (child, lines)
}

/// A poll that blocks its thread holds back the cached clock its
/// scheduler stamps poll times with: the task polled right after it must
/// not be listed idle since the blocked poll began (it just ran), on a
/// worker, a current-thread runtime and a `LocalSet`.
#[test]
fn a_task_polled_after_a_stuck_poll_is_not_listed_idle_since_it() {
    for kind in ["multi-thread", "current-thread", "local set"] {
        let (release, released) = mpsc::channel::<()>();
        let release = Mutex::new(release);
        let mut builder = match kind {
            "multi-thread" => {
                let mut builder = Builder::new_multi_thread();
                // One worker: nobody else polls what the stuck one holds.
                builder.worker_threads(1);
                builder
            }
            _ => Builder::new_current_thread(),
        };
        let rt = builder
            .slow_poll_threshold(THRESHOLD)
            .on_slow_poll(move |_: &SlowPoll| {
                let _ = release.lock().unwrap().send(());
            })
            .build()
            .unwrap();
        let (next_id, next_id_rx) = mpsc::channel();
        let (polled, next_polled) = futures_channel::oneshot::channel::<()>();
        // Spawns the next task, then blocks until reported.
        let stuck = async move {
            let next = async move {
                polled.send(()).unwrap();
                std::future::pending::<()>().await;
            };
            let next = match kind {
                "local set" => rt::task::spawn_local(next),
                _ => rt::spawn(next),
            };
            next_id.send(next.id()).unwrap();
            released.recv_timeout(HANG).unwrap();
            std::future::pending::<()>().await;
        };
        let (stuck_id, local) = match kind {
            "local set" => {
                let local = rt::task::LocalSet::new();
                let stuck = local.spawn_local(stuck);
                local.block_on(&rt, async move { next_polled.await.unwrap() });
                (stuck.id(), Some(local))
            }
            _ => {
                let stuck = rt.spawn(stuck);
                rt.block_on(async move { next_polled.await.unwrap() });
                (stuck.id(), None)
            }
        };
        let next_id = next_id_rx.recv().unwrap();
        let dump = rt.handle().dump();
        let idle = |id| {
            let task = dump.iter().find(|task| task.id() == id).unwrap();
            task.since_last_poll().unwrap()
        };
        assert!(
            idle(next_id) < idle(stuck_id),
            "{kind}: the task polled after the stuck poll is listed idle since it began:\n{dump}"
        );
        drop(local);
    }
}

/// A task of one `LocalSet` that drives another set is not to blame when
/// a task of the inner set blocks inside its poll: only the inner task is
/// reported (the outer one, in one poll all along, was reported first).
#[test]
fn a_stuck_task_of_a_nested_local_set_is_reported_not_the_task_driving_it() {
    let reports = Arc::new(Mutex::new(Vec::new()));
    let (release, released) = mpsc::channel::<()>();
    let release = Mutex::new(release);
    let seen = reports.clone();
    let rt = Builder::new_current_thread()
        .slow_poll_threshold(THRESHOLD)
        .on_slow_poll(move |report: &SlowPoll| {
            seen.lock().unwrap().push(report.clone());
            if report.name() == Some("inner") {
                let _ = release.lock().unwrap().send(());
            }
        })
        .build()
        .unwrap();
    let outer_set = rt::task::LocalSet::new();
    let inner_set_id = outer_set.block_on(&rt, async move {
        let outer = rt::task::Builder::new()
            .name("outer")
            .spawn_local(async move {
                let inner_set = rt::task::LocalSet::new();
                let inner = rt::task::Builder::new()
                    .name("inner")
                    .spawn_local_on(
                        async move { released.recv_timeout(HANG).unwrap() },
                        &inner_set,
                    )
                    .unwrap();
                inner_set.run_until(inner).await.unwrap();
                inner_set.id()
            });
        outer.unwrap().await.unwrap()
    });
    drop(rt);
    let reports = reports.lock().unwrap();
    let names: Vec<_> = reports.iter().map(SlowPoll::name).collect();
    assert_eq!(names, [Some("inner")], "{reports:#?}");
    assert_eq!(reports[0].local_set().unwrap().id(), inner_set_id);
}

/// Dropped (at the runtime's shutdown) on the thread shutting it down:
/// blocks until released.
struct BlocksOnDrop(mpsc::Receiver<()>);

impl Drop for BlocksOnDrop {
    fn drop(&mut self) {
        let released = self.0.recv_timeout(HANG);
        assert!(
            released.is_ok(),
            "the blocking destructor was never reported"
        );
    }
}

/// The runtime's shutdown drops the futures of the tasks left on the
/// thread dropping it, after the workers stopped: a destructor that blocks
/// there is reported, naming its task, on both schedulers.
#[test]
fn a_task_whose_destructor_blocks_the_shutdown_is_reported() {
    for kind in ["multi-thread", "current-thread"] {
        let reports = Arc::new(Mutex::new(Vec::new()));
        let (release, released) = mpsc::channel::<()>();
        let release = Mutex::new(release);
        let seen = reports.clone();
        let mut builder = match kind {
            "multi-thread" => Builder::new_multi_thread(),
            _ => Builder::new_current_thread(),
        };
        let rt = builder
            .slow_poll_threshold(THRESHOLD)
            .on_slow_poll(move |report: &SlowPoll| {
                seen.lock().unwrap().push(report.clone());
                let _ = release.lock().unwrap().send(());
            })
            .build()
            .unwrap();
        let guard = BlocksOnDrop(released);
        let (polled, first_poll) = futures_channel::oneshot::channel::<()>();
        let task = rt::task::Builder::new()
            .name("flushes on drop")
            .spawn_on(
                async move {
                    let _guard = guard;
                    polled.send(()).unwrap();
                    std::future::pending::<()>().await
                },
                rt.handle(),
            )
            .unwrap();
        let id = task.id();
        rt.block_on(first_poll).unwrap();
        drop(rt);
        let reports = reports.lock().unwrap();
        assert_eq!(reports.len(), 1, "{kind}: {reports:#?}");
        let report = &reports[0];
        assert!(report.is_shutdown_drop(), "{kind}: {report:#?}");
        assert_eq!(report.id(), id);
        assert_eq!(report.name(), Some("flushes on drop"));
        assert_eq!(report.worker(), None);
        assert!(report.to_string().contains("destructor"), "{report}");
    }
}

/// A slow-poll callback that gives up on its runtime and shuts it down
/// (a supervisor's) runs on the watchdog's own thread, which the shutdown
/// stops: it is not joined from itself, and the shutdown goes through to
/// the blocking pool. Before, `shutdown_background` panicked there
/// ("failed to join thread: Resource deadlock avoided") after the workers
/// stopped and before the pool did, which then still ran new jobs.
#[test]
fn a_callback_may_shut_its_runtime_down() {
    type Slot = Arc<Mutex<Option<rt::runtime::Runtime>>>;
    let slot: Slot = Arc::default();
    let (outcome_tx, outcome_rx) = mpsc::channel();
    let mut builder = Builder::new_multi_thread();
    builder.worker_threads(2).slow_poll_threshold(THRESHOLD);
    let callback_slot = slot.clone();
    let outcome_tx = Mutex::new(outcome_tx);
    builder.on_slow_poll(move |_: &SlowPoll| {
        if let Some(rt) = callback_slot.lock().unwrap().take() {
            let outcome =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| rt.shutdown_background()));
            let outcome = outcome.map_err(|payload| support::panic_message(&*payload));
            outcome_tx.lock().unwrap().send(outcome).unwrap();
        }
    });
    let rt = builder.build().unwrap();
    let handle = rt.handle().clone();
    *slot.lock().unwrap() = Some(rt);
    let (release, released) = mpsc::channel::<()>();
    let stuck = handle.spawn(async move {
        // Blocks its worker until the test lets it go.
        let _ = released.recv();
    });
    let outcome = outcome_rx
        .recv_timeout(HANG)
        .expect("no slow poll reported");
    assert_eq!(outcome, Ok(()));
    let job = handle.spawn_blocking(|| ());
    let error = futures::executor::block_on(job).unwrap_err();
    assert!(error.is_cancelled(), "the pool was not shut down: {error}");
    // Its poll, the one the callback gave up on, still ends.
    release.send(()).unwrap();
    futures::executor::block_on(stuck).unwrap();
}

/// The child of `a_leak_report_of_many_tasks_names_the_spawn_leaking_them`.
#[test]
fn child_leaks_a_task_per_turn() {
    if !in_child() {
        return;
    }
    let rt = Builder::new_current_thread().build().unwrap();
    for _ in 0..200 {
        rt.spawn(std::future::pending::<()>());
    }
    drop(rt);
}

/// A loop that leaks a task per turn leaves hundreds: the leak report
/// lists the first ones and counts them all by spawn location, which names
/// the loop's spawn.
#[test]
fn a_leak_report_of_many_tasks_names_the_spawn_leaking_them() {
    if in_child() {
        return;
    }
    let stderr = run_child("child_leaks_a_task_per_turn", true);
    assert!(
        stderr.contains("runtime dropped with 200 task(s) still pending"),
        "{stderr}"
    );
    assert!(stderr.contains("     ...  (150 more)\n"), "{stderr}");
    let rows = stderr
        .lines()
        .filter(|line| line.contains("pending  "))
        .count();
    assert!(rows <= 50, "{rows} rows:\n{stderr}");
    assert!(
        stderr.contains("200 task(s), by spawn location:\n     200  runtime/tests/rt_watchdog.rs:"),
        "{stderr}"
    );
}

/// Every worker of a multi-thread runtime blocked by its own task: the
/// report of the stall that leaves no worker free says that nothing of
/// the runtime runs; the one before it (another worker still free) does
/// not.
#[test]
fn the_stall_that_blocks_the_last_free_worker_says_so() {
    let reports = Arc::new(Mutex::new(Vec::<SlowPoll>::new()));
    let (release_a, released_a) = mpsc::channel::<()>();
    let (release_b, released_b) = mpsc::channel::<()>();
    let releases = Mutex::new(vec![release_a, release_b]);
    let on_slow_poll = reports.clone();
    let rt = Builder::new_multi_thread()
        .worker_threads(2)
        .slow_poll_threshold(THRESHOLD)
        .on_slow_poll(move |report: &SlowPoll| {
            let mut reports = on_slow_poll.lock().unwrap();
            reports.push(report.clone());
            if reports.len() == 2 {
                for release in releases.lock().unwrap().drain(..) {
                    release.send(()).unwrap();
                }
            }
        })
        .build()
        .unwrap();
    let blocks = |released: mpsc::Receiver<()>| async move {
        released
            .recv_timeout(HANG)
            .expect("both workers blocked were reported")
    };
    let a = rt.spawn(blocks(released_a));
    let b = rt.spawn(blocks(released_b));
    rt.block_on(async {
        a.await.unwrap();
        b.await.unwrap();
    });
    let reports = reports.lock().unwrap();
    assert_eq!(reports.len(), 2, "{reports:#?}");
    assert!(!reports[0].all_workers_blocked(), "{}", reports[0]);
    assert!(reports[1].all_workers_blocked(), "{}", reports[1]);
    assert_ne!(reports[0].worker(), reports[1].worker());
    assert!(
        !reports[0]
            .to_string()
            .contains("workers of the runtime are now blocked"),
        "{}",
        reports[0]
    );
    let last = reports[1].to_string();
    assert!(
        last.contains("all 2 workers of the runtime are now blocked, so no task runs"),
        "{last}"
    );
}

/// A current-thread runtime has one worker: its stuck task blocks all of
/// the runtime, and the report says so.
#[test]
fn a_stall_on_a_current_thread_runtime_blocks_all_of_it() {
    let (report_tx, reported) = mpsc::channel();
    let (release, released) = mpsc::channel::<()>();
    let rt = Builder::new_current_thread()
        .slow_poll_threshold(THRESHOLD)
        .on_slow_poll(move |report: &SlowPoll| {
            report_tx.send(report.clone()).unwrap();
            release.send(()).unwrap();
        })
        .build()
        .unwrap();
    let stuck = rt.spawn(async move { released.recv_timeout(HANG).unwrap() });
    rt.block_on(stuck).unwrap();
    let report = reported.recv_timeout(HANG).unwrap();
    assert!(report.all_workers_blocked(), "{report}");
    assert!(
        report
            .to_string()
            .contains("the runtime's only worker, so no other task"),
        "{report}"
    );
}

/// The child of `a_panic_whose_handle_was_dropped_is_reported_with_its_task`.
#[test]
fn child_drops_the_handles_of_panicking_tasks() {
    if !in_child() {
        return;
    }
    let rt = one_worker();
    // The handle dropped before the panic.
    let (go_tx, go) = futures::channel::oneshot::channel::<()>();
    let detached = rt::task::Builder::new()
        .name("detached, panics")
        .spawn_on(
            async move {
                go.await.unwrap();
                panic!("early boom");
            },
            rt.handle(),
        )
        .unwrap();
    drop(detached);
    go_tx.send(()).unwrap();
    support::wait_until("the detached task ended", || rt.handle().dump().is_empty());
    // The handle dropped after the panic, unread.
    let late = rt::task::Builder::new()
        .name("handle dropped later")
        .spawn_on(async { panic!("late boom") }, rt.handle())
        .unwrap();
    support::wait_until("the task panicked", || {
        let dump = rt.handle().dump();
        dump.len() == 1 && dump.tasks()[0].state() == TaskState::Complete
    });
    drop(late);
    // A panic its handle reads is not lost.
    let read = rt::task::Builder::new()
        .name("panic read")
        .spawn_on(async { panic!("read boom") }, rt.handle())
        .unwrap();
    assert!(rt.block_on(read).unwrap_err().is_panic());
    drop(rt);
}

/// The child of `a_panic_whose_handle_was_dropped_is_reported_with_its_task`
/// on a current-thread runtime, whose tasks run inside `block_on`.
#[test]
fn child_drops_the_handles_of_panicking_tasks_on_one_thread() {
    if !in_child() {
        return;
    }
    let rt = Builder::new_current_thread().build().unwrap();
    rt.block_on(async {
        let handle = rt::runtime::Handle::current();
        let detached = rt::task::Builder::new()
            .name("detached, panics")
            .spawn(async { panic!("early boom") })
            .unwrap();
        drop(detached);
        let late = rt::task::Builder::new()
            .name("handle dropped later")
            .spawn(async { panic!("late boom") })
            .unwrap();
        // Each yield lets the queued tasks run; a bound turns a hang into
        // a failure.
        for _ in 0..1000 {
            let dump = handle.dump();
            if dump.len() == 1 && dump.tasks()[0].state() == TaskState::Complete {
                break;
            }
            rt::task::yield_now().await;
        }
        assert_eq!(handle.dump().tasks()[0].state(), TaskState::Complete);
        drop(late);
    });
}

/// A task that panics after its `JoinHandle` was dropped (or whose
/// handle is dropped without reading the panic) is reported, with its
/// name and spawn location, which the panic hook's message lacks; a panic
/// read from its handle is not.
#[test]
fn a_panic_whose_handle_was_dropped_is_reported_with_its_task() {
    if in_child() {
        return;
    }
    for child in [
        "child_drops_the_handles_of_panicking_tasks",
        "child_drops_the_handles_of_panicking_tasks_on_one_thread",
    ] {
        assert_lost_panics_reported(child);
    }
}

fn assert_lost_panics_reported(child: &str) {
    let stderr = run_child(child, true);
    let lost = |name: &str| {
        stderr
            .lines()
            .find(|line| line.starts_with("rt: task") && line.contains(name))
            .unwrap_or_else(|| panic!("no report of `{name}`:\n{stderr}"))
            .to_owned()
    };
    for name in ["(detached, panics)", "(handle dropped later)"] {
        let report = lost(name);
        assert!(
            report.contains("spawned at runtime/tests/rt_watchdog.rs:"),
            "{report}"
        );
        assert!(
            report.contains("panicked, and its `JoinHandle` was dropped without reading the panic"),
            "{report}"
        );
    }
    assert!(!stderr.contains("(panic read)"), "{stderr}");
    let quiet = run_child(child, false);
    assert!(!quiet.contains("rt: task"), "{quiet}");
}

/// The child of `a_poll_that_loses_the_tasks_waker_is_reported`: one
/// task returns `Pending` keeping no waker, another waits on a channel.
#[test]
fn child_loses_a_tasks_waker() {
    if !in_child() {
        return;
    }
    let rt = one_worker();
    let (_tx, rx) = rt::sync::oneshot::channel::<()>();
    let named = rt::task::Builder::new;
    let lost = named()
        .name("forgets its waker")
        .spawn_on(support::Forgetful(()), rt.handle());
    let waiting = named().name("waits on a channel").spawn_on(rx, rt.handle());
    support::wait_until("both tasks were polled", || {
        let dump = rt.handle().dump();
        dump.iter()
            .all(|task| task.state() == TaskState::Idle && task.polls() == 1)
    });
    drop((lost, waiting, rt));
}

/// A task whose poll returns `Pending` with no waker of it left is
/// reported at once, with its name and spawn location, as it will never
/// be polled again; a task waiting on a channel is not; without the
/// watchdog, nothing is.
#[test]
fn a_poll_that_loses_the_tasks_waker_is_reported() {
    if in_child() {
        return;
    }
    let stderr = run_child("child_loses_a_tasks_waker", true);
    let reports: Vec<&str> = stderr
        .lines()
        .filter(|line| line.contains("no waker of it is left"))
        .collect();
    assert_eq!(reports.len(), 1, "{stderr}");
    assert!(reports[0].starts_with("rt: task "), "{stderr}");
    assert!(
        reports[0].contains("(forgets its waker) spawned at runtime/tests/rt_watchdog.rs:"),
        "{stderr}"
    );
    assert!(
        reports[0].contains("it will never be polled again"),
        "{stderr}"
    );
    let quiet = run_child("child_loses_a_tasks_waker", false);
    assert!(!quiet.contains("no waker"), "{quiet}");
}

/// The child of `the_end_of_a_reported_stall_is_reported_with_how_long_it_lasted`:
/// a task blocks its worker reading this process's stdin until the parent,
/// having seen the stall reported, writes a line; the runtime then lives
/// on until the parent closes stdin.
#[test]
fn child_task_blocks_until_a_stdin_line() {
    if !in_child() {
        return;
    }
    let rt = one_worker();
    let stuck = rt::task::Builder::new()
        .name("reads stdin")
        .spawn_on(
            async {
                let mut line = String::new();
                std::io::stdin().read_line(&mut line).unwrap();
            },
            rt.handle(),
        )
        .unwrap();
    rt.block_on(stuck).unwrap();
    let mut rest = String::new();
    std::io::stdin().read_line(&mut rest).unwrap();
    drop(rt);
}

/// A stall reported on stderr is reported again when the poll returns,
/// with how long it lasted (the first report, at the threshold, cannot
/// say), while the runtime runs on.
#[test]
fn the_end_of_a_reported_stall_is_reported_with_how_long_it_lasted() {
    use std::io::Write;
    if in_child() {
        return;
    }
    let (mut child, lines) = child_with_stderr_lines("child_task_blocks_until_a_stdin_line", true);
    let next = |prefix: &str| loop {
        let line = lines
            .recv_timeout(HANG)
            .unwrap_or_else(|_| panic!("no line starting with {prefix:?}"));
        if line.starts_with(prefix) {
            break line;
        }
    };
    let stalled = next("rt: slow poll:");
    assert!(stalled.contains("(reads stdin)"), "{stalled}");
    writeln!(child.stdin.as_mut().unwrap()).unwrap();
    let ended = next("rt: slow poll ended:");
    drop(child.stdin.take());
    assert!(child.wait().unwrap().success());
    let task = format!("(reads stdin) spawned at {}:", file!());
    assert!(ended.contains(&task), "{ended}");
    assert!(
        ended.contains(": its poll returned after about "),
        "{ended}"
    );
    assert!(ended.contains("reported above at"), "{ended}");
}

/// The children of `a_block_on_future_that_loses_its_waker_is_reported`:
/// the future passed to `block_on` returns `Pending` keeping no waker, on
/// a multi-thread runtime and on a current-thread one; the thread then
/// waits for good, until the parent kills the process.
#[test]
fn child_block_on_loses_its_waker_on_multi_thread() {
    if in_child() {
        one_worker().block_on(support::Forgetful(()));
        unreachable!("nothing can wake the future");
    }
}

#[test]
fn child_block_on_loses_its_waker_on_current_thread() {
    if in_child() {
        let rt = Builder::new_current_thread().build().unwrap();
        rt.block_on(support::Forgetful(()));
        unreachable!("nothing can wake the future");
    }
}

/// The children of `a_block_on_future_that_loses_its_waker_is_reported`
/// whose future hands a clone of its waker to a task that drops it without
/// a wake: on a current-thread runtime the task runs after the future's
/// poll returned (the last clone's drop is what is seen), on a
/// multi-thread one on a worker, during the poll or after it.
#[test]
fn child_block_on_loses_its_waker_later_on_multi_thread() {
    if in_child() {
        one_worker().block_on(hands_its_waker_to_a_task_that_drops_it());
        unreachable!("nothing can wake the future");
    }
}

#[test]
fn child_block_on_loses_its_waker_later_on_current_thread() {
    if in_child() {
        let rt = Builder::new_current_thread().build().unwrap();
        rt.block_on(hands_its_waker_to_a_task_that_drops_it());
        unreachable!("nothing can wake the future");
    }
}

/// Returns `Pending` for good, having handed a clone of its waker to a
/// task that drops it unwoken.
async fn hands_its_waker_to_a_task_that_drops_it() {
    std::future::poll_fn(|cx| {
        let waker = cx.waker().clone();
        rt::spawn(async move { drop(waker) });
        Poll::<()>::Pending
    })
    .await
}

/// The future passed to `block_on` that returns `Pending` with no waker of
/// it left, or whose last waker is dropped later without a wake, is
/// reported at once, naming the `block_on` call and its thread: on a
/// multi-thread runtime (a plain thread waiting) and a current-thread one
/// (driving the tasks).
#[test]
fn a_block_on_future_that_loses_its_waker_is_reported() {
    if in_child() {
        return;
    }
    for kind in [
        "multi_thread",
        "current_thread",
        "later_on_multi_thread",
        "later_on_current_thread",
    ] {
        let name = match kind.strip_prefix("later_on_") {
            Some(kind) => format!("child_block_on_loses_its_waker_later_on_{kind}"),
            None => format!("child_block_on_loses_its_waker_on_{kind}"),
        };
        let (child, lines) = child_with_stderr_lines(&name, true);
        let child = KilledOnDrop(child);
        let report = loop {
            let line = lines
                .recv_timeout(HANG)
                .unwrap_or_else(|_| panic!("{kind}: no report of the lost waker"));
            if line.contains("no waker of it is left") {
                break line;
            }
        };
        drop(child);
        assert!(
            report.starts_with(
                "rt: the future passed to `block_on` (or the body of \
                 `#[rt::main]`/`#[rt::test]`) at runtime/tests/rt_watchdog.rs:"
            ),
            "{kind}: {report}"
        );
        assert!(
            report.contains("will wait forever") && report.contains("must hand `cx.waker()`"),
            "{kind}: {report}"
        );
    }
}

/// The child of `a_block_on_that_unwound_is_not_reported_as_waiting_forever`:
/// a current-thread `block_on` unwinds after a `Pending` poll (a user's
/// waker on a `JoinHandle` panics when the task completes, in the
/// scheduler's loop) while a thread holds a clone of the future's waker,
/// which it drops unwoken once `block_on` has unwound.
#[test]
fn child_block_on_unwinds_with_a_clone_held_elsewhere() {
    if !in_child() {
        return;
    }
    struct Panicky;
    impl std::task::Wake for Panicky {
        fn wake(self: Arc<Self>) {
            panic!("a user's waker that panics when woken");
        }
    }
    let rt = Builder::new_current_thread().build().unwrap();
    let (release, released) = mpsc::channel::<()>();
    let mut released = Some(released);
    let mut holder = None;
    let unwound = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut task = None;
        rt.block_on(std::future::poll_fn(|cx| {
            if task.is_none() {
                let clone = cx.waker().clone();
                let released = released.take().unwrap();
                holder = Some(std::thread::spawn(move || {
                    released.recv().unwrap();
                    drop(clone);
                }));
                let mut spawned = rt::spawn(async {});
                let panicky = Waker::from(Arc::new(Panicky));
                let polled = std::pin::Pin::new(&mut spawned)
                    .poll(&mut std::task::Context::from_waker(&panicky));
                assert!(polled.is_pending());
                task = Some(spawned);
            }
            Poll::<()>::Pending
        }));
    }));
    assert!(unwound.is_err(), "block_on returned");
    // The clone's drop, after `block_on` is gone: no report.
    release.send(()).unwrap();
    holder.unwrap().join().unwrap();
    eprintln!("the clone was dropped");
}

/// A `block_on` that unwound (here after a `Pending` poll, a clone of its
/// future's waker held elsewhere) is not waiting for anything: the
/// clone's later drop is not reported as a lost waker (it was, as "will
/// wait forever", when the drop of `block_on`'s own waker during the
/// unwind was taken for the last clone's).
#[test]
fn a_block_on_that_unwound_is_not_reported_as_waiting_forever() {
    if in_child() {
        return;
    }
    let stderr = run_child("child_block_on_unwinds_with_a_clone_held_elsewhere", true);
    assert!(stderr.contains("the clone was dropped"), "{stderr}");
    assert!(!stderr.contains("no waker of it is left"), "{stderr}");
}

/// A child process that cannot end by itself: killed when the test is
/// done with it, or fails.
struct KilledOnDrop(std::process::Child);

impl Drop for KilledOnDrop {
    fn drop(&mut self) {
        // Fails only if it has exited already (a child that failed).
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The child of `a_block_on_future_keeping_its_waker_is_not_reported`.
#[test]
fn child_block_on_keeps_its_waker() {
    if !in_child() {
        return;
    }
    let multi = Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let current = Builder::new_current_thread().enable_all().build().unwrap();
    for rt in [&multi, &current] {
        rt.block_on(async {
            // A channel another thread completes.
            let (tx, rx) = rt::sync::oneshot::channel();
            std::thread::spawn(move || tx.send(7).unwrap());
            assert_eq!(rx.await.unwrap(), 7);
            // A yield: the future wakes itself.
            rt::task::yield_now().await;
            // A task it joins.
            let (go, wait) = rt::sync::oneshot::channel::<()>();
            let task = rt::spawn(async move { wait.await.unwrap() });
            rt::task::yield_now().await;
            go.send(()).unwrap();
            task.await.unwrap();
            // A timer beside a future that keeps no waker: the timer
            // holds one.
            rt::select! {
                () = support::Forgetful(()) => unreachable!(),
                () = rt::time::sleep(Duration::from_millis(1)) => {}
            }
            // Clones dropped after the poll: one unwoken while another is
            // kept, which a thread then wakes by reference and drops.
            let (clones, held) = std::sync::mpsc::channel::<Waker>();
            let holder = std::thread::spawn(move || {
                let silent = held.recv().unwrap();
                let kept = held.recv().unwrap();
                drop(silent);
                kept.wake_by_ref();
                drop(kept);
            });
            let mut sent = false;
            std::future::poll_fn(|cx| {
                if std::mem::replace(&mut sent, true) {
                    return Poll::Ready(());
                }
                clones.send(cx.waker().clone()).unwrap();
                clones.send(cx.waker().clone()).unwrap();
                Poll::Pending
            })
            .await;
            holder.join().unwrap();
        });
    }
}

/// Futures passed to `block_on` that wait in the usual ways (a channel, a
/// yield, a joined task, a timer beside a forgetful future, clones woken
/// or dropped on another thread after the poll while one is left) keep a
/// waker somewhere and are not reported.
#[test]
fn a_block_on_future_keeping_its_waker_is_not_reported() {
    if in_child() {
        return;
    }
    let stderr = run_child("child_block_on_keeps_its_waker", true);
    assert!(!stderr.contains("no waker"), "{stderr}");
}
