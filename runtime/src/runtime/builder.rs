//! `Builder`: configures and builds a `Runtime`.

use crate::blocking::{self, PoolConfig};
use crate::driver::{Driver, DriverConfig};
use crate::loom::thread;
use crate::runtime::block_on_calls::BlockOnCalls;
use crate::runtime::deadlock::DeadlockCallback;
use crate::runtime::live_threads::LiveThreads;
use crate::runtime::shutdown_sweep::ShutdownSweep;
use crate::runtime::watchdog::{SlowPollCallback, WatchdogConfig};
use crate::runtime::worker_count::{self, RT_WORKER_THREADS};
use crate::runtime::{Deadlock, Handle, LocalRuntime, Runtime, SlowPoll, context};
use crate::scheduler::{self, Config, current_thread, multi_thread};
use crate::task::local_set_list::LocalSetList;
use std::borrow::Cow;
use std::fmt;
use std::io;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// See [`Builder::spin_before_park`]. Off under loom: the end-to-end
/// models would spend their state space on it; the blocking pool's models
/// turn it on where its protocol changes.
const DEFAULT_SPIN_BEFORE_PARK: Duration = if cfg!(loom) {
    Duration::ZERO
} else {
    Duration::from_micros(20)
};

pub(crate) type Callback = Arc<dyn Fn() + Send + Sync + 'static>;
type ThreadNameFn = Arc<dyn Fn() -> String + Send + Sync + 'static>;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    CurrentThread,
    MultiThread,
}

/// Configures and builds a [`Runtime`].
///
/// # Examples
///
/// ```
/// use rt::runtime::Builder;
///
/// let rt = Builder::new_multi_thread()
///     .worker_threads(2)
///     .thread_name("my-worker")
///     .build()
///     .unwrap();
/// assert_eq!(rt.block_on(rt.spawn(async { 1 + 1 })).unwrap(), 2);
/// ```
pub struct Builder {
    kind: Kind,
    /// The runtime's name (`Handle::name`).
    name: Option<Arc<str>>,
    worker_threads: Option<usize>,
    /// The environment variable read when `worker_threads` is unset
    /// (`worker_count.rs`).
    worker_threads_var: Cow<'static, str>,
    thread_name: ThreadNameFn,
    thread_stack_size: Option<usize>,
    on_thread_start: Option<Callback>,
    on_thread_stop: Option<Callback>,
    on_thread_park: Option<Callback>,
    on_thread_unpark: Option<Callback>,
    global_queue_interval: Option<u32>,
    event_interval: u32,
    spin_before_park: Duration,
    driver: DriverConfig,
    max_blocking_threads: usize,
    thread_keep_alive: Duration,
    slow_poll_threshold: Option<Duration>,
    on_slow_poll: Option<SlowPollCallback>,
    on_deadlock: Option<DeadlockCallback>,
    track_waits: bool,
    /// Unit tests only: asked before every thread the runtime starts.
    #[cfg(test)]
    thread_gate: Option<ThreadGate>,
}

impl Builder {
    /// A builder for the multi-thread, work-stealing runtime.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_multi_thread().build().unwrap();
    /// # drop(rt);
    /// ```
    pub fn new_multi_thread() -> Builder {
        Builder::new(Kind::MultiThread)
    }

    /// A builder for the current-thread runtime: every task runs on the
    /// thread that calls `block_on`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    /// assert_eq!(rt.block_on(async { 3 }), 3);
    /// ```
    pub fn new_current_thread() -> Builder {
        Builder::new(Kind::CurrentThread)
    }

    fn new(kind: Kind) -> Builder {
        Builder {
            kind,
            name: None,
            worker_threads: None,
            worker_threads_var: Cow::Borrowed(RT_WORKER_THREADS),
            thread_name: Arc::new(|| "rt-worker".to_owned()),
            thread_stack_size: None,
            on_thread_start: None,
            on_thread_stop: None,
            on_thread_park: None,
            on_thread_unpark: None,
            global_queue_interval: None,
            event_interval: 61,
            spin_before_park: DEFAULT_SPIN_BEFORE_PARK,
            driver: DriverConfig::default(),
            max_blocking_threads: 512,
            thread_keep_alive: Duration::from_secs(10),
            slow_poll_threshold: None,
            on_slow_poll: None,
            on_deadlock: None,
            track_waits: false,
            #[cfg(test)]
            thread_gate: None,
        }
    }

    /// Unit tests only: `gate` is called before every thread the runtime
    /// starts (workers, blocking pool), on the starting thread; an `Err`
    /// is returned as the OS's refusal would be, and no thread starts.
    /// This is how the tests play a container's pids limit, which they
    /// cannot set for real when run as root.
    #[cfg(all(test, not(loom)))]
    pub(crate) fn thread_gate(
        &mut self,
        gate: impl Fn() -> io::Result<()> + Send + Sync + 'static,
    ) -> &mut Builder {
        self.thread_gate = Some(Arc::new(gate));
        self
    }

