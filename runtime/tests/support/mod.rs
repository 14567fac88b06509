//! Helpers shared by the integration tests: building each kind of runtime,
//! running a body on both schedulers, counting drops and wakers, knowing
//! when a task is waiting, reading panic messages, byte patterns and
//! checksums for transfers.

#![allow(dead_code, missing_docs)]

use rt::runtime::{Builder, Runtime};
use std::any::Any;
use std::future::Future;
use std::panic::{self, AssertUnwindSafe};
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll, Wake, Waker};
use std::time::{Duration, Instant};

mod stream_checks;
pub(crate) mod thread_exits;

/// A runtime configuration the tests run on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    CurrentThread,
    MultiThread(usize),
}

/// Every scheduler, and the multi-thread one with more than one worker
/// count so stealing and parking both happen.
pub(crate) const ALL: [Kind; 3] = [
    Kind::CurrentThread,
    Kind::MultiThread(2),
    Kind::MultiThread(4),
];

/// Runtimes on which only one thread ever polls tasks: a task that never
/// yields keeps every other task from running.
pub(crate) const SINGLE_POLLER: [Kind; 2] = [Kind::CurrentThread, Kind::MultiThread(1)];

impl Kind {
    pub(crate) fn builder(self) -> Builder {
        let mut builder = match self {
            Kind::CurrentThread => Builder::new_current_thread(),
            Kind::MultiThread(workers) => {
                let mut builder = Builder::new_multi_thread();
                builder.worker_threads(workers);
                builder
            }
        };
        builder.enable_all();
        builder
    }

    pub(crate) fn build(self) -> Runtime {
        self.builder().build().expect("building the runtime")
    }

    pub(crate) fn is_multi_thread(self) -> bool {
        matches!(self, Kind::MultiThread(_))
    }
}

/// Runs `test` once per runtime kind in `kinds`, with a fresh runtime. The
/// kind is printed first so a failure says which runtime it was on.
///
/// `RT_TEST_KINDS=current_thread` (or `multi_thread`) keeps only that
/// scheduler: `scripts/miri` checks the current-thread runtime under
/// strict provenance and the multi-thread one, whose crossbeam-epoch
/// queues need permissive provenance, in a separate run.
pub(crate) fn each(kinds: &[Kind], mut test: impl FnMut(Kind, Runtime)) {
    for &kind in kinds {
        if !kind_selected(kind) {
            continue;
        }
        eprintln!("--- on {kind:?}");
        test(kind, kind.build());
    }
}

/// `false` if `RT_TEST_KINDS` names the other scheduler.
pub(crate) fn kind_selected(kind: Kind) -> bool {
    match std::env::var("RT_TEST_KINDS").as_deref() {
        Ok("current_thread") => kind == Kind::CurrentThread,
        Ok("multi_thread") => kind.is_multi_thread(),
        Ok("") | Err(_) => true,
        Ok(other) => {
            panic!("RT_TEST_KINDS={other}: expected `current_thread`, `multi_thread` or nothing")
        }
    }
}

/// `real` normally, `miri` under Miri (about a hundred times slower):
/// iteration counts and sizes that keep a Miri run to seconds.
pub(crate) const fn miri_or(real: usize, miri: usize) -> usize {
    if cfg!(miri) { miri } else { real }
}

/// Runs `body` as a spawned task on each runtime of [`SINGLE_POLLER`],
/// where one thread both polls the tasks and turns the reactor: no event
/// is dispatched while the task runs between two awaits that return
/// `Pending`, so readiness seen and cleared in one stretch of the task is
/// exactly what the task did (as on the current-thread runtime tokio's
/// readiness tests use).
pub(crate) fn on_single_poller<F, Fut>(body: F)
where
    F: Fn() -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    each(&SINGLE_POLLER, |_, rt| {
        rt.block_on(async { rt::spawn(body()).await.unwrap() })
    });
}

/// Runs `test` once on every runtime kind.
pub(crate) fn each_runtime(test: impl FnMut(Kind, Runtime)) {
    each(&ALL, test);
}

