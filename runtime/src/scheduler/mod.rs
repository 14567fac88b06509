//! The schedulers: which task runs next, on which thread.
//!
//! `multi_thread` is the work-stealing scheduler (one worker per core);
//! `current_thread` runs everything on the thread that calls `block_on`.
//! Both sit behind the same `Handle`, which the public
//! `rt::runtime::Handle` wraps.

pub(crate) mod current_thread;
pub(crate) mod global_queue_interval;
pub(crate) mod idle_spin;
pub(crate) mod multi_thread;
pub(crate) mod priority;

use crate::blocking;
use crate::driver;
use crate::loom::sync::Arc;
use crate::loom::sync::atomic::Ordering;
use crate::runtime::block_on_calls::BlockOnCalls;
use crate::runtime::metrics::WorkerMetrics;
use crate::runtime::shutdown_sweep::ShutdownSweep;
use crate::task::list::OwnedTasks;
use crate::task::local_set_list::LocalSetList;
use crate::task::{JoinHandle, Priority, TaskMeta};
use std::future::Future;
use std::io;

/// A handle to either scheduler.
#[derive(Clone, Debug)]
pub(crate) enum Handle {
    MultiThread(Arc<multi_thread::Handle>),
    CurrentThread(Arc<current_thread::Handle>),
    /// A simulation's runtime (`rt::sim`): one thread, seeded order.
    #[cfg(feature = "sim")]
    Sim(Arc<crate::sim::Handle>),
}

/// The scheduler loop running on the current thread (installed with
/// `context::set_scheduler`), used to schedule wakes locally.
#[derive(Debug)]
pub(crate) enum Context {
    MultiThread(multi_thread::Context),
    CurrentThread(current_thread::Context),
}

impl Context {
    /// A task polled on this thread spent its budget and was made to yield.
    pub(crate) fn budget_forced_yield(&self) {
        match self {
            Context::MultiThread(cx) => cx.budget_forced_yield(),
            Context::CurrentThread(cx) => cx.budget_forced_yield(),
        }
    }

    /// The index (as in `RuntimeMetrics`) of the worker whose core this
    /// thread runs now, `None` while it holds no core.
    pub(crate) fn worker_index(&self) -> Option<usize> {
        match self {
            Context::MultiThread(cx) => cx.worker_index(),
            Context::CurrentThread(cx) => cx.worker_index(),
        }
    }
}

