//! `LocalSet`: rt's, in tokio's shape. A newtype only so that the future
//! of [`LocalSet::run_until`] is `!Unpin` like tokio's (rt's is `Unpin`
//! when its future is): code that compiles against the facade compiles
//! against tokio. Every other method is rt's, through `Deref`, which also
//! lets a `&LocalSet` be passed where rt's APIs take theirs
//! (`JoinSet::spawn_local_on`, as tokio-util's `JoinMap` does).

use std::fmt;
use std::future::Future;
use std::ops::Deref;
use std::pin::Pin;
use std::task::{Context, Poll};

/// A set of `!Send` tasks run on one thread: rt's `LocalSet`. `spawn_local`,
/// `block_on` and `enter` are rt's (through `Deref`).
///
/// # Examples
///
/// ```
/// use std::rc::Rc;
///
/// let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
/// let local = tokio::task::LocalSet::new();
/// let shared = Rc::new(5);
/// let task = local.spawn_local({
///     let shared = shared.clone();
///     async move { *shared + 1 }
/// });
/// assert_eq!(local.block_on(&rt, task).unwrap(), 6);
/// ```
#[derive(Default)]
pub struct LocalSet {
    inner: rt::task::LocalSet,
}

impl LocalSet {
    /// An empty set.
    ///
    /// # Examples
    ///
    /// See [`LocalSet`].
    pub fn new() -> LocalSet {
        LocalSet {
            inner: rt::task::LocalSet::new(),
        }
    }

    /// Runs `future` to completion, running the set's tasks while it waits
    /// (they keep running only while this future is polled).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    /// let local = tokio::task::LocalSet::new();
    /// let got = rt.block_on(local.run_until(async {
    ///     tokio::task::spawn_local(async { 7 }).await.unwrap()
    /// }));
    /// assert_eq!(got, 7);
    /// ```
    // An `async fn`, as tokio's is: its future is `!Unpin`.
    pub async fn run_until<F: Future>(&self, future: F) -> F::Output {
        self.inner.run_until(future).await
    }
}

impl Deref for LocalSet {
    type Target = rt::task::LocalSet;

    fn deref(&self) -> &rt::task::LocalSet {
        &self.inner
    }
}

/// Runs the set's tasks until all of them are done.
///
/// # Examples
///
/// ```
/// let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
/// let local = tokio::task::LocalSet::new();
/// local.spawn_local(async { tokio::task::yield_now().await });
/// rt.block_on(local);
/// ```
impl Future for LocalSet {
    type Output = ();

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        Pin::new(&mut self.get_mut().inner).poll(cx)
    }
}

impl From<rt::task::LocalSet> for LocalSet {
    fn from(inner: rt::task::LocalSet) -> LocalSet {
        LocalSet { inner }
    }
}

impl From<LocalSet> for rt::task::LocalSet {
    fn from(local: LocalSet) -> rt::task::LocalSet {
        local.inner
    }
}

impl fmt::Debug for LocalSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}
