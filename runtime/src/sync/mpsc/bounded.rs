//! The bounded channel: `send` waits for a free slot.

use crate::loom::sync::Arc;
use crate::sync::mpsc::chan::Chan;
use crate::sync::mpsc::error::{SendError, SendTimeoutError, TryRecvError, TrySendError};
use crate::sync::mpsc::queue::Head;
use crate::sync::mpsc::{PermitIterator, WeakSender};
use crate::sync::semaphore::TryAcquireError;
use crate::task::waits::Site;
use std::fmt;
use std::future::Future;

/// Creates a bounded channel holding at most `capacity` queued values.
///
/// # Panics
///
/// Panics if `capacity` is 0 (use a [`oneshot`](crate::sync::oneshot) or
/// [`Notify`](crate::sync::Notify) for a rendezvous) or larger than
/// [`Semaphore::MAX_PERMITS`](crate::sync::Semaphore::MAX_PERMITS).
///
/// # Examples
///
/// ```
/// let (tx, mut rx) = rt::sync::mpsc::channel(2);
/// tx.try_send('a').unwrap();
/// tx.try_send('b').unwrap();
/// assert!(tx.try_send('c').is_err());
/// assert_eq!(rx.try_recv(), Ok('a'));
/// ```
#[track_caller]
pub fn channel<T>(capacity: usize) -> (Sender<T>, Receiver<T>) {
    assert!(
        capacity > 0,
        "mpsc::channel capacity must be at least 1; use a oneshot or Notify for a rendezvous"
    );
    let (chan, head) = Chan::new(Some(capacity));
    let chan = Arc::new(chan);
    (Sender { chan: chan.clone() }, Receiver { chan, head })
}

/// The sending half of a bounded channel; clone it for more producers.
///
/// # Examples
///
/// ```
/// let (tx, mut rx) = rt::sync::mpsc::channel(1);
/// futures::executor::block_on(tx.send(1)).unwrap();
/// assert_eq!(futures::executor::block_on(rx.recv()), Some(1));
/// ```
pub struct Sender<T> {
    pub(super) chan: Arc<Chan<T>>,
}

/// The receiving half of a bounded channel.
///
/// Dropping it drops the values still queued (their slots are free
/// again); senders then fail.
///
/// # Examples
///
/// ```
/// let (tx, mut rx) = rt::sync::mpsc::channel::<u8>(1);
/// drop(tx);
/// assert_eq!(futures::executor::block_on(rx.recv()), None);
/// ```
pub struct Receiver<T> {
    pub(super) chan: Arc<Chan<T>>,
    /// The right to pop: this is the one receiver.
    pub(super) head: Head,
}

/// A reserved slot: [`send`](Permit::send) cannot fail or wait.
/// Dropping it unused gives the slot back.
///
/// # Examples
///
/// ```
/// let (tx, mut rx) = rt::sync::mpsc::channel(1);
/// let permit = futures::executor::block_on(tx.reserve()).unwrap();
/// permit.send(9);
/// assert_eq!(rx.try_recv(), Ok(9));
/// ```
pub struct Permit<'a, T> {
    chan: &'a Chan<T>,
}

/// A reserved slot owning its sender; [`send`](OwnedPermit::send) gives
/// the sender back.
///
/// # Examples
///
/// ```
/// let (tx, mut rx) = rt::sync::mpsc::channel(1);
/// let permit = futures::executor::block_on(tx.reserve_owned()).unwrap();
/// let _tx = permit.send(4);
/// assert_eq!(rx.try_recv(), Ok(4));
/// ```
pub struct OwnedPermit<T> {
    pub(super) sender: Option<Sender<T>>,
}

impl<T> Sender<T> {
    /// Sends a value, waiting for a free slot. Senders waiting for a slot
    /// are served in FIFO order.
    ///
    /// Cancel safety: dropping the future never sends the value or leaks
    /// a slot, but drops the value; use [`reserve`](Sender::reserve) to keep it.
    ///
    /// # Errors
    ///
    /// Returns the value if the receiver is closed or gone.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, rx) = rt::sync::mpsc::channel(1);
    /// drop(rx);
    /// assert_eq!(futures::executor::block_on(tx.send(3)).unwrap_err().0, 3);
    /// ```
    #[track_caller]
    pub fn send(&self, value: T) -> impl Future<Output = Result<(), SendError<T>>> {
        let site = Site::here("mpsc::Sender::send");
        async move {
            if self.chan.acquire_slot(site).await.is_err() {
                return Err(SendError(value));
            }
            self.chan.push(value, true).map_err(SendError)
        }
    }

