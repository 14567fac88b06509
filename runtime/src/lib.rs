//! # rt — a multi-threaded, work-stealing async runtime
//!
//! `rt` runs Rust futures on a pool of worker threads. Each worker keeps a
//! local queue of tasks and a one-task LIFO slot for the task it woke last;
//! idle workers steal half of a busy worker's queue; tasks spawned from
//! outside go through a lock-free global injector. A current-thread
//! scheduler with the same API runs everything on one thread.
//!
//! The crate is laid out by concern:
//! - [`task`]: spawning, `JoinHandle`, cancellation, the cooperative
//!   budget;
//! - [`runtime`][mod@runtime]: `Builder`, `Runtime`, `Handle`;
//! - [`net`]: TCP, UDP and Unix sockets; [`io`]: the `AsyncRead`/`AsyncWrite`
//!   traits and their extension methods, `AsyncFd`;
//! - [`time`]: `sleep`, `timeout`, `interval`, a pausable test clock;
//! - [`signal`]: Ctrl-C and Unix signals as streams;
//! - `spawn_blocking` and `task::block_in_place`: blocking work on a
//!   separate, growable thread pool (`blocking/pool.rs` documents its
//!   protocol), which also runs [`fs`] and `net::lookup_host`;
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

mod blocking;
mod driver;
pub mod fs;
pub mod io;
pub mod net;
pub mod runtime;
mod scheduler;
pub mod signal;
pub mod task;
pub mod time;

pub use blocking::spawn_blocking;
pub use runtime::spawn::spawn;

#[cfg(test)]
fn _assert_send_sync() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<runtime::Runtime>();
    send_sync::<runtime::Handle>();
    send_sync::<task::JoinHandle<()>>();
    send_sync::<task::AbortHandle>();
    send_sync::<task::JoinError>();
    send_sync::<net::TcpStream>();
    send_sync::<net::TcpListener>();
    send_sync::<net::UdpSocket>();
    send_sync::<net::UnixStream>();
    send_sync::<net::tcp::OwnedReadHalf>();
    send_sync::<io::AsyncFd<std::os::unix::net::UnixStream>>();
    send_sync::<signal::unix::Signal>();
    send_sync::<time::Sleep>();
    send_sync::<time::Interval>();
    send_sync::<time::Timeout<std::future::Ready<()>>>();
    send_sync::<fs::File>();
    send_sync::<fs::ReadDir>();
    send_sync::<fs::DirEntry>();
}
