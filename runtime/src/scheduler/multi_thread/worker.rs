//! A worker thread of the multi-thread scheduler.
//!
//! A worker owns a `Core`: its local FIFO deque, a one-task LIFO slot and
//! its parker. It looks for its next task in this order:
//! 1. every `global_queue_interval` ticks, the injector first (so tasks
//!    spawned or woken from outside are not starved by a busy local
//!    queue): a batch, or one task while the worker is overloaded (its
//!    deque overflowed and has not run dry since; see "Bounded deque"
//!    below) and its deque holds `LONG_LOCAL_QUEUE` tasks, or while a
//!    batch would not fit in the deque; unless
//!    the user fixed it, the interval is tuned to about 100 µs of polling
//!    (`scheduler/global_queue_interval.rs`), so a task woken from outside
//!    waits about as long whether the tasks ahead of it poll for 100 ns or
//!    20 µs;
//! 2. the LIFO slot: the task this worker woke most recently (a message
//!    handed to another task is processed while still in cache); at most
//!    `MAX_LIFO_POLLS` in a row, then the slot's task goes to the deque;
//! 3. the local deque;
//! 4. a batch from the injector;
//! 5. the tasks that yielded (`yield_now`, a spent budget, a `LocalSet`
//!    with more to run): they wait in a side list, not the deque, so a
//!    yield lets everything else queued here and in the injector run
//!    first (a task woken while it runs by anything else, another thread
//!    or its own waker, goes to the back of the deque instead, as in
//!    tokio: `requeue_local`); the list also goes back to the
//!    deque every `event_interval` ticks, so yielders are never starved.
//!    Unlike tokio (and rt's current-thread scheduler), the worker does
//!    not poll the driver before each round of yields goes back: measured
//!    on `yield_many` (2 workers), that cost 6-9% more CPU whichever way
//!    the polls were rationed, so I/O and timers wait for the busy-worker
//!    poll below (every `event_interval` ticks) as for any busy worker;
//! 6. as a searcher (at most half the workers at once, see `idle.rs`):
//!    half of a peer's deque, trying each peer once from a random start,
//!    then the injector again;
//! 7. still a searcher, spin for a while, looking at the same queues, if
//!    its recent parks were short and another worker is blocked in the
//!    driver (see `idle_spin.rs`): producers skip the wake-up meanwhile;
//! 8. park (see `idle.rs` for why no wake-up is lost). A worker only gets
//!    here with its yielded list empty (step 5 emptied it), so a yielded
//!    task is never left behind a parked worker.
//!
//! Bounded deque: a task woken, spawned or put back after yielding here
//! while the deque holds `LOCAL_QUEUE_CAPACITY` tasks goes to the injector
//! with the newer half of the deque (`push_back` is the only way in), and a
//! batch from the injector goes only into a deque with room for it (a steal
//! from a peer only into an empty one); while the worker is overloaded,
//! only into the older half (step 1: one task from a deque of
//! `LONG_LOCAL_QUEUE` or more; not so under loom's tiny capacity). Under
//! overload (more ready connections than the workers serve in a few
//! milliseconds) this splits the work in two: the tasks in the bounded
//! deques cycle through them while their data (the task, its socket's
//! kernel state, the peer's) is still in cache, and the overflow waits in
//! the injector, taken one task per interval (step 1) or in batches when a
//! deque runs dry. An unbounded deque served every ready task in turn, so
//! each poll found its data evicted by the thousands polled since: with the
//! hyper hello server at 10,000 connections, the server and the load
//! generator both spent 15-20 % more CPU per request, and requests/s were
//! 0.78x tokio's; bounded, 0.92x, with a p99 still below tokio's (tokio's
//! deque is bounded the same way). The newer half goes, not the older, so
//! that while the worker is overloaded a task taken from the injector runs
//! before an overflow can send it back (a batch taken before the first
//! overflow, while the worker was not overloaded, may still sit in the
//! newer half when it comes): moving the older half sent such a task, which
//! had waited its turn already, back to the injector's tail behind
//! thousands of connections to wait again (at 10,000 connections and a
//! fixed interval of 61 ticks, rt's p99 was 1.7x tokio's at the same
//! interval, and is 1.2x with the newer half moved; tokio moves the newer
//! half for the same reason). The batch of step 1 stays for a worker that
//! has not overflowed: there, yielding tasks may keep the deque from
//! emptying and the batch is the way in for tasks spawned from outside
//! (`spawn_many_remote_busy`); taking one task per turn whenever the deque
//! held 32 or more made `yield_many` (200 yielders on 2 workers) 5 %
//! slower.
//!
//! Every `event_interval` ticks a busy worker polls the driver without
//! blocking, so I/O and timers are not starved by CPU-bound tasks. Both
//! there and when it parks in the driver, the worker's core is installed,
//! so the tasks the driver wakes are queued locally (step 8 then takes the
//! worker off the parked list by itself). The first of them that becomes
//! stealable wakes one peer at once (never the worker itself, which may
//! still be on the parked list), so a turn that fires thousands of timers
//! is shared while it runs, not after. A worker that leaves the driver
//! with a timer due within a few milliseconds and nobody else in it wakes a
//! parked peer to take the driver over, so that timer does not wait on the
//! task this worker runs next, should that task block its thread (see
//! `Handle::hand_off_driver_for_timers`).
//!
//! While a task is polled the core sits in the thread's scheduler
//! `Context`, so wakes from inside the task go straight to the local queue.
//!
//! The LIFO slot and the yielded list are this worker's alone, except
//! with the slow-poll watchdog on: while the watchdog finds the worker
//! stuck in one poll, searchers take from them too (`local_queues.rs`,
//! `Remote::steal_stranded`), so a task that blocks its thread strands
//! none of the work queued behind it.
//!
//! All of the above is for `Normal` tasks. `High` and `Low` tasks wait in
//! lanes of their own (a deque per worker, an injector per priority), and
//! while any is queued the worker chooses by priority first
//! (`scheduler/priority.rs`, and `priority_lanes.rs` here for where a
//! worker looks): a `High` task in any lane, local, global or a peer's,
//! runs before the steps above, a `Low` one after them, and the
//! starvation bound gives the lower priorities their turns. Only `Normal`
//! tasks enter the LIFO slot and the yielded list: a `High` task that
//! yields goes to the back of its lane, still ahead of all lower-priority
//! work, and a `Low` one to the back of its own. While a `High` or `Low`
//! task is queued, the LIFO slot's task is not run straight after the
//! task that woke it but through the order above, so that every poll
//! counts toward the bound. When searching, a worker steals `High` work
//! first, then `Normal`, then `Low`.

