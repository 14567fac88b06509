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
//!    queued), frees every queued waiter's slot and wakes it. A future
//!    records the count when it is created and completes if it moved, so
//!    futures created before the call but not yet polled are woken too. It
//!    stores no permit.
//! 4. Cancellation: a future dropped after `notify_one` picked it but
//!    before it observed that passes the notification on (to the next
//!    waiter, or as the permit), so it is never lost. It passes it on as
//!    it came, recorded in its slot when it was picked: from `notify_one`
//!    to the oldest waiter left, from `notify_last` to the newest.
//! 5. Observing: a waiter picked by `notify_one` keeps its slot (marked)
//!    until its future observes it (a poll, or `enable` returning `true`:
//!    both receive the notification), under the lock; `picked` counts such
//!    slots. A queued future that sees the call count moved while
//!    `picked` is zero knows `notify_waiters` freed its slot, and
//!    completes (or drops) without the lock: with `notify_waiters` waking
//!    many tasks at once, they do not queue on the lock a second time. If
//!    `picked` is not zero it takes the lock, and its slot's `ticket`
//!    tells whether the slot is still its own or was freed and reused.
//! 6. Re-polls: a queued future polled again with the waker it stored
//!    returns `Pending` without the lock when nothing is picked and the
//!    call count has not moved (`Waiting::still_waiting_with`).

use crate::loom::sync::Mutex;
use crate::loom::sync::atomic::AtomicUsize;
use crate::loom::sync::atomic::Ordering::{Relaxed, SeqCst};
use crate::sync::wait_list::{WaitList, WakeList, register};
use crate::task::waits::Site;
use std::fmt;
use std::future::Future;
use std::ops::Deref;
use std::pin::Pin;
// std's Arc: `notified_owned` takes the `Arc` users hold.
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

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
/// Unlike rt's channels and locks, a [`Notified`] future spends none of
/// the task's cooperative budget, as tokio's: it is a building block, and
/// a primitive made of it that spends budget (a `watch` receiver's
/// `changed`, the `watch` sender's `closed`, a `broadcast` receiver's
/// `recv`) spends it for its whole operation rather than once more for
/// each wake-up inside; the `mpsc` and `broadcast` senders' `closed`,
/// made of it alone, spend none (as tokio's). A loop that only ever finds
/// a stored permit therefore never yields on its own; add
/// [`consume_budget`](crate::task::consume_budget) to it if it must.
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
    /// Slots picked by `notify_one` and not yet observed (step 5).
    picked: AtomicUsize,
    /// Numbers the waiters, to tell a slot's owner after reuse (step 5).
    tickets: AtomicUsize,
    waiters: Mutex<WaitList<Waiter>>,
}

#[derive(Debug)]
struct Waiter {
    /// Taken by the notification. A slot that is unlinked but still stored
    /// was picked by `notify_one`: `notify_waiters` frees the slots it
    /// takes.
    waker: Option<Waker>,
    ticket: usize,
    /// How a picked waiter was picked, so a drop passes the notification
    /// on the same way (step 4).
    picked_as: Pick,
}

type Waiters<'a> = crate::loom::sync::MutexGuard<'a, WaitList<Waiter>>;

