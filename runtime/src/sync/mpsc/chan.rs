//! The channel shared by both mpsc flavours: the lock-free value queue
//! (`queue.rs`), the count of live senders, the receiver's waker and, when
//! bounded, the semaphore of free slots.
//!
//! The receiver ends with `None` once the queue is empty and no value can
//! arrive any more: every sender is gone, or the receiver closed the
//! channel and no slot permit is still out (a permit taken before the
//! close may still deliver a value, which the receiver then gets). An
//! unbounded channel is finished once closed and every value queued before
//! the close was received.
//!
//! Waking the receiver (`RxWake`), with no lock on the send path while
//! the receiver is busy:
//! 1. A receiver that finds nothing stores its waker and clears `woken`
//!    (under the waker's mutex), sets `waiting` (release), issues a SeqCst
//!    fence, then looks at the queue and the finished condition again.
//! 2. Whatever may end that wait (a value written, the last sender gone, a
//!    slot permit returned after `close`) is done first; then that side
//!    issues a SeqCst fence and reads `waiting` (acquire). If set and
//!    `woken` is not, it takes the waker under the mutex, sets `woken` if
//!    it got one, and wakes it.
//! 3. The fences order each side's write before its read, so either the
//!    receiver's second look sees the change or the other side sees
//!    `waiting` of this wait, and with it (acquire) the cleared `woken`.
//!    A `woken` left over from an earlier wait is never seen with this
//!    wait's `waiting`; a waker taken late only causes a spurious poll.
//! 4. Only the receiver writes `waiting`: it clears it once it got a
//!    value, so senders skip even the `woken` check. (Senders never modify
//!    `waiting`, which also keeps the protocol within what loom models
//!    exactly: it mis-models a fenced load of a location the same thread
//!    modified.)

use crate::loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering, fence};
use crate::loom::sync::{Mutex, MutexGuard};
use crate::sync::mpsc::error::TryRecvError;
use crate::sync::mpsc::queue::{self, CLOSED, DROPPED, Head, Pop, Queue};
use crate::sync::semaphore::{Acquire, AcquireError, TryAcquireError};
use crate::sync::wait_list::register;
use crate::sync::{Notify, Semaphore};
use crate::task::poll_proceed;
use crate::task::waits::Site;
use crossbeam_utils::CachePadded;
use std::fmt;
use std::panic::AssertUnwindSafe;
use std::task::{Context, Poll, Waker, ready};

pub(super) struct Chan<T> {
    queue: Queue<T>,
    senders: AtomicUsize,
    /// Weak senders (`WeakSender`, `WeakUnboundedSender`): they keep the
    /// channel's memory, not the channel open.
    weak_senders: AtomicUsize,
    /// Bounded only: one permit per free slot, and the capacity. Padded:
    /// its word changes on every send and receive, while `senders` and
    /// `closed` next to it are read on those paths.
    slots: CachePadded<Option<(Semaphore, usize)>>,
    /// Set by `close` once the queue refuses unpermitted sends.
    closed: AtomicBool,
    /// Woken when the receiver closes, for `Sender::closed`.
    closed_notify: Notify,
    /// Read by senders on every push: on a cache line of its own.
    rx: CachePadded<RxWake>,
}

/// The receiver's waker and the flags of steps 1-4.
struct RxWake {
    /// The receiver waits for `waker` to be woken. Written by it only.
    waiting: AtomicBool,
    /// The waker of this wait was taken: later senders skip the lock.
    woken: AtomicBool,
    waker: Mutex<Option<Waker>>,
}

/// What the receiver found.
enum Taken<T> {
    Value(T),
    /// No value can arrive any more.
    Finished,
    /// Nothing now; a send may still come.
    Empty,
    /// A sender is writing the next value.
    Busy,
}

impl<T> Chan<T> {
    /// The channel and the receiver's right to pop from it.
    pub(super) fn new(capacity: Option<usize>) -> (Chan<T>, Head) {
        let (queue, head) = Queue::new();
        let chan = Chan {
            queue,
            senders: AtomicUsize::new(1),
            weak_senders: AtomicUsize::new(0),
            slots: CachePadded::new(capacity.map(|capacity| (Semaphore::new(capacity), capacity))),
            closed: AtomicBool::new(false),
            closed_notify: Notify::new(),
            rx: CachePadded::new(RxWake {
                waiting: AtomicBool::new(false),
                woken: AtomicBool::new(false),
                waker: Mutex::new(None),
            }),
        };
        (chan, head)
    }

