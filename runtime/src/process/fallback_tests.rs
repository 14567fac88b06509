//! The paths the integration tests cannot choose: the `SIGCHLD` watch (on
//! a kernel with pidfds, which the public API always prefers) and the
//! orphan list that catches children whose runtime shut down first.

use super::Command;
use super::reap::{
    WatchKind, adopt_orphan, orphan_count, reaper_thread_running, refuse_reaper_thread,
    sweep_orphans,
};
use crate::runtime::{Builder, Runtime};
use std::os::unix::process::ExitStatusExt;
use std::time::{Duration, Instant};

fn runtimes() -> [Runtime; 2] {
    [
        Builder::new_current_thread().enable_all().build().unwrap(),
        Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap(),
    ]
}

fn process_exists(pid: u32) -> bool {
    std::path::Path::new(&format!("/proc/{pid}")).exists()
}

/// When a wait for a reap gives up: only turns a hang into a failure.
fn deadline() -> Instant {
    Instant::now() + Duration::from_secs(30)
}

#[test]
fn the_sigchld_watch_reports_exits_kills_and_concurrent_children() {
    for rt in runtimes() {
        rt.block_on(async {
            let mut child = Command::new("sh")
                .args(["-c", "exit 9"])
                .spawn_watched(WatchKind::Sigchld)
                .unwrap();
            assert_eq!(child.wait().await.unwrap().code(), Some(9));

            let mut sleeper = Command::new("sleep")
                .arg("1000")
                .spawn_watched(WatchKind::Sigchld)
                .unwrap();
            assert_eq!(sleeper.try_wait().unwrap(), None);
            sleeper.kill().await.unwrap();
            assert_eq!(sleeper.wait().await.unwrap().signal(), Some(libc::SIGKILL));

            // One SIGCHLD may stand for several exits: every waiter
            // re-checks its own child on every delivery.
            let tasks: Vec<_> = (0..30)
                .map(|code| {
                    crate::spawn(async move {
                        let mut child = Command::new("sh")
                            .args(["-c", &format!("exit {code}")])
                            .spawn_watched(WatchKind::Sigchld)
                            .unwrap();
                        child.wait().await.unwrap().code()
                    })
                })
                .collect();
            for (code, task) in tasks.into_iter().enumerate() {
                assert_eq!(task.await.unwrap(), Some(code as i32));
            }
        });
    }
}

#[test]
fn a_dropped_child_on_the_sigchld_watch_is_reaped_in_the_background() {
    for rt in runtimes() {
        rt.block_on(async {
            let child = Command::new("sleep")
                .arg("1000")
                .kill_on_drop(true)
                .spawn_watched(WatchKind::Sigchld)
                .unwrap();
            let pid = child.id().unwrap();
            drop(child);
            let deadline = deadline();
            while process_exists(pid) {
                assert!(Instant::now() < deadline, "child {pid} never reaped");
                crate::task::yield_now().await;
            }
        });
    }
}

#[test]
fn a_child_whose_runtime_shut_down_is_reaped_by_a_later_sweep() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let pid = rt.block_on(async {
        let child = Command::new("sleep").arg("1000").spawn().unwrap();
        let pid = child.id().unwrap();
        // Its reaper task is queued, but never runs: the runtime shuts
        // down first and the reaper hands the child to the orphan list.
        drop(child);
        pid
    });
    drop(rt);
    assert!(orphan_count() >= 1);
    assert!(process_exists(pid));
    // SAFETY: kill(2) takes no pointers; `pid` is our unreaped child, so
    // the pid cannot have been reused.
    assert_eq!(unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) }, 0);
    let deadline = deadline();
    while process_exists(pid) {
        assert!(Instant::now() < deadline, "orphan {pid} never reaped");
        sweep_orphans();
        std::thread::yield_now();
    }
}

/// The OS refuses the `rt-orphan-reaper` thread when a child is orphaned:
/// no panic, the orphan stays listed, and the next sweep (every spawn
/// makes one) starts the thread once the OS allows it, which then reaps
/// the orphan at its exit. The thread used to be tried again only when
/// another child was orphaned: until then an orphan was reaped only if a
/// runtime spawned or waited for a child.
#[test]
fn an_orphan_whose_reaper_thread_was_refused_gets_one_at_the_next_sweep() {
    let child = std::process::Command::new("sleep")
        .arg("1000")
        .spawn()
        .unwrap();
    let pid = child.id();
    refuse_reaper_thread(true);
    adopt_orphan(child);
    refuse_reaper_thread(false);
    assert!(process_exists(pid));
    assert!(orphan_count() >= 1);
    sweep_orphans();
    assert!(
        reaper_thread_running(),
        "an orphan waits with no thread to reap it"
    );
    // SAFETY: kill(2) takes no pointers; `pid` is our unreaped child, so
    // the pid cannot have been reused.
    assert_eq!(unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) }, 0);
    let deadline = deadline();
    while process_exists(pid) {
        assert!(Instant::now() < deadline, "orphan {pid} never reaped");
        std::thread::yield_now();
    }
}

/// On the `SIGCHLD` watch, a `wait` dropped after each number of polls
/// (the delivery it was woken for consumed, or not) loses nothing: the
/// next `wait` returns the real status, and the child is reaped.
#[test]
fn a_dropped_wait_on_the_sigchld_watch_loses_no_exit() {
    use std::future::{Future, poll_fn};
    use std::task::Poll;

    for rt in runtimes() {
        rt.block_on(async {
            for polls in 0..=3 {
                // Exits once `wait` closes its stdin.
                let mut child = Command::new("sh")
                    .args(["-c", "read line; exit 7"])
                    .stdin(std::process::Stdio::piped())
                    .spawn_watched(WatchKind::Sigchld)
                    .unwrap();
                let pid = child.id().unwrap();
                {
                    let mut wait = std::pin::pin!(child.wait());
                    for _ in 0..polls {
                        let polled = poll_fn(|cx| Poll::Ready(wait.as_mut().poll(cx))).await;
                        if let Poll::Ready(status) = polled {
                            assert_eq!(status.unwrap().code(), Some(7));
                            break;
                        }
                        crate::task::yield_now().await;
                    }
                }
                assert_eq!(child.wait().await.unwrap().code(), Some(7), "{polls} polls");
                assert!(!process_exists(pid), "{polls} polls: left a zombie");
            }
        });
    }
}
