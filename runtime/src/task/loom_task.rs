//! Loom models of the task core alone: `abort()` racing a poll that
//! completes, a wake, the `JoinHandle`'s drop and the shutdown sweep, a
//! wake by value whose scheduler call outlives the task's completion, and
//! the owned-list entry of a task that completes while its `JoinHandle`
//! waits, which the handle's drop or read, the shutdown sweep and a dump
//! race to remove or read; and a wake from another thread during the
//! poll, which resubmits the task as woken unless it yielded; and the
//! count of `AbortHandle`s that tells an idle task's last waker gone.
//!
//! The scheduler is a queue the model drains by hand, so every
//! interleaving of the state word's transitions is explored without a
//! runtime around them. Without `--cfg loom` each model runs once, on
//! real threads: `scripts/miri` runs them that way as the task core's
//! unit tests. In each model the future and the task allocation
//! must be dropped exactly once: the future holds a drop counter, and the
//! task holds a loom `Arc` (the scheduler), which loom reports if leaked.

use crate::loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use crate::loom::sync::{Arc, Mutex};
use crate::loom::thread;
use crate::task::list::OwnedTasks;
use crate::task::{JoinError, JoinHandle, Notified, Schedule, TaskMeta};
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

/// A run queue and an owned list; the model runs the queue.
struct Queue {
    tasks: Mutex<VecDeque<Notified>>,
    owned: OwnedTasks,
    /// Run by `schedule` after the push.
    after_push: Option<Box<dyn Fn() + Send + Sync>>,
    /// How many tasks were resubmitted as yields.
    yields: AtomicUsize,
    /// Report a panic no `JoinHandle` reads, as a runtime with its
    /// watchdog on does.
    watchdog_on: bool,
}

impl Schedule for Arc<Queue> {
    fn schedule(&self, task: Notified) {
        self.tasks.lock().unwrap().push_back(task);
        // A real scheduler goes on after the push (it wakes a worker), and
        // its thread may be preempted there for any length of time.
        if let Some(after_push) = &self.after_push {
            after_push();
        }
    }

    fn yield_now(&self, task: Notified) {
        self.yields.fetch_add(1, Ordering::SeqCst);
        self.schedule(task);
    }

    fn owned_tasks(&self) -> Option<&OwnedTasks> {
        Some(&self.owned)
    }

    fn watchdog_on(&self) -> bool {
        self.watchdog_on
    }
}

fn queue(after_push: Option<Box<dyn Fn() + Send + Sync>>) -> Arc<Queue> {
    Arc::new(Queue {
        tasks: Mutex::new(VecDeque::new()),
        owned: OwnedTasks::new(1),
        after_push,
        yields: AtomicUsize::new(0),
        watchdog_on: false,
    })
}

/// Runs queued tasks until the queue is empty.
fn run_queue(queue: &Queue) {
    loop {
        let task = queue.tasks.lock().unwrap().pop_front();
        match task {
            Some(task) => task.run(),
            None => return,
        }
    }
}

/// Counts its drops.
struct Guard(Arc<AtomicUsize>);

impl Drop for Guard {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// Pending on its first poll (after storing the waker for the model to
/// wake, or waking itself), ready on the next.
struct YieldOnce {
    polled: bool,
    wake_itself: bool,
    waker: Arc<Mutex<Option<Waker>>>,
    _guard: Guard,
}

impl Future for YieldOnce {
    type Output = u32;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<u32> {
        if self.polled {
            return Poll::Ready(7);
        }
        self.polled = true;
        if self.wake_itself {
            cx.waker().wake_by_ref();
        } else {
            *self.waker.lock().unwrap() = Some(cx.waker().clone());
        }
        Poll::Pending
    }
}

struct Spawned {
    queue: Arc<Queue>,
    join: JoinHandle<u32>,
    drops: Arc<AtomicUsize>,
    waker: Arc<Mutex<Option<Waker>>>,
}

fn spawn(wake_itself: bool) -> Spawned {
    spawn_with(wake_itself, |_| None)
}

/// As `spawn`, with a hook for the queue to run after each push, made
/// from the task's drop counter.
fn spawn_with(
    wake_itself: bool,
    after_push: impl FnOnce(&Arc<AtomicUsize>) -> Option<Box<dyn Fn() + Send + Sync>>,
) -> Spawned {
    let drops = Arc::new(AtomicUsize::new(0));
    let queue = queue(after_push(&drops));
    let waker = Arc::new(Mutex::new(None));
    let future = YieldOnce {
        polled: false,
        wake_itself,
        waker: waker.clone(),
        _guard: Guard(drops.clone()),
    };
    let (join, notified) = queue.owned.bind(future, queue.clone(), TaskMeta::new());
    queue.schedule(notified.expect("the list is open"));
    Spawned {
        queue,
        join,
        drops,
        waker,
    }
}

/// The waker the task's first poll stored (`YieldOnce`, not waking
/// itself).
fn stored(waker: &Mutex<Option<Waker>>) -> Waker {
    waker
        .lock()
        .unwrap()
        .take()
        .expect("the first poll stored it")
}

/// Polls the handle once; it must be ready.
fn join_now(join: &mut JoinHandle<u32>) -> Result<u32, JoinError> {
    match Pin::new(join).poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(result) => result,
        Poll::Pending => panic!("the task has not finished"),
    }
}

