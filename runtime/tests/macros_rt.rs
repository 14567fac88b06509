//! `#[rt::main]` and `#[rt::test]` at run time: the runtime they build is the
//! one asked for, panics and errors reach the test harness.

use rt::runtime::{Handle, RuntimeFlavor};
use std::process::Command;

fn flavor_and_workers() -> (RuntimeFlavor, usize) {
    let handle = Handle::current();
    (handle.runtime_flavor(), handle.metrics().num_workers())
}

#[rt::test]
async fn test_defaults_to_current_thread() {
    assert_eq!(flavor_and_workers(), (RuntimeFlavor::CurrentThread, 1));
    // The body really is driven: a spawned task completes.
    assert_eq!(rt::spawn(async { 5 }).await.unwrap(), 5);
}

#[rt::test(flavor = "current_thread")]
async fn test_current_thread_explicit() {
    assert_eq!(flavor_and_workers(), (RuntimeFlavor::CurrentThread, 1));
}

#[rt::test(flavor = "multi_thread", worker_threads = 3)]
async fn test_multi_thread_worker_count() {
    assert_eq!(flavor_and_workers(), (RuntimeFlavor::MultiThread, 3));
    // A spawned task runs on one of the workers, not on the test thread.
    let test_thread = std::thread::current().id();
    let task_thread = rt::spawn(async { std::thread::current().id() })
        .await
        .unwrap();
    assert_ne!(task_thread, test_thread);
}

#[rt::test(flavor = "multi_thread")]
async fn test_multi_thread_defaults_to_one_worker_per_cpu() {
    let (flavor, workers) = flavor_and_workers();
    assert_eq!(flavor, RuntimeFlavor::MultiThread);
    assert_eq!(workers, num_cpus::get());
}

#[rt::test(flavor = "current_thread", start_paused = true)]
async fn test_start_paused_builds_a_current_thread_runtime() {
    assert_eq!(flavor_and_workers(), (RuntimeFlavor::CurrentThread, 1));
}

#[rt::test]
#[should_panic(expected = "boom from the test body")]
async fn test_panic_reaches_should_panic() {
    rt::task::yield_now().await;
    panic!("boom from the test body");
}

#[rt::test(flavor = "multi_thread", worker_threads = 2)]
#[should_panic(expected = "boom on multi_thread")]
async fn test_panic_reaches_should_panic_on_multi_thread() {
    rt::task::yield_now().await;
    panic!("boom on multi_thread");
}

#[rt::test]
async fn test_result_ok_passes() -> Result<(), rt::task::JoinError> {
    // `?` works in the body: the error type comes from the signature.
    let value = rt::spawn(async { 3 }).await?;
    assert_eq!(value, 3);
    Ok(())
}

/// Set in the child process that runs `err_return_case` for real.
const RUN_FAILING_CASE: &str = "RT_MACROS_RUN_FAILING_CASE";

/// Returns `Err` when run by `returning_err_fails_the_test` in a child test
/// process (where that must fail the test); passes in a normal run, as
/// there it has nothing to check by itself.
#[rt::test]
async fn err_return_case() -> Result<(), String> {
    if std::env::var_os(RUN_FAILING_CASE).is_none() {
        return Ok(());
    }
    rt::task::yield_now().await;
    Err("the body returned Err".to_owned())
}

/// A `#[rt::test]` returning `Err` fails: run this test binary again on
/// just `err_return_case`, with the switch that makes it return `Err`, and
/// check that the harness reports that test as failed with the error.
#[test]
fn returning_err_fails_the_test() {
    let output = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "err_return_case",
            "--test-threads=1",
            "--nocapture",
        ])
        .env(RUN_FAILING_CASE, "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !output.status.success(),
        "the child run passed:\n{stdout}\n{stderr}"
    );
    assert!(
        stdout.contains("err_return_case ... FAILED"),
        "stdout:\n{stdout}\nstderr:\n{stderr}"
    );
    assert!(
        stdout.contains("the body returned Err") || stderr.contains("the body returned Err"),
        "the error is not reported:\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains("1 failed"), "stdout:\n{stdout}");
}

/// `#[rt::main]` also works on a function not named `main`, which lets a
/// test call it: it builds a multi-thread runtime by default.
#[rt::main]
async fn main_default() -> (RuntimeFlavor, usize) {
    flavor_and_workers()
}

