//! One registered source's handle on its readiness cell.

use crate::cell::{ReadinessCell, Slot};
use crate::driver::Handle;
use crate::ready::{Direction, Interest, Ready, ReadyEvent};
use crate::waiter::ReadyWaiter;
use std::fmt;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, Waker};

/// The readiness of one registered source, and per direction (read,
/// write) the list of tasks waiting on it.
///
/// Two ways to wait:
/// - [`Registration::waiter`] gives a future its own place in the list, so
///   any number of tasks can wait in one direction at once (acceptors
///   sharing a listener, receivers sharing a UDP socket); an edge wakes
///   them all, and dropping the waiter frees its place;
/// - [`Registration::poll_ready`] is for `poll_*` methods, which have no
///   future to own a place: each direction has one shared slot, and the
///   last waker stored there wins.
///
/// Dropping the registration wakes any waiter and frees its cell for the
/// next registration, provided [`deregister`](Registration::deregister)
/// succeeded first. Otherwise the poller may still report events for the
/// source under this registration's token, so the cell is retired instead:
/// never handed out again, it absorbs those events (a small leak, rather
/// than a late event reaching another socket).
///
/// # Examples
///
/// ```
/// use rt_reactor::{Direction, Driver, Interest};
/// use std::io::{ErrorKind, Read};
/// use std::task::{Context, Poll, Waker};
///
/// let (mut driver, handle) = Driver::new().unwrap();
/// let (mut a, _b) = mio::net::UnixStream::pair().unwrap();
/// let registration = handle.register(&mut a, Interest::READABLE).unwrap();
/// let mut cx = Context::from_waker(Waker::noop());
/// // Nothing to read: the read would block, so the waiter is parked.
/// assert_eq!(a.read(&mut [0; 8]).unwrap_err().kind(), ErrorKind::WouldBlock);
/// assert!(registration.poll_ready(&mut cx, Direction::Read).is_pending());
/// registration.deregister(&mut a).unwrap();
/// ```
pub struct Registration {
    handle: Handle,
    /// The cell's index in the reactor's table (held until drop).
    index: usize,
    /// A `deregister` succeeded: the poller reports nothing more under
    /// this registration's token, so its cell can be reused.
    deregistered: AtomicBool,
}

impl Registration {
    pub(crate) fn new(handle: Handle, index: usize) -> Registration {
        Registration {
            handle,
            index,
            deregistered: AtomicBool::new(false),
        }
    }

    pub(crate) fn cell(&self) -> &ReadinessCell {
        self.handle
            .inner
            .cells
            .get(self.index)
            .expect("a registration's cell lives as long as its reactor")
    }

    /// `Ready` with the readiness of `direction` once the driver reported
    /// it, otherwise stores the waker in `direction`'s shared slot and
    /// returns `Pending`.
    ///
    /// The shared slot holds one waker: a second task polling the same
    /// direction replaces the first one's waker, and the first is not woken
    /// (the last waker wins). That suits a source polled by one task at a
    /// time (an `AsyncRead` impl); a future that may wait alongside others
    /// uses a [`ReadyWaiter`] from [`Registration::waiter`].
    ///
    /// # Errors
    ///
    /// Fails once the driver has shut down.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt_reactor::{Direction, Driver, Interest};
    /// use std::task::{Context, Poll, Waker};
    /// use std::time::Duration;
    ///
    /// let (mut driver, handle) = Driver::new().unwrap();
    /// let (mut a, _b) = mio::net::UnixStream::pair().unwrap();
    /// let registration = handle.register(&mut a, Interest::WRITABLE).unwrap();
    /// let mut cx = Context::from_waker(Waker::noop());
    /// let event = loop {
    ///     driver.turn(Some(Duration::from_secs(1))).unwrap();
    ///     if let Poll::Ready(event) = registration.poll_ready(&mut cx, Direction::Write) {
    ///         break event.unwrap();
    ///     }
    /// };
    /// assert!(event.ready().is_writable());
    /// registration.deregister(&mut a).unwrap();
    /// ```
    pub fn poll_ready(
        &self,
        cx: &mut Context<'_>,
        direction: Direction,
    ) -> Poll<io::Result<ReadyEvent>> {
        self.cell()
            .poll_ready(cx, direction.mask(), Slot::Shared(direction))
    }

