//! A `mio` source registered with the current runtime's reactor: the
//! building block of every socket type and of `AsyncFd`.
//!
//! The I/O pattern (see `rt_reactor`'s crate docs for why no wake-up is
//! lost):
//! 1. spend a unit of the task's cooperative budget (yield if it is spent);
//!    only an operation and a `poll_*_ready` method spend it: a future that
//!    only waits for readiness (`readable`, `writable`, `ready`) spends
//!    none, as in tokio, since the `try_*` call that follows it does the
//!    work and a loop of `writable().await` and `try_write` is bounded by
//!    the socket's buffer, not by the budget;
//! 2. wait for readiness in the wanted direction;
//! 3. try the non-blocking operation; on `WouldBlock`, clear exactly the
//!    readiness observed in step 2, and go back to step 2 (a stream read
//!    that fills only part of its buffer clears it too, see
//!    `poll_stream_read`). What the clear takes depends on who said
//!    `WouldBlock` ([`WouldBlockFrom`]):
//!    - rt's own system call: closed states included. A FIFO's side
//!      reopens when a new peer opens it, and only the `WouldBlock` says
//!      so; kept, the closed state would end the next wait at once and the
//!      loop would spin. (tokio keeps them there too, and its FIFO reader
//!      spins until reopened; rt's own reads need no reopening.)
//!    - a caller's closure (`try_io`, `async_io`, on `AsyncFd`, sockets and
//!      pipes, as the `AsyncFd` guard's `try_io`): closed states kept, as
//!      in tokio, where they are final. The closure may say `WouldBlock`
//!      for reasons of its own (a frame not complete yet), and erasing the
//!      end of a stream would hide it from every task sharing the socket.
//!      Since the kept state ends the next wait at once, `async_io` yields
//!      before calling the closure again rather than spinning in one poll
//!      (tokio's calls it again at once);
//! 4. anything else (data, EOF, an error) is the result.
//!
//! Step 2 waits in one of two ways. The `async fn`s on `&self` (`accept`,
//! `recv_from`, `readable`, `ready(interest)`, ...) wait in a place of
//! their own in the direction's waiter list (`async_io`, `ready`; for an
//! `Interest`, `async_io_for`, `ready_for`, in each list the interest
//! needs): any number of tasks may await them on one shared socket, an
//! edge wakes them all, and a future dropped while waiting frees its
//! place. The `poll_*` methods and the
//! `AsyncRead`/`AsyncWrite` impls have no future to own a place: they wait
//! in the direction's shared slot (`poll_io`, `poll_ready`), where the last
//! waker wins, as each one's docs say.

use crate::runtime::context;
use crate::task::poll_proceed;
use crate::task::waits::{self, Site};
use rt_reactor::{Direction, Interest, Ready, ReadyEvent, ReadyWaiter, Registration};
use std::fmt;
use std::future::poll_fn;
use std::io;
use std::marker::PhantomData;
use std::task::{Context, Poll, ready};

pub(crate) struct Registered<E: mio::event::Source> {
    io: Option<E>,
    registration: Registration,
}

/// Step 1 then `wait` (step 2): spends a unit of budget once `wait` is
/// ready.
pub(crate) fn poll_budgeted<T>(
    cx: &mut Context<'_>,
    wait: impl FnOnce(&mut Context<'_>) -> Poll<T>,
) -> Poll<T> {
    let coop = ready!(poll_proceed(cx));
    let result = ready!(wait(cx));
    coop.made_progress();
    Poll::Ready(result)
}

/// Step 2 alone, in `waiter`'s own places, freed when the future is
/// dropped: the readiness futures, which spend no budget (step 1).
pub(crate) async fn wait(mut waiter: ReadyWaiter<'_>) -> io::Result<ReadyEvent> {
    poll_fn(|cx| waiter.poll_ready(cx)).await
}

/// Who said `WouldBlock` in step 3 of the module docs, and so what its
/// clear takes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum WouldBlockFrom {
    /// rt's own system call: the side is open, so the closed states go too.
    Syscall,
    /// A caller's closure: the closed states stay (they are final, as in
    /// tokio).
    Closure,
}

