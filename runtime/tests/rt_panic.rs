//! Panics: caught per task, reported through `JoinError`, and misuse of the
//! runtime panicking with a message that names the fix.

mod support;

use rt::runtime::{Builder, Handle};
use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use support::{DropCounter, Kind, block_on_each, each_runtime, expect_panic, panic_message};

#[test]
fn a_panicking_task_does_not_take_the_runtime_down() {
    each_runtime(|kind, rt| {
        // More panics than workers: every worker survives its panics.
        let panics: Vec<_> = (0..16)
            .map(|i| rt.spawn(async move { panic!("task {i} failed") }))
            .collect();
        for (i, handle) in panics.into_iter().enumerate() {
            let error = rt.block_on(handle).unwrap_err();
            assert!(error.is_panic() && !error.is_cancelled());
            assert_eq!(
                panic_message(&*error.into_panic()),
                format!("task {i} failed")
            );
        }
        // Every worker still runs tasks: enough of them that each worker
        // gets some, all complete.
        let ran = Arc::new(AtomicUsize::new(0));
        let handles: Vec<_> = (0..1000)
            .map(|_| {
                let ran = ran.clone();
                rt.spawn(async move {
                    rt::task::yield_now().await;
                    ran.fetch_add(1, Ordering::SeqCst);
                })
            })
            .collect();
        for handle in handles {
            rt.block_on(handle).unwrap();
        }
        assert_eq!(ran.load(Ordering::SeqCst), 1000, "on {kind:?}");
    });
}

#[test]
fn a_panic_after_a_suspension_is_caught_and_the_future_dropped() {
    block_on_each(|_| async {
        let drops = DropCounter::new();
        let guard = drops.guard();
        let handle = rt::spawn(async move {
            let _guard = guard;
            rt::task::yield_now().await;
            panic!("late panic");
        });
        let error = handle.await.unwrap_err();
        assert!(error.is_panic());
        assert_eq!(drops.dropped(), 1);
    });
}

struct PanicOnDrop;

impl Drop for PanicOnDrop {
    fn drop(&mut self) {
        panic!("panic while dropping the future");
    }
}

#[test]
fn a_panic_while_dropping_an_aborted_future_is_reported() {
    block_on_each(|_| async {
        let (started_tx, started_rx) = futures_channel::oneshot::channel();
        let handle = rt::spawn(async move {
            let _bomb = PanicOnDrop;
            started_tx.send(()).unwrap();
            std::future::pending::<()>().await;
        });
        started_rx.await.unwrap();
        handle.abort();
        let error = handle.await.unwrap_err();
        assert!(error.is_panic());
        assert_eq!(
            panic_message(&*error.into_panic()),
            "panic while dropping the future"
        );
        // The runtime still works.
        assert_eq!(rt::spawn(async { 1 }).await.unwrap(), 1);
    });
}

/// A task's output whose destructor panics, and counts that it ran.
struct OutputPanicsOnDrop(Arc<AtomicUsize>);

impl Drop for OutputPanicsOnDrop {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
        panic!("panic while dropping the output");
    }
}

/// Dropping the `JoinHandle` of a finished task drops its output there;
/// a panic in that destructor stays inside the drop, as in tokio (tokio's
/// `join_handle_panic.rs`): the handle's owner may be a destructor or an
/// unwinding thread, where a second panic aborts.
#[test]
fn a_panic_in_the_output_destructor_does_not_leave_the_handle_drop() {
    each_runtime(|kind, rt| {
        let drops = Arc::new(AtomicUsize::new(0));
        let output = OutputPanicsOnDrop(drops.clone());
        let handle = rt.spawn(async move { output });
        rt.block_on(async {
            while !handle.is_finished() {
                rt::task::yield_now().await;
            }
        });
        assert_eq!(drops.load(Ordering::SeqCst), 0, "the output is held");
        let dropped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drop(handle)));
        assert!(
            dropped.is_ok(),
            "the panic left the handle's drop on {kind:?}"
        );
        assert_eq!(drops.load(Ordering::SeqCst), 1, "the output was dropped");
        assert_eq!(rt.block_on(rt.spawn(async { 1 })).unwrap(), 1);
    });
}

