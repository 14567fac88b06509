//! Offloading blocking work: the blocking pool (`pool.rs`), blocking tasks
//! (`spawn.rs`), the runtime's own jobs that must run once accepted
//! (`mandatory.rs`) and `block_in_place` (`block_in_place.rs`).

mod block_in_place;
mod mandatory;
mod pool;
mod pool_threads;
mod running_jobs;
mod spawn;

#[cfg(all(test, loom))]
mod loom_pool;
#[cfg(all(test, not(loom)))]
mod pool_threads_tests;
#[cfg(all(test, not(loom)))]
mod thread_refused_tests;

pub use block_in_place::block_in_place;
pub use spawn::spawn_blocking;

pub(crate) use mandatory::{IoJob, MandatoryJob, spawn_mandatory};
pub(crate) use pool::{Handoff, HandoffError, PoolConfig, Spawner};
pub(crate) use running_jobs::RunningJobsReport;
pub(crate) use spawn::{
    job_error, join_job, spawn_blocking_as, spawn_blocking_on, try_spawn_blocking_on,
};
