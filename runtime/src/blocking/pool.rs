//! The blocking pool: a growable set of threads that run closures which
//! may block (`spawn_blocking`), and that take over a worker's core when a
//! worker calls `block_in_place`.
//!
//! Jobs wait in a lock-free `Injector`; a second one holds core hand-offs,
//! which threads take first, and a third the jobs bound to threads being
//! started (spawning step 3), which they take next. One atomic word
//! counts the pool's threads, among them the idle ones not yet claimed by
//! a producer, and the *notified* ones: claimed or newly started for a
//! job, and not yet back from their first look at the queues. The mutex
//! and condvar are only touched to wake an idle thread, to go idle, to
//! exit, or at shutdown, so many producers pushing while every thread is
//! busy never meet on a lock.
//!
//! Spawning a job (no job is stranded in the queue with no thread to run
//! it):
//! 1. push it, then (SeqCst) read the word;
//! 2. if a thread is notified, stop: it will see the job (step 5);
//! 3. else, if a thread is idle, claim it (CAS `idle - 1, notified + 1`)
//!    and, under the lock, post one wake-up for it; else, below the cap,
//!    count a new notified thread (CAS `threads + 1, notified + 1`); then,
//!    unless it sees shutdown (the count, a fence, the flag: shutdown may
//!    have stopped waiting, so it takes the count back and starts none),
//!    take the oldest queued job (the one just pushed, unless older ones
//!    wait) and spawn the thread with it as its own: it runs even if
//!    shutdown comes before the thread got going (see "Shutdown"). The job
//!    also waits in the `started` queue, so a busy thread already warm may
//!    take it first;
//! 4. else the pool is at its cap and every thread is busy; each one pops
//!    the queue again before it goes idle, or passes a job on as it
//!    leaves the count to run a handed-off core, so the job gets a thread;
//! 5. a notified thread pops a job (or finds none), leaves the notified
//!    count (SeqCst), then looks at the queue: if a job is left it does
//!    steps 2-4 for it before running its own. Either the producer of step
//!    2 saw it notified and this look sees the job, or the producer saw no
//!    notified thread and woke one itself;
//! 6. if the OS refuses the thread of step 3, the producer takes it off
//!    the count and puts its job back in the queue. If other threads are
//!    counted it does step 5 for the thread that never came (without
//!    starting another) and the call succeeds: they will run the job
//!    (unless they have all left the count since, for handed-off cores:
//!    the last one may have left the queue to this call, still notified,
//!    so with a job queued and no thread it does steps 2-6 again). If
//!    none is, nobody will run the jobs queued, its own or those other
//!    producers left to its thread (step 2): it cancels every one (their
//!    `JoinHandle`s yield `Cancelled`), still counted notified, so that a
//!    producer pushing meanwhile leaves its job to it; then does step 5,
//!    starting a thread for such a job if the OS now allows one (else
//!    failing it the same way), and the call fails with the OS error.
//!    The same holds for a pool thread passing a job on as it leaves the
//!    count for a handed-off core (step 4): if it was the last one, the
//!    queued jobs fail. A refused thread so strands no job in a pool
//!    with no thread, where it used to wait for a later call or shutdown
//!    (`thread_refused_with_no_thread_left_strands_no_job`, and the loom
//!    models `loom_blocking_refused_threads_strand_no_job` and, for the
//!    handed-off core and the look again,
//!    `loom_blocking_refused_thread_for_a_job_left_to_a_thread_taking_a_core`,
//!    which needs `LOOM_MAX_PREEMPTIONS=4` to find either).
//!
//! So a burst of jobs costs the producer one wake-up, not one per job: the
//! threads wake one another, one at a time, while jobs are left (a thread
//! busy with a job it popped does not hold the others back: the next one
//! is woken before it runs it).
//!
//! Going idle (under the lock):
//! 1. count itself idle (`idle + 1`), then (SeqCst) look at the queues: if a
//!    job or shutdown is there, leave the idle count again (or, if a
//!    producer already claimed it, wait for that producer's wake-up).
//!    Either the producer of step 1 above sees this thread idle, or this
//!    thread sees the job;
//! 2. wait for a wake-up, at most the keep-alive; a wake-up is consumed
//!    by whichever idle thread sees it first (idle + posted wake-ups is
//!    always the number of waiting threads);
//! 3. on time-out, leave both counts in one CAS (`idle - 1, threads - 1`)
//!    and exit, unless a producer claimed it meanwhile: then wait for the
//!    wake-up. Since the two counts change together, a producer sees either
//!    an idle thread to claim or room under the cap to spawn one.
//!
//! Shutdown:
//! 1. set the flag under the lock and wake every idle thread;
//! 2. cancel every queued job (its `JoinHandle` yields `Cancelled`); a
//!    producer re-checks the flag after pushing and cancels too, and a
//!    thread that pops a job after the flag is set cancels it, so no
//!    queued job starts after shutdown. The job a thread was started for
//!    (spawning step 3) is no longer queued and runs: one job per thread
//!    started, the oldest queued. So a `spawn_blocking` call that found
//!    no thread to spare, with no older call waiting, runs even when the
//!    runtime shuts down at once, as with tokio (whose new threads run the
//!    queue before they look at the flag); calls queued behind it, or
//!    left to a thread already starting, are cancelled as queued. No
//!    thread is started once shutdown has stopped waiting (step 3's check:
//!    the flag, a fence and the count here, the count, a fence and the flag
//!    there);
//! 3. wait, up to the timeout, for the threads to finish their running job
//!    and exit. With the watchdog on, once the wait passes its threshold,
//!    say (once) which jobs it waits for (`running_jobs.rs`): a running
//!    job cannot be interrupted, and the wait would look like a hang.
//!
//! Spinning: a thread that ran out of jobs first counts itself notified
//! (so producers skip the wake-up, step 2) and spins, looking at the
//! queues, while its recent idle waits were short (`scheduler::idle_spin`).
//! If a job comes it goes on as a notified thread (step 5). If not, it
//! leaves the notified count and (SeqCst) looks at the queue once more:
//! jobs pushed while it was still counted were left to it, however many,
//! so if one is there it counts itself notified again and goes on as
//! above (its step 5 passes the others on, one thread after another,
//! below the cap); else it goes idle. (A producer pushing between the
//! two counts sees no notified thread and wakes or starts one itself: at
//! worst a wake-up too many.) A task awaiting one `spawn_blocking` call
//! after another then costs no futex wake-up per call on either side.
//!
//! A thread running a handed-off core leaves the pool's count for that
//! time (a worker loop is not blocking work, and must not hold one of the
//! capped slots), and rejoins afterwards if there is room. Leaving, it
//! (SeqCst) looks at the queue and passes a job on as in step 5: a
//! producer that saw it counted in a full pool left its job to the busy
//! threads (step 4), and it is no longer one of them.

