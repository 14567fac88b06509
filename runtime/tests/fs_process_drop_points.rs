//! Dropping a file or process future at every await point: a timeout or
//! a `select!` in a server drops whatever it raced, at whatever step it
//! had reached, and an abort from another thread drops a task holding
//! them. As in `net_drop_points.rs`, each test polls a fresh future `n`
//! times (letting the blocking pool or the child get further between
//! polls), drops it, and checks, with tokio's documented behaviour as
//! the oracle, that
//! - a `File` operation that was started is finished by the next one: a
//!   write that returned `Ok` lands, a seek moves the position, bytes a
//!   dropped read took are handed to the next read (so the logical
//!   position never skips them);
//! - no descriptor is left open and the runtime still shuts down;
//! - a child whose wait was dropped is still reaped (no zombie), its
//!   pipes closed, `kill_on_drop` honoured, and a second `wait` returns
//!   its real exit status.

mod support;

use rt::fs::File;
use rt::io::{AsyncReadExt, AsyncSeekExt, AsyncWriteExt};
use rt::process::Command;
use std::collections::BTreeSet;
use std::future::Future;
use std::io::{SeekFrom, Write};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};
use support::{
    Kind, Pattern, WakeCounter, assert_no_deadlock, on_both, poll_then_drop, runtimes, scratch_dir,
    spawn_all_waiting, wait_until,
};

/// What this process's descriptor `fd` points to (`/path`, `pipe:[N]`).
fn fd_target(fd: i32) -> PathBuf {
    std::fs::read_link(format!("/proc/self/fd/{fd}")).unwrap()
}

/// How many of this process's descriptors point to `target`.
fn fds_open_on(target: &Path) -> usize {
    std::fs::read_dir("/proc/self/fd")
        .unwrap()
        .filter_map(|entry| std::fs::read_link(entry.ok()?.path()).ok())
        .filter(|link| link == target)
        .count()
}

/// Waits until no descriptor of ours points to `target` (a blocking job
/// that still holds one ends soon).
fn assert_closed(target: &Path, what: &str) {
    wait_until(&format!("{what} closes {}", target.display()), || {
        fds_open_on(target) == 0
    });
}

/// Drops `file`, then checks that its descriptor closes and that the
/// dropped operations (`what`) left no job in the blocking pool.
fn drop_and_check(file: File, path: &Path, what: &str) {
    drop(file);
    assert_closed(path, "a dropped file");
    assert_pool_idle(what);
}

/// Waits until the current runtime's blocking pool has nothing queued or
/// running: a dropped operation left no job behind.
fn assert_pool_idle(what: &str) {
    let metrics = rt::runtime::Handle::current().metrics();
    wait_until(&format!("the blocking pool is idle after {what}"), || {
        metrics.blocking_queue_depth() == 0
            && metrics.num_idle_blocking_threads() == metrics.num_blocking_threads()
    });
}

/// Drops the runtime, which must shut down with nothing of the test's
/// left to hang it, then removes the test's scratch directory `dir`.
fn finish(rt: rt::runtime::Runtime, dir: &Path) {
    assert_no_deadlock("dropping the runtime", move || drop(rt));
    std::fs::remove_dir_all(dir).unwrap();
}

/// Whether process `pid` still exists in any state (a zombie included).
fn process_exists(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
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

/// The pid of our child whose command line (NUL-separated) is `cmdline`,
/// looked for until the child has exec'd (its `cmdline` reads empty for a
/// moment after `spawn` returns). The deadline only turns a missing child
/// into a failure.
fn child_running(cmdline: &[u8]) -> u32 {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let children: Vec<u32> = std::fs::read_dir("/proc/self/task")
            .unwrap()
            .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("children")).ok())
            .flat_map(|pids| {
                pids.split_whitespace()
                    .filter_map(|pid| pid.parse().ok())
                    .collect::<Vec<u32>>()
            })
            .filter(|pid| std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| c == cmdline))
            .collect();
        match children[..] {
            [pid] => return pid,
            [] => assert!(Instant::now() < deadline, "no child running {cmdline:?}"),
            _ => panic!("one child running {cmdline:?}, found {children:?}"),
        }
        std::thread::yield_now();
    }
}

