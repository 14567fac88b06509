//! The four core scheduler rows (`spawn_many_local`, `yield_many`,
//! `ping_pong`, `chained_spawn`) on rt alone, for A/B runs of two builds of
//! rt against each other (a change against the commit before it).
//!
//! Each run prints one line per workload: its name and the median time of
//! `ITERS` iterations in microseconds. Build the example at both commits
//! into separate binaries, then alternate them, so that both see the same
//! machine conditions:
//!
//! ```sh
//! cargo build --release -p rt-benches --example core_rows
//! cp target/release/examples/core_rows /tmp/core_rows_new
//! # ... the same at the base commit into /tmp/core_rows_base, then:
//! for i in $(seq 15); do /tmp/core_rows_base 30; /tmp/core_rows_new 30; done
//! ```
//!
//! `CORE_ROWS=yield_many,ping_pong` runs only the rows named (for
//! profiling one, e.g. under `valgrind --tool=callgrind`).
//!
//! The shapes are the criterion workloads' (`benches/support/workloads.rs`)
//! on a two-worker multi-thread runtime, or a current-thread one with
//! `CORE_ROWS_FLAVOR=current_thread`.

use futures_channel::oneshot;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

const NUM_SPAWN: usize = 10_000;
const NUM_PINGS: usize = 1_000;
const YIELD_TASKS: usize = 200;
const NUM_YIELDS: usize = 1_000;
const CHAIN_DEPTH: usize = 1_000;

/// Sends on `done` once `count_down` was called `count` times.
#[derive(Clone)]
struct Countdown(Arc<(AtomicUsize, Mutex<Option<oneshot::Sender<()>>>)>);

impl Countdown {
    fn new(count: usize) -> (Countdown, oneshot::Receiver<()>) {
        let (done, finished) = oneshot::channel();
        let inner = (AtomicUsize::new(count), Mutex::new(Some(done)));
        (Countdown(Arc::new(inner)), finished)
    }

    fn count_down(&self) {
        if self.0.0.fetch_sub(1, Ordering::AcqRel) == 1 {
            let done = self.0.1.lock().unwrap().take();
            let _ = done.expect("counted down past zero").send(());
        }
    }
}

fn spawn_many_local(rt: &rt::runtime::Runtime) -> Duration {
    let start = Instant::now();
    rt.block_on(rt.spawn(async {
        let handles: Vec<_> = (0..NUM_SPAWN).map(|_| rt::spawn(async {})).collect();
        for handle in handles {
            handle.await.unwrap();
        }
    }))
    .unwrap();
    start.elapsed()
}

fn yield_many(rt: &rt::runtime::Runtime) -> Duration {
    let start = Instant::now();
    let (done, finished) = Countdown::new(YIELD_TASKS);
    for _ in 0..YIELD_TASKS {
        let done = done.clone();
        drop(rt.spawn(async move {
            for _ in 0..NUM_YIELDS {
                rt::task::yield_now().await;
            }
            done.count_down();
        }));
    }
    rt.block_on(finished).unwrap();
    start.elapsed()
}

fn ping_pong(rt: &rt::runtime::Runtime) -> Duration {
    let start = Instant::now();
    let (done, finished) = Countdown::new(NUM_PINGS);
    rt.block_on(async move {
        drop(rt::spawn(async move {
            for _ in 0..NUM_PINGS {
                let done = done.clone();
                drop(rt::spawn(async move {
                    let (ping_tx, ping_rx) = oneshot::channel::<()>();
                    let (pong_tx, pong_rx) = oneshot::channel::<()>();
                    drop(rt::spawn(async move {
                        ping_rx.await.unwrap();
                        pong_tx.send(()).unwrap();
                    }));
                    ping_tx.send(()).unwrap();
                    pong_rx.await.unwrap();
                    done.count_down();
                }));
            }
        }));
        finished.await.unwrap();
    });
    start.elapsed()
}

fn chained_spawn(rt: &rt::runtime::Runtime) -> Duration {
    fn link(done: oneshot::Sender<()>, left: usize) {
        if left == 0 {
            done.send(()).unwrap();
            return;
        }
        drop(rt::spawn(async move { link(done, left - 1) }));
    }
    let start = Instant::now();
    let (done, finished) = oneshot::channel();
    let _guard = rt.enter();
    link(done, CHAIN_DEPTH);
    rt.block_on(finished).unwrap();
    start.elapsed()
}

fn main() {
    let iters: usize = std::env::args()
        .nth(1)
        .map(|arg| arg.parse().expect("ITERS is a number"))
        .unwrap_or(30);
    // `CORE_ROWS_FLAVOR=current_thread` runs them on a current-thread
    // runtime instead.
    let mut builder = match std::env::var("CORE_ROWS_FLAVOR").as_deref() {
        Ok("current_thread") => rt::runtime::Builder::new_current_thread(),
        Ok("multi_thread") | Err(_) => {
            let mut builder = rt::runtime::Builder::new_multi_thread();
            builder.worker_threads(2);
            builder
        }
        Ok(other) => panic!("CORE_ROWS_FLAVOR is current_thread or multi_thread, not {other:?}"),
    };
    let rt = builder.enable_all().build().expect("building the runtime");
    type Workload = fn(&rt::runtime::Runtime) -> Duration;
    let rows: [(&str, Workload); 4] = [
        ("spawn_many_local", spawn_many_local),
        ("yield_many", yield_many),
        ("ping_pong", ping_pong),
        ("chained_spawn", chained_spawn),
    ];
    // `CORE_ROWS=yield_many,ping_pong` runs only those (for profiling).
    let only = std::env::var("CORE_ROWS").ok();
    let selected = |name: &str| {
        only.as_ref()
            .is_none_or(|only| only.split(',').any(|o| o == name))
    };
    for (name, workload) in rows.into_iter().filter(|(name, _)| selected(name)) {
        // One warm-up iteration, then the measured ones.
        workload(&rt);
        let mut times: Vec<Duration> = (0..iters).map(|_| workload(&rt)).collect();
        times.sort();
        println!("{name} {:.1}", times[iters / 2].as_secs_f64() * 1e6);
    }
}
