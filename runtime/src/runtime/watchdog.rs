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
//! The `LocalSet`s driven on the runtime (`task/local_set_list.rs`) are
//! sampled the same way: a set counts its polls as a worker does, on its
//! own thread, and a stall there is reported with the set and its thread
//! (steps 1, 2 and 4; no peer can take a set's work, so nothing is woken).
//!
//! With the watchdog on, dropping the runtime first prints the tasks still
//! alive (the leak report), as asyncio's debug mode reports tasks
//! destroyed while pending; the tasks of sets that outlive the runtime are
//! listed apart (the sets keep them), and a set driven on the runtime that
//! is dropped with tasks unfinished reports them as it cancels them.

use crate::runtime::dump::TaskLabel;
use crate::runtime::metrics::WorkerMetrics;
use crate::runtime::{LocalSetLabel, TaskDump};
use crate::scheduler;
use crate::task::Id;
use crate::task::list::OwnedTasks;
use crate::task::local;
use std::fmt;
use std::io;
use std::panic::{self, AssertUnwindSafe, Location};
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
    /// The stuck worker; `None` for a task of `local_set`.
    worker: Option<usize>,
    local_set: Option<LocalSetLabel>,
    /// The stuck thread is a multi-thread runtime's worker, the one place
    /// where `block_in_place` helps (elsewhere it panics, on a
    /// current-thread runtime, or just runs the closure where it is).
    block_in_place_helps: bool,
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

    /// The index of the stuck worker (0 on a current-thread runtime);
    /// `None` for a task of a [`LocalSet`](crate::task::LocalSet), which
    /// blocks its set's thread instead (see
    /// [`local_set`](SlowPoll::local_set)).
    ///
    /// # Examples
    ///
    /// See [`SlowPoll`].
    pub fn worker(&self) -> Option<usize> {
        self.worker
    }

    /// The [`LocalSet`](crate::task::LocalSet) the stuck task belongs to,
    /// and its thread; `None` for a task of the runtime itself.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::mpsc;
    /// use std::time::Duration;
    ///
    /// let (report, reported) = mpsc::channel();
    /// let (release, released) = mpsc::channel::<()>();
    /// let rt = rt::runtime::Builder::new_current_thread()
    ///     .slow_poll_threshold(Duration::from_millis(20))
    ///     .on_slow_poll(move |slow: &rt::runtime::SlowPoll| {
    ///         report.send((slow.worker(), slow.local_set().map(|set| set.id()))).unwrap();
    ///         release.send(()).unwrap();
    ///     })
    ///     .build()
    ///     .unwrap();
    /// let local = rt::task::LocalSet::new();
    /// let stuck = local.spawn_local(async move { released.recv().unwrap() });
    /// local.block_on(&rt, stuck).unwrap();
    /// assert_eq!(reported.recv().unwrap(), (None, Some(local.id())));
    /// ```
    pub fn local_set(&self) -> Option<&LocalSetLabel> {
        self.local_set.as_ref()
    }
}

impl fmt::Display for SlowPoll {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "task {} ({}) spawned at {} has been running for {:?} in one poll on ",
            self.task.id,
            self.task.name.as_deref().unwrap_or("unnamed"),
            self.task.location,
            self.elapsed,
        )?;
        match (&self.local_set, self.worker) {
            (Some(set), _) => write!(f, "the thread of {set}")?,
            (None, Some(worker)) => write!(f, "worker {worker}")?,
            (None, None) => f.write_str("a thread outside the workers")?,
        }
        if self.block_in_place_helps {
            f.write_str(", blocking it: move blocking work to `spawn_blocking` or `block_in_place`")
        } else {
            // `block_in_place` would panic (a current-thread runtime) or
            // block the same thread (a `LocalSet`'s, which is no worker).
            f.write_str(", blocking it: move blocking work to `spawn_blocking`")
        }
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
            // The monitor catches the callback's panics; it never panics
            // itself, but a stop must not panic in a `Drop`.
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
    // By set id, for the sets listed at the last sample.
    let mut observed_sets: Vec<(u64, Option<Observed>)> = Vec::new();
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
            sample(handle, config, Poller::Worker(worker), seen);
        }
        let sets = handle.config().local_sets.snapshot();
        observed_sets = sets
            .iter()
            .map(|set| {
                let id = set.label.id();
                let mut seen = observed_sets
                    .iter()
                    .find(|(observed, _)| *observed == id)
                    .and_then(|&(_, seen)| seen);
                sample(handle, config, Poller::LocalSet(set), &mut seen);
                (id, seen)
            })
            .collect();
        drop(sets);
        guard = stopped.lock().unwrap();
    }
}

/// Where the sampled polls run.
#[derive(Clone, Copy)]
enum Poller<'a> {
    Worker(usize),
    LocalSet(&'a local::Shared),
}