/// A file of `len` pattern bytes in a fresh scratch directory.
fn pattern_file(test: &str, rt: &rt::runtime::Runtime, len: usize) -> (PathBuf, Vec<u8>) {
    let path = scratch_dir(test, rt).join("data");
    let data = Pattern::bytes(7, len);
    std::fs::write(&path, &data).unwrap();
    (path, data)
}

/// A read started and dropped leaves its bytes for the next read, as
/// tokio's: every byte comes back once, in order, and the position (and
/// where a write lands) is the logical one.
#[test]
#[cfg_attr(miri, ignore = "Miri cannot open files through the blocking pool")]
fn file_read_dropped_at_every_step() {
    for (_, rt) in runtimes() {
        let (path, data) = pattern_file("read_dropped", &rt, 64);
        rt.block_on(async {
            let counter = WakeCounter::new();
            let mut file = File::options()
                .read(true)
                .write(true)
                .open(&path)
                .await
                .unwrap();
            let mut seen = Vec::new();
            for polls in 0..=3 {
                let mut buf = [0u8; 4];
                let read =
                    poll_then_drop(&counter, file.read(&mut buf), polls, async |_| true).await;
                if polls >= 2 {
                    assert!(read.is_some(), "{polls} polls");
                }
                if let Some(n) = read {
                    seen.extend_from_slice(&buf[..n.unwrap()]);
                }
                let mut fresh = [0u8; 4];
                file.read_exact(&mut fresh).await.unwrap();
                seen.extend_from_slice(&fresh);
                assert_eq!(seen, data[..seen.len()], "{polls} polls");
                assert_eq!(
                    file.stream_position().await.unwrap(),
                    seen.len() as u64,
                    "{polls} polls"
                );
            }
            // A read dropped in flight, then a write: it lands at the
            // logical position, not where the read left the OS one.
            let mut buf = [0u8; 4];
            if let Some(n) = poll_then_drop(&counter, file.read(&mut buf), 1, async |_| true).await
            {
                // The pool was quick: it finished within the first poll.
                seen.extend_from_slice(&buf[..n.unwrap()]);
            }
            file.write_all(b"XY").await.unwrap();
            file.flush().await.unwrap();
            let mut expected = data.clone();
            expected[seen.len()..seen.len() + 2].copy_from_slice(b"XY");
            assert_eq!(std::fs::read(&path).unwrap(), expected);
            drop_and_check(file, &path, "dropped reads");
        });
        finish(rt, path.parent().unwrap());
    }
}

/// A `write_all` dropped part way leaves exactly the chunks it started
/// (each write that returned `Ok` is made, as tokio's), and a fresh write
/// follows them.
#[test]
#[cfg_attr(miri, ignore = "Miri cannot open files through the blocking pool")]
fn file_write_all_dropped_at_every_step() {
    for (_, rt) in runtimes() {
        let path = scratch_dir("write_all_dropped", &rt).join("data");
        rt.block_on(async {
            let counter = WakeCounter::new();
            let mut file = File::create(&path).await.unwrap();
            // Four bytes a write: 16 bytes take four polls.
            file.set_max_buf_size(4);
            let mut expected = Vec::new();
            for polls in 0..=5 {
                let chunk = Pattern::bytes(2 * polls as u64 + 1, 16);
                let written =
                    poll_then_drop(&counter, file.write_all(&chunk), polls, async |_| true).await;
                if polls >= 4 {
                    assert!(written.is_some(), "{polls} polls");
                }
                file.write_all(b"fresh").await.unwrap();
                file.flush().await.unwrap();
                // Each poll started a chunk at least (more if the pool
                // finished one within the poll); each started chunk is
                // there, whole, before the fresh write.
                let contents = std::fs::read(&path).unwrap();
                let started = contents.len() - expected.len() - b"fresh".len();
                assert!(
                    started % 4 == 0 && started >= 4 * polls.min(4),
                    "{polls} polls: {started} bytes of the dropped write_all"
                );
                if let Some(result) = written {
                    result.unwrap();
                    assert_eq!(started, 16);
                }
                expected.extend_from_slice(&chunk[..started]);
                expected.extend_from_slice(b"fresh");
                assert_eq!(contents, expected, "{polls} polls");
            }
            drop_and_check(file, &path, "dropped writes");
        });
        finish(rt, path.parent().unwrap());
    }
}

