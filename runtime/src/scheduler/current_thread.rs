//! The current-thread scheduler: every task runs on the thread that calls
//! `block_on`.
//!
//! Tasks woken on that thread go to a local queue in the core; wakes from
//! other threads go to a lock-free injector and unpark the driver. The
//! core (queue + driver) lives in a slot; `block_on` takes it for its
//! duration, and a second thread calling `block_on` meanwhile polls its own
//! future and takes the core when the first one returns it.
//!
//! The `block_on` loop:
//! 1. if the main future was woken, poll it; return its output when ready;
//! 2. run up to `event_interval` tasks, taking a batch from the injector
//!    first every `global_queue_interval` ticks (its first task runs now,
//!    the rest queue behind the local tasks); unless the user fixed it,
//!    the interval is tuned to about 100 µs of polling, as on the
//!    multi-thread workers (`scheduler/global_queue_interval.rs`), timed
//!    at each driver poll with the clock read that poll makes anyway;
//! 3. tasks that yielded (`yield_now`, a spent budget; a task woken while
//!    it runs by anything else goes to the local queue) wait in a side
//!    list until the driver is next polled, as tokio defers a yield until
//!    then; every driver poll (step 4's, either kind) queues them behind
//!    the tasks it woke. When nothing is left to run but yielded tasks,
//!    the driver is polled without blocking at once: a task that keeps
//!    yielding lets I/O and timers in after every round of yields, and a
//!    yielded task runs again within `event_interval` ticks plus the
//!    queue ahead of it however busy the runtime is (a saturated runtime
//!    never runs out of tasks, so waiting for that would starve it);
//! 4. when there is nothing to run at all, park in the driver (woken by a
//!    remote schedule or the main future's waker); otherwise, after
//!    `event_interval` tasks, poll the driver without blocking, and loop.
//!
//! `High` and `Low` tasks wait in queues of their own (a local one and an
//! injector per priority) and, while any is queued, step 2 chooses by
//! priority first, with the starvation bound of `scheduler/priority.rs`.
//! `Normal` tasks alone take exactly the path described above. Yielded
//! tasks of every priority share step 3's list and go back to their own
//! queues; step 2 runs no task while one of higher priority waits in the
//! list (or one whose starvation turn has come): the round of yields
//! comes first, after its driver poll. So a `High` task that yields still
//! runs before all queued lower-priority work, and a yielded task counts
//! as waiting for the starvation bound.
//!
//! Parking without a lost wake-up, and without a syscall per remote wake:
//! 1. the `block_on` thread sets `parked`, then, after a SeqCst fence,
//!    checks the local queue, the injector and `woken`, and blocks in the
//!    driver only if all are empty; it clears `parked` once it is back;
//! 2. a remote schedule pushes to the injector, and a main-future wake
//!    sets `woken`, then, after a SeqCst fence, unparks the driver only if
//!    `parked` is set;
//! 3. of the two fences one comes first: if it is 2's, the check in 1 sees
//!    the push or store (and the thread does not block); if it is 1's, the
//!    load in 2 sees `parked` (and unparks; the driver's notification is
//!    sticky, so an unpark landing before the block makes it return at
//!    once).

use crate::blocking;
use crate::driver::{self, Driver};
use crate::loom::deque::{Injector, steal_one};
use crate::loom::sync::atomic::{AtomicBool, Ordering, fence};
use crate::loom::sync::{Arc, Mutex};
use crate::runtime::arc_waker::{ArcWake, arc_waker};
use crate::runtime::block_on_calls::{BlockOnCall, FutureWaker};
use crate::runtime::builder::run_hook;
use crate::runtime::coarse_time::{self, Stamp};
use crate::runtime::context;
use crate::runtime::metrics::{self, WorkerMetrics};
use crate::runtime::park::ThreadParker;
use crate::scheduler::global_queue_interval::GlobalQueueInterval;
use crate::scheduler::priority::{Fairness, PriorityLanes, QueuedCounts};
use crate::scheduler::{self, Config};
use crate::task::list::OwnedTasks;
use crate::task::local::Shared as LocalSetShared;
use crate::task::{self, JoinHandle, Notified, Priority, Schedule, TaskMeta};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Poll, Waker};
use std::time::Duration;

