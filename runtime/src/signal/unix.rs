//! Unix signals as streams of deliveries.

use crate::io::registered::Registered;
use crate::task::poll_proceed;
use rt_reactor::{Direction, Interest};
use signal_hook_mio::v1_0::Signals;
use std::fmt;
use std::io;
use std::pin::Pin;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::task::{Context, Poll, ready};

/// A Unix signal number.
///
/// # Examples
///
/// ```
/// use rt::signal::unix::SignalKind;
/// assert_eq!(SignalKind::interrupt().as_raw_value(), libc::SIGINT);
/// assert_eq!(SignalKind::from_raw(libc::SIGUSR1), SignalKind::user_defined1());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SignalKind(libc::c_int);

impl SignalKind {
    /// A signal by its raw number.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::signal::unix::SignalKind;
    /// assert_eq!(SignalKind::from_raw(libc::SIGTERM), SignalKind::terminate());
    /// ```
    pub const fn from_raw(signum: libc::c_int) -> SignalKind {
        SignalKind(signum)
    }

    /// The raw signal number.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::signal::unix::SignalKind;
    /// assert_eq!(SignalKind::hangup().as_raw_value(), libc::SIGHUP);
    /// ```
    pub const fn as_raw_value(&self) -> libc::c_int {
        self.0
    }

    /// `SIGIO`: I/O is possible on a descriptor set up for it
    /// (`F_SETOWN`, `O_ASYNC`).
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::signal::unix::SignalKind;
    /// assert_eq!(SignalKind::io().as_raw_value(), libc::SIGIO);
    /// ```
    pub const fn io() -> SignalKind {
        SignalKind(libc::SIGIO)
    }

    /// `SIGALRM`.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::signal::unix::SignalKind;
    /// assert_eq!(SignalKind::alarm().as_raw_value(), libc::SIGALRM);
    /// ```
    pub const fn alarm() -> SignalKind {
        SignalKind(libc::SIGALRM)
    }

    /// `SIGCHLD`.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::signal::unix::SignalKind;
    /// assert_eq!(SignalKind::child().as_raw_value(), libc::SIGCHLD);
    /// ```
    pub const fn child() -> SignalKind {
        SignalKind(libc::SIGCHLD)
    }

    /// `SIGHUP`.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::signal::unix::SignalKind;
    /// assert_eq!(SignalKind::hangup().as_raw_value(), libc::SIGHUP);
    /// ```
    pub const fn hangup() -> SignalKind {
        SignalKind(libc::SIGHUP)
    }

    /// `SIGINT` (Ctrl-C).
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::signal::unix::SignalKind;
    /// assert_eq!(SignalKind::interrupt().as_raw_value(), libc::SIGINT);
    /// ```
    pub const fn interrupt() -> SignalKind {
        SignalKind(libc::SIGINT)
    }

    /// `SIGPIPE`.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::signal::unix::SignalKind;
    /// assert_eq!(SignalKind::pipe().as_raw_value(), libc::SIGPIPE);
    /// ```
    pub const fn pipe() -> SignalKind {
        SignalKind(libc::SIGPIPE)
    }

    /// `SIGQUIT`.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::signal::unix::SignalKind;
    /// assert_eq!(SignalKind::quit().as_raw_value(), libc::SIGQUIT);
    /// ```
    pub const fn quit() -> SignalKind {
        SignalKind(libc::SIGQUIT)
    }

    /// `SIGTERM`.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::signal::unix::SignalKind;
    /// assert_eq!(SignalKind::terminate().as_raw_value(), libc::SIGTERM);
    /// ```
    pub const fn terminate() -> SignalKind {
        SignalKind(libc::SIGTERM)
    }

    /// `SIGUSR1`.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::signal::unix::SignalKind;
    /// assert_eq!(SignalKind::user_defined1().as_raw_value(), libc::SIGUSR1);
    /// ```
    pub const fn user_defined1() -> SignalKind {
        SignalKind(libc::SIGUSR1)
    }

