//! The stress suite: millions of spawns, wakes and aborts across every
//! worker with exact accounting, shutdowns at random moments under load,
//! wakers woken from foreign threads after their task finished, join
//! handles dropped from other threads, and a saturated blocking pool shut
//! down. Counts are bounded so the suite takes seconds, not minutes.
//!
//! The accounting, checked after each scenario:
//! - every task either completed (counted by the task itself) or its
//!   handle reported it cancelled: the two add up to the tasks spawned;
//! - every task allocation was freed (`task::__live_task_allocations`,
//!   counted in tasks: crossbeam-epoch frees its own memory late and a
//!   thread's cached parker outlives a runtime, so bytes would not add up);
//! - every value a task captured or returned was dropped (`Arc` counts).
//!
//! The tests are `#[ignore]`d so the everyday `cargo test` stays quick:
//! `.ci/run` runs them with `cargo test -p rt --test stress_tasks --
//! --ignored`. They share a process-wide allocation count, so each one
//! holds `SERIAL` while it runs.

mod support;

use rt::runtime::Builder;
use rt::task::{AbortHandle, JoinHandle};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, mpsc};
use std::task::Waker;
use std::thread;
use std::time::Duration;
use support::{Kind, wait_until};

/// Serializes the tests: the live-allocation count is process-wide.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The kinds the suite runs on: both schedulers, the multi-thread one with
/// as many workers as the machine has cores and with more.
const KINDS: [Kind; 3] = [
    Kind::CurrentThread,
    Kind::MultiThread(2),
    Kind::MultiThread(4),
];

/// Task allocations alive now.
fn live_tasks() -> usize {
    rt::task::__live_task_allocations().expect(
        "the stress suite counts task allocations, which only debug builds do: run it \
         without --release",
    )
}

/// Waits until every task allocation made since `baseline` was freed.
fn expect_all_tasks_freed(baseline: usize, what: &str) {
    wait_until(&format!("every task of {what} is freed"), || {
        live_tasks() <= baseline
    });
    assert_eq!(live_tasks(), baseline, "{what}: task allocations");
}

/// xorshift64*: the suite's random choices, seeded per scenario and
/// printed, so a failing run names its seed.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn below(&mut self, n: u64) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D) % n
    }
}

/// What every task in a scenario captures: its `Arc` count says how many
/// task futures (or outputs) are still alive.
#[derive(Debug, Default)]
struct Captured {
    completed: AtomicUsize,
}

/// How many tasks of one scenario ended how, read from their handles.
#[derive(Debug, Default, PartialEq, Eq)]
struct Outcomes {
    completed: usize,
    cancelled: usize,
}

impl Outcomes {
    fn record<T>(&mut self, result: Result<T, rt::task::JoinError>) {
        match result {
            Ok(_) => self.completed += 1,
            Err(error) if error.is_cancelled() => self.cancelled += 1,
            Err(error) => panic!("a stress task failed: {error}"),
        }
    }
}

/// Spawn, wake and abort: each task yields (waking itself) `YIELDS`
/// times, then waits for a wake from a foreign thread; about one in four
/// is aborted from another thread while it runs, waits or is queued.
/// 800,000 wakes and 100,000 spawns per runtime kind: 300,000 spawns,
/// 2,400,000 wakes and some 75,000 aborts in all.
#[test]
#[ignore = "stress suite: run by .ci/run with --ignored"]
fn spawn_wake_abort_with_exact_accounting() {
    const TASKS: usize = 100_000;
    const YIELDS: usize = 7;
    const BATCH: usize = 2_000;
    let _serial = serial();
    for (seed, kind) in KINDS.into_iter().enumerate() {
        eprintln!("--- on {kind:?}, seed {seed}");
        let baseline = live_tasks();
        let captured = Arc::new(Captured::default());
        let rt = kind.build();
        let mut rng = Rng::new(seed as u64);
        // A foreign thread that completes the channels the tasks wait on,
        // racing the task's registration of its waker.
        let (wake_tx, wake_rx) = mpsc::channel::<rt::sync::oneshot::Sender<()>>();
        let waker_thread = thread::spawn(move || {
            for sender in wake_rx {
                let _ = sender.send(());
            }
        });
        // A foreign thread that aborts the tasks it is handed.
        let (abort_tx, abort_rx) = mpsc::channel::<AbortHandle>();
        let aborter = thread::spawn(move || {
            for handle in abort_rx {
                handle.abort();
            }
        });
        let mut outcomes = Outcomes::default();
        for _ in 0..TASKS / BATCH {
            let handles: Vec<JoinHandle<()>> = (0..BATCH)
                .map(|_| {
                    let captured = captured.clone();
                    let wake_tx = wake_tx.clone();
                    rt.spawn(async move {
                        for _ in 0..YIELDS {
                            rt::task::yield_now().await;
                        }
                        let (tx, rx) = rt::sync::oneshot::channel();
                        wake_tx.send(tx).unwrap();
                        rx.await.unwrap();
                        captured.completed.fetch_add(1, Ordering::Relaxed);
                    })
                })
                .collect();
            for handle in &handles {
                if rng.below(4) == 0 {
                    abort_tx.send(handle.abort_handle()).unwrap();
                }
            }
            rt.block_on(async {
                for handle in handles {
                    outcomes.record(handle.await);
                }
            });
        }
        drop((wake_tx, abort_tx));
        waker_thread.join().unwrap();
        aborter.join().unwrap();
        eprintln!("{outcomes:?}");
        assert_eq!(outcomes.completed + outcomes.cancelled, TASKS);
        assert_eq!(
            captured.completed.load(Ordering::Relaxed),
            outcomes.completed,
            "a task reported cancelled ran to the end, or one that completed did not count"
        );
        drop(rt);
        assert_eq!(
            Arc::strong_count(&captured),
            1,
            "a task future was not dropped"
        );
        expect_all_tasks_freed(baseline, "spawn_wake_abort");
    }
}