impl WouldBlockFrom {
    /// Clears the readiness `event` observed, after a `WouldBlock`.
    fn clear(self, registration: &Registration, event: ReadyEvent) {
        match self {
            WouldBlockFrom::Syscall => registration.clear_readiness_reopened(event),
            WouldBlockFrom::Closure => registration.clear_readiness(event),
        }
    }

    /// `true` if the readiness left after [`clear`](Self::clear) would end
    /// the next wait at once.
    fn leaves_ready(self, event: ReadyEvent) -> bool {
        let ready = event.ready();
        self == WouldBlockFrom::Closure && (ready.is_read_closed() || ready.is_write_closed())
    }
}

/// Steps 1 to 4 of the module docs on `registration`, with step 2 done by
/// `wait` and the `WouldBlock` of step 3 said by `from`. A result for which
/// `drained` holds also clears the readiness it used (see
/// `Registered::poll_stream_read`).
pub(crate) fn poll_io<R>(
    registration: &Registration,
    cx: &mut Context<'_>,
    wait: impl FnMut(&mut Context<'_>) -> Poll<io::Result<ReadyEvent>>,
    op: impl FnMut() -> io::Result<R>,
    from: WouldBlockFrom,
    drained: impl Fn(&R) -> bool,
) -> Poll<io::Result<R>> {
    poll_io_or_end(registration, cx, wait, op, from, drained, |_| None)
}

/// [`poll_io`], where a `WouldBlock` under a readiness for which `end`
/// gives a value returns that value instead of waiting again: a datagram
/// socket's receive once its read side is shut down (see [`ReadShutDown`]).
#[inline]
fn poll_io_or_end<R>(
    registration: &Registration,
    cx: &mut Context<'_>,
    mut wait: impl FnMut(&mut Context<'_>) -> Poll<io::Result<ReadyEvent>>,
    mut op: impl FnMut() -> io::Result<R>,
    from: WouldBlockFrom,
    drained: impl Fn(&R) -> bool,
    end: impl Fn(Ready) -> Option<R>,
) -> Poll<io::Result<R>> {
    let coop = ready!(poll_proceed(cx));
    loop {
        let event = ready!(wait(cx))?;
        match op() {
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                if let Some(value) = end(event.ready()) {
                    coop.made_progress();
                    return Poll::Ready(Ok(value));
                }
                from.clear(registration, event);
                if from.leaves_ready(event) {
                    // The next wait would end at once: try again after a
                    // yield (the unit of budget is given back).
                    cx.waker().wake_by_ref();
                    return Poll::Pending;
                }
            }
            result => {
                if matches!(&result, Ok(output) if drained(output)) {
                    registration.clear_readiness(event);
                }
                coop.made_progress();
                return Poll::Ready(result);
            }
        }
    }
}

/// What `ready(interest)` reports for the observed `ready`: with an error
/// pending, also the states of the directions `interest` asks for, since
/// a read or write would not block (it returns the error at once).
///
/// A read or write interest's wait ends on an error alone (a datagram the
/// peer refused, `EPOLLERR` without `EPOLLIN`), so that operations see the
/// error. Reported as `{ERROR}` alone, a loop written for tokio (wait for
/// `ready(READABLE)`, receive only if `is_readable()`) never tried the
/// receive that takes the error, and `ready` kept returning at once: it
/// spun without yielding. The operation that follows takes the error, and
/// the one after it finds nothing and clears the readiness as usual.
fn with_error_as_ready(ready: Ready, interest: Interest) -> Ready {
    if !ready.is_error() {
        return ready;
    }
    let mut reported = ready;
    if interest.is_readable() {
        reported |= Ready::READABLE;
    }
    if interest.is_writable() {
        reported |= Ready::WRITABLE;
    }
    reported
}

/// Steps 3 and 4 once, without waiting: `WouldBlock` unless `observed`
/// (what the reactor has recorded) holds readiness; `from` says who says
/// `WouldBlock`.
pub(crate) fn try_io_once<R>(
    registration: &Registration,
    observed: Option<io::Result<ReadyEvent>>,
    op: impl FnOnce() -> io::Result<R>,
    from: WouldBlockFrom,
) -> io::Result<R> {
    try_io_once_or_end(registration, observed, op, from, |_| None)
}

/// [`try_io_once`], with [`poll_io_or_end`]'s `end`.
#[inline]
fn try_io_once_or_end<R>(
    registration: &Registration,
    observed: Option<io::Result<ReadyEvent>>,
    op: impl FnOnce() -> io::Result<R>,
    from: WouldBlockFrom,
    end: impl Fn(Ready) -> Option<R>,
) -> io::Result<R> {
    match observed {
        Some(Ok(event)) => match op() {
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                if let Some(value) = end(event.ready()) {
                    return Ok(value);
                }
                from.clear(registration, event);
                Err(e)
            }
            result => result,
        },
        Some(Err(e)) => Err(e),
        None => Err(io::ErrorKind::WouldBlock.into()),
    }
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
        #[cfg(feature = "sim")]
        Some(None) if crate::sim::is_current() => panic!(
            "rt: `AsyncFd`, child processes and other real I/O are not supported inside a \
             simulation (`rt::sim`): their readiness comes from the OS, which a seed cannot replay"
        ),
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
    pub(crate) fn new(io: E, interest: Interest) -> io::Result<Registered<E>> {
        Registered::assuming(io, interest, Ready::EMPTY)
    }

    /// Registers `io` with `assumed` already ready, without waiting for
    /// the reactor's first event (`rt_reactor::Handle::register_assuming`):
    /// accepted streams (readable and writable) and the ends of a fresh
    /// pair (writable). The first operation that finds the guess wrong
    /// gets `WouldBlock` and clears it, as for any readiness.
    ///
    /// # Panics
    ///
    /// See [`current_reactor`].
    #[track_caller]
    pub(crate) fn assuming(
        mut io: E,
        interest: Interest,
        assumed: Ready,
    ) -> io::Result<Registered<E>> {
        #[cfg(feature = "sim")]
        crate::sim::refuse("a real socket or pipe (`rt::net`)")?;
        let reactor = current_reactor();
        let registration = reactor.register_assuming(&mut io, interest, assumed)?;
        Ok(Registered {
            io: Some(io),
            registration,
        })
    }

    pub(crate) fn get_ref(&self) -> &E {
        self.io.as_ref().expect("the source is present until drop")
    }

    /// The readiness cell itself, for a caller that waits without
    /// spending budget in a `poll_*` method (a signal pipe, polled on
    /// behalf of all its listeners).
    pub(crate) fn registration(&self) -> &Registration {
        &self.registration
    }

    /// Deregisters and hands the source back.
    pub(crate) fn into_inner(mut self) -> io::Result<E> {
        let mut io = self.io.take().expect("the source is present until drop");
        self.registration.deregister(&mut io)?;
        Ok(io)
    }

    /// Waits for readiness in `direction` (spending budget), in the
    /// direction's shared slot: for `poll_*` methods, where the last
    /// waker wins (see `Registration::poll_ready`).
    pub(crate) fn poll_ready(
        &self,
        cx: &mut Context<'_>,
        direction: Direction,
    ) -> Poll<io::Result<ReadyEvent>> {
        poll_budgeted(cx, |cx| self.registration.poll_ready(cx, direction))
    }

    /// Waits for readiness in `direction` (spending no budget) in a place
    /// of its own, so any number of tasks can wait at once; the place is
    /// freed when the future is dropped. The task dump shows it as `site`
    /// (the sockets' `readable` and `writable`).
    pub(crate) async fn ready_as(
        &self,
        direction: Direction,
        site: Site,
    ) -> io::Result<ReadyEvent> {
        let mut waiter = self.waiter(direction);
        poll_fn(|cx| site.pending(waiter.poll_ready(cx))).await
    }

    /// Waits for the readiness of `interest` (spending no budget) in
    /// places of its own, in each direction's list the interest needs; the
    /// sockets' `ready(interest)`. See [`with_error_as_ready`] for what it
    /// reports when an error alone woke it.
    pub(crate) async fn ready_for(&self, interest: Interest) -> io::Result<Ready> {
        let event = wait(self.registration.waiter_for(interest)).await?;
        Ok(with_error_as_ready(event.ready(), interest))
    }

    pub(crate) fn clear_readiness(&self, event: ReadyEvent) {
        self.registration.clear_readiness(event);
    }

    /// Steps 1 to 4 of the module docs, waiting in `direction`'s shared
    /// slot: for `poll_*` methods (the last waker wins).
    pub(crate) fn poll_io<R>(
        &self,
        cx: &mut Context<'_>,
        direction: Direction,
        op: impl FnMut(&E) -> io::Result<R>,
    ) -> Poll<io::Result<R>> {
        let wait = |cx: &mut Context<'_>| self.registration.poll_ready(cx, direction);
        self.poll_io_via(cx, wait, op, WouldBlockFrom::Syscall, |_| false)
            .waiting_in(Some(direction))
    }

    /// Steps 1 to 4 of the module docs, waiting in a place of its own: for
    /// `async fn`s on `&self`, which many tasks may await at once.
    pub(crate) async fn async_io<R>(
        &self,
        direction: Direction,
        op: impl FnMut(&E) -> io::Result<R>,
    ) -> io::Result<R> {
        let from = WouldBlockFrom::Syscall;
        self.async_io_in(self.waiter(direction), Some(direction), op, from)
            .await
    }

    /// As `async_io`, waiting for the readiness of `interest`, for a
    /// caller's closure: the sockets' `async_io(interest, f)`.
    pub(crate) async fn async_io_for<R>(
        &self,
        interest: Interest,
        op: impl FnMut(&E) -> io::Result<R>,
    ) -> io::Result<R> {
        let from = WouldBlockFrom::Closure;
        self.async_io_in(self.registration.waiter_for(interest), None, op, from)
            .await
    }

    async fn async_io_in<R>(
        &self,
        mut waiter: ReadyWaiter<'_>,
        direction: Option<Direction>,
        mut op: impl FnMut(&E) -> io::Result<R>,
        from: WouldBlockFrom,
    ) -> io::Result<R> {
        poll_fn(|cx| {
            let wait = |cx: &mut Context<'_>| waiter.poll_ready(cx);
            self.poll_io_via(cx, wait, &mut op, from, |_| false)
                .waiting_in(direction)
        })
        .await
    }

    /// A place of its own in `direction`'s waiter list, for a stream that
    /// polls the same operation again and again (`Incoming`).
    pub(crate) fn waiter(&self, direction: Direction) -> ReadyWaiter<'_> {
        self.registration.waiter(direction)
    }

    /// Steps 1 to 4 of the module docs, waiting in `waiter`'s place.
    pub(crate) fn poll_io_in<R>(
        &self,
        cx: &mut Context<'_>,
        waiter: &mut ReadyWaiter<'_>,
        op: impl FnMut(&E) -> io::Result<R>,
    ) -> Poll<io::Result<R>> {
        let wait = |cx: &mut Context<'_>| waiter.poll_ready(cx);
        self.poll_io_via(cx, wait, op, WouldBlockFrom::Syscall, |_| false)
            .waiting_in(None)
    }

    /// Steps 1 to 4, with step 2 done by `wait`. A result for which
    /// `drained` holds also clears the readiness it used (see
    /// `poll_stream_read`).
    fn poll_io_via<R>(
        &self,
        cx: &mut Context<'_>,
        wait: impl FnMut(&mut Context<'_>) -> Poll<io::Result<ReadyEvent>>,
        mut op: impl FnMut(&E) -> io::Result<R>,
        from: WouldBlockFrom,
        drained: impl Fn(&R) -> bool,
    ) -> IoPoll<R, E> {
        let op = || op(self.get_ref());
        IoPoll(
            poll_io(&self.registration, cx, wait, op, from, drained),
            PhantomData,
        )
    }

    /// One attempt of rt's own without waiting: `WouldBlock` unless the
    /// reactor has reported readiness in `direction`.
    pub(crate) fn try_io<R>(
        &self,
        direction: Direction,
        op: impl FnOnce(&E) -> io::Result<R>,
    ) -> io::Result<R> {
        let observed = self.registration.try_ready(direction);
        let op = || op(self.get_ref());
        try_io_once(&self.registration, observed, op, WouldBlockFrom::Syscall)
    }

    /// As `try_io`, for the readiness of `interest`, for a caller's
    /// closure: the `try_io(interest, f)` of sockets and pipes. Its
    /// `WouldBlock` keeps the closed states (step 3).
    pub(crate) fn try_io_for<R>(
        &self,
        interest: Interest,
        op: impl FnOnce(&E) -> io::Result<R>,
    ) -> io::Result<R> {
        let observed = self.registration.try_ready_for(interest);
        let op = || op(self.get_ref());
        try_io_once(&self.registration, observed, op, WouldBlockFrom::Closure)
    }
}

