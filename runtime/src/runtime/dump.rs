//! `Handle::dump`: every live task of a runtime, as data and as a table,
//! including the finished ones whose `JoinHandle` has not taken the output
//! (they stay in the owned list until it does: see `task/list.rs`).
//!
//! Taking a dump:
//! 1. read which task each worker is polling (the per-worker counters);
//! 2. walk the owned-task list one shard at a time, copying each task's id,
//!    name, location, state word and poll statistics under that shard's
//!    lock (so a task cannot complete and be freed while it is read);
//! 3. the same for each `LocalSet` driven on the runtime, from a copy of
//!    the runtime's list of them (`task/local_set_list.rs`): a set's tasks
//!    are `!Send` and run on the set's thread, but the dump reads only what
//!    step 2 reads (the list entry and the header's atomics) under the
//!    set's own shard locks, never a future, so it is as safe from any
//!    thread as for the runtime's tasks; each is marked with its set;
//! 4. sort, longest idle first, outside every lock.
//!
//! No worker is stopped: a shard's lock only delays the spawns and
//! completions that hash to it, for as long as copying its tasks takes.
//! So the dump is not one instant's picture: each shard is copied at its
//! own moment, and a task spawned or finished during the walk may be
//! listed or not (none is listed twice).
//! Nothing in it waits on a worker, so a task may take a dump of its own
//! runtime (it finds itself running).

use crate::runtime::coarse_time::{self, Stamp};
use crate::scheduler;
use crate::task::Id;
use crate::task::list::{ListedTask, OwnedTasks};
use crate::task::local;
use crate::task::waits::MAX_WAITS;
use crate::task::{LockHolder, WaitSite};
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::panic::Location;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread::ThreadId;
use std::time::Duration;

/// A snapshot of every live task of a runtime, taken by
/// [`Handle::dump`](crate::runtime::Handle::dump).
///
/// The entries are sorted longest idle first (the time since their last
/// poll, or since their spawn if never polled): a task stuck waiting comes
/// before the ones that keep running. Iterate over them as
/// [`TaskSnapshot`]s, or print the dump for a table.
///
/// The tasks of every [`LocalSet`](crate::task::LocalSet) alive and
/// driven on the runtime (or entered under it) are listed too, each
/// marked with its set and the set's thread
/// ([`TaskSnapshot::local_set`]).
///
/// # Examples
///
/// ```
/// let rt = rt::runtime::Runtime::new().unwrap();
/// let (tx, rx) = futures_channel::oneshot::channel::<()>();
/// let waiting = rt::task::Builder::new()
///     .name("waits for tx")
///     .spawn_on(async move { rx.await.ok() }, rt.handle())
///     .unwrap();
/// let dump = rt.handle().dump();
/// let task = dump.iter().find(|t| t.id() == waiting.id()).unwrap();
/// assert_eq!(task.name(), Some("waits for tx"));
/// println!("{dump}");
/// tx.send(()).unwrap();
/// rt.block_on(waiting).unwrap();
/// ```
#[derive(Debug, Clone)]
pub struct TaskDump {
    tasks: Vec<TaskSnapshot>,
}

/// One task in a [`TaskDump`].
///
/// # Examples
///
/// ```
/// let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
/// let task = rt.spawn(std::future::pending::<()>());
/// let dump = rt.handle().dump();
/// let snapshot = &dump.tasks()[0];
/// assert_eq!(snapshot.id(), task.id());
/// assert_eq!(snapshot.state(), rt::runtime::TaskState::Scheduled);
/// assert_eq!(snapshot.polls(), 0);
/// assert_eq!(snapshot.location().file(), file!());
/// ```
#[derive(Debug, Clone)]
pub struct TaskSnapshot {
    label: TaskLabel,
    local_set: Option<LocalSetLabel>,
    state: TaskState,
    polls: u64,
    since_spawn: Duration,
    since_last_poll: Option<Duration>,
    waits: Vec<WaitSite>,
    has_extra: bool,
    lost_waker: bool,
}

