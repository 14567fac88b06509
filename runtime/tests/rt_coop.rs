//! Fairness: `yield_now` and the cooperative budget let other tasks run on
//! runtimes where only one thread polls tasks.

mod support;

use rt::task::{JoinHandle, consume_budget, unconstrained, yield_now};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use support::{SINGLE_POLLER, each};

/// Far more iterations than fairness needs; reaching it means starvation.
const MAX_SPINS: usize = 1_000_000;

#[test]
fn a_yielding_loop_does_not_starve_another_task() {
    each(&SINGLE_POLLER, |_, rt| {
        let flag = Arc::new(AtomicBool::new(false));
        let spins = rt.block_on(async {
            let seen = flag.clone();
            let spinner = rt::spawn(async move {
                for spins in 0..MAX_SPINS {
                    if seen.load(Ordering::SeqCst) {
                        return Some(spins);
                    }
                    yield_now().await;
                }
                None
            });
            let setter = flag.clone();
            let other = rt::spawn(async move { setter.store(true, Ordering::SeqCst) });
            other.await.unwrap();
            spinner.await.unwrap()
        });
        assert!(spins.is_some(), "the other task never ran");
    });
}

#[test]
fn yielding_tasks_take_turns() {
    each(&SINGLE_POLLER, |_, rt| {
        // Two tasks yield in a loop, recording their turns: on one thread
        // each yield hands the thread to the other.
        let log = Arc::new(std::sync::Mutex::new(Vec::new()));
        let spawned_by = log.clone();
        // Spawned from a task, so both start in the worker's local queue
        // (tasks from outside wait in the global queue, which a busy worker
        // checks only every `global_queue_interval` ticks).
        let parent = rt.spawn(async move {
            let log = spawned_by;
            let handles: Vec<_> = ["a", "b"]
                .into_iter()
                .map(|name| {
                    let log = log.clone();
                    rt::spawn(async move {
                        for _ in 0..5 {
                            log.lock().unwrap().push(name);
                            yield_now().await;
                        }
                    })
                })
                .collect();
            for handle in handles {
                handle.await.unwrap();
            }
        });
        rt.block_on(parent).unwrap();
        let log = log.lock().unwrap();
        assert_eq!(log.len(), 10);
        // Neither task ran two turns in a row while the other was waiting.
        let runs = log.windows(2).filter(|w| w[0] == w[1]).count();
        assert_eq!(runs, 0, "turn order: {log:?}");
    });
}

/// A task that counts how often it got the thread, until told to stop.
fn ticker(stop: Arc<AtomicBool>, ticks: Arc<AtomicUsize>) -> JoinHandle<()> {
    rt::spawn(async move {
        while !stop.load(Ordering::SeqCst) {
            ticks.fetch_add(1, Ordering::SeqCst);
            yield_now().await;
        }
    })
}

/// Spawns `count` tasks and waits until all have finished, without
/// consuming their handles.
async fn finished_handles(count: usize) -> Vec<JoinHandle<usize>> {
    let handles: Vec<_> = (0..count).map(|i| rt::spawn(async move { i })).collect();
    while !handles.iter().all(JoinHandle::is_finished) {
        yield_now().await;
    }
    handles
}

#[test]
fn ready_join_handles_spend_the_budget_and_force_a_yield() {
    each(&SINGLE_POLLER, |_, rt| {
        rt.block_on(async {
            let handles = finished_handles(1000).await;
            let stop = Arc::new(AtomicBool::new(false));
            let ticks = Arc::new(AtomicUsize::new(0));
            let ticker = ticker(stop.clone(), ticks.clone());
            let seen = ticks.clone();
            // Every handle is ready, so without a budget this loop would
            // never give the thread up.
            let consumer = rt::spawn(async move {
                let before = seen.load(Ordering::SeqCst);
                let mut sum = 0;
                for handle in handles {
                    sum += handle.await.unwrap();
                }
                (sum, seen.load(Ordering::SeqCst) - before)
            });
            let (sum, ticks_meanwhile) = consumer.await.unwrap();
            stop.store(true, Ordering::SeqCst);
            ticker.await.unwrap();
            assert_eq!(sum, 999 * 1000 / 2);
            assert!(
                ticks_meanwhile > 0,
                "the other task never ran while 1000 ready handles were awaited"
            );
        });
    });
}

