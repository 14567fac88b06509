//! loom models of the blocking pool, independent of any runtime (no
//! scheduler, no current-runtime context): the pool is built directly and
//! jobs are blocking tasks spawned with no runtime handle.
//!
//! A keep-alive of zero makes a thread exit as soon as it finds the queue
//! empty, which is the race the idle protocol must win; loom's condvar
//! never times out, so that is also the only way to model exits.

use crate::blocking::mandatory::spawn_mandatory_with;
use crate::blocking::pool::{PoolConfig, Spawner};
use crate::blocking::{spawn_blocking_on, try_spawn_blocking_on};
use crate::loom::sync::atomic::{AtomicUsize, Ordering};
use crate::loom::sync::{Arc, Condvar, Mutex};
use crate::runtime::builder::ThreadSpawner;
use crate::task::JoinHandle;
use crate::task::TaskMeta;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

fn pool(max_threads: usize) -> Spawner {
    pool_spinning(max_threads, Duration::ZERO)
}

/// A pool whose threads spin (under loom: look once) before going idle.
fn pool_spinning(max_threads: usize, spin_before_park: Duration) -> Spawner {
    pool_on(max_threads, spin_before_park, ThreadSpawner::unnamed())
}

/// A pool of two threads at most whose thread starts, after the first
/// `allowed`, the OS refuses (`EAGAIN`).
fn pool_refusing_after(allowed: usize) -> Spawner {
    let starts = Arc::new(AtomicUsize::new(0));
    let threads = ThreadSpawner::unnamed().with_gate(move || {
        // With none allowed, no count: one atomic less for loom to explore.
        if allowed > 0 && starts.fetch_add(1, Ordering::SeqCst) < allowed {
            Ok(())
        } else {
            Err(std::io::Error::from_raw_os_error(libc::EAGAIN))
        }
    });
    pool_on(2, Duration::ZERO, threads)
}

fn pool_on(max_threads: usize, spin_before_park: Duration, threads: ThreadSpawner) -> Spawner {
    Spawner::new(
        PoolConfig {
            max_threads,
            keep_alive: Duration::ZERO,
            spin_before_park,
            report_wait_after: None,
        },
        threads,
    )
}

/// Counts finished jobs; `wait_for` blocks until `n` have finished, so a
/// job stranded in the queue shows up as a loom deadlock.
#[derive(Default)]
struct Done {
    count: Mutex<usize>,
    condvar: Condvar,
}

impl Done {
    fn finish(&self) {
        *self.count.lock().unwrap() += 1;
        self.condvar.notify_all();
    }

    fn wait_for(&self, n: usize) {
        let mut count = self.count.lock().unwrap();
        while *count < n {
            count = self.condvar.wait(count).unwrap();
        }
    }
}

/// Finishes its `Done` when dropped (also as a failed check unwinds).
struct FinishOnDrop(Arc<Done>);

impl Drop for FinishOnDrop {
    fn drop(&mut self) {
        self.0.finish();
    }
}

/// A finished call that either ran, yielding `value`, or was left queued
/// and cancelled (by shutdown, or by a refused thread start).
fn assert_ran_or_cancelled<T: PartialEq + std::fmt::Debug>(handle: JoinHandle<T>, value: T) {
    match output(handle) {
        Ok(output) => assert_eq!(output, value),
        Err(error) => assert!(error.is_cancelled()),
    }
}

/// The output of a finished task.
fn output<T>(mut handle: JoinHandle<T>) -> Result<T, crate::task::JoinError> {
    let mut cx = Context::from_waker(Waker::noop());
    match Pin::new(&mut handle).poll(&mut cx) {
        Poll::Ready(result) => result,
        Poll::Pending => panic!("the blocking task has not finished"),
    }
}

