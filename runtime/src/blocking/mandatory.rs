//! Mandatory blocking jobs: the runtime's own jobs that must run once the
//! caller was told they will (a write to a file or to stdout that already
//! returned `Ok`), even if the runtime shuts down before a pool thread
//! takes them. tokio runs the same writes as "mandatory" blocking jobs.
//!
//! At shutdown the pool drops queued jobs unrun (their `JoinHandle`s
//! yield `Cancelled`). A mandatory job's closure travels in an `Unrun`
//! guard whose destructor runs it instead, and a fate shared with the
//! awaiting [`MandatoryJob`] says whether it must:
//!
//! 1. [`spawn_mandatory`] puts the closure in its guard (fate `Spawning`)
//!    and spawns the guard as an ordinary blocking job;
//! 2. a pool thread that runs the job takes the closure out of the guard
//!    before calling it, so the guard's drop does nothing; a panic in the
//!    closure is the task's, as for any blocking job;
//! 3. a guard dropped with its closure while the fate is `Spawning` was
//!    refused by the pool inside the spawn call (already shut down, or
//!    shut down between its push and its re-check of the flag): the fate
//!    becomes `Refused` and the closure is dropped unrun;
//! 4. once the spawn call returns: if it failed (the pool had no thread
//!    and the OS refused one; the call cancelled the job before any
//!    thread started it), the fate becomes `Refused` and the caller gets
//!    the OS error; the job was cancelled in the call (a pool with no
//!    thread fails every queued job: spawning step 6 in `pool.rs`), or
//!    is dropped unrun when a thread takes it. Else, if the fate is
//!    `Refused`, the caller gets the shutdown error. Either way the
//!    caller must treat the work as not done. Else the fate becomes
//!    `Accepted` and the caller may report success.
//!    Steps 3 and 4 take the same lock, so exactly one of them comes
//!    first: a job is refused or accepted, never both (a pool thread may
//!    also run the job before the spawn call returns: step 2, then
//!    nothing is left to refuse);
//! 5. a guard dropped with its closure while the fate is `Accepted` (the
//!    pool cancelled the queued job) runs the closure as it is dropped,
//!    on the dropping thread: the one shutting the pool down, so a
//!    shutdown, even `shutdown_background`, waits for it; or a producer
//!    or a pool thread that met the shutdown flag and cancelled the
//!    queue. No lock is held while the closure runs; its result is then
//!    stored in the fate (`RanOnDrop`). This happens even if the
//!    `MandatoryJob` is gone (a `File` dropped with a write in flight):
//!    the work was accepted. A panic in the closure there unwinds into
//!    the task's drop of its future, which catches it: the `JoinHandle`
//!    yields that panic;
//! 6. the awaiting [`MandatoryJob`] yields the job's result from the
//!    `JoinHandle` if it ran on a pool thread, its panic as an I/O error
//!    ([`job_error`]), or, if the handle says `Cancelled`, the result
//!    stored at step 5: the task drops its future (step 5 runs) before it
//!    completes the handle, so the result is there by then.
//!
//! The loom model `loom_blocking_mandatory_jobs_racing_shutdown` (in
//! `loom_pool.rs`) races two spawns with the pool's shutdown: each job is
//! refused and never runs, or is accepted and has run once, its result
//! awaited, when both are done. It fails if step 5 drops the closure.

use crate::blocking::job_error;
use crate::loom::sync::{Arc, Mutex, MutexGuard};
use crate::scheduler;
use crate::task::{JoinHandle, TaskMeta};
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

/// What became of a mandatory job's closure, as far as its guard's drop
/// must know (steps 3-5 of the module docs).
enum Fate<R> {
    /// The spawn call has not returned: a guard dropped now was refused.
    Spawning,
    /// The spawn call returned `Ok`: a guard dropped now runs its closure.
    Accepted,
    /// The guard was dropped during the spawn call, or the call failed;
    /// nothing ran, and a guard dropped now runs nothing.
    Refused,
    /// The guard was dropped after the spawn call and ran the closure:
    /// its result, until the `MandatoryJob` takes it.
    RanOnDrop(R),
}

type SharedFate<R> = Arc<Mutex<Fate<R>>>;

fn lock<R>(fate: &Mutex<Fate<R>>) -> MutexGuard<'_, Fate<R>> {
    // Nothing panics while the lock is held: the closure runs unlocked.
    fate.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The closure of a mandatory job, as the pool holds it: run by a pool
/// thread (step 2), or by its destructor if dropped unrun after it was
/// accepted (step 5).
pub(super) struct Unrun<F: FnOnce() -> R, R> {
    /// `None` once a pool thread took it.
    f: Option<F>,
    fate: SharedFate<R>,
}

