//! The permits a [`Semaphore`] hands out: borrowed ([`SemaphorePermit`])
//! or owned through an `Arc` ([`OwnedSemaphorePermit`]). Dropping one
//! gives its permits back; they can be merged, split and forgotten.

use crate::sync::Semaphore;
use std::fmt;
use std::sync::Arc;

/// Permits borrowed from a [`Semaphore`]; dropping it releases them.
///
/// # Examples
///
/// ```
/// let semaphore = rt::sync::Semaphore::new(1);
/// let permit = semaphore.try_acquire().unwrap();
/// drop(permit);
/// assert_eq!(semaphore.available_permits(), 1);
/// ```
#[must_use = "the permits are released as soon as the permit is dropped"]
pub struct SemaphorePermit<'a> {
    semaphore: &'a Semaphore,
    permits: usize,
}

/// Permits owned through an `Arc<Semaphore>`; dropping it releases them.
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// let semaphore = Arc::new(rt::sync::Semaphore::new(1));
/// let permit = semaphore.clone().try_acquire_owned().unwrap();
/// assert!(Arc::ptr_eq(permit.semaphore(), &semaphore));
/// ```
#[must_use = "the permits are released as soon as the permit is dropped"]
pub struct OwnedSemaphorePermit {
    semaphore: Arc<Semaphore>,
    permits: usize,
}

/// `a + b` permits in one permit value. (Counted in `usize`, like the
/// semaphore: permits acquired `u32::MAX` at a time still merge.)
#[track_caller]
fn merged(a: usize, b: usize) -> usize {
    a.checked_add(b)
        .expect("a merged semaphore permit holds at most `usize::MAX` permits")
}

/// Takes `n` of `held` permits if there are that many.
fn split_off(held: &mut usize, n: usize) -> Option<usize> {
    if n > *held {
        return None;
    }
    *held -= n;
    Some(n)
}

impl<'a> SemaphorePermit<'a> {
    /// `permits` permits the caller has just taken from `semaphore`.
    pub(crate) fn new(semaphore: &'a Semaphore, permits: usize) -> SemaphorePermit<'a> {
        SemaphorePermit { semaphore, permits }
    }

    /// Keeps the permits out of the semaphore for good.
    ///
    /// # Examples
    ///
    /// ```
    /// let semaphore = rt::sync::Semaphore::new(1);
    /// semaphore.try_acquire().unwrap().forget();
    /// assert_eq!(semaphore.available_permits(), 0);
    /// ```
    pub fn forget(mut self) {
        self.permits = 0;
    }

    /// How many permits this holds.
    ///
    /// # Examples
    ///
    /// ```
    /// let semaphore = rt::sync::Semaphore::new(3);
    /// assert_eq!(semaphore.try_acquire_many(2).unwrap().num_permits(), 2);
    /// ```
    pub fn num_permits(&self) -> usize {
        self.permits
    }

    /// The semaphore the permits came from.
    ///
    /// # Examples
    ///
    /// ```
    /// let semaphore = rt::sync::Semaphore::new(1);
    /// let permit = semaphore.try_acquire().unwrap();
    /// assert!(std::ptr::eq(permit.semaphore(), &semaphore));
    /// ```
    pub fn semaphore(&self) -> &'a Semaphore {
        self.semaphore
    }

    /// Takes `other`'s permits into this one; they are released together.
    ///
    /// # Panics
    ///
    /// Panics if `other` comes from a different semaphore.
    ///
    /// # Examples
    ///
    /// ```
    /// let semaphore = rt::sync::Semaphore::new(3);
    /// let mut permit = semaphore.try_acquire().unwrap();
    /// permit.merge(semaphore.try_acquire_many(2).unwrap());
    /// assert_eq!(permit.num_permits(), 3);
    /// drop(permit);
    /// assert_eq!(semaphore.available_permits(), 3);
    /// ```
    #[track_caller]
    pub fn merge(&mut self, mut other: SemaphorePermit<'a>) {
        assert!(
            std::ptr::eq(self.semaphore, other.semaphore),
            "merging permits of a different semaphore: merge only permits of the same one"
        );
        self.permits = merged(self.permits, other.permits);
        other.permits = 0;
    }