#[test]
fn loom_blocking_spawn_racing_shutdown() {
    loom::model(|| {
        let pool = pool(1);
        let ran = Arc::new(AtomicUsize::new(0));
        let spawner = pool.clone();
        let flag = ran.clone();
        let producer = loom::thread::spawn(move || {
            spawn_blocking_on(
                &spawner,
                None,
                move || {
                    flag.fetch_add(1, Ordering::SeqCst);
                    7
                },
                TaskMeta::new(),
            )
        });
        pool.shutdown(None);
        let handle = producer.join().unwrap();
        // Once both are done the call either ran or was cancelled, never
        // left queued with its handle pending forever.
        match output(handle) {
            Ok(value) => {
                assert_eq!(value, 7);
                assert_eq!(ran.load(Ordering::SeqCst), 1);
            }
            Err(error) => {
                assert!(error.is_cancelled());
                assert_eq!(ran.load(Ordering::SeqCst), 0);
            }
        }
    });
}

/// Mandatory jobs (`mandatory.rs`, steps 3-6) racing shutdown: the first,
/// spawned before it, and a second, from another thread while this one
/// shuts the pool down. A job is either refused (the spawn fails with the
/// shutdown error, and the job never runs) or accepted, and then has run
/// exactly once when both are done: on a pool thread, or as the pool
/// dropped it queued (on the thread shutting down, or on the producer
/// that met the flag), its result reaching the awaiting side either way.
#[test]
fn loom_blocking_mandatory_jobs_racing_shutdown() {
    loom::model(|| {
        let pool = pool(1);
        let ran = Arc::new(AtomicUsize::new(0));
        let spawn = |pool: &Spawner, ran: &Arc<AtomicUsize>| {
            let ran = ran.clone();
            let job = move || ran.fetch_add(1, Ordering::SeqCst);
            spawn_mandatory_with(job, |unrun| {
                Ok(spawn_blocking_on(
                    pool,
                    None,
                    move || unrun.run(),
                    TaskMeta::new(),
                ))
            })
        };
        let first = spawn(&pool, &ran);
        let (spawner, their_ran) = (pool.clone(), ran.clone());
        let producer = loom::thread::spawn(move || spawn(&spawner, &their_ran));
        pool.shutdown(None);
        let second = producer.join().unwrap();
        assert!(first.is_ok(), "refused before the shutdown");
        let mut accepted = 0;
        for spawned in [first, second] {
            match spawned {
                Ok(mut job) => {
                    accepted += 1;
                    let mut cx = Context::from_waker(Waker::noop());
                    match Pin::new(&mut job).poll(&mut cx) {
                        Poll::Ready(result) => assert!(result.unwrap() < 2),
                        Poll::Pending => panic!("an accepted mandatory job has not run"),
                    }
                }
                Err(error) => assert!(crate::runtime::is_rt_shutdown_err(&error), "{error}"),
            }
        }
        assert_eq!(ran.load(Ordering::SeqCst), accepted);
    });
}

/// One call from this thread, one from another while the first runs or
/// ends; both must run. Returns the pool, shut down.
fn two_calls_from_two_threads(max_threads: usize) -> Spawner {
    two_calls_on(pool(max_threads))
}

fn two_calls_on(pool: Spawner) -> Spawner {
    let done = Arc::new(Done::default());
    let first_done = done.clone();
    let first = spawn_blocking_on(&pool, None, move || first_done.finish(), TaskMeta::new());
    let spawner = pool.clone();
    let second_done = done.clone();
    let producer = loom::thread::spawn(move || {
        spawn_blocking_on(
            &spawner,
            None,
            move || second_done.finish(),
            TaskMeta::new(),
        )
    });
    let second = producer.join().unwrap();
    done.wait_for(2);
    pool.shutdown(None);
    output(first).unwrap();
    output(second).unwrap();
    pool
}

#[test]
fn loom_blocking_idle_thread_racing_new_work() {
    loom::model(|| {
        // The second call comes while the only thread finishes the first
        // and goes idle (and, with no keep-alive, exits).
        let pool = two_calls_from_two_threads(1);
        assert_eq!(pool.num_threads(), 0);
    });
}

