//! `RuntimeMetrics`, and the per-worker counters behind it.
//!
//! Every counter has one writer, the worker it belongs to (or the
//! current-thread scheduler's `block_on` thread), which bumps it with a
//! relaxed load and store, no read-modify-write; each worker's counters
//! sit in their own cache line, so the hot paths touch nothing shared.
//! Readers load them relaxed: a snapshot of several counters is not
//! taken at one instant, each is exact as of its own load.

use crate::loom::sync::atomic::{AtomicU64, AtomicUsize, Ordering, fence};
use crate::runtime::coarse_time::Stamp;
use crate::scheduler;
use crate::scheduler::priority::PriorityLanes;
use crate::task::Priority;
use std::time::Duration;

/// One worker's counters.
#[derive(Debug, Default)]
pub(crate) struct WorkerMetrics {
    /// Polls started.
    pub(crate) polls: AtomicU64,
    /// The id of the task being polled, 0 between polls (see
    /// `WorkerMetrics::poll_started` for how readers pair it with `polls`).
    pub(crate) polling_task: AtomicU64,
    pub(crate) steal_operations: AtomicU64,
    pub(crate) steal_tasks: AtomicU64,
    pub(crate) parks: AtomicU64,
    pub(crate) unparks: AtomicU64,
    pub(crate) busy_nanos: AtomicU64,
    pub(crate) budget_forced_yields: AtomicU64,
    pub(crate) lifo_hits: AtomicU64,
    /// Times the local deque was full and sent half of itself to the
    /// injector.
    pub(crate) overflows: AtomicU64,
    /// Polls of `High` and `Low` tasks; a `Normal` poll is counted in
    /// `polls` only (so counting it costs nothing extra).
    pub(crate) priority_polls: PriorityLanes<AtomicU64>,
    /// The local queue's length, for a scheduler whose queue other threads
    /// cannot read (current-thread): published at each maintenance tick.
    pub(crate) local_queue_depth: AtomicUsize,
    /// Set by the slow-poll watchdog when it sees one poll outlast a
    /// sampling period: the poller's cached clock (`coarse_time.rs`) is
    /// behind by as long, since a poll holds back its refresh, and the
    /// tasks it polls next would be stamped with the stuck poll's start
    /// (listed idle since then). The poller refreshes the clock once the
    /// poll returns (`take_clock_behind`). A hint ordering nothing, as the
    /// clock is: a std atomic, outside the loom shim.
    pub(crate) clock_behind: std::sync::atomic::AtomicBool,
}

/// Adds `n` to a counter only the calling thread writes.
#[inline]
pub(crate) fn add(counter: &AtomicU64, n: u64) {
    counter.store(
        counter.load(Ordering::Relaxed).wrapping_add(n),
        Ordering::Relaxed,
    );
}

impl WorkerMetrics {
    /// Step 1 of a poll: the task's id, then the count, released, so a
    /// reader that acquires the count sees the id of that poll (or of a
    /// later one: `polling`, which reads both, checks the count again).
    #[inline]
    pub(crate) fn poll_started(&self, task_id: u64) {
        self.polling_task.store(task_id, Ordering::Relaxed);
        let polls = self.polls.load(Ordering::Relaxed);
        self.polls.store(polls.wrapping_add(1), Ordering::Release);
    }

    /// A `High` or `Low` task was taken from its queue, to be polled at
    /// once. (Counted there, on the scheduler's priority path, so that a
    /// `Normal` poll costs nothing more than it did without priorities.)
    pub(crate) fn priority_polled(&self, priority: Priority) {
        add(self.priority_polls.get(priority), 1);
    }

    /// Polls of tasks of `priority` (`Normal`: the polls of neither
    /// other priority).
    pub(crate) fn polls_of(&self, priority: Priority) -> u64 {
        match priority {
            Priority::Normal => {
                let others =
                    Self::load(&self.priority_polls.high) + Self::load(&self.priority_polls.low);
                Self::load(&self.polls).saturating_sub(others)
            }
            priority => Self::load(self.priority_polls.get(priority)),
        }
    }