    fn lock_waker(&self) -> MutexGuard<'_, Option<Waker>> {
        self.rx.waker.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn slots(&self) -> &Semaphore {
        &self
            .slots
            .as_ref()
            .expect("slot permits exist only on bounded channels")
            .0
    }

    pub(super) fn add_sender(&self) {
        // The new sender is cloned from a live one, so the count is not 0
        // and nothing needs ordering here.
        self.senders.fetch_add(1, Ordering::Relaxed);
    }

    /// A new sender from a weak one, unless every sender is gone (the
    /// channel closed for good then).
    pub(super) fn upgrade_sender(&self) -> bool {
        let mut senders = self.senders.load(Ordering::Relaxed);
        loop {
            if senders == 0 {
                return false;
            }
            match self.senders.compare_exchange_weak(
                senders,
                senders + 1,
                Ordering::Acquire,
                Ordering::Relaxed,
            ) {
                Ok(_) => return true,
                Err(actual) => senders = actual,
            }
        }
    }

    pub(super) fn sender_count(&self) -> usize {
        self.senders.load(Ordering::Acquire)
    }

    pub(super) fn weak_sender_count(&self) -> usize {
        self.weak_senders.load(Ordering::Relaxed)
    }

    pub(super) fn add_weak_sender(&self) {
        self.weak_senders.fetch_add(1, Ordering::Relaxed);
    }

    pub(super) fn drop_weak_sender(&self) {
        self.weak_senders.fetch_sub(1, Ordering::Relaxed);
    }

