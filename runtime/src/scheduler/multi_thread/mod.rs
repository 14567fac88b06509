//! The multi-thread, work-stealing scheduler. See `worker.rs` for how a
//! worker finds work and `idle.rs` for parking and waking.

mod handle;
mod idle;
mod park;
mod worker;

pub(crate) use handle::Handle;
pub(crate) use worker::Context;

use crate::driver::{self, Driver};
use crate::loom::deque::{Injector, Worker as Deque};
use crate::loom::sync::atomic::AtomicBool;
use crate::loom::sync::{Arc, Condvar, Mutex};
use crate::runtime::builder::ThreadSpawner;
use crate::scheduler::Config;
use crate::task::list::OwnedTasks;
use std::io;
use std::time::{Duration, Instant};

/// The runtime's side of the scheduler: the worker threads.
#[derive(Debug)]
pub(crate) struct MultiThread {
    exited: Arc<ExitCount>,
    num_workers: usize,
}

/// Counts worker threads that have finished, so shutdown can wait for them
/// with a timeout.
#[derive(Debug)]
struct ExitCount {
    count: Mutex<usize>,
    condvar: Condvar,
}

impl MultiThread {
    pub(crate) fn new(
        num_workers: usize,
        config: Config,
        driver: Driver,
        driver_handle: driver::Handle,
        spawner: &ThreadSpawner,
    ) -> io::Result<(MultiThread, Arc<Handle>)> {
        let park_shared = park::Shared::new(driver, driver_handle.clone());
        let mut cores = Vec::with_capacity(num_workers);
        let mut remotes = Vec::with_capacity(num_workers);
        for index in 0..num_workers {
            let parker = park::Parker::new(park_shared.clone());
            let queue = Deque::new_fifo();
            remotes.push(worker::Remote {
                stealer: queue.stealer(),
                unpark: parker.unparker(),
            });
            cores.push(worker::Core::new(index, queue, parker));
        }
        let handle = Arc::new(Handle {
            shared: handle::Shared {
                remotes: remotes.into_boxed_slice(),
                inject: Injector::new(),
                idle: idle::Idle::new(num_workers),
                owned: OwnedTasks::new(num_workers),
                is_shutdown: AtomicBool::new(false),
                is_terminated: AtomicBool::new(false),
                config,
                park: park_shared,
            },
            driver: driver_handle,
        });
        let exited = Arc::new(ExitCount {
            count: Mutex::new(0),
            condvar: Condvar::new(),
        });
        let scheduler = MultiThread {
            exited: exited.clone(),
            num_workers,
        };
        for core in cores {
            let worker_handle = handle.clone();
            let exited = exited.clone();
            // Counted after the thread's stop hook has run, so that
            // dropping the runtime returns only once every hook has.
            let spawned = spawner.spawn_then(
                move || worker::run(worker_handle, core),
                move || {
                    *exited.count.lock().unwrap() += 1;
                    exited.condvar.notify_all();
                },
            );
            if let Err(error) = spawned {
                scheduler.shutdown(&handle, Some(Duration::ZERO));
                return Err(error);
            }
        }
        Ok((scheduler, handle))
    }

    /// Stops the workers, waits for them up to `timeout` (`None`: forever),
    /// then cancels every task.
    pub(crate) fn shutdown(&self, handle: &Handle, timeout: Option<Duration>) {
        handle.begin_shutdown();
        let deadline = timeout.map(|t| Instant::now() + t);
        let mut count = self.exited.count.lock().unwrap();
        while *count < self.num_workers {
            match deadline {
                None => count = self.exited.condvar.wait(count).unwrap(),
                Some(deadline) => {
                    let now = Instant::now();
                    if now >= deadline {
                        break;
                    }
                    count = self
                        .exited
                        .condvar
                        .wait_timeout(count, deadline - now)
                        .unwrap()
                        .0;
                }
            }
        }
        drop(count);
        handle.finish_shutdown();
    }
}