#[rt::main(worker_threads = 2)]
async fn main_two_workers() -> (RuntimeFlavor, usize) {
    let (flavor, workers) = flavor_and_workers();
    // The body runs on the calling thread while tasks run on the workers.
    let task_thread = rt::spawn(async { std::thread::current().id() })
        .await
        .unwrap();
    assert_ne!(task_thread, std::thread::current().id());
    (flavor, workers)
}

#[rt::main(flavor = "current_thread")]
async fn main_current_thread() -> Result<(RuntimeFlavor, usize), rt::task::JoinError> {
    let spawned = rt::spawn(async { std::thread::current().id() }).await?;
    assert_eq!(spawned, std::thread::current().id());
    Ok(flavor_and_workers())
}

#[rt::main(flavor = "current_thread")]
async fn main_returns_err() -> Result<(), String> {
    Err("main failed".to_owned())
}

#[test]
fn main_builds_the_runtime_asked_for() {
    let cpus = num_cpus::get();
    assert_eq!(main_default(), (RuntimeFlavor::MultiThread, cpus));
    assert_eq!(main_two_workers(), (RuntimeFlavor::MultiThread, 2));
    assert_eq!(
        main_current_thread().unwrap(),
        (RuntimeFlavor::CurrentThread, 1)
    );
    assert_eq!(main_returns_err(), Err("main failed".to_owned()));
    // Each call built and shut down its own runtime: none is left current.
    assert!(Handle::try_current().is_err());
}

mod renamed {
    // The macros reach the runtime through `crate = ".."` when `rt` is not
    // at `::rt` from the caller's point of view.
    pub(crate) mod runtime_alias {
        pub(crate) use rt::runtime;
    }

    #[rt::main(flavor = "current_thread", crate = "self::runtime_alias")]
    pub(crate) async fn through_alias() -> rt::runtime::RuntimeFlavor {
        rt::runtime::Handle::current().runtime_flavor()
    }

    #[rt::test(crate = "crate::renamed::runtime_alias")]
    async fn test_through_alias() {
        rt::task::yield_now().await;
    }
}

#[test]
fn main_with_crate_path() {
    assert_eq!(renamed::through_alias(), RuntimeFlavor::CurrentThread);
}

/// `flavor = "local"` builds a `LocalRuntime`: `spawn_local` takes a
/// `!Send` task straight from the body (it panics outside a `LocalSet` on
/// any other runtime), and the task runs on the test's own thread.
#[rt::test(flavor = "local")]
async fn test_local_flavor_runs_not_send_tasks() {
    let shared = std::rc::Rc::new(std::cell::Cell::new(0));
    let in_task = shared.clone();
    let test_thread = std::thread::current().id();
    let task_thread = rt::task::spawn_local(async move {
        rt::task::yield_now().await;
        in_task.set(in_task.get() + 1);
        std::thread::current().id()
    })
    .await
    .unwrap();
    assert_eq!(shared.get(), 1);
    assert_eq!(task_thread, test_thread);
    assert_eq!(flavor_and_workers(), (RuntimeFlavor::CurrentThread, 1));
}

/// `start_paused` applies to the local flavor too: a long sleep completes
/// at once, on the auto-advanced clock.
#[rt::test(flavor = "local", start_paused = true)]
async fn test_local_flavor_start_paused() {
    let start = rt::time::Instant::now();
    rt::task::spawn_local(rt::time::sleep(std::time::Duration::from_secs(3600)))
        .await
        .unwrap();
    assert!(start.elapsed() >= std::time::Duration::from_secs(3600));
}

#[rt::main(flavor = "local")]
async fn main_local() -> usize {
    let value = std::rc::Rc::new(7);
    let in_task = value.clone();
    rt::task::spawn_local(async move { *in_task })
        .await
        .unwrap()
        + *value
}

#[test]
fn main_local_flavor_runs_not_send_tasks() {
    assert_eq!(main_local(), 14);
    assert!(Handle::try_current().is_err());
}

/// `name = ".."` names the runtime (`Builder::name`), on every flavor.
#[rt::test(name = "named-test")]
async fn test_name_names_the_runtime() {
    assert_eq!(Handle::current().name(), Some("named-test"));
}

#[rt::test(flavor = "multi_thread", worker_threads = 2, name = "named-multi")]
async fn test_name_on_multi_thread() {
    assert_eq!(Handle::current().name(), Some("named-multi"));
}

#[rt::test(flavor = "local", name = "named-local")]
async fn test_name_on_local() {
    assert_eq!(Handle::current().name(), Some("named-local"));
}