mod priority_lanes;

use crate::loom::deque::{MAX_BATCH, Steal, Stealer, Worker as Deque};
use crate::loom::sync::Arc;
use crate::loom::sync::atomic::{AtomicBool, Ordering, fence};
use crate::runtime::builder::run_hook;
use crate::runtime::coarse_time::{self, Stamp};
use crate::runtime::context;
use crate::runtime::metrics::{self, WorkerMetrics};
use crate::scheduler::global_queue_interval::GlobalQueueInterval;
use crate::scheduler::idle_spin::IdleSpin;
use crate::scheduler::multi_thread::handle::Handle;
use crate::scheduler::multi_thread::local_queues::{LifoSlot, YieldedTasks, steal_yielded};
use crate::scheduler::multi_thread::park::{Parker, Unparker};
use crate::scheduler::priority::{Fairness, PriorityLanes};
use crate::scheduler::{self, FastRand};
use crate::task::{Notified, Priority};
use crossbeam_utils::CachePadded;
use std::cell::RefCell;

/// Consecutive LIFO-slot polls before the slot's task must queue normally,
/// so two tasks pinging each other cannot monopolise a worker.
const MAX_LIFO_POLLS: u32 = 3;

/// An overloaded worker's deque this long takes one task, not a batch, on
/// the injector's turn (step 1). Shorter, it takes a batch again: taking
/// one down to an empty deque put a p99 at 10,000 connections 1.5x
/// tokio's, where from 32 it stays below tokio's.
const LONG_LOCAL_QUEUE: usize = 32;

/// Tasks the local deque holds before it overflows into the injector
/// (see "Bounded deque" above). Small under loom, so the models reach the
/// overflow.
#[cfg(not(loom))]
const LOCAL_QUEUE_CAPACITY: usize = 256;
#[cfg(loom)]
const LOCAL_QUEUE_CAPACITY: usize = 4;

/// The parts of a worker reachable from other threads.
#[derive(Debug)]
pub(crate) struct Remote {
    pub(crate) stealer: Stealer<Notified>,
    /// Steal ends of the worker's `High` and `Low` lanes.
    pub(crate) lanes: PriorityLanes<Stealer<Notified>>,
    pub(crate) unpark: Unparker,
    /// The LIFO slot when the watchdog is on (else it is `Core::lifo`),
    /// in a cache line of its own: the owner writes it on every wake,
    /// searchers read the fields above.
    pub(crate) lifo: CachePadded<LifoSlot>,
    /// The yielded list's stealer, when the watchdog is on.
    pub(crate) yielded: Option<Stealer<Notified>>,
    /// Set by the watchdog while this worker is stuck in one poll: then
    /// searchers take from its LIFO slot and yielded list too.
    pub(crate) stalled: AtomicBool,
}

impl Remote {
    pub(crate) fn new(
        stealer: Stealer<Notified>,
        lanes: PriorityLanes<Stealer<Notified>>,
        unpark: Unparker,
        yielded: Option<Stealer<Notified>>,
    ) -> Remote {
        Remote {
            stealer,
            lanes,
            unpark,
            lifo: CachePadded::new(LifoSlot::new()),
            yielded,
            stalled: AtomicBool::new(false),
        }
    }

