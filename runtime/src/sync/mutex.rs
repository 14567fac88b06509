//! `Mutex`: an async mutual-exclusion lock, fair, built on a one-permit
//! [`Semaphore`].
//!
//! Holding the semaphore's only permit is holding the lock, so the
//! semaphore's FIFO queue makes the mutex fair (tasks get the lock in the
//! order they started waiting) and its cancellation protocol makes `lock`
//! cancel-safe: a dropped `lock()` future never leaves the mutex locked or
//! loses the wake-up of the next waiter.

mod mapped;

pub use mapped::{MappedMutexGuard, OwnedMappedMutexGuard};

use crate::sync::semaphore::{Acquire, Semaphore};
use crate::task::waits::Site;
// The data cell is std's: every access is serialised by the semaphore,
// which is the part loom models.
use std::cell::UnsafeCell;
use std::fmt;
use std::future::Future;
use std::ops::{Deref, DerefMut};
use std::panic::Location;
use std::sync::Arc;

/// An async mutex: waiting for the lock suspends the task, never the thread.
///
/// Fair: waiters get the lock in FIFO order. Cancel-safe: dropping a
/// [`lock`](Mutex::lock) future gives up its place in line without
/// leaking the lock.
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// use rt::sync::Mutex;
///
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let count = Arc::new(Mutex::new(0));
///     let tasks: Vec<_> = (0..10)
///         .map(|_| {
///             let count = count.clone();
///             rt::spawn(async move { *count.lock().await += 1 })
///         })
///         .collect();
///     for task in tasks {
///         task.await.unwrap();
///     }
///     assert_eq!(*count.lock().await, 10);
/// });
/// ```
pub struct Mutex<T: ?Sized> {
    semaphore: Semaphore,
    data: UnsafeCell<T>,
}

// SAFETY: the mutex hands out access to `T` to one holder at a time, which
// may be on another thread: that needs `T: Send` only.
unsafe impl<T: ?Sized + Send> Send for Mutex<T> {}
// SAFETY: as above: `&Mutex<T>` gives exclusive access to `T` to one
// thread at a time, so `T: Send` suffices.
unsafe impl<T: ?Sized + Send> Sync for Mutex<T> {}

/// The error of [`Mutex::try_lock`] and of [`RwLock`](crate::sync::RwLock)'s
/// `try_read` and `try_write` (and their `_owned` forms): the lock is held,
/// or others wait for it first.
///
/// # Examples
///
/// ```
/// let lock = rt::sync::RwLock::new(());
/// let _writing = lock.try_write().unwrap();
/// assert!(lock.try_read().is_err());
///
/// let mutex = rt::sync::Mutex::new(());
/// let _guard = mutex.try_lock().unwrap();
/// assert_eq!(
///     mutex.try_lock().unwrap_err().to_string(),
///     "the lock is held, or others wait for it first"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TryLockError(pub(crate) ());

impl fmt::Display for TryLockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the lock is held, or others wait for it first")
    }
}

impl std::error::Error for TryLockError {}

impl<T> Mutex<T> {
    /// An unlocked mutex holding `value`.
    ///
    /// # Examples
    ///
    /// ```
    /// let mutex = rt::sync::Mutex::new(5);
    /// assert_eq!(mutex.into_inner(), 5);
    /// ```
    pub fn new(value: T) -> Mutex<T> {
        Mutex {
            semaphore: Semaphore::new(1),
            data: UnsafeCell::new(value),
        }
    }

    /// [`new`](Mutex::new) in a `const` context, for a `static`.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::sync::Mutex;
    ///
    /// static HITS: Mutex<u64> = Mutex::const_new(0);
    /// *HITS.blocking_lock() += 1;
    /// assert_eq!(*HITS.try_lock().unwrap(), 1);
    /// ```
    #[cfg(not(loom))]
    pub const fn const_new(value: T) -> Mutex<T> {
        Mutex {
            semaphore: Semaphore::const_new(1),
            data: UnsafeCell::new(value),
        }
    }

    /// Where the lock records its holder (`task/waits.rs`).
    #[cfg(all(test, loom))]
    pub(crate) fn holder_slot(this: &Self) -> &crate::task::waits::HolderSlot {
        &this.semaphore.holder
    }

    /// The value, consuming the mutex.
    ///
    /// # Examples
    ///
    /// ```
    /// let mutex = rt::sync::Mutex::new("x");
    /// assert_eq!(mutex.into_inner(), "x");
    /// ```
    pub fn into_inner(self) -> T {
        self.data.into_inner()
    }
}

