//! `rt::sim`'s scheduler: a seeded order among ready tasks, simulated
//! time, hosts and clients, failures reported with their seed, and the
//! sweep that finds a planted ordering bug and replays it.

#![cfg(feature = "sim")]

use rt::sim::{Sim, SimError, SimFailure, SimReport, sweep};
use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex as StdMutex};
use std::time::Duration;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// A small system with concurrency of every kind the scheduler sees:
/// spawned workers, a channel, timers, yields, `select!` and
/// `spawn_blocking`. The client returns the order in which messages
/// arrived (through `order`), which depends on the schedule.
fn busy_system(sim: &mut Sim, order: Arc<StdMutex<Vec<u32>>>) {
    let (tx, mut rx) = rt::sync::mpsc::channel::<u32>(4);
    sim.host("producers", move || {
        let tx = tx.clone();
        async move {
            let mut workers = Vec::new();
            for id in 0..4u32 {
                let tx = tx.clone();
                workers.push(rt::spawn(async move {
                    for round in 0..3u32 {
                        rt::task::yield_now().await;
                        if round == 1 {
                            rt::time::sleep(Duration::from_millis(u64::from(id % 2) + 1)).await;
                        }
                        tx.send(id * 10 + round)
                            .await
                            .map_err(|_| "receiver gone")?;
                    }
                    Ok::<_, &str>(())
                }));
            }
            for worker in workers {
                worker.await??;
            }
            Ok::<_, BoxError>(())
        }
    });
    sim.client("consumer", async move {
        let mut seen = Vec::new();
        while seen.len() < 12 {
            rt::select! {
                Some(n) = rx.recv() => seen.push(n),
                () = rt::time::sleep(Duration::from_millis(50)) => return Err("stalled".into()),
            }
        }
        let numbers = seen.clone();
        let doubled = rt::task::spawn_blocking(move || numbers.iter().map(|n| n * 2).sum::<u32>());
        let sum = doubled.await?;
        if sum != 2 * (0..4).map(|id| id * 30 + 3).sum::<u32>() {
            return Err(format!("wrong sum {sum}").into());
        }
        *order.lock().unwrap() = seen;
        Ok::<_, BoxError>(())
    });
}

fn run_busy(seed: u64) -> (SimReport, Vec<u32>) {
    let order = Arc::new(StdMutex::new(Vec::new()));
    let mut sim = Sim::new(seed);
    busy_system(&mut sim, order.clone());
    let report = sim.run().unwrap_or_else(|err| panic!("{err}"));
    let order = order.lock().unwrap().clone();
    (report, order)
}

#[test]
fn the_same_seed_replays_the_same_schedule_and_result() {
    let (first, first_order) = run_busy(0xC0FFEE);
    assert_eq!(first_order.len(), 12);
    for _ in 0..100 {
        let (again, order) = run_busy(0xC0FFEE);
        assert_eq!(again.trace_hash(), first.trace_hash());
        assert_eq!(again.polls(), first.polls());
        assert_eq!(again.elapsed(), first.elapsed());
        assert_eq!(order, first_order);
    }
}

#[test]
fn different_seeds_explore_different_schedules() {
    let mut hashes = HashSet::new();
    let mut orders = HashSet::new();
    for seed in 0..100 {
        let (report, order) = run_busy(seed);
        hashes.insert(report.trace_hash());
        orders.insert(order);
    }
    assert!(
        hashes.len() >= 90,
        "only {} distinct trace hashes",
        hashes.len()
    );
    // The order messages arrive in, which the code under test sees,
    // varies too (not just the hash).
    assert!(orders.len() >= 20, "only {} distinct orders", orders.len());
}

#[test]
fn parallel_simulations_do_not_interfere() {
    let (alone, alone_order) = run_busy(77);
    let threads: Vec<_> = (0..4)
        .map(|_| std::thread::spawn(|| (0..10).map(|_| run_busy(77)).collect::<Vec<_>>()))
        .collect();
    for thread in threads {
        for (report, order) in thread.join().unwrap() {
            assert_eq!(report.trace_hash(), alone.trace_hash());
            assert_eq!(order, alone_order);
        }
    }
}

#[test]
fn a_deadlock_is_reported_with_its_seed_and_time_not_a_hang() {
    let mut sim = Sim::new(31337);
    sim.host("server", || {
        std::future::pending::<Result<(), std::io::Error>>()
    });
    sim.client("waiter", async move {
        rt::time::sleep(Duration::from_secs(5)).await;
        // Its own sender stays alive and unused: nothing will ever send.
        let (_tx, rx) = rt::sync::oneshot::channel::<()>();
        let _ = rx.await;
        Ok::<_, std::io::Error>(())
    });
    let err = sim.run().unwrap_err();
    assert!(
        matches!(err.failure(), SimFailure::Deadlock { waiting } if waiting == &["waiter"]),
        "{err}"
    );
    assert_eq!(err.seed(), 31337);
    assert_eq!(err.elapsed(), Duration::from_secs(5));
    let text = err.to_string();
    assert!(text.contains("deadlock"), "{text}");
    assert!(text.contains("seed 31337"), "{text}");
    assert!(text.contains("RT_SIM_SEED=31337"), "{text}");
    assert!(text.contains("5s"), "{text}");
}

