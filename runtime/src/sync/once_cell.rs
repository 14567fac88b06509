//! `OnceCell`: a value initialised once by an async function, by whichever
//! task asks first.
//!
//! The value lives in a [`OnceValue`] (reading it is one atomic load; it
//! can be built holding a value in a `const` context, for
//! [`OnceCell::const_new_with`]); who may run the initialiser, the only
//! one who writes the value, is decided under the [`Waiters`] lock:
//!
//! 1. `get_or_init` returns the value if it is set;
//! 2. otherwise it waits for the *turn*: the flag `initializing` is false
//!    (it sets it) or the value is set (it returns the value);
//! 3. with the turn, it runs the initialiser; an [`InitTurn`] guard gives
//!    the turn back when it is dropped, so an initialiser that fails, or
//!    whose future is dropped mid-way (cancelled), lets the next waiter
//!    take over;
//! 4. on success it stores the value, then the guard clears the flag and
//!    wakes every waiter, which now find the value.

use super::once_value::OnceValue;
use super::once_waiters::{Waiter, Waiters};
use std::error::Error;
use std::fmt;
use std::future::{Future, poll_fn};

/// A cell written once, by an async initialiser, then read by reference
/// forever: for a lazily-made shared resource (a connection pool, a loaded
/// configuration), including in a `static` (see
/// [`const_new`](OnceCell::const_new)).
///
/// Many tasks may call [`get_or_init`](OnceCell::get_or_init) at once: one
/// runs its initialiser, the others wait and then share its value. If that
/// initialiser fails ([`get_or_try_init`](OnceCell::get_or_try_init)) or
/// its task is cancelled, one of the waiting tasks runs its own
/// initialiser instead. Reading a set value is one atomic load.
///
/// # Examples
///
/// ```
/// use rt::sync::OnceCell;
///
/// static CONFIG: OnceCell<String> = OnceCell::const_new();
///
/// async fn config() -> &'static str {
///     CONFIG
///         .get_or_init(|| async {
///             // e.g. read a file, once.
///             "port=8080".to_owned()
///         })
///         .await
/// }
///
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let readers: Vec<_> = (0..4).map(|_| rt::spawn(config())).collect();
/// for reader in readers {
///     assert_eq!(reader.await.unwrap(), "port=8080");
/// }
/// # });
/// ```
pub struct OnceCell<T> {
    value: OnceValue<T>,
    /// `true` while a task holds the turn to initialise.
    initializing: Waiters<bool>,
}

/// The error of [`OnceCell::set`]: the cell was already set, or another
/// task is initialising it. Either way the value comes back.
///
/// # Examples
///
/// ```
/// use rt::sync::{OnceCell, SetError};
///
/// let cell = OnceCell::new_with(Some(1));
/// let err = cell.set(2).unwrap_err();
/// assert!(err.is_already_init_err());
/// assert!(matches!(err, SetError::AlreadyInitializedError(2)));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetError<T> {
    /// The cell already held a value.
    AlreadyInitializedError(T),
    /// Another task was running an initialiser.
    InitializingError(T),
}

impl<T> SetError<T> {
    /// Whether the cell already held a value.
    ///
    /// # Examples
    ///
    /// See [`SetError`].
    ///
    /// ```
    /// let err = rt::sync::SetError::AlreadyInitializedError(());
    /// assert!(err.is_already_init_err() && !err.is_initializing_err());
    /// ```
    pub fn is_already_init_err(&self) -> bool {
        matches!(self, SetError::AlreadyInitializedError(_))
    }

    /// Whether another task was initialising the cell.
    ///
    /// # Examples
    ///
    /// ```
    /// let err = rt::sync::SetError::InitializingError(());
    /// assert!(err.is_initializing_err());
    /// ```
    pub fn is_initializing_err(&self) -> bool {
        matches!(self, SetError::InitializingError(_))
    }

