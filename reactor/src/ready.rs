//! The readiness and interest sets.

use std::fmt;
use std::ops;

/// A set of readiness states reported by the OS for a source.
///
/// # Examples
///
/// ```
/// use rt_reactor::Ready;
///
/// let ready = Ready::READABLE | Ready::READ_CLOSED;
/// assert!(ready.is_readable());
/// assert!(ready.is_read_closed());
/// assert!(!ready.is_writable());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Ready(u8);

impl Ready {
    /// Nothing is ready.
    pub const EMPTY: Ready = Ready(0);
    /// A read would not block.
    pub const READABLE: Ready = Ready(0b1);
    /// A write would not block.
    pub const WRITABLE: Ready = Ready(0b10);
    /// The read side is closed (the peer shut down writing or hung up).
    pub const READ_CLOSED: Ready = Ready(0b100);
    /// The write side is closed (the peer hung up).
    pub const WRITE_CLOSED: Ready = Ready(0b1000);
    /// The source has an error pending (`SO_ERROR`).
    pub const ERROR: Ready = Ready(0b1_0000);
    /// Priority (out-of-band) data is available.
    pub const PRIORITY: Ready = Ready(0b10_0000);
    /// Every readiness state.
    pub const ALL: Ready = Ready(0b11_1111);

    /// Builds a set from the bits of [`Ready::bits`]; unknown bits are dropped.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt_reactor::Ready;
    /// assert_eq!(Ready::from_bits(Ready::WRITABLE.bits()), Ready::WRITABLE);
    /// ```
    pub const fn from_bits(bits: u8) -> Ready {
        Ready(bits & Ready::ALL.0)
    }

    /// The raw bits of the set.
    ///
    /// # Examples
    ///
    /// ```
    /// assert_eq!(rt_reactor::Ready::EMPTY.bits(), 0);
    /// ```
    pub const fn bits(self) -> u8 {
        self.0
    }

    /// The bits laid out as tokio's `Ready` lays them out: its `PRIORITY`
    /// bit sits below its `ERROR` bit, the other way round from rt's.
    fn tokio_layout(self) -> u8 {
        let both = Ready::PRIORITY.0 | Ready::ERROR.0;
        let swapped = ((self.0 & Ready::PRIORITY.0) >> 1) | ((self.0 & Ready::ERROR.0) << 1);
        (self.0 & !both) | swapped
    }

    pub(crate) fn from_event(event: &mio::event::Event) -> Ready {
        let mut ready = Ready::EMPTY;
        if event.is_readable() {
            ready |= Ready::READABLE;
        }
        if event.is_writable() {
            ready |= Ready::WRITABLE;
        }
        if event.is_read_closed() {
            ready |= Ready::READ_CLOSED;
        }
        if event.is_write_closed() {
            ready |= Ready::WRITE_CLOSED;
        }
        if event.is_error() {
            ready |= Ready::ERROR;
        }
        if event.is_priority() {
            ready |= Ready::PRIORITY;
        }
        ready
    }

    /// `true` if nothing is ready.
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(rt_reactor::Ready::EMPTY.is_empty());
    /// ```
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// `true` if every state in `other` is in `self`.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt_reactor::Ready;
    /// assert!(Ready::ALL.contains(Ready::ERROR));
    /// ```
    pub const fn contains(self, other: Ready) -> bool {
        self.0 & other.0 == other.0
    }

    /// `true` if the set holds [`Ready::READABLE`] or
    /// [`Ready::READ_CLOSED`]: a read would not block (on a closed read
    /// side it returns end-of-file at once), as tokio's `is_readable`.
    ///
    /// A closed side may be reported alone (a pipe whose last writer left
    /// it empty hangs up without saying it is readable), and it stays
    /// reported: a loop that waits for readiness and reads only when this
    /// holds would otherwise never read, and never wait either.
    /// `contains(Ready::READABLE)` asks for the state alone.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt_reactor::Ready;
    /// assert!(Ready::READABLE.is_readable());
    /// assert!(Ready::READ_CLOSED.is_readable());
    /// assert!(!Ready::WRITABLE.is_readable());
    /// ```
    pub const fn is_readable(self) -> bool {
        self.0 & (Ready::READABLE.0 | Ready::READ_CLOSED.0) != 0
    }

