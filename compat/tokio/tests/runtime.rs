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
