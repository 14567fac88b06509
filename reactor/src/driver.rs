//! The poll loop: one `mio::Poll`, the slab of readiness cells, and the
//! `mio::Waker` that interrupts a blocked `turn`.

use crate::cell::{ReadinessCell, shutdown_error};
use crate::ready::{Interest, Ready};
use crate::registration::Registration;
use slab::Slab;
use std::fmt;
use std::io;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::Waker;
use std::time::Duration;

/// Bits of a token holding the slab index; the generation sits above.
const INDEX_BITS: u32 = 24;
const INDEX_MASK: usize = (1 << INDEX_BITS) - 1;
/// Generations wrap at 7 bits so that tokens fit a 32-bit `usize`.
const GENERATION_MASK: usize = 0x7f;
/// The waker's token: an index no registration can have.
const WAKER_TOKEN: mio::Token = mio::Token(INDEX_MASK);
/// How many events one `turn` collects at most.
const EVENTS_CAPACITY: usize = 1024;

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
    slots: Mutex<Slab<Arc<ReadinessCell>>>,
    next_generation: AtomicUsize,
    is_shutdown: AtomicBool,
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
        let poll = mio::Poll::new()?;
        let waker = mio::Waker::new(poll.registry(), WAKER_TOKEN)?;
        let registry = poll.registry().try_clone()?;
        let inner = Arc::new(Inner {
            registry,
            waker,
            slots: Mutex::new(Slab::new()),
            next_generation: AtomicUsize::new(0),
            is_shutdown: AtomicBool::new(false),
        });
        let driver = Driver {
            poll,
            events: mio::Events::with_capacity(EVENTS_CAPACITY),
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
        match self.poll.poll(&mut self.events, timeout) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => return Ok(0),
            Err(e) => return Err(e),
        }
        let mut dispatched = 0;
        {
            let slots = self.inner.slots.lock().unwrap();
            for event in self.events.iter() {
                let token = event.token();
                if token == WAKER_TOKEN {
                    continue;
                }
                let index = token.0 & INDEX_MASK;
                let generation = token.0 >> INDEX_BITS;
                match slots.get(index) {
                    Some(cell) if cell.generation == generation => {
                        cell.set_ready(Ready::from_event(event), &mut self.wake);
                        dispatched += 1;
                    }
                    // The registration is gone, or its slot has a new owner.
                    _ => {}
                }
            }
        }
        self.wake.drain(..).for_each(Waker::wake);
        Ok(dispatched)
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
        self.inner.is_shutdown.store(true, Ordering::SeqCst);
        {
            let slots = self.inner.slots.lock().unwrap();
            for (_, cell) in slots.iter() {
                cell.shutdown(&mut self.wake);
            }
        }
        self.wake.drain(..).for_each(Waker::wake);
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
        if self.inner.is_shutdown.load(Ordering::SeqCst) {
            return Err(shutdown_error());
        }
        let generation =
            self.inner.next_generation.fetch_add(1, Ordering::Relaxed) & GENERATION_MASK;
        let cell = Arc::new(ReadinessCell::new(generation));
        let index = {
            let mut slots = self.inner.slots.lock().unwrap();
            let entry = slots.vacant_entry();
            if entry.key() >= INDEX_MASK {
                return Err(io::Error::other(
                    "too many I/O registrations on one reactor (limit 2^24 - 1)",
                ));
            }
            let index = entry.key();
            entry.insert(cell.clone());
            index
        };
        let token = mio::Token(index | (generation << INDEX_BITS));
        if let Err(e) = self
            .inner
            .registry
            .register(source, token, interest.to_mio())
        {
            self.inner.slots.lock().unwrap().remove(index);
            return Err(e);
        }
        // A shutdown that ran between the check above and the insert missed
        // this cell; mark it so its users do not wait forever.
        if self.inner.is_shutdown.load(Ordering::SeqCst) {
            let mut wake = Vec::new();
            cell.shutdown(&mut wake);
        }
        Ok(Registration::new(self.clone(), index, cell))
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
        self.inner.slots.lock().unwrap().len()
    }

    pub(crate) fn deregister(&self, source: &mut impl mio::event::Source) -> io::Result<()> {
        self.inner.registry.deregister(source)
    }

    pub(crate) fn release(&self, index: usize, cell: &Arc<ReadinessCell>) {
        let mut slots = self.inner.slots.lock().unwrap();
        if slots
            .get(index)
            .is_some_and(|owner| Arc::ptr_eq(owner, cell))
        {
            slots.remove(index);
        }
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
