//! The runtime's own worker threads, so that shutdown can join them: a
//! dropped runtime returns with its threads gone, and with them their
//! handles to the runtime (the last of which closes the driver's
//! descriptors), as tokio's does.
//!
//! Each thread's state, under one lock:
//! 1. `Working` from its start;
//! 2. `GaveCoreAway` when `block_in_place` hands its core to a pool
//!    thread: it is no worker any more, and runs the caller's closure
//!    for as long as that takes. Shutdown does not wait for it (the
//!    thread exits on its own once the closure returns);
//! 3. `Done` as the very last step of its body, after its stop hook and
//!    after dropping every handle to the runtime: only exiting is left,
//!    so joining it returns at once.
//!
//! Shutdown waits (up to its deadline) until no thread is `Working`,
//! then joins the `Done` ones. A thread that shuts its own runtime down
//! is not waited for: it is still in its body.

use crate::loom::sync::{Condvar, Mutex};
use crate::loom::thread::{self, JoinHandle};
use std::time::Instant;

#[derive(Debug)]
pub(crate) struct WorkerThreads {
    states: Mutex<Vec<ThreadState>>,
    changed: Condvar,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ThreadState {
    Working,
    GaveCoreAway,
    Done,
}

impl WorkerThreads {
    pub(crate) fn new(num_threads: usize) -> WorkerThreads {
        WorkerThreads {
            states: Mutex::new(vec![ThreadState::Working; num_threads]),
            changed: Condvar::new(),
        }
    }

    /// Step 2: worker thread `index` handed its core off.
    pub(crate) fn gave_core_away(&self, index: usize) {
        self.set(index, ThreadState::GaveCoreAway);
    }

    /// Step 3: worker thread `index` has nothing left to do but exit.
    pub(crate) fn done(&self, index: usize) {
        self.set(index, ThreadState::Done);
    }

    fn set(&self, index: usize, state: ThreadState) {
        self.states.lock().unwrap()[index] = state;
        self.changed.notify_all();
    }

    /// Waits until no thread but the caller is `Working`, or until
    /// `deadline` (`None`: forever), then joins the threads that are
    /// `Done`. `threads[i]` is thread `i`'s handle (threads `0..len`
    /// started); the others are left to exit on their own.
    pub(crate) fn join(&self, threads: Vec<JoinHandle<()>>, deadline: Option<Instant>) {
        let this_thread = thread::current().id();
        let caller = threads
            .iter()
            .position(|thread| thread.thread().id() == this_thread);
        let mut states = self.states.lock().unwrap();
        loop {
            // Only the threads given: a failed build started fewer.
            let working = states
                .iter()
                .take(threads.len())
                .enumerate()
                .any(|(index, state)| *state == ThreadState::Working && Some(index) != caller);
            if !working {
                break;
            }
            states = match deadline {
                None => self.changed.wait(states).unwrap(),
                Some(deadline) => {
                    let now = Instant::now();
                    if now >= deadline {
                        break;
                    }
                    self.changed.wait_timeout(states, deadline - now).unwrap().0
                }
            };
        }
        let done: Vec<bool> = states
            .iter()
            .map(|state| *state == ThreadState::Done)
            .collect();
        drop(states);
        for (thread, done) in threads.into_iter().zip(done) {
            if done {
                // A worker catches its tasks' panics: nothing to pass on.
                let _ = thread.join();
            }
        }
    }
}
