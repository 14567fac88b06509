//! A single-producer, multi-consumer channel that keeps only the latest
//! value.
//!
//! The value sits under a read-write lock with a version counter bumped by
//! every send. Each receiver remembers the version it last saw;
//! `changed()` waits on a [`Notify`] until the version moves. The
//! `Notified` future is created before the version is read, so a send
//! between the read and the wait is never missed (`notify_waiters` wakes
//! futures created before it).
//!
//! Cancel safety: `changed()` and `Sender::closed()` are cancel-safe.

use crate::loom::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use crate::loom::sync::{Arc, RwLock, RwLockReadGuard};
use crate::sync::Notify;
use crate::task::cooperative;
use crate::task::waits::Site;
use std::fmt;
use std::ops::Deref;

/// Creates a watch channel holding `initial`.
///
/// # Examples
///
/// ```
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let (tx, mut rx) = rt::sync::watch::channel("starting");
///     rt::spawn(async move { tx.send("ready").unwrap() });
///     rx.changed().await.unwrap();
///     assert_eq!(*rx.borrow(), "ready");
/// });
/// ```
pub fn channel<T>(initial: T) -> (Sender<T>, Receiver<T>) {
    let shared = Arc::new(Shared {
        value: RwLock::new(initial),
        version: AtomicUsize::new(0),
        senders: AtomicUsize::new(1),
        receivers: AtomicUsize::new(1),
        changed: Notify::new(),
        receivers_gone: Notify::new(),
    });
    (
        Sender {
            shared: shared.clone(),
        },
        Receiver { shared, seen: 0 },
    )
}

struct Shared<T> {
    value: RwLock<T>,
    /// Bumped (under the write lock) by every send.
    version: AtomicUsize,
    /// Live senders; the channel is closed for receivers at zero.
    senders: AtomicUsize,
    receivers: AtomicUsize,
    changed: Notify,
    receivers_gone: Notify,
}

impl<T> Shared<T> {
    fn read(&self) -> RwLockReadGuard<'_, T> {
        self.value.read().unwrap_or_else(|e| e.into_inner())
    }

    fn is_closed_for_receivers(&self) -> bool {
        self.senders.load(SeqCst) == 0
    }

    /// `Receiver::changed` on a receiver's parts (`seen` is its version),
    /// without the budget (`Notified` spends none): the callers wrap the
    /// whole operation in `cooperative`, which charges one unit when it is
    /// ready.
    async fn wait_changed(&self, seen: &mut usize, site: Site) -> Result<(), RecvError> {
        loop {
            let notified = self.changed.notified_for(site);
            let version = self.version.load(SeqCst);
            if version != *seen {
                *seen = version;
                return Ok(());
            }
            if self.is_closed_for_receivers() {
                return Err(RecvError(()));
            }
            notified.await;
        }
    }
}

/// The sending half of a watch channel; clone it for more senders (the
/// channel closes for receivers when the last one is dropped).
///
/// # Examples
///
/// ```
/// let (tx, rx) = rt::sync::watch::channel(0);
/// tx.send(1).unwrap();
/// assert_eq!(*rx.borrow(), 1);
/// ```
pub struct Sender<T> {
    shared: Arc<Shared<T>>,
}

/// A receiving half of a watch channel; clone it for more receivers.
///
/// # Examples
///
/// ```
/// let (tx, rx) = rt::sync::watch::channel(0);
/// let rx2 = rx.clone();
/// tx.send(5).unwrap();
/// assert_eq!(*rx2.borrow(), 5);
/// ```
pub struct Receiver<T> {
    shared: Arc<Shared<T>>,
    seen: usize,
}

/// A borrow of the current value. Holding it blocks senders (a
/// synchronous lock), so keep it short and never across an `.await`.
///
/// # Examples
///
/// ```
/// let (_tx, rx) = rt::sync::watch::channel(String::from("v"));
/// let value: rt::sync::watch::Ref<'_, String> = rx.borrow();
/// assert_eq!(value.as_str(), "v");
/// ```
pub struct Ref<'a, T> {
    guard: RwLockReadGuard<'a, T>,
    has_changed: bool,
}

