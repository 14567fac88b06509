//! `RwLock`: an async reader-writer lock, fair and writer-preferring, built
//! on a [`Semaphore`] with `max_reads` permits (`MAX_READS` unless set
//! with [`RwLock::with_max_readers`]).
//!
//! A reader takes one permit, a writer takes all of them. Since the
//! semaphore serves waiters strictly in FIFO order and a new acquire never
//! overtakes a queued one, a waiting writer stops new readers from
//! entering: it gets the lock as soon as the readers ahead of it leave, so
//! writers are never starved. Readers queued behind a writer enter
//! together once it is done.
//!
//! Downgrading a write guard ([`RwLockWriteGuard::downgrade`]):
//! 1. The write guard is consumed without releasing anything; one of its
//!    `max_reads` permits becomes the new read guard's.
//! 2. The other `max_reads - 1` go back to the semaphore, which grants the
//!    waiters at the front of the queue while they fit: queued readers
//!    enter; a queued writer needs every permit, so it waits (and, FIFO,
//!    so does everyone behind it) until the downgraded reader leaves too.
//!
//! The lock is never free in between, so no writer can slip in.

mod mapped;
mod owned;

pub use owned::{OwnedRwLockMappedWriteGuard, OwnedRwLockReadGuard, OwnedRwLockWriteGuard};

use crate::sync::TryLockError;
use crate::sync::always_narrowed;
use crate::sync::semaphore::{Acquire, Semaphore};
use crate::task::waits::{ReadToken, Site};
// The data cell is std's: every access is serialised by the semaphore,
// which is the part loom models.
use std::cell::UnsafeCell;
use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};
use std::panic::Location;
use std::sync::Arc;

/// Readers that may hold the lock at once.
const MAX_READS: usize = (u32::MAX >> 3) as usize;

/// An async reader-writer lock: many readers or one writer.
///
/// Fair: waiters are served in FIFO order, so a waiting writer is not
/// starved by a stream of readers. Cancel-safe: dropping a `read()` or
/// `write()` future (or an `_owned` one) gives up its place in line
/// without leaking the lock.
///
/// Guards borrow the lock ([`read`](RwLock::read),
/// [`write`](RwLock::write)) or, through an `Arc`, own it
/// ([`read_owned`](RwLock::read_owned),
/// [`write_owned`](RwLock::write_owned)) so they can move into a spawned
/// task. Borrowed guards narrow to a part of the value with `map`, and a
/// write guard turns into a read guard with `downgrade`.
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
    /// Readers that may hold the lock at once: the permits a writer takes.
    max_reads: usize,
    data: UnsafeCell<T>,
}