    /// `SIGUSR2`.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::signal::unix::SignalKind;
    /// assert_eq!(SignalKind::user_defined2().as_raw_value(), libc::SIGUSR2);
    /// ```
    pub const fn user_defined2() -> SignalKind {
        SignalKind(libc::SIGUSR2)
    }

    /// `SIGWINCH`.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::signal::unix::SignalKind;
    /// assert_eq!(SignalKind::window_change().as_raw_value(), libc::SIGWINCH);
    /// ```
    pub const fn window_change() -> SignalKind {
        SignalKind(libc::SIGWINCH)
    }
}

/// A signal by its raw number, as [`SignalKind::from_raw`].
///
/// # Examples
///
/// ```
/// use rt::signal::unix::SignalKind;
/// assert_eq!(SignalKind::from(libc::SIGINT), SignalKind::interrupt());
/// ```
impl From<libc::c_int> for SignalKind {
    fn from(signum: libc::c_int) -> SignalKind {
        SignalKind::from_raw(signum)
    }
}

/// The raw signal number, as [`SignalKind::as_raw_value`].
///
/// # Examples
///
/// ```
/// use rt::signal::unix::SignalKind;
/// assert_eq!(libc::c_int::from(SignalKind::quit()), libc::SIGQUIT);
/// ```
impl From<SignalKind> for libc::c_int {
    fn from(kind: SignalKind) -> libc::c_int {
        kind.as_raw_value()
    }
}

/// The deliveries of one signal number, for the whole process: counted by
/// a handler installed with the signal's first listener and kept for the
/// life of the process (as the signal's new disposition is).
///
/// std atomics in a static, not the loom shim's: the counter is bumped
/// from a signal handler, which loom does not model (and whose code may
/// only use lock-free atomics).
struct Deliveries {
    /// The counting handler is installed.
    installed: AtomicBool,
    /// Deliveries so far (bumped by the handler, before the listeners'
    /// own handlers write their pipes: signal-hook runs a signal's
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
fn deliveries(signum: libc::c_int) -> io::Result<&'static Deliveries> {
    let slot = usize::try_from(signum)
        .ok()
        .and_then(|index| DELIVERIES.get(index))
        .ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("rt: signal {signum} is beyond the {SIGNAL_SLOTS} signals rt can count"),
            )
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

/// A listener for one signal: a stream of deliveries.
///
/// A listener receives the deliveries made after it was created, and one
/// made before if no listener has received it yet: a signal that arrives
/// between one listener's drop and the next one's creation is not lost
/// (as in tokio, where the runtime hands it to the listeners that exist
/// when it gets to it). Deliveries that arrive before the listener looks
/// are received as one.
///
/// # Examples
///
/// ```
/// use rt::signal::unix::{signal, SignalKind};
///
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let mut hangups = signal(SignalKind::hangup()).unwrap();
///     // SAFETY-free way to deliver a signal to ourselves in an example:
///     unsafe { libc::raise(libc::SIGHUP) };
///     assert_eq!(hangups.recv().await, Some(()));
/// });
/// ```
pub struct Signal {
    kind: SignalKind,
    /// Its pipe wakes the listener; the count says what was delivered.
    source: Registered<Signals>,
    deliveries: &'static Deliveries,
    /// `deliveries.delivered` when this listener last received.
    seen: usize,
}