impl<T> Ref<'_, T> {
    /// `true` if the value was new to the receiver that borrowed it.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, mut rx) = rt::sync::watch::channel(0);
    /// tx.send(1).unwrap();
    /// assert!(rx.borrow_and_update().has_changed());
    /// assert!(!rx.borrow_and_update().has_changed());
    /// ```
    pub fn has_changed(&self) -> bool {
        self.has_changed
    }
}

impl<T> Deref for Ref<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.guard
    }
}

impl<T: fmt::Debug> fmt::Debug for Ref<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

/// The errors, under the module path tokio gives them
/// (`watch::error::SendError`); the same types as `watch::SendError` and
/// `watch::RecvError`.
///
/// # Examples
///
/// ```
/// use rt::sync::watch::{self, error::SendError};
/// let (tx, rx) = watch::channel(0);
/// drop(rx);
/// assert_eq!(tx.send(1), Err(SendError(1)));
/// ```
pub mod error {
    pub use super::{RecvError, SendError};
}

/// The error of [`Sender::send`]: no receiver is left; the value is
/// handed back.
///
/// # Examples
///
/// ```
/// let (tx, rx) = rt::sync::watch::channel(0);
/// drop(rx);
/// assert_eq!(tx.send(1).unwrap_err().0, 1);
/// ```
#[derive(PartialEq, Eq, Clone, Copy)]
pub struct SendError<T>(pub T);

impl<T> fmt::Debug for SendError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SendError(..)")
    }
}

impl<T> fmt::Display for SendError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("watch channel has no receivers")
    }
}

impl<T> std::error::Error for SendError<T> {}

/// The error of [`Receiver::changed`]: the sender is gone and no unseen
/// value is left.
///
/// # Examples
///
/// ```
/// let (tx, mut rx) = rt::sync::watch::channel(0);
/// drop(tx);
/// assert!(futures::executor::block_on(rx.changed()).is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecvError(());

impl fmt::Display for RecvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("watch sender dropped")
    }
}

impl std::error::Error for RecvError {}

impl<T> Sender<T> {
    /// A sender of a new channel holding `init` that has no receiver yet
    /// (make them with [`subscribe`](Sender::subscribe)).
    ///
    /// # Examples
    ///
    /// ```
    /// let tx = rt::sync::watch::Sender::new(1);
    /// assert!(tx.send(2).is_err(), "no receiver yet");
    /// let rx = tx.subscribe();
    /// assert_eq!(*rx.borrow(), 1);
    /// ```
    pub fn new(init: T) -> Sender<T> {
        let (tx, rx) = channel(init);
        drop(rx);
        tx
    }

