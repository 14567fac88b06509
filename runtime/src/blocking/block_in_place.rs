//! `block_in_place`: block the current worker thread without stalling the
//! tasks queued on it (see `scheduler/multi_thread/handoff.rs`).

use crate::blocking::HandoffError;
use crate::runtime::context;
use crate::scheduler::{self, multi_thread};

/// Runs the blocking closure `f` on the current thread, first handing this
/// worker's queued tasks to another thread so they keep running.
///
/// On a multi-thread runtime worker, the worker's queues move to a thread
/// of the blocking pool, which becomes a worker in its place; `f` then
/// runs here, and may block (even call
/// [`Handle::block_on`](crate::runtime::Handle::block_on)). The task that
/// called `block_in_place` keeps this thread until its current poll
/// returns, so other futures it joins with (`join!`, `select!`) do not make
/// progress while `f` runs; prefer [`spawn_blocking`](crate::task::spawn_blocking)
/// where the closure can be `'static`.
///
/// Outside a runtime, or inside `block_on` of a multi-thread runtime, `f`
/// just runs. So it does in a task of a `LocalSet` that such a `block_on`
/// drives, whose other tasks wait meanwhile (tokio panics there). If the
/// runtime is shutting down, `f` runs without a hand-off.
///
/// `f` runs without a cooperative budget (as in tokio): runtime resources
/// never make it yield, so it may drive futures to completion on the spot
/// (with `futures::executor::block_on`, say) however many values they
/// take. Once it returns, the task's budget is back as it was: the rest of
/// the poll still yields when it runs out.
///
/// # Panics
///
/// Panics when called on a current-thread runtime (in a task or its
/// `block_on`), which has no other thread to run its tasks: use
/// `spawn_blocking` or a multi-thread runtime. A task's destructor run by
/// that runtime's shutdown may call it (`f` just runs), as in tokio. (If
/// the OS refuses the thread for the hand-off, `f` runs with the worker's
/// core kept, its queued tasks left for the other workers to steal.)
///
/// # Examples
///
/// ```
/// let rt = rt::runtime::Runtime::new().unwrap();
/// let sum = rt.block_on(rt.spawn(async {
///     rt::task::block_in_place(|| {
///         // Blocking is fine here.
///         std::thread::sleep(std::time::Duration::from_millis(1));
///         (1..=10).sum::<u32>()
///     })
/// }));
/// assert_eq!(sum.unwrap(), 55);
/// ```
#[track_caller]
pub fn block_in_place<F, R>(f: F) -> R
where
    F: FnOnce() -> R,
{
    // Only inside the runtime (a task or `block_on`), as tokio: the
    // destructors a current-thread runtime's shutdown runs (on the thread
    // dropping it, its scheduler installed but not entered) block no task
    // by blocking, so `f` just runs there.
    let on_current_thread = context::is_entered()
        && (context::with_scheduler(|cx| matches!(cx, Some(scheduler::Context::CurrentThread(_))))
            || context::with_current(|h| matches!(h, scheduler::Handle::CurrentThread(_)))
                .unwrap_or(false));
    if on_current_thread {
        panic!(
            "`rt::task::block_in_place` called on a current-thread runtime, which has no other \
             thread to run its tasks meanwhile: use `rt::task::spawn_blocking`, or build the \
             runtime with `Builder::new_multi_thread()`"
        );
    }
    let handoff = context::with_scheduler(|cx| match cx {
        Some(scheduler::Context::MultiThread(cx)) => multi_thread::hand_off_core(cx),
        _ => Ok(()),
    });
    match handoff {
        // Shutting down: the workers are stopping, nothing to keep running.
        Ok(()) | Err(HandoffError::ShutDown) => {}
        // The OS refused the thread (a pids limit): `f` runs here with the
        // core kept, its tasks all left where the other workers steal
        // them, so the limit slows them down instead of failing the call
        // (tokio panics).
        Err(HandoffError::Spawn) => context::with_scheduler(|cx| {
            if let Some(scheduler::Context::MultiThread(cx)) = cx {
                multi_thread::make_core_stealable(cx);
            }
        }),
    }
    // Outside a worker (a multi-thread runtime's `block_on`), the closure
    // runs right here: the blocking is intended, so the watchdog stops
    // watching the `block_on` future's poll, as it does a worker's once
    // its core is handed off.
    crate::runtime::block_on_calls::blocks_on_purpose();
    crate::task::coop::without_budget(|| context::exit_runtime(f))
}
