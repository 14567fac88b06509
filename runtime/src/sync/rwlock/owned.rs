//! The owned `RwLock` guards, which keep their lock alive through an
//! `Arc` (so they can move into spawned tasks), and narrowing them:
//! `map`/`try_map` on the read, write and mapped write guards,
//! `OwnedRwLockWriteGuard::into_mapped`, and the downgrades.
//!
//! A guard narrowed to a `U` inside the locked `T` holds the `Arc` (and
//! with it the permits of the guard it was made from, which is never
//! dropped: `take_arc`) and a pointer into the locked value, valid while
//! the permits are held: the `Arc` keeps the value in place. Each `map` is
//! its `try_map` with a closure that always finds its part.

use super::RwLock;
use crate::sync::{always_narrowed, take_arc};
use crate::task::waits::ReadToken;
use std::fmt;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

/// Shared access through a guard that keeps its [`RwLock`] alive through
/// an `Arc`; after [`map`](OwnedRwLockReadGuard::map), to a `U` inside the
/// locked `T`.
///
/// It is `Send` and `Sync` when `T: Send + Sync` (for the `Arc`) and
/// `U: Sync`: it shares `&U` and may drop the last `Arc`, and with it the
/// value.
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// let lock = Arc::new(rt::sync::RwLock::new(1));
/// let guard = lock.clone().try_read_owned().unwrap();
/// assert!(Arc::ptr_eq(guard.rwlock(), &lock));
/// assert_eq!(*guard, 1);
/// ```
#[must_use = "the lock is released as soon as the guard is dropped"]
pub struct OwnedRwLockReadGuard<T: ?Sized, U: ?Sized = T> {
    lock: Arc<RwLock<T>>,
    /// Points into the locked value; valid while the read permit is held.
    data: *const U,
    /// This reader among the lock's holders (`task::waits`).
    token: ReadToken,
}

// SAFETY: moving the guard moves the `Arc<RwLock<T>>` (sendable when
// `T: Send + Sync`) and shared access to `U` (like `&U`: `U: Sync`).
unsafe impl<T: ?Sized + Send + Sync, U: ?Sized + Sync> Send for OwnedRwLockReadGuard<T, U> {}
// SAFETY: sharing the guard shares `&U` and the `Arc`, as above.
unsafe impl<T: ?Sized + Send + Sync, U: ?Sized + Sync> Sync for OwnedRwLockReadGuard<T, U> {}

impl<T: ?Sized> OwnedRwLockReadGuard<T> {
    /// A guard of the whole value, for a read permit already taken (its
    /// reader listed under `token`).
    pub(super) fn new(lock: Arc<RwLock<T>>, token: ReadToken) -> OwnedRwLockReadGuard<T> {
        let data = lock.data.get();
        OwnedRwLockReadGuard { lock, data, token }
    }
}

impl<T: ?Sized, U: ?Sized> OwnedRwLockReadGuard<T, U> {
    /// The lock this guard reads.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// let lock = Arc::new(rt::sync::RwLock::new(1));
    /// let guard = lock.clone().try_read_owned().unwrap();
    /// assert!(guard.rwlock().try_read().is_ok());
    /// ```
    pub fn rwlock(&self) -> &Arc<RwLock<T>> {
        &self.lock
    }

    /// Narrows the guard to a part of the value; the read lock stays held
    /// until the narrowed guard drops.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::sync::{OwnedRwLockReadGuard, RwLock};
    /// use std::sync::Arc;
    /// let lock = Arc::new(RwLock::new((1, String::from("rt"))));
    /// let guard = lock.clone().try_read_owned().unwrap();
    /// let name: OwnedRwLockReadGuard<_, String> = OwnedRwLockReadGuard::map(guard, |pair| &pair.1);
    /// let len = std::thread::spawn(move || name.len()).join().unwrap();
    /// assert_eq!(len, 2);
    /// assert!(lock.try_write().is_ok());
    /// ```
    pub fn map<V: ?Sized>(this: Self, f: impl FnOnce(&U) -> &V) -> OwnedRwLockReadGuard<T, V> {
        always_narrowed(OwnedRwLockReadGuard::try_map(this, |value| Some(f(value))))
    }