/// The same race with a spinning thread: it counts itself notified, so
/// the second call's producer wakes nobody; the spinner must find the job
/// in its look, or hand it on (or take it) when it stops spinning.
#[test]
fn loom_blocking_spinning_thread_racing_new_work() {
    loom::model(|| {
        let pool = two_calls_on(pool_spinning(1, Duration::from_micros(20)));
        assert_eq!(pool.num_threads(), 0);
    });
}

#[test]
fn loom_blocking_thread_cap_holds() {
    /// A call that checks no other call runs at the same time.
    fn call(pool: &Spawner, running: &Arc<AtomicUsize>, done: &Arc<Done>) -> JoinHandle<()> {
        let (running, done) = (running.clone(), done.clone());
        spawn_blocking_on(
            pool,
            None,
            move || {
                let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                assert_eq!(now, 1, "more calls ran at once than the cap allows");
                running.fetch_sub(1, Ordering::SeqCst);
                done.finish();
            },
            TaskMeta::new(),
        )
    }

    loom::model(|| {
        let pool = pool(1);
        let running = Arc::new(AtomicUsize::new(0));
        let done = Arc::new(Done::default());
        let (spawner, their_running, their_done) = (pool.clone(), running.clone(), done.clone());
        let producer = loom::thread::spawn(move || {
            let handle = call(&spawner, &their_running, &their_done);
            assert!(spawner.num_threads() <= 1);
            handle
        });
        let mine = call(&pool, &running, &done);
        assert!(pool.num_threads() <= 1);
        let theirs = producer.join().unwrap();
        done.wait_for(2);
        pool.shutdown(None);
        output(mine).unwrap();
        output(theirs).unwrap();
    });
}

#[test]
fn loom_blocking_handoff_racing_an_idle_thread() {
    loom::model(|| {
        let pool = pool(1);
        let done = Arc::new(Done::default());
        let task_done = done.clone();
        let task = spawn_blocking_on(&pool, None, move || task_done.finish(), TaskMeta::new());
        // A worker core handed off while the pool's only thread finishes
        // the task, goes idle and exits: the hand-off claims that thread or
        // gets one of its own, past the cap if need be.
        let spawner = pool.clone();
        let handoff_done = done.clone();
        let producer = loom::thread::spawn(move || {
            spawner
                .spawn_handoff(Box::new(move || handoff_done.finish()), None)
                .unwrap();
        });
        producer.join().unwrap();
        done.wait_for(2);
        pool.shutdown(None);
        output(task).unwrap();
        assert_eq!(pool.num_threads(), 0);
    });
}

#[test]
fn loom_blocking_job_left_to_a_notified_thread_runs() {
    loom::model(|| {
        // The second call may find the first call's thread still notified
        // and leave the job to it (spawning step 2): that thread's look at
        // the queue after its pop must then see it.
        two_calls_from_two_threads(2);
    });
}

#[test]
fn loom_blocking_notified_thread_wakes_the_next_before_blocking() {
    loom::model(|| {
        let pool = pool(2);
        // The first call blocks until the second has run, so the second
        // needs a thread of its own while the first call's thread is busy:
        // left to that thread (notified), it must be passed on before the
        // first call runs, or loom reports a deadlock.
        let second_ran = Arc::new(Done::default());
        let waiter = second_ran.clone();
        let first = spawn_blocking_on(&pool, None, move || waiter.wait_for(1), TaskMeta::new());
        let signal = second_ran.clone();
        let second = spawn_blocking_on(&pool, None, move || signal.finish(), TaskMeta::new());
        second_ran.wait_for(1);
        pool.shutdown(None);
        output(first).unwrap();
        output(second).unwrap();
    });
}

#[test]
fn loom_blocking_call_that_started_a_thread_survives_shutdown() {
    loom::model(|| {
        // The pool has no thread: the call starts one, which takes the
        // call out of the queue as its own job (spawning step 3), so the
        // shutdown that follows at once, whatever the new thread has done
        // by then, does not cancel it.
        let pool = pool(1);
        let handle = spawn_blocking_on(&pool, None, || 7, TaskMeta::new());
        pool.shutdown(None);
        assert_eq!(output(handle).unwrap(), 7);
        assert_eq!(pool.num_threads(), 0);
    });
}

