//! `TaskGroup`: structured concurrency, like Trio's nursery or Python's
//! `asyncio.TaskGroup`.
//!
//! Protocol of [`TaskGroup::scope`] (one future, polled by the caller):
//! 1. poll the body (the closure's future) until it finishes;
//! 2. join finished children as they finish (through a [`JoinSet`]);
//! 3. on the first failure (the body or a child returns `Err`, or a child
//!    panics): record it, switch to cancelling (children spawned from now
//!    on are aborted at once, and a child first polled from now on never
//!    runs: it waits for its abort), then drop the body (so children its
//!    destructors spawn are among those), abort every child and keep
//!    joining;
//! 4. when the body is done and the set is empty, close the group (later
//!    `spawn` calls panic) and return the body's value or the failure.
//!
//! A scope dropped before it returned (its task aborted, a `timeout` or a
//! `select!` it lost) does the same, in the same order, and aborts every
//! child. Children may
//! still be in the middle of a poll on other workers, and the destructors
//! of the aborted ones run later: both may spawn, as they may after a
//! failure, so the group is left `Abandoned`, where a new child is
//! aborted at once (and kept by no one) instead of the spawn panicking.
//!
//! The group lock is never held while user code runs. Aborting a child
//! runs none: its runtime drops the child's future on a worker, never on
//! the thread whose scope is exiting (`JoinHandle::abort`), so children
//! are aborted under the lock.

use crate::loom::sync::Mutex;
use crate::loom::sync::atomic::{AtomicBool, Ordering};
use crate::runtime::Handle;
use crate::task::{AbortHandle, JoinError, JoinSet};
use std::fmt;
use std::future::Future;
use std::pin::Pin;
// std's Arc: the handle is public API and is moved into user tasks.
use std::sync::Arc;
use std::task::{Context, Poll};

/// A handle to spawn children into a [`scope`](TaskGroup::scope).
/// Cloneable; every child is `'static + Send` since it is a spawned task,
/// and is joined (or cancelled) before the scope returns.
///
/// # Examples
///
/// ```
/// use rt::task::TaskGroup;
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use std::sync::Arc;
///
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let done = Arc::new(AtomicUsize::new(0));
///     let result = TaskGroup::<()>::scope(|group| {
///         let done = done.clone();
///         async move {
///             for _ in 0..5 {
///                 let done = done.clone();
///                 group.spawn(async move {
///                     done.fetch_add(1, Ordering::SeqCst);
///                     Ok(())
///                 });
///             }
///             Ok("body done")
///         }
///     })
///     .await;
///     assert_eq!(result.unwrap(), "body done");
///     // Every child finished before `scope` returned.
///     assert_eq!(done.load(Ordering::SeqCst), 5);
/// });
/// ```
pub struct TaskGroup<E> {
    shared: Arc<Shared<E>>,
}

struct Shared<E> {
    state: Mutex<GroupState<E>>,
    /// The runtime children go to: the one current when the scope was made.
    runtime: Option<Handle>,
    /// Set, under the lock, when the phase leaves `Open` for `Cancelling`
    /// or `Abandoned`; every child holds a clone (see `TaskGroup::spawn`).
    cancelled: Arc<AtomicBool>,
}

struct GroupState<E> {
    tasks: JoinSet<Result<(), E>>,
    phase: Phase,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Open,
    /// A failure happened: new children are aborted at once.
    Cancelling,
    /// The scope was dropped before it returned: new children are aborted
    /// at once, and nobody joins them.
    Abandoned,
    /// The scope returned, every child joined: spawning is a bug.
    Closed,
}

/// Why a [`TaskGroup::scope`] failed: the first failure, after which the
/// other children were cancelled.
///
/// # Examples
///
/// ```
/// use rt::task::{GroupError, TaskGroup};
///
/// let rt = rt::runtime::Runtime::new().unwrap();
/// let result: Result<(), _> = rt.block_on(TaskGroup::scope(|group| async move {
///     group.spawn(async { Err("bad input") });
///     Ok(())
/// }));
/// assert!(matches!(result, Err(GroupError::Failed("bad input"))));
/// ```
pub enum GroupError<E> {
    /// The body or a child returned this error.
    Failed(E),
    /// A child panicked; [`JoinError::into_panic`] has the payload.
    Panicked(JoinError),
}

impl<E: fmt::Debug> fmt::Debug for GroupError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GroupError::Failed(e) => f.debug_tuple("Failed").field(e).finish(),
            GroupError::Panicked(e) => f.debug_tuple("Panicked").field(e).finish(),
        }
    }
}

impl<E: fmt::Display> fmt::Display for GroupError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GroupError::Failed(e) => write!(f, "task group failed: {e}"),
            GroupError::Panicked(e) => write!(f, "task group child panicked: {e}"),
        }
    }
}