    /// `true` if the worker is stuck and work waits in its LIFO slot or
    /// yielded list, where only the stall lets others take it.
    pub(crate) fn has_stranded_work(&self) -> bool {
        self.stalled.load(Ordering::Relaxed)
            && (self.lifo.is_occupied() || self.yielded.as_ref().is_some_and(|y| !y.is_empty()))
    }

    /// Takes work from a stuck worker's LIFO slot or yielded list.
    fn steal_stranded(&self, dest: &Deque<Notified>) -> Option<Notified> {
        if !self.stalled.load(Ordering::Relaxed) {
            return None;
        }
        self.lifo.steal().or_else(|| {
            self.yielded
                .as_ref()
                .and_then(|yielded| steal_yielded(yielded, dest))
        })
    }
}

/// What a worker owns while it runs.
#[derive(Debug)]
pub(crate) struct Core {
    index: usize,
    tick: u32,
    /// Ticks between looks at the injectors ahead of the local queues.
    global_queue_interval: GlobalQueueInterval,
    /// The LIFO slot while it is private (the watchdog off); with the
    /// watchdog on, `Remote::lifo` is used instead.
    lifo: Option<Notified>,
    stealable_lifo: bool,
    run_queue: Deque<Notified>,
    /// Tasks that yielded, oldest first; see step 5 above.
    yielded: YieldedTasks,
    /// The `High` and `Low` tasks queued here.
    lanes: PriorityLanes<Deque<Notified>>,
    /// How long lower-priority tasks have waited here.
    fairness: Fairness,
    is_searching: bool,
    is_shutdown: bool,
    park: Option<Parker>,
    /// A peer was woken for the work queued during this driver turn, or
    /// need not be: the turn's I/O wakes are being queued, and the worker
    /// wakes one once it is done (see `Context::wake_io`).
    notified_in_driver: bool,
    rand: FastRand,
    /// When the worker last woke (for the busy-time metric).
    busy_since: Stamp,
    /// This worker's cached clock, for the tasks' poll times: refreshed
    /// at each maintenance tick and wake-up.
    now: Stamp,
    /// The deque overflowed and has not run dry since: the injector holds
    /// this worker's overflow (see "Bounded deque" above).
    overloaded: bool,
}

/// The scheduler context of a worker thread.
#[derive(Debug)]
pub(crate) struct Context {
    pub(crate) handle: Arc<Handle>,
    /// The counters of the core this thread runs (it keeps that core for
    /// life: a thread that hands its core off leaves the worker loop).
    metrics: Arc<CachePadded<WorkerMetrics>>,
    pub(crate) core: RefCell<Option<Box<Core>>>,
    /// How long to spin before parking; see `Core::spin_for_work`.
    pub(crate) spin: IdleSpin,
    /// This thread's index among the runtime's worker threads
    /// (`worker_threads.rs`); `None` on a pool thread running a core
    /// handed off to it.
    pub(crate) worker_thread: Option<usize>,
}

impl Core {
    pub(crate) fn new(
        index: usize,
        run_queue: Deque<Notified>,
        lanes: PriorityLanes<Deque<Notified>>,
        yielded: YieldedTasks,
        park: Parker,
        config: &scheduler::Config,
    ) -> Box<Core> {
        Box::new(Core {
            index,
            tick: 0,
            global_queue_interval: GlobalQueueInterval::new(
                config.global_queue_interval,
                config.tune_global_queue_interval,
                coarse_time::now(),
            ),
            lifo: None,
            stealable_lifo: config.stealable_local_queues,
            run_queue,
            yielded,
            lanes,
            fairness: Fairness::default(),
            is_searching: false,
            is_shutdown: false,
            park: Some(park),
            notified_in_driver: false,
            rand: FastRand::new(
                0x9E37_79B9_7F4A_7C15 ^ (index as u64 + 1).wrapping_mul(0xBF58_476D_1CE4_E5B9),
            ),
            busy_since: coarse_time::now(),
            now: coarse_time::now(),
            overloaded: false,
        })
    }

    /// Puts `task` in the LIFO slot; returns the task it displaced.
    #[inline]
    fn lifo_push(&mut self, handle: &Handle, task: Notified) -> Option<Notified> {
        if self.stealable_lifo {
            return self.shared_lifo_push(handle, task);
        }
        self.lifo.replace(task)
    }

    #[inline]
    fn lifo_pop(&mut self, handle: &Handle) -> Option<Notified> {
        if self.stealable_lifo {
            return self.shared_lifo_pop(handle);
        }
        self.lifo.take()
    }

    // The stealable slot out of line: the watchdog is off by default.
    #[cold]
    fn shared_lifo_push(&self, handle: &Handle, task: Notified) -> Option<Notified> {
        handle.shared.remotes[self.index].lifo.push(task)
    }

