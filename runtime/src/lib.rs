//! # rt — a multi-threaded, work-stealing async runtime
//!
//! `rt` runs Rust futures on a pool of worker threads. Each worker keeps a
//! local queue of tasks and a one-task LIFO slot for the task it woke last;
//! idle workers steal half of a busy worker's queue; tasks spawned from
//! outside go through a lock-free global injector. A current-thread
//! scheduler with the same API runs everything on one thread.
//!
//! The crate is laid out by concern:
//! - [`task`]: spawning, `JoinHandle`, cancellation, `JoinSet`,
//!   `TaskGroup` (structured concurrency), task priorities
//!   ([`task::Priority`]: latency-sensitive tasks ahead of bulk work on
//!   one runtime), the cooperative budget,
//!   task-local values ([`task_local!`]), `LocalSet` and `spawn_local`
//!   for `!Send` futures;
//! - [`sync`]: channels, locks, `Semaphore`, `Notify`, `watch`, `Barrier`;
//! - [`runtime`][mod@runtime]: `Builder`, `Runtime`, `Handle`;
//! - [`net`]: TCP, UDP and Unix sockets; [`io`]: the `AsyncRead`/`AsyncWrite`
//!   traits and their extension methods, `AsyncFd`; with feature `bytes`,
//!   tokio's methods over `bytes` buffers (`read_buf`, `write_all_buf`,
//!   `try_read_buf`, `recv_buf_from`, ...);
//! - [`time`]: `sleep`, `timeout`, `interval`, a pausable test clock;
//! - [`signal`]: Ctrl-C and Unix signals as streams;
//! - [`process`]: child processes with async pipes and exit;
//! - `hyper` (feature `hyper`): hyper's I/O, executor and timer traits on
//!   rt, so hyper, hyper-util and axum serve on rt;
//! - `sim` (feature `sim`): deterministic simulation testing, a seeded
//!   schedule with simulated time on one thread, replayable from its seed;
//! - macros with tokio's syntax: [`select!`], [`join!`], [`try_join!`],
//!   [`pin!`], and the [`main`](macro@main) and [`test`](macro@test)
//!   attributes;
//! - `spawn_blocking` and `task::block_in_place`: blocking work on a
//!   separate, growable thread pool (`blocking/pool.rs` documents its
//!   protocol), which also runs [`fs`] and `net::lookup_host`;
//! - diagnostics, built in: named tasks ([`task::Builder`]) and the spawn
//!   location of every task, [`RuntimeMetrics`](runtime::RuntimeMetrics),
//!   a live task dump ([`Handle::dump`](runtime::Handle::dump)) that
//!   can say what each idle task waits for and who holds the lock it
//!   waits on ([`Builder::track_waits`](runtime::Builder::track_waits)), a
//!   slow-poll watchdog with a leak report at shutdown
//!   ([`Builder::slow_poll_threshold`](runtime::Builder::slow_poll_threshold),
//!   or `RT_DEBUG=1` in the environment) that, tracking waits, also
//!   reports deadlocks by itself ([`Builder::on_deadlock`](runtime::Builder::on_deadlock)),
//!   and with feature `tracing` a span per task;
//! - the schedulers (private): `scheduler::multi_thread` documents the
//!   work-stealing protocol step by step.
//!
//! ## Example
//!
//! ```
//! use rt::runtime::Runtime;
//!
//! let rt = Runtime::new().unwrap();
//! let total: u64 = rt.block_on(async {
//!     let tasks: Vec<_> = (0..100u64).map(|i| rt::spawn(async move { i * i })).collect();
//!     let mut total = 0;
//!     for task in tasks {
//!         total += task.await.unwrap();
//!     }
//!     total
//! });
//! assert_eq!(total, 328_350);
//! ```

#![warn(missing_docs)]

pub(crate) mod loom;

#[doc(hidden)]
pub mod macros;

