//! Async synchronisation: channels and locks that suspend the task, never
//! the thread.
//!
//! - [`oneshot`]: one value, once; [`mpsc`]: many producers, one
//!   consumer, bounded or unbounded; [`broadcast`]: many producers, every
//!   value to every consumer; [`watch`]: the latest value, many readers.
//! - [`Semaphore`] (fair, FIFO), [`Mutex`] and [`RwLock`] (built on it,
//!   hence fair and, for `RwLock`, writer-preferring), [`Notify`],
//!   [`Barrier`].
//!
//! They work on any `rt` runtime and, since they need nothing from the
//! runtime beyond a waker, under any executor too. Inside an `rt` task
//! every ready operation spends a unit of the cooperative budget, except,
//! as in tokio, `Notify`'s futures, the leader's `Barrier::wait` and the
//! `mpsc` and `broadcast` senders' `closed`, which spend none.
//!
//! Synchronous code (a plain thread, a `spawn_blocking` job) uses the
//! `blocking_*` methods: `mpsc` `blocking_send`/`blocking_recv`,
//! `oneshot` and `broadcast` `blocking_recv`, `Mutex::blocking_lock`,
//! `RwLock::{blocking_read, blocking_write}`,
//! `Semaphore::{blocking_acquire, blocking_acquire_many}`.
//! They panic on a thread that runs tasks, where blocking would stall it.
//!
//! Each primitive keeps its waiters in a FIFO list under a short-held
//! mutex (`wait_list.rs`) and wakes them after releasing it. Nor does it
//! drop a waker under that mutex (one it replaces on a re-poll, or one
//! whose waiter is dropped): a waker's destructor may run user code that
//! uses the same primitive. A lock or semaphore acquire that has to wait
//! takes its place in line whatever the task's budget, spends none and is
//! not woken by a forced yield: the budget is checked once the permits
//! are its own (as in tokio), so fairness holds under the budget too.
//!
//! Cancel safety (dropping the future at an `.await` loses nothing):
//! `Semaphore::acquire*`, `Mutex::lock*`, `RwLock::{read*, write*}`,
//! `Notify::{notified, notified_owned}`, `mpsc` `recv`/`recv_many`/`reserve`/`reserve_many`/`closed`,
//! `oneshot` receive by `&mut` and `Sender::closed`, `broadcast::Receiver::recv`,
//! `watch::Receiver::{changed, wait_for}`
//! and `watch::Sender::closed`. Not cancel-safe: `mpsc::Sender::send`
//! and `send_timeout` (the value inside the dropped future is dropped; no
//! slot leaks) and `Barrier::wait` (the arrival was counted).
//!
//! # Examples
//!
//! ```
//! use std::sync::Arc;
//! use rt::sync::{mpsc, Mutex};
//!
//! let rt = rt::runtime::Runtime::new().unwrap();
//! rt.block_on(async {
//!     let total = Arc::new(Mutex::new(0));
//!     let (tx, mut rx) = mpsc::channel(4);
//!     for i in 1..=4 {
//!         let (tx, total) = (tx.clone(), total.clone());
//!         rt::spawn(async move {
//!             *total.lock().await += i;
//!             tx.send(()).await.unwrap();
//!         });
//!     }
//!     drop(tx);
//!     while rx.recv().await.is_some() {}
//!     assert_eq!(*total.lock().await, 10);
//! });
//! ```

/// `Display` for lock guards: the guarded value's, so `format!("{guard}")`
/// prints the value as it does through tokio's guards.
macro_rules! display_guard {
    ($($Guard:ident $(<$lt:lifetime>)?),* $(,)?) => {$(
        impl<$($lt,)? T: ?Sized + ::std::fmt::Display> ::std::fmt::Display
            for $Guard<$($lt,)? T>
        {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                ::std::fmt::Display::fmt(&**self, f)
            }
        }
    )*};
}

/// The guard a lock guard's `map` makes through its `try_map`, with a
/// closure that always finds its part.
fn always_narrowed<G, E>(narrowed: Result<G, E>) -> G {
    narrowed.unwrap_or_else(|_| unreachable!("`map`'s closure always returns `Some`"))
}

/// Moves the `Arc` out of an owned lock guard without running the
/// guard's `Drop` (which would unlock): the lock goes with the `Arc` to the
/// guard made from it. The guard's other fields are not dropped (they are
/// plain pointers with nothing to drop).
fn take_arc<G, L: ?Sized>(
    guard: G,
    arc: impl FnOnce(&G) -> &std::sync::Arc<L>,
) -> std::sync::Arc<L> {
    let guard = std::mem::ManuallyDrop::new(guard);
    // SAFETY: `guard` is never dropped (`ManuallyDrop`) nor used again, so
    // its `Arc` is read out exactly once and not dropped a second time.
    unsafe { std::ptr::read(arc(&guard)) }
}

mod barrier;
mod blocking;
pub mod broadcast;
pub mod mpsc;
mod mutex;
mod notify;
mod once_cell;
mod once_value;
mod once_waiters;
pub mod oneshot;
mod rwlock;
mod semaphore;
mod semaphore_permit;
mod set_once;
mod wait_list;
pub mod watch;

/// The futures of [`Notify`], at tokio's path (`tokio::sync::futures`).
pub mod futures {
    pub use super::{Notified, OwnedNotified};
}

pub use barrier::{Barrier, BarrierWaitResult};
pub use mutex::{
    MappedMutexGuard, Mutex, MutexGuard, OwnedMappedMutexGuard, OwnedMutexGuard, TryLockError,
};
pub use notify::{Notified, Notify, OwnedNotified};
pub use once_cell::{OnceCell, SetError};
pub use rwlock::{
    OwnedRwLockMappedWriteGuard, OwnedRwLockReadGuard, OwnedRwLockWriteGuard, RwLock,
    RwLockMappedWriteGuard, RwLockReadGuard, RwLockWriteGuard,
};
pub use semaphore::{AcquireError, Semaphore, TryAcquireError};
pub use semaphore_permit::{OwnedSemaphorePermit, SemaphorePermit};
pub use set_once::{SetOnce, SetOnceError};
pub(crate) use wait_list::register as register_waker;
