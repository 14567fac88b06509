//! `Runtime`: rt's runtime with tokio's defaults. A newtype only because
//! [`Runtime::new`] must build through the facade's
//! [`Builder`](super::Builder) (tokio's default worker count and thread
//! names); every other method forwards. It derefs to rt's, so a
//! `&Runtime` can be passed where rt's APIs take theirs
//! (`LocalSet::block_on`).

use super::{EnterGuard, Handle, RuntimeMetrics};
use crate::task::JoinHandle;
use std::fmt;
use std::future::Future;
use std::ops::Deref;
use std::time::Duration;

/// tokio's `Runtime`: rt's scheduler, I/O reactor, timer and blocking
/// pool. Dropping it shuts it down (its tasks are cancelled, its threads
/// joined).
///
/// # Examples
///
/// ```
/// let rt = tokio::runtime::Runtime::new().unwrap();
/// let sum = rt.block_on(async {
///     let a = tokio::spawn(async { 20 });
///     a.await.unwrap() + 22
/// });
/// assert_eq!(sum, 42);
/// ```
pub struct Runtime(rt::runtime::Runtime);

impl Runtime {
    /// A multi-thread runtime with every driver enabled, built as
    /// `Builder::new_multi_thread().enable_all().build()` is: its worker
    /// count comes from `TOKIO_WORKER_THREADS` if it is set, else one per
    /// CPU.
    ///
    /// # Errors
    ///
    /// Returns the OS error if a worker thread or the I/O driver cannot be
    /// created.
    ///
    /// # Panics
    ///
    /// Panics if `TOKIO_WORKER_THREADS` is set to anything but a positive
    /// integer.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = tokio::runtime::Runtime::new().unwrap();
    /// let flavor = rt.handle().runtime_flavor();
    /// assert_eq!(flavor, tokio::runtime::RuntimeFlavor::MultiThread);
    /// ```
    #[cfg(feature = "rt-multi-thread")]
    #[track_caller]
    pub fn new() -> std::io::Result<Runtime> {
        super::Builder::new_multi_thread().enable_all().build()
    }

    /// Runs `future` to completion on the current thread.
    ///
    /// # Panics
    ///
    /// Panics if called inside an async context (a task or another
    /// `block_on`).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    /// assert_eq!(rt.block_on(async { 1 + 1 }), 2);
    /// ```
    #[track_caller]
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.0.block_on(future)
    }

    /// Spawns `future` onto the runtime.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = tokio::runtime::Runtime::new().unwrap();
    /// let task = rt.spawn(async { 7 });
    /// assert_eq!(rt.block_on(task).unwrap(), 7);
    /// ```
    #[track_caller]
    pub fn spawn<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.0.spawn(future)
    }

    /// Runs `f` on the runtime's blocking pool.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = tokio::runtime::Runtime::new().unwrap();
    /// let task = rt.spawn_blocking(|| 8);
    /// assert_eq!(rt.block_on(task).unwrap(), 8);
    /// ```
    #[track_caller]
    pub fn spawn_blocking<F, R>(&self, f: F) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        self.0.spawn_blocking(f)
    }

    /// The runtime's metrics.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).build().unwrap();
    /// assert_eq!(rt.metrics().num_workers(), 2);
    /// ```
    pub fn metrics(&self) -> RuntimeMetrics {
        self.0.metrics()
    }

    /// A handle to the runtime, to spawn onto it from anywhere.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = tokio::runtime::Runtime::new().unwrap();
    /// let handle = rt.handle().clone();
    /// let task = std::thread::spawn(move || handle.block_on(async { 9 }));
    /// assert_eq!(task.join().unwrap(), 9);
    /// ```
    pub fn handle(&self) -> &Handle {
        self.0.handle()
    }

    /// Makes this the current runtime until the guard is dropped, so that
    /// `tokio::spawn` and the drivers work outside `block_on`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = tokio::runtime::Runtime::new().unwrap();
    /// let _guard = rt.enter();
    /// let task = tokio::spawn(async { 10 });
    /// assert_eq!(rt.block_on(task).unwrap(), 10);
    /// ```
    pub fn enter(&self) -> EnterGuard<'_> {
        self.0.enter()
    }

    /// Shuts the runtime down, waiting up to `timeout` for its threads
    /// (running blocking work included) to finish.
    ///
    /// # Panics
    ///
    /// Panics inside an async context unless `timeout` is zero (after
    /// shutting down without waiting).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = tokio::runtime::Runtime::new().unwrap();
    /// rt.shutdown_timeout(std::time::Duration::from_secs(1));
    /// ```
    #[track_caller]
    pub fn shutdown_timeout(self, timeout: Duration) {
        self.0.shutdown_timeout(timeout)
    }

    /// Shuts the runtime down without waiting for its threads.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = tokio::runtime::Runtime::new().unwrap();
    /// rt.shutdown_background();
    /// ```
    pub fn shutdown_background(self) {
        self.0.shutdown_background()
    }
}

impl From<rt::runtime::Runtime> for Runtime {
    fn from(runtime: rt::runtime::Runtime) -> Runtime {
        Runtime(runtime)
    }
}

impl From<Runtime> for rt::runtime::Runtime {
    fn from(runtime: Runtime) -> rt::runtime::Runtime {
        runtime.0
    }
}

impl Deref for Runtime {
    type Target = rt::runtime::Runtime;

    fn deref(&self) -> &rt::runtime::Runtime {
        &self.0
    }
}

impl fmt::Debug for Runtime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}