struct CoreSlot {
    core: Option<Box<Core>>,
    /// Threads waiting in `block_on` for the core.
    waiters: Vec<Waker>,
    /// Set by a shutdown that found the core away (another thread's
    /// `block_on` held it): that thread shuts the driver down at its next
    /// park (`Context::park`, woken by the shutdown), and, releasing the
    /// core, tears it down instead of putting it back.
    shut_down: bool,
}

pub(crate) struct Handle {
    /// The core, while no thread is in `block_on`.
    slot: Mutex<CoreSlot>,
    /// `Normal` tasks scheduled from other threads.
    inject: Injector<Notified>,
    /// As `inject`, for `High` and `Low` tasks.
    inject_lanes: PriorityLanes<Injector<Notified>>,
    /// How many `High` and `Low` tasks wait, here or in the core.
    queued: QueuedCounts,
    pub(crate) owned: OwnedTasks,
    /// Set when the main future's waker fires.
    woken: AtomicBool,
    /// Set while the `block_on` thread is (about to be) blocked in the
    /// driver; see the module docs.
    parked: AtomicBool,
    is_terminated: AtomicBool,
    pub(crate) config: Config,
    pub(crate) driver: driver::Handle,
    pub(crate) blocking: blocking::Spawner,
    /// The counters of the one worker (whichever thread is in `block_on`).
    pub(crate) metrics: WorkerMetrics,
    /// The set of the `LocalRuntime` built on this runtime, if it is one:
    /// its tasks (`spawn_local`) count in the runtime's metrics, as in
    /// tokio, where they are the scheduler's own.
    pub(crate) local_runtime_set: Mutex<Option<Arc<LocalSetShared>>>,
}

/// Tasks taken from the injector at once on a global-queue tick.
const INJECT_BATCH: usize = 32;

struct Core {
    /// `Normal` tasks woken on this thread.
    tasks: VecDeque<Notified>,
    /// As `tasks`, for `High` and `Low` tasks.
    lanes: PriorityLanes<VecDeque<Notified>>,
    /// How long lower-priority tasks have waited.
    fairness: Fairness,
    /// Tasks that yielded (of every priority), oldest first; see step 3
    /// above.
    yielded: Vec<Notified>,
    /// How many of `yielded` have each priority (by `Priority::index`):
    /// no task runs while one of higher priority waits there (its round
    /// comes first), and they count as waiting for the starvation bound.
    yielded_by_priority: [usize; 3],
    tick: u32,
    /// Ticks between looks at the injector first, tuned to the poll times
    /// unless the user fixed it (see `scheduler/global_queue_interval.rs`).
    global_queue_interval: GlobalQueueInterval,
    /// When the scheduler last woke (for the busy-time metric).
    busy_since: Stamp,
    /// The cached clock for the tasks' poll times, refreshed at each
    /// driver poll.
    now: Stamp,
    driver: Option<Driver>,
    /// The driver was shut down under this core's `block_on` (see
    /// `Context::park`): its later parks need not do it again.
    driver_shut_down: bool,
    /// The I/O wakers of the last park, woken right after it (kept to
    /// reuse its capacity).
    woken: Vec<Waker>,
}

/// The scheduler context installed while `block_on` drives the core.
pub(crate) struct Context {
    handle: Arc<Handle>,
    core: RefCell<Option<Box<Core>>>,
}

impl Handle {
    pub(crate) fn new(
        driver: Driver,
        driver_handle: driver::Handle,
        config: Config,
        blocking: blocking::Spawner,
    ) -> Arc<Handle> {
        let now = coarse_time::now();
        let core = Box::new(Core {
            tasks: VecDeque::with_capacity(64),
            lanes: PriorityLanes::new(VecDeque::new),
            fairness: Fairness::default(),
            yielded: Vec::new(),
            yielded_by_priority: [0; 3],
            tick: 0,
            global_queue_interval: GlobalQueueInterval::new(
                config.global_queue_interval,
                config.tune_global_queue_interval,
                now,
            ),
            busy_since: now,
            now,
            driver: Some(driver),
            driver_shut_down: false,
            woken: Vec::new(),
        });
        Arc::new(Handle {
            slot: Mutex::new(CoreSlot {
                core: Some(core),
                waiters: Vec::new(),
                shut_down: false,
            }),
            inject: Injector::new(),
            inject_lanes: PriorityLanes::new(Injector::new),
            queued: QueuedCounts::new(),
            owned: OwnedTasks::new(1),
            woken: AtomicBool::new(false),
            parked: AtomicBool::new(false),
            is_terminated: AtomicBool::new(false),
            config,
            driver: driver_handle,
            blocking,
            metrics: WorkerMetrics::default(),
            local_runtime_set: Mutex::new(None),
        })
    }

