//! Steady state: an operation repeated many times must not grow the
//! process's live allocations or bytes, open descriptors, threads, unreaped
//! children, or the runtime's pending timers and I/O registrations.
//!
//! A counting `#[global_allocator]` tracks live memory process-wide, so the
//! cases run in sequence inside one `#[test]`: a second test thread
//! allocating at the same time would blur every measurement. Each case runs
//! its operation a number of rounds to warm up (slabs, queues, pools and
//! wheels grow to their high-water marks), then two measured windows of as
//! many rounds; memory that grows in both windows by a fraction of an
//! allocation, or a few bytes, per round is a leak. The last part builds
//! and drops busy runtimes and expects the process back where it was.
//! The `rt::hyper` cases run with `--features hyper`. The cases are in
//! this directory's modules, by area; the measuring is here.

use std::alloc::{GlobalAlloc, Layout, System};
use std::future::Future;
use std::sync::atomic::{AtomicIsize, Ordering};
use std::time::Duration;

use rt::runtime::{Builder, Runtime, RuntimeFlavor};

mod channels;
#[cfg(feature = "hyper")]
mod http;
mod io;
mod long_lived;
mod tasks;

struct Counting;

static LIVE_ALLOCATIONS: AtomicIsize = AtomicIsize::new(0);
static LIVE_BYTES: AtomicIsize = AtomicIsize::new(0);

