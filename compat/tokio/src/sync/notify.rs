//! `Notify`: rt's, in tokio's shape. A newtype only so that its futures,
//! [`Notified`] and [`OwnedNotified`], are `!Unpin` like tokio's (rt's are
//! `Unpin`): code that compiles against the facade compiles against tokio.

use pin_project_lite::pin_project;
use std::fmt;
use std::future::Future;
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

/// Wakes waiting tasks without sending data: rt's `Notify`.
///
/// # Examples
///
/// ```
/// # #[cfg(feature = "rt")]
/// # {
/// use std::sync::Arc;
/// use tokio::sync::Notify;
///
/// let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
/// rt.block_on(async {
///     let notify = Arc::new(Notify::new());
///     let waiter = notify.clone();
///     let task = tokio::spawn(async move { waiter.notified().await });
///     notify.notify_one();
///     task.await.unwrap();
/// });
/// # }
/// ```
// `repr(transparent)`: `notified_owned` turns an `Arc<Notify>` into rt's
// `Arc<rt::sync::Notify>` (same size and alignment).
#[repr(transparent)]
#[derive(Default)]
pub struct Notify(rt::sync::Notify);

impl Notify {
    /// A `Notify` with no stored permit.
    ///
    /// # Examples
    ///
    /// ```
    /// # let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    /// let notify = tokio::sync::Notify::new();
    /// notify.notify_one();
    /// rt.block_on(notify.notified());
    /// ```
    pub fn new() -> Notify {
        Notify(rt::sync::Notify::new())
    }

    /// [`new`](Notify::new) in a `const` context, for a `static`.
    ///
    /// # Examples
    ///
    /// ```
    /// # let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    /// static READY: tokio::sync::Notify = tokio::sync::Notify::const_new();
    /// READY.notify_one();
    /// rt.block_on(READY.notified());
    /// ```
    pub const fn const_new() -> Notify {
        Notify(rt::sync::Notify::const_new())
    }

    /// A future that completes when this `Notify` is notified. For
    /// [`notify_waiters`](Notify::notify_waiters) it counts as waiting from
    /// the moment it is created; for `notify_one` from its first poll (or
    /// [`Notified::enable`]).
    ///
    /// # Examples
    ///
    /// ```
    /// # let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    /// let notify = tokio::sync::Notify::new();
    /// let notified = notify.notified();
    /// notify.notify_waiters();
    /// rt.block_on(notified);
    /// ```
    #[track_caller]
    pub fn notified(&self) -> Notified<'_> {
        Notified {
            inner: self.0.notified(),
            _pinned: PhantomPinned,
        }
    }

    /// [`notified`](Notify::notified) holding the `Notify` by `Arc`, so the
    /// future is `'static`.
    ///
    /// # Examples
    ///
    /// ```
    /// # let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    /// use std::sync::Arc;
    ///
    /// let notify = Arc::new(tokio::sync::Notify::new());
    /// let notified = notify.clone().notified_owned();
    /// notify.notify_waiters();
    /// rt.block_on(notified);
    /// ```
    #[track_caller]
    pub fn notified_owned(self: Arc<Self>) -> OwnedNotified {
        let raw = Arc::into_raw(self).cast::<rt::sync::Notify>();
        // SAFETY: `raw` comes from `Arc::into_raw` of an `Arc<Notify>`, and
        // `Notify` is a `repr(transparent)` wrapper of `rt::sync::Notify`:
        // the same size and alignment, which is what `Arc::from_raw` asks of
        // a pointer from an `Arc` of another type. The reference count moves
        // over unchanged (one `into_raw`, one `from_raw`).
        let inner = unsafe { Arc::from_raw(raw) };
        OwnedNotified {
            inner: inner.notified_owned(),
            _pinned: PhantomPinned,
        }
    }

    /// Wakes the oldest waiter, or stores a permit if none is waiting.
    ///
    /// # Examples
    ///
    /// ```
    /// # let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    /// let notify = tokio::sync::Notify::new();
    /// notify.notify_one();
    /// rt.block_on(notify.notified());
    /// ```
    pub fn notify_one(&self) {
        self.0.notify_one();
    }

    /// Wakes the newest waiter, or stores a permit if none is waiting.
    ///
    /// # Examples
    ///
    /// ```
    /// # let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    /// let notify = tokio::sync::Notify::new();
    /// notify.notify_last();
    /// rt.block_on(notify.notified());
    /// ```
    pub fn notify_last(&self) {
        self.0.notify_last();
    }

    /// Wakes every future created before this call; stores no permit.
    ///
    /// # Examples
    ///
    /// ```
    /// # let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    /// let notify = tokio::sync::Notify::new();
    /// let (first, second) = (notify.notified(), notify.notified());
    /// notify.notify_waiters();
    /// rt.block_on(async { first.await; second.await });
    /// ```
    pub fn notify_waiters(&self) {
        self.0.notify_waiters();
    }
}

impl From<rt::sync::Notify> for Notify {
    fn from(notify: rt::sync::Notify) -> Notify {
        Notify(notify)
    }
}

impl From<Notify> for rt::sync::Notify {
    fn from(notify: Notify) -> rt::sync::Notify {
        notify.0
    }
}

impl fmt::Debug for Notify {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

pin_project! {
    /// The future of [`Notify::notified`]: rt's, `!Unpin` as tokio's is.
    ///
    /// # Examples
    ///
    /// ```
    /// # let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    /// let notify = tokio::sync::Notify::new();
    /// let mut notified = std::pin::pin!(notify.notified());
    /// assert!(!notified.as_mut().enable());
    /// notify.notify_one();
    /// assert!(notified.as_mut().enable());
    /// rt.block_on(notified);
    /// ```
    #[must_use = "futures do nothing unless you `.await` or poll them"]
    pub struct Notified<'a> {
        inner: rt::sync::Notified<'a>,
        #[pin]
        _pinned: PhantomPinned,
    }
}

impl Notified<'_> {
    /// Starts waiting for `notify_one` without polling; `true` if the
    /// future was notified already.
    ///
    /// # Examples
    ///
    /// See [`Notified`].
    pub fn enable(self: Pin<&mut Self>) -> bool {
        Pin::new(self.project().inner).enable()
    }
}

impl Future for Notified<'_> {
    type Output = ();

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        Pin::new(self.project().inner).poll(cx)
    }
}

impl fmt::Debug for Notified<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

pin_project! {
    /// The future of [`Notify::notified_owned`]: rt's, `!Unpin` as tokio's
    /// is.
    ///
    /// # Examples
    ///
    /// ```
    /// # let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    /// use std::sync::Arc;
    ///
    /// let notify = Arc::new(tokio::sync::Notify::new());
    /// let mut notified = Box::pin(notify.clone().notified_owned());
    /// assert!(!notified.as_mut().enable());
    /// notify.notify_one();
    /// assert!(notified.as_mut().enable());
    /// rt.block_on(notified);
    /// ```
    #[must_use = "futures do nothing unless you `.await` or poll them"]
    pub struct OwnedNotified {
        inner: rt::sync::OwnedNotified,
        #[pin]
        _pinned: PhantomPinned,
    }
}

impl OwnedNotified {
    /// [`Notified::enable`] for the owned future.
    ///
    /// # Examples
    ///
    /// See [`OwnedNotified`].
    pub fn enable(self: Pin<&mut Self>) -> bool {
        Pin::new(self.project().inner).enable()
    }
}

impl Future for OwnedNotified {
    type Output = ();

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        Pin::new(self.project().inner).poll(cx)
    }
}

impl fmt::Debug for OwnedNotified {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}
