//! Models of the multi-thread scheduler: spawning, stealing, parking,
//! waking from other threads, aborting and shutting down, under every
//! interleaving loom explores (bounded by LOOM_MAX_PREEMPTIONS).
#![cfg(loom)]

use loom::sync::Arc;
use loom::sync::atomic::{AtomicUsize, Ordering};
use rt::runtime::{Builder, Runtime};
use rt::task::{JoinHandle, Priority};
use rt_loom_tests::channel;

fn runtime(workers: usize) -> Runtime {
    Builder::new_multi_thread()
        .worker_threads(workers)
        .build()
        .unwrap()
}

fn spawn_with<F>(rt: &Runtime, priority: Priority, future: F) -> JoinHandle<F::Output>
where
    F: std::future::Future + Send + 'static,
    F::Output: Send + 'static,
{
    rt::task::Builder::new()
        .priority(priority)
        .spawn_on(future, rt.handle())
        .unwrap()
}

/// A task spawned from outside runs and its output reaches `block_on`:
/// a worker parked with nothing to do is woken, no wake-up is lost.
#[test]
fn spawn_from_outside_and_join() {
    loom::model(|| {
        let rt = runtime(1);
        let handle = rt.spawn(async { 7 });
        assert_eq!(rt.block_on(handle).unwrap(), 7);
    });
}

/// Tasks pushed on one worker's local queue are stolen by the other
/// worker or run locally; every one runs exactly once.
#[test]
fn spawn_local_and_steal() {
    loom::model(|| {
        let rt = runtime(2);
        let count = Arc::new(AtomicUsize::new(0));
        let total = count.clone();
        rt.block_on(rt.spawn(async move {
            let a = {
                let count = count.clone();
                rt::spawn(async move { count.fetch_add(1, Ordering::SeqCst) })
            };
            let b = {
                let count = count.clone();
                rt::spawn(async move { count.fetch_add(1, Ordering::SeqCst) })
            };
            a.await.unwrap();
            b.await.unwrap();
        }))
        .unwrap();
        assert_eq!(total.load(Ordering::SeqCst), 2);
    });
}

/// Work left behind gets a worker: two tasks spawned from outside on two
/// workers, and the first blocks its worker thread until the second has
/// run. Whichever worker finds the first task while the second is still
/// queued (pushed while it was searching, so its producer woke nobody)
/// must wake the other worker for it; if not, loom reports the deadlock.
#[test]
fn left_behind_work_gets_a_worker() {
    loom::model(|| left_behind_work(runtime(2)));
}

/// The same with spinning on: idle workers and the `block_on` thread look
/// once more before they park, and a spinner that sees nobody blocked in
/// the driver polls the driver itself.
#[test]
fn left_behind_work_gets_a_worker_with_spinning() {
    loom::model(|| {
        let rt = Builder::new_multi_thread()
            .worker_threads(2)
            .spin_before_park(std::time::Duration::from_micros(1))
            .build()
            .unwrap();
        left_behind_work(rt);
    });
}

/// The same with the task left behind `High`: it waits in the `High`
/// injector, which parking workers look at only while the queued counts
/// say a `High` or `Low` task waits (`Handle::has_stealable_work`; a
/// parking worker that took the count alone for work woke and found
/// nothing for as long as the producer was held between its count and its
/// push: "exceeded maximum number of branches"). The main thread waits on
/// a gate rather than in `block_on`, whose parking the two models above
/// cover: about a third of the time (160 s at CI's preemption
/// bound against 440), and the wake loop is still found.
#[test]
fn left_behind_high_work_gets_a_worker() {
    loom::model(|| {
        let rt = runtime(2);
        let ran = Arc::new(Gate::default());
        let done = Arc::new(Gate::default());
        {
            let (ran, done) = (ran.clone(), done.clone());
            drop(spawn_with(&rt, Priority::Normal, async move {
                ran.wait();
                done.open();
            }));
        }
        drop(spawn_with(&rt, Priority::High, async move { ran.open() }));
        done.wait();
        drop(rt);
    });
}

