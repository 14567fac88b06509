//! What a task records for the task dump: how many polls it had and when
//! the last one started, in 8 bytes of its header. (Its name, spawn
//! location and spawn time, written once, are kept in the owned list: a
//! task allocation 8 bytes over a malloc size class costs more than the
//! bytes, see `task/list.rs`.)
//!
//! Only the scheduler about to poll the task (it runs the one queued
//! `Notified`) writes, with a relaxed load and store, and the time is that
//! scheduler's cached clock (refreshed every `event_interval` polls and
//! when it wakes, see `runtime/coarse_time.rs`), so a poll pays two
//! stores and no clock read.
//!
//! The two words order nothing (the dump reads them as hints next to the
//! state word), so they are std atomics outside the loom shim, as the
//! coarse clock is: under loom they would only multiply the states.

use crate::runtime::coarse_time::Stamp;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

/// The last poll's time is kept in units of 2^20 ns (about a millisecond):
/// 32 bits of them span 52 days, and a task idle longer than that shows
/// its idle time modulo 52 days.
const UNIT_SHIFT: u32 = 20;

#[derive(Debug)]
pub(crate) struct TaskStats {
    /// Polls so far, saturating at `u32::MAX`.
    polls: AtomicU32,
    /// When the last poll started, in units.
    last_poll: AtomicU32,
}

impl TaskStats {
    #[inline]
    pub(crate) fn new() -> TaskStats {
        TaskStats {
            polls: AtomicU32::new(0),
            last_poll: AtomicU32::new(0),
        }
    }

    /// A poll starts at `now`; only the thread about to run the task's
    /// `Notified` calls this.
    #[inline]
    pub(crate) fn poll_started(&self, now: Stamp) {
        let polls = self.polls.load(Ordering::Relaxed);
        self.polls.store(polls.saturating_add(1), Ordering::Relaxed);
        self.last_poll
            .store((now.nanos() >> UNIT_SHIFT) as u32, Ordering::Relaxed);
    }

    /// How many times the task was polled (saturating at `u32::MAX`).
    pub(crate) fn polls(&self) -> u64 {
        u64::from(self.polls.load(Ordering::Relaxed))
    }

    /// The time from the last poll's start to `now`, `None` if the task
    /// was never polled.
    pub(crate) fn since_last_poll(&self, now: Stamp) -> Option<Duration> {
        if self.polls.load(Ordering::Relaxed) == 0 {
            return None;
        }
        let at = self.last_poll.load(Ordering::Relaxed);
        let now = (now.nanos() >> UNIT_SHIFT) as u32;
        Some(Duration::from_nanos(
            u64::from(now.wrapping_sub(at)) << UNIT_SHIFT,
        ))
    }
}