use crate::blocking::pool_threads::PoolThreads;
use crate::blocking::running_jobs::RunningJobs;
use crate::loom::deque::{Injector, steal_one};
use crate::loom::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering, fence};
use crate::loom::sync::{Arc, Condvar, Mutex, MutexGuard};
use crate::runtime::builder::ThreadSpawner;
use crate::runtime::context;
use crate::scheduler;
use crate::scheduler::idle_spin::IdleSpin;
use crate::task::Notified;
use std::cell::Cell;
use std::fmt;
use std::io;
use std::time::{Duration, Instant};

/// A worker core handed off by `block_in_place`: runs a worker loop.
pub(crate) type Handoff = Box<dyn FnOnce() + Send + 'static>;

/// The counts word: three 21-bit fields.
const FIELD_BITS: u32 = 21;
const FIELD_MASK: u64 = (1 << FIELD_BITS) - 1;
const IDLE_ONE: u64 = 1;
const NOTIFIED_ONE: u64 = 1 << FIELD_BITS;
const THREAD_ONE: u64 = 1 << (2 * FIELD_BITS);
/// The cap on pool threads, so that the fields never overflow (threads
/// running handed-off cores can briefly add a few to the count).
const MAX_THREADS: usize = 1 << (FIELD_BITS - 1);

/// A copy of the counts word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Counts(u64);

impl Counts {
    fn threads(self) -> usize {
        ((self.0 >> (2 * FIELD_BITS)) & FIELD_MASK) as usize
    }

    fn notified(self) -> usize {
        ((self.0 >> FIELD_BITS) & FIELD_MASK) as usize
    }

    fn idle(self) -> usize {
        (self.0 & FIELD_MASK) as usize
    }
}

/// The pool's settings, from the `Builder`.
#[derive(Clone, Debug)]
pub(crate) struct PoolConfig {
    pub(crate) max_threads: usize,
    pub(crate) keep_alive: Duration,
    /// See "Spinning" above and `scheduler::idle_spin`.
    pub(crate) spin_before_park: Duration,
    /// With the watchdog on, its threshold: once shutdown has waited this
    /// long for running jobs, it says which (`running_jobs.rs`).
    pub(crate) report_wait_after: Option<Duration>,
}

