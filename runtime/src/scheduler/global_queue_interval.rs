//! How many ticks a busy worker runs between its looks at the injectors
//! ahead of its own queues (step 1 of the worker's module docs).
//!
//! A task woken from outside the worker threads (a plain thread, a
//! blocking task, a driver turn on no worker) waits in the injector, and a
//! busy worker takes from it ahead of its own work only every so many
//! ticks (or when its own queues run dry). A fixed count of ticks is a
//! fixed wait only while polls are short: at the former fixed 61 ticks, a
//! worker whose tasks poll for 20 µs each left such a task waiting up to
//! 1.2 ms (the `priority_latency` example: all tasks `Normal`, a median
//! round trip 1.5-4x tokio's, which tunes its interval the same way).
//!
//! Unless the user fixed the interval (`Builder::global_queue_interval`),
//! a worker sets it from how long its ticks take:
//! 1. a window of ticks runs from one refresh of the worker's cached clock
//!    to the next (every `4 * event_interval` ticks: the clock read is
//!    already paid for there, none is added);
//! 2. a window in which the worker ran out of work (went looking for it,
//!    spun or parked) is dropped: its idle time is not time spent polling,
//!    and a worker that runs dry looks at the injector anyway (step 4);
//! 3. otherwise the interval becomes the number of ticks that fit in
//!    `TARGET_NANOS` at the window's mean tick, clamped to at least
//!    `MIN_TICKS` (so local work keeps at least half the ticks while the
//!    injector is busy) and at most the configured interval (61 by
//!    default: tasks that poll fast look no more often than before).
//!
//! Hot-path cost: the worker reads the interval from its core instead of
//! the shared config, and step 2 is one store on the way to looking for
//! work. A look that finds the injector empty is a load of its two ends,
//! never a fence (`Core::next_normal_task`).

use crate::runtime::coarse_time::Stamp;

/// How long a busy worker polls, about, between looks at the injector
/// first: 100 µs. At tokio's 200 µs (a fixed interval of 10 ticks on the
/// `priority_latency` example's 20 µs polls) rt's median wait matched
/// tokio's; at 100 µs it is about 0.6 of it. A look that finds the
/// injector empty costs nothing measurable next to polls this long; what
/// a shorter target changes is the share of ticks a busy injector gets,
/// which `MIN_TICKS` bounds.
const TARGET_NANOS: u64 = 100_000;

/// The fewest ticks between looks: at 1 the injector would always come
/// first, and a steady stream of tasks from outside could keep a
/// worker's own tasks waiting.
const MIN_TICKS: u32 = 2;

/// A window is timed once it holds this many ticks at least: with a small
/// `event_interval` the clock refreshes come too often to time a tick
/// well, and a window then spans several of them.
const MIN_WINDOW_TICKS: u32 = 16;

/// A worker's interval and the window it is being timed over.
#[derive(Debug)]
pub(crate) struct GlobalQueueInterval {
    ticks: u32,
    /// The configured interval: the tuned one never exceeds it.
    max: u32,
    tuned: bool,
    window_start: Stamp,
    window_start_tick: u32,
    /// The worker ran out of work during the window (step 2).
    went_idle: bool,
}

impl GlobalQueueInterval {
    /// `configured` ticks, tuned below that when `tune` is set.
    pub(crate) fn new(configured: u32, tune: bool, now: Stamp) -> GlobalQueueInterval {
        GlobalQueueInterval {
            ticks: configured,
            max: configured,
            tuned: tune,
            window_start: now,
            window_start_tick: 0,
            went_idle: true,
        }
    }

    /// `true` when `tick` is one where the injector goes ahead of the
    /// local queue.
    #[inline]
    pub(crate) fn is_turn(&self, tick: u32) -> bool {
        tick % self.ticks == 0
    }

    /// Step 2: the worker found no task in its own queues or the injector.
    #[inline]
    pub(crate) fn went_idle(&mut self) {
        self.went_idle = true;
    }

    /// Steps 1 and 3, at a refresh of the worker's clock to `now`, at
    /// `tick`.
    pub(crate) fn retune(&mut self, now: Stamp, tick: u32) {
        if !self.tuned {
            return;
        }
        let ticks = tick.wrapping_sub(self.window_start_tick);
        if !self.went_idle {
            if ticks < MIN_WINDOW_TICKS {
                return;
            }
            let nanos = now.nanos().saturating_sub(self.window_start.nanos()).max(1);
            let fit = TARGET_NANOS.saturating_mul(u64::from(ticks)) / nanos;
            self.ticks = u32::try_from(fit)
                .unwrap_or(u32::MAX)
                .clamp(MIN_TICKS.min(self.max), self.max);
        }
        self.window_start = now;
        self.window_start_tick = tick;
        self.went_idle = false;
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::{GlobalQueueInterval, MIN_TICKS, TARGET_NANOS};
    use crate::runtime::coarse_time::Stamp;

    /// A stamp `nanos` after the clock's base.
    fn at(nanos: u64) -> Stamp {
        Stamp::from_nanos(nanos)
    }

    /// A fresh window of `ticks` busy ticks of `nanos_per_tick` each, from
    /// `start` (whatever came before is dropped as idle).
    fn window(interval: &mut GlobalQueueInterval, start: u64, ticks: u32, nanos_per_tick: u64) {
        interval.went_idle();
        interval.retune(at(start), 1000);
        interval.retune(at(start + u64::from(ticks) * nanos_per_tick), 1000 + ticks);
    }

    #[test]
    fn ticks_that_fit_the_target() {
        let mut interval = GlobalQueueInterval::new(61, true, at(0));
        window(&mut interval, 0, 244, 20_000);
        assert_eq!(interval.ticks, (TARGET_NANOS / 20_000) as u32);
    }

    #[test]
    fn clamped_to_the_configured_interval_and_the_minimum() {
        let mut interval = GlobalQueueInterval::new(61, true, at(0));
        window(&mut interval, 0, 244, 100);
        assert_eq!(interval.ticks, 61);
        window(&mut interval, 10_000_000, 244, 5_000_000);
        assert_eq!(interval.ticks, MIN_TICKS);
    }

    #[test]
    fn a_window_with_idle_time_is_dropped() {
        let mut interval = GlobalQueueInterval::new(61, true, at(0));
        interval.retune(at(0), 1000);
        interval.went_idle();
        interval.retune(at(244 * 1_000_000), 1244);
        assert_eq!(interval.ticks, 61);
        // The next window, busy throughout, counts.
        interval.retune(at(244 * 1_000_000 + 244 * 50_000), 1488);
        assert_eq!(interval.ticks, 2);
    }

    #[test]
    fn short_windows_add_up() {
        // `event_interval(1)`: a refresh every 4 ticks.
        let mut interval = GlobalQueueInterval::new(61, true, at(0));
        interval.retune(at(0), 0);
        for refresh in 1..=4 {
            interval.retune(at(refresh * 4 * 50_000), refresh as u32 * 4);
        }
        assert_eq!(interval.ticks, 2);
    }

    #[test]
    fn a_fixed_interval_is_never_tuned() {
        let mut interval = GlobalQueueInterval::new(5, false, at(0));
        window(&mut interval, 0, 244, 1_000_000);
        assert_eq!(interval.ticks, 5);
    }

    #[test]
    fn the_first_window_only_counts_once_busy() {
        // A new worker starts as if idle: its start-up is not poll time.
        let mut interval = GlobalQueueInterval::new(61, true, at(0));
        interval.retune(at(1_000_000_000), 244);
        assert_eq!(interval.ticks, 61);
    }
}
