//! Waiting for a child to exit, and reaping children nobody waits for.
//!
//! A child is watched one of two ways, chosen at spawn:
//! - a pidfd (`pidfd_open`, Linux 5.3+) registered with the reactor: it
//!   turns readable when the child exits, so one child costs one
//!   descriptor and its exit wakes exactly its waiter;
//! - where the kernel refuses pidfds (`ENOSYS`, or `EPERM` under a seccomp
//!   filter; remembered after the first refusal), a `SIGCHLD` listener
//!   (the runtime's signal support): every delivery wakes the waiter,
//!   which then asks whether its own child is done.
//!
//! Either way the waiter never blocks and no thread is spent per child.
//! Waiting is always the same loop, which loses no exit:
//! 1. `try_wait` (`waitpid` with `WNOHANG`); an exit status is the answer;
//! 2. otherwise wait for the watch to fire (the pidfd to be readable, or
//!    a `SIGCHLD` delivery), registered before returning `Pending`;
//! 3. when it fires, go back to 1. The watch existed before step 1 ran,
//!    so an exit after that `try_wait` always fires it.
//! 4. a pidfd that fired while `try_wait` still finds no status (a traced
//!    child: its tracer collects the exit before the parent may) is
//!    replaced by a `SIGCHLD` listener, which the kernel fires once the
//!    tracer lets the exit through; then back to 1.
//! 5. a watch whose runtime shut down fails; if the wait runs on another
//!    runtime with I/O (a child spawned on one runtime and awaited on the
//!    next), the watch is made again there, then back to 1. A watch made
//!    on a runtime that is itself shutting down fails to register, so
//!    this never loops.
//!
//! A `Child` dropped before its exit was collected must still be reaped,
//! or it stays a zombie:
//! 1. `Child::drop` tries once; if the child still runs, its watch moves
//!    into a small task on the runtime that spawned it (an
//!    [`OrphanReaper`]), which waits as above and reaps it;
//! 2. if that task never finishes (the runtime shuts down first), its
//!    destructor parks the child in a process-wide orphan list;
//! 3. the orphan list is swept (a `try_wait` each) at every spawn and
//!    whenever a watched child's watch fires;
//! 4. and while the list is not empty, a thread of its own
//!    (`rt-orphan-reaper`) sweeps it at every `SIGCHLD`, so an orphan is
//!    reaped when it exits even if no runtime spawns or waits for anything
//!    again (tokio's orphan queue needs a later runtime's driver for
//!    this). The thread listens before its first sweep and leaves, under
//!    the list's lock, only once the list is empty; an orphan is checked
//!    and added under that lock too, so an exit after its check has its
//!    `SIGCHLD` come after it is listed, and is seen by a later sweep. If
//!    the OS refuses the thread, nothing fails: the sweeps of step 3 reap
//!    the orphans, and each tries to start the thread again.

use crate::io::registered::Registered;
use crate::runtime::context;
use crate::signal::unix::{Signal, SignalKind, signal};
use mio::event::Source;
use mio::unix::SourceFd;
use rt_reactor::{Direction, Interest};
use std::future::Future;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::pin::Pin;
use std::process::ExitStatus;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, ready};

/// How a child's exit is noticed.
pub(crate) enum ExitWatch {
    PidFd(Registered<PidFd>),
    Sigchld(Signal),
}

/// Which watch to use; tests force the fallback.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WatchKind {
    /// A pidfd where the kernel allows it, else `SIGCHLD`.
    Best,
    /// `SIGCHLD` only.
    #[cfg_attr(not(test), allow(dead_code))]
    Sigchld,
}

/// Set once the kernel refused a pidfd: later spawns go straight to the
/// `SIGCHLD` watch. (A plain std atomic, as the orphan list below is a std
/// mutex: process-wide statics that order nothing else, outside what the
/// loom models cover.)
static PIDFD_UNSUPPORTED: AtomicBool = AtomicBool::new(false);

impl ExitWatch {
    /// Starts watching the (unreaped) child `pid`.
    ///
    /// # Panics
    ///
    /// Panics outside a runtime with I/O enabled, naming the fix.
    #[track_caller]
    pub(crate) fn new(pid: u32, kind: WatchKind) -> io::Result<ExitWatch> {
        if kind == WatchKind::Best && !PIDFD_UNSUPPORTED.load(Ordering::Relaxed) {
            match open_pidfd(pid) {
                Ok(fd) => {
                    return Ok(ExitWatch::PidFd(Registered::new(
                        PidFd(fd),
                        Interest::READABLE,
                    )?));
                }
                Err(e) if matches!(e.raw_os_error(), Some(libc::ENOSYS | libc::EPERM)) => {
                    PIDFD_UNSUPPORTED.store(true, Ordering::Relaxed);
                }
                Err(e) => return Err(e),
            }
        }
        Ok(ExitWatch::Sigchld(signal(SignalKind::child())?))
    }