/// A cheap, cloneable handle to the pool (the scheduler handles hold one).
#[derive(Clone)]
pub(crate) struct Spawner {
    inner: Arc<Inner>,
}

struct Inner {
    queue: Injector<Notified>,
    /// The slots of jobs a thread was started for (spawning step 3).
    started: Injector<OwnSlot>,
    handoffs: Injector<Handoff>,
    counts: AtomicU64,
    /// Threads running a handed-off core (outside `counts`), for the
    /// metrics only.
    handoff_threads: AtomicUsize,
    is_shutdown: AtomicBool,
    sleep: Mutex<Sleep>,
    /// Idle threads wait here for a wake-up.
    wake: Condvar,
    /// Shutdown waits here for the last thread to exit.
    exited: Condvar,
    config: PoolConfig,
    threads: ThreadSpawner,
    /// The threads' join handles, for shutdown to join them.
    handles: Arc<PoolThreads>,
    /// The jobs running now, listed while `config.report_wait_after` is set.
    running: Option<Arc<RunningJobs>>,
}

struct Sleep {
    /// Wake-ups posted by producers that claimed an idle thread.
    wakeups: usize,
}

/// A job a thread was started for (spawning step 3): taken by that thread
/// when it starts, or before by a busy thread from `Inner::started`, or
/// back by the producer if the thread failed to start.
type OwnSlot = Arc<Mutex<Option<Notified>>>;

/// What a pool thread picked up.
enum Job {
    Task(Notified),
    /// A job a thread was started for: it runs even after shutdown.
    Own(Notified),
    Handoff(Handoff),
}

/// Why a pool thread was started.
enum Start {
    /// To look at the queue, which held no job for it (another thread, or
    /// shutdown, took it first): it counts as notified.
    Notified,
    /// For a job (spawning step 3), run before anything else unless a busy
    /// thread took it first; it counts as notified.
    Own(OwnSlot),
    /// To run a handed-off core (outside the capped count).
    Handoff(Handoff),
}

/// How a pool thread left `wait_for_work`.
enum Woken {
    /// It consumed a wake-up: it counts as notified.
    Notified,
    /// It saw work (or shutdown) by itself.
    Itself,
    /// It timed out and left the pool.
    Exit,
}

/// Why a core hand-off was refused.
#[derive(Debug)]
pub(crate) enum HandoffError {
    /// The pool is shut down.
    ShutDown,
    /// No idle thread, and the OS refused a new one.
    /// (`block_in_place` then runs its closure with the core kept.)
    Spawn,
}

impl Spawner {
    pub(crate) fn new(mut config: PoolConfig, threads: ThreadSpawner) -> Spawner {
        assert!(config.max_threads > 0, "the blocking pool needs a thread");
        config.max_threads = config.max_threads.min(MAX_THREADS);
        Spawner {
            inner: Arc::new(Inner {
                queue: Injector::new(),
                started: Injector::new(),
                handoffs: Injector::new(),
                counts: AtomicU64::new(0),
                handoff_threads: AtomicUsize::new(0),
                is_shutdown: AtomicBool::new(false),
                sleep: Mutex::new(Sleep { wakeups: 0 }),
                wake: Condvar::new(),
                exited: Condvar::new(),
                running: config
                    .report_wait_after
                    .map(|_| Arc::new(RunningJobs::new())),
                config,
                threads,
                handles: Arc::new(PoolThreads::new()),
            }),
        }
    }

    /// Where a new job lists itself while it runs, when shutdown may report
    /// it (step 1 of `running_jobs.rs`).
    pub(crate) fn running_jobs(&self) -> Option<&Arc<RunningJobs>> {
        self.inner.running.as_ref()
    }

    /// Queues a blocking task and makes sure a thread will run it. `rt` is
    /// made current on new threads, so the task can reach its runtime.
    ///
    /// # Errors
    ///
    /// Fails only if the pool has no thread at all and the OS refused to
    /// start one (spawning step 6); every queued task, this one among them
    /// unless a thread took it first, has then been cancelled.
    pub(crate) fn spawn_task(
        &self,
        task: Notified,
        rt: Option<&scheduler::Handle>,
    ) -> io::Result<()> {
        let inner = &self.inner;
        if inner.is_shutdown.load(Ordering::Acquire) {
            task.cancel();
            return Ok(());
        }
        if !inner.push_unless_shut_down(task) {
            return Ok(());
        }
        self.notify_one(rt, true)
    }

