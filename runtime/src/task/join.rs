//! `JoinHandle` and `AbortHandle`.

use crate::task::coop;
use crate::task::error::JoinError;
use crate::task::id::Id;
use crate::task::raw::RawTask;
use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

/// An owned permission to await a spawned task's output.
///
/// Awaiting it yields `Ok(output)`, or a [`JoinError`] if the task panicked
/// or was cancelled. Dropping it detaches the task: the task keeps running
/// and its output is dropped when it finishes.
///
/// A task that finishes while its handle is held keeps its output for the
/// handle, and [`Handle::dump`](crate::runtime::Handle::dump) lists it as
/// [complete](crate::runtime::TaskState::Complete) until the handle is
/// awaited or dropped: a handle stored and forgotten shows there. The
/// output stays readable after the runtime is dropped.
///
/// # Examples
///
/// ```
/// let rt = rt::runtime::Runtime::new().unwrap();
/// let handle = rt.spawn(async { 6 * 7 });
/// assert_eq!(rt.block_on(handle).unwrap(), 42);
/// ```
pub struct JoinHandle<T> {
    raw: RawTask,
    _output: PhantomData<T>,
}

// SAFETY: the handle only moves the output out of the task, so it is `Send`
// when the output is.
unsafe impl<T: Send> Send for JoinHandle<T> {}
// SAFETY: `&JoinHandle` exposes only the atomic state (is_finished, abort).
unsafe impl<T: Send> Sync for JoinHandle<T> {}

impl<T> Unpin for JoinHandle<T> {}

// Unwind-safe, as tokio's: a `JoinHandle` changes the task only through
// single transitions of its atomic state word (and the output those hand
// over), so a panic caught while one is borrowed or moved leaves no
// half-made change behind; the output is read once, by the handle.
impl<T> std::panic::UnwindSafe for JoinHandle<T> {}
impl<T> std::panic::RefUnwindSafe for JoinHandle<T> {}

impl<T> JoinHandle<T> {
    /// # Safety
    /// `raw` must be a task with output type `T`, and the caller gives the
    /// handle the join interest and one reference.
    pub(super) unsafe fn new(raw: RawTask) -> JoinHandle<T> {
        JoinHandle {
            raw,
            _output: PhantomData,
        }
    }

    /// Cancels the task. Its future is dropped by the task's runtime, never
    /// on the calling thread: an idle task is scheduled and a worker drops
    /// it; a task being polled is dropped when that poll returns. So
    /// `abort` may be called from any thread, outside a runtime or while
    /// holding a lock the future's destructor takes. Awaiting the handle
    /// then yields a cancelled [`JoinError`], unless the task had already
    /// finished.
    ///
    /// A task whose runtime has shut down was cancelled by the shutdown.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let handle = rt.spawn(std::future::pending::<()>());
    /// handle.abort();
    /// assert!(rt.block_on(handle).unwrap_err().is_cancelled());
    /// ```
    pub fn abort(&self) {
        self.raw.remote_abort();
    }

    /// For a spawn call that failed after queuing its task: cancels the
    /// task unless a thread already started it. `true` if it will never
    /// run; `false` if it runs or ran, and the call must not report a
    /// failure.
    pub(crate) fn cancel_unless_started(&self) -> bool {
        self.raw.cancel_unless_started()
    }

    /// `true` once the task has finished (completed, panicked or was
    /// cancelled). Never blocks.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let handle = rt.spawn(async {});
    /// rt.block_on(async { while !handle.is_finished() { rt::task::yield_now().await } });
    /// assert!(handle.is_finished());
    /// ```
    pub fn is_finished(&self) -> bool {
        self.raw.header().state.load().is_complete()
    }

    /// A handle that can abort the task without owning its output.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let handle = rt.spawn(std::future::pending::<()>());
    /// let abort = handle.abort_handle();
    /// abort.abort();
    /// assert!(rt.block_on(handle).unwrap_err().is_cancelled());
    /// ```
    pub fn abort_handle(&self) -> AbortHandle {
        AbortHandle::new(self.raw)
    }

