//! The facade names its runtimes' threads as tokio does by default
//! (`tokio-rt-worker`, tokio's name since 1.50: profilers, log filters
//! and tests match it), whichever way the runtime is built, and a name
//! the user sets still wins.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use tokio::runtime::{Builder, LocalRuntime, Runtime};

const TOKIO_NAME: &str = "tokio-rt-worker";

fn current_name() -> Option<String> {
    std::thread::current().name().map(str::to_owned)
}

/// The names of a worker thread (a spawned task's) and of a blocking-pool
/// thread, read inside the runtime.
async fn task_and_blocking_names() -> (Option<String>, Option<String>) {
    let task = tokio::spawn(async { current_name() }).await.unwrap();
    let blocking = tokio::task::spawn_blocking(current_name).await.unwrap();
    (task, blocking)
}

fn tokio_names() -> (Option<String>, Option<String>) {
    (Some(TOKIO_NAME.to_owned()), Some(TOKIO_NAME.to_owned()))
}

#[test]
fn builders_name_workers_and_blocking_threads_as_tokio() {
    let rt = Builder::new_multi_thread().enable_all().build().unwrap();
    assert_eq!(rt.block_on(task_and_blocking_names()), tokio_names());

    // A current-thread runtime's tasks run on the caller's thread; its
    // blocking pool is the runtime's own.
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let blocking = rt.block_on(rt.spawn_blocking(current_name));
    assert_eq!(blocking.unwrap().as_deref(), Some(TOKIO_NAME));
}

#[test]
fn runtime_new_and_local_runtime_new_name_threads_as_tokio() {
    let rt = Runtime::new().unwrap();
    assert_eq!(rt.block_on(task_and_blocking_names()), tokio_names());

    let local = LocalRuntime::new().unwrap();
    let blocking = local.block_on(local.spawn_blocking(current_name));
    assert_eq!(blocking.unwrap().as_deref(), Some(TOKIO_NAME));
}

#[tokio::main]
async fn main_names() -> (Option<String>, Option<String>) {
    task_and_blocking_names().await
}

#[test]
fn tokio_main_names_threads_as_tokio() {
    assert_eq!(main_names(), tokio_names());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokio_test_multi_thread_names_threads_as_tokio() {
    assert_eq!(task_and_blocking_names().await, tokio_names());
}

#[tokio::test]
async fn tokio_test_current_thread_names_its_blocking_threads_as_tokio() {
    let blocking = tokio::task::spawn_blocking(current_name).await.unwrap();
    assert_eq!(blocking.as_deref(), Some(TOKIO_NAME));
}

/// `block_in_place` hands the worker's queue to a new thread: a worker
/// like the others, named as they are.
#[test]
fn the_thread_block_in_place_starts_is_named_as_tokio() {
    let rt = Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    let name = rt.block_on(async {
        tokio::spawn(async {
            tokio::task::block_in_place(|| {
                // This worker is blocked: the task runs on the thread that
                // took its queue over.
                let task = tokio::spawn(async { current_name() });
                tokio::runtime::Handle::current().block_on(task).unwrap()
            })
        })
        .await
        .unwrap()
    });
    assert_eq!(name.as_deref(), Some(TOKIO_NAME));
}

#[test]
fn a_name_the_user_sets_wins() {
    for mut builder in [Builder::new_multi_thread(), Builder::new_current_thread()] {
        let rt = builder.thread_name("api").build().unwrap();
        let blocking = rt.block_on(rt.spawn_blocking(current_name));
        assert_eq!(blocking.unwrap().as_deref(), Some("api"));
    }

    let next = Arc::new(AtomicUsize::new(0));
    let counter = next.clone();
    let rt = Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name_fn(move || format!("api-{}", counter.fetch_add(1, Ordering::SeqCst)))
        .build()
        .unwrap();
    let (task, blocking) = rt.block_on(task_and_blocking_names());
    for name in [task, blocking] {
        let name = name.unwrap();
        assert!(name.starts_with("api-"), "{name}");
    }
    assert!(next.load(Ordering::SeqCst) >= 2);
}
