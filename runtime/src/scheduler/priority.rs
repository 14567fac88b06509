//! What both schedulers share to run tasks by priority.
//!
//! `Normal` tasks keep each scheduler's original queues (the multi-thread
//! worker's LIFO slot, deque, yielded list and injector; the
//! current-thread core's queue and injector), so a runtime where no task
//! sets a priority runs exactly the code it ran before priorities existed,
//! plus one relaxed load per scheduling decision: `QueuedCounts::any`.
//! `High` and `Low` tasks wait in lanes of their own (`PriorityLanes`),
//! one per worker and one global injector per priority.
//!
//! Choosing the next task:
//! 1. if no `High` or `Low` task is queued anywhere (`QueuedCounts::any`),
//!    take a `Normal` one exactly as without priorities;
//! 2. otherwise, if a lower priority's turn has come (`Fairness::turn`:
//!    `MAX_HIGHER_POLLS_IN_A_ROW` polls of higher-priority tasks while
//!    it waited), try that priority first;
//! 3. then `High`, `Normal`, `Low`, in that order, each from the local
//!    queue and the global injector (the multi-thread worker also steals
//!    `High` from its peers here; see its module docs);
//! 4. record what ran (`Fairness::ran`) with whether lower-priority work
//!    was left waiting.
//!
//! The counts are a hint for step 1, never what decides that a worker
//! may park: parking looks at the queues themselves. A count is raised
//! before its task is pushed and lowered after it is popped, so it never
//! underflows and a queued task is always counted; a reader may see it
//! late (a relaxed load), which delays the task by one decision at most.

use crate::loom::sync::atomic::{AtomicU64, Ordering};
use crate::task::Priority;
use crossbeam_utils::CachePadded;

/// After this many polls in a row of higher-priority tasks while
/// lower-priority tasks wait, a worker runs one of the lower-priority ones
/// (see `Fairness`). Documented on `rt::task::Priority`.
pub(crate) const MAX_HIGHER_POLLS_IN_A_ROW: u32 = 32;

/// One `T` for each priority that has a lane of its own: `High` and `Low`.
#[derive(Debug, Default)]
pub(crate) struct PriorityLanes<T> {
    pub(crate) high: T,
    pub(crate) low: T,
}

impl<T> PriorityLanes<T> {
    pub(crate) fn new(mut make: impl FnMut() -> T) -> PriorityLanes<T> {
        PriorityLanes {
            high: make(),
            low: make(),
        }
    }

    /// The lane of `priority`, which must not be `Normal` (its tasks use
    /// the scheduler's original queues).
    pub(crate) fn get(&self, priority: Priority) -> &T {
        match priority {
            Priority::High => &self.high,
            Priority::Low => &self.low,
            Priority::Normal => unreachable!("rt: Normal tasks have no priority lane"),
        }
    }

    /// As `get`, mutably.
    pub(crate) fn get_mut(&mut self, priority: Priority) -> &mut T {
        match priority {
            Priority::High => &mut self.high,
            Priority::Low => &mut self.low,
            Priority::Normal => unreachable!("rt: Normal tasks have no priority lane"),
        }
    }

    /// `true` if `f` holds for either lane.
    pub(crate) fn any(&self, mut f: impl FnMut(&T) -> bool) -> bool {
        f(&self.high) || f(&self.low)
    }
}

/// How many `High` and how many `Low` tasks are queued in one runtime
/// (in any worker's lane or a global injector, not yet taken to run).
///
/// Both counts share one word (`High` in the low half, `Low` in the high
/// half), so step 1 of the module docs is a single load.
#[derive(Debug)]
pub(crate) struct QueuedCounts {
    /// Written only when `High` or `Low` tasks come and go: in a runtime
    /// of `Normal` tasks the line stays shared by every worker's cache.
    counts: CachePadded<AtomicU64>,
}

/// The shift of the `Low` count in the word; the `High` count is below.
const LOW_SHIFT: u32 = 32;

impl QueuedCounts {
    pub(crate) fn new() -> QueuedCounts {
        QueuedCounts {
            counts: CachePadded::new(AtomicU64::new(0)),
        }
    }

    fn one(priority: Priority) -> u64 {
        match priority {
            Priority::High => 1,
            Priority::Low => 1 << LOW_SHIFT,
            Priority::Normal => unreachable!("rt: Normal tasks are not counted"),
        }
    }

    /// Step 1 of the module docs: `true` if a `High` or `Low` task may be
    /// queued.
    #[inline]
    pub(crate) fn any(&self) -> bool {
        self.counts.load(Ordering::Relaxed) != 0
    }

