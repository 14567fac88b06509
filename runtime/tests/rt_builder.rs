//! Builder settings that are visible from outside: thread start/stop
//! hooks, thread names, park/unpark hooks, worker counts.

mod support;

use rt::runtime::{Builder, RuntimeFlavor};
use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use support::{Kind, each_runtime};

fn counter() -> (Arc<AtomicUsize>, impl Fn() + Send + Sync + 'static) {
    let count = Arc::new(AtomicUsize::new(0));
    let inc = count.clone();
    (count, move || {
        inc.fetch_add(1, Ordering::SeqCst);
    })
}

#[test]
fn on_thread_start_and_stop_run_once_per_worker() {
    for workers in [1, 2, 4] {
        // Repeated: a stop hook racing the end of `drop(rt)` shows up
        // within a few rounds.
        for _ in 0..20 {
            let (started, on_start) = counter();
            let (stopped, on_stop) = counter();
            let rt = Builder::new_multi_thread()
                .worker_threads(workers)
                .on_thread_start(on_start)
                .on_thread_stop(on_stop)
                .build()
                .unwrap();
            rt.block_on(async {
                for _ in 0..100 {
                    rt::spawn(async {}).await.unwrap();
                }
            });
            // Dropping the runtime waits for its threads, hooks included.
            drop(rt);
            assert_eq!(started.load(Ordering::SeqCst), workers);
            assert_eq!(stopped.load(Ordering::SeqCst), workers);
        }
    }
}

/// The thread hooks run with their runtime current, as tokio's do, so a
/// hook may call `Handle::current()`; before, they ran outside it and
/// `Handle::current()` panicked there.
#[test]
fn thread_hooks_see_their_runtime_as_current() {
    use rt::runtime::Handle;
    use std::sync::Mutex;
    for kind in [Kind::CurrentThread, Kind::MultiThread(2)] {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let (on_start, on_stop) = (seen.clone(), seen.clone());
        let rt = kind
            .builder()
            .on_thread_start(move || {
                let current = Handle::try_current().map(|handle| handle.id());
                on_start.lock().unwrap().push(("start", current.ok()));
            })
            .on_thread_stop(move || {
                let current = Handle::try_current().map(|handle| handle.id());
                on_stop.lock().unwrap().push(("stop", current.ok()));
            })
            .build()
            .unwrap();
        let id = rt.handle().id();
        // A blocking-pool thread, on both flavors.
        rt.block_on(rt.spawn_blocking(|| {})).unwrap();
        drop(rt);
        let seen = seen.lock().unwrap();
        assert!(
            seen.iter().any(|&(hook, _)| hook == "start"),
            "{kind:?}: {seen:?}"
        );
        for &(hook, current) in seen.iter() {
            assert_eq!(current, Some(id), "{kind:?}: the {hook} hook: {seen:?}");
        }
    }
}

#[test]
fn a_current_thread_runtime_starts_no_thread() {
    let (started, on_start) = counter();
    let (stopped, on_stop) = counter();
    let rt = Builder::new_current_thread()
        .on_thread_start(on_start)
        .on_thread_stop(on_stop)
        .build()
        .unwrap();
    let here = std::thread::current().id();
    assert_eq!(
        rt.block_on(rt.spawn(async { std::thread::current().id() }))
            .unwrap(),
        here
    );
    drop(rt);
    assert_eq!(started.load(Ordering::SeqCst), 0);
    assert_eq!(stopped.load(Ordering::SeqCst), 0);
}

#[test]
fn worker_threads_carry_the_configured_name() {
    let name_of_task_thread = |rt: &rt::runtime::Runtime| {
        rt.block_on(rt.spawn(async { std::thread::current().name().map(String::from) }))
            .unwrap()
    };
    let rt = Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    assert_eq!(name_of_task_thread(&rt).as_deref(), Some("rt-worker"));
    let rt = Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("custom-name")
        .build()
        .unwrap();
    assert_eq!(name_of_task_thread(&rt).as_deref(), Some("custom-name"));
}

