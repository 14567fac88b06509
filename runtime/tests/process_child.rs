//! `rt::process`: pipes, exit statuses, kill, kill_on_drop, outputs and
//! errors, on both schedulers.

mod support;

use rt::io::{AsyncReadExt, AsyncWriteExt};
use rt::process::Command;
use std::io;
use std::os::unix::process::ExitStatusExt;
use std::process::Stdio;
use std::time::{Duration, Instant};
use support::{Checksum, Pattern, expect_panic, on_both};

/// Whether process `pid` still exists in any state (a zombie included).
fn process_exists(pid: u32) -> bool {
    std::path::Path::new(&format!("/proc/{pid}")).exists()
}

/// Keeps the runtime turning until process `pid` is gone (reaped), so a
/// background reaper on a current-thread runtime gets to run. The deadline
/// only turns a hang into a failure.
async fn until_reaped(pid: u32) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while process_exists(pid) {
        assert!(Instant::now() < deadline, "child {pid} was never reaped");
        rt::task::yield_now().await;
    }
}

#[test]
fn one_mebibyte_echoes_through_cat_while_it_is_written() {
    const LEN: usize = 1 << 20;
    on_both(|| async {
        let mut child = Command::new("cat")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let mut stdout = child.stdout.take().unwrap();
        // Far more than a pipe holds: the write only finishes because the
        // read runs at the same time.
        let writer = rt::spawn(async move {
            let mut pattern = Pattern::new(7);
            let mut expected = Checksum::new();
            let mut chunk = vec![0; 64 * 1024 + 3];
            let mut left = LEN;
            while left > 0 {
                let n = left.min(chunk.len());
                pattern.fill(&mut chunk[..n]);
                expected.update(&chunk[..n]);
                stdin.write_all(&chunk[..n]).await.unwrap();
                left -= n;
            }
            stdin.close().await.unwrap();
            expected
        });
        let mut seen = Checksum::new();
        let mut total = 0;
        let mut buf = vec![0; 32 * 1024];
        loop {
            let n = stdout.read(&mut buf).await.unwrap();
            if n == 0 {
                break;
            }
            seen.update(&buf[..n]);
            total += n;
        }
        assert_eq!(total, LEN);
        assert_eq!(seen, writer.await.unwrap());
        assert!(child.wait().await.unwrap().success());
    });
}

#[test]
fn exit_codes_and_signals_are_reported() {
    on_both(|| async {
        for code in [0, 1, 2, 42, 255] {
            let status = Command::new("sh")
                .args(["-c", &format!("exit {code}")])
                .status()
                .await
                .unwrap();
            assert_eq!(status.code(), Some(code));
            assert_eq!(status.signal(), None);
            assert_eq!(status.success(), code == 0);
        }
        // Not SIGINT or SIGQUIT: a suite started as a background job of a
        // non-interactive shell inherits them ignored, and so does `sh`.
        for signal in [libc::SIGTERM, libc::SIGUSR1, libc::SIGUSR2] {
            let status = Command::new("sh")
                .args(["-c", &format!("kill -{signal} $$")])
                .status()
                .await
                .unwrap();
            assert_eq!(status.signal(), Some(signal));
            assert_eq!(status.code(), None);
        }
    });
}

#[test]
fn kill_stops_the_child_and_reaps_it() {
    on_both(|| async {
        let mut child = Command::new("sleep").arg("1000").spawn().unwrap();
        let pid = child.id().unwrap();
        assert_eq!(child.try_wait().unwrap(), None);
        child.kill().await.unwrap();
        assert!(!process_exists(pid), "killed child left as a zombie");
        let status = child.try_wait().unwrap().unwrap();
        assert_eq!(status.signal(), Some(libc::SIGKILL));
        assert_eq!(child.id(), None);
        // Killing and waiting again are harmless.
        child.start_kill().unwrap();
        child.kill().await.unwrap();
        assert_eq!(child.wait().await.unwrap(), status);
    });
}

#[test]
fn a_dropped_child_with_kill_on_drop_is_killed_and_reaped() {
    on_both(|| async {
        let child = Command::new("sleep")
            .arg("1000")
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let pid = child.id().unwrap();
        drop(child);
        until_reaped(pid).await;

        // The future of `output` owns its child: dropping it kills too.
        let mut command = Command::new("sleep");
        command.arg("1001").kill_on_drop(true);
        let output = Box::pin(command.output());
        let mut output = output;
        assert!(futures::poll!(output.as_mut()).is_pending());
        let pid = child_of_ours_running(b"sleep\x001001\x00");
        drop(output);
        until_reaped(pid).await;
    });
}

