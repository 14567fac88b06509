//! One waiting future's own place in a registration's waiter list.

use crate::cell::{Places, ReadinessCell, Slot};
use crate::ready::{Ready, ReadyEvent};
use std::fmt;
use std::io;
use std::task::{Context, Poll};

/// A place of its own in the list of tasks waiting on one direction of a
/// [`Registration`](crate::Registration), for a future that waits on a
/// shared source (an `accept` or `recv` on `&self`): any number of
/// `ReadyWaiter`s can wait on one registration in one direction, and an
/// edge wakes them all. The first waiter of a direction allocates nothing.
///
/// A waiter for an [`Interest`](crate::Interest)
/// ([`Registration::waiter_for`](crate::Registration::waiter_for)) waits
/// for the states of [`Interest::mask`](crate::Interest::mask) only, with a
/// place in each direction's list the interest needs (both for reading and
/// writing at once); an edge of the other states in those lists wakes it,
/// and it finds nothing it waits for and stores a fresh waker.
///
/// The place is taken on the first `Pending` and freed when the waiter is
/// dropped, so a future dropped while waiting (a timeout, a `select!`)
/// leaves no waker behind. Keep one waiter for the whole of one operation,
/// across its retries: a woken waiter that finds the readiness taken by
/// another one keeps its place and stores a fresh waker.
///
/// # Examples
///
/// ```
/// use rt_reactor::{Direction, Driver, Interest};
/// use std::io::Write;
/// use std::task::{Context, Poll, Waker};
/// use std::time::Duration;
///
/// let (mut driver, handle) = Driver::new().unwrap();
/// let (mut a, mut b) = mio::net::UnixStream::pair().unwrap();
/// let registration = handle.register(&mut a, Interest::READABLE).unwrap();
/// // Two tasks wait to read the same socket.
/// let mut first = registration.waiter(Direction::Read);
/// let mut second = registration.waiter(Direction::Read);
/// let mut cx = Context::from_waker(Waker::noop());
/// assert!(first.poll_ready(&mut cx).is_pending());
/// assert!(second.poll_ready(&mut cx).is_pending());
/// b.write_all(b"x").unwrap();
/// driver.turn(Some(Duration::from_secs(1))).unwrap();
/// // The edge reached both.
/// assert!(first.poll_ready(&mut cx).is_ready());
/// assert!(second.poll_ready(&mut cx).is_ready());
/// drop((first, second));
/// registration.deregister(&mut a).unwrap();
/// ```
pub struct ReadyWaiter<'a> {
    cell: &'a ReadinessCell,
    /// The states this waiter waits for.
    mask: Ready,
    places: Places,
}

impl<'a> ReadyWaiter<'a> {
    pub(crate) fn new(cell: &'a ReadinessCell, mask: Ready) -> ReadyWaiter<'a> {
        ReadyWaiter {
            cell,
            mask,
            places: Places::default(),
        }
    }

    /// `Ready` with the states this waiter waits for once the driver
    /// reported some; otherwise stores the waker in this waiter's places
    /// (taking them on the first call) and returns `Pending`.
    ///
    /// # Errors
    ///
    /// Fails once the driver has shut down or the registration is dropped.
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
    /// let mut waiter = registration.waiter(Direction::Write);
    /// let mut cx = Context::from_waker(Waker::noop());
    /// let event = loop {
    ///     if let Poll::Ready(event) = waiter.poll_ready(&mut cx) {
    ///         break event.unwrap();
    ///     }
    ///     driver.turn(Some(Duration::from_secs(1))).unwrap();
    /// };
    /// assert!(event.ready().is_writable());
    /// drop(waiter);
    /// registration.deregister(&mut a).unwrap();
    /// ```
    pub fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<ReadyEvent>> {
        self.cell
            .poll_ready(cx, self.mask, Slot::Owned(&mut self.places))
    }

    /// The readiness states this waiter waits for.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt_reactor::{Direction, Driver, Interest};
    ///
    /// let (_driver, handle) = Driver::new().unwrap();
    /// let (mut a, _b) = mio::net::UnixStream::pair().unwrap();
    /// let registration = handle.register(&mut a, Interest::READABLE).unwrap();
    /// assert_eq!(registration.waiter(Direction::Read).mask(), Direction::Read.mask());
    /// registration.deregister(&mut a).unwrap();
    /// ```
    pub fn mask(&self) -> Ready {
        self.mask
    }
}

impl Drop for ReadyWaiter<'_> {
    fn drop(&mut self) {
        if !self.places.is_empty() {
            self.cell.leave(&mut self.places);
        }
    }
}