impl<T: ?Sized> Mutex<T> {
    /// Waits for the lock. Fair and cancel-safe (see the type docs).
    ///
    /// # Examples
    ///
    /// ```
    /// let mutex = rt::sync::Mutex::new(1);
    /// futures::executor::block_on(async { *mutex.lock().await += 1 });
    /// assert_eq!(mutex.into_inner(), 2);
    /// ```
    #[track_caller]
    pub fn lock(&self) -> impl Future<Output = MutexGuard<'_, T>> {
        let at = Location::caller();
        async move {
            Acquire::new(&self.semaphore, 1, Site::lock("Mutex::lock", at))
                .await
                .expect("a mutex's semaphore is never closed");
            self.semaphore.holder.acquired(at, false);
            MutexGuard { mutex: self }
        }
    }

    /// [`lock`](Mutex::lock) for synchronous code: blocks the thread until
    /// the lock is free, queued fairly with the tasks waiting for it.
    ///
    /// # Panics
    ///
    /// Panics on a thread that runs tasks (use `lock().await` there).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// let mutex = Arc::new(rt::sync::Mutex::new(0));
    /// let shared = mutex.clone();
    /// std::thread::spawn(move || *shared.blocking_lock() += 1).join().unwrap();
    /// assert_eq!(*mutex.blocking_lock(), 1);
    /// ```
    #[track_caller]
    pub fn blocking_lock(&self) -> MutexGuard<'_, T> {
        crate::sync::blocking::block_on("Mutex::blocking_lock", self.lock())
    }

    /// Takes the lock if it is free and no one is waiting.
    ///
    /// # Errors
    ///
    /// [`TryLockError`] if the lock is held or others are queued first.
    ///
    /// # Examples
    ///
    /// ```
    /// let mutex = rt::sync::Mutex::new(0);
    /// let guard = mutex.try_lock().unwrap();
    /// assert!(mutex.try_lock().is_err());
    /// drop(guard);
    /// assert!(mutex.try_lock().is_ok());
    /// ```
    #[track_caller]
    pub fn try_lock(&self) -> Result<MutexGuard<'_, T>, TryLockError> {
        match self.semaphore.try_take(1) {
            Ok(()) => {
                self.semaphore.holder.acquired(Location::caller(), false);
                Ok(MutexGuard { mutex: self })
            }
            Err(_) => Err(TryLockError(())),
        }
    }

    /// Waits for the lock, with a guard that owns an `Arc` of the mutex
    /// (so it can move into a spawned task). Fair and cancel-safe.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// let mutex = Arc::new(rt::sync::Mutex::new(0));
    /// let mut guard = futures::executor::block_on(mutex.clone().lock_owned());
    /// std::thread::spawn(move || *guard = 7).join().unwrap();
    /// assert_eq!(*mutex.try_lock().unwrap(), 7);
    /// ```
    #[track_caller]
    pub fn lock_owned(self: Arc<Self>) -> impl Future<Output = OwnedMutexGuard<T>> {
        let at = Location::caller();
        async move {
            Acquire::new(&self.semaphore, 1, Site::lock("Mutex::lock_owned", at))
                .await
                .expect("a mutex's semaphore is never closed");
            self.semaphore.holder.acquired(at, true);
            OwnedMutexGuard { mutex: self }
        }
    }

    /// [`lock_owned`](Mutex::lock_owned) for synchronous code: blocks the
    /// thread until the lock is free, queued fairly with the tasks waiting
    /// for it.
    ///
    /// # Panics
    ///
    /// Panics on a thread that runs tasks (use `lock_owned().await` there).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// let mutex = Arc::new(rt::sync::Mutex::new(0));
    /// let shared = mutex.clone();
    /// std::thread::spawn(move || *shared.blocking_lock_owned() += 1).join().unwrap();
    /// assert_eq!(*mutex.blocking_lock_owned(), 1);
    /// ```
    #[track_caller]
    pub fn blocking_lock_owned(self: Arc<Self>) -> OwnedMutexGuard<T> {
        crate::sync::blocking::block_on("Mutex::blocking_lock_owned", self.lock_owned())
    }

    /// Takes the lock now, with an owned guard.
    ///
    /// # Errors
    ///
    /// [`TryLockError`] if the lock is held or others are queued first.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// let mutex = Arc::new(rt::sync::Mutex::new(0));
    /// let guard = mutex.clone().try_lock_owned().unwrap();
    /// assert!(mutex.clone().try_lock_owned().is_err());
    /// drop(guard);
    /// ```
    #[track_caller]
    pub fn try_lock_owned(self: Arc<Self>) -> Result<OwnedMutexGuard<T>, TryLockError> {
        match self.semaphore.try_take(1) {
            Ok(()) => {
                self.semaphore.holder.acquired(Location::caller(), true);
                Ok(OwnedMutexGuard { mutex: self })
            }
            Err(_) => Err(TryLockError(())),
        }
    }

    /// The value, through exclusive access (no locking needed).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut mutex = rt::sync::Mutex::new(1);
    /// *mutex.get_mut() = 2;
    /// assert_eq!(mutex.into_inner(), 2);
    /// ```
    pub fn get_mut(&mut self) -> &mut T {
        self.data.get_mut()
    }
}

