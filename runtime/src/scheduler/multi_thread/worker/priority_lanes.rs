//! Where a worker looks for `High` and `Low` tasks, and the order it
//! chooses in while any is queued (steps 2-4 of `scheduler/priority.rs`).
//!
//! A worker takes a task of a lane from:
//! 1. every `global_queue_interval` ticks, the lane's injector first (a
//!    batch, so tasks spawned from outside are not starved by a worker's
//!    own stream of that priority);
//! 2. its own lane;
//! 3. a batch from the lane's injector;
//! 4. for `High` always, for `Low` only when its starvation turn has come:
//!    half of a peer's lane, trying each peer once from a random start.
//!    A `High` task queued on a worker that is busy in a long poll is
//!    taken by the next worker to choose a task, searching or not;
//!    `Low` work on a busy peer waits for a searcher unless its turn
//!    has come.
//!
//! Every task taken from a lane is uncounted from `QueuedCounts` by the
//! worker that takes it, whichever lane it was pushed to, and counted as
//! one poll of its priority in that worker's metrics (it is polled at
//! once).

use super::{Core, Handle, steal_from_peers};
use crate::loom::deque::{Injector, Steal, Worker as Deque};
use crate::task::{Notified, Priority};

impl Core {
    /// Steps 2-4 of `scheduler/priority.rs`: some `High` or `Low` task
    /// may be queued. Out of line: the all-`Normal` path never calls it.
    #[cold]
    #[inline(never)]
    pub(super) fn next_task_by_priority(&mut self, handle: &Handle) -> Option<Notified> {
        let turn = self.fairness.turn();
        let mut found =
            turn.and_then(|priority| Some((priority, self.take(handle, priority, true)?)));
        if found.is_none() {
            found = Priority::HIGHEST_FIRST
                .into_iter()
                .filter(|&priority| Some(priority) != turn)
                .find_map(|priority| Some((priority, self.take(handle, priority, false)?)));
        }
        let (ran, task) = found?;
        let normal_waiting = ran == Priority::High && self.has_normal_work(handle);
        let low_waiting = ran != Priority::Low && handle.shared.queued.get(Priority::Low) != 0;
        self.fairness.ran(ran, normal_waiting, low_waiting);
        Some(task)
    }

    /// A task of `priority` from this worker's queues or the injector
    /// (and, for `High` or on a turn, from a peer's lane).
    fn take(&mut self, handle: &Handle, priority: Priority, is_turn: bool) -> Option<Notified> {
        match priority {
            Priority::Normal => self.next_normal_task(handle),
            Priority::High => self.take_lane(handle, priority, true),
            Priority::Low => self.take_lane(handle, priority, is_turn),
        }
    }

    /// `true` if a `Normal` task waits here or in the injector (the
    /// starvation bound's "waiting").
    fn has_normal_work(&self, handle: &Handle) -> bool {
        self.has_local_normal_work(handle) || !handle.shared.inject.is_empty()
    }

    /// Steps 1-4 of the module docs for the lane of `priority`.
    fn take_lane(
        &mut self,
        handle: &Handle,
        priority: Priority,
        from_peers: bool,
    ) -> Option<Notified> {
        let shared = &handle.shared;
        if shared.queued.get(priority) == 0 {
            return None;
        }
        let local = self.lanes.get(priority);
        let inject = shared.inject_lanes.get(priority);
        let mut task = None;
        if self.global_queue_interval.is_turn(self.tick) {
            task = inject.steal_batch_and_pop(local).success();
        }
        task = task
            .or_else(|| local.pop())
            .or_else(|| steal_injector(inject, local));
        if task.is_none() && from_peers {
            return self.steal_lane(handle, priority);
        }
        if task.is_some() {
            self.took_from_lane(handle, priority);
        }
        task
    }

    /// Half of a peer's lane of `priority`, trying each peer once from a
    /// random start, then the lane's injector.
    pub(super) fn steal_lane(&mut self, handle: &Handle, priority: Priority) -> Option<Notified> {
        loop {
            let (task, retry) = steal_from_peers(
                handle,
                self.index,
                &mut self.rand,
                self.lanes.get(priority),
                |remote| remote.lanes.get(priority),
                false,
            );
            let task = task.or_else(|| {
                steal_injector(
                    handle.shared.inject_lanes.get(priority),
                    self.lanes.get(priority),
                )
            });
            if task.is_some() {
                self.took_from_lane(handle, priority);
                return task;
            }
            if !retry {
                return None;
            }
        }
    }

    /// A task of `priority` left the lanes, to be polled at once.
    fn took_from_lane(&self, handle: &Handle, priority: Priority) {
        handle.shared.queued.remove(priority);
        handle.shared.metrics[self.index].priority_polled(priority);
    }

    /// Queues a `High` or `Low` task woken on this worker. The first one
    /// waiting is this worker's to run next (as the LIFO slot's task is);
    /// from the second on, an idle worker is woken to steal. A yielded
    /// task wakes nobody: this worker is awake and runs it.
    #[cold]
    #[inline(never)]
    pub(super) fn push_lane(
        &mut self,
        handle: &Handle,
        task: Notified,
        priority: Priority,
        is_yield: bool,
    ) {
        let lane = self.lanes.get(priority);
        let was_empty = lane.is_empty();
        handle.shared.queued.add(priority);
        lane.push(task);
        if !is_yield && !was_empty {
            self.notify_stealable(handle);
        }
    }
}

/// A batch from `inject` into `local`, retrying while the injector is
/// contended.
fn steal_injector(inject: &Injector<Notified>, local: &Deque<Notified>) -> Option<Notified> {
    loop {
        match inject.steal_batch_and_pop(local) {
            Steal::Success(task) => return Some(task),
            Steal::Empty => return None,
            Steal::Retry => continue,
        }
    }
}