#[test]
fn loom_blocking_call_behind_a_started_thread_racing_shutdown() {
    loom::model(|| {
        // A second call from another thread while the first call's new
        // thread starts (it counts as notified, so the second may be left
        // to it): with shutdown coming after both calls, the first runs
        // and the second runs or is cancelled, never left pending.
        let pool = pool(2);
        let first = spawn_blocking_on(&pool, None, || 1, TaskMeta::new());
        let spawner = pool.clone();
        let producer =
            loom::thread::spawn(move || spawn_blocking_on(&spawner, None, || 2, TaskMeta::new()));
        let second = producer.join().unwrap();
        pool.shutdown(None);
        assert_eq!(output(first).unwrap(), 1);
        assert_ran_or_cancelled(second, 2);
    });
}

#[test]
fn loom_blocking_two_calls_racing_shutdown() {
    loom::model(|| {
        // Two calls, one from another thread, while this thread shuts the
        // pool down: a busy thread may take a started thread's job, a
        // started thread may do its step 5 after the flag, and a producer
        // may see the flag once it has counted a thread. Whatever ran had
        // run when shutdown returned (it waits for every thread), the rest
        // was cancelled, and nothing is left pending or running.
        let pool = pool(2);
        let ran = Arc::new(AtomicUsize::new(0));
        let call = |pool: &Spawner, ran: &Arc<AtomicUsize>| {
            let ran = ran.clone();
            spawn_blocking_on(
                pool,
                None,
                move || {
                    ran.fetch_add(1, Ordering::SeqCst);
                },
                TaskMeta::new(),
            )
        };
        let first = call(&pool, &ran);
        let (spawner, their_ran) = (pool.clone(), ran.clone());
        let producer = loom::thread::spawn(move || call(&spawner, &their_ran));
        pool.shutdown(None);
        let ran_by_shutdown = ran.load(Ordering::SeqCst);
        let second = producer.join().unwrap();
        let mut ok = 0;
        for handle in [first, second] {
            match output(handle) {
                Ok(()) => ok += 1,
                Err(error) => assert!(error.is_cancelled()),
            }
        }
        assert_eq!(ran.load(Ordering::SeqCst), ok);
        // The second call may come after shutdown returned, and is then
        // cancelled, never run.
        assert_eq!(ran_by_shutdown, ok);
        assert_eq!(pool.num_threads(), 0);
    });
}

#[test]
fn loom_blocking_jobs_left_to_a_spinner_that_stops_each_get_a_thread() {
    loom::model(|| {
        // The pool's thread finishes a first call and spins, counted as
        // notified; two calls come, the first of which blocks until the
        // second has run. Both may be left to the spinner (spawning step
        // 2) after its look found nothing: when it stops spinning it takes
        // one and must see that the other gets a thread, or loom reports
        // a deadlock.
        let pool = pool_spinning(2, Duration::from_micros(20));
        let warm = Arc::new(Done::default());
        let warmed = warm.clone();
        let first = spawn_blocking_on(&pool, None, move || warmed.finish(), TaskMeta::new());
        warm.wait_for(1);
        let second_ran = Arc::new(Done::default());
        let (waiter, both) = (second_ran.clone(), Arc::new(Done::default()));
        let blocked_done = both.clone();
        let blocked = spawn_blocking_on(
            &pool,
            None,
            move || {
                waiter.wait_for(1);
                blocked_done.finish();
            },
            TaskMeta::new(),
        );
        let (signal, second_done) = (second_ran.clone(), both.clone());
        let second = spawn_blocking_on(
            &pool,
            None,
            move || {
                signal.finish();
                second_done.finish();
            },
            TaskMeta::new(),
        );
        both.wait_for(2);
        pool.shutdown(None);
        output(first).unwrap();
        output(blocked).unwrap();
        output(second).unwrap();
    });
}

