//! `TOKIO_WORKER_THREADS` through the facade: every way of building a
//! multi-thread runtime without a worker count (`Builder`,
//! `Runtime::new`, `#[tokio::main]`, `#[tokio::test]`) takes it from the
//! variable, as tokio's do. The environment is process-wide, so each case
//! runs this test binary again with the variable set, on one of the
//! `child_*` tests, which print the worker count they got.

use std::process::{Command, Output};
use tokio::runtime::{Builder, Handle, Runtime};

/// Set in the child process: which runtime `child_built` builds.
const CASE: &str = "TOKIO_FACADE_ENV_CASE";

fn print_workers(workers: usize) {
    println!("workers={workers}");
}

/// Builds the runtime `TOKIO_FACADE_ENV_CASE` names; in a normal run
/// (the variable unset) there is nothing to check.
#[test]
fn child_built() {
    let Ok(case) = std::env::var(CASE) else {
        return;
    };
    let rt = match case.as_str() {
        "builder" => Builder::new_multi_thread().enable_all().build(),
        "runtime_new" => Runtime::new(),
        "explicit_two" => Builder::new_multi_thread().worker_threads(2).build(),
        "current_thread" => Builder::new_current_thread().build(),
        other => panic!("unknown case {other}"),
    }
    .unwrap();
    print_workers(rt.metrics().num_workers());
}

#[tokio::main]
async fn main_default() -> usize {
    Handle::current().metrics().num_workers()
}

#[test]
fn child_main() {
    if std::env::var_os(CASE).is_some() {
        print_workers(main_default());
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn child_test() {
    if std::env::var_os(CASE).is_some() {
        print_workers(Handle::current().metrics().num_workers());
    }
}

/// Runs the test `child` in a new process with `TOKIO_WORKER_THREADS`
/// set to `value` (and rt's own variable unset, so it cannot be what
/// answers).
fn run_child(child: &str, case: &str, value: &str) -> Output {
    Command::new(std::env::current_exe().unwrap())
        .args([child, "--exact", "--nocapture", "--test-threads=1"])
        .env(CASE, case)
        .env("TOKIO_WORKER_THREADS", value)
        .env_remove("RT_WORKER_THREADS")
        .output()
        .expect("running the test binary again")
}

/// The worker count the child printed; fails with its output if it failed.
fn workers(child: &str, case: &str, value: &str) -> usize {
    let output = run_child(child, case, value);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{child} ({case}) failed ({}):\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    // The harness prints `test child_... ... ` before the body's output.
    let count = stdout
        .split("workers=")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no worker count from {child} ({case}):\n{stdout}"));
    count.parse().unwrap()
}

#[test]
fn every_multi_thread_runtime_takes_its_worker_count_from_the_variable() {
    // 3: neither this machine's CPU count nor anyone's default.
    assert_eq!(workers("child_built", "builder", "3"), 3);
    assert_eq!(workers("child_built", "runtime_new", "3"), 3);
    assert_eq!(workers("child_main", "main", "3"), 3);
    assert_eq!(workers("child_test", "test", "3"), 3);
}

#[test]
fn an_explicit_worker_count_wins_and_current_thread_ignores_the_variable() {
    assert_eq!(workers("child_built", "explicit_two", "3"), 2);
    assert_eq!(workers("child_built", "explicit_two", "zero"), 2);
    assert_eq!(workers("child_built", "current_thread", "0"), 1);
}

#[test]
fn a_value_that_is_not_a_positive_integer_panics_naming_the_variable() {
    for value in ["0", "zero"] {
        let output = run_child("child_built", "builder", value);
        let all = format!(
            "{}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(!output.status.success(), "the child passed:\n{all}");
        assert!(
            all.contains("TOKIO_WORKER_THREADS") && all.contains(&format!("it is {value:?}")),
            "TOKIO_WORKER_THREADS={value:?}: {all}"
        );
    }
}
