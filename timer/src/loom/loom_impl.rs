//! The loom side of the shim, used when built with `--cfg loom`.

pub(crate) mod sync {
    #[allow(unused_imports)]
    pub(crate) use loom::sync::{Arc, Mutex, MutexGuard};

    #[allow(unused_imports)]
    pub(crate) mod atomic {
        pub(crate) use loom::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
    }
}
