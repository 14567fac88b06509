//! Feature `tracing`: a named task gets a span carrying its id, name and
//! spawn location (named and shaped as tokio-console's `console-subscriber`
//! expects a task span), with events for its spawn, polls, wake and
//! completion, waker events (`runtime::waker`) for each clone, wake and
//! drop of its wakers, and an abort event for an aborted task; a task's
//! span is a root, as tokio's are, whoever spawned the task.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id};
use tracing::{Event, Subscriber};
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

/// A span as recorded: its name and fields.
#[derive(Clone, Debug, Default)]
struct SpanRecord {
    name: String,
    fields: HashMap<String, String>,
    /// The id of the span's parent, explicit or contextual.
    parent: Option<u64>,
}

/// An event as recorded: the task id of its span (if any), its message.
type EventRecord = (Option<String>, String);

/// A waker event as recorded: the span id it names, its `op`.
type WakerRecord = (u64, String);

/// Everything the layer saw: spans by id, and events.
#[derive(Clone, Default)]
struct Recorded {
    spans: Arc<Mutex<HashMap<u64, SpanRecord>>>,
    events: Arc<Mutex<Vec<EventRecord>>>,
    wakers: Arc<Mutex<Vec<WakerRecord>>>,
}

struct Fields<'a>(&'a mut HashMap<String, String>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.0.insert(
            field.name().to_owned(),
            format!("{value:?}").trim_matches('"').to_owned(),
        );
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
}

impl<S> tracing_subscriber::Layer<S> for Recorded
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let parent = ctx
            .span(id)
            .and_then(|span| span.parent())
            .map(|parent| parent.id().into_u64());
        let mut record = SpanRecord {
            name: attrs.metadata().name().to_owned(),
            parent,
            ..SpanRecord::default()
        };
        attrs.record(&mut Fields(&mut record.fields));
        self.spans.lock().unwrap().insert(id.into_u64(), record);
    }

    fn on_event(&self, event: &Event<'_>, ctx: Context<'_, S>) {
        let mut fields = HashMap::new();
        event.record(&mut Fields(&mut fields));
        if event.metadata().target() == "runtime::waker" {
            let span = fields["task.id"].parse().unwrap();
            let op = fields.remove("op").unwrap();
            self.wakers.lock().unwrap().push((span, op));
            return;
        }
        let span = ctx.event_span(event).map(|span| span.id().into_u64());
        let task = span.and_then(|span| {
            self.spans.lock().unwrap()[&span]
                .fields
                .get("task.id")
                .cloned()
        });
        let message = fields.remove("message").unwrap_or_default();
        self.events.lock().unwrap().push((task, message));
    }
}