/// A deadlock whose cause is a future that returned `Pending` without
/// handing its waker to anything names that task, with its node and the
/// line that made it (the root of a node: its `Sim::client` call; a task
/// it spawned: the spawn), and not the tasks whose wakers something holds.
#[test]
fn a_deadlock_names_the_tasks_that_lost_their_waker() {
    struct Forgetful;
    impl std::future::Future for Forgetful {
        type Output = ();
        fn poll(
            self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<()> {
            std::task::Poll::Pending
        }
    }
    let spawned = std::sync::Arc::new(StdMutex::new(None));
    let mut sim = Sim::new(7);
    sim.host("server", || async {
        let (_tx, rx) = rt::sync::oneshot::channel::<()>();
        let _ = rx.await;
        Ok::<_, std::io::Error>(())
    });
    let client_line = line!() + 1;
    sim.client("client", {
        let spawned = spawned.clone();
        async move {
            let helper = rt::spawn(Forgetful);
            *spawned.lock().unwrap() = Some((helper.id(), line!() - 1));
            Forgetful.await;
            Ok::<_, std::io::Error>(())
        }
    });
    let err = sim.run().unwrap_err();
    assert!(
        matches!(err.failure(), SimFailure::Deadlock { .. }),
        "{err}"
    );
    let text = err.to_string();
    let (helper, helper_line) = spawned.lock().unwrap().unwrap();
    let lost = text
        .split_once("nothing could ever wake ")
        .unwrap_or_else(|| panic!("no lost waker named: {text}"))
        .1;
    let here = file!();
    assert!(
        lost.contains(&format!("of `client` (spawned at {here}:{client_line}:")),
        "{text}"
    );
    assert!(
        lost.contains(&format!(
            "task {helper} of `client` (spawned at {here}:{helper_line}:"
        )),
        "{text}"
    );
    assert!(!lost.contains("`server`"), "{text}");
}

/// A lease-less counter service with a planted lost update: each client
/// reads the counter, thinks (yields), and writes back its read plus
/// one. With `atomic`, the read and the write happen under one lock.
fn counter_system(sim: &mut Sim, clients: u32, atomic: bool) {
    let counter = Arc::new(rt::sync::Mutex::new(0u32));
    let (done_tx, mut done_rx) = rt::sync::mpsc::unbounded_channel::<()>();
    for c in 0..clients {
        let (counter, done_tx) = (counter.clone(), done_tx.clone());
        sim.client(format!("client-{c}"), async move {
            // Clients start at seeded, different times.
            rt::time::sleep(Duration::from_millis(rt::sim::random_u64() % 3)).await;
            if atomic {
                let mut value = counter.lock().await;
                rt::task::yield_now().await;
                *value += 1;
            } else {
                let read = *counter.lock().await;
                rt::task::yield_now().await;
                *counter.lock().await = read + 1;
            }
            done_tx.send(()).map_err(|_| "checker gone")?;
            Ok::<_, BoxError>(())
        });
    }
    sim.client("checker", async move {
        for _ in 0..clients {
            done_rx.recv().await.ok_or("a client vanished")?;
        }
        let total = *counter.lock().await;
        if total != clients {
            return Err(format!("lost update: counter is {total}, expected {clients}").into());
        }
        Ok::<_, BoxError>(())
    });
}

#[test]
fn a_sweep_finds_a_planted_ordering_bug_and_its_seed_replays_it() {
    let failure = sweep(0..1000, |sim| counter_system(sim, 3, false))
        .expect_err("some schedule within 1000 seeds loses an update");
    assert!(
        matches!(failure.failure(), SimFailure::Error { node, error }
            if node == "checker" && error.to_string().starts_with("lost update")),
        "{failure}"
    );
    let replay = |seed| -> SimError {
        let mut sim = Sim::new(seed);
        counter_system(&mut sim, 3, false);
        sim.run().expect_err("the failing seed fails again")
    };
    for _ in 0..10 {
        let again = replay(failure.seed());
        assert_eq!(again.trace_hash(), failure.trace_hash());
        assert_eq!(again.polls(), failure.polls());
        assert_eq!(again.elapsed(), failure.elapsed());
        assert_eq!(again.to_string(), failure.to_string());
    }
    eprintln!("found: {failure}");
    // Only some interleavings lose an update.
    let failing = (0..200)
        .filter(|&seed| {
            let mut sim = Sim::new(seed);
            counter_system(&mut sim, 3, false);
            sim.run().is_err()
        })
        .count();
    assert!(0 < failing && failing < 200, "{failing} of 200 seeds fail");
    eprintln!("{failing} of 200 seeds lose an update");
}

/// A client whose helper task panics for one seed in four; the client
/// passes the `JoinError` on with `?`, so its message (which names the
/// task's id) is the run's failure.
fn panicking_helper(sim: &mut Sim) {
    sim.client("c", async {
        for _ in 0..3 {
            rt::spawn(async { rt::task::yield_now().await });
        }
        let helper = rt::spawn(async {
            if rt::sim::random_u64() % 4 == 0 {
                panic!("planted");
            }
        });
        helper.await?;
        Ok::<_, BoxError>(())
    });
}

#[test]
fn a_seed_found_by_a_sweep_replays_with_the_same_report() {
    let found = sweep(0..100, panicking_helper).unwrap_err();
    let mut sim = Sim::new(found.seed());
    panicking_helper(&mut sim);
    let replayed = sim.run().unwrap_err();
    // Word for word: the task ids in the message are the run's own (the
    // client's root is task 1, its first helpers 2 to 4).
    assert_eq!(replayed.to_string(), found.to_string());
    assert!(found.to_string().contains("task 5 panicked"), "{found}");
}

#[test]
fn a_sweep_says_when_its_failing_seed_does_not_replay() {
    // The system counts its runs in a static: the sweep's fourth run, at
    // seed 3, failed; `RT_SIM_SEED=3` then ran seed 3 as the process's
    // first run, which passed, and nothing had said it would.
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let failure = sweep(0..10, |sim| {
        sim.client("counter", async {
            if RUNS.fetch_add(1, Ordering::SeqCst) == 3 {
                return Err("the fourth run in this process");
            }
            Ok(())
        });
    })
    .unwrap_err();
    let text = failure.to_string();
    assert!(
        text.contains("But this seed did not replay: run again at once, it passed")
            && text.contains("`static`"),
        "{text}"
    );
    // A failure that replays says nothing of the kind.
    let replays = sweep(0..100, panicking_helper).unwrap_err();
    assert!(!replays.to_string().contains("did not replay"), "{replays}");
}

#[test]
fn a_sweep_does_not_call_an_unnamed_threads_wake_a_failure_that_did_not_replay() {
    // The second run failed the same way along the same schedule, but its
    // thread, unnamed, had another id: the sweep compared the failures'
    // text, and said the seed "did not replay: it failed otherwise".
    let failure = sweep(0..1, |sim| {
        sim.client("waker", async {
            let (tx, rx) = rt::sync::oneshot::channel::<u32>();
            let mut rx = std::pin::pin!(rx);
            let registered = std::future::poll_fn(|cx| {
                let polled = std::future::Future::poll(rx.as_mut(), cx);
                std::task::Poll::Ready(polled.is_pending())
            })
            .await;
            assert!(registered);
            // Joined at once: the wake lands before the run's next draw,
            // so both runs fail at the same step.
            std::thread::spawn(move || tx.send(5).unwrap())
                .join()
                .unwrap();
            assert_eq!(rx.await?, 5);
            Ok::<_, BoxError>(())
        });
    })
    .unwrap_err();
    assert!(
        matches!(failure.failure(), SimFailure::OutsideThread { node: Some(node), .. }
            if node == "waker"),
        "{failure}"
    );
    assert!(!failure.to_string().contains("did not replay"), "{failure}");
}

#[test]
fn with_the_bug_fixed_a_thousand_seeds_pass() {
    let report =
        sweep(0..1000, |sim| counter_system(sim, 3, true)).unwrap_or_else(|e| panic!("{e}"));
    if std::env::var_os("RT_SIM_SEED").is_none() {
        assert_eq!(report.runs(), 1000);
    }
}

#[test]
fn errors_and_panics_fail_the_run_with_the_nodes_name() {
    let mut sim = Sim::new(1);
    sim.host("flaky-server", || async {
        rt::time::sleep(Duration::from_millis(10)).await;
        panic!("disk on fire");
        #[allow(unreachable_code)]
        Ok::<_, std::io::Error>(())
    });
    sim.client("patient", async {
        rt::time::sleep(Duration::from_secs(1)).await;
        Ok::<_, std::io::Error>(())
    });
    let err = sim.run().unwrap_err();
    assert!(
        matches!(err.failure(), SimFailure::Panic { node, message }
            if node == "flaky-server" && message == "disk on fire"),
        "{err}"
    );
    assert_eq!(err.elapsed(), Duration::from_millis(10));

    let mut sim = Sim::new(1);
    sim.client("picky", async {
        Err::<(), _>(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "bad reply",
        ))
    });
    let err = sim.run().unwrap_err();
    assert!(
        err.to_string()
            .contains("`picky` returned an error: bad reply"),
        "{err}"
    );
    let source = std::error::Error::source(&err).expect("the client's error is the source");
    assert_eq!(source.to_string(), "bad reply");

    // An error that says only its kind: the message goes on with its
    // causes (once each), which name what went wrong.
    #[derive(Debug)]
    struct Kind(&'static str, Option<std::io::Error>);
    impl std::fmt::Display for Kind {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(self.0)
        }
    }
    impl std::error::Error for Kind {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            self.1.as_ref().map(|e| e as _)
        }
    }
    let mut sim = Sim::new(1);
    sim.client("grpc", async {
        let cause = std::io::Error::other("the listener was refused: bind it inside");
        Err::<(), _>(Kind("transport error", Some(cause)))
    });
    let err = sim.run().unwrap_err().to_string();
    let expected = "`grpc` returned an error: transport error: the listener was refused: bind it \
                    inside; seed 1";
    assert!(err.contains(expected), "{err}");
    let mut sim = Sim::new(1);
    sim.client("verbose", async {
        let cause = std::io::Error::other("refused");
        Err::<(), _>(Kind("transport error: refused", Some(cause)))
    });
    let err = sim.run().unwrap_err().to_string();
    assert!(
        err.contains("error: transport error: refused; seed"),
        "{err}"
    );
}

