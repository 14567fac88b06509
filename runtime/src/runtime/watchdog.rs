//! The slow-poll watchdog and the leak report (`Builder::slow_poll_threshold`,
//! `RT_DEBUG=1`).
//!
//! A monitor thread, started only when the watchdog is on, samples every
//! worker's poll in progress (its poll count and the task's id, see
//! `WorkerMetrics::polling`) ten times per threshold:
//! 1. a poll seen for the first time is remembered with the time it was
//!    first seen;
//! 2. the same poll seen again, `threshold` or more after that, is a
//!    stall: the worker is marked stalled and a parked peer is woken, so
//!    the task in its LIFO slot and its yielded tasks (stealable while the
//!    watchdog is on, see `local_queues.rs`) are taken by others, as its
//!    queue always could be; the task, looked up in the owned list just
//!    before (under its shard's lock, which keeps it alive), is reported,
//!    once;
//! 3. while the stall lasts, every sample wakes a peer again if the stuck
//!    worker's LIFO slot or yielded list holds work (the stuck task may
//!    keep waking others);
//! 4. a different poll (or none) ends the stall: the mark is cleared.
//!
//! Polls are told apart by the worker's poll count, so a task polled again
//! and again is never mistaken for one long poll; a poll is reported once
//! it has been seen running for the threshold, so one only slightly longer
//! than the threshold (by less than the sampling period) may go unseen.
//!
//! With the watchdog on, dropping the runtime first prints the tasks still
//! alive (the leak report), as asyncio's debug mode reports tasks
//! destroyed while pending.

use crate::runtime::TaskDump;
use crate::runtime::dump::TaskLabel;
use crate::scheduler;
use crate::task::Id;
use std::fmt;
use std::io;
use std::panic::Location;
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// The threshold `RT_DEBUG=1` turns the watchdog on with.
pub(crate) const DEFAULT_THRESHOLD: Duration = Duration::from_millis(100);

/// A callback of `Builder::on_slow_poll`.
pub(crate) type SlowPollCallback = Arc<dyn Fn(&SlowPoll) + Send + Sync>;

/// A task found stuck in one poll for longer than the slow-poll threshold
/// (see [`Builder::slow_poll_threshold`](crate::runtime::Builder::slow_poll_threshold)),
/// as passed to [`Builder::on_slow_poll`](crate::runtime::Builder::on_slow_poll).
///
/// # Examples
///
/// ```
/// use std::sync::mpsc;
/// use std::time::Duration;
///
/// let (report, reported) = mpsc::channel();
/// let (release, released) = mpsc::channel::<()>();
/// let rt = rt::runtime::Builder::new_multi_thread()
///     .worker_threads(1)
///     .slow_poll_threshold(Duration::from_millis(20))
///     .on_slow_poll(move |slow: &rt::runtime::SlowPoll| {
///         report.send(format!("{slow:?}")).unwrap();
///         release.send(()).unwrap();
///     })
///     .build()
///     .unwrap();
/// let stuck = rt::task::Builder::new()
///     .name("stuck")
///     .spawn_on(async move { released.recv().unwrap() }, rt.handle())
///     .unwrap();
/// rt.block_on(stuck).unwrap();
/// let debug = reported.recv().unwrap();
/// assert!(debug.contains("stuck") && debug.contains("elapsed"), "{debug}");
/// ```
#[derive(Debug, Clone)]
pub struct SlowPoll {
    task: TaskLabel,
    elapsed: Duration,
    worker: usize,
}

impl SlowPoll {
    /// The stuck task's id.
    ///
    /// # Examples
    ///
    /// See [`SlowPoll`].
    pub fn id(&self) -> Id {
        self.task.id
    }

    /// The stuck task's name, if it was spawned with one.
    ///
    /// # Examples
    ///
    /// See [`SlowPoll`].
    pub fn name(&self) -> Option<&str> {
        self.task.name.as_deref()
    }

