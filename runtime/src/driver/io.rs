//! The I/O layer of the driver stack: the bottom of the stack is either
//! the reactor (`DriverConfig::enable_io`) or the plain condvar park.
//!
//! With the reactor, `park(timeout)` is `turn_deferred(timeout)` (block in
//! the OS poller, then dispatch readiness to the waiter lists of sockets and
//! `AsyncFd`s, collecting the wakers it releases for the caller to wake
//! once it holds no lock) and `unpark` fires the reactor's `mio::Waker`. The loom models build
//! runtimes without I/O, so only the condvar park is explored end to end;
//! the reactor's readiness protocol has its own component model in
//! `rt-reactor`.

use super::park::{ParkThread, UnparkThread};
use std::io;
use std::task::Waker;
use std::time::Duration;

/// The parking half of the I/O layer.
#[derive(Debug)]
pub(crate) enum IoStack {
    Enabled(rt_reactor::Driver),
    Disabled(ParkThread),
}

/// The shared half: unpark, and the reactor handle sockets register with.
#[derive(Clone, Debug)]
pub(crate) enum IoHandle {
    Enabled(rt_reactor::Handle),
    Disabled(UnparkThread),
}

impl IoStack {
    /// `events_per_tick`: the most events one park takes from the OS
    /// poller (`None`: the reactor's default).
    pub(crate) fn new(
        enable_io: bool,
        events_per_tick: Option<usize>,
    ) -> io::Result<(IoStack, IoHandle)> {
        if enable_io {
            let (driver, handle) = match events_per_tick {
                Some(events) => rt_reactor::Driver::with_capacity(events)?,
                None => rt_reactor::Driver::new()?,
            };
            Ok((IoStack::Enabled(driver), IoHandle::Enabled(handle)))
        } else {
            let (park, unpark) = ParkThread::new();
            Ok((IoStack::Disabled(park), IoHandle::Disabled(unpark)))
        }
    }

    /// Blocks until an event, an unpark or `timeout`; pushes the wakers of
    /// the I/O waiters it released onto `woken`.
    pub(crate) fn park(&mut self, timeout: Option<Duration>, woken: &mut Vec<Waker>) {
        match self {
            IoStack::Enabled(driver) => {
                if let Err(e) = driver.turn_deferred(timeout, woken) {
                    panic!("rt: the I/O driver failed to poll for events: {e}");
                }
            }
            IoStack::Disabled(park) => park.park(timeout),
        }
    }

    /// Fails every registration so no task waits forever; pushes the
    /// waiters' wakers onto `woken`.
    pub(crate) fn shutdown(&mut self, woken: &mut Vec<Waker>) {
        if let IoStack::Enabled(driver) = self {
            driver.shutdown_deferred(woken);
        }
    }
}

impl IoHandle {
    pub(crate) fn unpark(&self) {
        match self {
            IoHandle::Enabled(handle) => {
                if let Err(e) = handle.unpark() {
                    panic!("rt: failed to wake the I/O driver: {e}");
                }
            }
            IoHandle::Disabled(unpark) => unpark.unpark(),
        }
    }

    /// The reactor, if this runtime has I/O enabled.
    pub(crate) fn reactor(&self) -> Option<&rt_reactor::Handle> {
        match self {
            IoHandle::Enabled(handle) => Some(handle),
            IoHandle::Disabled(_) => None,
        }
    }
}