    /// [`send`](Sender::send), waiting at most `timeout` for a free slot.
    /// Cancel safety as `send`.
    ///
    /// # Errors
    ///
    /// [`SendTimeoutError::Timeout`] if no slot came free in time,
    /// [`SendTimeoutError::Closed`] if the receiver is closed or gone;
    /// both hand the value back.
    ///
    /// # Panics
    ///
    /// Panics outside a runtime with the time driver, as
    /// [`rt::time::timeout`](crate::time::timeout).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (tx, mut rx) = rt::sync::mpsc::channel(1);
    ///     tx.send_timeout(1, Duration::from_millis(10)).await.unwrap();
    ///     assert_eq!(rx.recv().await, Some(1));
    /// });
    /// ```
    #[track_caller]
    pub fn send_timeout(
        &self,
        value: T,
        timeout: std::time::Duration,
    ) -> impl Future<Output = Result<(), SendTimeoutError<T>>> {
        // Made here, not in the block: their waits name the caller's line.
        let reserve = crate::time::timeout(timeout, self.reserve());
        async move {
            match reserve.await {
                Ok(Ok(permit)) => {
                    permit.send(value);
                    Ok(())
                }
                Ok(Err(_)) => Err(SendTimeoutError::Closed(value)),
                Err(_) => Err(SendTimeoutError::Timeout(value)),
            }
        }
    }

    /// [`send`](Sender::send) for synchronous code: blocks the thread
    /// until there is room.
    ///
    /// # Errors
    ///
    /// As `send`: [`SendError`] with the value if the receiver is gone.
    ///
    /// # Panics
    ///
    /// Panics on a thread that runs tasks (use `send(..).await` there).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let (tx, mut rx) = rt::sync::mpsc::channel(1);
    /// let producer = std::thread::spawn(move || {
    ///     for i in 0..3 {
    ///         tx.blocking_send(i).unwrap();
    ///     }
    /// });
    /// rt.block_on(async {
    ///     for i in 0..3 {
    ///         assert_eq!(rx.recv().await, Some(i));
    ///     }
    /// });
    /// producer.join().unwrap();
    /// ```
    #[track_caller]
    pub fn blocking_send(&self, value: T) -> Result<(), SendError<T>> {
        crate::sync::blocking::block_on("mpsc::Sender::blocking_send", self.send(value))
    }

    /// Sends a value if a slot is free now.
    ///
    /// # Errors
    ///
    /// [`TrySendError::Full`] or [`TrySendError::Closed`], with the value.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, _rx) = rt::sync::mpsc::channel(1);
    /// assert!(tx.try_send(1).is_ok());
    /// assert!(tx.try_send(2).is_err());
    /// ```
    pub fn try_send(&self, value: T) -> Result<(), TrySendError<T>> {
        match self.chan.try_acquire_slot() {
            Ok(()) => self.chan.push(value, true).map_err(TrySendError::Closed),
            Err(TryAcquireError::NoPermits) => Err(TrySendError::Full(value)),
            Err(TryAcquireError::Closed) => Err(TrySendError::Closed(value)),
        }
    }