#[test]
fn a_panic_in_a_spawned_task_goes_to_its_join_handle() {
    let mut sim = Sim::new(4);
    sim.client("parent", async {
        let child = rt::spawn(async { panic!("child failed") });
        let err = child.await.unwrap_err();
        assert!(err.is_panic());
        Ok::<_, std::io::Error>(())
    });
    sim.run().unwrap();
}

#[test]
fn the_step_and_time_limits_stop_runaway_runs() {
    let mut sim = Sim::new(2);
    sim.max_steps(500).client("livelock", async {
        let (a, b) = (rt::sync::Notify::new(), rt::sync::Notify::new());
        loop {
            a.notify_one();
            b.notify_one();
            rt::task::yield_now().await;
        }
        #[allow(unreachable_code)]
        Ok::<_, std::io::Error>(())
    });
    let err = sim.run().unwrap_err();
    assert!(
        matches!(err.failure(), SimFailure::StepLimit { limit: 500 }),
        "{err}"
    );

    let mut sim = Sim::new(2);
    sim.max_time(Duration::from_secs(10))
        .client("ticker", async {
            let mut interval = rt::time::interval(Duration::from_secs(1));
            loop {
                interval.tick().await;
            }
            #[allow(unreachable_code)]
            Ok::<_, std::io::Error>(())
        });
    let err = sim.run().unwrap_err();
    assert!(
        matches!(err.failure(), SimFailure::TimeLimit { .. }),
        "{err}"
    );
    assert_eq!(err.elapsed(), Duration::from_secs(10));
}

#[test]
fn a_deadlock_hidden_by_a_heartbeat_names_the_stuck_client_at_the_limit() {
    // The host's heartbeat keeps a timer pending, so the client's wait
    // for a message nobody sends is not seen as a deadlock: the run ends
    // at the time limit, whose report must say who was stuck.
    let (_never, waiting) = rt::sync::oneshot::channel::<()>();
    let mut sim = Sim::new(5);
    sim.max_time(Duration::from_secs(60));
    sim.host("heartbeat", || async {
        let mut interval = rt::time::interval(Duration::from_secs(1));
        loop {
            interval.tick().await;
        }
        #[allow(unreachable_code)]
        Ok::<_, std::io::Error>(())
    });
    sim.client("done", async { Ok::<_, std::io::Error>(()) });
    sim.client("stuck", async move {
        let _ = waiting.await;
        Ok::<_, std::io::Error>(())
    });
    let err = sim.run().unwrap_err();
    assert!(
        matches!(err.failure(), SimFailure::TimeLimit { .. }),
        "{err}"
    );
    let text = err.to_string();
    assert!(
        text.contains("while client(s) `stuck` had not finished;"),
        "{text}"
    );
}

#[test]
fn simulated_time_jumps_to_the_next_timer_only_when_nothing_is_ready() {
    let mut sim = Sim::new(9);
    sim.client("timed", async {
        let start = rt::time::Instant::now();
        // Busy work first: the clock must not move while tasks are ready.
        for _ in 0..50 {
            rt::task::yield_now().await;
        }
        assert_eq!(start.elapsed(), Duration::ZERO);
        rt::time::sleep(Duration::from_millis(1500)).await;
        assert_eq!(start.elapsed(), Duration::from_millis(1500));
        let late = rt::time::timeout(Duration::from_secs(3), std::future::pending::<()>()).await;
        assert!(late.is_err());
        assert_eq!(start.elapsed(), Duration::from_millis(4500));
        Ok::<_, std::io::Error>(())
    });
    let report = sim.run().unwrap();
    assert_eq!(report.elapsed(), Duration::from_millis(4500));
}

#[test]
fn the_clock_stays_simulated_but_advance_moves_it() {
    let mut sim = Sim::new(9);
    sim.client("timekeeper", async {
        let start = rt::time::Instant::now();
        rt::time::advance(Duration::from_secs(2)).await;
        assert_eq!(start.elapsed(), Duration::from_secs(2));
        for (what, call) in [
            ("pause", rt::time::pause as fn()),
            ("resume", rt::time::resume as fn()),
        ] {
            let refused = rt::spawn(async move { call() }).await.unwrap_err();
            let payload = refused.into_panic();
            let message = payload.downcast_ref::<&str>().copied().unwrap_or_default();
            assert!(
                message.contains(&format!("`rt::time::{what}()` inside a simulation")),
                "{message}"
            );
        }
        Ok::<_, std::io::Error>(())
    });
    let report = sim.run().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report.elapsed(), Duration::from_secs(2));
}

#[test]
fn random_u64_is_seeded_and_does_not_shift_the_schedule() {
    let run = |seed, draws: usize| {
        let values = Arc::new(StdMutex::new(Vec::new()));
        let mut sim = Sim::new(seed);
        let sink = values.clone();
        sim.client("drawer", async move {
            let a = rt::spawn(async { rt::task::yield_now().await });
            let b = rt::spawn(async { rt::task::yield_now().await });
            for _ in 0..draws {
                sink.lock().unwrap().push(rt::sim::random_u64());
            }
            a.await.unwrap();
            b.await.unwrap();
            Ok::<_, std::io::Error>(())
        });
        let report = sim.run().unwrap();
        let values = values.lock().unwrap().clone();
        (report.trace_hash(), values)
    };
    let (hash, values) = run(5, 3);
    assert_eq!(run(5, 3), (hash, values.clone()));
    assert_ne!(run(6, 3).1, values);
    // Drawing more leaves the schedule as it was.
    assert_eq!(run(5, 10).0, hash);
}

#[test]
#[should_panic(expected = "`rt::sim::random_u64()` called outside a simulation")]
fn random_u64_outside_a_simulation_panics() {
    rt::sim::random_u64();
}

