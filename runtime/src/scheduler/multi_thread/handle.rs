//! The multi-thread scheduler's shared state and handle.

use crate::blocking;
use crate::driver;
use crate::loom::deque::{Injector, steal_one};
use crate::loom::sync::Arc;
use crate::loom::sync::atomic::{AtomicBool, Ordering, fence};
use crate::runtime::context;
use crate::runtime::metrics::WorkerMetrics;
use crate::scheduler::multi_thread::ExitCount;
use crate::scheduler::multi_thread::idle::Idle;
use crate::scheduler::multi_thread::park;
use crate::scheduler::multi_thread::worker::{Context, Remote};
use crate::scheduler::multi_thread::worker_threads::WorkerThreads;
use crate::scheduler::priority::{PriorityLanes, QueuedCounts};
use crate::scheduler::{self, Config};
use crate::task::list::OwnedTasks;
use crate::task::{JoinHandle, Notified, Priority, Schedule, TaskMeta};
use crossbeam_utils::CachePadded;
use std::future::Future;

/// See `Handle::hand_off_driver_for_timers`: a poll longer than this is
/// a bug in the task (it blocks its worker thread); timers due sooner do
/// not wait for it.
const DRIVER_HANDOFF_HORIZON: std::time::Duration = std::time::Duration::from_millis(10);

#[derive(Debug)]
pub(crate) struct Handle {
    pub(crate) shared: Shared,
    pub(crate) driver: driver::Handle,
    pub(crate) blocking: blocking::Spawner,
}

#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) remotes: Box<[Remote]>,
    /// Tasks scheduled from outside the workers (`Normal` ones).
    pub(crate) inject: Injector<Notified>,
    /// As `inject`, for `High` and `Low` tasks.
    pub(crate) inject_lanes: PriorityLanes<Injector<Notified>>,
    /// How many `High` and `Low` tasks wait in any lane.
    pub(crate) queued: QueuedCounts,
    pub(crate) idle: Idle,
    pub(crate) owned: OwnedTasks,
    /// Each worker's counters, in its own cache line (an `Arc` each, so
    /// the worker's thread holds its own without indexing).
    pub(crate) metrics: Box<[Arc<CachePadded<WorkerMetrics>>]>,
    pub(crate) is_shutdown: AtomicBool,
    /// Set once the shutdown sweep has run: nothing will poll again.
    pub(crate) is_terminated: AtomicBool,
    pub(crate) config: Config,
    pub(crate) park: Arc<park::Shared>,
    pub(crate) exited: ExitCount,
    /// The runtime's own worker threads' states, for shutdown to join them.
    pub(crate) worker_threads: Arc<WorkerThreads>,
}

