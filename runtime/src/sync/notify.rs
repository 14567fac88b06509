//! `Notify`: wake one waiting task, or all of them.
//!
//! Protocol, under one mutex:
//! 1. `notify_one` hands the notification to the oldest queued waiter
//!    (unlinking it and marking it notified); with no waiter it stores a
//!    single permit, which the next `notified()` consumes at once.
//! 2. `notify_waiters` wakes every queued waiter, and also every
//!    `Notified` future created before the call but not yet polled: each
//!    future records the count of `notify_waiters` calls when it is
//!    created and completes if the count moved. It stores no permit.
//! 3. Cancellation: a future dropped after `notify_one` picked it but
//!    before it observed that passes the notification on (to the next
//!    waiter, or as the permit), so it is never lost.

use crate::loom::sync::Mutex;
use crate::loom::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use crate::sync::wait_list::{WaitList, WakeList, register};
use crate::task::poll_proceed;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker, ready};

/// Notifies one or all waiting tasks, without data.
///
/// A `notify_one` with no one waiting is remembered (once): the next
/// [`notified`](Notify::notified) completes immediately. Waiters are
/// served in FIFO order.
///
/// Cancel safety: dropping a [`Notified`] future never loses a
/// `notify_one` notification: if it had been picked, it goes to the next
/// waiter (or becomes the stored permit).
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// use rt::sync::Notify;
///
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let notify = Arc::new(Notify::new());
///     let waiter = {
///         let notify = notify.clone();
///         rt::spawn(async move { notify.notified().await; "woken" })
///     };
///     notify.notify_one();
///     assert_eq!(waiter.await.unwrap(), "woken");
/// });
/// ```
pub struct Notify {
    state: Mutex<State>,
    /// `notify_waiters` calls so far; written under the lock.
    waiters_calls: AtomicUsize,
}

#[derive(Debug)]
struct State {
    permit: bool,
    waiters: WaitList<Waiter>,
}

#[derive(Debug)]
struct Waiter {
    waker: Option<Waker>,
    /// Set when unlinked by a notification: `true` for `notify_one`.
    by_notify_one: bool,
}

impl State {
    /// Step 1, with the lock held.
    fn notify_one(&mut self, wakers: &mut WakeList) {
        match self.waiters.pop_front() {
            Some(key) => {
                let waiter = self.waiters.get_mut(key);
                waiter.by_notify_one = true;
                wakers.push(waiter.waker.take());
            }
            None => self.permit = true,
        }
    }
}

impl Notify {
    /// A `Notify` with no stored permit.
    ///
    /// # Examples
    ///
    /// ```
    /// let notify = rt::sync::Notify::new();
    /// notify.notify_one();
    /// futures::executor::block_on(notify.notified());
    /// ```
    pub fn new() -> Notify {
        Notify {
            state: Mutex::new(State {
                permit: false,
                waiters: WaitList::new(),
            }),
            waiters_calls: AtomicUsize::new(0),
        }
    }

    fn lock(&self) -> crate::loom::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A future that completes when this `Notify` is notified. For
    /// [`notify_waiters`](Notify::notify_waiters) it counts as waiting from
    /// the moment it is created; for `notify_one` from its first poll.
    ///
    /// # Examples
    ///
    /// ```
    /// let notify = rt::sync::Notify::new();
    /// let notified = notify.notified();
    /// notify.notify_waiters();
    /// futures::executor::block_on(notified);
    /// ```
    pub fn notified(&self) -> Notified<'_> {
        Notified {
            notify: self,
            waiters_calls: self.waiters_calls.load(SeqCst),
            key: None,
            done: false,
        }
    }

    /// Wakes the oldest waiter, or stores a permit if none is waiting.
    ///
    /// # Examples
    ///
    /// ```
    /// let notify = rt::sync::Notify::new();
    /// notify.notify_one();
    /// notify.notify_one(); // at most one permit is stored
    /// futures::executor::block_on(notify.notified());
    /// ```
    pub fn notify_one(&self) {
        let mut wakers = WakeList::new();
        self.lock().notify_one(&mut wakers);
        wakers.wake_all();
    }

    /// Wakes every waiting task (see [`notified`](Notify::notified)).
    /// Stores no permit.
    ///
    /// # Examples
    ///
    /// ```
    /// let notify = rt::sync::Notify::new();
    /// let (a, b) = (notify.notified(), notify.notified());
    /// notify.notify_waiters();
    /// futures::executor::block_on(async { a.await; b.await });
    /// ```
    pub fn notify_waiters(&self) {
        let mut wakers = WakeList::new();
        let mut state = self.lock();
        self.waiters_calls.fetch_add(1, SeqCst);
        while let Some(key) = state.waiters.pop_front() {
            wakers.push(state.waiters.get_mut(key).waker.take());
        }
        drop(state);
        wakers.wake_all();
    }
}

