//! Spinning for a short while before a thread sleeps, adaptively.
//!
//! Waking a sleeping thread is slow: the waker makes a futex call (or
//! writes the reactor's eventfd) and the sleeper comes back through the
//! kernel's idle path, and on a virtual machine through the hypervisor's.
//! On the 2-vCPU dev VM the call alone took about 9 µs and the sleeper
//! 10-90 µs to run again, while a spinning thread sees the same news in
//! well under a microsecond. So an idle worker that is searching (see
//! `multi_thread/idle.rs`; producers skip the wake-up while one is) and a
//! thread in the multi-thread runtime's `block_on` first spin, checking for
//! work or a wake-up, before they sleep.
//!
//! Spinning burns CPU, so how long a thread spins adapts to what its
//! sleeps have been like, as KVM's halt polling does:
//! - the budget starts at zero: no spin;
//! - a short sleep (ended within `SHORT_SLEEP_FACTOR` times `max`) means
//!   spinning may have caught the wake-up: the budget grows (from
//!   `GROW_START`, doubling, up to `max`);
//! - a longer sleep resets the budget to zero;
//! - `MISS_LIMIT` spins in a row that spend the whole `max` and find
//!   nothing mean the waits are short enough to grow the budget but too
//!   long for any spin to catch (a `block_on` thread waiting ~100 µs for
//!   each batch of work): the thread then sits out spinning for a number
//!   of sleeps that doubles, up to `MAX_BACKOFF`, each time it happens
//!   again, and resets when a spin finds what it waits for.
//!
//! A thread whose wake-ups come seldom never spins; one in a request/reply
//! exchange spins and skips its sleeps. `Builder::spin_before_park` sets
//! `max` (zero turns spinning off). At worst a thread burns `max` of CPU
//! per sleep, and only while its sleeps keep ending within
//! `SHORT_SLEEP_FACTOR * max` (200 µs by default): a thread that is woken
//! thousands of times a second, where each wake-up would cost about that
//! much anyway.

use std::cell::Cell;
use std::time::{Duration, Instant};

/// The first non-zero budget.
const GROW_START: Duration = Duration::from_micros(2);
/// A sleep counts as short, and grows the budget, up to this many times
/// `max`. Not just `max`: when two threads hand work back and forth and
/// both sleep, each sleep lasts as long as the other side takes to wake,
/// far longer than `max`, yet once both spin, neither sleeps at all.
const SHORT_SLEEP_FACTOR: u32 = 10;
/// `spin_loop` hints between two looks: a few hundred nanoseconds.
const SPINS_PER_LOOK: u32 = 8;
/// Whole-`max` spins in a row that found nothing before backing off.
const MISS_LIMIT: u32 = 4;
/// Sleeps sat out after the first run of misses, and at most.
const FIRST_BACKOFF: u32 = 8;
const MAX_BACKOFF: u32 = 1024;

/// One thread's spin budget. Only its owner uses it (hence `Cell`).
#[derive(Debug)]
pub(crate) struct IdleSpin {
    max: Cell<Duration>,
    budget: Cell<Duration>,
    /// Whole-`max` spins in a row that found nothing.
    misses: Cell<u32>,
    /// Sleeps left to sit out, and how many the next back-off sits out.
    backoff_left: Cell<u32>,
    next_backoff: Cell<u32>,
}

impl IdleSpin {
    pub(crate) const fn new(max: Duration) -> IdleSpin {
        IdleSpin {
            max: Cell::new(max),
            budget: Cell::new(Duration::ZERO),
            misses: Cell::new(0),
            backoff_left: Cell::new(0),
            next_backoff: Cell::new(FIRST_BACKOFF),
        }
    }

    /// Changes `max` (a thread's `block_on` parker serves whichever
    /// runtime it is called on).
    pub(crate) fn set_max(&self, max: Duration) {
        self.max.set(max);
        self.budget.set(self.budget.get().min(max));
    }

    /// `true` if `spin` would spin now (callers with set-up to do first).
    /// Under loom, where time means nothing, whenever `max` is not zero.
    pub(crate) fn will_spin(&self) -> bool {
        if cfg!(loom) {
            return !self.max.get().is_zero();
        }
        !self.budget.get().is_zero()
    }

    /// Calls `poll` every few hundred nanoseconds until it returns
    /// something or the budget is spent. Under loom: once, so the models
    /// explore a thread that spins and one that finds work by spinning.
    pub(crate) fn spin<T>(&self, mut poll: impl FnMut() -> Option<T>) -> Option<T> {
        if !self.will_spin() {
            return None;
        }
        if cfg!(loom) {
            return poll();
        }
        let budget = self.budget.get();
        let start = Instant::now();
        let found = spin_for(budget, start, poll);
        if found.is_some() {
            self.misses.set(0);
            self.next_backoff.set(FIRST_BACKOFF);
        } else if budget >= self.max.get() {
            self.missed();
        }
        found
    }

    /// A clock reading to pass to `slept` after the sleep; `None` when
    /// spinning is off (no clock read then).
    pub(crate) fn sleep_starts(&self) -> Option<Instant> {
        (!self.max.get().is_zero()).then(Instant::now)
    }

    /// A whole-`max` spin found nothing: after `MISS_LIMIT` in a row, sit
    /// out spinning for a while.
    fn missed(&self) {
        let misses = self.misses.get() + 1;
        if misses < MISS_LIMIT {
            self.misses.set(misses);
            return;
        }
        self.misses.set(0);
        self.backoff_left.set(self.next_backoff.get());
        self.next_backoff
            .set((self.next_backoff.get() * 2).min(MAX_BACKOFF));
        self.budget.set(Duration::ZERO);
    }

