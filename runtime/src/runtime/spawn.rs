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
    spawn_as(future, "rt::spawn", "spawn through a `rt::runtime::Handle`")
}

/// [`spawn`] for the spawn methods built on it: a call outside a runtime
/// panics naming `what` (the method the user called) and `instead` (what
/// works there).
#[track_caller]
pub(crate) fn spawn_as<F>(future: F, what: &str, instead: &str) -> JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    // The location only, not the whole `TaskMeta`, crosses into the
    // closure: the smaller its environment, the less each spawn copies.
    let location = Location::caller();
    match context::with_current(|handle| handle.spawn(future, TaskMeta::at(location))) {
        Some(join) => join,
        None => outside_runtime(what, instead),
    }
}

/// The panic of a spawn outside a runtime, naming the call and the fix.
#[cold]
#[track_caller]
pub(crate) fn outside_runtime(what: &str, instead: &str) -> ! {
    panic!(
        "`{what}` called outside a runtime: call it from a task or inside \
         `Runtime::block_on`, enter a runtime with `Runtime::enter()`, or {instead}"
    )
}