    #[cold]
    fn shared_lifo_pop(&self, handle: &Handle) -> Option<Notified> {
        handle.shared.remotes[self.index].lifo.pop()
    }

    fn has_local_work(&self, handle: &Handle) -> bool {
        self.has_local_normal_work(handle) || self.lanes.any(|lane| !lane.is_empty())
    }

    fn has_local_normal_work(&self, handle: &Handle) -> bool {
        let lifo = if self.stealable_lifo {
            handle.shared.remotes[self.index].lifo.is_occupied()
        } else {
            self.lifo.is_some()
        };
        lifo || !self.run_queue.is_empty() || !self.yielded.is_empty()
    }

    #[inline]
    fn next_task(&mut self, handle: &Handle) -> Option<Notified> {
        if handle.shared.queued.any() {
            return self.next_task_by_priority(handle);
        }
        self.next_normal_task(handle)
    }

    /// Steps 1-5 of the module docs. Inlined into the worker loop, as it
    /// was before priorities (a call here costs the all-`Normal` path).
    #[inline(always)]
    fn next_normal_task(&mut self, handle: &Handle) -> Option<Notified> {
        let shared = &handle.shared;
        // Emptiness first: two loads, where a steal from an empty injector
        // costs a fence, and with a tuned interval this runs every few
        // ticks.
        if self.global_queue_interval.is_turn(self.tick) && !shared.inject.is_empty() {
            let len = self.run_queue.len();
            if (self.overloaded && len >= LONG_LOCAL_QUEUE)
                || len + MAX_BATCH > LOCAL_QUEUE_CAPACITY
            {
                // The injector holds this deque's overflow, the coldest
                // work; one task keeps it moving. (And a batch must fit;
                // while overloaded, it lands in the older half, which an
                // overflow keeps.)
                if let Some(task) = shared.inject.steal().success() {
                    return Some(task);
                }
            } else if let Some(task) = shared.inject.steal_batch_and_pop(&self.run_queue).success()
            {
                // A batch, not one task: when yielding tasks keep the
                // short deque from ever emptying, this is the only way in
                // for tasks spawned from outside, and one per interval
                // starves them.
                return Some(task);
            }
        }
        if let Some(task) = self.lifo_pop(handle) {
            metrics::add(&shared.metrics[self.index].lifo_hits, 1);
            return Some(task);
        }
        if let Some(task) = self.run_queue.pop() {
            return Some(task);
        }
        self.overloaded = false;
        // Emptiness first, as above: a worker about to park comes here
        // every time, and a steal from an empty injector costs a fence.
        while !shared.inject.is_empty() {
            match shared.inject.steal_batch_and_pop(&self.run_queue) {
                Steal::Success(task) => return Some(task),
                Steal::Empty => break,
                Steal::Retry => continue,
            }
        }
        self.requeue_yielded(handle);
        self.run_queue.pop()
    }

    /// Before this worker blocks with its core (a `block_in_place` whose
    /// hand-off thread the OS refused): moves the LIFO slot's task and the
    /// yielded ones to the back of the deque, where peers steal them, and
    /// wakes a peer to come and look.
    pub(crate) fn make_all_stealable(&mut self, handle: &Handle) {
        if let Some(task) = self.lifo_pop(handle) {
            self.push_back(handle, task);
        }
        self.requeue_yielded(handle);
        if self.has_local_work(handle) {
            handle.notify_parked();
        }
    }

    /// Moves the yielded tasks to the back of the deque, where peers can
    /// steal them too.
    fn requeue_yielded(&mut self, handle: &Handle) {
        if self.yielded.is_empty() {
            return;
        }
        let Core {
            index,
            run_queue,
            yielded,
            overloaded,
            ..
        } = self;
        // Mostly they fit: one room check for the round, not one per task
        // (`yield_many` executed 1-2 % more instructions with a check per
        // task).
        let moved = if yielded.len() <= LOCAL_QUEUE_CAPACITY.saturating_sub(run_queue.len()) {
            yielded.drain(|task| run_queue.push(task))
        } else {
            yielded.drain(|task| push_back(handle, *index, run_queue, overloaded, task))
        };
        if moved > 1 {
            // Work is stealable now: let an idle worker come and take it.
            handle.notify_parked();
        }
    }

    fn steal_work(&mut self, handle: &Handle) -> Option<Notified> {
        let shared = &handle.shared;
        if !self.is_searching {
            self.is_searching = shared.idle.transition_worker_to_searching();
            if !self.is_searching {
                return None;
            }
        }
        if shared.queued.get(Priority::High) != 0 {
            if let Some(task) = self.steal_lane(handle, Priority::High) {
                return Some(task);
            }
        }
        if let Some(task) = self.steal_normal(handle) {
            return Some(task);
        }
        if shared.queued.get(Priority::Low) != 0 {
            return self.steal_lane(handle, Priority::Low);
        }
        None
    }

