//! # rt-timer — the timer wheel of the rt runtime
//!
//! Two layers, both free of any notion of tasks, threads or I/O:
//!
//! - [`Wheel`]: a hierarchical timing wheel, a pure deterministic data
//!   structure. Six levels of 64 slots over a `u64` tick count (the runtime
//!   uses 1 ms ticks, so the levels reach 2^36 ms, about 2.2 years; later
//!   deadlines are clamped to the top level and re-filed, never lost).
//!   Insert and remove are O(1), the next deadline is found from per-level
//!   occupied bitmaps without scanning, and advancing cascades entries down
//!   the levels. The module docs of `wheel` describe the cascade step by
//!   step.
//! - [`Timer`] and [`TimerEntry`]: wheels behind mutexes (one shard per
//!   registering thread, so workers do not contend on one lock), with a
//!   waker per entry. Register an entry, reset it, cancel it (drop it) from any
//!   thread; the driver thread asks for the next deadline, sleeps, and fires
//!   what expired. Each arming wakes its waker at most once, and an entry's
//!   storage is freed only by dropping the entry, so a cancel racing a fire
//!   is safe (checked with loom).
//!
//! The runtime maps its clock onto ticks and wakes its driver when
//! [`Timer::register`] says so; see `rt::time` for the user-facing API.
//!
//! ## Example
//!
//! ```
//! use rt_timer::Timer;
//! use std::sync::Arc;
//! use std::sync::atomic::{AtomicUsize, Ordering};
//! use std::task::{Wake, Waker};
//!
//! struct Count(AtomicUsize);
//! impl Wake for Count {
//!     fn wake(self: Arc<Self>) {
//!         self.0.fetch_add(1, Ordering::SeqCst);
//!     }
//! }
//!
//! let count = Arc::new(Count(AtomicUsize::new(0)));
//! let waker = Waker::from(count.clone());
//! let timer = Timer::new();
//! let (soon, _) = timer.register(10, &waker);
//! let (cancelled, _) = timer.register(20, &waker);
//! let (later, _) = timer.register(100_000, &waker);
//! drop(cancelled);
//!
//! assert_eq!(timer.next_deadline(), Some(10));
//! assert_eq!(timer.fire(50), 1);
//! assert!(soon.is_fired() && !later.is_fired());
//! assert_eq!(count.0.load(Ordering::SeqCst), 1);
//! ```

pub(crate) mod loom;
mod timer;
mod wheel;

pub use timer::{Fired, Timer, TimerEntry};
pub use wheel::{Expired, Key, LEVELS, MAX_SPAN, SLOTS, Wheel};

#[cfg(test)]
fn _assert_send_sync() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Timer>();
    send_sync::<TimerEntry>();
}
