//! `PoolThreads`: the join handles of the blocking pool's threads, so
//! that shutdown can join the ones that have exited, as tokio does: a
//! dropped runtime returns with its pool threads' thread-locals destroyed
//! and the threads gone, not merely with their stop hooks run (which is
//! all `LiveThreads` can tell).
//!
//! A pool thread exits at shutdown, on keep-alive time-out, or when the
//! core it was handed off is done and the pool has no room for it; a
//! long-running runtime starts and retires any number of them, so their
//! handles must not pile up. Each exiting thread joins the one that
//! exited before it, and shutdown joins the last:
//! 1. the spawning thread files the new thread's handle once the spawn
//!    returns (`file`);
//! 2. the thread, as its last step before it stops counting as live
//!    (after its stop hook: see `ThreadSpawner::spawn_then`), takes its
//!    own handle back (waiting for step 1 if it is that quick), puts it in
//!    the `last_exited` slot, and joins the thread it found there. So at
//!    most one exited thread's handle is held; the others have been
//!    joined by their successor, whose own exit waits for it;
//! 3. shutdown, once it has waited (up to its deadline) for the threads,
//!    closes the registry and joins the thread in `last_exited`, and with
//!    it, one after another, every thread that exited before. The handles
//!    of threads still running (a job past the deadline) are dropped: a
//!    `shutdown_timeout` does not wait for them. Such a thread, exiting
//!    later, finds the registry closed and its handle gone, and just
//!    exits.
//!
//! A thread in `last_exited` is past its job and its stop hook: joining it
//! waits only for its thread-locals' destructors and for its own join of
//! its predecessor, which is past those too.

use crate::loom::sync::{Condvar, Mutex};
use crate::loom::thread::{self, JoinHandle, ThreadId};

/// The handles of a pool's threads (see the module docs).
#[derive(Debug)]
pub(crate) struct PoolThreads {
    state: Mutex<State>,
    /// Step 2 waits here for step 1.
    filed: Condvar,
}

#[derive(Debug)]
struct State {
    /// The threads started and not exited (step 1), in no order.
    running: Vec<JoinHandle<()>>,
    /// The thread that exited last (step 2): the one to join next.
    last_exited: Option<JoinHandle<()>>,
    /// Shutdown has taken the handles (step 3).
    closed: bool,
}

impl PoolThreads {
    pub(crate) fn new() -> PoolThreads {
        PoolThreads {
            state: Mutex::new(State {
                running: Vec::new(),
                last_exited: None,
                closed: false,
            }),
            filed: Condvar::new(),
        }
    }

    /// Step 1: a thread has been spawned.
    pub(crate) fn file(&self, thread: JoinHandle<()>) {
        let mut state = self.state.lock().unwrap();
        if state.closed {
            // Shutdown gave up waiting for it: it is left to exit alone.
            return;
        }
        state.running.push(thread);
        drop(state);
        self.filed.notify_all();
    }

    /// Step 2, on a pool thread about to exit.
    pub(crate) fn exit_current(&self) {
        let me = thread::current().id();
        let mut state = self.state.lock().unwrap();
        let own = loop {
            if let Some(at) = position(&state.running, me) {
                break state.running.swap_remove(at);
            }
            if state.closed {
                return;
            }
            state = self.filed.wait(state).unwrap();
        };
        let previous = state.last_exited.replace(own);
        drop(state);
        if let Some(previous) = previous {
            // A panic in the thread was the pool's to catch: nothing to
            // pass on.
            let _ = previous.join();
        }
    }

    /// Step 3: after shutdown has waited for the threads. Joins every
    /// thread that has exited (but the caller, if it is one: a thread-local
    /// destructor may drop the runtime).
    pub(crate) fn join_exited(&self) {
        let mut state = self.state.lock().unwrap();
        state.closed = true;
        let last = state.last_exited.take();
        // Still running: not waited for.
        let running = std::mem::take(&mut state.running);
        drop(state);
        // A thread still waiting for step 1 exits without its handle.
        self.filed.notify_all();
        drop(running);
        if let Some(last) = last {
            if last.thread().id() != thread::current().id() {
                let _ = last.join();
            }
        }
    }

    /// The handles held (for the tests: they must not pile up).
    #[cfg(test)]
    pub(crate) fn handles_held(&self) -> usize {
        let state = self.state.lock().unwrap();
        state.running.len() + usize::from(state.last_exited.is_some())
    }
}

fn position(threads: &[JoinHandle<()>], id: ThreadId) -> Option<usize> {
    threads.iter().position(|thread| thread.thread().id() == id)
}
