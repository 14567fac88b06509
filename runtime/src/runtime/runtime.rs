//! `Runtime`: owns the scheduler's threads and shuts everything down.

use crate::loom::sync::Arc;
use crate::runtime::block_on_calls::BlockOnCall;
use crate::runtime::context;
use crate::runtime::handle::{EnterGuard, Handle};
use crate::runtime::park::ThreadParker;
use crate::runtime::watchdog::{self, Watchdog, WatchdogConfig};
use crate::scheduler::{self, multi_thread::MultiThread};
use crate::task::JoinHandle;
use std::fmt;
use std::future::Future;
use std::io;
use std::time::{Duration, Instant};

/// The rt runtime: a scheduler, its worker threads and its drivers.
///
/// Dropping it shuts it down: workers stop after their current poll, every
/// task still alive is cancelled (its future dropped, its `JoinHandle`
/// yields a cancelled [`JoinError`](crate::task::JoinError)), and the
/// worker threads are joined. Blocking work
/// ([`spawn_blocking`](crate::task::spawn_blocking), `rt::fs`) still
/// queued for a thread is cancelled the same way (a call taken by a pool
/// thread started for it is no longer queued, and runs), except writes
/// that already returned `Ok` ([`File`](crate::fs::File)'s,
/// [`stdout`](crate::io::stdout)'s and [`stderr`](crate::io::stderr)'s,
/// as tokio's): those are made instead, on the thread shutting down.
/// Blocking work running cannot be interrupted, and dropping the runtime
/// waits for it however long it takes (as tokio does). Use
/// [`Runtime::shutdown_timeout`] to bound that wait, or
/// [`Runtime::shutdown_background`] not to wait. With the slow-poll
/// watchdog on
/// ([`Builder::slow_poll_threshold`](crate::runtime::Builder::slow_poll_threshold),
/// `RT_DEBUG=1`), a wait longer than its threshold prints, once, which
/// jobs it waits for: name, spawn location and how long each has run.
///
/// # Panics
///
/// Dropping it inside an async context (a task or `block_on`) panics,
/// since waiting there would block the thread; the runtime is shut down as
/// by [`Runtime::shutdown_background`] first, so its tasks are still
/// cancelled and its threads still exit.
///
/// # Examples
///
/// ```
/// let rt = rt::runtime::Runtime::new().unwrap();
/// let sum = rt.block_on(async {
///     let a = rt::spawn(async { 20 });
///     let b = rt::spawn(async { 22 });
///     a.await.unwrap() + b.await.unwrap()
/// });
/// assert_eq!(sum, 42);
/// ```
pub struct Runtime {
    handle: Handle,
    /// The worker threads, for the multi-thread scheduler.
    workers: Option<MultiThread>,
    /// The slow-poll monitor, when the watchdog is on.
    watchdog: Option<Watchdog>,
    is_shut_down: bool,
}

// Unwind-safe, as tokio's (code written for tokio catches panics around
// `block_on` with the runtime borrowed): a panic in user code is caught
// per task or unwinds out of `block_on` after its guards put the runtime's
// state back (the core returned, the context reset); everything shared is
// behind locks and atomics. What keeps the auto traits off is only the
// worker threads' `JoinHandle`s and the user's hooks (`dyn Fn`), which
// the runtime calls but never leaves half-changed.
impl std::panic::UnwindSafe for Runtime {}
impl std::panic::RefUnwindSafe for Runtime {}

impl Runtime {
    /// A multi-thread runtime with default settings and every driver
    /// (I/O, time) enabled.
    ///
    /// # Errors
    ///
    /// Returns the OS error if a worker thread could not be spawned.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// # drop(rt);
    /// ```
    pub fn new() -> io::Result<Runtime> {
        crate::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
    }

    /// Assembles a built runtime, starting the watchdog if `slow_poll`
    /// asks for it. If its thread cannot start (the OS refused it), the
    /// runtime shuts down, waiting for the threads already started (they
    /// have run no task), and the error is returned.
    pub(crate) fn from_parts(
        handle: Handle,
        workers: Option<MultiThread>,
        slow_poll: Option<WatchdogConfig>,
    ) -> io::Result<Runtime> {
        let mut runtime = Runtime {
            handle,
            workers,
            watchdog: None,
            is_shut_down: false,
        };
        if let Some(config) = slow_poll {
            match Watchdog::start(runtime.handle.inner.clone(), config) {
                Ok(watchdog) => runtime.watchdog = Some(watchdog),
                Err(error) => {
                    // As when a worker is refused: no thread outlives the
                    // failed build. Shut down here, not by the drop, which
                    // would panic inside an async context (a runtime
                    // built in a task).
                    runtime.shutdown(None);
                    return Err(error);
                }
            }
        }
        Ok(runtime)
    }

