//! The schedulers: which task runs next, on which thread.
//!
//! `multi_thread` is the work-stealing scheduler (one worker per core);
//! `current_thread` runs everything on the thread that calls `block_on`.
//! Both sit behind the same `Handle`, which the public
//! `rt::runtime::Handle` wraps.

pub(crate) mod current_thread;
pub(crate) mod idle_spin;
pub(crate) mod multi_thread;

use crate::blocking;
use crate::driver;
use crate::loom::sync::Arc;
use crate::task::{Id, JoinHandle};
use std::future::Future;

/// A handle to either scheduler.
#[derive(Clone, Debug)]
pub(crate) enum Handle {
    MultiThread(Arc<multi_thread::Handle>),
    CurrentThread(Arc<current_thread::Handle>),
}

/// The scheduler loop running on the current thread (installed with
/// `context::set_scheduler`), used to schedule wakes locally.
#[derive(Debug)]
pub(crate) enum Context {
    MultiThread(multi_thread::Context),
    CurrentThread(current_thread::Context),
}

impl Handle {
    pub(crate) fn spawn<F>(&self, future: F, id: Id) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        match self {
            Handle::MultiThread(h) => multi_thread::Handle::spawn(h, future, id),
            Handle::CurrentThread(h) => current_thread::Handle::spawn(h, future, id),
        }
    }

    #[track_caller]
    pub(crate) fn spawn_blocking<F, R>(&self, f: F) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        blocking::spawn_blocking_on(self.blocking_spawner(), Some(self), f)
    }

    pub(crate) fn blocking_spawner(&self) -> &blocking::Spawner {
        match self {
            Handle::MultiThread(h) => &h.blocking,
            Handle::CurrentThread(h) => &h.blocking,
        }
    }

    #[allow(dead_code)]
    pub(crate) fn driver(&self) -> &driver::Handle {
        match self {
            Handle::MultiThread(h) => &h.driver,
            Handle::CurrentThread(h) => &h.driver,
        }
    }

    pub(crate) fn config(&self) -> &Config {
        match self {
            Handle::MultiThread(h) => &h.shared.config,
            Handle::CurrentThread(h) => &h.config,
        }
    }

    pub(crate) fn num_workers(&self) -> usize {
        match self {
            Handle::MultiThread(h) => h.shared.remotes.len(),
            Handle::CurrentThread(_) => 1,
        }
    }

    pub(crate) fn num_alive_tasks(&self) -> usize {
        match self {
            Handle::MultiThread(h) => h.shared.owned.len(),
            Handle::CurrentThread(h) => h.owned.len(),
        }
    }

    pub(crate) fn is_same(&self, other: &Handle) -> bool {
        match (self, other) {
            (Handle::MultiThread(a), Handle::MultiThread(b)) => Arc::ptr_eq(a, b),
            (Handle::CurrentThread(a), Handle::CurrentThread(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

/// Scheduler settings from the `Builder`.
#[derive(Clone)]
pub(crate) struct Config {
    pub(crate) global_queue_interval: u32,
    pub(crate) event_interval: u32,
    /// The most an idle thread spins before it sleeps (see `idle_spin`).
    pub(crate) spin_before_park: std::time::Duration,
    pub(crate) before_park: Option<crate::runtime::builder::Callback>,
    pub(crate) after_unpark: Option<crate::runtime::builder::Callback>,
    /// The runtime's id (`Handle::id`), drawn when it is built.
    pub(crate) runtime_id: crate::runtime::Id,
}

impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Config")
            .field("global_queue_interval", &self.global_queue_interval)
            .field("event_interval", &self.event_interval)
            .field("spin_before_park", &self.spin_before_park)
            .finish_non_exhaustive()
    }
}

/// A small, fast, non-cryptographic PRNG (xorshift*) for picking steal
/// victims; seeded per worker.
#[derive(Debug)]
pub(crate) struct FastRand(u64);

impl FastRand {
    pub(crate) fn new(seed: u64) -> FastRand {
        FastRand(seed | 1)
    }

    /// A number in `0..n` (`n > 0`).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        let r = x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 32;
        ((r * n as u64) >> 32) as usize
    }
}