#[test]
fn join_error_display_debug_and_payloads() {
    block_on_each(|_| async {
        let handle = rt::spawn(async { panic!("boom") });
        let id = handle.id();
        let error = handle.await.unwrap_err();
        assert_eq!(error.id(), id);
        assert_eq!(
            error.to_string(),
            format!("task {id} panicked with message \"boom\"")
        );
        assert_eq!(
            format!("{error:?}"),
            format!("JoinError::Panic({id}, \"boom\")")
        );
        let payload = error.try_into_panic().unwrap();
        assert_eq!(*payload.downcast::<&str>().unwrap(), "boom");

        // A formatted message is a `String` payload.
        let value = 7;
        let error = rt::spawn(async move { panic!("value {value}") })
            .await
            .unwrap_err();
        assert!(
            error
                .to_string()
                .ends_with("panicked with message \"value 7\"")
        );
        assert_eq!(*error.into_panic().downcast::<String>().unwrap(), "value 7");

        // A payload that is not a string is kept as it is.
        let handle = rt::spawn(async { std::panic::panic_any(42u32) });
        let id = handle.id();
        let error = handle.await.unwrap_err();
        assert_eq!(error.to_string(), format!("task {id} panicked"));
        assert_eq!(format!("{error:?}"), format!("JoinError::Panic({id}, ..)"));
        assert_eq!(*error.into_panic().downcast::<u32>().unwrap(), 42);

        // The payload can be re-raised where the handle was awaited.
        let error = rt::spawn(async { panic!("again") }).await.unwrap_err();
        let resumed = std::panic::catch_unwind(|| {
            std::panic::resume_unwind(error.into_panic());
        })
        .unwrap_err();
        assert_eq!(panic_message(&*resumed), "again");
    });
}

#[test]
fn join_error_of_a_cancelled_task() {
    block_on_each(|_| async {
        let handle = rt::spawn(std::future::pending::<()>());
        let id = handle.id();
        handle.abort();
        let error = handle.await.unwrap_err();
        assert_eq!(format!("{error:?}"), format!("JoinError::Cancelled({id})"));
        let io_error = io::Error::from(error);
        // Not `Interrupted`, which I/O loops retry.
        assert_eq!(io_error.kind(), io::ErrorKind::Other);
        assert_eq!(io_error.to_string(), format!("task {id} was cancelled"));

        let handle = rt::spawn(std::future::pending::<()>());
        handle.abort();
        let error = handle.await.unwrap_err();
        // `try_into_panic` gives the cancelled error back unchanged.
        let error = error.try_into_panic().unwrap_err();
        assert!(error.is_cancelled());
        let message = expect_panic(move || error.into_panic());
        assert!(
            message.contains("`JoinError::into_panic` called on a cancelled task's error"),
            "{message}"
        );
    });
}

#[test]
fn join_error_of_a_panic_converts_to_io_other() {
    block_on_each(|_| async {
        let error = rt::spawn(async { panic!("io") }).await.unwrap_err();
        assert_eq!(io::Error::from(error).kind(), io::ErrorKind::Other);
    });
}

#[test]
fn spawn_outside_a_runtime_panics() {
    let message = expect_panic(|| rt::spawn(async {}));
    assert!(
        message.contains("`rt::spawn` called outside a runtime"),
        "{message}"
    );
    assert!(
        message.contains("Runtime::enter()"),
        "names the fix: {message}"
    );
}

#[test]
fn handle_current_outside_a_runtime_panics() {
    let message = expect_panic(Handle::current);
    assert!(
        message.contains("`rt::runtime::Handle::current()` called outside a runtime"),
        "{message}"
    );
    assert!(Handle::try_current().is_err());
}

#[test]
fn block_on_inside_block_on_panics() {
    each_runtime(|_, rt| {
        let message = expect_panic(|| rt.block_on(async { rt.block_on(async {}) }));
        assert!(
            message.contains("Cannot start a runtime from within a runtime"),
            "{message}"
        );
        // The failed nested call left the runtime usable.
        assert_eq!(rt.block_on(async { 5 }), 5);
    });
}