    /// Half of a peer's `Normal` deque (or, from a stuck peer, its LIFO
    /// slot or yielded tasks), trying each peer once from a random start,
    /// then the injector.
    fn steal_normal(&mut self, handle: &Handle) -> Option<Notified> {
        let shared = &handle.shared;
        loop {
            let (task, mut retry) = steal_from_peers(
                handle,
                self.index,
                &mut self.rand,
                &self.run_queue,
                |remote| &remote.stealer,
                true,
            );
            if task.is_some() {
                return task;
            }
            if !shared.inject.is_empty() {
                match shared.inject.steal_batch_and_pop(&self.run_queue) {
                    Steal::Success(task) => return Some(task),
                    Steal::Retry => retry = true,
                    Steal::Empty => {}
                }
            }
            if !retry {
                return None;
            }
        }
    }

    /// A searcher that found nothing keeps looking for a while before it
    /// parks (see `idle_spin`): while it counts as searching, producers
    /// skip the wake-up, and it picks their tasks up within a fraction of
    /// a microsecond. A worker refused the searcher role parks at once,
    /// and so does one that would leave nobody blocked in the driver (its
    /// I/O and timer events would wait for the spin to end).
    fn spin_for_work(&mut self, handle: &Handle, spin: &IdleSpin) -> Option<Notified> {
        // Checked before the spin too: stopping because nobody is in the
        // driver is not a spin that found work, and must not reset the
        // spin's back-off as one.
        if !self.is_searching || !handle.shared.park.driver_watched() {
            return None;
        }
        spin.spin(|| {
            if !handle.shared.park.driver_watched() {
                return Some(None);
            }
            if handle.has_stealable_work() {
                self.steal_work(handle).map(Some)
            } else {
                None
            }
        })
        .flatten()
    }

    fn transition_from_searching(&mut self, handle: &Handle) {
        if !self.is_searching {
            return;
        }
        self.is_searching = false;
        if handle.shared.idle.transition_worker_from_searching() {
            // The searcher's half of the Dekker pair on `driver_watched`
            // (see `park::Inner::park_driver`): the decrement above, this
            // fence, then the flag read below.
            fence(Ordering::SeqCst);
            if handle.shared.park.driver_watched() {
                // Only for work already left behind: a task pushed from now
                // on sees no searcher and wakes a worker itself. Waking one
                // just in case would put a futex wake-up (several
                // microseconds on a virtual machine) in front of the task
                // this worker just found.
                handle.notify_if_work_pending();
            } else {
                // Nobody watches I/O and timers (this worker may have just
                // left the driver): a sleeping worker must come and park
                // in it, or they wait on this worker's tasks.
                handle.notify_parked();
            }
        }
    }

    /// Returns `false` if the worker must not park after all (it has work).
    fn transition_to_parked(&mut self, handle: &Handle) -> bool {
        if self.has_local_work(handle) || self.is_shutdown {
            return false;
        }
        handle
            .shared
            .idle
            .transition_worker_to_parked(self.index, self.is_searching);
        self.is_searching = false;
        // Searching or not, a producer may have skipped its wake-up because
        // it saw this worker awake: re-check now that it counts as parked.
        handle.notify_if_work_pending();
        true
    }

    /// After a wake-up: `true` if the worker should run again.
    fn transition_from_parked(&mut self, handle: &Handle) -> bool {
        if self.has_local_work(handle) {
            // The driver, parked in by this worker, queued work here: run it.
            if !handle.shared.idle.unpark_worker_by_id(self.index) {
                // A notifier (maybe this worker's own wake of a second
                // task) already took it off the list, counted as searching.
                self.is_searching = true;
            }
            return true;
        }
        if handle.shared.idle.is_parked(self.index) {
            return false;
        }
        // A notifier took us off the list and counted us as searching.
        self.is_searching = true;
        true
    }

    fn push_local(&mut self, handle: &Handle, task: Notified, is_yield: bool) {
        let priority = task.priority();
        if priority != Priority::Normal {
            self.push_lane(handle, task, priority, is_yield);
        } else if is_yield {
            // This worker is awake and runs it at step 5 at the latest:
            // nobody needs waking for it.
            self.yielded.push(task);
        } else if let Some(prev) = self.lifo_push(handle, task) {
            self.push_back(handle, prev);
            self.notify_stealable(handle);
        }
    }

    /// The only way into the back of the deque, so that it stays bounded
    /// (see "Bounded deque" above).
    #[inline]
    fn push_back(&mut self, handle: &Handle, task: Notified) {
        push_back(
            handle,
            self.index,
            &self.run_queue,
            &mut self.overloaded,
            task,
        );
    }

    /// Work is stealable now: let an idle worker come and take it.
    #[inline]
    fn notify_stealable(&mut self, handle: &Handle) {
        if self.park.is_some() {
            handle.notify_parked();
        } else if !self.notified_in_driver {
            // In the driver (its parker taken), wakes come in batches:
            // one peer is enough, and it comes now, to steal while
            // this worker goes on firing (thousands of timers take a
            // millisecond). This worker may still count as parked: it
            // must not pick itself.
            self.notified_in_driver = true;
            handle.notify_parked_except(self.index);
        }
    }