    /// How many tasks of `priority` (`High` or `Low`) are queued.
    pub(crate) fn get(&self, priority: Priority) -> usize {
        let counts = self.counts.load(Ordering::Relaxed);
        let count = match priority {
            Priority::High => counts & ((1 << LOW_SHIFT) - 1),
            Priority::Low => counts >> LOW_SHIFT,
            Priority::Normal => unreachable!("rt: Normal tasks are not counted"),
        };
        count as usize
    }

    /// Before a task of `priority` is pushed to a lane.
    pub(crate) fn add(&self, priority: Priority) {
        self.counts
            .fetch_add(QueuedCounts::one(priority), Ordering::Relaxed);
    }

    /// After a task of `priority` was popped from a lane to run (or be
    /// dropped).
    pub(crate) fn remove(&self, priority: Priority) {
        self.counts
            .fetch_sub(QueuedCounts::one(priority), Ordering::Relaxed);
    }
}

/// A worker's record of how long lower-priority work has waited: the
/// starvation bound of step 2 in the module docs.
#[derive(Debug, Default)]
pub(crate) struct Fairness {
    /// `High` polls in a row while `Normal` tasks waited.
    over_normal: u32,
    /// `High` or `Normal` polls in a row while `Low` tasks waited.
    over_low: u32,
}

impl Fairness {
    /// The priority to try before the usual highest-first order, if its
    /// turn has come (`Low` first: it has waited behind both others).
    pub(crate) fn turn(&self) -> Option<Priority> {
        if self.over_low >= MAX_HIGHER_POLLS_IN_A_ROW {
            Some(Priority::Low)
        } else if self.over_normal >= MAX_HIGHER_POLLS_IN_A_ROW {
            Some(Priority::Normal)
        } else {
            None
        }
    }

    /// A task of `ran` was taken to run; `normal_waiting` and
    /// `low_waiting` say whether tasks of those priorities are still
    /// queued. A count restarts whenever nothing of its priority waits,
    /// so a lower-priority task that arrives after a long run of others
    /// gets no head start over the higher-priority ones.
    pub(crate) fn ran(&mut self, ran: Priority, normal_waiting: bool, low_waiting: bool) {
        fn step(count: u32, waiting: bool) -> u32 {
            if waiting { count + 1 } else { 0 }
        }
        match ran {
            Priority::High => {
                self.over_normal = step(self.over_normal, normal_waiting);
                self.over_low = step(self.over_low, low_waiting);
            }
            Priority::Normal => {
                self.over_normal = 0;
                self.over_low = step(self.over_low, low_waiting);
            }
            Priority::Low => self.over_low = 0,
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::{Fairness, MAX_HIGHER_POLLS_IN_A_ROW};
    use crate::task::Priority;

    /// Which priority a worker runs each time when every priority always
    /// has work waiting: the turns the bound gives the lower ones.
    fn schedule_with_everything_waiting(picks: usize) -> Vec<Priority> {
        let mut fairness = Fairness::default();
        (0..picks)
            .map(|_| {
                let ran = fairness.turn().unwrap_or(Priority::High);
                fairness.ran(ran, true, true);
                ran
            })
            .collect()
    }

    #[test]
    fn under_a_continuous_high_stream_every_priority_gets_turns() {
        let bound = MAX_HIGHER_POLLS_IN_A_ROW as usize;
        let ran = schedule_with_everything_waiting(10 * bound);
        let first_low = ran.iter().position(|&p| p == Priority::Low).unwrap();
        let first_normal = ran.iter().position(|&p| p == Priority::Normal).unwrap();
        assert_eq!(first_low, bound, "Low runs right after the bound");
        assert_eq!(first_normal, bound + 1, "Normal runs next");
        // No stretch without a lower-priority poll is longer than the bound.
        let mut since_lower = 0;
        for p in ran {
            since_lower = if p == Priority::High {
                since_lower + 1
            } else {
                0
            };
            assert!(since_lower <= bound);
        }
    }

    #[test]
    fn a_count_restarts_when_nothing_waits() {
        let mut fairness = Fairness::default();
        for _ in 0..2 * MAX_HIGHER_POLLS_IN_A_ROW {
            fairness.ran(Priority::High, false, false);
        }
        assert_eq!(fairness.turn(), None);
        fairness.ran(Priority::High, false, true);
        assert_eq!(fairness.turn(), None, "a Low task just queued waits");
    }
}