/// A seek dropped once started still moves the position (tokio's does:
/// the next operation completes it), and a fresh operation starts there.
#[test]
#[cfg_attr(miri, ignore = "Miri cannot open files through the blocking pool")]
fn file_seek_dropped_at_every_step() {
    for (_, rt) in runtimes() {
        let (path, data) = pattern_file("seek_dropped", &rt, 64);
        rt.block_on(async {
            let counter = WakeCounter::new();
            let mut file = File::open(&path).await.unwrap();
            for polls in 0..=2 {
                let before = file.stream_position().await.unwrap();
                let target = 10 * polls as u64 + 3;
                let seek = file.seek(SeekFrom::Start(target));
                let sought = poll_then_drop(&counter, seek, polls, async |_| true).await;
                if polls >= 2 {
                    assert_eq!(sought.unwrap().unwrap(), target);
                }
                let at = if polls == 0 { before } else { target } as usize;
                let mut next = [0u8; 4];
                file.read_exact(&mut next).await.unwrap();
                assert_eq!(next, data[at..at + 4], "{polls} polls");
            }
            // A relative seek dropped in flight, then an absolute one.
            file.rewind().await.unwrap();
            let seek = file.seek(SeekFrom::Current(5));
            let _ = poll_then_drop(&counter, seek, 1, async |_| true).await;
            assert_eq!(file.seek(SeekFrom::Start(20)).await.unwrap(), 20);
            assert_eq!(file.stream_position().await.unwrap(), 20);
            drop_and_check(file, &path, "dropped seeks");
        });
        finish(rt, path.parent().unwrap());
    }
}

/// A relative seek dropped in flight, then the same relative seek again:
/// both move the position, as two `lseek` calls would (tokio's second
/// seek first completes the one left in flight). The second is a new
/// seek, not the dropped one polled again. The blocking pool has one
/// thread, kept busy while the first seek is polled, so that seek is
/// surely still in flight when dropped.
#[test]
#[cfg_attr(miri, ignore = "Miri cannot open files through the blocking pool")]
fn a_relative_seek_after_a_dropped_one_moves_again() {
    for kind in [Kind::CurrentThread, Kind::MultiThread(2)] {
        let rt = kind.builder().max_blocking_threads(1).build().unwrap();
        let (path, data) = pattern_file("relative_seek_dropped", &rt, 64);
        rt.block_on(async {
            let counter = WakeCounter::new();
            let mut file = File::open(&path).await.unwrap();
            for (from, moved_twice) in [
                (SeekFrom::Current(5), 10),
                (SeekFrom::Current(-3), -6),
                (SeekFrom::End(-50), 0),
            ] {
                let start = file.stream_position().await.unwrap();
                let twice = match from {
                    SeekFrom::End(n) => 64u64.checked_add_signed(n).unwrap(),
                    _ => start.checked_add_signed(moved_twice).unwrap(),
                };
                let (release, released) = std::sync::mpsc::channel::<()>();
                let busy = rt::task::spawn_blocking(move || released.recv().unwrap());
                let seek = file.seek(from);
                let first = poll_then_drop(&counter, seek, 1, async |_| true).await;
                assert!(first.is_none(), "{from:?}: the pool was busy");
                release.send(()).unwrap();
                busy.await.unwrap();
                assert_eq!(file.seek(from).await.unwrap(), twice, "{from:?}");
                let mut next = [0u8; 4];
                file.read_exact(&mut next).await.unwrap();
                let at = twice as usize;
                assert_eq!(next, data[at..at + 4], "{from:?}");
            }
        });
        finish(rt, path.parent().unwrap());
    }
}

