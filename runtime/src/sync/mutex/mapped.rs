//! The mutex guards narrowed to a part of the locked value:
//! [`MappedMutexGuard`] (from a borrowed guard) and
//! [`OwnedMappedMutexGuard`] (from an `Arc`-owning one), and the `map` and
//! `try_map` functions that make them.
//!
//! A narrowed guard holds the mutex's one permit, taken over from the
//! guard it was made from (which is forgotten, never dropped, so the permit
//! is released exactly once), and a raw pointer into the locked value that
//! is valid while the permit is held: the value lives in the `Mutex`,
//! which the borrow `'a` or the `Arc` keeps in place.

use super::{Mutex, MutexGuard, OwnedMutexGuard};
use crate::sync::semaphore::Semaphore;
use crate::sync::{always_narrowed, take_arc};
use std::fmt;
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

impl<'a, T: ?Sized> MutexGuard<'a, T> {
    /// Narrows the guard to a part of the value; the lock stays held until
    /// the mapped guard drops.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::sync::{Mutex, MutexGuard};
    /// let mutex = Mutex::new((1, String::new()));
    /// let mut name = MutexGuard::map(mutex.try_lock().unwrap(), |pair| &mut pair.1);
    /// name.push_str("rt");
    /// drop(name);
    /// assert_eq!(mutex.into_inner().1, "rt");
    /// ```
    pub fn map<U: ?Sized>(this: Self, f: impl FnOnce(&mut T) -> &mut U) -> MappedMutexGuard<'a, U> {
        always_narrowed(MutexGuard::try_map(this, |value| Some(f(value))))
    }

    /// Narrows the guard to a part of the value if `f` finds one; if it
    /// returns `None`, the guard comes back unchanged (still locked).
    ///
    /// # Errors
    ///
    /// The original guard, when `f` returns `None`.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::sync::{Mutex, MutexGuard};
    /// let mutex = Mutex::new(vec![1, 2]);
    /// let guard = mutex.try_lock().unwrap();
    /// let guard = MutexGuard::try_map(guard, |v| v.get_mut(5)).unwrap_err();
    /// let mut second = MutexGuard::try_map(guard, |v| v.get_mut(1)).unwrap();
    /// *second = 20;
    /// drop(second);
    /// assert_eq!(mutex.into_inner(), [1, 20]);
    /// ```
    pub fn try_map<U: ?Sized>(
        mut this: Self,
        f: impl FnOnce(&mut T) -> Option<&mut U>,
    ) -> Result<MappedMutexGuard<'a, U>, Self> {
        let Some(data) = f(&mut *this).map(|part| part as *mut U) else {
            return Err(this);
        };
        let semaphore = &this.mutex.semaphore;
        // The permit moves to the mapped guard: no release here.
        std::mem::forget(this);
        Ok(MappedMutexGuard {
            semaphore,
            data,
            _borrow: PhantomData,
        })
    }
}

/// A [`MutexGuard`] narrowed with [`MutexGuard::map`].
///
/// # Examples
///
/// ```
/// use rt::sync::{Mutex, MutexGuard, MappedMutexGuard};
/// let mutex = Mutex::new([0u8; 4]);
/// let mut first: MappedMutexGuard<'_, u8> = MutexGuard::map(mutex.try_lock().unwrap(), |a| &mut a[0]);
/// *first = 9;
/// drop(first);
/// assert_eq!(mutex.into_inner()[0], 9);
/// ```
#[must_use = "the lock is released as soon as the guard is dropped"]
pub struct MappedMutexGuard<'a, T: ?Sized> {
    semaphore: &'a Semaphore,
    data: *mut T,
    _borrow: PhantomData<&'a mut T>,
}

// SAFETY: the mapped guard is an exclusive borrow of part of the mutex's
// value: it may move to another thread when `T: Send`, like `&mut T`.
unsafe impl<T: ?Sized + Send> Send for MappedMutexGuard<'_, T> {}
// SAFETY: sharing it shares `&T`, which needs `T: Sync`.
unsafe impl<T: ?Sized + Sync> Sync for MappedMutexGuard<'_, T> {}