/// Which waiter a notification goes to.
#[derive(Clone, Copy, Debug)]
enum Pick {
    Oldest,
    Newest,
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
            state: AtomicUsize::new(EMPTY),
            picked: AtomicUsize::new(0),
            tickets: AtomicUsize::new(0),
            waiters: Mutex::new(WaitList::new()),
        }
    }

    /// [`new`](Notify::new) in a `const` context, for a `static`.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::sync::Notify;
    ///
    /// static READY: Notify = Notify::const_new();
    /// READY.notify_one();
    /// futures::executor::block_on(READY.notified());
    /// ```
    #[cfg(not(loom))]
    pub const fn const_new() -> Notify {
        Notify {
            state: AtomicUsize::new(EMPTY),
            picked: AtomicUsize::new(0),
            tickets: AtomicUsize::new(0),
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
    #[track_caller]
    pub fn notified(&self) -> Notified<'_> {
        Notified {
            waiting: Waiting::new(self),
            site: Site::here("Notify::notified"),
        }
    }

    /// `notified` for one of rt's waits built on a `Notify` (a barrier's,
    /// a channel's): the task dump names `site`, not the `Notify`.
    pub(crate) fn notified_for(&self, site: Site) -> Notified<'_> {
        Notified {
            waiting: Waiting::new(self),
            site,
        }
    }

    /// [`notified`](Notify::notified) holding the `Notify` by `Arc`: the
    /// future is `'static` (and `Send`), so it can be stored in a struct
    /// or moved into a spawned task. It counts as waiting from the same
    /// moments, has [`enable`](OwnedNotified::enable), and is cancel-safe
    /// in the same way: dropped after `notify_one` picked it, it passes
    /// the notification on.
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
    ///     // Created before the task starts: the `notify_waiters` below
    ///     // cannot be missed.
    ///     let notified = notify.clone().notified_owned();
    ///     let waiter = rt::spawn(async move {
    ///         notified.await;
    ///         "woken"
    ///     });
    ///     notify.notify_waiters();
    ///     assert_eq!(waiter.await.unwrap(), "woken");
    /// });
    /// ```
    #[track_caller]
    pub fn notified_owned(self: Arc<Self>) -> OwnedNotified {
        OwnedNotified {
            waiting: Waiting::new(self),
            site: Site::here("Notify::notified_owned"),
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
        self.notify(Pick::Oldest);
    }

    /// Wakes the newest waiter (the last to start waiting), or stores a
    /// permit if none is waiting: [`notify_one`](Notify::notify_one)
    /// serving waiters last-in first-out.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::pin::pin;
    /// use std::task::{Context, Waker};
    /// use std::future::Future;
    ///
    /// let notify = rt::sync::Notify::new();
    /// let mut cx = Context::from_waker(Waker::noop());
    /// let mut first = pin!(notify.notified());
    /// let mut second = pin!(notify.notified());
    /// assert!(first.as_mut().poll(&mut cx).is_pending());
    /// assert!(second.as_mut().poll(&mut cx).is_pending());
    /// notify.notify_last();
    /// assert!(second.as_mut().poll(&mut cx).is_ready());
    /// assert!(first.as_mut().poll(&mut cx).is_pending());
    /// ```
    pub fn notify_last(&self) {
        self.notify(Pick::Newest);
    }

    fn notify(&self, pick: Pick) {
        if self.try_store_permit() {
            return;
        }
        let mut wakers = WakeList::new();
        let mut waiters = self.lock();
        self.notify_locked(&mut waiters, &mut wakers, pick);
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
    fn notify_locked(&self, waiters: &mut Waiters<'_>, wakers: &mut WakeList, pick: Pick) {
        if self.try_store_permit() {
            return;
        }
        // WAITING: only lock holders change the word now.
        let key = match pick {
            Pick::Oldest => waiters.pop_front(),
            Pick::Newest => waiters.pop_back(),
        }
        .expect("`WAITING` is set only while waiters are queued");
        self.picked.fetch_add(1, SeqCst);
        let waiter = waiters.get_mut(key);
        waiter.picked_as = pick;
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
            while let Some(key) = waiters.front() {
                wakers.push(waiters.remove(key).waker);
            }
            self.state.store(with_state(word + CALL, EMPTY), SeqCst);
        } else {
            // EMPTY or NOTIFIED may flip concurrently: count atomically.
            self.state.fetch_add(CALL, SeqCst);
        }
        drop(waiters);
        wakers.wake_all();
    }

    /// Waits until `done()` holds, a state change that is notified with
    /// `notify_waiters` (a channel's other side going away). The
    /// `Notified` future exists before each look, so a change between the
    /// look and the wait is not missed. Spends no budget, as `Notified`
    /// (a caller that must spend one wraps it in `cooperative`).
    pub(crate) async fn wait_until(&self, mut done: impl FnMut() -> bool) {
        loop {
            let notified = self.notified();
            if done() {
                return;
            }
            notified.await;
        }
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
    waiting: Waiting<&'a Notify>,
    /// What the task dump says this waits for.
    site: Site,
}

/// The future returned by [`Notify::notified_owned`]: a [`Notified`]
/// that holds its `Notify` by `Arc`.
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
///
/// let notify = Arc::new(rt::sync::Notify::new());
/// let notified: rt::sync::OwnedNotified = notify.clone().notified_owned();
/// notify.notify_one();
/// futures::executor::block_on(notified);
/// ```
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct OwnedNotified {
    waiting: Waiting<Arc<Notify>>,
    /// What the task dump says this waits for.
    site: Site,
}

/// One waiting future's side of the protocol, whichever way it holds its
/// `Notify` (`&Notify` for `Notified`, `Arc<Notify>` for `OwnedNotified`).
struct Waiting<N: Deref<Target = Notify>> {
    notify: N,
    waiters_calls: usize,
    key: Option<usize>,
    /// The queued waiter's ticket (step 5).
    ticket: usize,
    /// Which waker this future last stored in its slot, by identity (see
    /// `WakerId`): a re-poll with the same waker while nothing picked or
    /// freed the slot returns `Pending` without the lock (step 6).
    registered: Option<WakerId>,
    done: bool,
}

/// A waker's identity, as `Waker::will_wake` compares it: its data and
/// vtable pointers, kept as integers (never dereferenced; the future stays
/// `Send`). It names the waker in this future's slot only while that
/// waker is stored there, which is what the lock-free check in `poll`
/// relies on: a stored waker is only ever taken by `notify_one` (which
/// raises `picked`) or by `notify_waiters` (which moves the call count).
#[derive(Clone, Copy, PartialEq, Eq)]
struct WakerId(usize, usize);

impl WakerId {
    fn of(waker: &Waker) -> WakerId {
        WakerId(waker.data() as usize, waker.vtable() as *const _ as usize)
    }
}

impl<N: Deref<Target = Notify>> Waiting<N> {
    fn new(notify: N) -> Waiting<N> {
        let waiters_calls = calls(notify.state.load(SeqCst));
        Waiting {
            notify,
            waiters_calls,
            key: None,
            ticket: 0,
            registered: None,
            done: false,
        }
    }

    /// Step 5, lock-free: `true` if `notify_waiters` has freed this queued
    /// future's slot. `false` means "take the lock and look".
    fn freed_by_notify_waiters(&self) -> bool {
        calls(self.notify.state.load(SeqCst)) != self.waiters_calls
            && self.notify.picked.load(SeqCst) == 0
    }

    /// Step 6, lock-free: `true` if this queued future's slot still holds
    /// a waker that wakes the same task as `waker`, and neither
    /// `notify_one` nor `notify_waiters` has taken it. Then a poll has
    /// nothing to do: `Pending`, without the lock. `false` means "take the
    /// lock and look".
    ///
    /// A task polled again while it waits (a `select!` whose other branch
    /// woke it: every request of a server whose connections also wait for
    /// a shutdown signal) would otherwise take the lock, shared by every
    /// waiter on every worker, only to find its waker already stored.
    ///
    /// Why no wake-up is lost: `picked` is raised (under the lock, before
    /// the waker is taken) whenever `notify_one` picks a slot, and stays
    /// up until the slot's own future observes it; the call count moves
    /// before `notify_waiters` takes any waker. A notification ordered
    /// before this poll is seen by these `SeqCst` loads; one that comes
    /// after them takes the stored waker, which wakes this task, and the
    /// next poll takes the slow path.
    fn still_waiting_with(&self, waker: &Waker) -> bool {
        self.registered == Some(WakerId::of(waker))
            && self.notify.picked.load(SeqCst) == 0
            && calls(self.notify.state.load(SeqCst)) == self.waiters_calls
    }

    /// Step 5, under the lock: `false` if this future's slot was freed by
    /// `notify_waiters` (and maybe reused by another waiter since).
    fn owns_slot(&self, waiters: &Waiters<'_>, key: usize) -> bool {
        waiters
            .get(key)
            .is_some_and(|waiter| waiter.ticket == self.ticket)
    }

    /// Step 2: `true` if notified at once; otherwise queued (with no
    /// waker for `enable`: the next poll registers one).
    fn register_first(&mut self, waker: Option<&Waker>) -> bool {
        let notify = &*self.notify;
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
            // Under the lock: `Relaxed` is enough to keep tickets unique.
            self.ticket = notify.tickets.fetch_add(1, Relaxed);
            self.registered = waker.map(WakerId::of);
            let waiter = Waiter {
                waker: waker.cloned(),
                ticket: self.ticket,
                // Set when picked.
                picked_as: Pick::Oldest,
            };
            self.key = Some(waiters.push_back(waiter));
            return false;
        }
    }

    /// See [`Notified::enable`].
    fn enable(&mut self) -> bool {
        if self.done {
            return true;
        }
        match self.key {
            None => {
                self.done = self.register_first(None);
                self.done
            }
            Some(key) => self.observe(key, None),
        }
    }

    /// Step 5 for a queued future, from `poll` (with its waker) or
    /// `enable` (without): `false` if its slot is still queued (storing
    /// the waker, if given); else it was freed by `notify_waiters` or
    /// picked by `notify_one`/`notify_last`, and the future takes that
    /// notification now: a picked slot is removed and its pick uncounted,
    /// so that a later drop passes nothing on (`enable` saying `true` is
    /// receiving the notification, as in tokio).
    fn observe(&mut self, key: usize, waker: Option<&Waker>) -> bool {
        if !self.freed_by_notify_waiters() {
            let mut waiters = self.notify.lock();
            if self.owns_slot(&waiters, key) {
                if waiters.is_linked(key) {
                    let Some(waker) = waker else { return false };
                    let replaced = register(&mut waiters.get_mut(key).waker, waker);
                    self.registered = Some(WakerId::of(waker));
                    drop(waiters);
                    drop(replaced);
                    return false;
                }
                // Picked (the notifier took its waker).
                let picked = waiters.remove(key);
                self.notify.picked.fetch_sub(1, SeqCst);
                drop(waiters);
                drop(picked);
            }
        }
        self.key = None;
        self.done = true;
        true
    }

    fn poll(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        if self.done {
            return Poll::Ready(());
        }
        // No budget (see `Notify`'s docs).
        if self.key.is_some() && self.still_waiting_with(cx.waker()) {
            return Poll::Pending;
        }
        match self.key {
            None => {
                if !self.register_first(Some(cx.waker())) {
                    return Poll::Pending;
                }
            }
            Some(key) => {
                if !self.observe(key, Some(cx.waker())) {
                    return Poll::Pending;
                }
            }
        }
        self.done = true;
        Poll::Ready(())
    }

    fn fmt(&self, name: &str, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct(name)
            .field("waiting", &self.key.is_some())
            .field("done", &self.done)
            .finish()
    }
}