#[test]
fn thread_name_fn_names_each_worker() {
    let next = Arc::new(AtomicUsize::new(0));
    let counter = next.clone();
    let rt = Builder::new_multi_thread()
        .worker_threads(3)
        .thread_name_fn(move || format!("numbered-{}", counter.fetch_add(1, Ordering::SeqCst)))
        .build()
        .unwrap();
    // Called once per worker, when the runtime is built.
    assert_eq!(next.load(Ordering::SeqCst), 3);
    let names: HashSet<String> = rt.block_on(async {
        let mut names = HashSet::new();
        for _ in 0..200 {
            let name = rt::spawn(async { std::thread::current().name().unwrap().to_owned() })
                .await
                .unwrap();
            names.insert(name);
        }
        names
    });
    let expected: HashSet<String> = (0..3).map(|i| format!("numbered-{i}")).collect();
    assert!(names.is_subset(&expected), "{names:?}");
    assert!(!names.is_empty());
}

/// Uses at least `frames` KiB of stack.
fn deep(frames: u32) -> u64 {
    let frame = std::hint::black_box([1u8; 1024]);
    if frames == 0 {
        return 0;
    }
    u64::from(frame[0]) + deep(frames - 1)
}

#[test]
fn thread_stack_size_applies_to_workers() {
    let rt = Builder::new_multi_thread()
        .worker_threads(1)
        .thread_stack_size(32 << 20)
        .build()
        .unwrap();
    // About 8 MiB of stack: more than a default thread has, well within
    // the configured size.
    let depth = rt.block_on(rt.spawn(async { deep(8 * 1024) })).unwrap();
    assert_eq!(depth, 8 * 1024);
}

#[test]
fn park_and_unpark_hooks_run_when_a_worker_waits() {
    for kind in [Kind::CurrentThread, Kind::MultiThread(2)] {
        let (parked, count_park) = counter();
        let (unparked, on_unpark) = counter();
        let (park_tx, park_rx) = std::sync::mpsc::channel::<()>();
        let rt = kind
            .builder()
            .on_thread_park(move || {
                count_park();
                let _ = park_tx.send(());
            })
            .on_thread_unpark(on_unpark)
            .build()
            .unwrap();
        let (tx, rx) = futures_channel::oneshot::channel();
        // Sends only once a runtime thread ran out of work and parked, so
        // the message has to wake it.
        let sender = std::thread::spawn(move || {
            park_rx.recv().unwrap();
            tx.send(()).unwrap();
        });
        let task = rt.spawn(async move { rx.await.unwrap() });
        rt.block_on(task).unwrap();
        sender.join().unwrap();
        drop(rt);
        assert!(parked.load(Ordering::SeqCst) >= 1, "{kind:?}: never parked");
        assert!(
            unparked.load(Ordering::SeqCst) >= 1,
            "{kind:?}: never unparked"
        );
    }
}

#[test]
fn flavor_and_worker_count_metrics() {
    each_runtime(|kind, rt| {
        let handle = rt.handle();
        match kind {
            Kind::CurrentThread => {
                assert_eq!(handle.runtime_flavor(), RuntimeFlavor::CurrentThread);
                assert_eq!(handle.metrics().num_workers(), 1);
            }
            Kind::MultiThread(workers) => {
                assert_eq!(handle.runtime_flavor(), RuntimeFlavor::MultiThread);
                assert_eq!(handle.metrics().num_workers(), workers);
            }
        }
        // Inside the runtime, the current handle is this runtime's.
        let inside = rt.block_on(async { rt::runtime::Handle::current() });
        assert!(inside == *handle);
    });
}

#[test]
fn num_alive_tasks_counts_unfinished_tasks() {
    each_runtime(|_, rt| {
        let metrics = rt.handle().metrics();
        assert_eq!(metrics.num_alive_tasks(), 0);
        let (release_tx, release_rx) = futures_channel::oneshot::channel::<()>();
        let waiting = rt.spawn(async move { release_rx.await.unwrap() });
        let pending = rt.spawn(std::future::pending::<()>());
        assert_eq!(metrics.num_alive_tasks(), 2);
        release_tx.send(()).unwrap();
        rt.block_on(waiting).unwrap();
        support::wait_until("the finished task left the count", || {
            metrics.num_alive_tasks() == 1
        });
        pending.abort();
        assert!(rt.block_on(pending).unwrap_err().is_cancelled());
        support::wait_until("the aborted task left the count", || {
            metrics.num_alive_tasks() == 0
        });
    });
}