    /// Step 2 of the module docs: `Ready` once the watch fired (or failed:
    /// the runtime shut down).
    fn poll_fired(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self {
            ExitWatch::PidFd(fd) => {
                // Readable stays readable once the child exited: the
                // readiness is not cleared, so later polls return at once.
                ready!(fd.poll_ready(cx, Direction::Read))?;
                Poll::Ready(Ok(()))
            }
            // The signal stream ends when its runtime's driver is gone:
            // the same error as a pidfd's (`is_rt_shutdown_err`).
            ExitWatch::Sigchld(sigchld) => match ready!(sigchld.poll_recv(cx)) {
                Some(()) => Poll::Ready(Ok(())),
                None => Poll::Ready(Err(rt_reactor::shutdown_error())),
            },
        }
    }

    fn kind(&self) -> WatchKind {
        match self {
            ExitWatch::PidFd(_) => WatchKind::Best,
            ExitWatch::Sigchld(_) => WatchKind::Sigchld,
        }
    }
}

/// Whether the current runtime (if any) has an I/O driver, for a watch to
/// move to (step 5 of the module docs).
fn current_runtime_has_io() -> bool {
    context::with_current(|handle| handle.driver().reactor().is_some()).unwrap_or(false)
}

#[cfg(target_os = "linux")]
fn open_pidfd(pid: u32) -> io::Result<OwnedFd> {
    crate::io::sys::pidfd_open(pid)
}

#[cfg(not(target_os = "linux"))]
fn open_pidfd(_pid: u32) -> io::Result<OwnedFd> {
    Err(io::Error::from_raw_os_error(libc::ENOSYS))
}

/// A process file descriptor as a `mio` source.
#[derive(Debug)]
pub(crate) struct PidFd(OwnedFd);

impl Source for PidFd {
    fn register(
        &mut self,
        registry: &mio::Registry,
        token: mio::Token,
        interests: mio::Interest,
    ) -> io::Result<()> {
        SourceFd(&self.0.as_raw_fd()).register(registry, token, interests)
    }

    fn reregister(
        &mut self,
        registry: &mio::Registry,
        token: mio::Token,
        interests: mio::Interest,
    ) -> io::Result<()> {
        SourceFd(&self.0.as_raw_fd()).reregister(registry, token, interests)
    }

    fn deregister(&mut self, registry: &mio::Registry) -> io::Result<()> {
        SourceFd(&self.0.as_raw_fd()).deregister(registry)
    }
}

/// A running child and the watch on its exit.
pub(crate) struct Reapable {
    pub(crate) child: std::process::Child,
    watch: ExitWatch,
}

impl Reapable {
    pub(crate) fn new(child: std::process::Child, watch: ExitWatch) -> Reapable {
        Reapable { child, watch }
    }

    /// The loop of the module docs.
    pub(crate) fn poll_exit(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<ExitStatus>> {
        loop {
            if let Some(status) = self.child.try_wait()? {
                return Poll::Ready(Ok(status));
            }
            if let Err(error) = ready!(self.watch.poll_fired(cx)) {
                // Step 5: the watch's runtime shut down, and this wait runs
                // on another one (a child spawned on one runtime, awaited
                // on the next): watch from there.
                if rt_reactor::is_shutdown_error(&error) && current_runtime_has_io() {
                    let pid = self.child.id();
                    self.watch = ExitWatch::new(pid, self.watch.kind())?;
                    continue;
                }
                return Poll::Ready(Err(error));
            }
            sweep_orphans();
            if let ExitWatch::Sigchld(_) = self.watch {
                // A delivery was consumed: step 1 again, then wait for the
                // next one. (A pidfd fired once is fired for good; its
                // child is reaped at step 1.)
                continue;
            }
            if let Some(status) = self.child.try_wait()? {
                return Poll::Ready(Ok(status));
            }
            // Step 4: the pidfd fired (the child exited), yet `waitpid`
            // has no status for it: the child is traced (`strace -f`, a
            // debugger), and its tracer collects the exit first; the parent
            // can reap it only after that, and the kernel then sends the
            // parent `SIGCHLD`. (A child reaped by other code makes
            // `try_wait` fail with `ECHILD` instead.) The pidfd stays
            // readable, so it can tell nothing more: watch `SIGCHLD` from
            // now on, listening before the `try_wait` of step 1 again.
            self.watch = ExitWatch::Sigchld(signal(SignalKind::child())?);
        }
    }
}

/// A dropped `Child` still running: reaps it in the background (step 1 of
/// the orphan protocol).
pub(crate) struct OrphanReaper(Option<Reapable>);

impl OrphanReaper {
    pub(crate) fn new(reapable: Reapable) -> OrphanReaper {
        OrphanReaper(Some(reapable))
    }
}

impl Future for OrphanReaper {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let Some(reapable) = self.0.as_mut() else {
            return Poll::Ready(());
        };
        // On an error (the watch failed: the runtime is shutting down) the
        // child stays here and goes to the orphan list when this reaper is
        // dropped.
        if ready!(reapable.poll_exit(cx)).is_ok() {
            self.0 = None;
        }
        Poll::Ready(())
    }
}

