//! `Semaphore`: a fair (FIFO) counting semaphore.
//!
//! State: one atomic word holds the free permits, a `QUEUED` bit (set
//! exactly while waiters are queued, changed only under the lock) and a
//! `CLOSED` bit; the waiters sit in a FIFO list under a mutex.
//!
//! Protocol:
//! 1. `acquire(n)` takes `n` permits with one compare-exchange if no one is
//!    queued and enough are free (no lock). Otherwise, under the lock, it
//!    re-checks, sets `QUEUED`, queues a waiter asking for `n` and runs
//!    step 2's hand-out (which gives it what is free if it is the front).
//! 2. Releasing permits (a permit dropped, `add_permits`) adds them with
//!    one compare-exchange while no one is queued. With waiters queued it
//!    takes the lock, adds them, then hands the pool out from the front
//!    of the queue: the front waiter is assigned what it still lacks, or
//!    all there is. A waiter assigned its whole request is granted:
//!    unlinked (so the next one can be served) and woken; its permits are
//!    already out of the pool. When the queue empties, `QUEUED` is
//!    cleared. So while waiters are queued no permit is free: as in
//!    tokio, permits set aside for the front waiter are not available.
//! 3. A new acquire never overtakes a queued waiter (the fast path fails
//!    while `QUEUED` is set; only an acquire of zero permits, which takes
//!    nothing from anyone, passes), so a waiter for many permits is not
//!    starved by a stream of small acquires: its assigned permits grow
//!    until they cover its request.
//! 4. Cancellation: a dropped acquire future removes its waiter and puts
//!    the permits assigned to it (all of them, if it had been granted)
//!    back in the pool; then step 2 runs again, so the next waiter gets
//!    them and no wake-up is lost.
//! 5. `close` sets `CLOSED` and wakes every queued waiter; they return
//!    [`AcquireError`], returning the permits assigned to them only then
//!    (or when dropped), so until they do those permits are still out:
//!    an mpsc receiver counts the channel idle only once they are back.
//!    A waiter granted its permits whose future has not returned them yet
//!    fails too (every acquire that completes after the close does), and
//!    its permits go back to the pool. Permits already handed out stay
//!    valid.
//! 6. The cooperative budget is checked only once an acquire has its
//!    permits (as in tokio): an acquire that has to wait queues its
//!    waiter, is not charged and is not woken by a forced yield, whatever
//!    the budget; so it keeps its place in line, and a task whose budget
//!    ran out before it queued is not woken before its turn. Once the
//!    permits are its own (taken at once, or granted from the queue) it
//!    spends a unit, and if the budget is spent it yields instead:
//!    granted permits stay with the future (its turn came; dropping it
//!    returns them), while permits it just took from a free pool go back
//!    before it yields. There rt differs from tokio, which keeps them too:
//!    a lock held by a task that is not running stalls every other locker
//!    until it runs (measured when rt tried it: 3x slower on the
//!    contended-mutex bench), while no one is queued behind a pool that
//!    was free, so giving the permits back costs no one their turn.

use crate::loom::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use crate::loom::sync::{Mutex, MutexGuard};
use crate::sync::semaphore_permit::{OwnedSemaphorePermit, SemaphorePermit};
use crate::sync::wait_list::{WaitList, WakeList, register};
use crate::task::poll_proceed;
use crate::task::waits::{HolderSlot, Site};
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

/// A counting semaphore with fair, first-in first-out waiters.
///
/// Cancel safety: dropping an `acquire*` future gives up its place in the
/// queue; if permits had already been assigned to it they are released to
/// the next waiter. No permit is leaked and no wake-up is lost, but the
/// dropped caller loses its place in the queue.
///
/// # Examples
///
/// ```
/// use rt::sync::Semaphore;
///
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let semaphore = Semaphore::new(2);
///     let a = semaphore.acquire().await.unwrap();
///     let _b = semaphore.acquire().await.unwrap();
///     assert!(semaphore.try_acquire().is_err());
///     drop(a);
///     assert_eq!(semaphore.available_permits(), 1);
/// });
/// ```
pub struct Semaphore {
    /// Free permits `<< SHIFT`, plus the `QUEUED` and `CLOSED` bits.
    word: AtomicUsize,
    waiters: Mutex<WaitList<Waiter>>,
    /// The task holding the `Mutex` or the `RwLock` (for writing) this
    /// semaphore implements, for the task dump (`task/waits.rs`); cleared
    /// by every release.
    pub(crate) holder: HolderSlot,
}

const QUEUED: usize = 1;
const CLOSED: usize = 2;
const SHIFT: usize = 2;

fn permits(word: usize) -> usize {
    word >> SHIFT
}