impl<'a, T: ?Sized> MappedMutexGuard<'a, T> {
    /// Narrows the guard further.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::sync::{MappedMutexGuard, Mutex, MutexGuard};
    /// let mutex = Mutex::new(((0, 0), 0));
    /// let inner = MutexGuard::map(mutex.try_lock().unwrap(), |pair| &mut pair.0);
    /// let mut deepest = MappedMutexGuard::map(inner, |pair| &mut pair.1);
    /// *deepest = 5;
    /// drop(deepest);
    /// assert_eq!(mutex.into_inner(), ((0, 5), 0));
    /// ```
    pub fn map<U: ?Sized>(this: Self, f: impl FnOnce(&mut T) -> &mut U) -> MappedMutexGuard<'a, U> {
        always_narrowed(MappedMutexGuard::try_map(this, |value| Some(f(value))))
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
    /// use rt::sync::{MappedMutexGuard, Mutex, MutexGuard};
    /// let mutex = Mutex::new((vec![1], 0));
    /// let list = MutexGuard::map(mutex.try_lock().unwrap(), |pair| &mut pair.0);
    /// let list = MappedMutexGuard::try_map(list, |v| v.get_mut(3)).unwrap_err();
    /// assert_eq!(*list, [1]);
    /// ```
    pub fn try_map<U: ?Sized>(
        mut this: Self,
        f: impl FnOnce(&mut T) -> Option<&mut U>,
    ) -> Result<MappedMutexGuard<'a, U>, Self> {
        let Some(data) = f(&mut *this).map(|part| part as *mut U) else {
            return Err(this);
        };
        let semaphore = this.semaphore;
        // The permit moves to the new guard: no release here.
        std::mem::forget(this);
        Ok(MappedMutexGuard {
            semaphore,
            data,
            _borrow: PhantomData,
        })
    }
}

impl<T: ?Sized> Deref for MappedMutexGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: `data` points into the locked value, and the lock is held
        // until this guard drops.
        unsafe { &*self.data }
    }
}

impl<T: ?Sized> DerefMut for MappedMutexGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as in `deref`, and the guard is borrowed mutably.
        unsafe { &mut *self.data }
    }
}