    /// `true` if the set holds [`Ready::WRITABLE`] or
    /// [`Ready::WRITE_CLOSED`]: a write would not block (on a closed write
    /// side it fails at once), as tokio's `is_writable`. See
    /// [`is_readable`](Ready::is_readable) for why (a pipe whose last
    /// reader left it full reports an error alone).
    /// `contains(Ready::WRITABLE)` asks for the state alone.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt_reactor::Ready;
    /// assert!(Ready::WRITABLE.is_writable());
    /// assert!(Ready::WRITE_CLOSED.is_writable());
    /// assert!(!Ready::READABLE.is_writable());
    /// ```
    pub const fn is_writable(self) -> bool {
        self.0 & (Ready::WRITABLE.0 | Ready::WRITE_CLOSED.0) != 0
    }

    /// `true` if the set holds [`Ready::READ_CLOSED`].
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(rt_reactor::Ready::READ_CLOSED.is_read_closed());
    /// ```
    pub const fn is_read_closed(self) -> bool {
        self.0 & Ready::READ_CLOSED.0 != 0
    }

    /// `true` if the set holds [`Ready::WRITE_CLOSED`].
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(rt_reactor::Ready::WRITE_CLOSED.is_write_closed());
    /// ```
    pub const fn is_write_closed(self) -> bool {
        self.0 & Ready::WRITE_CLOSED.0 != 0
    }

    /// `true` if the set holds [`Ready::ERROR`].
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(rt_reactor::Ready::ERROR.is_error());
    /// ```
    pub const fn is_error(self) -> bool {
        self.0 & Ready::ERROR.0 != 0
    }

    /// `true` if the set holds [`Ready::PRIORITY`].
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(rt_reactor::Ready::PRIORITY.is_priority());
    /// ```
    pub const fn is_priority(self) -> bool {
        self.0 & Ready::PRIORITY.0 != 0
    }
}

impl ops::BitOr for Ready {
    type Output = Ready;
    fn bitor(self, other: Ready) -> Ready {
        Ready(self.0 | other.0)
    }
}

impl ops::BitOrAssign for Ready {
    fn bitor_assign(&mut self, other: Ready) {
        self.0 |= other.0;
    }
}

impl ops::BitAnd for Ready {
    type Output = Ready;
    fn bitand(self, other: Ready) -> Ready {
        Ready(self.0 & other.0)
    }
}

impl ops::Sub for Ready {
    type Output = Ready;
    fn sub(self, other: Ready) -> Ready {
        Ready(self.0 & !other.0)
    }
}

impl fmt::Debug for Ready {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const NAMES: [(Ready, &str); 6] = [
            (Ready::READABLE, "READABLE"),
            (Ready::WRITABLE, "WRITABLE"),
            (Ready::READ_CLOSED, "READ_CLOSED"),
            (Ready::WRITE_CLOSED, "WRITE_CLOSED"),
            (Ready::ERROR, "ERROR"),
            (Ready::PRIORITY, "PRIORITY"),
        ];
        let mut set = f.debug_set();
        for (bit, name) in NAMES {
            if self.contains(bit) {
                set.entry(&format_args!("{name}"));
            }
        }
        set.finish()
    }
}

/// Which readiness a registration asks the OS to report, and which
/// readiness a waiter waits for ([`Registration::waiter_for`](crate::Registration::waiter_for)).
///
/// Never empty: the constants and [`add`](Interest::add) build it, and
/// [`remove`](Interest::remove) returns `None` rather than an empty set.
///
/// # Examples
///
/// ```
/// use rt_reactor::Interest;
///
/// let both = Interest::READABLE | Interest::WRITABLE;
/// assert!(both.is_readable() && both.is_writable());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Interest(u8);

const READABLE: u8 = 0b1;
const WRITABLE: u8 = 0b10;
const PRIORITY: u8 = 0b100;
const ERROR: u8 = 0b1000;

impl Interest {
    /// Interest in read readiness (also reports read-closed and errors).
    pub const READABLE: Interest = Interest(READABLE);
    /// Interest in write readiness (also reports write-closed and errors).
    pub const WRITABLE: Interest = Interest(WRITABLE);
    /// Interest in priority (out-of-band) readiness: urgent TCP data, a
    /// changed `/proc/self/mounts`. The OS reports it only on Linux and
    /// Android, and only for a source registered with this interest.
    pub const PRIORITY: Interest = Interest(PRIORITY);
    /// Interest in error readiness alone (an error queued on the socket).
    ///
    /// The OS reports errors whatever the registration asked for, so this
    /// adds nothing to a registration (one of `ERROR` alone registers for
    /// reading, as the poller needs some interest); it matters to a waiter,
    /// which then waits for an error and nothing else.
    pub const ERROR: Interest = Interest(ERROR);