impl fmt::Debug for ReadyWaiter<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReadyWaiter")
            .field("mask", &self.mask)
            .field("waiting", &!self.places.is_empty())
            .finish()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::ready::{Direction, Interest, Ready};
    use crate::test_support::counting;
    use std::sync::Arc;

    #[test]
    fn waiters_dropped_while_waiting_leave_nothing_behind() {
        let cell = ReadinessCell::new();
        let (count, waker) = counting();
        let mut cx = Context::from_waker(&waker);
        let mut stays = ReadyWaiter::new(&cell, Direction::Read.mask());
        assert!(stays.poll_ready(&mut cx).is_pending());
        for _ in 0..10_000 {
            let mut waiter = ReadyWaiter::new(&cell, Direction::Read.mask());
            assert!(waiter.poll_ready(&mut cx).is_pending());
            assert_eq!(cell.waiter_places(Direction::Read), 2);
        }
        assert_eq!(cell.waiter_places(Direction::Read), 1);
        // `waker`, and the one clone `stays` stored.
        assert_eq!(Arc::strong_count(&count), 3);
        drop(stays);
        assert_eq!(cell.waiter_places(Direction::Read), 0);
        assert_eq!(Arc::strong_count(&count), 2);
    }

    #[test]
    fn an_edge_wakes_every_waiter_of_its_direction_only() {
        let cell = ReadinessCell::new();
        let readers: Vec<_> = (0..8).map(|_| counting()).collect();
        let mut waiters: Vec<_> = readers
            .iter()
            .map(|(_, waker)| {
                let mut waiter = ReadyWaiter::new(&cell, Direction::Read.mask());
                assert!(
                    waiter
                        .poll_ready(&mut Context::from_waker(waker))
                        .is_pending()
                );
                waiter
            })
            .collect();
        let (writer, write_waker) = counting();
        let mut write_waiter = ReadyWaiter::new(&cell, Direction::Write.mask());
        assert!(
            write_waiter
                .poll_ready(&mut Context::from_waker(&write_waker))
                .is_pending()
        );
        cell.deliver(Ready::READABLE);
        for (count, _) in &readers {
            assert_eq!(count.wakes(), 1);
        }
        assert_eq!(writer.wakes(), 0);
        // The first to run takes the readiness; the rest find it gone
        // (their operation would block) and wait again in their places.
        let event = match waiters[0].poll_ready(&mut Context::from_waker(&readers[0].1)) {
            Poll::Ready(event) => event.unwrap(),
            Poll::Pending => panic!("the edge was lost"),
        };
        cell.clear_ready(event);
        for (waiter, (_, waker)) in waiters.iter_mut().zip(&readers).skip(1) {
            assert!(
                waiter
                    .poll_ready(&mut Context::from_waker(waker))
                    .is_pending()
            );
        }
        assert_eq!(cell.waiter_places(Direction::Read), 8);
        assert_eq!(cell.stored_wakers(Direction::Read), 7);
        cell.deliver(Ready::READABLE);
        for (count, _) in &readers[1..] {
            assert_eq!(count.wakes(), 2);
        }
        waiters.clear();
        assert_eq!(cell.waiter_places(Direction::Read), 0);
    }

    #[test]
    fn the_shared_slot_keeps_the_last_waker_only() {
        let cell = ReadinessCell::new();
        let (first, first_waker) = counting();
        let (second, second_waker) = counting();
        for waker in [&first_waker, &second_waker] {
            let polled = cell.poll_ready(
                &mut Context::from_waker(waker),
                Direction::Read.mask(),
                Slot::Shared(Direction::Read),
            );
            assert!(polled.is_pending());
        }
        // The replaced waker was dropped (after the lock), not kept.
        assert_eq!(Arc::strong_count(&first), 2);
        cell.deliver(Ready::READABLE);
        assert_eq!(first.wakes(), 0);
        assert_eq!(second.wakes(), 1);
    }

    #[test]
    fn an_interest_waiter_waits_in_both_lists_and_frees_both_places() {
        let cell = ReadinessCell::new();
        let (count, waker) = counting();
        let mut waiter = ReadyWaiter::new(&cell, (Interest::READABLE | Interest::WRITABLE).mask());
        assert!(
            waiter
                .poll_ready(&mut Context::from_waker(&waker))
                .is_pending()
        );
        assert_eq!(cell.waiter_places(Direction::Read), 1);
        assert_eq!(cell.waiter_places(Direction::Write), 1);
        cell.deliver(Ready::WRITABLE);
        assert_eq!(count.wakes(), 1);
        let event = match waiter.poll_ready(&mut Context::from_waker(&waker)) {
            Poll::Ready(event) => event.unwrap(),
            Poll::Pending => panic!("the write edge was lost"),
        };
        assert_eq!(event.ready(), Ready::WRITABLE);
        drop(waiter);
        assert_eq!(cell.waiter_places(Direction::Read), 0);
        assert_eq!(cell.waiter_places(Direction::Write), 0);
        // Only `waker` is left: no list kept a clone.
        assert_eq!(Arc::strong_count(&count), 2);
    }

    #[test]
    fn a_waiter_for_errors_alone_ignores_readability_and_wakes_on_an_error() {
        let cell = ReadinessCell::new();
        cell.deliver(Ready::READABLE);
        let (count, waker) = counting();
        let mut waiter = ReadyWaiter::new(&cell, Interest::ERROR.mask());
        assert!(
            waiter
                .poll_ready(&mut Context::from_waker(&waker))
                .is_pending()
        );
        assert_eq!(cell.waiter_places(Direction::Read), 1);
        assert_eq!(cell.waiter_places(Direction::Write), 0);
        // Another read edge wakes it; it finds no error and waits again.
        cell.deliver(Ready::READABLE);
        assert_eq!(count.wakes(), 1);
        assert!(
            waiter
                .poll_ready(&mut Context::from_waker(&waker))
                .is_pending()
        );
        cell.deliver(Ready::ERROR);
        assert_eq!(count.wakes(), 2);
        match waiter.poll_ready(&mut Context::from_waker(&waker)) {
            Poll::Ready(event) => assert_eq!(event.unwrap().ready(), Ready::ERROR),
            Poll::Pending => panic!("the error was lost"),
        }
    }

    #[test]
    fn a_writer_does_not_wait_in_the_read_list() {
        let cell = ReadinessCell::new();
        let (_, waker) = counting();
        let mut waiter = ReadyWaiter::new(&cell, Interest::WRITABLE.mask());
        assert!(
            waiter
                .poll_ready(&mut Context::from_waker(&waker))
                .is_pending()
        );
        assert_eq!(cell.waiter_places(Direction::Read), 0);
        assert_eq!(cell.waiter_places(Direction::Write), 1);
    }

    /// Priority data (a socket's urgent byte) is not something a read
    /// waits for: the read skips it and would block. A reader woken by
    /// its edge finds nothing it waits for, so it never reaches the
    /// `WouldBlock` that would clear the readiness a priority waiter in
    /// the same list was woken for.
    #[test]
    fn a_priority_edge_is_left_to_the_priority_waiter() {
        let cell = ReadinessCell::new();
        let (readers, read_waker) = counting();
        let (priority, priority_waker) = counting();
        let mut reader = ReadyWaiter::new(&cell, Interest::READABLE.mask());
        let mut urgent = ReadyWaiter::new(&cell, Interest::PRIORITY.mask());
        let mut read_cx = Context::from_waker(&read_waker);
        let mut priority_cx = Context::from_waker(&priority_waker);
        assert!(reader.poll_ready(&mut read_cx).is_pending());
        assert!(urgent.poll_ready(&mut priority_cx).is_pending());
        cell.deliver(Ready::PRIORITY);
        assert_eq!(priority.wakes(), 1);
        // The reader shares the list, so it may be woken, but it waits on.
        assert!(readers.wakes() <= 1);
        assert!(reader.poll_ready(&mut read_cx).is_pending());
        match urgent.poll_ready(&mut priority_cx) {
            Poll::Ready(event) => assert!(event.unwrap().ready().is_priority()),
            Poll::Pending => panic!("the priority readiness was lost"),
        }
    }

    /// A waker whose last clone's drop calls `on_drop`.
    fn waker_dropping_into(on_drop: impl Fn() + Send + Sync + 'static) -> std::task::Waker {
        struct Hook<F: Fn() + Send + Sync>(F);
        impl<F: Fn() + Send + Sync> std::task::Wake for Hook<F> {
            fn wake(self: Arc<Self>) {}
        }
        impl<F: Fn() + Send + Sync> Drop for Hook<F> {
            fn drop(&mut self) {
                (self.0)();
            }
        }
        std::task::Waker::from(Arc::new(Hook(on_drop)))
    }

    #[test]
    fn wakers_replaced_in_both_lists_are_dropped_after_the_lock() {
        let cell = Arc::new(ReadinessCell::new());
        let seen = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let first = {
            let (cell, seen) = (cell.clone(), seen.clone());
            // Locks the waiter lists: a drop under the lock would deadlock.
            waker_dropping_into(move || {
                let stored =
                    cell.stored_wakers(Direction::Read) + cell.stored_wakers(Direction::Write);
                seen.store(stored + 1, std::sync::atomic::Ordering::SeqCst);
            })
        };
        let mut waiter = ReadyWaiter::new(&cell, (Interest::READABLE | Interest::WRITABLE).mask());
        assert!(
            waiter
                .poll_ready(&mut Context::from_waker(&first))
                .is_pending()
        );
        drop(first);
        let (_, second) = counting();
        assert!(
            waiter
                .poll_ready(&mut Context::from_waker(&second))
                .is_pending()
        );
        // Both lists now hold the second waker; the first was dropped once
        // its last clone left, outside the lock.
        assert_eq!(seen.load(std::sync::atomic::Ordering::SeqCst), 3);
    }
}