/// The pid of our child whose command line (NUL-separated) is `cmdline`;
/// the arguments are unique to one test.
///
/// Looked for until it shows: `spawn` returns once the child's exec has
/// passed its point of no return, and the kernel records where the new
/// image's arguments are only after that, so for a moment the child's
/// `/proc/<pid>/cmdline` reads empty. The deadline only turns a missing
/// child into a failure.
fn child_of_ours_running(cmdline: &[u8]) -> u32 {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let children = children_of_ours_running(cmdline);
        match children[..] {
            [pid] => return pid,
            [] if Instant::now() < deadline => std::thread::yield_now(),
            _ => panic!("one child running {cmdline:?}, found {children:?}"),
        }
    }
}

fn children_of_ours_running(cmdline: &[u8]) -> Vec<u32> {
    let me = std::process::id();
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let parent = std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|stat| {
                    // The fields after the command name, which may hold
                    // spaces and parentheses itself.
                    let after = stat.rsplit(')').next()?;
                    after.split_whitespace().nth(1)?.parse::<u32>().ok()
                });
            parent == Some(me)
                && std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| c == cmdline)
        })
        .collect()
}

#[test]
fn a_dropped_child_without_kill_on_drop_runs_on_and_is_reaped_when_it_exits() {
    on_both(|| async {
        let mut child = Command::new("cat")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        let pid = child.id().unwrap();
        let stdin = child.stdin.take().unwrap();
        drop(child);
        // Still running: it waits for its input to end.
        assert!(process_exists(pid));
        drop(stdin);
        until_reaped(pid).await;
    });
}

#[test]
fn wait_with_output_reads_stdout_and_stderr_at_once() {
    on_both(|| async {
        // More than a pipe holds on stderr before anything on stdout: a
        // reader that finished stdout first would deadlock.
        let child = Command::new("sh")
            .args(["-c", "seq 40001 80000 >&2; seq 1 40000; exit 7"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let output = child.wait_with_output().await.unwrap();
        assert_eq!(output.status.code(), Some(7));
        let expected = |range: std::ops::RangeInclusive<u32>| {
            range.map(|n| format!("{n}\n")).collect::<String>()
        };
        assert_eq!(
            String::from_utf8(output.stdout).unwrap(),
            expected(1..=40000)
        );
        assert_eq!(
            String::from_utf8(output.stderr).unwrap(),
            expected(40001..=80000)
        );
    });
}

#[test]
fn output_captures_both_streams_and_gives_an_empty_stdin() {
    on_both(|| async {
        let output = Command::new("sh")
            .args(["-c", "cat; echo out; echo err >&2"])
            .output()
            .await
            .unwrap();
        assert!(output.status.success());
        assert_eq!(output.stdout, b"out\n");
        assert_eq!(output.stderr, b"err\n");
    });
}

#[test]
fn a_missing_program_is_the_os_not_found_error_as_std() {
    // std's (and tokio's) error: `NotFound` with the OS error kept, so a
    // caller can match `raw_os_error()` (ENOENT), not only the kind.
    let std_error = std::process::Command::new("rt-no-such-program")
        .spawn()
        .unwrap_err();
    let enoent = std_error.raw_os_error();
    assert!(enoent.is_some(), "{std_error:?}");
    on_both(move || async move {
        let error = Command::new("rt-no-such-program")
            .output()
            .await
            .unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::NotFound);
        assert_eq!(error.raw_os_error(), enoent, "{error:?}");

        let error = Command::new("/no/such/dir/program").spawn().unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::NotFound);
        assert_eq!(error.raw_os_error(), enoent, "{error:?}");

        let error = Command::new("true")
            .current_dir("/no/such/dir")
            .status()
            .await
            .unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::NotFound);
        assert_eq!(error.raw_os_error(), enoent, "{error:?}");
    });
}

#[test]
fn environment_arguments_and_directory_reach_the_child() {
    on_both(|| async {
        let output = Command::new("sh")
            .args([
                "-c",
                "echo \"$1:$RT_TEST_VAR:$(pwd):${HOME:-none}\"",
                "sh",
                "arg",
            ])
            .env("RT_TEST_VAR", "value")
            .env_remove("HOME")
            .current_dir("/")
            .output()
            .await
            .unwrap();
        assert_eq!(output.stdout, b"arg:value:/:none\n");

        let output = Command::new("/usr/bin/env")
            .env_clear()
            .envs([("ONLY", "this")])
            .output()
            .await
            .unwrap();
        assert_eq!(output.stdout, b"ONLY=this\n");
    });
}

#[test]
fn an_abandoned_wait_loses_nothing() {
    on_both(|| async {
        let mut child = Command::new("sleep").arg("1000").spawn().unwrap();
        {
            let wait = child.wait();
            futures::pin_mut!(wait);
            assert!(futures::poll!(wait.as_mut()).is_pending());
        }
        child.start_kill().unwrap();
        assert_eq!(child.wait().await.unwrap().signal(), Some(libc::SIGKILL));
    });
}

