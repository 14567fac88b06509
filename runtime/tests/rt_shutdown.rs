//! Shutdown: every task still alive is cancelled and dropped, nothing
//! leaks, and spawning afterwards yields a cancelled handle.

mod support;

use futures_channel::oneshot;
use rt::runtime::Builder;
use rt::task::JoinHandle;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::task::{Context, Poll, Waker};
use std::time::Duration;
use support::{DropCounter, DropGuard, Kind, each, each_runtime, wait_until};

fn expect_cancelled<T: std::fmt::Debug>(handle: JoinHandle<T>) {
    let error = futures::executor::block_on(handle).unwrap_err();
    assert!(error.is_cancelled(), "{error}");
}

#[test]
fn dropping_the_runtime_cancels_pending_tasks_without_leaks() {
    each_runtime(|kind, rt| {
        let drops = DropCounter::new();
        let shared = Arc::new(());
        let mut handles = Vec::new();
        let (started_tx, started_rx) = mpsc::channel();
        // Tasks parked forever.
        for _ in 0..20 {
            let guard = drops.guard();
            let shared = shared.clone();
            let started = started_tx.clone();
            handles.push(rt.spawn(async move {
                let _keep = (guard, shared);
                started.send(()).unwrap();
                std::future::pending::<()>().await;
            }));
        }
        // Pairs of tasks waiting on each other's channel: a cycle nothing
        // outside the runtime can break.
        for _ in 0..10 {
            let (a_tx, a_rx) = oneshot::channel::<()>();
            let (b_tx, b_rx) = oneshot::channel::<()>();
            for (tx, rx) in [(a_tx, b_rx), (b_tx, a_rx)] {
                let guard = drops.guard();
                let started = started_tx.clone();
                handles.push(rt.spawn(async move {
                    let _keep = (guard, tx);
                    started.send(()).unwrap();
                    let _ = rx.await;
                }));
            }
        }
        // Every task has been polled at least once.
        rt.block_on(async {
            let mut started = 0;
            while started < 40 {
                started += started_rx.try_iter().count();
                rt::task::yield_now().await;
            }
        });
        // Tasks queued but never polled (on a current-thread runtime
        // nothing runs outside `block_on`).
        if kind == Kind::CurrentThread {
            for _ in 0..10 {
                let guard = drops.guard();
                handles.push(rt.spawn(async move {
                    let _guard = guard;
                    unreachable!("a task spawned after the last block_on was polled");
                }));
            }
        }
        let metrics = rt.handle().metrics();
        assert_eq!(metrics.num_alive_tasks(), handles.len());
        drop(rt);
        assert_eq!(metrics.num_alive_tasks(), 0);
        assert_eq!(drops.alive(), 0, "futures leaked at shutdown");
        assert_eq!(Arc::strong_count(&shared), 1);
        for handle in handles {
            assert!(handle.is_finished());
            expect_cancelled(handle);
        }
    });
}

#[test]
fn spawn_after_shutdown_yields_cancelled() {
    each_runtime(|_, rt| {
        let handle = rt.handle().clone();
        drop(rt);
        let drops = DropCounter::new();
        let guard = drops.guard();
        let task = handle.spawn(async move {
            let _guard = guard;
            unreachable!("a task spawned after shutdown was polled");
        });
        assert!(task.is_finished());
        assert_eq!(drops.dropped(), 1, "the future is dropped at once");
        expect_cancelled(task);
        assert_eq!(handle.metrics().num_alive_tasks(), 0);
    });
}

#[test]
fn spawn_after_shutdown_background_yields_cancelled() {
    each(&[Kind::MultiThread(2)], |_, rt| {
        let handle = rt.handle().clone();
        rt.shutdown_background();
        let task = handle.spawn(async { 1 });
        expect_cancelled(task);
    });
}

/// A future whose destructor spawns: at shutdown that spawn finds the
/// runtime closed, and its future is dropped too.
struct SpawnOnDrop {
    handle: rt::runtime::Handle,
    guard: Option<DropGuard>,
    spawned: mpsc::Sender<JoinHandle<()>>,
}

impl Drop for SpawnOnDrop {
    fn drop(&mut self) {
        let guard = self.guard.take();
        let task = self.handle.spawn(async move {
            let _guard = guard;
        });
        self.spawned.send(task).unwrap();
    }
}

