//! A `mio` source registered with the current runtime's reactor: the
//! building block of every socket type and of `AsyncFd`.
//!
//! The I/O pattern (see `rt_reactor`'s crate docs for why no wake-up is
//! lost):
//! 1. spend a unit of the task's cooperative budget (yield if it is spent);
//! 2. wait for readiness in the wanted direction;
//! 3. try the non-blocking operation; on `WouldBlock`, clear exactly the
//!    readiness observed in step 2 and go back to step 2;
//! 4. anything else (data, EOF, an error) is the result.

use crate::io::sys;
use crate::runtime::context;
use crate::task::poll_proceed;
use rt_reactor::{Direction, Interest, Registration};
use std::fmt;
use std::future::poll_fn;
use std::io;
use std::os::fd::AsRawFd;
use std::task::{Context, Poll, ready};

pub(crate) struct Registered<E: mio::event::Source> {
    io: Option<E>,
    registration: Registration,
}

/// The current runtime's reactor.
///
/// # Panics
///
/// Panics outside a runtime, or when the runtime has no I/O driver, with a
/// message naming the fix.
#[track_caller]
pub(crate) fn current_reactor() -> rt_reactor::Handle {
    match context::with_current(|handle| handle.driver().reactor().cloned()) {
        Some(Some(reactor)) => reactor,
        Some(None) => panic!(
            "rt: this runtime has no I/O driver, so sockets and `AsyncFd` cannot be used on it. \
             Build the runtime with `Builder::enable_io()` or `Builder::enable_all()` \
             (`Runtime::new()` enables it)."
        ),
        None => panic!(
            "rt: there is no reactor running: sockets and `AsyncFd` must be created inside an rt \
             runtime (in a task, in `block_on`, or under `Runtime::enter()`) built with \
             `Builder::enable_io()` or `Builder::enable_all()`."
        ),
    }
}

impl<E: mio::event::Source> Registered<E> {
    /// Registers `io` with the current runtime's reactor.
    ///
    /// # Panics
    ///
    /// See [`current_reactor`].
    #[track_caller]
    pub(crate) fn new(mut io: E, interest: Interest) -> io::Result<Registered<E>> {
        let reactor = current_reactor();
        let registration = reactor.register(&mut io, interest)?;
        Ok(Registered {
            io: Some(io),
            registration,
        })
    }

    pub(crate) fn get_ref(&self) -> &E {
        self.io.as_ref().expect("the source is present until drop")
    }

    pub(crate) fn get_mut(&mut self) -> &mut E {
        self.io.as_mut().expect("the source is present until drop")
    }

    /// Deregisters and hands the source back.
    pub(crate) fn into_inner(mut self) -> io::Result<E> {
        let mut io = self.io.take().expect("the source is present until drop");
        self.registration.deregister(&mut io)?;
        Ok(io)
    }

    /// Waits for readiness in `direction` (spending budget).
    pub(crate) fn poll_ready(
        &self,
        cx: &mut Context<'_>,
        direction: Direction,
    ) -> Poll<io::Result<rt_reactor::ReadyEvent>> {
        let coop = ready!(poll_proceed(cx));
        let event = ready!(self.registration.poll_ready(cx, direction));
        coop.made_progress();
        Poll::Ready(event)
    }

    pub(crate) fn clear_readiness(&self, event: rt_reactor::ReadyEvent) {
        self.registration.clear_readiness(event);
    }

    /// Steps 1 to 4 of the module docs.
    pub(crate) fn poll_io<R>(
        &self,
        cx: &mut Context<'_>,
        direction: Direction,
        mut op: impl FnMut(&E) -> io::Result<R>,
    ) -> Poll<io::Result<R>> {
        let coop = ready!(poll_proceed(cx));
        loop {
            let event = ready!(self.registration.poll_ready(cx, direction))?;
            match op(self.get_ref()) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    self.registration.clear_readiness(event);
                }
                result => {
                    coop.made_progress();
                    return Poll::Ready(result);
                }
            }
        }
    }

    pub(crate) async fn async_io<R>(
        &self,
        direction: Direction,
        mut op: impl FnMut(&E) -> io::Result<R>,
    ) -> io::Result<R> {
        poll_fn(|cx| self.poll_io(cx, direction, &mut op)).await
    }

    /// One attempt without waiting: `WouldBlock` unless the reactor has
    /// reported readiness in `direction`.
    pub(crate) fn try_io<R>(
        &self,
        direction: Direction,
        op: impl FnOnce(&E) -> io::Result<R>,
    ) -> io::Result<R> {
        match self.registration.try_ready(direction) {
            Some(Ok(event)) => match op(self.get_ref()) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    self.registration.clear_readiness(event);
                    Err(e)
                }
                result => result,
            },
            Some(Err(e)) => Err(e),
            None => Err(io::ErrorKind::WouldBlock.into()),
        }
    }
}