    /// Steps 2-4 of spawning: makes sure some thread looks at the queue
    /// after the caller's push (or its own look at the queue). Starts a
    /// thread only if `may_spawn`.
    fn notify_one(&self, rt: Option<&scheduler::Handle>, may_spawn: bool) -> io::Result<()> {
        let inner = &self.inner;
        let mut counts = inner.load_counts();
        loop {
            let next = if counts.notified() > 0 {
                return Ok(());
            } else if counts.idle() > 0 {
                Counts(counts.0 - IDLE_ONE + NOTIFIED_ONE)
            } else if may_spawn && counts.threads() < inner.config.max_threads {
                Counts(counts.0 + THREAD_ONE + NOTIFIED_ONE)
            } else {
                return Ok(());
            };
            match inner.cas_counts(counts, next) {
                Ok(()) => break,
                Err(actual) => counts = actual,
            }
        }
        if counts.idle() > 0 {
            inner.post_wakeup();
            return Ok(());
        }
        // The new thread is counted: shutdown either sees it in the count
        // and waits for it, or this producer sees the flag (the count, a
        // fence, the flag here; the flag, a fence, the count there), and
        // then starts no thread, since shutdown may have stopped waiting.
        fence(Ordering::SeqCst);
        if inner.is_shutdown.load(Ordering::SeqCst) {
            inner.exit_thread(inner.sleep.lock().unwrap());
            return self.leave_notified(rt, false);
        }
        let own = self.take_job_for_new_thread();
        let start = match &own {
            Some(own) => Start::Own(own.clone()),
            None => Start::Notified,
        };
        let Err(error) = inner.spawn_thread(self, rt, start) else {
            return Ok(());
        };
        // The job goes back to the queue (unless a busy thread took it and
        // runs it), to be run or cancelled like any other.
        if let Some(task) = own.and_then(|own| own.lock().unwrap().take()) {
            // Queued or cancelled, either is its fate now.
            inner.push_unless_shut_down(task);
        }
        if inner.load_counts().threads() > 0 {
            // The thread never came, and producers may have counted on it
            // since: do its step 5, leaving the jobs to the threads already
            // here, one slower thread short. (Starting no thread, it
            // cannot fail.)
            self.leave_notified(rt, false)?;
            // Those threads may have left the count meanwhile (for a
            // handed-off core), the last one leaving its queue to this
            // call, then still notified: if a job is left in a pool with
            // no thread, start one for it, or fail the queue as below.
            if inner.load_counts().threads() == 0 && inner.job_left_behind() {
                return self.notify_one(rt, true);
            }
            return Ok(());
        }
        // Refused step 3: no thread in the pool, so none will take the
        // queued jobs, this call's or those left to the thread it was
        // starting (step 2).
        inner.fail_queued();
        // Jobs pushed since were left to this call, still notified: they
        // get a thread of their own if the OS allows one now, or fail too.
        let _ = self.leave_notified(rt, true);
        Err(error)
    }

    /// Step 3's job for the thread about to be spawned (already counted,
    /// notified, and shutdown known to wait for it): the oldest queued
    /// job, also offered to busy threads in `started`. None if the queue is
    /// empty (another thread, or shutdown, took the job meanwhile).
    fn take_job_for_new_thread(&self) -> Option<OwnSlot> {
        let inner = &self.inner;
        let task = steal_one(&inner.queue)?;
        let own: OwnSlot = Arc::new(Mutex::new(Some(task)));
        inner.started.push(own.clone());
        Some(own)
    }

    /// Starts `job` (a worker loop) on an idle thread, or on a new thread
    /// even past the cap: the thread leaves the capped count while the job
    /// runs. On error the job has been dropped.
    pub(crate) fn spawn_handoff(
        &self,
        job: Handoff,
        rt: Option<&scheduler::Handle>,
    ) -> Result<(), HandoffError> {
        let inner = &self.inner;
        if inner.is_shutdown.load(Ordering::Acquire) {
            return Err(HandoffError::ShutDown);
        }
        let mut counts = inner.load_counts();
        while counts.idle() > 0 {
            // Whichever thread takes the wake-up counts as notified.
            match inner.cas_counts(counts, Counts(counts.0 - IDLE_ONE + NOTIFIED_ONE)) {
                Ok(()) => {
                    inner.handoffs.push(job);
                    inner.post_wakeup();
                    return Ok(());
                }
                Err(actual) => counts = actual,
            }
        }
        inner.counts.fetch_add(THREAD_ONE, Ordering::SeqCst);
        inner
            .spawn_thread(self, rt, Start::Handoff(job))
            .map_err(|_| HandoffError::Spawn)
    }

