//! The errors of the mpsc channels.

use std::fmt;

/// The error of `send`: the receiver is closed or gone; the value is
/// handed back.
///
/// # Examples
///
/// ```
/// let (tx, rx) = rt::sync::mpsc::unbounded_channel();
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
        f.write_str("channel closed")
    }
}

impl<T> std::error::Error for SendError<T> {}

/// The error of `try_send`.
///
/// # Examples
///
/// ```
/// use rt::sync::mpsc::{self, error::TrySendError};
/// let (tx, rx) = mpsc::channel(1);
/// tx.try_send(1).unwrap();
/// assert_eq!(tx.try_send(2), Err(TrySendError::Full(2)));
/// drop(rx);
/// assert_eq!(tx.try_send(3), Err(TrySendError::Closed(3)));
/// ```
#[derive(PartialEq, Eq, Clone, Copy)]
pub enum TrySendError<T> {
    /// The channel is at capacity (or other senders are waiting first).
    Full(T),
    /// The receiver is closed or gone.
    Closed(T),
}

impl<T> TrySendError<T> {
    /// The value that was not sent.
    ///
    /// # Examples
    ///
    /// ```
    /// let (tx, _rx) = rt::sync::mpsc::channel(1);
    /// tx.try_send(1).unwrap();
    /// assert_eq!(tx.try_send(2).unwrap_err().into_inner(), 2);
    /// ```
    pub fn into_inner(self) -> T {
        match self {
            TrySendError::Full(value) | TrySendError::Closed(value) => value,
        }
    }
}

/// A send that failed because the channel is closed, as the `Closed` case
/// of a `try_send`.
///
/// # Examples
///
/// ```
/// use rt::sync::mpsc::error::{SendError, TrySendError};
/// assert_eq!(TrySendError::from(SendError(1)), TrySendError::Closed(1));
/// ```
impl<T> From<SendError<T>> for TrySendError<T> {
    fn from(SendError(value): SendError<T>) -> TrySendError<T> {
        TrySendError::Closed(value)
    }
}

impl<T> fmt::Debug for TrySendError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TrySendError::Full(_) => f.write_str("Full(..)"),
            TrySendError::Closed(_) => f.write_str("Closed(..)"),
        }
    }
}

impl<T> fmt::Display for TrySendError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TrySendError::Full(_) => f.write_str("channel full"),
            TrySendError::Closed(_) => f.write_str("channel closed"),
        }
    }
}

impl<T> std::error::Error for TrySendError<T> {}

/// The error of `try_recv`.
///
/// # Examples
///
/// ```
/// use rt::sync::mpsc::{self, error::TryRecvError};
/// let (tx, mut rx) = mpsc::channel::<u8>(1);
/// assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
/// drop(tx);
/// assert_eq!(rx.try_recv(), Err(TryRecvError::Disconnected));
/// ```
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
pub enum TryRecvError {
    /// Nothing queued now; more may come.
    Empty,
    /// Nothing queued and nothing more will come.
    Disconnected,
}

impl fmt::Display for TryRecvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TryRecvError::Empty => f.write_str("channel empty"),
            TryRecvError::Disconnected => f.write_str("channel closed"),
        }
    }
}

impl std::error::Error for TryRecvError {}

/// The error of [`Sender::send_timeout`](super::Sender::send_timeout);
/// the value is handed back.
///
/// # Examples
///
/// ```
/// use rt::sync::mpsc::{self, error::SendTimeoutError};
/// use std::time::Duration;
///
/// let rt = rt::runtime::Builder::new_current_thread().start_paused(true).build().unwrap();
/// rt.block_on(async {
///     let (tx, _rx) = mpsc::channel(1);
///     tx.send(1).await.unwrap();
///     let full = tx.send_timeout(2, Duration::from_secs(1)).await;
///     assert_eq!(full, Err(SendTimeoutError::Timeout(2)));
/// });
/// ```
#[derive(PartialEq, Eq, Clone, Copy)]
pub enum SendTimeoutError<T> {
    /// No slot came free in time.
    Timeout(T),
    /// The receiver is closed or gone.
    Closed(T),
}

impl<T> SendTimeoutError<T> {
    /// The value that was not sent.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::sync::mpsc::error::SendTimeoutError;
    /// assert_eq!(SendTimeoutError::Closed(5).into_inner(), 5);
    /// ```
    pub fn into_inner(self) -> T {
        match self {
            SendTimeoutError::Timeout(value) | SendTimeoutError::Closed(value) => value,
        }
    }
}

impl<T> fmt::Debug for SendTimeoutError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SendTimeoutError::Timeout(_) => f.write_str("Timeout(..)"),
            SendTimeoutError::Closed(_) => f.write_str("Closed(..)"),
        }
    }
}

impl<T> fmt::Display for SendTimeoutError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SendTimeoutError::Timeout(_) => f.write_str("timed out waiting on send operation"),
            SendTimeoutError::Closed(_) => f.write_str("channel closed"),
        }
    }
}

impl<T> std::error::Error for SendTimeoutError<T> {}