    /// Names the runtime: [`Handle::name`] returns it (unnamed runtimes
    /// return `None`). It names the runtime,
    /// not its threads: [`thread_name`](Builder::thread_name) does that.
    /// tokio's `Builder::name` (stable in tokio 1.54), with its contract.
    ///
    /// # Panics
    ///
    /// Panics if `name` is empty or only whitespace.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_current_thread()
    ///     .name("ingest")
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(rt.handle().name(), Some("ingest"));
    /// rt.block_on(async {
    ///     assert_eq!(rt::runtime::Handle::current().name(), Some("ingest"));
    /// });
    /// ```
    #[track_caller]
    pub fn name(&mut self, name: impl Into<String>) -> &mut Builder {
        let name = name.into();
        assert!(
            !name.trim().is_empty(),
            "`Builder::name` needs a non-empty name (leave it unset for an unnamed runtime)"
        );
        self.name = Some(name.into());
        self
    }

    /// The number of worker threads (multi-thread only). Defaults to the
    /// value of the environment variable `RT_WORKER_THREADS` if it is set
    /// (see [`worker_threads_var`](Builder::worker_threads_var)), else to
    /// the number of CPUs; a count set here wins over the variable.
    ///
    /// # Panics
    ///
    /// Panics if `count` is 0.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_multi_thread().worker_threads(3).build().unwrap();
    /// assert_eq!(rt.handle().metrics().num_workers(), 3);
    /// ```
    #[track_caller]
    pub fn worker_threads(&mut self, count: usize) -> &mut Builder {
        assert!(count > 0, "`worker_threads` must be at least 1");
        self.worker_threads = Some(count);
        self
    }

    /// The environment variable that gives a multi-thread runtime its
    /// number of workers when [`worker_threads`](Builder::worker_threads)
    /// is not called (default `RT_WORKER_THREADS`; tokio's facade reads
    /// `TOKIO_WORKER_THREADS`). It is read by [`build`](Builder::build),
    /// and only then; unset, the runtime gets one worker per CPU.
    ///
    /// # Panics
    ///
    /// `build` panics, naming the variable, if it is set to anything but
    /// a positive integer: a deployment asked for a worker count the
    /// runtime cannot give, and running with another would hide it.
    ///
    /// # Examples
    ///
    /// ```
    /// // Run with `MYAPP_WORKERS=4`, this server has 4 workers; without
    /// // it, one per CPU.
    /// let rt = rt::runtime::Builder::new_multi_thread()
    ///     .worker_threads_var("MYAPP_WORKERS")
    ///     .build()
    ///     .unwrap();
    /// if let Ok(count) = std::env::var("MYAPP_WORKERS") {
    ///     assert_eq!(rt.metrics().num_workers().to_string(), count);
    /// }
    /// ```
    pub fn worker_threads_var(&mut self, name: impl Into<Cow<'static, str>>) -> &mut Builder {
        self.worker_threads_var = name.into();
        self
    }

    /// The name of the runtime's threads (default `rt-worker`).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_multi_thread().thread_name("web").build().unwrap();
    /// let name = rt.block_on(rt.spawn(async { std::thread::current().name().map(String::from) }));
    /// assert_eq!(name.unwrap().as_deref(), Some("web"));
    /// ```
    pub fn thread_name(&mut self, name: impl Into<String>) -> &mut Builder {
        let name = name.into();
        self.thread_name = Arc::new(move || name.clone());
        self
    }

    /// A function that names each new thread.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// static NEXT: AtomicUsize = AtomicUsize::new(0);
    /// let rt = rt::runtime::Builder::new_multi_thread()
    ///     .thread_name_fn(|| format!("worker-{}", NEXT.fetch_add(1, Ordering::Relaxed)))
    ///     .build()
    ///     .unwrap();
    /// # drop(rt);
    /// ```
    pub fn thread_name_fn<F>(&mut self, f: F) -> &mut Builder
    where
        F: Fn() -> String + Send + Sync + 'static,
    {
        self.thread_name = Arc::new(f);
        self
    }

    /// The stack size of the runtime's threads, in bytes.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_multi_thread().thread_stack_size(4 << 20).build().unwrap();
    /// # drop(rt);
    /// ```
    pub fn thread_stack_size(&mut self, bytes: usize) -> &mut Builder {
        self.thread_stack_size = Some(bytes);
        self
    }

    /// Runs `f` on each runtime thread when it starts (workers and
    /// blocking-pool threads), with the runtime current, as tokio does:
    /// `f` may call [`Handle::current`]. A panic in `f` is printed by the
    /// panic hook, and the thread goes on.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    /// let started = Arc::new(AtomicUsize::new(0));
    /// let counter = started.clone();
    /// let rt = rt::runtime::Builder::new_multi_thread()
    ///     .worker_threads(2)
    ///     .on_thread_start(move || { counter.fetch_add(1, Ordering::SeqCst); })
    ///     .build()
    ///     .unwrap();
    /// drop(rt);
    /// assert_eq!(started.load(Ordering::SeqCst), 2);
    /// ```
    pub fn on_thread_start<F>(&mut self, f: F) -> &mut Builder
    where
        F: Fn() + Send + Sync + 'static,
    {
        self.on_thread_start = Some(Arc::new(f));
        self
    }

