//! The deliveries of each signal number, counted for the whole process by
//! a handler installed with the signal's first listener.

use std::io;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// The deliveries of one signal number, for the whole process: counted by
/// a handler installed with the signal's first listener and kept for the
/// life of the process (as the signal's new disposition is).
///
/// std atomics in a static, not the loom shim's: the counter is bumped
/// from a signal handler, which loom does not model (and whose code may
/// only use lock-free atomics).
pub(super) struct Deliveries {
    /// The counting handler is installed.
    installed: AtomicBool,
    /// Deliveries so far (bumped by the handler, before the handlers of
    /// the runtimes' pipes write them: signal-hook runs a signal's
    /// handlers in the order they were registered).
    delivered: AtomicUsize,
    /// The most deliveries any listener has received: a new listener
    /// starts there, so it receives a delivery no listener has received
    /// yet (one that arrived while none existed, say).
    received: AtomicUsize,
}

/// One per signal number; Linux's are below 65, other Unixes' fewer.
const SIGNAL_SLOTS: usize = 128;

static DELIVERIES: [Deliveries; SIGNAL_SLOTS] = [const {
    Deliveries {
        installed: AtomicBool::new(false),
        delivered: AtomicUsize::new(0),
        received: AtomicUsize::new(0),
    }
}; SIGNAL_SLOTS];

/// The count of `signum`'s deliveries, its handler installed.
pub(super) fn deliveries(signum: libc::c_int) -> io::Result<&'static Deliveries> {
    let slot = usize::try_from(signum)
        .ok()
        .and_then(|index| DELIVERIES.get(index))
        .ok_or_else(|| {
            // tokio's kind for a signal past its table.
            io::Error::other(format!(
                "rt: signal {signum} is beyond the {SIGNAL_SLOTS} signals rt can count"
            ))
        })?;
    if slot.installed.load(Ordering::Acquire) {
        return Ok(slot);
    }
    static INSTALL: Mutex<()> = Mutex::new(());
    // Nothing under this lock can panic half-way: a poisoned lock is fine.
    let _installing = INSTALL
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if !slot.installed.load(Ordering::Acquire) {
        // SAFETY: `register` runs the action in a signal handler; this one
        // only increments an atomic in a static (lock-free, so
        // async-signal-safe): it allocates nothing, takes no lock and
        // cannot panic. `signum` is not one of the signals
        // `signal_hook` refuses (`signal` checked `FORBIDDEN`).
        unsafe {
            signal_hook::low_level::register(signum, move || {
                slot.delivered.fetch_add(1, Ordering::SeqCst);
            })
        }
        .map_err(|error| {
            io::Error::new(
                error.kind(),
                format!("rt: cannot listen for signal {signum}: {error}"),
            )
        })?;
        slot.installed.store(true, Ordering::Release);
    }
    Ok(slot)
}

impl Deliveries {
    /// Where a new listener starts: a delivery counted after this is one
    /// no listener has received yet.
    pub(super) fn received(&self) -> usize {
        self.received.load(Ordering::SeqCst)
    }

    /// Whether a delivery was counted since `seen` (the count when the
    /// listener last received). If so, the listener receives it: `seen`
    /// moves to the count, and later listeners start there.
    pub(super) fn receive(&self, seen: &mut usize) -> bool {
        let delivered = self.delivered.load(Ordering::SeqCst);
        if delivered == *seen {
            return false;
        }
        *seen = delivered;
        self.received.fetch_max(delivered, Ordering::SeqCst);
        true
    }
}