    /// Step 2: the poll returned.
    #[inline]
    pub(crate) fn poll_finished(&self) {
        self.polling_task.store(0, Ordering::Relaxed);
    }

    /// The watchdog saw the poll in progress outlast a sampling period.
    pub(crate) fn clock_fell_behind(&self) {
        self.clock_behind
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// Whether the watchdog saw the last poll outlast a sampling period
    /// since the previous call: then the poller's cached clock must be
    /// read again.
    #[inline]
    pub(crate) fn take_clock_behind(&self) -> bool {
        use std::sync::atomic::Ordering::Relaxed;
        self.clock_behind.load(Relaxed) && self.clock_behind.swap(false, Relaxed)
    }

    /// The poll in progress: its number (the poll count) and the task's
    /// id, or `None` between polls. A hint: by the time the caller looks,
    /// the poll may be over.
    pub(crate) fn polling(&self) -> Option<(u64, u64)> {
        let polls = self.polls.load(Ordering::Acquire);
        let task = self.polling_task.load(Ordering::Relaxed);
        fence(Ordering::Acquire);
        let again = self.polls.load(Ordering::Relaxed);
        (task != 0 && polls == again).then_some((polls, task))
    }

    /// The worker goes to sleep at `now`, busy since `busy_since`.
    pub(crate) fn parked(&self, busy_since: Stamp, now: Stamp) {
        add(&self.parks, 1);
        self.was_busy(busy_since, now);
    }

    /// The worker stops running tasks at `now` without sleeping (a
    /// current-thread `block_on` returns), busy since `busy_since`.
    pub(crate) fn was_busy(&self, busy_since: Stamp, now: Stamp) {
        let busy = busy_since.until(now).as_nanos();
        add(&self.busy_nanos, u64::try_from(busy).unwrap_or(u64::MAX));
    }

    pub(crate) fn load(counter: &AtomicU64) -> u64 {
        counter.load(Ordering::Relaxed)
    }
}

/// Counters and gauges describing a runtime, read when called.
///
/// Cheap to take and to read: the counters are per worker, bumped by
/// their worker without a lock; each method reads what it names at the
/// moment it is called. Worker indices run from 0 to
/// [`num_workers`](RuntimeMetrics::num_workers)` - 1` (a current-thread
/// runtime has one worker, the thread in `block_on`).
///
/// # Examples
///
/// ```
/// let rt = rt::runtime::Builder::new_multi_thread().worker_threads(2).build().unwrap();
/// let metrics = rt.metrics();
/// assert_eq!(metrics.num_workers(), 2);
/// rt.block_on(async { rt::spawn(async {}).await.unwrap() });
/// assert_eq!(metrics.spawned_tasks_count(), 1);
/// let polls: u64 = (0..2).map(|w| metrics.worker_poll_count(w)).sum();
/// assert_eq!(polls, 1);
/// ```
#[derive(Clone, Debug)]
pub struct RuntimeMetrics {
    handle: scheduler::Handle,
}

impl RuntimeMetrics {
    pub(crate) fn new(handle: scheduler::Handle) -> RuntimeMetrics {
        RuntimeMetrics { handle }
    }

    /// The number of worker threads (1 for a current-thread runtime).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    /// assert_eq!(rt.handle().metrics().num_workers(), 1);
    /// ```
    pub fn num_workers(&self) -> usize {
        self.handle.num_workers()
    }

    /// The number of tasks spawned and not yet finished (a finished task
    /// whose `JoinHandle` has not read its output is not counted; the
    /// task dump lists it as complete). A
    /// [`LocalRuntime`](crate::runtime::LocalRuntime)'s `spawn_local`
    /// tasks count too.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let (tx, rx) = futures_channel::oneshot::channel::<()>();
    /// let task = rt.spawn(async move { rx.await.ok() });
    /// assert_eq!(rt.handle().metrics().num_alive_tasks(), 1);
    /// tx.send(()).unwrap();
    /// rt.block_on(task).unwrap();
    /// assert_eq!(rt.handle().metrics().num_alive_tasks(), 0);
    /// ```
    pub fn num_alive_tasks(&self) -> usize {
        let local = self.handle.local_runtime_set();
        self.handle.num_alive_tasks() + local.map_or(0, |set| set.owned.len())
    }