    /// Waits for a free slot and reserves it. Cancel-safe (the dropped
    /// caller loses its place in line only).
    ///
    /// # Errors
    ///
    /// Fails if the receiver is closed or gone.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, mut rx) = rt::sync::mpsc::channel(1);
    /// let permit = futures::executor::block_on(tx.reserve()).unwrap();
    /// assert!(tx.try_send(0).is_err()); // the only slot is reserved
    /// permit.send(1);
    /// assert_eq!(rx.try_recv(), Ok(1));
    /// ```
    #[track_caller]
    pub fn reserve(&self) -> impl Future<Output = Result<Permit<'_, T>, SendError<()>>> {
        let site = Site::here("mpsc::Sender::reserve");
        async move {
            match self.chan.acquire_slot(site).await {
                Ok(()) => Ok(Permit { chan: &self.chan }),
                Err(_) => Err(SendError(())),
            }
        }
    }

    /// Waits until `n` slots are free and reserves them all at once
    /// (queued fairly with the other senders, like one `reserve`).
    /// Cancel-safe (the dropped caller loses its place in line only).
    ///
    /// # Errors
    ///
    /// Fails if the receiver is closed or gone, or if `n` exceeds the
    /// channel's capacity (it could never be granted).
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, mut rx) = rt::sync::mpsc::channel(2);
    /// let mut permits = futures::executor::block_on(tx.reserve_many(2)).unwrap();
    /// assert!(tx.try_send(0).is_err(), "both slots are reserved");
    /// permits.next().unwrap().send(1);
    /// permits.next().unwrap().send(2);
    /// assert_eq!((rx.try_recv(), rx.try_recv()), (Ok(1), Ok(2)));
    /// ```
    #[track_caller]
    pub fn reserve_many(
        &self,
        n: usize,
    ) -> impl Future<Output = Result<PermitIterator<'_, T>, SendError<()>>> {
        let site = Site::here("mpsc::Sender::reserve_many");
        async move {
            if n > self.max_capacity() {
                return Err(SendError(()));
            }
            match self.chan.acquire_slots(n, site).await {
                Ok(()) => Ok(PermitIterator::new(&self.chan, n)),
                Err(_) => Err(SendError(())),
            }
        }
    }

    /// Reserves `n` slots if they are all free now.
    ///
    /// # Errors
    ///
    /// [`TrySendError::Full`] if fewer are free (or `n` exceeds the
    /// capacity), [`TrySendError::Closed`] if the receiver is closed or
    /// gone.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, _rx) = rt::sync::mpsc::channel::<u8>(2);
    /// let permits = tx.try_reserve_many(2).unwrap();
    /// assert!(tx.try_reserve_many(1).is_err());
    /// drop(permits);
    /// assert_eq!(tx.capacity(), 2);
    /// ```
    pub fn try_reserve_many(&self, n: usize) -> Result<PermitIterator<'_, T>, TrySendError<()>> {
        if self.chan.is_closed() {
            return Err(TrySendError::Closed(()));
        }
        if n > self.max_capacity() {
            return Err(TrySendError::Full(()));
        }
        match self.chan.try_acquire_slots(n) {
            Ok(()) => Ok(PermitIterator::new(&self.chan, n)),
            Err(TryAcquireError::NoPermits) => Err(TrySendError::Full(())),
            Err(TryAcquireError::Closed) => Err(TrySendError::Closed(())),
        }
    }

    /// Reserves a slot if one is free now.
    ///
    /// # Errors
    ///
    /// [`TrySendError::Full`] or [`TrySendError::Closed`].
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, _rx) = rt::sync::mpsc::channel::<u8>(1);
    /// let _permit = tx.try_reserve().unwrap();
    /// assert!(tx.try_reserve().is_err());
    /// ```
    pub fn try_reserve(&self) -> Result<Permit<'_, T>, TrySendError<()>> {
        match self.chan.try_acquire_slot() {
            Ok(()) => Ok(Permit { chan: &self.chan }),
            Err(TryAcquireError::NoPermits) => Err(TrySendError::Full(())),
            Err(TryAcquireError::Closed) => Err(TrySendError::Closed(())),
        }
    }

    /// Waits for a free slot and reserves it, moving the sender into the
    /// permit. Cancel-safe.
    ///
    /// # Errors
    ///
    /// Gives the sender back if the receiver is closed or gone.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, mut rx) = rt::sync::mpsc::channel(1);
    /// let permit = futures::executor::block_on(tx.reserve_owned()).unwrap();
    /// std::thread::spawn(move || { permit.send("x"); }).join().unwrap();
    /// assert_eq!(rx.try_recv(), Ok("x"));
    /// ```
    #[track_caller]
    pub fn reserve_owned(
        self,
    ) -> impl Future<Output = Result<OwnedPermit<T>, SendError<Sender<T>>>> {
        let site = Site::here("mpsc::Sender::reserve_owned");
        async move {
            match self.chan.acquire_slot(site).await {
                Ok(()) => Ok(OwnedPermit { sender: Some(self) }),
                Err(_) => Err(SendError(self)),
            }
        }
    }

    /// The number of free slots now.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, _rx) = rt::sync::mpsc::channel(3);
    /// tx.try_send(()).unwrap();
    /// assert_eq!(tx.capacity(), 2);
    /// ```
    pub fn capacity(&self) -> usize {
        self.chan.free_slots()
    }

    /// The capacity the channel was created with.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, _rx) = rt::sync::mpsc::channel::<u8>(3);
    /// assert_eq!(tx.max_capacity(), 3);
    /// ```
    pub fn max_capacity(&self) -> usize {
        self.chan.max_capacity()
    }
}