    /// After a turn of the driver: if it queued stealable work here, let
    /// an idle worker come and take it.
    fn notify_after_driver(&self, handle: &Handle) {
        if !self.run_queue.is_empty() {
            handle.notify_parked();
        }
    }

    fn check_shutdown(&mut self, handle: &Handle) {
        if !self.is_shutdown {
            self.is_shutdown = handle.shared.is_shutdown.load(Ordering::Acquire);
        }
    }

    /// Drops every task still queued here (they stay in the owned list and
    /// are cancelled by the shutdown sweep).
    fn drain(&mut self, handle: &Handle) {
        drop(self.lifo_pop(handle));
        self.yielded.clear();
        while let Some(task) = self.run_queue.pop() {
            drop(task);
        }
        for lane in [&self.lanes.high, &self.lanes.low] {
            while let Some(task) = lane.pop() {
                drop(task);
            }
        }
    }
}

/// Half of one queue of a peer (`queue_of` picks which), trying each
/// peer but `me` once from a random start; from a peer the watchdog found
/// stuck, also its LIFO slot or yielded tasks when `stranded_too`. Counts
/// the steal in `me`'s metrics. The flag says a steal lost a race: trying
/// again may find work.
fn steal_from_peers(
    handle: &Handle,
    me: usize,
    rand: &mut FastRand,
    dest: &Deque<Notified>,
    queue_of: impl Fn(&Remote) -> &Stealer<Notified>,
    stranded_too: bool,
) -> (Option<Notified>, bool) {
    let shared = &handle.shared;
    let count = shared.remotes.len();
    let start = rand.below(count);
    let mut retry = false;
    for offset in 0..count {
        let victim = (start + offset) % count;
        if victim == me {
            continue;
        }
        let remote = &shared.remotes[victim];
        let queued_before = dest.len();
        let queue = queue_of(remote);
        // Emptiness first: a batch steal pins crossbeam's epoch before it
        // looks, and a worker with nothing left tries every peer before it
        // parks (with one connection, once per request).
        let outcome = if queue.is_empty() {
            Steal::Empty
        } else {
            queue.steal_batch_and_pop(dest)
        };
        let stolen = match outcome {
            Steal::Success(task) => Some(task),
            Steal::Retry => {
                retry = true;
                None
            }
            Steal::Empty if stranded_too => remote.steal_stranded(dest),
            Steal::Empty => None,
        };
        if let Some(task) = stolen {
            let moved = dest.len().saturating_sub(queued_before);
            let metrics = &shared.metrics[me];
            metrics::add(&metrics.steal_operations, 1);
            metrics::add(&metrics.steal_tasks, 1 + moved as u64);
            return (Some(task), retry);
        }
    }
    (None, retry)
}

/// The body of a worker thread. Returns `true` if the loop finished with
/// the core (the caller then counts the core's exit, see `ExitCount`), or
/// `false` if `block_in_place` handed the core to another thread, which
/// counts it instead.
pub(crate) fn run(handle: Arc<Handle>, core: Box<Core>, worker_thread: Option<usize>) -> bool {
    let index = core.index;
    context::set_timer_shard(index);
    let scheduler_handle = scheduler::Handle::MultiThread(handle.clone());
    let _enter = context::enter_runtime(&scheduler_handle);
    let spin = IdleSpin::new(handle.shared.config.spin_before_park);
    let metrics = handle.shared.metrics[index].clone();
    let cx = scheduler::Context::MultiThread(Context {
        handle,
        metrics,
        core: RefCell::new(None),
        spin,
        worker_thread,
    });
    context::set_scheduler(&cx, || {
        let scheduler::Context::MultiThread(cx) = &cx else {
            unreachable!()
        };
        match cx.run(core) {
            Some(mut core) => {
                // The busy time since the last park or maintenance tick.
                cx.metrics.was_busy(core.busy_since, coarse_time::refresh());
                core.drain(&cx.handle);
                cx.handle.shared.idle.unpark_worker_by_id(index);
                true
            }
            None => false,
        }
    })
}

/// Pushes `task` to the back of worker `index`'s deque; a full deque
/// overflows: its newer half and `task` go to the injector (see "Bounded
/// deque" above), and whoever is notified for them finds them there as
/// it would here. A free function so that `requeue_yielded` can call it
/// while it drains the yielded list, another field of the core.
#[inline]
fn push_back(
    handle: &Handle,
    index: usize,
    run_queue: &Deque<Notified>,
    overloaded: &mut bool,
    task: Notified,
) {
    if run_queue.len() < LOCAL_QUEUE_CAPACITY {
        run_queue.push(task);
    } else {
        overflow(handle, index, run_queue, overloaded, task);
    }
}