    /// Tasks in the injectors, of every priority.
    pub(crate) fn inject_len(&self) -> usize {
        self.inject.len() + self.inject_lanes.high.len() + self.inject_lanes.low.len()
    }

    /// Runs `future` to completion, driving the scheduler meanwhile; its
    /// polls are counted in `call`, if given (the watchdog watches it).
    /// (`me` rather than `self: &Arc<Self>`: loom's `Arc` cannot be a
    /// method receiver.)
    pub(crate) fn block_on<F: Future>(
        me: &Arc<Self>,
        future: F,
        call: Option<&Arc<BlockOnCall>>,
    ) -> F::Output {
        let mut future = std::pin::pin!(future);
        let parker = ThreadParker::new();
        let waiter = parker.waker();
        let alone = FutureWaker::counted(call, waiter.clone());
        loop {
            if let Some(mut core) = me.take_core(&waiter) {
                // Busy from here: the time since the last `block_on` was
                // not (the guard's drop adds the rest if it never parks).
                core.busy_since = coarse_time::refresh();
                core.now = core.busy_since;
                let guard = CoreGuard {
                    cx: scheduler::Context::CurrentThread(Context {
                        handle: me.clone(),
                        core: RefCell::new(Some(core)),
                    }),
                };
                if let Some(call) = call {
                    call.drives_tasks();
                }
                return guard.block_on(future.as_mut(), call);
            }
            // Another thread drives the core: poll our future alone until
            // it completes or the core comes free.
            let mut cx = std::task::Context::from_waker(alone.waker());
            let polled = alone.poll(
                || task::budget_scope(|| future.as_mut().poll(&mut cx)),
                || true,
            );
            if let Poll::Ready(output) = polled {
                return output;
            }
            parker.park();
        }
    }

    /// Takes the core, or registers `waiter` to be woken when it is free.
    fn take_core(&self, waiter: &Waker) -> Option<Box<Core>> {
        let mut slot = self.slot.lock().unwrap();
        let core = slot.core.take();
        if core.is_none() && !slot.waiters.iter().any(|w| w.will_wake(waiter)) {
            slot.waiters.push(waiter.clone());
        }
        core
    }

    fn release_core(&self, core: Box<Core>) {
        let (waiters, shut_down) = {
            let mut slot = self.slot.lock().unwrap();
            let shut_down = if slot.shut_down {
                Some(core)
            } else {
                slot.core = Some(core);
                None
            };
            (std::mem::take(&mut slot.waiters), shut_down)
        };
        for waiter in waiters {
            waiter.wake();
        }
        if let Some(core) = shut_down {
            self.tear_down(core);
        }
    }

    /// Cancels every task and tears the driver down.
    pub(crate) fn shutdown(me: &Arc<Self>) {
        let handle = me;
        let core = me.slot.lock().unwrap().core.take();
        let cx = scheduler::Context::CurrentThread(Context {
            handle: handle.clone(),
            core: RefCell::new(core),
        });
        context::set_scheduler(&cx, || {
            let sweep = handle.config.shutdown_sweep.as_deref();
            handle.owned.close_and_shutdown_all_watched(sweep);
        });
        let scheduler::Context::CurrentThread(cx) = cx else {
            unreachable!()
        };
        handle.is_terminated.store(true, Ordering::SeqCst);
        fence(Ordering::SeqCst);
        // A core that another thread's `block_on` held is torn down by that
        // thread when it lets go (`release_core`), unless it did already:
        // otherwise nothing would ever shut the driver down, and the timers
        // and sockets of this runtime used elsewhere would wait forever.
        let core = cx.core.into_inner().or_else(|| {
            let mut slot = handle.slot.lock().unwrap();
            let released = slot.core.take();
            slot.shut_down = released.is_none();
            released
        });
        match core {
            Some(core) => handle.tear_down(core),
            // That thread may never let go: its future may wait on this
            // runtime's timers or sockets, which its core's driver would
            // go on serving. Woken (the unpark is sticky), its next park
            // shuts the driver down in place (`Context::park`), so they
            // report the shutdown as they would had the core been free.
            None => handle.driver.unpark(),
        }
        handle.drain_injector();
    }