    /// Narrows the guard to a part of the value if `f` finds one;
    /// otherwise the guard comes back unchanged (still reading).
    ///
    /// # Errors
    ///
    /// The original guard, when `f` returns `None`.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::sync::{OwnedRwLockReadGuard, RwLock};
    /// use std::sync::Arc;
    /// let lock = Arc::new(RwLock::new(vec![1, 2]));
    /// let guard = lock.clone().try_read_owned().unwrap();
    /// let guard = OwnedRwLockReadGuard::try_map(guard, |v| v.get(5)).unwrap_err();
    /// let second = OwnedRwLockReadGuard::try_map(guard, |v| v.get(1)).unwrap();
    /// assert_eq!(*second, 2);
    /// assert!(lock.try_write().is_err());
    /// ```
    pub fn try_map<V: ?Sized>(
        this: Self,
        f: impl FnOnce(&U) -> Option<&V>,
    ) -> Result<OwnedRwLockReadGuard<T, V>, Self> {
        let Some(data) = f(&*this).map(|part| part as *const V) else {
            return Err(this);
        };
        let token = this.token;
        Ok(OwnedRwLockReadGuard {
            lock: take_arc(this, |guard| &guard.lock),
            data,
            token,
        })
    }
}

impl<T: ?Sized, U: ?Sized> Deref for OwnedRwLockReadGuard<T, U> {
    type Target = U;
    fn deref(&self) -> &U {
        // SAFETY: `data` points into the locked value, which the `Arc`
        // keeps in place, and a read permit is held until this guard
        // drops: no writer (the only source of `&mut`) holds the lock.
        unsafe { &*self.data }
    }
}

impl<T: ?Sized, U: ?Sized> Drop for OwnedRwLockReadGuard<T, U> {
    fn drop(&mut self) {
        self.lock.semaphore.holder.read_released(self.token);
        self.lock.semaphore.release(1);
    }
}

impl<T: ?Sized, U: ?Sized + fmt::Debug> fmt::Debug for OwnedRwLockReadGuard<T, U> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized, U: ?Sized + fmt::Display> fmt::Display for OwnedRwLockReadGuard<T, U> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}

/// Exclusive access through a guard that keeps its [`RwLock`] alive
/// through an `Arc`.
///
/// It is `Send` and `Sync` when `T: Send + Sync` (through the `Arc`), like
/// [`RwLockWriteGuard`](super::RwLockWriteGuard).
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// let lock = Arc::new(rt::sync::RwLock::new(1));
/// let mut guard = lock.clone().try_write_owned().unwrap();
/// *guard += 1;
/// assert!(Arc::ptr_eq(guard.rwlock(), &lock));
/// drop(guard);
/// assert_eq!(*lock.try_read().unwrap(), 2);
/// ```
#[must_use = "the lock is released as soon as the guard is dropped"]
pub struct OwnedRwLockWriteGuard<T: ?Sized> {
    lock: Arc<RwLock<T>>,
}

impl<T: ?Sized> OwnedRwLockWriteGuard<T> {
    /// The guard for all of the lock's permits, already taken.
    pub(super) fn new(lock: Arc<RwLock<T>>) -> OwnedRwLockWriteGuard<T> {
        OwnedRwLockWriteGuard { lock }
    }

    /// The lock this guard writes.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// let lock = Arc::new(rt::sync::RwLock::new(1));
    /// let guard = lock.clone().try_write_owned().unwrap();
    /// assert!(guard.rwlock().try_read().is_err());
    /// ```
    pub fn rwlock(&self) -> &Arc<RwLock<T>> {
        &self.lock
    }

    /// Narrows the guard to a part of the value; the write lock stays held
    /// until the mapped guard drops.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::sync::{OwnedRwLockMappedWriteGuard, OwnedRwLockWriteGuard, RwLock};
    /// use std::sync::Arc;
    /// let lock = Arc::new(RwLock::new((0, String::new())));
    /// let guard = lock.clone().try_write_owned().unwrap();
    /// let mut name: OwnedRwLockMappedWriteGuard<_, String> =
    ///     OwnedRwLockWriteGuard::map(guard, |pair| &mut pair.1);
    /// std::thread::spawn(move || name.push_str("moved")).join().unwrap();
    /// assert_eq!(lock.try_read().unwrap().1, "moved");
    /// ```
    pub fn map<U: ?Sized>(
        this: Self,
        f: impl FnOnce(&mut T) -> &mut U,
    ) -> OwnedRwLockMappedWriteGuard<T, U> {
        always_narrowed(OwnedRwLockWriteGuard::try_map(this, |value| Some(f(value))))
    }