impl<N: Deref<Target = Notify>> Drop for Waiting<N> {
    fn drop(&mut self) {
        let Some(key) = self.key else { return };
        if self.freed_by_notify_waiters() {
            return;
        }
        let notify = &*self.notify;
        let mut waiters = notify.lock();
        if !self.owns_slot(&waiters, key) {
            return;
        }
        let linked = waiters.is_linked(key);
        // Dropped with its waker once the lock is released.
        let removed = waiters.remove(key);
        let mut wakers = WakeList::new();
        if linked {
            if waiters.is_empty() {
                // It was the last waiter: WAITING, changed only under the lock.
                let word = notify.state.load(SeqCst);
                notify.state.store(with_state(word, EMPTY), SeqCst);
            }
        } else {
            // Picked by `notify_one` or `notify_last` (step 4): pass the
            // unobserved notification on the way it came.
            notify.picked.fetch_sub(1, SeqCst);
            notify.notify_locked(&mut waiters, &mut wakers, removed.picked_as);
        }
        drop(waiters);
        drop(removed);
        wakers.wake_all();
    }
}

impl Notified<'_> {
    /// Starts waiting without polling: from now on the future counts as
    /// waiting for [`notify_one`](Notify::notify_one) too (it always did
    /// for [`notify_waiters`](Notify::notify_waiters)), so a notification
    /// sent before its first poll is not missed. Returns `true` if it was
    /// notified already: it has then received that notification (the next
    /// poll is ready, and dropping it instead passes nothing on to another
    /// waiter, as in tokio).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::pin::pin;
    /// let notify = rt::sync::Notify::new();
    /// let mut notified = pin!(notify.notified());
    /// assert!(!notified.as_mut().enable());
    /// notify.notify_one(); // goes to the enabled future, not to a permit
    /// assert!(notified.as_mut().enable());
    /// futures::executor::block_on(notified);
    /// ```
    pub fn enable(self: Pin<&mut Self>) -> bool {
        self.get_mut().waiting.enable()
    }
}

