//! `task_local!`, `LocalKey` and `TaskLocalFuture`: rt's task-locals in
//! tokio's shape. Newtypes only so that the future of [`LocalKey::scope`]
//! is `!Unpin` like tokio's (rt's is `Unpin` when its future is): code
//! that compiles against the facade compiles against tokio. The key still
//! is rt's (`task_local!` expands to rt's key, wrapped), so a value is
//! set and read exactly as rt does it.

use pin_project_lite::pin_project;
use rt::task::AccessError;
use std::fmt;
use std::future::Future;
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::task::{Context, Poll};

/// Declares task-local keys: values set for the duration of one future
/// (with [`LocalKey::scope`]) and visible to everything that future runs,
/// across `.await` points and worker threads. rt's `task_local!`, giving
/// tokio's [`LocalKey`].
///
/// # Examples
///
/// ```
/// # #[cfg(feature = "rt")]
/// # {
/// tokio::task_local! {
///     pub static REQUEST_ID: u64;
///     static USER: String;
/// }
///
/// let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
/// rt.block_on(REQUEST_ID.scope(7, async {
///     tokio::task::yield_now().await;
///     assert_eq!(REQUEST_ID.get(), 7);
///     assert!(USER.try_with(|user| user.len()).is_err());
/// }));
/// # }
/// ```
#[macro_export]
macro_rules! task_local {
    () => {};
    ($(#[$attr:meta])* $vis:vis static $name:ident: $t:ty; $($rest:tt)*) => {
        $crate::__task_local_key!($(#[$attr])* $vis $name, $t);
        $crate::task_local!($($rest)*);
    };
    ($(#[$attr:meta])* $vis:vis static $name:ident: $t:ty) => {
        $crate::__task_local_key!($(#[$attr])* $vis $name, $t);
    };
}

/// One key of [`task_local!`]: tokio's `LocalKey` around rt's.
#[doc(hidden)]
#[macro_export]
macro_rules! __task_local_key {
    ($(#[$attr:meta])* $vis:vis $name:ident, $t:ty) => {
        $(#[$attr])*
        $vis static $name: $crate::task::LocalKey<$t> =
            $crate::task::LocalKey::__from_rt($crate::__rt::__task_local_key_value!($t));
    };
}

/// A key for a task-local value, declared with [`task_local!`]: rt's.
///
/// # Examples
///
/// ```
/// # #[cfg(feature = "rt")]
/// # {
/// tokio::task_local! {
///     static DEPTH: u32;
/// }
///
/// let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
/// rt.block_on(DEPTH.scope(1, async {
///     assert_eq!(DEPTH.get(), 1);
///     DEPTH.scope(2, async { assert_eq!(DEPTH.get(), 2) }).await;
///     assert_eq!(DEPTH.get(), 1);
/// }));
/// # }
/// ```
pub struct LocalKey<T: 'static> {
    inner: rt::task::LocalKey<T>,
}

impl<T: 'static> LocalKey<T> {
    /// Wraps rt's key: what [`task_local!`] expands to. Not an API.
    #[doc(hidden)]
    pub const fn __from_rt(inner: rt::task::LocalKey<T>) -> LocalKey<T> {
        LocalKey { inner }
    }

    /// Runs `future` with the key set to `value`: every poll of the
    /// returned future sees it, whichever thread polls it.
    ///
    /// # Examples
    ///
    /// See [`LocalKey`].
    pub fn scope<F: Future>(&'static self, value: T, future: F) -> TaskLocalFuture<T, F> {
        TaskLocalFuture {
            inner: self.inner.scope(value, future),
            _pinned: PhantomPinned,
        }
    }

    /// Runs the closure `f` with the key set to `value`.
    ///
    /// # Panics
    ///
    /// If the key is borrowed by [`with`](LocalKey::with) on this thread.
    ///
    /// # Examples
    ///
    /// ```
    /// # #[cfg(feature = "rt")]
    /// # {
    /// tokio::task_local! {
    ///     static NAME: &'static str;
    /// }
    ///
    /// assert_eq!(NAME.sync_scope("ada", || NAME.get()), "ada");
    /// # }
    /// ```
    #[track_caller]
    pub fn sync_scope<F, R>(&'static self, value: T, f: F) -> R
    where
        F: FnOnce() -> R,
    {
        self.inner.sync_scope(value, f)
    }

    /// Calls `f` with a reference to the value.
    ///
    /// # Panics
    ///
    /// Outside a scope of this key (use [`try_with`](LocalKey::try_with)
    /// where it may be unset).
    ///
    /// # Examples
    ///
    /// ```
    /// # #[cfg(feature = "rt")]
    /// # {
    /// tokio::task_local! {
    ///     static NAME: String;
    /// }
    ///
    /// let len = NAME.sync_scope("ada".to_owned(), || NAME.with(|name| name.len()));
    /// assert_eq!(len, 3);
    /// # }
    /// ```
    #[track_caller]
    pub fn with<F, R>(&'static self, f: F) -> R
    where
        F: FnOnce(&T) -> R,
    {
        self.inner.with(f)
    }

    /// Calls `f` with a reference to the value, if the key is set.
    ///
    /// # Errors
    ///
    /// [`AccessError`] outside a scope of this key.
    ///
    /// # Examples
    ///
    /// ```
    /// # #[cfg(feature = "rt")]
    /// # {
    /// tokio::task_local! {
    ///     static NAME: String;
    /// }
    ///
    /// assert!(NAME.try_with(|name| name.len()).is_err());
    /// # }
    /// ```
    pub fn try_with<F, R>(&'static self, f: F) -> Result<R, AccessError>
    where
        F: FnOnce(&T) -> R,
    {
        self.inner.try_with(f)
    }
}

impl<T: Clone + 'static> LocalKey<T> {
    /// A copy of the value.
    ///
    /// # Panics
    ///
    /// Outside a scope of this key.
    ///
    /// # Examples
    ///
    /// See [`LocalKey`].
    #[track_caller]
    pub fn get(&'static self) -> T {
        self.inner.get()
    }

    /// A copy of the value, if the key is set.
    ///
    /// # Errors
    ///
    /// [`AccessError`] outside a scope of this key.
    ///
    /// # Examples
    ///
    /// ```
    /// # #[cfg(feature = "rt")]
    /// # {
    /// tokio::task_local! {
    ///     static ROUND: u32;
    /// }
    ///
    /// assert!(ROUND.try_get().is_err());
    /// assert_eq!(ROUND.sync_scope(3, || ROUND.try_get()), Ok(3));
    /// # }
    /// ```
    pub fn try_get(&'static self) -> Result<T, AccessError> {
        self.inner.try_get()
    }
}

impl<T: 'static> fmt::Debug for LocalKey<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

pin_project! {
    /// The future of [`LocalKey::scope`]: rt's, `!Unpin` as tokio's is.
    ///
    /// # Examples
    ///
    /// ```
    /// # #[cfg(feature = "rt")]
    /// # {
    /// tokio::task_local! {
    ///     static TOKEN: String;
    /// }
    ///
    /// let mut scoped = std::pin::pin!(TOKEN.scope("secret".to_owned(), async {}));
    /// assert_eq!(scoped.as_mut().take_value().as_deref(), Some("secret"));
    /// assert_eq!(scoped.as_mut().take_value(), None);
    /// # }
    /// ```
    #[must_use = "futures do nothing unless you `.await` or poll them"]
    pub struct TaskLocalFuture<T, F>
    where
        T: 'static,
    {
        #[pin]
        inner: rt::task::TaskLocalFuture<T, F>,
        #[pin]
        _pinned: PhantomPinned,
    }
}

impl<T: 'static, F> TaskLocalFuture<T, F> {
    /// Takes the value out of the scope, leaving the key unset for later
    /// polls; `None` if it was taken already.
    ///
    /// # Examples
    ///
    /// See [`TaskLocalFuture`].
    pub fn take_value(self: Pin<&mut Self>) -> Option<T> {
        self.project().inner.take_value()
    }
}

impl<T: 'static, F: Future> Future for TaskLocalFuture<T, F> {
    type Output = F::Output;

    #[inline]
    #[track_caller]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        self.project().inner.poll(cx)
    }
}

impl<T: fmt::Debug + 'static, F> fmt::Debug for TaskLocalFuture<T, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}