#[test]
fn spawning_from_a_destructor_during_shutdown() {
    each_runtime(|_, rt| {
        let drops = DropCounter::new();
        let (spawned_tx, spawned_rx) = mpsc::channel();
        let (started_tx, started_rx) = oneshot::channel();
        let on_drop = SpawnOnDrop {
            handle: rt.handle().clone(),
            guard: Some(drops.guard()),
            spawned: spawned_tx,
        };
        let task = rt.spawn(async move {
            let _on_drop = on_drop;
            started_tx.send(()).unwrap();
            std::future::pending::<()>().await;
        });
        rt.block_on(started_rx).unwrap();
        drop(rt);
        expect_cancelled(task);
        let spawned = spawned_rx.recv().unwrap();
        expect_cancelled(spawned);
        assert_eq!(drops.alive(), 0);
    });
}

/// A future that hands its waker out, so the test can wake it after the
/// runtime is gone.
struct LeakWaker(mpsc::Sender<Waker>);

impl Future for LeakWaker {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        self.0.send(cx.waker().clone()).unwrap();
        Poll::Pending
    }
}

#[test]
fn waking_a_task_after_shutdown_is_harmless() {
    each_runtime(|_, rt| {
        let drops = DropCounter::new();
        let (waker_tx, waker_rx) = mpsc::channel();
        let guard = drops.guard();
        let task = rt.spawn(async move {
            let _guard = guard;
            LeakWaker(waker_tx).await;
        });
        let waker = rt.block_on(async {
            loop {
                if let Ok(waker) = waker_rx.try_recv() {
                    break waker;
                }
                rt::task::yield_now().await;
            }
        });
        drop(rt);
        assert_eq!(drops.alive(), 0);
        // From this thread and from another, by reference and by value.
        waker.wake_by_ref();
        let clone = waker.clone();
        std::thread::spawn(move || clone.wake()).join().unwrap();
        drop(waker);
        expect_cancelled(task);
    });
}

#[test]
fn shutdown_timeout_leaves_a_stuck_worker_behind_then_cancels_its_task() {
    let stopped = Arc::new(AtomicUsize::new(0));
    let counter = stopped.clone();
    let rt = Builder::new_multi_thread()
        .worker_threads(2)
        .on_thread_stop(move || {
            counter.fetch_add(1, Ordering::SeqCst);
        })
        .build()
        .unwrap();
    let drops = DropCounter::new();
    let (in_poll_tx, in_poll_rx) = mpsc::channel();
    let (release_tx, release_rx) = mpsc::channel::<()>();
    let guard = drops.guard();
    let stuck = rt.spawn(async move {
        let _guard = guard;
        in_poll_tx.send(()).unwrap();
        // Blocks its worker thread until the test releases it.
        release_rx.recv().unwrap();
        std::future::pending::<()>().await;
    });
    let idle_guard = drops.guard();
    let idle = rt.spawn(async move {
        let _guard = idle_guard;
        std::future::pending::<()>().await;
    });
    in_poll_rx.recv().unwrap();
    rt.shutdown_timeout(Duration::from_millis(10));
    // The idle task was cancelled; the stuck one is still in its poll.
    expect_cancelled(idle);
    assert_eq!(drops.alive(), 1);
    assert!(!stuck.is_finished());
    release_tx.send(()).unwrap();
    // Its poll returns, the task is cancelled then, and its worker exits.
    expect_cancelled(stuck);
    assert_eq!(drops.alive(), 0);
    wait_until("both workers stopped", || {
        stopped.load(Ordering::SeqCst) == 2
    });
}

#[test]
fn shutdown_background_inside_a_runtime_does_not_block() {
    each_runtime(|_, rt| {
        let inner = Kind::MultiThread(2).build();
        let drops = DropCounter::new();
        let guard = drops.guard();
        let task = inner.spawn(async move {
            let _guard = guard;
            std::future::pending::<()>().await;
        });
        rt.block_on(async move { inner.shutdown_background() });
        expect_cancelled(task);
        assert_eq!(drops.alive(), 0);
    });
}

/// The runtime is dropped while another thread is inside `block_on` on
/// it (on a current-thread runtime, that thread holds the scheduler): the
/// task it waits for is cancelled and its `block_on` returns.
#[test]
fn dropping_the_runtime_while_another_thread_is_in_block_on() {
    each_runtime(|_, rt| {
        let drops = DropCounter::new();
        let guard = drops.guard();
        let task = rt.spawn(async move {
            let _guard = guard;
            std::future::pending::<()>().await;
        });
        let handle = rt.handle().clone();
        let (inside_tx, inside_rx) = mpsc::channel();
        let waiter = std::thread::spawn(move || {
            handle.block_on(async move {
                inside_tx.send(()).unwrap();
                task.await
            })
        });
        inside_rx.recv().unwrap();
        drop(rt);
        let error = waiter.join().unwrap().unwrap_err();
        assert!(error.is_cancelled());
        assert_eq!(drops.alive(), 0);
    });
}

