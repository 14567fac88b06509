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
//! The bodies are the criterion rows' own (`benches/support/workloads.rs`),
//! on a two-worker multi-thread runtime, or a current-thread one with
//! `CORE_ROWS_FLAVOR=current_thread`.

#[path = "../benches/support/mod.rs"]
mod support;

use std::time::{Duration, Instant};
use support::{BenchRuntime, Flavor, NUM_WORKERS, Rt, workloads};

/// One row: builds its iteration body on the runtime, then the body is
/// timed.
type Row = (&'static str, fn(&Rt, usize) -> Vec<Duration>);

/// `rows![(name, workload), ...]`: each row times `n` iterations of its
/// workload's body after one warm-up iteration.
macro_rules! rows {
    ($(($name:literal, $workload:path)),* $(,)?) => {
        [$(($name, |rt: &Rt, n: usize| time(n, $workload(rt)))),*]
    };
}

fn time(iters: usize, mut body: impl FnMut()) -> Vec<Duration> {
    body();
    (0..iters)
        .map(|_| {
            let start = Instant::now();
            body();
            start.elapsed()
        })
        .collect()
}

fn main() {
    let iters: usize = std::env::args()
        .nth(1)
        .map(|arg| arg.parse().expect("ITERS is a number"))
        .unwrap_or(30);
    // `CORE_ROWS_FLAVOR=current_thread` runs them on a current-thread
    // runtime instead.
    let flavor = match std::env::var("CORE_ROWS_FLAVOR").as_deref() {
        Ok("current_thread") => Flavor::CurrentThread,
        Ok("multi_thread") | Err(_) => Flavor::MultiThread(NUM_WORKERS),
        Ok(other) => panic!("CORE_ROWS_FLAVOR is current_thread or multi_thread, not {other:?}"),
    };
    let rt = Rt::new(flavor);
    let rows: [Row; 4] = rows![
        ("spawn_many_local", workloads::spawn_many_local),
        ("yield_many", workloads::yield_many),
        ("ping_pong", workloads::ping_pong),
        ("chained_spawn", workloads::chained_spawn),
    ];
    // `CORE_ROWS=yield_many,ping_pong` runs only those (for profiling).
    let only = std::env::var("CORE_ROWS").ok();
    let selected = |name: &str| {
        only.as_ref()
            .is_none_or(|only| only.split(',').any(|o| o == name))
    };
    for (name, workload) in rows.into_iter().filter(|(name, _)| selected(name)) {
        let mut times = workload(&rt, iters);
        times.sort();
        println!("{name} {:.1}", times[iters / 2].as_secs_f64() * 1e6);
    }
}
