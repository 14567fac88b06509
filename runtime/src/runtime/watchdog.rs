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
//! 4. a different poll (or none) ends the stall: the mark is cleared,
//!    and a stall reported on stderr or through `tracing` is reported
//!    again, with how long the poll lasted.
//!
//! A stall found while every other worker is marked stalled (or on a
//! runtime of one worker) says so in its report: the runtime then runs
//! nothing at all until a stuck poll returns.
//!
//! Every sample that finds a poll seen before also tells its poller that
//! its cached clock fell behind (`WorkerMetrics::clock_behind`): the
//! poller reads the clock again once the poll returns, so the tasks it
//! polls next are not listed idle since the stuck poll began.
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
//! A task of one set may drive another set: then, as for `block_on`
//! below, the outer task's poll counts as stuck only for the time no set
//! nested in it polls a task, so the stuck inner task is reported, not the
//! outer one it runs inside.
//!
//! The future passed to `block_on` (the body of `#[rt::main]` and
//! `#[rt::test]`) is no task, yet the most common thing to block a
//! runtime: the calls in progress are listed (`block_on_calls.rs`) and
//! sampled the same way (steps 1, 2 and 4), one difference apart. A
//! `LocalSet` driven inside `block_on` runs its tasks inside a poll of the
//! future passed to it, and its own sampling reports a stuck local task,
//! naming it: that is the right report, so a poll of a `block_on` future
//! counts as stuck only for the time no set on its thread polls a task. A
//! sample that finds one in a poll, or finds that one polled since the
//! last sample, starts that time again.
//!
//! The runtime's shutdown drops the futures of the tasks left on the
//! thread that shuts it down, once the workers have stopped; the sweep
//! that does so counts each drop as a poll (`shutdown_sweep.rs`) and is
//! sampled the same way (steps 1, 2 and 4), so a destructor that blocks
//! the shutdown is reported, naming its task.
//!
//! With the watchdog on, dropping the runtime first prints the tasks still
//! alive (the leak report), as asyncio's debug mode reports tasks
//! destroyed while pending; the tasks of sets that outlive the runtime are
//! listed apart (the sets keep them), and a set driven on the runtime that
//! is dropped with tasks unfinished reports them as it cancels them. A
//! shutdown that has waited the threshold for blocking jobs still running
//! (which cannot be interrupted) lists them once (`blocking/pool.rs`).
//!
//! With the watchdog on and the runtime tracking waits
//! (`Builder::track_waits`), the monitor also looks for tasks waiting on
//! one another's locks and `JoinHandle`s for good, at most once a second,
//! and reports each cycle once (`deadlock.rs`).
//!
//! With the watchdog on, a task's panic that no `JoinHandle` will read
//! (the handle was dropped before the task finished, or is dropped with
//! the panic unread) is reported with the task's name and spawn location
//! (`report_lost_panic`, called by `task/harness.rs`): the panic hook's
//! message names only the worker thread.

use crate::blocking::RunningJobsReport;
use crate::runtime::block_on_calls::BlockOnCall;
use crate::runtime::deadlock::{DeadlockCallback, DeadlockWatch};
use crate::runtime::dump::TaskLabel;
use crate::runtime::metrics::WorkerMetrics;
use crate::runtime::shutdown_sweep::ShutdownSweep;
use crate::runtime::{LocalSetLabel, TaskDump};
use crate::scheduler;
use crate::task::Id;
use crate::task::list::OwnedTasks;
use crate::task::local;
use std::fmt;
use std::io;
use std::panic::{self, AssertUnwindSafe, Location};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::{self, ThreadId};
use std::time::{Duration, Instant};

/// The threshold `RT_DEBUG=1` turns the watchdog on with.
pub(crate) const DEFAULT_THRESHOLD: Duration = Duration::from_millis(100);

/// A callback of `Builder::on_slow_poll`.
pub(crate) type SlowPollCallback = Arc<dyn Fn(&SlowPoll) + Send + Sync>;