#[test]
fn a_named_task_gets_a_span_and_lifecycle_events() {
    let recorded = Recorded::default();
    let subscriber = tracing_subscriber::registry().with(recorded.clone());
    let _default = tracing::subscriber::set_default(subscriber);

    // A current-thread runtime polls on this thread, where the subscriber
    // is the default.
    let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    let (task, location) = rt.block_on(async {
        let (tx, rx) = futures_channel::oneshot::channel::<u32>();
        let task = rt::task::Builder::new()
            .name("traced")
            .spawn(async move { rx.await.unwrap() })
            .unwrap();
        // Where the task says it was spawned: this file, the line above.
        let dump = rt::runtime::Handle::current().dump();
        let location = dump.tasks()[0].location();
        assert_eq!(location.file(), file!());
        rt::task::yield_now().await;
        tx.send(7).unwrap();
        let id = task.id();
        assert_eq!(task.await.unwrap(), 7);
        (id, location)
    });

    let spans = recorded.spans.lock().unwrap();
    let (&span_id, span) = spans
        .iter()
        .find(|(_, span)| span.fields.get("task.name").map(String::as_str) == Some("traced"))
        .unwrap_or_else(|| panic!("no span for the named task: {spans:?}"));
    assert_eq!(span.name, "runtime.spawn");
    assert_eq!(span.fields["kind"], "task");
    assert_eq!(span.fields["task.id"], task.to_string());
    assert_eq!(span.fields["loc.file"], location.file());
    assert_eq!(span.fields["loc.line"], location.line().to_string());
    assert_eq!(span.fields["loc.col"], location.column().to_string());
    drop(spans);

    // The channel kept a clone of the task's waker and woke the task with
    // it (consuming it); every clone is consumed, by a wake or a drop.
    let ops: Vec<String> = recorded
        .wakers
        .lock()
        .unwrap()
        .iter()
        .filter(|(span, _)| *span == span_id)
        .map(|(_, op)| op.clone())
        .collect();
    let count = |op: &str| ops.iter().filter(|o| *o == op).count();
    assert!(count("waker.clone") >= 1, "{ops:?}");
    assert_eq!(count("waker.wake"), 1, "{ops:?}");
    assert_eq!(
        count("waker.clone"),
        count("waker.wake") + count("waker.drop"),
        "{ops:?}"
    );

    let events: Vec<String> = recorded
        .events
        .lock()
        .unwrap()
        .iter()
        .filter(|(id, _)| id.as_deref() == Some(task.to_string().as_str()))
        .map(|(_, message)| message.clone())
        .collect();
    for expected in ["spawn", "poll start", "poll end", "wake", "complete"] {
        assert!(
            events.iter().any(|e| e == expected),
            "no {expected}: {events:?}"
        );
    }
    // Polled twice: before the message, and after the wake.
    assert_eq!(
        events.iter().filter(|e| *e == "poll start").count(),
        2,
        "{events:?}"
    );
}

#[test]
fn an_aborted_task_records_the_abort() {
    let recorded = Recorded::default();
    let subscriber = tracing_subscriber::registry().with(recorded.clone());
    let _default = tracing::subscriber::set_default(subscriber);
    let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    let id = rt.block_on(async {
        let task = rt::task::Builder::new()
            .name("aborted")
            .spawn(std::future::pending::<()>())
            .unwrap();
        rt::task::yield_now().await;
        task.abort();
        let id = task.id();
        assert!(task.await.unwrap_err().is_cancelled());
        id
    });
    let events = recorded.events.lock().unwrap();
    let mine: Vec<&str> = events
        .iter()
        .filter(|(task, _)| task.as_deref() == Some(id.to_string().as_str()))
        .map(|(_, message)| message.as_str())
        .collect();
    assert!(mine.contains(&"abort"), "{mine:?}");
    assert!(mine.contains(&"complete"), "{mine:?}");
}

/// A task's span has no parent: not the span of the task that spawned it
/// (entered around its every poll), nor the user's span the spawn ran in.
/// A child span keeps its parent open, so a task that respawns itself
/// would otherwise build an ever longer chain of open spans, each log line
/// of the newest one prefixed by all of them.
#[test]
fn a_task_span_is_a_root_whoever_spawns_the_task() {
    let recorded = Recorded::default();
    let subscriber = tracing_subscriber::registry().with(recorded.clone());
    let _default = tracing::subscriber::set_default(subscriber);
    let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    rt.block_on(async {
        let outer = rt::task::Builder::new()
            .name("outer")
            .spawn(async {
                let request = tracing::info_span!("request");
                let _in_request = request.enter();
                let inner = rt::task::Builder::new()
                    .name("inner")
                    .spawn(async {})
                    .unwrap();
                drop(_in_request);
                inner.await.unwrap();
            })
            .unwrap();
        outer.await.unwrap();
    });
    let spans = recorded.spans.lock().unwrap();
    for name in ["outer", "inner"] {
        let span = spans
            .values()
            .find(|span| span.fields.get("task.name").map(String::as_str) == Some(name))
            .unwrap_or_else(|| panic!("no span for {name}: {spans:?}"));
        assert_eq!(span.parent, None, "{name}'s span has a parent: {spans:?}");
    }
}
