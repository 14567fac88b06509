//! The loom side of the shim, used when built with `--cfg loom`.

pub(crate) mod sync {
    #[allow(unused_imports)]
    pub(crate) use loom::sync::{
        Arc, Condvar, Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard,
        WaitTimeoutResult,
    };

    pub(crate) mod atomic {
        #[allow(unused_imports)]
        pub(crate) use loom::sync::atomic::{
            AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering, fence,
        };
    }
}

pub(crate) mod cell {
    #[allow(unused_imports)]
    pub(crate) use loom::cell::UnsafeCell;
}

pub(crate) mod thread {
    #[allow(unused_imports)]
    pub(crate) use loom::thread::{JoinHandle, ThreadId, current, spawn, yield_now};
    #[allow(unused_imports)]
    pub(crate) use std::thread::{Builder, panicking};
}

/// Capacities shrink under loom so models explore few states.
pub(crate) const fn loom_or(_real: usize, loom: usize) -> usize {
    loom
}