    /// Shuts the pool down (see the module docs): queued jobs are
    /// cancelled, running ones are waited for up to `timeout` (`None`:
    /// forever). Returns `true` if every thread exited in time.
    pub(crate) fn shutdown(&self, timeout: Option<Duration>) -> bool {
        let inner = &self.inner;
        {
            let _sleep = inner.sleep.lock().unwrap();
            inner.is_shutdown.store(true, Ordering::SeqCst);
            inner.wake.notify_all();
        }
        fence(Ordering::SeqCst);
        inner.cancel_queued();
        // A blocking task may shut down its own runtime (by dropping it):
        // its thread cannot exit before this returns, so it is not waited for.
        let this_thread = usize::from(running_on(inner));
        let deadline = crate::runtime::deadline_after(timeout);
        // With the watchdog on: when to say which jobs the wait is for.
        let waiting_since = Instant::now();
        let mut report_at =
            (inner.config.report_wait_after).and_then(|after| waiting_since.checked_add(after));
        let mut sleep = inner.sleep.lock().unwrap();
        while inner.load_counts().threads() > this_thread {
            let now = Instant::now();
            if deadline.is_some_and(|deadline| now >= deadline) {
                return false;
            }
            if report_at.is_some_and(|report_at| now >= report_at) {
                report_at = None;
                if let Some(running) = &inner.running {
                    // Printed unlocked: exiting threads need the lock.
                    drop(sleep);
                    let waited = now.saturating_duration_since(waiting_since);
                    crate::runtime::watchdog::report_blocking_wait(&running.report(), waited);
                    sleep = inner.sleep.lock().unwrap();
                }
                continue;
            }
            let wake_at = match (deadline, report_at) {
                (Some(deadline), Some(report_at)) => Some(deadline.min(report_at)),
                (at, None) | (None, at) => at,
            };
            sleep = match wake_at {
                None => inner.exited.wait(sleep).unwrap(),
                Some(at) => {
                    let timeout = at.saturating_duration_since(now);
                    inner.exited.wait_timeout(sleep, timeout).unwrap().0
                }
            };
        }
        true
    }

    /// Waits until every thread of the runtime (its workers and this
    /// pool's threads) has finished, stop hook included, but the caller if
    /// it is one of them, or until `deadline`. After `shutdown`: no thread
    /// starts any more.
    pub(crate) fn wait_for_threads(&self, deadline: Option<Instant>) -> bool {
        self.inner.threads.wait_until_finished(deadline)
    }

    /// A runtime's last step of shutdown: shuts the pool down, waits up to
    /// `deadline` (`None`: forever) for its jobs and then for every thread
    /// of the runtime to finish (stop hooks included: those that left the
    /// counts still run theirs), as tokio joins its threads, then joins
    /// the pool threads that have exited by then, so that their
    /// thread-locals are gone too.
    pub(crate) fn shutdown_and_join(&self, deadline: Option<Instant>) {
        let remaining = deadline.map(|deadline| deadline.saturating_duration_since(Instant::now()));
        if self.shutdown(remaining) {
            self.wait_for_threads(deadline);
        }
        self.join_exited_threads();
    }

    /// Joins the pool's threads that have exited, once shutdown has waited
    /// for them (`pool_threads.rs`, step 3); those still running are left
    /// to exit alone.
    pub(crate) fn join_exited_threads(&self) {
        self.inner.handles.join_exited();
    }

    /// Whether the pool was shut down (for the loom models' messages).
    #[cfg(all(test, loom))]
    pub(crate) fn is_shut_down_for_tests(&self) -> bool {
        self.inner.is_shutdown.load(Ordering::SeqCst)
    }

    /// The join handles the pool holds (`PoolThreads::handles_held`).
    #[cfg(test)]
    pub(crate) fn handles_held(&self) -> usize {
        self.inner.handles.handles_held()
    }

    /// This thread, having handed its worker core off in
    /// `block_in_place`, is no longer waited for at shutdown.
    pub(crate) fn detach_current_thread(&self) {
        self.inner.threads.detach_current();
    }

    /// Step 5 of spawning: leaves the notified count, then passes on a job
    /// left in the queue (starting a thread only if `may_spawn`).
    fn leave_notified(&self, rt: Option<&scheduler::Handle>, may_spawn: bool) -> io::Result<()> {
        self.inner.counts.fetch_sub(NOTIFIED_ONE, Ordering::SeqCst);
        if !self.inner.job_left_behind() {
            return Ok(());
        }
        self.notify_one(rt, may_spawn)
    }