impl Default for Notify {
    fn default() -> Notify {
        Notify::new()
    }
}

impl fmt::Debug for Notify {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.lock();
        f.debug_struct("Notify")
            .field("permit", &state.permit)
            .field("waiters", &state.waiters.len())
            .finish()
    }
}

/// The future returned by [`Notify::notified`].
///
/// # Examples
///
/// ```
/// let notify = rt::sync::Notify::new();
/// let notified: rt::sync::Notified<'_> = notify.notified();
/// notify.notify_one();
/// futures::executor::block_on(notified);
/// ```
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct Notified<'a> {
    notify: &'a Notify,
    waiters_calls: usize,
    key: Option<usize>,
    done: bool,
}

impl Future for Notified<'_> {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.done {
            return Poll::Ready(());
        }
        let coop = ready!(poll_proceed(cx));
        let notify = self.notify;
        let mut state = notify.lock();
        match self.key {
            None => {
                let woken_by_all = notify.waiters_calls.load(SeqCst) != self.waiters_calls;
                if !woken_by_all {
                    if state.permit {
                        state.permit = false;
                    } else {
                        let waiter = Waiter {
                            waker: Some(cx.waker().clone()),
                            by_notify_one: false,
                        };
                        self.key = Some(state.waiters.push_back(waiter));
                        return Poll::Pending;
                    }
                }
            }
            Some(key) => {
                if state.waiters.is_linked(key) {
                    register(&mut state.waiters.get_mut(key).waker, cx.waker());
                    return Poll::Pending;
                }
                state.waiters.remove(key);
                self.key = None;
            }
        }
        drop(state);
        self.done = true;
        coop.made_progress();
        Poll::Ready(())
    }
}

impl Drop for Notified<'_> {
    fn drop(&mut self) {
        let Some(key) = self.key else { return };
        let mut state = self.notify.lock();
        let linked = state.waiters.is_linked(key);
        let waiter = state.waiters.remove(key);
        let mut wakers = WakeList::new();
        if !linked && waiter.by_notify_one {
            // Step 3: pass the unobserved notification on.
            state.notify_one(&mut wakers);
        }
        drop(state);
        wakers.wake_all();
    }
}

impl fmt::Debug for Notified<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Notified")
            .field("waiting", &self.key.is_some())
            .field("done", &self.done)
            .finish()
    }
}

#[cfg(all(test, loom))]
mod loom_notify {
    use super::Notify;
    use crate::loom::sync::Arc;
    use crate::loom::sync::atomic::AtomicBool;
    use crate::loom::sync::atomic::Ordering::{Acquire, Release};
    use loom::thread;
    use std::future::Future;
    use std::pin::Pin;
    use std::task::{Context, Poll};

    /// `notify_one` racing with the drop of the first waiter: the second
    /// waiter is woken, and exactly one notification is consumed.
    #[test]
    fn notify_one_vs_dropped_waiter() {
        loom::model(|| {
            let notify = Arc::new(Notify::new());
            let waker = futures::task::noop_waker();
            let mut cx = Context::from_waker(&waker);
            let mut first = Box::pin(notify.notified());
            let mut second = Box::pin(notify.notified());
            assert!(first.as_mut().poll(&mut cx).is_pending());
            assert!(second.as_mut().poll(&mut cx).is_pending());

            let notifier = {
                let notify = notify.clone();
                thread::spawn(move || notify.notify_one())
            };
            drop(first);
            loom::future::block_on(second);
            notifier.join().unwrap();

            let mut third = notify.notified();
            assert!(Pin::new(&mut third).poll(&mut cx) == Poll::Pending);
        });
    }

    /// notify_waiters vs a waiter that was created before it but polls
    /// concurrently: the waiter completes, and no permit is left behind.
    #[test]
    fn notify_waiters_vs_first_poll() {
        loom::model(|| {
            let notify = Arc::new(Notify::new());
            let created = Arc::new(AtomicBool::new(false));
            let waiter = {
                let (notify, created) = (notify.clone(), created.clone());
                thread::spawn(move || {
                    let notified = notify.notified();
                    created.store(true, Release);
                    loom::future::block_on(notified);
                })
            };
            // The waiter's future exists before the call.
            while !created.load(Acquire) {
                thread::yield_now();
            }
            notify.notify_waiters();
            waiter.join().unwrap();
            let waker = futures::task::noop_waker();
            let mut later = notify.notified();
            assert!(
                Pin::new(&mut later)
                    .poll(&mut Context::from_waker(&waker))
                    .is_pending()
            );
        });
    }
}