#[derive(Debug)]
struct Waiter {
    /// The whole request.
    needed: usize,
    /// Taken out of the pool for it so far (step 2); all of `needed` once
    /// it is granted.
    assigned: usize,
    /// Woken by `close` rather than granted (step 5).
    closed_out: bool,
    waker: Option<Waker>,
}

type Waiters<'a> = MutexGuard<'a, WaitList<Waiter>>;

/// The error of [`Semaphore::acquire`]: the semaphore was closed.
///
/// # Examples
///
/// ```
/// let semaphore = rt::sync::Semaphore::new(0);
/// semaphore.close();
/// let err = futures::executor::block_on(semaphore.acquire()).unwrap_err();
/// assert_eq!(err.to_string(), "semaphore closed");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AcquireError(());

impl fmt::Display for AcquireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("semaphore closed")
    }
}

impl std::error::Error for AcquireError {}

/// The error of [`Semaphore::try_acquire`].
///
/// # Examples
///
/// ```
/// use rt::sync::{Semaphore, TryAcquireError};
/// let semaphore = Semaphore::new(0);
/// assert_eq!(semaphore.try_acquire().unwrap_err(), TryAcquireError::NoPermits);
/// semaphore.close();
/// assert_eq!(semaphore.try_acquire().unwrap_err(), TryAcquireError::Closed);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TryAcquireError {
    /// The semaphore was closed.
    Closed,
    /// Not enough permits are free now (or other callers are queued first).
    NoPermits,
}

impl fmt::Display for TryAcquireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TryAcquireError::Closed => f.write_str("semaphore closed"),
            TryAcquireError::NoPermits => f.write_str("no permits available"),
        }
    }
}

impl std::error::Error for TryAcquireError {}

impl Semaphore {
    /// The largest number of permits a semaphore can hold.
    pub const MAX_PERMITS: usize = usize::MAX >> 3;

    /// A semaphore with `permits` free permits.
    ///
    /// # Panics
    ///
    /// Panics if `permits` exceeds [`Semaphore::MAX_PERMITS`].
    ///
    /// # Examples
    ///
    /// ```
    /// let semaphore = rt::sync::Semaphore::new(3);
    /// assert_eq!(semaphore.available_permits(), 3);
    /// ```
    #[track_caller]
    pub fn new(permits: usize) -> Semaphore {
        assert!(
            permits <= Semaphore::MAX_PERMITS,
            "a semaphore holds at most `Semaphore::MAX_PERMITS` permits"
        );
        Semaphore {
            word: AtomicUsize::new(permits << SHIFT),
            waiters: Mutex::new(WaitList::new()),
            holder: HolderSlot::new(),
        }
    }

    /// [`new`](Semaphore::new) in a `const` context, for a `static`.
    ///
    /// # Panics
    ///
    /// Panics (at compile time in a `static`) if `permits` exceeds
    /// [`Semaphore::MAX_PERMITS`].
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::sync::Semaphore;
    ///
    /// static CONNECTIONS: Semaphore = Semaphore::const_new(10);
    /// let permit = CONNECTIONS.try_acquire().unwrap();
    /// assert_eq!(CONNECTIONS.available_permits(), 9);
    /// # drop(permit);
    /// ```
    #[cfg(not(loom))]
    pub const fn const_new(permits: usize) -> Semaphore {
        assert!(
            permits <= Semaphore::MAX_PERMITS,
            "a semaphore holds at most `Semaphore::MAX_PERMITS` permits"
        );
        Semaphore {
            word: AtomicUsize::new(permits << SHIFT),
            waiters: Mutex::new(WaitList::new()),
            holder: HolderSlot::new(),
        }
    }

    fn lock(&self) -> Waiters<'_> {
        // Nothing panics while holding the lock, but stay usable if a
        // waker's clone did.
        self.waiters.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The number of free permits now. Permits set aside for the first
    /// queued acquire (it waits for more than there were) are not free.
    ///
    /// # Examples
    ///
    /// ```
    /// let semaphore = rt::sync::Semaphore::new(2);
    /// let _permit = semaphore.try_acquire().unwrap();
    /// assert_eq!(semaphore.available_permits(), 1);
    /// ```
    pub fn available_permits(&self) -> usize {
        permits(self.word.load(SeqCst))
    }