    /// Drops the core's queued tasks and shuts its driver down (shutdown).
    fn tear_down(&self, mut core: Box<Core>) {
        core.tasks.clear();
        core.lanes.high.clear();
        core.lanes.low.clear();
        core.yielded.clear();
        self.metrics.local_queue_depth.store(0, Ordering::Relaxed);
        if let Some(driver) = core.driver.as_mut() {
            driver.shutdown(&self.driver, &mut core.woken);
        }
        driver::wake_all(&mut core.woken);
    }

    fn drain_injector(&self) {
        for inject in [
            &self.inject,
            &self.inject_lanes.high,
            &self.inject_lanes.low,
        ] {
            while let Some(task) = steal_one(inject) {
                drop(task);
            }
        }
    }
}

/// Returns the core to the slot when `block_on` ends, even by a panic.
struct CoreGuard {
    cx: scheduler::Context,
}

impl CoreGuard {
    fn cx(&self) -> &Context {
        match &self.cx {
            scheduler::Context::CurrentThread(cx) => cx,
            scheduler::Context::MultiThread(_) => unreachable!(),
        }
    }

    fn block_on<F: Future>(
        self,
        mut future: Pin<&mut F>,
        call: Option<&Arc<BlockOnCall>>,
    ) -> F::Output {
        context::set_scheduler(&self.cx, || {
            let cx = self.cx();
            let handle = &*cx.handle;
            let waker = FutureWaker::new(call, Handle::main_waker(&cx.handle));
            let mut task_cx = std::task::Context::from_waker(waker.waker());
            handle.woken.store(true, Ordering::Release);
            'outer: loop {
                if handle.woken.swap(false, Ordering::AcqRel) {
                    let polled = waker.poll(
                        || task::budget_scope(|| future.as_mut().poll(&mut task_cx)),
                        || handle.woken.load(Ordering::SeqCst),
                    );
                    if let Poll::Ready(output) = polled {
                        return output;
                    }
                    catch_up_clock(cx, call.map(|call| &call.metrics));
                }
                for _ in 0..handle.config.event_interval {
                    let (next, now) = {
                        let mut core = cx.core.borrow_mut();
                        let core = core.as_mut().expect("the core is installed");
                        core.tick = core.tick.wrapping_add(1);
                        (core.next_task(handle), core.now)
                    };
                    match next {
                        Some(task) => {
                            task.record_poll(now);
                            handle.metrics.poll_started(task.id().as_u64());
                            task.run();
                            handle.metrics.poll_finished();
                            catch_up_clock(cx, call.map(|_| &handle.metrics));
                        }
                        None if cx.has_yielded() => {
                            // Step 3: the poll queues them.
                            cx.park(false);
                            continue 'outer;
                        }
                        None => {
                            cx.park(true);
                            continue 'outer;
                        }
                    }
                }
                cx.park(false);
            }
        })
    }
}

/// After a poll: if the watchdog (on when `block_on` is watched, `metrics`
/// is then `Some`) saw it outlast a sampling period, the core's cached
/// clock fell behind by as long; read it again, so the tasks polled next
/// are not stamped with the stuck poll's start.
#[inline]
fn catch_up_clock(cx: &Context, metrics: Option<&WorkerMetrics>) {
    if metrics.is_some_and(WorkerMetrics::take_clock_behind) {
        if let Some(core) = cx.core.borrow_mut().as_mut() {
            core.now = coarse_time::refresh();
        }
    }
}

