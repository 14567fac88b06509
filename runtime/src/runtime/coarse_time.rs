//! A coarse, cached clock for the diagnostics: when a task was spawned
//! and last polled, how long a worker was busy.
//!
//! Reading the real clock costs ~30 ns here, as much as a whole yield of a
//! task, so the task paths read cached values instead. Each scheduler
//! keeps its own (`Core::now`), for the poll times it records, refreshed
//! when it wakes from a park and every fourth maintenance tick (every
//! `4 * event_interval` polls). This module adds one process-wide word,
//! nanoseconds since a fixed base, for the spawn times: a scheduler that
//! reads the real clock also stores it there, unless the word is less
//! than a millisecond old (so busy workers do not bounce its cache line
//! between them), and marks it stale before it parks, since an idle
//! runtime would otherwise leave it behind by the idle time; a reader that
//! finds it stale reads the real clock. A value is thus behind the real
//! time by at most what the busiest worker ran in its last 4 maintenance
//! intervals (a poll that blocks its thread holds its own worker's refresh
//! back, not the others'; with the slow-poll watchdog on, a scheduler
//! whose poll the watchdog saw outlast a sampling period refreshes its
//! clock once the poll returns, see `WorkerMetrics::clock_behind`).
//!
//! The word orders nothing (it is a timestamp, never a flag another access
//! relies on), so it is a plain std atomic, outside the loom shim: under
//! loom it would only multiply the explored states.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Set in the cached value while no worker keeps it fresh.
const STALE: u64 = 1;

static BASE: OnceLock<Instant> = OnceLock::new();
static CACHED: AtomicU64 = AtomicU64::new(STALE);

/// A point in time: nanoseconds since the clock's base.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub(crate) struct Stamp(u64);

impl Stamp {
    pub(crate) fn nanos(self) -> u64 {
        self.0
    }

    /// The stamp `nanos` after the clock's base (for unit tests of what
    /// computes with stamps, and for a simulation, whose stamps count
    /// simulated time from the run's start).
    #[cfg(any(all(test, not(loom)), feature = "sim"))]
    pub(crate) fn from_nanos(nanos: u64) -> Stamp {
        Stamp(nanos)
    }

    /// Time from `self` to `later`, zero if `later` is not later.
    pub(crate) fn until(self, later: Stamp) -> Duration {
        Duration::from_nanos(later.0.saturating_sub(self.0))
    }
}

fn base() -> Instant {
    *BASE.get_or_init(Instant::now)
}

/// How much older than the real time the shared word may get before a
/// refresh stores into it.
const SHARED_SLACK_NANOS: u64 = 1_000_000;

/// Reads the real clock, and caches it if the shared word is stale or
/// more than a millisecond behind.
#[cold]
#[inline(never)]
pub(crate) fn refresh() -> Stamp {
    let since_base = base().elapsed();
    // Even, so never taken for the stale mark; u64 nanoseconds last 584 years.
    let nanos = u64::try_from(since_base.as_nanos()).unwrap_or(u64::MAX) & !STALE;
    let cached = CACHED.load(Ordering::Relaxed);
    if cached & STALE != 0 || nanos.saturating_sub(cached) >= SHARED_SLACK_NANOS {
        CACHED.store(nanos, Ordering::Relaxed);
    }
    Stamp(nanos)
}

/// The cached time (the real one if it went stale).
#[inline]
pub(crate) fn now() -> Stamp {
    let cached = CACHED.load(Ordering::Relaxed);
    if cached & STALE != 0 {
        return refresh();
    }
    Stamp(cached)
}

/// The real time now (refreshing the cache on the way): for dumps and
/// reports, which compare it with cached stamps.
pub(crate) fn precise_now() -> Stamp {
    refresh()
}

/// A worker goes to sleep: until one refreshes it again, readers use the
/// real clock.
pub(crate) fn mark_stale() {
    CACHED.fetch_or(STALE, Ordering::Relaxed);
}