    /// The value that was not stored.
    ///
    /// # Examples
    ///
    /// ```
    /// let err = rt::sync::SetError::InitializingError(5);
    /// assert_eq!(err.into_value(), 5);
    /// ```
    pub fn into_value(self) -> T {
        match self {
            SetError::AlreadyInitializedError(value) | SetError::InitializingError(value) => value,
        }
    }
}

impl<T> fmt::Display for SetError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SetError::AlreadyInitializedError(_) => "the `OnceCell` already holds a value",
            SetError::InitializingError(_) => "another task is initialising the `OnceCell`",
        })
    }
}

impl<T: fmt::Debug> Error for SetError<T> {}

/// The turn to initialise (step 3): gives it back and wakes every waiter
/// when dropped, whether the value was stored or not.
struct InitTurn<'a> {
    initializing: &'a Waiters<bool>,
}

impl Drop for InitTurn<'_> {
    fn drop(&mut self) {
        self.initializing
            .update_and_wake_all(|initializing| *initializing = false);
    }
}

impl<T> OnceCell<T> {
    /// An empty cell.
    ///
    /// # Examples
    ///
    /// ```
    /// let cell = rt::sync::OnceCell::<u8>::new();
    /// assert!(cell.get().is_none());
    /// ```
    pub fn new() -> OnceCell<T> {
        OnceCell {
            value: OnceValue::new(),
            initializing: Waiters::new(false),
        }
    }

    /// An empty cell, in a `const` context (a `static`).
    ///
    /// # Examples
    ///
    /// ```
    /// static CELL: rt::sync::OnceCell<u32> = rt::sync::OnceCell::const_new();
    /// assert!(!CELL.initialized());
    /// ```
    #[cfg(not(loom))]
    pub const fn const_new() -> OnceCell<T> {
        OnceCell {
            value: OnceValue::new(),
            initializing: Waiters::new(false),
        }
    }

    /// A cell holding `value`, in a `const` context (a `static` that starts
    /// initialised).
    ///
    /// # Examples
    ///
    /// ```
    /// static PORT: rt::sync::OnceCell<u16> = rt::sync::OnceCell::const_new_with(8080);
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// // Already set: the initialiser does not run.
    /// assert_eq!(*PORT.get_or_init(|| async { unreachable!() }).await, 8080);
    /// assert!(PORT.set(1).unwrap_err().is_already_init_err());
    /// # });
    /// ```
    #[cfg(not(loom))]
    pub const fn const_new_with(value: T) -> OnceCell<T> {
        OnceCell {
            value: OnceValue::new_with(value),
            initializing: Waiters::new(false),
        }
    }

    /// A cell holding `value`, or an empty one for `None`.
    ///
    /// # Examples
    ///
    /// ```
    /// let cell = rt::sync::OnceCell::new_with(Some("set"));
    /// assert_eq!(cell.get(), Some(&"set"));
    /// ```
    pub fn new_with(value: Option<T>) -> OnceCell<T> {
        let cell = OnceCell::new();
        if let Some(value) = value {
            // SAFETY: the cell was just made, empty, and is not shared.
            unsafe { cell.value.write(value) };
        }
        cell
    }

    /// Whether the cell holds a value.
    ///
    /// # Examples
    ///
    /// ```
    /// let cell = rt::sync::OnceCell::new();
    /// assert!(!cell.initialized());
    /// cell.set(1).unwrap();
    /// assert!(cell.initialized());
    /// ```
    pub fn initialized(&self) -> bool {
        self.value.get().is_some()
    }

    /// The value, if set.
    ///
    /// # Examples
    ///
    /// ```
    /// let cell = rt::sync::OnceCell::new();
    /// assert_eq!(cell.get(), None);
    /// cell.set(3).unwrap();
    /// assert_eq!(cell.get(), Some(&3));
    /// ```
    pub fn get(&self) -> Option<&T> {
        self.value.get()
    }

    /// The value, mutably, if set.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut cell = rt::sync::OnceCell::new_with(Some(1));
    /// *cell.get_mut().unwrap() += 1;
    /// assert_eq!(cell.get(), Some(&2));
    /// ```
    pub fn get_mut(&mut self) -> Option<&mut T> {
        self.value.get_mut()
    }