impl Handle {
    /// Spawns a task; it keeps `meta.priority` for life.
    pub(crate) fn spawn<F>(&self, future: F, meta: TaskMeta) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        match self {
            Handle::MultiThread(h) => multi_thread::Handle::spawn(h, future, meta),
            Handle::CurrentThread(h) => current_thread::Handle::spawn(h, future, meta),
            #[cfg(feature = "sim")]
            Handle::Sim(h) => crate::sim::Handle::spawn(h, future, meta),
        }
    }

    pub(crate) fn spawn_blocking<F, R>(&self, f: F, meta: TaskMeta) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        #[cfg(feature = "sim")]
        if let Handle::Sim(h) = self {
            return crate::sim::Handle::spawn_blocking(h, f, meta);
        }
        blocking::spawn_blocking_on(self.blocking_spawner(), Some(self), f, meta)
    }

    /// As `spawn_blocking`, returning the OS error instead of panicking.
    pub(crate) fn try_spawn_blocking<F, R>(&self, f: F, meta: TaskMeta) -> io::Result<JoinHandle<R>>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        #[cfg(feature = "sim")]
        if let Handle::Sim(h) = self {
            return Ok(crate::sim::Handle::spawn_blocking(h, f, meta));
        }
        blocking::try_spawn_blocking_on(self.blocking_spawner(), Some(self), f, meta)
    }

    pub(crate) fn blocking_spawner(&self) -> &blocking::Spawner {
        match self {
            Handle::MultiThread(h) => &h.blocking,
            Handle::CurrentThread(h) => &h.blocking,
            #[cfg(feature = "sim")]
            Handle::Sim(h) => &h.blocking,
        }
    }

    #[allow(dead_code)]
    pub(crate) fn driver(&self) -> &driver::Handle {
        match self {
            Handle::MultiThread(h) => &h.driver,
            Handle::CurrentThread(h) => &h.driver,
            #[cfg(feature = "sim")]
            Handle::Sim(h) => &h.driver,
        }
    }

    pub(crate) fn config(&self) -> &Config {
        match self {
            Handle::MultiThread(h) => &h.shared.config,
            Handle::CurrentThread(h) => &h.config,
            #[cfg(feature = "sim")]
            Handle::Sim(h) => &h.config,
        }
    }

    pub(crate) fn num_workers(&self) -> usize {
        match self {
            Handle::MultiThread(h) => h.shared.remotes.len(),
            Handle::CurrentThread(_) => 1,
            #[cfg(feature = "sim")]
            Handle::Sim(_) => 1,
        }
    }

    pub(crate) fn num_alive_tasks(&self) -> usize {
        self.owned_tasks().len()
    }

    /// The set of the `LocalRuntime` built on this runtime, if it is one,
    /// whose tasks the metrics count as the runtime's own (as tokio does).
    pub(crate) fn local_runtime_set(&self) -> Option<Arc<crate::task::local::Shared>> {
        match self {
            Handle::CurrentThread(h) => h.local_runtime_set.lock().unwrap().clone(),
            _ => None,
        }
    }

    pub(crate) fn owned_tasks(&self) -> &OwnedTasks {
        match self {
            Handle::MultiThread(h) => &h.shared.owned,
            Handle::CurrentThread(h) => &h.owned,
            #[cfg(feature = "sim")]
            Handle::Sim(h) => &h.owned,
        }
    }

    pub(crate) fn global_queue_depth(&self) -> usize {
        match self {
            Handle::MultiThread(h) => h.inject_len(),
            Handle::CurrentThread(h) => h.inject_len(),
            #[cfg(feature = "sim")]
            Handle::Sim(h) => h.ready_len(),
        }
    }

    /// `worker` is in range (checked by the caller).
    pub(crate) fn worker_metrics(&self, worker: usize) -> &WorkerMetrics {
        match self {
            Handle::MultiThread(h) => &h.shared.metrics[worker],
            Handle::CurrentThread(h) => &h.metrics,
            #[cfg(feature = "sim")]
            Handle::Sim(h) => &h.metrics,
        }
    }

    /// `worker` is in range (checked by the caller).
    pub(crate) fn worker_local_queue_depth(&self, worker: usize) -> usize {
        match self {
            Handle::MultiThread(h) => h.local_queue_depth(worker),
            Handle::CurrentThread(h) => h.metrics.local_queue_depth.load(Ordering::Relaxed),
            #[cfg(feature = "sim")]
            Handle::Sim(_) => 0,
        }
    }

    /// The watchdog found `worker` stuck in one poll: let the others take
    /// the work queued behind it.
    pub(crate) fn stall_started(&self, worker: usize) {
        if let Handle::MultiThread(h) = self {
            h.stall_started(worker);
        }
    }

    /// Still stuck: wake a peer again if work waits behind it.
    pub(crate) fn help_stalled_worker(&self, worker: usize) {
        if let Handle::MultiThread(h) = self {
            h.help_stalled_worker(worker);
        }
    }

    /// The stuck poll returned.
    pub(crate) fn stall_ended(&self, worker: usize) {
        if let Handle::MultiThread(h) = self {
            h.stall_ended(worker);
        }
    }

    /// Tasks of `priority` waiting to run; see
    /// `RuntimeMetrics::priority_queue_depth` for what `Normal` counts.
    pub(crate) fn priority_queue_depth(&self, priority: Priority) -> usize {
        match self {
            Handle::MultiThread(h) => h.priority_queue_depth(priority),
            Handle::CurrentThread(h) => h.priority_queue_depth(priority),
            // One ready set for every priority (the draw ignores them).
            #[cfg(feature = "sim")]
            Handle::Sim(h) => match priority {
                Priority::Normal => h.ready_len(),
                _ => 0,
            },
        }
    }

    /// Polls of tasks of `priority` so far.
    pub(crate) fn priority_poll_count(&self, priority: Priority) -> u64 {
        (0..self.num_workers())
            .map(|worker| self.worker_metrics(worker).polls_of(priority))
            .sum()
    }

    pub(crate) fn is_same(&self, other: &Handle) -> bool {
        match (self, other) {
            (Handle::MultiThread(a), Handle::MultiThread(b)) => Arc::ptr_eq(a, b),
            (Handle::CurrentThread(a), Handle::CurrentThread(b)) => Arc::ptr_eq(a, b),
            #[cfg(feature = "sim")]
            (Handle::Sim(a), Handle::Sim(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

/// Scheduler settings from the `Builder`.
#[derive(Clone)]
pub(crate) struct Config {
    /// Ticks between looks at the global queue ahead of the local one; the
    /// most, when `tune_global_queue_interval` is set.
    pub(crate) global_queue_interval: u32,
    /// The user left the interval to the runtime: each scheduler thread
    /// tunes it to its poll times (`global_queue_interval.rs`).
    pub(crate) tune_global_queue_interval: bool,
    pub(crate) event_interval: u32,
    /// The most an idle thread spins before it sleeps (see `idle_spin`).
    pub(crate) spin_before_park: std::time::Duration,
    pub(crate) before_park: Option<crate::runtime::builder::Callback>,
    pub(crate) after_unpark: Option<crate::runtime::builder::Callback>,
    /// The runtime's id (`Handle::id`), drawn when it is built.
    pub(crate) runtime_id: crate::runtime::Id,
    /// The runtime's name (`Builder::name`, `Handle::name`).
    pub(crate) name: Option<std::sync::Arc<str>>,
    /// The slow-poll watchdog is on: peers may take a stuck worker's LIFO
    /// slot and yielded tasks (`multi_thread/local_queues.rs`).
    pub(crate) stealable_local_queues: bool,
    /// The `LocalSet`s driven on this runtime, for its diagnostics; it
    /// also says whether the leak report is on.
    pub(crate) local_sets: Arc<LocalSetList>,
    /// The `block_on` calls in progress, listed for the watchdog; `None`
    /// while it is off (`runtime/block_on_calls.rs`).
    pub(crate) block_on_calls: Option<Arc<BlockOnCalls>>,
    /// The shutdown sweep's drop in progress, for the watchdog; `None`
    /// while it is off (`runtime/shutdown_sweep.rs`).
    pub(crate) shutdown_sweep: Option<Arc<ShutdownSweep>>,
    /// Each poll records what the task waits for (`Builder::track_waits`,
    /// `task/waits.rs`).
    pub(crate) track_waits: bool,
}

impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Config")
            .field("global_queue_interval", &self.global_queue_interval)
            .field(
                "tune_global_queue_interval",
                &self.tune_global_queue_interval,
            )
            .field("event_interval", &self.event_interval)
            .field("spin_before_park", &self.spin_before_park)
            .finish_non_exhaustive()
    }
}

/// A small, fast, non-cryptographic PRNG (xorshift*) for picking steal
/// victims; seeded per worker.
#[derive(Debug)]
pub(crate) struct FastRand(u64);

impl FastRand {
    pub(crate) fn new(seed: u64) -> FastRand {
        FastRand(seed | 1)
    }

    /// A number in `0..n` (`n > 0`).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        let r = x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 32;
        ((r * n as u64) >> 32) as usize
    }
}
