//! The std/loom shim (same pattern as the runtime's): the timer's shared
//! state takes its `Arc`, `Mutex` and atomics from here, so the same code
//! runs under the loom model checker with `RUSTFLAGS="--cfg loom"`.

#[cfg(not(loom))]
pub(crate) mod sync {
    #[allow(unused_imports)]
    pub(crate) use std::sync::{Arc, Mutex, MutexGuard};

    #[allow(unused_imports)]
    pub(crate) mod atomic {
        pub(crate) use std::sync::atomic::{AtomicUsize, Ordering};
    }
}

#[cfg(loom)]
pub(crate) mod sync {
    #[allow(unused_imports)]
    pub(crate) use loom::sync::{Arc, Mutex, MutexGuard};

    #[allow(unused_imports)]
    pub(crate) mod atomic {
        pub(crate) use loom::sync::atomic::{AtomicUsize, Ordering};
    }
}
