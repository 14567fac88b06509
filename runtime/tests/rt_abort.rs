//! `JoinHandle` output and cancellation: aborting idle, queued, running and
//! completed tasks, and abort racing completion.

mod support;

use futures_channel::oneshot;
use rt::task::JoinError;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Barrier};
use support::{DropCounter, Kind, block_on_each, each, each_runtime, miri_or, wait_until};

#[test]
fn join_handle_yields_the_output() {
    block_on_each(|_| async {
        let text = rt::spawn(async { String::from("output") }).await.unwrap();
        assert_eq!(text, "output");
        let vec = rt::spawn(async { vec![1u8; 1024] }).await.unwrap();
        assert_eq!(vec.len(), 1024);
    });
}

#[test]
fn abort_an_idle_task() {
    block_on_each(|_| async {
        let drops = DropCounter::new();
        let (started_tx, started_rx) = oneshot::channel();
        let guard = drops.guard();
        let handle = rt::spawn(async move {
            let _guard = guard;
            started_tx.send(()).unwrap();
            std::future::pending::<()>().await;
        });
        started_rx.await.unwrap();
        handle.abort();
        let error = handle.await.unwrap_err();
        assert!(error.is_cancelled());
        // The future was dropped before the handle saw the error.
        assert_eq!(drops.dropped(), 1);
    });
}

#[test]
fn abort_before_the_first_poll() {
    each_runtime(|kind, rt| {
        let polled = Arc::new(AtomicBool::new(false));
        let drops = DropCounter::new();
        let guard = drops.guard();
        let flag = polled.clone();
        // On a current-thread runtime nothing runs outside `block_on`, so
        // the task is certainly still queued when aborted.
        let handle = rt.spawn(async move {
            let _guard = guard;
            flag.store(true, Ordering::SeqCst);
        });
        handle.abort();
        let result = rt.block_on(handle);
        if kind == Kind::CurrentThread {
            assert!(result.unwrap_err().is_cancelled());
            assert!(!polled.load(Ordering::SeqCst), "an aborted task was polled");
            assert_eq!(
                drops.dropped(),
                1,
                "the runtime drops an aborted task's future before its handle yields"
            );
        } else {
            // A worker may have run it first; then the output stands.
            assert_eq!(result.is_ok(), polled.load(Ordering::SeqCst));
            assert_eq!(drops.dropped(), 1);
        }
    });
}

#[test]
fn a_task_aborting_itself_is_cancelled_at_its_next_suspension() {
    block_on_each(|_| async {
        let drops = DropCounter::new();
        let (abort_tx, abort_rx) = oneshot::channel::<rt::task::AbortHandle>();
        let reached_end = Arc::new(AtomicBool::new(false));
        let guard = drops.guard();
        let end = reached_end.clone();
        let handle = rt::spawn(async move {
            let _guard = guard;
            let me = abort_rx.await.unwrap();
            // Aborting while running only marks the task.
            me.abort();
            assert!(!me.is_finished());
            rt::task::yield_now().await;
            end.store(true, Ordering::SeqCst);
        });
        abort_tx.send(handle.abort_handle()).unwrap();
        assert!(handle.await.unwrap_err().is_cancelled());
        assert!(!reached_end.load(Ordering::SeqCst));
        assert_eq!(drops.dropped(), 1);
    });
}

/// A task blocked inside its poll on a worker, aborted from another thread:
/// the future is dropped when that poll returns, not before.
#[test]
fn abort_a_running_task_that_then_returns_pending() {
    each(&[Kind::MultiThread(2), Kind::MultiThread(4)], |_, rt| {
        let drops = DropCounter::new();
        let (in_poll_tx, in_poll_rx) = mpsc::channel();
        let (release_tx, release_rx) = mpsc::channel::<()>();
        let guard = drops.guard();
        let handle = rt.spawn(async move {
            let _guard = guard;
            in_poll_tx.send(()).unwrap();
            // Blocks this worker until the test has aborted the task.
            release_rx.recv().unwrap();
            std::future::pending::<()>().await;
        });
        in_poll_rx.recv().unwrap();
        handle.abort();
        assert!(!handle.is_finished());
        assert_eq!(
            drops.dropped(),
            0,
            "the running future was dropped under its poll"
        );
        release_tx.send(()).unwrap();
        assert!(rt.block_on(handle).unwrap_err().is_cancelled());
        assert_eq!(drops.dropped(), 1);
    });
}

/// The same, but the poll completes: abort came too late, the output stands.
#[test]
fn abort_a_running_task_that_then_completes() {
    each(&[Kind::MultiThread(2), Kind::MultiThread(4)], |_, rt| {
        let (in_poll_tx, in_poll_rx) = mpsc::channel();
        let (release_tx, release_rx) = mpsc::channel::<()>();
        let handle = rt.spawn(async move {
            in_poll_tx.send(()).unwrap();
            release_rx.recv().unwrap();
            "finished"
        });
        in_poll_rx.recv().unwrap();
        handle.abort();
        release_tx.send(()).unwrap();
        assert_eq!(rt.block_on(handle).unwrap(), "finished");
    });
}

#[test]
fn abort_a_completed_task_keeps_its_output() {
    each_runtime(|_, rt| {
        let drops = DropCounter::new();
        let guard = drops.guard();
        let handle = rt.spawn(async move { guard });
        rt.block_on(async {
            while !handle.is_finished() {
                rt::task::yield_now().await;
            }
        });
        handle.abort();
        let abort = handle.abort_handle();
        abort.abort();
        assert!(abort.is_finished());
        let output = rt.block_on(handle).unwrap();
        assert_eq!(drops.dropped(), 0, "the output is the caller's");
        drop(output);
        assert_eq!(drops.dropped(), 1);
    });
}