    /// Takes up to `n` free permits out of the semaphore for good (as
    /// forgetting permits would, without acquiring them first); returns
    /// how many it took. Permits held elsewhere are not affected.
    ///
    /// # Examples
    ///
    /// ```
    /// let semaphore = rt::sync::Semaphore::new(3);
    /// let held = semaphore.try_acquire().unwrap();
    /// assert_eq!(semaphore.forget_permits(5), 2);
    /// drop(held);
    /// assert_eq!(semaphore.available_permits(), 1);
    /// ```
    pub fn forget_permits(&self, n: usize) -> usize {
        let mut word = self.word.load(SeqCst);
        loop {
            let taken = n.min(permits(word));
            if taken == 0 {
                return 0;
            }
            match self
                .word
                .compare_exchange(word, word - (taken << SHIFT), SeqCst, SeqCst)
            {
                Ok(_) => return taken,
                Err(actual) => word = actual,
            }
        }
    }

    /// Adds `n` permits, waking queued waiters they satisfy.
    ///
    /// # Panics
    ///
    /// Panics if the total would exceed [`Semaphore::MAX_PERMITS`].
    ///
    /// # Examples
    ///
    /// ```
    /// let semaphore = rt::sync::Semaphore::new(0);
    /// semaphore.add_permits(2);
    /// assert_eq!(semaphore.available_permits(), 2);
    /// ```
    #[track_caller]
    pub fn add_permits(&self, n: usize) {
        let total = self.available_permits().checked_add(n);
        if total.is_none_or(|total| total > Semaphore::MAX_PERMITS) {
            panic!("`Semaphore::add_permits` would exceed `Semaphore::MAX_PERMITS`");
        }
        self.release(n);
    }

    /// Returns `n` permits to the pool (step 2).
    pub(crate) fn release(&self, n: usize) {
        if n == 0 {
            return;
        }
        self.holder.released();
        let mut word = self.word.load(SeqCst);
        while word & QUEUED == 0 {
            match self
                .word
                .compare_exchange(word, word + (n << SHIFT), SeqCst, SeqCst)
            {
                Ok(_) => return,
                Err(actual) => word = actual,
            }
        }
        let mut waiters = self.lock();
        self.word.fetch_add(n << SHIFT, SeqCst);
        let mut wakers = WakeList::new();
        self.grant(&mut waiters, &mut wakers);
        drop(waiters);
        wakers.wake_all();
    }

    /// Step 2 with the lock held: hands the pool to the front waiters,
    /// granting each one whose request it covers, and clears `QUEUED` once
    /// none is left.
    fn grant(&self, waiters: &mut Waiters<'_>, wakers: &mut WakeList) {
        loop {
            let Some(key) = waiters.front() else {
                self.word.fetch_and(!QUEUED, SeqCst);
                return;
            };
            let waiter = waiters.get_mut(key);
            let lacking = waiter.needed - waiter.assigned;
            // Only lock holders add permits while QUEUED is set, but
            // `forget_permits` may take some without the lock.
            let mut word = self.word.load(SeqCst);
            let given = loop {
                let given = lacking.min(permits(word));
                if given == 0 {
                    break 0;
                }
                match self
                    .word
                    .compare_exchange(word, word - (given << SHIFT), SeqCst, SeqCst)
                {
                    Ok(_) => break given,
                    Err(actual) => word = actual,
                }
            };
            waiter.assigned += given;
            if given < lacking {
                return;
            }
            wakers.push(waiter.waker.take());
            waiters.unlink(key);
        }
    }

    /// Closes the semaphore: queued and future `acquire` calls fail.
    /// Permits already held stay valid.
    ///
    /// # Examples
    ///
    /// ```
    /// let semaphore = rt::sync::Semaphore::new(1);
    /// semaphore.close();
    /// assert!(semaphore.is_closed());
    /// assert!(semaphore.try_acquire().is_err());
    /// ```
    pub fn close(&self) {
        let mut waiters = self.lock();
        self.word.fetch_or(CLOSED, SeqCst);
        let mut wakers = WakeList::new();
        // Closed-out waiters are unlinked like granted ones but marked, so
        // their futures report the close instead of taking permits (step 5).
        while let Some(key) = waiters.pop_front() {
            let waiter = waiters.get_mut(key);
            // Its assigned permits go back when its future sees the close.
            waiter.closed_out = true;
            wakers.push(waiter.waker.take());
        }
        self.word.fetch_and(!QUEUED, SeqCst);
        drop(waiters);
        wakers.wake_all();
    }

    /// `true` once [`close`](Semaphore::close) was called.
    ///
    /// # Examples
    ///
    /// ```
    /// let semaphore = rt::sync::Semaphore::new(1);
    /// assert!(!semaphore.is_closed());
    /// ```
    pub fn is_closed(&self) -> bool {
        self.word.load(SeqCst) & CLOSED != 0
    }

