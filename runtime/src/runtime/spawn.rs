//! `rt::spawn`.

use crate::runtime::context;
use crate::task::{JoinHandle, TaskMeta};
use std::future::Future;
use std::panic::Location;

/// Spawns a task on the current runtime and returns its [`JoinHandle`].
///
/// The task starts running right away, on any worker; it keeps running if
/// the handle is dropped.
///
/// A panic in the task is caught: its [`JoinHandle`] yields a panic
/// [`JoinError`](crate::task::JoinError) and the worker goes on. The
/// future is dropped during that unwind, as in tokio, so its destructors
/// see [`std::thread::panicking`] (and one that panics too aborts the
/// process, as any panic during an unwind does).
///
/// # Panics
///
/// Panics when called outside a runtime (no task, `block_on` or
/// `Runtime::enter` on this thread). Use
/// [`Handle::spawn`](crate::runtime::Handle::spawn) there.
///
/// # Examples
///
/// ```
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let task = rt::spawn(async { "hello" });
///     assert_eq!(task.await.unwrap(), "hello");
/// });
/// ```
#[track_caller]
pub fn spawn<F>(future: F) -> JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    // The location only, not the whole `TaskMeta`, crosses into the
    // closure: the smaller its environment, the less each spawn copies.
    let location = Location::caller();
    match context::with_current(|handle| handle.spawn(future, TaskMeta::at(location))) {
        Some(join) => join,
        None => panic!(
            "`rt::spawn` called outside a runtime: call it from a task or inside \
             `Runtime::block_on`, enter a runtime with `Runtime::enter()`, or spawn through \
             a `rt::runtime::Handle`"
        ),
    }
}
