//! `worker_index`: which worker the calling thread is, in the numbering
//! `RuntimeMetrics` uses.

use crate::runtime::context;

/// The index of the worker thread running the caller, `0..num_workers()`,
/// the index [`RuntimeMetrics`](crate::runtime::RuntimeMetrics)' per-worker
/// methods take (`worker_poll_count(i)`, ...); tokio's
/// `runtime::worker_index`.
///
/// `None` outside a worker: on a thread of the blocking pool (including one
/// in [`block_in_place`](crate::task::block_in_place), whose worker moved
/// to another thread), on a thread no runtime runs, and in a multi-thread
/// runtime's [`block_on`](crate::runtime::Runtime::block_on) (that thread
/// is not one of its workers). A current-thread runtime has one worker: on
/// the thread driving it (in `block_on`) this is `Some(0)`; other threads
/// in `block_on` at the same time, which only poll their own future, get
/// `None`.
///
/// A task may move between workers at an `.await`, so the index can differ
/// after one.
///
/// # Examples
///
/// ```
/// let rt = rt::runtime::Builder::new_multi_thread().worker_threads(2).build().unwrap();
/// let index = rt.block_on(async { rt::spawn(async { rt::runtime::worker_index() }).await.unwrap() });
/// assert!(matches!(index, Some(0 | 1)));
/// // `block_on`'s thread is not a worker, nor is a thread outside the runtime.
/// assert_eq!(rt.block_on(async { rt::runtime::worker_index() }), None);
/// assert_eq!(rt::runtime::worker_index(), None);
///
/// let local = rt::runtime::Builder::new_current_thread().build().unwrap();
/// assert_eq!(local.block_on(async { rt::runtime::worker_index() }), Some(0));
/// ```
pub fn worker_index() -> Option<usize> {
    context::with_scheduler(|scheduler| scheduler?.worker_index())
}