/// A task that wakes itself (so it is queued or running while the abort
/// lands) is aborted from another thread while a worker runs it to
/// completion: the output stands or the task is cancelled, and the
/// future is dropped once, by the worker, never by the aborting thread.
#[test]
fn loom_abort_races_poll_to_completion() {
    crate::loom::model(|| {
        let Spawned {
            queue,
            mut join,
            drops,
            ..
        } = spawn(true);
        let abort = join.abort_handle();
        let worker = {
            let queue = queue.clone();
            thread::spawn(move || run_queue(&queue))
        };
        abort.abort();
        worker.join().unwrap();
        // An abort that found the task idle queued it once more.
        run_queue(&queue);
        match join_now(&mut join) {
            Ok(value) => assert_eq!(value, 7),
            Err(error) => assert!(error.is_cancelled()),
        }
        assert_eq!(drops.load(Ordering::SeqCst), 1);
    });
}

/// An idle task is woken and aborted at the same time, from two threads,
/// while the `JoinHandle` is dropped: the task is queued at most once per
/// notification, dropped once, and freed (no leaked `Arc`).
#[test]
fn loom_abort_races_wake_and_join_handle_drop() {
    crate::loom::model(|| {
        let Spawned {
            queue,
            join,
            drops,
            waker,
        } = spawn(false);
        run_queue(&queue);
        let waker = stored(&waker);
        let abort = join.abort_handle();
        let waking = thread::spawn(move || waker.wake());
        let aborting = thread::spawn(move || abort.abort());
        drop(join);
        waking.join().unwrap();
        aborting.join().unwrap();
        assert_eq!(drops.load(Ordering::SeqCst), 0, "only a worker drops it");
        run_queue(&queue);
        assert_eq!(drops.load(Ordering::SeqCst), 1);
        assert!(queue.tasks.lock().unwrap().is_empty());
    });
}

/// An idle task is aborted while the runtime's shutdown sweep runs and
/// drops the queue's entries without running them: whichever comes
/// first, the sweep cancels the task (the abort's queue entry never
/// runs), the handle yields `Cancelled`, and everything is freed.
#[test]
fn loom_abort_races_shutdown_sweep() {
    crate::loom::model(|| {
        let Spawned {
            queue,
            mut join,
            drops,
            ..
        } = spawn(false);
        run_queue(&queue);
        let abort = join.abort_handle();
        let aborting = thread::spawn(move || abort.abort());
        queue.owned.close_and_shutdown_all();
        aborting.join().unwrap();
        // The workers are gone: queued entries are dropped, never run.
        queue.tasks.lock().unwrap().clear();
        assert!(join_now(&mut join).unwrap_err().is_cancelled());
        assert_eq!(drops.load(Ordering::SeqCst), 1);
    });
}