    /// Where the stuck task was spawned.
    ///
    /// # Examples
    ///
    /// See [`SlowPoll`].
    pub fn location(&self) -> &'static Location<'static> {
        self.task.location
    }

    /// How long the poll has been running: at least this long (the
    /// watchdog measures from when it first saw the poll, at most a tenth
    /// of the threshold after it started).
    ///
    /// # Examples
    ///
    /// See [`SlowPoll`].
    pub fn elapsed(&self) -> Duration {
        self.elapsed
    }

    /// The index of the stuck worker (0 on a current-thread runtime).
    ///
    /// # Examples
    ///
    /// See [`SlowPoll`].
    pub fn worker(&self) -> usize {
        self.worker
    }
}

impl fmt::Display for SlowPoll {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "task {} ({}) spawned at {} has been running for {:?} in one poll on worker {}, \
             blocking it: move blocking work to `spawn_blocking` or `block_in_place`",
            self.task.id,
            self.task.name.as_deref().unwrap_or("unnamed"),
            self.task.location,
            self.elapsed,
            self.worker,
        )
    }
}

/// The watchdog's settings, when it is on.
#[derive(Clone)]
pub(crate) struct WatchdogConfig {
    pub(crate) threshold: Duration,
    pub(crate) on_slow_poll: Option<SlowPollCallback>,
}

impl WatchdogConfig {
    /// On when a threshold or a callback was set, or `RT_DEBUG=1` is in
    /// the environment; the threshold defaults to 100 ms.
    pub(crate) fn from_builder(
        threshold: Option<Duration>,
        on_slow_poll: Option<SlowPollCallback>,
    ) -> Option<WatchdogConfig> {
        if cfg!(loom) {
            // The monitor is a real thread; loom models never run it.
            return None;
        }
        let from_env = std::env::var_os("RT_DEBUG").is_some_and(|value| value == "1");
        if threshold.is_none() && on_slow_poll.is_none() && !from_env {
            return None;
        }
        Some(WatchdogConfig {
            threshold: threshold.unwrap_or(DEFAULT_THRESHOLD),
            on_slow_poll,
        })
    }
}

impl fmt::Debug for WatchdogConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WatchdogConfig")
            .field("threshold", &self.threshold)
            .field("on_slow_poll", &self.on_slow_poll.is_some())
            .finish()
    }
}

/// The monitor thread; stopped (and joined) by `stop`.
#[derive(Debug)]
pub(crate) struct Watchdog {
    stop: Arc<(Mutex<bool>, Condvar)>,
    thread: Option<thread::JoinHandle<()>>,
}

/// What the monitor remembers of a worker's poll in progress.
#[derive(Clone, Copy)]
struct Observed {
    polls: u64,
    task: u64,
    first_seen: Instant,
    stalled: bool,
}

impl Watchdog {
    /// Starts the monitor thread.
    pub(crate) fn start(handle: scheduler::Handle, config: WatchdogConfig) -> io::Result<Watchdog> {
        let stop = Arc::new((Mutex::new(false), Condvar::new()));
        let thread_stop = stop.clone();
        let thread = thread::Builder::new()
            .name("rt-watchdog".to_owned())
            .spawn(move || monitor(&handle, &config, &thread_stop))?;
        Ok(Watchdog {
            stop,
            thread: Some(thread),
        })
    }

    /// Stops the monitor and waits for it (it may be inside the user's
    /// callback).
    pub(crate) fn stop(&mut self) {
        let (stopped, wake) = &*self.stop;
        *stopped.lock().unwrap() = true;
        wake.notify_all();
        if let Some(thread) = self.thread.take() {
            // A panic in the user's callback ended the monitor; it was
            // already reported on stderr by the panic hook.
            let _ = thread.join();
        }
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.stop();
    }
}

