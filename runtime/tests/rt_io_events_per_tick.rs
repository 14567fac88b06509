//! `Builder::max_io_events_per_tick` bounds how many readiness events one
//! turn of the reactor takes, which `io_driver_ready_count` shows: with
//! four sockets readable at once, the turn that wakes the waiting task
//! dispatched one event under a bound of 1 and all four without it.

use rt::runtime::{Builder, Runtime};
use std::future::{Future, poll_fn};
use std::io::Write;
use std::pin::Pin;
use std::task::Poll;

const SOCKETS: usize = 4;

/// Makes `SOCKETS` registered sockets readable before the runtime's first
/// turn, waits in a task until any is reported readable, and returns how
/// many events the reactor had dispatched by then.
fn events_dispatched_by_first_wake(rt: &Runtime) -> u64 {
    let metrics = rt.metrics();
    rt.block_on(async {
        rt::spawn(async move {
            let mut peers = Vec::new();
            let mut sockets = Vec::new();
            for _ in 0..SOCKETS {
                // Only the reading ends are registered: the writers' own
                // readiness would add events of their own.
                let (ours, mut theirs) = std::os::unix::net::UnixStream::pair().unwrap();
                ours.set_nonblocking(true).unwrap();
                theirs.write_all(b"x").unwrap();
                sockets.push(rt::net::UnixStream::from_std(ours).unwrap());
                peers.push(theirs);
            }
            let before = metrics.io_driver_ready_count();
            let mut waits: Vec<Pin<Box<dyn Future<Output = std::io::Result<()>> + Send + '_>>> =
                sockets
                    .iter()
                    .map(|s| Box::pin(s.readable()) as _)
                    .collect();
            poll_fn(|cx| {
                for wait in &mut waits {
                    if let Poll::Ready(result) = wait.as_mut().poll(cx) {
                        result.unwrap();
                        return Poll::Ready(());
                    }
                }
                Poll::Pending
            })
            .await;
            let dispatched = metrics.io_driver_ready_count() - before;
            drop(waits);
            drop(peers);
            dispatched
        })
        .await
        .unwrap()
    })
}

fn builders() -> Vec<(&'static str, Builder)> {
    let current = Builder::new_current_thread();
    // One worker, and no non-blocking driver polls between its tasks in
    // this short test: the turn that wakes the task is the only one
    // before the task runs again.
    let mut multi = Builder::new_multi_thread();
    multi.worker_threads(1).event_interval(1_000_000);
    vec![("current_thread", current), ("multi_thread(1)", multi)]
}

#[test]
fn one_event_per_tick_dispatches_one_event_per_turn() {
    for (kind, mut builder) in builders() {
        let rt = builder
            .enable_io()
            .max_io_events_per_tick(1)
            .build()
            .unwrap();
        assert_eq!(events_dispatched_by_first_wake(&rt), 1, "{kind}");
    }
}

#[test]
fn default_tick_takes_every_ready_event_in_one_turn() {
    for (kind, mut builder) in builders() {
        let rt = builder.enable_io().build().unwrap();
        assert_eq!(
            events_dispatched_by_first_wake(&rt),
            SOCKETS as u64,
            "{kind}"
        );
    }
}

#[test]
fn a_bound_of_two_splits_four_events_over_turns() {
    let rt = Builder::new_current_thread()
        .enable_io()
        .max_io_events_per_tick(2)
        .build()
        .unwrap();
    assert_eq!(events_dispatched_by_first_wake(&rt), 2);
}

#[test]
#[should_panic(expected = "`max_io_events_per_tick` must be at least 1")]
fn zero_events_per_tick_panics() {
    Builder::new_current_thread().max_io_events_per_tick(0);
}