// SAFETY: a writer may get `&mut T` on another thread: `T: Send`.
unsafe impl<T: ?Sized + Send> Send for RwLock<T> {}
// SAFETY: readers on several threads share `&T` (`T: Sync`), and a writer
// on any thread gets `&mut T` (`T: Send`).
unsafe impl<T: ?Sized + Send + Sync> Sync for RwLock<T> {}

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
            max_reads: MAX_READS,
            data: UnsafeCell::new(value),
        }
    }

    /// An unlocked lock holding `value` that lets at most `max_reads`
    /// readers in at once (a further reader waits as for a writer).
    ///
    /// # Panics
    ///
    /// Panics if `max_reads` is 0 or more than `u32::MAX >> 3`.
    ///
    /// # Examples
    ///
    /// ```
    /// let lock = rt::sync::RwLock::with_max_readers(0, 2);
    /// let (_a, _b) = (lock.try_read().unwrap(), lock.try_read().unwrap());
    /// assert!(lock.try_read().is_err());
    /// ```
    #[track_caller]
    pub fn with_max_readers(value: T, max_reads: u32) -> RwLock<T> {
        let max_reads = max_reads as usize;
        assert!(
            (1..=MAX_READS).contains(&max_reads),
            "`RwLock::with_max_readers` needs `max_reads` from 1 to {MAX_READS}"
        );
        RwLock {
            semaphore: Semaphore::new(max_reads),
            max_reads,
            data: UnsafeCell::new(value),
        }
    }

    /// [`new`](RwLock::new) in a `const` context, for a `static`.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::sync::RwLock;
    ///
    /// static CONFIG: RwLock<&str> = RwLock::const_new("default");
    /// assert_eq!(*CONFIG.blocking_read(), "default");
    /// ```
    #[cfg(not(loom))]
    pub const fn const_new(value: T) -> RwLock<T> {
        RwLock {
            semaphore: Semaphore::const_new(MAX_READS),
            max_reads: MAX_READS,
            data: UnsafeCell::new(value),
        }
    }

    /// [`with_max_readers`](RwLock::with_max_readers) in a `const`
    /// context, for a `static`.
    ///
    /// # Panics
    ///
    /// Panics (at compile time, in a `static`) if `max_reads` is 0 or more
    /// than `u32::MAX >> 3`.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::sync::RwLock;
    ///
    /// static POOL: RwLock<u8> = RwLock::const_with_max_readers(0, 2);
    /// let (_a, _b) = (POOL.try_read().unwrap(), POOL.try_read().unwrap());
    /// assert!(POOL.try_read().is_err());
    /// ```
    #[cfg(not(loom))]
    pub const fn const_with_max_readers(value: T, max_reads: u32) -> RwLock<T> {
        let max_reads = max_reads as usize;
        assert!(
            max_reads >= 1 && max_reads <= MAX_READS,
            "`RwLock::const_with_max_readers` needs `max_reads` from 1 to `u32::MAX >> 3`"
        );
        RwLock {
            semaphore: Semaphore::const_new(max_reads),
            max_reads,
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
    #[track_caller]
    pub fn read(&self) -> impl Future<Output = RwLockReadGuard<'_, T>> {
        let at = Location::caller();
        async move {
            self.acquire(1, Site::lock("RwLock::read", at)).await;
            RwLockReadGuard::new(self, self.semaphore.holder.read_acquired(at, false))
        }
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
    #[track_caller]
    pub fn write(&self) -> impl Future<Output = RwLockWriteGuard<'_, T>> {
        let at = Location::caller();
        async move {
            self.acquire(self.max_reads, Site::lock("RwLock::write", at))
                .await;
            self.semaphore.holder.acquired(at, false);
            RwLockWriteGuard { lock: self }
        }
    }

    /// [`read`](RwLock::read) for synchronous code: blocks the thread
    /// until no writer holds or waits for the lock.
    ///
    /// # Panics
    ///
    /// Panics on a thread that runs tasks (use `read().await` there).
    ///
    /// # Examples
    ///
    /// ```
    /// let lock = rt::sync::RwLock::new(5);
    /// assert_eq!(*lock.blocking_read(), 5);
    /// ```
    #[track_caller]
    pub fn blocking_read(&self) -> RwLockReadGuard<'_, T> {
        crate::sync::blocking::block_on("RwLock::blocking_read", self.read())
    }

    /// [`write`](RwLock::write) for synchronous code: blocks the thread
    /// until the lock is free, queued fairly with the tasks waiting for it.
    ///
    /// # Panics
    ///
    /// Panics on a thread that runs tasks (use `write().await` there).
    ///
    /// # Examples
    ///
    /// ```
    /// let lock = rt::sync::RwLock::new(5);
    /// *lock.blocking_write() += 1;
    /// assert_eq!(*lock.blocking_read(), 6);
    /// ```
    #[track_caller]
    pub fn blocking_write(&self) -> RwLockWriteGuard<'_, T> {
        crate::sync::blocking::block_on("RwLock::blocking_write", self.write())
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
    #[track_caller]
    pub fn try_read(&self) -> Result<RwLockReadGuard<'_, T>, TryLockError> {
        self.try_acquire(1)?;
        let token = self
            .semaphore
            .holder
            .read_acquired(Location::caller(), false);
        Ok(RwLockReadGuard::new(self, token))
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
    #[track_caller]
    pub fn try_write(&self) -> Result<RwLockWriteGuard<'_, T>, TryLockError> {
        self.try_acquire(self.max_reads)?;
        self.semaphore.holder.acquired(Location::caller(), false);
        Ok(RwLockWriteGuard { lock: self })
    }

    /// Waits for shared read access, with a guard that owns an `Arc` of the
    /// lock (so it can move into a spawned task). Waits behind any queued
    /// writer.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use rt::sync::RwLock;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let lock = Arc::new(RwLock::new(7));
    ///     let guard = lock.clone().read_owned().await;
    ///     let doubled = rt::spawn(async move { *guard * 2 });
    ///     assert_eq!(doubled.await.unwrap(), 14);
    ///     assert!(lock.try_write().is_ok());
    /// });
    /// ```
    #[track_caller]
    pub fn read_owned(self: Arc<Self>) -> impl Future<Output = OwnedRwLockReadGuard<T>> {
        let at = Location::caller();
        async move {
            self.acquire(1, Site::lock("RwLock::read_owned", at)).await;
            let token = self.semaphore.holder.read_acquired(at, true);
            OwnedRwLockReadGuard::new(self, token)
        }
    }

    /// Waits for exclusive write access, with a guard that owns an `Arc` of
    /// the lock (so it can move into a spawned task).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use rt::sync::RwLock;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let lock = Arc::new(RwLock::new(String::new()));
    ///     let mut guard = lock.clone().write_owned().await;
    ///     rt::spawn(async move { guard.push_str("rt") }).await.unwrap();
    ///     assert_eq!(*lock.read().await, "rt");
    /// });
    /// ```
    #[track_caller]
    pub fn write_owned(self: Arc<Self>) -> impl Future<Output = OwnedRwLockWriteGuard<T>> {
        let at = Location::caller();
        async move {
            self.acquire(self.max_reads, Site::lock("RwLock::write_owned", at))
                .await;
            self.semaphore.holder.acquired(at, true);
            OwnedRwLockWriteGuard::new(self)
        }
    }

    /// Read access now, with an owned guard, if no writer holds or waits
    /// for the lock.
    ///
    /// # Errors
    ///
    /// [`TryLockError`](crate::sync::TryLockError) when a writer holds the lock or anyone is queued.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// let lock = Arc::new(rt::sync::RwLock::new(0));
    /// let guard = lock.clone().try_read_owned().unwrap();
    /// assert!(lock.clone().try_read_owned().is_ok());
    /// assert!(lock.clone().try_write_owned().is_err());
    /// drop(guard);
    /// ```
    #[track_caller]
    pub fn try_read_owned(self: Arc<Self>) -> Result<OwnedRwLockReadGuard<T>, TryLockError> {
        self.try_acquire(1)?;
        let token = self
            .semaphore
            .holder
            .read_acquired(Location::caller(), true);
        Ok(OwnedRwLockReadGuard::new(self, token))
    }

    /// Write access now, with an owned guard, if the lock is free and no
    /// one is queued.
    ///
    /// # Errors
    ///
    /// [`TryLockError`](crate::sync::TryLockError) when the lock is held or anyone is queued.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// let lock = Arc::new(rt::sync::RwLock::new(0));
    /// let mut guard = lock.clone().try_write_owned().unwrap();
    /// assert!(lock.clone().try_read_owned().is_err());
    /// *guard = 1;
    /// drop(guard);
    /// assert_eq!(*lock.try_read().unwrap(), 1);
    /// ```
    #[track_caller]
    pub fn try_write_owned(self: Arc<Self>) -> Result<OwnedRwLockWriteGuard<T>, TryLockError> {
        self.try_acquire(self.max_reads)?;
        self.semaphore.holder.acquired(Location::caller(), true);
        Ok(OwnedRwLockWriteGuard::new(self))
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

    /// Waits for `permits` permits: one to read, `max_reads` to write.
    async fn acquire(&self, permits: usize, site: Site) {
        Acquire::new(&self.semaphore, permits, site)
            .await
            .expect("an rwlock's semaphore is never closed");
    }

    /// Takes `permits` permits now, if they are free and no one is queued.
    fn try_acquire(&self, permits: usize) -> Result<(), TryLockError> {
        self.semaphore
            .try_take(permits)
            .map_err(|_| TryLockError(()))
    }

    /// Step 2 of a downgrade: a writer keeps one of its permits for the
    /// read guard it became and returns the rest.
    fn release_all_reads_but_one(&self) {
        self.semaphore.release(self.max_reads - 1);
    }
}

