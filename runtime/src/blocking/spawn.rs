//! Blocking tasks: a closure wrapped in a task that a pool thread polls
//! exactly once.
//!
//! They reuse the task system, so the `JoinHandle`, panics and abort work
//! as for async tasks, but they are not in any owned list: runtime
//! shutdown reaches them through the pool's queue instead (queued ones are
//! cancelled, running ones are waited for).

use crate::blocking::pool::Spawner;
use crate::blocking::running_jobs::{JobLabel, RunningJobs};
use crate::driver::time::AutoAdvanceInhibit;
use crate::loom::sync::Arc;
use crate::runtime::context;
use crate::scheduler;
use crate::task::list::OwnedTasks;
use crate::task::{self, JoinError, JoinHandle, Notified, Schedule, TaskMeta};
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

/// Runs `f` on a thread of the runtime's blocking pool and returns a
/// [`JoinHandle`] for its result.
///
/// Use it for work that blocks (synchronous I/O, a slow computation, a
/// blocking library call) so it does not stall the workers that run async
/// tasks. The pool starts threads on demand, up to
/// [`Builder::max_blocking_threads`](crate::runtime::Builder::max_blocking_threads);
/// beyond that, calls wait in a queue. Idle threads exit after
/// [`Builder::thread_keep_alive`](crate::runtime::Builder::thread_keep_alive).
///
/// A panic in `f` is caught: the handle yields a
/// [`JoinError`](crate::task::JoinError) that
/// [`is_panic`](crate::task::JoinError::is_panic). `abort()` only cancels
/// a call that has not started; a running closure cannot be interrupted.
/// At runtime shutdown queued calls are cancelled and running ones are
/// waited for (see [`Runtime`](crate::runtime::Runtime)). Each new pool
/// thread takes the oldest queued call as its own, no longer queued: so a
/// call that found no thread to spare (none idle or starting, and none
/// waiting before it) runs even when the runtime shuts down right after
/// it, before the thread got going, as in tokio.
///
/// # Panics
///
/// Panics when called outside a runtime; use
/// [`Handle::spawn_blocking`](crate::runtime::Handle::spawn_blocking)
/// there. Also panics if the pool has no thread and the OS refuses to
/// start one.
///
/// # Examples
///
/// ```
/// let rt = rt::runtime::Runtime::new().unwrap();
/// let len = rt.block_on(async {
///     rt::task::spawn_blocking(|| std::fs::read_dir(".").unwrap().count())
///         .await
///         .unwrap()
/// });
/// assert!(len > 0);
/// ```
#[track_caller]
pub fn spawn_blocking<F, R>(f: F) -> JoinHandle<R>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    spawn_blocking_as(
        f,
        "rt::spawn_blocking",
        "use `rt::runtime::Handle::spawn_blocking`",
    )
}

/// [`spawn_blocking`] for the methods built on it: a call outside a
/// runtime panics naming `what` (the method the user called) and `instead`
/// (what works there).
#[track_caller]
pub(crate) fn spawn_blocking_as<F, R>(f: F, what: &str, instead: &str) -> JoinHandle<R>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    let meta = TaskMeta::new();
    match context::with_current(|handle| handle.spawn_blocking(f, meta)) {
        Some(join) => join,
        None => crate::runtime::spawn::outside_runtime(what, instead),
    }
}

/// Spawns `f` on `spawner`'s pool; `rt` becomes current on the thread.
///
/// # Panics
///
/// Panics if the pool has no thread and the OS refuses to start one.
pub(crate) fn spawn_blocking_on<F, R>(
    spawner: &Spawner,
    rt: Option<&scheduler::Handle>,
    f: F,
    meta: TaskMeta,
) -> JoinHandle<R>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    match try_spawn_blocking_on(spawner, rt, f, meta) {
        Ok(join) => join,
        Err(error) => panic!(
            "rt: the blocking pool has no thread and could not start one ({error}); lower the \
             load or raise the process's thread limit"
        ),
    }
}