    /// The task's id.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let a = rt.spawn(async {});
    /// let b = rt.spawn(async {});
    /// assert_ne!(a.id(), b.id());
    /// ```
    pub fn id(&self) -> Id {
        self.raw.id()
    }
}

impl<T> Future for JoinHandle<T> {
    type Output = Result<T, JoinError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let progress = ready!(coop::poll_proceed(cx));
        let mut output: Poll<Result<T, JoinError>> = Poll::Pending;
        // SAFETY: `output` has the task's output type, and this handle holds
        // the join interest.
        unsafe {
            self.raw.try_read_output(
                (&mut output as *mut Poll<Result<T, JoinError>>).cast(),
                cx.waker(),
            )
        };
        if output.is_ready() {
            progress.made_progress();
        } else {
            crate::task::waits::record_join(self.raw.id());
        }
        output
    }
}

impl<T> Drop for JoinHandle<T> {
    fn drop(&mut self) {
        // SAFETY: the handle owns the join interest and a reference.
        unsafe { self.raw.drop_join_handle() };
    }
}

impl<T> fmt::Debug for JoinHandle<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JoinHandle")
            .field("id", &self.id())
            .finish()
    }
}

/// Permission to abort a task, without its output.
///
/// Dropping it does nothing to the task.
///
/// # Examples
///
/// ```
/// let rt = rt::runtime::Runtime::new().unwrap();
/// let handle = rt.spawn(std::future::pending::<()>());
/// let abort = handle.abort_handle();
/// assert!(!abort.is_finished());
/// abort.abort();
/// assert!(rt.block_on(handle).unwrap_err().is_cancelled());
/// ```
pub struct AbortHandle {
    raw: RawTask,
    /// Counted among the task's abort handles (the first 255 are), which
    /// lets the dump tell them from wakers (`state.rs`).
    counted: bool,
}

impl AbortHandle {
    fn new(raw: RawTask) -> AbortHandle {
        let counted = raw.header().state.abort_handle_inc();
        AbortHandle { raw, counted }
    }

    /// Cancels the task, as [`JoinHandle::abort`].
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let task = rt.spawn(std::future::pending::<()>());
    /// task.abort_handle().abort();
    /// assert!(rt.block_on(task).unwrap_err().is_cancelled());
    /// ```
    pub fn abort(&self) {
        self.raw.remote_abort();
    }

    /// `true` once the task has finished.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let task = rt.spawn(async {});
    /// let abort = task.abort_handle();
    /// rt.block_on(task).unwrap();
    /// assert!(abort.is_finished());
    /// ```
    pub fn is_finished(&self) -> bool {
        self.raw.header().state.load().is_complete()
    }

    /// Whether the task is idle with no waker of it left
    /// (`state::Snapshot::has_lost_waker`): a simulation's failure names
    /// such tasks.
    #[cfg(feature = "sim")]
    pub(crate) fn has_lost_waker(&self) -> bool {
        self.raw.header().state.load().has_lost_waker()
    }

    /// The task's id.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let task = rt.spawn(async {});
    /// assert_eq!(task.abort_handle().id(), task.id());
    /// ```
    pub fn id(&self) -> Id {
        self.raw.id()
    }
}

// Unwind-safe, as tokio's: an `AbortHandle` only sets the task's
// CANCELLED bit, one atomic transition.
impl std::panic::UnwindSafe for AbortHandle {}
impl std::panic::RefUnwindSafe for AbortHandle {}

impl Clone for AbortHandle {
    fn clone(&self) -> AbortHandle {
        AbortHandle::new(self.raw)
    }
}

impl Drop for AbortHandle {
    fn drop(&mut self) {
        if self.raw.header().state.abort_handle_dec(self.counted) {
            // SAFETY: the handle owned a reference, and it was the last.
            unsafe { self.raw.dealloc() };
        }
    }
}

impl fmt::Debug for AbortHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AbortHandle")
            .field("id", &self.id())
            .finish()
    }
}
