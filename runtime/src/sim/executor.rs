//! The simulation's scheduler: one thread, a ready set drawn from at
//! random, a paused clock that jumps to the next timer when nothing is
//! ready. The run loop is the numbered list in the module docs of
//! `sim/mod.rs`; the nodes (hosts, clients, crashes) are in `nodes.rs`.
//!
//! Two locks, never held across a poll or a user callback, and always
//! taken in the order `state` then `ready`: everything runs on the
//! simulation's thread, so they are never contended, but the handle is
//! `Send + Sync` (a waker or socket may be sent to a real thread and
//! used there, which fails the run: `Handle::outside_thread`).

use crate::blocking::{self, PoolConfig};
use crate::driver::{self, Driver, DriverConfig};
use crate::loom::sync::{Arc, Mutex, MutexGuard};
use crate::runtime::coarse_time::Stamp;
use crate::runtime::context;
use crate::runtime::dump::TaskLabel;
use crate::runtime::metrics::WorkerMetrics;
use crate::scheduler::{self, Config};
use crate::sim::net::{NetConfig, Network};
use crate::sim::nodes::{Node, NodeSpec, Owner};
use crate::sim::outcome::{RunStats, SimError, SimFailure, SimReport};
use crate::sim::rng::{SimRng, TraceEvent, TraceHash};
use crate::task::list::OwnedTasks;
use crate::task::local_set_list::LocalSetList;
use crate::task::{AbortHandle, JoinHandle, Notified, Schedule, TaskMeta};
use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::time::Duration;

/// The simulation's runtime: what `scheduler::Handle::Sim` holds.
pub(crate) struct Handle {
    pub(crate) owned: OwnedTasks,
    pub(crate) config: Config,
    pub(crate) driver: driver::Handle,
    /// Never given work (`spawn_blocking` runs inline); here because the
    /// scheduler handle hands out a spawner for the pool's metrics.
    pub(crate) blocking: blocking::Spawner,
    pub(crate) metrics: WorkerMetrics,
    ready: Mutex<Ready>,
    state: Mutex<State>,
    /// The thread that runs the simulation: a wake or network operation
    /// from any other one fails the run (`SimFailure::OutsideThread`).
    thread: std::thread::ThreadId,
}

/// The tasks that may be polled, in the order they became ready (the
/// RNG picks an index, so the order must be deterministic, and is: every
/// push happens on the simulation's thread in schedule order).
struct Ready {
    tasks: Vec<Notified>,
    /// Set at teardown: later wakes drop their task reference at once.
    closed: bool,
}

pub(super) struct State {
    seed: u64,
    /// Picks the next task (and `select!`'s and `LocalSet`'s choices).
    pub(super) schedule_rng: SimRng,
    /// `random_u64`'s stream: the user's draws do not shift the schedule.
    pub(super) user_rng: SimRng,
    pub(super) trace: TraceHash,
    /// Every task not yet seen finished, by task id (ids are only keys
    /// here; the trace uses `seq`).
    pub(super) tasks: BTreeMap<u64, TaskInfo>,
    next_seq: u64,
    pub(super) nodes: Vec<Node>,
    /// The node of the task being polled: what it spawns belongs there.
    pub(super) current: Option<Owner>,
    /// Tasks a crash cancelled during the current poll: their
    /// cancellation runs right after it (see `nodes.rs`).
    pub(super) doomed: Vec<u64>,
    /// The first failure of a node; ends the run after the current poll.
    pub(super) failure: Option<SimFailure>,
    polls: u64,
    /// The simulated network between the nodes (`sim/net/`).
    pub(super) net: Network,
}

pub(super) struct TaskInfo {
    /// The task's number in spawn order within this run.
    seq: u64,
    pub(super) owner: Option<Owner>,
    pub(super) abort: AbortHandle,
}

/// The run's limits, from the `Sim`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    pub(crate) max_steps: u64,
    pub(crate) max_time: Duration,
}

