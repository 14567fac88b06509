//! tokio's `sync` module: rt's channels and locks, re-exported (their
//! shape is tokio's). They spend rt's cooperative budget and need no
//! runtime, as tokio's do.

pub use rt::sync::{
    AcquireError, Barrier, BarrierWaitResult, MappedMutexGuard, Mutex, MutexGuard, Notify,
    OnceCell, OwnedMappedMutexGuard, OwnedMutexGuard, OwnedRwLockMappedWriteGuard,
    OwnedRwLockReadGuard, OwnedRwLockWriteGuard, OwnedSemaphorePermit, RwLock,
    RwLockMappedWriteGuard, RwLockReadGuard, RwLockWriteGuard, Semaphore, SemaphorePermit,
    SetError, SetOnce, SetOnceError, TryAcquireError, TryLockError, broadcast, futures, mpsc,
    oneshot, watch,
};
