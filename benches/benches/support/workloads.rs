//! The scheduler workloads, generic over the runtime. Shapes and sizes
//! follow tokio's `rt_multi_threaded` / `rt_current_thread` benches; all
//! waiting happens by `.await` inside `block_on`, so the same code runs on
//! both flavors.
//!
//! Each workload takes the runtime (to set up background load once) and
//! returns one iteration's body: criterion times it (`compare!`), and
//! `examples/instructions.rs` runs it a fixed number of times under
//! callgrind.

use crate::support::{BenchRuntime, Spawner, countdown};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Tasks spawned per iteration by the spawn workloads.
pub(crate) const NUM_SPAWN: usize = 10_000;
/// Tasks spawned per iteration next to the endless spawn chain: on one
/// thread the remote tasks get the scheduler only every few ticks, so
/// (as in tokio's current-thread bench) fewer of them.
const NUM_SPAWN_BESIDE_CHAIN: usize = 1_000;
/// Ping-pong pairs per iteration.
const NUM_PINGS: usize = 1_000;
/// Yielding tasks, and yields each, per iteration.
const YIELD_TASKS: usize = 200;
const NUM_YIELDS: usize = 1_000;
/// Length of the spawn chain.
const CHAIN_DEPTH: usize = 1_000;
/// Threads spawning concurrently from outside the runtime.
const SPAWN_THREADS: usize = 4;
/// CPU time a busy background task burns between yields.
const STALL: Duration = Duration::from_micros(10);

/// From inside a task: spawn `NUM_SPAWN` empty tasks, then join them all.
pub(crate) fn spawn_many_local<R: BenchRuntime>(runtime: &R) -> impl FnMut() + '_ {
    let spawner = runtime.spawner();
    move || {
        let inner = spawner.clone();
        runtime.block_on(spawner.spawn(async move {
            let handles: Vec<_> = (0..NUM_SPAWN).map(|_| inner.spawn(async {})).collect();
            for handle in handles {
                handle.await;
            }
        }))
    }
}

/// From outside, runtime idle: spawn `NUM_SPAWN` empty tasks through the
/// handle, then join them from `block_on`.
pub(crate) fn spawn_many_remote_idle<R: BenchRuntime>(runtime: &R) -> impl FnMut() + '_ {
    spawn_remote_and_join(runtime, NUM_SPAWN)
}

/// Spawns `count` empty tasks through the handle, then joins them from
/// `block_on`.
fn spawn_remote_and_join<R: BenchRuntime>(runtime: &R, count: usize) -> impl FnMut() + '_ {
    let spawner = runtime.spawner();
    let mut handles = Vec::with_capacity(count);
    move || {
        handles.extend((0..count).map(|_| spawner.spawn(async {})));
        runtime.block_on(async {
            for handle in handles.drain(..) {
                handle.await;
            }
        })
    }
}

/// As `spawn_many_remote_idle`, while `2 * workers` background tasks keep
/// every worker busy: each burns `STALL` of CPU and yields, in a loop.
/// Multi-thread only (on one thread the stalls would dominate).
pub(crate) fn spawn_many_remote_busy<R: BenchRuntime>(runtime: &R) -> impl FnMut() + '_ {
    let spawner = runtime.spawner();
    let busy = StopOnDrop(Arc::new(AtomicBool::new(true)));
    for _ in 0..2 * crate::support::NUM_WORKERS {
        let running = busy.0.clone();
        spawner.spawn_detached(async move {
            while running.load(Ordering::Relaxed) {
                <R::Spawner as Spawner>::yield_now().await;
                stall();
            }
        });
    }
    let mut idle = spawn_many_remote_idle(runtime);
    move || {
        let _busy = &busy;
        idle()
    }
}