mod blocking;
mod driver;
pub mod fs;
#[cfg(feature = "hyper")]
pub mod hyper;
pub mod io;
pub mod net;
pub mod process;
pub mod runtime;
mod scheduler;
pub mod signal;
#[cfg(feature = "sim")]
pub mod sim;
pub mod sync;
pub mod task;
pub mod time;

pub use blocking::spawn_blocking;
pub use runtime::spawn::spawn;

/// Runs `async fn main` on a new runtime: the function becomes a plain
/// `fn main` that builds a multi-thread runtime with every driver enabled
/// and blocks on the body.
///
/// Arguments (all optional):
/// - `flavor = "multi_thread"` (the default), `"current_thread"` or
///   `"local"` (a [`LocalRuntime`](runtime::LocalRuntime): the body may
///   spawn `!Send` tasks with [`task::spawn_local`]);
/// - `worker_threads = N` (multi-thread only; default: the value of the
///   environment variable `RT_WORKER_THREADS`, else one per CPU);
/// - `start_paused = true` (current-thread and local only): the clock
///   starts paused;
/// - `name = "..."`: the runtime's name ([`Handle::name`](runtime::Handle::name));
/// - `crate = "path"`: how to name this crate if it was renamed (default
///   `::rt`).
///
/// The function may return anything `main` may, such as
/// `Result<(), Box<dyn Error>>`: `?` and `return` in the body take the
/// declared return type, as in any `async fn`. `main` takes no arguments;
/// on any other function (a method taking `self`, a helper with
/// parameters or generics) they are kept, and each call builds a runtime
/// and runs the body on it, the parameters moved into the body.
///
/// # Panics
///
/// The generated `main` panics if the runtime cannot be built (the OS
/// refused a worker thread).
///
/// # Examples
///
/// ```
/// #[rt::main(worker_threads = 2)]
/// async fn main() -> Result<(), rt::task::JoinError> {
///     let answer = rt::spawn(async { 42 }).await?;
///     assert_eq!(answer, 42);
///     Ok(())
/// }
/// ```
///
/// A blocking method over an async body:
///
/// ```
/// struct Fetcher {
///     base: u32,
/// }
///
/// impl Fetcher {
///     #[rt::main(flavor = "current_thread")]
///     async fn fetch(&self, offset: u32) -> u32 {
///         rt::spawn(async move { offset }).await.unwrap() + self.base
///     }
/// }
///
/// assert_eq!(Fetcher { base: 40 }.fetch(2), 42);
/// ```
#[doc(inline)]
pub use rt_macros::main;

/// Runs an `async fn` test on a new runtime: like [`main`](macro@main),
/// plus `#[test]`, and on a current-thread runtime unless
/// `flavor = "multi_thread"` is given. Takes the same arguments.
///
/// Other attributes (`#[should_panic]`, `#[ignore]`) pass through; a test
/// returning `Err` fails, as a plain `#[test]` does.
///
/// # Panics
///
/// The generated test panics if the runtime cannot be built.
///
/// # Examples
///
/// ```no_run
/// #[rt::test]
/// async fn spawns() {
///     assert_eq!(rt::spawn(async { 1 }).await.unwrap(), 1);
/// }
///
/// #[rt::test(flavor = "multi_thread", worker_threads = 2)]
/// async fn on_two_workers() {
///     let handle = rt::runtime::Handle::current();
///     assert_eq!(handle.metrics().num_workers(), 2);
/// }
/// # fn main() {}
/// ```
#[doc(inline)]
pub use rt_macros::test;

