//! tokio's `time` module: rt's timer wheel, re-exported (its shape is
//! tokio's). `pause`, `resume` and `advance` need the `test-util`
//! feature, as in tokio.

pub use rt::time::{
    Duration, Instant, Interval, MissedTickBehavior, Sleep, Timeout, error, interval, interval_at,
    sleep, sleep_until, timeout, timeout_at,
};
#[cfg(feature = "test-util")]
pub use rt::time::{advance, pause, resume};