crate::sync::mpsc::shared_halves::sender_half! {
    Sender, WeakSender;
    /// A [`WeakSender`] for this channel: it does not keep it open.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, _rx) = rt::sync::mpsc::channel::<u8>(1);
    /// let weak = tx.downgrade();
    /// assert_eq!((tx.strong_count(), tx.weak_count()), (1, 1));
    /// # drop(weak);
    /// ```
    downgrade;

    /// The number of senders of this channel (this one and its clones).
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, _rx) = rt::sync::mpsc::channel::<u8>(1);
    /// let _tx2 = tx.clone();
    /// assert_eq!(tx.strong_count(), 2);
    /// ```
    strong_count;

    /// The number of [`WeakSender`]s of this channel.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, _rx) = rt::sync::mpsc::channel::<u8>(1);
    /// assert_eq!(tx.weak_count(), 0);
    /// ```
    weak_count;

    /// `true` once the receiver closed or dropped.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, rx) = rt::sync::mpsc::channel::<u8>(1);
    /// drop(rx);
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
    /// let (tx, mut rx) = rt::sync::mpsc::channel::<u8>(1);
    /// rx.close();
    /// futures::executor::block_on(tx.closed());
    /// ```
    closed;
}

impl<'a, T> Permit<'a, T> {
    /// A permit for a slot the caller has just reserved.
    pub(super) fn new(chan: &'a Chan<T>) -> Permit<'a, T> {
        Permit { chan }
    }

    /// Sends through the reserved slot. If the receiver was dropped
    /// meanwhile, the value is dropped.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, mut rx) = rt::sync::mpsc::channel(1);
    /// tx.try_reserve().unwrap().send(5);
    /// assert_eq!(rx.try_recv(), Ok(5));
    /// ```
    pub fn send(self, value: T) {
        let chan = self.chan;
        std::mem::forget(self);
        // The receiver dropped: the value goes with the rest of the queue.
        let _ = chan.push(value, true);
    }
}

impl<T> Drop for Permit<'_, T> {
    fn drop(&mut self) {
        self.chan.release_slot();
    }
}

impl<T> OwnedPermit<T> {
    /// Sends through the reserved slot and returns the sender. If the
    /// receiver was dropped meanwhile, the value is dropped.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, mut rx) = rt::sync::mpsc::channel(1);
    /// let tx = tx.try_reserve_owned().unwrap().send(1);
    /// assert!(tx.try_send(2).is_err());
    /// assert_eq!(rx.try_recv(), Ok(1));
    /// ```
    pub fn send(mut self, value: T) -> Sender<T> {
        let sender = self
            .sender
            .take()
            .expect("an owned permit holds its sender until used");
        // The receiver dropped: the value goes with the rest of the queue.
        let _ = sender.chan.push(value, true);
        sender
    }

    /// Gives the slot back and returns the sender.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, _rx) = rt::sync::mpsc::channel::<u8>(1);
    /// let tx = tx.try_reserve_owned().unwrap().release();
    /// assert_eq!(tx.capacity(), 1);
    /// ```
    pub fn release(mut self) -> Sender<T> {
        let sender = self
            .sender
            .take()
            .expect("an owned permit holds its sender until used");
        sender.chan.release_slot();
        sender
    }
}