    /// Waits for one permit.
    ///
    /// # Errors
    ///
    /// Fails if the semaphore is closed before the permit is granted.
    ///
    /// # Examples
    ///
    /// ```
    /// let semaphore = rt::sync::Semaphore::new(1);
    /// let permit = futures::executor::block_on(semaphore.acquire()).unwrap();
    /// assert_eq!(permit.num_permits(), 1);
    /// ```
    #[track_caller]
    pub fn acquire(&self) -> impl Future<Output = Result<SemaphorePermit<'_>, AcquireError>> {
        let site = Site::here("Semaphore::acquire");
        async move {
            Acquire::new(self, 1, site).await?;
            Ok(SemaphorePermit::new(self, 1))
        }
    }

    /// Waits for `n` permits, taken all at once.
    ///
    /// # Errors
    ///
    /// Fails if the semaphore is closed before the permits are granted.
    ///
    /// # Examples
    ///
    /// ```
    /// let semaphore = rt::sync::Semaphore::new(5);
    /// let permit = futures::executor::block_on(semaphore.acquire_many(3)).unwrap();
    /// assert_eq!(semaphore.available_permits(), 2);
    /// drop(permit);
    /// assert_eq!(semaphore.available_permits(), 5);
    /// ```
    #[track_caller]
    pub fn acquire_many(
        &self,
        n: u32,
    ) -> impl Future<Output = Result<SemaphorePermit<'_>, AcquireError>> {
        let site = Site::here("Semaphore::acquire_many");
        async move {
            Acquire::new(self, n as usize, site).await?;
            Ok(SemaphorePermit::new(self, n as usize))
        }
    }

    /// [`acquire`](Semaphore::acquire) for synchronous code: blocks the
    /// thread until a permit is granted, queued fairly with the tasks
    /// waiting for one.
    ///
    /// # Errors
    ///
    /// Fails if the semaphore is closed before the permit is granted.
    ///
    /// # Panics
    ///
    /// Panics on a thread that runs tasks (use `acquire().await` there).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// let semaphore = Arc::new(rt::sync::Semaphore::new(0));
    /// let shared = semaphore.clone();
    /// let waiter = std::thread::spawn(move || shared.blocking_acquire().map(|p| p.forget()));
    /// semaphore.add_permits(1);
    /// assert!(waiter.join().unwrap().is_ok());
    /// ```
    #[track_caller]
    pub fn blocking_acquire(&self) -> Result<SemaphorePermit<'_>, AcquireError> {
        crate::sync::blocking::block_on("Semaphore::blocking_acquire", self.acquire())
    }

    /// [`acquire_many`](Semaphore::acquire_many) for synchronous code:
    /// blocks the thread until the `n` permits are granted.
    ///
    /// # Errors
    ///
    /// Fails if the semaphore is closed before the permits are granted.
    ///
    /// # Panics
    ///
    /// Panics on a thread that runs tasks (use `acquire_many(n).await`
    /// there).
    ///
    /// # Examples
    ///
    /// ```
    /// let semaphore = rt::sync::Semaphore::new(3);
    /// let permit = semaphore.blocking_acquire_many(3).unwrap();
    /// assert_eq!(permit.num_permits(), 3);
    /// ```
    #[track_caller]
    pub fn blocking_acquire_many(&self, n: u32) -> Result<SemaphorePermit<'_>, AcquireError> {
        crate::sync::blocking::block_on("Semaphore::blocking_acquire_many", self.acquire_many(n))
    }

    /// [`acquire_owned`](Semaphore::acquire_owned) for synchronous code:
    /// blocks the thread until a permit is granted.
    ///
    /// # Errors
    ///
    /// Fails if the semaphore is closed before the permit is granted.
    ///
    /// # Panics
    ///
    /// Panics on a thread that runs tasks (use `acquire_owned().await`
    /// there).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// let semaphore = Arc::new(rt::sync::Semaphore::new(1));
    /// let permit = semaphore.clone().blocking_acquire_owned().unwrap();
    /// assert_eq!(semaphore.available_permits(), 0);
    /// drop(permit);
    /// assert_eq!(semaphore.available_permits(), 1);
    /// ```
    #[track_caller]
    pub fn blocking_acquire_owned(self: Arc<Self>) -> Result<OwnedSemaphorePermit, AcquireError> {
        crate::sync::blocking::block_on("Semaphore::blocking_acquire_owned", self.acquire_owned())
    }

    /// [`acquire_many_owned`](Semaphore::acquire_many_owned) for
    /// synchronous code: blocks the thread until the `n` permits are
    /// granted.
    ///
    /// # Errors
    ///
    /// Fails if the semaphore is closed before the permits are granted.
    ///
    /// # Panics
    ///
    /// Panics on a thread that runs tasks (use
    /// `acquire_many_owned(n).await` there).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// let semaphore = Arc::new(rt::sync::Semaphore::new(3));
    /// let permit = semaphore.clone().blocking_acquire_many_owned(2).unwrap();
    /// assert_eq!(permit.num_permits(), 2);
    /// semaphore.close();
    /// assert!(semaphore.blocking_acquire_many_owned(2).is_err());
    /// ```
    #[track_caller]
    pub fn blocking_acquire_many_owned(
        self: Arc<Self>,
        n: u32,
    ) -> Result<OwnedSemaphorePermit, AcquireError> {
        crate::sync::blocking::block_on(
            "Semaphore::blocking_acquire_many_owned",
            self.acquire_many_owned(n),
        )
    }

    /// Takes one permit if one is free and no one is queued.
    ///
    /// # Errors
    ///
    /// [`TryAcquireError::NoPermits`] or [`TryAcquireError::Closed`].
    ///
    /// # Examples
    ///
    /// ```
    /// let semaphore = rt::sync::Semaphore::new(1);
    /// let permit = semaphore.try_acquire().unwrap();
    /// assert!(semaphore.try_acquire().is_err());
    /// drop(permit);
    /// assert!(semaphore.try_acquire().is_ok());
    /// ```
    pub fn try_acquire(&self) -> Result<SemaphorePermit<'_>, TryAcquireError> {
        self.try_acquire_many(1)
    }

    /// Takes `n` permits if they are free and no one is queued (zero
    /// permits are always free while the semaphore is open).
    ///
    /// # Errors
    ///
    /// [`TryAcquireError::NoPermits`] or [`TryAcquireError::Closed`].
    ///
    /// # Examples
    ///
    /// ```
    /// let semaphore = rt::sync::Semaphore::new(2);
    /// assert!(semaphore.try_acquire_many(3).is_err());
    /// assert!(semaphore.try_acquire_many(2).is_ok());
    /// ```
    pub fn try_acquire_many(&self, n: u32) -> Result<SemaphorePermit<'_>, TryAcquireError> {
        self.try_take(n as usize)?;
        Ok(SemaphorePermit::new(self, n as usize))
    }

    /// Step 1 without the lock.
    pub(crate) fn try_take(&self, n: usize) -> Result<(), TryAcquireError> {
        let mut word = self.word.load(SeqCst);
        loop {
            if word & CLOSED != 0 {
                return Err(TryAcquireError::Closed);
            }
            // Zero permits need none: no one queued can be owed them (as
            // in tokio, where a request for zero is always covered).
            if n != 0 && (word & QUEUED != 0 || permits(word) < n) {
                return Err(TryAcquireError::NoPermits);
            }
            match self
                .word
                .compare_exchange(word, word - (n << SHIFT), SeqCst, SeqCst)
            {
                Ok(_) => return Ok(()),
                Err(actual) => word = actual,
            }
        }
    }

    /// Step 1 with the lock: takes the permits, or queues a waiter and
    /// returns its key.
    fn take_or_queue(
        &self,
        needed: usize,
        waker: &Waker,
    ) -> Result<Result<(), usize>, AcquireError> {
        let mut waiters = self.lock();
        let mut word = self.word.load(SeqCst);
        loop {
            if word & CLOSED != 0 {
                return Err(AcquireError(()));
            }
            if needed != 0 && (word & QUEUED != 0 || permits(word) < needed) {
                break;
            }
            match self
                .word
                .compare_exchange(word, word - (needed << SHIFT), SeqCst, SeqCst)
            {
                Ok(_) => return Ok(Ok(())),
                Err(actual) => word = actual,
            }
        }
        // `close` takes the lock: it cannot come between the check above
        // and the queueing.
        self.word.fetch_or(QUEUED, SeqCst);
        let key = waiters.push_back(Waiter {
            needed,
            assigned: 0,
            closed_out: false,
            waker: Some(waker.clone()),
        });
        // Step 2: the front waiter (this one, if it is alone) gets what
        // is free; a release that raced the check above may even cover it.
        let mut wakers = WakeList::new();
        self.grant(&mut waiters, &mut wakers);
        drop(waiters);
        wakers.wake_all();
        Ok(Err(key))
    }

    /// Waits for one permit, owned through the `Arc`.
    ///
    /// # Errors
    ///
    /// Fails if the semaphore is closed before the permit is granted.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// let semaphore = Arc::new(rt::sync::Semaphore::new(1));
    /// let permit = futures::executor::block_on(semaphore.clone().acquire_owned()).unwrap();
    /// std::thread::spawn(move || drop(permit)).join().unwrap();
    /// assert_eq!(semaphore.available_permits(), 1);
    /// ```
    #[track_caller]
    pub fn acquire_owned(
        self: Arc<Self>,
    ) -> impl Future<Output = Result<OwnedSemaphorePermit, AcquireError>> {
        let site = Site::here("Semaphore::acquire_owned");
        async move {
            Acquire::new(&self, 1, site).await?;
            Ok(OwnedSemaphorePermit::new(self, 1))
        }
    }

    /// Waits for `n` permits, owned through the `Arc`.
    ///
    /// # Errors
    ///
    /// Fails if the semaphore is closed before the permits are granted.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// let semaphore = Arc::new(rt::sync::Semaphore::new(4));
    /// let permit = futures::executor::block_on(semaphore.clone().acquire_many_owned(4)).unwrap();
    /// assert_eq!(permit.num_permits(), 4);
    /// ```
    #[track_caller]
    pub fn acquire_many_owned(
        self: Arc<Self>,
        n: u32,
    ) -> impl Future<Output = Result<OwnedSemaphorePermit, AcquireError>> {
        let site = Site::here("Semaphore::acquire_many_owned");
        async move {
            Acquire::new(&self, n as usize, site).await?;
            Ok(OwnedSemaphorePermit::new(self, n as usize))
        }
    }

    /// Takes one permit now, owned through the `Arc`.
    ///
    /// # Errors
    ///
    /// [`TryAcquireError::NoPermits`] or [`TryAcquireError::Closed`].
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// let semaphore = Arc::new(rt::sync::Semaphore::new(1));
    /// let permit = semaphore.clone().try_acquire_owned().unwrap();
    /// assert!(semaphore.clone().try_acquire_owned().is_err());
    /// drop(permit);
    /// ```
    pub fn try_acquire_owned(self: Arc<Self>) -> Result<OwnedSemaphorePermit, TryAcquireError> {
        self.try_acquire_many_owned(1)
    }

    /// Takes `n` permits now, owned through the `Arc`.
    ///
    /// # Errors
    ///
    /// [`TryAcquireError::NoPermits`] or [`TryAcquireError::Closed`].
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// let semaphore = Arc::new(rt::sync::Semaphore::new(3));
    /// let permit = semaphore.clone().try_acquire_many_owned(3).unwrap();
    /// assert_eq!(semaphore.available_permits(), 0);
    /// drop(permit);
    /// ```
    pub fn try_acquire_many_owned(
        self: Arc<Self>,
        n: u32,
    ) -> Result<OwnedSemaphorePermit, TryAcquireError> {
        self.try_take(n as usize)?;
        Ok(OwnedSemaphorePermit::new(self, n as usize))
    }
}