    /// Runs `f` on each runtime thread just before it exits, with the
    /// runtime still current (see [`on_thread_start`](Builder::on_thread_start)):
    /// workers at shutdown, blocking-pool threads at shutdown or once idle
    /// for [`thread_keep_alive`](Builder::thread_keep_alive). Dropping the
    /// runtime returns once every thread's `f` has run, as tokio's joins
    /// its threads; a thread it does not wait for (one blocked in
    /// [`block_in_place`](crate::task::block_in_place), one a
    /// [`Runtime::shutdown_timeout`] left behind) runs `f` when it is done.
    /// A panic in `f` is printed by the panic hook, and the thread exits
    /// as it would have.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    /// let stopped = Arc::new(AtomicUsize::new(0));
    /// let counter = stopped.clone();
    /// let rt = rt::runtime::Builder::new_multi_thread()
    ///     .worker_threads(2)
    ///     .on_thread_stop(move || { counter.fetch_add(1, Ordering::SeqCst); })
    ///     .build()
    ///     .unwrap();
    /// drop(rt);
    /// assert_eq!(stopped.load(Ordering::SeqCst), 2);
    /// ```
    pub fn on_thread_stop<F>(&mut self, f: F) -> &mut Builder
    where
        F: Fn() + Send + Sync + 'static,
    {
        self.on_thread_stop = Some(Arc::new(f));
        self
    }

    /// Runs `f` on a worker just before it parks (has nothing to do). A
    /// panic in `f` is printed by the panic hook, and the worker goes on.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_multi_thread().on_thread_park(|| {}).build().unwrap();
    /// # drop(rt);
    /// ```
    pub fn on_thread_park<F>(&mut self, f: F) -> &mut Builder
    where
        F: Fn() + Send + Sync + 'static,
    {
        self.on_thread_park = Some(Arc::new(f));
        self
    }

    /// Runs `f` on a worker just after it wakes from parking. A panic in
    /// `f` is printed by the panic hook, and the worker goes on.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_multi_thread().on_thread_unpark(|| {}).build().unwrap();
    /// # drop(rt);
    /// ```
    pub fn on_thread_unpark<F>(&mut self, f: F) -> &mut Builder
    where
        F: Fn() + Send + Sync + 'static,
    {
        self.on_thread_unpark = Some(Arc::new(f));
        self
    }

    /// How many scheduler ticks between checks of the global queue ahead
    /// of the local one (default 61 on multi-thread, 31 on current-thread).
    ///
    /// The global queue holds the tasks spawned or woken from outside the
    /// runtime's threads. Left unset, the default is the most: each worker
    /// (or the current-thread scheduler) lowers its interval (to 2 at the
    /// least) so that it checks about every 100 µs of polling, and a task
    /// woken from outside does not wait for dozens of long polls. Setting
    /// it fixes it.
    ///
    /// # Panics
    ///
    /// Panics if `ticks` is 0.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_multi_thread().global_queue_interval(31).build().unwrap();
    /// # drop(rt);
    /// ```
    #[track_caller]
    pub fn global_queue_interval(&mut self, ticks: u32) -> &mut Builder {
        assert!(ticks > 0, "`global_queue_interval` must be at least 1");
        self.global_queue_interval = Some(ticks);
        self
    }

    /// How many scheduler ticks between non-blocking polls of the I/O and
    /// timer driver while there is work to do (default 61).
    ///
    /// # Panics
    ///
    /// Panics if `ticks` is 0.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_multi_thread().event_interval(31).build().unwrap();
    /// # drop(rt);
    /// ```
    #[track_caller]
    pub fn event_interval(&mut self, ticks: u32) -> &mut Builder {
        assert!(ticks > 0, "`event_interval` must be at least 1");
        self.event_interval = ticks;
        self
    }

    /// The longest an idle thread spins, looking for work, before it goes
    /// to sleep (default 20 µs; `Duration::ZERO` turns spinning off). It
    /// applies to a multi-thread worker that ran out of tasks while
    /// searching (at most half the workers at once, and only while another
    /// worker watches I/O and timers), to a thread waiting in the
    /// multi-thread [`Runtime::block_on`], and to the blocking pool's
    /// threads (of either runtime flavor) between jobs.
    ///
    /// Waking a sleeping thread costs the waker a system call and the
    /// sleeper tens of microseconds on a virtual machine; a thread that
    /// is still spinning needs neither, which makes request/reply
    /// exchanges between threads many times faster. The spin adapts: a
    /// thread spins only while its recent sleeps ended within this time,
    /// so a thread that mostly waits long spends no CPU on it. Turn it
    /// off where every CPU cycle counts more than latency (battery, or a
    /// CPU quota shared by many processes).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let rt = rt::runtime::Builder::new_multi_thread()
    ///     .spin_before_park(Duration::ZERO)
    ///     .build()
    ///     .unwrap();
    /// # drop(rt);
    /// ```
    pub fn spin_before_park(&mut self, max: Duration) -> &mut Builder {
        self.spin_before_park = max;
        self
    }