/// What a receive on a datagram socket returns once the socket's read side
/// is shut down (`shutdown(Read)`) and its queue is empty: the kernel then
/// reports the socket read-closed (`EPOLLRDHUP`), a blocking `recv(2)`
/// returns 0, and a non-blocking one still says `EAGAIN`. The receives
/// that wait for readiness ([`Registered::poll_recv_ending`] and its twins) return
/// this value there, as the blocking call does; waiting again would never
/// end (the read-closed readiness stays set, so the wait would not even
/// block: the receive would spin). For UDP and Unix datagram sockets
/// alike. (tokio's receive does spin there: its `recv` never returns and
/// keeps its worker; on Linux a UDP socket shut down for reading still
/// queues datagrams that arrive, so a later receive may get one.)
pub(crate) trait ReadShutDown: Sized {
    /// The result: no bytes (and, with an address, the unnamed one).
    fn nothing_more() -> Self;

    /// [`nothing_more`](ReadShutDown::nothing_more) if `ready` says the
    /// read side is closed.
    #[inline]
    fn if_read_closed(ready: Ready) -> Option<Self> {
        ready.is_read_closed().then(Self::nothing_more)
    }
}

impl ReadShutDown for usize {
    fn nothing_more() -> usize {
        0
    }
}

/// Receives on a datagram socket: as the plain I/O methods in the read
/// direction, but a `WouldBlock` under a readiness for which `end` gives a
/// value returns it (a Unix datagram socket's [`ReadShutDown`] value once
/// its read side is shut down, and a UDP socket's).
impl<E: mio::event::Source> Registered<E> {
    /// [`poll_io`](Registered::poll_io) in the read direction.
    #[inline]
    pub(crate) fn poll_recv_ending<R>(
        &self,
        cx: &mut Context<'_>,
        mut op: impl FnMut(&E) -> io::Result<R>,
        end: impl Fn(Ready) -> Option<R>,
    ) -> Poll<io::Result<R>> {
        let wait = |cx: &mut Context<'_>| self.registration.poll_ready(cx, Direction::Read);
        let op = || op(self.get_ref());
        let from = WouldBlockFrom::Syscall;
        poll_io_or_end(&self.registration, cx, wait, op, from, |_| false, end)
    }