    pub(super) fn drop_sender(&self) {
        // AcqRel: the receiver that reads 0 sees every sender's pushes.
        if self.senders.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.wake_receiver();
        }
    }

    /// Queues a value. Bounded channels call it holding a slot permit and
    /// accept it even after `close` (the permit predates or raced it);
    /// unbounded sends are refused once closed.
    pub(super) fn push(&self, value: T, holds_permit: bool) -> Result<(), T> {
        let refused_by = if holds_permit { DROPPED } else { CLOSED };
        match self.queue.push(value, refused_by) {
            Ok(()) => {
                self.wake_receiver();
                Ok(())
            }
            Err(value) => {
                if holds_permit {
                    self.slots().release(1);
                }
                Err(value)
            }
        }
    }

    /// Step 2, after the change that may end the receiver's wait.
    fn wake_receiver(&self) {
        fence(Ordering::SeqCst);
        if self.rx.waiting.load(Ordering::Acquire) && !self.rx.woken.load(Ordering::Relaxed) {
            let mut slot = self.lock_waker();
            let waker = slot.take();
            if waker.is_some() {
                self.rx.woken.store(true, Ordering::Relaxed);
            }
            drop(slot);
            if let Some(waker) = waker {
                waker.wake();
            }
        }
    }

    /// Step 4: the receiver got what it waited for.
    fn stop_waiting(&self) {
        if self.rx.waiting.load(Ordering::Relaxed) {
            self.rx.waiting.store(false, Ordering::Relaxed);
        }
    }

    /// Step 1: the receiver is about to look once more, then wait.
    fn register_receiver(&self, waker: &Waker) {
        let mut slot = self.lock_waker();
        let replaced = register(&mut slot, waker);
        self.rx.woken.store(false, Ordering::Relaxed);
        self.rx.waiting.store(true, Ordering::Release);
        drop(slot);
        fence(Ordering::SeqCst);
        // Its destructor may send on this channel: not under the lock.
        drop(replaced);
    }

    /// Waits for a slot permit (bounded only). If the wait is dropped
    /// after a permit was granted, the permit goes back to the pool and a
    /// closed receiver waiting for outstanding permits is woken.
    pub(super) async fn acquire_slot(&self, site: Site) -> Result<(), AcquireError> {
        self.acquire_slots(1, site).await
    }

    /// [`acquire_slot`](Chan::acquire_slot) for `n` slots at once (at
    /// most the capacity, which the caller checked).
    pub(super) async fn acquire_slots(&self, n: usize, site: Site) -> Result<(), AcquireError> {
        let wake = WakeReceiverIfClosed(self);
        let acquired = Acquire::new(self.slots(), n, site).await;
        if acquired.is_ok() {
            // Granted: no permit went back, nothing to wake for, and the
            // fence in `wake_receiver_if_closed` stays off the send path.
            std::mem::forget(wake);
        }
        // Refused: a slot granted before the close went back; the guard
        // wakes the closed receiver that may be waiting for it.
        acquired
    }

    pub(super) fn try_acquire_slot(&self) -> Result<(), TryAcquireError> {
        self.try_acquire_slots(1)
    }

    pub(super) fn try_acquire_slots(&self, n: usize) -> Result<(), TryAcquireError> {
        self.slots().try_take(n)
    }

    /// Returns an unused slot permit, waking a closed receiver waiting for
    /// outstanding permits.
    pub(super) fn release_slot(&self) {
        self.release_slots(1);
    }

    /// Returns `n` unused slot permits, as `release_slot`.
    pub(super) fn release_slots(&self, n: usize) {
        if n == 0 {
            return;
        }
        self.slots().release(n);
        self.wake_receiver_if_closed();
    }

    /// After slot permits went back: wakes a closed receiver once the
    /// channel is idle (every slot back, so it finishes), not before (a
    /// reservation still holding slots may yet deliver, or a failing one
    /// may still give its slots back, and it wakes the receiver then).
    fn wake_receiver_if_closed(&self) {
        // Orders a permit returned just before against `closed`, as the
        // receiver's fence orders `closed` against its permit count.
        fence(Ordering::SeqCst);
        if self.closed.load(Ordering::Relaxed) && self.free_slots() == self.max_capacity() {
            // Of concurrent returns, the last in the count's order sees
            // every slot back: no wake is lost.
            self.wake_receiver();
        }
    }

    pub(super) fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    /// The receiver's view: closed by it, or every sender is gone.
    pub(super) fn is_closed_for_receiver(&self) -> bool {
        self.is_closed() || self.sender_count() == 0
    }

    pub(super) fn free_slots(&self) -> usize {
        self.slots().available_permits()
    }

    pub(super) fn max_capacity(&self) -> usize {
        self.slots
            .as_ref()
            .map_or(usize::MAX, |(_, capacity)| *capacity)
    }

    /// Waits for the receiver to close or drop. Cancel-safe.
    pub(super) async fn closed(&self) {
        self.closed_notify.wait_until(|| self.is_closed()).await
    }

    /// Gives the slots of `count` received values back to the senders.
    fn release_received(&self, count: usize) {
        if let Some((slots, _)) = &*self.slots {
            slots.release(count);
        }
    }

    /// `true` when no value can arrive any more, for an empty queue whose
    /// tail had `flags` (see the module docs).
    fn finished(&self, flags: usize) -> bool {
        if self.senders.load(Ordering::Acquire) == 0 {
            return true;
        }
        match &*self.slots {
            Some((slots, capacity)) => self.is_closed() && slots.available_permits() == *capacity,
            // Closed and empty: every value claimed before the close was
            // received, and no more can be claimed.
            None => flags & CLOSED != 0,
        }
    }

    /// Takes the next value, or says why there is none.
    fn take(&self, head: &mut Head) -> Taken<T> {
        let popped = match self.queue.pop(head) {
            Pop::Empty { flags } if self.finished(flags) => {
                // A value may have landed between the pop and the check;
                // after it none can.
                match self.queue.pop(head) {
                    Pop::Empty { .. } => return Taken::Finished,
                    popped => popped,
                }
            }
            popped => popped,
        };
        match popped {
            Pop::Value(value) => {
                self.release_received(1);
                self.stop_waiting();
                Taken::Value(value)
            }
            Pop::Busy => Taken::Busy,
            Pop::Empty { .. } => Taken::Empty,
        }
    }

    /// The next value, `None` when finished, or `Pending` with the waker
    /// registered (steps 1 and 3).
    fn poll_take(&self, head: &mut Head, cx: &mut Context<'_>) -> Poll<Option<T>> {
        let taken = match self.take(head) {
            Taken::Empty | Taken::Busy => {
                self.register_receiver(cx.waker());
                let taken = self.take(head);
                if matches!(taken, Taken::Empty | Taken::Busy) {
                    return Poll::Pending;
                }
                self.stop_waiting();
                taken
            }
            taken => taken,
        };
        match taken {
            Taken::Value(value) => Poll::Ready(Some(value)),
            _ => Poll::Ready(None),
        }
    }

    /// Moves up to `limit` values into `buf`; `Ready(0)` means finished.
    pub(super) fn poll_recv_many(
        &self,
        head: &mut Head,
        cx: &mut Context<'_>,
        buf: &mut Vec<T>,
        limit: usize,
    ) -> Poll<usize> {
        if limit == 0 {
            return Poll::Ready(0);
        }
        let coop = ready!(poll_proceed(cx));
        let Some(first) = ready!(self.poll_take(head, cx)) else {
            coop.made_progress();
            return Poll::Ready(0);
        };
        buf.push(first);
        let mut count = 1;
        while count < limit {
            match self.queue.pop(head) {
                Pop::Value(value) => buf.push(value),
                Pop::Empty { .. } | Pop::Busy => break,
            }
            count += 1;
        }
        // The first value's slot went back in `take`.
        self.release_received(count - 1);
        coop.made_progress();
        Poll::Ready(count)
    }

    pub(super) fn poll_recv(&self, head: &mut Head, cx: &mut Context<'_>) -> Poll<Option<T>> {
        let coop = ready!(poll_proceed(cx));
        let value = ready!(self.poll_take(head, cx));
        coop.made_progress();
        Poll::Ready(value)
    }

    /// A value being written is waited for (it is a few instructions
    /// away), so `Empty` means no send had claimed a slot.
    pub(super) fn try_recv(&self, head: &mut Head) -> Result<T, TryRecvError> {
        let mut spins = 0;
        loop {
            match self.take(head) {
                Taken::Value(value) => return Ok(value),
                Taken::Finished => return Err(TryRecvError::Disconnected),
                Taken::Empty => return Err(TryRecvError::Empty),
                Taken::Busy => queue::backoff(&mut spins),
            }
        }
    }

    pub(super) fn len(&self) -> usize {
        self.queue.len()
    }

    /// Refuses new sends; queued values can still be received.
    pub(super) fn close(&self) {
        // Queue first: once `is_closed` says so, a send does fail.
        self.queue.close(CLOSED);
        self.closed.store(true, Ordering::SeqCst);
        if let Some((slots, _)) = &*self.slots {
            slots.close();
        }
        self.closed_notify.notify_waiters();
    }

    /// The receiver is gone: close, refuse every send, let go of its
    /// waker, and drop what is queued. Values are dropped one at a time
    /// with no lock held, since a value's destructor may use this channel;
    /// one that panics does not keep the rest alive (its panic goes on
    /// once they are dropped).
    pub(super) fn drop_receiver(&self, head: &mut Head) {
        self.close();
        self.queue.close(DROPPED);
        // Nothing wakes a dropped receiver: its waker (maybe the last
        // reference to a task) goes now, not with the last sender.
        self.stop_waiting();
        let waker = self.lock_waker().take();
        drop(waker);
        let mut panic = None;
        let mut spins = 0;
        let mut dropped_values = 0;
        loop {
            match self.queue.pop(head) {
                Pop::Value(value) => {
                    dropped_values += 1;
                    let dropped = std::panic::catch_unwind(AssertUnwindSafe(|| drop(value)));
                    if let Err(payload) = dropped {
                        panic.get_or_insert(payload);
                    }
                }
                // A send that claimed its slot before `DROPPED` is a few
                // instructions from done; none can claim one after.
                Pop::Busy => queue::backoff(&mut spins),
                Pop::Empty { .. } => break,
            }
        }
        // Each dropped value held a slot, as a received one did: it goes
        // back (as in tokio), so a sender's `capacity` counts only what
        // senders still hold.
        self.release_received(dropped_values);
        if let Some(payload) = panic {
            std::panic::resume_unwind(payload);
        }
    }
}

impl<T> fmt::Debug for Chan<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Chan")
            .field("queued", &self.queue.len())
            .field("senders", &self.senders.load(Ordering::Relaxed))
            .field("closed", &self.is_closed())
            .finish()
    }
}

/// Wakes a closed receiver when dropped: guards a slot acquire, which
/// hands its permit back to the pool if cancelled after the grant.
struct WakeReceiverIfClosed<'a, T>(&'a Chan<T>);

impl<T> Drop for WakeReceiverIfClosed<'_, T> {
    fn drop(&mut self) {
        self.0.wake_receiver_if_closed();
    }
}