impl<E: fmt::Debug + fmt::Display> std::error::Error for GroupError<E> {}

impl<E> Clone for TaskGroup<E> {
    fn clone(&self) -> TaskGroup<E> {
        TaskGroup {
            shared: self.shared.clone(),
        }
    }
}

impl<E: Send + 'static> TaskGroup<E> {
    /// Runs `body` with a group handle, and returns once the body and
    /// every child spawned into the group have finished.
    ///
    /// The first failure (the body or a child returning `Err`, or a child
    /// panicking) cancels the body and all other children; once they have
    /// all stopped, it is returned. Otherwise the body's `Ok` value is
    /// returned. A child aborted through its own [`AbortHandle`] is not a
    /// failure.
    ///
    /// Dropping the returned future (cancelling the scope) aborts every
    /// child and waits for nothing: children that are idle are dropped
    /// right away on the dropping thread; a child in the middle of a poll
    /// on another worker is dropped by that worker when that poll returns,
    /// and is never polled again. Spawning into the group afterwards panics.
    ///
    /// The body runs inside the returned future (it is not spawned), so it
    /// may borrow from the caller and need not be `Send`; children are
    /// spawned tasks, so they must be `'static + Send`. Children go to the
    /// runtime current when `scope` is called (or, if none, the one
    /// current where `spawn` is called).
    ///
    /// # Errors
    ///
    /// The first [`GroupError`].
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::task::{GroupError, TaskGroup};
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let result: Result<(), GroupError<String>> = TaskGroup::scope(|group| async move {
    ///         group.spawn(std::future::pending()); // cancelled by the failure below
    ///         group.spawn(async { Err("child failed".to_string()) });
    ///         Ok(())
    ///     })
    ///     .await;
    ///     assert_eq!(result.unwrap_err().to_string(), "task group failed: child failed");
    /// });
    /// ```
    pub fn scope<F, Fut, T>(body: F) -> Scope<Fut, T, E>
    where
        F: FnOnce(TaskGroup<E>) -> Fut,
        Fut: Future<Output = Result<T, E>>,
    {
        let group = TaskGroup {
            shared: Arc::new(Shared {
                state: Mutex::new(GroupState {
                    tasks: JoinSet::new(),
                    phase: Phase::Open,
                }),
                runtime: Handle::try_current().ok(),
                cancelled: Arc::new(AtomicBool::new(false)),
            }),
        };
        let body = Box::pin(body(group.clone()));
        Scope {
            group,
            body: Some(body),
            output: None,
            failure: None,
        }
    }

    /// Spawns a child into the group. If the group is already cancelling
    /// (after a failure, or because the scope was dropped before it
    /// returned) the child is aborted at once.
    ///
    /// # Panics
    ///
    /// Panics if the scope has already returned (a clone of the handle
    /// escaped it): spawn children only while the scope runs.
    /// Panics outside a runtime if the scope was created outside one.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::task::TaskGroup;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let result = rt.block_on(TaskGroup::<()>::scope(|group| async move {
    ///     let (tx, rx) = rt::sync::oneshot::channel();
    ///     group.spawn(async move { tx.send(5).unwrap(); Ok(()) });
    ///     Ok(rx.await.unwrap())
    /// }));
    /// assert_eq!(result.unwrap(), 5);
    /// ```
    #[track_caller]
    pub fn spawn<F>(&self, child: F) -> AbortHandle
    where
        F: Future<Output = Result<(), E>> + Send + 'static,
    {
        if self.lock().phase == Phase::Closed {
            closed_group_spawn();
        }
        // A child spawned into a cancelling group is aborted right after
        // it is queued, but on a multi-thread runtime another worker may
        // start it first: one that finds the group cancelled when it is
        // first polled waits for that abort instead of running. (The flag
        // was set before the phase this spawn will read, and the queue
        // that hands the task over orders the two.)
        let cancelled = self.shared.cancelled.clone();
        let child = async move {
            if cancelled.load(Ordering::Acquire) {
                std::future::pending::<()>().await;
            }
            child.await
        };
        // Spawned with no lock held: a runtime that shut down drops the
        // child at once, here, and its destructor may use the group.
        let handle = match &self.shared.runtime {
            Some(runtime) => runtime.spawn(child),
            None => crate::spawn(child),
        };
        let mut state = self.lock();
        let phase = state.phase;
        if phase == Phase::Closed {
            // The scope ended meanwhile, which only a handle that escaped
            // it can see: the same misuse as above.
            drop(state);
            handle.abort();
            closed_group_spawn();
        }
        if phase == Phase::Abandoned {
            drop(state);
            handle.abort();
            return handle.abort_handle();
        }
        let abort = state.tasks.insert(handle);
        drop(state);
        if phase == Phase::Cancelling {
            abort.abort();
        }
        abort
    }

    fn lock(&self) -> crate::loom::sync::MutexGuard<'_, GroupState<E>> {
        self.shared.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Switches to `phase` (`Cancelling` or `Abandoned`): from now
    /// on a new child is aborted at once and never runs. Called before the
    /// body is dropped, so children its destructors spawn are among them.
    fn stop_accepting(&self, phase: Phase) {
        let mut state = self.lock();
        if state.phase != Phase::Closed {
            state.phase = phase;
            self.shared.cancelled.store(true, Ordering::Release);
        }
    }

    /// Aborts every child in the set.
    fn abort_children(&self) {
        self.lock().tasks.abort_all();
    }
}

#[track_caller]
fn closed_group_spawn() -> ! {
    panic!(
        "`TaskGroup::spawn` called after its scope ended: spawn children only from \
         the scope's body or from its children, while `TaskGroup::scope` is running"
    )
}

impl<E> fmt::Debug for TaskGroup<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.shared.state.lock().unwrap_or_else(|e| e.into_inner());
        f.debug_struct("TaskGroup")
            .field("children", &state.tasks.len())
            .field("phase", &state.phase)
            .finish()
    }
}

