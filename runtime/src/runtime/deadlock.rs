//! The watchdog's deadlock report (`Builder::on_deadlock`): with the
//! slow-poll watchdog on and the runtime tracking waits
//! (`Builder::track_waits`; `RT_DEBUG=1` turns on both), the monitor
//! thread (`watchdog.rs`) finds the cycles of tasks waiting on one
//! another's locks and `JoinHandle`s that the task dump's `deadlock:`
//! paragraph shows, without anyone asking for a dump, and reports each
//! once.
//!
//! A look:
//! 1. is due once per `max(threshold, 1 s)`: it costs what a dump costs,
//!    a walk of every task under the owned lists' shard locks, and a
//!    deadlock that has lasted a second is worth the wait. It is skipped
//!    when no task of the runtime or of its sets was polled since the last
//!    look, none was being polled at the last look, and no cycle awaits
//!    its second look (step 4): waits are recorded by polls, and a lock's
//!    holder that is a listed task changes only in that task's poll (a
//!    thread or a blocking job holding a lock is no listed task), so an
//!    idle runtime, deadlocked or not, pays nothing;
//! 2. walks the owned lists (the runtime's, then each set's), one shard at
//!    a time under its lock, and notes each idle task whose recorded waits
//!    are each on a task (a lock held by a task, or a `JoinHandle`), fewer
//!    than `MAX_WAITS` of them (a fifth wait would not have been recorded,
//!    and could be a timeout): its id, its poll count and the tasks it
//!    waits on, nothing else (`Recording::tasks_waited_on`). Any other
//!    task costs a load of its state word;
//! 3. finds the cycles the dump finds among them (following each task's
//!    first wait, `dump::cycles`), and keeps those in which every wait of
//!    every task is on a task of the cycle: no wait rt sees can then end
//!    but by a task of the cycle, and they all wait. A task in a `select!`
//!    with a timeout (or any other wait of rt's) is left out, since that
//!    branch may break the cycle; a wait on a future not of rt's records
//!    nothing, which the report says. Only then are the tasks of a cycle
//!    copied as the dump copies them (`TaskSnapshot::of_listed`), and the
//!    cycle dropped from this look if one of them moved meanwhile (polled,
//!    woken, no longer on the cycle);
//! 4. a cycle seen for the first time (the set of its tasks' ids) is a
//!    candidate; seen again at the next look with none of its tasks polled
//!    in between (the same poll counts), it is reported, once. A candidate
//!    not seen again was a transient (a task aborted or woken, a lock
//!    released) and is dropped;
//! 5. a reported cycle no longer seen is forgotten: should the same tasks
//!    wait on one another again, that is reported again.

use crate::runtime::dump::{TaskSnapshot, TaskState, cycles, write_deadlock};
use crate::runtime::metrics::WorkerMetrics;
use crate::runtime::watchdog::{call_back, to_tracing};
use crate::scheduler;
use crate::task::Id;
use crate::task::list::{ListedTask, OwnedTasks};
use crate::task::local;
use crate::task::waits::{MAX_WAITS, WaitOn};
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A callback of `Builder::on_deadlock`.
pub(crate) type DeadlockCallback = Arc<dyn Fn(&Deadlock) + Send + Sync>;

/// The shortest time between two looks (step 1).
const LOOK_AT_MOST_EVERY: Duration = Duration::from_secs(1);

/// Tasks waiting on one another for good, found by the slow-poll
/// watchdog of a runtime that tracks waits, as passed to
/// [`Builder::on_deadlock`](crate::runtime::Builder::on_deadlock) (or
/// printed on stderr, or sent to `tracing`, without a callback).
///
/// Each task waits for a lock the next one holds (a
/// [`Mutex`](crate::sync::Mutex), an [`RwLock`](crate::sync::RwLock)
/// taken for writing) or for the next one to finish (its
/// [`JoinHandle`](crate::task::JoinHandle)), the last for the first; a
/// task waiting for a lock it holds itself is a cycle of one. The
/// watchdog reports only a cycle in which each task waits for nothing
/// else rt sees (a task in a `select!` with a timeout may still get out),
/// seen at two looks a second or more apart with none of its tasks
/// polled in between, and reports it once. A future not of rt's (another
/// crate's channel) records no wait: a task also waiting on one could
/// still be woken by it.
///
/// Printed, it is the task dump's `deadlock:` paragraph: the tasks, their
/// names, what each waits for at which line, and who holds it.
///
/// # Examples
///
/// ```
/// use std::sync::{Arc, mpsc};
/// use std::time::Duration;
///
/// let (report, reported) = mpsc::channel();
/// let rt = rt::runtime::Builder::new_multi_thread()
///     .worker_threads(1)
///     .track_waits(true)
///     .slow_poll_threshold(Duration::from_millis(100))
///     .on_deadlock(move |deadlock: &rt::runtime::Deadlock| {
///         report.send(deadlock.clone()).unwrap();
///     })
///     .build()
///     .unwrap();
/// let mutex = Arc::new(rt::sync::Mutex::new(()));
/// let task = rt.spawn(async move {
///     let _held = mutex.lock().await;
///     let _again = mutex.lock().await; // waits for itself
/// });
/// let deadlock = reported.recv().unwrap();
/// assert_eq!(deadlock.tasks()[0].id(), task.id());
/// assert_eq!(deadlock.tasks()[0].waits()[0].kind(), "Mutex::lock");
/// println!("{deadlock}"); // deadlock: task 1 waits for a lock it holds itself
/// task.abort();
/// ```
#[derive(Debug, Clone)]
pub struct Deadlock {
    tasks: Vec<TaskSnapshot>,
}

