//! Unix signals as streams of deliveries.

use super::deliveries::deliveries;
use super::pipe::PipeListener;
use crate::task::poll_proceed;
use std::fmt;
use std::io;
use std::pin::Pin;
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
    /// Its place at the runtime's pipe for `kind`, shared with the
    /// runtime's other listeners of `kind`.
    listener: PipeListener,
}

/// Starts listening for `kind` on the current runtime.
///
/// # Errors
///
/// Returns an `ErrorKind::Other` error, as tokio's, for signals that
/// cannot be handled (`SIGKILL`, `SIGSTOP`, and the fault signals
/// `SIGSEGV`, `SIGILL`, `SIGFPE`) and for numbers that are no signal;
/// the OS error if the handler or its pipe could not be set up.
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
    // signal-hook panics on these rather than reporting an error. The
    // kind is tokio's for a refused signal: `Other`.
    if signal_hook::consts::FORBIDDEN.contains(&kind.0) || !(1..=libc::SIGRTMAX()).contains(&kind.0)
    {
        return Err(io::Error::other(format!(
            "rt: refusing to register signal {}: it cannot be caught (SIGKILL, SIGSTOP, SIGILL, \
             SIGFPE, SIGSEGV) or is not a valid signal number",
            kind.0
        )));
    }
    // The counting handler first, so it runs before the pipe's.
    let deliveries = deliveries(kind.0)?;
    Ok(Signal {
        kind,
        listener: PipeListener::new(kind.0, deliveries)?,
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
        let delivery = ready!(self.listener.poll_delivery(cx));
        coop.made_progress();
        Poll::Ready(delivery)
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
