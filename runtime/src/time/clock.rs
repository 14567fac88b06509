//! The runtime's clock, and the test controls `pause`, `resume`, `advance`.
//!
//! A clock that was never paused is `std::time::Instant::now()`. Once
//! paused, it reads `base` (frozen), or `base + time since it resumed`.
//! `advance` moves `base`. The time driver auto-advances a paused clock to
//! the next timer when the runtime has nothing else to do.

use crate::driver::time::Handle as TimeHandle;
use crate::loom::sync::Mutex;
use crate::loom::sync::atomic::{AtomicBool, Ordering};
use crate::runtime::context;
use crate::scheduler;
use std::time::{Duration, Instant as StdInstant};

/// How many clocks in this process were ever paused. While 0,
/// `Instant::now()` skips looking for the current runtime's clock. A
/// process-wide counter, outside the modelled concurrency, hence a plain
/// std atomic rather than the loom shim's.
static PAUSED_CLOCKS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

pub(crate) struct Clock {
    /// Set on the first pause; never cleared (the clock stays virtual).
    virtual_time: AtomicBool,
    state: Mutex<ClockState>,
}

struct ClockState {
    base: StdInstant,
    /// When the clock last resumed; `None` while paused.
    unfrozen: Option<StdInstant>,
}

impl Clock {
    pub(crate) fn new(start_paused: bool) -> Clock {
        let now = StdInstant::now();
        let clock = Clock {
            virtual_time: AtomicBool::new(false),
            state: Mutex::new(ClockState {
                base: now,
                unfrozen: Some(now),
            }),
        };
        if start_paused {
            clock.pause();
        }
        clock
    }

    pub(crate) fn now(&self) -> StdInstant {
        if !self.virtual_time.load(Ordering::Acquire) {
            return StdInstant::now();
        }
        let state = self.state.lock().unwrap();
        match state.unfrozen {
            Some(since) => state.base + since.elapsed(),
            None => state.base,
        }
    }

    pub(crate) fn is_paused(&self) -> bool {
        self.virtual_time.load(Ordering::Acquire) && self.state.lock().unwrap().unfrozen.is_none()
    }

    #[track_caller]
    pub(crate) fn pause(&self) {
        let mut state = self.state.lock().unwrap();
        let Some(since) = state.unfrozen.take() else {
            // The misuse panics below are raised with the lock released: one
            // raised under it would poison the clock, and a caught one (a
            // task's, which the runtime survives) would leave every later
            // read of it, every `Instant::now()` and timer of the runtime,
            // panicking with a `PoisonError`.
            drop(state);
            panic!(
                "`rt::time::pause()` called while time is already paused; call `resume()` first"
            );
        };
        state.base += since.elapsed();
        if !self.virtual_time.swap(true, Ordering::AcqRel) {
            PAUSED_CLOCKS.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        }
    }

    #[track_caller]
    pub(crate) fn resume(&self) {
        let mut state = self.state.lock().unwrap();
        if state.unfrozen.is_some() {
            // Not under the lock (see `pause`).
            drop(state);
            panic!("`rt::time::resume()` called while time is not paused; call `pause()` first");
        }
        state.unfrozen = Some(StdInstant::now());
    }

    #[track_caller]
    pub(crate) fn advance_by(&self, duration: Duration) {
        let mut state = self.state.lock().unwrap();
        if state.unfrozen.is_some() {
            // Not under the lock (see `pause`).
            drop(state);
            panic!(
                "`rt::time::advance()` needs paused time: call `rt::time::pause()` first \
                 (or build the runtime with `start_paused(true)`)"
            );
        }
        // `Duration::MAX` moves the clock as far as "never" is.
        state.base = crate::time::instant::far_capped_add(state.base, duration);
    }
}

impl Drop for Clock {
    fn drop(&mut self) {
        if self.virtual_time.load(Ordering::Acquire) {
            PAUSED_CLOCKS.fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
        }
    }
}

impl std::fmt::Debug for Clock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Clock")
            .field("paused", &self.is_paused())
            .finish_non_exhaustive()
    }
}

/// The current instant on the current runtime's clock (std's clock when no
/// runtime is current or no clock was ever paused).
pub(crate) fn now() -> StdInstant {
    if PAUSED_CLOCKS.load(std::sync::atomic::Ordering::Acquire) == 0 {
        return StdInstant::now();
    }
    context::with_current(|handle| handle.driver().time().map(|time| time.clock().now()))
        .flatten()
        .unwrap_or_else(StdInstant::now)
}

