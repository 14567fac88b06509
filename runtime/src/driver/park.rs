//! The bottom of the driver stack when I/O is disabled: a condvar wait on
//! a sticky notification flag. An `unpark` that arrives before `park` makes
//! the next `park` return at once, so no wake-up is lost.

use crate::loom::sync::{Arc, Condvar, Mutex};
use std::fmt;
use std::time::Duration;

/// The parking half, owned by the thread holding the driver.
pub(crate) struct ParkThread {
    inner: Arc<Inner>,
}

/// The shared half: wakes the parked thread. Cheap to clone.
#[derive(Clone)]
pub(crate) struct UnparkThread {
    inner: Arc<Inner>,
}

struct Inner {
    notified: Mutex<bool>,
    condvar: Condvar,
}

impl ParkThread {
    pub(crate) fn new() -> (ParkThread, UnparkThread) {
        let inner = Arc::new(Inner {
            notified: Mutex::new(false),
            condvar: Condvar::new(),
        });
        (
            ParkThread {
                inner: inner.clone(),
            },
            UnparkThread { inner },
        )
    }

    /// Blocks until unparked, or until `timeout` passes (`Some(ZERO)` only
    /// collects a pending notification).
    pub(crate) fn park(&mut self, timeout: Option<Duration>) {
        let mut notified = self.inner.notified.lock().unwrap();
        match timeout {
            None => {
                while !*notified {
                    notified = self.inner.condvar.wait(notified).unwrap();
                }
            }
            Some(timeout) if timeout.is_zero() => {}
            Some(timeout) => {
                if !*notified {
                    notified = self
                        .inner
                        .condvar
                        .wait_timeout(notified, timeout)
                        .unwrap()
                        .0;
                }
            }
        }
        *notified = false;
    }
}

impl UnparkThread {
    /// Wakes the thread parked in the driver, or makes its next park return.
    pub(crate) fn unpark(&self) {
        *self.inner.notified.lock().unwrap() = true;
        self.inner.condvar.notify_one();
    }
}

impl fmt::Debug for ParkThread {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ParkThread").finish_non_exhaustive()
    }
}

impl fmt::Debug for UnparkThread {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UnparkThread").finish_non_exhaustive()
    }
}
