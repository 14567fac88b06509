//! `Notify`: wake one waiting task, or all of them.
//!
//! State: one atomic word holds `EMPTY` / `WAITING` / `NOTIFIED` in its low
//! bits and the count of `notify_waiters` calls above them; the queue of
//! waiters sits under a mutex. `WAITING` is set exactly while the queue is
//! non-empty, and only with the lock held; `EMPTY <-> NOTIFIED` may flip
//! without the lock, so the common cases (notify with no one waiting,
//! consume a stored permit) take no lock.
//!
//! Protocol:
//! 1. `notify_one` with no waiter stores the permit (`NOTIFIED`, lock-free);
//!    with waiters it takes the lock and hands the notification to the
//!    oldest one (unlinking it, marking it, and clearing `WAITING` if it was
//!    the last).
//! 2. A `Notified` future's first poll consumes the permit if there is one
//!    (lock-free); otherwise, under the lock, it re-checks, sets `WAITING`
//!    and queues itself. Since `notify_one` must take the lock to see a
//!    waiter, it cannot miss one that is being queued.
//! 3. `notify_waiters` bumps the call count (lock-free if no one is
//!    queued) and wakes every queued waiter. A future records the count when it is created
//!    and completes if it moved, so futures created before the call but
//!    not yet polled are woken too. It stores no permit.
//! 4. Cancellation: a future dropped after `notify_one` picked it but
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

const EMPTY: usize = 0;
const WAITING: usize = 1;
const NOTIFIED: usize = 2;
const STATE_MASK: usize = 3;
/// One `notify_waiters` call, counted above the state bits.
const CALL: usize = 4;

fn calls(word: usize) -> usize {
    word & !STATE_MASK
}

fn with_state(word: usize, state: usize) -> usize {
    calls(word) | state
}

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
    /// State bits and the `notify_waiters` count; see the module docs.
    state: AtomicUsize,
    waiters: Mutex<WaitList<Waiter>>,
}

#[derive(Debug)]
struct Waiter {
    waker: Option<Waker>,
    /// Set when unlinked by a notification: `true` for `notify_one`.
    by_notify_one: bool,
}

type Waiters<'a> = crate::loom::sync::MutexGuard<'a, WaitList<Waiter>>;

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
            state: AtomicUsize::new(EMPTY),
            waiters: Mutex::new(WaitList::new()),
        }
    }

    fn lock(&self) -> Waiters<'_> {
        self.waiters.lock().unwrap_or_else(|e| e.into_inner())
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
            waiters_calls: calls(self.state.load(SeqCst)),
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
        if self.try_store_permit() {
            return;
        }
        let mut wakers = WakeList::new();
        let mut waiters = self.lock();
        self.notify_one_locked(&mut waiters, &mut wakers);
        drop(waiters);
        wakers.wake_all();
    }

    /// Step 1 without the lock: `true` if there was no waiter and the
    /// permit is now stored.
    fn try_store_permit(&self) -> bool {
        let mut word = self.state.load(SeqCst);
        loop {
            if word & STATE_MASK == WAITING {
                return false;
            }
            let stored = with_state(word, NOTIFIED);
            match self.state.compare_exchange(word, stored, SeqCst, SeqCst) {
                Ok(_) => return true,
                Err(actual) => word = actual,
            }
        }
    }

    /// Step 1 with the lock held.
    fn notify_one_locked(&self, waiters: &mut Waiters<'_>, wakers: &mut WakeList) {
        if self.try_store_permit() {
            return;
        }
        // WAITING: only lock holders change the word now.
        let key = waiters
            .pop_front()
            .expect("`WAITING` is set only while waiters are queued");
        let waiter = waiters.get_mut(key);
        waiter.by_notify_one = true;
        wakers.push(waiter.waker.take());
        if waiters.is_empty() {
            let word = self.state.load(SeqCst);
            self.state.store(with_state(word, EMPTY), SeqCst);
        }
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
        // No one queued: count the call without the lock. A waiter being
        // queued concurrently fails its EMPTY -> WAITING exchange, re-reads
        // the count and completes.
        let mut word = self.state.load(SeqCst);
        while word & STATE_MASK != WAITING {
            match self
                .state
                .compare_exchange(word, word + CALL, SeqCst, SeqCst)
            {
                Ok(_) => return,
                Err(actual) => word = actual,
            }
        }
        let mut wakers = WakeList::new();
        let mut waiters = self.lock();
        let word = self.state.load(SeqCst);
        if word & STATE_MASK == WAITING {
            while let Some(key) = waiters.pop_front() {
                wakers.push(waiters.get_mut(key).waker.take());
            }
            self.state.store(with_state(word + CALL, EMPTY), SeqCst);
        } else {
            // EMPTY or NOTIFIED may flip concurrently: count atomically.
            self.state.fetch_add(CALL, SeqCst);
        }
        drop(waiters);
        wakers.wake_all();
    }

    /// Takes the stored permit, if any, without the lock.
    fn try_take_permit(&self) -> bool {
        let word = self.state.load(SeqCst);
        word & STATE_MASK == NOTIFIED
            && self
                .state
                .compare_exchange(word, with_state(word, EMPTY), SeqCst, SeqCst)
                .is_ok()
    }
}

