//! `#[tokio::main]`, `#[tokio::test]` and the function-like macros through
//! the facade's paths: each flavor builds the runtime asked for, on rt.

use std::time::Duration;
use tokio::runtime::{Handle, RuntimeFlavor};

fn flavor_and_workers() -> (RuntimeFlavor, usize) {
    let handle = Handle::current();
    (handle.runtime_flavor(), handle.metrics().num_workers())
}

/// The body's tasks are rt's: rt's dump lists a task spawned through the
/// facade.
fn assert_in_rt_dump(id: tokio::task::Id) {
    let dump = tokio::__rt::runtime::Handle::current().dump();
    assert!(
        dump.tasks().iter().any(|task| task.id() == id),
        "task {id} is not in rt's dump: {dump:?}"
    );
}

#[tokio::test]
async fn test_defaults_to_current_thread() {
    assert_eq!(flavor_and_workers(), (RuntimeFlavor::CurrentThread, 1));
    let task = tokio::spawn(std::future::pending::<()>());
    assert_in_rt_dump(task.id());
    task.abort();
    assert!(task.await.unwrap_err().is_cancelled());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn test_multi_thread() {
    assert_eq!(flavor_and_workers(), (RuntimeFlavor::MultiThread, 2));
    let task = tokio::spawn(std::future::pending::<()>());
    assert_in_rt_dump(task.id());
    task.abort();
}

#[tokio::test(flavor = "local")]
async fn test_local_runs_not_send_tasks() {
    let shared = std::rc::Rc::new(std::cell::Cell::new(0));
    let in_task = shared.clone();
    tokio::task::spawn_local(async move {
        tokio::task::yield_now().await;
        in_task.set(5);
    })
    .await
    .unwrap();
    assert_eq!(shared.get(), 5);
    assert_eq!(flavor_and_workers(), (RuntimeFlavor::CurrentThread, 1));
}

#[tokio::test(start_paused = true)]
async fn test_start_paused() {
    let start = tokio::time::Instant::now();
    tokio::time::sleep(Duration::from_secs(600)).await;
    assert!(start.elapsed() >= Duration::from_secs(600));
}

#[tokio::test(flavor = "local", start_paused = true)]
async fn test_local_start_paused() {
    let start = tokio::time::Instant::now();
    tokio::task::spawn_local(tokio::time::sleep(Duration::from_secs(600)))
        .await
        .unwrap();
    assert!(start.elapsed() >= Duration::from_secs(600));
}

mod renamed {
    pub(crate) mod my_tokio {
        pub(crate) use tokio::runtime;
    }

    #[tokio::main(flavor = "current_thread", crate = "self::my_tokio")]
    pub(crate) async fn through_alias() -> tokio::runtime::RuntimeFlavor {
        tokio::runtime::Handle::current().runtime_flavor()
    }
}

#[tokio::main]
async fn main_default() -> (RuntimeFlavor, usize) {
    flavor_and_workers()
}

#[tokio::main(flavor = "local")]
async fn main_local() -> i32 {
    let rc = std::rc::Rc::new(20);
    let in_task = rc.clone();
    tokio::task::spawn_local(async move { *in_task + 1 })
        .await
        .unwrap()
        + *rc
}

#[test]
fn main_builds_the_runtime_asked_for() {
    let cpus = std::thread::available_parallelism().map_or(1, usize::from);
    assert_eq!(main_default(), (RuntimeFlavor::MultiThread, cpus));
    assert_eq!(main_local(), 41);
    assert_eq!(renamed::through_alias(), RuntimeFlavor::CurrentThread);
    assert!(Handle::try_current().is_err());
}

tokio::task_local! {
    static REQUEST: u32;
}

#[tokio::test]
async fn function_like_macros() {
    // select!, with tokio's `biased;` and `else`.
    let (tx, rx) = tokio::sync::oneshot::channel();
    tx.send(7).unwrap();
    let got = tokio::select! {
        biased;
        v = rx => v.unwrap(),
        () = tokio::time::sleep(Duration::from_secs(3600)) => 0,
    };
    assert_eq!(got, 7);
    let none: Option<u32> = tokio::select! {
        Some(v) = async { None::<u32> } => Some(v),
        else => None,
    };
    assert_eq!(none, None);

    // join!, try_join!, pin!.
    let (a, b) = tokio::join!(async { 1 }, async { "two" });
    assert_eq!((a, b), (1, "two"));
    let joined: Result<(u8, u8), &str> = tokio::try_join!(async { Ok(1) }, async { Err("no") });
    assert_eq!(joined, Err("no"));
    let fut = async { 9 };
    tokio::pin!(fut);
    assert_eq!(fut.as_mut().await, 9);

    // task_local!
    let seen = REQUEST
        .scope(42, async {
            tokio::task::yield_now().await;
            REQUEST.get()
        })
        .await;
    assert_eq!(seen, 42);
}

#[tokio::test(name = "facade-named")]
async fn test_name() {
    assert_eq!(Handle::current().name(), Some("facade-named"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2, name = "facade-multi")]
async fn test_name_multi_thread() {
    assert_eq!(Handle::current().name(), Some("facade-multi"));
}

/// tokio's tests build futures with `tokio::macros::support::poll_fn`.
#[tokio::test]
async fn support_poll_fn_is_std_poll_fn() {
    let mut polls = 0;
    let out = tokio::macros::support::poll_fn(|cx| {
        polls += 1;
        if polls < 3 {
            cx.waker().wake_by_ref();
            std::task::Poll::Pending
        } else {
            std::task::Poll::Ready(polls)
        }
    })
    .await;
    assert_eq!(out, 3);
}
