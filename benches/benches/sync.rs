//! Synchronisation primitives: `rt::sync` vs `tokio::sync` on the
//! multi-thread runtime, `NUM_WORKERS` workers each, drivers enabled. One
//! criterion group per workload (`sync_mpsc_contended/rt`, ...). Shapes
//! follow tokio's own `sync_mpsc`, `sync_mpsc_oneshot`, `sync_semaphore`,
//! `sync_notify` and `sync_broadcast` benches.
//!
//! The two runtimes' versions of each workload come from one macro body
//! (`sync_workloads!`), instantiated once per crate, so their shapes are
//! the same by construction. smol's primitives live in other crates
//! (async-channel, async-lock, event-listener), so smol is left out.

mod support;

use criterion::{Criterion, criterion_group, criterion_main};
use support::{Flavor, NUM_WORKERS, compare_native};

const FLAVOR: Flavor = Flavor::MultiThread(NUM_WORKERS);

/// Values per iteration through the mpsc channels.
const MESSAGES: usize = 5_000;
/// Producers of the contended mpsc workloads.
const SENDERS: usize = 5;
/// Capacity of `sync_mpsc_bounded_full`: far below `MESSAGES`, so senders
/// keep waiting for slots.
const SMALL_CAPACITY: usize = 100;
/// Round trips per iteration of `sync_oneshot_request_reply`.
const REQUESTS: usize = 1_000;
/// Acquire/release pairs per iteration of `sync_semaphore_uncontended`.
const ACQUIRES: usize = 1_000;
/// Tasks of the contended semaphore and mutex workloads.
const CONTENDERS: usize = 6;
/// Permits of `sync_semaphore_contended`: fewer than the tasks holding them.
const CONTENDED_PERMITS: usize = 2;
/// Acquisitions per task of `sync_semaphore_contended`.
const HOLDS_EACH: usize = 200;
/// Locks per task of `sync_mutex_contended`.
const LOCKS_EACH: usize = 1_000;
/// Tasks waiting on the `Notify` of the notify workloads.
const WAITERS: usize = 10;
/// Wake-ups the waiters must observe per iteration of the notify workloads.
const WAKEUPS: usize = 500;
/// Receiving tasks of `sync_broadcast_fan_out`.
const SUBSCRIBERS: usize = 10;
/// Values per iteration of `sync_broadcast_fan_out` (also the capacity, so
/// no receiver lags).
const BROADCASTS: usize = 1_000;