/// Blocks on the future `make()` returns, on every runtime kind.
pub(crate) fn block_on_each<F, Fut>(make: F)
where
    F: Fn(Kind) -> Fut,
    Fut: Future<Output = ()>,
{
    each_runtime(|kind, rt| rt.block_on(make(kind)));
}

/// Counts how many of its guards were dropped.
#[derive(Clone, Debug, Default)]
pub(crate) struct DropCounter {
    created: Arc<AtomicUsize>,
    dropped: Arc<AtomicUsize>,
}

/// Increments its counter's `dropped` count when dropped.
#[derive(Debug)]
pub(crate) struct DropGuard {
    dropped: Arc<AtomicUsize>,
}

impl DropCounter {
    pub(crate) fn new() -> DropCounter {
        DropCounter::default()
    }

    pub(crate) fn guard(&self) -> DropGuard {
        self.created.fetch_add(1, Ordering::SeqCst);
        DropGuard {
            dropped: self.dropped.clone(),
        }
    }

    pub(crate) fn created(&self) -> usize {
        self.created.load(Ordering::SeqCst)
    }

    pub(crate) fn dropped(&self) -> usize {
        self.dropped.load(Ordering::SeqCst)
    }

    /// Guards created and not dropped yet.
    pub(crate) fn alive(&self) -> usize {
        self.created() - self.dropped()
    }
}

impl Drop for DropGuard {
    fn drop(&mut self) {
        self.dropped.fetch_add(1, Ordering::SeqCst);
    }
}

/// A waker that counts its wakes, and whose clones can be counted: every
/// waker made from it holds a reference to it, so
/// [`WakeCounter::wakers_alive`] says how many are still stored somewhere
/// (a waiter list that kept one after its future was dropped).
#[derive(Debug, Default)]
pub(crate) struct WakeCounter {
    wakes: AtomicUsize,
    /// The waker of the task that last polled through
    /// [`WakeCounter::poll_with`]: wakes are passed on to it.
    forward: Mutex<Option<Waker>>,
}

impl Wake for WakeCounter {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.wakes.fetch_add(1, Ordering::SeqCst);
        let forward = self.forward.lock().unwrap().clone();
        if let Some(waker) = forward {
            waker.wake();
        }
    }
}

impl WakeCounter {
    pub(crate) fn new() -> Arc<WakeCounter> {
        Arc::new(WakeCounter::default())
    }

    pub(crate) fn waker(self: &Arc<Self>) -> Waker {
        Waker::from(self.clone())
    }

    pub(crate) fn wakes(&self) -> usize {
        self.wakes.load(Ordering::SeqCst)
    }

    /// Wakers made from this counter that are alive (held anywhere).
    pub(crate) fn wakers_alive(self: &Arc<Self>) -> usize {
        Arc::strong_count(self) - 1
    }

    /// Polls `future` with this counter's waker; its wakes also wake the
    /// task `cx` belongs to.
    pub(crate) fn poll_with<F: Future + ?Sized>(
        self: &Arc<Self>,
        future: Pin<&mut F>,
        cx: &mut Context<'_>,
    ) -> Poll<F::Output> {
        let previous = self.forward.lock().unwrap().replace(cx.waker().clone());
        drop(previous);
        future.poll(&mut Context::from_waker(&self.waker()))
    }
}

/// `future`, polled with `counter`'s waker (wakes reach the awaiting task
/// too), so whatever it leaves behind shows in `counter.wakers_alive()`.
pub(crate) fn tracked<F: Future>(
    counter: &Arc<WakeCounter>,
    future: F,
) -> impl Future<Output = F::Output> {
    let counter = counter.clone();
    let mut future = Box::pin(future);
    std::future::poll_fn(move |cx| counter.poll_with(future.as_mut(), cx))
}