impl<T> Sender<T> {
    /// Reserves a slot if one is free now, moving the sender into the permit.
    ///
    /// # Errors
    ///
    /// [`TrySendError::Full`] or [`TrySendError::Closed`], with the sender.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, _rx) = rt::sync::mpsc::channel::<u8>(1);
    /// let permit = tx.try_reserve_owned().unwrap();
    /// drop(permit);
    /// ```
    pub fn try_reserve_owned(self) -> Result<OwnedPermit<T>, TrySendError<Sender<T>>> {
        match self.chan.try_acquire_slot() {
            Ok(()) => Ok(OwnedPermit { sender: Some(self) }),
            Err(TryAcquireError::NoPermits) => Err(TrySendError::Full(self)),
            Err(TryAcquireError::Closed) => Err(TrySendError::Closed(self)),
        }
    }
}

impl<T> Drop for OwnedPermit<T> {
    fn drop(&mut self) {
        if let Some(sender) = &self.sender {
            sender.chan.release_slot();
        }
    }
}

crate::sync::mpsc::shared_halves::receiver_half! {
    Receiver;
    /// Receives the next value; `None` once the channel is closed and
    /// drained. Cancel-safe.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, mut rx) = rt::sync::mpsc::channel(2);
    /// tx.try_send(1).unwrap();
    /// drop(tx);
    /// futures::executor::block_on(async {
    ///     assert_eq!(rx.recv().await, Some(1));
    ///     assert_eq!(rx.recv().await, None);
    /// });
    /// ```
    recv;

    /// [`recv`](Receiver::recv) for synchronous code: blocks the thread
    /// until a value comes or every sender is gone.
    ///
    /// # Panics
    ///
    /// Panics on a thread that runs tasks (use `recv().await` there).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let (tx, mut rx) = rt::sync::mpsc::channel(4);
    /// rt.spawn(async move { tx.send("from a task").await.unwrap() });
    /// let got = std::thread::spawn(move || rx.blocking_recv()).join().unwrap();
    /// assert_eq!(got, Some("from a task"));
    /// ```
    blocking_recv;

    /// Polls for the next value; see [`recv`](Receiver::recv).
    poll_recv;

    /// Waits for at least one value, then moves up to `limit` queued
    /// values into `buf`. Returns how many; 0 means the channel is closed
    /// and drained (or `limit` is 0). Cancel-safe.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, mut rx) = rt::sync::mpsc::channel(4);
    /// for i in 0..3 { tx.try_send(i).unwrap(); }
    /// let mut buf = Vec::new();
    /// assert_eq!(futures::executor::block_on(rx.recv_many(&mut buf, 2)), 2);
    /// assert_eq!(buf, [0, 1]);
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
    /// let (tx, mut rx) = rt::sync::mpsc::channel(1);
    /// tx.try_send(1).unwrap();
    /// assert_eq!(rx.try_recv(), Ok(1));
    /// ```
    try_recv;

    /// Closes the channel: sends fail from now on (slots reserved before
    /// still deliver), queued values can still be received.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, mut rx) = rt::sync::mpsc::channel(2);
    /// tx.try_send(1).unwrap();
    /// rx.close();
    /// assert!(tx.try_send(2).is_err());
    /// assert_eq!(rx.try_recv(), Ok(1));
    /// ```
    close;

    /// The number of queued values, counting sends that are writing
    /// their value right now.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, rx) = rt::sync::mpsc::channel(2);
    /// tx.try_send(1).unwrap();
    /// assert_eq!(rx.len(), 1);
    /// ```
    len;

    /// `true` if nothing is queued.
    ///
    /// # Examples
    ///
    /// ```
    /// let (_tx, rx) = rt::sync::mpsc::channel::<u8>(2);
    /// assert!(rx.is_empty());
    /// ```
    is_empty;

    /// `true` once the channel is closed: by [`close`](Receiver::close),
    /// or because every sender is gone. Queued values can still be
    /// received.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, rx) = rt::sync::mpsc::channel::<u8>(1);
    /// assert!(!rx.is_closed());
    /// drop(tx);
    /// assert!(rx.is_closed());
    /// ```
    is_closed;
}

impl<T> fmt::Debug for Permit<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("mpsc::Permit").finish_non_exhaustive()
    }
}

impl<T> fmt::Debug for OwnedPermit<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("mpsc::OwnedPermit").finish_non_exhaustive()
    }
}