    /// Both interests.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt_reactor::Interest;
    /// assert!(Interest::READABLE.add(Interest::WRITABLE).is_writable());
    /// ```
    pub const fn add(self, other: Interest) -> Interest {
        Interest(self.0 | other.0)
    }

    /// `self` without `other`; `None` if nothing is left.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt_reactor::Interest;
    /// let both = Interest::READABLE | Interest::WRITABLE;
    /// assert_eq!(both.remove(Interest::WRITABLE), Some(Interest::READABLE));
    /// assert_eq!(Interest::ERROR.remove(Interest::ERROR), None);
    /// ```
    pub const fn remove(self, other: Interest) -> Option<Interest> {
        let left = self.0 & !other.0;
        if left == 0 {
            None
        } else {
            Some(Interest(left))
        }
    }

    /// `true` if read readiness is of interest.
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(rt_reactor::Interest::READABLE.is_readable());
    /// ```
    pub const fn is_readable(self) -> bool {
        self.0 & READABLE != 0
    }

    /// `true` if write readiness is of interest.
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(!rt_reactor::Interest::READABLE.is_writable());
    /// ```
    pub const fn is_writable(self) -> bool {
        self.0 & WRITABLE != 0
    }

    /// `true` if priority readiness is of interest.
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(rt_reactor::Interest::PRIORITY.is_priority());
    /// ```
    pub const fn is_priority(self) -> bool {
        self.0 & PRIORITY != 0
    }

    /// `true` if error readiness is of interest.
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(rt_reactor::Interest::ERROR.is_error());
    /// ```
    pub const fn is_error(self) -> bool {
        self.0 & ERROR != 0
    }

    /// The readiness states that answer this interest: for reading what
    /// [`Direction::Read`] waits for, for writing what
    /// [`Direction::Write`] waits for (both include errors, so an operation
    /// learns of a failure), for priority the priority state, read-closed
    /// and errors, for errors the error state.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt_reactor::{Direction, Interest, Ready};
    /// assert_eq!(Interest::READABLE.mask(), Direction::Read.mask());
    /// assert_eq!(Interest::ERROR.mask(), Ready::ERROR);
    /// ```
    pub const fn mask(self) -> Ready {
        let mut mask = 0;
        if self.is_readable() {
            mask |= Direction::Read.mask().0;
        }
        if self.is_writable() {
            mask |= Direction::Write.mask().0;
        }
        if self.is_priority() {
            mask |= Ready::PRIORITY.0 | Ready::READ_CLOSED.0 | Ready::ERROR.0;
        }
        if self.is_error() {
            mask |= Ready::ERROR.0;
        }
        Ready(mask)
    }

    /// The `mio` interest to register with. Errors need none (the OS
    /// always reports them), but the poller needs some: `ERROR` alone
    /// registers for reading. Priority exists in `mio` on Linux and
    /// Android only; elsewhere it registers for reading too.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt_reactor::Interest;
    /// assert_eq!(Interest::READABLE.to_mio(), mio::Interest::READABLE);
    /// assert_eq!(Interest::ERROR.to_mio(), mio::Interest::READABLE);
    /// ```
    pub fn to_mio(self) -> mio::Interest {
        let mut mio: Option<mio::Interest> = None;
        let mut add = |interest: mio::Interest| {
            mio = Some(mio.map_or(interest, |current| current.add(interest)));
        };
        if self.is_readable() {
            add(mio::Interest::READABLE);
        }
        if self.is_writable() {
            add(mio::Interest::WRITABLE);
        }
        if self.is_priority() {
            #[cfg(any(target_os = "linux", target_os = "android"))]
            add(mio::Interest::PRIORITY);
            #[cfg(not(any(target_os = "linux", target_os = "android")))]
            add(mio::Interest::READABLE);
        }
        mio.unwrap_or(mio::Interest::READABLE)
    }
}

impl ops::BitOr for Interest {
    type Output = Interest;
    fn bitor(self, other: Interest) -> Interest {
        self.add(other)
    }
}