/// A lock holding `value`, as [`RwLock::new`].
///
/// # Examples
///
/// ```
/// let lock: rt::sync::RwLock<&str> = "rt".into();
/// assert_eq!(*lock.try_read().unwrap(), "rt");
/// ```
impl<T> From<T> for RwLock<T> {
    fn from(value: T) -> RwLock<T> {
        RwLock::new(value)
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

/// Shared access to an [`RwLock`]'s value, or to a part of it after
/// [`map`](RwLockReadGuard::map).
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
    semaphore: &'a Semaphore,
    /// Points into the locked value; valid while the read permit is held.
    data: *const T,
    /// This reader among the lock's holders (`task::waits`).
    token: ReadToken,
    _borrow: PhantomData<&'a T>,
}

// SAFETY: the guard only gives `&T`; sending or sharing it shares `&T`.
unsafe impl<T: ?Sized + Sync> Send for RwLockReadGuard<'_, T> {}
// SAFETY: as above.
unsafe impl<T: ?Sized + Sync> Sync for RwLockReadGuard<'_, T> {}

impl<'a, T: ?Sized> RwLockReadGuard<'a, T> {
    /// The guard of a read permit of `lock` that the caller has just taken
    /// (listed as a holder under `token`); the guard releases it.
    fn new(lock: &'a RwLock<T>, token: ReadToken) -> RwLockReadGuard<'a, T> {
        RwLockReadGuard {
            semaphore: &lock.semaphore,
            data: lock.data.get(),
            token,
            _borrow: PhantomData,
        }
    }

    /// Narrows the guard to a part of the value; the read lock stays held
    /// until the narrowed guard drops.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::sync::{RwLock, RwLockReadGuard};
    /// let lock = RwLock::new((1, String::from("rt")));
    /// let name = RwLockReadGuard::map(lock.try_read().unwrap(), |pair| &pair.1);
    /// assert_eq!(*name, "rt");
    /// assert!(lock.try_write().is_err());
    /// drop(name);
    /// assert!(lock.try_write().is_ok());
    /// ```
    pub fn map<U: ?Sized>(this: Self, f: impl FnOnce(&T) -> &U) -> RwLockReadGuard<'a, U> {
        always_narrowed(RwLockReadGuard::try_map(this, |value| Some(f(value))))
    }
}

impl<T: ?Sized> Deref for RwLockReadGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: `data` points into the locked value, and a read permit is
        // held until the guard drops: no writer (the only source of
        // `&mut T`) can hold the lock meanwhile.
        unsafe { &*self.data }
    }
}