#[test]
fn random_u64_in_a_plain_runtime_panics_too() {
    let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    let err = rt
        .block_on(rt.spawn(async { rt::sim::random_u64() }))
        .unwrap_err();
    assert!(err.is_panic());
}

#[test]
fn select_starts_at_a_seeded_branch() {
    let run = |seed| {
        let picks = Arc::new(StdMutex::new(Vec::new()));
        let mut sim = Sim::new(seed);
        let sink = picks.clone();
        sim.client("selector", async move {
            for _ in 0..32 {
                let pick = rt::select! {
                    () = std::future::ready(()) => 'a',
                    () = std::future::ready(()) => 'b',
                    () = std::future::ready(()) => 'c',
                };
                sink.lock().unwrap().push(pick);
            }
            Ok::<_, std::io::Error>(())
        });
        sim.run().unwrap();
        picks.lock().unwrap().clone()
    };
    let picks = run(12);
    assert_eq!(run(12), picks);
    assert!(picks.contains(&'a') && picks.contains(&'b') && picks.contains(&'c'));
    assert_ne!(run(13), picks);
}

#[test]
fn spawn_blocking_runs_inline_on_the_simulation_thread() {
    let mut sim = Sim::new(3);
    let sim_thread = std::thread::current().id();
    sim.client("blocker", async move {
        let ran_on = rt::task::spawn_blocking(|| std::thread::current().id()).await?;
        assert_eq!(ran_on, sim_thread);
        let panicked = rt::task::spawn_blocking(|| panic!("blocking panic")).await;
        assert!(panicked.unwrap_err().is_panic());
        Ok::<_, rt::task::JoinError>(())
    });
    sim.run().unwrap();
}

/// As on the blocking pool (and in tokio), the closure runs without a
/// cooperative budget: it used to run under the budget of its task's one
/// poll, so futures it drove itself stopped after 128 units.
#[test]
fn spawn_blocking_runs_its_closure_without_a_budget_in_a_simulation() {
    let mut sim = Sim::new(3);
    sim.client("blocker", async move {
        let results = rt::task::spawn_blocking(|| {
            let consume = || futures::FutureExt::now_or_never(rt::task::consume_budget());
            (0..1000).filter(|_| consume().is_some()).count()
        })
        .await?;
        assert_eq!(results, 1000, "the closure ran out of budget");
        Ok::<_, rt::task::JoinError>(())
    });
    sim.run().unwrap();
}