/// Request/reply between `block_on` and a task, and between two tasks, is
/// exact with spinning off, at the default, and with a spin far longer
/// than any wait here (so threads that keep spinning still hand over every
/// message and let the runtime shut down).
#[test]
fn request_reply_is_exact_whatever_the_spin_before_park() {
    for spin in [
        std::time::Duration::ZERO,
        std::time::Duration::from_micros(20),
        std::time::Duration::from_millis(50),
    ] {
        let rt = Builder::new_multi_thread()
            .worker_threads(2)
            .spin_before_park(spin)
            .build()
            .unwrap();
        let answered = rt.block_on(async {
            let (requests, mut incoming) =
                rt::sync::mpsc::channel::<(u32, rt::sync::oneshot::Sender<u32>)>(4);
            let server = rt::spawn(async move {
                let mut served = 0;
                while let Some((value, reply)) = incoming.recv().await {
                    reply.send(value * 2).unwrap();
                    served += 1;
                }
                served
            });
            let client = {
                let requests = requests.clone();
                rt::spawn(async move {
                    let mut sum = 0;
                    for value in 0..500 {
                        let (reply, replied) = rt::sync::oneshot::channel();
                        requests.send((value, reply)).await.unwrap();
                        sum += replied.await.unwrap();
                    }
                    sum
                })
            };
            let mut sum = 0;
            for value in 0..500 {
                let (reply, replied) = rt::sync::oneshot::channel();
                requests.send((value, reply)).await.unwrap();
                sum += replied.await.unwrap();
            }
            drop(requests);
            (sum + client.await.unwrap(), server.await.unwrap())
        });
        assert_eq!(
            answered,
            (2 * 2 * (0..500).sum::<u32>(), 1000),
            "spin {spin:?}"
        );
    }
}

#[test]
fn each_runtime_has_its_own_id() {
    let (a, b) = (Kind::CurrentThread.build(), Kind::MultiThread(2).build());
    let id = a.handle().id();
    assert_eq!(id, a.handle().clone().id());
    assert_ne!(id, b.handle().id());
    let inside = a.block_on(async { rt::runtime::Handle::current().id() });
    assert_eq!(inside, id);
    let shown: rt::runtime::Id = b.handle().id();
    assert_ne!(shown.to_string(), id.to_string());
}

/// A task spawned by the park hook runs without anything else waking the
/// runtime: the hook runs before the scheduler's last look at its queues.
/// (On the current-thread scheduler such a spawn lands in the local queue,
/// which wakes no one: the thread slept in the driver with the task
/// queued, until something from outside woke it.)
#[test]
fn a_task_spawned_by_the_park_hook_runs_before_the_thread_sleeps() {
    for kind in [
        Kind::CurrentThread,
        Kind::MultiThread(1),
        Kind::MultiThread(2),
    ] {
        let notify = Arc::new(rt::sync::Notify::new());
        let hook_notify = notify.clone();
        let spawned = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let hook_spawned = spawned.clone();
        let (hook_ran_tx, hook_ran_rx) = std::sync::mpsc::channel::<()>();
        let hook_ran_tx = std::sync::Mutex::new(hook_ran_tx);
        let rt = kind
            .builder()
            .on_thread_park(move || {
                if !hook_spawned.swap(true, Ordering::SeqCst) {
                    let notify = hook_notify.clone();
                    rt::spawn(async move { notify.notify_one() });
                    hook_ran_tx.lock().unwrap().send(()).unwrap();
                }
            })
            .build()
            .unwrap();
        // Only a failure path: if the runtime sleeps with the task queued,
        // this thread wakes it from outside (so the test ends) and says so.
        let rescued = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
        let rescuer = {
            let handle = rt.handle().clone();
            let notify = notify.clone();
            let rescued = rescued.clone();
            std::thread::spawn(move || {
                if hook_ran_rx.recv().is_err() {
                    // The runtime was dropped without the hook running.
                    return;
                }
                if done_rx
                    .recv_timeout(std::time::Duration::from_secs(30))
                    .is_err()
                {
                    rescued.store(true, Ordering::SeqCst);
                    handle.spawn(async move { notify.notify_one() });
                }
            })
        };
        rt.block_on(notify.notified());
        // Fails only when the rescuer already gave up waiting (asserted below).
        let _ = done_tx.send(());
        drop(rt);
        rescuer.join().unwrap();
        assert!(
            spawned.load(Ordering::SeqCst),
            "{kind:?}: the hook never ran"
        );
        assert!(
            !rescued.load(Ordering::SeqCst),
            "{kind:?}: the task the park hook spawned only ran once the runtime was woken from outside"
        );
    }
}