/// A task found stuck in one poll for longer than the slow-poll threshold
/// (see [`Builder::slow_poll_threshold`](crate::runtime::Builder::slow_poll_threshold)),
/// as passed to [`Builder::on_slow_poll`](crate::runtime::Builder::on_slow_poll).
///
/// The callback hears of a stall once, when the poll has run for the
/// threshold; without a callback, the report goes to stderr (or
/// `tracing`), followed by a second line once the poll returns, with how
/// long it lasted.
///
/// The future passed to `block_on` (the body of `#[rt::main]` and
/// `#[rt::test]` too) is watched as well, though it is no task: its
/// report says so ([`is_block_on`](SlowPoll::is_block_on)), and names
/// where `block_on` was called ([`location`](SlowPoll::location)).
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
    /// The thread in `block_on`, when the stuck future is the one passed
    /// to it.
    block_on: Option<BlockOnThread>,
    /// The task is stuck in its future's destructor, dropped by the
    /// runtime's shutdown (`runtime/shutdown_sweep.rs`), not in a poll.
    shutdown_drop: bool,
    /// The runtime's worker count, when this stall leaves none of its
    /// workers free: no task of the runtime runs until a stuck poll
    /// returns.
    all_workers_blocked: Option<usize>,
}

/// The thread a stuck `block_on` future blocks.
#[derive(Debug, Clone)]
struct BlockOnThread {
    id: ThreadId,
    name: Option<Arc<str>>,
}

impl SlowPoll {
    /// The stuck task's id. For the future passed to `block_on`, which is
    /// no task, an id of the same kind that no task has, drawn for that
    /// `block_on` call.
    ///
    /// # Examples
    ///
    /// See [`SlowPoll`].
    pub fn id(&self) -> Id {
        self.task.id
    }

    /// The stuck task's name, if it was spawned with one (`None` for the
    /// future passed to `block_on`).
    ///
    /// # Examples
    ///
    /// See [`SlowPoll`].
    pub fn name(&self) -> Option<&str> {
        self.task.name.as_deref()
    }

    /// Where the stuck task was spawned; for the future passed to
    /// `block_on`, where `block_on` was called (for the body of
    /// `#[rt::main]` or `#[rt::test]`, the attribute's line).
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
    /// [`local_set`](SlowPoll::local_set)), and for the future passed to
    /// `block_on` on a thread that is no worker (a multi-thread runtime's
    /// `block_on`, or a current-thread one's while another thread drives
    /// the runtime), and for a task stuck in its destructor at shutdown
    /// ([`is_shutdown_drop`](SlowPoll::is_shutdown_drop)). A current-thread runtime's `block_on` future that
    /// blocks the thread running the runtime's tasks is on worker 0.
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

    /// Whether the stuck future is the one passed to `block_on` (or the
    /// body of `#[rt::main]` or `#[rt::test]`), blocking the thread that
    /// called it, rather than a task. [`location`](SlowPoll::location)
    /// then says where `block_on` was called. A task of a
    /// [`LocalSet`](crate::task::LocalSet) that `block_on` drives is
    /// reported as that task, not as the `block_on` future. A poll that
    /// enters [`block_in_place`](crate::task::block_in_place) blocks on
    /// purpose and is not reported, as a task's is not.
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
    ///         report.send((slow.is_block_on(), slow.location().line())).unwrap();
    ///         release.send(()).unwrap();
    ///     })
    ///     .build()
    ///     .unwrap();
    /// let line = line!() + 1;
    /// rt.block_on(async move { released.recv().unwrap() }); // blocks the runtime
    /// assert_eq!(reported.recv().unwrap(), (true, line));
    /// ```
    pub fn is_block_on(&self) -> bool {
        self.block_on.is_some()
    }