/// Generates the workloads against `$krate`'s own API (`::rt` or
/// `::tokio`), taking the suite's adapter for that runtime (`$runtime`).
macro_rules! sync_workloads {
    ($krate:ident, $runtime:ty) => {
        use crate::support::{BenchRuntime, Spawner};
        use crate::{
            ACQUIRES, BROADCASTS, CONTENDED_PERMITS, CONTENDERS, HOLDS_EACH, LOCKS_EACH, MESSAGES,
            REQUESTS, SENDERS, SMALL_CAPACITY, SUBSCRIBERS, WAITERS, WAKEUPS,
        };
        use ::$krate::sync::{Mutex, Notify, Semaphore, broadcast, mpsc, oneshot};
        use criterion::Bencher;
        use std::hint::black_box;
        use std::sync::Arc;
        use std::sync::atomic::{AtomicUsize, Ordering};

        /// One task, a bounded channel with room for everything: send
        /// `MESSAGES` values, then receive them all.
        pub(crate) fn mpsc_uncontended(runtime: &$runtime) -> impl FnMut(&mut Bencher<'_>) + '_ {
            move |b| {
                b.iter(|| {
                    runtime.block_on(async {
                        let (tx, mut rx) = mpsc::channel::<usize>(MESSAGES);
                        for i in 0..MESSAGES {
                            tx.send(i).await.expect("the receiver is alive");
                        }
                        for _ in 0..MESSAGES {
                            black_box(rx.recv().await);
                        }
                    })
                })
            }
        }

        /// `SENDERS` tasks each send `MESSAGES / SENDERS` values into one
        /// channel with capacity `capacity` while `block_on` receives them.
        async fn fan_in(capacity: usize) {
            let (tx, mut rx) = mpsc::channel::<usize>(capacity);
            for _ in 0..SENDERS {
                let tx = tx.clone();
                ::$krate::spawn(async move {
                    for i in 0..MESSAGES / SENDERS {
                        tx.send(i).await.expect("the receiver is alive");
                    }
                });
            }
            drop(tx);
            for _ in 0..MESSAGES / SENDERS * SENDERS {
                black_box(rx.recv().await.expect("a value per send"));
            }
        }

        /// `fan_in` with room for every value: producers contend on the
        /// queue, never wait for a slot.
        pub(crate) fn mpsc_contended(runtime: &$runtime) -> impl FnMut(&mut Bencher<'_>) + '_ {
            move |b| b.iter(|| runtime.block_on(fan_in(MESSAGES)))
        }

        /// `fan_in` with `SMALL_CAPACITY` slots: producers queue up for
        /// slots, and every receive hands one to a waiting sender.
        pub(crate) fn mpsc_bounded_full(runtime: &$runtime) -> impl FnMut(&mut Bencher<'_>) + '_ {
            move |b| b.iter(|| runtime.block_on(fan_in(SMALL_CAPACITY)))
        }

        /// `fan_in` on an unbounded channel (sends never wait).
        pub(crate) fn mpsc_unbounded_contended(
            runtime: &$runtime,
        ) -> impl FnMut(&mut Bencher<'_>) + '_ {
            move |b| {
                b.iter(|| {
                    runtime.block_on(async {
                        let (tx, mut rx) = mpsc::unbounded_channel::<usize>();
                        for _ in 0..SENDERS {
                            let tx = tx.clone();
                            ::$krate::spawn(async move {
                                for i in 0..MESSAGES / SENDERS {
                                    tx.send(i).expect("the receiver is alive");
                                }
                            });
                        }
                        drop(tx);
                        for _ in 0..MESSAGES / SENDERS * SENDERS {
                            black_box(rx.recv().await.expect("a value per send"));
                        }
                    })
                })
            }
        }

        /// A server task answers requests arriving on an mpsc channel
        /// (capacity 10) through the oneshot each request carries;
        /// `block_on` makes `REQUESTS` round trips, one at a time.
        pub(crate) fn oneshot_request_reply(
            runtime: &$runtime,
        ) -> impl FnMut(&mut Bencher<'_>) + '_ {
            let requests = runtime.block_on(async {
                let (requests, mut incoming) = mpsc::channel::<oneshot::Sender<()>>(10);
                ::$krate::spawn(async move {
                    while let Some(reply) = incoming.recv().await {
                        reply.send(()).expect("the requester waits for its reply");
                    }
                });
                requests
            });
            move |b| {
                b.iter(|| {
                    runtime.block_on(async {
                        for _ in 0..REQUESTS {
                            let (reply, replied) = oneshot::channel();
                            requests.send(reply).await.expect("the server runs");
                            replied.await.expect("the server replies");
                        }
                    })
                })
            }
        }

        /// One task, permits to spare: `ACQUIRES` acquire/release pairs.
        pub(crate) fn semaphore_uncontended(
            runtime: &$runtime,
        ) -> impl FnMut(&mut Bencher<'_>) + '_ {
            let semaphore = Semaphore::new(10);
            move |b| {
                b.iter(|| {
                    runtime.block_on(async {
                        for _ in 0..ACQUIRES {
                            let permit = semaphore.acquire().await.expect("never closed");
                            // By reference: `black_box(permit)` by value spills
                            // the permit and reloads it whole, a store-forwarding
                            // stall whose cost depends on the permit's field
                            // widths (rt's count is a `usize`, tokio's a `u32`),
                            // not on the semaphore.
                            black_box(&permit);
                            drop(permit);
                        }
                    })
                })
            }
        }

        /// `CONTENDERS` tasks share `CONTENDED_PERMITS` permits; each
        /// acquires `HOLDS_EACH` times and yields once while holding the
        /// permit, so the others queue up behind it.
        pub(crate) fn semaphore_contended(runtime: &$runtime) -> impl FnMut(&mut Bencher<'_>) + '_ {
            let semaphore = Arc::new(Semaphore::new(CONTENDED_PERMITS));
            move |b| {
                b.iter(|| {
                    runtime.block_on(async {
                        let tasks: Vec<_> = (0..CONTENDERS)
                            .map(|_| {
                                let semaphore = semaphore.clone();
                                ::$krate::spawn(async move {
                                    for _ in 0..HOLDS_EACH {
                                        let permit =
                                            semaphore.acquire().await.expect("never closed");
                                        ::$krate::task::yield_now().await;
                                        drop(permit);
                                    }
                                })
                            })
                            .collect();
                        for task in tasks {
                            task.await.expect("a contending task failed");
                        }
                    })
                })
            }
        }

        /// `WAITERS` tasks loop on `notified().await`, counting wake-ups;
        /// a notifier task calls `notify` and yields, until they counted
        /// `WAKEUPS`. (tokio's bench spins `notify` on the bench thread
        /// instead; on 2 cores that third busy thread leaves the woken
        /// workers waiting for a time slice, and both runtimes' times
        /// jumped between ~0.1 and ~10 ms from run to run.) The waiters
        /// never end: dropping the runtime cancels them.
        fn notify_loop(
            runtime: &$runtime,
            notify: fn(&Notify),
        ) -> impl FnMut(&mut Bencher<'_>) + '_ {
            let shared = Arc::new(Notify::new());
            let woken = Arc::new(AtomicUsize::new(0));
            let spawner = runtime.spawner();
            for _ in 0..WAITERS {
                let (shared, woken) = (shared.clone(), woken.clone());
                spawner.spawn_detached(async move {
                    loop {
                        shared.notified().await;
                        woken.fetch_add(1, Ordering::Relaxed);
                    }
                });
            }
            move |b| {
                b.iter(|| {
                    woken.store(0, Ordering::Relaxed);
                    let (shared, woken) = (shared.clone(), woken.clone());
                    runtime.block_on(async move {
                        let notifier = ::$krate::spawn(async move {
                            while woken.load(Ordering::Relaxed) < WAKEUPS {
                                notify(&shared);
                                ::$krate::task::yield_now().await;
                            }
                        });
                        notifier.await.expect("the notifier task failed");
                    })
                })
            }
        }

        /// `notify_loop` with `notify_one`: one waiter (or the stored
        /// permit) per call.
        pub(crate) fn notify_one(runtime: &$runtime) -> impl FnMut(&mut Bencher<'_>) + '_ {
            notify_loop(runtime, Notify::notify_one)
        }

        /// `notify_loop` with `notify_waiters`: every waiter registered at
        /// the call.
        pub(crate) fn notify_waiters(runtime: &$runtime) -> impl FnMut(&mut Bencher<'_>) + '_ {
            notify_loop(runtime, Notify::notify_waiters)
        }

        /// `SUBSCRIBERS` tasks each receive every one of `BROADCASTS`
        /// values that `block_on` sends on one broadcast channel.
        pub(crate) fn broadcast_fan_out(runtime: &$runtime) -> impl FnMut(&mut Bencher<'_>) + '_ {
            move |b| {
                b.iter(|| {
                    runtime.block_on(async {
                        let (tx, _rx) = broadcast::channel::<usize>(BROADCASTS);
                        let tasks: Vec<_> = (0..SUBSCRIBERS)
                            .map(|_| {
                                let mut rx = tx.subscribe();
                                ::$krate::spawn(async move {
                                    for _ in 0..BROADCASTS {
                                        black_box(rx.recv().await.expect("no lag, no close"));
                                    }
                                })
                            })
                            .collect();
                        for i in 0..BROADCASTS {
                            tx.send(i).expect("the receivers are alive");
                        }
                        for task in tasks {
                            task.await.expect("a receiving task failed");
                        }
                    })
                })
            }
        }

        /// `CONTENDERS` tasks each lock one mutex `LOCKS_EACH` times to
        /// bump a counter; with a task on every worker the lock is often
        /// held when another tries it.
        pub(crate) fn mutex_contended(runtime: &$runtime) -> impl FnMut(&mut Bencher<'_>) + '_ {
            let counter = Arc::new(Mutex::new(0_usize));
            move |b| {
                b.iter(|| {
                    runtime.block_on(async {
                        let tasks: Vec<_> = (0..CONTENDERS)
                            .map(|_| {
                                let counter = counter.clone();
                                ::$krate::spawn(async move {
                                    for _ in 0..LOCKS_EACH {
                                        *counter.lock().await += 1;
                                    }
                                })
                            })
                            .collect();
                        for task in tasks {
                            task.await.expect("a locking task failed");
                        }
                    })
                })
            }
        }
    };
}

mod on_rt {
    sync_workloads!(rt, crate::support::Rt);
}

mod on_tokio {
    sync_workloads!(tokio, crate::support::Tokio);
}

fn sync(c: &mut Criterion) {
    compare_native!(
        c,
        "sync_mpsc_uncontended",
        FLAVOR,
        on_rt::mpsc_uncontended,
        on_tokio::mpsc_uncontended
    );
    compare_native!(
        c,
        "sync_mpsc_contended",
        FLAVOR,
        on_rt::mpsc_contended,
        on_tokio::mpsc_contended
    );
    compare_native!(
        c,
        "sync_mpsc_bounded_full",
        FLAVOR,
        on_rt::mpsc_bounded_full,
        on_tokio::mpsc_bounded_full
    );
    compare_native!(
        c,
        "sync_mpsc_unbounded_contended",
        FLAVOR,
        on_rt::mpsc_unbounded_contended,
        on_tokio::mpsc_unbounded_contended
    );
    compare_native!(
        c,
        "sync_oneshot_request_reply",
        FLAVOR,
        on_rt::oneshot_request_reply,
        on_tokio::oneshot_request_reply
    );
    compare_native!(
        c,
        "sync_semaphore_uncontended",
        FLAVOR,
        on_rt::semaphore_uncontended,
        on_tokio::semaphore_uncontended
    );
    compare_native!(
        c,
        "sync_semaphore_contended",
        FLAVOR,
        on_rt::semaphore_contended,
        on_tokio::semaphore_contended
    );
    compare_native!(
        c,
        "sync_notify_one",
        FLAVOR,
        on_rt::notify_one,
        on_tokio::notify_one
    );
    compare_native!(
        c,
        "sync_notify_waiters",
        FLAVOR,
        on_rt::notify_waiters,
        on_tokio::notify_waiters
    );
    compare_native!(
        c,
        "sync_broadcast_fan_out",
        FLAVOR,
        on_rt::broadcast_fan_out,
        on_tokio::broadcast_fan_out
    );
    compare_native!(
        c,
        "sync_mutex_contended",
        FLAVOR,
        on_rt::mutex_contended,
        on_tokio::mutex_contended
    );
}

criterion_group!(benches, sync);
criterion_main!(benches);
