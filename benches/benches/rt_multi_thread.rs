//! The multi-thread scheduler: rt vs tokio vs smol, `NUM_WORKERS` worker
//! threads each. One criterion group per workload, one function per
//! runtime (`spawn_many_local/rt`, `spawn_many_local/tokio`, ...).

mod support;

use criterion::{Criterion, criterion_group, criterion_main};
use support::{Flavor, NUM_WORKERS, compare, workloads};

const FLAVOR: Flavor = Flavor::MultiThread(NUM_WORKERS);

fn scheduler(c: &mut Criterion) {
    compare!(c, "spawn_many_local", FLAVOR, workloads::spawn_many_local);
    compare!(
        c,
        "spawn_many_remote_idle",
        FLAVOR,
        workloads::spawn_many_remote_idle
    );
    compare!(
        c,
        "spawn_many_remote_busy",
        FLAVOR,
        workloads::spawn_many_remote_busy
    );
    compare!(c, "remote_spawn", FLAVOR, workloads::remote_spawn);
    compare!(c, "ping_pong", FLAVOR, workloads::ping_pong);
    compare!(c, "yield_many", FLAVOR, workloads::yield_many);
    compare!(c, "chained_spawn", FLAVOR, workloads::chained_spawn);
}

criterion_group!(benches, scheduler);
criterion_main!(benches);
