//! A multi-thread runtime's drop (and a `shutdown_timeout` its workers
//! beat) returns only once its worker threads have exited: their
//! thread-locals destroyed, and the driver's descriptors, which the last
//! handle to the runtime closes, closed.
//!
//! Not checked: the threads' entries in `/proc/self/task`. A join returns
//! when the kernel wakes the joiner on the thread's exit, before the
//! kernel has finished tearing the thread down, so a joined thread can
//! still be listed, address space and all, for a moment (seen once in
//! CI, round 54 of 300).
//!
//! One test in this file, so no other test opens descriptors or starts
//! threads while it counts them.

mod support;

use rt::runtime::{Builder, Runtime};
use std::time::Duration;
use support::thread_exits;

/// How many runtimes to build and drop. Before the fix, some drops
/// returned with a worker still exiting (about one in ten).
const ROUNDS: usize = 300;

fn open_descriptors() -> usize {
    std::fs::read_dir("/proc/self/fd")
        .expect("reading /proc/self/fd")
        .count()
}

fn busy_runtime() -> Runtime {
    let rt = Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .on_thread_start(thread_exits::mark)
        .build()
        .unwrap();
    // Work on both workers, timers and all, so each has run a while.
    rt.block_on(async {
        let tasks: Vec<_> = (0..8)
            .map(|_| {
                rt::spawn(async {
                    for _ in 0..4 {
                        rt::task::yield_now().await;
                    }
                    rt::time::sleep(Duration::from_millis(1)).await;
                })
            })
            .collect();
        for task in tasks {
            task.await.unwrap();
        }
    });
    rt
}

#[test]
fn dropping_a_multi_thread_runtime_waits_for_its_threads_to_exit() {
    let descriptors = open_descriptors();
    for round in 0..ROUNDS {
        let rt = busy_runtime();
        if round % 2 == 0 {
            drop(rt);
        } else {
            rt.shutdown_timeout(Duration::from_secs(60));
        }
        let (started, finished) = (thread_exits::marked(), thread_exits::exited());
        assert_eq!(
            finished,
            started,
            "round {round}: the runtime's drop returned with {} worker thread(s) still exiting",
            started - finished
        );
        assert_eq!(
            open_descriptors(),
            descriptors,
            "round {round}: the runtime's drop returned with its driver's descriptors open"
        );
    }
}