#[test]
fn block_on_inside_a_task_panics_in_that_task() {
    each_runtime(|_, rt| {
        let other = Kind::CurrentThread.build();
        let other_handle = other.handle().clone();
        let error = rt
            .block_on(rt.spawn(async move { other_handle.block_on(async {}) }))
            .unwrap_err();
        let message = panic_message(&*error.into_panic());
        assert!(
            message.contains("Cannot start a runtime from within a runtime"),
            "{message}"
        );
        assert!(message.contains("`.await`"), "names the fix: {message}");
    });
}

#[test]
fn dropping_a_runtime_inside_block_on_panics() {
    each_runtime(|_, rt| {
        let inner = Builder::new_current_thread().build().unwrap();
        let message = expect_panic(|| rt.block_on(async move { drop(inner) }));
        assert!(
            message.contains("Cannot drop a runtime inside an async context"),
            "{message}"
        );
        assert!(
            message.contains("shutdown_background()"),
            "names the fix: {message}"
        );
    });
}

#[test]
fn dropping_a_runtime_inside_a_task_panics_in_that_task() {
    each_runtime(|_, rt| {
        let inner = Builder::new_current_thread().build().unwrap();
        let error = rt
            .block_on(rt.spawn(async move { drop(inner) }))
            .unwrap_err();
        let message = panic_message(&*error.into_panic());
        assert!(
            message.contains("Cannot drop a runtime inside an async context"),
            "{message}"
        );
    });
}

#[test]
fn shutdown_background_inside_async_context_is_allowed() {
    each_runtime(|_, rt| {
        let inner = Kind::MultiThread(2).build();
        let task = inner.spawn(std::future::pending::<()>());
        rt.block_on(async move { inner.shutdown_background() });
        let error = futures::executor::block_on(task).unwrap_err();
        assert!(error.is_cancelled());
    });
}

/// Records whether the thread was panicking when it was dropped.
struct RecordsPanicking(Arc<std::sync::Mutex<Option<bool>>>);

impl Drop for RecordsPanicking {
    fn drop(&mut self) {
        *self.0.lock().unwrap() = Some(std::thread::panicking());
    }
}

/// A future whose poll panics, holding a field that outlives the poll
/// (an async block would drop its own locals while unwinding; a
/// hand-written future's fields go with the future).
struct PanicsWhenPolled {
    _record: RecordsPanicking,
}

impl std::future::Future for PanicsWhenPolled {
    type Output = ();

    fn poll(self: std::pin::Pin<&mut Self>, _: &mut std::task::Context<'_>) -> std::task::Poll<()> {
        panic!("the poll panics")
    }
}

/// A task whose poll panics has its future dropped during the unwind (as
/// tokio does): the future's destructors see `std::thread::panicking()`.
#[test]
fn a_panicking_task_drops_its_future_during_the_unwind() {
    block_on_each(|_| async {
        let seen = Arc::new(std::sync::Mutex::new(None));
        let handle = rt::spawn(PanicsWhenPolled {
            _record: RecordsPanicking(seen.clone()),
        });
        assert!(handle.await.unwrap_err().is_panic());
        assert_eq!(*seen.lock().unwrap(), Some(true));
    });
}

/// As tokio's are, the runtime, its handles, `Notify`, task handles and
/// sockets are unwind-safe: code written for tokio captures them in
/// `catch_unwind` closures. A runtime whose `block_on` panicked in such a
/// closure is still usable, with the state it had.
#[test]
fn runtime_handles_and_resources_are_unwind_safe() {
    use std::panic::{RefUnwindSafe, UnwindSafe, catch_unwind};

    fn unwind_safe<T: UnwindSafe + RefUnwindSafe>() {}
    unwind_safe::<rt::runtime::Runtime>();
    unwind_safe::<Handle>();
    unwind_safe::<rt::sync::Notify>();
    unwind_safe::<rt::task::JoinHandle<()>>();
    unwind_safe::<rt::task::AbortHandle>();
    unwind_safe::<rt::net::TcpListener>();
    unwind_safe::<rt::net::TcpSocket>();
    unwind_safe::<rt::net::TcpStream>();
    unwind_safe::<rt::net::UdpSocket>();
    unwind_safe::<rt::net::UnixDatagram>();
    unwind_safe::<rt::net::UnixListener>();
    unwind_safe::<rt::net::UnixStream>();

    for kind in support::ALL {
        let rt = kind.builder().build().unwrap();
        let notify = rt::sync::Notify::new();
        let caught = catch_unwind(|| {
            rt.block_on(async {
                notify.notify_one();
                panic!("in block_on");
            })
        });
        assert!(caught.is_err());
        // The permit stored before the panic is still there.
        rt.block_on(notify.notified());
        assert_eq!(rt.block_on(async { 7 }), 7, "on {kind:?}");
    }
}