impl OwnedNotified {
    /// [`Notified::enable`] for the owned future: starts waiting for
    /// `notify_one` without polling; `true` if already notified.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::pin::pin;
    /// use std::sync::Arc;
    ///
    /// let notify = Arc::new(rt::sync::Notify::new());
    /// let mut notified = pin!(notify.clone().notified_owned());
    /// assert!(!notified.as_mut().enable());
    /// notify.notify_one();
    /// assert!(notified.as_mut().enable());
    /// futures::executor::block_on(notified);
    /// ```
    pub fn enable(self: Pin<&mut Self>) -> bool {
        self.get_mut().waiting.enable()
    }
}

impl Future for Notified<'_> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.get_mut();
        let polled = this.waiting.poll(cx);
        if polled.is_pending() {
            this.site.record_plain();
        }
        polled
    }
}

impl Future for OwnedNotified {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.get_mut();
        let polled = this.waiting.poll(cx);
        if polled.is_pending() {
            this.site.record_plain();
        }
        polled
    }
}

impl fmt::Debug for Notified<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.waiting.fmt("Notified", f)
    }
}

impl fmt::Debug for OwnedNotified {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.waiting.fmt("OwnedNotified", f)
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::Notify;
    use crate::loom::sync::atomic::Ordering::SeqCst;
    use std::future::Future;
    use std::pin::Pin;
    use std::task::{Context, Poll};

