//! The unbounded channel: `send` never waits.

use crate::loom::sync::Arc;
use crate::sync::mpsc::WeakUnboundedSender;
use crate::sync::mpsc::chan::Chan;
use crate::sync::mpsc::error::{SendError, TryRecvError};
use crate::sync::mpsc::queue::Head;

/// Creates an unbounded channel. Nothing limits how much is queued: use
/// a bounded [`channel`](super::channel) where producers can outrun the
/// consumer.
///
/// # Examples
///
/// ```
/// let (tx, mut rx) = rt::sync::mpsc::unbounded_channel();
/// for i in 0..1000 { tx.send(i).unwrap(); }
/// drop(tx);
/// let mut count = 0;
/// futures::executor::block_on(async { while rx.recv().await.is_some() { count += 1; } });
/// assert_eq!(count, 1000);
/// ```
pub fn unbounded_channel<T>() -> (UnboundedSender<T>, UnboundedReceiver<T>) {
    let (chan, head) = Chan::new(None);
    let chan = Arc::new(chan);
    (
        UnboundedSender { chan: chan.clone() },
        UnboundedReceiver { chan, head },
    )
}

/// The sending half of an unbounded channel; clone it for more producers.
///
/// # Examples
///
/// ```
/// let (tx, mut rx) = rt::sync::mpsc::unbounded_channel();
/// tx.clone().send(1).unwrap();
/// assert_eq!(rx.try_recv(), Ok(1));
/// ```
pub struct UnboundedSender<T> {
    pub(super) chan: Arc<Chan<T>>,
}

/// The receiving half of an unbounded channel. Dropping it drops the
/// values still queued.
///
/// # Examples
///
/// ```
/// let (tx, mut rx) = rt::sync::mpsc::unbounded_channel::<u8>();
/// drop(tx);
/// assert_eq!(futures::executor::block_on(rx.recv()), None);
/// ```
pub struct UnboundedReceiver<T> {
    pub(super) chan: Arc<Chan<T>>,
    /// The right to pop: this is the one receiver.
    pub(super) head: Head,
}

impl<T> UnboundedSender<T> {
    /// Queues a value without waiting.
    ///
    /// # Errors
    ///
    /// Returns the value if the receiver is closed or gone.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, rx) = rt::sync::mpsc::unbounded_channel();
    /// assert!(tx.send(1).is_ok());
    /// drop(rx);
    /// assert_eq!(tx.send(2).unwrap_err().0, 2);
    /// ```
    pub fn send(&self, value: T) -> Result<(), SendError<T>> {
        self.chan.push(value, false).map_err(SendError)
    }
}

crate::sync::mpsc::shared_halves::sender_half! {
    UnboundedSender, WeakUnboundedSender;
    /// A [`WeakUnboundedSender`] for this channel: it does not keep it
    /// open.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, _rx) = rt::sync::mpsc::unbounded_channel::<u8>();
    /// let weak = tx.downgrade();
    /// assert!(weak.upgrade().is_some());
    /// ```
    downgrade;

    /// The number of senders of this channel (this one and its clones).
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, _rx) = rt::sync::mpsc::unbounded_channel::<u8>();
    /// assert_eq!(tx.clone().strong_count(), 2);
    /// ```
    strong_count;

    /// The number of [`WeakUnboundedSender`]s of this channel.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, _rx) = rt::sync::mpsc::unbounded_channel::<u8>();
    /// let _weak = tx.downgrade();
    /// assert_eq!(tx.weak_count(), 1);
    /// ```
    weak_count;

    /// `true` once the receiver closed or dropped.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, mut rx) = rt::sync::mpsc::unbounded_channel::<u8>();
    /// rx.close();
    /// assert!(tx.is_closed());
    /// ```
    is_closed;

    /// Waits until the receiver closes or drops. Cancel-safe. Spends no
    /// cooperative budget, as tokio's, so a loop of it that never waits
    /// does not yield on its own.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, rx) = rt::sync::mpsc::unbounded_channel::<u8>();
    /// std::thread::spawn(move || drop(rx));
    /// futures::executor::block_on(tx.closed());
    /// ```
    closed;
}

