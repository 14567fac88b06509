//! `Builder`: rt's builder in tokio's shape. A newtype because tokio's
//! `build_local` takes [`LocalOptions`]; every other method forwards to
//! rt's builder, which already has tokio's signature and panics.

use super::{LocalOptions, LocalRuntime, Runtime};
use std::fmt;
use std::io;
use std::time::Duration;

/// Builds a [`Runtime`] (or a [`LocalRuntime`]) with custom settings:
/// tokio's `Builder`, building rt's runtime.
///
/// Every runtime rt builds has its I/O reactor, timer wheel and blocking
/// pool; `enable_io`/`enable_time` decide whether a task may use them
/// (using a disabled driver panics, naming the `enable_*` call that is
/// missing), as in tokio.
///
/// # Examples
///
/// ```
/// let rt = tokio::runtime::Builder::new_current_thread()
///     .enable_all()
///     .build()
///     .unwrap();
/// assert_eq!(rt.block_on(async { 1 + 1 }), 2);
/// ```
pub struct Builder(rt::runtime::Builder);

/// The default name of a runtime's threads (workers and blocking pool):
/// tokio's since 1.50 (`tokio-runtime-worker` before; shortened to fit
/// Linux's 15-byte thread names), which profilers, log filters and tests
/// match.
const TOKIO_THREAD_NAME: &str = "tokio-rt-worker";

/// The environment variable tokio's multi-thread runtimes take their
/// default worker count from.
#[cfg(feature = "rt-multi-thread")]
const TOKIO_WORKER_THREADS: &str = "TOKIO_WORKER_THREADS";

impl Builder {
    /// A builder for a current-thread runtime: every task runs on the
    /// thread that calls `block_on`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    /// let flavor = rt.handle().runtime_flavor();
    /// assert_eq!(flavor, tokio::runtime::RuntimeFlavor::CurrentThread);
    /// ```
    pub fn new_current_thread() -> Builder {
        let mut builder = rt::runtime::Builder::new_current_thread();
        builder.thread_name(TOKIO_THREAD_NAME);
        Builder(builder)
    }

    /// A builder for a multi-thread, work-stealing runtime: one worker per
    /// CPU unless [`worker_threads`](Builder::worker_threads) or the
    /// environment variable `TOKIO_WORKER_THREADS` says otherwise.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = tokio::runtime::Builder::new_multi_thread()
    ///     .worker_threads(2)
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(rt.metrics().num_workers(), 2);
    /// ```
    #[cfg(feature = "rt-multi-thread")]
    pub fn new_multi_thread() -> Builder {
        let mut builder = rt::runtime::Builder::new_multi_thread();
        builder
            .worker_threads_var(TOKIO_WORKER_THREADS)
            .thread_name(TOKIO_THREAD_NAME);
        Builder(builder)
    }

    /// Enables the I/O and time drivers.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// # drop(rt);
    /// ```
    pub fn enable_all(&mut self) -> &mut Builder {
        self.0.enable_all();
        self
    }

    /// Enables the I/O driver (sockets, pipes, signals, child processes).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = tokio::runtime::Builder::new_current_thread().enable_io().build().unwrap();
    /// # drop(rt);
    /// ```
    #[cfg(any(feature = "net", feature = "process", feature = "signal"))]
    pub fn enable_io(&mut self) -> &mut Builder {
        self.0.enable_io();
        self
    }

    /// Enables the time driver (`sleep`, `timeout`, `interval`).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
    /// rt.block_on(async { tokio::time::sleep(std::time::Duration::from_millis(1)).await });
    /// ```
    #[cfg(feature = "time")]
    pub fn enable_time(&mut self) -> &mut Builder {
        self.0.enable_time();
        self
    }

    /// Starts the clock paused (current-thread runtimes only; see
    /// [`time::pause`](crate::time::pause)).
    ///
    /// # Panics
    ///
    /// `build` panics if the clock is paused on a multi-thread runtime.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = tokio::runtime::Builder::new_current_thread()
    ///     .enable_time()
    ///     .start_paused(true)
    ///     .build()
    ///     .unwrap();
    /// rt.block_on(async {
    ///     let start = tokio::time::Instant::now();
    ///     tokio::time::sleep(std::time::Duration::from_secs(60)).await;
    ///     assert!(start.elapsed() >= std::time::Duration::from_secs(60));
    /// });
    /// ```
    #[cfg(feature = "test-util")]
    pub fn start_paused(&mut self, start_paused: bool) -> &mut Builder {
        self.0.start_paused(start_paused);
        self
    }

    /// The runtime's name, which [`Handle::name`](super::Handle::name)
    /// returns.
    ///
    /// # Panics
    ///
    /// Panics if `name` is empty or only whitespace.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = tokio::runtime::Builder::new_current_thread().name("ingest").build().unwrap();
    /// assert_eq!(rt.handle().name(), Some("ingest"));
    /// ```
    #[track_caller]
    pub fn name(&mut self, name: impl Into<String>) -> &mut Builder {
        self.0.name(name);
        self
    }