#[cfg(test)]
fn _assert_send_sync() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<runtime::Runtime>();
    send_sync::<runtime::Handle>();
    send_sync::<runtime::Deadlock>();
    send_sync::<runtime::SlowPoll>();
    send_sync::<task::JoinHandle<()>>();
    send_sync::<task::AbortHandle>();
    send_sync::<task::JoinError>();
    send_sync::<net::TcpStream>();
    send_sync::<net::TcpListener>();
    send_sync::<net::UdpSocket>();
    send_sync::<net::UnixStream>();
    send_sync::<net::tcp::OwnedReadHalf>();
    send_sync::<io::AsyncFd<std::os::unix::net::UnixStream>>();
    send_sync::<io::DuplexStream>();
    send_sync::<io::Stdin>();
    send_sync::<io::Stdout>();
    send_sync::<io::Lines<io::BufReader<net::TcpStream>>>();
    send_sync::<signal::unix::Signal>();
    send_sync::<time::Sleep>();
    send_sync::<time::Interval>();
    send_sync::<time::Timeout<std::future::Ready<()>>>();
    send_sync::<fs::File>();
    send_sync::<fs::ReadDir>();
    send_sync::<fs::DirEntry>();
    send_sync::<sync::Semaphore>();
    send_sync::<sync::Notify>();
    send_sync::<sync::Notified<'_>>();
    send_sync::<sync::OwnedNotified>();
    send_sync::<sync::Mutex<Vec<u8>>>();
    send_sync::<sync::RwLock<Vec<u8>>>();
    send_sync::<sync::OwnedRwLockReadGuard<Vec<u8>, [u8]>>();
    send_sync::<sync::OwnedRwLockMappedWriteGuard<Vec<u8>, [u8]>>();
    send_sync::<sync::Barrier>();
    send_sync::<sync::mpsc::Sender<Box<u8>>>();
    send_sync::<sync::mpsc::Receiver<Box<u8>>>();
    send_sync::<sync::mpsc::UnboundedSender<Box<u8>>>();
    send_sync::<sync::mpsc::UnboundedReceiver<Box<u8>>>();
    send_sync::<sync::mpsc::Permit<'static, Box<u8>>>();
    send_sync::<sync::mpsc::OwnedPermit<Box<u8>>>();
    send_sync::<sync::oneshot::Sender<Box<u8>>>();
    send_sync::<sync::oneshot::Receiver<Box<u8>>>();
    send_sync::<sync::watch::Sender<Vec<u8>>>();
    send_sync::<sync::watch::Receiver<Vec<u8>>>();
    send_sync::<task::JoinSet<u8>>();
    send_sync::<task::TaskGroup<String>>();
    send_sync::<process::Command>();
    send_sync::<process::Child>();
    send_sync::<process::ChildStdin>();
    send_sync::<process::ChildStdout>();
    send_sync::<process::ChildStderr>();
    #[cfg(feature = "hyper")]
    {
        send_sync::<hyper::Io<net::TcpStream>>();
        send_sync::<hyper::Io<net::UnixStream>>();
        send_sync::<hyper::Executor>();
        send_sync::<hyper::Timer>();
    }
}

/// The futures of the sync primitives can be spawned (are `Send`).
#[allow(clippy::too_many_arguments)]
#[cfg(test)]
fn _assert_futures_send(
    mutex: &sync::Mutex<Vec<u8>>,
    rwlock: &sync::RwLock<Vec<u8>>,
    semaphore: &sync::Semaphore,
    notify: &sync::Notify,
    tx: &sync::mpsc::Sender<Box<u8>>,
    rx: &mut sync::mpsc::Receiver<Box<u8>>,
    watch: &mut sync::watch::Receiver<Vec<u8>>,
    barrier: &sync::Barrier,
    set: &mut task::JoinSet<u8>,
) {
    fn send<T: Send>(_: T) {}
    send(mutex.lock());
    send(rwlock.read());
    send(rwlock.write());
    send(semaphore.acquire_many(2));
    send(notify.notified());
    send(tx.send(Box::new(1)));
    send(tx.reserve());
    send(rx.recv());
    send(watch.changed());
    send(barrier.wait());
    send(set.join_next());
    send(task::TaskGroup::<()>::scope(|_| async { Ok(()) }));
    send(process::Command::new("true").output());
    send(process::Command::new("true").status());
}
