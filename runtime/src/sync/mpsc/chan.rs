//! The queue shared by both mpsc flavours.
//!
//! The receiver ends with `None` once the queue is empty and no value can
//! arrive any more: every sender is gone, or the receiver closed the
//! channel and no slot permit is still out (a permit taken before the
//! close may still deliver a value, which the receiver then gets).

use crate::loom::sync::atomic::{AtomicBool, Ordering};
use crate::loom::sync::{Mutex, MutexGuard};
use crate::sync::mpsc::error::TryRecvError;
use crate::sync::semaphore::{Acquire, TryAcquireError};
use crate::sync::wait_list::register;
use crate::sync::{Notify, Semaphore};
use crate::task::poll_proceed;
use std::collections::VecDeque;
use std::fmt;
use std::task::{Context, Poll, Waker, ready};

pub(super) struct Chan<T> {
    state: Mutex<State<T>>,
    /// Bounded only: one permit per free slot, and the capacity.
    slots: Option<(Semaphore, usize)>,
    /// Mirrors `State::receiver_closed` for lock-free reads.
    closed: AtomicBool,
    /// Woken when the receiver closes, for `Sender::closed`.
    closed_notify: Notify,
}

struct State<T> {
    queue: VecDeque<T>,
    senders: usize,
    receiver_closed: bool,
    receiver_dropped: bool,
    rx_waker: Option<Waker>,
}

impl<T> Chan<T> {
    pub(super) fn new(capacity: Option<usize>) -> Chan<T> {
        Chan {
            state: Mutex::new(State {
                queue: VecDeque::new(),
                senders: 1,
                receiver_closed: false,
                receiver_dropped: false,
                rx_waker: None,
            }),
            slots: capacity.map(|capacity| (Semaphore::new(capacity), capacity)),
            closed: AtomicBool::new(false),
            closed_notify: Notify::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State<T>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn slots(&self) -> &Semaphore {
        &self
            .slots
            .as_ref()
            .expect("slot permits exist only on bounded channels")
            .0
    }

    pub(super) fn add_sender(&self) {
        self.lock().senders += 1;
    }

    pub(super) fn drop_sender(&self) {
        let mut state = self.lock();
        state.senders -= 1;
        let waker = if state.senders == 0 {
            state.rx_waker.take()
        } else {
            None
        };
        drop(state);
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// Queues a value. Bounded channels call it holding a slot permit and
    /// accept it even after `close` (the permit predates or raced it);
    /// unbounded sends are refused once closed.
    pub(super) fn push(&self, value: T, holds_permit: bool) -> Result<(), T> {
        let mut state = self.lock();
        let refused = if holds_permit {
            state.receiver_dropped
        } else {
            state.receiver_closed
        };
        if refused {
            drop(state);
            if holds_permit {
                self.slots().release(1);
            }
            return Err(value);
        }
        state.queue.push_back(value);
        let waker = state.rx_waker.take();
        drop(state);
        if let Some(waker) = waker {
            waker.wake();
        }
        Ok(())
    }

    /// Waits for a slot permit (bounded only).
    pub(super) fn acquire_slot(&self) -> Acquire<'_> {
        Acquire::new(self.slots(), 1)
    }

    pub(super) fn try_acquire_slot(&self) -> Result<(), TryAcquireError> {
        self.slots().try_take(1)
    }

    /// Returns an unused slot permit, waking a closed receiver waiting for
    /// outstanding permits.
    pub(super) fn release_slot(&self) {
        self.slots().release(1);
        self.wake_receiver_if_closed();
    }

    pub(super) fn wake_receiver_if_closed(&self) {
        if self.is_closed() {
            let waker = self.lock().rx_waker.take();
            if let Some(waker) = waker {
                waker.wake();
            }
        }
    }

    pub(super) fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
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
        loop {
            let notified = self.closed_notify.notified();
            if self.is_closed() {
                return;
            }
            notified.await;
        }
    }

    /// `true` when no value can arrive any more (see the module docs).
    fn finished(&self, state: &State<T>) -> bool {
        let permits_out = match &self.slots {
            Some((slots, capacity)) => slots.available_permits() + state.queue.len() < *capacity,
            None => false,
        };
        state.senders == 0 || (state.receiver_closed && !permits_out)
    }

    /// Moves up to `limit` values into `buf`; `Ready(0)` means finished.
    pub(super) fn poll_recv_many(
        &self,
        cx: &mut Context<'_>,
        buf: &mut Vec<T>,
        limit: usize,
    ) -> Poll<usize> {
        if limit == 0 {
            return Poll::Ready(0);
        }
        let coop = ready!(poll_proceed(cx));
        let mut state = self.lock();
        let count = limit.min(state.queue.len());
        if count > 0 {
            buf.extend(state.queue.drain(..count));
        } else if !self.finished(&state) {
            register(&mut state.rx_waker, cx.waker());
            return Poll::Pending;
        }
        drop(state);
        if count > 0 && self.slots.is_some() {
            self.slots().release(count);
        }
        coop.made_progress();
        Poll::Ready(count)
    }

    pub(super) fn poll_recv(&self, cx: &mut Context<'_>) -> Poll<Option<T>> {
        let coop = ready!(poll_proceed(cx));
        let mut state = self.lock();
        let value = state.queue.pop_front();
        if value.is_none() && !self.finished(&state) {
            register(&mut state.rx_waker, cx.waker());
            return Poll::Pending;
        }
        drop(state);
        if value.is_some() && self.slots.is_some() {
            self.slots().release(1);
        }
        coop.made_progress();
        Poll::Ready(value)
    }

    pub(super) fn try_recv(&self) -> Result<T, TryRecvError> {
        let mut state = self.lock();
        match state.queue.pop_front() {
            Some(value) => {
                drop(state);
                if self.slots.is_some() {
                    self.slots().release(1);
                }
                Ok(value)
            }
            None if self.finished(&state) => Err(TryRecvError::Disconnected),
            None => Err(TryRecvError::Empty),
        }
    }

    pub(super) fn len(&self) -> usize {
        self.lock().queue.len()
    }

    /// Refuses new sends; queued values can still be received.
    pub(super) fn close(&self) {
        let mut state = self.lock();
        state.receiver_closed = true;
        self.closed.store(true, Ordering::Release);
        drop(state);
        if let Some((slots, _)) = &self.slots {
            slots.close();
        }
        self.closed_notify.notify_waiters();
    }

    /// The receiver is gone: close, and drop what is queued (outside the
    /// lock, since a value's destructor may use this channel).
    pub(super) fn drop_receiver(&self) {
        self.close();
        let mut state = self.lock();
        state.receiver_dropped = true;
        let queued = std::mem::take(&mut state.queue);
        drop(state);
        drop(queued);
    }
}

impl<T> fmt::Debug for Chan<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.lock();
        f.debug_struct("Chan")
            .field("queued", &state.queue.len())
            .field("senders", &state.senders)
            .field("closed", &state.receiver_closed)
            .finish()
    }
}

/// Wakes a closed receiver when dropped: guards `send`/`reserve` futures,
/// whose cancelled slot acquire may hand a permit back to the pool.
pub(super) struct WakeReceiverIfClosed<'a, T>(pub(super) &'a Chan<T>);

impl<T> Drop for WakeReceiverIfClosed<'_, T> {
    fn drop(&mut self) {
        self.0.wake_receiver_if_closed();
    }
}