/// Starts listening for `kind` on the current runtime.
///
/// # Errors
///
/// Returns an error for signals that cannot be handled (`SIGKILL`,
/// `SIGSTOP`, and the fault signals `SIGSEGV`, `SIGILL`, `SIGFPE`), or if
/// the handler or its pipe could not be set up.
///
/// # Panics
///
/// Panics outside a runtime with I/O enabled, naming the fix.
///
/// # Examples
///
/// ```
/// use rt::signal::unix::{signal, SignalKind};
///
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     assert!(signal(SignalKind::from_raw(libc::SIGKILL)).is_err());
///     assert!(signal(SignalKind::user_defined2()).is_ok());
/// });
/// ```
#[track_caller]
pub fn signal(kind: SignalKind) -> io::Result<Signal> {
    #[cfg(feature = "sim")]
    if crate::sim::is_current() {
        panic!(
            "`rt::signal` (`ctrl_c`, `signal`) inside a simulation (`rt::sim`): no OS signal \
             reaches a simulated node. Stop a host with `rt::sim::crash` or `restart`, and give \
             the simulated server a shutdown future of its own in place of the signal"
        );
    }
    // Misuse first, whatever the signal: outside a runtime with I/O this
    // panics at the caller's line (as tokio's does), even for a signal
    // number that would be refused below.
    drop(crate::io::registered::current_reactor());
    // signal-hook panics on these rather than reporting an error.
    if signal_hook::consts::FORBIDDEN.contains(&kind.0) || !(1..=libc::SIGRTMAX()).contains(&kind.0)
    {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "rt: cannot listen for signal {}: it cannot be caught (SIGKILL, SIGSTOP, \
                 SIGILL, SIGFPE, SIGSEGV) or is not a valid signal number",
                kind.0
            ),
        ));
    }
    // The counting handler first, so it runs before this listener's own.
    let deliveries = deliveries(kind.0)?;
    let signals = Signals::new([kind.0]).map_err(|error| {
        io::Error::new(
            error.kind(),
            format!("rt: cannot listen for signal {}: {error}", kind.0),
        )
    })?;
    let source = Registered::new(signals, Interest::READABLE)?;
    Ok(Signal {
        kind,
        source,
        deliveries,
        seen: deliveries.received.load(Ordering::SeqCst),
    })
}

impl Signal {
    /// Waits for the next delivery. Returns `None` once the runtime has
    /// shut down (no more deliveries will be seen).
    ///
    /// Cancel-safe: dropping the future loses no delivery.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::signal::unix::{signal, SignalKind};
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let mut usr1 = signal(SignalKind::user_defined1()).unwrap();
    ///     unsafe { libc::raise(libc::SIGUSR1) };
    ///     assert_eq!(usr1.recv().await, Some(()));
    /// });
    /// ```
    pub async fn recv(&mut self) -> Option<()> {
        std::future::poll_fn(|cx| self.poll_recv(cx)).await
    }

    /// Polls for the next delivery; see [`recv`](Signal::recv).
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::signal::unix::{signal, SignalKind};
    /// use std::future::poll_fn;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let mut usr2 = signal(SignalKind::user_defined2()).unwrap();
    ///     unsafe { libc::raise(libc::SIGUSR2) };
    ///     assert_eq!(poll_fn(|cx| usr2.poll_recv(cx)).await, Some(()));
    /// });
    /// ```
    pub fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<()>> {
        let coop = ready!(poll_proceed(cx));
        loop {
            // The count first: a delivery made before this listener's pipe
            // existed wrote nothing there.
            let delivered = self.deliveries.delivered.load(Ordering::SeqCst);
            if delivered != self.seen {
                self.seen = delivered;
                self.deliveries
                    .received
                    .fetch_max(delivered, Ordering::SeqCst);
                coop.made_progress();
                return Poll::Ready(Some(()));
            }
            let event = match ready!(self.source.poll_ready(cx, Direction::Read)) {
                Ok(event) => event,
                // The reactor shut down: no delivery will ever arrive.
                Err(_) => return Poll::Ready(None),
            };
            // Empty the pipe (the count above says what it announced) and
            // wait for the next write: one made since is a new readiness,
            // which the clear keeps (it checks the tick).
            self.source.get_mut().pending().for_each(drop);
            self.source.clear_readiness(event);
        }
    }

    /// The signal this listener receives.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::signal::unix::{signal, SignalKind};
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let listener = signal(SignalKind::window_change()).unwrap();
    ///     assert_eq!(listener.kind(), SignalKind::window_change());
    /// });
    /// ```
    pub fn kind(&self) -> SignalKind {
        self.kind
    }
}

impl futures_util::Stream for Signal {
    type Item = ();

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<()>> {
        self.get_mut().poll_recv(cx)
    }
}

impl fmt::Debug for Signal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Signal").field("kind", &self.kind).finish()
    }
}