    /// [`async_io`](Registered::async_io) in the read direction.
    pub(crate) async fn async_recv_ending<R>(
        &self,
        mut op: impl FnMut(&E) -> io::Result<R>,
        end: impl Fn(Ready) -> Option<R>,
    ) -> io::Result<R> {
        let mut waiter = self.waiter(Direction::Read);
        poll_fn(|cx| {
            let wait = |cx: &mut Context<'_>| waiter.poll_ready(cx);
            let op = || op(self.get_ref());
            let from = WouldBlockFrom::Syscall;
            poll_io_or_end(&self.registration, cx, wait, op, from, |_| false, &end)
        })
        .await
    }

    /// [`try_io`](Registered::try_io) in the read direction.
    #[inline]
    pub(crate) fn try_recv_ending<R>(
        &self,
        op: impl FnOnce(&E) -> io::Result<R>,
        end: impl Fn(Ready) -> Option<R>,
    ) -> io::Result<R> {
        let observed = self.registration.try_ready(Direction::Read);
        let op = || op(self.get_ref());
        try_io_once_or_end(
            &self.registration,
            observed,
            op,
            WouldBlockFrom::Syscall,
            end,
        )
    }
}

/// The byte-stream operations shared by TCP and Unix streams.
impl<E> Registered<E>
where
    E: mio::event::Source,
    for<'a> &'a E: io::Read + io::Write,
{
    pub(crate) fn poll_read(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        let room = buf.len();
        self.poll_stream_read(cx, room, |mut io| io::Read::read(&mut io, buf))
    }

    /// Like `poll_read`, into memory that may be uninitialised (hyper's or a
    /// tokio `ReadBuf`'s): the kernel fills the front of `buf` and the count of
    /// bytes it wrote comes back; nothing is zeroed or copied first.
    pub(crate) fn poll_read_uninit(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [std::mem::MaybeUninit<u8>],
    ) -> Poll<io::Result<usize>>
    where
        E: std::os::fd::AsRawFd,
    {
        let room = buf.len();
        self.poll_stream_read(cx, room, |io| {
            crate::io::sys::recv_uninit(std::os::fd::AsRawFd::as_raw_fd(io), buf)
        })
    }

    pub(crate) fn poll_read_vectored(
        &self,
        cx: &mut Context<'_>,
        bufs: &mut [io::IoSliceMut<'_>],
    ) -> Poll<io::Result<usize>> {
        // Only the slices one `readv(2)` fills count: a read that filled
        // those while more slices followed may have left bytes queued.
        let room = bufs
            .iter()
            .take(crate::io::sys::READV_MAX_SLICES)
            .map(|buf| buf.len())
            .sum();
        self.poll_stream_read(cx, room, |mut io| io::Read::read_vectored(&mut io, bufs))
    }

    /// A read from the byte stream into `room` bytes, waiting in the read
    /// direction's shared slot. A read that returns some bytes but fewer
    /// than `room` emptied the socket's receive queue, so it also clears
    /// the read readiness it used: the next read waits for the poller's
    /// next edge instead of making a syscall that would only say
    /// `WouldBlock`. The clear checks the tick (as step 3's does), so
    /// readiness recorded since the read is kept; and an edge the driver
    /// has not dispatched yet still comes, since the poller reports data
    /// that arrives after the read.
    fn poll_stream_read(
        &self,
        cx: &mut Context<'_>,
        room: usize,
        read: impl FnMut(&E) -> io::Result<usize>,
    ) -> Poll<io::Result<usize>> {
        let wait = |cx: &mut Context<'_>| self.registration.poll_ready(cx, Direction::Read);
        self.poll_io_via(cx, wait, read, WouldBlockFrom::Syscall, |&n| {
            n > 0 && n < room
        })
        .waiting_in(Some(Direction::Read))
    }

    /// One read without waiting: the streams' `try_read`.
    pub(crate) fn try_read(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.try_io(Direction::Read, |mut io| io::Read::read(&mut io, buf))
    }

    pub(crate) fn try_read_vectored(&self, bufs: &mut [io::IoSliceMut<'_>]) -> io::Result<usize> {
        self.try_io(Direction::Read, |mut io| {
            io::Read::read_vectored(&mut io, bufs)
        })
    }

    /// One read without waiting into the spare capacity of `buf`.
    #[cfg(feature = "bytes")]
    pub(crate) fn try_read_buf<B: bytes::BufMut + ?Sized>(&self, buf: &mut B) -> io::Result<usize>
    where
        E: std::os::fd::AsRawFd,
    {
        self.try_io(Direction::Read, |io| {
            crate::io::sys::recv_buf(std::os::fd::AsRawFd::as_raw_fd(io), buf)
        })
    }

    pub(crate) fn try_write(&self, buf: &[u8]) -> io::Result<usize> {
        self.try_io(Direction::Write, |mut io| io::Write::write(&mut io, buf))
    }

    pub(crate) fn try_write_vectored(&self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
        self.try_io(Direction::Write, |mut io| {
            io::Write::write_vectored(&mut io, bufs)
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

/// A poll of `Registered<E>`'s I/O, to be told which direction it waits
/// in, for the task dump: `TcpStream read` (`waits::record_io`).
#[must_use]
pub(crate) struct IoPoll<R, E>(Poll<io::Result<R>>, PhantomData<fn(E)>);

impl<R, E> IoPoll<R, E> {
    #[inline]
    pub(crate) fn waiting_in(self, direction: Option<Direction>) -> Poll<io::Result<R>> {
        if self.0.is_pending() {
            waits::record_io::<E>(direction);
        }
        self.0
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
