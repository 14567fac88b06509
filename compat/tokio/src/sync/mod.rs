//! tokio's `sync` module: rt's channels and locks, re-exported (their
//! shape is tokio's). They spend rt's cooperative budget and need no
//! runtime, as tokio's do. [`Notify`] is a newtype: its futures are
//! `!Unpin`, as tokio's are.

mod notify;

pub use notify::Notify;
pub use rt::sync::{
    AcquireError, Barrier, BarrierWaitResult, MappedMutexGuard, Mutex, MutexGuard, OnceCell,
    OwnedMappedMutexGuard, OwnedMutexGuard, OwnedRwLockMappedWriteGuard, OwnedRwLockReadGuard,
    OwnedRwLockWriteGuard, OwnedSemaphorePermit, RwLock, RwLockMappedWriteGuard, RwLockReadGuard,
    RwLockWriteGuard, Semaphore, SemaphorePermit, SetError, SetOnce, SetOnceError, TryAcquireError,
    TryLockError, broadcast, mpsc, oneshot, watch,
};

/// The named futures of [`Notify`], at tokio's path.
pub mod futures {
    pub use super::notify::{Notified, OwnedNotified};
}
