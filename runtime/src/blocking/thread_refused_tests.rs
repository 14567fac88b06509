//! The blocking pool, and the runtime's other threads, when the OS refuses
//! to start a thread (`EAGAIN`: a container's pids limit, `RLIMIT_NPROC`).
//! The refusals come from `Builder::thread_gate`, as the tests may run as
//! root, where `RLIMIT_NPROC` does not apply.

use crate::runtime::Builder;
use std::io;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What `pthread_create` fails with at a pids or process limit.
fn refused() -> io::Error {
    io::Error::from_raw_os_error(libc::EAGAIN)
}

/// A thread gate that lets the first `allowed` threads start and refuses
/// the others.
fn allowing_first(allowed: usize) -> impl Fn() -> io::Result<()> + Send + Sync + 'static {
    let starts = AtomicUsize::new(0);
    move || {
        if starts.fetch_add(1, Ordering::SeqCst) < allowed {
            Ok(())
        } else {
            Err(refused())
        }
    }
}

/// The pool's only thread, busy, takes the job a new thread was being
/// started for (spawning step 3), runs it and exits (keep-alive zero)
/// before the OS refuses that thread: the job ran, so the call did not
/// fail; it used to return the refusal, its closure run all the same.
#[test]
fn thread_refused_after_a_busy_thread_ran_the_job_is_no_error() {
    let (release, released) = mpsc::channel::<()>();
    let (stopped, has_stopped) = mpsc::channel::<()>();
    let has_stopped = Mutex::new(has_stopped);
    let starts = AtomicUsize::new(0);
    let rt = Builder::new_current_thread()
        .thread_keep_alive(Duration::ZERO)
        .spin_before_park(Duration::ZERO)
        .on_thread_stop(move || stopped.send(()).unwrap())
        .thread_gate(move || {
            if starts.fetch_add(1, Ordering::SeqCst) == 0 {
                return Ok(());
            }
            // The second thread: let the first one finish its job, take
            // the new thread's, run it and exit; then refuse.
            release.send(()).unwrap();
            has_stopped.lock().unwrap().recv().unwrap();
            Err(refused())
        })
        .build()
        .unwrap();
    let (busy, is_busy) = mpsc::channel::<()>();
    let first = rt.spawn_blocking(move || {
        busy.send(()).unwrap();
        released.recv().unwrap();
    });
    // Running, so past its step 5: the next call starts a thread.
    is_busy.recv().unwrap();
    let ran = Arc::new(AtomicBool::new(false));
    let its_ran = ran.clone();
    let second = crate::task::Builder::new().spawn_blocking_on(
        move || {
            its_ran.store(true, Ordering::SeqCst);
            7
        },
        rt.handle(),
    );
    assert!(ran.load(Ordering::SeqCst), "the busy thread ran the job");
    let second = second.expect("a call whose closure ran did not fail");
    assert_eq!(rt.block_on(second).unwrap(), 7);
    rt.block_on(first).unwrap();
}

/// A worker thread the OS refuses fails the build, and the workers already
/// started are shut down before it returns: their stop hooks have run, no
/// thread is left behind.
#[test]
#[cfg_attr(
    miri,
    ignore = "multi-thread runtime: crossbeam-epoch's casts (scripts/miri)"
)]
fn thread_refused_for_a_worker_fails_the_build_and_stops_the_started_ones() {
    let starts = Arc::new(AtomicUsize::new(0));
    let stops = Arc::new(AtomicUsize::new(0));
    let (their_starts, their_stops) = (starts.clone(), stops.clone());
    let built = Builder::new_multi_thread()
        .worker_threads(3)
        .on_thread_start(move || {
            their_starts.fetch_add(1, Ordering::SeqCst);
        })
        .on_thread_stop(move || {
            their_stops.fetch_add(1, Ordering::SeqCst);
        })
        .thread_gate(allowing_first(2))
        .build();
    let error = built.expect_err("a worker could not start");
    assert_eq!(error.raw_os_error(), Some(libc::EAGAIN));
    assert_eq!(starts.load(Ordering::SeqCst), 2, "two workers started");
    assert_eq!(
        stops.load(Ordering::SeqCst),
        2,
        "the started workers stopped before the build returned"
    );
}

