//! What a runtime says about itself and where the caller runs:
//! `Builder::name` / `Handle::name`, `runtime::worker_index`, and
//! `LocalRuntime::metrics`.

mod support;

use rt::runtime::{Builder, Handle, worker_index};
use std::collections::HashSet;
use std::sync::{Arc, Barrier, mpsc};
use support::{ALL, Kind, panic_message};

#[test]
fn name_is_seen_by_handle_and_tasks_on_both_schedulers() {
    for kind in ALL {
        let rt = kind
            .builder()
            .name(format!("svc-{kind:?}"))
            .build()
            .unwrap();
        let expected = format!("svc-{kind:?}");
        assert_eq!(rt.handle().name(), Some(expected.as_str()));
        let from_task = rt.block_on(async {
            rt::spawn(async { Handle::current().name().map(str::to_owned) })
                .await
                .unwrap()
        });
        assert_eq!(from_task.as_deref(), Some(expected.as_str()), "{kind:?}");
        // An unnamed runtime has no name.
        assert_eq!(kind.build().handle().name(), None, "{kind:?}");
    }
}

#[test]
fn name_does_not_rename_threads() {
    let rt = Builder::new_multi_thread()
        .worker_threads(1)
        .name("runtime-name")
        .thread_name("thread-name")
        .build()
        .unwrap();
    let thread = rt.block_on(async {
        rt::spawn(async { std::thread::current().name().map(str::to_owned) })
            .await
            .unwrap()
    });
    assert_eq!(thread.as_deref(), Some("thread-name"));
}

#[test]
fn empty_name_panics_naming_the_method() {
    for name in ["", "   "] {
        let panic = std::panic::catch_unwind(|| {
            Builder::new_current_thread().name(name);
        })
        .unwrap_err();
        assert!(panic_message(&*panic).contains("`Builder::name`"));
    }
}

#[test]
fn worker_index_is_none_outside_workers() {
    assert_eq!(worker_index(), None);
    let rt = Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    // `block_on`'s thread is not a worker of a multi-thread runtime.
    assert_eq!(rt.block_on(async { worker_index() }), None);
    let in_blocking = rt.block_on(async { rt::spawn_blocking(worker_index).await.unwrap() });
    assert_eq!(in_blocking, None);
    // `block_in_place` hands the worker to another thread: the closure
    // runs on a thread that is no longer worker `i`.
    let (before, inside) = rt.block_on(async {
        rt::spawn(async {
            let before = worker_index();
            let inside = rt::task::block_in_place(worker_index);
            (before, inside)
        })
        .await
        .unwrap()
    });
    assert!(matches!(before, Some(0 | 1)), "{before:?}");
    assert_eq!(inside, None);
}

#[test]
fn worker_indices_are_distinct_per_worker_and_match_metrics() {
    for workers in [1, 2, 4] {
        let rt = Kind::MultiThread(workers).build();
        // `workers` tasks that each hold their worker until all have
        // started: each runs on a different worker.
        let barrier = Arc::new(Barrier::new(workers));
        let indices: HashSet<usize> = rt.block_on(async {
            let tasks: Vec<_> = (0..workers)
                .map(|_| {
                    let barrier = barrier.clone();
                    rt::spawn(async move {
                        let index = worker_index().expect("a task runs on a worker");
                        barrier.wait();
                        index
                    })
                })
                .collect();
            let mut indices = HashSet::new();
            for task in tasks {
                indices.insert(task.await.unwrap());
            }
            indices
        });
        assert_eq!(indices, (0..workers).collect(), "{workers} workers");
        let metrics = rt.metrics();
        for index in indices {
            assert!(metrics.worker_poll_count(index) >= 1, "worker {index}");
        }
    }
}

#[test]
fn current_thread_worker_is_zero_only_on_the_driving_thread() {
    let rt = Arc::new(Kind::CurrentThread.build());
    assert_eq!(rt.block_on(async { worker_index() }), Some(0));
    assert_eq!(
        rt.block_on(async { rt::spawn(async { worker_index() }).await.unwrap() }),
        Some(0)
    );
    // While this thread drives the runtime (the other thread starts inside
    // its `block_on`), another thread's `block_on` only polls its own
    // future: it is not the worker.
    let (release, released) = rt::sync::oneshot::channel::<()>();
    let (seen, seen_rx) = mpsc::channel();
    let handle = rt.handle().clone();
    let other = rt.block_on(async move {
        assert_eq!(worker_index(), Some(0));
        let other = std::thread::spawn(move || {
            seen.send(handle.block_on(async { worker_index() }))
                .unwrap();
            release.send(()).unwrap();
        });
        released.await.unwrap();
        other
    });
    other.join().unwrap();
    assert_eq!(seen_rx.recv().unwrap(), None);

    let local = Builder::new_current_thread().build_local().unwrap();
    assert_eq!(local.block_on(async { worker_index() }), Some(0));
}

#[test]
fn local_runtime_metrics_are_its_runtime_s() {
    let rt = Builder::new_current_thread().build_local().unwrap();
    assert_eq!(rt.metrics().num_workers(), 1);
    let rc = std::rc::Rc::new(3);
    let local = rt.spawn_local(async move { *rc });
    let sent = rt.spawn(async { 4 });
    // Both are the runtime's, as in tokio: the local one lives in the
    // built-in `LocalSet`, whose counts the metrics add (see
    // `LocalRuntime::metrics`).
    assert_eq!(rt.metrics().num_alive_tasks(), 2);
    assert_eq!(
        rt.block_on(async { local.await.unwrap() + sent.await.unwrap() }),
        7
    );
    assert_eq!(rt.metrics().num_alive_tasks(), 0);
    assert_eq!(
        rt.metrics().worker_poll_count(0),
        rt.handle().metrics().worker_poll_count(0)
    );
    assert!(rt.metrics().worker_poll_count(0) >= 1);
}