    /// A waiter with its own place in `direction`'s list (taken on its
    /// first `Pending`, freed when it drops), for a future that may wait
    /// alongside other tasks. See [`ReadyWaiter`].
    ///
    /// # Examples
    ///
    /// ```
    /// use rt_reactor::{Direction, Driver, Interest};
    /// use std::task::{Context, Waker};
    ///
    /// let (_driver, handle) = Driver::new().unwrap();
    /// let (mut a, _b) = mio::net::UnixStream::pair().unwrap();
    /// let registration = handle.register(&mut a, Interest::READABLE).unwrap();
    /// let mut waiter = registration.waiter(Direction::Read);
    /// let mut cx = Context::from_waker(Waker::noop());
    /// assert!(waiter.poll_ready(&mut cx).is_pending());
    /// drop(waiter); // frees its place
    /// registration.deregister(&mut a).unwrap();
    /// ```
    pub fn waiter(&self, direction: Direction) -> ReadyWaiter<'_> {
        ReadyWaiter::new(self.cell(), direction.mask())
    }

    /// A waiter for the readiness states of `interest`
    /// ([`Interest::mask`]), with its own place in each direction's list
    /// the interest needs: reading and writing at once, or errors alone.
    /// See [`ReadyWaiter`].
    ///
    /// # Examples
    ///
    /// ```
    /// use rt_reactor::{Driver, Interest};
    /// use std::task::{Context, Poll, Waker};
    /// use std::time::Duration;
    ///
    /// let (mut driver, handle) = Driver::new().unwrap();
    /// let (mut a, _b) = mio::net::UnixStream::pair().unwrap();
    /// let registration = handle
    ///     .register(&mut a, Interest::READABLE | Interest::WRITABLE)
    ///     .unwrap();
    /// let mut waiter = registration.waiter_for(Interest::READABLE | Interest::WRITABLE);
    /// let mut cx = Context::from_waker(Waker::noop());
    /// // Nothing to read, but room to write: the write side answers.
    /// let event = loop {
    ///     if let Poll::Ready(event) = waiter.poll_ready(&mut cx) {
    ///         break event.unwrap();
    ///     }
    ///     driver.turn(Some(Duration::from_secs(1))).unwrap();
    /// };
    /// assert!(event.ready().is_writable() && !event.ready().is_readable());
    /// drop(waiter);
    /// registration.deregister(&mut a).unwrap();
    /// ```
    pub fn waiter_for(&self, interest: Interest) -> ReadyWaiter<'_> {
        ReadyWaiter::new(self.cell(), interest.mask())
    }

    /// The readiness of `direction` recorded right now, without storing a
    /// waker: `None` if nothing is ready. For one-shot `try_*` operations:
    /// readiness recorded before the driver shut down still counts (the
    /// operation may find what the kernel queued before).
    ///
    /// # Errors
    ///
    /// `Some(Err(_))` once the driver has shut down and nothing in
    /// `direction` is ready.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt_reactor::{Direction, Driver, Interest};
    ///
    /// let (_driver, handle) = Driver::new().unwrap();
    /// let (mut a, _b) = mio::net::UnixStream::pair().unwrap();
    /// let registration = handle.register(&mut a, Interest::READABLE).unwrap();
    /// assert!(registration.try_ready(Direction::Read).is_none());
    /// registration.deregister(&mut a).unwrap();
    /// ```
    pub fn try_ready(&self, direction: Direction) -> Option<io::Result<ReadyEvent>> {
        self.cell().check_for_attempt(direction.mask())
    }

    /// The readiness states of `interest` ([`Interest::mask`]) recorded
    /// right now, without storing a waker: `None` if there are none. As
    /// [`try_ready`](Registration::try_ready), readiness recorded before a
    /// shutdown still counts.
    ///
    /// # Errors
    ///
    /// `Some(Err(_))` once the driver has shut down and none of
    /// `interest`'s states is ready.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt_reactor::{Driver, Interest};
    ///
    /// let (_driver, handle) = Driver::new().unwrap();
    /// let (mut a, _b) = mio::net::UnixStream::pair().unwrap();
    /// let registration = handle.register(&mut a, Interest::READABLE).unwrap();
    /// assert!(registration.try_ready_for(Interest::ERROR).is_none());
    /// registration.deregister(&mut a).unwrap();
    /// ```
    pub fn try_ready_for(&self, interest: Interest) -> Option<io::Result<ReadyEvent>> {
        self.cell().check_for_attempt(interest.mask())
    }

    /// Forgets the readiness in `event` (after the operation returned
    /// `WouldBlock`), unless a newer event arrived since `event` was seen.
    /// Closed states are never cleared.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt_reactor::{Direction, Driver, Interest};
    /// use std::task::{Context, Poll, Waker};
    /// use std::time::Duration;
    ///
    /// let (mut driver, handle) = Driver::new().unwrap();
    /// let (mut a, _b) = mio::net::UnixStream::pair().unwrap();
    /// let registration = handle.register(&mut a, Interest::WRITABLE).unwrap();
    /// let mut cx = Context::from_waker(Waker::noop());
    /// let event = loop {
    ///     driver.turn(Some(Duration::from_secs(1))).unwrap();
    ///     if let Poll::Ready(event) = registration.poll_ready(&mut cx, Direction::Write) {
    ///         break event.unwrap();
    ///     }
    /// };
    /// registration.clear_readiness(event);
    /// assert!(!registration.readiness().is_writable());
    /// registration.deregister(&mut a).unwrap();
    /// ```
    pub fn clear_readiness(&self, event: ReadyEvent) {
        self.cell().clear_ready(event);
    }

    /// As [`clear_readiness`](Registration::clear_readiness), closed states
    /// included: for an operation that returned `WouldBlock` under the
    /// readiness in `event`. That result proves the side open, whatever
    /// the poller said before: a FIFO's read side reopens when a new writer
    /// opens it after the last one left (and its write side when a new
    /// reader does), with no event to say so. A closed state left set would
    /// end every later wait at once, so a read loop would spin on
    /// `WouldBlock` without yielding.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt_reactor::{Direction, Driver, Interest};
    /// use std::task::{Context, Poll, Waker};
    /// use std::time::Duration;
    ///
    /// let (mut driver, handle) = Driver::new().unwrap();
    /// let (mut a, b) = mio::net::UnixStream::pair().unwrap();
    /// let registration = handle.register(&mut a, Interest::READABLE).unwrap();
    /// drop(b);
    /// let mut cx = Context::from_waker(Waker::noop());
    /// let event = loop {
    ///     driver.turn(Some(Duration::from_secs(1))).unwrap();
    ///     if let Poll::Ready(event) = registration.poll_ready(&mut cx, Direction::Read) {
    ///         break event.unwrap();
    ///     }
    /// };
    /// assert!(event.ready().is_read_closed());
    /// registration.clear_readiness(event);
    /// assert!(registration.readiness().is_read_closed());
    /// registration.clear_readiness_reopened(event);
    /// assert!(!registration.readiness().is_read_closed());
    /// registration.deregister(&mut a).unwrap();
    /// ```
    pub fn clear_readiness_reopened(&self, event: ReadyEvent) {
        self.cell().clear_ready_reopened(event);
    }

    /// The readiness recorded right now (a snapshot).
    ///
    /// # Examples
    ///
    /// ```
    /// use rt_reactor::{Driver, Interest};
    ///
    /// let (_driver, handle) = Driver::new().unwrap();
    /// let (mut a, _b) = mio::net::UnixStream::pair().unwrap();
    /// let registration = handle.register(&mut a, Interest::READABLE).unwrap();
    /// assert!(registration.readiness().is_empty());
    /// registration.deregister(&mut a).unwrap();
    /// ```
    pub fn readiness(&self) -> Ready {
        self.cell().readiness()
    }

    /// Removes `source` (the source this registration was made for) from
    /// the poller. The cell itself is freed for reuse when the
    /// registration drops; without a successful deregistration it is
    /// retired instead (see [`Registration`]).
    ///
    /// # Errors
    ///
    /// Returns the OS error of the deregistration (e.g. `source` was not
    /// registered with this driver).
    ///
    /// # Examples
    ///
    /// ```
    /// use rt_reactor::{Driver, Interest};
    ///
    /// let (_driver, handle) = Driver::new().unwrap();
    /// let (mut a, _b) = mio::net::UnixStream::pair().unwrap();
    /// let registration = handle.register(&mut a, Interest::READABLE).unwrap();
    /// registration.deregister(&mut a).unwrap();
    /// ```
    pub fn deregister(&self, source: &mut impl mio::event::Source) -> io::Result<()> {
        self.handle.deregister(source)?;
        self.deregistered.store(true, Ordering::Release);
        Ok(())
    }

    /// The driver this registration belongs to.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt_reactor::{Driver, Interest};
    ///
    /// let (_driver, handle) = Driver::new().unwrap();
    /// let (mut a, _b) = mio::net::UnixStream::pair().unwrap();
    /// let registration = handle.register(&mut a, Interest::READABLE).unwrap();
    /// assert!(!registration.handle().is_shutdown());
    /// registration.deregister(&mut a).unwrap();
    /// ```
    pub fn handle(&self) -> &Handle {
        &self.handle
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        // Waiters of a dropped registration (a `poll_*` caller's waker in
        // a shared slot) get a spurious wake and find the source gone. The
        // wakers are taken out before the cell goes back to the table, so
        // its next owner starts with none.
        let mut wake: Vec<Waker> = Vec::new();
        self.cell().shutdown(&mut wake);
        if self.deregistered.load(Ordering::Acquire) {
            self.handle.release(self.index);
        } else {
            self.handle.retire(self.index);
        }
        wake.into_iter().for_each(Waker::wake);
    }
}

impl fmt::Debug for Registration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Registration")
            .field("index", &self.index)
            .field("readiness", &self.readiness())
            .finish()
    }
}
