//! tokio's `time` module on rt's timer wheel: rt's items re-exported
//! (their shape is tokio's), except [`Sleep`] and [`Timeout`], newtypes
//! for tokio's `!Unpin` futures (and `Sleep`'s pinned `reset`). `pause`,
//! `resume` and `advance` need the `test-util` feature, as in tokio.

mod sleep;
mod timeout;

pub use sleep::{Sleep, sleep, sleep_until};
pub use timeout::{Timeout, timeout, timeout_at};

pub use rt::time::{Duration, Instant, Interval, MissedTickBehavior, error, interval, interval_at};
#[cfg(feature = "test-util")]
pub use rt::time::{advance, pause, resume};
