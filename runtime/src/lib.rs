//! # rt — a multi-threaded, work-stealing async runtime
//!
//! `rt` runs Rust futures on a pool of worker threads. Each worker keeps a
//! local queue of tasks and a one-task LIFO slot for the task it woke last;
//! idle workers steal half of a busy worker's queue; tasks spawned from
//! outside go through a lock-free global injector. A current-thread
//! scheduler with the same API runs everything on one thread.
//!
//! The crate is laid out by concern:
//! - [`task`]: spawning, [`JoinHandle`](task::JoinHandle), cancellation,
//!   [`JoinSet`](task::JoinSet), [`TaskGroup`](task::TaskGroup), the
//!   cooperative budget;
//! - [`sync`]: channels, locks, [`Semaphore`](sync::Semaphore),
//!   [`Notify`](sync::Notify);
//! - [`runtime`] holds [`Builder`](runtime::Builder),
//!   [`Runtime`](runtime::Runtime), [`Handle`](runtime::Handle);
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

mod driver;
pub mod runtime;
mod scheduler;
pub mod sync;
pub mod task;

pub use runtime::spawn::spawn;

#[cfg(test)]
fn _assert_send_sync() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<runtime::Runtime>();
    send_sync::<runtime::Handle>();
    send_sync::<task::JoinHandle<()>>();
    send_sync::<task::AbortHandle>();
    send_sync::<task::JoinError>();
    send_sync::<sync::Semaphore>();
    send_sync::<sync::Notify>();
    send_sync::<sync::Mutex<Vec<u8>>>();
    send_sync::<sync::RwLock<Vec<u8>>>();
    send_sync::<sync::Barrier>();
    send_sync::<sync::mpsc::Sender<Box<u8>>>();
    send_sync::<sync::mpsc::Receiver<Box<u8>>>();
    send_sync::<sync::mpsc::UnboundedSender<Box<u8>>>();
    send_sync::<sync::oneshot::Sender<Box<u8>>>();
    send_sync::<sync::oneshot::Receiver<Box<u8>>>();
    send_sync::<sync::watch::Sender<Vec<u8>>>();
    send_sync::<sync::watch::Receiver<Vec<u8>>>();
    send_sync::<task::JoinSet<u8>>();
    send_sync::<task::TaskGroup<String>>();
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
}
