//! Time: sleeping, time limits, periodic ticks, and a test clock.
//!
//! Timers live in the runtime's timer wheel (the `rt-timer` crate, 1 ms
//! resolution; a timer never completes before its deadline). The worker
//! that holds the runtime's driver sleeps until the next deadline and
//! fires what expired; busy workers also fire timers between tasks, so a
//! loaded runtime does not starve them. Timers spend the task's
//! cooperative budget like any runtime resource.
//!
//! The runtime needs its time driver: build it with
//! `Builder::enable_time()` or `enable_all()` (`Runtime::new()` does).
//!
//! Tests can [`pause`] the clock of a current-thread runtime (or build it
//! with `Builder::start_paused(true)`): time then moves only by
//! [`advance`], or by jumping to the next timer when the runtime has
//! nothing else to do, so a test of a one-hour timeout runs instantly and
//! deterministically.
//!
//! ## Example
//!
//! ```
//! use rt::time::{Instant, sleep, timeout};
//! use std::time::Duration;
//!
//! let rt = rt::runtime::Builder::new_current_thread().start_paused(true).build().unwrap();
//! rt.block_on(async {
//!     let start = Instant::now();
//!     let slow = sleep(Duration::from_secs(3600));
//!     assert!(timeout(Duration::from_secs(60), slow).await.is_err());
//!     assert_eq!(start.elapsed(), Duration::from_secs(60));
//! });
//! ```

pub(crate) mod clock;
pub mod error;
pub(crate) mod instant;
mod interval;
mod sleep;
mod timeout;

pub use clock::{advance, pause, resume};
pub use instant::Instant;
pub use interval::{Interval, MissedTickBehavior, interval, interval_at};
#[cfg(feature = "hyper")]
pub(crate) use sleep::sleep_until_without_clock_read;
pub use sleep::{Sleep, sleep, sleep_until};
pub use timeout::{Timeout, timeout, timeout_at};

/// The standard library's `Duration`, re-exported (as tokio does) so that
/// `rt::time::Duration` names the type every timer takes.
///
/// # Examples
///
/// ```
/// use rt::time::Duration;
///
/// let rt = rt::runtime::Builder::new_current_thread().start_paused(true).build().unwrap();
/// rt.block_on(async { rt::time::sleep(Duration::from_secs(1)).await });
/// ```
#[doc(no_inline)]
pub use std::time::Duration;
