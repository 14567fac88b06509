//! A multi-producer, multi-consumer channel in which every receiver sees
//! every value sent after it subscribed.
//!
//! The values sit in a ring of `capacity` slots rounded up to a power of
//! two (as tokio does), allocated up front: that is how far a receiver may
//! fall behind. A send into a full ring overwrites
//! the oldest value, and a receiver that had not read it learns, on its
//! next receive, how many values it missed ([`RecvError::Lagged`]); it
//! then goes on from the oldest value still kept. There is no
//! back-pressure: a send never waits for receivers to catch up.
//!
//! Each slot has its own mutex, and senders and subscriptions share a
//! mutex over the tail (the next value's number, the counts of senders
//! and receivers). A receiver reads its next slot under the slot's lock,
//! and takes the tail lock only when the slot does not hold the value it
//! expects (nothing new yet, or it lagged). So a sender writing slot `n`
//! does not hold up receivers reading slot `n - 1` (one lock over the
//! whole ring made ten receivers of a channel twice as slow as tokio's).
//! Values are cloned under their slot's lock, one receiver at a time, so a
//! send into that slot waits for the clones: keep `T` cheap to clone (an
//! `Arc` for large values).
//!
//! `Sender` and `Receiver` are `Send` and `Sync` when `T` is `Send`, as in
//! tokio: since no two threads ever hold a `&T` of the channel's copy at
//! once (the clones are serialised by the slot's mutex), `T` need not be
//! `Sync`. (A read-write lock would let receivers clone concurrently, but
//! then a `Send + !Sync` `T` whose `clone` uses its interior mutability
//! would race: tokio's RUSTSEC-2025-0023. tokio-stream's
//! `BroadcastStream<T: Send>` needs the `Send`-only bound.)
//!
//! Each value counts the receivers that have yet to read it; the last of
//! them frees it. A receiver
//! waits on a [`Notify`] whose `Notified` future is created before it
//! looks, so a send between the look and the wait is never missed
//! (`notify_waiters` wakes futures created before it).
//!
//! Cancel safety: `recv` is cancel-safe (a value is taken only when the
//! call returns it). Two exceptions, for a `T` whose `clone` or
//! destructor panics: a receive whose `T::clone` panics has still read
//! the value (the receiver moves past it, and the panic goes on); and the
//! last receiver to read a value frees the channel's copy before it
//! returns its clone, and if that drop panics, the receiver has moved past
//! the value without returning it.

use crate::loom::sync::{Arc, Mutex, MutexGuard};
use crate::sync::Notify;
use crate::task::waits::Site;
use std::fmt;
use std::panic::{self, AssertUnwindSafe};

mod weak_sender;

pub use weak_sender::WeakSender;

/// Creates a broadcast channel keeping up to `capacity` values for
/// receivers that fall behind, rounded up to the next power of two (as in
/// tokio): a channel made with capacity 3 keeps 4, and a receiver lags
/// only when a fifth value arrives before it read the first.
///
/// # Panics
///
/// Panics if `capacity` is zero, or above `usize::MAX / 2 + 1` (it has no
/// power of two to round up to).
///
/// # Examples
///
/// ```
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let (tx, mut first) = rt::sync::broadcast::channel(16);
///     let mut second = tx.subscribe();
///     tx.send("hello").unwrap();
///     assert_eq!(first.recv().await.unwrap(), "hello");
///     assert_eq!(second.recv().await.unwrap(), "hello");
/// });
/// ```
///
/// The capacity is rounded up:
///
/// ```
/// use rt::sync::broadcast::error::TryRecvError;
///
/// let (tx, mut rx) = rt::sync::broadcast::channel(3);
/// for i in 0..4 {
///     tx.send(i).unwrap();
/// }
/// assert_eq!(rx.try_recv(), Ok(0), "4 values kept: no lag yet");
/// tx.send(4).unwrap();
/// tx.send(5).unwrap();
/// assert_eq!(rx.try_recv(), Err(TryRecvError::Lagged(1)));
/// ```
#[track_caller]
pub fn channel<T: Clone>(capacity: usize) -> (Sender<T>, Receiver<T>) {
    assert!(
        capacity > 0,
        "broadcast::channel needs a capacity of at least 1: it is how many values a slow \
         receiver may fall behind before it loses the oldest"
    );
    let capacity = capacity.checked_next_power_of_two().unwrap_or_else(|| {
        panic!(
            "broadcast::channel's capacity {capacity} is above `usize::MAX / 2 + 1`, the \
             largest power of two it can be rounded up to"
        )
    });
    let slots = (0..capacity)
        .map(|_| {
            Mutex::new(Slot {
                seq: None,
                value: None,
                unread: 0,
            })
        })
        .collect();
    let shared = Arc::new(Shared {
        slots,
        tail: Mutex::new(Tail {
            next: 0,
            senders: 1,
            weak_senders: 0,
            receivers: 1,
        }),
        notify: Notify::new(),
        receivers_gone: Notify::new(),
    });
    (
        Sender {
            shared: shared.clone(),
        },
        Receiver { shared, next: 0 },
    )
}