impl<T: ?Sized> Drop for RwLockReadGuard<'_, T> {
    fn drop(&mut self) {
        self.semaphore.holder.read_released(self.token);
        self.semaphore.release(1);
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

// SAFETY: the guard gives `&mut T`, like owning it: `T: Send` to send; and
// it downgrades to a read guard shared with readers on other threads:
// `T: Sync`.
unsafe impl<T: ?Sized + Send + Sync> Send for RwLockWriteGuard<'_, T> {}
// SAFETY: sharing the guard shares `&T`: `T: Sync`.
unsafe impl<T: ?Sized + Send + Sync> Sync for RwLockWriteGuard<'_, T> {}

impl<'a, T: ?Sized> RwLockWriteGuard<'a, T> {
    /// Narrows the guard to a part of the value; the write lock stays held
    /// until the mapped guard drops.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::sync::{RwLock, RwLockWriteGuard};
    /// let lock = RwLock::new((1, String::new()));
    /// let mut name = RwLockWriteGuard::map(lock.try_write().unwrap(), |pair| &mut pair.1);
    /// name.push_str("rt");
    /// assert!(lock.try_read().is_err());
    /// drop(name);
    /// assert_eq!(*lock.try_read().unwrap(), (1, String::from("rt")));
    /// ```
    pub fn map<U: ?Sized>(
        this: Self,
        f: impl FnOnce(&mut T) -> &mut U,
    ) -> RwLockMappedWriteGuard<'a, U> {
        always_narrowed(RwLockWriteGuard::try_map(this, |value| Some(f(value))))
    }

    /// Turns the write lock into a read lock without letting it go: queued
    /// readers at the front of the line get in at once, but no writer can
    /// take the lock until this reader (and every other) has left. See the
    /// module docs for the steps.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::sync::{RwLock, RwLockWriteGuard};
    /// let lock = RwLock::new(1);
    /// let mut writer = lock.try_write().unwrap();
    /// *writer = 2;
    /// let reader = RwLockWriteGuard::downgrade(writer);
    /// assert_eq!(*lock.try_read().unwrap(), 2);
    /// assert!(lock.try_write().is_err());
    /// drop(reader);
    /// assert!(lock.try_write().is_ok());
    /// ```
    pub fn downgrade(this: Self) -> RwLockReadGuard<'a, T> {
        let data = this.lock.data.get();
        RwLockWriteGuard::downgrade_to(this, data)
    }

    /// [`downgrade`](RwLockWriteGuard::downgrade), narrowed to a part of
    /// the value (as [`RwLockReadGuard::map`] narrows a read guard).
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::sync::{RwLock, RwLockWriteGuard};
    /// let lock = RwLock::new((1, String::from("rt")));
    /// let mut writer = lock.try_write().unwrap();
    /// writer.0 += 1;
    /// let name = RwLockWriteGuard::downgrade_map(writer, |pair| &pair.1);
    /// assert_eq!(*name, "rt");
    /// assert_eq!(lock.try_read().unwrap().0, 2);
    /// assert!(lock.try_write().is_err());
    /// ```
    pub fn downgrade_map<U: ?Sized>(
        this: Self,
        f: impl FnOnce(&T) -> &U,
    ) -> RwLockReadGuard<'a, U> {
        let data: *const U = f(&*this);
        RwLockWriteGuard::downgrade_to(this, data)
    }

    /// [`downgrade_map`](RwLockWriteGuard::downgrade_map) where `f` may
    /// find nothing to narrow to: then the write guard is handed back,
    /// still holding the write lock.
    ///
    /// # Errors
    ///
    /// The write guard, when `f` returns `None`.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::sync::{RwLock, RwLockWriteGuard};
    /// let lock = RwLock::new(vec![1, 2]);
    /// let writer = lock.try_write().unwrap();
    /// let writer = RwLockWriteGuard::try_downgrade_map(writer, |v| v.get(5)).unwrap_err();
    /// let second = RwLockWriteGuard::try_downgrade_map(writer, |v| v.get(1)).unwrap();
    /// assert_eq!(*second, 2);
    /// ```
    pub fn try_downgrade_map<U: ?Sized>(
        this: Self,
        f: impl FnOnce(&T) -> Option<&U>,
    ) -> Result<RwLockReadGuard<'a, U>, Self> {
        let Some(data) = f(&*this).map(|part| part as *const U) else {
            return Err(this);
        };
        Ok(RwLockWriteGuard::downgrade_to(this, data))
    }

    /// The downgrade's steps, with the read guard reading `data`, which
    /// points into the value `this` locks.
    fn downgrade_to<U: ?Sized>(this: Self, data: *const U) -> RwLockReadGuard<'a, U> {
        let lock = this.lock;
        // Step 1: one of the writer's permits becomes the reader's. The
        // guard exists before step 2 wakes anyone, so a panicking waker
        // still releases it.
        std::mem::forget(this);
        let reader = RwLockReadGuard {
            semaphore: &lock.semaphore,
            data,
            token: lock.semaphore.holder.downgraded(),
            _borrow: PhantomData,
        };
        lock.release_all_reads_but_one();
        reader
    }
}

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
        self.lock.semaphore.release(self.lock.max_reads);
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for RwLockWriteGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

