//! A runtime's drop (and a `shutdown_timeout` its blocking threads beat)
//! returns only once the blocking pool's threads that finished have
//! exited: a thread-local set by a `spawn_blocking` closure has been
//! destroyed, on pool threads that ran a job and on those that retired
//! (keep-alive) before the drop.
//!
//! One test in this file, so no other test's threads are counted.

mod support;

use rt::runtime::{Builder, Runtime};
use std::sync::mpsc;
use std::time::Duration;
use support::thread_exits;

/// How many runtimes to build and drop. Before the fix, some drops
/// returned with a pool thread still exiting.
const ROUNDS: usize = 300;

/// A runtime whose pool has run a few jobs, on one thread or more, each
/// thread marked; every third round with a keep-alive of zero, so that
/// its threads retire as they go idle, one before the drop for sure.
fn runtime_with_marked_pool(round: usize) -> Runtime {
    let (stopped, has_stopped) = mpsc::channel::<()>();
    let retire_one = round % 3 == 2;
    let mut builder = if round % 2 == 0 {
        Builder::new_current_thread()
    } else {
        let mut builder = Builder::new_multi_thread();
        builder.worker_threads(1);
        builder
    };
    let stopped = std::sync::Mutex::new(stopped);
    let rt = builder
        .on_thread_stop(move || {
            // Workers stop too, but only at the drop, after the reads below.
            let _ = stopped.lock().unwrap().send(());
        })
        .thread_keep_alive(if retire_one {
            Duration::ZERO
        } else {
            Duration::from_secs(60)
        })
        .spin_before_park(Duration::ZERO)
        .build()
        .unwrap();
    rt.block_on(async {
        if retire_one {
            rt::task::spawn_blocking(thread_exits::mark).await.unwrap();
            // The thread retires at once: its stop hook has run.
            has_stopped.recv().unwrap();
        }
        // Two at once, so that two threads may run them.
        let (first, second) = (
            rt::task::spawn_blocking(thread_exits::mark),
            rt::task::spawn_blocking(thread_exits::mark),
        );
        first.await.unwrap();
        second.await.unwrap();
    });
    rt
}

#[test]
fn dropping_a_runtime_waits_for_its_blocking_threads_to_exit() {
    for round in 0..ROUNDS {
        let rt = runtime_with_marked_pool(round);
        match round % 4 {
            0 | 1 => drop(rt),
            _ => rt.shutdown_timeout(Duration::from_secs(60)),
        }
        let (set, destroyed) = (thread_exits::marked(), thread_exits::exited());
        assert_eq!(
            destroyed,
            set,
            "round {round}: the runtime's shutdown returned with {} blocking thread(s) still \
             exiting",
            set - destroyed
        );
    }
}