impl fmt::Debug for Semaphore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let waiters = self.lock();
        f.debug_struct("Semaphore")
            .field("permits", &self.available_permits())
            .field("closed", &self.is_closed())
            .field("waiters", &waiters.len())
            .finish()
    }
}

/// Waits for `needed` permits; on `Ready(Ok)` they are taken from the pool
/// and belong to the caller.
#[derive(Debug)]
pub(crate) struct Acquire<'a> {
    semaphore: &'a Semaphore,
    needed: usize,
    /// The queued waiter, while there is one.
    key: Option<usize>,
    /// Permits granted from the queue while the budget was spent (step
    /// 6): this future's, returned to the pool if it is dropped.
    granted: Option<usize>,
    /// What the task dump says this waits for.
    site: Site,
}

impl<'a> Acquire<'a> {
    pub(crate) fn new(semaphore: &'a Semaphore, needed: usize, site: Site) -> Acquire<'a> {
        Acquire {
            semaphore,
            needed,
            key: None,
            granted: None,
            site,
        }
    }

    /// Step 6: the permits are this future's; spends a unit of budget to
    /// return them, or keeps them and yields if it is spent.
    fn complete_granted(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), AcquireError>> {
        let coop = std::task::ready!(poll_proceed(cx));
        let granted = self.granted.take().expect("called with permits granted");
        coop.made_progress();
        if self.semaphore.is_closed() {
            // Step 5: granted, then closed before this returned.
            self.semaphore.release(granted);
            return Poll::Ready(Err(AcquireError(())));
        }
        Poll::Ready(Ok(()))
    }
}

impl Future for Acquire<'_> {
    type Output = Result<(), AcquireError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let semaphore = self.semaphore;
        if self.granted.is_some() {
            return self.complete_granted(cx);
        }
        if let Some(key) = self.key {
            // Waiting costs no budget (step 6).
            let mut waiters = semaphore.lock();
            if waiters.is_linked(key) {
                let replaced = register(&mut waiters.get_mut(key).waker, cx.waker());
                drop(waiters);
                drop(replaced);
                self.site.record(&semaphore.holder);
                return Poll::Pending;
            }
            let waiter = waiters.remove(key);
            drop(waiters);
            self.key = None;
            if !waiter.closed_out {
                self.granted = Some(waiter.needed);
                return self.complete_granted(cx);
            }
            // Closed out (step 5): what it was assigned goes back, and the
            // close is reported below like any other.
            semaphore.release(waiter.assigned);
        }
        let needed = self.needed;
        let result = match semaphore.try_take(needed) {
            Ok(()) => Ok(()),
            Err(TryAcquireError::Closed) => Err(AcquireError(())),
            Err(TryAcquireError::NoPermits) => match semaphore.take_or_queue(needed, cx.waker()) {
                Ok(Ok(())) => Ok(()),
                Ok(Err(key)) => {
                    // Queued: neither charged nor woken (step 6).
                    self.key = Some(key);
                    self.site.record(&semaphore.holder);
                    return Poll::Pending;
                }
                Err(closed) => Err(closed),
            },
        };
        // Ready: a unit of budget, or, spent, a yield without the permits
        // (step 6: nobody was queued for them).
        let Poll::Ready(coop) = poll_proceed(cx) else {
            if result.is_ok() {
                semaphore.release(needed);
            }
            return Poll::Pending;
        };
        coop.made_progress();
        Poll::Ready(result)
    }
}

