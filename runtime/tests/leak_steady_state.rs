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
//! The `rt::hyper` cases run with `--features hyper`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::future::Future;
use std::sync::atomic::{AtomicIsize, Ordering};
use std::time::Duration;

use rt::runtime::{Builder, Runtime};

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
    // the allocation count is taken.
    let descriptors = count_dir("/proc/self/fd");
    let threads = count_dir("/proc/self/task");
    let children = count_children();
    Reading {
        allocations: LIVE_ALLOCATIONS.load(Ordering::SeqCst),
        bytes: LIVE_BYTES.load(Ordering::SeqCst),
        descriptors,
        threads,
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
/// new capacity in one at most), or if timers, registrations, descriptors,
/// threads or children were left behind.
fn steady_for<F>(rounds: usize, name: &str, runtime: &Runtime, mut round: impl FnMut() -> F)
where
    F: Future<Output = ()>,
{
    let mut window = || {
        for _ in 0..rounds {
            runtime.block_on(round());
        }
        runtime.block_on(settle());
        reading()
    };
    let metrics = runtime.metrics();
    let start = window();
    let (timers, registrations) = (
        metrics.num_pending_timers(),
        metrics.io_driver_registrations(),
    );
    let middle = window();
    let end = window();
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
    start.assert_no_more_handles(name, end);
}

impl Reading {
    /// Fails if `after`, taken later, holds more descriptors, threads or
    /// children.
    fn assert_no_more_handles(self, name: &str, after: Reading) {
        assert!(
            after.descriptors <= self.descriptors,
            "{name}: descriptors {} -> {}",
            self.descriptors,
            after.descriptors
        );
        // A blocking job's caller can wake before its pool thread is idle
        // again, so the next job may start one more thread, and the last
        // round's child may not be reaped yet; a leak would show as one
        // per round.
        assert!(
            after.threads <= self.threads + 2,
            "{name}: threads {} -> {}",
            self.threads,
            after.threads
        );
        assert!(
            after.children <= self.children + 2,
            "{name}: unreaped children {} -> {}",
            self.children,
            after.children
        );
    }
}

/// Lets aborted and detached tasks, here or on other workers, run to their
/// end and free their state; gives up after a bounded number of yields so a
/// task that never ends shows up as a leak rather than a hang.
async fn settle() {
    let metrics = rt::runtime::Handle::current().metrics();
    for _ in 0..10_000 {
        if metrics.num_alive_tasks() == 0 {
            break;
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
        tasks(&runtime);
        timers(&runtime);
        channels(&runtime);
        sockets(&runtime);
        processes(&runtime);
        long_lived(&runtime);
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
    let busy_runtime = |runtime: Runtime, ends: u8| {
        let threads = count_dir("/proc/self/task");
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
            1 => {
                runtime.shutdown_background();
                // Its workers finish on their own: wait until they are gone.
                let mut spins = 0;
                while count_dir("/proc/self/task") > threads {
                    spins += 1;
                    assert!(
                        spins < 1_000_000,
                        "shutdown_background left threads running"
                    );
                    std::thread::yield_now();
                }
            }
            _ => runtime.shutdown_timeout(Duration::from_secs(5)),
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
                busy_runtime(multi_thread(), ends);
                busy_runtime(current_thread(), ends);
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
    start.assert_no_more_handles("runtime build and drop", end);
}

/// Objects a server keeps for its whole life, used over and over: whatever
/// each use leaves behind accumulates in them.
fn long_lived(runtime: &Runtime) {
    use futures::io::AsyncWriteExt;
    use rt::net::{TcpListener, TcpStream, UdpSocket};

    let set = rt::sync::Mutex::new(rt::task::JoinSet::new());
    steady("long-lived join set: spawn and join", runtime, || async {
        let mut set = set.lock().await;
        set.spawn(async {});
        set.spawn_blocking(|| {});
        let abort = set.spawn(std::future::pending());
        abort.abort();
        for _ in 0..3 {
            let _ = set.join_next().await.unwrap();
        }
        set.spawn(async {});
        rt::task::yield_now().await;
        while set.try_join_next().is_none() && !set.is_empty() {
            rt::task::yield_now().await;
        }
    });
    drop(set);

    let local = rt::task::LocalSet::new();
    steady("long-lived local set", runtime, || {
        let local = &local;
        async move {
            let done = local.spawn_local(async {});
            local.run_until(done).await.unwrap();
            drop(local.spawn_local(async {}));
            let pending = local.spawn_local(std::future::pending::<()>());
            pending.abort();
            let _ = local.run_until(pending).await;
        }
    });
    drop(local);

    let (listener, client, server, udp) = runtime.block_on(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let (server, _) = listener.accept().await.unwrap();
        let udp = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        (listener, client, server, udp)
    });
    let client = rt::sync::Mutex::new(client);
    steady(
        "long-lived sockets: readiness waits dropped",
        runtime,
        || async {
            let _ = futures::poll!(Box::pin(listener.accept()));
            let _ = futures::poll!(Box::pin(server.readable()));
            let mut buf = [0; 8];
            let _ = futures::poll!(Box::pin(udp.recv_from(&mut buf)));
            let _ = futures::poll!(Box::pin(udp.readable()));
            let _ = futures::poll!(Box::pin(
                client.lock().await.ready(rt::io::Interest::READABLE)
            ));
        },
    );
    steady(
        "long-lived sockets: readiness waits woken",
        runtime,
        || async {
            let readable = server.readable();
            client.lock().await.write_all(b"x").await.unwrap();
            readable.await.unwrap();
            let mut buf = [0; 8];
            server.try_read(&mut buf).unwrap();
        },
    );
    drop((listener, client, server, udp));

    let interval = runtime.block_on(async {
        let mut interval = rt::time::interval(Duration::from_secs(60));
        interval.tick().await;
        interval
    });
    let interval = rt::sync::Mutex::new(interval);
    steady(
        "long-lived interval: tick dropped and reset",
        runtime,
        || async {
            let mut interval = interval.lock().await;
            let _ = futures::poll!(Box::pin(interval.tick()));
            interval.reset();
        },
    );
    drop(interval);

    let (tx, rx) = rt::sync::broadcast::channel::<u8>(4);
    let rx = rt::sync::Mutex::new(rx);
    steady(
        "long-lived broadcast: lagging receiver",
        runtime,
        || async {
            for i in 0..8 {
                tx.send(i).unwrap();
            }
            let mut rx = rx.lock().await;
            while rx.try_recv().is_ok() || !rx.is_empty() {}
            let _ = futures::poll!(Box::pin(rx.recv()));
        },
    );
    drop((tx, rx));

    let notify = rt::sync::Notify::new();
    steady(
        "long-lived notify: notified dropped after notify_one",
        runtime,
        || {
            let notify = &notify;
            async move {
                let mut first = Box::pin(notify.notified());
                let _ = futures::poll!(first.as_mut());
                notify.notify_one();
                drop(first);
                notify.notified().await;
            }
        },
    );

    let signal = runtime.block_on(async {
        rt::signal::unix::signal(rt::signal::unix::SignalKind::user_defined2()).unwrap()
    });
    let signal = rt::sync::Mutex::new(signal);
    steady("long-lived signal: recv dropped", runtime, || async {
        let _ = futures::poll!(Box::pin(signal.lock().await.recv()));
    });
    drop(signal);

    let child = runtime.block_on(async {
        rt::process::Command::new("cat")
            .stdin(std::process::Stdio::piped())
            .spawn()
    });
    let child = rt::sync::Mutex::new(child.unwrap());
    steady("long-lived child: wait dropped", runtime, || async {
        let _ = futures::poll!(Box::pin(child.lock().await.wait()));
    });
    let mut child = child.into_inner();
    drop(child.stdin.take());
    assert!(runtime.block_on(child.wait()).unwrap().success());
}

fn processes(runtime: &Runtime) {
    steady_for(50, "process spawn and wait", runtime, || async {
        let status = rt::process::Command::new("true").status().await.unwrap();
        assert!(status.success());
    });
    steady_for(50, "process with piped output", runtime, || async {
        let output = rt::process::Command::new("echo")
            .arg("x")
            .output()
            .await
            .unwrap();
        assert_eq!(output.stdout, b"x\n");
    });
    steady_for(50, "process child dropped", runtime, || async {
        let child = rt::process::Command::new("true").spawn().unwrap();
        drop(child);
    });
    let dir = std::env::temp_dir().join(format!("rt-leak-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("file");
    steady_for(50, "fs write and read", runtime, || {
        let path = &path;
        async move {
            rt::fs::write(path, b"data").await.unwrap();
            assert_eq!(rt::fs::read(path).await.unwrap(), b"data");
            let file = rt::fs::File::open(path).await.unwrap();
            drop(file);
        }
    });
    std::fs::remove_dir_all(&dir).unwrap();
}

fn tasks(runtime: &Runtime) {
    steady("spawn and complete", runtime, || async {
        rt::spawn(async {}).await.unwrap();
    });
    steady("abort before the first poll", runtime, || async {
        let handle = rt::spawn(async {});
        handle.abort();
        let _ = handle.await;
    });
    steady("abort while pending", runtime, || async {
        let handle = rt::spawn(std::future::pending::<()>());
        rt::task::yield_now().await;
        handle.abort();
        assert!(handle.await.unwrap_err().is_cancelled());
    });
    steady("abort from another thread", runtime, || async {
        let handle = rt::spawn(std::future::pending::<()>());
        let abort = handle.abort_handle();
        std::thread::spawn(move || abort.abort()).join().unwrap();
        assert!(handle.await.unwrap_err().is_cancelled());
    });
    steady("detached task", runtime, || async {
        let (tx, rx) = rt::sync::oneshot::channel();
        drop(rt::spawn(async move { tx.send(()).unwrap() }));
        rx.await.unwrap();
    });
    steady("join set abort_all", runtime, || async {
        let mut set = rt::task::JoinSet::new();
        for _ in 0..4 {
            set.spawn(std::future::pending::<()>());
        }
        set.spawn(async {});
        set.abort_all();
        while set.join_next().await.is_some() {}
    });
    steady("join set dropped", runtime, || async {
        let mut set = rt::task::JoinSet::new();
        for _ in 0..4 {
            set.spawn(std::future::pending::<()>());
        }
        drop(set);
        // Not a backlog of aborted tasks: the run queues' high-water mark
        // would vary with how far behind the workers fall.
        settle().await;
    });
    steady("join set detach_all", runtime, || async {
        let mut set = rt::task::JoinSet::new();
        let (tx, rx) = rt::sync::oneshot::channel();
        set.spawn(async move { tx.send(()).unwrap() });
        set.detach_all();
        rx.await.unwrap();
    });
    steady("spawn_blocking", runtime, || async {
        rt::spawn_blocking(|| ()).await.unwrap();
    });
    steady("spawn aborted mid-poll", runtime, || async {
        let (tx, rx) = std::sync::mpsc::channel();
        let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
        let handle = rt::spawn(async move {
            let abort: rt::task::AbortHandle = rx.recv().unwrap();
            abort.abort();
            drop(go_tx);
            rt::task::yield_now().await;
        });
        tx.send(handle.abort_handle()).unwrap();
        let _ = handle.await;
        let _ = go_rx.recv();
    });
    steady("task waker kept past completion", runtime, || async {
        let waker = rt::spawn(std::future::poll_fn(|cx| {
            std::task::Poll::Ready(cx.waker().clone())
        }))
        .await
        .unwrap();
        waker.wake();
    });
    steady("local set", runtime, || async {
        let local = rt::task::LocalSet::new();
        local
            .run_until(async {
                rt::task::spawn_local(async {}).await.unwrap();
                drop(rt::task::spawn_local(std::future::pending::<()>()));
            })
            .await;
    });
    rt::task_local! {
        static VALUE: Vec<u8>;
    }
    steady("task local scope", runtime, || async {
        VALUE.scope(vec![1; 16], rt::task::yield_now()).await;
    });
}

fn timers(runtime: &Runtime) {
    steady("sleep dropped before firing", runtime, || async {
        let mut sleep = Box::pin(rt::time::sleep(Duration::from_secs(60)));
        let _ = futures::poll!(sleep.as_mut());
    });
    steady("sleep reset", runtime, || async {
        let mut sleep = Box::pin(rt::time::sleep(Duration::from_secs(60)));
        for i in 0..10 {
            let _ = futures::poll!(sleep.as_mut());
            sleep
                .as_mut()
                .reset(rt::time::Instant::now() + Duration::from_secs(60 + i));
        }
    });
    steady("timeout around a ready future", runtime, || async {
        rt::time::timeout(Duration::from_secs(60), async {})
            .await
            .unwrap();
    });
    steady("timeout dropped while pending", runtime, || async {
        let timeout = rt::time::timeout(Duration::from_secs(60), std::future::pending::<()>());
        let _ = futures::poll!(Box::pin(timeout));
    });
    steady("sleep dropped on another thread", runtime, || async {
        let mut sleep = Box::pin(rt::time::sleep(Duration::from_secs(60)));
        let _ = futures::poll!(sleep.as_mut());
        std::thread::spawn(move || drop(sleep)).join().unwrap();
    });
    steady("sleep that fires", runtime, || async {
        rt::time::sleep(Duration::ZERO).await;
    });
    steady("interval", runtime, || async {
        let mut interval = rt::time::interval(Duration::from_secs(60));
        interval.tick().await;
        let _ = futures::poll!(Box::pin(interval.tick()));
    });
}

fn channels(runtime: &Runtime) {
    let (tx, rx) = rt::sync::mpsc::channel::<u8>(1);
    let rx = rt::sync::Mutex::new(rx);
    steady("mpsc recv cancelled", runtime, || async {
        let _ = futures::poll!(Box::pin(rx.lock().await.recv()));
    });
    tx.try_send(1).unwrap();
    let tx2 = tx.clone();
    steady("mpsc send cancelled", runtime, || {
        let tx = &tx2;
        async move {
            let _ = futures::poll!(Box::pin(tx.send(2)));
        }
    });
    drop((tx, tx2, rx));
    let (tx, rx) = rt::sync::mpsc::unbounded_channel::<u8>();
    let rx = rt::sync::Mutex::new(rx);
    steady("unbounded recv cancelled", runtime, || async {
        let _ = futures::poll!(Box::pin(rx.lock().await.recv()));
    });
    drop(tx);
    steady("oneshot", runtime, || async {
        let (tx, rx) = rt::sync::oneshot::channel::<Vec<u8>>();
        let mut rx = Box::pin(rx);
        let _ = futures::poll!(rx.as_mut());
        drop(tx);
    });
    let (btx, _brx) = rt::sync::broadcast::channel::<u8>(16);
    steady("broadcast receiver", runtime, || {
        let btx = &btx;
        async move {
            let mut rx = btx.subscribe();
            btx.send(1).unwrap();
            let _ = futures::poll!(Box::pin(rx.recv()));
            let _ = futures::poll!(Box::pin(rx.recv()));
        }
    });
    let (wtx, wrx) = rt::sync::watch::channel(0u8);
    let wrx = rt::sync::Mutex::new(wrx);
    steady("watch changed cancelled", runtime, || async {
        let _ = futures::poll!(Box::pin(wrx.lock().await.changed()));
        let mut other = wrx.lock().await.clone();
        let _ = futures::poll!(Box::pin(other.changed()));
    });
    drop(wtx);
    let notify = rt::sync::Notify::new();
    steady("notified cancelled", runtime, || {
        let notify = &notify;
        async move {
            let _ = futures::poll!(Box::pin(notify.notified()));
        }
    });
    let semaphore = rt::sync::Semaphore::new(0);
    steady("acquire cancelled", runtime, || {
        let semaphore = &semaphore;
        async move {
            let _ = futures::poll!(Box::pin(semaphore.acquire()));
        }
    });
    let mutex = rt::sync::Mutex::new(0);
    let guard = runtime.block_on(mutex.lock());
    steady("lock cancelled", runtime, || {
        let mutex = &mutex;
        async move {
            let _ = futures::poll!(Box::pin(mutex.lock()));
        }
    });
    drop(guard);
    let semaphore = rt::sync::Semaphore::new(1);
    steady("partly served acquire_many cancelled", runtime, || {
        let semaphore = &semaphore;
        async move {
            let _ = futures::poll!(Box::pin(semaphore.acquire_many(2)));
        }
    });
    assert_eq!(semaphore.available_permits(), 1);
    let lock = rt::sync::RwLock::new(0);
    let reader = runtime.block_on(lock.read());
    steady("write cancelled", runtime, || {
        let lock = &lock;
        async move {
            let _ = futures::poll!(Box::pin(lock.write()));
        }
    });
    drop(reader);
    let (tx, rx) = rt::sync::mpsc::channel::<u8>(1);
    tx.try_send(0).unwrap();
    steady("reserve cancelled", runtime, || {
        let tx = &tx;
        async move {
            let _ = futures::poll!(Box::pin(tx.reserve()));
            let _ = futures::poll!(Box::pin(tx.clone().reserve_owned()));
        }
    });
    drop((tx, rx));
    steady("notify_waiters with a pending waiter", runtime, || {
        let notify = &notify;
        async move {
            let mut notified = Box::pin(notify.notified());
            let _ = futures::poll!(notified.as_mut());
            notify.notify_waiters();
            notified.await;
        }
    });
}

fn sockets(runtime: &Runtime) {
    use futures::io::{AsyncReadExt, AsyncWriteExt};
    use rt::net::{TcpListener, TcpStream, UdpSocket, UnixStream};

    let listener = runtime.block_on(TcpListener::bind("127.0.0.1:0")).unwrap();
    let addr = listener.local_addr().unwrap();
    steady("tcp connect, accept, close", runtime, || {
        let listener = &listener;
        async move {
            let client = TcpStream::connect(addr).await.unwrap();
            let (mut server, _) = listener.accept().await.unwrap();
            drop(client);
            let mut buf = [0; 8];
            assert_eq!(server.read(&mut buf).await.unwrap(), 0);
        }
    });
    steady("tcp readable dropped mid-wait", runtime, || {
        let listener = &listener;
        async move {
            let mut client = TcpStream::connect(addr).await.unwrap();
            let (server, _) = listener.accept().await.unwrap();
            let _ = futures::poll!(Box::pin(server.readable()));
            client.write_all(b"x").await.unwrap();
            server.readable().await.unwrap();
        }
    });
    steady("tcp split and reunite", runtime, || {
        let listener = &listener;
        async move {
            let client = TcpStream::connect(addr).await.unwrap();
            let (server, _) = listener.accept().await.unwrap();
            let (read, write) = client.into_split();
            let client = read.reunite(write).unwrap();
            drop((client, server));
        }
    });
    steady("tcp dropped before accept", runtime, || {
        let listener = &listener;
        async move {
            drop(TcpStream::connect(addr).await.unwrap());
            drop(listener.accept().await.unwrap());
        }
    });
    drop(listener);
    steady("udp bind and drop", runtime, || async {
        let socket = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let mut buf = [0; 8];
        let _ = futures::poll!(Box::pin(socket.recv(&mut buf)));
    });
    steady("signal listener", runtime, || async {
        let mut signal =
            rt::signal::unix::signal(rt::signal::unix::SignalKind::user_defined1()).unwrap();
        let _ = futures::poll!(Box::pin(signal.recv()));
    });
    steady("unix pair", runtime, || async {
        let (mut a, mut b) = UnixStream::pair().unwrap();
        a.write_all(b"x").await.unwrap();
        let mut buf = [0; 1];
        b.read_exact(&mut buf).await.unwrap();
    });
}

/// rt::hyper: requests on one keep-alive connection, and connections opened
/// and closed (`--features hyper`).
#[cfg(feature = "hyper")]
mod http {
    use super::{Runtime, steady_for};
    use http_body_util::{BodyExt, Empty, Full};
    use hyper::body::{Bytes, Incoming};
    use hyper::client::conn::{http1 as client1, http2 as client2};
    use hyper::server::conn::{http1, http2};
    use hyper::service::service_fn;
    use hyper::{Request, Response};
    use rt::hyper::{Executor, Io};
    use rt::net::{TcpListener, TcpStream};
    use std::convert::Infallible;
    use std::net::SocketAddr;

    /// Serves every connection to the returned address, HTTP/2 if `h2`,
    /// HTTP/1.1 otherwise, until the returned task is aborted.
    async fn server(h2: bool) -> (SocketAddr, rt::task::JoinHandle<()>) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let serving = rt::spawn(async move {
            loop {
                let (stream, _) = listener.accept().await.unwrap();
                rt::spawn(async move {
                    let hello = service_fn(|_request: Request<Incoming>| async {
                        Ok::<_, Infallible>(Response::new(Full::new(Bytes::from_static(b"hello"))))
                    });
                    let _ = if h2 {
                        http2::Builder::new(Executor::new())
                            .serve_connection(Io::new(stream), hello)
                            .await
                    } else {
                        http1::Builder::new()
                            .serve_connection(Io::new(stream), hello)
                            .await
                    };
                });
            }
        });
        (addr, serving)
    }

    fn get() -> Request<Empty<Bytes>> {
        Request::builder()
            .uri("http://localhost/")
            .body(Empty::new())
            .unwrap()
    }

    async fn answer(response: Response<Incoming>) {
        let body = response.into_body().collect().await.unwrap().to_bytes();
        assert_eq!(&body[..], b"hello");
    }

    pub(super) fn connections(runtime: &Runtime) {
        let (addr, serving) = runtime.block_on(server(false));
        let stream = runtime.block_on(TcpStream::connect(addr)).unwrap();
        let (sender, connection) = runtime
            .block_on(client1::handshake(Io::new(stream)))
            .unwrap();
        let connection = runtime.spawn(connection);
        let sender = rt::sync::Mutex::new(sender);
        steady_for(50, "http1 keep-alive request", runtime, || async {
            let mut sender = sender.lock().await;
            // The connection task takes the last response's end in its own
            // time: wait until it can take another request.
            sender.ready().await.unwrap();
            answer(sender.send_request(get()).await.unwrap()).await;
        });
        drop(sender);
        runtime.block_on(connection).unwrap().unwrap();
        steady_for(50, "http1 connection", runtime, || async {
            let stream = TcpStream::connect(addr).await.unwrap();
            let (mut sender, connection) = client1::handshake(Io::new(stream)).await.unwrap();
            let connection = rt::spawn(connection);
            answer(sender.send_request(get()).await.unwrap()).await;
            drop(sender);
            connection.await.unwrap().unwrap();
        });
        serving.abort();
        let _ = runtime.block_on(serving);

        let (addr, serving) = runtime.block_on(server(true));
        let stream = runtime.block_on(TcpStream::connect(addr)).unwrap();
        let (sender, connection) = runtime
            .block_on(client2::handshake(Executor::new(), Io::new(stream)))
            .unwrap();
        let connection = runtime.spawn(connection);
        steady_for(50, "http2 request on one connection", runtime, || {
            let mut sender = sender.clone();
            async move {
                answer(sender.send_request(get()).await.unwrap()).await;
            }
        });
        drop(sender);
        runtime.block_on(connection).unwrap().unwrap();
        steady_for(50, "http2 connection", runtime, || async {
            let stream = TcpStream::connect(addr).await.unwrap();
            let (mut sender, connection) = client2::handshake(Executor::new(), Io::new(stream))
                .await
                .unwrap();
            let connection = rt::spawn(connection);
            answer(sender.send_request(get()).await.unwrap()).await;
            drop(sender);
            connection.await.unwrap().unwrap();
        });
        serving.abort();
        let _ = runtime.block_on(serving);
    }
}