impl Handle {
    pub(crate) fn spawn<F>(me: &Arc<Handle>, future: F, meta: TaskMeta) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let (join, notified) = me.shared.owned.bind(future, me.clone(), meta);
        if let Some(notified) = notified {
            Handle::schedule_task(me, notified, false);
        }
        join
    }

    /// (`me` rather than `self: &Arc<Self>`: loom's `Arc` cannot be a
    /// method receiver.)
    pub(crate) fn schedule_task(me: &Arc<Self>, task: Notified, is_yield: bool) {
        Handle::queue(me, task, |cx, task| cx.schedule_local(task, is_yield));
    }

    /// Queues `task` with `local` on this thread's worker if it is one of
    /// this runtime's and holds its core (`local` hands the task back
    /// otherwise), else in the injector.
    #[inline]
    fn queue(
        me: &Arc<Self>,
        task: Notified,
        local: impl FnOnce(&Context, Notified) -> Result<(), Notified>,
    ) {
        let task = context::with_scheduler(|cx| match cx {
            Some(scheduler::Context::MultiThread(cx)) if Arc::ptr_eq(&cx.handle, me) => {
                local(cx, task)
            }
            _ => Err(task),
        });
        if let Err(task) = task {
            me.push_remote(task);
        }
    }

    fn push_remote(&self, task: Notified) {
        match task.priority() {
            Priority::Normal => self.shared.inject.push(task),
            priority => {
                self.shared.queued.add(priority);
                self.shared.inject_lanes.get(priority).push(task);
            }
        }
        // Pairs with the fence in `finish_shutdown`: either its final drain
        // sees this task, or this load sees the runtime terminated and the
        // task is released here. Otherwise the task (which holds the
        // handle) would sit in the injector forever.
        fence(Ordering::SeqCst);
        if self.shared.is_terminated.load(Ordering::SeqCst) {
            self.drain_injector();
            return;
        }
        self.notify_parked();
    }

    fn drain_injector(&self) {
        let lanes = &self.shared.inject_lanes;
        for inject in [&self.shared.inject, &lanes.high, &lanes.low] {
            while let Some(task) = steal_one(inject) {
                drop(task);
            }
        }
    }

    /// Wakes a parked worker if no worker is searching (see `idle.rs`).
    pub(crate) fn notify_parked(&self) {
        self.notify_parked_other_than(None);
    }

    /// `notify_parked` from worker `me`, which may be on the parked list
    /// (it is in the driver) but must not be the one woken.
    pub(crate) fn notify_parked_except(&self, me: usize) {
        self.notify_parked_other_than(Some(me));
    }

    fn notify_parked_other_than(&self, except: Option<usize>) {
        fence(Ordering::SeqCst);
        if let Some(index) = self.shared.idle.worker_to_notify(except) {
            self.shared.remotes[index].unpark.unpark();
        }
    }

    /// Run by a worker that leaves the driver to run tasks, or that polled
    /// it between tasks (a worker parking meanwhile found the lock taken):
    /// if a timer is due soon and no other worker watches the driver, wakes
    /// a parked worker, which takes the driver when it parks again.
    /// Otherwise, if this worker's next poll blocks its thread, the timer
    /// waits for it while the others sleep on their condvars.
    ///
    /// Only timers due within `DRIVER_HANDOFF_HORIZON`: servers keep far
    /// timeouts armed all the time, and waking a worker on every I/O event
    /// would put a futex wake-up in front of each. The wheel answers
    /// early for far timers near a level boundary (`due_within`), so some
    /// hand-offs are for nothing; each costs one wake-up, and no second
    /// one comes until the woken worker parks again (it counts as
    /// searching). Not covered: a poll that blocks for longer than the
    /// horizon still delays the timers due after it, and a timer
    /// registered after this check (by the task that then blocks, or from
    /// outside the runtime) waits for a worker to park (tokio delays every
    /// timer in both cases).
    ///
    /// No wake-up is lost to a worker that is parking meanwhile: it counts
    /// itself as parked before it tries the driver lock, and the SeqCst
    /// fences (here, and there in `notify_if_work_pending`) order its count
    /// and this worker's release of the lock, so either this sees it
    /// counted as parked, or its `try_lock` finds the driver free.
    pub(crate) fn hand_off_driver_for_timers(&self) {
        // Orders this worker's release of the driver lock before its read
        // of the parked count (the Dekker pair described above).
        fence(Ordering::SeqCst);
        // The cheapest checks first.
        if self.shared.park.driver_watched() || !self.shared.idle.should_notify() {
            return;
        }
        let due = self
            .driver
            .time()
            .is_some_and(|time| time.due_within(DRIVER_HANDOFF_HORIZON));
        if due {
            self.notify_parked();
        }
    }

    /// Run by a worker about to park, and by the last searcher when it
    /// finds work: wakes a worker if any queue still holds work.
    pub(crate) fn notify_if_work_pending(&self) {
        // Pairs with the fence in `notify_parked`: either the producer saw
        // this worker still awake or searching (and this check sees its
        // task), or it saw the new counts and woke a worker itself.
        fence(Ordering::SeqCst);
        if self.has_stealable_work() {
            self.notify_parked();
        }
    }

    /// `true` if an injector or any worker's deque or lane holds a task
    /// (or, for a worker the watchdog found stuck, its LIFO slot or
    /// yielded list).
    ///
    /// The lanes are looked at only while `queued` counts a `High` or
    /// `Low` task (one load for a runtime of `Normal` tasks), and then
    /// themselves, not through the count: a producer raises the count
    /// before it pushes, and a parking worker that took the count alone
    /// for work would wake, find nothing, and wake again, for as long as
    /// the producer is held between the two (loom:
    /// `left_behind_high_work_gets_a_worker`). Gating on the count loses
    /// no wake-up: a producer fences (SeqCst) after its push and before
    /// it reads the idle counts, and the callers that decide whether to
    /// park fence before calling this, so either the producer sees them
    /// parked (and wakes one) or this sees its count and its task.
    pub(crate) fn has_stealable_work(&self) -> bool {
        let shared = &self.shared;
        !shared.inject.is_empty()
            || shared
                .remotes
                .iter()
                .any(|remote| !remote.stealer.is_empty() || remote.has_stranded_work())
            || (shared.queued.any() && self.has_lane_work())
    }

    /// `true` if a `High` or `Low` injector or any worker's lane holds a
    /// task.
    fn has_lane_work(&self) -> bool {
        let shared = &self.shared;
        shared.inject_lanes.any(|inject| !inject.is_empty())
            || shared
                .remotes
                .iter()
                .any(|remote| remote.lanes.any(|lane| !lane.is_empty()))
    }

    /// The watchdog found `worker` stuck in a poll (see `watchdog.rs`,
    /// step 2): from now on searchers also take its LIFO slot and its
    /// yielded tasks. The fence pairs with the one a parking worker runs
    /// before its last look at the queues (`notify_if_work_pending`):
    /// either it sees the mark, or this sees it parked and wakes it.
    pub(crate) fn stall_started(&self, worker: usize) {
        self.shared.remotes[worker]
            .stalled
            .store(true, Ordering::SeqCst);
        self.notify_parked();
    }

    /// Step 3: the stuck task may have woken more work since.
    pub(crate) fn help_stalled_worker(&self, worker: usize) {
        if self.shared.remotes[worker].has_stranded_work() {
            self.notify_parked();
        }
    }

    pub(crate) fn stall_ended(&self, worker: usize) {
        self.shared.remotes[worker]
            .stalled
            .store(false, Ordering::SeqCst);
    }

    /// The tasks queued on `worker`, as far as other threads can see (of
    /// every priority).
    pub(crate) fn local_queue_depth(&self, worker: usize) -> usize {
        let remote = &self.shared.remotes[worker];
        remote.stealer.len()
            + remote.lanes.high.len()
            + remote.lanes.low.len()
            + usize::from(remote.lifo.is_occupied())
            + remote.yielded.as_ref().map_or(0, |yielded| yielded.len())
    }

    /// Tasks in the injectors, of every priority.
    pub(crate) fn inject_len(&self) -> usize {
        let shared = &self.shared;
        shared.inject.len() + shared.inject_lanes.high.len() + shared.inject_lanes.low.len()
    }

    /// See `scheduler::Handle::priority_queue_depth`.
    pub(crate) fn priority_queue_depth(&self, priority: Priority) -> usize {
        let shared = &self.shared;
        match priority {
            Priority::Normal => {
                shared.inject.len()
                    + shared
                        .remotes
                        .iter()
                        .map(|remote| remote.stealer.len())
                        .sum::<usize>()
            }
            priority => shared.queued.get(priority),
        }
    }

    /// Starts shutting down: workers stop after their current poll, and a
    /// task spawned from now on is cancelled at once (as tokio's), since
    /// no worker would run it: one spawned and awaited by a worker's stop
    /// hook would otherwise keep that worker, and the shutdown waiting for
    /// it, waiting for ever.
    pub(crate) fn begin_shutdown(&self) {
        if self.shared.is_shutdown.swap(true, Ordering::AcqRel) {
            return;
        }
        self.shared.owned.close();
        for remote in self.shared.remotes.iter() {
            remote.unpark.unpark();
        }
    }

    /// Cancels every task and drops every queued one. Called once the
    /// workers have stopped (or were given up on).
    pub(crate) fn finish_shutdown(&self) {
        let sweep = self.shared.config.shutdown_sweep.as_deref();
        self.shared.owned.close_and_shutdown_all_watched(sweep);
        self.shared.is_terminated.store(true, Ordering::SeqCst);
        fence(Ordering::SeqCst);
        self.drain_injector();
        self.shared.park.shutdown();
    }
}

impl Schedule for Arc<Handle> {
    fn schedule(&self, task: Notified) {
        Handle::schedule_task(self, task, false);
    }

    fn yield_now(&self, task: Notified) {
        Handle::schedule_task(self, task, true);
    }

    fn woken_while_running(&self, task: Notified) {
        Handle::queue(self, task, Context::requeue_local);
    }

    fn owned_tasks(&self) -> Option<&OwnedTasks> {
        Some(&self.shared.owned)
    }

    fn watchdog_on(&self) -> bool {
        self.shared.config.local_sets.reports_leaks()
    }

    fn tracks_waits(&self) -> bool {
        self.shared.config.track_waits
    }
}
