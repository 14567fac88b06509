//! Child processes: rt's `process` vs tokio's, on `NUM_WORKERS` workers.
//!
//! - `process_status_true_200`: one task runs `true` to its exit status 200
//!   times in a row (spawn, exit watch, reap: the per-child cost);
//! - `process_status_true_200_concurrent`: the same 200 children all
//!   spawned at once by 200 tasks (many exits in flight).
//!
//! Both are dominated by `fork`/`exec` of the child, which is the same
//! kernel work for either runtime; the difference is what the runtime
//! adds around it.

mod support;

use criterion::{Criterion, criterion_group, criterion_main};
use support::NUM_WORKERS;

const CHILDREN: usize = 200;

macro_rules! process_workloads {
    ($side:ident, $krate:ident) => {
        mod $side {
            use super::CHILDREN;
            use $krate::process::Command;

            pub(crate) async fn sequential() {
                $krate::spawn(async {
                    for _ in 0..CHILDREN {
                        let status = Command::new("true").status().await.expect("run `true`");
                        assert!(status.success());
                    }
                })
                .await
                .expect("task");
            }

            pub(crate) async fn concurrent() {
                let tasks: Vec<_> = (0..CHILDREN)
                    .map(|_| $krate::spawn(async { Command::new("true").status().await }))
                    .collect();
                for task in tasks {
                    assert!(task.await.expect("task").expect("run `true`").success());
                }
            }
        }
    };
}

process_workloads!(rt_side, rt);
process_workloads!(tokio_side, tokio);

macro_rules! group {
    ($c:expr, $name:expr, $routine:ident) => {{
        let mut group = $c.benchmark_group($name);
        support::configure(&mut group);
        {
            let runtime = rt::runtime::Builder::new_multi_thread()
                .worker_threads(NUM_WORKERS)
                .enable_all()
                .build()
                .expect("build the rt runtime");
            group.bench_function("rt", |b| b.iter(|| runtime.block_on(rt_side::$routine())));
        }
        {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(NUM_WORKERS)
                .enable_all()
                .build()
                .expect("build the tokio runtime");
            group.bench_function("tokio", |b| {
                b.iter(|| runtime.block_on(tokio_side::$routine()))
            });
        }
        group.finish();
    }};
}

fn process(c: &mut Criterion) {
    group!(c, "process_status_true_200", sequential);
    group!(c, "process_status_true_200_concurrent", concurrent);
}

criterion_group!(benches, process);
criterion_main!(benches);
