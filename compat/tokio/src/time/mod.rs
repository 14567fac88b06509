//! tokio's `time` module on rt's timer wheel: rt's items re-exported
//! (their shape is tokio's), except [`Sleep`], a newtype for tokio's
//! `reset(self: Pin<&mut Self>, ..)`. `pause`, `resume` and `advance`
//! need the `test-util` feature, as in tokio.

mod sleep;

pub use sleep::{Sleep, sleep, sleep_until};

pub use rt::time::{
    Duration, Instant, Interval, MissedTickBehavior, Timeout, error, interval, interval_at,
    timeout, timeout_at,
};
#[cfg(feature = "test-util")]
pub use rt::time::{advance, pause, resume};