/// `set_len`, `flush`, `sync_all` and `metadata` dropped after each number
/// of polls: a started truncation is waited for by the next operation,
/// and buffered writes are never lost.
#[test]
#[cfg_attr(miri, ignore = "Miri cannot open files through the blocking pool")]
fn file_set_len_flush_sync_metadata_dropped_at_every_step() {
    for (_, rt) in runtimes() {
        let (path, data) = pattern_file("set_len_dropped", &rt, 64);
        rt.block_on(async {
            let counter = WakeCounter::new();
            let mut file = File::options()
                .read(true)
                .write(true)
                .open(&path)
                .await
                .unwrap();
            for polls in 0..=3 {
                let len = 60 - polls as u64;
                let before = file.metadata().await.unwrap().len();
                // A read dropped in flight first: its bytes are unread,
                // and `set_len` gives them back before it truncates.
                let mut position = file.stream_position().await.unwrap();
                let mut buf = [0u8; 8];
                if let Some(n) =
                    poll_then_drop(&counter, file.read(&mut buf), 1, async |_| true).await
                {
                    position += n.unwrap() as u64;
                }
                let truncated =
                    poll_then_drop(&counter, file.set_len(len), polls, async |_| true).await;
                if let Some(result) = truncated {
                    result.unwrap();
                }
                file.flush().await.unwrap();
                let now = file.metadata().await.unwrap().len();
                if polls == 0 {
                    assert_eq!(now, before, "{polls} polls: an unpolled set_len ran");
                }
                if now == before {
                    // Dropped before the truncation started (it waits for
                    // the give-back seek first).
                    file.set_len(len).await.unwrap();
                } else {
                    assert_eq!(now, len, "{polls} polls");
                }
                assert_eq!(
                    file.stream_position().await.unwrap(),
                    position,
                    "{polls} polls: set_len moved the position"
                );
            }
            assert_eq!(std::fs::read(&path).unwrap(), data[..57]);

            for polls in 0..=3 {
                file.rewind().await.unwrap();
                file.write_all(b"abc").await.unwrap();
                let flushed = poll_then_drop(&counter, file.flush(), polls, async |_| true).await;
                if let Some(result) = flushed {
                    result.unwrap();
                }
                let synced = poll_then_drop(&counter, file.sync_all(), polls, async |_| true).await;
                if let Some(result) = synced {
                    result.unwrap();
                }
                let stat = poll_then_drop(&counter, file.metadata(), polls, async |_| true).await;
                if let Some(result) = stat {
                    assert!(result.unwrap().is_file());
                }
                file.write_all(b"d").await.unwrap();
                file.sync_all().await.unwrap();
                let contents = std::fs::read(&path).unwrap();
                assert_eq!(&contents[..4], b"abcd", "{polls} polls");
                assert_eq!(contents[4..], data[4..57], "{polls} polls");
            }
            drop_and_check(file, &path, "dropped file operations");
        });
        finish(rt, path.parent().unwrap());
    }
}

