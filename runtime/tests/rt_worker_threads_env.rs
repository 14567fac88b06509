//! `RT_WORKER_THREADS`: the worker count of a multi-thread runtime whose
//! builder was not given one. The environment is process-wide, so each
//! case runs this test binary again with the variable set, on just the
//! `child` test, which builds a runtime as `RT_ENV_CASE` says and prints
//! its worker count.

use rt::runtime::Builder;
use std::ffi::OsStr;
use std::process::{Command, Output};

/// Set in the child process: which runtime `child` builds.
const CASE: &str = "RT_ENV_CASE";

/// In a normal run there is nothing to check here: the parents below run
/// it with `RT_ENV_CASE` set.
#[test]
fn child() {
    let Ok(case) = std::env::var(CASE) else {
        return;
    };
    let rt = match case.as_str() {
        "multi_thread" => Builder::new_multi_thread().build(),
        "runtime_new" => rt::runtime::Runtime::new(),
        "explicit_two" => Builder::new_multi_thread().worker_threads(2).build(),
        "current_thread" => Builder::new_current_thread().build(),
        other => panic!("unknown case {other}"),
    }
    .unwrap();
    println!("workers={}", rt.metrics().num_workers());
}

/// Runs `child` in a new process with `RT_WORKER_THREADS` set to `value`.
fn run_child(case: &str, value: impl AsRef<OsStr>) -> Output {
    Command::new(std::env::current_exe().unwrap())
        .args(["child", "--exact", "--nocapture", "--test-threads=1"])
        .env(CASE, case)
        .env("RT_WORKER_THREADS", value)
        .output()
        .expect("running the test binary again")
}

/// The worker count the child printed; fails with its output if it failed.
fn workers(case: &str, value: &str) -> usize {
    let output = run_child(case, value);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the child failed ({}):\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    // The harness prints `test child ... ` before the body's output.
    let count = stdout
        .split("workers=")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no worker count in:\n{stdout}"));
    count.parse().unwrap()
}

/// The panic message of a child that must panic.
fn panic_message(case: &str, value: impl AsRef<OsStr>) -> String {
    let output = run_child(case, value);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !output.status.success(),
        "the child passed:\n{stdout}\n{stderr}"
    );
    format!("{stdout}\n{stderr}")
}

#[test]
fn the_variable_sets_the_default_worker_count() {
    // 3 is no CPU count of this machine's, nor the default of anything.
    assert_eq!(workers("multi_thread", "3"), 3);
    assert_eq!(workers("runtime_new", "3"), 3);
    assert_eq!(workers("multi_thread", "1"), 1);
}

#[test]
fn an_explicit_worker_count_wins_and_a_bad_value_is_then_not_read() {
    assert_eq!(workers("explicit_two", "3"), 2);
    assert_eq!(workers("explicit_two", "many"), 2);
}

#[test]
fn a_current_thread_runtime_ignores_the_variable() {
    assert_eq!(workers("current_thread", "3"), 1);
    assert_eq!(workers("current_thread", "0"), 1);
}

#[test]
fn a_value_that_is_not_a_positive_integer_panics_naming_it() {
    for value in ["0", "many", "-1", "", " 4"] {
        let message = panic_message("multi_thread", value);
        assert!(
            message.contains("RT_WORKER_THREADS") && message.contains("positive integer"),
            "RT_WORKER_THREADS={value:?}: {message}"
        );
        assert!(
            message.contains(&format!("it is {value:?}")),
            "RT_WORKER_THREADS={value:?}: the value is not named: {message}"
        );
    }
}

#[cfg(unix)]
#[test]
fn a_value_that_is_not_unicode_panics_naming_the_variable() {
    use std::os::unix::ffi::OsStrExt;

    let message = panic_message("multi_thread", OsStr::from_bytes(b"4\xff"));
    assert!(
        message.contains("RT_WORKER_THREADS") && message.contains("not even valid unicode"),
        "{message}"
    );
}