/// Polls `future` with `counter`'s waker at most `polls` times, then drops
/// it; returns its output if it finished first. After each `Pending` but
/// the last, `between(i)` runs; if it returns `true` (it did something the
/// future waits for), the next poll waits until the future was woken.
pub(crate) async fn poll_then_drop<F: Future>(
    counter: &Arc<WakeCounter>,
    future: F,
    polls: usize,
    mut between: impl AsyncFnMut(usize) -> bool,
) -> Option<F::Output> {
    let mut future = std::pin::pin!(future);
    for i in 0..polls {
        let wakes_before = counter.wakes();
        if let Poll::Ready(output) =
            std::future::poll_fn(|cx| Poll::Ready(counter.poll_with(future.as_mut(), cx))).await
        {
            return Some(output);
        }
        if i + 1 < polls && between(i).await {
            // The counter passes the future's wakes on to this task.
            std::future::poll_fn(|cx| {
                // `poll_with` made this task the one the counter wakes.
                let _ = cx;
                if counter.wakes() > wakes_before {
                    Poll::Ready(())
                } else {
                    Poll::Pending
                }
            })
            .await;
        }
    }
    None
}

/// Runs `future`, sending on `waiting` the first time it returns
/// `Pending`: by then it has stored its waker wherever it waits.
pub(crate) async fn report_pending<F: Future>(
    future: F,
    waiting: rt::sync::oneshot::Sender<()>,
) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut waiting = Some(waiting);
    std::future::poll_fn(|cx| {
        let poll = future.as_mut().poll(cx);
        if poll.is_pending() {
            if let Some(waiting) = waiting.take() {
                // The receiver only goes away if the test already failed.
                let _ = waiting.send(());
            }
        }
        poll
    })
    .await
}

/// Spawns one task per future and returns once every one of them is
/// waiting (returned `Pending` once), so work made after this call finds
/// them all parked.
pub(crate) async fn spawn_all_waiting<F>(futures: Vec<F>) -> Vec<rt::task::JoinHandle<F::Output>>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    let mut waiting = Vec::with_capacity(futures.len());
    let tasks: Vec<_> = futures
        .into_iter()
        .map(|future| {
            let (tx, rx) = rt::sync::oneshot::channel();
            waiting.push(rx);
            rt::spawn(report_pending(future, tx))
        })
        .collect();
    for rx in waiting {
        rx.await.expect("a task ended before it waited");
    }
    tasks
}

/// A connected TCP pair on loopback: (client, server end).
pub(crate) async fn tcp_pair() -> (rt::net::TcpStream, rt::net::TcpStream) {
    let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let client = rt::net::TcpStream::connect(listener.local_addr().unwrap())
        .await
        .unwrap();
    let (server, _) = listener.accept().await.unwrap();
    (client, server)
}

/// Clears the readability an accepted stream starts out assumed to have,
/// for a test that wants it idle: reads (finding nothing) until it no
/// longer claims to be readable. One read is normally enough; a write
/// event the reactor dispatches between that read and its clear keeps the
/// readiness (the clear sees a newer tick), and the next read clears it.
pub(crate) fn clear_assumed_readability(stream: &rt::net::TcpStream) {
    use futures::FutureExt;
    while stream.readable().now_or_never().is_some() {
        let err = stream.try_read(&mut [0; 1]).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::WouldBlock);
    }
}

/// Writes `data` to `stream` from a task of its own, then shuts the write
/// side down, so the peer reads `data` and then end-of-file.
pub(crate) fn spawn_write_all(
    mut stream: rt::net::TcpStream,
    data: Vec<u8>,
) -> rt::task::JoinHandle<()> {
    use rt::io::AsyncWriteExt;
    rt::spawn(async move {
        stream.write_all(&data).await.unwrap();
        stream.shutdown().await.unwrap();
    })
}

/// Waits for a condition another thread will make true soon (a worker
/// finishing its bookkeeping after the result was already observed). Not a
/// timing assertion: the deadline only turns a hang into a failure.
pub(crate) fn wait_until(what: &str, mut condition: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !condition() {
        assert!(Instant::now() < deadline, "gave up waiting until {what}");
        std::thread::yield_now();
    }
}

/// The text of a panic payload (`&str` or `String`).
pub(crate) fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&'static str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "<non-string panic payload>".to_owned()
    }
}

