//! `sleep`, `sleep_until` and the `Sleep` future.

use crate::loom::sync::Arc;
use crate::runtime::context;
use crate::scheduler;
use crate::task::poll_proceed;
use crate::task::waits::Site;
use crate::time::Instant;
use crate::time::clock::{current_runtime, time_of};
use rt_timer::{Fired, TimerEntry};
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

/// Waits until `duration` has passed (at 1 ms resolution, never early).
/// A duration too large to represent sleeps "forever" (about 30 years).
///
/// # Panics
///
/// Panics when called outside a runtime, or on a runtime built without the
/// time driver (use `Builder::enable_time()` or `enable_all()`).
///
/// # Examples
///
/// ```
/// use std::time::Duration;
///
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let start = rt::time::Instant::now();
///     rt::time::sleep(Duration::from_millis(5)).await;
///     assert!(start.elapsed() >= Duration::from_millis(5));
/// });
/// ```
#[track_caller]
pub fn sleep(duration: Duration) -> Sleep {
    let now = Instant::now();
    let deadline = now.deadline_in(duration);
    Sleep::new(deadline, now, current_runtime("rt::time::sleep"))
        .waiting_as(Some(Site::here("sleep")))
}

/// Waits until `deadline`.
///
/// # Panics
///
/// Panics when called outside a runtime, or on a runtime built without the
/// time driver (use `Builder::enable_time()` or `enable_all()`).
///
/// # Examples
///
/// ```
/// use std::time::Duration;
///
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let deadline = rt::time::Instant::now() + Duration::from_millis(5);
///     rt::time::sleep_until(deadline).await;
///     assert!(rt::time::Instant::now() >= deadline);
/// });
/// ```
#[track_caller]
pub fn sleep_until(deadline: Instant) -> Sleep {
    Sleep::new(
        deadline,
        Instant::now(),
        current_runtime("rt::time::sleep_until"),
    )
    .waiting_as(Some(Site::here("sleep_until")))
}

/// [`sleep_until`] without its clock read, for a caller that needs no
/// answer on the first poll to whether the deadline has already passed
/// (hyper's timeouts, `rt::hyper::Timer`, which reads the clock itself
/// just before): the sleep always registers on its first poll, and the
/// timer fires an entry whose deadline has passed at once, so such a
/// sleep completes on its second poll instead of its first. Never early.
#[cfg(feature = "hyper")]
pub(crate) fn sleep_until_without_clock_read(deadline: Instant) -> Sleep {
    Sleep {
        deadline,
        runtime: current_runtime("rt::hyper::Timer::sleep_until"),
        entry: None,
        elapsed_early: false,
        completed_early: false,
        site: Some(Site {
            kind: "hyper Timer::sleep",
            location: None,
            lock: false,
        }),
    }
}

/// The future of [`sleep`] and [`sleep_until`]: ready once its deadline
/// passed. A deadline that had already passed when the sleep was created
/// (or [`reset`](Sleep::reset)) completes on the first poll without the
/// timer. Any other registers with the runtime's timer on the first poll
/// and completes when the timer fires it, never before the deadline: on
/// that first poll already if the timer has moved past the deadline since
/// the sleep was made (as when a paused clock was advanced meanwhile). Dropping it
/// cancels the timer. It is `Unpin`, so it can be awaited by
/// `&mut` (for example in a `select!` loop) and [`reset`](Sleep::reset).
///
/// Each ready poll spends one unit of the task's cooperative budget.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
///
/// let rt = rt::runtime::Builder::new_current_thread().start_paused(true).build().unwrap();
/// rt.block_on(async {
///     let mut sleep = rt::time::sleep(Duration::from_secs(10));
///     assert!(!sleep.is_elapsed());
///     let new_deadline = sleep.deadline() + Duration::from_secs(5);
///     sleep.reset(new_deadline);
///     (&mut sleep).await;
///     assert!(sleep.is_elapsed());
///     assert_eq!(sleep.deadline(), new_deadline);
/// });
/// ```
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct Sleep {
    deadline: Instant,
    runtime: scheduler::Handle,
    /// Registered on the first poll; kept across resets.
    entry: Option<TimerEntry>,
    /// The deadline had passed when the sleep was created or reset: it
    /// completes without the timer.
    elapsed_early: bool,
    /// An `elapsed_early` sleep was polled, and so completed.
    completed_early: bool,
    /// What the task dump says a task waiting on this waits for; `None`
    /// inside a future that records its own wait (`Interval::tick`).
    site: Option<Site>,
}