impl Default for Notify {
    fn default() -> Notify {
        Notify::new()
    }
}

impl fmt::Debug for Notify {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let waiters = self.lock();
        f.debug_struct("Notify")
            .field(
                "permit",
                &(self.state.load(SeqCst) & STATE_MASK == NOTIFIED),
            )
            .field("waiters", &waiters.len())
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

impl Notified<'_> {
    /// Step 2: `true` if notified at once; otherwise queued.
    fn register_first(&mut self, waker: &Waker) -> bool {
        let notify = self.notify;
        if calls(notify.state.load(SeqCst)) != self.waiters_calls || notify.try_take_permit() {
            return true;
        }
        let mut waiters = notify.lock();
        let mut word = notify.state.load(SeqCst);
        loop {
            if calls(word) != self.waiters_calls {
                return true;
            }
            let next = match word & STATE_MASK {
                NOTIFIED => with_state(word, EMPTY),
                EMPTY => with_state(word, WAITING),
                _ => word,
            };
            if next != word {
                if let Err(actual) = notify.state.compare_exchange(word, next, SeqCst, SeqCst) {
                    word = actual;
                    continue;
                }
            }
            if word & STATE_MASK == NOTIFIED {
                return true;
            }
            let waiter = Waiter {
                waker: Some(waker.clone()),
                by_notify_one: false,
            };
            self.key = Some(waiters.push_back(waiter));
            return false;
        }
    }
}

impl Future for Notified<'_> {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.done {
            return Poll::Ready(());
        }
        let coop = ready!(poll_proceed(cx));
        match self.key {
            None => {
                if !self.register_first(cx.waker()) {
                    return Poll::Pending;
                }
            }
            Some(key) => {
                let mut waiters = self.notify.lock();
                if waiters.is_linked(key) {
                    register(&mut waiters.get_mut(key).waker, cx.waker());
                    return Poll::Pending;
                }
                waiters.remove(key);
                drop(waiters);
                self.key = None;
            }
        }
        self.done = true;
        coop.made_progress();
        Poll::Ready(())
    }
}

impl Drop for Notified<'_> {
    fn drop(&mut self) {
        let Some(key) = self.key else { return };
        let notify = self.notify;
        let mut waiters = notify.lock();
        let linked = waiters.is_linked(key);
        let waiter = waiters.remove(key);
        let mut wakers = WakeList::new();
        if linked {
            if waiters.is_empty() {
                // It was the last waiter: WAITING, changed only under the lock.
                let word = notify.state.load(SeqCst);
                notify.state.store(with_state(word, EMPTY), SeqCst);
            }
        } else if waiter.by_notify_one {
            // Step 4: pass the unobserved notification on.
            notify.notify_one_locked(&mut waiters, &mut wakers);
        }
        drop(waiters);
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

    /// A lock-free `notify_one` racing with a first poll that queues the
    /// waiter: the waiter is woken, and no permit is left behind.
    #[test]
    fn notify_one_vs_first_poll() {
        loom::model(|| {
            let notify = Arc::new(Notify::new());
            let waiter = {
                let notify = notify.clone();
                thread::spawn(move || loom::future::block_on(notify.notified()))
            };
            notify.notify_one();
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

    /// Two queued waiters, `notify_one` from two threads at once, racing
    /// the waiters' own re-polls: both waiters are woken.
    #[test]
    fn two_notify_one_two_queued_waiters() {
        loom::model(|| {
            let notify = Arc::new(Notify::new());
            let waker = futures::task::noop_waker();
            let mut cx = Context::from_waker(&waker);
            let mut first = Box::pin(notify.notified());
            let mut second = Box::pin(notify.notified());
            assert!(first.as_mut().poll(&mut cx).is_pending());
            assert!(second.as_mut().poll(&mut cx).is_pending());
            let notifiers: Vec<_> = (0..2)
                .map(|_| {
                    let notify = notify.clone();
                    thread::spawn(move || notify.notify_one())
                })
                .collect();
            loom::future::block_on(first);
            loom::future::block_on(second);
            for notifier in notifiers {
                notifier.join().unwrap();
            }
            let mut later = notify.notified();
            assert!(Pin::new(&mut later).poll(&mut cx).is_pending());
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
