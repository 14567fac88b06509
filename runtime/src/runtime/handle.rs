//! `Handle`: a cloneable reference to a runtime.

use crate::runtime::TaskDump;
use crate::runtime::block_on_calls::Registered;
use crate::runtime::context::{self, SetCurrentGuard};
use crate::runtime::metrics::RuntimeMetrics;
use crate::runtime::runtime::block_on_thread;
use crate::scheduler;
use crate::task::{JoinHandle, TaskMeta};
use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::panic::Location;

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

// Unwind-safe, as tokio's, for the reasons given at `Runtime`'s.
impl std::panic::UnwindSafe for Handle {}
impl std::panic::RefUnwindSafe for Handle {}

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
pub struct TryCurrentError {
    thread_local_destroyed: bool,
}

impl TryCurrentError {
    /// No runtime is current: the call was made outside `block_on`, a
    /// task, or an [`enter`](Handle::enter) guard.
    ///
    /// # Examples
    ///
    /// ```
    /// let err = rt::runtime::Handle::try_current().unwrap_err();
    /// assert!(err.is_missing_context());
    /// assert!(!err.is_thread_local_destroyed());
    /// ```
    pub fn is_missing_context(&self) -> bool {
        !self.thread_local_destroyed
    }

    /// The thread's runtime context is already destroyed: the call was
    /// made from a thread-local destructor while the thread exits.
    ///
    /// # Examples
    ///
    /// ```
    /// let err = rt::runtime::Handle::try_current().unwrap_err();
    /// assert!(!err.is_thread_local_destroyed());
    /// ```
    pub fn is_thread_local_destroyed(&self) -> bool {
        self.thread_local_destroyed
    }
}