impl<T: ?Sized> Drop for MappedMutexGuard<'_, T> {
    fn drop(&mut self) {
        self.semaphore.release(1);
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for MappedMutexGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

display_guard!(MappedMutexGuard<'a>);

impl<T: ?Sized> OwnedMutexGuard<T> {
    /// Narrows the guard to a part of the value; the mapped guard keeps
    /// the mutex alive and locked until it drops.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::sync::{Mutex, OwnedMappedMutexGuard, OwnedMutexGuard};
    /// use std::sync::Arc;
    /// let mutex = Arc::new(Mutex::new((0, String::new())));
    /// let guard = mutex.clone().try_lock_owned().unwrap();
    /// let mut name: OwnedMappedMutexGuard<_, String> = OwnedMutexGuard::map(guard, |pair| &mut pair.1);
    /// std::thread::spawn(move || name.push_str("moved")).join().unwrap();
    /// assert_eq!(mutex.try_lock().unwrap().1, "moved");
    /// ```
    pub fn map<U: ?Sized>(
        this: Self,
        f: impl FnOnce(&mut T) -> &mut U,
    ) -> OwnedMappedMutexGuard<T, U> {
        always_narrowed(OwnedMutexGuard::try_map(this, |value| Some(f(value))))
    }

    /// Narrows the guard to a part of the value if `f` finds one;
    /// otherwise the guard comes back unchanged.
    ///
    /// # Errors
    ///
    /// The original guard, when `f` returns `None`.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::sync::{Mutex, OwnedMutexGuard};
    /// use std::sync::Arc;
    /// let mutex = Arc::new(Mutex::new(Some(1)));
    /// let guard = mutex.try_lock_owned().unwrap();
    /// let mut one = OwnedMutexGuard::try_map(guard, Option::as_mut).unwrap();
    /// *one += 1;
    /// assert_eq!(*one, 2);
    /// ```
    pub fn try_map<U: ?Sized>(
        mut this: Self,
        f: impl FnOnce(&mut T) -> Option<&mut U>,
    ) -> Result<OwnedMappedMutexGuard<T, U>, Self> {
        let Some(data) = f(&mut *this).map(|part| part as *mut U) else {
            return Err(this);
        };
        Ok(OwnedMappedMutexGuard {
            mutex: take_arc(this, |guard| &guard.mutex),
            data,
        })
    }
}

/// An [`OwnedMutexGuard`] narrowed with [`OwnedMutexGuard::map`] to a `U`
/// inside the locked `T`: it keeps the mutex alive through an `Arc`, so it
/// can move into a spawned task.
///
/// # Examples
///
/// See [`OwnedMutexGuard::map`].
#[must_use = "the lock is released as soon as the guard is dropped"]
pub struct OwnedMappedMutexGuard<T: ?Sized, U: ?Sized = T> {
    mutex: Arc<Mutex<T>>,
    data: *mut U,
}

// SAFETY: moving the guard moves the `Arc<Mutex<T>>` (sendable when
// `T: Send`) and the exclusive access to `U` (like `&mut U`: `U: Send`).
unsafe impl<T: ?Sized + Send, U: ?Sized + Send> Send for OwnedMappedMutexGuard<T, U> {}
// SAFETY: sharing the guard shares `&U` (`U: Sync`) and the
// `Arc<Mutex<T>>` (a `Mutex<T>` is `Sync` when `T: Send`). The bounds are
// tokio's, tighter than that (`T: Sync`, `U: Send`): the guard is re-exported
// as tokio's by the facade, and no code relies on the difference.
unsafe impl<T: ?Sized + Send + Sync, U: ?Sized + Send + Sync> Sync for OwnedMappedMutexGuard<T, U> {}

impl<T: ?Sized, U: ?Sized> OwnedMappedMutexGuard<T, U> {
    /// Narrows the guard further.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::sync::{Mutex, OwnedMappedMutexGuard, OwnedMutexGuard};
    /// use std::sync::Arc;
    /// let mutex = Arc::new(Mutex::new(((1, 2), 3)));
    /// let inner = OwnedMutexGuard::map(mutex.clone().try_lock_owned().unwrap(), |t| &mut t.0);
    /// let second = OwnedMappedMutexGuard::map(inner, |pair| &mut pair.1);
    /// assert_eq!(*second, 2);
    /// ```
    pub fn map<V: ?Sized>(
        this: Self,
        f: impl FnOnce(&mut U) -> &mut V,
    ) -> OwnedMappedMutexGuard<T, V> {
        always_narrowed(OwnedMappedMutexGuard::try_map(this, |value| Some(f(value))))
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
    /// use rt::sync::{Mutex, OwnedMappedMutexGuard, OwnedMutexGuard};
    /// use std::sync::Arc;
    /// let mutex = Arc::new(Mutex::new((vec![7], ())));
    /// let list = OwnedMutexGuard::map(mutex.try_lock_owned().unwrap(), |t| &mut t.0);
    /// let first = OwnedMappedMutexGuard::try_map(list, |v| v.first_mut()).unwrap();
    /// assert_eq!(*first, 7);
    /// ```
    pub fn try_map<V: ?Sized>(
        mut this: Self,
        f: impl FnOnce(&mut U) -> Option<&mut V>,
    ) -> Result<OwnedMappedMutexGuard<T, V>, Self> {
        let Some(data) = f(&mut *this).map(|part| part as *mut V) else {
            return Err(this);
        };
        Ok(OwnedMappedMutexGuard {
            mutex: take_arc(this, |guard| &guard.mutex),
            data,
        })
    }
}

impl<T: ?Sized, U: ?Sized> Deref for OwnedMappedMutexGuard<T, U> {
    type Target = U;
    fn deref(&self) -> &U {
        // SAFETY: `data` points into the locked value, which the `Arc`
        // keeps in place, and the lock is held until this guard drops.
        unsafe { &*self.data }
    }
}

impl<T: ?Sized, U: ?Sized> DerefMut for OwnedMappedMutexGuard<T, U> {
    fn deref_mut(&mut self) -> &mut U {
        // SAFETY: as in `deref`, and the guard is borrowed mutably.
        unsafe { &mut *self.data }
    }
}

impl<T: ?Sized, U: ?Sized> Drop for OwnedMappedMutexGuard<T, U> {
    fn drop(&mut self) {
        self.mutex.semaphore.release(1);
    }
}

impl<T: ?Sized, U: ?Sized + fmt::Debug> fmt::Debug for OwnedMappedMutexGuard<T, U> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized, U: ?Sized + fmt::Display> fmt::Display for OwnedMappedMutexGuard<T, U> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}
