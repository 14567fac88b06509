//! `tracing` instrumentation of tasks (feature `tracing`): a root span per
//! task carrying its id, name and spawn location, entered around each
//! poll, and events (target `rt::task`, level TRACE) for spawn, poll start
//! and end, wake, completion and abort.
//!
//! Without the feature every item here is an empty inline function and
//! `TaskSpan` has no bytes: the task paths compile to what they were.

use crate::task::TaskMeta;
#[cfg(feature = "tracing")]
use crate::task::raw::Header;

/// A task's span (nothing without the feature).
#[derive(Debug)]
pub(crate) struct TaskSpan {
    #[cfg(feature = "tracing")]
    span: tracing::Span,
}

impl TaskSpan {
    /// The span of a task being spawned: a root, as tokio's task spans
    /// are, not a child of whatever span is current at the spawn (that of
    /// the spawning task, entered around its polls, or the user's). A
    /// child keeps its parent open, so a task that spawns its successor
    /// and ends (a retry loop, a respawning worker) would otherwise leave
    /// an ever longer chain of open spans behind, every log line of the
    /// newest task prefixed by all of them; and a task would stay nested
    /// in a request's span long after the request ended. Code that wants
    /// a task inside its span says so with `Instrument::instrument`.
    #[inline(always)]
    pub(crate) fn new(meta: &TaskMeta) -> TaskSpan {
        #[cfg(not(feature = "tracing"))]
        let _ = meta;
        TaskSpan {
            #[cfg(feature = "tracing")]
            span: tracing::trace_span!(
                target: "rt::task",
                parent: None,
                "task",
                id = meta.id.as_u64(),
                name = meta.name.as_deref(),
                location = %meta.location,
            ),
        }
    }

    /// Runs one poll of the task inside its span, between the poll start
    /// and end events.
    #[inline(always)]
    pub(crate) fn in_poll<R>(&self, poll: impl FnOnce() -> R) -> R {
        #[cfg(feature = "tracing")]
        {
            let _entered = self.span.enter();
            tracing::trace!(target: "rt::task", "poll start");
            let result = poll();
            tracing::trace!(target: "rt::task", "poll end");
            result
        }
        #[cfg(not(feature = "tracing"))]
        poll()
    }
}

/// What happened to a task, for its events.
#[derive(Clone, Copy, Debug)]
pub(crate) enum TaskEvent {
    Spawn,
    Wake,
    Complete,
    Abort,
}

/// Emits `event` in the span of the task behind `header`.
#[cfg(feature = "tracing")]
#[inline(always)]
pub(crate) fn task_event(header: &Header, event: TaskEvent) {
    let span = &header.span.span;
    let id = header.id.as_u64();
    match event {
        TaskEvent::Spawn => tracing::trace!(target: "rt::task", parent: span, id, "spawn"),
        TaskEvent::Wake => tracing::trace!(target: "rt::task", parent: span, id, "wake"),
        TaskEvent::Complete => tracing::trace!(target: "rt::task", parent: span, id, "complete"),
        TaskEvent::Abort => tracing::trace!(target: "rt::task", parent: span, id, "abort"),
    }
}

/// Without the feature: nothing.
#[cfg(not(feature = "tracing"))]
#[inline(always)]
pub(crate) fn task_event(_header: &crate::task::raw::Header, _event: TaskEvent) {}