/// Runs `f`, which must panic, and returns its panic message.
#[track_caller]
pub(crate) fn expect_panic<R>(f: impl FnOnce() -> R) -> String {
    match panic::catch_unwind(AssertUnwindSafe(f)) {
        Ok(_) => panic!("expected a panic"),
        Err(payload) => panic_message(&*payload),
    }
}

/// A current-thread runtime and a two-worker multi-thread runtime, both
/// with every driver enabled (only one of them if `RT_TEST_KINDS` says so,
/// see `each`).
pub(crate) fn runtimes() -> Vec<(&'static str, Runtime)> {
    let mut runtimes = Vec::new();
    if kind_selected(Kind::CurrentThread) {
        runtimes.push(("current_thread", Kind::CurrentThread.build()));
    }
    if kind_selected(Kind::MultiThread(2)) {
        runtimes.push(("multi_thread", Kind::MultiThread(2).build()));
    }
    runtimes
}

/// Runs `body` to completion on each scheduler in turn.
pub(crate) fn on_both<F, Fut>(body: F)
where
    F: Fn() -> Fut,
    Fut: Future<Output = ()>,
{
    for (name, rt) in runtimes() {
        eprintln!("-- on the {name} scheduler");
        rt.block_on(body());
    }
}

/// Deterministic pseudo-random bytes (xorshift), so transfers can be
/// checked without keeping a copy.
pub(crate) struct Pattern(u64);

impl Pattern {
    pub(crate) fn new(seed: u64) -> Pattern {
        Pattern(seed | 1)
    }

    /// `len` bytes of the pattern seeded with `seed`.
    pub(crate) fn bytes(seed: u64, len: usize) -> Vec<u8> {
        let mut bytes = vec![0; len];
        Pattern::new(seed).fill(&mut bytes);
        bytes
    }

    pub(crate) fn fill(&mut self, buf: &mut [u8]) {
        for chunk in buf.chunks_mut(8) {
            let mut x = self.0;
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            self.0 = x;
            chunk.copy_from_slice(&x.to_le_bytes()[..chunk.len()]);
        }
    }
}

/// FNV-1a over a byte stream, fed in pieces.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Checksum(u64);

impl Checksum {
    pub(crate) fn new() -> Checksum {
        Checksum(0xcbf2_9ce4_8422_2325)
    }

    /// The checksum of `bytes` alone.
    pub(crate) fn of(bytes: &[u8]) -> Checksum {
        let mut sum = Checksum::new();
        sum.update(bytes);
        sum
    }

    pub(crate) fn update(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// Raises the soft descriptor limit to the hard one and returns the limit.
pub(crate) fn raise_fd_limit() -> u64 {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `limit` is a valid, exclusively borrowed out-parameter.
    let rc = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) };
    assert_eq!(rc, 0);
    limit.rlim_cur = limit.rlim_max;
    // SAFETY: `limit` is a valid `rlimit`; raising the soft limit up to the
    // hard one is always allowed.
    let rc = unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &limit) };
    assert_eq!(rc, 0);
    limit.rlim_cur
}

/// Sets this process's soft descriptor limit (at most the hard one), so
/// that opening descriptor number `soft` fails with EMFILE.
pub(crate) fn set_soft_fd_limit(soft: u64) {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `limit` is a valid, exclusively borrowed out-parameter.
    let rc = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) };
    assert_eq!(rc, 0);
    limit.rlim_cur = soft.min(limit.rlim_max);
    // SAFETY: `limit` is a valid `rlimit`, its soft limit at most the hard.
    let rc = unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &limit) };
    assert_eq!(rc, 0);
}

/// A current-thread runtime whose clock starts paused: sleeps finish as
/// soon as nothing else can run, with no real waiting.
pub(crate) fn paused() -> Runtime {
    Builder::new_current_thread()
        .start_paused(true)
        .build()
        .unwrap()
}

/// `n` milliseconds.
pub(crate) fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

#[allow(unused_imports)]
pub(crate) use stream_checks::{
    check_forgotten_write_half, check_owned_halves, check_poll_read_ready,
    check_ready_for_either_side, check_split_halves, check_try_read_write, echo_through_halves,
    fill_send_buffer,
};

