//! `SetOnce`: a value set once, by anyone, that tasks can wait for.
//!
//! The value lives in a [`OnceValue`] (which can be built holding a value
//! in a `const` context, for [`SetOnce::const_new_with`]). `set` checks
//! and stores it under the [`Waiters`] lock, which makes it the only
//! writer, then wakes every task waiting in `wait`; a waiting task checks
//! the value under the same lock before it registers, so a `set` cannot
//! slip between its check and its registration.

use super::once_value::OnceValue;
use super::once_waiters::{Waiter, Waiters};
use std::error::Error;
use std::fmt;
use std::future::poll_fn;

/// A value set at most once, that any number of tasks can
/// [`wait`](SetOnce::wait) for: a one-shot broadcast of a result (a
/// server's bound address, a shutdown reason) that late readers still
/// see.
///
/// Unlike [`OnceCell`](super::OnceCell), nobody initialises it on demand:
/// a producer [`set`](SetOnce::set)s it, consumers wait.
///
/// # Examples
///
/// ```
/// use rt::sync::SetOnce;
/// use std::sync::Arc;
///
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let addr = Arc::new(SetOnce::new());
/// let waiters: Vec<_> = (0..3)
///     .map(|_| {
///         let addr = addr.clone();
///         rt::spawn(async move { *addr.wait().await })
///     })
///     .collect();
/// addr.set(8080).unwrap();
/// for waiter in waiters {
///     assert_eq!(waiter.await.unwrap(), 8080);
/// }
/// assert!(addr.set(9090).is_err());
/// # });
/// ```
pub struct SetOnce<T> {
    value: OnceValue<T>,
    waiters: Waiters<()>,
}

/// The error of [`SetOnce::set`] on a value that was already set: the
/// value that was not stored.
///
/// # Examples
///
/// ```
/// let once = rt::sync::SetOnce::new_with(Some(1));
/// let rt::sync::SetOnceError(rejected) = once.set(2).unwrap_err();
/// assert_eq!(rejected, 2);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SetOnceError<T>(pub T);

impl<T> fmt::Display for SetOnceError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the `SetOnce` was already set")
    }
}

impl<T: fmt::Debug> Error for SetOnceError<T> {}

impl<T> SetOnce<T> {
    /// An unset `SetOnce`.
    ///
    /// # Examples
    ///
    /// ```
    /// let once = rt::sync::SetOnce::<u8>::new();
    /// assert!(!once.initialized());
    /// ```
    pub fn new() -> SetOnce<T> {
        SetOnce {
            value: OnceValue::new(),
            waiters: Waiters::new(()),
        }
    }

    /// An unset `SetOnce`, in a `const` context (a `static`).
    ///
    /// # Examples
    ///
    /// ```
    /// static READY: rt::sync::SetOnce<()> = rt::sync::SetOnce::const_new();
    /// READY.set(()).unwrap();
    /// assert!(READY.initialized());
    /// ```
    #[cfg(not(loom))]
    pub const fn const_new() -> SetOnce<T> {
        SetOnce {
            value: OnceValue::new(),
            waiters: Waiters::new(()),
        }
    }

    /// A `SetOnce` holding `value`, in a `const` context (a `static`).
    ///
    /// # Examples
    ///
    /// ```
    /// static MODE: rt::sync::SetOnce<&str> = rt::sync::SetOnce::const_new_with("fast");
    /// assert_eq!(MODE.get(), Some(&"fast"));
    /// assert!(MODE.set("slow").is_err());
    /// ```
    #[cfg(not(loom))]
    pub const fn const_new_with(value: T) -> SetOnce<T> {
        SetOnce {
            value: OnceValue::new_with(value),
            waiters: Waiters::new(()),
        }
    }