#[test]
fn a_runtime_dropped_inside_block_on_is_still_shut_down() {
    // The drop panics, but first stops the workers and cancels the tasks:
    // before, the panic unwound past the runtime, its workers stayed
    // parked for the life of the process and its tasks were never dropped.
    let hang = std::time::Duration::from_secs(30);
    let (stopped, thread_stops) = std::sync::mpsc::channel();
    let stopped = std::sync::Mutex::new(stopped);
    let inner = Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .on_thread_stop(move || stopped.lock().unwrap().send(()).unwrap())
        .build()
        .unwrap();
    let drops = DropCounter::new();
    let guard = drops.guard();
    let (started, running) = std::sync::mpsc::channel();
    let task = inner.spawn(async move {
        let _guard = guard;
        started.send(()).unwrap();
        std::future::pending::<()>().await
    });
    running.recv_timeout(hang).unwrap();
    let outer = Builder::new_current_thread().build().unwrap();
    let message = expect_panic(|| outer.block_on(async move { drop(inner) }));
    assert!(
        message.contains("Cannot drop a runtime inside an async context"),
        "{message}"
    );
    for _ in 0..2 {
        thread_stops
            .recv_timeout(hang)
            .expect("a worker of the dropped runtime stopped");
    }
    let error = outer.block_on(task).unwrap_err();
    assert!(error.is_cancelled(), "{error:?}");
    assert_eq!(drops.dropped(), 1, "the pending task's future was dropped");
}

/// A `shutdown_timeout` that would wait inside an async context panics
/// naming the fix (as tokio's does), after shutting the runtime down
/// without waiting. Before, it blocked the thread for up to the timeout:
/// here, behind a blocking call that never returns, for the whole hour.
#[test]
fn shutdown_timeout_inside_block_on_panics_instead_of_blocking() {
    let hang = std::time::Duration::from_secs(30);
    let inner = Kind::MultiThread(2).build();
    let (release, stuck) = std::sync::mpsc::channel::<()>();
    let blocking = inner.spawn_blocking(move || stuck.recv().is_err());
    let pending = inner.spawn(std::future::pending::<()>());
    let (result, results) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let outer = Builder::new_current_thread().build().unwrap();
        let message = expect_panic(|| {
            outer.block_on(
                async move { inner.shutdown_timeout(std::time::Duration::from_secs(3600)) },
            )
        });
        result.send(message).unwrap();
    });
    let message = results
        .recv_timeout(hang)
        .expect("`shutdown_timeout` panicked instead of blocking for its timeout");
    assert!(
        message.contains("`Runtime::shutdown_timeout` called inside an async context"),
        "{message}"
    );
    assert!(
        message.contains("shutdown_background()"),
        "names the fix: {message}"
    );
    let outer = Builder::new_current_thread().build().unwrap();
    assert!(outer.block_on(pending).unwrap_err().is_cancelled());
    drop(release);
    assert!(
        outer.block_on(blocking).unwrap(),
        "the blocking call ran on"
    );
}

/// A task that shuts down its own runtime with a timeout panics at once;
/// before, it waited the whole timeout for its own worker to stop.
#[test]
fn shutdown_timeout_of_its_own_runtime_inside_a_task_panics() {
    let hang = std::time::Duration::from_secs(30);
    let rt = Kind::MultiThread(2).build();
    let handle = rt.handle().clone();
    let (result, results) = std::sync::mpsc::channel();
    handle.spawn(async move {
        let message = expect_panic(|| rt.shutdown_timeout(std::time::Duration::from_secs(3600)));
        result.send(message).unwrap();
    });
    let message = results
        .recv_timeout(hang)
        .expect("`shutdown_timeout` panicked instead of waiting for its own worker");
    assert!(
        message.contains("`Runtime::shutdown_timeout` called inside an async context"),
        "{message}"
    );
}