    /// Adapts the budget to a sleep that began at `start`.
    pub(crate) fn slept(&self, start: Option<Instant>) {
        if let Some(start) = start {
            self.slept_for(start.elapsed());
        }
    }

    /// `slept`, for a caller that reads the clock around its sleeps anyway
    /// (a worker, for its busy-time metric): adapts the budget to a sleep
    /// that lasted `slept`. Nothing with spinning off.
    pub(crate) fn slept_for(&self, slept: Duration) {
        if self.max.get().is_zero() {
            return;
        }
        let left = self.backoff_left.get();
        if left > 0 {
            self.backoff_left.set(left - 1);
            return;
        }
        let max = self.max.get();
        let budget = if slept <= max.saturating_mul(SHORT_SLEEP_FACTOR) {
            (self.budget.get() * 2).clamp(GROW_START.min(max), max)
        } else {
            Duration::ZERO
        };
        self.budget.set(budget);
    }
}

/// Calls `poll` until it returns something or `budget` has passed since
/// `start`.
fn spin_for<T>(budget: Duration, start: Instant, mut poll: impl FnMut() -> Option<T>) -> Option<T> {
    loop {
        // Not `std::thread::yield_now`: on the dev VM (EEVDF scheduler) a
        // yield let another spinning thread keep the CPU for the rest of
        // its slice, and `blocking_sequential` went from 1.8 to 9.4 ms.
        for _ in 0..SPINS_PER_LOOK {
            std::hint::spin_loop();
        }
        if let Some(found) = poll() {
            return Some(found);
        }
        if start.elapsed() >= budget {
            return None;
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::{FIRST_BACKOFF, GROW_START, IdleSpin, MISS_LIMIT, SHORT_SLEEP_FACTOR};
    use std::time::{Duration, Instant};

    const MAX: Duration = Duration::from_millis(20);

    #[test]
    fn short_sleeps_grow_the_budget_to_max_and_a_long_one_resets_it() {
        let spin = IdleSpin::new(MAX);
        assert_eq!(spin.budget.get(), Duration::ZERO);
        spin.slept(spin.sleep_starts());
        assert_eq!(spin.budget.get(), GROW_START);
        spin.slept(spin.sleep_starts());
        assert_eq!(spin.budget.get(), GROW_START * 2);
        for _ in 0..20 {
            spin.slept(spin.sleep_starts());
        }
        assert_eq!(spin.budget.get(), MAX);
        // A sleep that counts as long.
        spin.slept(Instant::now().checked_sub(MAX * (SHORT_SLEEP_FACTOR + 1)));
        assert_eq!(spin.budget.get(), Duration::ZERO);
    }

    #[test]
    fn with_no_budget_or_max_zero_it_never_spins() {
        let spin = IdleSpin::new(MAX);
        let mut polls = 0;
        assert_eq!(
            spin.spin(|| -> Option<()> {
                polls += 1;
                None
            }),
            None
        );
        assert_eq!(polls, 0, "a zero budget does not poll at all");
        let off = IdleSpin::new(Duration::ZERO);
        assert!(off.sleep_starts().is_none(), "spinning off: no clock reads");
        off.slept(off.sleep_starts());
        assert_eq!(off.budget.get(), Duration::ZERO);
    }

    /// Grows the budget to `spin.max` with short sleeps.
    fn grown(spin: &IdleSpin) {
        while spin.budget.get() < spin.max.get() {
            spin.slept(spin.sleep_starts());
        }
    }

    #[test]
    fn whole_max_spins_that_keep_missing_back_off_and_a_hit_resets_it() {
        let spin = IdleSpin::new(Duration::from_micros(50));
        grown(&spin);
        for _ in 0..MISS_LIMIT - 1 {
            assert_eq!(spin.spin(|| None::<()>), None);
            spin.slept(spin.sleep_starts());
            assert!(spin.will_spin(), "a few misses do not stop the spin");
        }
        assert_eq!(spin.spin(|| None::<()>), None);
        for _ in 0..FIRST_BACKOFF {
            assert!(!spin.will_spin(), "backing off after {MISS_LIMIT} misses");
            spin.slept(spin.sleep_starts());
        }
        grown(&spin);
        assert!(spin.will_spin(), "spinning again after the back-off");
        // The next run of misses backs off twice as long.
        for _ in 0..MISS_LIMIT {
            assert_eq!(spin.spin(|| None::<()>), None);
        }
        assert_eq!(spin.backoff_left.get(), FIRST_BACKOFF * 2);
        for _ in 0..FIRST_BACKOFF * 2 {
            spin.slept(spin.sleep_starts());
        }
        grown(&spin);
        // A hit forgets the misses and the doubling.
        assert_eq!(spin.spin(|| Some(())), Some(()));
        assert_eq!(spin.misses.get(), 0);
        assert_eq!(spin.next_backoff.get(), FIRST_BACKOFF);
    }

    #[test]
    fn a_huge_max_does_not_overflow() {
        let spin = IdleSpin::new(Duration::MAX);
        spin.slept(spin.sleep_starts());
        assert_eq!(spin.budget.get(), GROW_START);
    }

    #[test]
    fn spin_returns_what_poll_finds() {
        // A budget no busy test machine can exhaust in three polls.
        let spin = IdleSpin::new(Duration::from_secs(600));
        grown(&spin);
        let mut polls = 0;
        let found = spin.spin(|| {
            polls += 1;
            (polls == 3).then_some("work")
        });
        assert_eq!(found, Some("work"));
        assert_eq!(polls, 3);
    }
}