/// A detached task is woken by value from another thread, and the thread
/// that pushes it is held up inside the scheduler's `schedule` call (as a
/// preempted thread would be) until a worker has run the task to
/// completion and dropped it. The task must not be freed while that call,
/// whose `&self` is the scheduler stored in the task, is still running
/// (Miri reported the free racing that call's reads when the waker's
/// reference moved into the `Notified`).
#[test]
fn loom_wake_by_val_outlives_the_schedule_call() {
    crate::loom::model(|| {
        let armed = Arc::new(AtomicBool::new(false));
        let Spawned {
            queue,
            join,
            drops,
            waker,
        } = spawn_with(false, |drops| {
            let (armed, drops) = (armed.clone(), drops.clone());
            Some(Box::new(move || {
                if armed.load(Ordering::SeqCst) {
                    while drops.load(Ordering::SeqCst) == 0 {
                        thread::yield_now();
                    }
                }
            }))
        });
        run_queue(&queue);
        drop(join);
        let waker = stored(&waker);
        let worker = {
            let (queue, drops) = (queue.clone(), drops.clone());
            thread::spawn(move || {
                while drops.load(Ordering::SeqCst) == 0 {
                    run_queue(&queue);
                    thread::yield_now();
                }
            })
        };
        armed.store(true, Ordering::SeqCst);
        waker.wake();
        worker.join().unwrap();
        assert_eq!(drops.load(Ordering::SeqCst), 1);
    });
}

/// Counts the owned list's entries, as a dump walks them (reading each
/// task's state under its shard's lock).
fn listed(queue: &Queue) -> usize {
    let mut count = 0;
    queue.owned.for_each(|listed| {
        let _ = listed.header().state.load();
        count += 1;
    });
    count
}

/// Whether the owned list's one task has lost its waker, as a dump reads
/// it.
fn lost_waker(queue: &Queue) -> bool {
    let mut lost = None;
    queue
        .owned
        .for_each(|listed| lost = Some(listed.header().state.load().has_lost_waker()));
    lost.expect("the task is listed")
}

/// An idle task's one waker is dropped on one thread while an
/// `AbortHandle` of it is cloned and both copies dropped on another: the
/// abort handles' count and the references move together, so once both
/// threads are done the dump sees no waker (and not before the waker
/// went), nothing was freed early, and the shutdown frees it all.
#[test]
fn loom_abort_handles_beside_the_last_waker_drop() {
    crate::loom::model(|| {
        let Spawned {
            queue,
            mut join,
            drops,
            waker,
        } = spawn(false);
        run_queue(&queue);
        let waker = stored(&waker);
        let abort = join.abort_handle();
        assert!(!lost_waker(&queue), "the waker is alive");
        let dropping = thread::spawn(move || drop(waker));
        let cloning = thread::spawn(move || drop(abort.clone()));
        cloning.join().unwrap();
        dropping.join().unwrap();
        assert!(lost_waker(&queue));
        assert_eq!(drops.load(Ordering::SeqCst), 0);
        queue.owned.close_and_shutdown_all();
        assert_eq!(drops.load(Ordering::SeqCst), 1);
        assert!(join_now(&mut join).unwrap_err().is_cancelled());
    });
}

/// Panics on its first poll.
struct Panics;

impl Future for Panics {
    type Output = u32;

    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<u32> {
        panic!("a panic no JoinHandle reads");
    }
}

/// A task panics while its `JoinHandle` is dropped, on a scheduler that
/// reports lost panics: the report looks the task up in the owned list
/// (under its shard's lock) just before the worker or the handle's drop
/// removes the entry. Neither deadlocks, the entry goes exactly once and
/// the task is freed.
#[test]
fn loom_join_handle_drop_races_a_reported_panic() {
    crate::loom::model(|| {
        let queue = Arc::new(Queue {
            tasks: Mutex::new(VecDeque::new()),
            owned: OwnedTasks::new(1),
            after_push: None,
            yields: AtomicUsize::new(0),
            watchdog_on: true,
        });
        let (join, notified) = queue.owned.bind(Panics, queue.clone(), TaskMeta::new());
        queue.schedule(notified.expect("the list is open"));
        let worker = {
            let queue = queue.clone();
            thread::spawn(move || run_queue(&queue))
        };
        drop(join);
        worker.join().unwrap();
        assert_eq!(listed(&queue), 0);
        assert_eq!(queue.owned.len(), 0);
    });
}