#[cold]
fn overflow(
    handle: &Handle,
    index: usize,
    run_queue: &Deque<Notified>,
    overloaded: &mut bool,
    task: Notified,
) {
    let inject = &handle.shared.inject;
    // The deque pops from the front only: the older half goes around to
    // the back, behind the newer half, which then comes off the front, in
    // order, until half the capacity is left. A peer stealing meanwhile
    // takes from the front too: what it takes leaves fewer to move, and
    // the older half still stays (counting the moves instead would send
    // that many of the oldest tasks to the injector). Nothing is lost.
    for _ in 0..LOCAL_QUEUE_CAPACITY / 2 {
        match run_queue.pop() {
            Some(older) => run_queue.push(older),
            None => break,
        }
    }
    while run_queue.len() > LOCAL_QUEUE_CAPACITY / 2 {
        match run_queue.pop() {
            Some(newer) => inject.push(newer),
            None => break,
        }
    }
    inject.push(task);
    *overloaded = true;
    metrics::add(&handle.shared.metrics[index].overflows, 1);
}

impl Context {
    fn run(&self, mut core: Box<Core>) -> Option<Box<Core>> {
        let handle = &*self.handle;
        loop {
            core.check_shutdown(handle);
            if core.is_shutdown {
                return Some(core);
            }
            core.tick = core.tick.wrapping_add(1);
            if core.tick % handle.shared.config.event_interval == 0 {
                core = self.maintenance(core);
            }
            if let Some(task) = core.next_task(handle) {
                core = self.run_task(task, core)?;
                continue;
            }
            core.global_queue_interval.went_idle();
            if let Some(task) = core.steal_work(handle) {
                core = self.run_task(task, core)?;
                continue;
            }
            if let Some(task) = core.spin_for_work(handle, &self.spin) {
                core = self.run_task(task, core)?;
                continue;
            }
            core = self.park(core);
        }
    }

    fn run_task(&self, task: Notified, mut core: Box<Core>) -> Option<Box<Core>> {
        let handle = &*self.handle;
        core.transition_from_searching(handle);
        let metrics = &*self.metrics;
        let now = core.now;
        *self.core.borrow_mut() = Some(core);
        poll(metrics, task, now);
        let mut lifo_polls = 0;
        loop {
            // `None`: the core was handed to another thread (block_in_place),
            // whose worker loop owns the metrics from now on.
            let mut core = self.core.borrow_mut().take()?;
            metrics.poll_finished();
            // Only the watchdog (on when the slot is stealable) sets the
            // flag: with it off, this costs no more than the slot's branch.
            if core.stealable_lifo && metrics.take_clock_behind() {
                core.now = coarse_time::refresh();
            }
            let Some(task) = core.lifo_pop(handle) else {
                return Some(core);
            };
            if handle.shared.queued.any() {
                // With `High` or `Low` work queued, the slot's task waits
                // its turn in `next_task_by_priority` (see the module
                // docs). The slot was just emptied, and only its owner
                // fills it, so the task goes back where it was.
                if let Some(displaced) = core.lifo_push(handle, task) {
                    core.push_back(handle, displaced);
                }
                return Some(core);
            }
            if lifo_polls >= MAX_LIFO_POLLS {
                core.push_back(handle, task);
                handle.notify_parked();
                return Some(core);
            }
            lifo_polls += 1;
            metrics::add(&metrics.lifo_hits, 1);
            let now = core.now;
            *self.core.borrow_mut() = Some(core);
            poll(metrics, task, now);
        }
    }

    fn maintenance(&self, mut core: Box<Core>) -> Box<Core> {
        // Every fourth tick: a clock read costs as much as a poll.
        if core.tick % (4 * self.handle.shared.config.event_interval) == 0 {
            core.now = coarse_time::refresh();
            // Busy time so far, as tokio adds it at its maintenance: a
            // worker that never runs out of work never parks, and would
            // otherwise never show it.
            self.metrics.was_busy(core.busy_since, core.now);
            core.busy_since = core.now;
            let tick = core.tick;
            core.global_queue_interval.retune(core.now, tick);
        }
        core.requeue_yielded(&self.handle);
        let mut park = core.park.take().expect("core has a parker");
        let mut polled = false;
        core = self.enter_driver(core, || {
            polled = park.poll_driver();
            self.wake_io(&mut park);
        });
        core.park = Some(park);
        core.notify_after_driver(&self.handle);
        if polled {
            // A worker parking during the poll sleeps on its condvar.
            self.handle.hand_off_driver_for_timers();
        }
        core
    }

    /// Runs `f` (which may wake tasks) with the core installed, so those
    /// wakes land in the local queue.
    fn enter_driver(&self, mut core: Box<Core>, f: impl FnOnce()) -> Box<Core> {
        core.notified_in_driver = false;
        *self.core.borrow_mut() = Some(core);
        f();
        self.core
            .borrow_mut()
            .take()
            .expect("the driver does not take the core")
    }