    /// Runs `future` to completion on the current thread, driving the
    /// runtime meanwhile (on a current-thread runtime, this is what runs
    /// the tasks).
    ///
    /// # Panics
    ///
    /// Panics if called from inside a runtime (a task or another
    /// `block_on`): blocking there would stall the worker. Use `.await`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// assert_eq!(rt.block_on(async { "done" }), "done");
    /// ```
    #[track_caller]
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.handle.block_on(future)
    }

    /// Spawns a task on this runtime; see [`rt::spawn`](crate::spawn).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let handle = rt.spawn(async { 5 });
    /// assert_eq!(rt.block_on(handle).unwrap(), 5);
    /// ```
    #[track_caller]
    pub fn spawn<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.handle.spawn(future)
    }

    /// Counters describing this runtime now; the same as
    /// [`Handle::metrics`].
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_multi_thread().worker_threads(3).build().unwrap();
    /// assert_eq!(rt.metrics().num_workers(), 3);
    /// ```
    pub fn metrics(&self) -> crate::runtime::RuntimeMetrics {
        self.handle.metrics()
    }

    /// Runs the blocking closure `f` on this runtime's blocking pool; see
    /// [`rt::task::spawn_blocking`](crate::task::spawn_blocking).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let handle = rt.spawn_blocking(|| std::env::current_dir().is_ok());
    /// assert!(rt.block_on(handle).unwrap());
    /// ```
    #[track_caller]
    pub fn spawn_blocking<F, R>(&self, f: F) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        self.handle.spawn_blocking(f)
    }

    /// A handle to this runtime.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let handle = rt.handle().clone();
    /// let out = std::thread::spawn(move || handle.block_on(async { 9 })).join().unwrap();
    /// assert_eq!(out, 9);
    /// ```
    pub fn handle(&self) -> &Handle {
        &self.handle
    }

    /// Makes this runtime current on this thread until the guard drops, so
    /// `rt::spawn` works outside `block_on`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let _guard = rt.enter();
    /// let handle = rt::spawn(async { 1 });
    /// # drop(_guard);
    /// assert_eq!(rt.block_on(handle).unwrap(), 1);
    /// ```
    pub fn enter(&self) -> EnterGuard<'_> {
        self.handle.enter()
    }

    /// Shuts down, waiting at most `timeout` in all for the worker threads
    /// to finish their current polls and then for running blocking work to
    /// return. Tasks and queued blocking work are cancelled either way; a
    /// thread stuck in a poll or a blocking call is left behind.
    ///
    /// # Panics
    ///
    /// Panics inside an async context (a task or `block_on`) unless
    /// `timeout` is zero, as tokio does: waiting there would block the
    /// thread (a task shutting down its own runtime would wait the whole
    /// `timeout` for its own worker). The runtime is shut down as by
    /// [`Runtime::shutdown_background`] first.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.spawn(std::future::pending::<()>());
    /// rt.shutdown_timeout(Duration::from_secs(10));
    /// ```
    #[track_caller]
    pub fn shutdown_timeout(mut self, timeout: Duration) {
        self.shut_down_within(timeout);
    }

    /// `shutdown_timeout`'s work, for a caller that keeps the runtime
    /// (`LocalRuntime`, whose set stays current meanwhile); its drop then
    /// finds nothing left to do.
    #[track_caller]
    pub(crate) fn shut_down_within(&mut self, timeout: Duration) {
        if !timeout.is_zero() && context::is_entered() {
            self.shutdown(Some(Duration::ZERO));
            panic!(
                "`Runtime::shutdown_timeout` called inside an async context (a task or \
                 `block_on`): waiting for the runtime to stop would block the thread, so it was \
                 shut down without waiting. Call `Runtime::shutdown_background()` here, or \
                 shut it down outside the async context (in `rt::task::spawn_blocking`)."
            );
        }
        self.shutdown(Some(timeout));
    }

    /// Shuts down without waiting for the worker threads or running
    /// blocking work (queued blocking work is cancelled, but queued writes
    /// that already returned `Ok`, to a file or to stdout or stderr, are
    /// made first, on this thread: see [`Runtime`]). Safe to call from
    /// inside another runtime.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.spawn(async {});
    /// rt.shutdown_background();
    /// ```
    pub fn shutdown_background(mut self) {
        self.shut_down_in_background();
    }

    /// `shutdown_background`'s work, as `shut_down_within` is the timed
    /// one's.
    pub(crate) fn shut_down_in_background(&mut self) {
        self.shutdown(Some(Duration::ZERO));
    }

    /// What dropping the runtime does (see `Runtime`'s `# Panics`), for a
    /// caller that keeps it, as `shut_down_within`.
    pub(crate) fn shut_down_as_dropped(&mut self) {
        if self.is_shut_down {
            return;
        }
        if context::is_entered() {
            // Shut down without waiting, as `shutdown_background` does,
            // before panicking: the panic unwinds past this runtime, and
            // nothing else would stop its workers, cancel its tasks or
            // close its driver (its threads and descriptors would leak).
            self.shutdown(Some(Duration::ZERO));
            if std::thread::panicking() {
                // Already unwinding: panicking again would abort the
                // process.
                return;
            }
            panic!(
                "Cannot drop a runtime inside an async context (a task or `block_on`): shutting \
                 it down blocks the thread. Drop it outside, move it to a blocking thread with \
                 `rt::task::spawn_blocking`, or call `Runtime::shutdown_background()`."
            );
        }
        self.shutdown(None);
    }

    fn shutdown(&mut self, timeout: Option<Duration>) {
        if std::mem::replace(&mut self.is_shut_down, true) {
            return;
        }
        if self.watchdog.is_some() {
            watchdog::report_leaks(&self.handle.inner);
        }
        // One deadline for both steps: workers first (their tasks may still
        // spawn blocking work or hand a core to the pool), then the pool.
        let deadline = deadline_after(timeout);
        // Tasks dropped on this thread (all of a current-thread runtime's,
        // those a multi-thread shutdown drops here) see the runtime as
        // current, so a destructor can still reach it (`Handle::try_current`).
        let _current = context::set_current(&self.handle.inner);
        match (&self.handle.inner, &self.workers) {
            (scheduler::Handle::MultiThread(handle), Some(workers)) => {
                workers.shutdown(handle, timeout)
            }
            (scheduler::Handle::CurrentThread(handle), _) => {
                scheduler::current_thread::Handle::shutdown(handle)
            }
            (scheduler::Handle::MultiThread(_), None) => {
                unreachable!("multi-thread runtime without workers")
            }
            #[cfg(feature = "sim")]
            (scheduler::Handle::Sim(_), _) => {
                unreachable!("a simulation's runtime is never a `Runtime`")
            }
        }
        if let Some(mut watchdog) = self.watchdog.take() {
            watchdog.stop();
        }
        // The workers were joined above; the pool's threads now.
        self.handle
            .inner
            .blocking_spawner()
            .shutdown_and_join(deadline);
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        self.shut_down_as_dropped();
    }
}

