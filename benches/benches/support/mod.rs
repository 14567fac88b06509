//! What every bench target shares: one adapter per runtime, so the same
//! workload code drives rt, tokio and smol, and the `compare!` macro that
//! registers one criterion group per workload with one function per runtime
//! (`<group>/rt`, `<group>/tokio`, `<group>/smol`; `src/bin/results.rs`
//! relies on that naming).

// Each bench target uses a different subset of these helpers (`net` and
// `blocking` write runtime-specific workloads and skip `compare!`).
#![allow(dead_code, unused_macros)]

pub(crate) mod workloads;

use criterion::BenchmarkGroup;
use criterion::measurement::WallTime;
use futures_channel::oneshot;
use std::fmt::Debug;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::thread::JoinHandle as ThreadHandle;
use std::time::Duration;

/// Worker threads of every multi-thread runtime: one per core of the 2-core
/// machine the suite is tuned for.
pub(crate) const NUM_WORKERS: usize = 2;

/// Which scheduler a runtime is built with.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Flavor {
    /// `n` worker threads (smol: `n` threads running `Executor::run`).
    MultiThread(usize),
    /// Tasks run only on the thread inside `block_on` (smol: an `Executor`
    /// driven by that thread alone).
    CurrentThread,
}

/// Spawns tasks on one runtime, from inside it or from any other thread.
pub(crate) trait Spawner: Clone + Send + Sync + 'static {
    /// Awaiting it yields the task's output (panicking if the task failed).
    type Join<T: Send + 'static>: Future<Output = T> + Send + 'static;

    fn spawn<F>(&self, future: F) -> Self::Join<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static;

    /// Spawns a task nobody joins.
    fn spawn_detached<F>(&self, future: F)
    where
        F: Future<Output = ()> + Send + 'static;

    /// The runtime's own `yield_now`.
    fn yield_now() -> impl Future<Output = ()> + Send;
}

/// A runtime under test.
pub(crate) trait BenchRuntime {
    /// The criterion function name: `rt`, `tokio` or `smol`.
    const NAME: &'static str;
    type Spawner: Spawner;

    fn new(flavor: Flavor) -> Self;
    fn spawner(&self) -> Self::Spawner;
    /// Runs `future` on the calling thread (which drives the tasks too on a
    /// current-thread runtime).
    fn block_on<F: Future>(&self, future: F) -> F::Output;
}

/// A join handle whose error is a bench failure.
pub(crate) struct Joined<H>(H);

impl<T, E, H> Future for Joined<H>
where
    E: Debug,
    H: Future<Output = Result<T, E>> + Unpin,
{
    type Output = T;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        Pin::new(&mut self.0)
            .poll(cx)
            .map(|result| result.expect("benchmark task failed"))
    }
}

/// rt.
pub(crate) struct Rt(rt::runtime::Runtime);

impl Spawner for rt::runtime::Handle {
    type Join<T: Send + 'static> = Joined<rt::task::JoinHandle<T>>;

    fn spawn<F>(&self, future: F) -> Self::Join<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        Joined(rt::runtime::Handle::spawn(self, future))
    }

    fn spawn_detached<F>(&self, future: F)
    where
        F: Future<Output = ()> + Send + 'static,
    {
        drop(rt::runtime::Handle::spawn(self, future));
    }

    fn yield_now() -> impl Future<Output = ()> + Send {
        rt::task::yield_now()
    }
}

impl BenchRuntime for Rt {
    const NAME: &'static str = "rt";
    type Spawner = rt::runtime::Handle;

    fn new(flavor: Flavor) -> Self {
        let mut builder = match flavor {
            Flavor::MultiThread(workers) => {
                let mut builder = rt::runtime::Builder::new_multi_thread();
                builder.worker_threads(workers);
                builder
            }
            Flavor::CurrentThread => rt::runtime::Builder::new_current_thread(),
        };
        Rt(builder.enable_all().build().expect("build the rt runtime"))
    }

    fn spawner(&self) -> Self::Spawner {
        self.0.handle().clone()
    }

    fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.0.block_on(future)
    }
}

/// tokio.
pub(crate) struct Tokio(tokio::runtime::Runtime);

impl Spawner for tokio::runtime::Handle {
    type Join<T: Send + 'static> = Joined<tokio::task::JoinHandle<T>>;

    fn spawn<F>(&self, future: F) -> Self::Join<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        Joined(tokio::runtime::Handle::spawn(self, future))
    }

    fn spawn_detached<F>(&self, future: F)
    where
        F: Future<Output = ()> + Send + 'static,
    {
        drop(tokio::runtime::Handle::spawn(self, future));
    }

    fn yield_now() -> impl Future<Output = ()> + Send {
        tokio::task::yield_now()
    }
}

impl BenchRuntime for Tokio {
    const NAME: &'static str = "tokio";
    type Spawner = tokio::runtime::Handle;

    fn new(flavor: Flavor) -> Self {
        let mut builder = match flavor {
            Flavor::MultiThread(workers) => {
                let mut builder = tokio::runtime::Builder::new_multi_thread();
                builder.worker_threads(workers);
                builder
            }
            Flavor::CurrentThread => tokio::runtime::Builder::new_current_thread(),
        };
        Tokio(
            builder
                .enable_all()
                .build()
                .expect("build the tokio runtime"),
        )
    }

    fn spawner(&self) -> Self::Spawner {
        self.0.handle().clone()
    }

    fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.0.block_on(future)
    }
}

/// smol's executor (`async-executor`): on the multi-thread flavor, `n`
/// threads each run `Executor::run` until the runtime is dropped.
pub(crate) struct Smol {
    executor: Arc<async_executor::Executor<'static>>,
    /// Dropping a sender makes its thread's `run` return.
    stops: Vec<oneshot::Sender<()>>,
    threads: Vec<ThreadHandle<()>>,
}

#[derive(Clone)]
pub(crate) struct SmolSpawner(Arc<async_executor::Executor<'static>>);

impl Spawner for SmolSpawner {
    type Join<T: Send + 'static> = async_executor::Task<T>;

    fn spawn<F>(&self, future: F) -> Self::Join<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.0.spawn(future)
    }

    fn spawn_detached<F>(&self, future: F)
    where
        F: Future<Output = ()> + Send + 'static,
    {
        self.0.spawn(future).detach();
    }

    fn yield_now() -> impl Future<Output = ()> + Send {
        futures_lite::future::yield_now()
    }
}

impl BenchRuntime for Smol {
    const NAME: &'static str = "smol";
    type Spawner = SmolSpawner;

    fn new(flavor: Flavor) -> Self {
        let executor = Arc::new(async_executor::Executor::new());
        let workers = match flavor {
            Flavor::MultiThread(workers) => workers,
            Flavor::CurrentThread => 0,
        };
        let mut stops = Vec::with_capacity(workers);
        let mut threads = Vec::with_capacity(workers);
        for index in 0..workers {
            let (stop, stopped) = oneshot::channel::<()>();
            let executor = executor.clone();
            let thread = std::thread::Builder::new()
                .name(format!("smol-worker-{index}"))
                .spawn(move || {
                    let _ = futures_lite::future::block_on(executor.run(stopped));
                })
                .expect("spawn a smol worker thread");
            stops.push(stop);
            threads.push(thread);
        }
        Smol {
            executor,
            stops,
            threads,
        }
    }

    fn spawner(&self) -> Self::Spawner {
        SmolSpawner(self.executor.clone())
    }

    fn block_on<F: Future>(&self, future: F) -> F::Output {
        if self.threads.is_empty() {
            futures_lite::future::block_on(self.executor.run(future))
        } else {
            futures_lite::future::block_on(future)
        }
    }
}

impl Drop for Smol {
    fn drop(&mut self) {
        self.stops.clear();
        for thread in self.threads.drain(..) {
            thread.join().expect("a smol worker thread panicked");
        }
    }
}