impl Drop for CoreGuard {
    fn drop(&mut self) {
        let cx = self.cx();
        if let Some(core) = cx.core.borrow_mut().take() {
            // Busy until now, like a park: a `block_on` whose tasks never
            // left it idle still shows the time it ran them.
            let metrics = &cx.handle.metrics;
            metrics.was_busy(core.busy_since, coarse_time::refresh());
            // The tasks left queued wait until the next `block_on`: the
            // depth read meanwhile is theirs, not the last tick's.
            metrics
                .local_queue_depth
                .store(core.queued_here(), Ordering::Relaxed);
            cx.handle.release_core(core);
        }
    }
}

impl Context {
    pub(crate) fn budget_forced_yield(&self) {
        // Only while this thread drives the core (the counters' writer).
        if self.core.try_borrow().is_ok_and(|core| core.is_some()) {
            metrics::add(&self.handle.metrics.budget_forced_yields, 1);
        }
    }

    /// `Some(0)` while this thread drives the core (the runtime's one
    /// worker), `None` otherwise.
    pub(crate) fn worker_index(&self) -> Option<usize> {
        let core = self.core.try_borrow().ok()?;
        core.as_ref().map(|_| 0)
    }

    fn has_yielded(&self) -> bool {
        self.core
            .borrow()
            .as_ref()
            .is_some_and(|core| !core.yielded.is_empty())
    }

    fn with_core<R>(&self, f: impl FnOnce(&mut Core) -> R) -> R {
        f(self
            .core
            .borrow_mut()
            .as_mut()
            .expect("the core is installed"))
    }

    /// Parks in the driver if `block` and there is nothing to do;
    /// otherwise only polls it.
    fn park(&self, block: bool) {
        let handle = &*self.handle;
        let wants_to_block = block;
        if block {
            // The hook runs before the last look at the queues: a task it
            // spawns lands in the local queue (the core is installed),
            // which wakes no one, so only that look keeps this thread from
            // sleeping with work queued.
            run_hook(handle.config.before_park.as_ref());
            // Step 1: announce the park before the last look at the queues.
            // The fence pairs with the one in `unpark_if_parked` (loom
            // checks SeqCst fences, not the total order of SeqCst accesses).
            handle.parked.store(true, Ordering::SeqCst);
            fence(Ordering::SeqCst);
        }
        let (mut driver, mut woken, block) = {
            let mut core = self.core.borrow_mut();
            let core = core.as_mut().expect("the core is installed");
            let idle = core.tasks.is_empty()
                && !core.lanes.any(|lane| !lane.is_empty())
                && handle.inject.is_empty()
                && !handle.inject_lanes.any(|inject| !inject.is_empty())
                && !handle.woken.load(Ordering::SeqCst);
            // The maintenance tick of the metrics and the coarse clock.
            let metrics = &handle.metrics;
            metrics
                .local_queue_depth
                .store(core.queued_here(), Ordering::Relaxed);
            let now = coarse_time::refresh();
            core.now = now;
            core.global_queue_interval.retune(now, core.tick);
            // Busy time so far, parking or not: a `block_on` that never
            // runs out of work parks only when it returns.
            metrics.was_busy(core.busy_since, now);
            core.busy_since = now;
            if block && idle {
                // The sleep ahead is not poll time.
                core.global_queue_interval.went_idle();
                metrics::add(&handle.metrics.parks, 1);
                coarse_time::mark_stale();
            }
            (
                core.driver.take().expect("the core holds the driver"),
                std::mem::take(&mut core.woken),
                block && idle,
            )
        };
        // The core stays installed, so tasks woken by the driver go to the
        // local queue.
        driver.park(
            &handle.driver,
            if block { None } else { Some(Duration::ZERO) },
            &mut woken,
        );
        let shut_down = handle.is_terminated.load(Ordering::Acquire)
            && !self.with_core(|core| std::mem::replace(&mut core.driver_shut_down, true));
        if shut_down {
            // Another thread shut the runtime down while this one held the
            // core (see `Handle::shutdown`). The driver still parks (and
            // is unparked) as before, for what is left of this `block_on`;
            // `release_core` shuts it down again, which does nothing more.
            driver.shutdown(&handle.driver, &mut woken);
        }
        driver::wake_all(&mut woken);
        handle.parked.store(false, Ordering::SeqCst);
        if wants_to_block {
            run_hook(handle.config.after_unpark.as_ref());
        }
        self.with_core(|core| {
            core.driver = Some(driver);
            core.woken = woken;
            core.requeue_yielded(handle);
            if block {
                metrics::add(&handle.metrics.unparks, 1);
                core.busy_since = coarse_time::refresh();
                core.now = core.busy_since;
            }
        });
    }
}

