//! Which workers are parked, which are searching for work.
//!
//! One atomic word counts the unparked workers (high half) and the
//! searching ones (low half); a mutex-protected list holds the parked
//! workers' indices.
//!
//! Waking protocol (no lost wake-up):
//! 1. a producer pushes a task, then (SeqCst) reads the word: if a worker
//!    is searching, that worker will find the task; if all are awake, one
//!    will; otherwise it pops a sleeper, counts it as unparked *and
//!    searching*, and unparks it;
//! 2. a searcher that finds work stops searching; if it was the last
//!    searcher it re-checks every queue and wakes another worker if any
//!    holds work, so the work it left behind still gets a searcher. It
//!    does not wake one for work that may come later: a producer that
//!    sees no searcher wakes a worker itself. (tokio and Go wake one
//!    either way; that puts a futex wake-up, several microseconds on a
//!    virtual machine, in front of the task just found, and a
//!    request/reply ping-pong pays it on every round trip.) It does wake
//!    one if no worker is blocked in the driver: only a parking worker
//!    takes the driver, so without that wake-up I/O and timers would wait
//!    on this worker's tasks while others sleep on their condvars;
//! 3. a worker about to park removes itself from both counts under the
//!    lock, then re-checks every queue and wakes a worker if any holds
//!    work. Either the producer saw it awake or searching, and the re-check
//!    sees the task, or the producer saw the new counts and woke someone.
//!    Every parking worker re-checks, not only the last searcher: a worker
//!    refused the searcher role (step 4) is awake, so a producer may have
//!    skipped its wake-up for it, and if it then parked without looking,
//!    the task would wait in the injector with every worker asleep. (The
//!    `left_behind_work_gets_a_worker` loom model found that.)
//! 4. at most half the workers search at once, so a burst of wake-ups does
//!    not have every worker contend on the same queues.

use crate::loom::sync::Mutex;
use crate::loom::sync::atomic::{AtomicUsize, Ordering};

const UNPARKED_SHIFT: usize = 16;
const SEARCHING_MASK: usize = (1 << UNPARKED_SHIFT) - 1;

#[derive(Debug)]
pub(crate) struct Idle {
    state: AtomicUsize,
    sleepers: Mutex<Vec<usize>>,
    num_workers: usize,
}

impl Idle {
    pub(crate) fn new(num_workers: usize) -> Idle {
        assert!(num_workers < SEARCHING_MASK, "too many worker threads");
        Idle {
            state: AtomicUsize::new(num_workers << UNPARKED_SHIFT),
            sleepers: Mutex::new(Vec::with_capacity(num_workers)),
            num_workers,
        }
    }

    fn counts(&self) -> (usize, usize) {
        let state = self.state.load(Ordering::SeqCst);
        (state >> UNPARKED_SHIFT, state & SEARCHING_MASK)
    }

    /// `true` if a worker is parked and none is searching: what
    /// `worker_to_notify` needs before it picks one (checked again there).
    pub(crate) fn should_notify(&self) -> bool {
        let (unparked, searching) = self.counts();
        searching == 0 && unparked < self.num_workers
    }

    /// Picks a parked worker to wake for new work, counting it as unparked
    /// and searching. `None` if a searcher or an awake worker will do. It
    /// never picks `except`: a worker on the parked list while it drives
    /// the I/O and timers, but awake.
    pub(crate) fn worker_to_notify(&self, except: Option<usize>) -> Option<usize> {
        if !self.should_notify() {
            return None;
        }
        let mut sleepers = self.sleepers.lock().unwrap();
        if !self.should_notify() {
            return None;
        }
        let pos = sleepers.iter().rposition(|&index| Some(index) != except)?;
        let index = sleepers.swap_remove(pos);
        self.state
            .fetch_add((1 << UNPARKED_SHIFT) | 1, Ordering::SeqCst);
        Some(index)
    }

    /// Step 3, up to the re-check (which the caller does).
    pub(crate) fn transition_worker_to_parked(&self, index: usize, is_searching: bool) {
        let mut sleepers = self.sleepers.lock().unwrap();
        let dec = (1 << UNPARKED_SHIFT) | usize::from(is_searching);
        self.state.fetch_sub(dec, Ordering::SeqCst);
        sleepers.push(index);
    }

    /// Step 4: may this worker start searching?
    pub(crate) fn transition_worker_to_searching(&self) -> bool {
        let (_, searching) = self.counts();
        if 2 * searching >= self.num_workers.max(2) {
            return false;
        }
        self.state.fetch_add(1, Ordering::SeqCst);
        true
    }

    /// Step 2. Returns `true` if the worker was the last searcher.
    pub(crate) fn transition_worker_from_searching(&self) -> bool {
        let prev = self.state.fetch_sub(1, Ordering::SeqCst);
        prev & SEARCHING_MASK == 1
    }

    /// After a wake-up: `true` if the worker is still listed as parked (the
    /// wake-up was spurious, or came from the driver, not a notifier).
    pub(crate) fn is_parked(&self, index: usize) -> bool {
        self.sleepers.lock().unwrap().contains(&index)
    }

    /// Takes a worker off the parked list by itself (it woke for its own
    /// reasons, e.g. shutdown), counting it as unparked and not searching.
    pub(crate) fn unpark_worker_by_id(&self, index: usize) -> bool {
        let mut sleepers = self.sleepers.lock().unwrap();
        if let Some(pos) = sleepers.iter().position(|&i| i == index) {
            sleepers.swap_remove(pos);
            self.state.fetch_add(1 << UNPARKED_SHIFT, Ordering::SeqCst);
            return true;
        }
        false
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::Idle;

    #[test]
    fn a_worker_in_the_driver_wakes_a_peer_not_itself() {
        let idle = Idle::new(3);
        // Worker 1 parks in the driver after worker 0; worker 2 is awake.
        idle.transition_worker_to_parked(0, false);
        idle.transition_worker_to_parked(1, false);
        // Worker 1, firing timers, asks for help: worker 0 comes, counted
        // as unparked and searching.
        assert_eq!(idle.worker_to_notify(Some(1)), Some(0));
        assert!(!idle.is_parked(0) && idle.is_parked(1));
        // A searcher exists now: nobody else is woken.
        assert_eq!(idle.worker_to_notify(Some(1)), None);
        assert!(idle.transition_worker_from_searching());
        // Worker 1 is the only parked one: it never picks itself.
        assert_eq!(idle.worker_to_notify(Some(1)), None);
        assert_eq!(idle.worker_to_notify(None), Some(1));
    }
}