impl Deadlock {
    /// The tasks of the cycle, from the one with the smallest id, each
    /// waiting on the next and the last on the first; each one's
    /// [`waits`](TaskSnapshot::waits) say what it waits for (every one on
    /// a task of the cycle) and where, and
    /// [`local_set`](TaskSnapshot::local_set) if it is a
    /// [`LocalSet`](crate::task::LocalSet)'s.
    ///
    /// # Examples
    ///
    /// See [`Deadlock`].
    pub fn tasks(&self) -> &[TaskSnapshot] {
        &self.tasks
    }
}

/// The dump's `deadlock:` paragraph, then a line on what "for good"
/// means here.
impl fmt::Display for Deadlock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let by_id: HashMap<Id, &TaskSnapshot> =
            self.tasks.iter().map(|task| (task.id(), task)).collect();
        let ids: Vec<Id> = self.tasks.iter().map(TaskSnapshot::id).collect();
        write_deadlock(f, &by_id, &ids)?;
        write!(
            f,
            "{:>8}  (found by the watchdog: at two looks, none of these tasks was polled, and \
             none waits for anything else of rt's; only a future not of rt's could wake one)",
            ""
        )
    }
}

/// What the monitor keeps between looks (steps 1, 4 and 5).
pub(crate) struct DeadlockWatch {
    every: Duration,
    next_look: Instant,
    /// The polls of the runtime and its sets at the last look, if none
    /// was in progress then (see `quiet_polls`).
    polls: Option<u64>,
    confirmations: Confirmations,
}

impl DeadlockWatch {
    /// The watch of a watchdog whose threshold is `threshold`.
    pub(crate) fn new(threshold: Duration, now: Instant) -> DeadlockWatch {
        let every = threshold.max(LOOK_AT_MOST_EVERY);
        DeadlockWatch {
            every,
            next_look: now + every,
            polls: None,
            confirmations: Confirmations::default(),
        }
    }

    /// Looks if a look is due (steps 1 to 5), and reports each cycle
    /// confirmed, to `callback` if there is one.
    pub(crate) fn look_if_due(
        &mut self,
        handle: &scheduler::Handle,
        callback: Option<&DeadlockCallback>,
        now: Instant,
    ) {
        if now < self.next_look {
            return;
        }
        self.next_look = now.checked_add(self.every).unwrap_or(now);
        let sets = handle.config().local_sets.snapshot();
        // Read before the walk: a poll started after this read moves the
        // count the next look compares.
        let polls = quiet_polls(handle, &sets);
        if polls.is_some() && self.polls == polls && !self.confirmations.awaiting() {
            return;
        }
        self.polls = polls;
        let seen = closed_cycles(handle, &sets, &waiting_tasks(handle, &sets));
        // Not kept alive while the callback runs.
        drop(sets);
        for deadlock in self.confirmations.next_look(seen) {
            match callback {
                Some(callback) => call_back(&**callback, &deadlock),
                None => emit_deadlock(&deadlock),
            }
        }
    }
}

