//! `yield_now`.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// Gives the worker to other tasks once: the calling task is woken at once
/// and runs again after the tasks already waiting on its worker (on the
/// multi-thread scheduler also after those waiting in the runtime's global
/// queue, though it is put back in its worker's queue within
/// `event_interval` ticks even while other work keeps arriving).
///
/// # Examples
///
/// ```
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     rt::task::yield_now().await;
/// });
/// ```
pub async fn yield_now() {
    YieldNow { yielded: false }.await
}

struct YieldNow {
    yielded: bool,
}

impl Future for YieldNow {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.yielded {
            return Poll::Ready(());
        }
        self.yielded = true;
        crate::task::waker::wake_as_yield(cx.waker());
        Poll::Pending
    }
}