    /// "Spinning" above: `true` if a job (or shutdown) came during the
    /// spin, or a job is queued once it stopped; the thread is still
    /// counted notified then.
    fn spin_for_job(&self, spin: &IdleSpin) -> bool {
        if !spin.will_spin() {
            return false;
        }
        let inner = &*self.inner;
        inner.counts.fetch_add(NOTIFIED_ONE, Ordering::SeqCst);
        let found = spin
            .spin(|| (inner.has_work() || inner.is_shutdown.load(Ordering::Acquire)).then_some(()))
            .is_some();
        if found {
            return true;
        }
        // Leaving the notified count. Producers that pushed while this
        // thread counted as notified woke nobody (step 2): if a job is
        // queued now, this thread takes one as a notified thread again,
        // and its step 5 before running it passes the others on (one
        // thread after another, below the cap). Taking one and leaving the
        // others is not enough: that job may block until another has run.
        inner.counts.fetch_sub(NOTIFIED_ONE, Ordering::SeqCst);
        if !inner.job_left_behind() {
            return false;
        }
        inner.counts.fetch_add(NOTIFIED_ONE, Ordering::SeqCst);
        true
    }

    /// The body of a pool thread.
    fn run_thread(&self, rt: Option<scheduler::Handle>, start: Start) {
        let inner = &*self.inner;
        let _current = rt.as_ref().map(context::set_current);
        let (mut first, mut notified) = match start {
            Start::Notified => (None, true),
            // Its job, unless a busy thread took it first.
            Start::Own(own) => (own.lock().unwrap().take().map(Job::Own), true),
            Start::Handoff(handoff) => (Some(Job::Handoff(handoff)), false),
        };
        let spin = IdleSpin::new(inner.config.spin_before_park);
        loop {
            // A job this thread was started for runs even after shutdown.
            if inner.is_shutdown.load(Ordering::Acquire) && !matches!(first, Some(Job::Own(_))) {
                // A handed-off core still runs: its worker loop sees the
                // runtime's shutdown and stops promptly. The thread then
                // has already left the count.
                if let Some(Job::Handoff(handoff)) = first.take() {
                    let rejoined = self.run_handoff(handoff, rt.as_ref());
                    debug_assert!(!rejoined, "no thread rejoins after shutdown");
                    return;
                }
                inner.exit_thread(inner.sleep.lock().unwrap());
                return;
            }
            let job = first.take().or_else(|| inner.next_job());
            if notified {
                // Step 5, before running this job (which may block).
                notified = false;
                // A failed thread spawn leaves the job to the threads
                // already here (this one among them), so it is no error.
                let _ = self.leave_notified(rt.as_ref(), true);
            }
            match job {
                // A queued job popped after shutdown is cancelled; the job
                // a thread was started for runs.
                Some(Job::Task(task)) if inner.is_shutdown.load(Ordering::Acquire) => task.cancel(),
                Some(Job::Task(task) | Job::Own(task)) => {
                    let _running = RunningOn::enter(inner);
                    task.run();
                }
                Some(Job::Handoff(handoff)) => {
                    if !self.run_handoff(handoff, rt.as_ref()) {
                        return;
                    }
                }
                None => {
                    if self.spin_for_job(&spin) {
                        notified = true;
                        continue;
                    }
                    let idle_since = spin.sleep_starts();
                    let woken = inner.wait_for_work();
                    spin.slept(idle_since);
                    match woken {
                        Woken::Notified => notified = true,
                        Woken::Itself => {}
                        Woken::Exit => return,
                    }
                }
            }
        }
    }

    /// Runs a worker loop outside the capped count. Returns `false` if the
    /// thread then exited rather than rejoin (no room, or shutdown).
    fn run_handoff(&self, handoff: Handoff, rt: Option<&scheduler::Handle>) -> bool {
        let inner = &*self.inner;
        inner.handoff_threads.fetch_add(1, Ordering::Relaxed);
        {
            let _sleep = inner.sleep.lock().unwrap();
            inner.counts.fetch_sub(THREAD_ONE, Ordering::SeqCst);
            inner.exited.notify_all();
        }
        // Leaving the count makes room under the cap, and a producer that
        // saw this thread counted and the pool full left its job to the
        // busy threads (spawning step 4), which this one no longer is. As
        // in step 5: look at the queue, and pass a job on. If the OS
        // refuses the thread and this one was the pool's last, the queued
        // jobs fail (spawning step 6): nobody here to tell, but their
        // `JoinHandle`s do.
        if inner.job_left_behind() {
            let _ = self.notify_one(rt, true);
        }
        handoff();
        inner.handoff_threads.fetch_sub(1, Ordering::Relaxed);
        let _sleep = inner.sleep.lock().unwrap();
        if inner.is_shutdown.load(Ordering::Acquire) {
            return false;
        }
        let mut counts = inner.load_counts();
        while counts.threads() < inner.config.max_threads {
            match inner.cas_counts(counts, Counts(counts.0 + THREAD_ONE)) {
                Ok(()) => {
                    // Its core may have been handed off again, which
                    // detached it: a pool thread again, shutdown waits for
                    // it (under the lock, before shutdown can wait).
                    inner.threads.attach_current();
                    return true;
                }
                Err(actual) => counts = actual,
            }
        }
        false
    }