    /// How many tasks were spawned on this runtime so far (blocking calls
    /// not included; a [`LocalRuntime`](crate::runtime::LocalRuntime)'s
    /// `spawn_local` tasks included, as tokio counts them).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// for _ in 0..3 {
    ///     rt.block_on(rt.spawn(async {})).unwrap();
    /// }
    /// assert_eq!(rt.metrics().spawned_tasks_count(), 3);
    /// ```
    pub fn spawned_tasks_count(&self) -> u64 {
        let local = self.handle.local_runtime_set();
        self.handle.owned_tasks().spawned_count() + local.map_or(0, |set| set.owned.spawned_count())
    }

    /// The number of tasks waiting in the global queue (spawned or woken
    /// from outside the workers), of every priority
    /// ([`priority_queue_depth`](RuntimeMetrics::priority_queue_depth)
    /// splits the queued tasks by priority).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// assert_eq!(rt.metrics().global_queue_depth(), 0);
    /// ```
    pub fn global_queue_depth(&self) -> usize {
        self.handle.global_queue_depth()
    }

    /// The number of tasks waiting in `worker`'s local queues, of every
    /// priority (and, with
    /// the slow-poll watchdog on, in its LIFO slot and among its tasks that
    /// yielded during the current round, which are private to the worker
    /// otherwise). On a current-thread runtime
    /// it is the value at the scheduler's last maintenance tick (every
    /// [`event_interval`](crate::runtime::Builder::event_interval) polls or
    /// when it goes idle) or at the end of the last `block_on`, as no
    /// other thread can read its queue.
    ///
    /// # Panics
    ///
    /// Panics if `worker >= num_workers()`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// assert_eq!(rt.metrics().worker_local_queue_depth(0), 0);
    /// ```
    #[track_caller]
    pub fn worker_local_queue_depth(&self, worker: usize) -> usize {
        self.check(worker);
        self.handle.worker_local_queue_depth(worker)
    }

    /// How many task polls `worker` has started (on a
    /// [`LocalRuntime`](crate::runtime::LocalRuntime), its `spawn_local`
    /// tasks' polls included).
    ///
    /// # Panics
    ///
    /// Panics if `worker >= num_workers()`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    /// rt.block_on(async {
    ///     rt::spawn(async { rt::task::yield_now().await }).await.unwrap();
    /// });
    /// assert_eq!(rt.metrics().worker_poll_count(0), 2);
    /// ```
    #[track_caller]
    pub fn worker_poll_count(&self, worker: usize) -> u64 {
        let local = self.handle.local_runtime_set();
        WorkerMetrics::load(&self.worker(worker).polls)
            + local.map_or(0, |set| WorkerMetrics::load(&set.metrics.polls))
    }

    /// How many times `worker` stole a batch of tasks from another
    /// worker's queue.
    ///
    /// # Panics
    ///
    /// Panics if `worker >= num_workers()`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    /// assert_eq!(rt.metrics().worker_steal_operations(0), 0);
    /// ```
    #[track_caller]
    pub fn worker_steal_operations(&self, worker: usize) -> u64 {
        WorkerMetrics::load(&self.worker(worker).steal_operations)
    }

    /// How many tasks `worker` stole, over all its steal operations.
    ///
    /// # Panics
    ///
    /// Panics if `worker >= num_workers()`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let metrics = rt.metrics();
    /// assert!(metrics.worker_steal_count(0) >= metrics.worker_steal_operations(0));
    /// ```
    #[track_caller]
    pub fn worker_steal_count(&self, worker: usize) -> u64 {
        WorkerMetrics::load(&self.worker(worker).steal_tasks)
    }