/// A current-thread runtime dropped while another thread's `block_on`
/// holds its scheduler still shuts its driver down, once that thread lets
/// go: a timer of that runtime awaited on another runtime then reports the
/// shutdown (its poll panics, as for any runtime dropped under its timers)
/// instead of never firing, as no thread drives that timer any more.
#[test]
#[cfg_attr(
    miri,
    ignore = "Miri cannot register the I/O driver's descriptors with epoll under strict provenance"
)]
fn a_runtime_dropped_while_another_thread_drives_it_shuts_its_timers_down() {
    let first = Builder::new_current_thread().enable_all().build().unwrap();
    let second = Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let mut sleep = {
        let _enter = first.enter();
        rt::time::sleep(Duration::from_secs(3600))
    };
    let (armed_tx, armed_rx) = mpsc::channel();
    let waiting = second.spawn(async move {
        let mut armed_tx = Some(armed_tx);
        std::future::poll_fn(|cx| {
            let polled = Pin::new(&mut sleep).poll(cx);
            if let Some(armed) = armed_tx.take() {
                armed.send(()).unwrap();
            }
            polled
        })
        .await;
    });
    armed_rx.recv().unwrap();
    let handle = first.handle().clone();
    let (inside_tx, inside_rx) = mpsc::channel();
    let (leave_tx, leave_rx) = oneshot::channel::<()>();
    let driver = std::thread::spawn(move || {
        handle.block_on(async move {
            inside_tx.send(()).unwrap();
            let _ = leave_rx.await;
        })
    });
    inside_rx.recv().unwrap();
    drop(first);
    leave_tx.send(()).unwrap();
    driver.join().unwrap();
    let error = second.block_on(waiting).unwrap_err();
    assert!(error.is_panic(), "{error}");
}

std::thread_local! {
    static KEPT_RUNTIME: std::cell::RefCell<Option<rt::runtime::Runtime>> =
        const { std::cell::RefCell::new(None) };
}

/// A runtime kept in a thread-local is dropped by that thread-local's
/// destructor, after rt's own thread-local context may be gone: the
/// shutdown still runs (the task's future is dropped) and nothing aborts.
#[test]
#[cfg_attr(miri, ignore = "Miri cannot spawn the child process the test runs in")]
fn a_runtime_dropped_by_a_thread_local_destructor_shuts_down() {
    support::in_child_process(
        "a_runtime_dropped_by_a_thread_local_destructor_shuts_down",
        || {
            for kind in support::ALL {
                let drops = DropCounter::new();
                let guard = drops.guard();
                std::thread::spawn(move || {
                    // Stored before the runtime first touches rt's
                    // context, so its destructor runs after the context's.
                    KEPT_RUNTIME.with(|slot| *slot.borrow_mut() = Some(kind.build()));
                    KEPT_RUNTIME.with(|slot| {
                        let rt = slot.borrow();
                        let rt = rt.as_ref().unwrap();
                        rt.spawn(async move {
                            let _guard = guard;
                            std::future::pending::<()>().await
                        });
                        rt.block_on(async { rt::spawn(async {}).await.unwrap() });
                    });
                })
                .join()
                .unwrap();
                assert_eq!(
                    drops.dropped(),
                    1,
                    "on {kind:?}: the runtime did not shut down"
                );
            }
        },
    );
}

/// `Duration::MAX` means "wait as long as it takes": no deadline
/// arithmetic overflows, and the shutdown completes as without a timeout.
#[test]
fn shutdown_timeout_of_duration_max_waits_without_overflowing() {
    each_runtime(|kind, rt| {
        let drops = DropCounter::new();
        let guard = drops.guard();
        let handle = rt.handle().clone();
        rt.spawn(async move {
            let _guard = guard;
            std::future::pending::<()>().await
        });
        rt.spawn_blocking(|| ());
        rt.shutdown_timeout(Duration::MAX);
        assert_eq!(drops.dropped(), 1, "on {kind:?}");
        assert_eq!(handle.metrics().num_blocking_threads(), 0, "on {kind:?}");
    });
}