    /// The most threads the blocking pool runs at once (default 512).
    ///
    /// The pool starts threads on demand for
    /// [`spawn_blocking`](crate::task::spawn_blocking) and `rt::fs`; past
    /// this many, calls wait in a queue until a thread is free. Threads
    /// that took over a worker in
    /// [`block_in_place`](crate::task::block_in_place) do not count.
    ///
    /// # Panics
    ///
    /// Panics if `count` is 0.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_multi_thread().max_blocking_threads(2).build().unwrap();
    /// let calls: Vec<_> = (0..8).map(|i| rt.spawn_blocking(move || i * 2)).collect();
    /// for (i, call) in calls.into_iter().enumerate() {
    ///     assert_eq!(rt.block_on(call).unwrap(), i * 2);
    /// }
    /// assert!(rt.handle().metrics().num_blocking_threads() <= 2);
    /// ```
    #[track_caller]
    pub fn max_blocking_threads(&mut self, count: usize) -> &mut Builder {
        assert!(count > 0, "`max_blocking_threads` must be at least 1");
        self.max_blocking_threads = count;
        self
    }

    /// How long an idle blocking-pool thread waits for work before it
    /// exits (default 10 s). `Duration::ZERO` makes threads exit as soon as
    /// the queue is empty.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// let rt = rt::runtime::Builder::new_multi_thread()
    ///     .thread_keep_alive(Duration::from_millis(100))
    ///     .build()
    ///     .unwrap();
    /// # drop(rt);
    /// ```
    pub fn thread_keep_alive(&mut self, keep_alive: Duration) -> &mut Builder {
        self.thread_keep_alive = keep_alive;
        self
    }

    /// Enables both the I/O and the time drivers.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    /// # drop(rt);
    /// ```
    pub fn enable_all(&mut self) -> &mut Builder {
        self.enable_io().enable_time()
    }

    /// Enables the I/O driver (sockets, `AsyncFd`, signals).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_current_thread().enable_io().build().unwrap();
    /// # drop(rt);
    /// ```
    pub fn enable_io(&mut self) -> &mut Builder {
        self.driver.enable_io = true;
        self
    }

    /// The most I/O events one turn of the reactor takes from the OS
    /// poller (default 1024; tokio's setting of the same name). Events
    /// past that stay queued in the kernel for the next turn, so a turn
    /// wakes at most this many I/O waiters: a smaller batch spreads a
    /// burst of readiness over more turns (each followed by running the
    /// tasks it woke), a larger one needs fewer system calls under load.
    /// Without [`enable_io`](Builder::enable_io) it has nothing to bound.
    ///
    /// # Panics
    ///
    /// Panics if `capacity` is 0.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_current_thread()
    ///     .enable_io()
    ///     .max_io_events_per_tick(256)
    ///     .build()
    ///     .unwrap();
    /// # drop(rt);
    /// ```
    #[track_caller]
    pub fn max_io_events_per_tick(&mut self, capacity: usize) -> &mut Builder {
        assert!(capacity > 0, "`max_io_events_per_tick` must be at least 1");
        self.driver.max_io_events_per_tick = Some(capacity);
        self
    }

    /// The most I/O events a turn of the reactor that does not wait takes
    /// (tokio's setting of the same name; default: as many as
    /// [`max_io_events_per_tick`](Builder::max_io_events_per_tick)). A busy
    /// thread checks for I/O without waiting between tasks (every
    /// [`event_interval`](Builder::event_interval) ticks, after a yield,
    /// or when a timer is already due) and queues every task those events
    /// wake on itself: a small batch leaves the rest in the kernel for an
    /// idle thread or a later turn instead of piling work on a thread that
    /// is already behind. Turns that may wait still take up to
    /// `max_io_events_per_tick`.
    ///
    /// # Panics
    ///
    /// Panics if `capacity` is 0.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_multi_thread()
    ///     .enable_io()
    ///     .max_io_events_per_tick(256)
    ///     .max_io_events_per_busy_tick(16)
    ///     .build()
    ///     .unwrap();
    /// # drop(rt);
    /// ```
    #[track_caller]
    pub fn max_io_events_per_busy_tick(&mut self, capacity: usize) -> &mut Builder {
        assert!(
            capacity > 0,
            "`max_io_events_per_busy_tick` must be at least 1"
        );
        self.driver.max_io_events_per_busy_tick = Some(capacity);
        self
    }