    /// How many times `worker` went to sleep for lack of work.
    ///
    /// # Panics
    ///
    /// Panics if `worker >= num_workers()`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    /// assert_eq!(rt.metrics().worker_park_count(0), 0);
    /// ```
    #[track_caller]
    pub fn worker_park_count(&self, worker: usize) -> u64 {
        WorkerMetrics::load(&self.worker(worker).parks)
    }

    /// How many times `worker` woke from sleep. It is asleep now if this
    /// is one less than [`worker_park_count`](RuntimeMetrics::worker_park_count).
    ///
    /// # Panics
    ///
    /// Panics if `worker >= num_workers()`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let metrics = rt.metrics();
    /// assert!(metrics.worker_park_count(0) - metrics.worker_unpark_count(0) <= 1);
    /// ```
    #[track_caller]
    pub fn worker_unpark_count(&self, worker: usize) -> u64 {
        WorkerMetrics::load(&self.worker(worker).unparks)
    }

    /// How many times `worker` parked plus how many times it woke up
    /// (tokio's form of the two counters): odd while it is parked, even
    /// while it is awake. The two counters are read one after the other, so
    /// under a concurrent park and wake the parity may lag by one event;
    /// the sum never decreases.
    ///
    /// # Panics
    ///
    /// Panics if `worker >= num_workers()`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_current_thread().enable_time().build().unwrap();
    /// rt.block_on(async { rt::time::sleep(std::time::Duration::from_millis(1)).await });
    /// // Back from `block_on`: the worker (this thread) is awake.
    /// assert_eq!(rt.metrics().worker_park_unpark_count(0) % 2, 0);
    /// ```
    #[track_caller]
    pub fn worker_park_unpark_count(&self, worker: usize) -> u64 {
        let metrics = self.worker(worker);
        // Wakes first: a park always precedes its wake, so the sum read
        // this way is never ahead of a state the worker was in.
        let unparks = WorkerMetrics::load(&metrics.unparks);
        let parks = WorkerMetrics::load(&metrics.parks);
        parks + unparks
    }

    /// How long `worker` has been awake (running tasks or looking for
    /// them), up to its last park or maintenance tick (every few
    /// [`event_interval`](crate::runtime::Builder::event_interval)s of
    /// polls): a worker that never runs out of work shows its busy time
    /// as it goes.
    ///
    /// # Panics
    ///
    /// Panics if `worker >= num_workers()`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let busy = rt.metrics().worker_total_busy_duration(0);
    /// assert!(busy < std::time::Duration::from_secs(3600));
    /// ```
    #[track_caller]
    pub fn worker_total_busy_duration(&self, worker: usize) -> Duration {
        Duration::from_nanos(WorkerMetrics::load(&self.worker(worker).busy_nanos))
    }

    /// How many times a task on `worker` spent the last unit of its
    /// cooperative budget, after which runtime resources make it yield
    /// (see [`consume_budget`](crate::task::consume_budget)): once per poll
    /// cut short, however many of the task's futures then find the budget
    /// spent, as tokio counts.
    ///
    /// # Panics
    ///
    /// Panics if `worker >= num_workers()`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    /// rt.block_on(rt.spawn(async {
    ///     for _ in 0..300 {
    ///         rt::task::consume_budget().await;
    ///     }
    /// }))
    /// .unwrap();
    /// assert_eq!(rt.metrics().worker_budget_forced_yield_count(0), 2);
    /// ```
    #[track_caller]
    pub fn worker_budget_forced_yield_count(&self, worker: usize) -> u64 {
        WorkerMetrics::load(&self.worker(worker).budget_forced_yields)
    }

    /// The sum of [`worker_budget_forced_yield_count`](RuntimeMetrics::worker_budget_forced_yield_count)
    /// over all workers.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// assert_eq!(rt.metrics().budget_forced_yield_count(), 0);
    /// ```
    pub fn budget_forced_yield_count(&self) -> u64 {
        (0..self.num_workers())
            .map(|worker| self.worker_budget_forced_yield_count(worker))
            .sum()
    }

