//! The shutdown sweep, watched: when a runtime shuts down, the futures of
//! the tasks it still holds are dropped on the thread that shuts it down
//! (`OwnedTasks::close_and_shutdown_all`), after the workers stopped. A
//! destructor that blocks there (joins a thread, flushes over a blocking
//! socket, waits on a lock) hangs the runtime's drop, and no worker's
//! counters show it.
//!
//! Only while the slow-poll watchdog is on (`Config::shutdown_sweep` is
//! `Some`):
//! 1. before dropping a task's future, the sweep records the task's label
//!    and counts the drop as a worker counts a poll
//!    (`WorkerMetrics::poll_started`); after, it clears it;
//! 2. the monitor samples it as it samples a worker (`watchdog.rs`) and
//!    reports a drop it has seen for the threshold, once, naming the task
//!    (which has left the owned list by then, hence the copied label).

use crate::runtime::dump::TaskLabel;
use crate::runtime::metrics::WorkerMetrics;
use crate::task::list::ListedTask;
use std::sync::Mutex;

/// The task whose future the shutdown sweep is dropping (step 1).
#[derive(Debug, Default)]
pub(crate) struct ShutdownSweep {
    pub(crate) metrics: WorkerMetrics,
    dropping: Mutex<Option<TaskLabel>>,
}

impl ShutdownSweep {
    /// Step 1: the sweep is about to drop `listed`'s future.
    pub(crate) fn dropping(&self, listed: &ListedTask) {
        let label = TaskLabel::of(listed);
        let id = label.id.as_u64();
        *self.dropping.lock().unwrap_or_else(|e| e.into_inner()) = Some(label);
        self.metrics.poll_started(id);
    }

    /// Step 1: the future is dropped.
    pub(crate) fn dropped(&self) {
        self.metrics.poll_finished();
    }

    /// The task being dropped, if it is still `id` (step 2).
    pub(crate) fn label_of(&self, id: u64) -> Option<TaskLabel> {
        let dropping = self.dropping.lock().unwrap_or_else(|e| e.into_inner());
        dropping
            .as_ref()
            .filter(|label| label.id.as_u64() == id)
            .cloned()
    }
}
