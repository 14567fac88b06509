//! # rt-reactor — the I/O reactor of the `rt` runtime
//!
//! One [`Driver`] per runtime owns a `mio::Poll`. Any `mio::event::Source`
//! (a socket, a pipe, a raw fd through `mio::unix::SourceFd`) is registered
//! through a cheap, cloneable [`Handle`] and gets back a [`Registration`]:
//! a readiness cell plus one read waker and one write waker. The thread
//! that drives I/O calls [`Driver::turn`], which blocks in the OS poller
//! until an event arrives, the timeout passes or [`Handle::unpark`] fires the
//! `mio::Waker`, then records readiness in the cells and wakes the waiters.
//! The crate knows nothing of tasks: it stores and wakes `std::task::Waker`s.
//!
//! ## No lost wake-ups
//!
//! Readiness is edge-triggered, so the reactor must not forget an edge.
//! Each cell packs the ready bits and a *tick* (a counter bumped by every
//! event) into one atomic word:
//!
//! 1. [`Registration::poll_ready`] returns the ready bits with the tick it
//!    observed ([`ReadyEvent`]).
//! 2. The caller tries its syscall; on `WouldBlock` it calls
//!    [`Registration::clear_readiness`] with that event. The clear only
//!    happens if the tick is unchanged: an event that arrived between the
//!    syscall and the clear bumped the tick, so its readiness is kept.
//! 3. When nothing is ready, `poll_ready` stores the waker under the cell's
//!    lock and checks the word again before returning `Pending`; the driver
//!    updates the word *before* taking that lock to collect wakers, so one
//!    of the two always sees the other.
//!
//! ## Stale events
//!
//! Registrations live in a slab whose slots are reused. The `mio::Token` of
//! a registration carries its slot index and a generation; the driver
//! ignores an event whose generation does not match the slot's current
//! owner, so an event queued for a closed socket never wakes the socket
//! that took its slot.
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

mod driver;
mod loom;
mod readiness;
mod ready;
mod registration;

pub use driver::{Driver, Handle};
pub use ready::{Direction, Interest, Ready, ReadyEvent};
pub use registration::Registration;

#[cfg(test)]
fn _assert_send_sync() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Handle>();
    send_sync::<Registration>();
    send_sync::<Driver>();
}