/// What a task was doing when a [`TaskDump`] was taken.
///
/// # Examples
///
/// ```
/// use rt::runtime::TaskState;
///
/// let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
/// let (tx, rx) = futures_channel::oneshot::channel::<()>();
/// let task = rt.spawn(async move { rx.await.ok() });
/// let state = |rt: &rt::runtime::Runtime| rt.handle().dump().tasks()[0].state();
/// assert_eq!(state(&rt), TaskState::Scheduled);
/// rt.block_on(rt::task::yield_now()); // the task runs, then waits on `rx`
/// assert_eq!(state(&rt), TaskState::Idle);
/// tx.send(()).unwrap();
/// assert_eq!(state(&rt), TaskState::Scheduled);
/// rt.block_on(task).unwrap();
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TaskState {
    /// Waiting to be woken (its last poll returned `Pending`).
    Idle,
    /// Woken (or just spawned), in a run queue.
    Scheduled,
    /// Being polled, by worker `worker` when known (`None`: on a thread
    /// that is not a worker, such as one in `block_in_place`). Also when
    /// aborted during the poll: the abort takes effect once the poll
    /// returns, and until then the task holds its thread.
    Running {
        /// The index of the worker polling it, as in
        /// [`RuntimeMetrics`](crate::runtime::RuntimeMetrics).
        worker: Option<usize>,
    },
    /// Aborted (or its runtime is shutting down) and not being polled: its
    /// future is dropped at the next chance.
    Cancelling,
    /// Finished (returned, panicked or was cancelled): its output, or its
    /// [`JoinError`](crate::task::JoinError), waits in its
    /// [`JoinHandle`](crate::task::JoinHandle), which has neither read it
    /// nor been dropped yet. A handle stored and forgotten shows here; the
    /// task leaves the dump once the handle is awaited or dropped. Not
    /// counted by
    /// [`RuntimeMetrics::num_alive_tasks`](crate::runtime::RuntimeMetrics::num_alive_tasks).
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::runtime::TaskState;
    ///
    /// let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    /// let task = rt.spawn(async { vec![0u8; 1024] });
    /// rt.block_on(rt::task::yield_now()); // the task runs to completion
    /// assert_eq!(rt.handle().dump().tasks()[0].state(), TaskState::Complete);
    /// assert_eq!(rt.metrics().num_alive_tasks(), 0);
    /// assert_eq!(rt.block_on(task).unwrap().len(), 1024);
    /// assert!(rt.handle().dump().is_empty());
    /// ```
    Complete,
}

/// The [`LocalSet`](crate::task::LocalSet) a task of a [`TaskDump`]
/// belongs to, and the thread that owns the set (where the task runs).
///
/// # Examples
///
/// ```
/// let rt = rt::runtime::Runtime::new().unwrap();
/// let local = rt::task::LocalSet::new();
/// let (tx, rx) = futures_channel::oneshot::channel::<()>();
/// let task = rt::task::Builder::new()
///     .name("local waiter")
///     .spawn_local_on(async move { rx.await.ok(); }, &local)
///     .unwrap();
/// local.block_on(&rt, rt::task::yield_now()); // drives the set on `rt`
/// let dump = rt.handle().dump();
/// let listed = dump.iter().find(|t| t.id() == task.id()).unwrap();
/// let set = listed.local_set().unwrap();
/// assert_eq!(set.id(), local.id());
/// assert_eq!(set.thread_id(), std::thread::current().id());
/// println!("{dump}"); // the task's line ends with its set and thread
/// # tx.send(()).unwrap();
/// # local.block_on(&rt, task).unwrap();
/// ```
#[derive(Debug, Clone)]
pub struct LocalSetLabel {
    id: u64,
    thread_id: ThreadId,
    thread_name: Option<Arc<str>>,
}

impl LocalSetLabel {
    /// A new set's label: the next id, and this thread.
    pub(crate) fn of_this_thread() -> LocalSetLabel {
        // Only ever compared: orders nothing, so not a loom atomic.
        static NEXT_ID: AtomicU64 = AtomicU64::new(1);
        let thread = std::thread::current();
        LocalSetLabel {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            thread_id: thread.id(),
            thread_name: thread.name().map(Arc::from),
        }
    }

    /// The set's id, as [`LocalSet::id`](crate::task::LocalSet::id).
    ///
    /// # Examples
    ///
    /// See [`LocalSetLabel`].
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The thread that owns the set.
    ///
    /// # Examples
    ///
    /// See [`LocalSetLabel`].
    pub fn thread_id(&self) -> ThreadId {
        self.thread_id
    }

