//! A channel for a single value.
//!
//! Both halves share one small mutex-protected state: the value, whether
//! each half is still there, and each half's waker. Every operation is a
//! single short critical section; wakers are woken and values dropped
//! after the lock is released.
//!
//! Cancel safety: awaiting a [`Receiver`] is cancel-safe when the future is
//! polled by reference (`&mut receiver`): dropping that borrow loses
//! nothing, the value stays in the channel. [`Sender::closed`] is
//! cancel-safe.

use crate::loom::sync::{Arc, Mutex, MutexGuard};
use crate::sync::wait_list::register;
use crate::task::poll_proceed;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker, ready};

/// Creates a oneshot channel.
///
/// # Examples
///
/// ```
/// use rt::sync::oneshot;
///
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let (tx, rx) = oneshot::channel();
///     rt::spawn(async move { tx.send(42).unwrap() });
///     assert_eq!(rx.await.unwrap(), 42);
/// });
/// ```
pub fn channel<T>() -> (Sender<T>, Receiver<T>) {
    let inner = Arc::new(Mutex::new(State {
        value: None,
        sender_alive: true,
        receiver_closed: false,
        rx_waker: None,
        tx_waker: None,
    }));
    (
        Sender {
            inner: inner.clone(),
        },
        Receiver {
            inner,
            terminated: false,
        },
    )
}

struct State<T> {
    value: Option<T>,
    /// Cleared when the sender sends or is dropped.
    sender_alive: bool,
    /// Set by `Receiver::close` or when the receiver drops.
    receiver_closed: bool,
    rx_waker: Option<Waker>,
    tx_waker: Option<Waker>,
}

fn lock<T>(inner: &Mutex<State<T>>) -> MutexGuard<'_, State<T>> {
    inner.lock().unwrap_or_else(|e| e.into_inner())
}

/// The sending half; consumed by [`send`](Sender::send).
///
/// # Examples
///
/// ```
/// let (tx, rx) = rt::sync::oneshot::channel::<u8>();
/// drop(rx);
/// assert!(tx.is_closed());
/// ```
pub struct Sender<T> {
    inner: Arc<Mutex<State<T>>>,
}

/// The receiving half; a future that yields the value.
///
/// # Examples
///
/// ```
/// let (tx, rx) = rt::sync::oneshot::channel();
/// tx.send("hi").unwrap();
/// assert_eq!(futures::executor::block_on(rx).unwrap(), "hi");
/// ```
pub struct Receiver<T> {
    inner: Arc<Mutex<State<T>>>,
    /// It returned the value, or the error that no value will come.
    terminated: bool,
}

/// The errors, under the module path tokio gives them
/// (`oneshot::error::RecvError`); the same types as `oneshot::RecvError`
/// and `oneshot::TryRecvError`.
///
/// # Examples
///
/// ```
/// use rt::sync::oneshot::{self, error::TryRecvError};
/// let (_tx, mut rx) = oneshot::channel::<u8>();
/// assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
/// ```
pub mod error {
    pub use super::{RecvError, TryRecvError};
}

/// The error of awaiting a [`Receiver`]: the sender dropped without sending.
///
/// # Examples
///
/// ```
/// let (tx, rx) = rt::sync::oneshot::channel::<()>();
/// drop(tx);
/// assert!(futures::executor::block_on(rx).is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecvError(());

impl fmt::Display for RecvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("oneshot sender dropped without sending")
    }
}

impl std::error::Error for RecvError {}

/// The error of [`Receiver::try_recv`].
///
/// # Examples
///
/// ```
/// use rt::sync::oneshot::{self, TryRecvError};
/// let (tx, mut rx) = oneshot::channel::<()>();
/// assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
/// drop(tx);
/// assert_eq!(rx.try_recv(), Err(TryRecvError::Closed));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TryRecvError {
    /// No value yet; the sender is still there.
    Empty,
    /// The sender is gone without a value, or the value was taken already.
    Closed,
}

impl fmt::Display for TryRecvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TryRecvError::Empty => f.write_str("oneshot channel empty"),
            TryRecvError::Closed => f.write_str("oneshot channel closed"),
        }
    }
}

impl std::error::Error for TryRecvError {}

