//! `WeakSender`: a sender that does not keep the broadcast channel open,
//! and the sender counts every half can read. Both counts live in the
//! channel's `Tail`, under its mutex, so an upgrade and the last sender's
//! drop cannot cross: once `senders` reached zero the channel is closed
//! for good and no upgrade revives it.

use super::{Receiver, Sender, Shared};
use crate::loom::sync::Arc;
use std::fmt;

/// A sending half that does not keep the channel open:
/// [`upgrade`](WeakSender::upgrade) it to a [`Sender`] to send, which
/// works while some sender is alive. For a task that should stop sending
/// once everyone else has stopped.
///
/// # Examples
///
/// ```
/// let (tx, mut rx) = rt::sync::broadcast::channel(4);
/// let weak = tx.downgrade();
/// weak.upgrade().unwrap().send(1).unwrap();
/// assert_eq!(rx.try_recv(), Ok(1));
/// drop(tx);
/// assert!(weak.upgrade().is_none(), "the last sender is gone");
/// ```
pub struct WeakSender<T> {
    shared: Arc<Shared<T>>,
}

impl<T> Sender<T> {
    /// A [`WeakSender`] for this channel: it does not keep it open.
    ///
    /// # Examples
    ///
    /// See [`WeakSender`].
    ///
    /// ```
    /// let (tx, _rx) = rt::sync::broadcast::channel::<u8>(1);
    /// let weak = tx.downgrade();
    /// assert_eq!((tx.strong_count(), tx.weak_count()), (1, 1));
    /// # drop(weak);
    /// ```
    pub fn downgrade(&self) -> WeakSender<T> {
        self.shared.tail().weak_senders += 1;
        WeakSender {
            shared: self.shared.clone(),
        }
    }

    /// The number of senders of this channel (this one and its clones).
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, _rx) = rt::sync::broadcast::channel::<u8>(1);
    /// let _tx2 = tx.clone();
    /// assert_eq!(tx.strong_count(), 2);
    /// ```
    pub fn strong_count(&self) -> usize {
        self.shared.tail().senders
    }

    /// The number of [`WeakSender`]s of this channel.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, _rx) = rt::sync::broadcast::channel::<u8>(1);
    /// assert_eq!(tx.weak_count(), 0);
    /// ```
    pub fn weak_count(&self) -> usize {
        self.shared.tail().weak_senders
    }
}

impl<T> WeakSender<T> {
    /// A [`Sender`], if some sender is still alive; `None` once the last
    /// one was dropped (the channel is then closed for good).
    ///
    /// # Examples
    ///
    /// See [`WeakSender`].
    ///
    /// ```
    /// let (tx, _rx) = rt::sync::broadcast::channel::<u8>(1);
    /// let weak = tx.downgrade();
    /// assert_eq!(weak.upgrade().unwrap().strong_count(), 2);
    /// ```
    pub fn upgrade(&self) -> Option<Sender<T>> {
        let mut tail = self.shared.tail();
        if tail.senders == 0 {
            return None;
        }
        tail.senders += 1;
        drop(tail);
        Some(Sender {
            shared: self.shared.clone(),
        })
    }

    /// The number of senders of the channel.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, _rx) = rt::sync::broadcast::channel::<u8>(1);
    /// let weak = tx.downgrade();
    /// drop(tx);
    /// assert_eq!(weak.strong_count(), 0);
    /// ```
    pub fn strong_count(&self) -> usize {
        self.shared.tail().senders
    }

    /// The number of weak senders of the channel (this one included).
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, _rx) = rt::sync::broadcast::channel::<u8>(1);
    /// let weak = tx.downgrade();
    /// assert_eq!(weak.clone().weak_count(), 2);
    /// ```
    pub fn weak_count(&self) -> usize {
        self.shared.tail().weak_senders
    }
}

impl<T> Receiver<T> {
    /// The number of senders of the channel (the receiver sees it closed
    /// at zero).
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, rx) = rt::sync::broadcast::channel::<u8>(1);
    /// let tx2 = tx.clone();
    /// assert_eq!(rx.sender_strong_count(), 2);
    /// drop((tx, tx2));
    /// assert_eq!(rx.sender_strong_count(), 0);
    /// ```
    pub fn sender_strong_count(&self) -> usize {
        self.shared.tail().senders
    }

    /// The number of weak senders of the channel.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, rx) = rt::sync::broadcast::channel::<u8>(1);
    /// let weak = tx.downgrade();
    /// assert_eq!(rx.sender_weak_count(), 1);
    /// drop(weak);
    /// assert_eq!(rx.sender_weak_count(), 0);
    /// ```
    pub fn sender_weak_count(&self) -> usize {
        self.shared.tail().weak_senders
    }
}

impl<T> Clone for WeakSender<T> {
    fn clone(&self) -> WeakSender<T> {
        self.shared.tail().weak_senders += 1;
        WeakSender {
            shared: self.shared.clone(),
        }
    }
}

impl<T> Drop for WeakSender<T> {
    fn drop(&mut self) {
        self.shared.tail().weak_senders -= 1;
    }
}

impl<T> fmt::Debug for WeakSender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tail = self.shared.tail();
        f.debug_struct("WeakSender")
            .field("senders", &tail.senders)
            .field("weak_senders", &tail.weak_senders)
            .finish()
    }
}

#[cfg(all(test, loom))]
mod loom_broadcast_weak_sender {
    use super::super::channel;
    use super::super::error::RecvError;
    use loom::thread;

    /// An upgrade racing the last sender's drop: either the upgrade wins,
    /// and its value reaches the waiting receiver before `Closed`, or it
    /// sees the channel closed for good; the receiver is never left
    /// waiting (loom reports a deadlock if a wake-up is lost).
    #[test]
    fn upgrade_vs_last_sender_drop() {
        loom::model(|| {
            let (tx, mut rx) = channel(1);
            let weak = tx.downgrade();
            let upgrader = thread::spawn(move || match weak.upgrade() {
                Some(tx) => {
                    tx.send(1).unwrap();
                    true
                }
                None => false,
            });
            let dropper = thread::spawn(move || drop(tx));
            let first = loom::future::block_on(rx.recv());
            let upgraded = upgrader.join().unwrap();
            dropper.join().unwrap();
            if upgraded {
                assert_eq!(first, Ok(1));
                assert_eq!(loom::future::block_on(rx.recv()), Err(RecvError::Closed));
            } else {
                assert_eq!(first, Err(RecvError::Closed));
            }
            assert_eq!((rx.sender_strong_count(), rx.sender_weak_count()), (0, 0));
        });
    }
}