#[test]
fn loom_blocking_call_left_to_a_thread_leaving_for_a_core_gets_one() {
    loom::model(|| {
        // A core handed off to a new thread counts that thread (past the
        // cap, 1 here) until it leaves the count to run the worker loop;
        // a call made meanwhile sees the pool full and leaves its job to
        // the busy threads (spawning step 4). The worker loop waits for
        // the call, as a runtime awaiting it would: the thread leaving the
        // count must pass the job on, or loom reports a deadlock.
        let pool = pool(1);
        let ran = Arc::new(Done::default());
        let spawner = pool.clone();
        let waiter = ran.clone();
        let producer = loom::thread::spawn(move || {
            spawner
                .spawn_handoff(Box::new(move || waiter.wait_for(1)), None)
                .unwrap();
        });
        let signal = ran.clone();
        let call = spawn_blocking_on(&pool, None, move || signal.finish(), TaskMeta::new());
        producer.join().unwrap();
        ran.wait_for(1);
        pool.shutdown(None);
        output(call).unwrap();
    });
}

/// A call whose new thread the OS refuses, racing the pool's only thread,
/// busy with an earlier job: that thread may take the call's job from
/// `started` and run it, or find it queued, or be gone (keep-alive zero)
/// when the refusal comes. The call fails only if its closure never runs
/// (`cancel_unless_started`); a call that did not fail yields the
/// closure's result, or is cancelled by the shutdown that follows. It
/// fails, with the job run, if the failed call only aborts its task.
#[test]
fn loom_blocking_refused_thread_racing_a_busy_one() {
    loom::model(|| {
        let pool = pool_refusing_after(1);
        let first = spawn_blocking_on(&pool, None, || 1, TaskMeta::new());
        let ran = Arc::new(AtomicUsize::new(0));
        let flag = ran.clone();
        let second = try_spawn_blocking_on(
            &pool,
            None,
            move || flag.fetch_add(1, Ordering::SeqCst),
            TaskMeta::new(),
        );
        pool.shutdown(None);
        assert!(matches!(output(first), Ok(1)), "its thread started");
        match second {
            Err(_) => assert_eq!(ran.load(Ordering::SeqCst), 0, "a failed call ran"),
            Ok(handle) => match output(handle) {
                Ok(_) => assert_eq!(ran.load(Ordering::SeqCst), 1),
                Err(error) => {
                    assert!(error.is_cancelled());
                    assert_eq!(ran.load(Ordering::SeqCst), 0);
                }
            },
        }
    });
}

/// Threads exiting (keep-alive zero, then shutdown) while their handles
/// are filed (`pool_threads.rs`): a thread may exit before its spawner
/// filed its handle, and each exiting thread joins the one before it.
/// Once shutdown has waited for the threads, `join_exited_threads` joins
/// the last and holds no handle; no thread waits forever for its handle
/// (loom would report the deadlock).
#[test]
fn loom_blocking_exited_threads_are_joined() {
    loom::model(|| {
        let pool = pool(2);
        let spawner = pool.clone();
        let producer =
            loom::thread::spawn(move || spawn_blocking_on(&spawner, None, || 2, TaskMeta::new()));
        let first = spawn_blocking_on(&pool, None, || 1, TaskMeta::new());
        let second = producer.join().unwrap();
        pool.shutdown(None);
        assert!(pool.wait_for_threads(None));
        pool.join_exited_threads();
        assert_eq!(pool.handles_held(), 0);
        // Either call may have been left queued, and cancelled by shutdown.
        assert_ran_or_cancelled(first, 1);
        assert_ran_or_cancelled(second, 2);
    });
}

/// A shutdown that stops waiting at once (`shutdown_background`) closes
/// the handles while a thread still runs its job: that thread, exiting
/// afterwards, finds its handle gone and exits rather than wait for it.
#[test]
fn loom_blocking_thread_exiting_after_shutdown_gave_up() {
    loom::model(|| {
        let pool = pool(1);
        let ran = Arc::new(Done::default());
        let signal = ran.clone();
        let job = spawn_blocking_on(&pool, None, move || signal.finish(), TaskMeta::new());
        pool.shutdown(Some(Duration::ZERO));
        pool.join_exited_threads();
        ran.wait_for(1);
        assert_eq!(pool.handles_held(), 0);
        drop(job);
    });
}