impl<T> Sender<T> {
    /// Sends the value. It is handed back if the receiver is gone or closed.
    ///
    /// # Errors
    ///
    /// Returns `Err(value)` when the receiver was dropped or closed.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, rx) = rt::sync::oneshot::channel();
    /// drop(rx);
    /// assert_eq!(tx.send(5), Err(5));
    /// ```
    pub fn send(self, value: T) -> Result<(), T> {
        let mut state = lock(&self.inner);
        if state.receiver_closed {
            return Err(value);
        }
        state.value = Some(value);
        state.sender_alive = false;
        let waker = state.rx_waker.take();
        // This sender is gone: nothing will poll its `closed` again.
        let own = state.tx_waker.take();
        drop(state);
        drop(own);
        if let Some(waker) = waker {
            waker.wake();
        }
        // `Drop` finds `sender_alive` cleared and does nothing more.
        Ok(())
    }

    /// `true` once the receiver was dropped or closed.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, mut rx) = rt::sync::oneshot::channel::<()>();
    /// assert!(!tx.is_closed());
    /// rx.close();
    /// assert!(tx.is_closed());
    /// ```
    pub fn is_closed(&self) -> bool {
        lock(&self.inner).receiver_closed
    }

    /// Polls for the receiver going away; see [`closed`](Sender::closed).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::task::{Context, Waker};
    /// let (mut tx, rx) = rt::sync::oneshot::channel::<()>();
    /// let mut cx = Context::from_waker(Waker::noop());
    /// assert!(tx.poll_closed(&mut cx).is_pending());
    /// drop(rx);
    /// assert!(tx.poll_closed(&mut cx).is_ready());
    /// ```
    pub fn poll_closed(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        let coop = ready!(poll_proceed(cx));
        let mut state = lock(&self.inner);
        if state.receiver_closed {
            drop(state);
            coop.made_progress();
            return Poll::Ready(());
        }
        let replaced = register(&mut state.tx_waker, cx.waker());
        drop(state);
        drop(replaced);
        Poll::Pending
    }

    /// Waits until the receiver is dropped or closed (for example to stop
    /// computing a reply nobody will read). Cancel-safe.
    ///
    /// # Examples
    ///
    /// ```
    /// let (mut tx, rx) = rt::sync::oneshot::channel::<()>();
    /// std::thread::spawn(move || drop(rx));
    /// futures::executor::block_on(tx.closed());
    /// ```
    pub async fn closed(&mut self) {
        std::future::poll_fn(|cx| self.poll_closed(cx)).await
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        let mut state = lock(&self.inner);
        if !state.sender_alive {
            return;
        }
        state.sender_alive = false;
        let waker = state.rx_waker.take();
        // Its own waker (from `closed`) goes now, not with the receiver.
        let own = state.tx_waker.take();
        drop(state);
        drop(own);
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

impl<T> Receiver<T> {
    /// Awaits the value from synchronous code: blocks the thread until it
    /// is sent or the sender is dropped.
    ///
    /// # Errors
    ///
    /// [`RecvError`] if the sender was dropped without sending.
    ///
    /// # Panics
    ///
    /// Panics on a thread that runs tasks (use `.await` there).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let (tx, rx) = rt::sync::oneshot::channel();
    /// rt.spawn(async move { tx.send("done").unwrap() });
    /// let got = std::thread::spawn(move || rx.blocking_recv()).join().unwrap();
    /// assert_eq!(got, Ok("done"));
    /// ```
    #[track_caller]
    pub fn blocking_recv(self) -> Result<T, RecvError> {
        crate::sync::blocking::block_on("oneshot::Receiver::blocking_recv", self)
    }

    /// Closes the channel: a later `send` fails. A value sent before is
    /// still returned by `try_recv` or by awaiting.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, mut rx) = rt::sync::oneshot::channel();
    /// rx.close();
    /// assert_eq!(tx.send(1), Err(1));
    /// ```
    pub fn close(&mut self) {
        let mut state = lock(&self.inner);
        state.receiver_closed = true;
        let waker = state.tx_waker.take();
        drop(state);
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// Takes the value if it was sent.
    ///
    /// # Errors
    ///
    /// [`TryRecvError::Empty`] while the sender may still send;
    /// [`TryRecvError::Closed`] when it never will.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, mut rx) = rt::sync::oneshot::channel();
    /// tx.send(3).unwrap();
    /// assert_eq!(rx.try_recv(), Ok(3));
    /// ```
    pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
        let mut state = lock(&self.inner);
        let result = match state.value.take() {
            Some(value) => Ok(value),
            None if state.sender_alive && !state.receiver_closed => Err(TryRecvError::Empty),
            None => Err(TryRecvError::Closed),
        };
        drop(state);
        self.terminated = !matches!(result, Err(TryRecvError::Empty));
        result
    }

    /// `true` if no value waits in the channel: none was sent yet, the
    /// sender is gone without one, or it was received already.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, mut rx) = rt::sync::oneshot::channel();
    /// assert!(rx.is_empty());
    /// tx.send(1).unwrap();
    /// assert!(!rx.is_empty());
    /// assert_eq!(rx.try_recv(), Ok(1));
    /// assert!(rx.is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        lock(&self.inner).value.is_none()
    }

    /// `true` once this receiver has returned its result: the value, or
    /// the error that none will come (awaited, or through `try_recv`).
    /// Polling it again then panics, as tokio's does (a `select!` loop
    /// guards its branch with `if !rx.is_terminated()`).
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, mut rx) = rt::sync::oneshot::channel();
    /// tx.send(1).unwrap();
    /// assert!(!rx.is_terminated(), "sent, not yet received");
    /// assert_eq!(futures::executor::block_on(&mut rx), Ok(1));
    /// assert!(rx.is_terminated());
    /// ```
    pub fn is_terminated(&self) -> bool {
        self.terminated
    }
}