    /// Whether the task is stuck not in a poll but in the destructor of
    /// its future, which the runtime's shutdown drops (with the futures
    /// of every task left) on the thread dropping the runtime, once the
    /// workers have stopped: that drop waits for it.
    /// [`worker`](SlowPoll::worker) is then `None`.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::mpsc;
    /// use std::time::Duration;
    ///
    /// struct FlushOnDrop(mpsc::Receiver<()>);
    /// impl Drop for FlushOnDrop {
    ///     fn drop(&mut self) {
    ///         self.0.recv().unwrap(); // blocks the runtime's drop
    ///     }
    /// }
    ///
    /// let (report, reported) = mpsc::channel();
    /// let (release, released) = mpsc::channel::<()>();
    /// let rt = rt::runtime::Builder::new_current_thread()
    ///     .slow_poll_threshold(Duration::from_millis(20))
    ///     .on_slow_poll(move |slow: &rt::runtime::SlowPoll| {
    ///         report.send((slow.is_shutdown_drop(), slow.name().map(String::from))).unwrap();
    ///         release.send(()).unwrap();
    ///     })
    ///     .build()
    ///     .unwrap();
    /// let guard = FlushOnDrop(released);
    /// rt::task::Builder::new()
    ///     .name("flusher")
    ///     .spawn_on(async move { let _guard = guard; std::future::pending::<()>().await }, rt.handle())
    ///     .unwrap();
    /// drop(rt);
    /// assert_eq!(reported.recv().unwrap(), (true, Some("flusher".to_owned())));
    /// ```
    pub fn is_shutdown_drop(&self) -> bool {
        self.shutdown_drop
    }

    /// Whether this stall leaves the runtime with no worker free: every
    /// other worker was already found stuck (or there is no other, as on
    /// a current-thread runtime), so no task of the runtime runs until
    /// one of the stuck polls returns.
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
    ///         report.send(slow.all_workers_blocked()).unwrap();
    ///         release.send(()).unwrap();
    ///     })
    ///     .build()
    ///     .unwrap();
    /// let stuck = rt.spawn(async move { released.recv().unwrap() });
    /// rt.block_on(stuck).unwrap();
    /// assert!(reported.recv().unwrap()); // the one worker was stuck
    /// ```
    pub fn all_workers_blocked(&self) -> bool {
        self.all_workers_blocked.is_some()
    }
}

impl fmt::Display for SlowPoll {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(thread) = &self.block_on {
            write!(
                f,
                "the future passed to `block_on` (or the body of `#[rt::main]`/`#[rt::test]`) \
                 at {} has been running for {:?} in one poll on thread ",
                self.task.location, self.elapsed,
            )?;
            match &thread.name {
                Some(name) => write!(f, "`{name}`")?,
                None => write!(f, "{:?}", thread.id)?,
            }
            if self.worker.is_some() {
                f.write_str(", blocking it and every task of the runtime (they run on it)")?;
            } else {
                f.write_str(", blocking it")?;
            }
            // `block_in_place` does not help: on a current-thread runtime
            // it panics, and the thread in a multi-thread runtime's
            // `block_on` is no worker (it would block the same thread).
            return f.write_str(
                ": move blocking work to `rt::task::spawn_blocking` and `.await` its \
                 `JoinHandle`, or use the async form of the blocking call",
            );
        }
        if self.shutdown_drop {
            return write!(
                f,
                "task {} ({}) spawned at {} has been in its destructor for {:?}: the runtime's \
                 shutdown drops the futures of the tasks left, on the thread shutting it down, \
                 and waits for this one; a future's (or its output's) `Drop` must not block",
                self.task.id,
                self.task.name.as_deref().unwrap_or("unnamed"),
                self.task.location,
                self.elapsed,
            );
        }
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
        f.write_str(", blocking it")?;
        match self.all_workers_blocked {
            Some(1) => f.write_str(
                " (the runtime's only worker, so no other task of the runtime runs until this \
                 poll returns)",
            )?,
            Some(workers) => write!(
                f,
                " (the last free one: all {workers} workers of the runtime are now blocked, so \
                 no task runs until one of their polls returns)"
            )?,
            None => {}
        }
        if self.block_in_place_helps {
            f.write_str(": move blocking work to `spawn_blocking` or `block_in_place`")
        } else {
            // `block_in_place` would panic (a current-thread runtime) or
            // block the same thread (a `LocalSet`'s, which is no worker).
            f.write_str(": move blocking work to `spawn_blocking`")
        }
    }
}