    /// Threads in the pool (busy or idle), not counting threads that run a
    /// handed-off worker core.
    pub(crate) fn num_threads(&self) -> usize {
        self.inner.load_counts().threads()
    }

    /// Every thread the pool runs now: its own (`num_threads`) and those
    /// running a handed-off core. For a moment, as it takes the core, the
    /// thread is counted in both.
    pub(crate) fn num_threads_with_handoffs(&self) -> usize {
        self.num_threads() + self.inner.handoff_threads.load(Ordering::Relaxed)
    }

    /// Pool threads waiting for work (and not yet claimed for a new job).
    pub(crate) fn num_idle_threads(&self) -> usize {
        self.inner.load_counts().idle()
    }

    /// Blocking tasks waiting for a thread.
    pub(crate) fn queue_depth(&self) -> usize {
        self.inner.queue.len()
    }
}

impl Inner {
    fn load_counts(&self) -> Counts {
        Counts(self.counts.load(Ordering::SeqCst))
    }

    fn cas_counts(&self, current: Counts, next: Counts) -> Result<(), Counts> {
        self.counts
            .compare_exchange(current.0, next.0, Ordering::SeqCst, Ordering::SeqCst)
            .map(drop)
            .map_err(Counts)
    }

    /// Wakes the idle thread a producer just claimed.
    fn post_wakeup(&self) {
        let mut sleep = self.sleep.lock().unwrap();
        sleep.wakeups += 1;
        drop(sleep);
        self.wake.notify_one();
    }

    /// Step 1's push, and shutdown's re-check after it: `false` if the
    /// pool was shut down, the task then cancelled (shutdown may have
    /// drained the queue before the push landed).
    fn push_unless_shut_down(&self, task: Notified) -> bool {
        self.queue.push(task);
        fence(Ordering::SeqCst);
        if self.is_shutdown.load(Ordering::SeqCst) {
            self.cancel_queued();
            return false;
        }
        true
    }

    /// Refused step 3: cancels every queued job (their `JoinHandle`s
    /// yield `Cancelled`; an accepted mandatory job runs as it is dropped,
    /// here). The caller has found the pool without a thread, and is
    /// still counted notified: a producer pushing meanwhile leaves its
    /// job to it.
    fn fail_queued(&self) {
        while let Some(task) = steal_one(&self.queue) {
            task.cancel();
        }
    }

    /// Shutdown: cancels the queued jobs as `fail_queued` does, and drops
    /// the queued handed-off cores.
    fn cancel_queued(&self) {
        self.fail_queued();
        while let Some(handoff) = steal_one(&self.handoffs) {
            // The runtime's workers are gone; the core is dropped unrun.
            drop(handoff);
        }
    }

    fn next_job(&self) -> Option<Job> {
        if let Some(handoff) = steal_one(&self.handoffs) {
            return Some(Job::Handoff(handoff));
        }
        // Emptiness first: mostly empty, and a steal from an empty
        // injector costs a fence. Nothing depends on this look: each of
        // these jobs has its own thread coming.
        while !self.started.is_empty() {
            let Some(own) = steal_one(&self.started) else {
                break;
            };
            // A slot whose thread has already started holds nothing.
            if let Some(task) = own.lock().unwrap().take() {
                return Some(Job::Own(task));
            }
        }
        steal_one(&self.queue).map(Job::Task)
    }

    /// Whether a job is queued, looked at (SeqCst) just after this thread
    /// left a count that producers rely on (notified: spawning step 2;
    /// threads: step 4): a producer that saw it still counted pushed
    /// before that, so its job is seen here unless a thread took it.
    fn job_left_behind(&self) -> bool {
        fence(Ordering::SeqCst);
        !self.queue.is_empty()
    }

    fn has_work(&self) -> bool {
        !self.queue.is_empty() || !self.handoffs.is_empty()
    }