impl Drop for OrphanReaper {
    fn drop(&mut self) {
        if let Some(reapable) = self.0.take() {
            adopt_orphan(reapable.child);
        }
    }
}

/// Children whose reaper could not finish (step 2 of the orphan protocol),
/// and whether the thread of step 4 runs.
static ORPHANS: Mutex<Orphans> = Mutex::new(Orphans {
    children: Vec::new(),
    thread_running: false,
});

struct Orphans {
    children: Vec<std::process::Child>,
    /// The `rt-orphan-reaper` thread runs (and will sweep again before it
    /// leaves); set and cleared under the lock.
    thread_running: bool,
}

impl Orphans {
    /// Reaps every orphan that has exited.
    fn sweep(&mut self) {
        // An error means the child is gone from under us: nothing to reap.
        self.children
            .retain_mut(|child| matches!(child.try_wait(), Ok(None)));
    }

    /// Step 4: starts the thread while orphans wait and it does not run.
    /// If the OS refuses it (or the `SIGCHLD` handler), the orphans wait
    /// for the sweeps of step 3, each of which tries again.
    fn start_thread_if_needed(&mut self) {
        if !self.children.is_empty() && !self.thread_running {
            self.thread_running = start_orphan_thread();
        }
    }
}

/// Parks `child` in the orphan list unless it can be reaped now.
pub(crate) fn adopt_orphan(mut child: std::process::Child) {
    let mut orphans = lock_orphans();
    // Checked under the lock: see step 4 of the orphan protocol.
    if let Ok(None) = child.try_wait() {
        orphans.children.push(child);
        orphans.start_thread_if_needed();
    }
}

/// Step 4 of the orphan protocol. Whether the thread started: without it
/// (no thread or no `SIGCHLD` handler to be had) the orphans wait for the
/// sweeps of step 3, which try to start it again.
fn start_orphan_thread() -> bool {
    let sigchld = match signal_hook::iterator::Signals::new([libc::SIGCHLD]) {
        Ok(sigchld) => sigchld,
        Err(_) => return false,
    };
    #[cfg(test)]
    if REFUSE_REAPER_THREAD.with(|cell| cell.get()) {
        return false;
    }
    std::thread::Builder::new()
        .name("rt-orphan-reaper".into())
        .spawn(move || reap_orphans_until_none_left(sigchld))
        .is_ok()
}

/// The `rt-orphan-reaper` thread: `sigchld` listened before the first sweep,
/// so no exit after it goes unseen.
fn reap_orphans_until_none_left(mut sigchld: signal_hook::iterator::Signals) {
    loop {
        {
            let mut orphans = lock_orphans();
            orphans.sweep();
            if orphans.children.is_empty() {
                orphans.thread_running = false;
                return;
            }
        }
        // Blocks until a delivery (several may come as one: the sweep
        // looks at every orphan).
        sigchld.wait().for_each(drop);
    }
}

/// Step 3 of the orphan protocol: reaps every orphan that has exited,
/// and starts the thread of step 4 for those left if an earlier start
/// was refused.
pub(crate) fn sweep_orphans() {
    let mut orphans = lock_orphans();
    orphans.sweep();
    orphans.start_thread_if_needed();
}

fn lock_orphans() -> std::sync::MutexGuard<'static, Orphans> {
    // A panic while the lock was held cannot leave the list inconsistent.
    ORPHANS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// How many orphans wait to be reaped (for tests; not under Miri, which
/// cannot spawn processes).
#[cfg(all(test, not(miri)))]
pub(crate) fn orphan_count() -> usize {
    lock_orphans().children.len()
}

/// Whether the `rt-orphan-reaper` thread runs (for the process tests,
/// which Miri cannot run).
#[cfg(all(test, not(miri)))]
pub(crate) fn reaper_thread_running() -> bool {
    lock_orphans().thread_running
}

#[cfg(test)]
std::thread_local! {
    /// Tests only: the reaper thread is refused, as by the OS, when this
    /// thread is the one starting it (per thread, so that other tests
    /// orphaning children meanwhile are not refused).
    static REFUSE_REAPER_THREAD: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// See `REFUSE_REAPER_THREAD`.
#[cfg(all(test, not(miri)))]
pub(crate) fn refuse_reaper_thread(refuse: bool) {
    REFUSE_REAPER_THREAD.with(|cell| cell.set(refuse));
}