impl Handle {
    /// A simulation runtime for `seed` with `nodes` (not started yet),
    /// and its driver: the timer wheel with a paused clock, no reactor.
    pub(crate) fn new(seed: u64, nodes: Vec<NodeSpec>, net: NetConfig) -> (Arc<Handle>, Driver) {
        let driver_config = DriverConfig {
            enable_io: false,
            enable_time: true,
            start_paused: true,
            max_io_events_per_tick: None,
            max_io_events_per_busy_tick: None,
        };
        let (driver, driver_handle) = Driver::new(&driver_config, 1)
            .expect("rt::sim: a driver without I/O needs no OS resource");
        let config = Config {
            global_queue_interval: 1,
            tune_global_queue_interval: false,
            event_interval: 1,
            spin_before_park: Duration::ZERO,
            before_park: None,
            after_unpark: None,
            runtime_id: crate::runtime::Id::next(),
            stealable_local_queues: false,
            local_sets: Arc::new(LocalSetList::new(false)),
            block_on_calls: None,
            shutdown_sweep: None,
            track_waits: false,
            name: None,
        };
        let blocking = blocking::Spawner::new(
            PoolConfig {
                max_threads: 1,
                keep_alive: Duration::ZERO,
                spin_before_park: Duration::ZERO,
                report_wait_after: None,
            },
            crate::runtime::Builder::new_current_thread().spawner(),
        );
        let names: Vec<String> = nodes.iter().map(|node| node.name.clone()).collect();
        let state = State {
            net: Network::new(net, SimRng::new(seed, 2), &names),
            seed,
            schedule_rng: SimRng::new(seed, 0),
            user_rng: SimRng::new(seed, 1),
            trace: TraceHash::new(seed),
            tasks: BTreeMap::new(),
            next_seq: 0,
            nodes: nodes.into_iter().map(Node::new).collect(),
            current: None,
            doomed: Vec::new(),
            failure: None,
            polls: 0,
        };
        let handle = Arc::new(Handle {
            owned: OwnedTasks::new(1),
            config,
            driver: driver_handle,
            blocking,
            metrics: WorkerMetrics::default(),
            ready: Mutex::new(Ready {
                tasks: Vec::new(),
                closed: false,
            }),
            state: Mutex::new(state),
            // `Sim::run` builds the runtime on the thread that runs it.
            thread: std::thread::current().id(),
        });
        (handle, driver)
    }