impl fmt::Display for TryCurrentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.thread_local_destroyed {
            f.write_str(
                "rt's runtime context is already destroyed on this thread (called from a \
                 thread-local destructor)",
            )
        } else {
            f.write_str("no rt runtime is current on this thread")
        }
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
        match context::try_with_current(|inner| Handle {
            inner: inner.clone(),
        }) {
            Ok(Some(handle)) => Ok(handle),
            Ok(None) => Err(TryCurrentError {
                thread_local_destroyed: false,
            }),
            Err(_) => Err(TryCurrentError {
                thread_local_destroyed: true,
            }),
        }
    }

    /// Spawns a task on this runtime; see [`rt::spawn`](crate::spawn).
    ///
    /// # Panics
    ///
    /// Inside a simulation (`rt::sim`, feature `sim`), when this is
    /// another runtime's handle: the seed could not replay its work. And
    /// for a simulation's handle, on a thread other than the one running
    /// it (which also fails the run): what that thread then did through
    /// rt would reach the run when the machine's timing let it.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let task = rt.handle().spawn(async { 8 });
    /// assert_eq!(rt.block_on(task).unwrap(), 8);
    /// ```
    #[track_caller]
    pub fn spawn<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        #[cfg(feature = "sim")]
        if let Err(refused) = crate::sim::refuse_other_runtime(&self.inner, "`Handle::spawn`") {
            panic!("{refused}");
        }
        self.inner.spawn(future, TaskMeta::new())
    }

    /// Runs the blocking closure `f` on the runtime's blocking pool; see
    /// [`rt::task::spawn_blocking`](crate::task::spawn_blocking). Works
    /// from any thread.
    ///
    /// # Panics
    ///
    /// Inside a simulation (`rt::sim`, feature `sim`), when this is
    /// another runtime's handle: the seed could not replay its work. And
    /// for a simulation's handle, on a thread other than the one running
    /// it (which also fails the run): what that thread then did through
    /// rt would reach the run when the machine's timing let it.
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
        #[cfg(feature = "sim")]
        if let Err(refused) =
            crate::sim::refuse_other_runtime(&self.inner, "`Handle::spawn_blocking`")
        {
            panic!("{refused}");
        }
        self.inner.spawn_blocking(f, TaskMeta::new())
    }

    /// Runs `future` to completion on this thread. On a current-thread
    /// runtime this drives the runtime's tasks too (or, while another
    /// thread does, waits for its turn).
    ///
    /// # Panics
    ///
    /// Panics if called from inside a runtime; use `.await` there. Inside
    /// a simulation (`rt::sim`, feature `sim`), also in its
    /// `block_in_place`: the run would depend on the real clock.
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
        // Inside a simulation's `block_in_place`, which leaves the run's
        // context, another runtime's `block_on` would run its future by
        // the real clock, on the run's thread.
        #[cfg(feature = "sim")]
        if let Err(refused) = crate::sim::refuse_other_runtime(&self.inner, "`block_on`") {
            panic!("{refused}");
        }
        let _enter = context::enter_runtime(&self.inner);
        // Listed for the watchdog, when it is on (`block_on_calls.rs`).
        let location = Location::caller();
        let registered =
            (self.inner.config().block_on_calls.as_ref()).map(|calls| calls.register(location));
        let call = registered.as_ref().map(Registered::call);
        match &self.inner {
            scheduler::Handle::MultiThread(handle) => {
                block_on_thread(future, handle.shared.config.spin_before_park, call)
            }
            scheduler::Handle::CurrentThread(handle) => {
                scheduler::current_thread::Handle::block_on(handle, future, call)
            }
            #[cfg(feature = "sim")]
            scheduler::Handle::Sim(_) => panic!(
                "`Handle::block_on` on a simulation's handle: a simulation is driven by \
                 `rt::sim::Sim::run` only; spawn the future onto it (`Handle::spawn`) instead"
            ),
        }
    }

    /// Makes this runtime current on this thread until the guard drops.
    ///
    /// # Panics
    ///
    /// Inside a simulation (`rt::sim`, feature `sim`), when this is
    /// another runtime's handle: the seed could not replay its work. And
    /// for a simulation's handle, on a thread other than the one running
    /// it (which also fails the run): what that thread then did through
    /// rt would reach the run when the machine's timing let it.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let handle = rt.handle().clone();
    /// let _guard = handle.enter();
    /// assert!(rt::runtime::Handle::try_current().is_ok());
    /// ```
    #[track_caller]
    pub fn enter(&self) -> EnterGuard<'_> {
        #[cfg(feature = "sim")]
        crate::sim::refuse_enter(&self.inner);
        EnterGuard {
            _local: None,
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

    /// The runtime's name, given by
    /// [`Builder::name`](crate::runtime::Builder::name); `None` for an
    /// unnamed runtime.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_multi_thread().name("api").build().unwrap();
    /// let name = rt.block_on(async {
    ///     rt::spawn(async { rt::runtime::Handle::current().name().map(str::to_owned) })
    ///         .await
    ///         .unwrap()
    /// });
    /// assert_eq!(name.as_deref(), Some("api"));
    /// assert_eq!(rt::runtime::Runtime::new().unwrap().handle().name(), None);
    /// ```
    pub fn name(&self) -> Option<&str> {
        self.inner.config().name.as_deref()
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
            // One thread runs every task, as on a current-thread runtime.
            #[cfg(feature = "sim")]
            scheduler::Handle::Sim(_) => RuntimeFlavor::CurrentThread,
        }
    }

    /// Every live task of the runtime: id, name, spawn location, state,
    /// polls, time since spawn and since its last poll. See [`TaskDump`].
    /// A task that finished while its `JoinHandle` was held stays listed,
    /// [complete](crate::runtime::TaskState::Complete), until the handle
    /// is awaited or dropped.
    ///
    /// The tasks of every [`LocalSet`](crate::task::LocalSet) alive and
    /// driven on this runtime (by `LocalSet::block_on`, `run_until` or an
    /// awaited set inside this runtime's `block_on`, or a
    /// [`LocalRuntime`](crate::runtime::LocalRuntime)) or entered under it
    /// ([`LocalSet::enter`](crate::task::LocalSet::enter) with the runtime
    /// entered) are listed too, with the same details, each marked with its
    /// set and the set's thread
    /// ([`TaskSnapshot::local_set`](crate::runtime::TaskSnapshot::local_set);
    /// in the printed table, `(local set N on 'thread')` ends the line).
    /// A set leaves the dump when it is dropped, taking its tasks along.
    /// Reading them from another thread touches no local future: only the
    /// task's state word, poll counters and name, read as for the
    /// runtime's own tasks.
    ///
    /// Safe to call from anywhere, a task of this runtime included (it
    /// finds itself running); it stops no worker, and delays a spawn or a
    /// completion at most for as long as copying one shard of the task
    /// list takes.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let dump = rt.block_on(async {
    ///     let _waiting = rt::task::Builder::new()
    ///         .name("forever")
    ///         .spawn(std::future::pending::<()>())
    ///         .unwrap();
    ///     rt::runtime::Handle::current().dump()
    /// });
    /// assert_eq!(dump.len(), 1);
    /// assert_eq!(dump.tasks()[0].name(), Some("forever"));
    /// ```
    pub fn dump(&self) -> TaskDump {
        TaskDump::capture(&self.inner)
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
        RuntimeMetrics::new(self.inner.clone())
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
    // Declared first, so dropped first: it was entered last.
    _local: Option<crate::task::local::CurrentSetGuard>,
    _guard: SetCurrentGuard,
    _handle: PhantomData<&'a Handle>,
}

impl<'a> EnterGuard<'a> {
    /// Also keeps a local set current (a `LocalRuntime`'s built-in one)
    /// until the guard drops.
    pub(crate) fn with_local_set(mut self, local: crate::task::LocalEnterGuard<'_>) -> Self {
        self._local = Some(local.into_unscoped());
        self
    }
}
