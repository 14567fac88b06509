//! The `LocalSet`s a runtime drives, so that its diagnostics (the task
//! dump, the leak report, the slow-poll watchdog) see their tasks too.
//!
//! A set is not built for a runtime: it joins the list of every runtime it
//! is driven on or entered under, and leaves them all when it is dropped:
//! 1. driving the set (a poll of `run_until` or of the set) or entering it
//!    looks up this thread's current runtime; the set remembers (on its own
//!    thread, no lock) the lists it is in, so a set already in that
//!    runtime's list pays one thread-local read and a pointer compare;
//! 2. a set not yet in the list is added, under the list's lock, as an
//!    `Arc` of its `Shared` (the part other threads may reach; the set's
//!    futures and queues stay in its `!Send` context);
//! 3. a reader takes a copy of the list under the lock and walks each
//!    set's owned-task list afterwards, one shard at a time under the
//!    shard's lock, as for the runtime's own tasks: a local task cannot be
//!    freed while it is read, and only its header's atomics and its list
//!    entry (name, location, spawn time) are read, never its future;
//! 4. dropping the set (on its thread) cancels its tasks, then takes it out
//!    of every list it is in. A reader holding a copy from before sees its
//!    owned list closed and empty; if that copy is the last reference, the
//!    `Shared` is freed on the reader's thread, as a late waker's drop
//!    already may (it holds no future and no `!Send` value).
//!
//! The list holds a set, the set holds the list (to leave it): no cycle,
//! since it is the set's thread-bound context, not its `Shared`, that keeps
//! the lists.

use crate::loom::sync::{Arc, Mutex};
use crate::task::local::Shared;

/// The sets driven on one runtime (steps 2 to 4 of the module docs).
pub(crate) struct LocalSetList {
    sets: Mutex<Vec<Arc<Shared>>>,
    /// The runtime's leak report is on (its watchdog is): a set dropped
    /// with unfinished tasks reports them too.
    reports_leaks: bool,
}

impl LocalSetList {
    pub(crate) fn new(reports_leaks: bool) -> LocalSetList {
        LocalSetList {
            sets: Mutex::new(Vec::new()),
            reports_leaks,
        }
    }

    pub(crate) fn reports_leaks(&self) -> bool {
        self.reports_leaks
    }

    /// Step 2: adds `set` (the caller checked that it is not in the list).
    pub(crate) fn insert(&self, set: Arc<Shared>) {
        self.sets.lock().unwrap().push(set);
    }

    /// Step 4: takes `set` out of the list, if it is there.
    pub(crate) fn remove(&self, set: &Arc<Shared>) {
        let removed = {
            let mut sets = self.sets.lock().unwrap();
            let index = sets.iter().position(|listed| Arc::ptr_eq(listed, set));
            index.map(|index| sets.swap_remove(index))
        };
        // Dropped after unlocking: it may be the last reference, whose
        // destructor drops the driver's waker.
        drop(removed);
    }

    /// Step 3: the sets listed now.
    pub(crate) fn snapshot(&self) -> Vec<Arc<Shared>> {
        self.sets.lock().unwrap().clone()
    }
}

impl std::fmt::Debug for LocalSetList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalSetList").finish_non_exhaustive()
    }
}