impl Core {
    /// The tasks waiting in this core's queues, of every priority.
    fn queued_here(&self) -> usize {
        self.tasks.len() + self.lanes.high.len() + self.lanes.low.len() + self.yielded.len()
    }

    /// Step 3: after a driver poll, the yielded tasks go behind what it
    /// woke.
    fn requeue_yielded(&mut self, handle: &Handle) {
        if self.yielded.is_empty() {
            return;
        }
        let normal_only = self.yielded_by_priority[Priority::Normal.index()] == self.yielded.len();
        self.yielded_by_priority = [0; 3];
        if normal_only {
            // One copy, without reading each task's priority.
            self.tasks.extend(self.yielded.drain(..));
            return;
        }
        let mut yielded = std::mem::take(&mut self.yielded);
        for task in yielded.drain(..) {
            self.push(handle, task);
        }
        // The list's capacity is kept for the next round.
        self.yielded = yielded;
    }

    /// Queues a task to run on this thread, by its priority.
    fn push(&mut self, handle: &Handle, task: Notified) {
        match task.priority() {
            Priority::Normal => self.tasks.push_back(task),
            priority => {
                handle.queued.add(priority);
                self.lanes.get_mut(priority).push_back(task);
            }
        }
    }

    /// `true` on the ticks where the injector goes ahead of the local
    /// queue.
    fn injector_turn(&self) -> bool {
        self.global_queue_interval.is_turn(self.tick)
    }

    fn next_task(&mut self, handle: &Handle) -> Option<Notified> {
        if handle.queued.any() || self.yielded(Priority::High) {
            return self.next_task_by_priority(handle);
        }
        take_from(self.injector_turn(), &mut self.tasks, &handle.inject)
    }

    /// Steps 2-4 of `scheduler/priority.rs`: some `High` or `Low` task may
    /// be queued. Out of line: the all-`Normal` path never calls it.
    #[cold]
    #[inline(never)]
    fn next_task_by_priority(&mut self, handle: &Handle) -> Option<Notified> {
        let turn = self.fairness.turn();
        let order = turn.into_iter().chain(
            Priority::HIGHEST_FIRST
                .into_iter()
                .filter(|&priority| Some(priority) != turn),
        );
        let mut found = None;
        for priority in order {
            if let Some(task) = self.take(handle, priority) {
                found = Some((priority, task));
                break;
            }
            if self.yielded(priority) {
                // Tasks of this priority yielded: their round (step 3)
                // comes before anything after them in this order runs.
                return None;
            }
        }
        let (ran, task) = found?;
        let normal_waiting = ran == Priority::High
            && !(self.tasks.is_empty()
                && handle.inject.is_empty()
                && !self.yielded(Priority::Normal));
        let low_waiting = ran != Priority::Low
            && (handle.queued.get(Priority::Low) != 0 || self.yielded(Priority::Low));
        self.fairness.ran(ran, normal_waiting, low_waiting);
        Some(task)
    }

    /// `true` if a task of `priority` waits in the yielded list.
    fn yielded(&self, priority: Priority) -> bool {
        self.yielded_by_priority[priority.index()] != 0
    }

    fn take(&mut self, handle: &Handle, priority: Priority) -> Option<Notified> {
        if priority == Priority::Normal {
            return take_from(self.injector_turn(), &mut self.tasks, &handle.inject);
        }
        if handle.queued.get(priority) == 0 {
            return None;
        }
        let inject = handle.inject_lanes.get(priority);
        let task = take_from(self.injector_turn(), self.lanes.get_mut(priority), inject)?;
        handle.queued.remove(priority);
        handle.metrics.priority_polled(priority);
        Some(task)
    }
}