    /// The number of live senders (this one and its clones).
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, _rx) = rt::sync::watch::channel(0);
    /// let _tx2 = tx.clone();
    /// assert_eq!(tx.sender_count(), 2);
    /// ```
    pub fn sender_count(&self) -> usize {
        self.shared.senders.load(SeqCst)
    }

    /// Replaces the value and notifies receivers.
    ///
    /// # Errors
    ///
    /// Returns the value if every receiver is gone (nothing is stored).
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, rx) = rt::sync::watch::channel(1);
    /// tx.send(2).unwrap();
    /// assert_eq!(*rx.borrow(), 2);
    /// ```
    pub fn send(&self, value: T) -> Result<(), SendError<T>> {
        if self.shared.receivers.load(SeqCst) == 0 {
            return Err(SendError(value));
        }
        self.send_replace(value);
        Ok(())
    }

    /// Replaces the value (even with no receivers), notifies receivers and
    /// returns the old value.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, _rx) = rt::sync::watch::channel(1);
    /// assert_eq!(tx.send_replace(2), 1);
    /// ```
    pub fn send_replace(&self, value: T) -> T {
        let mut value = Some(value);
        self.send_if_modified(|current| {
            value = Some(std::mem::replace(current, value.take().expect("set above")));
            true
        });
        value.expect("swapped in the closure")
    }

    /// Modifies the value in place and notifies receivers.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, rx) = rt::sync::watch::channel(vec![1]);
    /// tx.send_modify(|v| v.push(2));
    /// assert_eq!(*rx.borrow(), [1, 2]);
    /// ```
    pub fn send_modify(&self, modify: impl FnOnce(&mut T)) {
        self.send_if_modified(|value| {
            modify(value);
            true
        });
    }

    /// Modifies the value in place; receivers are notified only if
    /// `modify` returns `true`. Returns what `modify` returned.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, rx) = rt::sync::watch::channel(0);
    /// assert!(!tx.send_if_modified(|_| false));
    /// assert!(!rx.has_changed().unwrap());
    /// ```
    pub fn send_if_modified(&self, modify: impl FnOnce(&mut T) -> bool) -> bool {
        let mut value = self.shared.value.write().unwrap_or_else(|e| e.into_inner());
        let modified = modify(&mut value);
        if modified {
            self.shared.version.fetch_add(1, SeqCst);
        }
        drop(value);
        if modified {
            self.shared.changed.notify_waiters();
        }
        modified
    }

    /// The current value.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, _rx) = rt::sync::watch::channel(7);
    /// assert_eq!(*tx.borrow(), 7);
    /// ```
    pub fn borrow(&self) -> Ref<'_, T> {
        Ref {
            guard: self.shared.read(),
            has_changed: false,
        }
    }

    /// A new receiver that has seen the current value.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, rx) = rt::sync::watch::channel(0);
    /// drop(rx);
    /// let rx = tx.subscribe();
    /// assert!(tx.send(1).is_ok());
    /// assert!(rx.has_changed().unwrap());
    /// ```
    pub fn subscribe(&self) -> Receiver<T> {
        self.shared.receivers.fetch_add(1, SeqCst);
        Receiver {
            shared: self.shared.clone(),
            seen: self.shared.version.load(SeqCst),
        }
    }

    /// The number of live receivers.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, rx) = rt::sync::watch::channel(0);
    /// let _rx2 = rx.clone();
    /// assert_eq!(tx.receiver_count(), 2);
    /// ```
    pub fn receiver_count(&self) -> usize {
        self.shared.receivers.load(SeqCst)
    }

    /// `true` when every receiver is gone.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, rx) = rt::sync::watch::channel(0);
    /// drop(rx);
    /// assert!(tx.is_closed());
    /// ```
    pub fn is_closed(&self) -> bool {
        self.receiver_count() == 0
    }

    /// `true` if `other` sends on the same channel as this sender.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, _rx) = rt::sync::watch::channel(0);
    /// let (other, _other_rx) = rt::sync::watch::channel(0);
    /// assert!(tx.same_channel(&tx.clone()));
    /// assert!(!tx.same_channel(&other));
    /// ```
    pub fn same_channel(&self, other: &Sender<T>) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }

    /// Waits until every receiver is gone. Cancel-safe.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, rx) = rt::sync::watch::channel(0);
    /// std::thread::spawn(move || drop(rx));
    /// futures::executor::block_on(tx.closed());
    /// ```
    pub async fn closed(&self) {
        // One unit when it returns, as tokio's (whose mpsc and broadcast
        // `closed` spend none).
        cooperative(self.shared.receivers_gone.wait_until(|| self.is_closed())).await
    }
}