/// Every poll started so far by the runtime's workers and by its sets;
/// `None` if one is in progress: its waits, recorded as it returns, may
/// close a cycle after this look's walk, with no later poll to move the
/// count (two tasks each taking one lock then waiting for the other's, in
/// one poll each, on two workers).
fn quiet_polls(
    handle: &scheduler::Handle,
    sets: &[crate::loom::sync::Arc<local::Shared>],
) -> Option<u64> {
    let workers = (0..handle.num_workers()).map(|worker| handle.worker_metrics(worker));
    let pollers = workers.chain(sets.iter().map(|set| &set.metrics));
    let mut polls = 0u64;
    for metrics in pollers {
        if metrics.polling().is_some() {
            return None;
        }
        polls = polls.wrapping_add(WorkerMetrics::load(&metrics.polls));
    }
    Some(polls)
}

/// A task noted by step 2.
struct Waiting {
    polls: u64,
    /// The tasks its waits are on, each with its wait's index, in order
    /// (a wait on an `RwLock`'s readers is on each of them): the first
    /// wait is the dump's edge.
    on: Vec<WaitOn>,
    /// Its list: `None` for the runtime's, else the index of its set.
    set: Option<usize>,
}

/// Step 2: the idle tasks waiting on tasks only, by id.
fn waiting_tasks(
    handle: &scheduler::Handle,
    sets: &[crate::loom::sync::Arc<local::Shared>],
) -> HashMap<Id, Waiting> {
    // Pushed under the shard locks, hashed after.
    let mut waiting = Vec::new();
    let mut note = |listed: &ListedTask, set: Option<usize>| {
        let header = listed.header();
        let state = header.state.load();
        if state.is_complete() || state.is_running() || state.is_cancelled() || state.is_notified()
        {
            return;
        }
        let Some(waits) = listed.waits() else { return };
        if waits.is_empty() || waits.len() >= MAX_WAITS {
            return;
        }
        if let Some(on) = waits.tasks_waited_on() {
            let polls = header.stats.polls();
            waiting.push((header.id, Waiting { polls, on, set }));
        }
    };
    handle.owned_tasks().for_each(|listed| note(listed, None));
    for (index, set) in sets.iter().enumerate() {
        set.owned.for_each(|listed| note(listed, Some(index)));
    }
    waiting.into_iter().collect()
}

/// One cycle seen at a look: its tasks' ids sorted (what tells cycles
/// apart), their poll counts in that order, and the report.
struct Seen {
    ids: Vec<u64>,
    polls: Vec<u64>,
    deadlock: Deadlock,
}

/// Step 3: the cycles of `waiting` in which each task waits on tasks of
/// the cycle only, their tasks copied.
fn closed_cycles(
    handle: &scheduler::Handle,
    sets: &[crate::loom::sync::Arc<local::Shared>],
    waiting: &HashMap<Id, Waiting>,
) -> Vec<Seen> {
    let first_edge = |id| {
        let on = &waiting.get(&id)?.on;
        on.iter()
            .take_while(|on| on.wait == 0)
            .map(|on| on.task)
            .find(|on| waiting.contains_key(on))
    };
    // A task of a cycle is waited on by the one before it: the walks
    // start from those only (100,000 tasks queued on one lock are waited
    // on by none).
    let waited_on: HashSet<Id> = waiting
        .values()
        .flat_map(|task| task.on.iter().map(|on| on.task))
        .collect();
    let starts = waiting.keys().copied().filter(|id| waited_on.contains(id));
    let mut seen = Vec::new();
    for cycle in cycles(starts, first_edge) {
        let members: HashSet<Id> = cycle.iter().copied().collect();
        // Each wait cannot end while the cycle stays: one of its tasks
        // is on the cycle if any one alone blocks it (a writer; any reader
        // for a write), else all of them are (`WaitOn::any`).
        let on_cycle_only = |on: &[WaitOn]| {
            on.chunk_by(|a, b| a.wait == b.wait).all(|wait| {
                let on_cycle = |on: &WaitOn| members.contains(&on.task);
                if wait[0].any {
                    wait.iter().any(on_cycle)
                } else {
                    wait.iter().all(on_cycle)
                }
            })
        };
        if !cycle.iter().all(|id| on_cycle_only(&waiting[id].on)) {
            continue;
        }
        let copied = cycle.iter().map(|&id| {
            let task = &waiting[&id];
            let (owned, set): (&OwnedTasks, _) = match task.set {
                None => (handle.owned_tasks(), None),
                Some(index) => (&sets[index].owned, Some(&sets[index].label)),
            };
            let snapshot = TaskSnapshot::of_listed(handle, owned, set, id)?;
            // Unmoved since step 2: not polled, still idle, still waiting
            // on the cycle alone.
            let unmoved = snapshot.polls() == task.polls
                && snapshot.state() == TaskState::Idle
                && !snapshot.waits().is_empty()
                && snapshot
                    .waits()
                    .iter()
                    .all(|wait| wait.on_cycle(|on| members.contains(on)));
            unmoved.then_some(snapshot)
        });
        let Some(tasks) = copied.collect::<Option<Vec<TaskSnapshot>>>() else {
            continue;
        };
        let mut sorted: Vec<(u64, u64)> = tasks
            .iter()
            .map(|task| (task.id().as_u64(), task.polls()))
            .collect();
        sorted.sort_unstable();
        seen.push(Seen {
            ids: sorted.iter().map(|&(id, _)| id).collect(),
            polls: sorted.iter().map(|&(_, polls)| polls).collect(),
            deadlock: Deadlock { tasks },
        });
    }
    seen
}