/// The `JoinHandle` is dropped while a worker completes the task: either
/// the task completes first and stays listed until the drop removes it,
/// or the drop comes first (maybe between the worker's look at the join
/// interest and its completion) and the worker removes it. Either way
/// the entry goes exactly once, the output is dropped once and the task
/// is freed (a task left in the list would leak its `Arc`).
#[test]
fn loom_join_handle_drop_races_completion() {
    crate::loom::model(|| {
        let Spawned {
            queue, join, drops, ..
        } = spawn(true);
        let worker = {
            let queue = queue.clone();
            thread::spawn(move || run_queue(&queue))
        };
        drop(join);
        worker.join().unwrap();
        assert_eq!(drops.load(Ordering::SeqCst), 1);
        assert_eq!(listed(&queue), 0);
        assert_eq!(queue.owned.len(), 0);
    });
}

/// A task completed while its `JoinHandle` was held: it is listed, not
/// counted alive. Then the shutdown sweep, a dump and the handle (reading
/// the output, or dropped) race for the entry: it goes exactly once, the
/// read gets the output, and the task is freed.
fn complete_task_races_shutdown(read: bool) {
    crate::loom::model(move || {
        let Spawned {
            queue,
            mut join,
            drops,
            ..
        } = spawn(true);
        run_queue(&queue);
        assert!(join.is_finished());
        assert_eq!(listed(&queue), 1);
        assert_eq!(queue.owned.len(), 0, "a complete task is not alive");
        let sweep = {
            let queue = queue.clone();
            thread::spawn(move || queue.owned.close_and_shutdown_all())
        };
        let dump = {
            let queue = queue.clone();
            thread::spawn(move || assert!(listed(&queue) <= 1))
        };
        if read {
            assert_eq!(join_now(&mut join).unwrap(), 7);
        } else {
            drop(join);
        }
        sweep.join().unwrap();
        dump.join().unwrap();
        assert_eq!(drops.load(Ordering::SeqCst), 1);
        assert_eq!(listed(&queue), 0);
    });
}

#[test]
fn loom_join_handle_read_races_shutdown_of_a_complete_task() {
    complete_task_races_shutdown(true);
}

#[test]
fn loom_join_handle_drop_races_shutdown_of_a_complete_task() {
    complete_task_races_shutdown(false);
}

/// Pending on its first poll, after sharing its waker (taken by another
/// thread of the model) and, if `yields`, yielding; ready on the next.
struct SharesWaker {
    polled: bool,
    yields: bool,
    waker: Arc<Mutex<Option<Waker>>>,
}

impl Future for SharesWaker {
    type Output = u32;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<u32> {
        if self.polled {
            return Poll::Ready(7);
        }
        self.polled = true;
        *self.waker.lock().unwrap() = Some(cx.waker().clone());
        if self.yields {
            crate::task::waker::wake_as_yield(cx.waker());
        }
        Poll::Pending
    }
}

/// Another thread wakes the task with the waker its first poll shared,
/// during that poll or after it: the task is queued once more and runs
/// to completion either way. It is resubmitted as a yield exactly when
/// its poll yielded (`yields`), whichever wake landed first; another
/// thread's wake alone is never a yield.
fn wake_during_poll(yields: bool) {
    crate::loom::model(move || {
        let queue = queue(None);
        let waker = Arc::new(Mutex::new(None));
        let future = SharesWaker {
            polled: false,
            yields,
            waker: waker.clone(),
        };
        let (mut join, notified) = queue.owned.bind(future, queue.clone(), TaskMeta::new());
        queue.schedule(notified.expect("the list is open"));
        let other = thread::spawn(move || {
            loop {
                if let Some(waker) = waker.lock().unwrap().take() {
                    waker.wake();
                    return;
                }
                thread::yield_now();
            }
        });
        run_queue(&queue);
        other.join().unwrap();
        run_queue(&queue);
        assert_eq!(join_now(&mut join).unwrap(), 7);
        assert_eq!(queue.yields.load(Ordering::SeqCst), usize::from(yields));
    });
}

#[test]
fn loom_a_wake_from_another_thread_during_the_poll_is_not_a_yield() {
    wake_during_poll(false);
}

#[test]
fn loom_a_yield_stays_a_yield_beside_another_threads_wake() {
    wake_during_poll(true);
}
