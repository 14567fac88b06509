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
/// could wait forever for a task only that thread would run. Inside a
/// simulation that includes `spawn_blocking` and `block_in_place` jobs,
/// which run inline on the simulation's thread.
#[track_caller]
pub(crate) fn block_on<F: Future>(what: &str, future: F) -> F::Output {
    // A simulation runs `spawn_blocking` jobs inline, on its one thread,
    // and `block_in_place` leaves the context there too: the advice below
    // would not help, and a wait would stop the run for good.
    #[cfg(feature = "sim")]
    if crate::sim::is_current() {
        panic!(
            "`{what}` was called inside a simulation (`rt::sim`), whose `spawn_blocking` \
             and `block_in_place` run their closure inline on the simulation's one \
             thread: waiting there would stop every task of the run. Use the async \
             method with `.await` in a task (`rt::spawn`) instead."
        );
    }
    if context::is_entered() {
        panic!(
            "`{what}` was called from async code: it blocks the thread, which here runs \
             tasks. Use the async method with `.await`, or call this from a plain thread \
             or a `spawn_blocking` job."
        );
    }
    // The thread's cached parker, as `Runtime::block_on` from a plain
    // thread uses: no parker allocated per call.
    block_on_thread(future, Duration::ZERO, None)
}