/// The watchdog's settings, when it is on.
#[derive(Clone)]
pub(crate) struct WatchdogConfig {
    pub(crate) threshold: Duration,
    pub(crate) on_slow_poll: Option<SlowPollCallback>,
    pub(crate) on_deadlock: Option<DeadlockCallback>,
    /// The runtime tracks waits: the monitor looks for deadlocks
    /// (`deadlock.rs`).
    pub(crate) watch_deadlocks: bool,
    /// Unit tests only: the builder's `thread_gate`, asked before the
    /// monitor thread starts.
    #[cfg(test)]
    pub(crate) gate: Option<crate::runtime::builder::ThreadGate>,
}

impl WatchdogConfig {
    /// On when a threshold or a callback was set, or `RT_DEBUG=1` is in
    /// the environment; the threshold defaults to 100 ms. It looks for
    /// deadlocks if `track_waits`.
    pub(crate) fn from_builder(
        threshold: Option<Duration>,
        on_slow_poll: Option<SlowPollCallback>,
        on_deadlock: Option<DeadlockCallback>,
        track_waits: bool,
    ) -> Option<WatchdogConfig> {
        if cfg!(loom) {
            // The monitor is a real thread; loom models never run it.
            return None;
        }
        let from_env = std::env::var_os("RT_DEBUG").is_some_and(|value| value == "1");
        if threshold.is_none() && on_slow_poll.is_none() && on_deadlock.is_none() && !from_env {
            return None;
        }
        Some(WatchdogConfig {
            threshold: threshold.unwrap_or(DEFAULT_THRESHOLD),
            on_slow_poll,
            on_deadlock,
            watch_deadlocks: track_waits,
            #[cfg(test)]
            gate: None,
        })
    }
}

impl fmt::Debug for WatchdogConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WatchdogConfig")
            .field("threshold", &self.threshold)
            .field("on_slow_poll", &self.on_slow_poll.is_some())
            .field("on_deadlock", &self.on_deadlock.is_some())
            .field("watch_deadlocks", &self.watch_deadlocks)
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
#[derive(Clone)]
struct Observed {
    polls: u64,
    task: u64,
    first_seen: Instant,
    stalled: bool,
    /// The stall's report, once made on stderr or through `tracing`: the
    /// poll's end is reported there too, with how long it lasted.
    reported: Option<Arc<SlowPoll>>,
    /// For a `block_on` future: the polls of the sets on its thread at
    /// the last sample, `None` if one was in a poll (see the module docs).
    nested: Option<u64>,
}