impl Drop for Acquire<'_> {
    fn drop(&mut self) {
        if let Some(granted) = self.granted {
            self.semaphore.release(granted);
            return;
        }
        let Some(key) = self.key else { return };
        let semaphore = self.semaphore;
        let mut waiters = semaphore.lock();
        let waiter = waiters.remove(key);
        // Step 4: what it was assigned (all it asked for if granted) goes
        // back.
        if waiter.assigned != 0 {
            semaphore.word.fetch_add(waiter.assigned << SHIFT, SeqCst);
        }
        // Step 4: the next waiter may be satisfiable now (and if the queue
        // is empty, this clears QUEUED).
        let mut wakers = WakeList::new();
        semaphore.grant(&mut waiters, &mut wakers);
        drop(waiters);
        wakers.wake_all();
    }
}

#[cfg(all(test, loom))]
mod loom_semaphore {
    use super::Semaphore;
    use crate::loom::sync::Arc;
    use loom::thread;
    use std::future::Future;
    use std::pin::pin;
    use std::task::{Context, Poll};

    /// Acquire vs release vs a cancelled acquire: the surviving waiter always
    /// gets the permit, and the permit count is whole at the end.
    #[test]
    fn acquire_release_cancel_no_lost_permit() {
        loom::model(|| {
            let semaphore = Arc::new(Semaphore::new(1));
            let held = semaphore.try_acquire().unwrap();
            held.forget();

            let cancelled = {
                let semaphore = semaphore.clone();
                thread::spawn(move || {
                    let waker = futures::task::noop_waker();
                    let mut cx = Context::from_waker(&waker);
                    let mut acquire = pin!(semaphore.acquire());
                    if let Poll::Ready(permit) = acquire.as_mut().poll(&mut cx) {
                        drop(permit.unwrap());
                    }
                    // Dropped here, possibly after being granted.
                })
            };
            let waiter = {
                let semaphore = semaphore.clone();
                thread::spawn(move || {
                    let permit = loom::future::block_on(semaphore.acquire()).unwrap();
                    drop(permit);
                })
            };
            semaphore.release(1);
            cancelled.join().unwrap();
            waiter.join().unwrap();
            assert_eq!(semaphore.available_permits(), 1);
        });
    }