/// Spawn `NUM_SPAWN_BESIDE_CHAIN` tasks from outside and join them, while a
/// never-ending chain of tasks (each spawns the next) keeps the scheduler
/// busy: tokio's current-thread `spawn_many_remote_busy`.
pub(crate) fn spawn_many_remote_busy_chain<R: BenchRuntime>(runtime: &R) -> impl FnMut() + '_ {
    fn forever<S: Spawner>(spawner: S) {
        let next = spawner.clone();
        spawner.spawn_detached(async move { forever(next) });
    }
    forever(runtime.spawner());
    spawn_remote_and_join(runtime, NUM_SPAWN_BESIDE_CHAIN)
}

/// `NUM_PINGS` pairs of tasks, each pair exchanging one message each way
/// over runtime-neutral oneshot channels; all spawned from one task.
pub(crate) fn ping_pong<R: BenchRuntime>(runtime: &R) -> impl FnMut() + '_ {
    let spawner = runtime.spawner();
    move || {
        let (done, finished) = countdown(NUM_PINGS);
        let outer = spawner.clone();
        runtime.block_on(async move {
            outer.clone().spawn_detached(async move {
                for _ in 0..NUM_PINGS {
                    let done = done.clone();
                    let spawner = outer.clone();
                    outer.spawn_detached(async move {
                        let (ping_tx, ping_rx) = futures_channel::oneshot::channel::<()>();
                        let (pong_tx, pong_rx) = futures_channel::oneshot::channel::<()>();
                        spawner.spawn_detached(async move {
                            ping_rx.await.expect("ping sent");
                            pong_tx.send(()).expect("pong receiver alive");
                        });
                        ping_tx.send(()).expect("ping receiver alive");
                        pong_rx.await.expect("pong sent");
                        done.count_down();
                    });
                }
            });
            finished.await.expect("all pings done");
        })
    }
}

/// `YIELD_TASKS` tasks spawned from outside, each yielding `NUM_YIELDS`
/// times with the runtime's own `yield_now`.
pub(crate) fn yield_many<R: BenchRuntime>(runtime: &R) -> impl FnMut() + '_ {
    let spawner = runtime.spawner();
    move || {
        let (done, finished) = countdown(YIELD_TASKS);
        for _ in 0..YIELD_TASKS {
            let done = done.clone();
            spawner.spawn_detached(async move {
                for _ in 0..NUM_YIELDS {
                    <R::Spawner as Spawner>::yield_now().await;
                }
                done.count_down();
            });
        }
        runtime.block_on(finished).expect("all yielders done");
    }
}

/// Each task spawns the next, `CHAIN_DEPTH` deep; the last one reports.
pub(crate) fn chained_spawn<R: BenchRuntime>(runtime: &R) -> impl FnMut() + '_ {
    fn link<S: Spawner>(spawner: S, done: futures_channel::oneshot::Sender<()>, left: usize) {
        if left == 0 {
            done.send(()).expect("chain receiver alive");
            return;
        }
        let next = spawner.clone();
        spawner.spawn_detached(async move { link(next, done, left - 1) });
    }
    let spawner = runtime.spawner();
    move || {
        let (done, finished) = futures_channel::oneshot::channel();
        link(spawner.clone(), done, CHAIN_DEPTH);
        runtime.block_on(finished).expect("chain finished");
    }
}

/// `SPAWN_THREADS` threads outside the runtime spawn `NUM_SPAWN` tasks
/// between them, at the same time; `block_on` waits for all to finish.
pub(crate) fn remote_spawn<R: BenchRuntime>(runtime: &R) -> impl FnMut() + '_ {
    let spawner = runtime.spawner();
    move || {
        let (done, finished) = countdown(NUM_SPAWN);
        std::thread::scope(|scope| {
            for _ in 0..SPAWN_THREADS {
                let spawner = &spawner;
                let done = &done;
                scope.spawn(move || {
                    for _ in 0..NUM_SPAWN / SPAWN_THREADS {
                        let done = done.clone();
                        spawner.spawn_detached(async move { done.count_down() });
                    }
                });
            }
        });
        runtime.block_on(finished).expect("all remote tasks done");
    }
}

/// Clears the flag the busy background tasks loop on.
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Relaxed);
    }
}

fn stall() {
    let start = Instant::now();
    while start.elapsed() < STALL {
        std::hint::spin_loop();
    }
}