struct Shared<T> {
    /// Value number `n` lives in slot `n % capacity` (a power of two).
    slots: Box<[Mutex<Slot<T>>]>,
    tail: Mutex<Tail>,
    /// Notified (`notify_waiters`) by every send and by the last sender's
    /// drop.
    notify: Notify,
    /// Notified (`notify_waiters`) when the last receiver is dropped.
    receivers_gone: Notify,
}

struct Tail {
    /// The number the next value sent gets.
    next: u64,
    senders: usize,
    /// Live [`WeakSender`]s: they do not keep the channel open.
    weak_senders: usize,
    receivers: usize,
}

struct Slot<T> {
    /// The number of the value written here last (`None`: never written).
    seq: Option<u64>,
    /// `None` once every receiver that was to read it has.
    value: Option<T>,
    /// Receivers that have yet to read it; whoever brings it to zero
    /// frees the value.
    unread: usize,
}

impl<T> Shared<T> {
    // A panic in `T::clone` (under a slot's lock) is caught and
    // the read counted before it goes on (see `take`), and the other
    // critical sections do not call user code, so a poisoned lock is
    // still consistent.
    fn tail(&self) -> MutexGuard<'_, Tail> {
        self.tail.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The lock of the slot value number `seq` goes in.
    fn slot(&self, seq: u64) -> MutexGuard<'_, Slot<T>> {
        // The length is a power of two: the mask is the modulo.
        self.slots[(seq & (self.slots.len() as u64 - 1)) as usize]
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// The number of the oldest value kept, given the tail.
    fn oldest(&self, tail: &Tail) -> u64 {
        tail.next.saturating_sub(self.slots.len() as u64)
    }

    /// Counts one receiver off value number `seq` (if it is still kept);
    /// returns the value if that receiver was the last one to read it,
    /// for the caller to drop once no lock is held (its destructor may use
    /// the channel).
    fn count_off(&self, seq: u64) -> Option<T> {
        let mut slot = self.slot(seq);
        if slot.seq != Some(seq) {
            return None;
        }
        slot.unread -= 1;
        if slot.unread == 0 {
            slot.value.take()
        } else {
            None
        }
    }
}

/// The sending half of a broadcast channel; clone it for more senders.
///
/// # Examples
///
/// ```
/// let (tx, mut rx) = rt::sync::broadcast::channel(4);
/// let tx2 = tx.clone();
/// tx.send(1).unwrap();
/// tx2.send(2).unwrap();
/// assert_eq!(rx.try_recv(), Ok(1));
/// assert_eq!(rx.try_recv(), Ok(2));
/// ```
pub struct Sender<T> {
    shared: Arc<Shared<T>>,
}

/// A receiving half of a broadcast channel: it sees every value sent
/// after it was created, unless it falls more than the channel's capacity
/// behind.
///
/// # Examples
///
/// ```
/// let (tx, mut rx) = rt::sync::broadcast::channel(4);
/// tx.send("a").unwrap();
/// let mut late = tx.subscribe();
/// tx.send("b").unwrap();
/// assert_eq!(rx.try_recv(), Ok("a"));
/// assert_eq!(late.try_recv(), Ok("b"));
/// ```
pub struct Receiver<T> {
    shared: Arc<Shared<T>>,
    /// The number of the next value this receiver reads.
    next: u64,
}

/// Errors of the channel's operations.
pub mod error {
    use std::fmt;

