//! `LiveThreads`: the runtime's threads (workers and blocking-pool
//! threads) that have not finished yet, stop hook included, so that
//! shutting the runtime down can wait for them as tokio's does (it joins
//! its threads): once a drop returns, every `on_thread_stop` has run.
//!
//! The schedulers' own counts cannot say it: a pool thread leaves the
//! pool's count before its stop hook runs (the count sizes the pool, and
//! a thread about to exit must not be claimed for a job), and a worker
//! that handed its core to `block_in_place` is no longer counted by the
//! core it gave away.
//!
//! Protocol:
//! 1. the spawning thread counts the new thread before spawning it (and
//!    takes it back if the spawn fails), so a wait that starts after the
//!    spawn cannot miss it;
//! 2. the new thread records its id as it starts, so a runtime shut down
//!    from one of its own threads (a `spawn_blocking` call dropping it)
//!    does not wait for itself;
//! 3. the thread leaves the count last, after its stop hook and after
//!    dropping what it holds (the hooks among them), and wakes waiters;
//! 4. shutdown, once the schedulers and the pool let no new thread start,
//!    waits until the count holds only the calling thread, if it is one of
//!    them, or until its deadline.
//!
//! A worker that hands its core off in `block_in_place` leaves the count
//! early (`detach_current`): it runs the user's blocking closure, which
//! may outlast the runtime, and shutdown does not wait for it, as it does
//! not for a thread a `shutdown_timeout` left behind. A pool thread whose
//! handed-off core was taken from it so, and which then rejoins the pool,
//! counts again (`attach_current`) before shutdown can wait for the pool.

use crate::loom::sync::{Condvar, Mutex};
use crate::loom::thread::{self, ThreadId};
use std::time::Instant;

/// The runtime's unfinished threads (see the module docs).
#[derive(Debug)]
pub(crate) struct LiveThreads {
    state: Mutex<State>,
    exited: Condvar,
}

#[derive(Debug)]
struct State {
    /// Threads counted (step 1) and not yet finished (step 3).
    count: usize,
    /// The ids of the counted threads that have started (step 2).
    running: Vec<ThreadId>,
}

impl LiveThreads {
    pub(crate) fn new() -> LiveThreads {
        LiveThreads {
            state: Mutex::new(State {
                count: 0,
                running: Vec::new(),
            }),
            exited: Condvar::new(),
        }
    }

    /// Step 1: a thread is about to be spawned.
    pub(crate) fn spawning(&self) {
        self.state.lock().unwrap().count += 1;
    }

    /// The spawn announced by `spawning` failed: no thread will finish.
    pub(crate) fn spawn_failed(&self) {
        self.state.lock().unwrap().count -= 1;
        self.exited.notify_all();
    }

    /// Step 2, on the new thread: the returned guard is step 3 when it
    /// drops, which the thread does last (or as it unwinds).
    pub(crate) fn started(&self) -> Running<'_> {
        let id = thread::current().id();
        self.state.lock().unwrap().running.push(id);
        Running { live: self, id }
    }

    /// The calling thread (a counted one) stops counting: shutdown no
    /// longer waits for it. Nothing if it does not count.
    pub(crate) fn detach_current(&self) {
        let id = thread::current().id();
        let mut state = self.state.lock().unwrap();
        if state.remove(id) {
            drop(state);
            self.exited.notify_all();
        }
    }

    /// The calling thread, started by this runtime's spawner and detached
    /// since, counts again. Nothing if it already counts.
    pub(crate) fn attach_current(&self) {
        let id = thread::current().id();
        let mut state = self.state.lock().unwrap();
        if !state.running.contains(&id) {
            state.running.push(id);
            state.count += 1;
        }
    }

    /// Step 4: waits until every counted thread but the caller has
    /// finished, or until `deadline` (`None`: as long as it takes).
    /// Returns `true` if they all did.
    pub(crate) fn wait_until_finished(&self, deadline: Option<Instant>) -> bool {
        let me = thread::current().id();
        let mut state = self.state.lock().unwrap();
        loop {
            let this_thread = usize::from(state.running.contains(&me));
            if state.count <= this_thread {
                return true;
            }
            state = match deadline {
                None => self.exited.wait(state).unwrap(),
                Some(deadline) => {
                    let now = Instant::now();
                    if now >= deadline {
                        return false;
                    }
                    self.exited.wait_timeout(state, deadline - now).unwrap().0
                }
            };
        }
    }
}

/// A counted thread that has started; dropping it finishes the thread.
pub(crate) struct Running<'a> {
    live: &'a LiveThreads,
    id: ThreadId,
}

impl State {
    /// Takes the thread `id` off the count; `false` if it was not on it
    /// (detached).
    fn remove(&mut self, id: ThreadId) -> bool {
        match self.running.iter().position(|&running| running == id) {
            Some(at) => {
                self.running.swap_remove(at);
                self.count -= 1;
                true
            }
            None => false,
        }
    }
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        // The lock is never held across user code, so it is never poisoned.
        let removed = self.live.state.lock().unwrap().remove(self.id);
        if removed {
            self.live.exited.notify_all();
        }
    }
}