fn left_behind_work(rt: Runtime) {
    let ran = Arc::new(Gate::default());
    let waiter = {
        let ran = ran.clone();
        rt.spawn(async move { ran.wait() })
    };
    let signaller = rt.spawn(async move { ran.open() });
    rt.block_on(async {
        waiter.await.unwrap();
        signaller.await.unwrap();
    });
}

/// A full local queue overflows into the injector (under loom the queue
/// holds 4 tasks): six tasks spawned on one worker leave the last in its
/// LIFO slot, two in its queue and three (the two oldest, and the one the
/// sixth displaced) in the injector. The spawner then blocks its worker
/// until the five have run: the other worker must be woken for them and
/// find them in both places; if not, loom reports the deadlock.
#[test]
fn overflowed_work_gets_a_worker() {
    static OVERFLOWED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    loom::model(|| {
        let rt = runtime(2);
        let ran = Arc::new((loom::sync::Mutex::new(0), loom::sync::Condvar::new()));
        rt.block_on(rt.spawn(async move {
            for _ in 0..6 {
                let ran = ran.clone();
                drop(rt::spawn(async move {
                    let (lock, condvar) = &*ran;
                    *lock.lock().unwrap() += 1;
                    condvar.notify_one();
                }));
            }
            let (lock, condvar) = &*ran;
            let mut count = lock.lock().unwrap();
            while *count < 5 {
                count = condvar.wait(count).unwrap();
            }
        }))
        .unwrap();
        let metrics = rt.metrics();
        if (0..2).any(|w| metrics.worker_overflow_count(w) > 0) {
            OVERFLOWED.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    });
    // Not in every execution: the other worker may steal while the
    // spawner fills its queue.
    assert!(
        OVERFLOWED.load(std::sync::atomic::Ordering::Relaxed),
        "no execution overflowed the local queue"
    );
}

/// A task parked on a channel is woken from a plain thread while a worker
/// may be polling it (the wake-while-running path).
#[test]
fn wake_from_other_thread() {
    loom::model(|| {
        let rt = runtime(1);
        let (tx, rx) = channel();
        let task = rt.spawn(async move { rx.await + 1 });
        let sender = loom::thread::spawn(move || tx.send(41));
        assert_eq!(rt.block_on(task).unwrap(), 42);
        sender.join().unwrap();
    });
}

/// abort() from another thread races the task completing and the
/// JoinHandle being awaited: the outcome is one of the two legal ones and
/// the task is freed exactly once (loom reports leaked Arcs).
#[test]
fn abort_races_completion() {
    loom::model(|| {
        let rt = runtime(1);
        let (tx, rx) = channel();
        let task = rt.spawn(rx);
        let abort = task.abort_handle();
        let aborter = loom::thread::spawn(move || abort.abort());
        tx.send(3);
        match rt.block_on(task) {
            Ok(value) => assert_eq!(value, 3),
            Err(err) => assert!(err.is_cancelled()),
        }
        aborter.join().unwrap();
    });
}

/// Dropping the JoinHandle races completion: whoever goes last drops the
/// output, nothing leaks.
#[test]
fn join_handle_drop_races_completion() {
    loom::model(|| {
        let rt = runtime(1);
        let (tx, rx) = channel();
        let task = rt.spawn(async move { Arc::new(rx.await) });
        let dropper = loom::thread::spawn(move || drop(task));
        tx.send(5);
        dropper.join().unwrap();
        drop(rt);
    });
}

/// Shutting the runtime down races a remote wake of a pending task: the
/// task is cancelled or completes, and everything is freed.
#[test]
fn shutdown_races_remote_wake() {
    loom::model(|| {
        let rt = runtime(1);
        let (tx, rx) = channel::<usize>();
        let task = rt.spawn(rx);
        let sender = loom::thread::spawn(move || tx.send(1));
        drop(rt);
        sender.join().unwrap();
        drop(task);
    });
}

/// Sets its flag when dropped, and whether a runtime was current there.
struct DropProbe {
    dropped_in_runtime: Arc<AtomicUsize>,
}

impl Drop for DropProbe {
    fn drop(&mut self) {
        let in_runtime = rt::runtime::Handle::try_current().is_ok();
        self.dropped_in_runtime
            .store(1 + usize::from(in_runtime), Ordering::SeqCst);
    }
}

/// abort() from a plain thread, racing the task's first poll: the future
/// is dropped by a worker (inside the runtime), never by the aborting
/// thread, whether the abort finds the task queued or idle.
#[test]
fn abort_from_plain_thread_drops_on_a_worker() {
    loom::model(|| {
        let rt = runtime(1);
        let dropped = Arc::new(AtomicUsize::new(0));
        let probe = DropProbe {
            dropped_in_runtime: dropped.clone(),
        };
        let (_tx, rx) = channel::<()>();
        let task = rt.spawn(async move {
            let _probe = probe;
            rx.await
        });
        let abort = task.abort_handle();
        let aborter = loom::thread::spawn(move || abort.abort());
        assert!(rt.block_on(task).unwrap_err().is_cancelled());
        aborter.join().unwrap();
        // 2: dropped with a runtime current (on the worker).
        assert_eq!(dropped.load(Ordering::SeqCst), 2);
    });
}

/// abort() from a plain thread races the worker completing the task
/// (woken by this thread) and this thread dropping the JoinHandle, then
/// the runtime shuts down: the future and the output are each dropped
/// exactly once and the task is freed (loom reports leaked Arcs).
#[test]
fn abort_races_completion_and_join_handle_drop() {
    loom::model(|| {
        let rt = runtime(1);
        let (tx, rx) = channel::<Arc<()>>();
        let output = Arc::new(());
        let task = rt.spawn(rx);
        let abort = task.abort_handle();
        let aborter = loom::thread::spawn(move || abort.abort());
        tx.send(output.clone());
        drop(task);
        aborter.join().unwrap();
        drop(rt);
        assert_eq!(Arc::strong_count(&output), 1, "the output was dropped");
    });
}

/// A flag a thread can block on until another sets it.
#[derive(Default)]
struct Gate {
    open: loom::sync::Mutex<bool>,
    condvar: loom::sync::Condvar,
}

impl Gate {
    fn open(&self) {
        *self.open.lock().unwrap() = true;
        self.condvar.notify_all();
    }

    fn wait(&self) {
        let mut open = self.open.lock().unwrap();
        while !*open {
            open = self.condvar.wait(open).unwrap();
        }
    }
}

/// Stealing prefers `High`: two workers, each blocked in a task. Task `t`
/// (on one worker) queues a `High` task and two `Normal` ones on its own
/// worker (one `Normal` in the LIFO slot, one in the deque, which a peer
/// can steal, and the `High` one in the worker's `High` lane), then lets
/// task `u` on the other worker finish and blocks until the `High` task
/// has run. The other worker, free now, must take the `High` task from its
/// peer, not the `Normal` one. (The main thread waits on a gate rather
/// than in `block_on`, and the handles are dropped: fewer threads to
/// interleave.)
#[test]
fn a_free_worker_steals_high_before_normal() {
    use rt::task::Builder;
    loom::model(|| {
        let rt = runtime(2);
        let u_running = Arc::new(Gate::default());
        let u_released = Arc::new(Gate::default());
        let high_ran = Arc::new(Gate::default());
        let order = Arc::new(loom::sync::Mutex::new(Vec::new()));
        let record = {
            let order = order.clone();
            move |name: &'static str| {
                let order = order.clone();
                async move { order.lock().unwrap().push(name) }
            }
        };

        {
            let (u_running, u_released) = (u_running.clone(), u_released.clone());
            drop(rt.spawn(async move {
                u_running.open();
                u_released.wait();
            }));
        }
        {
            let high_ran = high_ran.clone();
            drop(rt.spawn(async move {
                u_running.wait();
                let high = {
                    let (high_ran, high) = (high_ran.clone(), record("high"));
                    async move {
                        high.await;
                        high_ran.open();
                    }
                };
                drop(Builder::new().priority(Priority::High).spawn(high));
                drop(rt::spawn(record("normal")));
                drop(rt::spawn(record("normal")));
                u_released.open();
                high_ran.wait();
            }));
        }
        high_ran.wait();
        assert_eq!(order.lock().unwrap()[0], "high");
        drop(rt);
    });
}