/// A `File` dropped with an operation in flight: its write is made, and
/// its descriptor is closed once the blocking job is done; so is one that
/// a dropped `try_clone` or `into_std` made.
#[test]
#[cfg_attr(miri, ignore = "Miri cannot open files through the blocking pool")]
fn a_file_dropped_with_an_operation_in_flight_closes_after_it() {
    for (_, rt) in runtimes() {
        let dir = scratch_dir("file_dropped_in_flight", &rt);
        let big = Pattern::bytes(3, 5 << 20);
        let path = dir.join("big");
        std::fs::write(&path, &big).unwrap();
        rt.block_on(async {
            let counter = WakeCounter::new();
            // A write, left in flight.
            let written = dir.join("written");
            let mut file = File::create(&written).await.unwrap();
            file.write_all(&big[..1 << 20]).await.unwrap();
            drop(file);
            assert_closed(&written, "a file dropped with a write in flight");
            assert_eq!(std::fs::read(&written).unwrap(), big[..1 << 20]);

            // A read, a `read_to_end` and a seek, each left in flight.
            for polls in 1..=2 {
                let mut file = File::open(&path).await.unwrap();
                let mut buf = vec![0; 1 << 20];
                let _ = poll_then_drop(&counter, file.read(&mut buf), polls, async |_| true).await;
                drop(file);
                assert_closed(&path, "a file dropped with a read in flight");

                let mut file = File::open(&path).await.unwrap();
                let mut all = Vec::new();
                let read =
                    poll_then_drop(&counter, file.read_to_end(&mut all), polls, async |_| true)
                        .await;
                drop(read);
                drop(file);
                assert_closed(&path, "a file dropped with a read_to_end in flight");

                let mut file = File::open(&path).await.unwrap();
                let seek = file.seek(SeekFrom::End(-1));
                let _ = poll_then_drop(&counter, seek, polls, async |_| true).await;
                drop(file);
                assert_closed(&path, "a file dropped with a seek in flight");

                // The descriptor a dropped `try_clone` or `into_std` made
                // or took is closed with the job's unclaimed result.
                let mut file = File::open(&path).await.unwrap();
                let _ = poll_then_drop(&counter, file.try_clone(), polls, async |_| true).await;
                drop(file);
                assert_pool_idle("a dropped `try_clone`");
                assert_closed(&path, "a dropped `try_clone`");

                let file = File::open(&path).await.unwrap();
                let _ = poll_then_drop(&counter, file.into_std(), polls, async |_| true).await;
                assert_pool_idle("a dropped `into_std`");
                assert_closed(&path, "a dropped `into_std`");
            }
            assert_pool_idle("dropped files");
        });
        finish(rt, &dir);
    }
}

/// The free functions dropped after one poll (their blocking job started)
/// or none: no panic, no descriptor left open once the job is done, the
/// jobs that change the file system finish (as tokio's, which cannot stop
/// them), and the runtime still shuts down.
#[test]
#[cfg_attr(miri, ignore = "Miri cannot open files through the blocking pool")]
fn free_functions_dropped_after_each_poll() {
    for (_, rt) in runtimes() {
        let dir = scratch_dir("free_functions_dropped", &rt);
        let big = Pattern::bytes(5, 5 << 20);
        let source = dir.join("source");
        std::fs::write(&source, &big).unwrap();
        rt.block_on(async {
            let counter = WakeCounter::new();
            for polls in 0..=1 {
                let _ =
                    poll_then_drop(&counter, rt::fs::read(&source), polls, async |_| true).await;
                assert_pool_idle("a dropped `fs::read`");
                assert_closed(&source, "a dropped `fs::read`");

                let mut options = rt::fs::OpenOptions::new();
                let opened = options.read(true).open(&source);
                let _ = poll_then_drop(&counter, opened, polls, async |_| true).await;
                assert_pool_idle("a dropped `OpenOptions::open`");
                assert_closed(&source, "a dropped `OpenOptions::open`");

                let written = dir.join(format!("written-{polls}"));
                let write = rt::fs::write(&written, &big);
                let _ = poll_then_drop(&counter, write, polls, async |_| true).await;
                assert_pool_idle("a dropped `fs::write`");
                assert_closed(&written, "a dropped `fs::write`");
                if polls > 0 {
                    assert!(
                        std::fs::read(&written).unwrap() == big,
                        "a started write stopped"
                    );
                }

                let copied = dir.join(format!("copied-{polls}"));
                let copy = rt::fs::copy(&source, &copied);
                let _ = poll_then_drop(&counter, copy, polls, async |_| true).await;
                assert_pool_idle("a dropped `fs::copy`");
                assert_closed(&source, "a dropped `fs::copy`");
                assert_closed(&copied, "a dropped `fs::copy`");
                if polls > 0 {
                    assert!(
                        std::fs::read(&copied).unwrap() == big,
                        "a started copy stopped"
                    );
                }

                let deep = dir.join(format!("a-{polls}/b/c"));
                let create = rt::fs::create_dir_all(&deep);
                let _ = poll_then_drop(&counter, create, polls, async |_| true).await;
                assert_pool_idle("a dropped `fs::create_dir_all`");
                assert_eq!(deep.is_dir(), polls > 0);

                let listing = rt::fs::read_dir(&dir);
                let _ = poll_then_drop(&counter, listing, polls, async |_| true).await;
                assert_pool_idle("a dropped `fs::read_dir`");
                assert_closed(&dir, "a dropped `fs::read_dir`");
            }
            assert_pool_idle("dropped free functions");
        });
        finish(rt, &dir);
    }
}

