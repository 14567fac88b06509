//! Waiting on a primitive from synchronous code: the `blocking_*` methods
//! (`mpsc::Receiver::blocking_recv`, `Mutex::blocking_lock`, ...), for
//! plain threads and `spawn_blocking` jobs that hand values to and from
//! tasks.

use crate::runtime::block_on_thread;
use crate::runtime::context;
use std::future::Future;
use std::time::Duration;

/// Blocks the current thread until `future` completes.
///
/// # Panics
///
/// Panics, naming `what`, on a thread that runs tasks (a worker, or inside
/// `block_on`): blocking there would stall every task of that thread, and
/// could wait forever for a task only that thread would run.
#[track_caller]
pub(crate) fn block_on<F: Future>(what: &str, future: F) -> F::Output {
    if context::is_entered() {
        panic!(
            "`{what}` was called from async code: it blocks the thread, which here runs \
             tasks. Use the async method with `.await`, or call this from a plain thread \
             or a `spawn_blocking` job."
        );
    }
    // The thread's cached parker, as `Runtime::block_on` from a plain
    // thread uses: no parker allocated per call.
    block_on_thread(future, Duration::ZERO)
}
