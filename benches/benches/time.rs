//! Timers: `rt::time` vs `tokio::time` on the multi-thread runtime,
//! `NUM_WORKERS` workers each, drivers enabled. One criterion group per
//! workload (`time_create_cancel/rt`, `time_create_cancel/tokio`, ...).
//!
//! The two runtimes' versions of each workload come from one macro body
//! (`time_workloads!`), instantiated once per crate, so their shapes are
//! the same by construction. smol has no timer of its own in this suite
//! (async-io's `Timer` runs on a separate reactor thread), so it is left
//! out.

mod support;

use criterion::{Criterion, criterion_group, criterion_main};
use support::{Flavor, NUM_WORKERS, compare_native};

const FLAVOR: Flavor = Flavor::MultiThread(NUM_WORKERS);

/// Tasks per iteration of `time_sleep_many`.
const SLEEPERS: usize = 10_000;
/// Sleeps in a row per task of `time_sleep_many`.
const SLEEPS_EACH: usize = 10;

/// Generates the workloads against `$krate`'s own API (`::rt` or
/// `::tokio`), taking the suite's adapter for that runtime (`$runtime`).
macro_rules! time_workloads {
    ($krate:ident, $runtime:ty) => {
        use crate::support::BenchRuntime;
        use crate::{NUM_WORKERS, SLEEPERS, SLEEPS_EACH};
        use criterion::Bencher;
        use std::future::{Future, poll_fn};
        use std::hint::black_box;
        use std::pin::pin;
        use std::task::Poll;
        use std::time::{Duration, Instant as StdInstant};

        /// Runs `per_task(n)` in `NUM_WORKERS` tasks at once, `n` being
        /// their share of criterion's `iters`; returns the time until all
        /// of them finished.
        fn split_over_workers<F, Fut>(runtime: &$runtime, iters: u64, per_task: F) -> Duration
        where
            F: Fn(u64) -> Fut,
            Fut: Future<Output = ()> + Send + 'static,
        {
            let n = iters.div_ceil(NUM_WORKERS as u64);
            runtime.block_on(async {
                let start = StdInstant::now();
                let tasks: Vec<_> = (0..NUM_WORKERS)
                    .map(|_| ::$krate::spawn(per_task(n)))
                    .collect();
                for task in tasks {
                    task.await.expect("a bench task failed");
                }
                start.elapsed()
            })
        }

        /// Per iteration, one timer: create a 60 s `sleep`, poll it once
        /// (which registers it with the timer), drop it (which cancels it).
        /// `NUM_WORKERS` tasks share the iterations, so registrations and
        /// cancellations from every worker meet in the timer.
        pub(crate) fn create_cancel(runtime: &$runtime) -> impl FnMut(&mut Bencher<'_>) + '_ {
            move |b| {
                b.iter_custom(|iters| {
                    split_over_workers(runtime, iters, |n| async move {
                        for _ in 0..n {
                            let mut sleep = pin!(::$krate::time::sleep(Duration::from_secs(60)));
                            poll_fn(|cx| {
                                assert!(sleep.as_mut().poll(cx).is_pending());
                                Poll::Ready(())
                            })
                            .await;
                        }
                    })
                })
            }
        }

        /// `SLEEPERS` tasks, each sleeping 1 ms `SLEEPS_EACH` times in a
        /// row, on the real clock: the timer fires thousands of entries per
        /// tick and the scheduler runs the woken tasks.
        pub(crate) fn sleep_many(runtime: &$runtime) -> impl FnMut(&mut Bencher<'_>) + '_ {
            move |b| {
                b.iter(|| {
                    runtime.block_on(async {
                        let root = ::$krate::spawn(async {
                            let sleepers: Vec<_> = (0..SLEEPERS)
                                .map(|_| {
                                    ::$krate::spawn(async {
                                        for _ in 0..SLEEPS_EACH {
                                            ::$krate::time::sleep(Duration::from_millis(1)).await;
                                        }
                                    })
                                })
                                .collect();
                            for sleeper in sleepers {
                                sleeper.await.expect("a sleeping task failed");
                            }
                        });
                        root.await.expect("the spawning task failed");
                    })
                })
            }
        }

        /// Per iteration, one `timeout(1 s, ..)` around a future that is
        /// ready at once, so the timer is never registered: the cost of
        /// setting up a time limit that does not fire. `NUM_WORKERS` tasks
        /// share the iterations.
        pub(crate) fn timeout_ready(runtime: &$runtime) -> impl FnMut(&mut Bencher<'_>) + '_ {
            move |b| {
                b.iter_custom(|iters| {
                    split_over_workers(runtime, iters, |n| async move {
                        for i in 0..n {
                            let limited =
                                ::$krate::time::timeout(Duration::from_secs(1), async move {
                                    black_box(i)
                                });
                            let value = limited.await.expect("a ready future timed out");
                            black_box(value);
                        }
                    })
                })
            }
        }

        /// The runtime's `Instant::now`, read inside `block_on` (so the
        /// runtime is current, as it is for any task).
        pub(crate) fn instant_now(runtime: &$runtime) -> impl FnMut(&mut Bencher<'_>) + '_ {
            move |b| {
                runtime.block_on(async {
                    b.iter(|| black_box(::$krate::time::Instant::now()));
                })
            }
        }
    };
}

mod on_rt {
    time_workloads!(rt, crate::support::Rt);
}

mod on_tokio {
    time_workloads!(tokio, crate::support::Tokio);
}

fn time(c: &mut Criterion) {
    compare_native!(
        c,
        "time_create_cancel",
        FLAVOR,
        on_rt::create_cancel,
        on_tokio::create_cancel
    );
    compare_native!(
        c,
        "time_sleep_many",
        FLAVOR,
        on_rt::sleep_many,
        on_tokio::sleep_many
    );
    compare_native!(
        c,
        "time_timeout_ready",
        FLAVOR,
        on_rt::timeout_ready,
        on_tokio::timeout_ready
    );
    compare_native!(
        c,
        "time_instant_now",
        FLAVOR,
        on_rt::instant_now,
        on_tokio::instant_now
    );
}

criterion_group!(benches, time);
criterion_main!(benches);