    /// Sets the value, unless the cell holds one or another task is
    /// initialising it.
    ///
    /// # Errors
    ///
    /// [`SetError::AlreadyInitializedError`] or
    /// [`SetError::InitializingError`], with `value`.
    ///
    /// # Examples
    ///
    /// ```
    /// let cell = rt::sync::OnceCell::new();
    /// assert!(cell.set(1).is_ok());
    /// assert_eq!(cell.set(2).unwrap_err().into_value(), 2);
    /// assert_eq!(cell.get(), Some(&1));
    /// ```
    pub fn set(&self, value: T) -> Result<(), SetError<T>> {
        let taken = self.initializing.with_state(|initializing| {
            if *initializing {
                Err(SetError::InitializingError(()))
            } else if self.initialized() {
                Err(SetError::AlreadyInitializedError(()))
            } else {
                *initializing = true;
                Ok(())
            }
        });
        match taken {
            Ok(()) => {
                let _turn = InitTurn {
                    initializing: &self.initializing,
                };
                // SAFETY: this caller holds the turn, so no one else writes,
                // and the value was unset when it took the turn (checked
                // under the lock above); only the turn holder sets it.
                unsafe { self.value.write(value) };
                Ok(())
            }
            Err(SetError::InitializingError(())) => Err(SetError::InitializingError(value)),
            Err(SetError::AlreadyInitializedError(())) => {
                Err(SetError::AlreadyInitializedError(value))
            }
        }
    }

    /// The value, running `f` to make it if the cell is empty.
    ///
    /// Only one caller runs its `f` at a time; the others wait for its
    /// value. If the future running `f` is dropped before it finishes (its
    /// task was cancelled, or it lost a `select!`), a waiting caller runs
    /// its own `f` instead. Cancel safe: dropping this future gives up its
    /// place (and its turn, if it had it) and changes nothing else.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::sync::OnceCell;
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let calls = AtomicUsize::new(0);
    /// let cell = OnceCell::new();
    /// for _ in 0..3 {
    ///     let value = cell
    ///         .get_or_init(|| async {
    ///             calls.fetch_add(1, Ordering::SeqCst);
    ///             42
    ///         })
    ///         .await;
    ///     assert_eq!(*value, 42);
    /// }
    /// assert_eq!(calls.load(Ordering::SeqCst), 1);
    /// # });
    /// ```
    pub async fn get_or_init<F, Fut>(&self, f: F) -> &T
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = T>,
    {
        match self
            .get_or_try_init(|| async { Ok::<T, std::convert::Infallible>(f().await) })
            .await
        {
            Ok(value) => value,
            Err(infallible) => match infallible {},
        }
    }

    /// The value, running `f` to make it if the cell is empty; an `Err`
    /// from `f` leaves the cell empty (the next caller, or a waiting one,
    /// tries its own `f`).
    ///
    /// Otherwise as [`get_or_init`](OnceCell::get_or_init).
    ///
    /// # Errors
    ///
    /// The error of this caller's `f`.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::sync::OnceCell;
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let cell = OnceCell::new();
    /// let failed = cell.get_or_try_init(|| async { "x".parse::<u32>() }).await;
    /// assert!(failed.is_err());
    /// assert!(!cell.initialized());
    /// let value = cell.get_or_try_init(|| async { "7".parse::<u32>() }).await;
    /// assert_eq!(value, Ok(&7));
    /// # });
    /// ```
    pub async fn get_or_try_init<E, F, Fut>(&self, f: F) -> Result<&T, E>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<T, E>>,
    {
        if let Some(value) = self.get() {
            return Ok(value);
        }
        let Some(turn) = self.wait_for_turn().await else {
            return Ok(self
                .value
                .get()
                .expect("rt: `OnceCell` woken without a value"));
        };
        let value = f().await?;
        // SAFETY: this caller holds the turn, so no one else writes, and
        // `wait_for_turn` gave it only with the value unset; only the turn
        // holder sets it.
        unsafe { self.value.write(value) };
        drop(turn);
        Ok(self.value.get().expect("rt: `OnceCell` value just stored"))
    }