    /// The most I/O events the reactor takes per poll (default 1024).
    ///
    /// # Panics
    ///
    /// Panics if `capacity` is 0.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = tokio::runtime::Builder::new_current_thread()
    ///     .enable_io()
    ///     .max_io_events_per_tick(256)
    ///     .build()
    ///     .unwrap();
    /// # drop(rt);
    /// ```
    #[cfg(any(feature = "net", feature = "process", feature = "signal"))]
    #[track_caller]
    pub fn max_io_events_per_tick(&mut self, capacity: usize) -> &mut Builder {
        self.0.max_io_events_per_tick(capacity);
        self
    }

    /// The most I/O events a thread takes when it polls the reactor while
    /// it still has tasks to run (default: as many as
    /// [`max_io_events_per_tick`](Builder::max_io_events_per_tick)); rt's
    /// setting of the same name.
    ///
    /// # Panics
    ///
    /// Panics if `capacity` is 0, with tokio's message.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = tokio::runtime::Builder::new_current_thread()
    ///     .enable_io()
    ///     .max_io_events_per_busy_tick(8)
    ///     .build()
    ///     .unwrap();
    /// # drop(rt);
    /// ```
    #[cfg(any(feature = "net", feature = "process", feature = "signal"))]
    #[track_caller]
    pub fn max_io_events_per_busy_tick(&mut self, capacity: usize) -> &mut Builder {
        assert!(
            capacity > 0,
            "max_io_events_per_busy_tick must be non-zero (rt's tokio facade)"
        );
        self.0.max_io_events_per_busy_tick(capacity);
        self
    }

    /// The number of worker threads of a multi-thread runtime (ignored by
    /// a current-thread one). Unset, `build` takes it from the
    /// environment variable `TOKIO_WORKER_THREADS`, else one per CPU, as
    /// tokio does; a count set here wins over the variable.
    ///
    /// # Panics
    ///
    /// Panics if `count` is 0.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(3).build().unwrap();
    /// assert_eq!(rt.metrics().num_workers(), 3);
    /// ```
    #[track_caller]
    pub fn worker_threads(&mut self, count: usize) -> &mut Builder {
        self.0.worker_threads(count);
        self
    }

    /// The most threads the blocking pool may run at once (default 512).
    ///
    /// # Panics
    ///
    /// Panics if `count` is 0.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = tokio::runtime::Builder::new_current_thread().max_blocking_threads(4).build().unwrap();
    /// assert_eq!(rt.block_on(rt.spawn_blocking(|| 2)).unwrap(), 2);
    /// ```
    #[track_caller]
    pub fn max_blocking_threads(&mut self, count: usize) -> &mut Builder {
        self.0.max_blocking_threads(count);
        self
    }

    /// The name of the runtime's threads (workers and blocking pool;
    /// default `tokio-rt-worker`, as in tokio).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = tokio::runtime::Builder::new_multi_thread().thread_name("api").build().unwrap();
    /// let name = rt.block_on(rt.spawn(async {
    ///     std::thread::current().name().map(str::to_owned)
    /// }));
    /// assert_eq!(name.unwrap().as_deref(), Some("api"));
    /// ```
    pub fn thread_name(&mut self, name: impl Into<String>) -> &mut Builder {
        self.0.thread_name(name);
        self
    }

    /// Names each new thread with the string `f` returns.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    ///
    /// let next = AtomicUsize::new(0);
    /// let rt = tokio::runtime::Builder::new_multi_thread()
    ///     .thread_name_fn(move || format!("worker-{}", next.fetch_add(1, Ordering::Relaxed)))
    ///     .build()
    ///     .unwrap();
    /// # drop(rt);
    /// ```
    pub fn thread_name_fn<F>(&mut self, f: F) -> &mut Builder
    where
        F: Fn() -> String + Send + Sync + 'static,
    {
        self.0.thread_name_fn(f);
        self
    }

    /// The stack size of the runtime's threads, in bytes.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = tokio::runtime::Builder::new_multi_thread()
    ///     .thread_stack_size(4 << 20)
    ///     .build()
    ///     .unwrap();
    /// # drop(rt);
    /// ```
    pub fn thread_stack_size(&mut self, bytes: usize) -> &mut Builder {
        self.0.thread_stack_size(bytes);
        self
    }

    /// Runs `f` on each runtime thread when it starts.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = tokio::runtime::Builder::new_multi_thread()
    ///     .on_thread_start(|| println!("thread started"))
    ///     .build()
    ///     .unwrap();
    /// # drop(rt);
    /// ```
    pub fn on_thread_start<F>(&mut self, f: F) -> &mut Builder
    where
        F: Fn() + Send + Sync + 'static,
    {
        self.0.on_thread_start(f);
        self
    }

