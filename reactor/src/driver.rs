//! The poll loop: one `mio::Poll`, the table of readiness cells, and the
//! `mio::Waker` that interrupts a blocked `turn`.
//!
//! A token is a cell's index in the table (low 24 bits) and the generation
//! of the registration that owns it (above). Dispatching an event reads
//! the cell through the index with no lock (see `cell_table`), and the
//! cell applies the event only if the generation is still its owner's.
//! Each turn begins by making the cells released since the last one
//! reusable (`cell_table`, step 4), so that no cell changes hands while a
//! batch that may name it waits to be dispatched.

use crate::cell::{GENERATION_MASK, shutdown_error};
use crate::cell_table::{CellTable, MAX_CELLS};
use crate::ready::{Interest, Ready};
use crate::registration::Registration;
use std::fmt;
use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::task::Waker;
use std::time::Duration;

/// Bits of a token holding the cell's index; the generation sits above.
const INDEX_BITS: u32 = 24;
const INDEX_MASK: usize = (1 << INDEX_BITS) - 1;
/// The waker's token: an index no registration can have.
const WAKER_TOKEN: mio::Token = mio::Token(MAX_CELLS);
const _: () = assert!(MAX_CELLS == INDEX_MASK);
// A token (index and generation) fits a 32-bit `usize`.
const _: () = assert!(INDEX_BITS + GENERATION_MASK.count_ones() <= 32);
/// How many events one `turn` collects at most, unless
/// [`Driver::with_capacity`] says otherwise.
///
/// # Examples
///
/// ```
/// assert_eq!(rt_reactor::DEFAULT_EVENTS_PER_TURN, 1024);
/// ```
pub const DEFAULT_EVENTS_PER_TURN: usize = 1024;

/// The poll loop. Owned by the one thread that drives I/O.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
///
/// let (mut driver, handle) = rt_reactor::Driver::new().unwrap();
/// handle.unpark().unwrap();
/// // Returns at once: the unpark is pending.
/// driver.turn(None).unwrap();
/// ```
pub struct Driver {
    poll: mio::Poll,
    events: mio::Events,
    /// The smaller buffer of a turn that does not wait (`Some(ZERO)`), if
    /// [`Driver::with_capacities`] gave one.
    busy_events: Option<mio::Events>,
    wake: Vec<Waker>,
    inner: Arc<Inner>,
}

/// Registers sources with the driver and interrupts it. Cheap to clone,
/// `Send + Sync`.
///
/// # Examples
///
/// ```
/// let (_driver, handle) = rt_reactor::Driver::new().unwrap();
/// let other = handle.clone();
/// other.unpark().unwrap();
/// ```
#[derive(Clone)]
pub struct Handle {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    registry: mio::Registry,
    waker: mio::Waker,
    pub(crate) cells: CellTable,
    is_shutdown: AtomicBool,
    /// Readiness events dispatched to registrations, over all turns.
    dispatched: AtomicU64,
}

impl Driver {
    /// Creates the poller and its waker.
    ///
    /// # Errors
    ///
    /// Returns the OS error if the poller (epoll/kqueue) or its waker cannot
    /// be created, e.g. when the process is out of file descriptors.
    ///
    /// # Examples
    ///
    /// ```
    /// let (driver, handle) = rt_reactor::Driver::new().unwrap();
    /// # drop((driver, handle));
    /// ```
    pub fn new() -> io::Result<(Driver, Handle)> {
        Driver::with_capacity(DEFAULT_EVENTS_PER_TURN)
    }

    /// As [`new`](Driver::new), collecting at most `events_per_turn` events
    /// in one [`turn`](Driver::turn) (the default is 1024). Events past
    /// that stay in the OS poller for the next turn: a smaller batch wakes
    /// fewer tasks at once, a larger one needs fewer system calls under
    /// load.
    ///
    /// # Errors
    ///
    /// As [`new`](Driver::new).
    ///
    /// # Panics
    ///
    /// Panics if `events_per_turn` is 0 (no turn could ever see an event).
    ///
    /// # Examples
    ///
    /// ```
    /// use rt_reactor::{Direction, Interest};
    /// use std::io::Write;
    /// use std::task::{Context, Waker};
    /// use std::time::Duration;
    ///
    /// let (mut driver, handle) = rt_reactor::Driver::with_capacity(1).unwrap();
    /// let (mut a1, mut b1) = mio::net::UnixStream::pair().unwrap();
    /// let (mut a2, mut b2) = mio::net::UnixStream::pair().unwrap();
    /// let r1 = handle.register(&mut a1, Interest::READABLE).unwrap();
    /// let r2 = handle.register(&mut a2, Interest::READABLE).unwrap();
    /// b1.write_all(b"x").unwrap();
    /// b2.write_all(b"y").unwrap();
    /// // Both sockets are readable, but one turn takes one event.
    /// assert_eq!(driver.turn(Some(Duration::from_secs(5))).unwrap(), 1);
    /// assert_eq!(driver.turn(Some(Duration::from_secs(5))).unwrap(), 1);
    /// # r1.deregister(&mut a1).unwrap();
    /// # r2.deregister(&mut a2).unwrap();
    /// ```
    #[track_caller]
    pub fn with_capacity(events_per_turn: usize) -> io::Result<(Driver, Handle)> {
        Driver::with_capacities(events_per_turn, events_per_turn)
    }