    /// Turns the slow-poll watchdog on: a monitor thread reports every
    /// task that stays in one poll longer than `threshold` (it blocks its
    /// worker: a synchronous lock, a CPU loop, a blocking call), once per
    /// stall, with its id, name, spawn location and how long it has run,
    /// on stderr (and as a `tracing` event with the `tracing` feature),
    /// and to the [`on_slow_poll`](Builder::on_slow_poll) callback. While a
    /// worker is stuck, the others take the tasks waiting on it, the one
    /// in its LIFO slot and the ones that yielded included. The tasks of
    /// the [`LocalSet`](crate::task::LocalSet)s driven on the runtime are
    /// watched too (a stuck one blocks its set's thread; nothing can take
    /// its set's work), and so is the future passed to `block_on` (the
    /// body of `#[rt::main]` or `#[rt::test]`), reported with where
    /// `block_on` was called (see [`SlowPoll::is_block_on`]). Dropping
    /// the runtime then also lists the tasks still alive (a leak report),
    /// and so does dropping such a set; a drop (or
    /// [`Runtime::shutdown_timeout`]) that has waited longer than
    /// `threshold` for running [`spawn_blocking`](crate::task::spawn_blocking)
    /// jobs lists them, once. A task that panics with its `JoinHandle`
    /// dropped is reported with its name and spawn location, and so is a
    /// task whose poll returns `Pending` with no waker of it left anywhere
    /// (nothing can wake it, so it would hang without a trace; see
    /// [`TaskSnapshot::has_lost_waker`](crate::runtime::TaskSnapshot::has_lost_waker)),
    /// as is a `block_on` future whose poll leaves it so, or whose last
    /// waker is dropped later without a wake (its thread would wait
    /// forever).
    /// With [`track_waits`](Builder::track_waits) on too, the watchdog
    /// reports tasks deadlocked on one another's locks or `JoinHandle`s
    /// (see [`on_deadlock`](Builder::on_deadlock)).
    ///
    /// Setting the environment variable `RT_DEBUG=1` turns it on for every
    /// runtime built, with a threshold of 100 ms. Off (the default), it
    /// costs nothing: no thread, no check on a task's poll path, one
    /// branch per poll of a `block_on` future.
    ///
    /// The watchdog samples polls ten times per `threshold`, at most once
    /// a millisecond, so a threshold under 10 ms is only as fine as that.
    ///
    /// # Panics
    ///
    /// Panics if `threshold` is zero: every poll takes some time, so every
    /// poll seen would be reported. Zero does not mean "off": to leave the
    /// watchdog off, do not call this (nor `on_slow_poll` or
    /// `on_deadlock`, with `RT_DEBUG` unset).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_multi_thread()
    ///     .slow_poll_threshold(std::time::Duration::from_millis(50))
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(rt.block_on(async { 1 }), 1);
    /// ```
    #[track_caller]
    pub fn slow_poll_threshold(&mut self, threshold: Duration) -> &mut Builder {
        assert!(
            !threshold.is_zero(),
            "`slow_poll_threshold` must be greater than zero: every poll takes some time, so \
             every poll would be reported. To leave the watchdog off, do not call it (and \
             leave `RT_DEBUG` unset); for a sensitive watchdog, pass a small threshold such \
             as 10 ms"
        );
        self.slow_poll_threshold = Some(threshold);
        self
    }

    /// Calls `f` on the watchdog's thread for each slow poll it finds
    /// (see [`slow_poll_threshold`](Builder::slow_poll_threshold); setting
    /// a callback turns the watchdog on, at 100 ms unless a threshold is
    /// set). The report then goes to `f` instead of stderr. `f` runs on
    /// the monitor thread: while it runs, no other stall is looked for. A
    /// panic in `f` is printed by the panic hook and the monitor goes on.
    /// `f` may shut the runtime down (say with
    /// [`Runtime::shutdown_background`](crate::runtime::Runtime::shutdown_background),
    /// which does not wait for the stuck poll); the monitor then stops
    /// once `f` returns.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_current_thread()
    ///     .on_slow_poll(|slow: &rt::runtime::SlowPoll| {
    ///         eprintln!("{} is stuck on worker {:?}", slow.id(), slow.worker());
    ///     })
    ///     .build()
    ///     .unwrap();
    /// # drop(rt);
    /// ```
    pub fn on_slow_poll<F>(&mut self, f: F) -> &mut Builder
    where
        F: Fn(&SlowPoll) + Send + Sync + 'static,
    {
        self.on_slow_poll = Some(Arc::new(f));
        self
    }

    /// Calls `f` on the watchdog's thread for each [`Deadlock`] it finds,
    /// instead of printing it on stderr (or sending it to `tracing`).
    ///
    /// The watchdog looks for deadlocks when it is on and the runtime
    /// [tracks waits](Builder::track_waits): setting this callback turns
    /// on both (tracking has its cost on every poll, see there), as
    /// `RT_DEBUG=1` does. Without tracking there would be no waits to
    /// follow, and the callback would never be called.
    ///
    /// The watchdog looks once per second, or once per
    /// [threshold](Builder::slow_poll_threshold) if that is longer, and
    /// only if a task was polled since its last look or a cycle awaits a
    /// second look. A look walks every task of the runtime and of its
    /// [`LocalSet`](crate::task::LocalSet)s under the owned lists' shard
    /// locks, as [`Handle::dump`](crate::runtime::Handle::dump) does, but
    /// notes only the idle tasks waiting on locks and `JoinHandle`s, and
    /// copies only the tasks of a cycle found: for 100,000 tasks, 2 to 5
    /// ms when none waits on a lock (a dump takes 15 to 50), about 35 ms
    /// when all wait on one `Mutex` (measured on a loaded 2-core machine,
    /// release build).
    ///
    /// A cycle of tasks each waiting for the next (a lock it holds, or to
    /// finish) is reported if each task waits for nothing else rt sees
    /// (a task in a `select!` with a timeout may get out: not reported),
    /// and if it is there at two looks in a row with none of its tasks
    /// polled in between; then it is reported once. If it dissolves (a
    /// task is aborted) and forms again, it is reported again.
    ///
    /// `f` runs on the monitor thread: while it runs, no stall and no
    /// other deadlock is looked for. A panic in `f` is printed by the
    /// panic hook and the monitor goes on.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_multi_thread()
    ///     .track_waits(true)
    ///     .on_deadlock(|deadlock: &rt::runtime::Deadlock| {
    ///         eprintln!("{deadlock}");
    ///         // Or act on it: say, abort the tasks of the cycle through
    ///         // the handles kept by their ids, or exit the process.
    ///     })
    ///     .build()
    ///     .unwrap();
    /// # drop(rt);
    /// ```
    pub fn on_deadlock<F>(&mut self, f: F) -> &mut Builder
    where
        F: Fn(&Deadlock) + Send + Sync + 'static,
    {
        self.on_deadlock = Some(Arc::new(f));
        self
    }