    /// Runs `f` on each runtime thread before it exits.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = tokio::runtime::Builder::new_multi_thread()
    ///     .on_thread_stop(|| println!("thread stopping"))
    ///     .build()
    ///     .unwrap();
    /// # drop(rt);
    /// ```
    pub fn on_thread_stop<F>(&mut self, f: F) -> &mut Builder
    where
        F: Fn() + Send + Sync + 'static,
    {
        self.0.on_thread_stop(f);
        self
    }

    /// Runs `f` on a worker thread before it parks (goes idle).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = tokio::runtime::Builder::new_multi_thread()
    ///     .on_thread_park(|| {})
    ///     .build()
    ///     .unwrap();
    /// # drop(rt);
    /// ```
    pub fn on_thread_park<F>(&mut self, f: F) -> &mut Builder
    where
        F: Fn() + Send + Sync + 'static,
    {
        self.0.on_thread_park(f);
        self
    }

    /// Runs `f` on a worker thread after it wakes from parking.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = tokio::runtime::Builder::new_multi_thread()
    ///     .on_thread_unpark(|| {})
    ///     .build()
    ///     .unwrap();
    /// # drop(rt);
    /// ```
    pub fn on_thread_unpark<F>(&mut self, f: F) -> &mut Builder
    where
        F: Fn() + Send + Sync + 'static,
    {
        self.0.on_thread_unpark(f);
        self
    }

    /// How long an idle blocking-pool thread waits for work before it
    /// exits (default 10 s).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = tokio::runtime::Builder::new_current_thread()
    ///     .thread_keep_alive(std::time::Duration::from_secs(1))
    ///     .build()
    ///     .unwrap();
    /// # drop(rt);
    /// ```
    pub fn thread_keep_alive(&mut self, duration: Duration) -> &mut Builder {
        self.0.thread_keep_alive(duration);
        self
    }

    /// Every how many scheduler ticks a worker takes its next task from
    /// the global queue first (fairness for tasks spawned from outside).
    ///
    /// # Panics
    ///
    /// Panics if `ticks` is 0.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = tokio::runtime::Builder::new_multi_thread()
    ///     .global_queue_interval(31)
    ///     .build()
    ///     .unwrap();
    /// # drop(rt);
    /// ```
    #[track_caller]
    pub fn global_queue_interval(&mut self, ticks: u32) -> &mut Builder {
        self.0.global_queue_interval(ticks);
        self
    }

    /// Every how many scheduler ticks a busy worker polls the I/O and
    /// timer drivers without blocking.
    ///
    /// # Panics
    ///
    /// Panics if `ticks` is 0.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = tokio::runtime::Builder::new_multi_thread()
    ///     .event_interval(31)
    ///     .build()
    ///     .unwrap();
    /// # drop(rt);
    /// ```
    #[track_caller]
    pub fn event_interval(&mut self, ticks: u32) -> &mut Builder {
        self.0.event_interval(ticks);
        self
    }

    /// Builds the runtime.
    ///
    /// # Errors
    ///
    /// Returns the OS error if a worker thread or the I/O driver cannot be
    /// created.
    ///
    /// # Panics
    ///
    /// Panics if a multi-thread runtime without
    /// [`worker_threads`](Builder::worker_threads) finds
    /// `TOKIO_WORKER_THREADS` set to anything but a positive integer (as
    /// tokio does), or if `start_paused(true)` was asked of it.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = tokio::runtime::Builder::new_multi_thread().build().unwrap();
    /// assert_eq!(rt.block_on(async { tokio::spawn(async { 5 }).await }).unwrap(), 5);
    /// ```
    #[track_caller]
    pub fn build(&mut self) -> io::Result<Runtime> {
        self.0.build().map(Runtime::from)
    }

    /// Builds a [`LocalRuntime`]: a current-thread runtime whose
    /// `block_on` and `spawn_local` take `!Send` futures.
    ///
    /// # Panics
    ///
    /// Panics on a multi-thread builder, as tokio does.
    ///
    /// # Errors
    ///
    /// Returns the OS error if the I/O driver cannot be created.
    ///
    /// # Examples
    ///
    /// ```
    /// use tokio::runtime::{Builder, LocalOptions};
    ///
    /// let rt = Builder::new_current_thread()
    ///     .enable_all()
    ///     .build_local(LocalOptions::default())
    ///     .unwrap();
    /// let rc = std::rc::Rc::new(4);
    /// assert_eq!(rt.block_on(async move { *rc }), 4);
    /// ```
    #[track_caller]
    pub fn build_local(&mut self, options: LocalOptions) -> io::Result<LocalRuntime> {
        // `LocalOptions` has no settings yet, in tokio as here.
        let LocalOptions { .. } = options;
        self.0.build_local().map(LocalRuntime::from)
    }
}

impl From<rt::runtime::Builder> for Builder {
    fn from(builder: rt::runtime::Builder) -> Builder {
        Builder(builder)
    }
}

impl From<Builder> for rt::runtime::Builder {
    fn from(builder: Builder) -> rt::runtime::Builder {
        builder.0
    }
}

impl fmt::Debug for Builder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}