    /// The error of [`Sender::send`](super::Sender::send): no receiver
    /// exists; the value is handed back.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, rx) = rt::sync::broadcast::channel(1);
    /// drop(rx);
    /// assert_eq!(tx.send(5).unwrap_err().0, 5);
    /// ```
    #[derive(PartialEq, Eq, Clone, Copy)]
    pub struct SendError<T>(pub T);

    impl<T> fmt::Debug for SendError<T> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.debug_struct("SendError").finish_non_exhaustive()
        }
    }

    impl<T> fmt::Display for SendError<T> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("no receiver of the broadcast channel is left")
        }
    }

    impl<T> std::error::Error for SendError<T> {}

    /// The error of [`Receiver::recv`](super::Receiver::recv).
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::sync::broadcast::error::RecvError;
    /// let (tx, mut rx) = rt::sync::broadcast::channel::<u8>(1);
    /// drop(tx);
    /// assert_eq!(futures::executor::block_on(rx.recv()), Err(RecvError::Closed));
    /// ```
    #[derive(Debug, PartialEq, Eq, Clone, Copy)]
    pub enum RecvError {
        /// Every sender is gone and this receiver has read every value.
        Closed,
        /// The receiver fell behind: this many values were dropped before
        /// it read them. The next receive returns the oldest value kept.
        Lagged(u64),
    }

    impl fmt::Display for RecvError {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            match self {
                RecvError::Closed => f.write_str("every sender of the broadcast channel is gone"),
                RecvError::Lagged(n) => write!(
                    f,
                    "the receiver fell behind and missed {n} values; it goes on from the \
                     oldest one kept (a larger capacity keeps more)"
                ),
            }
        }
    }

    impl std::error::Error for RecvError {}

    /// The error of [`Receiver::try_recv`](super::Receiver::try_recv).
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::sync::broadcast::error::TryRecvError;
    /// let (tx, mut rx) = rt::sync::broadcast::channel::<u8>(1);
    /// assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
    /// drop(tx);
    /// assert_eq!(rx.try_recv(), Err(TryRecvError::Closed));
    /// ```
    #[derive(Debug, PartialEq, Eq, Clone, Copy)]
    pub enum TryRecvError {
        /// No value is waiting for this receiver; a sender still exists.
        Empty,
        /// As [`RecvError::Closed`].
        Closed,
        /// As [`RecvError::Lagged`].
        Lagged(u64),
    }

    impl fmt::Display for TryRecvError {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            match self {
                TryRecvError::Empty => f.write_str("no value is waiting in the broadcast channel"),
                TryRecvError::Closed => fmt::Display::fmt(&RecvError::Closed, f),
                TryRecvError::Lagged(n) => fmt::Display::fmt(&RecvError::Lagged(*n), f),
            }
        }
    }

    impl std::error::Error for TryRecvError {}
}

use error::{RecvError, SendError, TryRecvError};

impl<T: Clone> Sender<T> {
    /// A sender of a new channel that has no receiver yet (make them with
    /// [`subscribe`](Sender::subscribe)); as [`channel`] otherwise.
    ///
    /// # Panics
    ///
    /// Panics if `capacity` is zero.
    ///
    /// # Examples
    ///
    /// ```
    /// let tx = rt::sync::broadcast::Sender::new(4);
    /// assert!(tx.send(1).is_err(), "no receiver yet");
    /// let mut rx = tx.subscribe();
    /// tx.send(2).unwrap();
    /// assert_eq!(rx.try_recv(), Ok(2));
    /// ```
    #[track_caller]
    pub fn new(capacity: usize) -> Sender<T> {
        let (tx, rx) = channel(capacity);
        drop(rx);
        tx
    }
}