/// Builds a runtime with `configure`, runs a task on it and drops it, on
/// a thread of its own; says how far it got within `HANG`.
fn run_and_drop(configure: impl FnOnce(&mut Builder) + Send + 'static) -> Vec<&'static str> {
    const HANG: std::time::Duration = std::time::Duration::from_secs(30);
    let (step, steps) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut builder = Builder::new_multi_thread();
        configure(builder.worker_threads(2));
        let rt = builder.build().unwrap();
        assert_eq!(rt.block_on(rt.spawn(async { 5 })).unwrap(), 5);
        step.send("ran a task").unwrap();
        drop(rt);
        step.send("dropped").unwrap();
    });
    let mut reached = Vec::new();
    while let Ok(step) = steps.recv_timeout(HANG) {
        reached.push(step);
        if step == "dropped" {
            break;
        }
    }
    reached
}

/// A panic in a thread hook is printed and the thread goes on. Before, it
/// ended the thread: a panicking start, park or unpark hook left the
/// runtime without workers (the task never ran, `block_on` hung), a
/// panicking stop hook left its worker's exit uncounted (dropping the
/// runtime hung).
#[test]
fn a_panicking_thread_hook_neither_strands_tasks_nor_hangs_the_drop() {
    let start = run_and_drop(|builder| {
        builder.on_thread_start(|| panic!("a start hook's own bug"));
    });
    assert_eq!(start, ["ran a task", "dropped"], "panicking start hook");
    let stop = run_and_drop(|builder| {
        builder.on_thread_stop(|| panic!("a stop hook's own bug"));
    });
    assert_eq!(stop, ["ran a task", "dropped"], "panicking stop hook");
    let park = run_and_drop(|builder| {
        builder.on_thread_park(|| panic!("a park hook's own bug"));
    });
    assert_eq!(park, ["ran a task", "dropped"], "panicking park hook");
    let unpark = run_and_drop(|builder| {
        builder.on_thread_unpark(|| panic!("an unpark hook's own bug"));
    });
    assert_eq!(unpark, ["ran a task", "dropped"], "panicking unpark hook");
}

/// A zero slow-poll threshold would report every poll (before, it was
/// accepted: every poll still running at two samples, 1 ms apart, was
/// reported and its worker treated as stuck); it is refused, naming the
/// fix.
#[test]
fn a_zero_slow_poll_threshold_panics_naming_the_fix() {
    let panic = std::panic::catch_unwind(|| {
        Builder::new_current_thread().slow_poll_threshold(std::time::Duration::ZERO);
    })
    .unwrap_err();
    let message = (panic.downcast_ref::<String>().map(String::as_str))
        .or(panic.downcast_ref::<&str>().copied())
        .unwrap();
    assert!(
        message.contains("`slow_poll_threshold` must be greater than zero")
            && message.contains("do not call it"),
        "{message}"
    );
}

/// Every runtime thread's stop hook, the blocking pool's included, has run
/// by the time dropping the runtime returns (tokio joins its threads), and
/// each hook runs on its own thread. Before, a pool thread left the pool's
/// count before its stop hook ran, so the drop returned with the hooks of
/// the pool's threads still to come (in almost every round).
#[test]
fn every_stop_hook_has_run_when_the_drop_returns() {
    for kind in [Kind::CurrentThread, Kind::MultiThread(2)] {
        for round in 0..20 {
            let started = Arc::new(std::sync::Mutex::new(Vec::new()));
            let stopped = Arc::new(std::sync::Mutex::new(Vec::new()));
            let (on_start, on_stop) = (started.clone(), stopped.clone());
            let next = AtomicUsize::new(0);
            let thread_name = |hooks: &std::sync::Mutex<Vec<String>>| {
                let name = std::thread::current().name().unwrap().to_owned();
                hooks.lock().unwrap().push(name);
            };
            let rt = kind
                .builder()
                .thread_name_fn(move || format!("hooked-{}", next.fetch_add(1, Ordering::SeqCst)))
                .on_thread_start(move || thread_name(&on_start))
                .on_thread_stop(move || thread_name(&on_stop))
                .build()
                .unwrap();
            // Three pool threads at once: each call waits for the others.
            let all_running = Arc::new(std::sync::Barrier::new(3));
            let calls: Vec<_> = (0..3)
                .map(|_| {
                    let all_running = all_running.clone();
                    rt.spawn_blocking(move || {
                        all_running.wait();
                    })
                })
                .collect();
            for call in calls {
                rt.block_on(call).unwrap();
            }
            drop(rt);
            let mut started = std::mem::take(&mut *started.lock().unwrap());
            let mut stopped = std::mem::take(&mut *stopped.lock().unwrap());
            started.sort();
            stopped.sort();
            let workers = if kind == Kind::CurrentThread { 0 } else { 2 };
            assert_eq!(
                started.len(),
                workers + 3,
                "{kind:?} round {round}: {started:?}"
            );
            assert_eq!(
                stopped, started,
                "{kind:?} round {round}: stop hooks still to run"
            );
        }
    }
}