/// Polls `future` once with a waker that does nothing: for tests that
/// drive a future by hand and look at each step.
pub(crate) fn poll_once<F: Future>(future: &mut Pin<Box<F>>) -> Poll<F::Output> {
    future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
}

/// A fresh, empty directory for one test on one runtime, unique to this
/// test process.
pub(crate) fn scratch_dir(test: &str, rt: &Runtime) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "rt-test-{}-{test}-{:?}",
        std::process::id(),
        rt.handle().runtime_flavor()
    ));
    if dir.exists() {
        std::fs::remove_dir_all(&dir).unwrap();
    }
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Shows that an abandoned read of a never-ending file stops after the 2
/// MiB chunk in progress. On each runtime, `start_read(fifo)` (called in
/// the runtime) starts reading a FIFO; once more than a chunk was fed, the
/// future it returned must give the read up. A thread keeps feeding the
/// FIFO: the read never reaches an end by itself, so only the abandoned
/// future can stop it, which shows up as the writer's broken pipe once
/// the read end is closed. A read that went on would take everything, and
/// a bound on the bytes written fails the test.
pub(crate) fn assert_abandoned_fifo_read_stops<S, F>(name: &str, start_read: S)
where
    S: Fn(PathBuf) -> F,
    F: Future<Output = ()>,
{
    const CHUNK: usize = 2 * 1024 * 1024;
    for (_, rt) in runtimes() {
        let dir = scratch_dir(name, &rt);
        let fifo = dir.join("fifo");
        mkfifo(&fifo);

        let (fed_tx, fed_rx) = rt::sync::oneshot::channel::<()>();
        let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
        let writer = std::thread::spawn({
            let fifo = fifo.clone();
            move || {
                use std::io::Write;
                let mut pipe = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
                // More than a chunk, so the read is inside its loop.
                pipe.write_all(&vec![1; CHUNK + 1]).unwrap();
                fed_tx.send(()).unwrap();
                go_rx.recv().unwrap();
                let block = vec![2; 64 * 1024];
                let mut written = 0;
                loop {
                    match pipe.write(&block) {
                        Ok(n) => written += n,
                        Err(e) => {
                            assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe);
                            break;
                        }
                    }
                    assert!(written <= 64 * CHUNK, "the abandoned read did not stop");
                }
            }
        });

        rt.block_on(async {
            let give_up = start_read(fifo.clone());
            fed_rx.await.unwrap();
            give_up.await;
        });
        go_tx.send(()).unwrap();
        writer.join().unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// Creates a FIFO (named pipe) at `path`.
pub(crate) fn mkfifo(path: &std::path::Path) {
    let c_path = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: `c_path` is a NUL-terminated path that outlives the call.
    let result = unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) };
    assert_eq!(
        result,
        0,
        "mkfifo {}: {}",
        path.display(),
        std::io::Error::last_os_error()
    );
}

/// Polls `future` once with `waker`.
pub(crate) fn poll_with<F: Future>(future: &mut Pin<Box<F>>, waker: &Waker) -> Poll<F::Output> {
    future.as_mut().poll(&mut Context::from_waker(waker))
}

/// The shared part of [`waker_with_drop_hook`]: runs the hook when the
/// last clone of the waker goes.
struct DropHook(std::sync::Mutex<Option<Box<dyn FnOnce() + Send>>>);

impl std::task::Wake for DropHook {
    fn wake(self: Arc<Self>) {}
}

impl Drop for DropHook {
    fn drop(&mut self) {
        let hook = self.0.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(hook) = hook {
            hook();
        }
    }
}

/// A waker whose destructor runs `hook` when its last clone is dropped:
/// it stands for a waker that owns user state (a task holding a channel
/// sender or a lock guard), whose drop uses the primitive that stored it.
pub(crate) fn waker_with_drop_hook(hook: impl FnOnce() + Send + 'static) -> Waker {
    Waker::from(Arc::new(DropHook(std::sync::Mutex::new(Some(Box::new(
        hook,
    ))))))
}