    /// Lock-free releases racing with an acquire that is queueing itself
    /// for more permits than are free: it is granted once both arrive.
    #[test]
    fn lock_free_release_vs_queueing_acquire() {
        loom::model(|| {
            let semaphore = Arc::new(Semaphore::new(0));
            let waiter = {
                let semaphore = semaphore.clone();
                thread::spawn(move || drop(loom::future::block_on(semaphore.acquire_many(2))))
            };
            let releaser = {
                let semaphore = semaphore.clone();
                thread::spawn(move || semaphore.release(1))
            };
            semaphore.release(1);
            releaser.join().unwrap();
            waiter.join().unwrap();
            assert_eq!(semaphore.available_permits(), 2);
        });
    }

    /// close vs a queued acquire vs release: the waiter either gets the
    /// permit or the close error, and the permit is back in the pool.
    #[test]
    fn close_vs_acquire_vs_release() {
        loom::model(|| {
            let semaphore = Arc::new(Semaphore::new(1));
            let held = semaphore.try_acquire().unwrap();
            held.forget();
            let waiter = {
                let semaphore = semaphore.clone();
                thread::spawn(move || {
                    loom::future::block_on(semaphore.acquire())
                        .map(drop)
                        .is_ok()
                })
            };
            let closer = {
                let semaphore = semaphore.clone();
                thread::spawn(move || semaphore.close())
            };
            semaphore.release(1);
            let _granted = waiter.join().unwrap();
            closer.join().unwrap();
            assert_eq!(semaphore.available_permits(), 1);
        });
    }