    /// Narrows the guard to a part of the value if `f` finds one;
    /// otherwise the guard comes back unchanged (still writing).
    ///
    /// # Errors
    ///
    /// The original guard, when `f` returns `None`.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::sync::{OwnedRwLockWriteGuard, RwLock};
    /// use std::sync::Arc;
    /// let lock = Arc::new(RwLock::new(vec![1, 2]));
    /// let guard = lock.clone().try_write_owned().unwrap();
    /// let guard = OwnedRwLockWriteGuard::try_map(guard, |v| v.get_mut(5)).unwrap_err();
    /// let mut second = OwnedRwLockWriteGuard::try_map(guard, |v| v.get_mut(1)).unwrap();
    /// *second = 20;
    /// drop(second);
    /// assert_eq!(*lock.try_read().unwrap(), [1, 20]);
    /// ```
    pub fn try_map<U: ?Sized>(
        mut this: Self,
        f: impl FnOnce(&mut T) -> Option<&mut U>,
    ) -> Result<OwnedRwLockMappedWriteGuard<T, U>, Self> {
        let Some(data) = f(&mut *this).map(|part| part as *mut U) else {
            return Err(this);
        };
        Ok(OwnedRwLockMappedWriteGuard {
            lock: take_arc(this, |guard| &guard.lock),
            data,
        })
    }

    /// The same write lock as an [`OwnedRwLockMappedWriteGuard`] of the
    /// whole value (for code that takes mapped guards).
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::sync::{OwnedRwLockMappedWriteGuard, OwnedRwLockWriteGuard, RwLock};
    /// use std::sync::Arc;
    /// let lock = Arc::new(RwLock::new(1));
    /// let mut whole: OwnedRwLockMappedWriteGuard<i32> =
    ///     OwnedRwLockWriteGuard::into_mapped(lock.clone().try_write_owned().unwrap());
    /// *whole = 2;
    /// drop(whole);
    /// assert_eq!(*lock.try_read().unwrap(), 2);
    /// ```
    pub fn into_mapped(this: Self) -> OwnedRwLockMappedWriteGuard<T> {
        OwnedRwLockWriteGuard::map(this, |value| value)
    }

    /// Turns the write lock into a read lock without letting it go, like
    /// [`RwLockWriteGuard::downgrade`](super::RwLockWriteGuard::downgrade).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use rt::sync::OwnedRwLockWriteGuard;
    /// let lock = Arc::new(rt::sync::RwLock::new(1));
    /// let mut writer = lock.clone().try_write_owned().unwrap();
    /// *writer = 2;
    /// let reader = OwnedRwLockWriteGuard::downgrade(writer);
    /// assert_eq!(*lock.try_read().unwrap(), 2);
    /// assert!(lock.try_write().is_err());
    /// drop(reader);
    /// assert!(lock.try_write().is_ok());
    /// ```
    pub fn downgrade(this: Self) -> OwnedRwLockReadGuard<T> {
        let data = this.lock.data.get();
        OwnedRwLockWriteGuard::downgrade_to(this, data)
    }

    /// [`downgrade`](OwnedRwLockWriteGuard::downgrade), narrowed to a part
    /// of the value (as [`OwnedRwLockReadGuard::map`] narrows a read
    /// guard).
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::sync::{OwnedRwLockWriteGuard, RwLock};
    /// use std::sync::Arc;
    /// let lock = Arc::new(RwLock::new((1, String::from("rt"))));
    /// let mut writer = lock.clone().try_write_owned().unwrap();
    /// writer.0 += 1;
    /// let name = OwnedRwLockWriteGuard::downgrade_map(writer, |pair| &pair.1);
    /// assert_eq!(*name, "rt");
    /// assert_eq!(lock.try_read().unwrap().0, 2);
    /// assert!(lock.try_write().is_err());
    /// ```
    pub fn downgrade_map<U: ?Sized>(
        this: Self,
        f: impl FnOnce(&T) -> &U,
    ) -> OwnedRwLockReadGuard<T, U> {
        always_narrowed(OwnedRwLockWriteGuard::try_downgrade_map(this, |value| {
            Some(f(value))
        }))
    }