    /// That thread's name, if it has one.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    /// let seen = std::thread::Builder::new()
    ///     .name("local-thread".into())
    ///     .spawn(move || {
    ///         let local = rt::task::LocalSet::new();
    ///         let (_tx, rx) = futures_channel::oneshot::channel::<()>();
    ///         let _task = local.spawn_local(async move { rx.await.ok(); });
    ///         local.block_on(&rt, rt::task::yield_now());
    ///         let dump = rt.handle().dump();
    ///         dump.tasks()[0].local_set().unwrap().thread_name().map(String::from)
    ///     })
    ///     .unwrap()
    ///     .join()
    ///     .unwrap();
    /// assert_eq!(seen.as_deref(), Some("local-thread"));
    /// ```
    pub fn thread_name(&self) -> Option<&str> {
        self.thread_name.as_deref()
    }
}

/// How a local task's line of the table ends: `local set 3 on 'main'`.
impl fmt::Display for LocalSetLabel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "local set {} on ", self.id)?;
        match &self.thread_name {
            Some(name) => write!(f, "'{name}'"),
            None => write!(f, "{:?}", self.thread_id),
        }
    }
}

/// Who a task is: what the dump, the slow-poll report and the leak report
/// name it by.
#[derive(Debug, Clone)]
pub(crate) struct TaskLabel {
    pub(crate) id: Id,
    pub(crate) name: Option<String>,
    pub(crate) location: &'static Location<'static>,
}

impl TaskLabel {
    /// Copies the label of a listed task (under its shard's lock).
    pub(crate) fn of(listed: &ListedTask) -> TaskLabel {
        TaskLabel {
            id: listed.header().id,
            name: listed.name().map(String::from),
            location: listed.location,
        }
    }
}

impl TaskDump {
    /// Takes the dump of `handle`'s runtime (steps 1 to 3 above).
    pub(crate) fn capture(handle: &scheduler::Handle) -> TaskDump {
        let polling: Vec<(usize, u64)> = (0..handle.num_workers())
            .filter_map(|worker| {
                let (_, task) = handle.worker_metrics(worker).polling()?;
                Some((worker, task))
            })
            .collect();
        let now = now_of(handle);
        let mut tasks = Vec::new();
        handle
            .owned_tasks()
            .for_each(|listed| tasks.push(TaskSnapshot::capture(listed, now, &polling)));
        for set in handle.config().local_sets.snapshot() {
            capture_local_set(&set, now, &mut tasks);
        }
        TaskDump::sorted(tasks)
    }

    /// The dump of one `LocalSet`'s tasks (step 3 alone).
    pub(crate) fn of_local_set(set: &local::Shared) -> TaskDump {
        let mut tasks = Vec::new();
        capture_local_set(set, coarse_time::precise_now(), &mut tasks);
        TaskDump::sorted(tasks)
    }

    fn sorted(mut tasks: Vec<TaskSnapshot>) -> TaskDump {
        tasks.sort_by_key(|task| std::cmp::Reverse(task.idle_for()));
        TaskDump { tasks }
    }

    /// Splits the dump into the runtime's own tasks and its sets' tasks.
    pub(crate) fn split_local(self) -> (TaskDump, TaskDump) {
        let (local, own) = self
            .tasks
            .into_iter()
            .partition(|task| task.local_set.is_some());
        (TaskDump { tasks: own }, TaskDump { tasks: local })
    }

    /// The tasks, longest idle first.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// assert!(rt.handle().dump().tasks().is_empty());
    /// ```
    pub fn tasks(&self) -> &[TaskSnapshot] {
        &self.tasks
    }

    /// Iterates over the tasks, longest idle first.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let _task = rt.spawn(std::future::pending::<()>());
    /// assert_eq!(rt.handle().dump().iter().count(), 1);
    /// ```
    pub fn iter(&self) -> std::slice::Iter<'_, TaskSnapshot> {
        self.tasks.iter()
    }

    /// Leaves out the tasks that finished and only wait for their
    /// `JoinHandle` (the leak report lists unfinished tasks only).
    pub(crate) fn without_complete(mut self) -> TaskDump {
        self.tasks.retain(|task| task.state != TaskState::Complete);
        self
    }

    /// The number of tasks.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// assert_eq!(rt.handle().dump().len(), 0);
    /// ```
    pub fn len(&self) -> usize {
        self.tasks.len()
    }

    /// `true` if the runtime had no live task.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// assert!(rt.handle().dump().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }

    /// How many tasks each spawn location has in the dump, most first
    /// (ties in file and line order): a spawn that leaks a task each time
    /// it runs (a loop spawning tasks that never end) comes first, with
    /// its count.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    /// for _ in 0..3 {
    ///     rt.spawn(std::future::pending::<()>()); // leaks a task each turn
    /// }
    /// let dump = rt.handle().dump();
    /// let (location, count) = dump.by_location()[0];
    /// assert_eq!((location.line(), count), (line!() - 4, 3));
    /// ```
    pub fn by_location(&self) -> Vec<(&'static Location<'static>, usize)> {
        // A dump of a large leak has many tasks, and may have many
        // locations: one pass, not a scan of the locations per task.
        let mut by_location: HashMap<&'static Location<'static>, usize> = HashMap::new();
        for task in &self.tasks {
            *by_location.entry(task.label.location).or_default() += 1;
        }
        let mut counts: Vec<_> = by_location.into_iter().collect();
        counts.sort_by(|(a, m), (b, n)| {
            n.cmp(m).then_with(|| {
                (a.file(), a.line(), a.column()).cmp(&(b.file(), b.line(), b.column()))
            })
        });
        counts
    }
}

