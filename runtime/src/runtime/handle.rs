//! `Handle`: a cloneable reference to a runtime.

use crate::runtime::context::{self, SetCurrentGuard};
use crate::runtime::runtime::block_on_thread;
use crate::scheduler;
use crate::task::{Id, JoinHandle};
use std::fmt;
use std::future::Future;
use std::marker::PhantomData;

/// A cloneable, `Send + Sync` handle to a runtime: spawn onto it and block
/// on it from any thread, as long as the runtime is alive.
///
/// # Examples
///
/// ```
/// let rt = rt::runtime::Runtime::new().unwrap();
/// let handle = rt.handle().clone();
/// let joined = std::thread::spawn(move || {
///     let task = handle.spawn(async { 2 + 2 });
///     handle.block_on(task).unwrap()
/// });
/// assert_eq!(joined.join().unwrap(), 4);
/// ```
#[derive(Clone)]
pub struct Handle {
    pub(crate) inner: scheduler::Handle,
}

/// Which scheduler a runtime uses.
///
/// # Examples
///
/// ```
/// use rt::runtime::{Runtime, RuntimeFlavor};
/// let rt = Runtime::new().unwrap();
/// assert_eq!(rt.handle().runtime_flavor(), RuntimeFlavor::MultiThread);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RuntimeFlavor {
    /// All tasks run on the thread calling `block_on`.
    CurrentThread,
    /// Tasks run on a pool of work-stealing worker threads.
    MultiThread,
}

/// The error of [`Handle::try_current`]: this thread has no current runtime.
///
/// # Examples
///
/// ```
/// let err = rt::runtime::Handle::try_current().unwrap_err();
/// assert_eq!(err.to_string(), "no rt runtime is current on this thread");
/// ```
#[derive(Debug)]
pub struct TryCurrentError(());

impl fmt::Display for TryCurrentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("no rt runtime is current on this thread")
    }
}

impl std::error::Error for TryCurrentError {}

impl Handle {
    /// The handle of the runtime this thread is in (a task, `block_on`, or
    /// inside `Runtime::enter`).
    ///
    /// # Panics
    ///
    /// Panics when no runtime is current; use [`Handle::try_current`].
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let handle = rt::runtime::Handle::current();
    ///     handle.spawn(async {}).await.unwrap();
    /// });
    /// ```
    #[track_caller]
    pub fn current() -> Handle {
        match Handle::try_current() {
            Ok(handle) => handle,
            Err(_) => panic!(
                "`rt::runtime::Handle::current()` called outside a runtime: call it from a task, \
                 inside `Runtime::block_on`, or after `Runtime::enter()`; or use `Handle::try_current()`"
            ),
        }
    }

    /// The current runtime's handle, or an error outside a runtime.
    ///
    /// # Errors
    ///
    /// Returns [`TryCurrentError`] when no runtime is current.
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(rt::runtime::Handle::try_current().is_err());
    /// ```
    pub fn try_current() -> Result<Handle, TryCurrentError> {
        context::with_current(|inner| Handle {
            inner: inner.clone(),
        })
        .ok_or(TryCurrentError(()))
    }

    /// Spawns a task on this runtime; see [`rt::spawn`](crate::spawn).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let task = rt.handle().spawn(async { 8 });
    /// assert_eq!(rt.block_on(task).unwrap(), 8);
    /// ```
    pub fn spawn<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.inner.spawn(future, Id::next())
    }

    /// Runs the blocking closure `f` on the runtime's blocking pool; see
    /// [`rt::task::spawn_blocking`](crate::task::spawn_blocking). Works
    /// from any thread.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let handle = rt.handle().clone();
    /// let call = std::thread::spawn(move || handle.spawn_blocking(|| 40 + 2)).join().unwrap();
    /// assert_eq!(rt.block_on(call).unwrap(), 42);
    /// ```
    #[track_caller]
    pub fn spawn_blocking<F, R>(&self, f: F) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        self.inner.spawn_blocking(f)
    }

    /// Runs `future` to completion on this thread. On a current-thread
    /// runtime this drives the runtime's tasks too (or, while another
    /// thread does, waits for its turn).
    ///
    /// # Panics
    ///
    /// Panics if called from inside a runtime; use `.await` there.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let handle = rt.handle().clone();
    /// assert_eq!(handle.block_on(async { 1 }), 1);
    /// ```
    #[track_caller]
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        let _enter = context::enter_runtime(&self.inner);
        match &self.inner {
            scheduler::Handle::MultiThread(handle) => {
                block_on_thread(future, handle.shared.config.spin_before_park)
            }
            scheduler::Handle::CurrentThread(handle) => {
                scheduler::current_thread::Handle::block_on(handle, future)
            }
        }
    }

    /// Makes this runtime current on this thread until the guard drops.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let handle = rt.handle().clone();
    /// let _guard = handle.enter();
    /// assert!(rt::runtime::Handle::try_current().is_ok());
    /// ```
    pub fn enter(&self) -> EnterGuard<'_> {
        EnterGuard {
            _guard: context::set_current(&self.inner),
            _handle: PhantomData,
        }
    }

    /// The runtime's [`Id`](crate::runtime::Id), unique in this process.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let id = rt.handle().id();
    /// assert_eq!(rt.block_on(async { rt::runtime::Handle::current().id() }), id);
    /// ```
    pub fn id(&self) -> crate::runtime::Id {
        self.inner.config().runtime_id
    }

    /// Which scheduler this runtime uses.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::runtime::{Builder, RuntimeFlavor};
    /// let rt = Builder::new_current_thread().build().unwrap();
    /// assert_eq!(rt.handle().runtime_flavor(), RuntimeFlavor::CurrentThread);
    /// ```
    pub fn runtime_flavor(&self) -> RuntimeFlavor {
        match self.inner {
            scheduler::Handle::MultiThread(_) => RuntimeFlavor::MultiThread,
            scheduler::Handle::CurrentThread(_) => RuntimeFlavor::CurrentThread,
        }
    }

    /// Counters describing the runtime now.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_multi_thread().worker_threads(2).build().unwrap();
    /// assert_eq!(rt.handle().metrics().num_workers(), 2);
    /// assert_eq!(rt.handle().metrics().num_alive_tasks(), 0);
    /// ```
    pub fn metrics(&self) -> RuntimeMetrics {
        RuntimeMetrics {
            handle: self.inner.clone(),
        }
    }
}

