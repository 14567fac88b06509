//! `PermitIterator`: slots reserved together by `reserve_many`.

use crate::sync::mpsc::Permit;
use crate::sync::mpsc::chan::Chan;
use std::fmt;

/// Slots of a bounded channel reserved together by
/// [`Sender::reserve_many`](super::Sender::reserve_many) or
/// [`Sender::try_reserve_many`](super::Sender::try_reserve_many): it
/// yields one [`Permit`] per slot. Slots it has not yielded go back to
/// the channel when it is dropped.
///
/// # Examples
///
/// ```
/// let (tx, mut rx) = rt::sync::mpsc::channel(4);
/// let permits = tx.try_reserve_many(3).unwrap();
/// assert_eq!(permits.len(), 3);
/// for (i, permit) in permits.enumerate() {
///     permit.send(i);
/// }
/// assert_eq!(rx.len(), 3);
/// # assert_eq!(rx.try_recv(), Ok(0));
/// ```
pub struct PermitIterator<'a, T> {
    chan: &'a Chan<T>,
    /// Reserved slots not yielded yet.
    left: usize,
}

impl<'a, T> PermitIterator<'a, T> {
    /// Hands out `left` slots the caller has just reserved.
    pub(super) fn new(chan: &'a Chan<T>, left: usize) -> PermitIterator<'a, T> {
        PermitIterator { chan, left }
    }
}

impl<'a, T> Iterator for PermitIterator<'a, T> {
    type Item = Permit<'a, T>;

    fn next(&mut self) -> Option<Permit<'a, T>> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        Some(Permit::new(self.chan))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl<T> ExactSizeIterator for PermitIterator<'_, T> {}

impl<T> std::iter::FusedIterator for PermitIterator<'_, T> {}

impl<T> Drop for PermitIterator<'_, T> {
    fn drop(&mut self) {
        self.chan.release_slots(self.left);
    }
}

impl<T> fmt::Debug for PermitIterator<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("mpsc::PermitIterator")
            .field("left", &self.left)
            .finish()
    }
}
