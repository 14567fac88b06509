//! Blocking a plain thread on a future: a parker whose waker unparks it.
//!
//! Used by `Handle::block_on` on the multi-thread runtime (the calling
//! thread is not a worker; it just waits) and by the current-thread
//! scheduler while another thread holds its core.

use crate::loom::sync::{Arc, Condvar, Mutex};
use std::future::Future;
use std::task::{Context, Poll, RawWaker, RawWakerVTable, Waker};

#[derive(Debug)]
pub(crate) struct ThreadParker {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    notified: Mutex<bool>,
    condvar: Condvar,
}

impl ThreadParker {
    pub(crate) fn new() -> ThreadParker {
        ThreadParker {
            inner: Arc::new(Inner {
                notified: Mutex::new(false),
                condvar: Condvar::new(),
            }),
        }
    }

    /// Blocks until the waker is woken (returns at once if it already was
    /// since the last park).
    pub(crate) fn park(&self) {
        let mut notified = self.inner.notified.lock().unwrap();
        while !*notified {
            notified = self.inner.condvar.wait(notified).unwrap();
        }
        *notified = false;
    }

    pub(crate) fn waker(&self) -> Waker {
        let raw = Arc::into_raw(self.inner.clone());
        // SAFETY: `raw` came from `Arc::into_raw` and the vtable below keeps
        // the count balanced: clone adds one, wake and drop release one.
        unsafe { Waker::from_raw(RawWaker::new(raw.cast(), &VTABLE)) }
    }

    /// Polls `future` on this thread until it completes, sleeping between
    /// wake-ups.
    pub(crate) fn block_on<F: Future>(&self, future: F) -> F::Output {
        let waker = self.waker();
        let mut cx = Context::from_waker(&waker);
        let mut future = std::pin::pin!(future);
        loop {
            if let Poll::Ready(output) = crate::task::budget_scope(|| future.as_mut().poll(&mut cx))
            {
                return output;
            }
            self.park();
        }
    }
}

impl Inner {
    fn unpark(&self) {
        *self.notified.lock().unwrap() = true;
        self.condvar.notify_one();
    }
}

static VTABLE: RawWakerVTable = RawWakerVTable::new(clone, wake, wake_by_ref, drop_waker);

/// # Safety
/// `data` must come from `Arc::<Inner>::into_raw` and still own its count.
unsafe fn arc(data: *const ()) -> Arc<Inner> {
    // SAFETY: per the caller.
    unsafe { Arc::from_raw(data.cast::<Inner>()) }
}

unsafe fn clone(data: *const ()) -> RawWaker {
    // SAFETY: the waker being cloned owns a count; we put it back below.
    let inner = unsafe { arc(data) };
    let cloned = Arc::into_raw(inner.clone());
    std::mem::forget(inner);
    RawWaker::new(cloned.cast(), &VTABLE)
}

unsafe fn wake(data: *const ()) {
    // SAFETY: the waker being consumed owns a count, released on drop here.
    unsafe { arc(data) }.unpark();
}

unsafe fn wake_by_ref(data: *const ()) {
    // SAFETY: the waker owns a count; we put it back with forget.
    let inner = unsafe { arc(data) };
    inner.unpark();
    std::mem::forget(inner);
}

unsafe fn drop_waker(data: *const ()) {
    // SAFETY: the waker being dropped owns a count.
    drop(unsafe { arc(data) });
}