/// `next_entry` dropped after each number of polls, across batch
/// boundaries: every entry is still listed exactly once (tokio's
/// `next_entry` is cancel-safe), and the directory is closed after.
#[test]
#[cfg_attr(
    miri,
    ignore = "Miri cannot list directories through the blocking pool"
)]
fn next_entry_dropped_at_every_step() {
    for (_, rt) in runtimes() {
        let dir = scratch_dir("next_entry_dropped", &rt);
        let names: BTreeSet<String> = (0..100).map(|i| format!("entry-{i}")).collect();
        for name in &names {
            std::fs::write(dir.join(name), b"").unwrap();
        }
        rt.block_on(async {
            let counter = WakeCounter::new();
            let mut entries = rt::fs::read_dir(&dir).await.unwrap();
            let mut listed = BTreeSet::new();
            for step in 0.. {
                let next = entries.next_entry();
                let entry = poll_then_drop(&counter, next, step % 3, async |_| true).await;
                match entry {
                    Some(Ok(Some(entry))) => {
                        let name = entry.file_name().into_string().unwrap();
                        assert!(listed.insert(name), "an entry listed twice");
                    }
                    Some(Ok(None)) => break,
                    Some(Err(e)) => panic!("listing: {e}"),
                    None => {}
                }
            }
            assert_eq!(listed, names);
            drop(entries);
            assert_closed(&dir, "a finished listing");
        });
        finish(rt, &dir);
    }
}

/// `wait` dropped after each number of polls: a second `wait` returns the
/// child's real exit status, and the child is reaped.
#[test]
#[cfg_attr(miri, ignore = "Miri cannot spawn processes")]
fn wait_dropped_at_every_step() {
    on_both(|| async {
        let counter = WakeCounter::new();
        for polls in 0..=3 {
            // Exits once `wait` closes its stdin.
            let mut child = Command::new("sh")
                .args(["-c", "read line; exit 7"])
                .stdin(Stdio::piped())
                .spawn()
                .unwrap();
            let pid = child.id().unwrap();
            let waited = poll_then_drop(&counter, child.wait(), polls, async |_| true).await;
            if polls >= 2 {
                assert_eq!(waited.unwrap().unwrap().code(), Some(7), "{polls} polls");
            }
            assert_eq!(child.wait().await.unwrap().code(), Some(7), "{polls} polls");
            assert_eq!(child.try_wait().unwrap().unwrap().code(), Some(7));
            assert!(!process_exists(pid), "{polls} polls: left a zombie");
        }
    });
}

