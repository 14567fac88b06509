//! End-to-end loom models of the rt runtime.
//!
//! The models live in `tests/` and only build with `RUSTFLAGS="--cfg loom"`
//! (see `.ci/loom`). This library holds what they share: a tiny loom-aware
//! one-shot channel, so wake-ups crossing threads are visible to loom
//! (runtime-neutral channels use std atomics, which loom cannot see).

#[cfg(loom)]
pub use model::{OneShot, channel};

#[cfg(loom)]
mod model {
    use loom::sync::{Arc, Mutex};
    use std::future::Future;
    use std::pin::Pin;
    use std::task::{Context, Poll, Waker};

    struct Slot<T> {
        value: Option<T>,
        waker: Option<Waker>,
    }

    /// The sending half: `send` stores the value and wakes the receiver.
    #[derive(Debug)]
    pub struct Sender<T> {
        slot: Arc<Mutex<Slot<T>>>,
    }

    /// The receiving half, a future of the value.
    #[derive(Debug)]
    pub struct OneShot<T> {
        slot: Arc<Mutex<Slot<T>>>,
    }

    impl<T> std::fmt::Debug for Slot<T> {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.debug_struct("Slot")
                .field("ready", &self.value.is_some())
                .finish()
        }
    }

    /// A loom-visible one-shot channel.
    pub fn channel<T>() -> (Sender<T>, OneShot<T>) {
        let slot = Arc::new(Mutex::new(Slot {
            value: None,
            waker: None,
        }));
        (Sender { slot: slot.clone() }, OneShot { slot })
    }

    impl<T> Sender<T> {
        /// Stores the value and wakes the receiver, if it waits.
        pub fn send(self, value: T) {
            let waker = {
                let mut slot = self.slot.lock().unwrap();
                slot.value = Some(value);
                slot.waker.take()
            };
            if let Some(waker) = waker {
                waker.wake();
            }
        }
    }

    impl<T> Future for OneShot<T> {
        type Output = T;

        fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
            let mut slot = self.slot.lock().unwrap();
            match slot.value.take() {
                Some(value) => Poll::Ready(value),
                None => {
                    slot.waker = Some(cx.waker().clone());
                    Poll::Pending
                }
            }
        }
    }
}