impl Watchdog {
    /// Starts the monitor thread.
    pub(crate) fn start(handle: scheduler::Handle, config: WatchdogConfig) -> io::Result<Watchdog> {
        #[cfg(test)]
        if let Some(gate) = &config.gate {
            gate()?;
        }
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
    /// callback), unless this is the monitor: a callback that shuts its
    /// own runtime down (a supervisor giving up on a stuck poll). Joining
    /// itself would panic ("failed to join thread: Resource deadlock
    /// avoided") halfway through that shutdown, leaving the blocking pool
    /// running; the monitor exits on its own once the callback returns,
    /// as it then sees the stop.
    pub(crate) fn stop(&mut self) {
        let (stopped, wake) = &*self.stop;
        *stopped.lock().unwrap() = true;
        wake.notify_all();
        if let Some(thread) = self.thread.take() {
            if thread.thread().id() == thread::current().id() {
                return;
            }
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
    // By call id, for the `block_on` calls listed at the last sample.
    let mut observed_calls: Vec<(Id, Option<Observed>)> = Vec::new();
    let mut observed_sweep: Option<Observed> = None;
    let mut deadlocks = config
        .watch_deadlocks
        .then(|| DeadlockWatch::new(config.threshold, Instant::now()));
    let (stopped, wake) = stop;
    let mut guard = stopped.lock().unwrap();
    loop {
        guard = wake.wait_timeout(guard, period).unwrap().0;
        // Stopped, the monitor samples once more: a runtime dropped right
        // after a stuck poll returned would otherwise leave the end of its
        // stall unsaid.
        let stopping = *guard;
        // Sampling and reporting happen unlocked: `stop` must not wait
        // behind a callback to set the flag.
        drop(guard);
        for worker in 0..observed.len() {
            let others_stalled = observed.iter().enumerate().all(|(other, seen)| {
                other == worker || seen.as_ref().is_some_and(|seen| seen.stalled)
            });
            let poller = Poller::Worker(worker, others_stalled);
            sample(handle, config, poller, &mut observed[worker]);
        }
        let sets = handle.config().local_sets.snapshot();
        observed_sets = sets
            .iter()
            .map(|set| {
                let id = set.label.id();
                let mut seen = previously(&observed_sets, id);
                let poller = Poller::LocalSet(set, nested_in_set(&sets, set));
                sample(handle, config, poller, &mut seen);
                (id, seen)
            })
            .collect();
        if let Some(calls) = &handle.config().block_on_calls {
            observed_calls = calls
                .snapshot()
                .iter()
                .map(|call| {
                    let mut seen = previously(&observed_calls, call.id);
                    let poller = Poller::BlockOn(call, nested_polls(&sets, call.thread_id));
                    sample(handle, config, poller, &mut seen);
                    (call.id, seen)
                })
                .collect();
        }
        drop(sets);
        if let Some(sweep) = &handle.config().shutdown_sweep {
            sample(
                handle,
                config,
                Poller::ShutdownSweep(sweep),
                &mut observed_sweep,
            );
        }
        if stopping {
            return;
        }
        if let Some(deadlocks) = &mut deadlocks {
            deadlocks.look_if_due(handle, config.on_deadlock.as_ref(), Instant::now());
        }
        guard = stopped.lock().unwrap();
    }
}

/// What was observed at the last sample under `id`, if anything.
fn previously<K: PartialEq>(observed: &[(K, Option<Observed>)], id: K) -> Option<Observed> {
    observed
        .iter()
        .find(|(observed, _)| *observed == id)
        .and_then(|(_, seen)| seen.clone())
}

/// The polls of the sets owned by `thread` (they run inside its
/// `block_on` future's polls), `None` if one is polling a task now.
fn nested_polls(sets: &[crate::loom::sync::Arc<local::Shared>], thread: ThreadId) -> Option<u64> {
    let mut polls = 0u64;
    for set in sets.iter().filter(|set| set.label.thread_id() == thread) {
        if set.metrics.polling().is_some() {
            return None;
        }
        polls = polls.wrapping_add(WorkerMetrics::load(&set.metrics.polls));
    }
    Some(polls)
}

/// The polls of the sets that run inside `set`'s poll in progress (a
/// task of `set` driving another set), `None` if one is polling a task
/// now. While `set` is in one poll, no other set on its thread polls but
/// inside it, so any change of their polls counts; one polling now is
/// inside it if it entered deeper (`Shared::depth`), else `set` is the
/// one inside.
fn nested_in_set(
    sets: &[crate::loom::sync::Arc<local::Shared>],
    set: &local::Shared,
) -> Option<u64> {
    let thread = set.label.thread_id();
    let depth = set.depth();
    let mut polls = 0u64;
    let others = sets
        .iter()
        .filter(|other| !std::ptr::eq(&***other, set) && other.label.thread_id() == thread);
    for other in others {
        if other.depth() > depth && other.metrics.polling().is_some() {
            return None;
        }
        polls = polls.wrapping_add(WorkerMetrics::load(&other.metrics.polls));
    }
    Some(polls)
}

/// Where the sampled polls run.
#[derive(Clone, Copy)]
enum Poller<'a> {
    /// A worker, and whether every other worker of the runtime is stalled
    /// (see `SlowPoll::all_workers_blocked`).
    Worker(usize, bool),
    /// A set, with the polls of the sets nested in its poll.
    LocalSet(&'a local::Shared, Option<u64>),
    /// A `block_on` call, with the polls of the sets on its thread.
    BlockOn(&'a BlockOnCall, Option<u64>),
    /// The shutdown sweep dropping the tasks' futures.
    ShutdownSweep(&'a ShutdownSweep),
}

impl<'a> Poller<'a> {
    fn metrics(self, handle: &'a scheduler::Handle) -> &'a WorkerMetrics {
        match self {
            Poller::Worker(worker, _) => handle.worker_metrics(worker),
            Poller::LocalSet(set, _) => &set.metrics,
            Poller::BlockOn(call, _) => &call.metrics,
            Poller::ShutdownSweep(sweep) => &sweep.metrics,
        }
    }

    /// The polls nested in this one's (see `nested_polls` and
    /// `nested_in_set`); nothing nests in a worker's poll that its own
    /// sampling does not see.
    fn nested(self) -> Option<u64> {
        match self {
            Poller::BlockOn(_, nested) | Poller::LocalSet(_, nested) => nested,
            Poller::Worker(..) | Poller::ShutdownSweep(_) => Some(0),
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
            // The poll holds back its poller's cached clock: have it read
            // the clock once the poll returns.
            poller.metrics(handle).clock_fell_behind();
            if observed.stalled {
                if let Poller::Worker(worker, _) = poller {
                    handle.help_stalled_worker(worker);
                }
                return;
            }
            let nested = poller.nested();
            if nested.is_none() || nested != observed.nested {
                // A set's task ran inside this poll since the last sample,
                // or runs now: the time stuck counts from here.
                observed.first_seen = now;
                observed.nested = nested;
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
            if let Poller::Worker(worker, _) = poller {
                handle.stall_started(worker);
            }
            if let Some(report) = report {
                match &config.on_slow_poll {
                    Some(callback) => call_back(&**callback, &report),
                    None => {
                        emit_slow_poll(&report);
                        observed.reported = Some(Arc::new(report));
                    }
                }
            }
        }
        (polling, previous) => {
            if let Some(observed) = previous {
                if let (Poller::Worker(worker, _), true) = (poller, observed.stalled) {
                    handle.stall_ended(worker);
                }
                if let Some(report) = &observed.reported {
                    emit_slow_poll_ended(report, now.duration_since(observed.first_seen));
                }
            }
            *seen = polling.map(|(polls, task)| Observed {
                polls,
                task,
                first_seen: now,
                stalled: false,
                reported: None,
                nested: poller.nested(),
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
    let (owned, worker, local_set): (&OwnedTasks, _, _) = match poller {
        Poller::Worker(worker, _) => (handle.owned_tasks(), Some(worker), None),
        Poller::LocalSet(set, _) => (&set.owned, None, Some(set.label.clone())),
        Poller::BlockOn(call, _) => {
            return Some(SlowPoll {
                task: TaskLabel {
                    id: call.id,
                    name: None,
                    location: call.location,
                },
                elapsed,
                worker: call.is_driving_tasks().then_some(0),
                local_set: None,
                block_in_place_helps: false,
                block_on: Some(BlockOnThread {
                    id: call.thread_id,
                    name: call.thread_name.clone(),
                }),
                shutdown_drop: false,
                all_workers_blocked: None,
            });
        }
        Poller::ShutdownSweep(sweep) => {
            return sweep.label_of(task).map(|task| SlowPoll {
                task,
                elapsed,
                worker: None,
                local_set: None,
                block_in_place_helps: false,
                block_on: None,
                shutdown_drop: true,
                all_workers_blocked: None,
            });
        }
    };
    let all_workers_blocked = match poller {
        Poller::Worker(_, true) => Some(handle.num_workers()),
        _ => None,
    };
    let mut report = None;
    owned.with_task(task, |listed| {
        report = Some(SlowPoll {
            task: TaskLabel::of(listed),
            elapsed,
            worker,
            local_set,
            block_in_place_helps: matches!(handle, scheduler::Handle::MultiThread(_))
                && worker.is_some(),
            block_on: None,
            shutdown_drop: false,
            all_workers_blocked,
        });
    });
    report
}

/// Calls the user's callback. A panic in it (already printed by the panic
/// hook) is the callback's own bug: it must not end the monitor, which
/// would leave every later stall unreported and this worker marked stuck.
pub(crate) fn call_back<T>(callback: &(dyn Fn(&T) + Send + Sync), report: &T) {
    let _ = panic::catch_unwind(AssertUnwindSafe(|| callback(report)));
}

/// A report goes to `tracing` (feature `tracing`) when a global
/// subscriber is set, else to stderr.
#[cfg(feature = "tracing")]
pub(crate) fn to_tracing() -> bool {
    tracing::dispatcher::has_been_set()
}

#[cfg(not(feature = "tracing"))]
pub(crate) fn to_tracing() -> bool {
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
            block_on = report.is_block_on(),
            shutdown_drop = report.is_shutdown_drop(),
            all_workers_blocked = report.all_workers_blocked(),
            "slow poll: {report}"
        );
    } else {
        eprintln!("rt: slow poll: {report}");
    }
}

/// The end of a stall reported on stderr or through `tracing`: the first
/// report, made at the threshold, says nothing of how long the poll then
/// lasted (a callback, which has the report, can time that itself).
/// `lasted` is measured as the report's `elapsed`, and found within a
/// sampling period of the poll's end.
fn emit_slow_poll_ended(report: &SlowPoll, lasted: Duration) {
    let what = if report.is_block_on() {
        format!("the future passed to `block_on` at {}", report.location())
    } else {
        format!(
            "task {} ({}) spawned at {}",
            report.id(),
            report.name().unwrap_or("unnamed"),
            report.location()
        )
    };
    let returned = if report.is_shutdown_drop() {
        "its destructor returned"
    } else {
        "its poll returned"
    };
    let message = format!(
        "{what}: {returned} after about {lasted:?}, its thread blocked all that time (reported \
         above at {:?})",
        report.elapsed()
    );
    if to_tracing() {
        #[cfg(feature = "tracing")]
        tracing::warn!(
            target: "rt::watchdog",
            id = report.id().as_u64(),
            name = report.name(),
            location = %report.location(),
            lasted = ?lasted,
            "slow poll ended: {message}"
        );
    } else {
        eprintln!("rt: slow poll ended: {message}");
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

/// The report of a runtime's shutdown (its drop, or `shutdown_timeout`)
/// that has waited `waited`, the watchdog's threshold, for blocking jobs
/// still running: made once, since the wait would otherwise look like a
/// hang, with nothing to say what it waits for.
pub(crate) fn report_blocking_wait(jobs: &RunningJobsReport, waited: Duration) {
    if jobs.is_empty() {
        return;
    }
    let message = format!(
        "runtime shutdown has waited {waited:?} for {} blocking job(s) still running, and waits \
         until they return (a running job cannot be interrupted): make them return, or shut \
         the runtime down with `Runtime::shutdown_timeout` to bound the wait or \
         `Runtime::shutdown_background` not to wait",
        jobs.len()
    );
    if to_tracing() {
        #[cfg(feature = "tracing")]
        tracing::warn!(target: "rt::watchdog", jobs = %jobs, "{message}");
    } else {
        eprintln!("rt: {message}:\n{jobs}");
    }
}

/// The report of a task that panicked with its `JoinHandle` dropped (or
/// dropped since, without reading the panic): the panic hook printed the
/// panic on the worker's thread, naming no task, and nothing else will.
/// `owned` is the task's list, where its name and location still are.
pub(crate) fn report_lost_panic(id: Id, owned: Option<&OwnedTasks>) {
    report_task(id, owned, |task| {
        format!(
            "{task} panicked, and its `JoinHandle` was dropped without reading the panic (the \
             panic hook printed it above, naming no task): keep the handle (or spawn into a \
             `JoinSet`) and check its `JoinError` to handle the panic"
        )
    });
}

/// The report of a task whose poll returned `Pending` with no waker of
/// it left anywhere (`state::Snapshot::has_lost_waker`): it will never be
/// polled again, and without this it would hang without a trace.
pub(crate) fn report_lost_waker(id: Id, owned: Option<&OwnedTasks>) {
    report_task(id, owned, |task| {
        format!(
            "{task} returned `Pending` and no waker of it is left, so nothing can wake it: it \
             will never be polled again (only an abort or the runtime's shutdown ends it). \
             {LOST_WAKER_FIX}; a task meant to wait forever (`std::future::pending()`) is \
             reported too"
        )
    });
}

/// The report of a `block_on` future whose poll returned `Pending` with no
/// waker of it left anywhere, then or since, unwoken (`block_on_calls.rs`,
/// step 5): its thread sleeps for good, and without this it would hang
/// without a trace.
pub(crate) fn report_block_on_lost_waker(call: &BlockOnCall) {
    let thread = match &call.thread_name {
        Some(name) => format!("thread '{name}'"),
        None => format!("thread {:?}", call.thread_id),
    };
    let message = format!(
        "the future passed to `block_on` (or the body of `#[rt::main]`/`#[rt::test]`) at {} \
         returned `Pending` and no waker of it is left, so nothing can wake it: {thread} will \
         wait forever. {LOST_WAKER_FIX}; a `block_on` meant to wait forever \
         (`std::future::pending()`, say, after spawning a server) is reported too",
        call.location
    );
    if to_tracing() {
        #[cfg(feature = "tracing")]
        tracing::warn!(
            target: "rt::watchdog",
            location = %call.location,
            thread = %thread,
            "{message}"
        );
    } else {
        eprintln!("rt: {message}");
    }
}

/// How to fix a lost waker, in both reports of one.
const LOST_WAKER_FIX: &str = "A future that returns `Pending` must hand `cx.waker()` (or a \
     clone) to whatever will make it ready, to be woken from there";

/// A report about task `id`, named by its entry in `owned` (where its
/// name and location still are) as `message` words it.
fn report_task(id: Id, owned: Option<&OwnedTasks>, message: impl FnOnce(&str) -> String) {
    let mut label = None;
    if let Some(owned) = owned {
        owned.with_task(id.as_u64(), |listed| label = Some(TaskLabel::of(listed)));
    }
    let task = match &label {
        Some(label) => format!(
            "task {id} ({}) spawned at {}",
            label.name.as_deref().unwrap_or("unnamed"),
            label.location
        ),
        None => format!("task {id}"),
    };
    let message = message(&task);
    if to_tracing() {
        #[cfg(feature = "tracing")]
        tracing::warn!(
            target: "rt::watchdog",
            id = id.as_u64(),
            name = label.as_ref().and_then(|label| label.name.as_deref()),
            location = label.as_ref().map(|label| label.location.to_string()),
            "{message}"
        );
    } else {
        eprintln!("rt: {message}");
    }
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

/// The tasks a leak report on stderr lists at most: a loop that leaks a
/// task per turn may leave thousands, and the count per spawn location
/// under the table names it.
const LEAK_REPORT_ROWS: usize = 50;

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
        eprintln!("rt: {message}:\n{dump:.LEAK_REPORT_ROWS$}");
    }
}