crate::sync::mpsc::shared_halves::receiver_half! {
    UnboundedReceiver;
    /// Receives the next value; `None` once every sender is gone (or the
    /// channel was closed) and the queue is drained. Cancel-safe.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, mut rx) = rt::sync::mpsc::unbounded_channel();
    /// tx.send("a").unwrap();
    /// assert_eq!(futures::executor::block_on(rx.recv()), Some("a"));
    /// ```
    recv;

    /// [`recv`](UnboundedReceiver::recv) for synchronous code: blocks the
    /// thread until a value comes or every sender is gone.
    ///
    /// # Panics
    ///
    /// Panics on a thread that runs tasks (use `recv().await` there).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let (tx, mut rx) = rt::sync::mpsc::unbounded_channel();
    /// rt.spawn(async move { tx.send(7).unwrap() });
    /// let got = std::thread::spawn(move || rx.blocking_recv()).join().unwrap();
    /// assert_eq!(got, Some(7));
    /// ```
    blocking_recv;

    /// Polls for the next value; see [`recv`](UnboundedReceiver::recv).
    poll_recv;

    /// Waits for at least one value, then moves up to `limit` queued
    /// values into `buf`. Returns how many; 0 means closed and drained
    /// (or `limit` is 0). Cancel-safe.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, mut rx) = rt::sync::mpsc::unbounded_channel();
    /// for i in 0..5 { tx.send(i).unwrap(); }
    /// let mut buf = Vec::new();
    /// assert_eq!(futures::executor::block_on(rx.recv_many(&mut buf, 10)), 5);
    /// ```
    recv_many;

    /// Takes a queued value without waiting.
    ///
    /// A send that has claimed the next slot but not finished writing it
    /// (a few instructions, no lock) is waited for, so the values of sends
    /// that completed are never hidden behind it. `Disconnected` is only
    /// returned once no value can arrive any more.
    ///
    /// # Errors
    ///
    /// [`TryRecvError::Empty`] or [`TryRecvError::Disconnected`].
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, mut rx) = rt::sync::mpsc::unbounded_channel::<u8>();
    /// assert!(rx.try_recv().is_err());
    /// tx.send(1).unwrap();
    /// assert_eq!(rx.try_recv(), Ok(1));
    /// ```
    try_recv;

    /// Closes the channel: sends fail from now on, queued values can still
    /// be received.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, mut rx) = rt::sync::mpsc::unbounded_channel();
    /// tx.send(1).unwrap();
    /// rx.close();
    /// assert!(tx.send(2).is_err());
    /// assert_eq!(rx.try_recv(), Ok(1));
    /// ```
    close;

    /// The number of queued values, counting sends that are writing
    /// their value right now.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, rx) = rt::sync::mpsc::unbounded_channel();
    /// tx.send(()).unwrap();
    /// assert_eq!(rx.len(), 1);
    /// ```
    len;

    /// `true` if nothing is queued.
    ///
    /// # Examples
    ///
    /// ```
    /// let (_tx, rx) = rt::sync::mpsc::unbounded_channel::<u8>();
    /// assert!(rx.is_empty());
    /// ```
    is_empty;

    /// `true` once the channel is closed: by
    /// [`close`](UnboundedReceiver::close), or because every sender is
    /// gone. Queued values can still be received.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, mut rx) = rt::sync::mpsc::unbounded_channel::<u8>();
    /// assert!(!rx.is_closed());
    /// rx.close();
    /// assert!(rx.is_closed());
    /// # drop(tx);
    /// ```
    is_closed;
}

#[cfg(all(test, loom))]
mod loom_mpsc_unbounded {
    use super::unbounded_channel;
    use loom::thread;

    /// Two senders race the waiting receiver over a block boundary (three
    /// values, blocks of two under loom), then leave: the receiver is
    /// woken for each value, gets each once, and then `None`.
    #[test]
    fn two_senders_vs_waiting_receiver_across_a_block() {
        loom::model(|| {
            let (tx, mut rx) = unbounded_channel::<u32>();
            tx.send(0).unwrap();
            let senders: Vec<_> = (1..3)
                .map(|i| {
                    let tx = tx.clone();
                    thread::spawn(move || tx.send(i).unwrap())
                })
                .collect();
            drop(tx);
            let mut got = Vec::new();
            while let Some(value) = loom::future::block_on(rx.recv()) {
                got.push(value);
            }
            got.sort();
            assert_eq!(got, [0, 1, 2]);
            for sender in senders {
                sender.join().unwrap();
            }
        });
    }

    /// A send racing the receiver's drop: the value is either refused and
    /// handed back, or queued and dropped with the receiver, never both.
    #[test]
    fn send_vs_receiver_drop() {
        loom::model(|| {
            let value = std::sync::Arc::new(());
            let (tx, rx) = unbounded_channel();
            let sender = {
                let value = value.clone();
                thread::spawn(move || {
                    let refused = tx.send(value).is_err();
                    (tx, refused)
                })
            };
            drop(rx);
            let (tx, _refused) = sender.join().unwrap();
            assert_eq!(std::sync::Arc::strong_count(&value), 1);
            drop(tx);
        });
    }
}