impl<F, R> Unrun<F, R>
where
    F: FnOnce() -> R,
{
    /// Step 2.
    pub(super) fn run(mut self) -> R {
        let f = self.f.take().expect("rt: a mandatory job runs once");
        f()
    }
}

impl<F, R> Drop for Unrun<F, R>
where
    F: FnOnce() -> R,
{
    fn drop(&mut self) {
        let Some(f) = self.f.take() else {
            return;
        };
        {
            let mut fate = lock(&self.fate);
            if !matches!(*fate, Fate::Accepted) {
                // Step 3, or a job whose spawn call failed (step 4); `f`
                // is dropped unrun, after the lock.
                *fate = Fate::Refused;
                return;
            }
        }
        // Step 5, unlocked: only this guard writes the fate from here on,
        // and the awaiting side reads it only once the task completed.
        let result = f();
        *lock(&self.fate) = Fate::RanOnDrop(result);
    }
}

/// Runs `f` on `rt`'s blocking pool as a mandatory job (see the module
/// docs): once this returns `Ok`, `f` runs, on a pool thread or, if the
/// runtime shuts down first, as the pool drops the job.
///
/// # Errors
///
/// The shutdown error ([`is_rt_shutdown_err`](crate::runtime::is_rt_shutdown_err))
/// if the pool refused the job (it had shut down), or the OS error if the
/// pool had no thread and the OS refused to start one: `f` never runs.
pub(crate) fn spawn_mandatory<F, R>(
    rt: &scheduler::Handle,
    f: F,
    meta: TaskMeta,
) -> io::Result<MandatoryJob<R>>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    spawn_mandatory_with(f, |unrun| rt.try_spawn_blocking(move || unrun.run(), meta))
}

/// As [`spawn_mandatory`], on whatever pool `spawn` hands the guard to,
/// as a job that calls [`Unrun::run`] (the loom models use a bare pool).
pub(super) fn spawn_mandatory_with<F, R>(
    f: F,
    spawn: impl FnOnce(Unrun<F, R>) -> io::Result<JoinHandle<R>>,
) -> io::Result<MandatoryJob<R>>
where
    F: FnOnce() -> R,
{
    let fate = Arc::new(Mutex::new(Fate::Spawning));
    let unrun = Unrun {
        f: Some(f),
        fate: fate.clone(),
    };
    let spawned = spawn(unrun);
    // Step 4.
    let mut fate_now = lock(&fate);
    let handle = match spawned {
        Ok(handle) => handle,
        Err(error) => {
            *fate_now = Fate::Refused;
            return Err(error);
        }
    };
    if let Fate::Refused = *fate_now {
        return Err(rt_reactor::shutdown_error());
    }
    *fate_now = Fate::Accepted;
    drop(fate_now);
    Ok(MandatoryJob { handle, fate })
}

/// A mandatory job the pool accepted: a future of its result (step 6).
pub(crate) struct MandatoryJob<R> {
    handle: JoinHandle<R>,
    fate: SharedFate<R>,
}

impl<R> MandatoryJob<R> {
    /// `true` once the job ran, on a pool thread or as it was dropped.
    pub(crate) fn is_finished(&self) -> bool {
        self.handle.is_finished()
    }
}

impl<R> Future for MandatoryJob<R> {
    type Output = io::Result<R>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<R>> {
        let error = match ready!(Pin::new(&mut self.handle).poll(cx)) {
            Ok(result) => return Poll::Ready(Ok(result)),
            Err(error) => error,
        };
        if error.is_cancelled() {
            let ran = std::mem::replace(&mut *lock(&self.fate), Fate::Accepted);
            if let Fate::RanOnDrop(result) = ran {
                return Poll::Ready(Ok(result));
            }
        }
        Poll::Ready(Err(job_error(error)))
    }
}

/// A blocking job of the runtime's own I/O: cancelled if still queued at
/// shutdown (a read, a seek), or mandatory (a write). Yields the job's
/// result, or the I/O error of [`job_error`].
pub(crate) enum IoJob<R> {
    Cancellable(JoinHandle<R>),
    Mandatory(MandatoryJob<R>),
}

impl<R> IoJob<R> {
    /// `true` once the job ended (or was cancelled).
    pub(crate) fn is_finished(&self) -> bool {
        match self {
            IoJob::Cancellable(handle) => handle.is_finished(),
            IoJob::Mandatory(job) => job.is_finished(),
        }
    }
}

impl<R> Future for IoJob<R> {
    type Output = io::Result<R>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<R>> {
        match self.get_mut() {
            IoJob::Cancellable(handle) => {
                Poll::Ready(ready!(Pin::new(handle).poll(cx)).map_err(job_error))
            }
            IoJob::Mandatory(job) => Pin::new(job).poll(cx),
        }
    }
}
