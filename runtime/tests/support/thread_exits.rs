//! Counting threads out, for tests that a runtime's shutdown waits for its
//! threads: a thread marked with `mark` counts in `exited` once its
//! thread-locals are destroyed, the last thing a thread does before it is
//! gone.

use std::cell::RefCell;
use std::sync::atomic::{AtomicUsize, Ordering};

static MARKED: AtomicUsize = AtomicUsize::new(0);
static EXITED: AtomicUsize = AtomicUsize::new(0);

struct CountsExit;

impl Drop for CountsExit {
    fn drop(&mut self) {
        EXITED.fetch_add(1, Ordering::SeqCst);
    }
}

thread_local! {
    static MARKER: RefCell<Option<CountsExit>> = const { RefCell::new(None) };
}

/// Marks the calling thread (once: marking it again does nothing).
pub(crate) fn mark() {
    MARKER.with(|marker| {
        let mut marker = marker.borrow_mut();
        if marker.is_none() {
            MARKED.fetch_add(1, Ordering::SeqCst);
            *marker = Some(CountsExit);
        }
    });
}

/// How many threads were marked.
pub(crate) fn marked() -> usize {
    MARKED.load(Ordering::SeqCst)
}

/// How many marked threads have exited.
pub(crate) fn exited() -> usize {
    EXITED.load(Ordering::SeqCst)
}
