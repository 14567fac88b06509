//! The pool's join handles (`pool_threads.rs`) as threads come and go.

use crate::runtime::Builder;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

/// How many pool threads to start and retire.
const THREADS: usize = 200;

/// A runtime whose pool threads retire as soon as they go idle starts
/// and retires one thread per call, and holds one join handle however
/// many have come and gone: the last one to exit (each exiting thread
/// joins the one before it).
#[test]
fn retired_pool_threads_leave_no_handles_behind() {
    let (stopped, has_stopped) = mpsc::channel::<()>();
    let stopped = Mutex::new(stopped);
    let starts = Arc::new(AtomicUsize::new(0));
    let its_starts = starts.clone();
    let rt = Builder::new_current_thread()
        .thread_keep_alive(Duration::ZERO)
        .spin_before_park(Duration::ZERO)
        .on_thread_start(move || {
            its_starts.fetch_add(1, Ordering::SeqCst);
        })
        .on_thread_stop(move || stopped.lock().unwrap().send(()).unwrap())
        .build()
        .unwrap();
    let pool = rt.handle().inner.blocking_spawner().clone();
    for round in 0..THREADS {
        rt.block_on(rt.spawn_blocking(|| ())).unwrap();
        // The thread retired: the next call starts another. Once it has
        // finished exiting, only its handle is held (its predecessor's
        // has been joined).
        has_stopped.recv().unwrap();
        assert!(pool.wait_for_threads(None));
        let held = pool.handles_held();
        assert_eq!(held, 1, "round {round}: {held} join handles held");
    }
    assert_eq!(
        starts.load(Ordering::SeqCst),
        THREADS,
        "one thread per call"
    );
    drop(rt);
    assert_eq!(pool.handles_held(), 0, "shutdown joined the last one");
}