#[test]
fn several_tasks_wait_for_their_own_children_concurrently() {
    on_both(|| async {
        let tasks: Vec<_> = (0..20)
            .map(|code| {
                rt::spawn(async move {
                    let mut child = Command::new("sh")
                        .args(["-c", &format!("exit {code}")])
                        .spawn()
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

#[test]
fn a_closed_stdin_rejects_writes_and_a_child_sees_its_end() {
    on_both(|| async {
        let mut child = Command::new("wc")
            .arg("-c")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(b"12345").await.unwrap();
        stdin.close().await.unwrap();
        let error = stdin.write_all(b"more").await.unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::BrokenPipe);
        let output = child.wait_with_output().await.unwrap();
        assert_eq!(String::from_utf8(output.stdout).unwrap().trim(), "5");
    });
}

/// A field of `/proc/<pid>/status` (`State`, `TracerPid`, ...).
fn proc_status(pid: u32, field: &str) -> String {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .unwrap_or_else(|| panic!("no {field} in /proc/{pid}/status"));
    line.trim().to_owned()
}

/// A tracer that is not the parent: attaches to the process given as its
/// argument (`PTRACE_SEIZE`, no options: a `SIGKILL` kills the tracee at
/// once, with no stop), prints `attached`, and collects the tracee's exit
/// only when a line arrives on its stdin.
const TRACER: &str = r#"
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
pid = int(sys.argv[1])
if libc.ptrace(0x4206, pid, None, None) != 0:
    sys.exit("PTRACE_SEIZE failed: " + os.strerror(ctypes.get_errno()))
print("attached", flush=True)
sys.stdin.readline()
_, status = os.waitpid(pid, 0x40000000)
sys.exit(0 if os.WIFSIGNALED(status) else "unexpected status %d" % status)
"#;

/// A traced child's exit goes to its tracer first; until the tracer has
/// collected it the parent's `waitpid` finds no status, though the pidfd
/// already reports the exit (tokio's `process_issue_7144`, which runs
/// children under `strace`). `wait` waits for the status (the kernel sends
/// the parent `SIGCHLD` once the tracer lets the exit through) instead of
/// failing. The tracer here holds the exit until told, so the window is
/// not left to chance.
#[test]
fn a_traced_child_is_reaped_once_its_tracer_lets_the_exit_through() {
    use std::io::{BufRead, Write};
    if std::process::Command::new("python3")
        .arg("-V")
        .output()
        .is_err()
    {
        eprintln!("not run: needs `python3` (for a tracer that is not this process)");
        return;
    }
    on_both(|| async {
        let mut child = Command::new("sleep").arg("600").spawn().unwrap();
        let pid = child.id().unwrap();
        let mut tracer = std::process::Command::new("python3")
            .args(["-c", TRACER, &pid.to_string()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut attached = String::new();
        std::io::BufReader::new(tracer.stdout.take().unwrap())
            .read_line(&mut attached)
            .unwrap();
        assert_eq!(attached, "attached\n");
        assert_eq!(proc_status(pid, "TracerPid"), tracer.id().to_string());

        child.start_kill().unwrap();
        let deadline = Instant::now() + Duration::from_secs(30);
        while !proc_status(pid, "State").starts_with('Z') {
            assert!(Instant::now() < deadline, "the killed child never exited");
            rt::task::yield_now().await;
        }
        // The pidfd is readable now; the status is not there yet.
        let waiter = rt::spawn(async move { child.wait().await });
        for _ in 0..4 {
            rt::task::yield_now().await;
        }
        assert!(
            !waiter.is_finished(),
            "the wait ended while the tracer held the exit"
        );
        assert!(process_exists(pid), "nobody could reap it yet");

        tracer.stdin.take().unwrap().write_all(b"go\n").unwrap();
        assert!(
            tracer.wait().unwrap().success(),
            "the tracer collected the exit"
        );
        let status = waiter.await.unwrap().unwrap();
        assert_eq!(status.signal(), Some(libc::SIGKILL));
        assert!(!process_exists(pid), "reaped");
    });
}

/// A child spawned on one runtime and awaited on another after the first
/// shut down (tokio's `process_change_of_runtime`): the wait watches the
/// child again from the runtime it runs on, instead of failing with the
/// first runtime's shutdown.
#[test]
fn a_child_spawned_on_a_runtime_that_shut_down_is_awaited_on_the_next() {
    use support::{Kind, poll_once};
    let pairs = [
        (Kind::CurrentThread, Kind::MultiThread(2)),
        (Kind::MultiThread(2), Kind::CurrentThread),
    ];
    for (first, second) in pairs {
        let (mut child, stdin) = first.build().block_on(async {
            let mut child = Command::new("cat")
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .spawn()
                .unwrap();
            let stdin = child.stdin.take().unwrap();
            (child, stdin)
        });
        // The first runtime is gone; `cat` runs until its stdin closes.
        second.build().block_on(async {
            let mut wait = Box::pin(child.wait());
            assert!(
                poll_once(&mut wait).is_pending(),
                "the wait failed with the first runtime's shutdown ({first:?} then {second:?})"
            );
            drop(stdin);
            assert!(wait.await.unwrap().success());
        });
    }
}

#[test]
fn spawning_outside_a_runtime_panics_naming_the_fix() {
    let message = expect_panic(|| Command::new("true").spawn());
    assert!(message.contains("enable_io"), "{message}");
}

#[test]
fn pipes_of_a_std_child_are_registered_with_from_std() {
    use std::os::fd::{AsFd, AsRawFd};
    on_both(|| async {
        let mut command = Command::new("cat");
        command.kill_on_drop(true);
        let mut child = command
            .into_std()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = rt::process::ChildStdin::from_std(child.stdin.take().unwrap()).unwrap();
        let mut stdout = rt::process::ChildStdout::from_std(child.stdout.take().unwrap()).unwrap();
        assert!(stdin.as_raw_fd() >= 0);
        assert_eq!(stdin.as_fd().as_raw_fd(), stdin.as_raw_fd());
        stdin.write_all(b"through cat").await.unwrap();
        stdin.close().await.unwrap();
        // Closed, it lends a stand-in descriptor (tests/parity_review.rs).
        assert!(stdin.as_raw_fd() >= 0);
        let mut echoed = String::new();
        stdout.read_to_string(&mut echoed).await.unwrap();
        assert_eq!(echoed, "through cat");
        assert!(child.wait().unwrap().success());
    });
}

/// A child dropped on a runtime that then shut down, and which exits
/// later: it is reaped when it exits, although no runtime spawns or waits
/// for anything after (tokio's orphan queue is drained by any later
/// runtime's driver; rt does it from a thread of its own).
#[test]
fn a_child_orphaned_by_its_runtime_is_reaped_when_it_exits() {
    use support::Kind;
    for kind in [Kind::CurrentThread, Kind::MultiThread(2)] {
        let stdin = kind.build().block_on(async {
            let mut child = Command::new("cat")
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .spawn()
                .unwrap();
            let pid = child.id().unwrap();
            (pid, child.stdin.take().unwrap().into_owned_fd().unwrap())
        });
        // The runtime and the `Child` are gone; `cat` runs until its
        // input ends.
        let (pid, stdin) = stdin;
        assert!(process_exists(pid));
        drop(stdin);
        let deadline = Instant::now() + Duration::from_secs(30);
        while process_exists(pid) {
            assert!(
                Instant::now() < deadline,
                "{kind:?}: orphan {pid} was left a zombie"
            );
            std::thread::yield_now();
        }
    }
}

/// Megabytes into stdin while stdout and stderr each carry all of it
/// back (`tee`): the three pipes fill and drain at once, so the transfer
/// only finishes if each is driven on its own.
#[test]
fn stdin_stdout_and_stderr_carry_megabytes_at_once() {
    const LEN: usize = 1 << 20;
    let expected = Pattern::bytes(11, LEN);
    on_both(|| async {
        let mut child = Command::new("tee")
            .arg("/dev/stderr")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let input = expected.clone();
        let writer = rt::spawn(async move {
            stdin.write_all(&input).await.unwrap();
        });
        let output = child.wait_with_output().await.unwrap();
        writer.await.unwrap();
        assert!(output.status.success());
        let expected = Pattern::bytes(11, LEN);
        assert!(
            output.stdout == expected,
            "stdout: {} bytes",
            output.stdout.len()
        );
        assert!(
            output.stderr == expected,
            "stderr: {} bytes",
            output.stderr.len()
        );
    });
}

/// A program's own `SIGCHLD` listener sees its children's exits, and
/// waiting for those children works beside it.
#[test]
fn a_sigchld_listener_of_ours_and_child_waits_work_together() {
    use rt::signal::unix::{SignalKind, signal};
    on_both(|| async {
        let mut sigchld = signal(SignalKind::child()).unwrap();
        let children: Vec<_> = (0..8)
            .map(|code| {
                rt::spawn(async move {
                    let status = Command::new("sh")
                        .args(["-c", &format!("exit {code}")])
                        .status()
                        .await
                        .unwrap();
                    assert_eq!(status.code(), Some(code));
                })
            })
            .collect();
        for child in children {
            child.await.unwrap();
        }
        assert_eq!(sigchld.recv().await, Some(()));
    });
}