/// The next task of one priority: from its local queue, or its injector,
/// which goes first on `injector_turn` ticks.
fn take_from(
    injector_turn: bool,
    local: &mut VecDeque<Notified>,
    inject: &Injector<Notified>,
) -> Option<Notified> {
    // An empty injector is two loads to see (`steal` would also fence):
    // with the interval tuned down to 2, most turns find it empty. A push
    // this misses is taken at the next turn, or when `local` runs dry.
    if injector_turn && !inject.is_empty() {
        let Some(task) = steal_one(inject) else {
            return local.pop_front();
        };
        // A batch behind the local tasks, not one task per interval:
        // while local tasks keep coming, this tick is the injector's
        // only way in, and one task each time starves remote spawns.
        for _ in 1..INJECT_BATCH {
            match steal_one(inject) {
                Some(task) => local.push_back(task),
                None => break,
            }
        }
        Some(task)
    } else {
        local.pop_front().or_else(|| steal_one(inject))
    }
}

impl Handle {
    pub(crate) fn spawn<F>(me: &Arc<Handle>, future: F, meta: TaskMeta) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let (join, notified) = me.owned.bind(future, me.clone(), meta);
        if let Some(notified) = notified {
            me.schedule(notified);
        }
        join
    }

    /// See `scheduler::Handle::priority_queue_depth`: `Normal` counts the
    /// injector, and the core's queue only while no thread runs it.
    pub(crate) fn priority_queue_depth(&self, priority: Priority) -> usize {
        match priority {
            Priority::Normal => {
                let idle_core = self
                    .slot
                    .lock()
                    .unwrap()
                    .core
                    .as_ref()
                    .map_or(0, |core| core.tasks.len());
                self.inject.len() + idle_core
            }
            priority => self.queued.get(priority),
        }
    }

    fn main_waker(me: &Arc<Self>) -> Waker {
        arc_waker(me.clone())
    }

    fn wake_main(&self) {
        self.woken.store(true, Ordering::SeqCst);
        self.unpark_if_parked();
    }

    /// Step 2 of the parking protocol in the module docs: the caller has
    /// just made work visible.
    fn unpark_if_parked(&self) {
        fence(Ordering::SeqCst);
        if self.parked.load(Ordering::SeqCst) {
            self.driver.unpark();
        }
    }
}

/// The main future's waker.
impl ArcWake for Handle {
    fn wake_by_ref(&self) {
        self.wake_main();
    }
}

impl Schedule for Arc<Handle> {
    fn schedule(&self, task: Notified) {
        Handle::schedule_task(self, task, false);
    }

    fn yield_now(&self, task: Notified) {
        Handle::schedule_task(self, task, true);
    }

    fn owned_tasks(&self) -> Option<&OwnedTasks> {
        Some(&self.owned)
    }

    fn watchdog_on(&self) -> bool {
        self.config.local_sets.reports_leaks()
    }

    fn tracks_waits(&self) -> bool {
        self.config.track_waits
    }
}

impl Handle {
    /// Queues a woken task: locally when woken on the `block_on` thread
    /// (a task that yielded goes to the side list, step 3), else in the
    /// injector.
    fn schedule_task(me: &Arc<Self>, task: Notified, is_yield: bool) {
        let task = context::with_scheduler(|cx| match cx {
            Some(scheduler::Context::CurrentThread(cx)) if Arc::ptr_eq(&cx.handle, me) => {
                match cx.core.borrow_mut().as_mut() {
                    Some(core) if is_yield => {
                        core.yielded_by_priority[task.priority().index()] += 1;
                        core.yielded.push(task);
                        None
                    }
                    Some(core) => {
                        core.push(me, task);
                        None
                    }
                    None => Some(task),
                }
            }
            _ => Some(task),
        });
        if let Some(task) = task {
            match task.priority() {
                Priority::Normal => me.inject.push(task),
                priority => {
                    me.queued.add(priority);
                    me.inject_lanes.get(priority).push(task);
                }
            }
            // Pairs with the fence in `shutdown`: either its final drain
            // sees this task or this load sees the runtime terminated.
            fence(Ordering::SeqCst);
            if me.is_terminated.load(Ordering::SeqCst) {
                me.drain_injector();
                return;
            }
            me.unpark_if_parked();
        }
    }
}

impl fmt::Debug for Handle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("current_thread::Handle")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("current_thread::Context")
            .finish_non_exhaustive()
    }
}