    /// Spawns a thread already counted in `threads`; on failure takes it
    /// off the count again.
    fn spawn_thread(
        &self,
        spawner: &Spawner,
        rt: Option<&scheduler::Handle>,
        start: Start,
    ) -> io::Result<()> {
        let pool = spawner.clone();
        let rt = rt.cloned();
        let handles = self.handles.clone();
        let spawned = self.threads.spawn_then(
            rt.clone(),
            move || pool.run_thread(rt, start),
            move |()| handles.exit_current(),
        );
        match spawned {
            Ok(thread) => {
                self.handles.file(thread);
                Ok(())
            }
            Err(error) => {
                self.exit_thread(self.sleep.lock().unwrap());
                Err(error)
            }
        }
    }

    /// Takes this thread off the count (the caller holds the lock).
    fn exit_thread(&self, _sleep: MutexGuard<'_, Sleep>) {
        self.counts.fetch_sub(THREAD_ONE, Ordering::SeqCst);
        // Shutdown may wait for zero threads, or for one (its own).
        self.exited.notify_all();
    }

    /// Goes idle until a job, shutdown or the keep-alive.
    fn wait_for_work(&self) -> Woken {
        let mut sleep = self.sleep.lock().unwrap();
        self.counts.fetch_add(IDLE_ONE, Ordering::SeqCst);
        fence(Ordering::SeqCst);
        // `None`: a keep-alive too long to represent, i.e. forever.
        let deadline = Instant::now().checked_add(self.config.keep_alive);
        let mut timed_out = false;
        loop {
            if sleep.wakeups > 0 {
                sleep.wakeups -= 1;
                return Woken::Notified;
            }
            let must_leave = self.is_shutdown.load(Ordering::SeqCst) || self.has_work();
            if must_leave {
                if self.leave_idle(false) {
                    return Woken::Itself;
                }
            } else if timed_out && self.leave_idle(true) {
                self.exited.notify_all();
                return Woken::Exit;
            }
            // Failing to leave means a producer claimed this thread: its
            // wake-up is on the way, and waits for this lock. Wait for it
            // without a deadline (spinning here would hold the lock).
            let claimed = must_leave || timed_out;
            match deadline {
                Some(deadline) if !claimed => {
                    let now = Instant::now();
                    if now < deadline {
                        sleep = self.wake.wait_timeout(sleep, deadline - now).unwrap().0;
                    }
                    timed_out = Instant::now() >= deadline;
                }
                _ => sleep = self.wake.wait(sleep).unwrap(),
            }
        }
    }

    /// Takes this thread off the idle count (and the thread count, if
    /// `exit`), unless a producer has claimed every idle thread.
    fn leave_idle(&self, exit: bool) -> bool {
        let dec = if exit {
            IDLE_ONE + THREAD_ONE
        } else {
            IDLE_ONE
        };
        let mut counts = self.load_counts();
        while counts.idle() > 0 {
            match self.cas_counts(counts, Counts(counts.0 - dec)) {
                Ok(()) => return true,
                Err(actual) => counts = actual,
            }
        }
        false
    }
}

#[cfg(not(loom))]
std::thread_local! {
    /// The pool whose blocking task this thread is running, if any.
    static RUNNING_ON: Cell<*const Inner> = const { Cell::new(std::ptr::null()) };
}

#[cfg(loom)]
loom::thread_local! {
    static RUNNING_ON: Cell<*const Inner> = Cell::new(std::ptr::null());
}

/// Marks this thread as running a task of a pool until dropped.
struct RunningOn;

impl RunningOn {
    fn enter(pool: &Inner) -> RunningOn {
        RUNNING_ON.with(|cell| cell.set(pool));
        RunningOn
    }
}

impl Drop for RunningOn {
    fn drop(&mut self) {
        let _ = RUNNING_ON.try_with(|cell| cell.set(std::ptr::null()));
    }
}

/// `true` if this thread is running a task of `pool` (and counts in it).
/// Reached from a runtime's drop, which may run in a thread-local
/// destructor: a thread whose locals are gone runs no task.
fn running_on(pool: &Inner) -> bool {
    RUNNING_ON
        .try_with(|cell| std::ptr::eq(cell.get(), pool))
        .unwrap_or(false)
}

impl fmt::Debug for Spawner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let counts = self.inner.load_counts();
        f.debug_struct("blocking::Spawner")
            .field("threads", &counts.threads())
            .field("idle", &counts.idle())
            .field("notified", &counts.notified())
            .field("config", &self.inner.config)
            .finish_non_exhaustive()
    }
}