    /// [`downgrade_map`](OwnedRwLockWriteGuard::downgrade_map) where `f`
    /// may find nothing to narrow to: then the write guard is handed back,
    /// still holding the write lock.
    ///
    /// # Errors
    ///
    /// The write guard, when `f` returns `None`.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::sync::{OwnedRwLockWriteGuard, RwLock};
    /// use std::sync::Arc;
    /// let lock = Arc::new(RwLock::new(vec![1, 2]));
    /// let writer = lock.clone().try_write_owned().unwrap();
    /// let writer = OwnedRwLockWriteGuard::try_downgrade_map(writer, |v| v.get(5)).unwrap_err();
    /// assert!(lock.try_read().is_err(), "still writing");
    /// let second = OwnedRwLockWriteGuard::try_downgrade_map(writer, |v| v.get(1)).unwrap();
    /// assert_eq!(*second, 2);
    /// assert!(lock.try_read().is_ok());
    /// ```
    pub fn try_downgrade_map<U: ?Sized>(
        this: Self,
        f: impl FnOnce(&T) -> Option<&U>,
    ) -> Result<OwnedRwLockReadGuard<T, U>, Self> {
        let Some(data) = f(&*this).map(|part| part as *const U) else {
            return Err(this);
        };
        Ok(OwnedRwLockWriteGuard::downgrade_to(this, data))
    }

    /// The downgrade's steps (module docs of `rwlock`), with the read
    /// guard reading `data`, which points into the value `this` locks.
    fn downgrade_to<U: ?Sized>(this: Self, data: *const U) -> OwnedRwLockReadGuard<T, U> {
        // Step 1: one of the writer's permits becomes the reader's. The
        // guard exists before step 2 wakes anyone, so a panicking waker
        // still releases it.
        let token = this.lock.semaphore.holder.downgraded();
        let reader = OwnedRwLockReadGuard {
            lock: take_arc(this, |guard| &guard.lock),
            data,
            token,
        };
        reader.lock.release_all_reads_but_one();
        reader
    }
}

impl<T: ?Sized> Deref for OwnedRwLockWriteGuard<T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: all permits are held: no other guard exists.
        unsafe { &*self.lock.data.get() }
    }
}

impl<T: ?Sized> DerefMut for OwnedRwLockWriteGuard<T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: all permits are held and the guard is borrowed mutably.
        unsafe { &mut *self.lock.data.get() }
    }
}

