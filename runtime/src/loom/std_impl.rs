//! The std side of the shim: zero-cost wrappers with loom's API shape.

pub(crate) mod sync {
    #[allow(unused_imports)]
    pub(crate) use std::sync::{
        Arc, Condvar, Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard,
        WaitTimeoutResult,
    };

    pub(crate) mod atomic {
        #[allow(unused_imports)]
        pub(crate) use std::sync::atomic::{
            AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering, fence,
        };
    }
}

pub(crate) mod cell {
    /// An `UnsafeCell` with loom's closure-based access API.
    #[derive(Debug)]
    pub(crate) struct UnsafeCell<T>(std::cell::UnsafeCell<T>);

    impl<T> UnsafeCell<T> {
        pub(crate) const fn new(value: T) -> UnsafeCell<T> {
            UnsafeCell(std::cell::UnsafeCell::new(value))
        }

        #[inline(always)]
        pub(crate) fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
            f(self.0.get())
        }

        #[inline(always)]
        pub(crate) fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
            f(self.0.get())
        }
    }
}

pub(crate) mod thread {
    #[allow(unused_imports)]
    pub(crate) use std::thread::{
        Builder, JoinHandle, ThreadId, current, panicking, spawn, yield_now,
    };
}

/// Capacity-style constants shrink under loom; here they are the real ones.
pub(crate) const fn loom_or(real: usize, _loom: usize) -> usize {
    real
}
