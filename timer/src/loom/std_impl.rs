//! The std side of the shim.

pub(crate) mod sync {
    #[allow(unused_imports)]
    pub(crate) use std::sync::{Arc, Mutex, MutexGuard};

    #[allow(unused_imports)]
    pub(crate) mod atomic {
        pub(crate) use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
    }
}