/// An [`RwLockWriteGuard`] narrowed with [`RwLockWriteGuard::map`].
///
/// It has no `downgrade`: `map` had exclusive access and may have reached
/// through interior mutability (`Cell::get_mut`), so readers sharing the
/// rest of the value could alias the part it points to.
///
/// # Examples
///
/// ```
/// use rt::sync::{RwLockMappedWriteGuard, RwLock, RwLockWriteGuard};
/// let lock = RwLock::new([0u8; 4]);
/// let mut first: RwLockMappedWriteGuard<'_, u8> =
///     RwLockWriteGuard::map(lock.try_write().unwrap(), |a| &mut a[0]);
/// *first = 9;
/// drop(first);
/// assert_eq!(lock.into_inner(), [9, 0, 0, 0]);
/// ```
#[must_use = "the lock is released as soon as the guard is dropped"]
pub struct RwLockMappedWriteGuard<'a, T: ?Sized> {
    semaphore: &'a Semaphore,
    /// All of the lock's permits (its `max_reads`).
    permits: usize,
    /// Points into the locked value; valid while the permits are held.
    data: *mut T,
    _borrow: PhantomData<&'a mut T>,
}

// SAFETY: the mapped guard is an exclusive borrow of part of the lock's
// value: it may move to another thread when `T: Send`, like `&mut T`. The
// bound is tokio's (and the write guard's), tighter than that (`T: Sync`
// too): the facade re-exports this guard as tokio's.
unsafe impl<T: ?Sized + Send + Sync> Send for RwLockMappedWriteGuard<'_, T> {}
// SAFETY: sharing it shares `&T`, which needs `T: Sync`.
unsafe impl<T: ?Sized + Sync> Sync for RwLockMappedWriteGuard<'_, T> {}

impl<T: ?Sized> Deref for RwLockMappedWriteGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: `data` points into the locked value, and all permits are
        // held until this guard drops.
        unsafe { &*self.data }
    }
}

impl<T: ?Sized> DerefMut for RwLockMappedWriteGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as in `deref`, and the guard is borrowed mutably.
        unsafe { &mut *self.data }
    }
}

impl<T: ?Sized> Drop for RwLockMappedWriteGuard<'_, T> {
    fn drop(&mut self) {
        self.semaphore.release(self.permits);
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for RwLockMappedWriteGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

display_guard!(
    RwLockReadGuard<'a>,
    RwLockWriteGuard<'a>,
    RwLockMappedWriteGuard<'a>,
    OwnedRwLockWriteGuard,
);