/// `wait_with_output`, `output` and `status` dropped after each number of
/// polls (the child never exits meanwhile, so nothing wakes them between
/// polls), without `kill_on_drop`: the child runs on, its pipes are closed,
/// and it is reaped once it exits.
#[test]
#[cfg_attr(miri, ignore = "Miri cannot spawn processes")]
fn output_and_status_dropped_at_every_step_are_reaped() {
    on_both(|| async {
        let counter = WakeCounter::new();
        for polls in 0..=2 {
            // `cat` reading a pipe of ours: it exits when we close it.
            let (reader, mut writer) = std::io::pipe().unwrap();
            let child = Command::new("cat")
                .stdin(Stdio::from(reader))
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            let pid = child.id().unwrap();
            let stdout = fd_target(child.stdout.as_ref().unwrap().as_raw_fd());
            let stderr = fd_target(child.stderr.as_ref().unwrap().as_raw_fd());
            let output = child.wait_with_output();
            assert!(
                poll_then_drop(&counter, output, polls, async |_| false)
                    .await
                    .is_none()
            );
            assert_eq!(fds_open_on(&stdout), 0, "{polls} polls: stdout left open");
            assert_eq!(fds_open_on(&stderr), 0, "{polls} polls: stderr left open");
            assert!(
                process_exists(pid),
                "{polls} polls: killed without kill_on_drop"
            );
            writer.write_all(b"bye\n").unwrap();
            drop(writer);
            until_reaped(pid).await;

            for status in [false, true] {
                let marker = format!("output-dropped-{polls}-{status}");
                let (reader, writer) = std::io::pipe().unwrap();
                let mut command = Command::new("sh");
                command
                    .args(["-c", "cat >/dev/null", &marker])
                    .stdin(Stdio::from(reader));
                let pid = if status {
                    let status = command.status();
                    let pid =
                        child_running(format!("sh\0-c\0cat >/dev/null\0{marker}\0").as_bytes());
                    assert!(
                        poll_then_drop(&counter, status, polls, async |_| false)
                            .await
                            .is_none()
                    );
                    pid
                } else {
                    let output = command.output();
                    let pid =
                        child_running(format!("sh\0-c\0cat >/dev/null\0{marker}\0").as_bytes());
                    assert!(
                        poll_then_drop(&counter, output, polls, async |_| false)
                            .await
                            .is_none()
                    );
                    pid
                };
                assert!(
                    process_exists(pid),
                    "{polls} polls: killed without kill_on_drop"
                );
                drop(writer);
                until_reaped(pid).await;
            }
        }
    });
}

/// The same futures with `kill_on_drop(true)`: dropped after any number
/// of polls, the child is killed and reaped.
#[test]
#[cfg_attr(miri, ignore = "Miri cannot spawn processes")]
fn kill_on_drop_is_honoured_at_every_step() {
    on_both(|| async {
        let counter = WakeCounter::new();
        for polls in 0..=2 {
            for form in ["wait", "wait_with_output", "output", "status"] {
                let seconds = (2000 + polls).to_string();
                let cmdline = format!("sleep\0{seconds}\0");
                let mut command = Command::new("sleep");
                command.arg(&seconds).kill_on_drop(true);
                match form {
                    "wait" => {
                        let mut child = command.spawn().unwrap();
                        let pid = child.id().unwrap();
                        assert!(
                            poll_then_drop(&counter, child.wait(), polls, async |_| false)
                                .await
                                .is_none()
                        );
                        drop(child);
                        until_reaped(pid).await;
                    }
                    "wait_with_output" => {
                        let child = command.stdout(Stdio::piped()).spawn().unwrap();
                        let pid = child.id().unwrap();
                        let output = child.wait_with_output();
                        assert!(
                            poll_then_drop(&counter, output, polls, async |_| false)
                                .await
                                .is_none()
                        );
                        until_reaped(pid).await;
                    }
                    "output" => {
                        let output = command.output();
                        let pid = child_running(cmdline.as_bytes());
                        assert!(
                            poll_then_drop(&counter, output, polls, async |_| false)
                                .await
                                .is_none()
                        );
                        until_reaped(pid).await;
                    }
                    _ => {
                        let status = command.status();
                        let pid = child_running(cmdline.as_bytes());
                        assert!(
                            poll_then_drop(&counter, status, polls, async |_| false)
                                .await
                                .is_none()
                        );
                        until_reaped(pid).await;
                    }
                }
            }
        }
    });
}