/// Step 3 for one set: its tasks, marked with it, pushed to `tasks`.
/// Now, on the clock `handle`'s tasks were stamped by: a simulation's
/// stamps are simulated time (so its dump replays with the seed).
#[cfg_attr(not(feature = "sim"), allow(unused_variables))]
fn now_of(handle: &scheduler::Handle) -> Stamp {
    #[cfg(feature = "sim")]
    if let scheduler::Handle::Sim(sim) = handle {
        return sim.stamp();
    }
    coarse_time::precise_now()
}

fn capture_local_set(set: &local::Shared, now: Stamp, tasks: &mut Vec<TaskSnapshot>) {
    set.owned.for_each(|listed| {
        let mut task = TaskSnapshot::capture(listed, now, &[]);
        task.local_set = Some(set.label.clone());
        tasks.push(task);
    });
}

impl IntoIterator for TaskDump {
    type Item = TaskSnapshot;
    type IntoIter = std::vec::IntoIter<TaskSnapshot>;

    fn into_iter(self) -> Self::IntoIter {
        self.tasks.into_iter()
    }
}

impl<'a> IntoIterator for &'a TaskDump {
    type Item = &'a TaskSnapshot;
    type IntoIter = std::slice::Iter<'a, TaskSnapshot>;

    fn into_iter(self) -> Self::IntoIter {
        self.tasks.iter()
    }
}

/// The spawn locations the summary under a dump's table lists at most.
const SUMMARY_LOCATIONS: usize = 10;

/// A table, one task per line, longest idle first. When some spawn
/// location has several tasks, a count per location follows (the
/// [`by_location`](TaskDump::by_location) of the ten with most tasks), so
/// a spawn leaking tasks stands out however long the table. A precision
/// (`{:.20}`) limits the table to that many lines (the summary still
/// counts every task).
impl fmt::Display for TaskDump {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{:>8}  {:<12}  {:>7}  {:>9}  {:>9}  {:<24}  LOCATION",
            "ID", "STATE", "POLLS", "IDLE", "AGE", "NAME"
        )?;
        let shown = f.precision().unwrap_or(usize::MAX).min(self.tasks.len());
        let by_id = self.by_id();
        for task in &self.tasks[..shown] {
            writeln!(f, "{task}")?;
            for wait in &task.waits {
                write!(f, "{:>8}  waiting: ", "")?;
                wait.fmt_naming(f, |holder| name_of_holder(&by_id, holder))?;
                writeln!(f)?;
            }
            if task.lost_waker {
                writeln!(
                    f,
                    "{:>8}  no waker: nothing can wake this task, it will not be polled again \
                     (an abort or the runtime's shutdown ends it)",
                    ""
                )?;
            }
        }
        for cycle in self.deadlocks(&by_id) {
            write_deadlock(f, &by_id, &cycle)?;
        }
        if shown < self.tasks.len() {
            writeln!(f, "{:>8}  ({} more)", "...", self.tasks.len() - shown)?;
        }
        write!(f, "{} task(s)", self.tasks.len())?;
        let by_location = self.by_location();
        if by_location.len() == self.tasks.len() {
            return Ok(());
        }
        f.write_str(", by spawn location:")?;
        for (location, count) in by_location.iter().take(SUMMARY_LOCATIONS) {
            write!(f, "\n{count:>8}  {location}")?;
        }
        if by_location.len() > SUMMARY_LOCATIONS {
            write!(
                f,
                "\n{:>8}  ({} more locations)",
                "...",
                by_location.len() - SUMMARY_LOCATIONS
            )?;
        }
        Ok(())
    }
}

