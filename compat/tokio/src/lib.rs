//! tokio's stable public API on the rt runtime.
//!
//! Patch a workspace's graph onto rt with one section in its `Cargo.toml`:
//!
//! ```toml
//! [patch.crates-io]
//! tokio = { path = "<rt checkout>/compat/tokio" }
//! ```
//!
//! Every crate in the graph that names `tokio` then runs on rt's one
//! runtime: its scheduler, reactor, timer wheel and blocking pool. Types
//! whose shape is already tokio's are rt's own, re-exported; the I/O types,
//! whose traits differ (tokio's `AsyncRead` fills a `ReadBuf`), are
//! newtypes with `From` both ways to rt's.
//!
//! # Features
//!
//! Every feature name tokio has is here (cargo ignores a patch that lacks
//! a requested one), and modules are gated like tokio's, so a crate that
//! forgets a feature fails here as it would against tokio: `rt` for
//! [`runtime`], [`spawn`] and the task functions, `rt-multi-thread` for
//! `Builder::new_multi_thread` and `block_in_place`, `time`, `sync`,
//! `signal`, `macros` for `select!`/`join!`/`try_join!` and (with `rt`)
//! `#[tokio::main]`/`#[tokio::test]`, `test-util` for `time::pause`,
//! `advance`, `resume` and `Builder::start_paused`. rt itself always has
//! every driver; the features only decide what this crate exposes.
//!
//! # Seeing that it runs on rt
//!
//! `Handle::runtime_flavor()` proves nothing (tokio returns the same
//! values). rt's task dump does: every task a dependency spawns is
//! listed in it.
//!
//! ```
//! # #[cfg(all(feature = "rt", feature = "macros"))]
//! # {
//! #[tokio::main(flavor = "current_thread")]
//! async fn main() {
//!     let task = tokio::spawn(std::future::pending::<()>());
//!     let dump = tokio::__rt::runtime::Handle::current().dump();
//!     assert!(dump.tasks().iter().any(|t| t.id() == task.id()));
//!     task.abort();
//! }
//! # main();
//! # }
//! ```

#[cfg(feature = "fs")]
pub mod fs;
pub mod io;
#[cfg(feature = "net")]
pub mod net;
#[cfg(any(feature = "fs", feature = "net"))]
mod os_error;
#[cfg(feature = "process")]
pub mod process;
#[cfg(feature = "rt")]
pub mod runtime;
#[cfg(feature = "signal")]
pub mod signal;
#[cfg(feature = "sync")]
pub mod sync;
pub mod task;
#[cfg(feature = "time")]
pub mod time;

#[cfg(feature = "rt")]
pub use rt::spawn;

/// rt itself, for code that wants to see that it runs on rt (its task
/// dump, its metrics): `tokio::__rt::runtime::Handle::current().dump()`.
/// Real tokio has no such item, so naming it also fails to compile when a
/// `[patch.crates-io]` did not apply.
#[doc(hidden)]
pub use rt as __rt;

pub use rt::pin;
#[cfg(feature = "macros")]
pub use rt::{join, select, try_join};

/// What tokio's macro expansions and tests name by path
/// (`tokio::macros::support::poll_fn`). Not an API of its own.
#[cfg(feature = "macros")]
#[doc(hidden)]
pub mod macros {
    /// Items under tokio's `macros::support` path.
    pub mod support {
        pub use std::future::{Future, IntoFuture, poll_fn};
        pub use std::pin::Pin;
        pub use std::task::{Context, Poll, ready};

        /// A number in `0..n` (`0` when `n` is `0`) from the generator
        /// rt's `select!` draws its first branch from (a simulation's
        /// seeded one inside `rt::sim`): tokio's `thread_rng_n`, which
        /// its `select!` expansion and tests call.
        ///
        /// # Examples
        ///
        /// ```
        /// assert!(tokio::macros::support::thread_rng_n(10) < 10);
        /// assert_eq!(tokio::macros::support::thread_rng_n(0), 0);
        /// ```
        pub fn thread_rng_n(n: u32) -> u32 {
            if n == 0 {
                return 0;
            }
            // `random_start(n)` is below `n`, so it fits back in a `u32`.
            rt::macros::support::random_start(n as usize) as u32
        }
    }
}

/// Runs `async fn main` on a new rt runtime: tokio's `#[tokio::main]`,
/// expanding to `::tokio::runtime::Builder` calls.
///
/// Arguments: `flavor = "multi_thread"` (the default), `"current_thread"`
/// or `"local"` (a [`LocalRuntime`](runtime::LocalRuntime): `!Send` tasks
/// may be spawned with `spawn_local`); `worker_threads = N`
/// (multi-thread); `start_paused = true` (current-thread and local);
/// `name = "..."` (the runtime's name, `Handle::name`); `crate = "path"`
/// when `tokio` is renamed. tokio's unstable
/// `unhandled_panic` is refused with a compile error.
///
/// # Examples
///
/// ```
/// #[tokio::main(flavor = "current_thread")]
/// async fn main() {
///     assert_eq!(tokio::spawn(async { 3 }).await.unwrap(), 3);
/// }
/// ```
#[cfg(all(feature = "macros", feature = "rt-multi-thread"))]
pub use rt_macros::tokio_main as main;
/// Runs an `async fn` test on a new rt runtime (current-thread unless
/// `flavor` says otherwise): tokio's `#[tokio::test]`, with
/// [`main`](macro@main)'s arguments.
///
/// # Examples
///
/// ```no_run
/// #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
/// async fn two_workers() {
///     let metrics = tokio::runtime::Handle::current().metrics();
///     assert_eq!(metrics.num_workers(), 2);
/// }
/// ```
#[cfg(all(feature = "macros", feature = "rt-multi-thread"))]
pub use rt_macros::tokio_test as test;

/// Runs `async fn main` on a new rt runtime: tokio's `#[tokio::main]`
/// without the `rt-multi-thread` feature, so only `flavor =
/// "current_thread"` and `"local"` are accepted.
#[cfg(all(feature = "macros", feature = "rt", not(feature = "rt-multi-thread")))]
pub use rt_macros::tokio_main_rt as main;
/// Runs an `async fn` test on a new current-thread rt runtime: tokio's
/// `#[tokio::test]` without the `rt-multi-thread` feature.
#[cfg(all(feature = "macros", feature = "rt", not(feature = "rt-multi-thread")))]
pub use rt_macros::tokio_test_rt as test;

/// tokio's `#[tokio::main]` without the `rt` feature: a compile error
/// naming the feature to enable.
#[cfg(all(feature = "macros", not(feature = "rt")))]
pub use rt_macros::tokio_main_fail as main;
/// tokio's `#[tokio::test]` without the `rt` feature: a compile error
/// naming the feature to enable.
#[cfg(all(feature = "macros", not(feature = "rt")))]
pub use rt_macros::tokio_test_fail as test;