/// A waker that outlives its task: cloned inside the task, handed to
/// foreign threads, woken (by reference and by value) and dropped there
/// after the task finished and its handle was read. Harmless, and the
/// task is freed once the last waker is gone.
#[test]
#[ignore = "stress suite: run by .ci/run with --ignored"]
fn wakers_woken_from_foreign_threads_after_their_task_finished() {
    const TASKS: usize = 20_000;
    const THREADS: usize = 4;
    let _serial = serial();
    for kind in KINDS {
        eprintln!("--- on {kind:?}");
        let baseline = live_tasks();
        let rt = kind.build();
        let wakers: Vec<Waker> = rt.block_on(async {
            let handles: Vec<JoinHandle<Waker>> = (0..TASKS)
                .map(|_| {
                    rt::spawn(async {
                        rt::task::yield_now().await;
                        std::future::poll_fn(|cx| std::task::Poll::Ready(cx.waker().clone())).await
                    })
                })
                .collect();
            let mut wakers = Vec::with_capacity(TASKS);
            for handle in handles {
                wakers.push(handle.await.unwrap());
            }
            wakers
        });
        // The tasks are complete but the wakers hold their allocations.
        assert!(live_tasks() >= baseline + TASKS);
        let mut chunks: Vec<Vec<Waker>> = (0..THREADS).map(|_| Vec::new()).collect();
        for (i, waker) in wakers.into_iter().enumerate() {
            chunks[i % THREADS].push(waker);
        }
        let threads: Vec<_> = chunks
            .into_iter()
            .map(|chunk| {
                thread::spawn(move || {
                    for (i, waker) in chunk.into_iter().enumerate() {
                        let clone = waker.clone();
                        waker.wake_by_ref();
                        if i % 2 == 0 {
                            clone.wake();
                            waker.wake();
                        } else {
                            drop(waker);
                            clone.wake_by_ref();
                        }
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
        // The runtime is still running: nothing it does with those wakes
        // may resurrect a finished task.
        rt.block_on(rt::task::yield_now());
        assert_eq!(rt.handle().metrics().num_alive_tasks(), 0);
        drop(rt);
        expect_all_tasks_freed(baseline, "the tasks whose wakers outlived them");
    }
}

/// JoinHandles sent to other threads and dropped there, some before their
/// task finishes and some after: every output is dropped exactly once
/// (by the task if the handle went first, by the handle otherwise).
#[test]
#[ignore = "stress suite: run by .ci/run with --ignored"]
fn join_handles_dropped_from_other_threads() {
    const TASKS: usize = 40_000;
    const THREADS: usize = 4;
    let _serial = serial();
    for (seed, kind) in KINDS.into_iter().enumerate() {
        eprintln!("--- on {kind:?}");
        let baseline = live_tasks();
        let output = Arc::new(());
        let rt = kind.build();
        let mut rng = Rng::new(100 + seed as u64);
        let (senders, droppers): (Vec<_>, Vec<_>) = (0..THREADS)
            .map(|_| {
                let (tx, rx) = mpsc::channel::<JoinHandle<Arc<()>>>();
                (tx, thread::spawn(move || rx.into_iter().for_each(drop)))
            })
            .unzip();
        let (release_tx, release_rx) = rt::sync::watch::channel(false);
        for i in 0..TASKS {
            let output = output.clone();
            let mut release = release_rx.clone();
            let handle = rt.spawn(async move {
                // Half the tasks finish at once, half wait for the release.
                if i % 2 == 1 {
                    while !*release.borrow_and_update() {
                        release.changed().await.unwrap();
                    }
                }
                output
            });
            senders[rng.below(THREADS as u64) as usize]
                .send(handle)
                .unwrap();
            if i == TASKS / 2 {
                release_tx.send(true).unwrap();
            }
        }
        drop(senders);
        for dropper in droppers {
            dropper.join().unwrap();
        }
        // Let the tasks still running finish (on a current-thread runtime,
        // nothing runs outside `block_on`).
        let metrics = rt.handle().metrics();
        rt.block_on(async {
            while metrics.num_alive_tasks() != 0 {
                rt::task::yield_now().await;
            }
        });
        wait_until("every output is dropped", || {
            Arc::strong_count(&output) == 1
        });
        drop(rt);
        expect_all_tasks_freed(baseline, "the detached tasks");
    }
}

/// A runtime under load (tasks spawning tasks, waking each other through
/// channels, yielding, sleeping, running blocking work) shut down at a
/// random moment, by dropping it, by `shutdown_timeout` or by
/// `shutdown_background`: every task future is dropped, every handle held
/// outside yields its output or `Cancelled`, and everything is freed.
#[test]
#[ignore = "stress suite: run by .ci/run with --ignored"]
fn shutdown_at_random_moments_under_load() {
    const ROUNDS: u64 = 60;
    const ROOTS: usize = 64;
    let _serial = serial();
    for round in 0..ROUNDS {
        let mut rng = Rng::new(1_000 + round);
        let kind = KINDS[rng.below(KINDS.len() as u64) as usize];
        let baseline = live_tasks();
        let captured = Arc::new(Captured::default());
        let progress = Arc::new(AtomicUsize::new(0));
        let rt = kind.build();
        let handles: Vec<JoinHandle<()>> = (0..ROOTS)
            .map(|root| rt.spawn(load(root, captured.clone(), progress.clone())))
            .collect();
        // Shut down once the load has made a random amount of progress
        // (a current-thread runtime makes it inside this `block_on`).
        let target = rng.below(20_000) as usize;
        let progress_seen = progress.clone();
        rt.block_on(async move {
            while progress_seen.load(Ordering::Relaxed) < target {
                rt::task::yield_now().await;
            }
        });
        let how = rng.below(3);
        eprintln!("round {round} on {kind:?}: shutdown {how} after {target} steps");
        match how {
            0 => drop(rt),
            1 => rt.shutdown_timeout(Duration::from_secs(30)),
            // Does not wait for the workers; they stop after their current
            // poll, and the handles below wait for that.
            _ => rt.shutdown_background(),
        }
        let mut outcomes = Outcomes::default();
        for handle in handles {
            outcomes.record(futures::executor::block_on(handle));
        }
        assert_eq!(outcomes.completed + outcomes.cancelled, ROOTS);
        wait_until("every task future is dropped", || {
            Arc::strong_count(&captured) == 1
        });
        expect_all_tasks_freed(baseline, "the shut-down runtime's tasks");
    }
}

/// One root of the load: `root % 40 + 1` rounds of spawning a producer
/// that feeds this task over a bounded channel, yielding, and now and then
/// sleeping for a millisecond or running a blocking call.
async fn load(root: usize, captured: Arc<Captured>, progress: Arc<AtomicUsize>) {
    for step in 0..root % 40 + 1 {
        let (tx, mut rx) = rt::sync::mpsc::channel::<usize>(4);
        let producer = {
            let captured = captured.clone();
            let progress = progress.clone();
            rt::spawn(async move {
                let _captured = captured;
                for i in 0..16 {
                    if tx.send(i).await.is_err() {
                        return;
                    }
                    progress.fetch_add(1, Ordering::Relaxed);
                }
            })
        };
        while let Some(value) = rx.recv().await {
            progress.fetch_add(1, Ordering::Relaxed);
            if value % 5 == 0 {
                rt::task::yield_now().await;
            }
        }
        let _ = producer.await;
        match (root + step) % 8 {
            0 => rt::time::sleep(Duration::from_millis(1)).await,
            1 => {
                let captured = captured.clone();
                let _ = rt::task::spawn_blocking(move || drop(captured)).await;
            }
            _ => {}
        }
        progress.fetch_add(1, Ordering::Relaxed);
    }
}

/// A gate blocking-pool jobs wait on.
struct Gate {
    open: Mutex<bool>,
    opened: Condvar,
}

impl Gate {
    fn wait(&self) {
        let mut open = self.open.lock().unwrap();
        while !*open {
            open = self.opened.wait(open).unwrap();
        }
    }

    fn open(&self) {
        *self.open.lock().unwrap() = true;
        self.opened.notify_all();
    }
}

/// Counts a blocking job's closure dropped without having run.
struct NotRun {
    count: Arc<AtomicUsize>,
    ran: bool,
}

impl Drop for NotRun {
    fn drop(&mut self) {
        if !self.ran {
            self.count.fetch_add(1, Ordering::SeqCst);
        }
    }
}

/// The blocking pool saturated (every thread blocked, the rest queued),
/// then the runtime shut down: the queued calls are cancelled without
/// running (their closures dropped), the running ones are waited for, and
/// every handle says which happened.
#[test]
#[ignore = "stress suite: run by .ci/run with --ignored"]
fn blocking_pool_saturated_then_shut_down() {
    const THREADS: usize = 8;
    const JOBS: usize = 400;
    let _serial = serial();
    for kind in [Kind::CurrentThread, Kind::MultiThread(2)] {
        for round in 0..10 {
            let baseline = live_tasks();
            let rt = kind
                .builder()
                .max_blocking_threads(THREADS)
                .build()
                .unwrap();
            let gate = Arc::new(Gate {
                open: Mutex::new(false),
                opened: Condvar::new(),
            });
            let running = Arc::new(AtomicUsize::new(0));
            let not_run = Arc::new(AtomicUsize::new(0));
            let handles: Vec<JoinHandle<usize>> = (0..JOBS)
                .map(|job| {
                    let gate = gate.clone();
                    let running = running.clone();
                    let guard = NotRun {
                        count: not_run.clone(),
                        ran: false,
                    };
                    rt.spawn_blocking(move || {
                        // The whole guard moves in (not just the field).
                        let mut guard = guard;
                        guard.ran = true;
                        running.fetch_add(1, Ordering::SeqCst);
                        gate.wait();
                        job
                    })
                })
                .collect();
            wait_until("the pool is saturated", || {
                running.load(Ordering::SeqCst) == THREADS
            });
            // Open the gate once the shutdown has cancelled the queue, so
            // the shutdown has running calls to wait for.
            let opener = {
                let gate = gate.clone();
                let not_run = not_run.clone();
                thread::spawn(move || {
                    wait_until("the queued calls are cancelled", || {
                        not_run.load(Ordering::SeqCst) == JOBS - THREADS
                    });
                    gate.open();
                })
            };
            if round % 2 == 0 {
                drop(rt);
            } else {
                rt.shutdown_timeout(Duration::from_secs(30));
            }
            opener.join().unwrap();
            assert_eq!(running.load(Ordering::SeqCst), THREADS);
            let mut outcomes = Outcomes::default();
            for (job, handle) in handles.into_iter().enumerate() {
                match futures::executor::block_on(handle) {
                    Ok(value) => {
                        assert_eq!(value, job);
                        outcomes.completed += 1;
                    }
                    Err(error) => {
                        assert!(error.is_cancelled(), "{error}");
                        outcomes.cancelled += 1;
                    }
                }
            }
            assert_eq!(
                outcomes,
                Outcomes {
                    completed: THREADS,
                    cancelled: JOBS - THREADS
                }
            );
            wait_until("every job's captures are dropped", || {
                Arc::strong_count(&gate) == 1 && Arc::strong_count(&running) == 1
            });
            expect_all_tasks_freed(baseline, "the blocking calls");
        }
    }
}

/// The runtime itself must not keep building up: a runtime built with
/// `Builder` and dropped, many times, frees all its tasks each time.
#[test]
#[ignore = "stress suite: run by .ci/run with --ignored"]
fn runtimes_built_and_dropped_with_tasks_pending() {
    let _serial = serial();
    let baseline = live_tasks();
    for round in 0..200 {
        let rt = if round % 2 == 0 {
            Builder::new_current_thread().enable_all().build().unwrap()
        } else {
            Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap()
        };
        for _ in 0..50 {
            drop(rt.spawn(std::future::pending::<()>()));
        }
        drop(rt);
    }
    expect_all_tasks_freed(baseline, "the dropped runtimes");
}