impl<T: ?Sized> Drop for OwnedRwLockWriteGuard<T> {
    fn drop(&mut self) {
        self.lock.semaphore.release(self.lock.max_reads);
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for OwnedRwLockWriteGuard<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

/// An [`OwnedRwLockWriteGuard`] narrowed with
/// [`OwnedRwLockWriteGuard::map`] to a `U` inside the locked `T`: it
/// keeps the lock alive (and write-locked) through an `Arc`, so it can
/// move into a spawned task.
///
/// # Examples
///
/// See [`OwnedRwLockWriteGuard::map`].
#[must_use = "the lock is released as soon as the guard is dropped"]
pub struct OwnedRwLockMappedWriteGuard<T: ?Sized, U: ?Sized = T> {
    lock: Arc<RwLock<T>>,
    /// Points into the locked value; valid while all permits are held.
    data: *mut U,
}

// SAFETY: moving the guard moves the `Arc<RwLock<T>>` (sendable when
// `T: Send + Sync`) and the exclusive access to `U` (like `&mut U`:
// `U: Send`).
unsafe impl<T: ?Sized + Send + Sync, U: ?Sized + Send> Send for OwnedRwLockMappedWriteGuard<T, U> {}
// SAFETY: sharing the guard shares `&U` (`U: Sync`) and the `Arc`.
unsafe impl<T: ?Sized + Send + Sync, U: ?Sized + Sync> Sync for OwnedRwLockMappedWriteGuard<T, U> {}

impl<T: ?Sized, U: ?Sized> OwnedRwLockMappedWriteGuard<T, U> {
    /// The lock this guard writes.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::sync::{OwnedRwLockWriteGuard, RwLock};
    /// use std::sync::Arc;
    /// let lock = Arc::new(RwLock::new((1, 2)));
    /// let first = OwnedRwLockWriteGuard::map(lock.clone().try_write_owned().unwrap(), |p| &mut p.0);
    /// assert!(Arc::ptr_eq(first.rwlock(), &lock));
    /// ```
    pub fn rwlock(&self) -> &Arc<RwLock<T>> {
        &self.lock
    }

    /// Narrows the guard further.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::sync::{OwnedRwLockMappedWriteGuard, OwnedRwLockWriteGuard, RwLock};
    /// use std::sync::Arc;
    /// let lock = Arc::new(RwLock::new(((0, 0), 0)));
    /// let inner = OwnedRwLockWriteGuard::map(lock.clone().try_write_owned().unwrap(), |t| &mut t.0);
    /// let mut deepest = OwnedRwLockMappedWriteGuard::map(inner, |pair| &mut pair.1);
    /// *deepest = 5;
    /// drop(deepest);
    /// assert_eq!(*lock.try_read().unwrap(), ((0, 5), 0));
    /// ```
    pub fn map<V: ?Sized>(
        this: Self,
        f: impl FnOnce(&mut U) -> &mut V,
    ) -> OwnedRwLockMappedWriteGuard<T, V> {
        always_narrowed(OwnedRwLockMappedWriteGuard::try_map(this, |value| {
            Some(f(value))
        }))
    }

    /// Narrows the guard further if `f` finds a part; otherwise the guard
    /// comes back unchanged.
    ///
    /// # Errors
    ///
    /// The original guard, when `f` returns `None`.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::sync::{OwnedRwLockMappedWriteGuard, OwnedRwLockWriteGuard, RwLock};
    /// use std::sync::Arc;
    /// let lock = Arc::new(RwLock::new((vec![1], 0)));
    /// let list = OwnedRwLockWriteGuard::map(lock.try_write_owned().unwrap(), |t| &mut t.0);
    /// let list = OwnedRwLockMappedWriteGuard::try_map(list, |v| v.get_mut(3)).unwrap_err();
    /// assert_eq!(*list, [1]);
    /// ```
    pub fn try_map<V: ?Sized>(
        mut this: Self,
        f: impl FnOnce(&mut U) -> Option<&mut V>,
    ) -> Result<OwnedRwLockMappedWriteGuard<T, V>, Self> {
        let Some(data) = f(&mut *this).map(|part| part as *mut V) else {
            return Err(this);
        };
        Ok(OwnedRwLockMappedWriteGuard {
            lock: take_arc(this, |guard| &guard.lock),
            data,
        })
    }
}

impl<T: ?Sized, U: ?Sized> Deref for OwnedRwLockMappedWriteGuard<T, U> {
    type Target = U;
    fn deref(&self) -> &U {
        // SAFETY: `data` points into the locked value, which the `Arc`
        // keeps in place, and all permits are held until this guard drops.
        unsafe { &*self.data }
    }
}

impl<T: ?Sized, U: ?Sized> DerefMut for OwnedRwLockMappedWriteGuard<T, U> {
    fn deref_mut(&mut self) -> &mut U {
        // SAFETY: as in `deref`, and the guard is borrowed mutably.
        unsafe { &mut *self.data }
    }
}

impl<T: ?Sized, U: ?Sized> Drop for OwnedRwLockMappedWriteGuard<T, U> {
    fn drop(&mut self) {
        self.lock.semaphore.release(self.lock.max_reads);
    }
}

impl<T: ?Sized, U: ?Sized + fmt::Debug> fmt::Debug for OwnedRwLockMappedWriteGuard<T, U> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized, U: ?Sized + fmt::Display> fmt::Display for OwnedRwLockMappedWriteGuard<T, U> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    //! Each narrowing moves the `Arc` and the permits exactly once: the
    //! lock's permits and the `Arc`'s count are checked after each step
    //! (and Miri checks the pointers, see scripts/miri).
    use super::{OwnedRwLockMappedWriteGuard, OwnedRwLockReadGuard, OwnedRwLockWriteGuard};
    use crate::sync::RwLock;
    use std::sync::Arc;

    fn free(lock: &RwLock<impl ?Sized>) -> bool {
        lock.try_write().is_ok()
    }

    #[test]
    fn read_guards_narrow_and_release_once() {
        let lock = Arc::new(RwLock::new((vec![1, 2, 3], String::from("rt"))));
        let guard = lock.clone().try_read_owned().unwrap();
        let list = OwnedRwLockReadGuard::map(guard, |t| &t.0);
        let list = OwnedRwLockReadGuard::try_map(list, |v| v.get(9)).unwrap_err();
        let slice = OwnedRwLockReadGuard::map(list, |v| &v[1..]);
        let last = OwnedRwLockReadGuard::try_map(slice, |s| s.last()).unwrap();
        assert_eq!(*last, 3);
        assert_eq!(Arc::strong_count(&lock), 2);
        assert!(!free(&lock));
        drop(last);
        assert_eq!(Arc::strong_count(&lock), 1);
        assert!(free(&lock));
    }

    #[test]
    fn write_guards_narrow_write_and_release_once() {
        let lock = Arc::new(RwLock::new((vec![1, 2], 0u8)));
        let writer = lock.clone().try_write_owned().unwrap();
        let writer = OwnedRwLockWriteGuard::try_map(writer, |t| t.0.get_mut(7)).unwrap_err();
        let whole = OwnedRwLockWriteGuard::into_mapped(writer);
        let list = OwnedRwLockMappedWriteGuard::map(whole, |t| &mut t.0);
        let list = OwnedRwLockMappedWriteGuard::try_map(list, |v| v.get_mut(7)).unwrap_err();
        let mut second = OwnedRwLockMappedWriteGuard::try_map(list, |v| v.get_mut(1)).unwrap();
        *second = 20;
        assert!(lock.try_read().is_err());
        // Moves with its `Arc` to another thread, and unlocks there.
        std::thread::spawn(move || *second += 1).join().unwrap();
        assert_eq!(Arc::strong_count(&lock), 1);
        assert_eq!(lock.try_read().unwrap().0, [1, 21]);
        assert!(free(&lock));
    }

    #[test]
    fn downgrades_keep_one_read_permit() {
        let lock = Arc::new(RwLock::new((1, String::from("rt"))));
        let mut writer = lock.clone().try_write_owned().unwrap();
        writer.0 = 2;
        let writer = OwnedRwLockWriteGuard::try_downgrade_map(writer, |_| None::<&u8>).unwrap_err();
        assert!(lock.try_read().is_err(), "a failed downgrade keeps writing");
        let name = OwnedRwLockWriteGuard::downgrade_map(writer, |t| t.1.as_str());
        assert_eq!(&*name, "rt");
        assert_eq!(lock.try_read().unwrap().0, 2, "readers get in");
        assert!(!free(&lock), "writers do not");
        drop(name);
        assert!(free(&lock));
        let writer = lock.clone().try_write_owned().unwrap();
        let reader = OwnedRwLockWriteGuard::downgrade(writer);
        let len = OwnedRwLockReadGuard::map(reader, |t| &t.1);
        assert_eq!(len.len(), 2);
        drop(len);
        assert_eq!(Arc::strong_count(&lock), 1);
        assert!(free(&lock));
    }

    #[test]
    fn unsized_parts_and_values() {
        let lock: Arc<RwLock<[u32]>> = Arc::new(RwLock::new([1, 2, 3]));
        let writer = lock.clone().try_write_owned().unwrap();
        let mut tail = OwnedRwLockWriteGuard::map(writer, |s| &mut s[1..]);
        tail[0] = 7;
        drop(tail);
        let reader = lock.clone().try_read_owned().unwrap();
        let first = OwnedRwLockReadGuard::map(reader, |s| &s[0]);
        assert_eq!(*first, 1);
        drop(first);
        assert_eq!(&*lock.try_read().unwrap(), &[1, 7, 3]);
    }
}