#[test]
fn abort_handle_outlives_the_join_handle() {
    block_on_each(|_| async {
        let drops = DropCounter::new();
        let guard = drops.guard();
        let handle = rt::spawn(async move {
            let _guard = guard;
            std::future::pending::<()>().await;
        });
        let abort = handle.abort_handle();
        let id = handle.id();
        drop(handle);
        assert_eq!(abort.id(), id);
        assert!(!abort.is_finished());
        abort.clone().abort();
        // Nothing to await: the abort dropped the future (now, or when a
        // worker is done with it).
        while !abort.is_finished() {
            rt::task::yield_now().await;
        }
        assert_eq!(drops.dropped(), 1);
    });
}

#[test]
fn dropping_a_join_handle_drops_an_unread_output() {
    block_on_each(|_| async {
        let drops = DropCounter::new();
        let guard = drops.guard();
        let handle = rt::spawn(async move { guard });
        while !handle.is_finished() {
            rt::task::yield_now().await;
        }
        assert_eq!(drops.dropped(), 0);
        drop(handle);
        assert_eq!(drops.dropped(), 1);
        // A detached task's output is dropped when it completes.
        let guard = drops.guard();
        let (go_tx, go_rx) = oneshot::channel::<()>();
        let (done_tx, done_rx) = oneshot::channel::<()>();
        drop(rt::spawn(async move {
            go_rx.await.unwrap();
            let _ = done_tx.send(());
            guard
        }));
        go_tx.send(()).unwrap();
        done_rx.await.unwrap();
        while drops.dropped() != 2 {
            rt::task::yield_now().await;
        }
    });
}

#[derive(Debug)]
enum Outcome {
    Completed,
    Cancelled,
}

/// Aborts a task that is about to complete, from another thread, many
/// times. Each run must end in one of the two legal outcomes, and every
/// future and output must be dropped exactly once.
#[test]
fn abort_racing_completion() {
    const ROUNDS: usize = miri_or(500, 8);
    each_runtime(|kind, rt| {
        let drops = DropCounter::new();
        let (mut completed, mut cancelled) = (0, 0);
        for round in 0..ROUNDS {
            let in_future = drops.guard();
            let in_output = drops.guard();
            let barrier = Arc::new(Barrier::new(2));
            let handle = rt.spawn(async move {
                let _in_future = in_future;
                rt::task::yield_now().await;
                (round, in_output)
            });
            let abort = handle.abort_handle();
            let aborter = {
                let barrier = barrier.clone();
                std::thread::spawn(move || {
                    barrier.wait();
                    abort.abort();
                })
            };
            // The task runs (on a current-thread runtime: inside this
            // `block_on`) while the other thread aborts it.
            let outcome = rt.block_on(async {
                barrier.wait();
                match handle.await {
                    Ok((r, output)) => {
                        assert_eq!(r, round);
                        drop(output);
                        Outcome::Completed
                    }
                    Err(error) => {
                        assert!(error.is_cancelled(), "round {round}: {error}");
                        Outcome::Cancelled
                    }
                }
            });
            aborter.join().unwrap();
            match outcome {
                Outcome::Completed => completed += 1,
                Outcome::Cancelled => cancelled += 1,
            }
        }
        eprintln!("{kind:?}: {completed} completed, {cancelled} cancelled");
        assert_eq!(completed + cancelled, ROUNDS);
        // A cancelled task never made its output, so count what exists.
        wait_until("every guard is dropped", || drops.alive() == 0);
        assert_eq!(drops.created(), 2 * ROUNDS);
        let metrics = rt.handle().metrics();
        wait_until("no task is alive", || metrics.num_alive_tasks() == 0);
    });
}

/// The same race with the `JoinHandle` dropped at the same time: nobody
/// reads the outcome, and still nothing leaks.
#[test]
fn abort_racing_completion_and_detach() {
    const ROUNDS: usize = miri_or(500, 8);
    each_runtime(|_, rt| {
        let drops = DropCounter::new();
        for _ in 0..ROUNDS {
            let in_future = drops.guard();
            let in_output = drops.guard();
            let handle = rt.spawn(async move {
                let _in_future = in_future;
                rt::task::yield_now().await;
                in_output
            });
            let abort = handle.abort_handle();
            let aborter = std::thread::spawn(move || abort.abort());
            let dropper = std::thread::spawn(move || drop(handle));
            // Give a current-thread runtime a chance to run the task.
            rt.block_on(rt::task::yield_now());
            aborter.join().unwrap();
            dropper.join().unwrap();
        }
        // Tasks not yet run are run (and finish) or cancelled by now.
        rt.block_on(async {
            let metrics = rt::runtime::Handle::current().metrics();
            while metrics.num_alive_tasks() != 0 {
                rt::task::yield_now().await;
            }
        });
        assert_eq!(drops.created(), 2 * ROUNDS);
        wait_until("every guard is dropped", || drops.alive() == 0);
    });
}

#[test]
fn join_error_of_an_aborted_task_names_it() {
    block_on_each(|_| async {
        let handle = rt::spawn(std::future::pending::<()>());
        let id = handle.id();
        handle.abort();
        let error: JoinError = handle.await.unwrap_err();
        assert_eq!(error.id(), id);
        assert_eq!(error.to_string(), format!("task {id} was cancelled"));
    });
}