#[test]
fn every_way_to_spawn_blocking_runs_inline_in_a_simulation() {
    let mut sim = Sim::new(3);
    let sim_thread = std::thread::current().id();
    sim.client("blocker", async move {
        let here = || std::thread::current().id();
        let handle = rt::runtime::Handle::current();
        let mut set = rt::task::JoinSet::new();
        set.spawn_blocking(here);
        set.spawn_blocking_on(here, &handle);
        let mut ran_on = vec![
            rt::task::spawn_blocking(here).await?,
            handle.spawn_blocking(here).await?,
            rt::task::Builder::new().spawn_blocking(here)?.await?,
            rt::task::Builder::new()
                .spawn_blocking_on(here, &handle)?
                .await?,
        ];
        while let Some(thread) = set.join_next().await {
            ran_on.push(thread?);
        }
        assert_eq!(
            ran_on, [sim_thread; 6],
            "a blocking job left the simulation's thread"
        );
        Ok::<_, BoxError>(())
    });
    sim.run().unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn a_blocking_wait_in_an_inline_blocking_job_says_why_it_cannot_wait() {
    let mut sim = Sim::new(3);
    sim.client("blocker", async {
        let (tx, rx) = rt::sync::oneshot::channel::<u32>();
        let job = rt::task::spawn_blocking(move || rx.blocking_recv());
        rt::spawn(async move { tx.send(1) });
        // A task holds the lock across a sleep: the blocking lock below
        // would wait for it, on the one thread that could run it.
        let lock = Arc::new(rt::sync::Mutex::new(0));
        let guard = lock.clone().lock_owned().await;
        rt::spawn(async move {
            rt::time::sleep(Duration::from_millis(1)).await;
            drop(guard);
        });
        let in_place = rt::spawn(async move { rt::task::block_in_place(|| *lock.blocking_lock()) });
        for (what, refused) in [
            ("oneshot::Receiver::blocking_recv", job.await.map(drop)),
            ("Mutex::blocking_lock", in_place.await.map(drop)),
        ] {
            let payload = refused.unwrap_err().into_panic();
            let message = payload.downcast_ref::<String>().unwrap();
            // Not the advice for a real runtime ("call this from a
            // `spawn_blocking` job"): here such a job runs inline.
            assert!(
                message.contains(&format!("`{what}` was called inside a simulation"))
                    && message.contains("run their closure inline")
                    && message.contains(".await"),
                "{message}"
            );
        }
        Ok::<_, BoxError>(())
    });
    sim.run().unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn a_crash_drops_all_of_a_hosts_tasks_and_a_restart_rebuilds_it() {
    let boots = Arc::new(AtomicUsize::new(0));
    let alive = Arc::new(AtomicUsize::new(0));
    struct Alive(Arc<AtomicUsize>);
    impl Drop for Alive {
        fn drop(&mut self) {
            self.0.fetch_sub(1, Ordering::SeqCst);
        }
    }
    let mut sim = Sim::new(8);
    let (b, a) = (boots.clone(), alive.clone());
    sim.host("server", move || {
        b.fetch_add(1, Ordering::SeqCst);
        let alive = a.clone();
        async move {
            // The server and two of its helper tasks hold an `Alive`.
            for _ in 0..2 {
                alive.fetch_add(1, Ordering::SeqCst);
                let token = Alive(alive.clone());
                rt::spawn(async move {
                    let _token = token;
                    std::future::pending::<()>().await
                });
            }
            alive.fetch_add(1, Ordering::SeqCst);
            let _token = Alive(alive.clone());
            std::future::pending::<Result<(), std::io::Error>>().await
        }
    });
    let (b, a) = (boots.clone(), alive.clone());
    sim.client("operator", async move {
        rt::time::sleep(Duration::from_millis(5)).await;
        assert_eq!(a.load(Ordering::SeqCst), 3);
        rt::sim::crash("server");
        // The crash takes effect when this poll ends: after one yield,
        // every task of the server is gone.
        rt::task::yield_now().await;
        assert_eq!(a.load(Ordering::SeqCst), 0);
        rt::sim::crash("server"); // already down: nothing happens
        rt::sim::restart("server");
        rt::time::sleep(Duration::from_millis(5)).await;
        assert_eq!(b.load(Ordering::SeqCst), 2);
        assert_eq!(a.load(Ordering::SeqCst), 3);
        Ok::<_, std::io::Error>(())
    });
    sim.run().unwrap_or_else(|e| panic!("{e}"));
}

/// A host whose closure spawns its UDP echo task before handing back a
/// future that only waits: the task binds, answers, and must die and come
/// back with the host.
fn echo_spawned_by_the_factory(sim: &mut Sim) {
    sim.host("echo", || {
        rt::spawn(async {
            let socket = rt::net::UdpSocket::bind("0.0.0.0:7").await?;
            let mut buf = [0u8; 8];
            loop {
                let (n, from) = socket.recv_from(&mut buf).await?;
                socket.send_to(&buf[..n], from).await?;
            }
            #[allow(unreachable_code)]
            Ok::<_, std::io::Error>(())
        });
        std::future::pending::<Result<(), std::io::Error>>()
    });
}

/// Whether `echo` answers `socket` within a second of simulated time.
async fn echo_answers(socket: &rt::net::UdpSocket) -> std::io::Result<bool> {
    socket.send_to(b"ping", "echo:7").await?;
    let mut buf = [0u8; 8];
    let reply = rt::time::timeout(Duration::from_secs(1), socket.recv(&mut buf)).await;
    Ok(reply.is_ok_and(|n| n.is_ok_and(|n| &buf[..n] == b"ping")))
}

#[test]
fn what_a_hosts_closure_spawns_belongs_to_the_host() {
    let mut sim = Sim::new(3);
    echo_spawned_by_the_factory(&mut sim);
    sim.client("pinger", async {
        let socket = rt::net::UdpSocket::bind("0.0.0.0:0").await?;
        if !echo_answers(&socket).await? {
            return Err("the task the host's closure spawned does not answer".into());
        }
        rt::sim::restart("echo");
        if !echo_answers(&socket).await? {
            return Err("after a restart, the closure's new task does not answer".into());
        }
        rt::sim::crash("echo");
        if echo_answers(&socket).await? {
            return Err("a crashed host's task (spawned by its closure) still answers".into());
        }
        Ok::<_, BoxError>(())
    });
    sim.run().unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn a_restart_from_another_node_gives_the_closures_tasks_to_the_host() {
    let ticks = Arc::new(AtomicUsize::new(0));
    let mut sim = Sim::new(4);
    let counted = ticks.clone();
    sim.host("ticker", move || {
        let counted = counted.clone();
        rt::spawn(async move {
            loop {
                rt::time::sleep(Duration::from_millis(10)).await;
                counted.fetch_add(1, Ordering::SeqCst);
            }
        });
        std::future::pending::<Result<(), std::io::Error>>()
    });
    sim.client("operator", async move {
        rt::time::sleep(Duration::from_millis(25)).await;
        // Restarted by this client's task: the ticker's new task is the
        // host's all the same, so the crash below ends it.
        rt::sim::restart("ticker");
        rt::time::sleep(Duration::from_millis(15)).await;
        rt::sim::crash("ticker");
        let at_crash = ticks.load(Ordering::SeqCst);
        rt::time::sleep(Duration::from_millis(100)).await;
        let later = ticks.load(Ordering::SeqCst);
        if later != at_crash {
            return Err(
                format!("the crashed ticker ticked {} more times", later - at_crash).into(),
            );
        }
        Ok::<_, BoxError>(())
    });
    sim.run().unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn crashing_a_client_or_an_unknown_host_is_refused() {
    let mut sim = Sim::new(1);
    sim.client("c", async {
        let refused = rt::spawn(async { rt::sim::crash("c") }).await.unwrap_err();
        let message = refused.into_panic();
        let message = message.downcast_ref::<String>().unwrap();
        assert!(message.contains("`c` is a client"), "{message}");
        let unknown = rt::spawn(async { rt::sim::restart("nobody") })
            .await
            .unwrap_err();
        let message = unknown.into_panic();
        let message = message.downcast_ref::<String>().unwrap();
        assert!(message.contains("no host named `nobody`"), "{message}");
        Ok::<_, std::io::Error>(())
    });
    sim.run().unwrap();
}

#[test]
fn real_io_is_refused_inside_a_simulation() {
    let mut sim = Sim::new(1);
    sim.client("c", async {
        let fs = rt::fs::read("Cargo.toml").await.unwrap_err();
        assert_eq!(fs.kind(), std::io::ErrorKind::Unsupported);
        assert!(fs.to_string().contains("rt::fs"), "{fs}");
        // Not called a socket: it is a pipe.
        let pipe = rt::net::unix::pipe::pipe().map(drop).unwrap_err();
        assert_eq!(pipe.kind(), std::io::ErrorKind::Unsupported);
        assert!(pipe.to_string().contains("pipe"), "{pipe}");
        // Names resolve in the simulation, never with the system
        // resolver: `localhost` is the node itself (127.0.0.1), other
        // names are nodes' or unknown.
        let local: Vec<_> = rt::net::lookup_host("localhost:80").await?.collect();
        assert_eq!(local, ["127.0.0.1:80".parse().unwrap()]);
        let lookup = rt::net::lookup_host("example.com:80").await.unwrap_err();
        assert_eq!(lookup.kind(), std::io::ErrorKind::NotFound);
        Ok::<_, std::io::Error>(())
    });
    sim.run().unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn reading_stdin_inside_a_simulation_is_refused_naming_the_fix() {
    // This binary's stdin becomes a pipe with input waiting (no test here
    // reads stdin otherwise): a read that reached it would return that
    // input; from a terminal, it waited, and the whole run with it.
    let (reader, mut writer) = std::io::pipe().unwrap();
    std::io::Write::write_all(&mut writer, b"from outside\n").unwrap();
    drop(writer);
    // SAFETY: both descriptors are open; fd 0 is replaced atomically.
    let replaced =
        unsafe { libc::dup2(std::os::fd::AsRawFd::as_raw_fd(&reader), libc::STDIN_FILENO) };
    assert_eq!(replaced, libc::STDIN_FILENO);
    let mut sim = Sim::new(1);
    sim.client("reader", async {
        use rt::io::{AsyncReadExt, AsyncWriteExt};
        let mut buf = [0u8; 32];
        let refused = rt::io::stdin().read(&mut buf).await.map_err(|e| e.kind());
        assert_eq!(refused, Err(std::io::ErrorKind::Unsupported));
        let error = rt::io::stdin()
            .read(&mut buf)
            .await
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("inside a simulation") && error.contains("rt::sync::mpsc"),
            "{error}"
        );
        // Writing stays allowed (inline, as any blocking job).
        rt::io::stderr().write_all(b"").await?;
        Ok::<_, std::io::Error>(())
    });
    sim.run().unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn listening_for_a_signal_inside_a_simulation_panics_naming_the_fix() {
    let mut sim = Sim::new(1);
    sim.client("c", async {
        // A server's usual main loop ends on Ctrl-C.
        let server = rt::spawn(async {
            rt::select! {
                () = std::future::pending::<()>() => {}
                _ = rt::signal::ctrl_c() => {}
            }
        });
        let payload = server.await.unwrap_err().into_panic();
        let message = payload.downcast_ref::<&str>().copied().unwrap_or_default();
        assert!(
            message.contains("`rt::signal` (`ctrl_c`, `signal`) inside a simulation")
                && message.contains("rt::sim::crash"),
            "{message}"
        );
        Ok::<_, BoxError>(())
    });
    sim.run().unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn building_another_runtime_inside_a_simulation_is_refused() {
    let mut sim = Sim::new(1);
    sim.client("c", async {
        // Its tasks would run on threads of their own, and a wake from
        // them come after the run had declared a deadlock, or not at all.
        let refusals = [
            rt::runtime::Runtime::new().map(drop),
            rt::runtime::Builder::new_current_thread().build().map(drop),
            rt::runtime::Builder::new_current_thread()
                .build_local()
                .map(drop),
            // Also in a blocking job, which runs inline on the run's thread.
            rt::task::spawn_blocking(|| rt::runtime::Runtime::new().map(drop)).await?,
        ];
        for refused in refusals {
            let error = refused.unwrap_err();
            assert_eq!(error.kind(), std::io::ErrorKind::Unsupported);
            let text = error.to_string();
            assert!(
                text.contains("inside a simulation") && text.contains("rt::spawn"),
                "{text}"
            );
        }
        Ok::<_, BoxError>(())
    });
    sim.run().unwrap_or_else(|e| panic!("{e}"));
    // Outside the run, building works as ever.
    drop(rt::runtime::Builder::new_current_thread().build().unwrap());
}

/// Takes a task dump at 10 ms of simulated time, with tasks last polled
/// at 0 ms and 3 ms and one spawned just before; returns it as printed,
/// after checking what it says.
fn dump_at_ten_milliseconds(seed: u64) -> String {
    let printed = Arc::new(StdMutex::new(String::new()));
    let out = printed.clone();
    let mut sim = Sim::new(seed);
    sim.client("inspector", async move {
        let named = |name: &'static str| rt::task::Builder::new().name(name);
        let parked = named("parked").spawn(std::future::pending::<()>())?;
        let sleeper = named("sleeper").spawn(async {
            rt::time::sleep(Duration::from_millis(3)).await;
            std::future::pending::<()>().await
        })?;
        rt::time::sleep(Duration::from_millis(10)).await;
        let fresh = named("fresh").spawn(std::future::pending::<()>())?;
        let handle = rt::runtime::Handle::current();
        let dump = handle.dump();
        let task = |id| dump.iter().find(|task| task.id() == id).unwrap();
        let ms = Duration::from_millis;
        let (parked, sleeper, fresh) = (task(parked.id()), task(sleeper.id()), task(fresh.id()));
        // The dump keeps a last poll's time in units of about 1 ms.
        let idle = |task: &rt::runtime::TaskSnapshot, expected: Duration| {
            let idle = task.since_last_poll().unwrap();
            assert!(idle.abs_diff(expected) < ms(2), "{idle:?}");
        };
        assert_eq!((parked.polls(), parked.since_spawn()), (1, ms(10)));
        idle(parked, ms(10));
        assert_eq!((sleeper.polls(), sleeper.since_spawn()), (2, ms(10)));
        idle(sleeper, ms(7));
        assert_eq!(
            (fresh.polls(), fresh.since_last_poll(), fresh.since_spawn()),
            (0, None, Duration::ZERO)
        );
        // Longest idle first: the one polled at 0 ms, then at 3 ms.
        let order: Vec<_> = dump.iter().filter_map(|task| task.name()).collect();
        assert_eq!(order[..2], ["parked", "sleeper"]);
        // Every poll so far (the inspector's two, theirs three) counted.
        assert_eq!(handle.metrics().worker_poll_count(0), 5);
        *out.lock().unwrap() = dump.to_string();
        Ok::<_, BoxError>(())
    });
    sim.run().unwrap_or_else(|e| panic!("{e}"));
    printed.lock().unwrap().clone()
}

#[test]
fn a_task_dump_inside_a_simulation_reads_the_simulated_clock_and_replays() {
    // Before, it read the real clock (an age of some microseconds, in an
    // order that other threads' runtimes moved) and counted no poll.
    let first = dump_at_ten_milliseconds(4);
    // Another runtime busy meanwhile moves the real clock's cached stamp.
    let busy = rt::runtime::Runtime::new().unwrap();
    busy.block_on(async {
        for _ in 0..10 {
            rt::spawn(rt::time::sleep(Duration::from_millis(1)))
                .await
                .unwrap();
        }
    });
    assert_eq!(dump_at_ten_milliseconds(4), first);
}

/// Spawns `f` on a thread named `outside`: a real thread, not the run's.
fn outside<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> std::io::Result<std::thread::JoinHandle<T>> {
    std::thread::Builder::new().name("outside".into()).spawn(f)
}

/// Polls `future` once: whether it is pending (its waker now stored).
async fn polled_pending<F: std::future::Future + Unpin>(future: &mut F) -> bool {
    std::future::poll_fn(|cx| {
        let polled = std::future::Future::poll(std::pin::Pin::new(&mut *future), cx);
        std::task::Poll::Ready(polled.is_pending())
    })
    .await
}

/// Polls `future` once on this thread, with a waker that does nothing:
/// whether it is pending.
fn polled_here_pending<F: std::future::Future + Unpin>(future: &mut F) -> bool {
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    std::future::Future::poll(std::pin::Pin::new(future), &mut cx).is_pending()
}

/// Asserts that the run failed because the thread [`outside`] names
/// reached it, waking a task of `node` (`None`: no task's wake).
fn assert_failed_outside(err: &SimError, node: Option<&str>) {
    assert!(
        matches!(err.failure(), SimFailure::OutsideThread { node: woken, thread }
            if woken.as_deref() == node && &**thread == "`outside`"),
        "{err}"
    );
}

#[test]
fn a_wake_from_a_thread_outside_the_simulation_fails_the_run() {
    // Accepted, such a wake made one seed's runs end in six ways (a
    // deadlock, or success along one of several schedules) when the
    // simulation had other work. Here the thread's wake comes while the
    // run is busy (the client yields until it has come), so it always
    // reached the run: it finished, where it now fails.
    let mut sim = Sim::new(7);
    sim.client("waiter", async {
        let (tx, rx) = rt::sync::oneshot::channel::<u32>();
        let parked = Arc::new(AtomicUsize::new(0));
        let marked = parked.clone();
        let receiver = rt::spawn(async move {
            marked.store(1, Ordering::SeqCst);
            rx.await
        });
        while parked.load(Ordering::SeqCst) == 0 {
            rt::task::yield_now().await;
        }
        rt::task::yield_now().await; // the receiver waits on `rx` now
        let thread = outside(move || tx.send(5).unwrap())?;
        // The thread needs nothing from the run: joined at once.
        thread.join().unwrap();
        assert_eq!(receiver.await?, Ok(5));
        Ok::<_, BoxError>(())
    });
    let err = sim.run().unwrap_err();
    assert_failed_outside(&err, Some("waiter"));
    let text = err.to_string();
    assert!(
        text.contains("woken from thread `outside`") && text.contains("rt::spawn"),
        "{text}"
    );
}

#[test]
fn a_wake_from_outside_that_finds_its_task_queued_fails_the_run_too() {
    // The client never waits idle (it yields between looks), so the
    // thread's wake found it queued or running and queued nothing: the
    // run passed, the value seen after a number of turns that the
    // machine's timing chose (ten runs of one seed, ten trace hashes).
    let mut sim = Sim::new(7);
    sim.client("busy", async {
        let (tx, mut rx) = rt::sync::oneshot::channel::<u32>();
        // The task's waker waits in the channel before the thread exists:
        // the thread's send is a wake.
        assert!(polled_pending(&mut rx).await);
        let thread = outside(move || tx.send(5).unwrap())?;
        let value = loop {
            rt::select! {
                biased;
                value = &mut rx => break value?,
                () = rt::task::yield_now() => {}
            }
        };
        assert_eq!(value, 5);
        thread.join().unwrap();
        Ok::<_, BoxError>(())
    });
    let err = sim.run().unwrap_err();
    assert_failed_outside(&err, Some("busy"));
}

#[test]
fn an_abort_from_outside_fails_the_run() {
    // The spinner is always queued or running, so the thread's abort
    // queued nothing: the run passed, the spinner cancelled after a
    // number of turns that the machine's timing chose.
    let mut sim = Sim::new(7);
    sim.client("aborter", async {
        let spinner = rt::spawn(async {
            loop {
                rt::task::yield_now().await;
            }
        });
        let abort = spinner.abort_handle();
        let thread = outside(move || abort.abort())?;
        assert!(spinner.await.unwrap_err().is_cancelled());
        thread.join().unwrap();
        Ok::<_, BoxError>(())
    });
    let err = sim.run().unwrap_err();
    assert_failed_outside(&err, Some("aborter"));
}

#[test]
fn a_socket_used_from_a_thread_outside_the_simulation_fails_the_run() {
    // A send from there went into the network at whatever simulated
    // time the run had reached meanwhile, silently.
    let mut sim = Sim::new(7);
    sim.client("sender", async {
        let (a, b) = (
            rt::net::UdpSocket::bind("127.0.0.1:0").await?,
            rt::net::UdpSocket::bind("127.0.0.1:0").await?,
        );
        let to = b.local_addr()?;
        let thread = outside(move || a.try_send_to(b"from outside", to).unwrap())?;
        // The thread needs nothing from the run: joined at once.
        thread.join().unwrap();
        b.recv_from(&mut [0; 16]).await?;
        Ok::<_, BoxError>(())
    });
    let err = sim.run().unwrap_err();
    assert_failed_outside(&err, None);
    assert!(
        err.to_string()
            .contains("simulated socket used) from thread `outside`"),
        "{err}"
    );
}

#[test]
fn entering_the_simulations_handle_on_another_thread_fails_the_run() {
    // Entered, the thread's draws from `random_u64` (and its timers,
    // registered in the run's wheel) reached the run whenever the machine
    // let them: the client's two draws came out in three different ways
    // over twenty runs of one seed, each run passing.
    let mut sim = Sim::new(7);
    sim.client("enterer", async {
        let handle = rt::runtime::Handle::current();
        let thread = outside(move || {
            let _entered = handle.enter();
            rt::sim::random_u64()
        })?;
        let refused = thread.join().unwrap_err();
        let text = refused.downcast_ref::<String>().unwrap();
        assert!(
            text.contains("`Handle::enter` of a simulation's handle on thread `outside`")
                && text.contains("rt::spawn"),
            "{text}"
        );
        // On the run's own thread it is entered as ever.
        let _entered = rt::runtime::Handle::current().enter();
        Ok::<_, BoxError>(())
    });
    let err = sim.run().unwrap_err();
    assert_failed_outside(&err, None);
    assert!(
        err.to_string().contains(
            "its handle entered, one of its timers set, or a simulated socket used) from \
                       thread `outside`"
        ),
        "{err}"
    );
}

#[test]
fn a_sleep_polled_on_a_thread_outside_the_simulation_fails_the_run() {
    // Polled there, the sleep set its timer in the run's wheel whenever
    // the machine let it, so the clock jumped to it, or not, by luck: the
    // run passed along either schedule.
    let mut sim = Sim::new(7);
    sim.client("sleeper", async {
        let mut sleep = rt::time::sleep(Duration::from_millis(5));
        let thread = outside(move || polled_here_pending(&mut sleep))?;
        // The thread needs nothing from the run: joined at once.
        assert!(thread.join().unwrap());
        Ok::<_, BoxError>(())
    });
    let err = sim.run().unwrap_err();
    assert_failed_outside(&err, None);
}

#[test]
fn a_registered_sleep_polled_on_a_thread_outside_the_simulation_fails_the_run() {
    // Registered in the run first, the sleep's poll there did not look
    // up the time driver (only a first poll or a reset does), so the run
    // passed: the thread's waker replaced the task's in the run's timer
    // whenever the machine let it, and whether the timer's firing woke a
    // task of the run was luck.
    let mut sim = Sim::new(7);
    sim.client("sleeper", async {
        let mut sleep = rt::time::sleep(Duration::from_millis(5));
        assert!(polled_pending(&mut sleep).await);
        // Handed back, so that only the poll happens there.
        let thread = outside(move || (polled_here_pending(&mut sleep), sleep))?;
        // The thread needs nothing from the run: joined at once.
        let (pending, sleep) = thread.join().unwrap();
        assert!(pending);
        drop(sleep);
        Ok::<_, BoxError>(())
    });
    let err = sim.run().unwrap_err();
    assert_failed_outside(&err, None);
}

#[test]
fn a_sleep_dropped_on_a_thread_outside_the_simulation_fails_the_run() {
    // Registered in the run and dropped there, the sleep took its timer
    // out of the run's wheel whenever the machine let it: the clock
    // jumped to its deadline, or not, by luck, and the run passed.
    let mut sim = Sim::new(7);
    sim.client("sleeper", async {
        let mut sleep = rt::time::sleep(Duration::from_millis(5));
        assert!(polled_pending(&mut sleep).await);
        let thread = outside(move || drop(sleep))?;
        // The thread needs nothing from the run: joined at once.
        thread.join().unwrap();
        Ok::<_, BoxError>(())
    });
    let err = sim.run().unwrap_err();
    assert_failed_outside(&err, None);
}

#[test]
fn a_local_set_entered_around_the_run_does_not_take_its_spawn_locals() {
    // Entered, the set took the task and never ran it (the run is not
    // the set's driver): the run ended as a deadlock naming no cause.
    let local = rt::task::LocalSet::new();
    let _entered = local.enter();
    let mut sim = Sim::new(1);
    sim.client("spawner", async {
        let refused = rt::spawn(async { drop(rt::task::spawn_local(async {})) })
            .await
            .unwrap_err();
        let payload = refused.into_panic();
        let message = payload.downcast_ref::<&str>().copied().unwrap_or_default();
        assert!(message.contains("outside a `LocalSet`"), "{message}");
        Ok::<_, BoxError>(())
    });
    sim.run().unwrap_or_else(|e| panic!("{e}"));
    // The set is entered again after the run.
    let spawned = rt::task::spawn_local(async { 3 });
    let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    assert_eq!(local.block_on(&rt, spawned).unwrap(), 3);
}

/// A call that panics if it is refused.
type Call = Box<dyn FnOnce() + Send>;

#[test]
fn handing_work_to_a_runtime_built_outside_the_simulation_is_refused() {
    // Built before the run, as a library's global runtime would be.
    let outside = rt::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let handle = outside.handle().clone();
    let mut sim = Sim::new(1);
    sim.client("c", async move {
        // Each one's work would run on the outside runtime's threads by
        // the real clock: awaiting it, the run reported a deadlock at
        // once (nothing of its own was left to run), or, with timers of
        // its own pending, finished or not by how fast the machine was.
        let panics: [(&str, Call); 3] = [
            ("`Handle::spawn`", {
                let handle = handle.clone();
                Box::new(move || drop(handle.spawn(async {})))
            }),
            ("`Handle::spawn_blocking`", {
                let handle = handle.clone();
                Box::new(move || drop(handle.spawn_blocking(|| ())))
            }),
            ("`Handle::enter`", {
                let handle = handle.clone();
                Box::new(move || drop(handle.enter()))
            }),
        ];
        for (api, call) in panics {
            let payload = rt::spawn(async move { call() }).await.unwrap_err();
            let payload = payload.into_panic();
            let text = payload.downcast_ref::<String>().unwrap();
            assert!(
                text.contains(&format!("{api} on another runtime inside a simulation"))
                    && text.contains("rt::spawn"),
                "{text}"
            );
        }
        let errors = [
            rt::task::Builder::new()
                .spawn_on(async {}, &handle)
                .map(drop),
            rt::task::Builder::new()
                .spawn_blocking_on(|| (), &handle)
                .map(drop),
        ];
        for error in errors {
            let error = error.unwrap_err();
            assert_eq!(error.kind(), std::io::ErrorKind::Unsupported, "{error}");
        }
        // The simulation's own handle spawns as ever.
        let own = rt::runtime::Handle::current();
        assert_eq!(own.spawn(async { 7 }).await?, 7);
        assert_eq!(own.spawn_blocking(|| 8).await?, 8);
        Ok::<_, BoxError>(())
    });
    sim.run().unwrap_or_else(|e| panic!("{e}"));
    // Outside the run, the runtime takes work as ever.
    assert_eq!(outside.block_on(outside.spawn(async { 9 })).unwrap(), 9);
}

#[test]
fn blocking_on_a_runtime_built_outside_the_simulation_is_refused() {
    let outside = rt::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let handle = outside.handle().clone();
    let mut sim = Sim::new(1);
    sim.client("c", async move {
        // `block_in_place` leaves the run's context, so the other
        // runtime's `block_on` ran there: its sleep took real time (a
        // few milliseconds, a different number each run), and its result
        // came back into the run. In a task, the refusal named a fix
        // (`spawn_blocking`) that runs inline, where it is refused too.
        let in_place = handle.clone();
        let blocked = rt::spawn(async move {
            rt::task::block_in_place(move || {
                in_place.block_on(async {
                    rt::time::sleep(Duration::from_millis(3)).await;
                })
            })
        });
        let in_task = handle.clone();
        let in_task = rt::spawn(async move { in_task.block_on(async {}) });
        for refused in [blocked.await.unwrap_err(), in_task.await.unwrap_err()] {
            let payload = refused.into_panic();
            let text = payload.downcast_ref::<String>().unwrap();
            assert!(
                text.contains("`block_on` on another runtime inside a simulation")
                    && text.contains("rt::spawn"),
                "{text}"
            );
        }
        Ok::<_, BoxError>(())
    });
    sim.run().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(outside.block_on(async { 9 }), 9);
}

/// The panic message of running a one-client simulation here.
fn panic_of_a_nested_run() -> String {
    let payload = std::panic::catch_unwind(|| {
        let mut sim = Sim::new(1);
        sim.client("inner", async { Ok::<_, std::io::Error>(()) });
        sim.run()
    })
    .unwrap_err();
    match payload.downcast_ref::<&str>() {
        Some(message) => (*message).to_owned(),
        None => payload
            .downcast_ref::<String>()
            .cloned()
            .unwrap_or_default(),
    }
}

#[test]
fn running_a_simulation_inside_a_runtime_panics_naming_the_fix() {
    // As under `#[rt::test]`, whose body runs in `block_on`.
    let runtime = rt::runtime::Builder::new_current_thread().build().unwrap();
    let in_block_on = runtime.block_on(async { panic_of_a_nested_run() });
    let mut sim = Sim::new(1);
    let seen = Arc::new(StdMutex::new(String::new()));
    let inner = seen.clone();
    sim.client("outer", async move {
        *inner.lock().unwrap() = panic_of_a_nested_run();
        Ok::<_, std::io::Error>(())
    });
    sim.run().unwrap_or_else(|e| panic!("{e}"));
    let in_a_simulation = seen.lock().unwrap().clone();
    for message in [in_block_on, in_a_simulation] {
        assert!(
            message.contains("`Sim::run` called inside a runtime")
                && message.contains("`#[rt::test]`")
                && message.contains("plain `#[test]`"),
            "{message}"
        );
    }
}

#[test]
fn a_run_leaves_nothing_behind() {
    let dropped = Arc::new(AtomicUsize::new(0));
    struct Counted(Arc<AtomicUsize>);
    impl Drop for Counted {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
    let mut sim = Sim::new(1);
    let d = dropped.clone();
    sim.host("server", move || {
        let token = Counted(d.clone());
        async move {
            let _token = token;
            rt::time::sleep(Duration::from_secs(100)).await;
            Ok::<_, std::io::Error>(())
        }
    });
    sim.client("quick", async { Ok::<_, std::io::Error>(()) });
    sim.run().unwrap();
    assert_eq!(dropped.load(Ordering::SeqCst), 1);
    // Not inside a runtime any more.
    assert!(rt::runtime::Handle::try_current().is_err());
}

#[test]
#[should_panic(expected = "needs at least one client")]
fn a_simulation_without_clients_is_refused() {
    let mut sim = Sim::new(1);
    sim.host("lonely", || async { Ok::<_, std::io::Error>(()) });
    let _ = sim.run();
}

#[test]
#[should_panic(expected = "named `twin` was already added")]
fn duplicate_names_are_refused() {
    let mut sim = Sim::new(1);
    sim.client("twin", async { Ok::<_, std::io::Error>(()) });
    sim.host("twin", || async { Ok::<_, std::io::Error>(()) });
}

#[test]
fn the_simulations_handle_works_as_a_current_thread_runtime_handle() {
    let mut sim = Sim::new(6);
    sim.client("introspector", async {
        let handle = rt::runtime::Handle::current();
        assert_eq!(
            handle.runtime_flavor(),
            rt::runtime::RuntimeFlavor::CurrentThread
        );
        let _parked = handle.spawn(std::future::pending::<()>());
        assert_eq!(handle.metrics().num_alive_tasks(), 2);
        assert_eq!(handle.dump().len(), 2);
        // Driving it from elsewhere is refused: `Sim::run` drives it.
        let refused = std::thread::spawn(move || handle.block_on(async {}))
            .join()
            .unwrap_err();
        let message = refused.downcast_ref::<&str>().copied().unwrap_or_default();
        assert!(message.contains("a simulation is driven by"), "{message}");
        Ok::<_, std::io::Error>(())
    });
    sim.run().unwrap_or_else(|e| panic!("{e}"));
}