/// As `spawn_blocking_on`, returning the OS error instead of panicking.
/// The call is then cancelled: `f` never runs. A call whose thread the OS
/// refused, but which another pool thread took meanwhile, is no error.
pub(crate) fn try_spawn_blocking_on<F, R>(
    spawner: &Spawner,
    rt: Option<&scheduler::Handle>,
    f: F,
    meta: TaskMeta,
) -> io::Result<JoinHandle<R>>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    let schedule = BlockingSchedule {
        inhibit: rt.and_then(|rt| AutoAdvanceInhibit::new(rt.driver())),
    };
    let listed = spawner.running_jobs().map(|running| {
        let label = JobLabel {
            name: meta.name.clone(),
            location: meta.location,
        };
        Box::new((running.clone(), label))
    });
    let blocking = BlockingTask { f: Some(f), listed };
    let (task, join) = task::new_unowned_task(blocking, schedule, meta);
    match spawner.spawn_task(task, rt) {
        Ok(()) => Ok(join),
        // The task waits in the queue for a thread that may start later,
        // and a thread may have taken it already (the one it was to start
        // for was offered to busy threads, spawning step 3): the call
        // fails only if the task is cancelled before it starts, so a
        // caller told it failed never sees it run, and one whose closure
        // runs is not told it failed.
        Err(error) if join.cancel_unless_started() => Err(error),
        Err(_) => Ok(join),
    }
}

/// The future of a blocking task: calls the closure on its only poll.
struct BlockingTask<F> {
    f: Option<F>,
    /// Where the closure lists itself while it runs, and as what; `None`
    /// unless the watchdog is on (`running_jobs.rs`). Boxed, so that a
    /// job the watchdog does not watch carries one word for it.
    listed: Option<Box<(Arc<RunningJobs>, JobLabel)>>,
}

impl<F> Unpin for BlockingTask<F> {}

impl<F, R> Future for BlockingTask<F>
where
    F: FnOnce() -> R,
{
    type Output = R;

    fn poll(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<R> {
        let f = self
            .f
            .take()
            .expect("rt: a blocking task is polled once, as it never returns Pending");
        let listed = self.listed.take();
        // Without a budget, as tokio's: the closure may drive futures on
        // its thread (`futures::executor::block_on`), and the poll's budget
        // is never refilled there, so once spent they would only spin.
        Poll::Ready(crate::task::coop::without_budget(|| match listed {
            None => f(),
            Some(listed) => {
                let (running, label) = *listed;
                running.run(label, f)
            }
        }))
    }
}

/// The scheduler of blocking tasks: they are queued once, by the pool.
struct BlockingSchedule {
    /// Keeps a paused clock from auto-advancing until the task's result
    /// can be seen: let go once the task completed and woke its
    /// `JoinHandle` (`completed`), not when the future is dropped, which
    /// comes before that wake-up. In between the runtime has no work it
    /// can see and nothing holding the clock, and would jump it to the
    /// next timer (a `timeout` around the handle then fires).
    inhibit: Option<AutoAdvanceInhibit>,
}

impl Schedule for BlockingSchedule {
    fn schedule(&self, _task: Notified) {
        // A task is rescheduled only when woken after returning Pending;
        // `BlockingTask` never returns Pending and ignores its waker.
        unreachable!("rt: a blocking task was woken after it ran");
    }

    fn owned_tasks(&self) -> Option<&OwnedTasks> {
        None
    }

    fn completed(&self) {
        if let Some(inhibit) = &self.inhibit {
            inhibit.release();
        }
    }
}

/// Awaits a blocking job of the runtime's own that returns an I/O result:
/// its result, or [`job_error`] if it returned none.
pub(crate) async fn join_job<T>(handle: JoinHandle<io::Result<T>>) -> io::Result<T> {
    match handle.await {
        Ok(result) => result,
        Err(join_error) => Err(job_error(join_error)),
    }
}

/// The I/O error for a blocking job of the runtime's own (a file
/// operation, a host-name lookup, a stdio write) that did not return a
/// result. Nothing aborts these jobs, so a cancelled one was cancelled by
/// the runtime's shutdown: the error is the shutdown error
/// ([`is_rt_shutdown_err`](crate::runtime::is_rt_shutdown_err)), as a
/// socket's is, rather than the cancelled task's, which names a task the
/// caller never spawned. A panic keeps its message.
pub(crate) fn job_error(error: JoinError) -> io::Error {
    if error.is_cancelled() {
        rt_reactor::shutdown_error()
    } else {
        error.into()
    }
}
