//! `!Send` tasks: rt's `LocalSet` vs tokio's, each driven by a
//! current-thread runtime's `block_on`.
//!
//! - `local_spawn_many`: from inside the set, spawn `NUM_SPAWN` empty local
//!   tasks, then join them in order (the `spawn_many_local` workload, with
//!   `spawn_local`);
//! - `local_ping_pong_rc`: `PAIRS` pairs of local tasks sharing an
//!   `Rc<Cell<_>>` pass a turn back and forth `ROUNDS` times, each side
//!   yielding until it is its turn (wakes on the set's own thread only).
//!
//! As in `blocking.rs`, one macro writes both sides from the same text.

mod support;

use criterion::{Criterion, criterion_group, criterion_main};
use support::workloads::NUM_SPAWN;

const PAIRS: usize = 50;
const ROUNDS: usize = 100;

macro_rules! local_workloads {
    ($side:ident, $krate:ident) => {
        mod $side {
            use super::{NUM_SPAWN, PAIRS, ROUNDS};
            use std::cell::Cell;
            use std::rc::Rc;
            use $krate::task::{spawn_local, yield_now};

            pub(crate) async fn spawn_many() {
                let handles: Vec<_> = (0..NUM_SPAWN).map(|_| spawn_local(async {})).collect();
                for handle in handles {
                    handle.await.expect("local task");
                }
            }

            pub(crate) async fn ping_pong_rc() {
                let pairs: Vec<_> = (0..PAIRS)
                    .flat_map(|_| {
                        let turn = Rc::new(Cell::new(0usize));
                        [0, 1].map(|me| {
                            let turn = turn.clone();
                            spawn_local(async move {
                                for round in 0..ROUNDS {
                                    while turn.get() != 2 * round + me {
                                        yield_now().await;
                                    }
                                    turn.set(turn.get() + 1);
                                }
                            })
                        })
                    })
                    .collect();
                for task in pairs {
                    task.await.expect("local task");
                }
            }
        }
    };
}

local_workloads!(rt_side, rt);
local_workloads!(tokio_side, tokio);

/// One group: `$routine` inside a fresh `LocalSet` per iteration, on rt
/// then tokio (one current-thread runtime each for the whole group).
macro_rules! group {
    ($c:expr, $name:expr, $routine:ident) => {{
        let mut group = $c.benchmark_group($name);
        support::configure(&mut group);
        {
            let runtime = rt::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("build the rt runtime");
            group.bench_function("rt", |b| {
                b.iter(|| rt::task::LocalSet::new().block_on(&runtime, rt_side::$routine()))
            });
        }
        {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("build the tokio runtime");
            group.bench_function("tokio", |b| {
                b.iter(|| tokio::task::LocalSet::new().block_on(&runtime, tokio_side::$routine()))
            });
        }
        group.finish();
    }};
}

fn local(c: &mut Criterion) {
    group!(c, "local_spawn_many", spawn_many);
    group!(c, "local_ping_pong_rc", ping_pong_rc);
}

criterion_group!(benches, local);
criterion_main!(benches);
