//! What an idle worker parks on.
//!
//! One `Driver` per runtime. The worker that holds it (the multi-thread
//! scheduler hands it to whichever idle worker takes its lock first; the
//! current-thread scheduler keeps it in its core) blocks in `park` until
//! `Handle::unpark` is called or the timeout passes. Other idle workers wait
//! on their own condvars.
//!
//! Without I/O or timers enabled, parking is a condvar wait on a sticky
//! notification flag: an `unpark` that arrives before `park` makes the next
//! `park` return at once, so no wake-up is lost.

use crate::loom::sync::{Arc, Condvar, Mutex};
use std::fmt;
use std::time::Duration;

/// The parking half, owned by one thread at a time.
pub(crate) struct Driver {
    inner: Arc<Inner>,
}

/// The shared half: wakes the parked driver. Cheap to clone.
#[derive(Clone)]
pub(crate) struct Handle {
    inner: Arc<Inner>,
}

struct Inner {
    notified: Mutex<bool>,
    condvar: Condvar,
}

impl Driver {
    pub(crate) fn new() -> (Driver, Handle) {
        let inner = Arc::new(Inner {
            notified: Mutex::new(false),
            condvar: Condvar::new(),
        });
        (
            Driver {
                inner: inner.clone(),
            },
            Handle { inner },
        )
    }

    /// Blocks until unparked, or until `timeout` passes (`Some(ZERO)` only
    /// collects a pending notification).
    pub(crate) fn park(&mut self, _handle: &Handle, timeout: Option<Duration>) {
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

    /// Tears down the drivers at runtime shutdown.
    pub(crate) fn shutdown(&mut self, _handle: &Handle) {}
}

impl Handle {
    /// Wakes the thread parked in the driver, or makes its next park return.
    pub(crate) fn unpark(&self) {
        *self.inner.notified.lock().unwrap() = true;
        self.inner.condvar.notify_one();
    }
}

impl fmt::Debug for Driver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Driver").finish_non_exhaustive()
    }
}

impl fmt::Debug for Handle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("driver::Handle").finish_non_exhaustive()
    }
}