/// A mutex holding `value`, as [`Mutex::new`].
///
/// # Examples
///
/// ```
/// let mutex: rt::sync::Mutex<u8> = 7.into();
/// assert_eq!(mutex.into_inner(), 7);
/// ```
impl<T> From<T> for Mutex<T> {
    fn from(value: T) -> Mutex<T> {
        Mutex::new(value)
    }
}

impl<T: Default> Default for Mutex<T> {
    fn default() -> Mutex<T> {
        Mutex::new(T::default())
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for Mutex<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("Mutex");
        match self.try_lock() {
            Ok(guard) => d.field("data", &&*guard),
            Err(_) => d.field("data", &format_args!("<locked>")),
        };
        d.finish()
    }
}

/// Access to a [`Mutex`]'s value; the lock is released when it drops.
///
/// # Examples
///
/// ```
/// let mutex = rt::sync::Mutex::new(vec![1]);
/// let mut guard = mutex.try_lock().unwrap();
/// guard.push(2);
/// assert_eq!(*guard, [1, 2]);
/// ```
#[must_use = "the lock is released as soon as the guard is dropped"]
pub struct MutexGuard<'a, T: ?Sized> {
    mutex: &'a Mutex<T>,
}

// SAFETY: sharing the guard shares `&T`, which needs `T: Sync`.
unsafe impl<T: ?Sized + Sync> Sync for MutexGuard<'_, T> {}

impl<'a, T: ?Sized> MutexGuard<'a, T> {
    /// The mutex this guard locks. An associated function, not a method,
    /// so it never shadows a method of `T`: `MutexGuard::mutex(&guard)`.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::sync::{Mutex, MutexGuard};
    /// let mutex = Mutex::new(1);
    /// let guard = mutex.try_lock().unwrap();
    /// assert!(std::ptr::eq(MutexGuard::mutex(&guard), &mutex));
    /// ```
    pub fn mutex(this: &Self) -> &'a Mutex<T> {
        this.mutex
    }
}

impl<T: ?Sized> Deref for MutexGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the guard holds the lock: no `&mut T` exists elsewhere.
        unsafe { &*self.mutex.data.get() }
    }
}

impl<T: ?Sized> DerefMut for MutexGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: the guard holds the lock and is borrowed mutably.
        unsafe { &mut *self.mutex.data.get() }
    }
}

impl<T: ?Sized> Drop for MutexGuard<'_, T> {
    fn drop(&mut self) {
        self.mutex.semaphore.release(1);
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for MutexGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

/// A guard that keeps its [`Mutex`] alive through an `Arc`.
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// let mutex = Arc::new(rt::sync::Mutex::new(1));
/// let guard = mutex.clone().try_lock_owned().unwrap();
/// assert!(Arc::ptr_eq(guard.mutex(), &mutex));
/// ```
#[must_use = "the lock is released as soon as the guard is dropped"]
pub struct OwnedMutexGuard<T: ?Sized> {
    mutex: Arc<Mutex<T>>,
}

// SAFETY: sharing the guard shares `&T`, which needs `T: Sync`.
unsafe impl<T: ?Sized + Sync + Send> Sync for OwnedMutexGuard<T> {}

impl<T: ?Sized> OwnedMutexGuard<T> {
    /// The mutex this guard locks.
    pub fn mutex(&self) -> &Arc<Mutex<T>> {
        &self.mutex
    }
}

impl<T: ?Sized> Deref for OwnedMutexGuard<T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the guard holds the lock: no `&mut T` exists elsewhere.
        unsafe { &*self.mutex.data.get() }
    }
}

impl<T: ?Sized> DerefMut for OwnedMutexGuard<T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: the guard holds the lock and is borrowed mutably.
        unsafe { &mut *self.mutex.data.get() }
    }
}

impl<T: ?Sized> Drop for OwnedMutexGuard<T> {
    fn drop(&mut self) {
        self.mutex.semaphore.release(1);
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for OwnedMutexGuard<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

display_guard!(MutexGuard<'a>, OwnedMutexGuard);
