//! `Builder::max_io_events_per_tick` bounds how many readiness events one
//! turn of the reactor takes, which `io_driver_ready_count` shows: with
//! four sockets readable at once, the turn that wakes the waiting task
//! dispatched one event under a bound of 1 and all four without it.
//! `max_io_events_per_busy_tick` bounds only the turns that do not wait:
//! those of a thread kept busy by a yielding task.

use rt::runtime::{Builder, Runtime};
use std::future::{Future, poll_fn};
use std::io::Write;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::Poll;

const SOCKETS: usize = 4;

/// Makes `SOCKETS` registered sockets readable before the runtime's first
/// turn, waits in a task until any is reported readable, and returns how
/// many events the reactor had dispatched by then.
fn events_dispatched_by_first_wake(rt: &Runtime) -> u64 {
    events_dispatched_by_first_wake_with(rt, false)
}

/// As `events_dispatched_by_first_wake`; with `busy`, another task yields
/// meanwhile, so the thread never waits in the reactor: every turn is a
/// busy one.
fn events_dispatched_by_first_wake_with(rt: &Runtime, busy: bool) -> u64 {
    let metrics = rt.metrics();
    let done = Arc::new(AtomicBool::new(false));
    let spinner = busy.then(|| {
        let done = done.clone();
        rt.spawn(async move {
            while !done.load(Ordering::SeqCst) {
                rt::task::yield_now().await;
            }
        })
    });
    let dispatched = rt.block_on(async {
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
    });
    done.store(true, Ordering::SeqCst);
    if let Some(spinner) = spinner {
        rt.block_on(spinner).unwrap();
    }
    dispatched
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

/// For the busy turns: the multi-thread worker polls the reactor without
/// waiting every `event_interval` ticks (61 by default) while its tasks
/// keep it busy.
fn busy_builders() -> Vec<(&'static str, Builder)> {
    let mut multi = Builder::new_multi_thread();
    multi.worker_threads(1);
    vec![
        ("current_thread", Builder::new_current_thread()),
        ("multi_thread(1)", multi),
    ]
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

#[test]
fn busy_ticks_take_at_most_their_own_bound() {
    for (kind, mut builder) in busy_builders() {
        let rt = builder
            .enable_io()
            .max_io_events_per_busy_tick(1)
            .build()
            .unwrap();
        assert_eq!(events_dispatched_by_first_wake_with(&rt, true), 1, "{kind}");
    }
    for (kind, mut builder) in busy_builders() {
        let rt = builder.enable_io().build().unwrap();
        assert_eq!(
            events_dispatched_by_first_wake_with(&rt, true),
            SOCKETS as u64,
            "{kind}: no busy bound"
        );
    }
}

#[test]
fn the_busy_bound_leaves_waiting_turns_alone() {
    for (kind, mut builder) in builders() {
        let rt = builder
            .enable_io()
            .max_io_events_per_busy_tick(1)
            .build()
            .unwrap();
        assert_eq!(
            events_dispatched_by_first_wake(&rt),
            SOCKETS as u64,
            "{kind}"
        );
    }
}

#[test]
#[should_panic(expected = "`max_io_events_per_busy_tick` must be at least 1")]
fn zero_events_per_busy_tick_panics() {
    Builder::new_current_thread().max_io_events_per_busy_tick(0);
}