impl<'a> Poller<'a> {
    fn metrics(self, handle: &'a scheduler::Handle) -> &'a WorkerMetrics {
        match self {
            Poller::Worker(worker) => handle.worker_metrics(worker),
            Poller::LocalSet(set) => &set.metrics,
        }
    }

    fn owned_tasks(self, handle: &'a scheduler::Handle) -> &'a OwnedTasks {
        match self {
            Poller::Worker(_) => handle.owned_tasks(),
            Poller::LocalSet(set) => &set.owned,
        }
    }

    /// The stuck worker and the set, as `SlowPoll` names them.
    fn label(self) -> (Option<usize>, Option<LocalSetLabel>) {
        match self {
            Poller::Worker(worker) => (Some(worker), None),
            Poller::LocalSet(set) => (None, Some(set.label.clone())),
        }
    }
}

/// Steps 1 to 4 for one worker (steps 1, 2 and 4 for a set).
fn sample(
    handle: &scheduler::Handle,
    config: &WatchdogConfig,
    poller: Poller<'_>,
    seen: &mut Option<Observed>,
) {
    let now = Instant::now();
    let polling = poller.metrics(handle).polling();
    match (polling, seen.as_mut()) {
        (Some((polls, task)), Some(observed))
            if observed.polls == polls && observed.task == task =>
        {
            if observed.stalled {
                if let Poller::Worker(worker) = poller {
                    handle.help_stalled_worker(worker);
                }
                return;
            }
            let elapsed = now.saturating_duration_since(observed.first_seen);
            if elapsed < config.threshold {
                return;
            }
            observed.stalled = true;
            // The report first: once the stranded work runs elsewhere, the
            // stuck task may be released, finish, and leave the list.
            let report = slow_poll(handle, poller, task, elapsed);
            if let Poller::Worker(worker) = poller {
                handle.stall_started(worker);
            }
            if let Some(report) = report {
                match &config.on_slow_poll {
                    Some(callback) => call_back(callback, &report),
                    None => emit_slow_poll(&report),
                }
            }
        }
        (polling, previous) => {
            if let (Poller::Worker(worker), Some(observed)) = (poller, previous) {
                if observed.stalled {
                    handle.stall_ended(worker);
                }
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

/// The report for task `task` stuck in `poller`, `None` if it finished
/// meanwhile.
fn slow_poll(
    handle: &scheduler::Handle,
    poller: Poller<'_>,
    task: u64,
    elapsed: Duration,
) -> Option<SlowPoll> {
    let mut report = None;
    poller.owned_tasks(handle).with_task(task, |listed| {
        let (worker, local_set) = poller.label();
        report = Some(SlowPoll {
            task: TaskLabel::of(listed),
            elapsed,
            worker,
            local_set,
            block_in_place_helps: matches!(
                (poller, handle),
                (Poller::Worker(_), scheduler::Handle::MultiThread(_))
            ),
        });
    });
    report
}

/// Calls the user's callback. A panic in it (already printed by the panic
/// hook) is the callback's own bug: it must not end the monitor, which
/// would leave every later stall unreported and this worker marked stuck.
fn call_back(callback: &SlowPollCallback, report: &SlowPoll) {
    let _ = panic::catch_unwind(AssertUnwindSafe(|| callback(report)));
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
            worker = report.worker(),
            local_set = report.local_set().map(LocalSetLabel::id),
            "slow poll: {report}"
        );
    } else {
        eprintln!("rt: slow poll: {report}");
    }
}

/// The leak report: the tasks still alive when the runtime is dropped
/// (not the finished ones whose `JoinHandle` still holds the output); the
/// tasks of the `LocalSet`s that outlive it are listed apart, as they stay
/// in their sets.
pub(crate) fn report_leaks(handle: &scheduler::Handle) {
    let (own, local) = TaskDump::capture(handle).without_complete().split_local();
    emit_leaks(
        &own,
        &format!(
            "runtime dropped with {} task(s) still pending; they are cancelled now",
            own.len()
        ),
    );
    emit_leaks(
        &local,
        &format!(
            "runtime dropped with {} task(s) still pending in `LocalSet`s that outlive it; \
             they stay in their sets",
            local.len()
        ),
    );
}

/// The leak report of a `LocalSet` dropped with tasks unfinished (it was
/// driven on a runtime whose watchdog is on).
pub(crate) fn report_local_set_leaks(set: &local::Shared) {
    let dump = TaskDump::of_local_set(set).without_complete();
    emit_leaks(
        &dump,
        &format!(
            "{} dropped with {} task(s) still pending; they are cancelled now",
            set.label,
            dump.len()
        ),
    );
}

fn emit_leaks(dump: &TaskDump, message: &str) {
    if dump.is_empty() {
        return;
    }
    if to_tracing() {
        #[cfg(feature = "tracing")]
        for task in dump {
            tracing::warn!(
                target: "rt::watchdog",
                id = task.id().as_u64(),
                name = task.name(),
                location = %task.location(),
                state = %task.state(),
                local_set = task.local_set().map(LocalSetLabel::id),
                "{message}"
            );
        }
    } else {
        eprintln!("rt: {message}:\n{dump}");
    }
}