impl ops::BitOrAssign for Interest {
    fn bitor_assign(&mut self, other: Interest) {
        *self = self.add(other);
    }
}

impl fmt::Debug for Interest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const NAMES: [(Interest, &str); 4] = [
            (Interest::READABLE, "READABLE"),
            (Interest::WRITABLE, "WRITABLE"),
            (Interest::PRIORITY, "PRIORITY"),
            (Interest::ERROR, "ERROR"),
        ];
        let mut first = true;
        for (bit, name) in NAMES {
            if self.0 & bit.0 != 0 {
                if !first {
                    f.write_str(" | ")?;
                }
                f.write_str(name)?;
                first = false;
            }
        }
        Ok(())
    }
}

/// The two sides of a registration, each with its own list of waiters.
///
/// # Examples
///
/// ```
/// use rt_reactor::{Direction, Ready};
/// assert!(Direction::Read.mask().is_readable());
/// assert!(Direction::Write.mask().is_write_closed());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Readable, read-closed and error readiness. Priority readiness has
    /// its own interest ([`Interest::PRIORITY`]); its waiters share this
    /// direction's list.
    Read,
    /// Writable, write-closed and error readiness.
    Write,
}

impl Direction {
    /// The readiness states an operation in this direction waits for, and
    /// clears when it would block. Not priority for reading, as in tokio: a
    /// read skips urgent data and would block while it is all there is,
    /// and that must not clear the priority readiness a task waiting for
    /// [`Interest::PRIORITY`] on the same source was woken for.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt_reactor::{Direction, Ready};
    /// assert!(Direction::Read.mask().contains(Ready::READ_CLOSED));
    /// assert!(!Direction::Read.mask().is_priority());
    /// ```
    pub const fn mask(self) -> Ready {
        match self {
            Direction::Read => Ready(Ready::READABLE.0 | Ready::READ_CLOSED.0 | Ready::ERROR.0),
            Direction::Write => Ready(Ready::WRITABLE.0 | Ready::WRITE_CLOSED.0 | Ready::ERROR.0),
        }
    }
}

/// Sets order as tokio's `Ready` values do (by their bits in tokio's
/// layout), so code that keys ordered maps or sorts by readiness sees
/// tokio's order.
///
/// # Examples
///
/// ```
/// use rt_reactor::Ready;
///
/// assert!(Ready::READABLE < Ready::WRITABLE);
/// assert!(Ready::PRIORITY < Ready::ERROR);
/// ```
impl Ord for Ready {
    fn cmp(&self, other: &Ready) -> std::cmp::Ordering {
        self.tokio_layout().cmp(&other.tokio_layout())
    }
}

impl PartialOrd for Ready {
    fn partial_cmp(&self, other: &Ready) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// Readiness observed by [`Registration::poll_ready`](crate::Registration::poll_ready),
/// stamped with the tick it was observed at; hand it back to
/// [`Registration::clear_readiness`](crate::Registration::clear_readiness)
/// after a `WouldBlock`.
///
/// # Examples
///
/// ```
/// use rt_reactor::{Direction, Driver, Interest};
/// use std::task::{Context, Poll, Waker};
///
/// let (_driver, handle) = Driver::new().unwrap();
/// let (mut a, _b) = mio::net::UnixStream::pair().unwrap();
/// let registration = handle.register(&mut a, Interest::WRITABLE).unwrap();
/// // Nothing was dispatched yet, so nothing is ready.
/// let mut cx = Context::from_waker(Waker::noop());
/// assert!(registration.poll_ready(&mut cx, Direction::Write).is_pending());
/// registration.deregister(&mut a).unwrap();
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadyEvent {
    pub(crate) ready: Ready,
    pub(crate) tick: usize,
}

impl ReadyEvent {
    /// The readiness states observed.
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
    pub fn ready(&self) -> Ready {
        self.ready
    }

    /// The same observation narrowed to the states in `ready`: clearing it
    /// forgets those states only.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt_reactor::{Direction, Driver, Interest, Ready};
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
    /// // Forgetting an error that was not seen keeps the writability.
    /// registration.clear_readiness(event.restricted_to(Ready::ERROR));
    /// assert!(registration.readiness().is_writable());
    /// registration.deregister(&mut a).unwrap();
    /// ```
    pub fn restricted_to(self, ready: Ready) -> ReadyEvent {
        ReadyEvent {
            ready: self.ready & ready,
            tick: self.tick,
        }
    }
}