impl<T> Sender<T> {
    /// Sends `value` to every receiver; returns how many there are. Never
    /// waits: with the ring full, the oldest value is dropped (receivers
    /// that had not read it will be told they lagged).
    ///
    /// # Errors
    ///
    /// [`SendError`] with the value if no receiver exists (one created
    /// later would not see it).
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, rx) = rt::sync::broadcast::channel(2);
    /// let _rx2 = tx.subscribe();
    /// assert_eq!(tx.send("x").unwrap(), 2);
    /// # drop(rx);
    /// ```
    pub fn send(&self, value: T) -> Result<usize, SendError<T>> {
        let mut tail = self.shared.tail();
        if tail.receivers == 0 {
            return Err(SendError(value));
        }
        let seq = tail.next;
        let receivers = tail.receivers;
        let mut slot = self.shared.slot(seq);
        // With the ring full, this overwrites the oldest value: a receiver
        // that still had to read it finds out on its next receive. It is
        // dropped outside the locks (its destructor may use the channel).
        let evicted = slot.value.replace(value);
        slot.seq = Some(seq);
        slot.unread = receivers;
        drop(slot);
        tail.next += 1;
        drop(tail);
        // Waiters first: the value is in, whatever the old one's
        // destructor does.
        self.shared.notify.notify_waiters();
        drop(evicted);
        Ok(receivers)
    }

    /// A new receiver, which sees the values sent from now on.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, rx) = rt::sync::broadcast::channel(2);
    /// drop(rx);
    /// let mut rx = tx.subscribe();
    /// tx.send(3).unwrap();
    /// assert_eq!(rx.try_recv(), Ok(3));
    /// ```
    pub fn subscribe(&self) -> Receiver<T> {
        new_receiver(&self.shared)
    }

    /// How many receivers exist.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, _rx) = rt::sync::broadcast::channel::<()>(1);
    /// let _rx2 = tx.subscribe();
    /// assert_eq!(tx.receiver_count(), 2);
    /// ```
    pub fn receiver_count(&self) -> usize {
        self.shared.tail().receivers
    }

    /// `true` if no receiver exists (a send would fail).
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, rx) = rt::sync::broadcast::channel::<u8>(1);
    /// assert!(!tx.is_closed());
    /// drop(rx);
    /// assert!(tx.is_closed());
    /// ```
    pub fn is_closed(&self) -> bool {
        self.receiver_count() == 0
    }

    /// Waits until no receiver exists (returns at once if none does): a
    /// producer can stop making values nobody will read. Cancel-safe.
    /// Spends no cooperative budget, as tokio's, so a loop of it that
    /// never waits does not yield on its own.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (tx, rx) = rt::sync::broadcast::channel::<u8>(1);
    ///     rt::spawn(async move { drop(rx) });
    ///     tx.closed().await;
    ///     assert!(tx.send(1).is_err());
    /// });
    /// ```
    pub async fn closed(&self) {
        self.shared
            .receivers_gone
            .wait_until(|| self.is_closed())
            .await
    }

    /// `true` if `other` sends on the same channel.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, _rx) = rt::sync::broadcast::channel::<u8>(1);
    /// let (other, _other_rx) = rt::sync::broadcast::channel::<u8>(1);
    /// assert!(tx.same_channel(&tx.clone()));
    /// assert!(!tx.same_channel(&other));
    /// ```
    pub fn same_channel(&self, other: &Sender<T>) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }

    /// How many values are kept for receivers that have yet to read them.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, mut rx) = rt::sync::broadcast::channel(8);
    /// tx.send(1).unwrap();
    /// tx.send(2).unwrap();
    /// assert_eq!(tx.len(), 2);
    /// rx.try_recv().unwrap();
    /// assert_eq!(tx.len(), 1);
    /// ```
    pub fn len(&self) -> usize {
        // A look at every kept slot (`len` is for monitoring, not hot
        // paths), after the tail lock is released so that nobody waits on
        // it meanwhile. A value sent or read during the scan may or may not
        // be counted.
        let tail = self.shared.tail();
        let kept = self.shared.oldest(&tail)..tail.next;
        drop(tail);
        kept.filter(|&seq| {
            let slot = self.shared.slot(seq);
            slot.seq == Some(seq) && slot.unread > 0
        })
        .count()
    }

    /// `true` if no value is kept.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, _rx) = rt::sync::broadcast::channel::<u8>(8);
    /// assert!(tx.is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A receiver at the channel's tail: it sees the values sent from now on.
fn new_receiver<T>(shared: &Arc<Shared<T>>) -> Receiver<T> {
    let mut tail = shared.tail();
    tail.receivers += 1;
    let next = tail.next;
    drop(tail);
    Receiver {
        shared: shared.clone(),
        next,
    }
}

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Sender<T> {
        self.shared.tail().senders += 1;
        Sender {
            shared: self.shared.clone(),
        }
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        let mut tail = self.shared.tail();
        tail.senders -= 1;
        let last = tail.senders == 0;
        drop(tail);
        if last {
            self.shared.notify.notify_waiters();
        }
    }
}

