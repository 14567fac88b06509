//! `LocalSet` and `spawn_local`: `!Send` tasks on one thread, woken from
//! any thread, joined and aborted through the usual handles, and dropped on
//! their own thread.

mod support;

use rt::runtime::{Builder, Runtime};
use rt::task::{LocalSet, spawn_local, yield_now};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::{Arc, Barrier, Mutex};
use std::thread::{self, ThreadId};
use support::{expect_panic, panic_message};

fn current_thread() -> Runtime {
    Builder::new_current_thread().enable_all().build().unwrap()
}

fn multi_thread() -> Runtime {
    Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// Both ways a set is driven by `block_on`: the current-thread runtime
/// (the set shares the thread with the runtime's tasks) and a thread
/// blocking on the multi-thread runtime.
fn runtimes() -> [(&'static str, Runtime); 2] {
    [
        ("current_thread", current_thread()),
        ("multi_thread", multi_thread()),
    ]
}

/// Records on which thread it was dropped, and that the `Rc` it holds (a
/// `!Send` value) is still intact then.
struct ThreadRecorder {
    dropped_on: Arc<Mutex<Vec<ThreadId>>>,
    rc: Rc<u32>,
}

impl Drop for ThreadRecorder {
    fn drop(&mut self) {
        assert_eq!(*self.rc, 7);
        self.dropped_on.lock().unwrap().push(thread::current().id());
    }
}

fn recorder(dropped_on: &Arc<Mutex<Vec<ThreadId>>>) -> ThreadRecorder {
    ThreadRecorder {
        dropped_on: dropped_on.clone(),
        rc: Rc::new(7),
    }
}

#[test]
fn tasks_holding_rc_share_state_on_one_thread() {
    for (name, rt) in runtimes() {
        eprintln!("-- {name}");
        let local = LocalSet::new();
        let log = Rc::new(RefCell::new(Vec::new()));
        let owner = thread::current().id();
        local.block_on(&rt, async {
            let tasks: Vec<_> = (0..10)
                .map(|i| {
                    let log = log.clone();
                    spawn_local(async move {
                        for round in 0..5 {
                            assert_eq!(thread::current().id(), owner);
                            log.borrow_mut().push((i, round));
                            yield_now().await;
                        }
                        Rc::new(i)
                    })
                })
                .collect();
            for (i, task) in tasks.into_iter().enumerate() {
                // A `!Send` output comes back through the JoinHandle.
                let out: Rc<usize> = task.await.unwrap();
                assert_eq!(*out, i);
            }
        });
        assert_eq!(log.borrow().len(), 50);
        // The tasks took turns: every task's first round before any second.
        assert!(log.borrow()[..10].iter().all(|&(_, round)| round == 0));
    }
}

#[test]
fn a_local_task_is_woken_from_other_threads() {
    for (name, rt) in runtimes() {
        eprintln!("-- {name}");
        let local = LocalSet::new();
        local.block_on(&rt, async {
            let state = Rc::new(Cell::new(0));
            let (tx, rx) = rt::sync::oneshot::channel::<u32>();
            let seen = state.clone();
            let task = spawn_local(async move {
                let value = rx.await.unwrap();
                seen.set(value);
                // And a wake from a runtime task (a worker thread on the
                // multi-thread runtime).
                let from_worker = rt::spawn(async { 5 }).await.unwrap();
                seen.set(seen.get() + from_worker);
            });
            let barrier = Arc::new(Barrier::new(2));
            let sender = thread::spawn({
                let barrier = barrier.clone();
                move || {
                    barrier.wait();
                    tx.send(37).unwrap();
                }
            });
            // The task is parked on the channel before the thread sends.
            yield_now().await;
            assert_eq!(state.get(), 0);
            barrier.wait();
            task.await.unwrap();
            sender.join().unwrap();
            assert_eq!(state.get(), 42);
        });
    }
}

#[test]
fn an_abort_from_another_thread_drops_the_future_on_the_owning_thread() {
    for (name, rt) in runtimes() {
        eprintln!("-- {name}");
        let local = LocalSet::new();
        let dropped_on = Arc::new(Mutex::new(Vec::new()));
        let guard = recorder(&dropped_on);
        let task = local.spawn_local(async move {
            let _guard = guard;
            std::future::pending::<()>().await;
        });
        // Let it start and park.
        local.block_on(&rt, yield_now());
        let abort = task.abort_handle();
        thread::spawn(move || abort.abort()).join().unwrap();
        // The abort could not drop the future on that thread; it waits for
        // the set to run it.
        assert!(dropped_on.lock().unwrap().is_empty());
        assert!(!task.is_finished());
        let error = local.block_on(&rt, task).unwrap_err();
        assert!(error.is_cancelled());
        assert_eq!(*dropped_on.lock().unwrap(), [thread::current().id()]);
    }
}

#[test]
fn an_abort_on_the_owning_thread_and_of_a_queued_task() {
    let rt = current_thread();
    let local = LocalSet::new();
    let dropped_on = Arc::new(Mutex::new(Vec::new()));
    local.block_on(&rt, async {
        let guard = recorder(&dropped_on);
        let running = spawn_local(async move {
            let _guard = guard;
            std::future::pending::<()>().await;
        });
        yield_now().await;
        running.abort();
        assert!(running.await.unwrap_err().is_cancelled());

        // Never polled: aborted while queued.
        let guard = recorder(&dropped_on);
        let queued = spawn_local(async move {
            let _guard = guard;
            unreachable!("an aborted task is never polled");
        });
        queued.abort();
        assert!(queued.await.unwrap_err().is_cancelled());
    });
    assert_eq!(dropped_on.lock().unwrap().len(), 2);
}

#[test]
fn a_panicking_local_task_is_reported_and_the_set_runs_on() {
    for (name, rt) in runtimes() {
        eprintln!("-- {name}");
        let local = LocalSet::new();
        local.block_on(&rt, async {
            let failed = spawn_local(async {
                yield_now().await;
                panic!("local boom");
            });
            let error = failed.await.unwrap_err();
            assert!(error.is_panic());
            assert_eq!(panic_message(&*error.into_panic()), "local boom");
            assert_eq!(spawn_local(async { 1 }).await.unwrap(), 1);
        });
        // A panic of the main future comes out of `block_on`.
        let message = expect_panic(|| local.block_on(&rt, async { panic!("main boom") }));
        assert_eq!(message, "main boom");
        assert_eq!(
            local.block_on(&rt, local.spawn_local(async { 2 })).unwrap(),
            2
        );
    }
}

#[test]
fn nested_spawn_local_stays_on_the_thread() {
    let rt = multi_thread();
    let local = LocalSet::new();
    let owner = thread::current().id();
    let depth_reached = local.block_on(&rt, async move {
        fn nest(depth: u32, owner: ThreadId) -> rt::task::JoinHandle<u32> {
            let marker = Rc::new(depth);
            spawn_local(async move {
                assert_eq!(thread::current().id(), owner);
                yield_now().await;
                if *marker == 20 {
                    return *marker;
                }
                nest(*marker + 1, owner).await.unwrap()
            })
        }
        nest(0, owner).await.unwrap()
    });
    assert_eq!(depth_reached, 20);
}

#[test]
fn dropping_the_set_drops_its_tasks_there_even_when_wakers_outlive_it() {
    for (name, rt) in runtimes() {
        eprintln!("-- {name}");
        let local = LocalSet::new();
        let dropped_on = Arc::new(Mutex::new(Vec::new()));
        let order = Rc::new(RefCell::new(Vec::new()));
        let (tx, rx) = futures_channel::oneshot::channel::<()>();
        let mut handles = Vec::new();
        // One task parked on a channel whose sender another thread keeps
        // (and with it the task's waker), others parked for good.
        let guard = recorder(&dropped_on);
        handles.push(local.spawn_local(async move {
            let _guard = guard;
            let _ = rx.await;
        }));
        for i in 0..3 {
            let guard = recorder(&dropped_on);
            let order = order.clone();
            handles.push(local.spawn_local(async move {
                struct Logs(Rc<RefCell<Vec<i32>>>, i32);
                impl Drop for Logs {
                    fn drop(&mut self) {
                        self.0.borrow_mut().push(self.1);
                    }
                }
                let _guard = guard;
                let _logs = Logs(order, i);
                std::future::pending::<()>().await;
            }));
        }
        local.block_on(&rt, yield_now());
        let keeper = thread::spawn(move || {
            // Holds the sender (and the task's waker) past the set's drop.
            thread::park();
            drop(tx);
        });
        drop(local);
        // Every future was dropped during the set's drop, on this thread.
        assert_eq!(*dropped_on.lock().unwrap(), vec![thread::current().id(); 4]);
        let mut logged = order.borrow().clone();
        logged.sort();
        assert_eq!(logged, [0, 1, 2]);
        keeper.thread().unpark();
        keeper.join().unwrap();
        for handle in handles {
            assert!(rt.block_on(handle).unwrap_err().is_cancelled());
        }
    }
}

#[test]
fn a_set_runs_inside_the_multi_thread_block_on_alongside_runtime_tasks() {
    let rt = multi_thread();
    let local = LocalSet::new();
    let total = local.block_on(&rt, async {
        let counter = Rc::new(Cell::new(0u64));
        let mut local_tasks = Vec::new();
        for i in 0..50u64 {
            let counter = counter.clone();
            local_tasks.push(spawn_local(async move {
                // Work on the workers, woken back here.
                let doubled = rt::spawn(async move { i * 2 }).await.unwrap();
                rt::time::sleep(std::time::Duration::from_millis(1)).await;
                counter.set(counter.get() + doubled);
            }));
        }
        for task in local_tasks {
            task.await.unwrap();
        }
        counter.get()
    });
    assert_eq!(total, (0..50u64).map(|i| i * 2).sum::<u64>());
}

#[test]
fn a_set_runs_inside_spawn_blocking() {
    let rt = multi_thread();
    let out = rt
        .block_on(rt.spawn_blocking(|| {
            let local = LocalSet::new();
            let handle = rt::runtime::Handle::current();
            handle.block_on(local.run_until(async {
                let rc = Rc::new(RefCell::new(String::from("blocking")));
                let rc2 = rc.clone();
                spawn_local(async move { rc2.borrow_mut().push_str("+local") })
                    .await
                    .unwrap();
                rc.borrow().clone()
            }))
        }))
        .unwrap();
    assert_eq!(out, "blocking+local");
}

#[test]
fn awaiting_the_set_runs_every_task_to_completion() {
    let rt = current_thread();
    let local = LocalSet::new();
    let done = Rc::new(Cell::new(0));
    for _ in 0..5 {
        let done = done.clone();
        local.spawn_local(async move {
            for _ in 0..3 {
                yield_now().await;
            }
            let done2 = done.clone();
            spawn_local(async move { done2.set(done2.get() + 1) });
            done.set(done.get() + 1);
        });
    }
    rt.block_on(local);
    assert_eq!(done.get(), 10);
}

#[test]
fn tasks_left_by_run_until_continue_at_the_next_run() {
    let rt = current_thread();
    let local = LocalSet::new();
    let (tx, rx) = rt::sync::oneshot::channel::<()>();
    let task = local.spawn_local(async move {
        rx.await.unwrap();
        "resumed"
    });
    local.block_on(&rt, yield_now());
    assert!(!task.is_finished());
    tx.send(()).unwrap();
    assert_eq!(local.block_on(&rt, task).unwrap(), "resumed");
}

#[test]
fn a_busy_local_task_does_not_starve_the_main_future_or_remote_wakes() {
    let rt = current_thread();
    let local = LocalSet::new();
    local.block_on(&rt, async {
        let spinning = Rc::new(Cell::new(true));
        let flag = spinning.clone();
        let spinner = spawn_local(async move {
            while flag.get() {
                yield_now().await;
            }
        });
        // Woken from another thread, while the spinner keeps the local
        // queue busy.
        let (tx, rx) = rt::sync::oneshot::channel::<()>();
        let remote_woken = spawn_local(async move { rx.await.unwrap() });
        thread::spawn(move || tx.send(()).unwrap()).join().unwrap();
        remote_woken.await.unwrap();
        spinning.set(false);
        spinner.await.unwrap();
    });
}

#[test]
fn nested_sets_each_get_their_own_spawns() {
    let rt = current_thread();
    let outer = LocalSet::new();
    outer.block_on(&rt, async {
        let outer_task = spawn_local(async {
            yield_now().await;
            "outer"
        });
        let inner = LocalSet::new();
        let from_inner = inner
            .run_until(async { spawn_local(async { "inner" }).await.unwrap() })
            .await;
        assert_eq!(from_inner, "inner");
        assert_eq!(outer_task.await.unwrap(), "outer");
    });
}

#[test]
fn spawn_local_outside_a_set_panics_naming_the_fix() {
    let message = expect_panic(|| spawn_local(async {}));
    assert!(message.contains("outside a `LocalSet`"), "{message}");
    assert!(message.contains("run_until"), "{message}");
    // Also inside a runtime task that is not in a set.
    let rt = current_thread();
    let error = rt
        .block_on(rt.spawn(async { drop(spawn_local(async {})) }))
        .unwrap_err();
    assert!(panic_message(&*error.into_panic()).contains("outside a `LocalSet`"));
}

#[test]
fn enter_makes_spawn_local_work_before_the_set_runs() {
    let rt = current_thread();
    let local = LocalSet::new();
    let task = {
        let _guard = local.enter();
        spawn_local(async { Rc::new(3) })
    };
    assert_eq!(*local.block_on(&rt, task).unwrap(), 3);
    // Outside the guard, no set is current again.
    expect_panic(|| spawn_local(async {}));
}

/// Under `LocalSet::enter`, the set stays current while the runtime runs
/// its own tasks and timers on this thread: a local task woken or spawned
/// there must still bring the set's driver back (tokio's
/// `wake_on_schedule`). The paused clock turns a lost wake into a timeout
/// instead of a hang.
#[test]
fn under_an_enter_guard_wakes_and_spawns_from_runtime_tasks_reach_the_set() {
    let rt = Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .unwrap();
    let local = LocalSet::new();
    let _guard = local.enter();
    let limit = std::time::Duration::from_secs(60);

    // Woken by a runtime task.
    let (tx, rx) = futures_channel::oneshot::channel::<u32>();
    let rc = Rc::new(1);
    let woken = spawn_local(async move { rx.await.unwrap() + *rc });
    let out = local.block_on(&rt, async move {
        rt::spawn(async move {
            yield_now().await;
            tx.send(41).unwrap();
        });
        rt::time::timeout(limit, woken).await
    });
    assert_eq!(out.expect("the woken local task never ran").unwrap(), 42);

    // Woken by a timer.
    let slept = spawn_local(async {
        rt::time::sleep(std::time::Duration::from_millis(5)).await;
        Rc::new(7)
    });
    let out = local.block_on(&rt, async move { rt::time::timeout(limit, slept).await });
    assert_eq!(*out.expect("the sleeping local task never ran").unwrap(), 7);

    // Spawned by a runtime task.
    let (tx, rx) = futures_channel::oneshot::channel();
    let out = local.block_on(&rt, async move {
        rt::spawn(async move {
            tx.send(spawn_local(async { Rc::new(3) }).id()).unwrap();
        });
        let id = rx.await.unwrap();
        // The handle went with the runtime task; the set's dump still
        // shows the spawned task is done once it ran.
        rt::time::timeout(limit, async {
            while rt::runtime::Handle::current()
                .dump()
                .iter()
                .any(|t| t.id() == id)
            {
                yield_now().await;
            }
        })
        .await
    });
    out.expect("the local task spawned by a runtime task never ran");
}

/// The same through a local runtime's `enter` guard held across `block_on`.
#[test]
fn a_local_runtime_enter_guard_held_across_block_on_keeps_local_wakes() {
    let rt = Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build_local()
        .unwrap();
    let _guard = rt.enter();
    let (tx, rx) = futures_channel::oneshot::channel::<u32>();
    let task = spawn_local(async move { rx.await.unwrap() });
    let out = rt.block_on(async move {
        rt::spawn(async move {
            yield_now().await;
            tx.send(42).unwrap();
        });
        rt::time::timeout(std::time::Duration::from_secs(60), task).await
    });
    assert_eq!(out.expect("the woken local task never ran").unwrap(), 42);
}

#[test]
fn a_local_runtime_takes_not_send_futures_and_drops_its_tasks_first() {
    let rt = Builder::new_current_thread()
        .enable_all()
        .build_local()
        .unwrap();
    let shared = Rc::new(RefCell::new(Vec::new()));
    let early = {
        let shared = shared.clone();
        rt.spawn_local(async move { shared.borrow_mut().push("early") })
    };
    let out = rt.block_on({
        let shared = shared.clone();
        async move {
            early.await.unwrap();
            let inner = shared.clone();
            spawn_local(async move { inner.borrow_mut().push("inside") })
                .await
                .unwrap();
            // Runtime tasks and timers work alongside.
            rt::time::sleep(std::time::Duration::from_millis(1)).await;
            rt::spawn(async { 40 }).await.unwrap() + shared.borrow().len()
        }
    });
    assert_eq!(out, 42);
    let dropped_on = Arc::new(Mutex::new(Vec::new()));
    let guard = recorder(&dropped_on);
    let parked = rt.spawn_local(async move {
        let _guard = guard;
        std::future::pending::<()>().await;
    });
    rt.block_on(yield_now());
    drop(rt);
    assert_eq!(*dropped_on.lock().unwrap(), [thread::current().id()]);
    drop(parked);

    let message = expect_panic(|| Builder::new_multi_thread().build_local());
    assert!(message.contains("new_current_thread"), "{message}");
}

/// Under a local runtime's `enter` guard, `spawn_local` spawns onto the
/// runtime (tokio's rt_local.rs `test_spawn_local_from_guard`), and the
/// runtime's next `block_on` runs the task; outside the guard it panics.
#[test]
fn spawn_local_under_a_local_runtime_enter_guard_spawns_onto_it() {
    let rt = Builder::new_current_thread()
        .enable_all()
        .build_local()
        .unwrap();
    let (tx, rx) = futures_channel::oneshot::channel();
    let task = {
        let _guard = rt.enter();
        let rc = Rc::new(5);
        spawn_local(async move {
            yield_now().await;
            tx.send(*rc).unwrap();
        })
    };
    assert_eq!(rt.block_on(async move { rx.await.unwrap() }), 5);
    rt.block_on(task).unwrap();
    // The guard is gone: neither the runtime nor its set is current.
    expect_panic(|| spawn_local(async {}));
    assert!(rt::runtime::Handle::try_current().is_err());
    // As with `Runtime::enter`, the guard does not keep the runtime
    // borrowed: it can be shut down under it (tokio's tests do).
    let _guard = rt.enter();
    rt.shutdown_timeout(std::time::Duration::ZERO);
}

/// On a local runtime, `spawn_local` works anywhere on the runtime's
/// thread during `block_on`, as in tokio: also in the runtime's own
/// `Send` tasks (`rt.spawn`), which run outside the set's polls.
#[test]
fn spawn_local_works_in_a_local_runtime_s_own_tasks() {
    let rt = Builder::new_current_thread()
        .enable_all()
        .build_local()
        .unwrap();
    let out = rt.block_on(async {
        rt::spawn(async {
            let mut set = rt::task::JoinSet::new();
            set.spawn_local(async {
                let rc = Rc::new(2);
                yield_now().await;
                *rc
            });
            let task = spawn_local(async {
                let rc = Rc::new(40);
                yield_now().await;
                *rc
            });
            (task, set.join_next().await.unwrap().unwrap())
        })
        .await
        .unwrap()
    });
    let (task, two) = out;
    assert_eq!(rt.block_on(task).unwrap() + two, 42);

    // Outside `block_on`, the set is no longer current.
    expect_panic(|| spawn_local(async {}));
}

/// The three ways a local runtime ends, for [`end_local_runtime`].
const ENDINGS: [&str; 3] = ["drop", "shutdown_timeout", "shutdown_background"];

/// Ends `rt` the way `how` (one of [`ENDINGS`]) names.
fn end_local_runtime(rt: rt::runtime::LocalRuntime, how: &str) {
    match how {
        "drop" => drop(rt),
        "shutdown_timeout" => rt.shutdown_timeout(std::time::Duration::from_secs(5)),
        _ => rt.shutdown_background(),
    }
}

/// A local runtime's local tasks are dropped, at drop and at either
/// shutdown, with the runtime current, as its other tasks are (and as in
/// tokio): their destructors may spawn (the task is cancelled at once) or
/// read `Handle::current`.
#[test]
fn a_local_runtime_drops_its_local_tasks_inside_the_runtime() {
    struct SpawnsOnDrop(Arc<Mutex<Vec<bool>>>);
    impl Drop for SpawnsOnDrop {
        fn drop(&mut self) {
            let current = rt::runtime::Handle::try_current().is_ok();
            if current {
                drop(rt::spawn(async {}));
            }
            self.0.lock().unwrap().push(current);
        }
    }
    for how in ENDINGS {
        let rt = Builder::new_current_thread()
            .enable_all()
            .build_local()
            .unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let guard = SpawnsOnDrop(seen.clone());
        rt.spawn_local(async move {
            let _guard = guard;
            std::future::pending::<()>().await;
        });
        rt.block_on(yield_now());
        end_local_runtime(rt, how);
        assert_eq!(*seen.lock().unwrap(), [true], "{how}");
    }
}

/// A local runtime's own `Send` tasks are dropped at its shutdown with its
/// set still current, as in tokio (whose local runtime lists both kinds of
/// task together): a destructor that calls `spawn_local` gets a cancelled
/// handle, as one calling `spawn` does. It used to panic, the set being
/// dropped first: "`rt::task::spawn_local` called outside a `LocalSet`".
#[test]
fn a_runtime_task_s_destructor_may_spawn_local_at_a_local_runtime_s_shutdown() {
    struct SpawnsLocalOnDrop(Arc<Mutex<Vec<String>>>);
    impl Drop for SpawnsLocalOnDrop {
        fn drop(&mut self) {
            let spawned = std::panic::catch_unwind(|| spawn_local(async {}));
            let outcome = match spawned {
                Ok(task) => match futures::executor::block_on(task) {
                    Err(error) if error.is_cancelled() => "cancelled".to_owned(),
                    other => format!("{other:?}"),
                },
                Err(payload) => panic_message(&*payload),
            };
            self.0.lock().unwrap().push(outcome);
        }
    }
    for how in ENDINGS {
        let rt = Builder::new_current_thread()
            .enable_all()
            .build_local()
            .unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let guard = SpawnsLocalOnDrop(seen.clone());
        let (started_tx, started_rx) = futures::channel::oneshot::channel();
        rt.spawn(async move {
            let _guard = guard;
            started_tx.send(()).unwrap();
            std::future::pending::<()>().await;
        });
        rt.block_on(started_rx).unwrap();
        end_local_runtime(rt, how);
        assert_eq!(*seen.lock().unwrap(), ["cancelled"], "{how}");
    }
}

/// A local task that finished while its handle was held waits in the set
/// for the handle (not counted as alive: awaiting the set returns), and
/// its `!Send` output outlives the set, and a local runtime, until read.
#[test]
fn a_finished_local_task_holds_its_output_for_its_handle_past_the_set() {
    let rt = current_thread();
    let local = LocalSet::new();
    let output = Rc::new(());
    let held = {
        let output = output.clone();
        local.spawn_local(async move { output })
    };
    let dropped = {
        let output = output.clone();
        local.spawn_local(async move { output })
    };
    rt.block_on(local);
    assert!(held.is_finished() && dropped.is_finished());
    assert_eq!(Rc::strong_count(&output), 3);
    drop(dropped);
    assert_eq!(Rc::strong_count(&output), 2);
    let read = futures::executor::block_on(held).unwrap();
    assert!(Rc::ptr_eq(&read, &output));
    drop(read);
    assert_eq!(Rc::strong_count(&output), 1);

    let rt = Builder::new_current_thread().build_local().unwrap();
    let held = {
        let output = output.clone();
        rt.spawn_local(async move { output })
    };
    for _ in 0..100 {
        if held.is_finished() {
            break;
        }
        rt.block_on(yield_now());
    }
    assert!(held.is_finished());
    drop(rt);
    let read = futures::executor::block_on(held).unwrap();
    assert!(Rc::ptr_eq(&read, &output));
    drop(read);
    assert_eq!(Rc::strong_count(&output), 1);
}

/// Destructors run while a set is dropped: one that spawns onto the set
/// gets a handle that reports the cancellation, and one that drops
/// another set (held by a task) drops that set's tasks too.
#[test]
fn destructors_run_by_the_set_s_drop_may_spawn_and_drop_other_sets() {
    struct SpawnsOnDrop(Rc<RefCell<Option<rt::task::JoinHandle<u32>>>>);
    impl Drop for SpawnsOnDrop {
        fn drop(&mut self) {
            *self.0.borrow_mut() = Some(spawn_local(async { 9 }));
        }
    }
    let rt = current_thread();
    let outer = LocalSet::new();
    let inner = LocalSet::new();
    let spawned = Rc::new(RefCell::new(None));
    let guard = SpawnsOnDrop(spawned.clone());
    outer.spawn_local(async move {
        let _guard = guard;
        std::future::pending::<()>().await;
    });
    let dropped_on = Arc::new(Mutex::new(Vec::new()));
    let inner_guard = recorder(&dropped_on);
    inner.spawn_local(async move {
        let _guard = inner_guard;
        std::future::pending::<()>().await;
    });
    outer.spawn_local(async move {
        let _inner = inner;
        std::future::pending::<()>().await;
    });
    outer.block_on(&rt, yield_now());
    drop(outer);
    assert_eq!(*dropped_on.lock().unwrap(), [thread::current().id()]);
    let handle = spawned.borrow_mut().take().expect("the destructor ran");
    assert!(rt.block_on(handle).unwrap_err().is_cancelled());
}

/// A set kept in a thread-local is dropped with the thread's other
/// thread-locals, and drops its tasks then.
#[test]
fn a_set_in_a_thread_local_drops_its_tasks_when_the_thread_exits() {
    thread_local! {
        static SET: RefCell<Option<LocalSet>> = const { RefCell::new(None) };
    }
    let dropped_on = Arc::new(Mutex::new(Vec::new()));
    let recorded = dropped_on.clone();
    let thread = thread::spawn(move || {
        let rt = current_thread();
        let local = LocalSet::new();
        let guard = recorder(&recorded);
        local.spawn_local(async move {
            let _guard = guard;
            rt::time::sleep(std::time::Duration::from_secs(3600)).await;
        });
        local.block_on(&rt, yield_now());
        SET.with(|set| *set.borrow_mut() = Some(local));
        thread::current().id()
    });
    let id = thread.join().unwrap();
    assert_eq!(*dropped_on.lock().unwrap(), [id]);
}

/// On a local runtime, a runtime task that spawns a local task and waits
/// for it across a timer is woken through both schedulers; the paused
/// clock advances only once both are idle.
#[test]
fn a_local_runtime_s_own_task_waits_for_a_local_task_on_the_paused_clock() {
    let rt = Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build_local()
        .unwrap();
    let out = rt.block_on(async {
        rt::spawn(async {
            let local = spawn_local(async {
                let rc = Rc::new(1);
                rt::time::sleep(std::time::Duration::from_secs(5)).await;
                *rc
            });
            rt::time::timeout(std::time::Duration::from_secs(60), local)
                .await
                .expect("the local task never finished")
                .unwrap()
        })
        .await
        .unwrap()
    });
    assert_eq!(out, 1);
}

/// `LocalSet::enter` guards dropped oldest first: the drop that breaks the
/// order panics and says so, the newer guard's set stays current while it
/// lives, and neither set is current afterwards (nor kept alive).
#[test]
fn enter_guards_dropped_out_of_order_panic_and_leave_no_set_current() {
    let rt = Builder::new_current_thread().build().unwrap();
    let older = LocalSet::new();
    let newer = LocalSet::new();
    let older_guard = older.enter();
    let newer_guard = newer.enter();
    let message = expect_panic(move || drop(older_guard));
    assert!(message.contains("out of order"), "{message}");
    let spawned = spawn_local(async { "on the newer set" });
    drop(newer_guard);
    assert_eq!(newer.block_on(&rt, spawned).unwrap(), "on the newer set");
    drop(older);
    let message = expect_panic(|| spawn_local(async {}));
    assert!(message.contains("outside a `LocalSet`"), "{message}");
}

/// The same for `LocalRuntime::enter`, whose guard holds its runtime and
/// its built-in set current.
#[test]
fn local_runtime_enter_guards_dropped_out_of_order_leave_no_set_current() {
    let older = rt::runtime::LocalRuntime::new().unwrap();
    let newer = rt::runtime::LocalRuntime::new().unwrap();
    let older_guard = older.enter();
    let newer_guard = newer.enter();
    let message = expect_panic(move || drop(older_guard));
    assert!(message.contains("out of order"), "{message}");
    let spawned = spawn_local(async { "on the newer runtime" });
    drop(newer_guard);
    assert_eq!(newer.block_on(spawned).unwrap(), "on the newer runtime");
    drop(older);
    let message = expect_panic(|| spawn_local(async {}));
    assert!(message.contains("outside a `LocalSet`"), "{message}");
    assert!(rt::runtime::Handle::try_current().is_err());
}

/// `run_until`'s future spends the budget of whoever polls `run_until`, as
/// in tokio (so `unconstrained(local.run_until(f))` leaves `f`
/// unconstrained), while each of the set's tasks still gets its own.
#[test]
fn run_until_spends_the_callers_budget_and_tasks_their_own() {
    use rt::task::coop::{consume_budget, has_budget_remaining, unconstrained};

    let rt = Builder::new_current_thread().build().unwrap();
    let local = LocalSet::new();
    rt.block_on(unconstrained(local.run_until(async {
        for _ in 0..200 {
            consume_budget().await;
            assert!(has_budget_remaining(), "the main future is constrained");
        }
        let spent_its_own = spawn_local(async {
            for _ in 0..128 {
                consume_budget().await;
            }
            !has_budget_remaining()
        });
        assert!(
            spent_its_own.await.unwrap(),
            "a local task is unconstrained"
        );
    })));
    rt.block_on(async {
        for _ in 0..100 {
            consume_budget().await;
        }
        local
            .run_until(async {
                for _ in 0..28 {
                    consume_budget().await;
                }
                assert!(
                    !has_budget_remaining(),
                    "the main future got a budget of its own"
                );
            })
            .await;
    });
}
