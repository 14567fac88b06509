//! tokio's `task` module: rt's tasks, re-exported (their shape is
//! tokio's). A task spawned here is an rt task: it shows up in rt's task
//! dump and metrics like any other. [`LocalKey`] (with its
//! [`task_local!`](crate::task_local) macro) and [`LocalSet`] are newtypes:
//! the futures of `LocalKey::scope` and `LocalSet::run_until` are
//! `!Unpin`, as tokio's are.

#[cfg(feature = "rt")]
mod local_set;
#[cfg(feature = "rt")]
mod task_local;

#[cfg(feature = "rt")]
pub use local_set::LocalSet;
#[cfg(feature = "rt")]
pub use task_local::LocalKey;

#[cfg(feature = "rt-multi-thread")]
pub use rt::task::block_in_place;
#[cfg(feature = "rt")]
pub use rt::task::{
    AbortHandle, Id, JoinError, JoinHandle, JoinSet, LocalEnterGuard, Unconstrained,
    consume_budget, id, spawn, spawn_blocking, spawn_local, try_id, unconstrained, yield_now,
};

/// tokio's `task::join_set` module: [`JoinSet`].
#[cfg(feature = "rt")]
pub mod join_set {
    pub use rt::task::JoinSet;
}

/// The future of a task-local scope, at tokio's path.
#[cfg(feature = "rt")]
pub mod futures {
    pub use super::task_local::TaskLocalFuture;
}

/// The cooperative budget: rt's, which bounds how much work a task does
/// per poll the way tokio's does (sockets, channels and timers spend a
/// unit per ready result).
#[cfg(feature = "rt")]
pub mod coop {
    pub use rt::task::coop::{
        Coop, RestoreOnPending, Unconstrained, consume_budget, cooperative, has_budget_remaining,
        poll_proceed, unconstrained,
    };
}