    /// The state, whose lock no one holds across a callback; a panic
    /// under it (none is expected) must not make every later look panic.
    pub(super) fn state(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn ready(&self) -> MutexGuard<'_, Ready> {
        self.ready
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Tasks waiting to be polled.
    pub(crate) fn ready_len(&self) -> usize {
        self.ready().tasks.len()
    }

    /// Runs the simulation on this thread until every client finished, a
    /// node failed or a limit was hit; then tears it down.
    pub(crate) fn run(
        me: &Arc<Handle>,
        driver: Driver,
        limits: Limits,
    ) -> Result<SimReport, SimError> {
        let runtime = scheduler::Handle::Sim(me.clone());
        let _enter = context::enter_runtime(&runtime);
        // A `LocalSet` the caller entered is not the simulation's: hidden,
        // `spawn_local` inside finds no set, as the docs say, instead of
        // queueing on one that never runs.
        let _sets = crate::task::local::HiddenSets::hide();
        // Dropped before `_enter`: the teardown runs inside the
        // simulation, also when a panic unwinds out of the loop.
        let _teardown = Teardown {
            handle: me,
            driver: Some(driver),
        };
        Handle::start_nodes(me);
        me.drive(limits)
    }

    fn drive(&self, limits: Limits) -> Result<SimReport, SimError> {
        let me = self;
        let mut steps = 0u64;
        loop {
            if let Some(outcome) = me.outcome() {
                return outcome;
            }
            if steps == limits.max_steps {
                return Err(me.error(SimFailure::StepLimit {
                    limit: limits.max_steps,
                }));
            }
            steps += 1;
            me.deliver_due();
            match me.pick() {
                Some(task) => me.poll(task),
                None => {
                    let timer = me.time().timer().next_deadline();
                    // Held packets (a partition, a hold) are not in
                    // flight: only a repair or release, by a task, can
                    // move them, so they do not keep a deadlock away.
                    let packet = me.state().net.next_event();
                    let next = match (timer, packet) {
                        (Some(a), Some(b)) => Some(a.min(b)),
                        (a, b) => a.or(b),
                    };
                    let Some(tick) = next else {
                        let waiting = me.state().waiting_clients();
                        return Err(me.error(SimFailure::Deadlock { waiting }));
                    };
                    me.jump_to(tick, limits.max_time)?;
                }
            }
        }
    }

    /// Delivers the packets due by the clock's tick (step 3's network
    /// half, also run before each draw for packets due at once: loopback
    /// ones), then wakes whoever the network released, with no lock held.
    fn deliver_due(&self) {
        let now = self.time().now_tick();
        let woken = {
            let mut state = self.state();
            if state.net.next_event().is_some_and(|due| due <= now) {
                state.net.advance(now);
            }
            std::mem::take(&mut state.net.woken)
        };
        for waker in woken {
            waker.wake();
        }
    }

    /// Runs `op` on the network at the clock's current tick, then wakes
    /// what it released (no lock held then): every network call of the
    /// simulated sockets and faults goes through here.
    pub(crate) fn with_net<R>(&self, op: impl FnOnce(&mut Network, u64) -> R) -> R {
        // A socket moved to a real thread and used there.
        self.check_thread();
        let now = self.time().now_tick();
        let (result, woken) = {
            let mut state = self.state();
            let result = op(&mut state.net, now);
            (result, std::mem::take(&mut state.net.woken))
        };
        for waker in woken {
            waker.wake();
        }
        result
    }

    /// The index of node `name` (a host or a client), for `what`'s panic
    /// message otherwise.
    #[track_caller]
    pub(crate) fn node(&self, name: &str, what: &str) -> usize {
        let found = self.state().node_index(name);
        match found {
            Some(node) => node,
            None => panic!(
                "`rt::sim::{what}`: `{name}` is not a host or client of this simulation \
                 (`Sim::host`, `Sim::client`)"
            ),
        }
    }

    /// The node of the task being polled.
    ///
    /// # Panics
    ///
    /// Panics outside a node's task (a simulation's tasks all have one).
    #[track_caller]
    pub(crate) fn current_node(&self, what: &str) -> usize {
        let owner = self.state().current;
        match owner {
            Some(owner) => owner.node,
            None => panic!("rt::sim: {what} called outside a host's or client's task"),
        }
    }

    pub(super) fn time(&self) -> &driver::time::Handle {
        self.driver
            .time()
            .expect("rt::sim: the simulation's driver has the timer")
    }

    /// Simulated time since the run started.
    fn elapsed(&self) -> Duration {
        self.time().elapsed_since_start()
    }

    /// The simulated clock as the diagnostics' stamps (a task's spawn and
    /// last poll, the dump's now): simulated time since the run started,
    /// so a dump replays with the seed.
    pub(crate) fn stamp(&self) -> Stamp {
        let nanos = self.elapsed().as_nanos();
        Stamp::from_nanos(u64::try_from(nanos).unwrap_or(u64::MAX))
    }

    /// Step 1: a failure, or every client finished.
    fn outcome(&self) -> Option<Result<SimReport, SimError>> {
        let mut state = self.state();
        if let Some(failure) = state.failure.take() {
            drop(state);
            return Some(Err(self.error(failure)));
        }
        if state.nodes.iter().all(Node::is_done) {
            drop(state);
            return Some(Ok(SimReport::new(self.stats())));
        }
        None
    }

    fn stats(&self) -> RunStats {
        let elapsed = self.elapsed();
        let state = self.state();
        RunStats {
            seed: state.seed,
            trace_hash: state.trace.get(),
            elapsed,
            polls: state.polls,
            messages: state.net.delivered,
        }
    }

    fn error(&self, failure: SimFailure) -> SimError {
        let unfinished = self.state().waiting_clients();
        SimError::new(self.stats(), failure, unfinished, self.lost_wakers())
    }

    /// The tasks that returned `Pending` with no waker of them left
    /// (`TaskSnapshot::has_lost_waker`), in id order, each named with its
    /// node and spawn location: nothing could ever wake them, which is
    /// what a deadlock (or a run kept going only by a timer) is made of.
    fn lost_wakers(&self) -> Vec<String> {
        let lost: Vec<(u64, Option<String>)> = {
            let state = self.state();
            state
                .tasks
                .iter()
                .filter(|(_, info)| info.abort.has_lost_waker())
                .map(|(&id, info)| {
                    let node = info.owner.map(|owner| state.nodes[owner.node].name.clone());
                    (id, node)
                })
                .collect()
        };
        lost.into_iter()
            .map(|(id, node)| {
                let mut task = format!("task {id}");
                if let Some(node) = node {
                    task += &format!(" of `{node}`");
                }
                self.owned.with_task(id, |listed| {
                    task += &format!(" (spawned at {})", TaskLabel::of(listed).location);
                });
                task
            })
            .collect()
    }

    /// Step 2's draw: a ready task at random.
    fn pick(&self) -> Option<Notified> {
        let mut state = self.state();
        let mut ready = self.ready();
        if ready.tasks.is_empty() {
            return None;
        }
        let index = state.schedule_rng.below(ready.tasks.len());
        Some(ready.tasks.swap_remove(index))
    }

    /// Step 2's poll, then the cancellations a crash during it asked for.
    fn poll(&self, task: Notified) {
        let id = task.id().as_u64();
        {
            let mut state = self.state();
            let (seq, owner) = state
                .tasks
                .get(&id)
                .map_or((u64::MAX, None), |info| (info.seq, info.owner));
            state.trace.record(TraceEvent::Poll(seq));
            state.polls += 1;
            state.current = owner;
        }
        // For the dump and the metrics, as a worker records them, but on
        // the simulated clock.
        task.record_poll(self.stamp());
        self.metrics.poll_started(id);
        task.run();
        self.metrics.poll_finished();
        let (finished, doomed) = {
            let mut state = self.state();
            state.current = None;
            let finished = match state.tasks.get(&id) {
                Some(info) if info.abort.is_finished() => state.tasks.remove(&id),
                _ => None,
            };
            (finished, std::mem::take(&mut state.doomed))
        };
        // Its last reference may go here: not under the lock.
        drop(finished);
        if !doomed.is_empty() {
            self.cancel_doomed(&doomed);
        }
    }

    /// Polls (so cancels) every ready task in `doomed`: a crash's tasks
    /// were all aborted, which put each idle one in the ready set.
    fn cancel_doomed(&self, doomed: &[u64]) {
        let victims: Vec<Notified> = {
            let mut ready = self.ready();
            let (victims, others) = std::mem::take(&mut ready.tasks)
                .into_iter()
                .partition(|task| doomed.contains(&task.id().as_u64()));
            ready.tasks = others;
            victims
        };
        for task in victims {
            self.poll(task);
        }
    }

    /// Step 3: moves the clock to `tick` and fires what is due.
    fn jump_to(&self, tick: u64, max_time: Duration) -> Result<(), SimError> {
        let time = self.time();
        let target = time.instant_of(tick);
        if time.since_start(target) > max_time {
            return Err(self.error(SimFailure::TimeLimit { limit: max_time }));
        }
        let clock = time.clock();
        clock.advance_by(target.saturating_duration_since(clock.now()));
        self.state().trace.record(TraceEvent::ClockJump(tick));
        time.fire_expired();
        Ok(())
    }

    /// Spawns a task owned by the node being polled (none outside a poll).
    pub(crate) fn spawn<F>(me: &Arc<Handle>, future: F, meta: TaskMeta) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let owner = me.state().current;
        Handle::spawn_owned(me, future, meta, owner)
    }