/// Steps 4 and 5: which cycles are candidates, which were reported.
#[derive(Default)]
struct Confirmations {
    /// The cycles first seen at the last look, with their poll counts.
    candidates: HashMap<Vec<u64>, Vec<u64>>,
    /// The cycles reported and seen at the last look.
    reported: HashSet<Vec<u64>>,
}

impl Confirmations {
    /// Whether a cycle awaits its second look.
    fn awaiting(&self) -> bool {
        !self.candidates.is_empty()
    }

    /// Takes the cycles of a look, and returns those to report now.
    fn next_look(&mut self, seen: Vec<Seen>) -> Vec<Deadlock> {
        let mut candidates = HashMap::new();
        let mut reported = HashSet::new();
        let mut confirmed = Vec::new();
        for Seen {
            ids,
            polls,
            deadlock,
        } in seen
        {
            if self.reported.contains(&ids) {
                reported.insert(ids);
            } else if self.candidates.get(&ids) == Some(&polls) {
                reported.insert(ids);
                confirmed.push(deadlock);
            } else {
                candidates.insert(ids, polls);
            }
        }
        self.candidates = candidates;
        self.reported = reported;
        confirmed
    }
}

fn emit_deadlock(deadlock: &Deadlock) {
    if to_tracing() {
        #[cfg(feature = "tracing")]
        tracing::warn!(
            target: "rt::watchdog",
            tasks = ?deadlock
                .tasks()
                .iter()
                .map(|task| task.id().as_u64())
                .collect::<Vec<_>>(),
            "{deadlock}"
        );
    } else {
        eprintln!("rt: {deadlock}");
    }
}

#[cfg(test)]
mod tests {
    use super::{Confirmations, Deadlock, Seen};

    /// A cycle of tasks `ids`, polled `polls` times each.
    fn seen(ids: &[u64], polls: u64) -> Seen {
        Seen {
            ids: ids.to_vec(),
            polls: vec![polls; ids.len()],
            deadlock: Deadlock { tasks: Vec::new() },
        }
    }

    fn reports(confirmations: &mut Confirmations, look: Vec<Seen>) -> usize {
        confirmations.next_look(look).len()
    }

    #[test]
    fn a_cycle_is_reported_at_its_second_look_then_not_again() {
        let mut confirmations = Confirmations::default();
        assert_eq!(reports(&mut confirmations, vec![seen(&[3, 4], 2)]), 0);
        assert!(confirmations.awaiting());
        assert_eq!(reports(&mut confirmations, vec![seen(&[3, 4], 2)]), 1);
        assert!(!confirmations.awaiting());
        for _ in 0..3 {
            assert_eq!(reports(&mut confirmations, vec![seen(&[3, 4], 2)]), 0);
        }
    }

    #[test]
    fn a_cycle_seen_once_or_polled_between_looks_is_not_reported() {
        let mut confirmations = Confirmations::default();
        assert_eq!(reports(&mut confirmations, vec![seen(&[3, 4], 2)]), 0);
        assert_eq!(reports(&mut confirmations, vec![]), 0);
        assert!(!confirmations.awaiting());
        // Seen at every look, but its tasks ran in between each time.
        for polls in 3..10 {
            assert_eq!(reports(&mut confirmations, vec![seen(&[3, 4], polls)]), 0);
        }
    }

    #[test]
    fn a_cycle_that_dissolves_and_forms_again_is_reported_again() {
        let mut confirmations = Confirmations::default();
        let mut total = 0;
        for look in [
            vec![seen(&[5], 1)],
            vec![seen(&[5], 1), seen(&[6, 7], 1)],
            vec![seen(&[6, 7], 1)],
            vec![seen(&[5], 4), seen(&[6, 7], 1)],
            vec![seen(&[5], 4)],
        ] {
            total += reports(&mut confirmations, look);
        }
        assert_eq!(total, 3);
    }
}