impl Sleep {
    /// A sleep until `deadline`, where `now` is the clock's current instant.
    /// The callers read the clock anyway (to compute the deadline, or to
    /// decide the next tick), so this is the only clock read a sleep
    /// costs: the first poll goes straight to the timer.
    pub(crate) fn new(deadline: Instant, now: Instant, runtime: scheduler::Handle) -> Sleep {
        Sleep {
            deadline,
            runtime,
            entry: None,
            elapsed_early: deadline <= now,
            completed_early: false,
            site: None,
        }
    }

    /// Names the wait the task dump shows for this sleep.
    pub(crate) fn waiting_as(mut self, site: Option<Site>) -> Sleep {
        self.site = site;
        self
    }

    /// When this sleep completes.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::time::Instant;
    /// use std::time::Duration;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let _guard = rt.enter();
    /// let deadline = Instant::now() + Duration::from_secs(1);
    /// assert_eq!(rt::time::sleep_until(deadline).deadline(), deadline);
    /// ```
    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// `true` once the sleep completed: its deadline passed and it was
    /// polled or its timer fired. A sleep created (or reset) with a
    /// deadline already past is elapsed once polled.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let rt = rt::runtime::Builder::new_current_thread().start_paused(true).build().unwrap();
    /// rt.block_on(async {
    ///     let mut sleep = rt::time::sleep(Duration::from_millis(10));
    ///     assert!(!sleep.is_elapsed());
    ///     (&mut sleep).await;
    ///     assert!(sleep.is_elapsed());
    /// });
    /// ```
    pub fn is_elapsed(&self) -> bool {
        self.completed_early || self.entry.as_ref().is_some_and(TimerEntry::is_fired)
    }

    /// Moves the deadline to `deadline`, whether or not the sleep completed:
    /// it then completes again at the new deadline (at once if that has
    /// passed). Reuses the timer entry.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::time::Instant;
    /// use std::time::Duration;
    ///
    /// let rt = rt::runtime::Builder::new_current_thread().start_paused(true).build().unwrap();
    /// rt.block_on(async {
    ///     let start = Instant::now();
    ///     let mut sleep = rt::time::sleep(Duration::from_secs(1));
    ///     (&mut sleep).await;
    ///     sleep.reset(Instant::now() + Duration::from_secs(1));
    ///     (&mut sleep).await;
    ///     assert_eq!(start.elapsed(), Duration::from_secs(2));
    /// });
    /// ```
    pub fn reset(&mut self, deadline: Instant) {
        // This sleep's own runtime's clock, wherever `reset` is called from.
        let now = Instant::from_std(time_of(&self.runtime).clock().now());
        self.reset_at(deadline, now);
    }

    /// [`reset`](Sleep::reset), where `now` is the clock's current instant
    /// (read by the caller, which needed it anyway).
    pub(crate) fn reset_at(&mut self, deadline: Instant, now: Instant) {
        self.deadline = deadline;
        let time = time_of(&self.runtime);
        // A deadline that already passed needs no timer (an interval
        // catching up on missed ticks completes them without waiting for
        // the driver).
        self.elapsed_early = deadline <= now;
        self.completed_early = false;
        if self.elapsed_early {
            // A task waiting on the old deadline would not be woken by a
            // timer that no longer holds it: wake it now (as tokio's timer
            // fires a sleep reset into the past), so its next poll sees
            // the sleep complete.
            if let Some(entry) = self.entry.take() {
                let waiter = entry.take_waker();
                drop(entry);
                if let Some(waiter) = waiter {
                    waiter.wake();
                }
            }
        } else if let Some(entry) = &mut self.entry {
            if entry.reset(time.deadline_tick(deadline.into_std())) {
                self.runtime.driver().unpark();
            }
        }
    }

