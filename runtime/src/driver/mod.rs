//! What an idle worker parks on.
//!
//! One `Driver` per runtime. The worker that holds it (the multi-thread
//! scheduler hands it to whichever idle worker takes its lock first; the
//! current-thread scheduler keeps it in its core) blocks in `park` until
//! `Handle::unpark` is called or the timeout passes, and on the way out
//! dispatches what happened (I/O readiness, expired timers). Other idle
//! workers wait on their own condvars.
//!
//! The drivers stack: the time driver (when enabled) turns the next timer
//! deadline into the park timeout and fires expired timers after parking;
//! under it, the I/O driver (when enabled) blocks in the reactor, or else a
//! plain condvar park does.
//!
//! The I/O wakers a park or a shutdown releases are not woken inside: they
//! are pushed onto the caller's `woken` vector, and the caller wakes them
//! ([`wake_all`]) once it has released the lock it holds the driver under,
//! since a waker may run arbitrary code (timers still fire inside).

mod io;
mod park;
pub(crate) mod time;

use std::fmt;
use std::task::Waker;
use std::time::Duration;

/// Which drivers a runtime has, from the `Builder`.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct DriverConfig {
    pub(crate) enable_io: bool,
    pub(crate) enable_time: bool,
    pub(crate) start_paused: bool,
    /// The most I/O events one turn of the reactor takes
    /// (`Builder::max_io_events_per_tick`); `None`: the reactor's default.
    pub(crate) max_io_events_per_tick: Option<usize>,
}

/// The parking half, owned by one thread at a time.
pub(crate) struct Driver {
    io: io::IoStack,
    time: Option<time::Driver>,
}

/// The shared half: wakes the parked driver and reaches the drivers'
/// registration handles. Cheap to clone.
#[derive(Clone)]
pub(crate) struct Handle {
    io: io::IoHandle,
    time: Option<time::Handle>,
}

impl Driver {
    /// `workers`: how many threads run tasks at once (the timer gets one
    /// shard each, so they do not contend on one lock).
    pub(crate) fn new(config: &DriverConfig, workers: usize) -> std::io::Result<(Driver, Handle)> {
        let (io, io_handle) = io::IoStack::new(config.enable_io, config.max_io_events_per_tick)?;
        // Under loom the stack is only the condvar park (timers are
        // modelled in rt-timer's own loom models).
        let (time, time_handle) = match config.enable_time && !cfg!(loom) {
            true => {
                let (driver, handle) = time::Driver::new(config.start_paused, workers);
                (Some(driver), Some(handle))
            }
            false => (None, None),
        };
        Ok((
            Driver { io, time },
            Handle {
                io: io_handle,
                time: time_handle,
            },
        ))
    }

    /// Blocks until unparked or `timeout` passes (`Some(ZERO)`: only poll),
    /// then dispatches events: fires timers, and pushes the wakers of the
    /// I/O waiters it released onto `woken` (see the module docs).
    pub(crate) fn park(
        &mut self,
        _handle: &Handle,
        timeout: Option<Duration>,
        woken: &mut Vec<Waker>,
    ) {
        match &mut self.time {
            Some(time) => time.park(timeout, |timeout| {
                let before = woken.len();
                self.io.park(timeout, woken);
                woken.len() > before
            }),
            None => self.io.park(timeout, woken),
        }
    }

    /// Tears the drivers down at runtime shutdown; pushes the wakers of the
    /// I/O waiters onto `woken`.
    pub(crate) fn shutdown(&mut self, _handle: &Handle, woken: &mut Vec<Waker>) {
        if let Some(time) = &mut self.time {
            time.shutdown();
        }
        self.io.shutdown(woken);
    }
}

/// Wakes what a park or a shutdown pushed onto `woken` (call it with no
/// lock held), keeping the vector's capacity for the next park.
pub(crate) fn wake_all(woken: &mut Vec<Waker>) {
    woken.drain(..).for_each(Waker::wake);
}

impl Handle {
    /// Wakes the thread parked in the driver, or makes its next park return.
    pub(crate) fn unpark(&self) {
        if let Some(time) = &self.time {
            time.note_unpark();
        }
        self.io.unpark();
    }

    /// The reactor sockets register with, or `None` without `enable_io`.
    pub(crate) fn reactor(&self) -> Option<&rt_reactor::Handle> {
        self.io.reactor()
    }

    /// The time layer's handle, if the runtime has one.
    pub(crate) fn time(&self) -> Option<&time::Handle> {
        self.time.as_ref()
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
