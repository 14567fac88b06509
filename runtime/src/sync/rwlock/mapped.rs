//! Narrowing the borrowed `RwLock` guards: `try_map` on the read, write
//! and mapped write guards, `map` on the mapped write guard, and
//! `RwLockWriteGuard::into_mapped`. Each `map` is its `try_map` with a
//! closure that always finds its part (`always_narrowed`).
//!
//! A narrowed guard takes over the permits of the guard it was made from
//! (which is forgotten, never dropped, so they are released exactly once)
//! and a pointer into the locked value, valid while they are held: the
//! value lives in the `RwLock`, which the borrow `'a` keeps in place.

use super::{RwLockMappedWriteGuard, RwLockReadGuard, RwLockWriteGuard};
use crate::sync::always_narrowed;
use std::marker::PhantomData;

impl<'a, T: ?Sized> RwLockReadGuard<'a, T> {
    /// Narrows the guard to a part of the value if `f` finds one; if it
    /// returns `None`, the guard comes back unchanged (still reading).
    ///
    /// # Errors
    ///
    /// The original guard, when `f` returns `None`.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::sync::{RwLock, RwLockReadGuard};
    /// let lock = RwLock::new(vec![1, 2]);
    /// let guard = RwLockReadGuard::try_map(lock.try_read().unwrap(), |v| v.get(5)).unwrap_err();
    /// let second = RwLockReadGuard::try_map(guard, |v| v.get(1)).unwrap();
    /// assert_eq!(*second, 2);
    /// assert!(lock.try_write().is_err());
    /// ```
    pub fn try_map<U: ?Sized>(
        this: Self,
        f: impl FnOnce(&T) -> Option<&U>,
    ) -> Result<RwLockReadGuard<'a, U>, Self> {
        let Some(data) = f(&*this).map(|part| part as *const U) else {
            return Err(this);
        };
        let (semaphore, token) = (this.semaphore, this.token);
        // The permit (and the reader's place among the holders) moves into
        // the narrowed guard.
        std::mem::forget(this);
        Ok(RwLockReadGuard {
            semaphore,
            data,
            token,
            _borrow: PhantomData,
        })
    }
}

impl<'a, T: ?Sized> RwLockWriteGuard<'a, T> {
    /// Narrows the guard to a part of the value if `f` finds one; if it
    /// returns `None`, the guard comes back unchanged (still writing).
    ///
    /// # Errors
    ///
    /// The original guard, when `f` returns `None`.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::sync::{RwLock, RwLockWriteGuard};
    /// let lock = RwLock::new(vec![1, 2]);
    /// let guard = RwLockWriteGuard::try_map(lock.try_write().unwrap(), |v| v.get_mut(5)).unwrap_err();
    /// let mut second = RwLockWriteGuard::try_map(guard, |v| v.get_mut(1)).unwrap();
    /// *second = 20;
    /// drop(second);
    /// assert_eq!(*lock.try_read().unwrap(), [1, 20]);
    /// ```
    pub fn try_map<U: ?Sized>(
        mut this: Self,
        f: impl FnOnce(&mut T) -> Option<&mut U>,
    ) -> Result<RwLockMappedWriteGuard<'a, U>, Self> {
        let Some(data) = f(&mut *this).map(|part| part as *mut U) else {
            return Err(this);
        };
        let (semaphore, permits) = (&this.lock.semaphore, this.lock.max_reads);
        // The permits move into the mapped guard.
        std::mem::forget(this);
        Ok(RwLockMappedWriteGuard {
            semaphore,
            permits,
            data,
            _borrow: PhantomData,
        })
    }

    /// The same write lock as an [`RwLockMappedWriteGuard`] of the whole
    /// value (for code that takes mapped guards).
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::sync::{RwLock, RwLockMappedWriteGuard, RwLockWriteGuard};
    /// let lock = RwLock::new(1);
    /// let mut whole: RwLockMappedWriteGuard<'_, i32> =
    ///     RwLockWriteGuard::into_mapped(lock.try_write().unwrap());
    /// *whole = 2;
    /// drop(whole);
    /// assert_eq!(*lock.try_read().unwrap(), 2);
    /// ```
    pub fn into_mapped(this: Self) -> RwLockMappedWriteGuard<'a, T> {
        RwLockWriteGuard::map(this, |value| value)
    }
}

impl<'a, T: ?Sized> RwLockMappedWriteGuard<'a, T> {
    /// Narrows the guard further.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::sync::{RwLock, RwLockMappedWriteGuard, RwLockWriteGuard};
    /// let lock = RwLock::new(((0, 0), 0));
    /// let inner = RwLockWriteGuard::map(lock.try_write().unwrap(), |t| &mut t.0);
    /// let mut deepest = RwLockMappedWriteGuard::map(inner, |pair| &mut pair.1);
    /// *deepest = 5;
    /// drop(deepest);
    /// assert_eq!(*lock.try_read().unwrap(), ((0, 5), 0));
    /// ```
    pub fn map<U: ?Sized>(
        this: Self,
        f: impl FnOnce(&mut T) -> &mut U,
    ) -> RwLockMappedWriteGuard<'a, U> {
        always_narrowed(RwLockMappedWriteGuard::try_map(this, |value| {
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
    /// use rt::sync::{RwLock, RwLockMappedWriteGuard, RwLockWriteGuard};
    /// let lock = RwLock::new((vec![1], 0));
    /// let list = RwLockWriteGuard::map(lock.try_write().unwrap(), |t| &mut t.0);
    /// let list = RwLockMappedWriteGuard::try_map(list, |v| v.get_mut(3)).unwrap_err();
    /// assert_eq!(*list, [1]);
    /// ```
    pub fn try_map<U: ?Sized>(
        mut this: Self,
        f: impl FnOnce(&mut T) -> Option<&mut U>,
    ) -> Result<RwLockMappedWriteGuard<'a, U>, Self> {
        let Some(data) = f(&mut *this).map(|part| part as *mut U) else {
            return Err(this);
        };
        let (semaphore, permits) = (this.semaphore, this.permits);
        // The permits move into the new guard.
        std::mem::forget(this);
        Ok(RwLockMappedWriteGuard {
            semaphore,
            permits,
            data,
            _borrow: PhantomData,
        })
    }
}