/// Spawning step 6: the OS refuses every thread, and two calls race on an
/// empty pool. One counts a thread (notified); the other may leave its
/// job to that thread (step 2) and succeed. The refused call finds no
/// thread in the pool and fails every queued job, so once both calls have
/// returned no job waits in the queue with no thread to run it: each call
/// failed, or its `JoinHandle` yields `Cancelled`. It fails if the
/// refused call leaves the other call's job queued.
#[test]
fn loom_blocking_refused_threads_strand_no_job() {
    loom::model(|| {
        let pool = pool_refusing_after(0);
        let spawner = pool.clone();
        let producer = loom::thread::spawn(move || {
            try_spawn_blocking_on(&spawner, None, || 2, TaskMeta::new())
        });
        let first = try_spawn_blocking_on(&pool, None, || 1, TaskMeta::new());
        let second = producer.join().unwrap();
        assert_eq!(pool.num_threads(), 0);
        for call in [first, second] {
            if let Ok(handle) = call {
                assert!(handle.is_finished(), "a job was left with no thread");
                assert!(output(handle).unwrap_err().is_cancelled());
            }
        }
        assert_eq!(pool.queue_depth(), 0);
        pool.shutdown(None);
    });
}

/// Spawning step 6 for a pool thread leaving the count to run a handed-off
/// core (`run_handoff`): the pool's only thread, claimed for the core,
/// may leave with a call's job left to it (the call saw it notified, or
/// busy), and the OS refuses every thread since. Once the call has
/// returned, the worker loop (the handed-off core) sees no job queued in
/// a pool with no thread: it failed. It fails if the leaving thread's
/// refused replacement leaves the job queued (it waited for a later call
/// or shutdown), or if a producer whose refused thread left the job to
/// the threads counted does not look again once the last of them has
/// left. Both interleavings take `LOOM_MAX_PREEMPTIONS=4` to reach (at 2
/// the model passes without either fix; at 4 it explores all in about a
/// minute and a half).
#[test]
fn loom_blocking_refused_thread_for_a_job_left_to_a_thread_taking_a_core() {
    loom::model(|| {
        // The pool's one thread starts; no other may.
        let pool = pool_refusing_after(1);
        // Starts the pool's thread, which then goes idle (or exits).
        let first = spawn_blocking_on(&pool, None, || 1, TaskMeta::new());
        let called = Arc::new(Done::default());
        let spawner = pool.clone();
        let returned = called.clone();
        let producer = loom::thread::spawn(move || {
            let call = try_spawn_blocking_on(&spawner, None, || 2, TaskMeta::new());
            returned.finish();
            call
        });
        let watcher = pool.clone();
        let waiter = called.clone();
        let checked = Arc::new(Done::default());
        let its_checked = checked.clone();
        let core = move || {
            waiter.wait_for(1);
            let _checked = FinishOnDrop(its_checked);
            assert!(
                watcher.queue_depth() == 0 || watcher.num_threads() > 0,
                "a job is queued with no thread to run it: {watcher:?}, {} queued, shut down: {}",
                watcher.queue_depth(),
                watcher.is_shut_down_for_tests(),
            );
        };
        // Without an idle thread to take the core, nor a new one, the core
        // is dropped unrun (`block_in_place` then runs in place).
        let handed_off = pool.spawn_handoff(Box::new(core), None).is_ok();
        let second = producer.join().unwrap();
        if handed_off {
            // Shutdown empties the queue: not before the core has looked.
            checked.wait_for(1);
        }
        pool.shutdown(None);
        assert!(matches!(output(first), Ok(1)));
        if let Ok(handle) = second {
            assert_ran_or_cancelled(handle, 2);
        }
    });
}