/// Runs `f` on a thread of its own and fails, naming `what`, if it has
/// not returned within a generous deadline: a deadlock fails the test
/// instead of hanging the run. Not a timing assertion: a correct `f`
/// returns at once. A panic in `f` is passed on.
#[track_caller]
pub(crate) fn assert_no_deadlock(what: &str, f: impl FnOnce() + Send + 'static) {
    let (done_tx, done_rx) = std::sync::mpsc::channel();
    let thread = std::thread::spawn(move || {
        f();
        let _ = done_tx.send(());
    });
    match done_rx.recv_timeout(Duration::from_secs(20)) {
        Ok(()) | Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
            if let Err(payload) = thread.join() {
                panic::resume_unwind(payload);
            }
        }
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            panic!("deadlock: {what} did not return (the thread is left hanging)")
        }
    }
}

/// Runs `body` in a child process (this test binary again, running only
/// the test `name`), for tests whose failure would abort the process:
/// the parent then fails with the child's status instead of dying. In
/// the child, `body` runs directly.
#[track_caller]
pub(crate) fn in_child_process(name: &str, body: impl FnOnce()) {
    const CHILD: &str = "RT_TEST_IN_CHILD_PROCESS";
    if std::env::var_os(CHILD).is_some() {
        body();
        return;
    }
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .output()
        .expect("running the test binary again");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.contains("1 passed"),
        "the child process running `{name}` failed ({}):\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A waker that counts its wakes; `Arc::strong_count` of it shows who
/// still holds a clone.
#[derive(Debug, Default)]
pub(crate) struct CountingWaker(AtomicUsize);

impl std::task::Wake for CountingWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

impl CountingWaker {
    pub(crate) fn new() -> Arc<CountingWaker> {
        Arc::new(CountingWaker::default())
    }

    /// How many times it was woken.
    pub(crate) fn count(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }

    /// A waker (one more strong reference) for it.
    pub(crate) fn waker(self: &Arc<Self>) -> Waker {
        Waker::from(self.clone())
    }

    /// Polls `future` once with this waker.
    pub(crate) fn poll<F: Future>(self: &Arc<Self>, future: &mut Pin<Box<F>>) -> Poll<F::Output> {
        poll_with(future, &self.waker())
    }
}

/// This file's path, as the task dump shows a location in it.
pub(crate) const SUPPORT_FILE: &str = file!();

/// The lines of `child`'s stderr (piped) as they come, read on a thread
/// of their own; a receiver dropped early just stops the forwarding.
pub(crate) fn stderr_lines(child: &mut std::process::Child) -> std::sync::mpsc::Receiver<String> {
    use std::io::BufRead;
    let stderr = std::io::BufReader::new(child.stderr.take().expect("stderr is piped"));
    let (line_tx, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in stderr.lines() {
            let _ = line_tx.send(line.unwrap());
        }
    });
    lines
}

/// Spawns on `rt`, named `name`, a task that takes `first`, meets the
/// other task at `barrier`, then waits for `second`: two of them, the
/// locks crossed, deadlock. Returns the task and the line of its wait for
/// `second` (in this file, [`SUPPORT_FILE`]).
pub(crate) fn lock_in_order(
    rt: &Runtime,
    name: &str,
    first: &Arc<rt::sync::Mutex<()>>,
    second: &Arc<rt::sync::Mutex<()>>,
    barrier: &Arc<rt::sync::Barrier>,
) -> (rt::task::JoinHandle<()>, u32) {
    let (first, second, barrier) = (first.clone(), second.clone(), barrier.clone());
    let task = rt::task::Builder::new()
        .name(name)
        .spawn_on(
            async move {
                let _first = first.lock().await;
                barrier.wait().await;
                let _second = second.lock().await;
            },
            rt.handle(),
        )
        .unwrap();
    (task, line!() - 5)
}

/// A future that returns `Pending` without handing its waker to
/// anything: the bug `TaskSnapshot::has_lost_waker` names.
pub(crate) struct Forgetful<T = ()>(pub(crate) T);

impl<T: Unpin> Future for Forgetful<T> {
    type Output = ();
    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
        Poll::Pending
    }
}