/// The future returned by [`TaskGroup::scope`]. Dropping it cancels the
/// group (see there).
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct Scope<Fut, T, E: Send + 'static> {
    group: TaskGroup<E>,
    body: Option<Pin<Box<Fut>>>,
    output: Option<T>,
    failure: Option<GroupError<E>>,
}

// No field is ever pinned in place: the body is boxed.
impl<Fut, T, E: Send + 'static> Unpin for Scope<Fut, T, E> {}

impl<Fut, T, E> Scope<Fut, T, E>
where
    Fut: Future<Output = Result<T, E>>,
    E: Send + 'static,
{
    /// Step 3: keep the first failure, cancel the body and the children.
    fn fail(&mut self, failure: GroupError<E>) {
        if self.failure.is_none() {
            self.failure = Some(failure);
        }
        self.group.stop_accepting(Phase::Cancelling);
        self.body = None;
        self.group.abort_children();
    }
}

impl<Fut, T, E> Future for Scope<Fut, T, E>
where
    Fut: Future<Output = Result<T, E>>,
    E: Send + 'static,
{
    type Output = Result<T, GroupError<E>>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        // Step 1.
        if let Some(body) = &mut this.body {
            if let Poll::Ready(result) = body.as_mut().poll(cx) {
                this.body = None;
                match result {
                    Ok(value) => this.output = Some(value),
                    Err(error) => this.fail(GroupError::Failed(error)),
                }
            }
        }
        // Step 2. The joiner waker the set replaces is dropped after the
        // group lock is released: its destructor may spawn into the group.
        let mut replaced = None;
        loop {
            let mut state = this.group.lock();
            let joined = state.tasks.poll_join_next_replacing(cx, &mut replaced);
            if let Poll::Ready(None) = joined {
                if this.body.is_none() {
                    // Step 4: closed under the lock that saw the set empty.
                    state.phase = Phase::Closed;
                    drop(state);
                    drop(replaced);
                    return Poll::Ready(match this.failure.take() {
                        Some(failure) => Err(failure),
                        None => Ok(this.output.take().expect("scope polled after it returned")),
                    });
                }
            }
            drop(state);
            drop(replaced.take());
            match joined {
                Poll::Ready(Some(Ok(Ok(())))) => {}
                Poll::Ready(Some(Ok(Err(error)))) => this.fail(GroupError::Failed(error)),
                Poll::Ready(Some(Err(error))) if error.is_panic() => {
                    this.fail(GroupError::Panicked(error))
                }
                // Aborted: by us after a failure, or by its own handle.
                Poll::Ready(Some(Err(_))) => {}
                Poll::Ready(None) | Poll::Pending => return Poll::Pending,
            }
        }
    }
}

impl<Fut, T, E: Send + 'static> Drop for Scope<Fut, T, E> {
    fn drop(&mut self) {
        // Abandoned first, so that children the body's destructors spawn
        // are aborted at once; then the body, before the children: it may
        // hold group handles and futures that expect the children to be
        // alive while they are dropped.
        self.group.stop_accepting(Phase::Abandoned);
        self.body = None;
        let mut state = self.group.lock();
        let tasks = std::mem::take(&mut state.tasks);
        drop(state);
        // Dropping the set aborts whatever is left in it.
        drop(tasks);
    }
}

impl<Fut, T, E: Send + 'static> fmt::Debug for Scope<Fut, T, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Scope")
            .field("body_running", &self.body.is_some())
            .field("failed", &self.failure.is_some())
            .finish()
    }
}