impl fmt::Debug for Handle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Handle")
            .field("flavor", &self.runtime_flavor())
            .finish()
    }
}

impl PartialEq for Handle {
    fn eq(&self, other: &Handle) -> bool {
        self.inner.is_same(&other.inner)
    }
}

/// Counters describing a runtime, read when called.
///
/// # Examples
///
/// ```
/// let rt = rt::runtime::Builder::new_multi_thread().worker_threads(2).build().unwrap();
/// let metrics = rt.handle().metrics();
/// assert_eq!(metrics.num_workers(), 2);
/// ```
#[derive(Clone, Debug)]
pub struct RuntimeMetrics {
    handle: scheduler::Handle,
}

impl RuntimeMetrics {
    /// The number of worker threads (1 for a current-thread runtime).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    /// assert_eq!(rt.handle().metrics().num_workers(), 1);
    /// ```
    pub fn num_workers(&self) -> usize {
        self.handle.num_workers()
    }

    /// The number of tasks spawned and not yet finished.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let (tx, rx) = futures_channel::oneshot::channel::<()>();
    /// let task = rt.spawn(async move { rx.await.ok() });
    /// assert_eq!(rt.handle().metrics().num_alive_tasks(), 1);
    /// tx.send(()).unwrap();
    /// rt.block_on(task).unwrap();
    /// assert_eq!(rt.handle().metrics().num_alive_tasks(), 0);
    /// ```
    pub fn num_alive_tasks(&self) -> usize {
        self.handle.num_alive_tasks()
    }

    /// The number of threads in the blocking pool, busy or idle. Threads
    /// that took over a worker's tasks in
    /// [`block_in_place`](crate::task::block_in_place) count as workers,
    /// not here.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// assert_eq!(rt.handle().metrics().num_blocking_threads(), 0);
    /// rt.block_on(rt.spawn_blocking(|| {})).unwrap();
    /// assert!(rt.handle().metrics().num_blocking_threads() >= 1);
    /// ```
    pub fn num_blocking_threads(&self) -> usize {
        self.handle.blocking_spawner().num_threads()
    }

    /// The number of blocking-pool threads waiting for work (they exit
    /// after [`Builder::thread_keep_alive`](crate::runtime::Builder::thread_keep_alive)).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let metrics = rt.handle().metrics();
    /// assert!(metrics.num_idle_blocking_threads() <= metrics.num_blocking_threads());
    /// ```
    pub fn num_idle_blocking_threads(&self) -> usize {
        self.handle.blocking_spawner().num_idle_threads()
    }

    /// The number of blocking calls waiting for a blocking-pool thread
    /// (all threads busy at [`Builder::max_blocking_threads`](crate::runtime::Builder::max_blocking_threads)).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// assert_eq!(rt.handle().metrics().blocking_queue_depth(), 0);
    /// ```
    pub fn blocking_queue_depth(&self) -> usize {
        self.handle.blocking_spawner().queue_depth()
    }
}

/// Keeps a runtime current on this thread; see [`Handle::enter`].
///
/// # Examples
///
/// ```
/// let rt = rt::runtime::Runtime::new().unwrap();
/// {
///     let _guard = rt.enter();
///     assert!(rt::runtime::Handle::try_current().is_ok());
/// }
/// assert!(rt::runtime::Handle::try_current().is_err());
/// ```
#[derive(Debug)]
#[must_use = "the runtime is only current while the guard is alive"]
pub struct EnterGuard<'a> {
    _guard: SetCurrentGuard,
    _handle: PhantomData<&'a Handle>,
}
