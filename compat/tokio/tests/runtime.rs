//! `tokio::runtime` on rt: tokio's `Builder` shape (`build_local` with
//! `LocalOptions`), the re-exported handle and runtimes, and tokio's
//! panics for misuse.

use std::time::Duration;
use tokio::runtime::{Builder, Handle, LocalOptions, LocalRuntime, RuntimeFlavor};

#[test]
fn builder_forwards_its_settings() {
    for mut builder in [Builder::new_current_thread(), Builder::new_multi_thread()] {
        let rt = builder
            .worker_threads(2)
            .thread_name("facade-worker")
            .max_blocking_threads(3)
            .thread_keep_alive(Duration::from_secs(1))
            .global_queue_interval(7)
            .event_interval(5)
            .enable_all()
            .build()
            .unwrap();
        let name = rt
            .block_on(rt.spawn_blocking(|| std::thread::current().name().map(str::to_owned)))
            .unwrap();
        assert_eq!(name.as_deref(), Some("facade-worker"));
        let workers = rt.metrics().num_workers();
        match rt.handle().runtime_flavor() {
            RuntimeFlavor::CurrentThread => assert_eq!(workers, 1),
            RuntimeFlavor::MultiThread => assert_eq!(workers, 2),
            other => panic!("unexpected flavor {other:?}"),
        }
    }
}

#[test]
fn build_local_takes_local_options() {
    let rt = Builder::new_current_thread()
        .enable_all()
        .build_local(LocalOptions::default())
        .unwrap();
    let rc = std::rc::Rc::new(1);
    let in_task = rc.clone();
    let task = rt.spawn_local(async move { *in_task + 1 });
    assert_eq!(rt.block_on(async move { task.await.unwrap() + *rc }), 3);
}

#[test]
fn local_runtime_new() {
    let rt = LocalRuntime::new().unwrap();
    let out = rt.block_on(async {
        tokio::task::spawn_local(async { std::rc::Rc::new(2) })
            .await
            .unwrap()
    });
    assert_eq!(*out, 2);
}

#[test]
#[should_panic(expected = "build_local")]
fn build_local_on_multi_thread_panics() {
    let _ = Builder::new_multi_thread().build_local(LocalOptions::default());
}

#[test]
#[should_panic(expected = "must be at least 1")]
fn zero_worker_threads_panics() {
    Builder::new_multi_thread().worker_threads(0);
}

#[test]
fn try_current_outside_a_runtime() {
    let err = Handle::try_current().unwrap_err();
    assert!(err.is_missing_context());
    assert!(!err.is_thread_local_destroyed());
    let rt = Builder::new_current_thread().build().unwrap();
    let _guard = rt.enter();
    assert_eq!(Handle::try_current().unwrap(), *rt.handle());
}

#[test]
fn spawn_from_a_handle_on_both_flavors() {
    for mut builder in [Builder::new_current_thread(), Builder::new_multi_thread()] {
        let rt = builder.enable_all().build().unwrap();
        let handle = rt.handle().clone();
        let task = handle.spawn(async { tokio::task::id() });
        let id = rt.block_on(task).unwrap();
        assert_ne!(Some(id), tokio::task::try_id());
        assert_eq!(handle.block_on(async { 3 }), 3);
    }
}

#[test]
fn name_io_events_and_worker_index() {
    for mut builder in [Builder::new_current_thread(), Builder::new_multi_thread()] {
        let rt = builder
            .name("facade-rt")
            .max_io_events_per_tick(64)
            .max_io_events_per_busy_tick(8)
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        assert_eq!(rt.handle().name(), Some("facade-rt"));
        let index = rt
            .block_on(rt.spawn(async { tokio::runtime::worker_index() }))
            .unwrap();
        let workers = rt.metrics().num_workers();
        assert!(index.is_some_and(|i| i < workers), "{index:?} of {workers}");
        assert_eq!(tokio::runtime::worker_index(), None);
    }
}

#[test]
#[should_panic(expected = "max_io_events_per_busy_tick must be non-zero")]
fn zero_busy_tick_events_panics() {
    Builder::new_current_thread().max_io_events_per_busy_tick(0);
}

