//! The runtime: `Builder`, `Runtime`, `Handle`.

pub(crate) mod arc_waker;
pub(crate) mod block_on_calls;
pub(crate) mod builder;
pub(crate) mod coarse_time;
pub(crate) mod context;
mod deadlock;
pub(crate) mod dump;
mod handle;
mod id;
pub(crate) mod live_threads;
mod local_runtime;
pub(crate) mod metrics;
pub(crate) mod park;
#[allow(clippy::module_inception)]
mod runtime;
pub(crate) mod shutdown_sweep;
pub(crate) mod spawn;
pub(crate) mod watchdog;
mod worker_count;
mod worker_index;

pub use builder::Builder;
pub use deadlock::Deadlock;
pub use dump::{LocalSetLabel, TaskDump, TaskSnapshot, TaskState};
pub use handle::{EnterGuard, Handle, RuntimeFlavor, TryCurrentError};
pub use id::Id;
pub use local_runtime::LocalRuntime;
pub use metrics::RuntimeMetrics;
pub use runtime::{Runtime, is_rt_shutdown_err};
pub(crate) use runtime::{block_on_thread, deadline_after};
pub use watchdog::SlowPoll;
pub use worker_index::worker_index;