impl<T> Future for Receiver<T> {
    type Output = Result<T, RecvError>;

    /// # Panics
    ///
    /// When polled after it returned its result (or after `try_recv`
    /// returned it): see [`is_terminated`](Receiver::is_terminated).
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        if self.terminated {
            panic!(
                "rt: a `oneshot::Receiver` was polled after it returned its result (the value, \
                 or the error that none will come); it has nothing more to give. Check \
                 `Receiver::is_terminated()` before polling it again (in a `select!` loop: \
                 `result = &mut rx, if !rx.is_terminated() => ...`)"
            );
        }
        let coop = ready!(poll_proceed(cx));
        let mut state = lock(&self.inner);
        let result = match state.value.take() {
            Some(value) => Ok(value),
            None if state.sender_alive && !state.receiver_closed => {
                let replaced = register(&mut state.rx_waker, cx.waker());
                drop(state);
                drop(replaced);
                // Awaited as it is: no call to take a location from.
                crate::task::waits::record("oneshot::Receiver", None);
                return Poll::Pending;
            }
            None => Err(RecvError(())),
        };
        drop(state);
        self.terminated = true;
        coop.made_progress();
        Poll::Ready(result)
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        let mut state = lock(&self.inner);
        state.receiver_closed = true;
        let value = state.value.take();
        let waker = state.tx_waker.take();
        // Its own waker goes now, not with the sender.
        let own = state.rx_waker.take();
        drop(state);
        drop(own);
        drop(value);
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

impl<T> fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("oneshot::Sender")
            .field("closed", &self.is_closed())
            .finish()
    }
}

impl<T> fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = lock(&self.inner);
        f.debug_struct("oneshot::Receiver")
            .field("has_value", &state.value.is_some())
            .field("sender_alive", &state.sender_alive)
            .finish()
    }
}

#[cfg(all(test, loom))]
mod loom_oneshot {
    use super::channel;
    use loom::thread;

    /// send vs receiver drop: the value is either received-and-dropped with
    /// the receiver, or handed back to the sender; never both, never lost.
    #[test]
    fn send_vs_receiver_drop() {
        loom::model(|| {
            let (tx, rx) = channel::<std::sync::Arc<()>>();
            let value = std::sync::Arc::new(());
            let sent = value.clone();
            let sender = thread::spawn(move || tx.send(sent).err());
            drop(rx);
            let returned = sender.join().unwrap();
            assert_eq!(
                std::sync::Arc::strong_count(&value),
                1 + returned.is_some() as usize
            );
        });
    }

    /// send vs recv: the receiver gets exactly the value.
    #[test]
    fn send_vs_recv() {
        loom::model(|| {
            let (tx, rx) = channel();
            let sender = thread::spawn(move || tx.send(7).unwrap());
            assert_eq!(loom::future::block_on(rx), Ok(7));
            sender.join().unwrap();
        });
    }

    /// sender drop vs recv: the receiver is told, it does not hang.
    #[test]
    fn sender_drop_vs_recv() {
        loom::model(|| {
            let (tx, rx) = channel::<u8>();
            let dropper = thread::spawn(move || drop(tx));
            assert!(loom::future::block_on(rx).is_err());
            dropper.join().unwrap();
        });
    }
}