#[test]
fn io_after_shutdown_is_recognised() {
    let first = Builder::new_current_thread().enable_all().build().unwrap();
    let listener = first
        .block_on(tokio::__rt::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    drop(first);
    let second = Builder::new_multi_thread().enable_all().build().unwrap();
    let err = second.block_on(async { listener.accept().await.unwrap_err() });
    assert!(tokio::runtime::is_rt_shutdown_err(&err), "{err}");
}

#[test]
fn coop_budget_through_the_facade() {
    use std::task::Poll;
    let rt = Builder::new_current_thread().build().unwrap();
    rt.block_on(async {
        // `poll_proceed` spends the budget until a forced yield; made
        // progress keeps the unit spent.
        let mut ready = 0;
        std::future::poll_fn(|cx| {
            loop {
                match tokio::task::coop::poll_proceed(cx) {
                    Poll::Ready(restore) => {
                        restore.made_progress();
                        ready += 1;
                    }
                    Poll::Pending => return Poll::Ready(()),
                }
            }
        })
        .await;
        assert!(ready > 0);
        assert!(!tokio::task::coop::has_budget_remaining());
        tokio::task::yield_now().await;
        assert!(tokio::task::coop::has_budget_remaining());
        assert_eq!(tokio::task::coop::cooperative(async { 5 }).await, 5);
    });
}

/// tokio's auto traits: the builder, handles and sleep cross threads.
#[test]
fn send_and_sync_like_tokio() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Builder>();
    send_sync::<tokio::runtime::Runtime>();
    send_sync::<Handle>();
    send_sync::<tokio::time::Sleep>();
    send_sync::<tokio::task::JoinHandle<()>>();
    send_sync::<tokio::sync::broadcast::Receiver<std::cell::Cell<u8>>>();
}

/// `max_io_events_per_busy_tick` bounds the reactor turns a busy thread
/// takes between tasks, as rt's own setting does. Before, the facade
/// checked the value and dropped it: with four sockets readable and a
/// task yielding meanwhile, the turn that woke the reader had taken all
/// four events instead of one.
#[test]
fn max_io_events_per_busy_tick_bounds_busy_turns() {
    use std::future::{Future, poll_fn};
    use std::io::Write;
    use std::pin::Pin;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::task::Poll;
    use tokio::__rt::net::UnixStream;

    const SOCKETS: u64 = 4;
    let rt = Builder::new_current_thread()
        .enable_all()
        .max_io_events_per_busy_tick(1)
        .build()
        .unwrap();
    let metrics = rt.metrics();
    let done = Arc::new(AtomicBool::new(false));
    // Keeps the thread busy: every reactor turn is a busy one.
    let spinner = rt.spawn({
        let done = done.clone();
        async move {
            while !done.load(Ordering::SeqCst) {
                tokio::task::yield_now().await;
            }
        }
    });
    let dispatched = rt.block_on(async {
        let mut peers = Vec::new();
        let mut sockets = Vec::new();
        for _ in 0..SOCKETS {
            let (ours, mut theirs) = std::os::unix::net::UnixStream::pair().unwrap();
            ours.set_nonblocking(true).unwrap();
            theirs.write_all(b"x").unwrap();
            sockets.push(UnixStream::from_std(ours).unwrap());
            peers.push(theirs);
        }
        let before = metrics.io_driver_ready_count();
        let mut waits: Vec<Pin<Box<dyn Future<Output = std::io::Result<()>> + '_>>> = sockets
            .iter()
            .map(|socket| Box::pin(socket.readable()) as _)
            .collect();
        poll_fn(|cx| {
            for wait in &mut waits {
                if let Poll::Ready(result) = wait.as_mut().poll(cx) {
                    result.unwrap();
                    return Poll::Ready(());
                }
            }
            Poll::Pending
        })
        .await;
        metrics.io_driver_ready_count() - before
    });
    done.store(true, Ordering::SeqCst);
    rt.block_on(spinner).unwrap();
    assert_eq!(dispatched, 1);
}