impl TaskDump {
    /// The listed tasks by id, for the `waiting:` lines' holders and the
    /// deadlock search (a dump may list 100,000 tasks waiting on one lock).
    fn by_id(&self) -> HashMap<Id, &TaskSnapshot> {
        self.tasks.iter().map(|task| (task.id(), task)).collect()
    }

    /// Each cycle of tasks waiting on the next (for a lock it holds, or
    /// to finish), following the first edge from each task (`wait_edge`):
    /// see `cycles`.
    fn deadlocks(&self, by_id: &HashMap<Id, &TaskSnapshot>) -> Vec<Vec<Id>> {
        let waits = |id: &Id| {
            by_id
                .get(id)
                .is_some_and(|task| wait_edge(task, |_| true).is_some())
        };
        cycles(self.tasks.iter().map(TaskSnapshot::id), |id| {
            let (_, on) = wait_edge(by_id.get(&id)?, waits)?;
            by_id.contains_key(&on).then_some(on)
        })
    }
}

/// Each cycle of `ids` under `first_edge` (the task a task waits on, if it
/// is one of `ids`), the last on the first, once, starting from its
/// smallest id, sorted; a task waiting on itself is a cycle of one. Each
/// task has at most one edge, so a walk from each task no earlier walk
/// reached finds every cycle, in time linear in the tasks. The task dump
/// and the watchdog's deadlock search (`deadlock.rs`) both walk so.
pub(crate) fn cycles(
    ids: impl IntoIterator<Item = Id>,
    first_edge: impl Fn(Id) -> Option<Id>,
) -> Vec<Vec<Id>> {
    let mut cycles = Vec::new();
    // The walk that first reached each task.
    let mut reached: HashMap<Id, usize> = HashMap::new();
    for (walk, start) in ids.into_iter().enumerate() {
        let mut path = Vec::new();
        let mut next = Some(start);
        while let Some(id) = next {
            match reached.get(&id) {
                // Back on this walk's own path: the cycle is the path
                // from there on.
                Some(&seen) if seen == walk => {
                    let from = path.iter().position(|&on| on == id);
                    let mut cycle = path.split_off(from.expect("a task on this walk's path"));
                    let smallest = (0..cycle.len()).min_by_key(|&at| cycle[at]);
                    cycle.rotate_left(smallest.unwrap_or(0));
                    cycles.push(cycle);
                    break;
                }
                // An earlier walk went on from here already.
                Some(_) => break,
                None => {}
            }
            reached.insert(id, walk);
            path.push(id);
            next = first_edge(id);
        }
    }
    cycles.sort();
    cycles
}

fn name_of_holder<'a>(
    by_id: &HashMap<Id, &'a TaskSnapshot>,
    holder: &LockHolder,
) -> Option<&'a str> {
    by_id.get(&holder.task()?)?.name()
}

/// The first wait of `task` on another task (a lock that task holds, or
/// its `JoinHandle`), and that task: a task waits on one thing at a time
/// outside a `select!`, and a cycle through a `select!`'s second wait is
/// not a deadlock (the first may still come). A wait on an `RwLock`'s
/// readers is on each of them (all must let go): of those, the first for
/// which `waits` holds (itself waiting on a task) is the edge, else the
/// first.
fn wait_edge(task: &TaskSnapshot, waits: impl Fn(&Id) -> bool) -> Option<(&WaitSite, Id)> {
    let wait = task
        .waits
        .iter()
        .find(|wait| wait.on_tasks().next().is_some())?;
    let on = wait
        .on_tasks()
        .find(|on| waits(on))
        .or_else(|| wait.on_tasks().next())?;
    Some((wait, on))
}