    /// How many times `worker` ran the task in its LIFO slot: a task it
    /// woke itself, run next while its data is still in cache (0 on a
    /// current-thread runtime, which has no LIFO slot).
    ///
    /// # Panics
    ///
    /// Panics if `worker >= num_workers()`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_multi_thread().worker_threads(1).build().unwrap();
    /// rt.block_on(rt.spawn(async {
    ///     // Spawned from a worker: the child waits in the LIFO slot and
    ///     // runs as soon as this task stops to wait for it.
    ///     rt::spawn(async {}).await.unwrap();
    /// }))
    /// .unwrap();
    /// assert!(rt.metrics().worker_lifo_slot_hits(0) >= 1);
    /// ```
    #[track_caller]
    pub fn worker_lifo_slot_hits(&self, worker: usize) -> u64 {
        WorkerMetrics::load(&self.worker(worker).lifo_hits)
    }

    /// How many times `worker`'s local queue was full when it queued a
    /// task, and moved half of its tasks, the oldest, to the global queue
    /// (0 on a current-thread runtime, whose queue has no bound). A
    /// multi-thread worker's local queue holds 256 tasks.
    ///
    /// # Panics
    ///
    /// Panics if `worker >= num_workers()`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_multi_thread().worker_threads(1).build().unwrap();
    /// let metrics = rt.metrics();
    /// rt.block_on(rt.spawn(async move {
    ///     // 300 tasks spawned from the only worker, which runs none of
    ///     // them before this task ends: the queue overflows.
    ///     for _ in 0..300 {
    ///         rt::spawn(async {});
    ///     }
    ///     assert_eq!(metrics.worker_overflow_count(0), 1);
    /// }))
    /// .unwrap();
    /// ```
    #[track_caller]
    pub fn worker_overflow_count(&self, worker: usize) -> u64 {
        WorkerMetrics::load(&self.worker(worker).overflows)
    }

    /// The number of tasks of `priority` waiting to run (woken or newly
    /// spawned, not yet polled), in the global queues and the workers'
    /// local ones.
    ///
    /// `High` and `Low` are exact but for tasks moving between queues at
    /// that instant, and for tasks that yielded on a current-thread
    /// runtime (they wait in a list of their own until the driver was
    /// polled). `Normal` does not count the one task each worker keeps to
    /// run next (its LIFO slot) nor the tasks that yielded and wait on
    /// their worker; on a current-thread runtime, only tasks woken from
    /// other threads count while `block_on` runs.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::task::{Builder, Priority};
    ///
    /// let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    /// let metrics = rt.metrics();
    /// let urgent = Builder::new().priority(Priority::High);
    /// let task = urgent.spawn_on(async {}, rt.handle()).unwrap();
    /// assert_eq!(metrics.priority_queue_depth(Priority::High), 1);
    /// assert_eq!(metrics.priority_queue_depth(Priority::Normal), 0);
    /// rt.block_on(task).unwrap();
    /// assert_eq!(metrics.priority_queue_depth(Priority::High), 0);
    /// ```
    pub fn priority_queue_depth(&self, priority: Priority) -> usize {
        self.handle.priority_queue_depth(priority)
    }

    /// How many times the workers have polled tasks of `priority`
    /// (summed over [`worker_poll_count`](RuntimeMetrics::worker_poll_count)'s
    /// polls, which it splits by priority).
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::task::{Builder, Priority};
    ///
    /// let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    /// let low = Builder::new().priority(Priority::Low);
    /// let task = low.spawn_on(async { rt::task::yield_now().await }, rt.handle());
    /// rt.block_on(task.unwrap()).unwrap();
    /// let metrics = rt.metrics();
    /// assert_eq!(metrics.priority_poll_count(Priority::Low), 2);
    /// assert_eq!(metrics.priority_poll_count(Priority::Normal), 0);
    /// ```
    pub fn priority_poll_count(&self, priority: Priority) -> u64 {
        self.handle.priority_poll_count(priority)
    }

