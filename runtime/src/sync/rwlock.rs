//! `RwLock`: an async reader-writer lock, fair and writer-preferring, built
//! on a [`Semaphore`] with `MAX_READS` permits.
//!
//! A reader takes one permit, a writer takes all of them. Since the
//! semaphore serves waiters strictly in FIFO order and a new acquire never
//! overtakes a queued one, a waiting writer stops new readers from
//! entering: it gets the lock as soon as the readers ahead of it leave, so
//! writers are never starved. Readers queued behind a writer enter
//! together once it is done.

use crate::sync::semaphore::{Acquire, Semaphore};
// The data cell is std's: every access is serialised by the semaphore,
// which is the part loom models.
use std::cell::UnsafeCell;
use std::fmt;
use std::ops::{Deref, DerefMut};

/// Readers that may hold the lock at once.
const MAX_READS: usize = (u32::MAX >> 3) as usize;

/// An async reader-writer lock: many readers or one writer.
///
/// Fair: waiters are served in FIFO order, so a waiting writer is not
/// starved by a stream of readers. Cancel-safe: dropping a `read()` or
/// `write()` future gives up its place in line without leaking the lock.
///
/// # Examples
///
/// ```
/// use rt::sync::RwLock;
///
/// let lock = RwLock::new(1);
/// futures::executor::block_on(async {
///     {
///         let a = lock.read().await;
///         let b = lock.read().await;
///         assert_eq!(*a + *b, 2);
///     }
///     *lock.write().await += 1;
///     assert_eq!(*lock.read().await, 2);
/// });
/// ```
pub struct RwLock<T: ?Sized> {
    semaphore: Semaphore,
    data: UnsafeCell<T>,
}

// SAFETY: a writer may get `&mut T` on another thread: `T: Send`.
unsafe impl<T: ?Sized + Send> Send for RwLock<T> {}
// SAFETY: readers on several threads share `&T` (`T: Sync`), and a writer
// on any thread gets `&mut T` (`T: Send`).
unsafe impl<T: ?Sized + Send + Sync> Sync for RwLock<T> {}

/// The error of [`RwLock::try_read`] and [`RwLock::try_write`].
///
/// # Examples
///
/// ```
/// let lock = rt::sync::RwLock::new(());
/// let _w = lock.try_write().unwrap();
/// assert!(lock.try_read().is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TryLockError(());

impl fmt::Display for TryLockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("rwlock is locked")
    }
}

impl std::error::Error for TryLockError {}

impl<T> RwLock<T> {
    /// An unlocked lock holding `value`.
    ///
    /// # Examples
    ///
    /// ```
    /// let lock = rt::sync::RwLock::new(3);
    /// assert_eq!(lock.into_inner(), 3);
    /// ```
    pub fn new(value: T) -> RwLock<T> {
        RwLock {
            semaphore: Semaphore::new(MAX_READS),
            data: UnsafeCell::new(value),
        }
    }

    /// The value, consuming the lock.
    ///
    /// # Examples
    ///
    /// ```
    /// assert_eq!(rt::sync::RwLock::new('q').into_inner(), 'q');
    /// ```
    pub fn into_inner(self) -> T {
        self.data.into_inner()
    }
}