    /// Makes the [task dump](crate::runtime::Handle::dump) say what each
    /// idle task waits for, and who holds the lock it waits on: each poll
    /// records which of rt's futures returned `Pending` and where the
    /// task made it ([`TaskSnapshot::waits`](crate::runtime::TaskSnapshot::waits)),
    /// and a [`Mutex`](crate::sync::Mutex) or an [`RwLock`](crate::sync::RwLock)
    /// taken for writing records its holder
    /// ([`WaitSite::held_by`](crate::task::WaitSite::held_by)). The
    /// printed dump then has a `waiting:` line under each such task, and
    /// a `deadlock:` paragraph for each cycle of tasks waiting on locks
    /// held by one another (`possible deadlock:` if a task of it also
    /// waits for something else, such as a `select!`'s timeout, which may
    /// break it). With the slow-poll
    /// [watchdog](Builder::slow_poll_threshold) on too, the watchdog finds
    /// such cycles by itself and reports each once, on stderr (or
    /// `tracing`), or to [`on_deadlock`](Builder::on_deadlock).
    ///
    /// Setting the environment variable `RT_DEBUG=1` turns it on for every
    /// runtime built, as it does the slow-poll watchdog. Off (the
    /// default), nothing is allocated and nothing recorded: a poll pays
    /// nothing, a wait checks a thread-local flag, a lock's acquire and
    /// release a global one. On, each poll sets up a thread-local
    /// recording (callgrind: +20% instructions on spawn-and-run rows, +50%
    /// on a row of bare yields); one that waits on something of rt's also
    /// takes a lock of the task's owned-list shard, and each task that
    /// waits gets a small allocation beside its entry. Once a runtime
    /// tracking waits was built, every lock of the process records its
    /// holder, and the tasks of every
    /// [`LocalSet`](crate::task::LocalSet) spawned from then on record
    /// their waits.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_current_thread()
    ///     .enable_time()
    ///     .track_waits(true)
    ///     .build()
    ///     .unwrap();
    /// let hour = std::time::Duration::from_secs(3600);
    /// let task = rt.spawn(async move { rt::time::sleep(hour).await });
    /// rt.block_on(rt::task::yield_now());
    /// let dump = rt.handle().dump();
    /// assert_eq!(dump.tasks()[0].waits()[0].kind(), "sleep");
    /// task.abort();
    /// ```
    pub fn track_waits(&mut self, on: bool) -> &mut Builder {
        self.track_waits = on;
        self
    }

    /// Enables the time driver (`sleep`, `timeout`, `interval`).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_current_thread().enable_time().build().unwrap();
    /// # drop(rt);
    /// ```
    pub fn enable_time(&mut self) -> &mut Builder {
        self.driver.enable_time = true;
        self
    }

    /// Starts the runtime with its clock paused (current-thread only; implies
    /// `enable_time`): time only moves with `rt::time::advance`, or jumps to
    /// the next timer when the runtime has nothing else to do.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_current_thread().start_paused(true).build().unwrap();
    /// # drop(rt);
    /// ```
    pub fn start_paused(&mut self, paused: bool) -> &mut Builder {
        self.driver.start_paused = paused;
        if paused {
            self.driver.enable_time = true;
        }
        self
    }