    /// As [`with_capacity`](Driver::with_capacity), with a second bound for
    /// the turns that do not wait (`turn(Some(Duration::ZERO))`: a busy
    /// thread checking for I/O between tasks): those take at most
    /// `events_per_busy_turn` events, the others `events_per_turn`.
    ///
    /// # Errors
    ///
    /// As [`new`](Driver::new).
    ///
    /// # Panics
    ///
    /// Panics if either bound is 0.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt_reactor::Interest;
    /// use std::io::Write;
    /// use std::time::Duration;
    ///
    /// let (mut driver, handle) = rt_reactor::Driver::with_capacities(8, 1).unwrap();
    /// let mut pairs: Vec<_> = (0..3).map(|_| mio::net::UnixStream::pair().unwrap()).collect();
    /// let registrations: Vec<_> = pairs
    ///     .iter_mut()
    ///     .map(|(a, b)| {
    ///         b.write_all(b"x").unwrap();
    ///         handle.register(a, Interest::READABLE).unwrap()
    ///     })
    ///     .collect();
    /// // A turn that does not wait takes one event; one that may wait, the rest.
    /// assert_eq!(driver.turn(Some(Duration::ZERO)).unwrap(), 1);
    /// assert_eq!(driver.turn(Some(Duration::from_secs(5))).unwrap(), 2);
    /// # for (registration, (a, _)) in registrations.into_iter().zip(&mut pairs) {
    /// #     registration.deregister(a).unwrap();
    /// # }
    /// ```
    #[track_caller]
    pub fn with_capacities(
        events_per_turn: usize,
        events_per_busy_turn: usize,
    ) -> io::Result<(Driver, Handle)> {
        assert!(
            events_per_turn > 0 && events_per_busy_turn > 0,
            "rt-reactor: a driver needs room for at least 1 event per turn"
        );
        let poll = mio::Poll::new()?;
        let waker = mio::Waker::new(poll.registry(), WAKER_TOKEN)?;
        let registry = poll.registry().try_clone()?;
        let inner = Arc::new(Inner {
            registry,
            waker,
            cells: CellTable::new(),
            is_shutdown: AtomicBool::new(false),
            dispatched: AtomicU64::new(0),
        });
        let driver = Driver {
            poll,
            events: mio::Events::with_capacity(events_per_turn),
            busy_events: (events_per_busy_turn != events_per_turn)
                .then(|| mio::Events::with_capacity(events_per_busy_turn)),
            wake: Vec::new(),
            inner: inner.clone(),
        };
        Ok((driver, Handle { inner }))
    }

    /// Blocks until an event arrives, [`Handle::unpark`] is called or
    /// `timeout` passes (`None`: no limit, `Some(ZERO)`: just poll), then
    /// records readiness and wakes the waiters. Returns the number of
    /// events dispatched to registrations.
    ///
    /// # Errors
    ///
    /// Returns the poller's error; an interrupted wait (`EINTR`) is not an
    /// error and returns `Ok(0)`.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let (mut driver, _handle) = rt_reactor::Driver::new().unwrap();
    /// assert_eq!(driver.turn(Some(Duration::ZERO)).unwrap(), 0);
    /// ```
    pub fn turn(&mut self, timeout: Option<Duration>) -> io::Result<usize> {
        let mut wake = std::mem::take(&mut self.wake);
        let result = self.turn_deferred(timeout, &mut wake);
        wake.drain(..).for_each(Waker::wake);
        self.wake = wake;
        result
    }