impl<T: Clone> Receiver<T> {
    /// Waits for the next value. Cancel-safe.
    ///
    /// # Errors
    ///
    /// [`RecvError::Lagged`] if values this receiver had yet to read were
    /// dropped to make room (the next call returns the oldest value kept);
    /// [`RecvError::Closed`] once every sender is gone and every value was
    /// read.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (tx, mut rx) = rt::sync::broadcast::channel(4);
    ///     rt::spawn(async move {
    ///         for i in 0..3 {
    ///             tx.send(i).unwrap();
    ///         }
    ///     });
    ///     let mut got = Vec::new();
    ///     while let Ok(i) = rx.recv().await {
    ///         got.push(i);
    ///     }
    ///     assert_eq!(got, [0, 1, 2]);
    /// });
    /// ```
    #[track_caller]
    pub fn recv(&mut self) -> impl Future<Output = Result<T, RecvError>> {
        let site = Site::here("broadcast::Receiver::recv");
        async move {
            // A unit per value or error returned, none for a poll that waits
            // (as tokio's); once the budget is spent it yields before taking
            // anything.
            crate::task::cooperative(self.recv_unbudgeted(site)).await
        }
    }

    /// `recv` without the budget (`Notified` spends none): the caller
    /// charges the whole operation.
    async fn recv_unbudgeted(&mut self, site: Site) -> Result<T, RecvError> {
        loop {
            // A value is usually waiting: take it without registering.
            if let Some(done) = settled(take(&self.shared, &mut self.next)) {
                return done;
            }
            // Registered first, then a second look: a send after that look
            // wakes this future. The look's result is a statement's
            // temporary, gone before the await: a `T` held across it would
            // make this future `Sync` only for `T: Sync` (shared `&T`).
            let notified = self.shared.notify.notified_for(site);
            if let Some(done) = settled(take(&self.shared, &mut self.next)) {
                return done;
            }
            notified.await;
        }
    }

    /// [`recv`](Receiver::recv) for synchronous code: blocks the thread
    /// until a value comes, the receiver lags, or every sender is gone.
    ///
    /// # Errors
    ///
    /// As `recv`.
    ///
    /// # Panics
    ///
    /// Panics on a thread that runs tasks (use `recv().await` there).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let (tx, mut rx) = rt::sync::broadcast::channel(4);
    /// rt.spawn(async move { tx.send(3).unwrap() });
    /// let got = std::thread::spawn(move || rx.blocking_recv()).join().unwrap();
    /// assert_eq!(got, Ok(3));
    /// ```
    #[track_caller]
    pub fn blocking_recv(&mut self) -> Result<T, RecvError> {
        crate::sync::blocking::block_on("broadcast::Receiver::blocking_recv", self.recv())
    }

    /// Takes the next value if one is waiting.
    ///
    /// # Errors
    ///
    /// [`TryRecvError::Empty`] if none is (and a sender exists), otherwise
    /// as [`recv`](Receiver::recv).
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::sync::broadcast::error::TryRecvError;
    /// let (tx, mut rx) = rt::sync::broadcast::channel(2);
    /// for i in 0..3 {
    ///     tx.send(i).unwrap();
    /// }
    /// assert_eq!(rx.try_recv(), Err(TryRecvError::Lagged(1)));
    /// assert_eq!(rx.try_recv(), Ok(1));
    /// assert_eq!(rx.try_recv(), Ok(2));
    /// assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
    /// ```
    pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
        take(&self.shared, &mut self.next)
    }
}

/// `recv`'s answer for a `take` result, `None` if it must wait.
fn settled<T>(taken: Result<T, TryRecvError>) -> Option<Result<T, RecvError>> {
    match taken {
        Ok(value) => Some(Ok(value)),
        Err(TryRecvError::Empty) => None,
        Err(TryRecvError::Closed) => Some(Err(RecvError::Closed)),
        Err(TryRecvError::Lagged(n)) => Some(Err(RecvError::Lagged(n))),
    }
}