    /// Spawns a task owned by `owner`. A task spawned for an incarnation
    /// that a crash ended is cancelled right after the current poll.
    pub(super) fn spawn_owned<F>(
        me: &Arc<Handle>,
        future: F,
        mut meta: TaskMeta,
        owner: Option<Owner>,
    ) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let seq = {
            let mut state = me.state();
            state.next_seq += 1;
            state.next_seq - 1
        };
        // The run's own numbering, not the process-wide counter's: ids
        // (in a `JoinError`'s message, say) replay with the seed.
        meta.id = crate::task::Id::simulated(seq);
        let (join, notified) = me.owned.bind_at(future, me.clone(), meta, me.stamp());
        let Some(notified) = notified else {
            // The list is closed (teardown): the task was cancelled.
            return join;
        };
        let id = join.id().as_u64();
        let dead = {
            let mut state = me.state();
            state.tasks.insert(
                id,
                TaskInfo {
                    seq,
                    owner,
                    abort: join.abort_handle(),
                },
            );
            let dead = owner.is_some_and(|owner| !state.is_alive(owner));
            if dead {
                state.doomed.push(id);
            }
            dead
        };
        me.schedule(notified);
        if dead {
            join.abort();
        }
        join
    }

    /// `spawn_blocking` inside a simulation: the closure runs inline, as
    /// the only poll of an ordinary task (no pool thread to race with),
    /// without a budget as on the pool.
    pub(crate) fn spawn_blocking<F, R>(me: &Arc<Handle>, f: F, meta: TaskMeta) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        Handle::spawn(
            me,
            async move { crate::task::coop::without_budget(f) },
            meta,
        )
    }

    fn teardown(&self, driver: &mut Driver) {
        // Every task's future is dropped here, inside the simulation
        // (their destructors may use rt); wakes they cause land in the
        // ready set and are dropped with it.
        self.owned.close_and_shutdown_all();
        // A socket that outlives the run (kept in a `static` or leaked)
        // is closed as by a crash of its host: its operations fail, where
        // they would go into a network nothing drives any more (a send
        // lost without an error, a receive waiting forever, in whatever
        // run uses it next, so that run's result would depend on the
        // runs before it).
        let nodes = self.state().nodes.len();
        self.with_net(|net, now| (0..nodes).for_each(|node| net.crash(node, now)));
        let queued = std::mem::take(&mut self.ready().tasks);
        drop(queued);
        let mut woken = Vec::new();
        driver.shutdown(&self.driver, &mut woken);
        driver::wake_all(&mut woken);
        let queued = {
            let mut ready = self.ready();
            ready.closed = true;
            std::mem::take(&mut ready.tasks)
        };
        drop(queued);
        let tasks = std::mem::take(&mut self.state().tasks);
        drop(tasks);
    }
}