/// Counts finished tasks down to zero; the last one completes the
/// receiver returned by [`countdown`]. Runtime-neutral, so the waiting side
/// can `.await` it inside any runtime's `block_on`.
#[derive(Clone)]
pub(crate) struct Countdown(Arc<CountdownInner>);

struct CountdownInner {
    remaining: AtomicUsize,
    done: Mutex<Option<oneshot::Sender<()>>>,
}

pub(crate) fn countdown(count: usize) -> (Countdown, oneshot::Receiver<()>) {
    assert!(count > 0, "a countdown needs at least one task");
    let (done, finished) = oneshot::channel();
    let inner = CountdownInner {
        remaining: AtomicUsize::new(count),
        done: Mutex::new(Some(done)),
    };
    (Countdown(Arc::new(inner)), finished)
}

impl Countdown {
    pub(crate) fn count_down(&self) {
        if self.0.remaining.fetch_sub(1, Ordering::AcqRel) == 1 {
            let done = self.0.done.lock().unwrap().take();
            let _ = done.expect("counted down past zero").send(());
        }
    }
}

/// Sampling settings shared by every group: enough samples for a stable
/// median while the whole suite stays within a few minutes on 2 cores.
pub(crate) fn configure(group: &mut BenchmarkGroup<'_, WallTime>) {
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
}

/// `compare!(criterion, "group", flavor, workload)`: one criterion group
/// with the workload on rt, tokio and smol, in that order. `workload` is a
/// generic fn taking `&R` (after building the runtime, for any setup) and
/// returning one iteration's body (`FnMut()`), which criterion times;
/// whatever it captured is dropped before the runtime.
macro_rules! compare {
    ($c:expr, $group:expr, $flavor:expr, $workload:path) => {{
        let mut group = $c.benchmark_group($group);
        $crate::support::configure(&mut group);
        compare!(@one group, $flavor, $workload, $crate::support::Rt);
        compare!(@one group, $flavor, $workload, $crate::support::Tokio);
        compare!(@one group, $flavor, $workload, $crate::support::Smol);
        group.finish();
    }};
    (@one $group:ident, $flavor:expr, $workload:path, $runtime:ty) => {{
        let runtime = <$runtime as $crate::support::BenchRuntime>::new($flavor);
        let mut body = $workload(&runtime);
        $group.bench_function(
            <$runtime as $crate::support::BenchRuntime>::NAME,
            |b| b.iter(&mut body),
        );
        drop(body);
        drop(runtime);
    }};
    // `compare_native!`'s: the workload returns the `FnMut(&mut Bencher)`.
    (@routine $group:ident, $flavor:expr, $workload:path, $runtime:ty) => {{
        let runtime = <$runtime as $crate::support::BenchRuntime>::new($flavor);
        let mut routine = $workload(&runtime);
        $group.bench_function(
            <$runtime as $crate::support::BenchRuntime>::NAME,
            |b| routine(b),
        );
        drop(routine);
        drop(runtime);
    }};
}
#[allow(unused_imports)]
pub(crate) use compare;

/// `compare_native!(criterion, "group", flavor, rt_workload, tokio_workload)`:
/// like [`compare!`], for workloads written against each runtime's own API
/// (`rt::time` vs `tokio::time`, `rt::sync` vs `tokio::sync`), which the
/// generic adapters cannot express. One group with an `rt` and a `tokio`
/// function; `rt_workload` takes `&Rt`, `tokio_workload` takes `&Tokio`.
/// Write both from one macro body so that their shapes cannot drift apart.
// Only the targets with runtime-specific workloads use it.
#[allow(unused_macros)]
macro_rules! compare_native {
    ($c:expr, $group:expr, $flavor:expr, $rt:path, $tokio:path) => {{
        let mut group = $c.benchmark_group($group);
        $crate::support::configure(&mut group);
        $crate::support::compare!(@routine group, $flavor, $rt, $crate::support::Rt);
        $crate::support::compare!(@routine group, $flavor, $tokio, $crate::support::Tokio);
        group.finish();
    }};
}
#[allow(unused_imports)]
pub(crate) use compare_native;