/// The current runtime, which must have the time driver; `what` names the
/// caller for the panic message.
#[track_caller]
pub(crate) fn current_runtime(what: &str) -> scheduler::Handle {
    let Some(handle) = context::with_current(scheduler::Handle::clone) else {
        panic!(
            "`{what}` needs a running rt runtime: call it from inside a task or \
             `Runtime::block_on` (or enter one with `Runtime::enter`)"
        );
    };
    if handle.driver().time().is_none() {
        panic!(
            "`{what}` needs the runtime's time driver, which is disabled: build the \
             runtime with `Builder::enable_time()` or `Builder::enable_all()`"
        );
    }
    handle
}

/// The time driver of `handle` (checked by `current_runtime`).
pub(crate) fn time_of(handle: &scheduler::Handle) -> &TimeHandle {
    // A simulation's timers are set on its own thread only: a sleep moved
    // to a real thread and polled or reset there would move the run's
    // clock jumps by the machine's timing, with no wake to notice.
    #[cfg(feature = "sim")]
    if let scheduler::Handle::Sim(sim) = handle {
        sim.check_thread();
    }
    handle
        .driver()
        .time()
        .expect("rt: the runtime's time driver was checked when the timer was created")
}

/// Pauses the current runtime's clock: `Instant::now()` stops moving, and
/// when the runtime has nothing to do but wait for timers, the clock jumps
/// straight to the next one (so tests of long timeouts finish instantly).
/// I/O the OS has already reported (bytes a loopback peer wrote, a
/// connection waiting to be accepted) counts as something to do: the clock
/// stays put until the tasks waiting for it have run.
///
/// # Panics
///
/// Panics outside a runtime, on a runtime without the time driver, on a
/// multi-thread runtime (use a current-thread runtime, e.g.
/// `Builder::new_current_thread()`), or when time is already paused.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
///
/// let rt = rt::runtime::Builder::new_current_thread().enable_time().build().unwrap();
/// rt.block_on(async {
///     rt::time::pause();
///     let start = rt::time::Instant::now();
///     rt::time::sleep(Duration::from_secs(3600)).await; // returns at once
///     assert!(start.elapsed() >= Duration::from_secs(3600));
/// });
/// ```
#[track_caller]
pub fn pause() {
    let handle = current_runtime("rt::time::pause");
    if let scheduler::Handle::MultiThread(_) = handle {
        panic!(
            "`rt::time::pause()` needs a current-thread runtime: build it with \
             `Builder::new_current_thread()` (a paused clock cannot be shared by \
             several workers)"
        );
    }
    #[cfg(feature = "sim")]
    if let scheduler::Handle::Sim(_) = handle {
        panic!(
            "`rt::time::pause()` inside a simulation: its clock is always paused (it jumps to \
             the next timer when no task is ready); `rt::time::advance` moves it by hand"
        );
    }
    time_of(&handle).clock().pause();
}

/// Resumes the current runtime's paused clock: time flows again from where
/// it was paused (plus any `advance`).
///
/// # Panics
///
/// Panics outside a runtime, on a runtime without the time driver, or when
/// time is not paused.
///
/// # Examples
///
/// ```
/// let rt = rt::runtime::Builder::new_current_thread().enable_time().build().unwrap();
/// rt.block_on(async {
///     rt::time::pause();
///     rt::time::resume();
/// });
/// ```
#[track_caller]
pub fn resume() {
    let handle = current_runtime("rt::time::resume");
    #[cfg(feature = "sim")]
    if let scheduler::Handle::Sim(_) = handle {
        panic!(
            "`rt::time::resume()` inside a simulation: real time would flow into it, and a seed \
             could no longer replay the run; its clock stays simulated"
        );
    }
    time_of(&handle).clock().resume();
}

/// Moves the paused clock forward by `duration` and fires every timer that
/// became due (their tasks are woken), then yields once so that they can
/// run.
///
/// # Panics
///
/// Panics outside a runtime, on a runtime without the time driver, or when
/// time is not paused.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
///
/// let rt = rt::runtime::Builder::new_current_thread().start_paused(true).build().unwrap();
/// rt.block_on(async {
///     let start = rt::time::Instant::now();
///     rt::time::advance(Duration::from_secs(5)).await;
///     assert_eq!(start.elapsed(), Duration::from_secs(5));
/// });
/// ```
pub async fn advance(duration: Duration) {
    let handle = current_runtime("rt::time::advance");
    let time = time_of(&handle);
    time.clock().advance_by(duration);
    time.fire_expired();
    crate::task::yield_now().await;
}