    fn poll(notified: &mut Pin<Box<super::Notified<'_>>>) -> Poll<()> {
        let waker = futures::task::noop_waker();
        notified.as_mut().poll(&mut Context::from_waker(&waker))
    }

    fn stored(notify: &Notify) -> usize {
        notify.lock().stored()
    }

    /// Step 6: a queued future polled again with the waker it stored
    /// returns `Pending` without the waiters' lock. Another thread holds
    /// the lock meanwhile; the re-poll must not wait for it (the deadline
    /// only turns a re-poll that does into a failure instead of a hang).
    #[test]
    fn a_re_poll_with_the_stored_waker_takes_no_lock() {
        let notify = Notify::new();
        let mut waiter = Box::pin(notify.notified());
        assert!(poll(&mut waiter).is_pending());
        let (locked_tx, locked_rx) = std::sync::mpsc::channel();
        let (polled_tx, polled_rx) = std::sync::mpsc::channel();
        std::thread::scope(|scope| {
            let notify = &notify;
            let holder = scope.spawn(move || {
                let _waiters = notify.lock();
                locked_tx.send(()).unwrap();
                polled_rx
                    .recv_timeout(std::time::Duration::from_secs(30))
                    .is_ok()
            });
            locked_rx.recv().unwrap();
            assert!(poll(&mut waiter).is_pending());
            let _ = polled_tx.send(());
            assert!(holder.join().unwrap(), "the re-poll waited for the lock");
        });
        // A different waker is stored under the lock, as before.
        let counter = std::sync::Arc::new(Counter::default());
        let waker = std::task::Waker::from(counter.clone());
        assert!(
            waiter
                .as_mut()
                .poll(&mut Context::from_waker(&waker))
                .is_pending()
        );
        notify.notify_one();
        assert_eq!(counter.0.load(SeqCst), 1, "the new waker was woken");
        assert!(poll(&mut waiter).is_ready());
    }

    #[derive(Default)]
    struct Counter(std::sync::atomic::AtomicUsize);

    impl std::task::Wake for Counter {
        fn wake(self: std::sync::Arc<Self>) {
            self.0.fetch_add(1, SeqCst);
        }
    }

