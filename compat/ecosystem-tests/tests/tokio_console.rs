//! tokio-console on rt through the facade: console-subscriber's
//! `ConsoleLayer` as the global subscriber, its aggregator and gRPC server
//! on an rt runtime, and console-api's client reading the updates the
//! console would show. rt's task spans (feature `tracing`, which
//! console-subscriber's `tokio/tracing` turns on through the facade) are
//! tasks to the console: their names and spawn locations, their polls,
//! their wakes and waker clones and drops, and their end.

use console_api::instrument::instrument_client::InstrumentClient;
use console_api::instrument::{InstrumentRequest, Update};
use console_api::tasks::{Stats, Task};
use console_api::{Field, field};
use console_subscriber::{ConsoleLayer, ServerParts};
use rt_ecosystem_tests::{assert_rt_runs, bounded};
use std::collections::HashMap;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use tokio_stream::wrappers::TcpListenerStream;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// How many messages the pinger waits for, each in a poll of its own.
const ROUNDS: u64 = 5;
/// How many times the yielder yields (a wake of itself, from its poll).
const YIELDS: u64 = 3;

/// What the console has said so far: every task it announced, and the
/// newest stats of each (an update carries those that changed).
#[derive(Default)]
struct Seen {
    tasks: HashMap<u64, Task>,
    stats: HashMap<u64, Stats>,
}

impl Seen {
    fn add(&mut self, update: Update) {
        let Some(tasks) = update.task_update else {
            return;
        };
        for task in tasks.new_tasks {
            let id = task.id.as_ref().expect("a task without an id").id;
            self.tasks.insert(id, task);
        }
        self.stats.extend(tasks.stats_update);
    }

    /// The task named `name`, and its stats, once the console has both.
    fn named(&self, name: &str) -> Option<(&Task, &Stats)> {
        let (id, task) = self.tasks.iter().find(|(_, task)| {
            field_value(task, "task.name") == Some(field::Value::StrVal(name.into()))
        })?;
        Some((task, self.stats.get(id)?))
    }
}

/// The value of the task span's field `name`, as the console sent it.
fn field_value(task: &Task, name: &str) -> Option<field::Value> {
    task.fields
        .iter()
        .find(|Field { name: n, .. }| *n == Some(field::Name::StrName(name.into())))
        .and_then(|field| field.value.clone())
}

/// Reads the console's updates into `seen` until `done` says so.
async fn watch_until(
    what: &str,
    updates: &mut tonic::Streaming<Update>,
    seen: &mut Seen,
    done: impl Fn(&Seen) -> bool,
) {
    bounded(what, async {
        while !done(seen) {
            let update = updates.message().await.unwrap();
            seen.add(update.expect("the console's stream ended"));
        }
    })
    .await;
}

fn polls(stats: &Stats) -> u64 {
    stats.poll_stats.as_ref().map_or(0, |polls| polls.polls)
}

/// Waits for `rounds` messages in turn, saying on `ready` when it waits
/// for the next: on a current-thread runtime the sender runs only once
/// the task has parked on it, so each message is one wake and one poll.
async fn ping(rounds: Vec<oneshot::Receiver<u64>>, ready: mpsc::UnboundedSender<u64>) {
    for (n, round) in (0..).zip(rounds) {
        ready.send(n).unwrap();
        assert_eq!(round.await.unwrap(), n);
    }
}

/// Yields `times` times: each a wake of the task from its own poll.
async fn yields(times: u64) {
    for _ in 0..times {
        tokio::task::yield_now().await;
    }
}

