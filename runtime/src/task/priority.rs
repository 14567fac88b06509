//! Task priorities: which ready task a worker runs first.
//!
//! A task's priority is chosen when it is spawned and kept in its vtable
//! (one per priority for each task type, so the header does not grow); it
//! never changes. The schedulers keep one queue per priority
//! (see `scheduler/priority.rs` for how they choose among them).

/// How urgently a task runs once it is ready.
///
/// A worker runs ready `High` tasks before `Normal` ones and those before
/// `Low` ones: from its own queues, from the runtime's global queue and
/// when it steals from other workers. Tasks of one priority run in the same
/// order they would without priorities.
///
/// Lower-priority work is never starved: after 32 polls in a row of
/// higher-priority tasks while lower-priority tasks wait, a worker runs one
/// task of the lowest waiting priority (and of `Normal` after 32 `High`
/// polls in a row), so `Low` tasks still complete under a continuous
/// stream of `High` work, at 1/33 of a worker at least.
///
/// A task keeps its priority for life. A wake-up schedules the woken task
/// at its own priority (whoever wakes it), and a task spawned from a
/// `High` task is `Normal` unless the spawn asks otherwise: priorities are
/// never inherited. Set one with
/// [`Builder::priority`](crate::task::Builder::priority); read the running
/// task's with [`priority()`]. A [`LocalSet`](crate::task::LocalSet) runs
/// its tasks in wake order whatever their priority.
///
/// The current-thread scheduler orders its tasks the same way. `Normal`
/// tasks alone run exactly as on a runtime where no task has a priority,
/// including the fast path for the task a worker woke last (its "LIFO
/// slot", which only ever holds a `Normal` task; while `High` or `Low`
/// tasks are queued, the slot's task waits its turn among the `Normal`
/// ones instead of running right after the task that woke it).
///
/// # Examples
///
/// ```
/// use rt::task::Priority;
///
/// assert_eq!(Priority::default(), Priority::Normal);
/// assert!(Priority::High > Priority::Normal && Priority::Normal > Priority::Low);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Priority {
    /// Bulk work: runs when no `High` or `Normal` task is ready (and at
    /// least once every 33 polls while it waits).
    Low = 0,
    /// The priority of every task that does not ask for another.
    #[default]
    Normal = 1,
    /// Latency-sensitive work (accepting connections, heartbeats, control
    /// messages): runs before every `Normal` and `Low` task that is ready.
    High = 2,
}

impl Priority {
    /// All priorities, highest first: the order a worker looks in.
    pub(crate) const HIGHEST_FIRST: [Priority; 3] =
        [Priority::High, Priority::Normal, Priority::Low];

    /// A dense index (`Low` 0, `Normal` 1, `High` 2) for per-priority arrays.
    #[inline]
    pub(crate) fn index(self) -> usize {
        self as usize
    }
}

/// The priority of the task being polled on this thread, or
/// [`Priority::Normal`] outside a task (in `block_on`'s own future, on a
/// thread outside any runtime, in a `spawn_blocking` closure).
///
/// # Examples
///
/// ```
/// use rt::task::{self, Priority};
///
/// assert_eq!(task::priority(), Priority::Normal);
/// let rt = rt::runtime::Runtime::new().unwrap();
/// let high = task::Builder::new()
///     .priority(Priority::High)
///     .spawn_on(async { task::priority() }, rt.handle())
///     .unwrap();
/// assert_eq!(rt.block_on(high).unwrap(), Priority::High);
/// let normal = rt.spawn(async { task::priority() });
/// assert_eq!(rt.block_on(normal).unwrap(), Priority::Normal);
/// ```
pub fn priority() -> Priority {
    crate::runtime::context::current_task_priority()
}