    /// As [`turn`](Driver::turn), but instead of waking the waiters, pushes
    /// their wakers onto `wake`: for a caller that holds a lock of its own
    /// around the turn (a runtime's driver lock), to wake them once it has
    /// released it.
    ///
    /// # Errors
    ///
    /// As [`turn`](Driver::turn).
    ///
    /// # Examples
    ///
    /// ```
    /// use rt_reactor::{Direction, Driver, Interest};
    /// use std::io::Write;
    /// use std::sync::Mutex;
    /// use std::task::{Context, Waker};
    /// use std::time::Duration;
    ///
    /// let (driver, handle) = Driver::new().unwrap();
    /// let driver = Mutex::new(driver);
    /// let (mut a, mut b) = mio::net::UnixStream::pair().unwrap();
    /// let registration = handle.register(&mut a, Interest::READABLE).unwrap();
    /// let mut waiter = registration.waiter(Direction::Read);
    /// assert!(waiter.poll_ready(&mut Context::from_waker(Waker::noop())).is_pending());
    /// b.write_all(b"x").unwrap();
    /// let mut wake = Vec::new();
    /// while wake.is_empty() {
    ///     let mut guard = driver.lock().unwrap();
    ///     guard.turn_deferred(Some(Duration::from_secs(1)), &mut wake).unwrap();
    /// }
    /// // The lock is released: now wake.
    /// wake.into_iter().for_each(Waker::wake);
    /// drop(waiter);
    /// registration.deregister(&mut a).unwrap();
    /// ```
    pub fn turn_deferred(
        &mut self,
        timeout: Option<Duration>,
        wake: &mut Vec<Waker>,
    ) -> io::Result<usize> {
        // Every event collected before now has been dispatched: the cells
        // released since the last turn may go to new registrations.
        self.inner.cells.recycle();
        let events = match &mut self.busy_events {
            Some(busy) if timeout == Some(Duration::ZERO) => busy,
            _ => &mut self.events,
        };
        match self.poll.poll(events, timeout) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => return Ok(0),
            Err(e) => return Err(e),
        }
        Ok(self.inner.dispatch(events, wake))
    }

    /// Shuts the reactor down: every registration is marked shut down and
    /// its waiters are woken (their `poll_ready` then fails), and new
    /// registrations are refused.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt_reactor::Interest;
    ///
    /// let (mut driver, handle) = rt_reactor::Driver::new().unwrap();
    /// driver.shutdown();
    /// let (mut a, _b) = mio::net::UnixStream::pair().unwrap();
    /// assert!(handle.register(&mut a, Interest::READABLE).is_err());
    /// ```
    pub fn shutdown(&mut self) {
        let mut wake = std::mem::take(&mut self.wake);
        self.shutdown_deferred(&mut wake);
        wake.drain(..).for_each(Waker::wake);
        self.wake = wake;
    }

    /// As [`shutdown`](Driver::shutdown), but pushes the waiters' wakers
    /// onto `wake` instead of waking them (see
    /// [`turn_deferred`](Driver::turn_deferred)).
    ///
    /// # Examples
    ///
    /// ```
    /// let (mut driver, handle) = rt_reactor::Driver::new().unwrap();
    /// let mut wake = Vec::new();
    /// driver.shutdown_deferred(&mut wake);
    /// assert!(handle.is_shutdown());
    /// wake.into_iter().for_each(std::task::Waker::wake);
    /// ```
    pub fn shutdown_deferred(&mut self, wake: &mut Vec<Waker>) {
        self.inner.is_shutdown.store(true, Ordering::SeqCst);
        self.inner.cells.for_each(|cell| cell.shutdown(wake));
    }

    /// A handle to this driver.
    ///
    /// # Examples
    ///
    /// ```
    /// let (driver, _) = rt_reactor::Driver::new().unwrap();
    /// driver.handle().unpark().unwrap();
    /// ```
    pub fn handle(&self) -> Handle {
        Handle {
            inner: self.inner.clone(),
        }
    }
}

impl Handle {
    /// Registers `source` for `interest` and returns its readiness cell.
    /// Call [`Registration::deregister`] before closing the source.
    ///
    /// # Errors
    ///
    /// Fails if the driver has shut down, if there are more than 2^24 - 1
    /// live registrations, or with the OS error of the registration.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt_reactor::Interest;
    ///
    /// let (_driver, handle) = rt_reactor::Driver::new().unwrap();
    /// let mut listener = mio::net::TcpListener::bind("127.0.0.1:0".parse().unwrap()).unwrap();
    /// let registration = handle.register(&mut listener, Interest::READABLE).unwrap();
    /// registration.deregister(&mut listener).unwrap();
    /// ```
    pub fn register(
        &self,
        source: &mut impl mio::event::Source,
        interest: Interest,
    ) -> io::Result<Registration> {
        self.register_assuming(source, interest, Ready::EMPTY)
    }