#[test]
fn consume_budget_forces_a_yield() {
    each(&SINGLE_POLLER, |_, rt| {
        rt.block_on(async {
            let stop = Arc::new(AtomicBool::new(false));
            let ticks = Arc::new(AtomicUsize::new(0));
            let ticker = ticker(stop.clone(), ticks.clone());
            let seen = ticks.clone();
            let flag = stop.clone();
            let busy = rt::spawn(async move {
                // Spins until the ticker has run again: only possible if
                // the budget makes this loop yield.
                let start = seen.load(Ordering::SeqCst);
                for spins in 0..MAX_SPINS {
                    if seen.load(Ordering::SeqCst) > start {
                        flag.store(true, Ordering::SeqCst);
                        return Some(spins);
                    }
                    consume_budget().await;
                }
                None
            });
            let spins = busy.await.unwrap();
            stop.store(true, Ordering::SeqCst);
            ticker.await.unwrap();
            let spins = spins.expect("the budget never forced a yield");
            // The first forced yield comes only once the budget is spent.
            assert!(spins >= 128, "yielded after {spins} units");
        });
    });
}

#[test]
fn unconstrained_never_forces_a_yield() {
    each(&SINGLE_POLLER, |_, rt| {
        rt.block_on(async {
            let handles = finished_handles(1000).await;
            let stop = Arc::new(AtomicBool::new(false));
            let ticks = Arc::new(AtomicUsize::new(0));
            let ticker = ticker(stop.clone(), ticks.clone());
            let seen = ticks.clone();
            let consumer = rt::spawn(unconstrained(async move {
                let before = seen.load(Ordering::SeqCst);
                for _ in 0..10_000 {
                    consume_budget().await;
                }
                for handle in handles {
                    handle.await.unwrap();
                }
                seen.load(Ordering::SeqCst) - before
            }));
            let ticks_meanwhile = consumer.await.unwrap();
            stop.store(true, Ordering::SeqCst);
            ticker.await.unwrap();
            // One thread polls tasks and this one never returned Pending.
            assert_eq!(ticks_meanwhile, 0);
        });
    });
}

/// A task spawned from outside waits in the global queue while a local
/// task keeps yielding; the worker takes it within `global_queue_interval`
/// ticks (counted in polls of the yielding task, not in time).
#[test]
fn the_global_queue_is_checked_every_global_queue_interval_ticks() {
    const INTERVAL: u32 = 5;
    each(&SINGLE_POLLER, |kind, _| {
        let rt = kind
            .builder()
            .global_queue_interval(INTERVAL)
            .build()
            .unwrap();
        let pushed = Arc::new(AtomicBool::new(false));
        let flag = Arc::new(AtomicBool::new(false));
        let (started_tx, started_rx) = std::sync::mpsc::channel();
        let spinner = {
            let pushed = pushed.clone();
            let flag = flag.clone();
            rt.spawn(async move {
                started_tx.send(()).unwrap();
                let mut polls_after_push = 0u32;
                for _ in 0..MAX_SPINS {
                    if flag.load(Ordering::SeqCst) {
                        return Some(polls_after_push);
                    }
                    if pushed.load(Ordering::SeqCst) {
                        polls_after_push += 1;
                    }
                    yield_now().await;
                }
                None
            })
        };
        let handle = rt.handle().clone();
        let remote = std::thread::spawn(move || {
            started_rx.recv().unwrap();
            let setter = handle.spawn(async move { flag.store(true, Ordering::SeqCst) });
            pushed.store(true, Ordering::SeqCst);
            setter
        });
        let polls = rt.block_on(spinner).unwrap();
        rt.block_on(remote.join().unwrap()).unwrap();
        let polls = polls.expect("the task in the global queue never ran");
        assert!(
            polls <= 2 * INTERVAL,
            "the global queue waited {polls} polls (interval {INTERVAL})"
        );
    });
}

/// The future given to `block_on` runs under a budget too: when it is
/// spent it yields and is polled again, it does not stall.
#[test]
fn block_on_future_survives_budget_exhaustion() {
    support::block_on_each(|_| async {
        let handles = finished_handles(1000).await;
        let mut sum = 0;
        for handle in handles {
            sum += handle.await.unwrap();
        }
        assert_eq!(sum, 999 * 1000 / 2);
        for _ in 0..1000 {
            consume_budget().await;
        }
    });
}