/// `Receiver::try_recv` for the receiver whose next value is number `next`.
fn take<T: Clone>(shared: &Shared<T>, next: &mut u64) -> Result<T, TryRecvError> {
    loop {
        let mut slot = shared.slot(*next);
        if slot.seq == Some(*next) {
            // The read counts even if `T::clone` panics: the receiver
            // moves past the value (else every later receive would panic
            // on it again), and the panic goes on once it is counted.
            let cloned = panic::catch_unwind(AssertUnwindSafe(|| slot.value.clone()));
            slot.unread -= 1;
            let last = slot.unread == 0;
            // The last reader frees the channel's copy, outside the lock
            // (its destructor may use the channel).
            let freed = if last { slot.value.take() } else { None };
            drop(slot);
            *next += 1;
            drop(freed);
            let value = cloned.unwrap_or_else(|payload| panic::resume_unwind(payload));
            return Ok(
                value.expect("rt: a broadcast value was freed before every receiver read it")
            );
        }
        drop(slot);
        // Not the value expected: nothing new yet, or it was overwritten.
        let tail = shared.tail();
        let oldest = shared.oldest(&tail);
        if *next < oldest {
            let missed = oldest - *next;
            *next = oldest;
            return Err(TryRecvError::Lagged(missed));
        }
        if *next == tail.next {
            return Err(if tail.senders == 0 {
                TryRecvError::Closed
            } else {
                TryRecvError::Empty
            });
        }
        // Sent between the look at the slot and the tail: look again.
    }
}

impl<T> Receiver<T> {
    /// A new receiver at the channel's tail: it sees the values sent from
    /// now on, not those this one has yet to read.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, mut rx) = rt::sync::broadcast::channel(4);
    /// tx.send(1).unwrap();
    /// let mut fresh = rx.resubscribe();
    /// tx.send(2).unwrap();
    /// assert_eq!(rx.try_recv(), Ok(1));
    /// assert_eq!(fresh.try_recv(), Ok(2));
    /// ```
    pub fn resubscribe(&self) -> Receiver<T> {
        new_receiver(&self.shared)
    }

    /// How many values were sent that this receiver has yet to receive,
    /// as in tokio: more than the capacity means the oldest were dropped,
    /// and the next receive reports the lag.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, rx) = rt::sync::broadcast::channel(2);
    /// tx.send(1).unwrap();
    /// assert_eq!(rx.len(), 1);
    /// tx.send(2).unwrap();
    /// tx.send(3).unwrap();
    /// assert_eq!(rx.len(), 3); // one more than the capacity: lagged
    /// ```
    pub fn len(&self) -> usize {
        let next = self.shared.tail().next;
        usize::try_from(next - self.next).unwrap_or(usize::MAX)
    }

    /// `true` if every sender is gone (values may still wait for this
    /// receiver: receive them, then it reports `Closed`).
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, mut rx) = rt::sync::broadcast::channel(1);
    /// tx.send(1).unwrap();
    /// drop(tx);
    /// assert!(rx.is_closed());
    /// assert_eq!(rx.try_recv(), Ok(1));
    /// ```
    pub fn is_closed(&self) -> bool {
        self.shared.tail().senders == 0
    }

    /// `true` if `other` receives from the same channel.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, rx) = rt::sync::broadcast::channel::<u8>(1);
    /// assert!(rx.same_channel(&tx.subscribe()));
    /// ```
    pub fn same_channel(&self, other: &Receiver<T>) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }

    /// `true` if no value waits for this receiver.
    ///
    /// # Examples
    ///
    /// ```
    /// let (_tx, rx) = rt::sync::broadcast::channel::<u8>(4);
    /// assert!(rx.is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        // Under the tail lock, so no value is sent (and counted with this
        // receiver) meanwhile.
        let mut tail = self.shared.tail();
        tail.receivers -= 1;
        // The values this receiver was still to read no longer wait for it.
        let pending = self.next.max(self.shared.oldest(&tail))..tail.next;
        let freed: Vec<T> = pending
            .filter_map(|seq| self.shared.count_off(seq))
            .collect();
        let last = tail.receivers == 0;
        drop(tail);
        if last {
            self.shared.receivers_gone.notify_waiters();
        }
        drop(freed);
    }
}

impl<T> fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tail = self.shared.tail();
        f.debug_struct("broadcast::Sender")
            .field("capacity", &self.shared.slots.len())
            .field("sent", &tail.next)
            .field("receivers", &tail.receivers)
            .finish()
    }
}

impl<T> fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("broadcast::Receiver")
            .field("capacity", &self.shared.slots.len())
            .field("next", &self.next)
            .finish()
    }
}