    /// As [`register`](Handle::register), with `assumed` recorded as
    /// ready from the start, as if the poller had already reported it:
    /// for a source whose state is known when it is made. An accepted
    /// socket has room to write and usually already holds the peer's first
    /// bytes (whose event may queue behind every other connection's under
    /// load); both ends of a fresh socket pair have room to write. A wrong
    /// guess costs the first operation one `WouldBlock`, which clears the
    /// assumption as it clears any readiness (unless an event arrived
    /// since).
    ///
    /// The readiness is in the cell before the source enters the poller
    /// and before the [`Registration`] exists, so no waiter is there to
    /// miss or receive a wake for it, and no event can be overwritten by
    /// it (see `ReadinessCell::reset`).
    ///
    /// # Errors
    ///
    /// As [`register`](Handle::register).
    ///
    /// # Examples
    ///
    /// ```
    /// use rt_reactor::{Direction, Driver, Interest, Ready};
    /// use std::io::{ErrorKind, Write};
    ///
    /// let (_driver, handle) = Driver::new().unwrap();
    /// let (mut a, _b) = mio::net::UnixStream::pair().unwrap();
    /// let both = Interest::READABLE | Interest::WRITABLE;
    /// let registration = handle.register_assuming(&mut a, both, Ready::WRITABLE).unwrap();
    /// // Writable before the driver ever turned.
    /// let event = registration.try_ready(Direction::Write).unwrap().unwrap();
    /// assert!(event.ready().is_writable());
    /// assert!(registration.try_ready(Direction::Read).is_none());
    /// registration.deregister(&mut a).unwrap();
    /// ```
    pub fn register_assuming(
        &self,
        source: &mut impl mio::event::Source,
        interest: Interest,
        assumed: Ready,
    ) -> io::Result<Registration> {
        if self.inner.is_shutdown.load(Ordering::SeqCst) {
            return Err(shutdown_error());
        }
        let (index, generation) = self.inner.cells.insert(assumed)?;
        let token = mio::Token(index | (generation << INDEX_BITS));
        if let Err(e) = self
            .inner
            .registry
            .register(source, token, interest.to_mio())
        {
            self.give_back(index);
            return Err(e);
        }
        let registration = Registration::new(self.clone(), index);
        // A shutdown that ran before the cell was handed out marked it
        // and then `insert` reset it; mark it again so its users do not
        // wait forever.
        if self.inner.is_shutdown.load(Ordering::SeqCst) {
            let mut wake = Vec::new();
            registration.cell().shutdown(&mut wake);
        }
        Ok(registration)
    }

    /// Wakes the thread blocked in [`Driver::turn`], or makes its next turn
    /// return at once.
    ///
    /// # Errors
    ///
    /// Returns the OS error of the underlying eventfd/pipe write.
    ///
    /// # Examples
    ///
    /// ```
    /// let (mut driver, handle) = rt_reactor::Driver::new().unwrap();
    /// std::thread::spawn(move || handle.unpark().unwrap());
    /// driver.turn(None).unwrap();
    /// ```
    pub fn unpark(&self) -> io::Result<()> {
        self.inner.waker.wake()
    }

    /// `true` once [`Driver::shutdown`] ran.
    ///
    /// # Examples
    ///
    /// ```
    /// let (mut driver, handle) = rt_reactor::Driver::new().unwrap();
    /// assert!(!handle.is_shutdown());
    /// driver.shutdown();
    /// assert!(handle.is_shutdown());
    /// ```
    pub fn is_shutdown(&self) -> bool {
        self.inner.is_shutdown.load(Ordering::SeqCst)
    }

    /// The number of live registrations.
    ///
    /// # Examples
    ///
    /// ```
    /// let (_driver, handle) = rt_reactor::Driver::new().unwrap();
    /// assert_eq!(handle.num_registrations(), 0);
    /// ```
    pub fn num_registrations(&self) -> usize {
        self.inner.cells.len()
    }

    /// How many readiness events the driver has dispatched to
    /// registrations over all its turns (what [`Driver::turn`] returned,
    /// summed).
    ///
    /// # Examples
    ///
    /// ```
    /// use rt_reactor::Interest;
    /// use std::io::Write;
    /// use std::time::Duration;
    ///
    /// let (mut driver, handle) = rt_reactor::Driver::new().unwrap();
    /// let (mut a, mut b) = mio::net::UnixStream::pair().unwrap();
    /// let registration = handle.register(&mut a, Interest::READABLE).unwrap();
    /// b.write_all(b"x").unwrap();
    /// let mut turned = 0;
    /// while turned == 0 {
    ///     turned = driver.turn(Some(Duration::from_secs(1))).unwrap();
    /// }
    /// assert_eq!(handle.dispatched_events(), turned as u64);
    /// registration.deregister(&mut a).unwrap();
    /// ```
    pub fn dispatched_events(&self) -> u64 {
        self.inner.dispatched.load(Ordering::Relaxed)
    }