/// A runtime whose pool threads exit as soon as they are idle, and whose
/// thread starts the returned flag refuses; `stopped` hears of each pool
/// thread's exit.
fn runtime_refusing_when(
    refuse: &Arc<AtomicBool>,
) -> (crate::runtime::Runtime, mpsc::Receiver<()>) {
    let (stopped, has_stopped) = mpsc::channel::<()>();
    let refuse = refuse.clone();
    let rt = Builder::new_current_thread()
        .thread_keep_alive(Duration::ZERO)
        .spin_before_park(Duration::ZERO)
        .on_thread_stop(move || stopped.send(()).unwrap())
        .thread_gate(move || {
            if refuse.load(Ordering::SeqCst) {
                Err(refused())
            } else {
                Ok(())
            }
        })
        .build()
        .unwrap();
    (rt, has_stopped)
}

/// A file write (a mandatory job) that the pool cannot start a thread for
/// fails with the OS error, and is never made later: not by a thread that
/// starts afterwards, nor as the runtime shuts down. It used to panic.
#[test]
#[cfg_attr(miri, ignore = "Miri's isolation has no file system")]
fn thread_refused_for_a_file_write_fails_it_and_it_is_never_made() {
    use crate::io::AsyncWriteExt;
    let dir = std::env::temp_dir().join(format!("rt-thread-refused-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("write");
    let refuse = Arc::new(AtomicBool::new(false));
    let (rt, has_stopped) = runtime_refusing_when(&refuse);
    let written = rt.block_on(async {
        let mut file = crate::fs::File::create(&path).await.unwrap();
        // The pool's thread has gone: the write needs a new one.
        has_stopped.recv().unwrap();
        refuse.store(true, Ordering::SeqCst);
        let written = file.write_all(b"lost").await;
        refuse.store(false, Ordering::SeqCst);
        // A thread that can start now runs the queue: the refused write
        // is not in it to run.
        crate::task::spawn_blocking(|| ()).await.unwrap();
        written
    });
    drop(rt);
    let error = written.expect_err("the write had no thread");
    assert_eq!(error.raw_os_error(), Some(libc::EAGAIN));
    assert_eq!(
        std::fs::read(&path).unwrap(),
        b"",
        "a refused write was made"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The runtime's other blocking jobs (a path operation, a file read, a
/// host-name lookup) fail with the OS error when the pool has no thread
/// and cannot start one; they used to panic the calling task.
#[test]
#[cfg_attr(miri, ignore = "Miri's isolation has no file system")]
fn thread_refused_for_fs_and_lookups_fails_them_with_the_os_error() {
    use crate::io::AsyncReadExt;
    let refuse = Arc::new(AtomicBool::new(false));
    let (rt, has_stopped) = runtime_refusing_when(&refuse);
    rt.block_on(async {
        let mut file = crate::fs::File::open("Cargo.toml").await.unwrap();
        has_stopped.recv().unwrap();
        refuse.store(true, Ordering::SeqCst);
        let is_refused = |result: io::Result<()>| {
            let error = result.expect_err("no thread to run it");
            assert_eq!(error.raw_os_error(), Some(libc::EAGAIN), "{error}");
        };
        is_refused(crate::fs::metadata("Cargo.toml").await.map(drop));
        is_refused(file.read(&mut [0; 8]).await.map(drop));
        is_refused(crate::net::lookup_host("localhost:80").await.map(drop));
        // Threads come back: so do the operations.
        refuse.store(false, Ordering::SeqCst);
        assert!(crate::fs::metadata("Cargo.toml").await.unwrap().is_file());
    });
}

/// `block_in_place` when the OS refuses the thread that was to take over
/// the worker's core: the closure runs in place, the core kept, and a
/// task this worker queued (maybe in its LIFO slot, which peers do not
/// take from a busy worker) still runs meanwhile on the other worker.
/// It used to panic.
#[test]
#[cfg_attr(
    miri,
    ignore = "multi-thread runtime: crossbeam-epoch's casts (scripts/miri)"
)]
fn thread_refused_for_a_block_in_place_hand_off_runs_it_in_place() {
    let rt = Builder::new_multi_thread()
        .worker_threads(2)
        // The two workers start; nothing else may.
        .thread_gate(allowing_first(2))
        .build()
        .unwrap();
    let answer = rt.block_on(rt.spawn(async {
        let (done, is_done) = mpsc::channel::<()>();
        let queued = crate::spawn(async move { done.send(()).unwrap() });
        let answer = crate::task::block_in_place(move || {
            is_done.recv().unwrap();
            42
        });
        queued.await.unwrap();
        answer
    }));
    assert_eq!(answer.unwrap(), 42);
}

/// A call that found the pool's new thread still starting (counted as
/// notified, spawning step 2) left its job to that thread; the OS then
/// refused it, with no other thread in the pool. The call that started
/// it fails; the job left to it must not stay queued with no thread to
/// run it (until some later call or shutdown): it fails too, its
/// `JoinHandle` yielding `Cancelled`, before the refused call returns.
#[test]
fn thread_refused_with_no_thread_left_strands_no_job() {
    let (entered, has_entered) = mpsc::channel::<()>();
    let (release, released) = mpsc::channel::<()>();
    let released = Mutex::new(released);
    let entered = Mutex::new(entered);
    let rt = Builder::new_current_thread()
        .thread_gate(move || {
            // Held until the second call has left its job to this thread.
            entered.lock().unwrap().send(()).unwrap();
            released.lock().unwrap().recv().unwrap();
            Err(refused())
        })
        .build()
        .unwrap();
    let handle = rt.handle().clone();
    let first =
        std::thread::spawn(move || crate::task::Builder::new().spawn_blocking_on(|| 1, &handle));
    has_entered.recv().unwrap();
    let ran = Arc::new(AtomicBool::new(false));
    let its_ran = ran.clone();
    // The first call's thread counts as notified: this job is left to it.
    let second = crate::task::Builder::new()
        .spawn_blocking_on(move || its_ran.store(true, Ordering::SeqCst), rt.handle())
        .expect("a thread was on its way");
    release.send(()).unwrap();
    let error = first
        .join()
        .unwrap()
        .expect_err("no thread, and none started");
    assert_eq!(error.raw_os_error(), Some(libc::EAGAIN));
    let pool = rt.handle().inner.blocking_spawner();
    assert_eq!(pool.num_threads(), 0);
    assert!(
        second.is_finished(),
        "a job was left queued with no thread to run it ({} queued)",
        pool.queue_depth()
    );
    let error = rt.block_on(second).expect_err("no thread ran it");
    assert!(error.is_cancelled(), "{error}");
    assert!(!ran.load(Ordering::SeqCst));
}

/// The watchdog's monitor thread refused: the build fails with the OS
/// error, and the workers already started are stopped before it returns
/// (their stop hooks have run), also when the build runs inside another
/// runtime's `block_on`, where dropping the half-built runtime used to
/// panic ("Cannot drop a runtime inside an async context").
#[test]
#[cfg_attr(
    miri,
    ignore = "multi-thread runtime: crossbeam-epoch's casts (scripts/miri)"
)]
fn thread_refused_for_the_watchdog_fails_the_build() {
    let outer = Builder::new_current_thread().build().unwrap();
    for inside_a_runtime in [false, true] {
        let stops = Arc::new(AtomicUsize::new(0));
        let their_stops = stops.clone();
        let build = move || {
            Builder::new_multi_thread()
                .worker_threads(2)
                .slow_poll_threshold(Duration::from_secs(60))
                .on_thread_stop(move || {
                    their_stops.fetch_add(1, Ordering::SeqCst);
                })
                // The two workers start; the watchdog may not.
                .thread_gate(allowing_first(2))
                .build()
        };
        let built = if inside_a_runtime {
            outer.block_on(async move { build() })
        } else {
            build()
        };
        let error = built.expect_err("the watchdog could not start");
        assert_eq!(error.raw_os_error(), Some(libc::EAGAIN));
        assert_eq!(
            stops.load(Ordering::SeqCst),
            2,
            "the workers stopped before the build returned"
        );
    }
}
