//! What a task is told at spawn: its id, its name, where it was
//! spawned and its priority. The first three serve the task dump, the
//! slow-poll watchdog, the leak report and the `tracing` spans; the
//! priority picks the task's vtable (`harness::vtable`).

use crate::scheduler;
use crate::task::{Id, Priority};
use std::panic::Location;

/// The spawn-time facts of a task. An unnamed task costs no allocation:
/// the location is a `'static` reference the compiler emits for
/// `#[track_caller]`.
#[derive(Debug)]
pub(crate) struct TaskMeta {
    pub(crate) id: Id,
    pub(crate) name: Option<Box<str>>,
    pub(crate) location: &'static Location<'static>,
    /// `Normal` unless `task::Builder::priority` said otherwise.
    pub(crate) priority: Priority,
}

impl TaskMeta {
    /// A fresh id, no name, the location of the `#[track_caller]` chain
    /// that leads here (the user's spawn call).
    #[track_caller]
    #[inline]
    pub(crate) fn new() -> TaskMeta {
        TaskMeta::named(None)
    }

    /// A fresh id, no name, spawned at `location`.
    #[inline]
    pub(crate) fn at(location: &'static Location<'static>) -> TaskMeta {
        TaskMeta {
            id: Id::next(),
            name: None,
            location,
            priority: Priority::Normal,
        }
    }

    /// Names one of rt's own blocking jobs (`"rt::fs::read"`), but only
    /// when `rt`'s pool lists its running jobs (the watchdog is on): the
    /// report of a shutdown waiting for it then says what the job is
    /// (its spawn location is inside rt). Otherwise it stays unnamed and
    /// costs no allocation.
    pub(crate) fn name_rt_job(&mut self, rt: &scheduler::Handle, name: &'static str) {
        if rt.blocking_spawner().running_jobs().is_some() {
            self.name = Some(Box::from(name));
        }
    }

    /// As `new`, with a name.
    #[track_caller]
    #[inline]
    pub(crate) fn named(name: Option<&str>) -> TaskMeta {
        TaskMeta {
            id: Id::next(),
            name: name.map(Box::from),
            location: Location::caller(),
            priority: Priority::Normal,
        }
    }
}