/// `deadlock: tasks 3, 4 wait for each other (...)` (or `task 3 waits
/// for a lock it holds`), then a line per task: which lock it waits for,
/// where, and who holds it since where. A cycle that a task may leave (it
/// also waits for something else, a `select!`'s timeout, or for more than
/// the waits kept) is a `possible deadlock:`, and those other waits are
/// listed under the task (the watchdog reports no such cycle).
pub(crate) fn write_deadlock(
    f: &mut fmt::Formatter<'_>,
    by_id: &HashMap<Id, &TaskSnapshot>,
    cycle: &[Id],
) -> fmt::Result {
    let members: HashSet<Id> = cycle.iter().copied().collect();
    let off_cycle = |task: &'_ TaskSnapshot| -> Vec<WaitSite> {
        let on_cycle = |wait: &WaitSite| wait.on_cycle(|on| members.contains(on));
        task.waits
            .iter()
            .filter(|wait| !on_cycle(wait))
            .cloned()
            .collect()
    };
    let may_leave =
        |task: &TaskSnapshot| task.waits.len() >= MAX_WAITS || !off_cycle(task).is_empty();
    let possible = cycle
        .iter()
        .filter_map(|id| by_id.get(id))
        .any(|task| may_leave(task));
    let (what, unless) = if possible {
        (
            "possible deadlock",
            ", unless another wait below ends first",
        )
    } else {
        ("deadlock", "")
    };
    if let [id] = cycle {
        writeln!(
            f,
            "{what}: task {id} waits for a lock it holds itself{unless}"
        )?;
    } else {
        let ids: Vec<String> = cycle.iter().map(Id::to_string).collect();
        writeln!(
            f,
            "{what}: tasks {} wait for each other (locks held, tasks to finish){unless}",
            ids.join(", ")
        )?;
    }
    for id in cycle {
        let Some(task) = by_id.get(id) else { continue };
        let Some((wait, _)) = wait_edge(task, |on| members.contains(on)) else {
            continue;
        };
        write!(f, "{:>8}  task {id}", "")?;
        if let Some(name) = task.name() {
            write!(f, " '{name}'")?;
        }
        f.write_str(" waits for ")?;
        wait.fmt_naming(f, |holder| name_of_holder(by_id, holder))?;
        writeln!(f)?;
        for other in off_cycle(task) {
            write!(f, "{:>8}  task {id} also waits for ", "")?;
            other.fmt_naming(f, |holder| name_of_holder(by_id, holder))?;
            writeln!(f)?;
        }
        if task.waits.len() >= MAX_WAITS {
            writeln!(
                f,
                "{:>8}  task {id} may wait for more (the first {MAX_WAITS} waits are kept)",
                ""
            )?;
        }
    }
    Ok(())
}

impl TaskSnapshot {
    /// The snapshot of task `id` in `owned` (`handle`'s list, or that of
    /// its set `set`), if it is listed: the watchdog's deadlock report
    /// copies only the tasks of a cycle.
    pub(crate) fn of_listed(
        handle: &scheduler::Handle,
        owned: &OwnedTasks,
        set: Option<&LocalSetLabel>,
        id: Id,
    ) -> Option<TaskSnapshot> {
        let now = now_of(handle);
        let mut snapshot = None;
        owned.with_task(id.as_u64(), |listed| {
            snapshot = Some(TaskSnapshot::capture(listed, now, &[]));
        });
        let mut snapshot = snapshot?;
        snapshot.local_set = set.cloned();
        Some(snapshot)
    }

    /// Copies what the dump shows of a listed task (under its shard's
    /// lock, which keeps it alive).
    pub(crate) fn capture(
        listed: &ListedTask,
        now: Stamp,
        polling: &[(usize, u64)],
    ) -> TaskSnapshot {
        let header = listed.header();
        let snapshot = header.state.load();
        let label = TaskLabel::of(listed);
        let id = label.id;
        // Running before cancelled: an abort takes effect only once the
        // poll in progress returns, and until then the task holds its
        // thread, which is what a dump of a stuck runtime must show.
        let state = if snapshot.is_complete() {
            TaskState::Complete
        } else if snapshot.is_running() {
            let worker = polling
                .iter()
                .find(|&&(_, task)| task == id.as_u64())
                .map(|&(worker, _)| worker);
            TaskState::Running { worker }
        } else if snapshot.is_cancelled() {
            TaskState::Cancelling
        } else if snapshot.is_notified() {
            TaskState::Scheduled
        } else {
            TaskState::Idle
        };
        let since_spawn = listed.spawned_at.until(now);
        // The waits of a running task's last poll are stale (it is past
        // them or about to record new ones), a finished one waits for
        // nothing.
        let waits = match (state, listed.waits()) {
            (TaskState::Idle | TaskState::Scheduled, Some(waits)) => waits.snapshot(),
            _ => Vec::new(),
        };
        TaskSnapshot {
            waits,
            has_extra: listed.has_extra(),
            lost_waker: snapshot.has_lost_waker(),
            label,
            local_set: None,
            state,
            polls: header.stats.polls(),
            since_spawn,
            // The poll's time is its worker's cached clock, which may lag
            // the one the spawn read: never report a poll before the spawn.
            since_last_poll: header
                .stats
                .since_last_poll(now)
                .map(|idle| idle.min(since_spawn)),
        }
    }

