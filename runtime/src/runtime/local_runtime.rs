//! `LocalRuntime`: a current-thread runtime with a `LocalSet` built in, so
//! `block_on` and `spawn_local` take `!Send` futures.

use crate::runtime::{EnterGuard, Handle, Runtime};
use crate::scheduler;
use crate::task::{JoinHandle, LocalEnterGuard, LocalSet};
use std::fmt;
use std::future::Future;
use std::time::Duration;

/// A current-thread runtime whose `block_on` also runs a [`LocalSet`]:
/// built by [`Builder::build_local`](crate::runtime::Builder::build_local).
///
/// The main future and the local tasks may hold `!Send` state;
/// [`spawn_local`](crate::task::spawn_local) works inside them, and in
/// the runtime's other tasks while `block_on` runs them. Tasks
/// spawned with [`spawn`](LocalRuntime::spawn) are ordinary runtime tasks
/// (`Send`, outside the set). The runtime itself is `!Send`: it stays on
/// the thread that built it.
///
/// Dropping it drops the local tasks first (on this thread, with the
/// runtime current), then shuts the runtime down with the set still
/// current, as tokio's: a destructor of a runtime task that calls
/// [`spawn_local`](crate::task::spawn_local) gets a cancelled handle, as
/// [`spawn`](crate::spawn) does, instead of a panic.
///
/// # Examples
///
/// ```
/// use std::rc::Rc;
///
/// let rt = rt::runtime::Builder::new_current_thread().enable_all().build_local().unwrap();
/// let shared = Rc::new(20);
/// let copy = shared.clone();
/// let task = rt.spawn_local(async move { *copy + 1 });
/// let out = rt.block_on(async move { task.await.unwrap() + *shared + 1 });
/// assert_eq!(out, 42);
/// ```
pub struct LocalRuntime {
    local: LocalTasks,
    rt: Runtime,
}

/// The runtime's set, whose tasks are dropped with the runtime current,
/// as the runtime's own tasks are at shutdown: their destructors may spawn
/// or read `Handle::current`.
struct LocalTasks {
    set: LocalSet,
    runtime: Handle,
}

impl LocalTasks {
    /// Cancels the local tasks, dropping them here (their destructors may
    /// still use the runtime); a second call finds nothing to do, nor does
    /// the set's own drop. The set stays current, though closed, until the
    /// guard returned drops: a runtime task's destructor that then calls
    /// `spawn_local` (the runtime shutting down) gets a cancelled handle,
    /// as in tokio, whose local runtime keeps both kinds of task in one
    /// list, instead of a panic (no set current).
    fn close(&self) -> LocalEnterGuard<'_> {
        let entered = self.set.enter();
        let _runtime = self.runtime.enter();
        self.set.close();
        entered
    }
}

impl std::ops::Deref for LocalTasks {
    type Target = LocalSet;

    fn deref(&self) -> &LocalSet {
        &self.set
    }
}

impl LocalRuntime {
    /// A local runtime with every driver enabled: the same as
    /// `Builder::new_current_thread().enable_all().build_local()`.
    ///
    /// # Errors
    ///
    /// Returns the OS error if the runtime's I/O driver cannot be created.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::LocalRuntime::new().unwrap();
    /// let rc = std::rc::Rc::new(3);
    /// assert_eq!(rt.block_on(async move { *rc }), 3);
    /// ```
    pub fn new() -> std::io::Result<LocalRuntime> {
        crate::runtime::Builder::new_current_thread()
            .enable_all()
            .build_local()
    }

    pub(crate) fn from_runtime(rt: Runtime) -> LocalRuntime {
        let set = LocalSet::new();
        if let scheduler::Handle::CurrentThread(handle) = &rt.handle().inner {
            *handle.local_runtime_set.lock().unwrap() = Some(set.shared().clone());
        }
        LocalRuntime {
            local: LocalTasks {
                set,
                runtime: rt.handle().clone(),
            },
            rt,
        }
    }