impl<T: ?Sized> RwLock<T> {
    /// Waits for shared read access. Waits behind any queued writer.
    ///
    /// # Examples
    ///
    /// ```
    /// let lock = rt::sync::RwLock::new(5);
    /// assert_eq!(*futures::executor::block_on(lock.read()), 5);
    /// ```
    pub async fn read(&self) -> RwLockReadGuard<'_, T> {
        Acquire::new(&self.semaphore, 1)
            .await
            .expect("an rwlock's semaphore is never closed");
        RwLockReadGuard { lock: self }
    }

    /// Waits for exclusive write access.
    ///
    /// # Examples
    ///
    /// ```
    /// let lock = rt::sync::RwLock::new(5);
    /// *futures::executor::block_on(lock.write()) = 6;
    /// assert_eq!(lock.into_inner(), 6);
    /// ```
    pub async fn write(&self) -> RwLockWriteGuard<'_, T> {
        Acquire::new(&self.semaphore, MAX_READS)
            .await
            .expect("an rwlock's semaphore is never closed");
        RwLockWriteGuard { lock: self }
    }

    /// Read access now, if no writer holds or waits for the lock.
    ///
    /// # Errors
    ///
    /// [`TryLockError`](crate::sync::TryLockError) when a writer holds the lock or anyone is queued.
    ///
    /// # Examples
    ///
    /// ```
    /// let lock = rt::sync::RwLock::new(0);
    /// let _r = lock.try_read().unwrap();
    /// assert!(lock.try_read().is_ok());
    /// assert!(lock.try_write().is_err());
    /// ```
    pub fn try_read(&self) -> Result<RwLockReadGuard<'_, T>, TryLockError> {
        match self.semaphore.try_take(1) {
            Ok(()) => Ok(RwLockReadGuard { lock: self }),
            Err(_) => Err(TryLockError(())),
        }
    }

    /// Write access now, if the lock is free and no one is queued.
    ///
    /// # Errors
    ///
    /// [`TryLockError`](crate::sync::TryLockError) when the lock is held or anyone is queued.
    ///
    /// # Examples
    ///
    /// ```
    /// let lock = rt::sync::RwLock::new(0);
    /// *lock.try_write().unwrap() = 1;
    /// assert_eq!(lock.into_inner(), 1);
    /// ```
    pub fn try_write(&self) -> Result<RwLockWriteGuard<'_, T>, TryLockError> {
        match self.semaphore.try_take(MAX_READS) {
            Ok(()) => Ok(RwLockWriteGuard { lock: self }),
            Err(_) => Err(TryLockError(())),
        }
    }

    /// The value, through exclusive access (no locking needed).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut lock = rt::sync::RwLock::new(1);
    /// *lock.get_mut() += 1;
    /// assert_eq!(lock.into_inner(), 2);
    /// ```
    pub fn get_mut(&mut self) -> &mut T {
        self.data.get_mut()
    }
}

impl<T: Default> Default for RwLock<T> {
    fn default() -> RwLock<T> {
        RwLock::new(T::default())
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for RwLock<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("RwLock");
        match self.try_read() {
            Ok(guard) => d.field("data", &&*guard),
            Err(_) => d.field("data", &format_args!("<locked>")),
        };
        d.finish()
    }
}

/// Shared access to an [`RwLock`]'s value.
///
/// # Examples
///
/// ```
/// let lock = rt::sync::RwLock::new(vec![1, 2]);
/// let guard = lock.try_read().unwrap();
/// assert_eq!(guard.len(), 2);
/// ```
#[must_use = "the lock is released as soon as the guard is dropped"]
pub struct RwLockReadGuard<'a, T: ?Sized> {
    lock: &'a RwLock<T>,
}

// SAFETY: the guard only gives `&T`; sending or sharing it shares `&T`.
unsafe impl<T: ?Sized + Sync> Send for RwLockReadGuard<'_, T> {}
// SAFETY: as above.
unsafe impl<T: ?Sized + Sync> Sync for RwLockReadGuard<'_, T> {}

impl<T: ?Sized> Deref for RwLockReadGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: a read permit is held: no writer (the only source of
        // `&mut T`) can hold the lock at the same time.
        unsafe { &*self.lock.data.get() }
    }
}

impl<T: ?Sized> Drop for RwLockReadGuard<'_, T> {
    fn drop(&mut self) {
        self.lock.semaphore.release(1);
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for RwLockReadGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

/// Exclusive access to an [`RwLock`]'s value.
///
/// # Examples
///
/// ```
/// let lock = rt::sync::RwLock::new(String::new());
/// lock.try_write().unwrap().push('x');
/// assert_eq!(lock.into_inner(), "x");
/// ```
#[must_use = "the lock is released as soon as the guard is dropped"]
pub struct RwLockWriteGuard<'a, T: ?Sized> {
    lock: &'a RwLock<T>,
}

// SAFETY: the guard gives `&mut T`, like owning it: `T: Send` to send.
unsafe impl<T: ?Sized + Send + Sync> Send for RwLockWriteGuard<'_, T> {}
// SAFETY: sharing the guard shares `&T`: `T: Sync`.
unsafe impl<T: ?Sized + Send + Sync> Sync for RwLockWriteGuard<'_, T> {}

impl<T: ?Sized> Deref for RwLockWriteGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: all permits are held: no other guard exists.
        unsafe { &*self.lock.data.get() }
    }
}

impl<T: ?Sized> DerefMut for RwLockWriteGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: all permits are held and the guard is borrowed mutably.
        unsafe { &mut *self.lock.data.get() }
    }
}

impl<T: ?Sized> Drop for RwLockWriteGuard<'_, T> {
    fn drop(&mut self) {
        self.lock.semaphore.release(MAX_READS);
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for RwLockWriteGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}
