//! Weak senders: they keep the channel's memory, not the channel open.
//! A receiver ends with `None` once the last (strong) sender is gone,
//! whatever weak senders remain; a weak sender then upgrades to nothing.

use crate::loom::sync::Arc;
use crate::sync::mpsc::chan::Chan;
use crate::sync::mpsc::{Sender, UnboundedSender};
use std::fmt;

/// A sender of a bounded channel that does not keep it open; made by
/// [`Sender::downgrade`], turned back into a sender by
/// [`upgrade`](WeakSender::upgrade).
///
/// # Examples
///
/// ```
/// let (tx, mut rx) = rt::sync::mpsc::channel::<u8>(1);
/// let weak = tx.downgrade();
/// weak.upgrade().unwrap().try_send(1).unwrap();
/// drop(tx);
/// assert!(weak.upgrade().is_none(), "the last sender is gone");
/// assert_eq!(rx.try_recv(), Ok(1));
/// ```
pub struct WeakSender<T> {
    chan: Arc<Chan<T>>,
}

/// A sender of an unbounded channel that does not keep it open; made by
/// [`UnboundedSender::downgrade`].
///
/// # Examples
///
/// ```
/// let (tx, rx) = rt::sync::mpsc::unbounded_channel::<u8>();
/// let weak = tx.downgrade();
/// assert_eq!(weak.strong_count(), 1);
/// drop(tx);
/// assert!(weak.upgrade().is_none());
/// # drop(rx);
/// ```
pub struct WeakUnboundedSender<T> {
    chan: Arc<Chan<T>>,
}

/// One weak reference more to `chan`.
fn new_weak<T>(chan: &Arc<Chan<T>>) -> Arc<Chan<T>> {
    chan.add_weak_sender();
    chan.clone()
}

impl<T> WeakSender<T> {
    pub(super) fn new(chan: &Arc<Chan<T>>) -> WeakSender<T> {
        WeakSender {
            chan: new_weak(chan),
        }
    }

    /// A sender again, or `None` once every sender is gone.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, _rx) = rt::sync::mpsc::channel::<u8>(1);
    /// let weak = tx.downgrade();
    /// assert!(weak.upgrade().is_some());
    /// ```
    pub fn upgrade(&self) -> Option<Sender<T>> {
        self.chan
            .upgrade_sender()
            .then(|| Sender::from_chan(self.chan.clone()))
    }

    /// The number of (strong) senders.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, _rx) = rt::sync::mpsc::channel::<u8>(1);
    /// assert_eq!(tx.downgrade().strong_count(), 1);
    /// ```
    pub fn strong_count(&self) -> usize {
        self.chan.sender_count()
    }

    /// The number of weak senders.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, _rx) = rt::sync::mpsc::channel::<u8>(1);
    /// let weak = tx.downgrade();
    /// assert_eq!(weak.clone().weak_count(), 2);
    /// ```
    pub fn weak_count(&self) -> usize {
        self.chan.weak_sender_count()
    }
}

impl<T> WeakUnboundedSender<T> {
    pub(super) fn new(chan: &Arc<Chan<T>>) -> WeakUnboundedSender<T> {
        WeakUnboundedSender {
            chan: new_weak(chan),
        }
    }

    /// A sender again, or `None` once every sender is gone.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, _rx) = rt::sync::mpsc::unbounded_channel::<u8>();
    /// let weak = tx.downgrade();
    /// weak.upgrade().unwrap().send(1).unwrap();
    /// ```
    pub fn upgrade(&self) -> Option<UnboundedSender<T>> {
        self.chan
            .upgrade_sender()
            .then(|| UnboundedSender::from_chan(self.chan.clone()))
    }

    /// The number of (strong) senders.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, _rx) = rt::sync::mpsc::unbounded_channel::<u8>();
    /// assert_eq!(tx.downgrade().strong_count(), 1);
    /// ```
    pub fn strong_count(&self) -> usize {
        self.chan.sender_count()
    }

    /// The number of weak senders.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, _rx) = rt::sync::mpsc::unbounded_channel::<u8>();
    /// let weak = tx.downgrade();
    /// assert_eq!(weak.weak_count(), 1);
    /// ```
    pub fn weak_count(&self) -> usize {
        self.chan.weak_sender_count()
    }
}

impl<T> Clone for WeakSender<T> {
    fn clone(&self) -> WeakSender<T> {
        WeakSender::new(&self.chan)
    }
}

impl<T> Clone for WeakUnboundedSender<T> {
    fn clone(&self) -> WeakUnboundedSender<T> {
        WeakUnboundedSender::new(&self.chan)
    }
}

impl<T> Drop for WeakSender<T> {
    fn drop(&mut self) {
        self.chan.drop_weak_sender();
    }
}

impl<T> Drop for WeakUnboundedSender<T> {
    fn drop(&mut self) {
        self.chan.drop_weak_sender();
    }
}

impl<T> fmt::Debug for WeakSender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("mpsc::WeakSender")
            .field("chan", &self.chan)
            .finish()
    }
}

impl<T> fmt::Debug for WeakUnboundedSender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("mpsc::WeakUnboundedSender")
            .field("chan", &self.chan)
            .finish()
    }
}
