//! `tracing` instrumentation of tasks (feature `tracing`): a root span per
//! task, entered around each poll, events (target `rt::task`, level
//! TRACE) for spawn, poll start and end, wake, completion and abort, and
//! waker events (target `runtime::waker`) for each clone, wake and drop
//! of a task's waker.
//!
//! The span and the waker events have the shape tokio-console's
//! `console-subscriber` looks for, so that the console shows rt's tasks
//! as it shows tokio's:
//!
//! 1. The span is named `runtime.spawn` (console's name for a task span,
//!    whatever its target; its filter lets every `runtime.*` span through)
//!    and carries `kind`, `task.name`, `task.id` and the spawn location as
//!    `loc.file`, `loc.line`, `loc.col`. Its target stays `rt::task`, with
//!    the events', so one filter on `rt::task` still shows both.
//! 2. Entering and exiting the span is a poll to the console: busy time
//!    is the time inside, idle time the rest.
//! 3. A waker event names its task by the span's *id* (`task.id`, which in
//!    a waker event is the span id, not rt's task id) and the operation
//!    by `op`: `waker.clone`, `waker.wake`, `waker.wake_by_ref`,
//!    `waker.drop`. The target `runtime::waker` is console's
//!    runtime-neutral one (tokio's is `tokio::task::waker`).
//! 4. The span closes when the task's memory is freed, which the console
//!    reads as the task's end.
//!
//! The waker events sit on hot paths; with no subscriber that wants them,
//! each costs one check of the callsite's cached interest.
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
                "runtime.spawn",
                kind = "task",
                task.name = meta.name.as_deref(),
                task.id = meta.id.as_u64(),
                loc.file = meta.location.file(),
                loc.line = meta.location.line(),
                loc.col = meta.location.column(),
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

/// What was done with one of a task's wakers, for the console.
#[derive(Clone, Copy, Debug)]
pub(crate) enum WakerOp {
    /// `Waker::clone`: one more waker.
    Clone,
    /// `Waker::wake`: a wake that consumes its waker.
    Wake,
    /// `Waker::wake_by_ref` (and rt's yield, a wake by reference).
    WakeByRef,
    /// A waker dropped without waking.
    Drop,
}

/// Emits the waker event for `op` on the task behind `header` (step 3 of
/// the module docs). Called before the operation, while the caller's
/// reference keeps the header alive: a wake or drop may free it.
#[cfg(feature = "tracing")]
#[inline(always)]
pub(crate) fn waker_event(header: &Header, op: WakerOp) {
    let op = match op {
        WakerOp::Clone => "waker.clone",
        WakerOp::Wake => "waker.wake",
        WakerOp::WakeByRef => "waker.wake_by_ref",
        WakerOp::Drop => "waker.drop",
    };
    // A span no subscriber wanted has no id, and no one wants its events.
    let Some(span) = header.span.span.id() else {
        return;
    };
    tracing::trace!(target: "runtime::waker", op, task.id = span.into_u64());
}

/// Without the feature: nothing.
#[cfg(not(feature = "tracing"))]
#[inline(always)]
pub(crate) fn waker_event(_header: &crate::task::raw::Header, _op: WakerOp) {}
