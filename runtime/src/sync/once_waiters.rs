//! The waiters of [`OnceCell`](super::OnceCell) and
//! [`SetOnce`](super::SetOnce): tasks waiting for a value to be set (or,
//! for `OnceCell`, for their turn to set it), all woken at once when
//! something changes.
//!
//! A small state `S` (for `OnceCell`: "someone is initialising") and the
//! waiter list share one mutex. The protocol:
//!
//! 1. a waiting future checks the state under the lock; if it can go on
//!    it leaves the list, else it stores its waker there (replacing its
//!    old entry);
//! 2. whoever changes what waiters wait for (sets the value, gives up the
//!    turn to initialise) does so under the same lock, unlinks every
//!    waiter and takes its waker, then wakes them after unlocking: no
//!    wake-up can fall between a waiter's check and its registration;
//! 3. a waiter that is dropped removes its entry.
//!
//! Waking everyone is simplest and right here: a value is set once, and a
//! turn to initialise is given up only when an initialising future is
//! cancelled or fails, which is rare. Wakers are dropped and woken outside
//! the lock, as a waker may run arbitrary code.

use super::wait_list::{WaitList, WakeList};
use crate::loom::sync::{Mutex, MutexGuard};
use crate::task::poll_proceed;
use std::task::{Context, Poll, Waker, ready};

#[derive(Debug)]
struct Inner<S> {
    state: S,
    list: WaitList<Option<Waker>>,
}

/// A state and the tasks waiting on it (the protocol is in the module
/// docs).
#[derive(Debug)]
pub(super) struct Waiters<S> {
    inner: Mutex<Inner<S>>,
}

/// A waiting future's place in the list; it removes its entry when
/// dropped (step 3).
#[derive(Debug)]
pub(super) struct Waiter<'a, S> {
    waiters: &'a Waiters<S>,
    /// `Some(key)` while it has an entry.
    key: Option<usize>,
}

impl<'a, S> Waiter<'a, S> {
    pub(super) fn new(waiters: &'a Waiters<S>) -> Waiter<'a, S> {
        Waiter { waiters, key: None }
    }

    /// Step 1, spending a unit of the task's budget when ready: `Ready`
    /// with what `check` returns if it returns `Some`, else `Pending` with
    /// `cx`'s waker stored.
    pub(super) fn poll<R>(
        &mut self,
        cx: &mut Context<'_>,
        check: impl FnOnce(&mut S) -> Option<R>,
    ) -> Poll<R> {
        let coop = ready!(poll_proceed(cx));
        let poll = self.waiters.poll_wait(&mut self.key, cx, check);
        if poll.is_ready() {
            coop.made_progress();
        }
        poll
    }
}

impl<S> Drop for Waiter<'_, S> {
    fn drop(&mut self) {
        if let Some(key) = self.key.take() {
            let old = self.waiters.lock().list.remove(key);
            drop(old);
        }
    }
}

impl<S> Waiters<S> {
    #[cfg(not(loom))]
    pub(super) const fn new(state: S) -> Waiters<S> {
        Waiters {
            inner: Mutex::new(Inner {
                state,
                list: WaitList::new(),
            }),
        }
    }

    #[cfg(loom)]
    pub(super) fn new(state: S) -> Waiters<S> {
        Waiters {
            inner: Mutex::new(Inner {
                state,
                list: WaitList::new(),
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner<S>> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Step 1: `Ready` with what `check` returns if it returns `Some` (the
    /// entry under `key` is removed), else `Pending` with `cx`'s waker
    /// stored under `key`.
    fn poll_wait<R>(
        &self,
        key: &mut Option<usize>,
        cx: &Context<'_>,
        check: impl FnOnce(&mut S) -> Option<R>,
    ) -> Poll<R> {
        let mut inner = self.lock();
        let old = key.take().and_then(|key| inner.list.remove(key));
        let poll = match check(&mut inner.state) {
            Some(ready) => Poll::Ready(ready),
            None => {
                *key = Some(inner.list.push_back(Some(cx.waker().clone())));
                Poll::Pending
            }
        };
        drop(inner);
        drop(old);
        poll
    }

    /// Reads or changes the state under the lock, without waking anyone.
    pub(super) fn with_state<R>(&self, f: impl FnOnce(&mut S) -> R) -> R {
        f(&mut self.lock().state)
    }

    /// Step 2: changes the state under the lock and wakes every waiter.
    pub(super) fn update_and_wake_all<R>(&self, update: impl FnOnce(&mut S) -> R) -> R {
        let mut inner = self.lock();
        let result = update(&mut inner.state);
        let mut wakers = WakeList::new();
        while let Some(key) = inner.list.pop_front() {
            wakers.push(inner.list.get_mut(key).take());
        }
        drop(inner);
        wakers.wake_all();
        result
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::{Waiter, Waiters};
    use std::task::{Context, Waker};

    fn stored(waiters: &Waiters<bool>) -> usize {
        waiters.lock().list.stored()
    }

    /// Step 3 and re-polls: a waiter keeps at most one entry, and none once
    /// it is ready or dropped.
    #[test]
    fn entries_are_replaced_and_removed() {
        let waiters = Waiters::new(false);
        let mut cx = Context::from_waker(Waker::noop());
        let mut first = Waiter::new(&waiters);
        let mut second = Waiter::new(&waiters);
        for _ in 0..3 {
            assert!(
                first
                    .poll(&mut cx, |ready| ready.then_some(()))
                    .is_pending()
            );
            assert!(
                second
                    .poll(&mut cx, |ready| ready.then_some(()))
                    .is_pending()
            );
        }
        assert_eq!(stored(&waiters), 2);
        drop(first);
        assert_eq!(stored(&waiters), 1);
        waiters.update_and_wake_all(|ready| *ready = true);
        assert!(second.poll(&mut cx, |ready| ready.then_some(())).is_ready());
        assert_eq!(stored(&waiters), 0);
        drop(second);
        assert_eq!(stored(&waiters), 0);
    }
}