    /// A `SetOnce` holding `value`, or an unset one for `None`.
    ///
    /// # Examples
    ///
    /// ```
    /// let once = rt::sync::SetOnce::new_with(Some('x'));
    /// assert_eq!(once.get(), Some(&'x'));
    /// ```
    pub fn new_with(value: Option<T>) -> SetOnce<T> {
        let once = SetOnce::new();
        if let Some(value) = value {
            // SAFETY: `once` was just made, empty, and is not shared.
            unsafe { once.value.write(value) };
        }
        once
    }

    /// Whether the value is set.
    ///
    /// # Examples
    ///
    /// See [`SetOnce::new`].
    ///
    /// ```
    /// let once = rt::sync::SetOnce::new();
    /// once.set(1).unwrap();
    /// assert!(once.initialized());
    /// ```
    pub fn initialized(&self) -> bool {
        self.value.get().is_some()
    }

    /// The value, if set.
    ///
    /// # Examples
    ///
    /// ```
    /// let once = rt::sync::SetOnce::new();
    /// assert_eq!(once.get(), None);
    /// once.set("done").unwrap();
    /// assert_eq!(once.get(), Some(&"done"));
    /// ```
    pub fn get(&self) -> Option<&T> {
        self.value.get()
    }

    /// Sets the value and wakes every task waiting for it.
    ///
    /// # Errors
    ///
    /// [`SetOnceError`] with `value` if the value was already set.
    ///
    /// # Examples
    ///
    /// ```
    /// let once = rt::sync::SetOnce::new();
    /// assert!(once.set(1).is_ok());
    /// assert_eq!(once.set(2), Err(rt::sync::SetOnceError(2)));
    /// ```
    pub fn set(&self, value: T) -> Result<(), SetOnceError<T>> {
        self.waiters.with_state(|()| {
            if self.value.get().is_some() {
                return Err(SetOnceError(value));
            }
            // SAFETY: under the waiters lock, which every writer takes, and
            // with the value unset (checked under it just now).
            unsafe { self.value.write(value) };
            Ok(())
        })?;
        self.waiters.update_and_wake_all(|()| ());
        Ok(())
    }

    /// Waits until the value is set, then returns it. Cancel safe.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let once = Arc::new(rt::sync::SetOnce::new());
    /// let setter = rt::spawn({
    ///     let once = once.clone();
    ///     async move { once.set(String::from("ready")).unwrap() }
    /// });
    /// assert_eq!(once.wait().await, "ready");
    /// setter.await.unwrap();
    /// # });
    /// ```
    pub async fn wait(&self) -> &T {
        if let Some(value) = self.get() {
            return value;
        }
        let mut waiter = Waiter::new(&self.waiters);
        poll_fn(|cx| waiter.poll(cx, |()| self.value.get())).await
    }

    /// The value, if set, consuming the `SetOnce`.
    ///
    /// # Examples
    ///
    /// ```
    /// let once = rt::sync::SetOnce::new_with(Some(vec![1]));
    /// assert_eq!(once.into_inner(), Some(vec![1]));
    /// ```
    pub fn into_inner(mut self) -> Option<T> {
        self.value.take()
    }
}

impl<T> Default for SetOnce<T> {
    fn default() -> SetOnce<T> {
        SetOnce::new()
    }
}

impl<T> From<T> for SetOnce<T> {
    fn from(value: T) -> SetOnce<T> {
        SetOnce::new_with(Some(value))
    }
}

/// A new cell holding a clone of the value, if set (no waiters), as
/// tokio's `SetOnce` clones.
impl<T: Clone> Clone for SetOnce<T> {
    fn clone(&self) -> SetOnce<T> {
        SetOnce::new_with(self.get().cloned())
    }
}

/// Compares the values (`None` while unset), as tokio's `SetOnce` does.
impl<T: PartialEq> PartialEq for SetOnce<T> {
    fn eq(&self, other: &SetOnce<T>) -> bool {
        self.get() == other.get()
    }
}

impl<T: Eq> Eq for SetOnce<T> {}

impl<T: fmt::Debug> fmt::Debug for SetOnce<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SetOnce")
            .field("value", &self.get())
            .finish()
    }
}