fn monitor(handle: &scheduler::Handle, config: &WatchdogConfig, stop: &(Mutex<bool>, Condvar)) {
    let period = (config.threshold / 10).max(Duration::from_millis(1));
    let mut observed: Vec<Option<Observed>> = vec![None; handle.num_workers()];
    let (stopped, wake) = stop;
    let mut guard = stopped.lock().unwrap();
    loop {
        guard = wake.wait_timeout(guard, period).unwrap().0;
        if *guard {
            return;
        }
        // Sampling and reporting happen unlocked: `stop` must not wait
        // behind a callback to set the flag.
        drop(guard);
        for (worker, seen) in observed.iter_mut().enumerate() {
            sample(handle, config, worker, seen);
        }
        guard = stopped.lock().unwrap();
    }
}

/// Steps 1 to 4 for one worker.
fn sample(
    handle: &scheduler::Handle,
    config: &WatchdogConfig,
    worker: usize,
    seen: &mut Option<Observed>,
) {
    let now = Instant::now();
    let polling = handle.worker_metrics(worker).polling();
    match (polling, seen.as_mut()) {
        (Some((polls, task)), Some(observed))
            if observed.polls == polls && observed.task == task =>
        {
            if observed.stalled {
                handle.help_stalled_worker(worker);
                return;
            }
            let elapsed = now.saturating_duration_since(observed.first_seen);
            if elapsed < config.threshold {
                return;
            }
            observed.stalled = true;
            // The report first: once the stranded work runs elsewhere, the
            // stuck task may be released, finish, and leave the list.
            let report = slow_poll(handle, worker, task, elapsed);
            handle.stall_started(worker);
            if let Some(report) = report {
                match &config.on_slow_poll {
                    Some(callback) => callback(&report),
                    None => emit_slow_poll(&report),
                }
            }
        }
        (polling, previous) => {
            if previous.is_some_and(|observed| observed.stalled) {
                handle.stall_ended(worker);
            }
            *seen = polling.map(|(polls, task)| Observed {
                polls,
                task,
                first_seen: now,
                stalled: false,
            });
        }
    }
}

/// The report for task `task` stuck on `worker`, `None` if it finished
/// meanwhile.
fn slow_poll(
    handle: &scheduler::Handle,
    worker: usize,
    task: u64,
    elapsed: Duration,
) -> Option<SlowPoll> {
    let mut report = None;
    handle.owned_tasks().with_task(task, |listed| {
        report = Some(SlowPoll {
            task: TaskLabel::of(listed),
            elapsed,
            worker,
        });
    });
    report
}

/// A report goes to `tracing` (feature `tracing`) when a global
/// subscriber is set, else to stderr.
#[cfg(feature = "tracing")]
fn to_tracing() -> bool {
    tracing::dispatcher::has_been_set()
}

#[cfg(not(feature = "tracing"))]
fn to_tracing() -> bool {
    false
}

fn emit_slow_poll(report: &SlowPoll) {
    if to_tracing() {
        #[cfg(feature = "tracing")]
        tracing::warn!(
            target: "rt::watchdog",
            id = report.task.id.as_u64(),
            name = report.name(),
            location = %report.task.location,
            elapsed = ?report.elapsed,
            worker = report.worker,
            "slow poll: {report}"
        );
    } else {
        eprintln!("rt: slow poll: {report}");
    }
}

/// The leak report: the tasks still alive when the runtime is dropped
/// (not the finished ones whose `JoinHandle` still holds the output).
pub(crate) fn report_leaks(handle: &scheduler::Handle) {
    let dump = TaskDump::capture(handle).without_complete();
    if dump.is_empty() {
        return;
    }
    if to_tracing() {
        #[cfg(feature = "tracing")]
        for task in &dump {
            tracing::warn!(
                target: "rt::watchdog",
                id = task.id().as_u64(),
                name = task.name(),
                location = %task.location(),
                state = %task.state(),
                "task still pending when its runtime was dropped; cancelled"
            );
        }
    } else {
        eprintln!(
            "rt: runtime dropped with {} task(s) still pending; they are cancelled now:\n{dump}",
            dump.len()
        );
    }
}