    /// Polls for completion without spending cooperative budget (used by
    /// `Timeout` when its inner future spent the last of it).
    pub(crate) fn poll_elapsed(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        if self.elapsed_early {
            self.completed_early = true;
            return Poll::Ready(());
        }
        let fired = match &self.entry {
            Some(entry) => {
                // Polled on a real thread, a simulation's registered
                // sleep swaps the waker its timer fires whenever the
                // machine let it (`time_of` checks the first poll).
                #[cfg(feature = "sim")]
                self.check_sim_thread();
                entry.poll_fired(cx.waker())
            }
            None => {
                // No clock read here: `elapsed_early` settled whether the
                // deadline had passed when the sleep was made, and a
                // deadline that passed since is one the timer fires (at
                // once if its time is already past the tick). Reading the
                // clock again would double the cost of a short sleep.
                let time = time_of(&self.runtime);
                let tick = time.deadline_tick(self.deadline.into_std());
                // An entry fired at once (the driver has moved past its
                // tick: a sleep made before a paused clock advanced, say)
                // completes on this very poll, as in tokio.
                let (entry, fired, wake_driver) = time.timer().arm_on(
                    crate::runtime::context::timer_shard_hint(),
                    tick,
                    cx.waker(),
                );
                if wake_driver {
                    self.runtime.driver().unpark();
                }
                self.entry = Some(entry);
                if fired == Some(Fired::Shutdown) {
                    // A timer already shut down: the runtime is dropping
                    // its tasks, so this poll waits (woken, as before
                    // `arm_on`) and only a further poll, if the task gets
                    // one, reports the misuse below.
                    cx.waker().wake_by_ref();
                    return Poll::Pending;
                }
                fired
            }
        };
        match fired {
            None => Poll::Pending,
            Some(Fired::Elapsed) => Poll::Ready(()),
            // A task caught in the middle of a poll by `shutdown_timeout` or
            // `shutdown_background`, which stopped waiting for its worker
            // and shut the timer down: the runtime cancels the task once
            // this poll returns. Until then its timers wait, as tokio's do
            // (its driver shuts down when the last worker stops); there is
            // no misuse to report.
            Some(Fired::Shutdown) if self.polled_on_own_worker() => Poll::Pending,
            Some(Fired::Shutdown) => panic!(
                "a timer was polled after its runtime shut down: timers can only be awaited \
                 while their runtime runs (drop them before dropping the runtime)"
            ),
        }
    }

    /// `true` if this poll is a task's, on a worker of the sleep's own
    /// runtime that holds its core (not one that gave it away to block in
    /// place, whose `Handle::block_on` would wait forever). A current-thread
    /// runtime never shuts its timer down under a poll: its shutdown needs
    /// the core the poll holds.
    fn polled_on_own_worker(&self) -> bool {
        let scheduler::Handle::MultiThread(own) = &self.runtime else {
            return false;
        };
        context::with_scheduler(|cx| match cx {
            Some(scheduler::Context::MultiThread(cx)) => {
                Arc::ptr_eq(&cx.handle, own)
                    && cx.core.try_borrow().is_ok_and(|core| core.is_some())
            }
            _ => false,
        })
    }
}

impl Future for Sleep {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let coop = ready!(poll_proceed(cx));
        let this = self.get_mut();
        let polled = this.poll_elapsed(cx);
        if polled.is_ready() {
            coop.made_progress();
        } else if let Some(site) = this.site {
            site.record_plain();
        }
        polled
    }
}

/// A simulation's timers are taken out on its own thread only: a sleep
/// registered in a run and dropped on a real thread would take its timer
/// out of the run's wheel whenever the machine let it, moving the clock's
/// jumps (`clock::time_of` checks a first poll and a reset, and
/// `poll_elapsed` a later poll).
#[cfg(feature = "sim")]
impl Drop for Sleep {
    fn drop(&mut self) {
        self.check_sim_thread();
    }
}

#[cfg(feature = "sim")]
impl Sleep {
    /// Fails a simulation's run when its registered timer is used (polled
    /// or dropped) on a thread outside it (`Handle::check_thread`).
    fn check_sim_thread(&self) {
        if let (Some(_), scheduler::Handle::Sim(sim)) = (&self.entry, &self.runtime) {
            sim.check_thread();
        }
    }
}

impl fmt::Debug for Sleep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sleep")
            .field("deadline", &self.deadline)
            .field("registered", &self.entry.is_some())
            .finish_non_exhaustive()
    }
}