    /// The task's id (as its `JoinHandle::id`).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let task = rt.spawn(std::future::pending::<()>());
    /// assert_eq!(rt.handle().dump().tasks()[0].id(), task.id());
    /// ```
    pub fn id(&self) -> Id {
        self.label.id
    }

    /// The name given with [`task::Builder::name`](crate::task::Builder::name).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let _task = rt.spawn(std::future::pending::<()>());
    /// assert_eq!(rt.handle().dump().tasks()[0].name(), None);
    /// ```
    pub fn name(&self) -> Option<&str> {
        self.label.name.as_deref()
    }

    /// Where the task was spawned.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let _task = rt.spawn(std::future::pending::<()>());
    /// assert_eq!(rt.handle().dump().tasks()[0].location().line(), line!() - 1);
    /// ```
    pub fn location(&self) -> &'static Location<'static> {
        self.label.location
    }

    /// The [`LocalSet`](crate::task::LocalSet) the task was spawned on,
    /// with the thread it runs on; `None` for a task of the runtime itself.
    ///
    /// # Examples
    ///
    /// See [`LocalSetLabel`].
    pub fn local_set(&self) -> Option<&LocalSetLabel> {
        self.local_set.as_ref()
    }

    /// What the task was doing.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::runtime::TaskState;
    ///
    /// // A current-thread runtime runs nothing outside `block_on`: the
    /// // aborted task is still waiting to be dropped.
    /// let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    /// let task = rt.spawn(std::future::pending::<()>());
    /// task.abort();
    /// assert_eq!(rt.handle().dump().tasks()[0].state(), TaskState::Cancelling);
    /// assert!(rt.block_on(task).unwrap_err().is_cancelled());
    /// assert_eq!(rt.handle().dump().tasks().len(), 0);
    /// ```
    pub fn state(&self) -> TaskState {
        self.state
    }

    /// How many times the task was polled.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    /// let _task = rt.spawn(std::future::pending::<()>());
    /// rt.block_on(rt::task::yield_now());
    /// assert_eq!(rt.handle().dump().tasks()[0].polls(), 1);
    /// ```
    pub fn polls(&self) -> u64 {
        self.polls
    }

    /// The time since the task was spawned. Like
    /// [`since_last_poll`](TaskSnapshot::since_last_poll) it is measured
    /// against a cached clock the workers refresh every few dozen polls,
    /// so it may come out short by about the time such a batch of polls
    /// takes.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let _task = rt.spawn(std::future::pending::<()>());
    /// let age = rt.handle().dump().tasks()[0].since_spawn();
    /// assert!(age < std::time::Duration::from_secs(3600));
    /// ```
    pub fn since_spawn(&self) -> Duration {
        self.since_spawn
    }

    /// The time since the task's last poll started, `None` if it was
    /// never polled. Measured, as [`since_spawn`](TaskSnapshot::since_spawn),
    /// against the cached clock of the scheduler that polled it. A poll
    /// that blocks its thread holds that clock back: with the slow-poll
    /// watchdog on, the scheduler reads the clock again once such a poll
    /// returns; without it, a task polled on that thread within a few
    /// dozen polls after it may come out idle since the blocked poll
    /// began.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    /// let _task = rt.spawn(std::future::pending::<()>());
    /// assert_eq!(rt.handle().dump().tasks()[0].since_last_poll(), None);
    /// rt.block_on(rt::task::yield_now());
    /// assert!(rt.handle().dump().tasks()[0].since_last_poll().is_some());
    /// ```
    pub fn since_last_poll(&self) -> Option<Duration> {
        self.since_last_poll
    }

    /// What the task waited for in its last poll, if it is idle (or woken
    /// and not polled since): which of rt's futures returned `Pending`
    /// (the first four, for a task in a `select!`), and where it made
    /// them. Empty unless the runtime tracks waits
    /// ([`Builder::track_waits`](crate::runtime::Builder::track_waits),
    /// or `RT_DEBUG=1`), and for a task waiting on something not of rt
    /// (another crate's channel).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Builder::new_current_thread()
    ///     .track_waits(true)
    ///     .build()
    ///     .unwrap();
    /// let (tx, mut rx) = rt::sync::mpsc::channel::<u32>(1);
    /// let task = rt.spawn(async move { rx.recv().await });
    /// let line = line!() - 1;
    /// rt.block_on(rt::task::yield_now());
    /// let dump = rt.handle().dump();
    /// let wait = &dump.tasks()[0].waits()[0];
    /// assert_eq!(wait.kind(), "mpsc::Receiver::recv");
    /// assert_eq!(wait.location().unwrap().line(), line);
    /// tx.try_send(7).unwrap();
    /// assert_eq!(rt.block_on(task).unwrap(), Some(7));
    /// ```
    pub fn waits(&self) -> &[WaitSite] {
        &self.waits
    }

