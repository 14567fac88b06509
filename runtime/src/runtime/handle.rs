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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RuntimeFlavor {
    /// All tasks run on the thread calling `block_on`.
    CurrentThread,
    /// Tasks run on a pool of work-stealing worker threads.
    MultiThread,
}

/// The error of [`Handle::try_current`]: this thread has no current runtime.
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
            scheduler::Handle::MultiThread(_) => block_on_thread(future),
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
#[derive(Clone, Debug)]
pub struct RuntimeMetrics {
    handle: scheduler::Handle,
}

impl RuntimeMetrics {
    /// The number of worker threads (1 for a current-thread runtime).
    pub fn num_workers(&self) -> usize {
        self.handle.num_workers()
    }

    /// The number of tasks spawned and not yet finished.
    pub fn num_alive_tasks(&self) -> usize {
        self.handle.num_alive_tasks()
    }
}

/// Keeps a runtime current on this thread; see [`Handle::enter`].
#[derive(Debug)]
#[must_use = "the runtime is only current while the guard is alive"]
pub struct EnterGuard<'a> {
    _guard: SetCurrentGuard,
    _handle: PhantomData<&'a Handle>,
}