    /// Step 2: `Some(turn)` to run an initialiser, or `None` once the value
    /// is set.
    async fn wait_for_turn(&self) -> Option<InitTurn<'_>> {
        let mut waiter = Waiter::new(&self.initializing);
        let value = &self.value;
        let turn = poll_fn(|cx| {
            waiter.poll(cx, |initializing| {
                if value.get().is_some() {
                    Some(false)
                } else if *initializing {
                    None
                } else {
                    *initializing = true;
                    Some(true)
                }
            })
        })
        .await;
        turn.then(|| InitTurn {
            initializing: &self.initializing,
        })
    }

    /// The value, if set, consuming the cell.
    ///
    /// # Examples
    ///
    /// ```
    /// let cell = rt::sync::OnceCell::new_with(Some(String::from("owned")));
    /// assert_eq!(cell.into_inner().as_deref(), Some("owned"));
    /// ```
    pub fn into_inner(mut self) -> Option<T> {
        self.value.take()
    }

    /// Takes the value out, leaving the cell empty.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut cell = rt::sync::OnceCell::new_with(Some(1));
    /// assert_eq!(cell.take(), Some(1));
    /// assert!(!cell.initialized());
    /// ```
    pub fn take(&mut self) -> Option<T> {
        self.value.take()
    }
}

impl<T> Default for OnceCell<T> {
    fn default() -> OnceCell<T> {
        OnceCell::new()
    }
}

impl<T> From<T> for OnceCell<T> {
    fn from(value: T) -> OnceCell<T> {
        OnceCell::new_with(Some(value))
    }
}

impl<T: Clone> Clone for OnceCell<T> {
    fn clone(&self) -> OnceCell<T> {
        OnceCell::new_with(self.get().cloned())
    }
}

impl<T: PartialEq> PartialEq for OnceCell<T> {
    fn eq(&self, other: &OnceCell<T>) -> bool {
        self.get() == other.get()
    }
}

impl<T: Eq> Eq for OnceCell<T> {}

impl<T: fmt::Debug> fmt::Debug for OnceCell<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OnceCell")
            .field("value", &self.get())
            .finish()
    }
}

#[cfg(all(test, loom))]
mod loom_once_cell {
    use super::OnceCell;
    use crate::loom::sync::Arc;
    use loom::thread;
    use std::future::{Future, pending};
    use std::task::{Context, Waker};

    /// Step 3: the holder of the turn is dropped (cancelled) while another
    /// thread waits for the value: that thread runs its own initialiser.
    #[test]
    fn loom_once_cell_cancelled_initialiser_hands_over() {
        loom::model(|| {
            let cell = Arc::new(OnceCell::new());
            let mut holder = Box::pin(cell.get_or_init(pending::<u32>));
            let mut cx = Context::from_waker(Waker::noop());
            assert!(holder.as_mut().poll(&mut cx).is_pending());
            let waiter = {
                let cell = cell.clone();
                thread::spawn(move || *loom::future::block_on(cell.get_or_init(|| async { 2 })))
            };
            drop(holder);
            assert_eq!(waiter.join().unwrap(), 2);
        });
    }

    /// Step 4: two threads race to initialise; one initialiser runs and
    /// both see its value.
    #[test]
    fn loom_once_cell_racing_initialisers_agree() {
        loom::model(|| {
            let cell = Arc::new(OnceCell::new());
            let other = {
                let cell = cell.clone();
                thread::spawn(move || *loom::future::block_on(cell.get_or_init(|| async { 1 })))
            };
            let mine = *loom::future::block_on(cell.get_or_init(|| async { 2 }));
            let theirs = other.join().unwrap();
            assert_eq!(mine, theirs);
        });
    }
}