/// A socket outliving its runtime fails with the error
/// `runtime::is_rt_shutdown_err` recognises (tokio's contract), whichever
/// flavor the first and the second runtime are.
#[test]
#[cfg_attr(
    miri,
    ignore = "Miri cannot register sockets with epoll under strict provenance"
)]
fn io_after_shutdown_is_recognised() {
    use rt::runtime::{Builder, is_rt_shutdown_err};
    for multi in [false, true] {
        let build = |multi: bool| {
            if multi {
                Builder::new_multi_thread()
                    .worker_threads(2)
                    .enable_all()
                    .build()
            } else {
                Builder::new_current_thread().enable_all().build()
            }
            .unwrap()
        };
        let first = build(multi);
        let second = build(!multi);
        let listener = first
            .block_on(rt::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        drop(first);
        let err = second.block_on(async { listener.accept().await.unwrap_err() });
        assert!(is_rt_shutdown_err(&err), "{err}");
        assert!(!is_rt_shutdown_err(&std::io::Error::other(err.to_string())));
    }
}

/// A task dropped by the runtime's shutdown sees that runtime as current
/// in its destructor, on every scheduler (the current-thread one drops its
/// tasks on the dropping thread, which used to have no runtime entered;
/// tokio's `rt_basic::drop_tasks_in_context`).
#[test]
fn tasks_dropped_at_shutdown_see_their_runtime() {
    struct SeesRuntime(mpsc::Sender<bool>);
    impl Future for SeesRuntime {
        type Output = ();
        fn poll(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<()> {
            Poll::Pending
        }
    }
    impl Drop for SeesRuntime {
        fn drop(&mut self) {
            let _ = self.0.send(rt::runtime::Handle::try_current().is_ok());
        }
    }
    each_runtime(|kind, rt| {
        let (tx, rx) = mpsc::channel();
        rt.spawn(SeesRuntime(tx));
        drop(rt);
        assert_eq!(
            rx.recv(),
            Ok(true),
            "{kind:?}: dropped without its runtime current"
        );
    });
}

/// Writing to stdout or stderr through a runtime that has shut down fails
/// at once with the shutdown error (its blocking pool refuses the job), as
/// tokio's do; before, the write reported success and the bytes were lost.
#[test]
fn stdio_writes_after_shutdown_fail_with_the_shutdown_error() {
    use rt::io::AsyncWriteExt;
    // `support::each`: under Miri, each scheduler in its own run.
    let kinds = [support::Kind::CurrentThread, support::Kind::MultiThread(1)];
    support::each(&kinds, |kind, rt| {
        let handle = rt.handle().clone();
        rt.shutdown_timeout(std::time::Duration::from_secs(1000));
        let err = handle
            .block_on(async { rt::io::stdout().write_all(b"x").await })
            .unwrap_err();
        assert!(rt::runtime::is_rt_shutdown_err(&err), "{kind:?}: {err}");
        let err = handle
            .block_on(async { rt::io::stderr().write_all(b"x").await })
            .unwrap_err();
        assert!(rt::runtime::is_rt_shutdown_err(&err), "{kind:?}: {err}");
    });
}

/// A current-thread runtime dropped while a blocking job's
/// `Handle::block_on` holds its scheduler, waiting on that runtime's own
/// timer or socket: the drop shuts the driver down under that thread
/// (as tokio's, whose drop returns at once), so the wait reports the
/// shutdown and the job ends. Before, the driver was shut down only once
/// that thread let go of the scheduler, which it never did (it kept
/// serving its own timer): the drop, waiting for the job, hung for the
/// sleep's hour, and for ever on the accept.
#[test]
#[cfg_attr(
    miri,
    ignore = "Miri cannot register the I/O driver's descriptors with epoll under strict provenance"
)]
fn a_blocking_job_driving_the_runtime_sees_its_drop() {
    for waits_on in ["timer", "socket"] {
        let rt = Builder::new_current_thread().enable_all().build().unwrap();
        let listener = rt
            .block_on(rt::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let (waiting_tx, waiting_rx) = rt::sync::oneshot::channel();
        let job = rt.spawn_blocking(move || {
            let handle = rt::runtime::Handle::current();
            // Inside, this thread holds the scheduler (no other thread is
            // in `block_on`) and drives the runtime's driver.
            let wait = async move {
                match waits_on {
                    "timer" => rt::time::sleep(Duration::from_secs(3600)).await,
                    _ => {
                        let err = listener.accept().await.unwrap_err();
                        assert!(rt::runtime::is_rt_shutdown_err(&err), "{err}");
                    }
                }
            };
            handle.block_on(support::report_pending(wait, waiting_tx));
        });
        futures::executor::block_on(waiting_rx).unwrap();
        support::assert_no_deadlock("dropping the runtime", move || drop(rt));
        match (waits_on, futures::executor::block_on(job)) {
            ("timer", Err(error)) => {
                let message = support::panic_message(&*error.into_panic());
                assert!(message.contains("after its runtime shut down"), "{message}");
            }
            ("socket", Ok(())) => {}
            (_, outcome) => panic!("waiting on the {waits_on}: {outcome:?}"),
        }
    }
}