    /// Steps 2 and 5: a waiter for two permits, one of them set aside for
    /// it, racing `close` and the release of the other: it is granted both
    /// or fails, and either way every permit ends up back in the pool
    /// (none stays assigned to a closed-out waiter).
    #[test]
    fn partly_assigned_waiter_vs_close_vs_release() {
        loom::model(|| {
            let semaphore = Arc::new(Semaphore::new(2));
            let held = semaphore.try_acquire_many(2).unwrap();
            held.forget();
            semaphore.release(1);
            let waiter = {
                let semaphore = semaphore.clone();
                thread::spawn(move || {
                    loom::future::block_on(semaphore.acquire_many(2))
                        .map(drop)
                        .is_ok()
                })
            };
            let closer = {
                let semaphore = semaphore.clone();
                thread::spawn(move || semaphore.close())
            };
            semaphore.release(1);
            let _granted = waiter.join().unwrap();
            closer.join().unwrap();
            assert_eq!(semaphore.available_permits(), 2);
        });
    }

    /// Step 4: a queued waiter for two permits, with one set aside for it,
    /// dropped while another thread releases the second: both permits end
    /// up in the pool.
    #[test]
    fn partly_assigned_waiter_dropped_vs_release() {
        loom::model(|| {
            let semaphore = Arc::new(Semaphore::new(1));
            let waker = futures::task::noop_waker();
            let mut acquire = Box::pin(semaphore.acquire_many(2));
            assert!(
                acquire
                    .as_mut()
                    .poll(&mut Context::from_waker(&waker))
                    .is_pending()
            );
            assert_eq!(semaphore.available_permits(), 0, "set aside");
            let releaser = {
                let semaphore = semaphore.clone();
                thread::spawn(move || semaphore.release(1))
            };
            drop(acquire);
            releaser.join().unwrap();
            assert_eq!(semaphore.available_permits(), 2);
        });
    }

    /// An empty semaphore, a waker whose drop adds a permit to it (for
    /// the waker rule: a semaphore that drops it under its lock
    /// deadlocks, which loom reports), and a thread adding another.
    fn semaphore_waker_and_releaser() -> (Arc<Semaphore>, std::task::Waker, thread::JoinHandle<()>)
    {
        use crate::sync::wait_list::loom_wakers::waker_with_drop_hook;
        let semaphore = Arc::new(Semaphore::new(0));
        let hooked = {
            let semaphore = semaphore.clone();
            waker_with_drop_hook(move || semaphore.add_permits(1))
        };
        let releaser = {
            let semaphore = semaphore.clone();
            thread::spawn(move || semaphore.add_permits(1))
        };
        (semaphore, hooked, releaser)
    }

    /// The waker rule: a queued acquire re-polled with a new waker while
    /// another thread releases a permit; the replaced waker's drop adds
    /// one too. The acquire is granted and no permit is lost.
    #[test]
    fn replaced_waker_dropped_outside_the_lock() {
        loom::model(|| {
            let (semaphore, hooked, releaser) = semaphore_waker_and_releaser();
            let mut acquire = Box::pin(semaphore.acquire());
            let first = acquire.as_mut().poll(&mut Context::from_waker(&hooked));
            drop(hooked);
            let permit = match first {
                Poll::Ready(permit) => permit,
                Poll::Pending => loom::future::block_on(acquire),
            }
            .unwrap();
            releaser.join().unwrap();
            drop(permit);
            assert_eq!(semaphore.available_permits(), 2);
        });
    }

    /// The waker rule on the drop path: a queued acquire dropped while
    /// another thread releases a permit; its waker's drop adds one too.
    /// Both permits end up in the pool.
    #[test]
    fn dropped_acquire_drops_its_waker_outside_the_lock() {
        loom::model(|| {
            let (semaphore, hooked, releaser) = semaphore_waker_and_releaser();
            let mut acquire = Box::pin(semaphore.acquire());
            let first = acquire.as_mut().poll(&mut Context::from_waker(&hooked));
            drop(hooked);
            // Granted at once if the other thread's permit came first.
            if let Poll::Ready(permit) = first {
                drop(permit.unwrap());
            }
            drop(acquire);
            releaser.join().unwrap();
            assert_eq!(semaphore.available_permits(), 2);
        });
    }
}
