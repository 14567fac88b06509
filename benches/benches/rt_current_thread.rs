//! The current-thread scheduler: rt vs tokio's `current_thread` vs a smol
//! `Executor` driven only by the thread in `block_on`. Groups are named
//! `ct_<workload>`, one function per runtime (`ct_ping_pong/rt`, ...).

mod support;

use criterion::{Criterion, criterion_group, criterion_main};
use support::{Flavor, compare, workloads};

const FLAVOR: Flavor = Flavor::CurrentThread;

fn scheduler(c: &mut Criterion) {
    compare!(
        c,
        "ct_spawn_many_local",
        FLAVOR,
        workloads::spawn_many_local
    );
    compare!(
        c,
        "ct_spawn_many_remote_idle",
        FLAVOR,
        workloads::spawn_many_remote_idle
    );
    compare!(
        c,
        "ct_spawn_many_remote_busy",
        FLAVOR,
        workloads::spawn_many_remote_busy_chain
    );
    compare!(c, "ct_ping_pong", FLAVOR, workloads::ping_pong);
    compare!(c, "ct_yield_many", FLAVOR, workloads::yield_many);
    compare!(c, "ct_chained_spawn", FLAVOR, workloads::chained_spawn);
}

criterion_group!(benches, scheduler);
criterion_main!(benches);
