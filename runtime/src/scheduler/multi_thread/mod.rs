//! The multi-thread, work-stealing scheduler. See `worker.rs` for how a
//! worker finds work and `idle.rs` for parking and waking.

mod handle;
mod handoff;
mod idle;
mod local_queues;
mod park;
mod worker;
mod worker_threads;

pub(crate) use handle::Handle;
pub(crate) use handoff::{hand_off_core, make_core_stealable};
pub(crate) use worker::Context;

use crate::blocking;
use crate::driver::{self, Driver};
use crate::loom::deque::{Injector, Worker as Deque};
use crate::loom::sync::atomic::AtomicBool;
use crate::loom::sync::{Arc, Condvar, Mutex};
use crate::loom::thread::JoinHandle;
use crate::runtime::builder::ThreadSpawner;
use crate::scheduler::priority::{PriorityLanes, QueuedCounts};
use crate::scheduler::{self, Config};
use crate::task::list::OwnedTasks;
use crossbeam_utils::CachePadded;
use local_queues::YieldedTasks;
use std::io;
use std::time::{Duration, Instant};
use worker_threads::WorkerThreads;

/// The runtime's side of the scheduler: the worker threads.
#[derive(Debug)]
pub(crate) struct MultiThread {
    num_workers: usize,
    /// Taken by shutdown, to join them (`worker_threads.rs`).
    threads: Mutex<Vec<JoinHandle<()>>>,
}

/// Counts worker cores whose loop has finished, so shutdown can wait for
/// them with a timeout. Cores, not threads: after `block_in_place` a core
/// finishes on a blocking-pool thread, and the thread that gave it away
/// exits without counting.
#[derive(Debug)]
pub(crate) struct ExitCount {
    count: Mutex<usize>,
    condvar: Condvar,
}

impl ExitCount {
    fn new() -> ExitCount {
        ExitCount {
            count: Mutex::new(0),
            condvar: Condvar::new(),
        }
    }

    /// A worker loop finished with its core.
    pub(crate) fn core_exited(&self) {
        *self.count.lock().unwrap() += 1;
        self.condvar.notify_all();
    }
}

impl MultiThread {
    pub(crate) fn new(
        num_workers: usize,
        config: Config,
        driver: Driver,
        driver_handle: driver::Handle,
        spawner: &ThreadSpawner,
        blocking: blocking::Spawner,
    ) -> io::Result<(MultiThread, Arc<Handle>)> {
        let park_shared = park::Shared::new(driver, driver_handle.clone());
        let mut cores = Vec::with_capacity(num_workers);
        let mut remotes = Vec::with_capacity(num_workers);
        for index in 0..num_workers {
            let parker = park::Parker::new(park_shared.clone());
            let queue = Deque::new_fifo();
            let (yielded, yielded_stealer) = YieldedTasks::new(config.stealable_local_queues);
            let lanes = PriorityLanes::new(Deque::new_fifo);
            remotes.push(worker::Remote::new(
                queue.stealer(),
                PriorityLanes {
                    high: lanes.high.stealer(),
                    low: lanes.low.stealer(),
                },
                parker.unparker(),
                yielded_stealer,
            ));
            cores.push(worker::Core::new(
                index, queue, lanes, yielded, parker, &config,
            ));
        }
        let handle = Arc::new(Handle {
            shared: handle::Shared {
                remotes: remotes.into_boxed_slice(),
                inject: Injector::new(),
                inject_lanes: PriorityLanes::new(Injector::new),
                queued: QueuedCounts::new(),
                idle: idle::Idle::new(num_workers),
                owned: OwnedTasks::new(num_workers),
                metrics: (0..num_workers)
                    .map(|_| Arc::new(CachePadded::default()))
                    .collect(),
                is_shutdown: AtomicBool::new(false),
                is_terminated: AtomicBool::new(false),
                config,
                park: park_shared,
                exited: ExitCount::new(),
                worker_threads: Arc::new(WorkerThreads::new(num_workers)),
            },
            driver: driver_handle,
            blocking,
        });
        let scheduler = MultiThread {
            num_workers,
            threads: Mutex::new(Vec::with_capacity(num_workers)),
        };
        for (index, core) in cores.into_iter().enumerate() {
            let worker_handle = handle.clone();
            let worker_threads = handle.shared.worker_threads.clone();
            // The core's exit is counted as soon as its loop ends, before
            // the thread's stop hook runs (as a handed-off core's is): the
            // shutdown then shuts the driver down while hooks may still
            // run, so a hook waiting on the runtime's timers or sockets
            // sees the shutdown, as in tokio, instead of waiting for ever
            // on a driver no worker turns any more, with the shutdown
            // waiting for it. Shutdown still waits for the hooks: a thread
            // is done (step 3) only after its hook, and after dropping
            // its handles to the runtime.
            let spawned = spawner.spawn_then(
                Some(scheduler::Handle::MultiThread(handle.clone())),
                move || {
                    let exited = worker_handle.clone();
                    if worker::run(worker_handle, core, Some(index)) {
                        exited.shared.exited.core_exited();
                    }
                },
                move |()| worker_threads.done(index),
            );
            match spawned {
                Ok(thread) => scheduler.threads.lock().unwrap().push(thread),
                Err(error) => {
                    // The workers already started are stopped and waited
                    // for, as a runtime's drop does (they run no task yet,
                    // so they stop at once), then the blocking pool their
                    // start hooks may have used: no thread outlives the
                    // failed build.
                    let started = MultiThread {
                        num_workers: index,
                        threads: Mutex::new(std::mem::take(
                            &mut *scheduler.threads.lock().unwrap(),
                        )),
                    };
                    started.shutdown(&handle, None);
                    handle.blocking.shutdown_and_join(None);
                    return Err(error);
                }
            }
        }
        Ok((scheduler, handle))
    }

    /// Stops the workers, waits for them up to `timeout` (`None`: forever),
    /// then cancels every task, then joins the worker threads (within the
    /// same `timeout`).
    pub(crate) fn shutdown(&self, handle: &Handle, timeout: Option<Duration>) {
        handle.begin_shutdown();
        let deadline = crate::runtime::deadline_after(timeout);
        let exited = &handle.shared.exited;
        let mut count = exited.count.lock().unwrap();
        while *count < self.num_workers {
            match deadline {
                None => count = exited.condvar.wait(count).unwrap(),
                Some(deadline) => {
                    let now = Instant::now();
                    if now >= deadline {
                        break;
                    }
                    count = exited
                        .condvar
                        .wait_timeout(count, deadline - now)
                        .unwrap()
                        .0;
                }
            }
        }
        drop(count);
        handle.finish_shutdown();
        let threads = std::mem::take(&mut *self.threads.lock().unwrap());
        handle.shared.worker_threads.join(threads, deadline);
    }
}
