//! `block_in_place` on a worker: the worker's core (its queues and LIFO
//! slot) moves to a blocking-pool thread, which runs the worker loop with
//! it, so the worker's tasks keep running while this thread blocks.
//!
//! The thread that gave its core away finishes the task it is polling
//! without a core (its wakes go to the injector), then `run_task` finds no
//! core and the thread leaves the worker loop and exits. It does not try
//! to take a core back: the new thread already runs that core, and a
//! thread only steals a core from nobody, so no handshake is needed and a
//! worker count of exactly `worker_threads` cores is kept.

use crate::blocking::{Handoff, HandoffError};
use crate::loom::sync::{Arc, Mutex};
use crate::scheduler;
use crate::scheduler::multi_thread::worker::{self, Context};

/// Gives this worker's core to a pool thread. `Ok` also when the core is
/// not here (a nested `block_in_place`): there is nothing to hand off. On
/// error the core is back in place.
pub(crate) fn hand_off_core(cx: &Context) -> Result<(), HandoffError> {
    let Some(core) = cx.core.borrow_mut().take() else {
        return Ok(());
    };
    cx.poll_handed_off();
    // The core travels in a slot rather than in the job, so it can be put
    // back if no thread takes the job.
    let slot = Arc::new(Mutex::new(Some(core)));
    let job_slot = slot.clone();
    let job_handle = cx.handle.clone();
    let job: Handoff = Box::new(move || {
        let core = job_slot.lock().unwrap().take();
        if let Some(core) = core {
            if worker::run(job_handle.clone(), core, None) {
                job_handle.shared.exited.core_exited();
            }
        }
    });
    let rt = scheduler::Handle::MultiThread(cx.handle.clone());
    let result = cx.handle.blocking.spawn_handoff(job, Some(&rt));
    match (&result, cx.worker_thread) {
        (Err(_), _) => {
            let core = slot.lock().unwrap().take();
            *cx.core.borrow_mut() = core;
        }
        // This thread runs the user's blocking closure next, which may
        // outlast the runtime: shutdown no longer waits for it.
        (Ok(()), worker) => {
            cx.handle.blocking.detach_current_thread();
            if let Some(index) = worker {
                cx.handle.shared.worker_threads.gave_core_away(index);
            }
        }
    }
    result
}

/// `block_in_place` when `hand_off_core` could not start a thread: this
/// worker blocks with its core, so every task it holds goes where the
/// other workers steal from (`Core::make_all_stealable`).
pub(crate) fn make_core_stealable(cx: &Context) {
    if let Some(core) = cx.core.borrow_mut().as_mut() {
        core.make_all_stealable(&cx.handle);
    }
}