    /// Queues the tasks of a driver turn's I/O wakers here (the core is
    /// installed). Unlike timers, which fire while the driver lock is held
    /// and may take a millisecond, these are only pushed, and the worker
    /// wakes a peer for them afterwards, once it counts itself as awake
    /// (`notify_after_driver`). Waking one at the second push, while this
    /// worker still counted as parked, made the peer, finding work as the
    /// last searcher, see a parked worker and "wake" this one (which then
    /// counted as searching): with the hyper hello server at 50
    /// connections, rt's workers then parked and blocked in the driver
    /// for single events about twice as often per request as tokio's.
    fn wake_io(&self, park: &mut Parker) {
        if let Some(core) = self.core.borrow_mut().as_mut() {
            core.notified_in_driver = true;
        }
        park.wake_io();
    }

    fn park(&self, mut core: Box<Core>) -> Box<Core> {
        let handle = &*self.handle;
        run_hook(handle.shared.config.before_park.as_ref());
        if core.transition_to_parked(handle) {
            let metrics = &*self.metrics;
            // One clock read each side of the sleep, for the metrics and
            // the spin's sleep length both.
            let asleep_since = coarse_time::refresh();
            metrics.parked(core.busy_since, asleep_since);
            coarse_time::mark_stale();
            let mut park = core.park.take().expect("core has a parker");
            let mut left_driver = false;
            loop {
                // With the core installed, what the driver wakes (I/O,
                // timers) lands in this worker's queues, and this worker
                // runs it next: no trip through the injector, and no
                // other worker woken to take it.
                core = self.enter_driver(core, || {
                    left_driver = park.park();
                    self.wake_io(&mut park);
                });
                core.check_shutdown(handle);
                if core.is_shutdown {
                    break;
                }
                if core.transition_from_parked(handle) {
                    break;
                }
            }
            core.park = Some(park);
            metrics::add(&metrics.unparks, 1);
            core.busy_since = coarse_time::refresh();
            core.now = core.busy_since;
            self.spin.slept_for(asleep_since.until(core.busy_since));
            core.notify_after_driver(handle);
            // A searcher wakes a peer for the driver anyway, once it finds
            // work (`transition_from_searching`).
            if left_driver && !core.is_shutdown && !core.is_searching {
                handle.hand_off_driver_for_timers();
            }
        }
        run_hook(handle.shared.config.after_unpark.as_ref());
        core
    }

    /// A task on this thread spent its budget and was made to yield.
    pub(crate) fn budget_forced_yield(&self) {
        // Only while this thread runs the core: after a hand-off another
        // thread writes the counters.
        if self.core.try_borrow().is_ok_and(|core| core.is_some()) {
            metrics::add(&self.metrics.budget_forced_yields, 1);
        }
    }

    /// The index of the core this thread runs, `None` while it has none
    /// (between polls in the worker loop, or after `block_in_place`
    /// handed it to another thread).
    pub(crate) fn worker_index(&self) -> Option<usize> {
        let core = self.core.try_borrow().ok()?;
        core.as_ref().map(|core| core.index)
    }

    /// Clears the poll in progress from the metrics before the core moves
    /// to another thread (`block_in_place`): this thread blocks on
    /// purpose, and writes no counter of the core once it is gone.
    pub(crate) fn poll_handed_off(&self) {
        self.metrics.poll_finished();
    }

    /// Queues a task woken while this worker polled it, other than by a
    /// yield: at the back of the deque (its lane), as tokio queues every
    /// task woken while it runs. Not behind the yielders, whose list also
    /// waits for the injector; not in the LIFO slot, from where a task
    /// that awaits work finishing on another worker would be polled again
    /// ahead of this worker's own work, only to wait again. This worker
    /// is awake and gets to it: nobody is woken.
    pub(crate) fn requeue_local(&self, task: Notified) -> Result<(), Notified> {
        match self.core.borrow_mut().as_mut() {
            Some(core) => {
                match task.priority() {
                    Priority::Normal => core.push_back(&self.handle, task),
                    // As a yield as far as waking goes: nobody is notified.
                    priority => core.push_lane(&self.handle, task, priority, true),
                }
                Ok(())
            }
            None => Err(task),
        }
    }

    /// Queues a task woken on this worker's thread.
    pub(crate) fn schedule_local(&self, task: Notified, is_yield: bool) -> Result<(), Notified> {
        match self.core.borrow_mut().as_mut() {
            Some(core) => {
                core.push_local(&self.handle, task, is_yield);
                Ok(())
            }
            None => Err(task),
        }
    }
}

/// Polls `task`, telling the worker's counters and the task's own (the
/// end of the poll is recorded by the caller, once it knows the core is
/// still here).
#[inline]
fn poll(metrics: &WorkerMetrics, task: Notified, now: Stamp) {
    task.record_poll(now);
    metrics.poll_started(task.id().as_u64());
    task.run();
}