    /// Builds the runtime.
    ///
    /// # Errors
    ///
    /// Returns the OS error if a worker thread or the I/O driver could not
    /// be created. Inside a simulation (feature `sim`), on its thread:
    /// [`Unsupported`](io::ErrorKind::Unsupported), since the runtime's
    /// tasks would run outside the seeded schedule.
    ///
    /// # Panics
    ///
    /// Panics if `start_paused(true)` was asked of a multi-thread runtime,
    /// or if a multi-thread runtime without
    /// [`worker_threads`](Builder::worker_threads) finds its
    /// [`worker_threads_var`](Builder::worker_threads_var) set to anything
    /// but a positive integer.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    /// # drop(rt);
    /// ```
    #[track_caller]
    pub fn build(&mut self) -> io::Result<Runtime> {
        #[cfg(feature = "sim")]
        if crate::sim::is_current() {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "building a runtime inside a simulation (`rt::sim`) is not supported: its \
                 tasks would run outside the seeded schedule (on its own threads, by the real \
                 clock), which a seed cannot replay, and the simulation would not wait for \
                 them. Spawn onto the simulation instead (`rt::spawn`, `Handle::current()`)",
            ));
        }
        assert!(
            !(self.driver.start_paused && self.kind == Kind::MultiThread),
            "`start_paused(true)` needs a current-thread runtime: use `Builder::new_current_thread()`"
        );
        let workers = match self.kind {
            Kind::CurrentThread => 1,
            Kind::MultiThread => self
                .worker_threads
                .unwrap_or_else(|| worker_count::default_worker_threads(&self.worker_threads_var)),
        };
        let (driver, driver_handle) = Driver::new(&self.driver, workers)?;
        let default_interval = match self.kind {
            Kind::CurrentThread => 31,
            Kind::MultiThread => 61,
        };
        // `on_deadlock` needs the waits: it turns tracking on.
        let track_waits = !cfg!(loom)
            && (self.track_waits
                || self.on_deadlock.is_some()
                || std::env::var_os("RT_DEBUG").is_some_and(|value| value == "1"));
        if track_waits {
            crate::task::waits::enable_tracking();
        }
        #[cfg_attr(not(test), allow(unused_mut))]
        let mut slow_poll = WatchdogConfig::from_builder(
            self.slow_poll_threshold,
            self.on_slow_poll.clone(),
            self.on_deadlock.clone(),
            track_waits,
        );
        #[cfg(test)]
        if let Some(watchdog) = &mut slow_poll {
            watchdog.gate = self.thread_gate.clone();
        }
        let config = Config {
            global_queue_interval: self.global_queue_interval.unwrap_or(default_interval),
            tune_global_queue_interval: self.global_queue_interval.is_none(),
            event_interval: self.event_interval,
            spin_before_park: self.spin_before_park,
            before_park: self.on_thread_park.clone(),
            after_unpark: self.on_thread_unpark.clone(),
            runtime_id: crate::runtime::Id::next(),
            name: self.name.clone(),
            stealable_local_queues: slow_poll.is_some(),
            local_sets: crate::loom::sync::Arc::new(LocalSetList::new(slow_poll.is_some())),
            block_on_calls: slow_poll
                .is_some()
                .then(|| crate::loom::sync::Arc::new(BlockOnCalls::new())),
            shutdown_sweep: slow_poll
                .is_some()
                .then(|| crate::loom::sync::Arc::new(ShutdownSweep::default())),
            track_waits,
        };
        // One spawner for the workers and the pool: shutdown waits for the
        // threads of both.
        let threads = self.spawner();
        let blocking = blocking::Spawner::new(
            PoolConfig {
                max_threads: self.max_blocking_threads,
                keep_alive: self.thread_keep_alive,
                spin_before_park: self.spin_before_park,
                report_wait_after: slow_poll.as_ref().map(|watchdog| watchdog.threshold),
            },
            threads.clone(),
        );
        match self.kind {
            Kind::CurrentThread => {
                let handle = current_thread::Handle::new(driver, driver_handle, config, blocking);
                let handle = Handle {
                    inner: scheduler::Handle::CurrentThread(handle),
                };
                Runtime::from_parts(handle, None, slow_poll)
            }
            Kind::MultiThread => {
                let (scheduler, handle) = multi_thread::MultiThread::new(
                    workers,
                    config,
                    driver,
                    driver_handle,
                    &threads,
                    blocking,
                )?;
                let handle = Handle {
                    inner: scheduler::Handle::MultiThread(handle),
                };
                Runtime::from_parts(handle, Some(scheduler), slow_poll)
            }
        }
    }

    /// Builds a current-thread runtime with a [`LocalSet`](crate::task::LocalSet)
    /// built in, whose `block_on` and `spawn_local` take `!Send` futures.
    ///
    /// # Errors
    ///
    /// As [`build`](Builder::build).
    ///
    /// # Panics
    ///
    /// Panics on a multi-thread builder (local tasks run on one thread).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_current_thread().build_local().unwrap();
    /// let rc = std::rc::Rc::new(1);
    /// assert_eq!(rt.block_on(async move { *rc }), 1);
    /// ```
    #[track_caller]
    pub fn build_local(&mut self) -> io::Result<LocalRuntime> {
        assert!(
            self.kind == Kind::CurrentThread,
            "`build_local` needs a current-thread runtime: use `Builder::new_current_thread()` \
             (or drive a `LocalSet` inside a multi-thread runtime's `block_on`)"
        );
        self.build().map(LocalRuntime::from_runtime)
    }

    /// The spawner of one runtime's threads: build the runtime's workers
    /// and its blocking pool with the same one (or clones of it), so
    /// that shutdown waits for all of them.
    pub(crate) fn spawner(&self) -> ThreadSpawner {
        ThreadSpawner {
            name: self.thread_name.clone(),
            stack_size: self.thread_stack_size,
            on_start: self.on_thread_start.clone(),
            on_stop: self.on_thread_stop.clone(),
            live: Arc::new(LiveThreads::new()),
            #[cfg(test)]
            gate: self.thread_gate.clone(),
        }
    }
}

/// See [`Builder::thread_gate`].
#[cfg(test)]
pub(crate) type ThreadGate = Arc<dyn Fn() -> io::Result<()> + Send + Sync + 'static>;