#[test]
fn the_console_sees_rt_tasks_their_polls_and_wakes() {
    // The console's side, as console-subscriber's own `spawn` has it: its
    // aggregator and server on a current-thread runtime (rt's) on a thread
    // of its own that traces nothing (else each wake of the aggregator
    // would be an event for the aggregator, and so on); the layer, which
    // the aggregator reads, is the global subscriber, for the tasks of
    // every other thread.
    let (layer, server) = ConsoleLayer::builder()
        .publish_interval(Duration::from_millis(20))
        .build();
    tracing_subscriber::registry().with(layer).init();
    let (addr_tx, addr_rx) = std::sync::mpsc::channel();
    let (stop_console, console_stopped) = oneshot::channel::<()>();
    let console = std::thread::spawn(move || {
        let _quiet = tracing_subscriber::registry().set_default();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let ServerParts {
                instrument_server,
                aggregator,
                ..
            } = server.into_parts();
            let aggregator = tokio::spawn(aggregator.run());
            assert_rt_runs(aggregator.id());
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            addr_tx.send(listener.local_addr().unwrap()).unwrap();
            let server = tokio::spawn(
                tonic::transport::Server::builder()
                    .add_service(instrument_server)
                    .serve_with_incoming_shutdown(TcpListenerStream::new(listener), async {
                        // Err: the test panicked and dropped its sender.
                        let _ = console_stopped.await;
                    }),
            );
            assert_rt_runs(server.id());
            server.await.unwrap().unwrap();
            aggregator.abort();
        });
    });
    let addr = addr_rx.recv().unwrap();

    // The service's side: a current-thread runtime, where the test's
    // sends and the tasks' polls take turns, for exact counts.
    let service = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    service.block_on(async {
        let mut updates = bounded(
            "connect",
            InstrumentClient::connect(format!("http://{addr}")),
        )
        .await
        .unwrap()
        .watch_updates(InstrumentRequest {})
        .await
        .unwrap()
        .into_inner();
        let mut seen = Seen::default();

        let (ready_tx, mut ready) = mpsc::unbounded_channel();
        let (rounds, receivers): (Vec<_>, Vec<_>) = (0..ROUNDS).map(|_| oneshot::channel()).unzip();
        let pinger = rt::task::Builder::new().name("console-pinger");
        let (pinger, pinger_line) = (pinger.spawn(ping(receivers, ready_tx)).unwrap(), line!());
        let yielder = rt::task::Builder::new().name("console-yielder");
        let (yielder, yielder_line) = (yielder.spawn(yields(YIELDS)).unwrap(), line!());
        let (stop, stopped) = oneshot::channel::<()>();
        let waiter = rt::task::Builder::new().name("console-waiter");
        let waiter = waiter.spawn(stopped).unwrap();

        for (n, round) in (0..ROUNDS).zip(rounds) {
            assert_eq!(bounded("ready", ready.recv()).await, Some(n));
            round.send(n).unwrap();
        }
        bounded("pinger", pinger).await.unwrap();
        bounded("yielder", yielder).await.unwrap();

        // Both finished tasks' spans closed when their handles went: the
        // console has them as done (`dropped_at`); the waiter has had its
        // first poll.
        watch_until("the finished tasks", &mut updates, &mut seen, |seen| {
            ["console-pinger", "console-yielder"].iter().all(|name| {
                seen.named(name)
                    .is_some_and(|(_, s)| s.dropped_at.is_some())
            }) && seen
                .named("console-waiter")
                .is_some_and(|(_, s)| polls(s) == 1)
        })
        .await;

        for (name, line) in [
            ("console-pinger", pinger_line),
            ("console-yielder", yielder_line),
        ] {
            let (task, _) = seen.named(name).unwrap();
            let location = task.location.as_ref().expect("no location");
            assert_eq!(location.file.as_deref(), Some(file!()), "{name}");
            assert_eq!(location.line, Some(line), "{name}");
            assert_eq!(
                field_value(task, "kind"),
                Some(field::Value::StrVal("task".into()))
            );
        }

        // The pinger: a first poll, then one per message, each after the
        // wake of the channel's sender, the waker it kept a clone of
        // (consumed by the wake: no drops).
        let (_, pinger) = seen.named("console-pinger").unwrap();
        assert_eq!(polls(pinger), ROUNDS + 1, "{pinger:?}");
        assert_eq!(pinger.wakes, ROUNDS, "{pinger:?}");
        assert_eq!(pinger.self_wakes, 0, "{pinger:?}");
        assert_eq!(pinger.waker_clones, ROUNDS, "{pinger:?}");
        assert!(pinger.last_wake.is_some(), "{pinger:?}");
        let busy = pinger.poll_stats.as_ref().unwrap().busy_time.unwrap();
        assert!(busy.seconds > 0 || busy.nanos > 0, "{pinger:?}");

        // The yielder woke itself from inside each poll but its last.
        let (_, yielder) = seen.named("console-yielder").unwrap();
        assert_eq!(polls(yielder), YIELDS + 1, "{yielder:?}");
        assert_eq!(yielder.wakes, YIELDS, "{yielder:?}");
        assert_eq!(yielder.self_wakes, YIELDS, "{yielder:?}");

        // The waiter: polled once, parked, alive.
        let (_, waiting) = seen.named("console-waiter").unwrap();
        assert_eq!(waiting.dropped_at, None, "{waiting:?}");
        assert_eq!(polls(waiting), 1, "{waiting:?}");

        // Its wake and end reach the console too.
        stop.send(()).unwrap();
        bounded("waiter", waiter).await.unwrap().unwrap();
        watch_until("the waiter's end", &mut updates, &mut seen, |seen| {
            seen.named("console-waiter")
                .is_some_and(|(_, s)| s.dropped_at.is_some())
        })
        .await;
        let (_, waiter) = seen.named("console-waiter").unwrap();
        assert_eq!((polls(waiter), waiter.wakes), (2, 1), "{waiter:?}");
    });
    // The server's graceful shutdown waits for its streams: the client's,
    // which never ends on its own, goes with the service's runtime.
    drop(service);
    stop_console.send(()).unwrap();
    console.join().unwrap();
}