impl fmt::Debug for Runtime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Runtime")
            .field("handle", &self.handle)
            .finish()
    }
}

/// The instant `timeout` from now, for a shutdown step that waits at most
/// that long. `None`, "wait as long as it takes", for no timeout and for
/// one too far to represent (`Duration::MAX`): no `Instant + Duration`
/// overflow.
pub(crate) fn deadline_after(timeout: Option<Duration>) -> Option<Instant> {
    timeout.and_then(|timeout| Instant::now().checked_add(timeout))
}

/// Blocks this (non-worker) thread on `future` while the multi-thread
/// runtime's workers run the tasks, counting its polls in `call` when the
/// watchdog watches it.
pub(crate) fn block_on_thread<F: Future>(
    future: F,
    spin_before_park: Duration,
    call: Option<&Arc<BlockOnCall>>,
) -> F::Output {
    #[cfg(not(loom))]
    thread_local! {
        static PARKER: ThreadParker = ThreadParker::new();
    }
    #[cfg(loom)]
    loom::thread_local! {
        static PARKER: ThreadParker = ThreadParker::new();
    }
    PARKER.with(|parker| parker.block_on(future, spin_before_park, call))
}

/// Whether `err` is the error an I/O operation fails with because the
/// runtime its resource was registered with has shut down (a socket
/// created on one runtime, used after that runtime was dropped).
///
/// # Examples
///
/// ```
/// let first = rt::runtime::Runtime::new().unwrap();
/// let second = rt::runtime::Runtime::new().unwrap();
/// let listener = first.block_on(rt::net::TcpListener::bind("127.0.0.1:0")).unwrap();
/// drop(first);
/// second.block_on(async {
///     let err = listener.accept().await.unwrap_err();
///     assert!(rt::runtime::is_rt_shutdown_err(&err));
/// });
/// assert!(!rt::runtime::is_rt_shutdown_err(&std::io::Error::other("other")));
/// ```
pub fn is_rt_shutdown_err(err: &io::Error) -> bool {
    rt_reactor::is_shutdown_error(err)
}