    /// `true` if the task is idle and no waker of it exists anywhere: its
    /// last poll returned `Pending` without leaving `cx.waker()` with
    /// anything that will wake it, or everything that held its waker has
    /// dropped it since. Nothing can wake it: it will not be polled again,
    /// and only an abort or its runtime's shutdown ends it. (A task meant
    /// to wait forever, `std::future::pending()`, is such a task too.)
    ///
    /// Exact whatever the runtime's settings, with one blind spot: a task
    /// with more than 255 live [`AbortHandle`](crate::task::AbortHandle)s
    /// is never reported. The dump prints a `no waker:` line under it;
    /// with the watchdog on
    /// ([`Builder::slow_poll_threshold`](crate::runtime::Builder::slow_poll_threshold),
    /// or `RT_DEBUG=1`) a task whose poll leaves it so is reported at once.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::future::Future;
    /// use std::pin::Pin;
    /// use std::task::{Context, Poll};
    ///
    /// // A future that waits without leaving its waker anywhere: a bug.
    /// struct Forgetful;
    /// impl Future for Forgetful {
    ///     type Output = ();
    ///     fn poll(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<()> {
    ///         Poll::Pending
    ///     }
    /// }
    ///
    /// let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    /// let (_tx, rx) = rt::sync::oneshot::channel::<()>();
    /// let lost = rt.spawn(Forgetful);
    /// let waiting = rt.spawn(rx);
    /// rt.block_on(rt::task::yield_now());
    /// let dump = rt.handle().dump();
    /// let task = |id| dump.tasks().iter().find(|task| task.id() == id).unwrap();
    /// assert!(task(lost.id()).has_lost_waker());
    /// assert!(!task(waiting.id()).has_lost_waker());
    /// ```
    pub fn has_lost_waker(&self) -> bool {
        self.lost_waker
    }

    /// Whether the task's entry has its side allocation (a name, or the
    /// waits tracked): what the tests of `track_waits(false)` check.
    #[doc(hidden)]
    pub fn __has_side_allocation(&self) -> bool {
        self.has_extra
    }

    /// What the dump sorts by: idle since the last poll, or since spawn.
    fn idle_for(&self) -> Duration {
        self.since_last_poll.unwrap_or(self.since_spawn)
    }
}

/// One line of the dump's table.
impl fmt::Display for TaskSnapshot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let idle = match self.since_last_poll {
            Some(idle) => ShortDuration(idle).to_string(),
            None => "never".to_owned(),
        };
        write!(
            f,
            "{:>8}  {:<12}  {:>7}  {:>9}  {:>9}  {:<24}  {}",
            self.label.id.to_string(),
            self.state.to_string(),
            self.polls,
            idle,
            ShortDuration(self.since_spawn).to_string(),
            self.label.name.as_deref().unwrap_or("-"),
            self.label.location,
        )?;
        match &self.local_set {
            Some(set) => write!(f, "  ({set})"),
            None => Ok(()),
        }
    }
}

impl fmt::Display for TaskState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TaskState::Idle => f.write_str("idle"),
            TaskState::Scheduled => f.write_str("scheduled"),
            TaskState::Running { worker: Some(w) } => write!(f, "running@{w}"),
            TaskState::Running { worker: None } => f.write_str("running"),
            TaskState::Cancelling => f.write_str("cancelling"),
            TaskState::Complete => f.write_str("complete"),
        }
    }
}

/// A duration in the unit that keeps it short: `850ns`, `12µs`, `3.4ms`,
/// `1.25s`, `7m12s`.
struct ShortDuration(Duration);

impl fmt::Display for ShortDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = self.0;
        let nanos = d.as_nanos();
        if nanos < 1_000 {
            write!(f, "{nanos}ns")
        } else if nanos < 1_000_000 {
            write!(f, "{}µs", nanos / 1_000)
        } else if nanos < 1_000_000_000 {
            write!(f, "{:.1}ms", d.as_secs_f64() * 1e3)
        } else if d.as_secs() < 60 {
            write!(f, "{:.2}s", d.as_secs_f64())
        } else {
            write!(f, "{}m{:02}s", d.as_secs() / 60, d.as_secs() % 60)
        }
    }
}
