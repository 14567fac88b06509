//! Helpers shared by the ecosystem tests: how a test shows that the code
//! it ran (its own and its dependencies') ran on rt, and a bound on every
//! wait.
//!
//! Naming `tokio::__rt` is itself a check: real tokio has no such item, so
//! this crate does not compile when the `[patch.crates-io]` did not apply.

use std::collections::HashSet;
use std::future::Future;
use std::time::Duration;
use tokio::__rt;

/// The ids of the current rt runtime's live tasks, from rt's task dump.
///
/// # Panics
///
/// Panics outside an rt runtime.
pub fn rt_task_ids() -> HashSet<tokio::task::Id> {
    __rt::runtime::Handle::current()
        .dump()
        .tasks()
        .iter()
        .map(|task| task.id())
        .collect()
}

/// How many live tasks rt's task dump lists for the current runtime.
///
/// # Panics
///
/// Panics outside an rt runtime.
pub fn rt_task_count() -> usize {
    __rt::runtime::Handle::current().dump().tasks().len()
}

/// Asserts that rt's task dump lists the task `id`.
///
/// # Panics
///
/// Panics if it does not, or outside an rt runtime.
pub fn assert_rt_runs(id: tokio::task::Id) {
    let dump = __rt::runtime::Handle::current().dump();
    assert!(
        dump.tasks().iter().any(|task| task.id() == id),
        "task {id} is not in rt's dump: {dump:?}"
    );
}

/// The bound on every wait in these tests: long enough for a loaded CI
/// machine, short enough that a hang fails the test instead of the job.
pub const BOUND: Duration = Duration::from_secs(60);

/// Awaits `future`, failing the test if it is not done within [`BOUND`]
/// (`tokio::time::timeout`, that is rt's timer wheel). Tests on a paused
/// clock do no real I/O, so the clock's auto-advance cannot fire it early.
///
/// # Panics
///
/// Panics, naming `what`, if the future is not done in time.
pub async fn bounded<F: Future>(what: &str, future: F) -> F::Output {
    match tokio::time::timeout(BOUND, future).await {
        Ok(output) => output,
        Err(_) => panic!("{what}: not done after {BOUND:?}"),
    }
}

/// Connects to `addr` until refused: a server's accept loop ended and
/// dropped its listener (a connection made as it closes may be reset).
///
/// # Panics
///
/// Panics on any other connect error, or if the listener is still open
/// after the bound on every wait.
pub async fn listener_closed(addr: std::net::SocketAddr) {
    bounded("the listener closed", async {
        loop {
            match tokio::net::TcpStream::connect(addr).await {
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => break,
                Err(e) => assert_eq!(e.kind(), std::io::ErrorKind::ConnectionReset),
                Ok(_) => {}
            }
            tokio::task::yield_now().await;
        }
    })
    .await;
}

/// How many of the current rt runtime's live tasks were spawned from a
/// source file whose path contains `path` (a dependency's directory in
/// cargo's registry, `"/redis-"`): that dependency's own tasks, in rt's
/// dump.
///
/// # Panics
///
/// Panics outside an rt runtime.
pub fn rt_tasks_spawned_in(path: &str) -> usize {
    __rt::runtime::Handle::current()
        .dump()
        .tasks()
        .iter()
        .filter(|task| task.location().file().contains(path))
        .count()
}