/// Spawns the runtime's threads with the builder's name, stack size and
/// start/stop hooks, and counts them until they finish.
#[derive(Clone)]
pub(crate) struct ThreadSpawner {
    name: ThreadNameFn,
    stack_size: Option<usize>,
    on_start: Option<Callback>,
    on_stop: Option<Callback>,
    /// Shared by the clones: every thread of the runtime.
    live: Arc<LiveThreads>,
    #[cfg(test)]
    gate: Option<ThreadGate>,
}

impl ThreadSpawner {
    /// Plain threads, for models that build a component without a runtime.
    #[cfg(all(test, loom))]
    pub(crate) fn unnamed() -> ThreadSpawner {
        ThreadSpawner {
            name: Arc::new(|| "rt-loom".to_owned()),
            stack_size: None,
            on_start: None,
            on_stop: None,
            live: Arc::new(LiveThreads::new()),
            gate: None,
        }
    }

    /// These threads, with a `Builder::thread_gate`, for the models of
    /// the pool when the OS refuses a thread.
    #[cfg(all(test, loom))]
    pub(crate) fn with_gate(
        mut self,
        gate: impl Fn() -> io::Result<()> + Send + Sync + 'static,
    ) -> ThreadSpawner {
        self.gate = Some(Arc::new(gate));
        self
    }

    /// Spawns a thread running the start hook, `f`, the stop hook, then
    /// `on_exit` with `f`'s result: whoever waits for `on_exit` knows the
    /// hooks have run. The hooks run with `current` (the runtime the
    /// thread serves) as the current runtime. The thread counts as live
    /// until it has dropped everything it holds, `on_exit` included (see
    /// `live_threads.rs`).
    /// Returns the thread's handle, to join it.
    pub(crate) fn spawn_then<T>(
        &self,
        current: Option<scheduler::Handle>,
        f: impl FnOnce() -> T + Send + 'static,
        on_exit: impl FnOnce(T) + Send + 'static,
    ) -> io::Result<thread::JoinHandle<()>> {
        #[cfg(test)]
        if let Some(gate) = &self.gate {
            gate()?;
        }
        let on_start = self.on_start.clone();
        let on_stop = self.on_stop.clone();
        let live = self.live.clone();
        let body = move || {
            let running = live.started();
            // As in tokio, a hook may call `Handle::current()` (to keep the
            // handle in a thread-local, say).
            let entered = current.as_ref().map(context::set_current);
            run_hook(on_start.as_ref());
            let result = f();
            run_hook(on_stop.as_ref());
            drop(entered);
            drop(current);
            // The hooks' captures too, before the thread stops counting.
            drop((on_start, on_stop));
            on_exit(result);
            drop(running);
        };
        self.live.spawning();
        #[cfg(not(loom))]
        let mut builder = std::thread::Builder::new().name((self.name)());
        #[cfg(loom)]
        let mut builder = loom::thread::Builder::new().name((self.name)());
        if let Some(size) = self.stack_size {
            builder = builder.stack_size(size);
        }
        let spawned = builder.spawn(body);
        if spawned.is_err() {
            self.live.spawn_failed();
        }
        spawned
    }

    /// See `LiveThreads::detach_current`.
    pub(crate) fn detach_current(&self) {
        self.live.detach_current();
    }

    /// See `LiveThreads::attach_current`.
    pub(crate) fn attach_current(&self) {
        self.live.attach_current();
    }

    /// Waits until every thread spawned so far (but the caller, if it is
    /// one of them) has finished, stop hook included, or until `deadline`
    /// (`None`: as long as it takes). Call it once nothing can spawn
    /// another thread (the runtime shut down, its pool too).
    pub(crate) fn wait_until_finished(&self, deadline: Option<Instant>) -> bool {
        self.live.wait_until_finished(deadline)
    }
}

/// Runs a thread's start, stop, park or unpark hook. A panic in it
/// (printed by the panic hook) is the hook's own bug and must not end the
/// thread: a worker that stopped running would strand its tasks (every
/// `block_on` awaiting one would hang), and one that never reported its
/// exit would hang the runtime's drop.
pub(crate) fn run_hook(hook: Option<&Callback>) {
    if let Some(hook) = hook {
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| hook()));
    }
}

impl fmt::Debug for Builder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Builder")
            .field("kind", &self.kind)
            .field("name", &self.name)
            .field("worker_threads", &self.worker_threads)
            .field("worker_threads_var", &self.worker_threads_var)
            .field("thread_stack_size", &self.thread_stack_size)
            .field("global_queue_interval", &self.global_queue_interval)
            .field("event_interval", &self.event_interval)
            .field("spin_before_park", &self.spin_before_park)
            .field("driver", &self.driver)
            .field("max_blocking_threads", &self.max_blocking_threads)
            .field("thread_keep_alive", &self.thread_keep_alive)
            .field("slow_poll_threshold", &self.slow_poll_threshold)
            .field("track_waits", &self.track_waits)
            .finish_non_exhaustive()
    }
}

impl fmt::Debug for ThreadSpawner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ThreadSpawner")
            .field("stack_size", &self.stack_size)
            .finish_non_exhaustive()
    }
}
