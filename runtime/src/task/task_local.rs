//! Task-local values: `task_local!` and `LocalKey`.
//!
//! A task-local value belongs to a future, not to a thread: a task moves
//! between worker threads at every `.await`, so the value cannot simply
//! live in a thread-local. Instead each key is backed by a thread-local
//! slot that holds the value only while the future that owns it is being
//! polled:
//! 1. `LocalKey::scope(value, future)` keeps `value` inside the returned
//!    `TaskLocalFuture`;
//! 2. each poll swaps the value into the current thread's slot, polls the
//!    inner future, and swaps it back out, through a guard, so the slot is
//!    restored even when the poll panics;
//! 3. a nested scope of the same key does the same, saving the outer value
//!    and restoring it when its poll ends;
//! 4. dropping a `TaskLocalFuture` before it finished drops the inner
//!    future inside the scope too, so its destructors see the value
//!    (outside it where the scope cannot be entered: inside `with` of the
//!    same key, or while the thread's thread-locals are destroyed).
//!
//! Nothing here touches the scheduler: a task spawned from inside a scope
//! is a separate future and sees the value only if it is scoped there too.

use pin_project_lite::pin_project;
use std::cell::RefCell;
use std::error::Error;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// Declares task-local keys: values set for the duration of one future
/// (through [`LocalKey::scope`]) and visible to everything that future
/// runs, across `.await` points and worker threads.
///
/// Each declaration becomes a `static` [`LocalKey`]. Attributes and
/// visibility are kept. Keys have no initial value: reading one outside a
/// scope is an error ([`LocalKey::try_with`]) or a panic
/// ([`LocalKey::with`]).
///
/// # Examples
///
/// ```
/// rt::task_local! {
///     pub static REQUEST_ID: u64;
///     static USER: String;
/// }
///
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(REQUEST_ID.scope(7, async {
///     rt::task::yield_now().await;
///     assert_eq!(REQUEST_ID.get(), 7);
///     assert!(USER.try_with(|user| user.len()).is_err());
/// }));
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

/// One key of [`task_local!`]: a `static LocalKey` over a thread-local slot.
#[doc(hidden)]
#[macro_export]
macro_rules! __task_local_key {
    ($(#[$attr:meta])* $vis:vis $name:ident, $t:ty) => {
        $(#[$attr])*
        $vis static $name: $crate::task::LocalKey<$t> = $crate::__task_local_key_value!($t);
    };
}

/// The constant value of one `LocalKey<$t>` with its own thread-local
/// slot: the initialiser of [`task_local!`]'s statics, and of the tokio
/// facade's (which wraps it in tokio's `LocalKey`).
#[doc(hidden)]
#[macro_export]
macro_rules! __task_local_key_value {
    ($t:ty) => {{
        ::std::thread_local! {
            static __RT_TASK_LOCAL_SLOT: ::std::cell::RefCell<::std::option::Option<$t>> =
                const { ::std::cell::RefCell::new(::std::option::Option::None) };
        }
        $crate::task::LocalKey {
            __slot: __RT_TASK_LOCAL_SLOT,
        }
    }};
}

/// A key for a task-local value, declared with [`task_local!`].
///
/// The value is set for the duration of a future with [`scope`] (or of a
/// closure with [`sync_scope`]) and read inside it with [`with`],
/// [`try_with`] or [`get`]. It follows the future, not the thread: it is
/// there at every poll, on whichever worker polls it, and nowhere else.
///
/// [`scope`]: LocalKey::scope
/// [`sync_scope`]: LocalKey::sync_scope
/// [`with`]: LocalKey::with
/// [`try_with`]: LocalKey::try_with
/// [`get`]: LocalKey::get
///
/// # Examples
///
/// ```
/// rt::task_local! {
///     static DEPTH: u32;
/// }
///
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(DEPTH.scope(1, async {
///     assert_eq!(DEPTH.get(), 1);
///     DEPTH.scope(2, async { assert_eq!(DEPTH.get(), 2) }).await;
///     assert_eq!(DEPTH.get(), 1);
/// }));
/// ```
pub struct LocalKey<T: 'static> {
    /// The thread-local slot holding the value while a scope runs. Public
    /// only for the macro; not part of the API.
    #[doc(hidden)]
    pub __slot: std::thread::LocalKey<RefCell<Option<T>>>,
}

impl<T: 'static> LocalKey<T> {
    /// Runs `future` with the key set to `value`: every poll of the
    /// returned future sees the value, whichever thread polls it.
    ///
    /// # Panics
    ///
    /// Polling the returned future panics if the key is borrowed by a
    /// [`with`](LocalKey::with) call on the same thread at that moment
    /// (a scope opened inside `with`'s closure).
    ///
    /// # Examples
    ///
    /// ```
    /// rt::task_local! {
    ///     static NAME: &'static str;
    /// }
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let name = rt.block_on(NAME.scope("worker", async {
    ///     rt::task::yield_now().await;
    ///     NAME.get()
    /// }));
    /// assert_eq!(name, "worker");
    /// ```
    pub fn scope<F: Future>(&'static self, value: T, future: F) -> TaskLocalFuture<T, F> {
        TaskLocalFuture {
            key: self,
            value: Some(value),
            future: Some(future),
        }
    }

    /// Runs the closure `f` with the key set to `value`, and restores the
    /// previous value (if any) when it returns or panics.
    ///
    /// # Panics
    ///
    /// Panics if called inside a [`with`](LocalKey::with) closure of the
    /// same key, and propagates a panic of `f`.
    ///
    /// # Examples
    ///
    /// ```
    /// rt::task_local! {
    ///     static LIMIT: usize;
    /// }
    ///
    /// let doubled = LIMIT.sync_scope(21, || LIMIT.get() * 2);
    /// assert_eq!(doubled, 42);
    /// assert!(LIMIT.try_with(|_| ()).is_err());
    /// ```
    #[track_caller]
    pub fn sync_scope<F, R>(&'static self, value: T, f: F) -> R
    where
        F: FnOnce() -> R,
    {
        let mut value = Some(value);
        self.enter(&mut value, f)
    }

    /// Runs `f` with a reference to the value.
    ///
    /// # Panics
    ///
    /// Panics when the key is not set (outside any scope of it), naming
    /// the key's scopes as the fix; use [`try_with`](LocalKey::try_with)
    /// where that can happen.
    ///
    /// # Examples
    ///
    /// ```
    /// rt::task_local! {
    ///     static TAGS: Vec<&'static str>;
    /// }
    ///
    /// let count = TAGS.sync_scope(vec!["a", "b"], || TAGS.with(|tags| tags.len()));
    /// assert_eq!(count, 2);
    /// ```
    #[track_caller]
    pub fn with<F, R>(&'static self, f: F) -> R
    where
        F: FnOnce(&T) -> R,
    {
        match self.try_with(f) {
            Ok(result) => result,
            Err(_) => panic!(
                "rt: a task-local value was read outside its scope: this key has no value in \
                 the running task. Set it with `LocalKey::scope(value, future)` around the future \
                 that reads it (or `LocalKey::sync_scope` around a closure), or use \
                 `LocalKey::try_with` where it may be unset; a spawned task does not inherit \
                 the values of the task that spawned it"
            ),
        }
    }

    /// Runs `f` with a reference to the value, or returns an error when the
    /// key is not set.
    ///
    /// # Errors
    ///
    /// Returns [`AccessError`] outside any scope of this key (or while the
    /// thread is being torn down).
    ///
    /// # Examples
    ///
    /// ```
    /// rt::task_local! {
    ///     static TRACE: u128;
    /// }
    ///
    /// assert!(TRACE.try_with(|id| *id).is_err());
    /// assert_eq!(TRACE.sync_scope(5, || TRACE.try_with(|id| *id)).unwrap(), 5);
    /// ```
    pub fn try_with<F, R>(&'static self, f: F) -> Result<R, AccessError>
    where
        F: FnOnce(&T) -> R,
    {
        // A borrow fails only while a scope of this key is being entered
        // or left on this thread, when no value is readable anyway.
        let result = self.__slot.try_with(|slot| match slot.try_borrow() {
            Ok(value) => value.as_ref().map(f),
            Err(_) => None,
        });
        match result {
            Ok(Some(result)) => Ok(result),
            _ => Err(AccessError(())),
        }
    }

    /// Puts `slot`'s value into the thread-local for the duration of `f`,
    /// then puts the thread-local's value back into `slot` (steps 2 and 3
    /// of the module docs).
    ///
    /// # Panics
    ///
    /// When the scope cannot be entered; see [`ScopeError`].
    #[track_caller]
    fn enter<R>(&'static self, slot: &mut Option<T>, f: impl FnOnce() -> R) -> R {
        match self.try_enter(slot, f) {
            Ok(result) => result,
            Err(error) => error.panic(),
        }
    }

    /// `enter`, or the reason the scope cannot be entered (then `f` is not
    /// called).
    fn try_enter<R>(
        &'static self,
        slot: &mut Option<T>,
        f: impl FnOnce() -> R,
    ) -> Result<R, ScopeError> {
        struct Restore<'a, T: 'static> {
            key: &'static LocalKey<T>,
            slot: &'a mut Option<T>,
        }
        impl<T: 'static> Drop for Restore<'_, T> {
            fn drop(&mut self) {
                // Entering succeeded, so the thread-local is alive and no
                // borrow of it outlives `f`.
                self.key
                    .__slot
                    .with(|current| std::mem::swap(self.slot, &mut *current.borrow_mut()));
            }
        }

        let entered = self
            .__slot
            .try_with(|current| match current.try_borrow_mut() {
                Ok(mut current) => {
                    std::mem::swap(slot, &mut *current);
                    Ok(())
                }
                Err(_) => Err(ScopeError::Borrowed),
            });
        match entered {
            Ok(Ok(())) => {}
            Ok(Err(error)) => return Err(error),
            Err(_) => return Err(ScopeError::Destroyed),
        }
        let _restore = Restore { key: self, slot };
        Ok(f())
    }
}

/// Why a task-local scope could not be entered.
#[derive(Debug)]
enum ScopeError {
    /// `LocalKey::with` of the same key is running on this thread.
    Borrowed,
    /// This thread's thread-locals are being destroyed.
    Destroyed,
}

impl ScopeError {
    #[track_caller]
    fn panic(self) -> ! {
        match self {
            ScopeError::Borrowed => panic!(
                "rt: a task-local scope was entered while the same key is borrowed by \
                 `LocalKey::with` on this thread; open the scope outside the `with` closure"
            ),
            ScopeError::Destroyed => panic!(
                "rt: a task-local scope was entered while this thread's thread-locals are \
                 being destroyed"
            ),
        }
    }
}

impl<T: Clone + 'static> LocalKey<T> {
    /// A copy of the value.
    ///
    /// # Panics
    ///
    /// Panics when the key is not set, as [`with`](LocalKey::with) does.
    ///
    /// # Examples
    ///
    /// ```
    /// rt::task_local! {
    ///     static ATTEMPT: u8;
    /// }
    ///
    /// assert_eq!(ATTEMPT.sync_scope(3, || ATTEMPT.get()), 3);
    /// ```
    #[track_caller]
    pub fn get(&'static self) -> T {
        self.with(T::clone)
    }

    /// A copy of the value, or an error when the key is not set, as
    /// [`try_with`](LocalKey::try_with) does.
    ///
    /// # Errors
    ///
    /// [`AccessError`] outside a [`scope`](LocalKey::scope) or
    /// [`sync_scope`](LocalKey::sync_scope) of this key.
    ///
    /// # Examples
    ///
    /// ```
    /// rt::task_local! {
    ///     static REQUEST_ID: u64;
    /// }
    ///
    /// assert!(REQUEST_ID.try_get().is_err());
    /// assert_eq!(REQUEST_ID.sync_scope(7, || REQUEST_ID.try_get()), Ok(7));
    /// ```
    pub fn try_get(&'static self) -> Result<T, AccessError> {
        self.try_with(T::clone)
    }
}

impl<T: 'static> fmt::Debug for LocalKey<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad("LocalKey { .. }")
    }
}

pin_project! {
    /// A future with a task-local value set around each of its polls;
    /// returned by [`LocalKey::scope`].
    ///
    /// # Examples
    ///
    /// ```
    /// rt::task_local! {
    ///     static ROUND: u32;
    /// }
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let scoped: rt::task::TaskLocalFuture<u32, _> = ROUND.scope(9, async { ROUND.get() });
    /// assert_eq!(rt.block_on(scoped), 9);
    /// ```
    pub struct TaskLocalFuture<T, F>
    where
        T: 'static,
    {
        key: &'static LocalKey<T>,
        value: Option<T>,
        #[pin]
        future: Option<F>,
    }

    impl<T, F> PinnedDrop for TaskLocalFuture<T, F>
    where
        T: 'static,
    {
        fn drop(this: Pin<&mut Self>) {
            let this = this.project();
            let mut future = this.future;
            if future.is_some() {
                // Step 4: the future's destructors run inside the scope.
                // Set to `None` in place: it is pinned, so never moved out.
                // Where the scope cannot be entered (dropped inside `with`
                // of this key, or as the thread's thread-locals are
                // destroyed), the future is dropped with the field,
                // outside the scope, as in tokio: a panic here would abort
                // an unwinding thread.
                let _ = this.key.try_enter(this.value, || future.set(None));
            }
        }
    }
}

impl<T: 'static, F> TaskLocalFuture<T, F> {
    /// Takes the value out of the scope, leaving the key unset for later
    /// polls. `None` if it was taken already.
    ///
    /// # Examples
    ///
    /// ```
    /// rt::task_local! {
    ///     static TOKEN: String;
    /// }
    ///
    /// let mut scoped = std::pin::pin!(TOKEN.scope("secret".to_owned(), async {}));
    /// assert_eq!(scoped.as_mut().take_value().as_deref(), Some("secret"));
    /// assert_eq!(scoped.as_mut().take_value(), None);
    /// ```
    pub fn take_value(self: Pin<&mut Self>) -> Option<T> {
        self.project().value.take()
    }
}

impl<T: 'static, F: Future> Future for TaskLocalFuture<T, F> {
    type Output = F::Output;

    #[track_caller]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.project();
        let mut future = this.future;
        let polled = this
            .key
            .enter(this.value, || match future.as_mut().as_pin_mut() {
                Some(inner) => {
                    let polled = inner.poll(cx);
                    if polled.is_ready() {
                        // Dropped inside the scope, as an unfinished one is.
                        future.set(None);
                    }
                    Some(polled)
                }
                None => None,
            });
        polled.expect("rt: `TaskLocalFuture` polled after it completed")
    }
}

impl<T: fmt::Debug + 'static, F> fmt::Debug for TaskLocalFuture<T, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskLocalFuture")
            .field("value", &self.value)
            .finish_non_exhaustive()
    }
}

/// The error of [`LocalKey::try_with`]: the key has no value here (no
/// scope of it is running on this thread).
///
/// # Examples
///
/// ```
/// rt::task_local! {
///     static UNSET: i32;
/// }
///
/// let err = UNSET.try_with(|_| ()).unwrap_err();
/// assert_eq!(err.to_string(), "task-local value not set");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AccessError(());

impl fmt::Display for AccessError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("task-local value not set")
    }
}

impl Error for AccessError {}