    /// Moves `n` of this permit's permits into a new permit; `None` (and
    /// nothing moved) if it holds fewer.
    ///
    /// # Examples
    ///
    /// ```
    /// let semaphore = rt::sync::Semaphore::new(3);
    /// let mut permit = semaphore.try_acquire_many(3).unwrap();
    /// let part = permit.split(1).unwrap();
    /// assert_eq!((permit.num_permits(), part.num_permits()), (2, 1));
    /// assert!(permit.split(3).is_none());
    /// ```
    pub fn split(&mut self, n: usize) -> Option<SemaphorePermit<'a>> {
        let permits = split_off(&mut self.permits, n)?;
        Some(SemaphorePermit::new(self.semaphore, permits))
    }
}

impl Drop for SemaphorePermit<'_> {
    fn drop(&mut self) {
        if self.permits > 0 {
            self.semaphore.release(self.permits);
        }
    }
}

impl fmt::Debug for SemaphorePermit<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SemaphorePermit")
            .field("permits", &self.permits)
            .finish()
    }
}

impl OwnedSemaphorePermit {
    /// `permits` permits the caller has just taken from `semaphore`.
    pub(crate) fn new(semaphore: Arc<Semaphore>, permits: usize) -> OwnedSemaphorePermit {
        OwnedSemaphorePermit { semaphore, permits }
    }

    /// Keeps the permits out of the semaphore for good.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// let semaphore = Arc::new(rt::sync::Semaphore::new(1));
    /// semaphore.clone().try_acquire_owned().unwrap().forget();
    /// assert_eq!(semaphore.available_permits(), 0);
    /// ```
    pub fn forget(mut self) {
        self.permits = 0;
    }

    /// How many permits this holds.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// let semaphore = Arc::new(rt::sync::Semaphore::new(2));
    /// assert_eq!(semaphore.try_acquire_many_owned(2).unwrap().num_permits(), 2);
    /// ```
    pub fn num_permits(&self) -> usize {
        self.permits
    }

    /// The semaphore the permits came from.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// let semaphore = Arc::new(rt::sync::Semaphore::new(1));
    /// let permit = semaphore.clone().try_acquire_owned().unwrap();
    /// assert_eq!(permit.semaphore().available_permits(), 0);
    /// ```
    pub fn semaphore(&self) -> &Arc<Semaphore> {
        &self.semaphore
    }

    /// Takes `other`'s permits into this one; they are released together.
    ///
    /// # Panics
    ///
    /// Panics if `other` comes from a different semaphore.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// let semaphore = Arc::new(rt::sync::Semaphore::new(2));
    /// let mut permit = semaphore.clone().try_acquire_owned().unwrap();
    /// permit.merge(semaphore.clone().try_acquire_owned().unwrap());
    /// assert_eq!(permit.num_permits(), 2);
    /// ```
    #[track_caller]
    pub fn merge(&mut self, mut other: OwnedSemaphorePermit) {
        assert!(
            Arc::ptr_eq(&self.semaphore, &other.semaphore),
            "merging permits of a different semaphore: merge only permits of the same one"
        );
        self.permits = merged(self.permits, other.permits);
        other.permits = 0;
    }

    /// Moves `n` of this permit's permits into a new permit; `None` (and
    /// nothing moved) if it holds fewer.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// let semaphore = Arc::new(rt::sync::Semaphore::new(2));
    /// let mut permit = semaphore.clone().try_acquire_many_owned(2).unwrap();
    /// let part = permit.split(1).unwrap();
    /// assert_eq!((permit.num_permits(), part.num_permits()), (1, 1));
    /// ```
    pub fn split(&mut self, n: usize) -> Option<OwnedSemaphorePermit> {
        let permits = split_off(&mut self.permits, n)?;
        Some(OwnedSemaphorePermit::new(self.semaphore.clone(), permits))
    }
}

impl Drop for OwnedSemaphorePermit {
    fn drop(&mut self) {
        if self.permits > 0 {
            self.semaphore.release(self.permits);
        }
    }
}

impl fmt::Debug for OwnedSemaphorePermit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OwnedSemaphorePermit")
            .field("permits", &self.permits)
            .finish()
    }
}