impl State {
    /// `true` while `owner`'s incarnation is the node's live one.
    pub(super) fn is_alive(&self, owner: Owner) -> bool {
        self.nodes[owner.node].is_alive(owner.incarnation)
    }

    /// Adds `event` to the trace hash.
    pub(super) fn record(&mut self, event: TraceEvent) {
        self.trace.record(event);
    }
}

/// Tears the simulation down when the run ends, by a result or a panic.
struct Teardown<'a> {
    handle: &'a Handle,
    driver: Option<Driver>,
}

impl Drop for Teardown<'_> {
    fn drop(&mut self) {
        if let Some(mut driver) = self.driver.take() {
            self.handle.teardown(&mut driver);
        }
    }
}

impl Handle {
    /// Fails the run for a use of it from a thread other than the
    /// simulation's: a wake, abort or spawn of the task with id `task`,
    /// or a socket's or sleep's operation, or an entry (`None`). It came
    /// when the machine's timing let it, so the run's result would depend
    /// on that (accepted, the run finished, or deadlocked first, by
    /// luck). What it did still stands (the task is queued, the packet in
    /// flight); the run ends before its next draw (step 1).
    #[cold]
    fn outside_thread(&self, task: Option<u64>) {
        let thread = this_thread();
        let mut state = self.state();
        let owner = task
            .and_then(|id| state.tasks.get(&id))
            .and_then(|info| info.owner);
        let node = owner.map(|owner| state.nodes[owner.node].name.clone());
        if state.failure.is_none() {
            state.failure = Some(SimFailure::OutsideThread { node, thread });
        }
    }

