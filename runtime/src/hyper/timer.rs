//! `Timer`: hyper's timeouts on rt's timer wheel.

use crate::time::Instant;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

/// hyper's timer (`hyper::rt::Timer`) on the current rt runtime's timer
/// wheel: the sleeps behind hyper's header read timeout, keep-alive
/// timeouts and HTTP/2 pings are [`rt::time::Sleep`](crate::time::Sleep)s,
/// at 1 ms resolution, and `reset` moves a sleep's wheel entry instead of
/// making a new one. [`now`](::hyper::rt::Timer::now) reads rt's clock, so
/// hyper's timeouts follow a paused test clock
/// ([`rt::time::pause`](crate::time::pause)).
///
/// # Panics
///
/// hyper's calls to `sleep`/`sleep_until` panic outside an rt runtime with
/// the time driver enabled (see [`rt::time::sleep`](crate::time::sleep)).
///
/// # Examples
///
/// ```
/// use hyper::rt::Timer as _;
/// use std::time::Duration;
///
/// let rt = rt::runtime::Builder::new_current_thread().enable_all().start_paused(true).build().unwrap();
/// rt.block_on(async {
///     let timer = rt::hyper::Timer::new();
///     let start = rt::time::Instant::now();
///     let mut sleep = timer.sleep(Duration::from_secs(30));
///     // Move the deadline nearer; the same timer entry is reused.
///     timer.reset(&mut sleep, (start + Duration::from_secs(5)).into_std());
///     sleep.await;
///     assert_eq!(start.elapsed(), Duration::from_secs(5));
/// });
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Timer {
    _private: (),
}

impl Timer {
    /// A timer on whichever rt runtime is current when hyper asks it for
    /// a sleep.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut builder = hyper::server::conn::http1::Builder::new();
    /// builder.timer(rt::hyper::Timer::new());
    /// ```
    pub fn new() -> Timer {
        Timer { _private: () }
    }
}

impl ::hyper::rt::Timer for Timer {
    #[track_caller]
    fn sleep(&self, duration: Duration) -> Pin<Box<dyn ::hyper::rt::Sleep>> {
        Box::pin(HyperSleep(crate::time::sleep(duration)))
    }

    #[track_caller]
    fn sleep_until(&self, deadline: std::time::Instant) -> Pin<Box<dyn ::hyper::rt::Sleep>> {
        // hyper reads `now` just before: no second clock read here (see
        // `sleep_until_without_clock_read`).
        Box::pin(HyperSleep(crate::time::sleep_until_without_clock_read(
            Instant::from_std(deadline),
        )))
    }

    fn now(&self) -> std::time::Instant {
        Instant::now().into_std()
    }

    fn reset(
        &self,
        sleep: &mut Pin<Box<dyn ::hyper::rt::Sleep>>,
        new_deadline: std::time::Instant,
    ) {
        match sleep.as_mut().downcast_mut_pin::<HyperSleep>() {
            Some(ours) => ours.get_mut().0.reset(Instant::from_std(new_deadline)),
            // A sleep from another timer: replace it.
            None => *sleep = self.sleep_until(new_deadline),
        }
    }
}

/// An rt sleep as hyper's `Sleep` trait object.
struct HyperSleep(crate::time::Sleep);

impl Future for HyperSleep {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        Pin::new(&mut self.get_mut().0).poll(cx)
    }
}

impl ::hyper::rt::Sleep for HyperSleep {}