    pub(crate) fn deregister(&self, source: &mut impl mio::event::Source) -> io::Result<()> {
        self.inner.registry.deregister(source)
    }

    /// Gives the cell at `index` back to the table (its registration is
    /// gone, its source deregistered).
    pub(crate) fn release(&self, index: usize) {
        self.give_back(index);
    }

    /// Gives the cell at `index` back to the table, reusable from the
    /// driver's next turn on, and wakes the driver if enough cells wait
    /// for that turn (`cell_table`, step 4).
    fn give_back(&self, index: usize) {
        if self.inner.cells.remove(index) {
            // A failed wake only delays reuse until the driver's next
            // turn, whatever ends it.
            let _ = self.unpark();
        }
    }

    /// Retires the cell at `index` (its registration is gone, but its
    /// source may still be in the poller).
    pub(crate) fn retire(&self, index: usize) {
        self.inner.cells.retire(index);
    }
}

impl Inner {
    /// Records the readiness `events` report in their cells and pushes the
    /// wakers it releases onto `wake`; returns how many events reached a
    /// registration.
    fn dispatch(&self, events: &mio::Events, wake: &mut Vec<Waker>) -> usize {
        let mut dispatched = 0;
        for event in events.iter() {
            let token = event.token();
            if token == WAKER_TOKEN {
                continue;
            }
            let index = token.0 & INDEX_MASK;
            let generation = token.0 >> INDEX_BITS;
            // An event for a registration that is gone (or whose cell has
            // a new owner) changes nothing.
            if let Some(cell) = self.cells.get(index) {
                if cell.set_ready(generation, Ready::from_event(event), wake) {
                    dispatched += 1;
                }
            }
        }
        if dispatched > 0 {
            self.dispatched
                .fetch_add(dispatched as u64, Ordering::Relaxed);
        }
        dispatched
    }
}

impl fmt::Debug for Driver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Driver").finish_non_exhaustive()
    }
}

impl fmt::Debug for Handle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Handle")
            .field("is_shutdown", &self.is_shutdown())
            .finish_non_exhaustive()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::io::Write;

    /// An event the driver collected before its socket went, dispatched
    /// after the socket's cell was handed out 128 times (so that the
    /// generation came back to the event's), does not reach the socket
    /// that holds the cell then: no cell is handed out again before the
    /// batch that may name it is dispatched.
    #[test]
    fn an_event_collected_before_a_release_skips_the_cells_later_owners() {
        let (mut driver, handle) = Driver::new().unwrap();
        let (mut old, mut old_peer) = mio::net::UnixStream::pair().unwrap();
        let registration = handle.register(&mut old, Interest::READABLE).unwrap();
        old_peer.write_all(b"stale").unwrap();
        // The first half of a turn: the event is collected...
        let timeout = Some(Duration::from_secs(5));
        driver.poll.poll(&mut driver.events, timeout).unwrap();
        assert!(driver.events.iter().any(|e| e.token() != WAKER_TOKEN));
        // ...and before it is dispatched, its socket goes and new sockets
        // register, each going before the next comes, until a generation
        // has wrapped around.
        registration.deregister(&mut old).unwrap();
        drop(registration);
        drop(old);
        let (mut new, _new_peer) = mio::net::UnixStream::pair().unwrap();
        let mut fresh = handle.register(&mut new, Interest::READABLE).unwrap();
        for _ in 0..GENERATION_MASK {
            fresh.deregister(&mut new).unwrap();
            drop(fresh);
            fresh = handle.register(&mut new, Interest::READABLE).unwrap();
        }
        // The second half of the turn.
        let mut wake = Vec::new();
        driver.inner.dispatch(&driver.events, &mut wake);
        assert!(
            fresh.readiness().is_empty(),
            "the stale event reached a new socket: {:?}",
            fresh.readiness()
        );
        fresh.deregister(&mut new).unwrap();
        drop(fresh);
        // The cells come back at the next turn.
        let before = handle.inner.cells.handed_out();
        driver.turn(Some(Duration::ZERO)).unwrap();
        let (mut again, _again_peer) = mio::net::UnixStream::pair().unwrap();
        let reused = handle.register(&mut again, Interest::READABLE).unwrap();
        assert_eq!(handle.inner.cells.handed_out(), before);
        reused.deregister(&mut again).unwrap();
    }
}