/// The byte-stream operations shared by TCP and Unix streams.
impl<E> Registered<E>
where
    E: mio::event::Source + AsRawFd,
    for<'a> &'a E: io::Read + io::Write,
{
    /// Steps 1 to 4 for a read into `room` bytes of buffer, plus one: a
    /// read that returns data but fewer bytes than `room` drained the
    /// socket, so the readiness it used is cleared there and then. The next
    /// read then waits for the reactor's next edge instead of first failing
    /// with `EAGAIN` (a system call per request saved in request/response
    /// protocols).
    ///
    /// Why no wake-up is lost: the clear is by the tick observed in step 2,
    /// so data that arrived after that readiness was recorded (a new edge,
    /// a new tick) stays ready; data that arrived between step 2 and the
    /// read was read (the read was not short for lack of it); a peer's
    /// end-of-file or reset is sticky readiness the clear leaves set; and a
    /// read of 0 bytes (end of file) or of a full buffer clears nothing.
    fn poll_read_with(
        &self,
        cx: &mut Context<'_>,
        room: usize,
        mut read: impl FnMut(&E) -> io::Result<usize>,
    ) -> Poll<io::Result<usize>> {
        let coop = ready!(poll_proceed(cx));
        loop {
            let event = ready!(self.registration.poll_ready(cx, Direction::Read))?;
            match read(self.get_ref()) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    self.registration.clear_readiness(event);
                }
                result => {
                    if matches!(result, Ok(n) if n > 0 && n < room) {
                        self.registration.clear_readiness(event);
                    }
                    coop.made_progress();
                    return Poll::Ready(result);
                }
            }
        }
    }

    pub(crate) fn poll_read(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        let room = buf.len();
        self.poll_read_with(cx, room, |io| sys::recv(io.as_raw_fd(), buf))
    }

    /// Like `poll_read`, into memory that may be uninitialised (hyper's
    /// read buffer): the kernel fills the front of `buf` and the count of
    /// bytes it wrote comes back; nothing is zeroed or copied first.
    #[cfg(feature = "hyper")]
    pub(crate) fn poll_read_uninit(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [std::mem::MaybeUninit<u8>],
    ) -> Poll<io::Result<usize>> {
        let room = buf.len();
        self.poll_read_with(cx, room, |io| sys::recv_uninit(io.as_raw_fd(), buf))
    }

    pub(crate) fn poll_read_vectored(
        &self,
        cx: &mut Context<'_>,
        bufs: &mut [io::IoSliceMut<'_>],
    ) -> Poll<io::Result<usize>> {
        self.poll_io(cx, Direction::Read, |mut io| {
            io::Read::read_vectored(&mut io, bufs)
        })
    }

    pub(crate) fn poll_write(&self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        self.poll_io(cx, Direction::Write, |mut io| {
            io::Write::write(&mut io, buf)
        })
    }

    pub(crate) fn poll_write_vectored(
        &self,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.poll_io(cx, Direction::Write, |mut io| {
            io::Write::write_vectored(&mut io, bufs)
        })
    }
}

impl<E: mio::event::Source> Drop for Registered<E> {
    fn drop(&mut self) {
        if let Some(mut io) = self.io.take() {
            // Closing the descriptor (dropping `io` next) removes it from
            // the poller anyway, so a failed deregistration has no effect
            // left to report.
            let _ = self.registration.deregister(&mut io);
        }
    }
}

impl<E: mio::event::Source + fmt::Debug> fmt::Debug for Registered<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.io, f)
    }
}