// SAFETY: every method forwards to `System` with the caller's arguments
// unchanged, so `System`'s guarantees hold; the counter has no bearing on
// the memory handed out.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller upholds `alloc`'s contract, passed on as is.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            LIVE_ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
            LIVE_BYTES.fetch_add(layout.size() as isize, Ordering::Relaxed);
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller upholds `alloc_zeroed`'s contract, passed on.
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if !ptr.is_null() {
            LIVE_ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
            LIVE_BYTES.fetch_add(layout.size() as isize, Ordering::Relaxed);
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator, which is `System`.
        unsafe { System.dealloc(ptr, layout) };
        LIVE_ALLOCATIONS.fetch_sub(1, Ordering::Relaxed);
        LIVE_BYTES.fetch_sub(layout.size() as isize, Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` came from this allocator, which is `System`; the
        // caller upholds the rest of `realloc`'s contract. A reallocation
        // keeps the count: one block out, one block in.
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            LIVE_BYTES.fetch_add(
                new_size as isize - layout.size() as isize,
                Ordering::Relaxed,
            );
        }
        new
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// How many times each operation runs between the two readings.
const ROUNDS: usize = 200;

/// What the process holds at one moment.
#[derive(Debug, Clone, Copy)]
struct Reading {
    allocations: isize,
    bytes: isize,
    descriptors: usize,
    threads: usize,
    /// Of `threads`, the runtime's blocking-pool threads (0 where no
    /// runtime is measured).
    pool_threads: usize,
    /// Child processes not yet reaped, running or zombie.
    children: usize,
}

fn count_dir(path: &str) -> usize {
    std::fs::read_dir(path).expect("reading /proc").count()
}

/// Waits until the process is down to `threads` threads. After
/// `shutdown_background`, and even after a plain drop, a worker may still
/// be on its way out, holding the runtime's driver and its descriptors
/// until it exits.
fn wait_for_threads(threads: usize) {
    let mut spins = 0;
    while count_dir("/proc/self/task") > threads {
        spins += 1;
        assert!(spins < 10_000_000, "a runtime's threads never exited");
        std::thread::yield_now();
    }
}

/// Waits until every worker of a multi-thread `runtime` is asleep. A worker
/// looking for work pins crossbeam-epoch (to steal), and while it is pinned
/// the garbage `reading` pins to collect cannot be freed: on a loaded
/// machine a worker preempted mid-steal left a 2072-byte bag of retired
/// records standing in a window's reading.
fn wait_for_parked_workers(runtime: &Runtime) {
    if runtime.handle().runtime_flavor() != RuntimeFlavor::MultiThread {
        return;
    }
    let metrics = runtime.metrics();
    let awake = |worker| metrics.worker_park_unpark_count(worker) % 2 == 0;
    let mut spins = 0;
    while (0..metrics.num_workers()).any(awake) {
        spins += 1;
        assert!(spins < 10_000_000, "a worker never went to sleep");
        std::thread::yield_now();
    }
}

fn count_children() -> usize {
    std::fs::read_dir("/proc/self/task")
        .expect("reading /proc")
        .map(|task| {
            let path = task.expect("reading /proc").path().join("children");
            std::fs::read_to_string(path)
                .map(|pids| pids.split_whitespace().count())
                .unwrap_or(0)
        })
        .sum()
}

fn reading() -> Reading {
    // Read the directories first: their own allocations are freed before
    // memory is read.
    let descriptors = count_dir("/proc/self/fd");
    let threads = count_dir("/proc/self/task");
    let children = count_children();
    // The work-stealing deques free through crossbeam-epoch, which frees
    // lazily: an exited worker's epoch record and its bag of retired deque
    // buffers wait for some thread to pin and collect. A window ending just
    // after a runtime's workers exited would count a record and a bag
    // (4376 bytes) as a leak; pinning here lets them go first. Collecting
    // keeps garbage of its own in flight: each bag it frees defers its own
    // node, so every flush pushes a fresh 2072-byte bag, and one or two
    // stand at a time, alternating flush by flush. Memory is the lowest
    // of the last flushes' readings, whichever phase the last one ended in.
    for _ in 0..48 {
        crossbeam_epoch::pin().flush();
    }
    let (mut allocations, mut bytes) = (isize::MAX, isize::MAX);
    for _ in 0..16 {
        crossbeam_epoch::pin().flush();
        let now = LIVE_BYTES.load(Ordering::SeqCst);
        if now < bytes {
            bytes = now;
            allocations = LIVE_ALLOCATIONS.load(Ordering::SeqCst);
        }
    }
    Reading {
        allocations,
        bytes,
        descriptors,
        threads,
        pool_threads: 0,
        children,
    }
}

/// Runs `round` `ROUNDS` times.
fn steady<F>(name: &str, runtime: &Runtime, round: impl FnMut() -> F)
where
    F: Future<Output = ()>,
{
    steady_for(ROUNDS, name, runtime, round);
}

/// Runs `round` `rounds` times to warm up (queues and slabs reach their
/// high-water marks), then two windows of `rounds` more, and fails if
/// memory grew in both (a leak grows in every window, a buffer reaching a
/// new capacity seldom twice in a row), or if timers, registrations,
/// descriptors, threads or children were left behind. Windows in which
/// the blocking pool grew, or two in a row in which memory did, are
/// replaced by later ones, a few times at most.
fn steady_for<F>(rounds: usize, name: &str, runtime: &Runtime, mut round: impl FnMut() -> F)
where
    F: Future<Output = ()>,
{
    let mut window = || {
        let alive = runtime.metrics().num_alive_tasks();
        for _ in 0..rounds {
            runtime.block_on(round());
        }
        runtime.block_on(settle_to(alive));
        wait_for_parked_workers(runtime);
        Reading {
            pool_threads: runtime.metrics().num_blocking_threads(),
            ..reading()
        }
    };
    let metrics = runtime.metrics();
    let start = window();
    let (timers, registrations) = (
        metrics.num_pending_timers(),
        metrics.io_driver_registrations(),
    );
    let (mut start, mut middle, mut end) = (start, window(), window());
    // A window in which the blocking pool started a thread is not steady:
    // the thread's own allocations (its handle, name, thread-locals) show
    // as growth. The pool can start one when a job's caller runs its next
    // job before the last job's thread is idle again, which a loaded
    // machine makes likely; windows are taken until two in a row start
    // none, or a few more have passed (a pool that never stops starting
    // threads then fails below).
    //
    // So is a window in which a buffer reached a new capacity: the
    // reactor's table of registrations, for one, grows while the
    // registrations dropped since the driver's last turn wait for its
    // next one (`reactor`'s released cells), and on a loaded machine,
    // where the driver thread may not run for a while, that backlog can
    // reach a new high in two windows in a row. A leak grows in every
    // window; a high-water mark stops: windows are taken until one of two
    // in a row grew by less than the bound below, or a few more passed.
    let grew = |a: &Reading, b: &Reading| {
        b.allocations - a.allocations >= (rounds / 10) as isize
            || b.bytes - a.bytes >= (rounds * 8) as isize
    };
    for _ in 0..6 {
        let pool_steady =
            start.pool_threads == middle.pool_threads && middle.pool_threads == end.pool_threads;
        if pool_steady && !(grew(&start, &middle) && grew(&middle, &end)) {
            break;
        }
        (start, middle, end) = (middle, end, window());
    }
    eprintln!("{name}: {start:?} -> {middle:?} -> {end:?}");
    assert!(
        metrics.num_pending_timers() <= timers,
        "{name}: timers {timers} -> {}",
        metrics.num_pending_timers()
    );
    assert!(
        metrics.io_driver_registrations() <= registrations,
        "{name}: registrations {registrations} -> {}",
        metrics.io_driver_registrations()
    );
    let allocations =
        (middle.allocations - start.allocations).min(end.allocations - middle.allocations);
    assert!(
        allocations < (rounds / 10) as isize,
        "{name}: {allocations} allocations left per {rounds} rounds: {start:?} -> {middle:?} -> {end:?}"
    );
    let bytes = (middle.bytes - start.bytes).min(end.bytes - middle.bytes);
    assert!(
        bytes < (rounds * 8) as isize,
        "{name}: {bytes} bytes left per {rounds} rounds: {start:?} -> {middle:?} -> {end:?}"
    );
    start.assert_no_more_handles(name, rounds, end);
}

impl Reading {
    /// Fails if `after`, taken later, holds more descriptors, threads or
    /// children.
    fn assert_no_more_handles(self, name: &str, rounds: usize, after: Reading) {
        assert!(
            after.descriptors <= self.descriptors,
            "{name}: descriptors {} -> {}",
            self.descriptors,
            after.descriptors
        );
        // A blocking job's caller wakes before the pool thread that ran
        // the job is idle again, so its next job may start another thread;
        // on a loaded machine that can happen again and again, so the
        // pool's threads are bounded apart (a pool starting a thread per
        // job would show one per round). The others may be up by an orphan
        // reaper and a retired pool thread still on its way out.
        let others = |reading: Reading| reading.threads.saturating_sub(reading.pool_threads);
        assert!(
            others(after) <= others(self) + 2,
            "{name}: threads outside the blocking pool {} -> {}",
            others(self),
            others(after)
        );
        assert!(
            after.pool_threads <= self.pool_threads + rounds / 5,
            "{name}: blocking-pool threads {} -> {}",
            self.pool_threads,
            after.pool_threads
        );
        // The last round's child may not be reaped yet.
        assert!(
            after.children <= self.children + 2,
            "{name}: unreaped children {} -> {}",
            self.children,
            after.children
        );
    }
}

/// Lets aborted and detached tasks, here or on other workers, run to their
/// end and free their state.
async fn settle() {
    settle_to(0).await;
}

/// As `settle`, until no more than `alive` tasks are left (those a case
/// keeps for all its rounds, a server's accept loop say). Gives up after a
/// bounded number of yields, so a task that never ends shows up as a leak
/// rather than a hang; every 64 it yields the thread too, so that a worker
/// a loaded machine preempted gets to finish its task (a server's
/// connection task still alive after 10,000 yields of this thread alone
/// once left its socket's registration in a reading).
async fn settle_to(alive: usize) {
    let metrics = rt::runtime::Handle::current().metrics();
    for i in 0..10_000 {
        if metrics.num_alive_tasks() <= alive {
            break;
        }
        if i % 64 == 63 {
            std::thread::yield_now();
        }
        rt::task::yield_now().await;
    }
    for _ in 0..10 {
        rt::task::yield_now().await;
    }
}

fn multi_thread() -> Runtime {
    Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        // A worker registers with crossbeam-epoch (one 2304-byte record,
        // kept until the thread exits) at its first steal, which may come
        // in any window, and for each worker in a different one; pinning
        // at the thread's start moves that into the build.
        .on_thread_start(|| drop(crossbeam_epoch::pin()))
        .build()
        .expect("building the runtime")
}

fn current_thread() -> Runtime {
    Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("building the runtime")
}

#[test]
fn repeated_operations_hold_steady() {
    let before_any = reading();
    for runtime in [current_thread(), multi_thread()] {
        tasks::tasks(&runtime);
        tasks::timers(&runtime);
        channels::channels(&runtime);
        io::sockets(&runtime);
        io::processes(&runtime);
        long_lived::long_lived(&runtime);
        #[cfg(feature = "hyper")]
        http::connections(&runtime);
        drop(runtime);
    }
    wait_for_threads(before_any.threads);
    let after_all = reading();
    assert!(
        after_all.descriptors <= before_any.descriptors,
        "{before_any:?} -> {after_all:?}"
    );

    let multi = multi_thread();
    steady("block_in_place", &multi, || async {
        rt::task::block_in_place(|| ());
    });
    drop(multi);

    let paused = Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .unwrap();
    steady("paused clock advance", &paused, || async {
        let mut sleep = Box::pin(rt::time::sleep(Duration::from_secs(10)));
        let _ = futures::poll!(sleep.as_mut());
        rt::time::advance(Duration::from_secs(5)).await;
        drop(sleep);
        rt::time::sleep(Duration::from_secs(1)).await;
    });
    drop(paused);

    // Building and dropping a runtime gives back what it took, threads,
    // descriptors and memory, apart from thread-locals the first one set,
    // however its tasks were left: pending on sockets, timers and
    // channels, queued, blocked, or still to be handed a blocking thread.
    let busy_runtime = |build: fn() -> Runtime, ends: u8| {
        let threads = count_dir("/proc/self/task");
        let runtime = build();
        let handle = runtime.handle().clone();
        let keep_tx = runtime.block_on(async {
            rt::spawn(async {}).await.unwrap();
            rt::spawn_blocking(|| ()).await.unwrap();
            rt::time::sleep(Duration::ZERO).await;
            let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let (tx, rx) = rt::sync::mpsc::channel::<()>(1);
            let (keep_tx, keep_rx) = rt::sync::oneshot::channel::<()>();
            rt::spawn(async move {
                let _tx = tx;
                let _ = listener.accept().await;
            });
            let stream = rt::net::TcpStream::connect(addr).await.unwrap();
            rt::spawn(async move {
                let _stream = stream;
                let _rx = rx;
                let _ = keep_rx.await;
            });
            rt::spawn(rt::time::sleep(Duration::from_secs(60)));
            let blocked = rt::spawn(std::future::pending::<()>());
            rt::spawn(blocked);
            let local = rt::task::LocalSet::new();
            local.spawn_local(std::future::pending::<()>());
            drop(local);
            keep_tx
        });
        handle.spawn(async {});
        match ends {
            0 => drop(runtime),
            1 => runtime.shutdown_background(),
            _ => runtime.shutdown_timeout(Duration::from_secs(5)),
        }
        if ends != 0 {
            // The workers finish on their own (after `shutdown_timeout`,
            // those that outlived it on a loaded machine): wait until they
            // are gone.
            let mut spins = 0;
            while count_dir("/proc/self/task") > threads {
                spins += 1;
                assert!(spins < 1_000_000, "the runtime's threads never exited");
                std::thread::yield_now();
            }
        }
        // Outlives the runtime: its task is still waiting when it goes.
        drop(keep_tx);
    };
    // A dropped multi-thread runtime's last frees can land after `drop`
    // returns (its threads finish on their own), so memory is judged as in
    // `steady_for`: it must not grow in both of two windows.
    let window = || {
        for _ in 0..10 {
            for ends in 0..3 {
                busy_runtime(multi_thread, ends);
                busy_runtime(current_thread, ends);
            }
        }
        reading()
    };
    let start = window();
    let middle = window();
    let end = window();
    eprintln!("runtime build and drop: {start:?} -> {middle:?} -> {end:?}");
    let allocations =
        (middle.allocations - start.allocations).min(end.allocations - middle.allocations);
    let bytes = (middle.bytes - start.bytes).min(end.bytes - middle.bytes);
    assert!(
        allocations < 10 && bytes < 1024,
        "runtime build and drop: {start:?} -> {middle:?} -> {end:?}"
    );
    start.assert_no_more_handles("runtime build and drop", 10, end);
}