    /// The number of threads the runtime started beyond its workers, as
    /// tokio counts them: the blocking pool's, busy or idle, including a
    /// thread that took over a worker's tasks in
    /// [`block_in_place`](crate::task::block_in_place) (the thread that
    /// called it, blocked, is not counted: it exits once its closure
    /// returns).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// assert_eq!(rt.handle().metrics().num_blocking_threads(), 0);
    /// rt.block_on(rt.spawn_blocking(|| {})).unwrap();
    /// assert!(rt.handle().metrics().num_blocking_threads() >= 1);
    /// ```
    pub fn num_blocking_threads(&self) -> usize {
        self.handle.blocking_spawner().num_threads_with_handoffs()
    }

    /// The number of blocking-pool threads waiting for work (they exit
    /// after [`Builder::thread_keep_alive`](crate::runtime::Builder::thread_keep_alive)).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let metrics = rt.handle().metrics();
    /// assert!(metrics.num_idle_blocking_threads() <= metrics.num_blocking_threads());
    /// ```
    pub fn num_idle_blocking_threads(&self) -> usize {
        self.handle.blocking_spawner().num_idle_threads()
    }

    /// The number of blocking calls waiting for a blocking-pool thread
    /// (all threads busy at [`Builder::max_blocking_threads`](crate::runtime::Builder::max_blocking_threads)).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// assert_eq!(rt.handle().metrics().blocking_queue_depth(), 0);
    /// ```
    pub fn blocking_queue_depth(&self) -> usize {
        self.handle.blocking_spawner().queue_depth()
    }

    /// How many readiness events the I/O driver has dispatched to sockets
    /// and other registered sources (0 without I/O enabled).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    /// assert_eq!(rt.metrics().io_driver_ready_count(), 0);
    /// ```
    pub fn io_driver_ready_count(&self) -> u64 {
        self.handle
            .driver()
            .reactor()
            .map_or(0, |reactor| reactor.dispatched_events())
    }

    /// The number of sources (sockets, pipes, `AsyncFd`s) registered with
    /// the I/O driver now.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let before = rt::runtime::Handle::current().metrics().io_driver_registrations();
    ///     let socket = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     let metrics = rt::runtime::Handle::current().metrics();
    ///     assert_eq!(metrics.io_driver_registrations(), before + 1);
    ///     drop(socket);
    ///     assert_eq!(metrics.io_driver_registrations(), before);
    /// });
    /// ```
    pub fn io_driver_registrations(&self) -> usize {
        self.handle
            .driver()
            .reactor()
            .map_or(0, |reactor| reactor.num_registrations())
    }

    /// The number of timers armed (sleeps, timeouts, intervals waiting for
    /// their deadline); 0 without the time driver.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_current_thread().enable_time().build().unwrap();
    /// rt.block_on(async {
    ///     let sleep = rt::time::sleep(std::time::Duration::from_secs(60));
    ///     let mut sleep = std::pin::pin!(sleep);
    ///     // Polled once, the sleep arms its timer.
    ///     assert!(futures::poll!(sleep.as_mut()).is_pending());
    ///     assert_eq!(rt::runtime::Handle::current().metrics().num_pending_timers(), 1);
    /// });
    /// ```
    pub fn num_pending_timers(&self) -> usize {
        self.handle
            .driver()
            .time()
            .map_or(0, |time| time.timer().len())
    }

    #[track_caller]
    fn check(&self, worker: usize) {
        let workers = self.num_workers();
        assert!(
            worker < workers,
            "worker index {worker} out of range: this runtime has {workers} worker(s), \
             numbered from 0"
        );
    }

    #[track_caller]
    fn worker(&self, worker: usize) -> &WorkerMetrics {
        self.check(worker);
        self.handle.worker_metrics(worker)
    }
}
