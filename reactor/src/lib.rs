//! # rt-reactor — the I/O reactor of the `rt` runtime
//!
//! One [`Driver`] per runtime owns a `mio::Poll`. Any `mio::event::Source`
//! (a socket, a pipe, a raw fd through `mio::unix::SourceFd`) is registered
//! through a cheap, cloneable [`Handle`] and gets back a [`Registration`]:
//! a readiness cell plus, per direction (read, write), a list of the tasks
//! waiting on it. The thread that drives I/O calls [`Driver::turn`], which
//! blocks in the OS poller until an event arrives, the timeout passes or
//! [`Handle::unpark`] fires the `mio::Waker`, then records readiness in the
//! cells and wakes the waiters. The crate knows nothing of tasks: it
//! stores and wakes `std::task::Waker`s.
//!
//! ## Any number of waiters
//!
//! Many tasks may wait on one source in one direction: acceptors sharing a
//! listener, receivers sharing a UDP socket. Each waiting future holds a
//! [`ReadyWaiter`] ([`Registration::waiter`]), which owns a place in its
//! direction's list; an edge wakes every waiter of the directions it
//! affects, and those that lose the race for the readiness (their
//! operation would block) store a fresh waker in the same place. Dropping
//! a `ReadyWaiter` frees its place, so a future dropped while waiting (a
//! timeout around an `accept`) leaves no waker behind, and timing out and
//! retrying forever never grows the list. A waiter for an [`Interest`]
//! ([`Registration::waiter_for`]) waits for that interest's states only
//! ([`Interest::mask`]: reading or writing at once, errors alone), with a
//! place in each list it needs; the protocol below is the same, the ready
//! check made against its states instead of a direction's.
//!
//! The list is an inline first place plus a slab for the rest (not
//! intrusive nodes inside the futures, as tokio's `ScheduledIo` has): a
//! lone waiter, the common case, allocates nothing; a second concurrent
//! waiter allocates the slab once, and the slab keeps its capacity and
//! reuses freed places, so it never grows past the most waiters there were
//! at once. No `unsafe` and no pinning are needed, at the cost of a place
//! key lookup (an index) where an intrusive list would follow a pointer.
//!
//! `poll_*` style methods ([`Registration::poll_ready`]) have no future to
//! own a place: each direction also has one shared slot where the last
//! waker stored wins, which suits a source polled by one task at a time
//! (an `AsyncRead` impl).
//!
//! ## No waker runs under a lock
//!
//! A waker may run arbitrary code (a user's waker may register another
//! socket, or drop the last reference to a task whose future owns a
//! socket), so no waker is ever woken, or dropped, while the cell table's
//! lock or a cell's lock is held: the driver moves the wakers an event
//! releases into a vector under the cell's lock and wakes them after
//! releasing it; a waker replaced by a newer one, or taken back, is
//! dropped after the cell's lock is released. [`Driver::turn_deferred`]
//! hands the wakers to the caller instead, for a caller that holds a lock
//! of its own around the turn.
//!
//! ## No lost wake-ups
//!
//! Readiness is edge-triggered, so the reactor must not forget an edge.
//! Each cell packs the ready bits and a *tick* (a counter bumped by every
//! event) into one atomic word:
//!
//! 1. [`Registration::poll_ready`] (or [`ReadyWaiter::poll_ready`]) returns
//!    the ready bits with the tick it observed ([`ReadyEvent`]).
//! 2. The caller tries its syscall; on `WouldBlock` it calls
//!    [`Registration::clear_readiness`] with that event. The clear only
//!    happens if the tick is unchanged: an event that arrived between the
//!    syscall and the clear bumped the tick, so its readiness is kept.
//! 3. When nothing is ready, `poll_ready` stores the waker under the cell's
//!    lock and checks the word again before returning `Pending`; the driver
//!    updates the word *before* taking that lock to collect wakers, so one
//!    of the two always sees the other.
//!
//! The tick is all of the word above the ready bits, the shutdown flag and
//! the generation (see "Stale events"): 49 bits on 64-bit targets, 17 on
//! 32-bit ones. A clear wrongly erases fresh readiness only if the tick
//! came back to the very value the caller observed, that is if a multiple
//! of 2^49 (or 2^17) events reached this one source between the caller's
//! `poll_ready` and its clear, which are one syscall apart. Each event is
//! one dispatch by one driver turn (an edge-triggered poller reports a
//! source at most once per turn), so even 2^17 events take 131 072 turns,
//! each a poller syscall that only returns the source once it has a new
//! edge, while the caller sits between two adjacent lines; 2^49 cannot
//! happen at all.
//!
//! ## Assumed readiness
//!
//! [`Handle::register_assuming`] starts a registration with some readiness
//! already recorded (an accepted socket readable and writable, a fresh
//! socket pair writable), so the first operation tries the syscall instead
//! of waiting for the poller's first event. The readiness is written by the
//! very compare-and-swap that hands the cell to its new owner, before the
//! source enters the poller and before any waiter can exist: it adds no
//! atomic operation, cannot hide an event from a waiter nor wake one, and is
//! observed at the generation's first tick, so the protocol above treats it
//! as an event that arrived first (a `WouldBlock` clears it unless a real
//! event has bumped the tick since).
//!
//! ## Stale events
//!
//! Cells live in a table and are reused: a registration's `mio::Token`
//! carries its cell's index and a generation, and the cell's word holds
//! the generation of its current owner. The driver applies an event only
//! if the two match, checked in the same compare-and-swap that records the
//! readiness, so an event still queued for a closed socket never wakes the
//! socket that took its cell. The generation is 7 bits, so a released cell
//! is not handed out again before the driver's next turn begins: only the
//! batch of events being dispatched can name a source that has left the
//! poller, and by then it is dispatched, however often sockets came and
//! went meanwhile. A registration dropped without deregistering
//! its source (the poller may report it for ever) retires its cell instead
//! of freeing it: never handed out again, so even a generation that wraps
//! around cannot aim that source's events at another socket.
//!
//! ## No lock on the dispatch path
//!
//! The driver reads a cell through its token's index without taking a
//! lock: the table's pages are allocated on demand and never freed or
//! moved while the reactor lives, and a released cell is reused (with the
//! next generation) rather than freed. Registering and dropping sources
//! take the table's allocation lock, which dispatch never waits for.
//!
//! ## Shutdown
//!
//! [`Driver::shutdown`] marks every cell shut down and wakes all waiters;
//! from then on `poll_ready` fails with an error and new registrations are
//! refused, so no waiter hangs.
//!
//! ## Example
//!
//! ```
//! use rt_reactor::{Direction, Driver, Interest};
//! use std::io::Write;
//! use std::task::{Context, Poll, Waker};
//! use std::time::Duration;
//!
//! let (mut driver, handle) = Driver::new().unwrap();
//! let (mut a, mut b) = mio::net::UnixStream::pair().unwrap();
//! let registration = handle.register(&mut b, Interest::READABLE).unwrap();
//! a.write_all(b"hi").unwrap();
//! let mut cx = Context::from_waker(Waker::noop());
//! // Turn until the readiness arrives (one turn is normally enough).
//! let event = loop {
//!     driver.turn(Some(Duration::from_secs(1))).unwrap();
//!     if let Poll::Ready(event) = registration.poll_ready(&mut cx, Direction::Read) {
//!         break event.unwrap();
//!     }
//! };
//! assert!(event.ready().is_readable());
//! registration.deregister(&mut b).unwrap();
//! ```

mod cell;
mod cell_table;
mod driver;
mod loom;
#[cfg(all(test, loom))]
mod loom_models;
mod ready;
mod registration;
#[cfg(all(test, not(loom)))]
mod test_support;
mod waiter;
mod waiter_list;

pub use cell::{is_shutdown_error, shutdown_error};
pub use driver::{DEFAULT_EVENTS_PER_TURN, Driver, Handle};
pub use ready::{Direction, Interest, Ready, ReadyEvent};
pub use registration::Registration;
pub use waiter::ReadyWaiter;

#[cfg(test)]
fn _assert_send_sync() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Handle>();
    send_sync::<Registration>();
    send_sync::<Driver>();
    send_sync::<ReadyWaiter<'static>>();
}