/// A sender of a new channel holding `T::default()` and no receiver yet,
/// as [`Sender::new`].
///
/// # Examples
///
/// ```
/// let tx: rt::sync::watch::Sender<u32> = Default::default();
/// assert_eq!(*tx.subscribe().borrow(), 0);
/// ```
impl<T: Default> Default for Sender<T> {
    fn default() -> Sender<T> {
        Sender::new(T::default())
    }
}

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Sender<T> {
        self.shared.senders.fetch_add(1, SeqCst);
        Sender {
            shared: self.shared.clone(),
        }
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        if self.shared.senders.fetch_sub(1, SeqCst) == 1 {
            self.shared.changed.notify_waiters();
        }
    }
}

impl<T> Receiver<T> {
    /// The current value, without marking it seen.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, rx) = rt::sync::watch::channel(0);
    /// tx.send(3).unwrap();
    /// assert_eq!(*rx.borrow(), 3);
    /// assert!(rx.has_changed().unwrap());
    /// ```
    pub fn borrow(&self) -> Ref<'_, T> {
        let guard = self.shared.read();
        let has_changed = self.shared.version.load(SeqCst) != self.seen;
        Ref { guard, has_changed }
    }

    /// The current value, marking it seen.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, mut rx) = rt::sync::watch::channel(0);
    /// tx.send(3).unwrap();
    /// assert_eq!(*rx.borrow_and_update(), 3);
    /// assert!(!rx.has_changed().unwrap());
    /// ```
    pub fn borrow_and_update(&mut self) -> Ref<'_, T> {
        let guard = self.shared.read();
        let version = self.shared.version.load(SeqCst);
        let has_changed = version != self.seen;
        self.seen = version;
        Ref { guard, has_changed }
    }

    /// `true` once every sender is gone: no value will change again
    /// (values not yet seen can still be borrowed).
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, rx) = rt::sync::watch::channel(0);
    /// assert!(!rx.is_closed());
    /// drop(tx);
    /// assert!(rx.is_closed());
    /// ```
    pub fn is_closed(&self) -> bool {
        self.shared.is_closed_for_receivers()
    }

    /// `true` if `other` receives from the same channel as this receiver.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, rx) = rt::sync::watch::channel(0);
    /// let (_other_tx, other) = rt::sync::watch::channel(0);
    /// assert!(rx.same_channel(&tx.subscribe()));
    /// assert!(!rx.same_channel(&other));
    /// ```
    pub fn same_channel(&self, other: &Receiver<T>) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }

    /// `true` if a value was sent since this receiver last looked.
    ///
    /// # Errors
    ///
    /// [`RecvError`] if the sender is gone.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, rx) = rt::sync::watch::channel(0);
    /// assert!(!rx.has_changed().unwrap());
    /// tx.send(1).unwrap();
    /// assert!(rx.has_changed().unwrap());
    /// ```
    pub fn has_changed(&self) -> Result<bool, RecvError> {
        if self.shared.is_closed_for_receivers() {
            return Err(RecvError(()));
        }
        Ok(self.shared.version.load(SeqCst) != self.seen)
    }

    /// Waits for a value this receiver has not seen, and marks it seen.
    /// Returns at once if one was sent since the last look. Cancel-safe.
    ///
    /// # Errors
    ///
    /// [`RecvError`] once the sender is gone and every value was seen.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, mut rx) = rt::sync::watch::channel(0);
    /// tx.send(1).unwrap();
    /// futures::executor::block_on(rx.changed()).unwrap();
    /// assert_eq!(*rx.borrow(), 1);
    /// ```
    #[track_caller]
    pub fn changed(&mut self) -> impl Future<Output = Result<(), RecvError>> {
        let site = Site::here("watch::Receiver::changed");
        async move {
            // Spends a unit when ready; once the budget is spent it yields
            // before looking, so nothing is marked seen.
            cooperative(self.shared.wait_changed(&mut self.seen, site)).await
        }
    }

    /// Waits for a value for which `condition` holds, looking at the
    /// current value first, and returns a borrow of it (marked seen, like
    /// every value looked at). Cancel-safe.
    ///
    /// The borrow's [`has_changed`](Ref::has_changed) says whether the
    /// value was unseen when `wait_for` looked at it, as tokio's: `true`
    /// for an unseen current value that meets the condition at once, but
    /// `false` for one that came while `wait_for` waited (the wait marks
    /// each new value seen before the condition looks at it), unless
    /// another was sent in between.
    ///
    /// # Errors
    ///
    /// [`RecvError`] once the sender is gone and no value looked at met
    /// the condition.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (tx, mut rx) = rt::sync::watch::channel(0);
    ///     rt::spawn(async move {
    ///         for i in 1..=5 {
    ///             tx.send(i).unwrap();
    ///         }
    ///     });
    ///     let value = rx.wait_for(|&v| v >= 3).await.unwrap();
    ///     assert!(*value >= 3);
    /// });
    /// ```
    #[track_caller]
    pub fn wait_for(
        &mut self,
        condition: impl FnMut(&T) -> bool,
    ) -> impl Future<Output = Result<Ref<'_, T>, RecvError>> {
        let site = Site::here("watch::Receiver::wait_for");
        async move {
            // A ready operation, the closed-channel error too: a loop over a
            // met condition (or a closed channel) still yields.
            cooperative(self.wait_for_unbudgeted(condition, site)).await
        }
    }

    /// `wait_for` without the budget (see `Shared::wait_changed`).
    async fn wait_for_unbudgeted(
        &mut self,
        mut condition: impl FnMut(&T) -> bool,
        site: Site,
    ) -> Result<Ref<'_, T>, RecvError> {
        // Split borrows: the returned guard borrows `shared` while `seen`
        // is updated.
        let Receiver { shared, seen } = self;
        loop {
            let closed = shared.is_closed_for_receivers();
            {
                let guard = shared.read();
                let version = shared.version.load(SeqCst);
                // After a wait, `wait_changed` has already marked the new
                // version seen: only a send since then counts (tokio's).
                let has_changed = version != *seen;
                *seen = version;
                if condition(&guard) {
                    return Ok(Ref { guard, has_changed });
                }
            }
            if closed {
                return Err(RecvError(()));
            }
            shared.wait_changed(seen, site).await?;
        }
    }

    /// Marks the current value as seen.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, mut rx) = rt::sync::watch::channel(0);
    /// tx.send(1).unwrap();
    /// rx.mark_unchanged();
    /// assert!(!rx.has_changed().unwrap());
    /// ```
    pub fn mark_unchanged(&mut self) {
        self.seen = self.shared.version.load(SeqCst);
    }

    /// Marks the current value as not seen: `has_changed` is `true` and
    /// `changed` returns at once, until it is looked at again.
    ///
    /// # Examples
    ///
    /// ```
    /// let (_tx, mut rx) = rt::sync::watch::channel(0);
    /// rx.mark_changed();
    /// assert!(rx.has_changed().unwrap());
    /// futures::executor::block_on(rx.changed()).unwrap();
    /// assert!(!rx.has_changed().unwrap());
    /// ```
    pub fn mark_changed(&mut self) {
        // Any version but the current one reads as "not seen".
        self.seen = self.shared.version.load(SeqCst).wrapping_sub(1);
    }
}

impl<T> Clone for Receiver<T> {
    fn clone(&self) -> Receiver<T> {
        self.shared.receivers.fetch_add(1, SeqCst);
        Receiver {
            shared: self.shared.clone(),
            seen: self.seen,
        }
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        if self.shared.receivers.fetch_sub(1, SeqCst) == 1 {
            self.shared.receivers_gone.notify_waiters();
        }
    }
}

impl<T: fmt::Debug> fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("watch::Sender")
            .field("value", &*self.borrow())
            .finish()
    }
}

impl<T: fmt::Debug> fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("watch::Receiver")
            .field("value", &*self.borrow())
            .field("seen", &self.seen)
            .finish()
    }
}