/// `read_exact` on a child's stdout dropped after each number of polls:
/// every byte fed was taken by the dropped read, and a fresh read gets
/// what comes next.
#[test]
#[cfg_attr(miri, ignore = "Miri cannot spawn processes")]
fn child_stdout_read_exact_dropped_at_every_step() {
    on_both(|| async {
        let counter = WakeCounter::new();
        let mut child = Command::new("cat")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let mut stdout = child.stdout.take().unwrap();
        for polls in 0..=6 {
            let mut buf = [0u8; 4];
            let read = poll_then_drop(&counter, stdout.read_exact(&mut buf), polls, async |_| {
                stdin.write_all(b"x").await.unwrap();
                true
            })
            .await;
            assert_eq!(read.is_some(), polls >= 5, "{polls} polls");
            stdin.write_all(b"fresh").await.unwrap();
            let mut fresh = [0u8; 5];
            stdout.read_exact(&mut fresh).await.unwrap();
            assert_eq!(&fresh, b"fresh", "{polls} polls");
        }
        drop(stdin);
        let mut rest = Vec::new();
        stdout.read_to_end(&mut rest).await.unwrap();
        assert!(rest.is_empty());
        assert!(child.wait().await.unwrap().success());
    });
}

/// Tasks holding a waiting child, a file in the middle of `write_all`s
/// and `fs::read`s, aborted from another thread: the child is killed
/// (`kill_on_drop`) and reaped, the started writes are made, and nothing
/// stays open.
#[test]
#[cfg_attr(miri, ignore = "Miri cannot spawn processes")]
fn tasks_aborted_from_another_thread_leave_nothing_behind() {
    let rt = Kind::MultiThread(2).build();
    let dir = scratch_dir("aborted_from_another_thread", &rt);
    let path = dir.join("written");
    let big = Arc::new(Pattern::bytes(9, 1 << 16));
    rt.block_on(async {
        let mut child = Command::new("sleep")
            .arg("1001")
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let pid = child.id().unwrap();
        let waiting = async move {
            child.wait().await.unwrap();
        };
        let mut file = File::create(&path).await.unwrap();
        file.set_max_buf_size(16);
        let data = big.clone();
        // Both loop until aborted, so neither ends before it waits.
        let writing = async move {
            loop {
                file.write_all(&data).await.unwrap();
            }
        };
        let reading = {
            let path = path.clone();
            async move {
                loop {
                    rt::fs::read(&path).await.unwrap();
                }
            }
        };
        let tasks = spawn_all_waiting(vec![
            Box::pin(waiting) as Pin<Box<dyn Future<Output = ()> + Send>>,
            Box::pin(writing),
            Box::pin(reading),
        ])
        .await;
        let aborts: Vec<_> = tasks.iter().map(|task| task.abort_handle()).collect();
        std::thread::spawn(move || aborts.iter().for_each(|abort| abort.abort()))
            .join()
            .unwrap();
        for task in tasks {
            assert!(task.await.unwrap_err().is_cancelled());
        }
        until_reaped(pid).await;
        assert_closed(&path, "aborted tasks");
        let written = std::fs::read(&path).unwrap();
        assert_eq!(written.len() % 16, 0, "a started write was cut short");
        for copy in written.chunks(big.len()) {
            assert!(copy == &big[..copy.len()], "the writes are out of order");
        }
        assert_pool_idle("aborted tasks");
    });
    finish(rt, &dir);
}