    /// Step 5: `notify_waiters` frees the slots itself and the woken
    /// futures complete without the lock, leaving nothing stored.
    #[test]
    fn notify_waiters_frees_the_slots_it_wakes() {
        let notify = Notify::new();
        let mut waiters: Vec<_> = (0..3).map(|_| Box::pin(notify.notified())).collect();
        for waiter in &mut waiters {
            assert!(poll(waiter).is_pending());
        }
        assert_eq!(stored(&notify), 3);
        notify.notify_waiters();
        assert_eq!(stored(&notify), 0);
        for waiter in &mut waiters {
            assert!(
                waiter.waiting.freed_by_notify_waiters(),
                "decided without the lock"
            );
            assert!(poll(waiter).is_ready());
        }
        drop(waiters);
        assert_eq!(notify.picked.load(SeqCst), 0);
    }

    /// A slot picked by `notify_one` survives `notify_waiters`, and a slot
    /// freed by it and reused by a new waiter is not mistaken for the old
    /// future's: each future settles its own slot only.
    #[test]
    fn picked_slots_and_reused_slots_stay_apart() {
        let notify = Notify::new();
        let mut picked = Box::pin(notify.notified());
        let mut freed = Box::pin(notify.notified());
        assert!(poll(&mut picked).is_pending());
        assert!(poll(&mut freed).is_pending());
        notify.notify_one(); // picks `picked`
        notify.notify_waiters(); // frees `freed`'s slot
        assert_eq!(stored(&notify), 1);
        let mut reuser = Box::pin(notify.notified());
        assert!(poll(&mut reuser).is_pending(), "takes the freed slot");
        assert_eq!(stored(&notify), 2);
        // `freed` sees `picked` outstanding, looks under the lock, and
        // leaves the reused slot alone.
        assert!(!freed.waiting.freed_by_notify_waiters());
        assert!(poll(&mut freed).is_ready());
        assert_eq!(stored(&notify), 2);
        // Dropping `picked` unobserved passes its notification on.
        drop(picked);
        assert_eq!(notify.picked.load(SeqCst), 1, "now `reuser` is picked");
        assert!(poll(&mut reuser).is_ready());
        assert_eq!(stored(&notify), 0);
        assert_eq!(notify.picked.load(SeqCst), 0);
        drop((freed, reuser));
        let mut later = Box::pin(notify.notified());
        assert!(poll(&mut later).is_pending(), "no permit was left behind");
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

    /// Queues two waiters, runs `notify` on another thread while the
    /// first is dropped, and waits for the second to complete.
    fn drop_first_of_two_during(notify: fn(&Notify)) -> Arc<Notify> {
        let shared = Arc::new(Notify::new());
        let waker = futures::task::noop_waker();
        let mut cx = Context::from_waker(&waker);
        let mut first = Box::pin(shared.notified());
        let mut second = Box::pin(shared.notified());
        assert!(first.as_mut().poll(&mut cx).is_pending());
        assert!(second.as_mut().poll(&mut cx).is_pending());
        let notifier = {
            let shared = shared.clone();
            thread::spawn(move || notify(&shared))
        };
        drop(first);
        loom::future::block_on(second);
        notifier.join().unwrap();
        shared
    }

    /// Slots picked by `notify_one` and not yet observed (step 5).
    fn picked(notify: &Notify) -> usize {
        notify
            .picked
            .load(crate::loom::sync::atomic::Ordering::SeqCst)
    }

    /// `notify_one` racing with the drop of the first waiter: the second
    /// waiter is woken, and exactly one notification is consumed.
    #[test]
    fn notify_one_vs_dropped_waiter() {
        loom::model(|| {
            let notify = drop_first_of_two_during(Notify::notify_one);
            assert_eq!(picked(&notify), 0);
            let waker = futures::task::noop_waker();
            let mut third = notify.notified();
            assert!(Pin::new(&mut third).poll(&mut Context::from_waker(&waker)) == Poll::Pending);
        });
    }

    /// Step 5's count: a waiter already picked by `notify_one` is dropped
    /// unobserved while another thread calls `notify_waiters`. Its drop
    /// passes the notification to the second waiter (still queued) or,
    /// once `notify_waiters` has freed that one, stores it as the permit;
    /// the second waiter completes either way. Once both futures are gone
    /// no pick is left counted: a count stuck above zero would send every
    /// later poll of this `Notify` through the lock (steps 5 and 6).
    #[test]
    fn picked_waiter_dropped_vs_notify_waiters() {
        loom::model(|| {
            let notify = Arc::new(Notify::new());
            let waker = futures::task::noop_waker();
            let mut cx = Context::from_waker(&waker);
            let mut first = Box::pin(notify.notified());
            let mut second = Box::pin(notify.notified());
            assert!(first.as_mut().poll(&mut cx).is_pending());
            assert!(second.as_mut().poll(&mut cx).is_pending());
            notify.notify_one(); // picks `first`
            assert_eq!(picked(&notify), 1);
            let notifier = {
                let notify = notify.clone();
                thread::spawn(move || notify.notify_waiters())
            };
            drop(first);
            loom::future::block_on(second);
            notifier.join().unwrap();
            assert_eq!(picked(&notify), 0);
            assert_eq!(notify.lock().stored(), 0);
        });
    }

    /// `notify_last` racing with the drop of the newest of three waiters:
    /// picked or not when it is dropped, the notification ends with the
    /// second waiter (the newest left), never the first, and no permit
    /// is left behind (step 4).
    #[test]
    fn notify_last_vs_dropped_newest_waiter() {
        loom::model(|| {
            let notify = Arc::new(Notify::new());
            let waker = futures::task::noop_waker();
            let mut cx = Context::from_waker(&waker);
            let mut waiters: Vec<_> = (0..3).map(|_| Box::pin(notify.notified())).collect();
            for waiter in &mut waiters {
                assert!(waiter.as_mut().poll(&mut cx).is_pending());
            }
            let notifier = {
                let notify = notify.clone();
                thread::spawn(move || notify.notify_last())
            };
            drop(waiters.pop());
            let first = waiters.remove(0);
            let second = waiters.remove(0);
            loom::future::block_on(second);
            notifier.join().unwrap();
            let mut first = first;
            assert!(first.as_mut().poll(&mut cx).is_pending());
            drop(first);
            let mut later = notify.notified();
            assert!(Pin::new(&mut later).poll(&mut cx).is_pending());
        });
    }

    /// Records whether it was woken (a loom atomic, so the model sees the
    /// wake's ordering).
    struct Flag(AtomicBool);

    impl std::task::Wake for Flag {
        fn wake(self: std::sync::Arc<Self>) {
            self.0.store(true, Release);
        }
    }

    /// Step 6: a queued waiter polled again with the waker it stored,
    /// racing `notify` on another thread. Whether the re-poll saw the
    /// notification (`Ready`) or skipped the lock (`Pending`), nothing is
    /// lost: a `Pending` re-poll's waker is woken, and the next poll
    /// completes. No pick and no permit is left over.
    fn re_poll_during(notify: fn(&Notify)) {
        loom::model(move || {
            let shared = Arc::new(Notify::new());
            let flag = std::sync::Arc::new(Flag(AtomicBool::new(false)));
            let waker = std::task::Waker::from(flag.clone());
            let mut cx = Context::from_waker(&waker);
            let mut waiter = Box::pin(shared.notified());
            assert!(waiter.as_mut().poll(&mut cx).is_pending());
            let notifier = {
                let shared = shared.clone();
                thread::spawn(move || notify(&shared))
            };
            let polled = waiter.as_mut().poll(&mut cx);
            notifier.join().unwrap();
            if polled.is_pending() {
                assert!(flag.0.load(Acquire), "a Pending re-poll's waker was woken");
                assert!(waiter.as_mut().poll(&mut cx).is_ready());
            }
            drop(waiter);
            assert_eq!(
                shared
                    .picked
                    .load(crate::loom::sync::atomic::Ordering::SeqCst),
                0
            );
            let mut later = shared.notified();
            assert!(Pin::new(&mut later).poll(&mut cx).is_pending());
        });
    }

    #[test]
    fn re_poll_with_the_stored_waker_vs_notify_one() {
        re_poll_during(Notify::notify_one);
    }

    #[test]
    fn re_poll_with_the_stored_waker_vs_notify_waiters() {
        re_poll_during(Notify::notify_waiters);
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

    /// Step 5: `notify_one` then `notify_waiters` from one thread, racing
    /// the drop of the first waiter: the second completes whichever way
    /// the first's notification went, and afterwards no slot and no pick
    /// is left over (a future that freed a slot it did not own, or missed
    /// its own, would show here).
    #[test]
    fn notify_one_and_notify_waiters_vs_dropped_waiter() {
        loom::model(|| {
            let notify = drop_first_of_two_during(|notify| {
                notify.notify_one();
                notify.notify_waiters();
            });
            assert_eq!(notify.lock().stored(), 0);
            assert_eq!(
                notify
                    .picked
                    .load(crate::loom::sync::atomic::Ordering::SeqCst),
                0
            );
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

    /// Cancel safety of `OwnedNotified` (step 4): the first of two owned
    /// waiters is picked by `notify_one`, then dropped unobserved while
    /// another thread calls `notify_one`. The dropped waiter passes its
    /// notification on, so the second waiter completes and the other
    /// notification is left as the one stored permit, whichever order.
    #[test]
    fn owned_waiter_dropped_after_notify_one_vs_notify_one() {
        loom::model(|| {
            // std's Arc: `notified_owned` takes it.
            let notify = std::sync::Arc::new(Notify::new());
            let waker = futures::task::noop_waker();
            let mut cx = Context::from_waker(&waker);
            let mut first = Box::pin(notify.clone().notified_owned());
            let mut second = Box::pin(notify.clone().notified_owned());
            assert!(first.as_mut().poll(&mut cx).is_pending());
            assert!(second.as_mut().poll(&mut cx).is_pending());
            notify.notify_one(); // picks `first`
            let notifier = {
                let notify = notify.clone();
                thread::spawn(move || notify.notify_one())
            };
            drop(first);
            loom::future::block_on(second);
            notifier.join().unwrap();
            assert_eq!(picked(&notify), 0);
            assert_one_permit(&notify);
            assert_eq!(notify.lock().stored(), 0);
        });
    }

    /// A `Notify`, and a waker whose drop notifies it (for the waker
    /// rule: a primitive that drops it under its lock deadlocks, which
    /// loom reports).
    fn notify_and_notifying_waker() -> (Arc<Notify>, std::task::Waker) {
        use crate::sync::wait_list::loom_wakers::waker_with_drop_hook;
        let notify = Arc::new(Notify::new());
        let hooked = {
            let notify = notify.clone();
            waker_with_drop_hook(move || notify.notify_one())
        };
        (notify, hooked)
    }

    /// Exactly one permit is stored.
    fn assert_one_permit(notify: &Notify) {
        let waker = futures::task::noop_waker();
        let mut cx = Context::from_waker(&waker);
        let mut first = Box::pin(notify.notified());
        assert!(first.as_mut().poll(&mut cx).is_ready());
        let mut second = Box::pin(notify.notified());
        assert!(second.as_mut().poll(&mut cx).is_pending());
    }

    /// The waker rule: a waiter re-polled with a new waker while another
    /// thread notifies; the replaced waker's drop notifies too. The waiter
    /// completes and the other notification is the stored permit.
    #[test]
    fn replaced_waker_dropped_outside_the_lock() {
        loom::model(|| {
            let (notify, hooked) = notify_and_notifying_waker();
            let notifier = {
                let notify = notify.clone();
                thread::spawn(move || notify.notify_one())
            };
            let mut waiter = Box::pin(notify.notified());
            let _ = waiter.as_mut().poll(&mut Context::from_waker(&hooked));
            drop(hooked);
            loom::future::block_on(waiter);
            notifier.join().unwrap();
            assert_one_permit(&notify);
        });
    }

    /// The waker rule on the drop path: a queued waiter dropped while
    /// another thread notifies; its waker's drop notifies too. Exactly
    /// one permit is left, whichever came first.
    #[test]
    fn dropped_waiter_drops_its_waker_outside_the_lock() {
        loom::model(|| {
            let (notify, hooked) = notify_and_notifying_waker();
            let mut waiter = Box::pin(notify.notified());
            let first = waiter.as_mut().poll(&mut Context::from_waker(&hooked));
            assert!(first.is_pending());
            drop(hooked);
            let notifier = {
                let notify = notify.clone();
                thread::spawn(move || notify.notify_one())
            };
            drop(waiter);
            notifier.join().unwrap();
            assert_one_permit(&notify);
        });
    }
}