#[cfg(all(test, loom))]
mod loom_broadcast {
    use super::channel;
    use super::error::RecvError;
    use loom::thread;

    /// A receiver waiting while another thread sends (a second sender
    /// kept alive, so only the send can wake it), then the last sender's
    /// drop racing the next wait: it gets the value, then `Closed` (loom
    /// reports a deadlock if a wake-up is lost).
    #[test]
    fn send_vs_waiting_receiver_then_close() {
        loom::model(|| {
            let (tx, mut rx) = channel(1);
            let last = tx.clone();
            let sender = thread::spawn(move || {
                tx.send(7).unwrap();
            });
            assert_eq!(loom::future::block_on(rx.recv()), Ok(7));
            let closer = thread::spawn(move || drop(last));
            assert_eq!(loom::future::block_on(rx.recv()), Err(RecvError::Closed));
            sender.join().unwrap();
            closer.join().unwrap();
        });
    }

    /// Two receivers, one dropped while the other reads, against a send:
    /// the value is freed exactly once, after the last reader (the `Arc`
    /// count is back to one).
    #[test]
    fn receiver_drop_vs_read_vs_send_frees_the_value_once() {
        loom::model(|| {
            let value = loom::sync::Arc::new(());
            let (tx, mut reader) = channel(2);
            let dropped = tx.subscribe();
            let dropper = thread::spawn(move || drop(dropped));
            let sent = value.clone();
            let sender = thread::spawn(move || {
                tx.send(sent).unwrap();
            });
            let got = loom::future::block_on(reader.recv()).unwrap();
            drop(got);
            dropper.join().unwrap();
            sender.join().unwrap();
            assert!(matches!(
                reader.try_recv(),
                Err(super::error::TryRecvError::Closed)
            ));
            assert_eq!(loom::sync::Arc::strong_count(&value), 1);
        });
    }

    /// A send overwriting the only slot while the receiver reads it: the
    /// receiver sees both values or is told it lagged by one, then sees
    /// the second, and every value is freed (the `Arc` counts are back to
    /// one once the receiver is gone).
    #[test]
    fn overwrite_vs_read_lags_or_reads_and_frees_everything() {
        use loom::sync::Arc;
        loom::model(|| {
            let (first, second) = (Arc::new(1), Arc::new(2));
            let (tx, mut rx) = channel(1);
            let keep_open = tx.clone();
            let (a, b) = (first.clone(), second.clone());
            let sender = thread::spawn(move || {
                tx.send(a).unwrap();
                tx.send(b).unwrap();
            });
            let got = loom::future::block_on(rx.recv());
            match got {
                Ok(value) if *value == 1 => {
                    drop(value);
                    let next = loom::future::block_on(rx.recv()).unwrap();
                    assert_eq!(*next, 2);
                }
                Ok(value) => panic!("got {} before 1 and without a lag", *value),
                Err(RecvError::Lagged(1)) => {
                    let next = loom::future::block_on(rx.recv()).unwrap();
                    assert_eq!(*next, 2);
                }
                Err(e) => panic!("unexpected {e:?}"),
            }
            sender.join().unwrap();
            drop((rx, keep_open));
            assert_eq!(Arc::strong_count(&first), 1);
            assert_eq!(Arc::strong_count(&second), 1);
        });
    }

    /// Capacity 1, two sends overwriting each other while one receiver
    /// reads and another is dropped: no count goes below zero (no panic),
    /// and every value is freed once the channel is gone.
    #[test]
    fn overwrite_vs_read_vs_receiver_drop_frees_everything() {
        use loom::sync::Arc;
        loom::model(|| {
            let (first, second) = (Arc::new(1), Arc::new(2));
            let (tx, mut reader) = channel(1);
            let dropped = tx.subscribe();
            let (a, b) = (first.clone(), second.clone());
            let sender = thread::spawn(move || {
                tx.send(a).unwrap();
                tx.send(b).unwrap();
            });
            let dropper = thread::spawn(move || drop(dropped));
            let got = loom::future::block_on(reader.recv());
            drop(got);
            sender.join().unwrap();
            dropper.join().unwrap();
            drop(reader);
            assert_eq!(Arc::strong_count(&first), 1);
            assert_eq!(Arc::strong_count(&second), 1);
        });
    }
}