/// As above, with a worker core handed off by `block_in_place`: the pool
/// thread that ran the core has run its stop hook when the drop returns;
/// the thread that blocked in place is not waited for (it runs the user's
/// closure, which may outlast the runtime), as before.
#[test]
fn the_stop_hook_of_a_thread_that_took_over_a_worker_has_run_when_the_drop_returns() {
    for round in 0..20 {
        let started = Arc::new(std::sync::Mutex::new(Vec::new()));
        let stopped = Arc::new(std::sync::Mutex::new(Vec::new()));
        let (on_start, on_stop) = (started.clone(), stopped.clone());
        let next = AtomicUsize::new(0);
        let thread_name = |hooks: &std::sync::Mutex<Vec<String>>| {
            let name = std::thread::current().name().unwrap().to_owned();
            hooks.lock().unwrap().push(name);
        };
        let rt = Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name_fn(move || format!("hooked-{}", next.fetch_add(1, Ordering::SeqCst)))
            .on_thread_start(move || thread_name(&on_start))
            .on_thread_stop(move || thread_name(&on_stop))
            .build()
            .unwrap();
        let blocked_in_place = rt
            .block_on(rt.spawn(async {
                rt::task::block_in_place(|| std::thread::current().name().unwrap().to_owned())
            }))
            .unwrap();
        // The worker loop now runs on a pool thread.
        assert_eq!(rt.block_on(rt.spawn(async { 2 })).unwrap(), 2);
        drop(rt);
        let mut started = std::mem::take(&mut *started.lock().unwrap());
        let mut stopped = std::mem::take(&mut *stopped.lock().unwrap());
        started.retain(|name| *name != blocked_in_place);
        stopped.retain(|name| *name != blocked_in_place);
        started.sort();
        stopped.sort();
        assert_eq!(started.len(), 1, "round {round}: {started:?}");
        assert_eq!(stopped, started, "round {round}: stop hooks still to run");
    }
}

/// A stop hook may spawn a task and wait for it: the runtime is shutting
/// down, so the task is cancelled at once (as tokio's, whose workers close
/// the task list as they stop) and the hook goes on. Before, on the
/// multi-thread runtime, the task was queued for workers that had already
/// stopped and cancelled only once every worker had exited: the hook
/// waited for ever, and so did the drop.
#[test]
fn a_task_spawned_by_a_stop_hook_is_cancelled_not_waited_for() {
    let results = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = results.clone();
    let reached = run_and_drop(move |builder| {
        builder.on_thread_stop(move || {
            let handle = rt::runtime::Handle::current();
            let task = handle.spawn(async { 1 });
            let cancelled = handle.block_on(task).unwrap_err().is_cancelled();
            seen.lock().unwrap().push(cancelled);
        });
    });
    assert_eq!(reached, ["ran a task", "dropped"]);
    // Both workers' hooks ran, and saw their task cancelled.
    assert_eq!(*results.lock().unwrap(), [true, true]);
}

/// A worker's stop hook may wait on the runtime's timer: the shutdown
/// shuts the driver down while the hooks run, so the wait reports the
/// shutdown (its poll panics, as tokio's does) and the hook goes on.
/// Before, the driver was shut down only once every worker's hook had
/// returned, and no worker turned it any more: the hook waited for ever
/// on its timer, and so did the drop.
#[test]
fn a_stop_hook_waiting_on_a_timer_sees_the_shutdown() {
    let results = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = results.clone();
    let reached = run_and_drop(move |builder| {
        builder.enable_time().on_thread_stop(move || {
            let handle = rt::runtime::Handle::current();
            let waited = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                handle.block_on(rt::time::sleep(std::time::Duration::from_secs(3600)))
            }));
            let message = waited.map_err(|payload| support::panic_message(&*payload));
            seen.lock().unwrap().push(message);
        });
    });
    assert_eq!(reached, ["ran a task", "dropped"]);
    let results = results.lock().unwrap();
    assert_eq!(results.len(), 2, "{results:?}");
    for result in results.iter() {
        let message = result.as_ref().unwrap_err();
        assert!(message.contains("after its runtime shut down"), "{message}");
    }
}