#[cfg(all(test, loom))]
mod loom_mpsc_bounded {
    use super::channel;
    use crate::sync::mpsc::Counted;
    use loom::thread;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};

    /// A send racing the receiver's drop, with a value already queued:
    /// each value is dropped exactly once (by the receiver's drop or
    /// handed back to the sender), and both are gone once the send and
    /// the drop returned, while the sender is still alive.
    #[test]
    fn send_vs_receiver_drop_drops_each_value_once() {
        loom::model(|| {
            let drops = Arc::new(AtomicUsize::new(0));
            let (tx, rx) = channel(2);
            tx.try_send(Counted(drops.clone())).unwrap();
            let sender = {
                let drops = drops.clone();
                thread::spawn(move || {
                    drop(tx.try_send(Counted(drops)));
                    tx
                })
            };
            drop(rx);
            let tx = sender.join().unwrap();
            assert_eq!(drops.load(SeqCst), 2);
            drop(tx);
            assert_eq!(drops.load(SeqCst), 2);
        });
    }

    /// A sender waiting for capacity vs the receiver draining vs close:
    /// every value is received exactly once or handed back to its sender.
    #[test]
    fn send_waiting_for_capacity_vs_recv_vs_close() {
        loom::model(|| {
            let (tx, mut rx) = channel::<u32>(1);
            tx.try_send(1).unwrap();
            let sender = thread::spawn(move || loom::future::block_on(tx.send(2)).err());
            let first = loom::future::block_on(rx.recv());
            assert_eq!(first, Some(1));
            rx.close();
            let mut received = Vec::new();
            while let Some(value) = loom::future::block_on(rx.recv()) {
                received.push(value);
            }
            let returned = sender.join().unwrap();
            match returned {
                Some(err) => {
                    assert_eq!(err.0, 2);
                    assert!(received.is_empty());
                }
                None => assert_eq!(received, [2]),
            }
        });
    }

    /// A permit given back unused on another thread races the closed
    /// receiver waiting for outstanding permits, while a sender stays
    /// alive: the receiver is woken and ends with `None`, never hangs.
    #[test]
    fn unused_permit_vs_closed_receiver() {
        loom::model(|| {
            let (tx, mut rx) = channel::<u32>(1);
            let alive = tx.clone();
            let permit = tx.try_reserve_owned().unwrap();
            let holder = thread::spawn(move || drop(permit.release()));
            rx.close();
            assert_eq!(loom::future::block_on(rx.recv()), None);
            holder.join().unwrap();
            drop(alive);
        });
    }

    /// A cancelled send does not leak its slot.
    #[test]
    fn cancelled_send_releases_slot() {
        loom::model(|| {
            use std::future::Future;
            use std::task::{Context, Poll};
            let (tx, mut rx) = channel::<u32>(1);
            tx.try_send(1).unwrap();
            let tx2 = tx.clone();
            let canceller = thread::spawn(move || {
                let waker = futures::task::noop_waker();
                let mut cx = Context::from_waker(&waker);
                let mut send = Box::pin(tx2.send(2));
                let sent = matches!(send.as_mut().poll(&mut cx), Poll::Ready(Ok(())));
                drop(send);
                sent
            });
            assert_eq!(loom::future::block_on(rx.recv()), Some(1));
            let sent = canceller.join().unwrap();
            if sent {
                assert_eq!(rx.try_recv(), Ok(2));
            }
            assert!(tx.try_send(3).is_ok());
            assert_eq!(rx.try_recv(), Ok(3));
        });
    }

    /// Two senders through one slot, then both drop: the receiver gets
    /// both values exactly once and then `None`.
    #[test]
    fn two_senders_one_slot_then_none() {
        loom::model(|| {
            let (tx, mut rx) = channel::<u32>(1);
            let senders: Vec<_> = (0..2)
                .map(|i| {
                    let tx = tx.clone();
                    thread::spawn(move || loom::future::block_on(tx.send(i)).unwrap())
                })
                .collect();
            drop(tx);
            let mut got = Vec::new();
            while let Some(value) = loom::future::block_on(rx.recv()) {
                got.push(value);
            }
            got.sort();
            assert_eq!(got, [0, 1]);
            for sender in senders {
                sender.join().unwrap();
            }
        });
    }
}