    /// Runs `future` (which need not be `Send`) to completion, running the
    /// runtime's tasks and the local tasks meanwhile.
    ///
    /// # Panics
    ///
    /// Panics if called from inside a runtime.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_current_thread().build_local().unwrap();
    /// let rc = std::rc::Rc::new("not Send");
    /// assert_eq!(rt.block_on(async move { rc.len() }), 8);
    /// ```
    #[track_caller]
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        // The set stays current for the whole call, as tokio's local
        // runtime is: `spawn_local` then works in the runtime's own tasks
        // (`spawn`), which run on this thread between the set's polls.
        let _entered = self.local.enter();
        self.local.block_on(&self.rt, future)
    }

    /// Spawns a `!Send` future onto the runtime's local set.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_current_thread().build_local().unwrap();
    /// let rc = std::rc::Rc::new(3);
    /// let task = rt.spawn_local(async move { *rc });
    /// assert_eq!(rt.block_on(task).unwrap(), 3);
    /// ```
    #[track_caller]
    pub fn spawn_local<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        self.local.spawn_local(future)
    }

    /// Spawns a `Send` task on the runtime; see [`rt::spawn`](crate::spawn).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_current_thread().build_local().unwrap();
    /// let task = rt.spawn(async { 4 });
    /// assert_eq!(rt.block_on(task).unwrap(), 4);
    /// ```
    #[track_caller]
    pub fn spawn<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.rt.spawn(future)
    }

    /// Runs the blocking closure `f` on the runtime's blocking pool.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_current_thread().build_local().unwrap();
    /// let task = rt.spawn_blocking(|| 5);
    /// assert_eq!(rt.block_on(task).unwrap(), 5);
    /// ```
    #[track_caller]
    pub fn spawn_blocking<F, R>(&self, f: F) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        self.rt.spawn_blocking(f)
    }

    /// A handle to the runtime (it spawns `Send` tasks only).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_current_thread().build_local().unwrap();
    /// assert_eq!(rt.handle().metrics().num_workers(), 1);
    /// ```
    pub fn handle(&self) -> &Handle {
        self.rt.handle()
    }

    /// Counters describing this runtime now; the same as
    /// [`Handle::metrics`]. As in tokio's local runtime, the tasks of
    /// [`spawn_local`](LocalRuntime::spawn_local) count as the runtime's
    /// own, with those of [`spawn`](LocalRuntime::spawn): spawned, alive
    /// and polled on its one worker (they live in the built-in
    /// [`LocalSet`], whose counts the metrics add).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_current_thread().build_local().unwrap();
    /// let task = rt.spawn(async { 5 });
    /// let local = rt.spawn_local(async { 6 });
    /// assert_eq!(rt.metrics().num_alive_tasks(), 2);
    /// assert_eq!(rt.block_on(task).unwrap(), 5);
    /// assert_eq!(rt.block_on(local).unwrap(), 6);
    /// assert_eq!(rt.metrics().num_alive_tasks(), 0);
    /// assert_eq!(rt.metrics().spawned_tasks_count(), 2);
    /// ```
    pub fn metrics(&self) -> crate::runtime::RuntimeMetrics {
        self.rt.metrics()
    }

    /// Makes the runtime current on this thread until the guard drops, and
    /// its local set with it: [`spawn_local`](crate::task::spawn_local)
    /// then spawns onto the runtime, whose next `block_on` runs the task
    /// (as `rt.spawn_local` would).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_current_thread().build_local().unwrap();
    /// let task = {
    ///     let _guard = rt.enter();
    ///     assert!(rt::runtime::Handle::try_current().is_ok());
    ///     let rc = std::rc::Rc::new(5);
    ///     rt::task::spawn_local(async move { *rc })
    /// };
    /// assert_eq!(rt.block_on(task).unwrap(), 5);
    /// ```
    pub fn enter(&self) -> EnterGuard<'_> {
        let guard = self.rt.enter();
        // After the runtime: entering the set joins the current runtime's
        // list of sets (its task dump), as `block_on` does.
        guard.with_local_set(self.local.enter())
    }

    /// Drops the local tasks, then shuts the runtime down as
    /// [`Runtime::shutdown_timeout`].
    ///
    /// # Panics
    ///
    /// As [`Runtime::shutdown_timeout`], inside an async context.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_current_thread().build_local().unwrap();
    /// rt.spawn_local(std::future::pending::<()>());
    /// rt.shutdown_timeout(std::time::Duration::from_secs(1));
    /// ```
    #[track_caller]
    pub fn shutdown_timeout(mut self, timeout: Duration) {
        let _set = self.local.close();
        self.rt.shut_down_within(timeout);
    }

    /// Drops the local tasks, then shuts the runtime down without waiting,
    /// as [`Runtime::shutdown_background`].
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_current_thread().build_local().unwrap();
    /// rt.shutdown_background();
    /// ```
    pub fn shutdown_background(mut self) {
        let _set = self.local.close();
        self.rt.shut_down_in_background();
    }
}

impl Drop for LocalRuntime {
    fn drop(&mut self) {
        // After `shutdown_timeout` or `shutdown_background`, nothing is
        // left to do.
        let _set = self.local.close();
        self.rt.shut_down_as_dropped();
    }
}

impl fmt::Debug for LocalRuntime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LocalRuntime")
            .field("local", &self.local.set)
            .field("rt", &self.rt)
            .finish()
    }
}
