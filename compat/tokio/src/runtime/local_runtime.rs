//! `LocalRuntime`: rt's, with tokio's defaults. A newtype only because
//! [`LocalRuntime::new`] must build through the facade's
//! [`Builder`](super::Builder) (tokio's thread names for its blocking
//! pool); every other method forwards, and it derefs to rt's.

use super::{EnterGuard, Handle, LocalOptions, RuntimeMetrics};
use crate::task::JoinHandle;
use std::fmt;
use std::future::Future;
use std::io;
use std::ops::Deref;
use std::time::Duration;

/// tokio's `LocalRuntime`: a current-thread runtime whose `block_on` and
/// `spawn_local` take `!Send` futures. It is `!Send`: it stays on the
/// thread that built it.
///
/// # Examples
///
/// ```
/// let rt = tokio::runtime::LocalRuntime::new().unwrap();
/// let rc = std::rc::Rc::new(2);
/// let task = rt.spawn_local({
///     let rc = rc.clone();
///     async move { *rc * 10 }
/// });
/// assert_eq!(rt.block_on(task).unwrap(), 20);
/// ```
pub struct LocalRuntime(rt::runtime::LocalRuntime);

impl LocalRuntime {
    /// A local runtime with every driver enabled, built as
    /// `Builder::new_current_thread().enable_all().build_local(..)` is.
    ///
    /// # Errors
    ///
    /// Returns the OS error if the I/O driver cannot be created.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = tokio::runtime::LocalRuntime::new().unwrap();
    /// assert_eq!(rt.block_on(async { 3 }), 3);
    /// ```
    pub fn new() -> io::Result<LocalRuntime> {
        super::Builder::new_current_thread()
            .enable_all()
            .build_local(LocalOptions::default())
    }

    /// Runs `future` (which need not be `Send`) to completion, running
    /// the local tasks while it waits.
    ///
    /// # Panics
    ///
    /// Panics if called inside an async context.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = tokio::runtime::LocalRuntime::new().unwrap();
    /// let rc = std::rc::Rc::new(4);
    /// assert_eq!(rt.block_on(async move { *rc }), 4);
    /// ```
    #[track_caller]
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.0.block_on(future)
    }

    /// Spawns a `!Send` future onto the runtime's local set.
    ///
    /// # Examples
    ///
    /// See [`LocalRuntime`].
    #[track_caller]
    pub fn spawn_local<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        self.0.spawn_local(future)
    }

    /// Spawns a `Send` task on the runtime.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = tokio::runtime::LocalRuntime::new().unwrap();
    /// let task = rt.spawn(async { 5 });
    /// assert_eq!(rt.block_on(task).unwrap(), 5);
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
    /// let rt = tokio::runtime::LocalRuntime::new().unwrap();
    /// let task = rt.spawn_blocking(|| 6);
    /// assert_eq!(rt.block_on(task).unwrap(), 6);
    /// ```
    #[track_caller]
    pub fn spawn_blocking<F, R>(&self, f: F) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        self.0.spawn_blocking(f)
    }

    /// A handle to the runtime (it spawns `Send` tasks).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = tokio::runtime::LocalRuntime::new().unwrap();
    /// let flavor = rt.handle().runtime_flavor();
    /// assert_eq!(flavor, tokio::runtime::RuntimeFlavor::CurrentThread);
    /// ```
    pub fn handle(&self) -> &Handle {
        self.0.handle()
    }

    /// The runtime's metrics.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = tokio::runtime::LocalRuntime::new().unwrap();
    /// assert_eq!(rt.metrics().num_workers(), 1);
    /// ```
    pub fn metrics(&self) -> RuntimeMetrics {
        self.0.metrics()
    }

    /// Makes this the current runtime (and its local set the current
    /// set) until the guard is dropped.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = tokio::runtime::LocalRuntime::new().unwrap();
    /// let _guard = rt.enter();
    /// let task = tokio::task::spawn_local(async { 7 });
    /// assert_eq!(rt.block_on(task).unwrap(), 7);
    /// ```
    pub fn enter(&self) -> EnterGuard<'_> {
        self.0.enter()
    }

    /// Shuts the runtime down, waiting up to `timeout` for its blocking
    /// threads.
    ///
    /// # Panics
    ///
    /// Panics inside an async context unless `timeout` is zero.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = tokio::runtime::LocalRuntime::new().unwrap();
    /// rt.shutdown_timeout(std::time::Duration::from_secs(1));
    /// ```
    #[track_caller]
    pub fn shutdown_timeout(self, timeout: Duration) {
        self.0.shutdown_timeout(timeout)
    }

    /// Shuts the runtime down without waiting for its blocking threads.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = tokio::runtime::LocalRuntime::new().unwrap();
    /// rt.shutdown_background();
    /// ```
    pub fn shutdown_background(self) {
        self.0.shutdown_background()
    }
}

impl From<rt::runtime::LocalRuntime> for LocalRuntime {
    fn from(runtime: rt::runtime::LocalRuntime) -> LocalRuntime {
        LocalRuntime(runtime)
    }
}

impl From<LocalRuntime> for rt::runtime::LocalRuntime {
    fn from(runtime: LocalRuntime) -> rt::runtime::LocalRuntime {
        runtime.0
    }
}

impl Deref for LocalRuntime {
    type Target = rt::runtime::LocalRuntime;

    fn deref(&self) -> &rt::runtime::LocalRuntime {
        &self.0
    }
}

impl fmt::Debug for LocalRuntime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}