    /// Fails the run if called from a thread other than the run's (see
    /// `outside_thread`): for what reaches the run's state through a value
    /// that may have been moved there (a socket, a sleep).
    pub(crate) fn check_thread(&self) {
        if std::thread::current().id() != self.thread {
            self.outside_thread(None);
        }
    }

    /// `Handle::enter` of this simulation's handle (`faults::refuse_enter`
    /// says why): on a thread other than the run's, fails the run and
    /// panics naming the fix.
    #[track_caller]
    pub(crate) fn refuse_entry_outside(&self) {
        if std::thread::current().id() == self.thread {
            return;
        }
        self.outside_thread(None);
        panic!(
            "`Handle::enter` of a simulation's handle on thread {}, outside the simulation: \
             rt's API there (timers, `select!`, `rt::sim::random_u64`, faults) would reach the \
             run whenever the machine's timing let it, which a seed cannot replay. Keep the \
             work inside the simulation: a task (`rt::spawn`), or a blocking job \
             (`rt::task::spawn_blocking`, which runs inline)",
            this_thread()
        );
    }
}

/// The calling thread for a message: its name, quoted, or its id.
fn this_thread() -> Box<str> {
    let thread = std::thread::current();
    match thread.name() {
        Some(name) => format!("`{name}`"),
        None => format!("{:?}", thread.id()),
    }
    .into_boxed_str()
}

impl Schedule for Arc<Handle> {
    /// A wake from a real thread is absorbed, with no `schedule`, when the
    /// task is queued or running already; what it announced (a value
    /// sent, a lock freed) is seen at the task's next poll all the same,
    /// whenever the machine's timing let it come: so every wake is
    /// checked, not only those that queue the task.
    const HEARS_WAKES: bool = true;

    fn woken(&self, id: crate::task::Id) {
        if std::thread::current().id() != self.thread {
            self.outside_thread(Some(id.as_u64()));
        }
    }

    fn schedule(&self, task: Notified) {
        // A wake was checked in `woken`; a spawn from a real thread is
        // caught here.
        if std::thread::current().id() != self.thread {
            self.outside_thread(Some(task.id().as_u64()));
        }
        let mut ready = self.ready();
        if ready.closed {
            drop(ready);
            drop(task);
            return;
        }
        ready.tasks.push(task);
    }

    fn owned_tasks(&self) -> Option<&OwnedTasks> {
        Some(&self.owned)
    }
}

/// Runs `f` with the simulation current on this thread, if one is (and
/// not under the context's borrow: `f` may run user code).
pub(crate) fn with_current<R>(f: impl FnOnce(&Arc<Handle>) -> R) -> Option<R> {
    let sim = context::with_current(|handle| match handle {
        scheduler::Handle::Sim(sim) => Some(sim.clone()),
        _ => None,
    })
    .flatten()?;
    Some(f(&sim))
}

impl fmt::Debug for Handle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("sim::Handle").finish_non_exhaustive()
    }
}
