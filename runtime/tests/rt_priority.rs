//! Priority scheduling as a user sees it: the order tasks run in, the
//! starvation bound, wake-ups from other threads and from the reactor.
//! No test here measures time: they count polls and record orders.

use rt::runtime::{Builder, Handle, Runtime, RuntimeFlavor};
use rt::task::{self, JoinHandle, Priority};
use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::task::Poll;
use std::thread::{self, ThreadId};

/// The documented starvation bound: at most this many polls in a row of
/// higher-priority tasks while a lower-priority one waits.
const MAX_HIGHER_POLLS_IN_A_ROW: usize = 32;

const HIGHEST_FIRST: [Priority; 3] = [Priority::High, Priority::Normal, Priority::Low];

/// Spawns `future` on `handle` with `priority`.
fn spawn_on<F>(handle: &Handle, priority: Priority, future: F) -> JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    task::Builder::new()
        .priority(priority)
        .spawn_on(future, handle)
        .unwrap()
}

/// Spawns `future` on the current runtime with `priority`.
fn spawn<F>(priority: Priority, future: F) -> JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    task::Builder::new()
        .priority(priority)
        .spawn(future)
        .unwrap()
}

fn one_worker() -> Runtime {
    Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap()
}

fn current_thread() -> Runtime {
    Builder::new_current_thread().enable_all().build().unwrap()
}

/// The names of the tasks in the order they ran.
#[derive(Clone, Default)]
struct RunOrder(Arc<Mutex<Vec<&'static str>>>);

impl RunOrder {
    fn record(&self, name: &'static str) {
        self.0.lock().unwrap().push(name);
    }

    /// A task that records `name` when it runs.
    fn task(&self, name: &'static str) -> impl Future<Output = ()> + Send + 'static {
        let order = self.clone();
        async move { order.record(name) }
    }

    fn get(&self) -> Vec<&'static str> {
        self.0.lock().unwrap().clone()
    }
}

/// The queued tasks, lowest priority first so that spawn order alone
/// would give the wrong answer.
const QUEUED: [(Priority, &str); 5] = [
    (Priority::Low, "low 1"),
    (Priority::Normal, "normal"),
    (Priority::High, "high 1"),
    (Priority::Low, "low 2"),
    (Priority::High, "high 2"),
];

const BY_PRIORITY: [&str; 5] = ["high 1", "high 2", "normal", "low 1", "low 2"];

#[test]
fn tasks_queued_by_a_task_run_highest_priority_first() {
    for rt in [one_worker(), current_thread()] {
        let order = RunOrder::default();
        let spawner = {
            let order = order.clone();
            rt.spawn(async move {
                let tasks: Vec<_> = QUEUED
                    .iter()
                    .map(|&(priority, name)| spawn(priority, order.task(name)))
                    .collect();
                for task in tasks {
                    task.await.unwrap();
                }
            })
        };
        rt.block_on(spawner).unwrap();
        assert_eq!(order.get(), BY_PRIORITY);
    }
}

/// A `High` task that yields goes back ahead of the queued `Normal` and
/// `Low` tasks (on the current-thread scheduler, whose yields wait for a
/// driver poll, that poll comes first).
#[test]
fn a_yielding_high_task_runs_again_before_lower_priority_work() {
    for rt in [one_worker(), current_thread()] {
        let order = RunOrder::default();
        let spawner = {
            let order = order.clone();
            rt.spawn(async move {
                let high = {
                    let order = order.clone();
                    async move {
                        order.record("high");
                        task::yield_now().await;
                        order.record("high again");
                    }
                };
                let tasks = [
                    spawn(Priority::Low, order.task("low")),
                    spawn(Priority::Normal, order.task("normal")),
                    spawn(Priority::High, high),
                ];
                for task in tasks {
                    task.await.unwrap();
                }
            })
        };
        rt.block_on(spawner).unwrap();
        assert_eq!(order.get(), ["high", "high again", "normal", "low"]);
    }
}

/// Holds the only worker of `rt` in a task until the returned sender
/// sends (or is dropped); returns once the worker is held.
fn hold_the_worker(rt: &Runtime) -> (mpsc::Sender<()>, JoinHandle<()>) {
    let (release, released) = mpsc::channel::<()>();
    let (held, is_held) = mpsc::channel();
    let holder = rt.spawn(async move {
        held.send(()).unwrap();
        let _ = released.recv();
    });
    is_held.recv().unwrap();
    (release, holder)
}

#[test]
fn tasks_spawned_from_outside_run_highest_priority_first() {
    // Multi-thread: spawned while the worker is held, so all are queued
    // in the global queues when it looks.
    let rt = one_worker();
    let order = RunOrder::default();
    let (release, holder) = hold_the_worker(&rt);
    let tasks: Vec<_> = QUEUED
        .iter()
        .map(|&(priority, name)| spawn_on(rt.handle(), priority, order.task(name)))
        .collect();
    drop(release);
    rt.block_on(async move {
        holder.await.unwrap();
        for task in tasks {
            task.await.unwrap();
        }
    });
    assert_eq!(order.get(), BY_PRIORITY);

    // Current-thread: nothing runs until `block_on`.
    let rt = current_thread();
    let order = RunOrder::default();
    let tasks: Vec<_> = QUEUED
        .iter()
        .map(|&(priority, name)| spawn_on(rt.handle(), priority, order.task(name)))
        .collect();
    rt.block_on(async move {
        for task in tasks {
            task.await.unwrap();
        }
    });
    assert_eq!(order.get(), BY_PRIORITY);
}

/// How many polls each thread has made of the tasks that count them.
#[derive(Clone, Default)]
struct PollsByThread(Arc<Mutex<HashMap<ThreadId, usize>>>);

impl PollsByThread {
    fn count(&self) {
        *self
            .0
            .lock()
            .unwrap()
            .entry(thread::current().id())
            .or_default() += 1;
    }

    fn on(&self, thread: ThreadId) -> usize {
        self.0.lock().unwrap().get(&thread).copied().unwrap_or(0)
    }

    fn snapshot(&self) -> HashMap<ThreadId, usize> {
        self.0.lock().unwrap().clone()
    }
}

/// With every worker busy with `Low` loops that yield, a `High` task
/// spawned from outside starts after at most the `Low` poll its worker
/// was in (plus one it may have begun before the spawn became visible to
/// it). Counted in polls of the worker that runs it: the other worker
/// keeps polling meanwhile, and the OS may preempt this one.
#[test]
fn high_task_from_outside_starts_within_a_poll_or_two_of_saturating_low_loops() {
    const LOW_TASKS_PER_WORKER: usize = 64;
    const WORKERS: usize = 2;
    let rt = Builder::new_multi_thread()
        .worker_threads(WORKERS)
        .build()
        .unwrap();
    let low_polls = PollsByThread::default();
    let stop = Arc::new(AtomicBool::new(false));
    let lows: Vec<_> = (0..WORKERS * LOW_TASKS_PER_WORKER)
        .map(|_| {
            let (low_polls, stop) = (low_polls.clone(), stop.clone());
            spawn_on(rt.handle(), Priority::Low, async move {
                while !stop.load(Ordering::Relaxed) {
                    low_polls.count();
                    task::yield_now().await;
                }
            })
        })
        .collect();
    // Every worker is in the loops before the first measurement.
    while low_polls.snapshot().len() < WORKERS
        || low_polls.snapshot().values().any(|&polls| polls < 1_000)
    {
        thread::yield_now();
    }
    for _ in 0..50 {
        let (started, on_start) = mpsc::channel();
        let low_polls_then = {
            let counted = low_polls.clone();
            let high = spawn_on(rt.handle(), Priority::High, async move {
                let me = thread::current().id();
                started.send((me, counted.on(me))).unwrap();
            });
            let then = low_polls.snapshot();
            rt.block_on(high).unwrap();
            then
        };
        let (thread, low_polls_at_start) = on_start.recv().unwrap();
        let before = low_polls_then.get(&thread).copied().unwrap_or(0);
        let polls_in_between = low_polls_at_start.saturating_sub(before);
        assert!(
            polls_in_between <= 2,
            "the High task waited for {polls_in_between} Low polls on its worker"
        );
    }
    stop.store(true, Ordering::Relaxed);
    rt.block_on(async move {
        for low in lows {
            low.await.unwrap();
        }
    });
}

/// A log of which priority each poll of the test's tasks had, in order
/// (one worker, so the order is the worker's).
#[derive(Clone, Default)]
struct PollLog(Arc<Mutex<Vec<Priority>>>);

impl PollLog {
    fn polled(&self) {
        self.0.lock().unwrap().push(task::priority());
    }

    /// The longest run of polls of priority above `level` while a task of
    /// `level` was waiting (between its first and its last poll).
    fn longest_wait_of(&self, level: Priority) -> usize {
        let log = self.0.lock().unwrap();
        let first = log.iter().position(|&p| p == level).unwrap();
        let last = log.iter().rposition(|&p| p == level).unwrap();
        log[first..=last]
            .split(|&p| p <= level)
            .map(|run| run.len())
            .max()
            .unwrap_or(0)
    }

    fn count(&self, level: Priority) -> usize {
        self.0
            .lock()
            .unwrap()
            .iter()
            .filter(|&&p| p == level)
            .count()
    }
}

/// Three `High` tasks yield in a loop, forever unless stopped; a `Normal`
/// and a `Low` task yield 20 times each. Both still finish, and neither
/// waits for more than the documented bound of `High` polls in a row.
#[test]
fn low_and_normal_tasks_complete_under_a_continuous_high_stream() {
    const YIELDS: usize = 20;
    let bound = MAX_HIGHER_POLLS_IN_A_ROW;
    for rt in [one_worker(), current_thread()] {
        let log = PollLog::default();
        let lower_done = Arc::new(AtomicUsize::new(0));
        let highs: Vec<_> = (0..3)
            .map(|_| {
                let (log, lower_done) = (log.clone(), lower_done.clone());
                spawn_on(rt.handle(), Priority::High, async move {
                    while lower_done.load(Ordering::Relaxed) < 2 {
                        log.polled();
                        task::yield_now().await;
                    }
                })
            })
            .collect();
        let lower: Vec<_> = [Priority::Normal, Priority::Low]
            .into_iter()
            .map(|priority| {
                let (log, lower_done) = (log.clone(), lower_done.clone());
                spawn_on(rt.handle(), priority, async move {
                    for _ in 0..YIELDS {
                        log.polled();
                        task::yield_now().await;
                    }
                    lower_done.fetch_add(1, Ordering::Relaxed);
                })
            })
            .collect();
        rt.block_on(async move {
            for task in lower.into_iter().chain(highs) {
                task.await.unwrap();
            }
        });
        assert_eq!(log.count(Priority::Low), YIELDS);
        assert_eq!(log.count(Priority::Normal), YIELDS);
        assert!(log.count(Priority::High) > YIELDS, "the High stream ran");
        assert!(log.longest_wait_of(Priority::Low) <= bound);
        assert!(log.longest_wait_of(Priority::Normal) <= bound);
    }
}

#[test]
fn spawned_tasks_do_not_inherit_priority() {
    let rt = one_worker();
    let (outer, inner) = rt.block_on(async {
        spawn(Priority::High, async {
            let inner = rt::spawn(async { task::priority() }).await.unwrap();
            (task::priority(), inner)
        })
        .await
        .unwrap()
    });
    assert_eq!((outer, inner), (Priority::High, Priority::Normal));
    assert_eq!(task::priority(), Priority::Normal);
}

/// The wake-ups, lowest priority first, so that wake order alone would
/// give the wrong answer.
const WOKEN: [(Priority, &str); 3] = [
    (Priority::Low, "low"),
    (Priority::Normal, "normal"),
    (Priority::High, "high"),
];

/// Spawns one task per entry of `WOKEN`, each awaiting the future that
/// `make` returns beside its trigger (a oneshot sender, a socket's peer),
/// then recording its name. Returns the triggers and the tasks once each
/// task has been polled (and so registered its waker).
fn spawn_waiting<T, F>(
    rt: &Runtime,
    order: &RunOrder,
    mut make: impl FnMut() -> (T, F),
) -> (Vec<T>, Vec<JoinHandle<()>>)
where
    F: Future<Output = ()> + Send + 'static,
{
    let (polled, on_polled) = mpsc::channel();
    let (triggers, tasks) = WOKEN
        .iter()
        .map(|&(priority, name)| {
            let (trigger, wait) = make();
            let (order, polled) = (order.clone(), polled.clone());
            let task = spawn_on(rt.handle(), priority, async move {
                let mut wait = std::pin::pin!(wait);
                let first = std::future::poll_fn(|cx| Poll::Ready(wait.as_mut().poll(cx))).await;
                assert!(first.is_pending(), "woken before its first poll");
                polled.send(()).unwrap();
                wait.await;
                order.record(name);
            });
            (trigger, task)
        })
        .unzip();
    if rt.handle().runtime_flavor() == RuntimeFlavor::CurrentThread {
        wait_in_block_on(rt, &on_polled, WOKEN.len());
    } else {
        for _ in WOKEN {
            on_polled.recv().unwrap();
        }
    }
    (triggers, tasks)
}

/// A oneshot: its sender, and a future of its message.
fn oneshot() -> (
    rt::sync::oneshot::Sender<()>,
    impl Future<Output = ()> + Send + 'static,
) {
    let (tx, rx) = rt::sync::oneshot::channel::<()>();
    (tx, async move { rx.await.unwrap() })
}

/// Runs the current-thread `rt` until `count` messages have arrived.
fn wait_in_block_on(rt: &Runtime, messages: &mpsc::Receiver<()>, count: usize) {
    rt.block_on(async {
        let mut received = 0;
        while received < count {
            received += messages.try_iter().count();
            task::yield_now().await;
        }
    });
}

fn join_all(rt: &Runtime, tasks: Vec<JoinHandle<()>>) {
    rt.block_on(async move {
        for task in tasks {
            task.await.unwrap();
        }
    });
}

#[test]
fn woken_from_another_thread_tasks_keep_their_priority() {
    // Multi-thread: woken while the worker is held, into the global queues.
    let rt = one_worker();
    let order = RunOrder::default();
    let (senders, tasks) = spawn_waiting(&rt, &order, oneshot);
    let (release, holder) = hold_the_worker(&rt);
    thread::spawn(move || senders.into_iter().for_each(|tx| tx.send(()).unwrap()))
        .join()
        .unwrap();
    drop(release);
    rt.block_on(holder).unwrap();
    join_all(&rt, tasks);
    assert_eq!(order.get(), ["high", "normal", "low"]);

    // Current-thread: woken while nothing runs the scheduler.
    let rt = current_thread();
    let order = RunOrder::default();
    let (senders, tasks) = spawn_waiting(&rt, &order, oneshot);
    thread::spawn(move || senders.into_iter().for_each(|tx| tx.send(()).unwrap()))
        .join()
        .unwrap();
    join_all(&rt, tasks);
    assert_eq!(order.get(), ["high", "normal", "low"]);
}

#[test]
fn woken_by_a_task_on_the_same_worker_tasks_keep_their_priority() {
    for rt in [one_worker(), current_thread()] {
        let order = RunOrder::default();
        let (senders, tasks) = spawn_waiting(&rt, &order, oneshot);
        // The waker is a `Normal` task: each woken task still queues at
        // its own priority, and `High` runs first once the waker is done.
        let waker = rt.spawn(async move {
            for tx in senders {
                tx.send(()).unwrap();
            }
        });
        rt.block_on(waker).unwrap();
        join_all(&rt, tasks);
        assert_eq!(order.get(), ["high", "normal", "low"]);
    }
}

/// Three tasks wait to read a socket; all three become readable while the
/// worker is held, so one turn of the reactor wakes them together.
#[test]
fn woken_by_the_reactor_tasks_keep_their_priority() {
    use rt::io::AsyncReadExt;
    use std::io::Write;
    /// A socket pair: the peer to write to, and a future reading a byte.
    fn socket() -> (
        std::os::unix::net::UnixStream,
        impl Future<Output = ()> + Send + 'static,
    ) {
        let (reader, writer) = std::os::unix::net::UnixStream::pair().unwrap();
        reader.set_nonblocking(true).unwrap();
        let read = async move {
            let mut reader = rt::net::UnixStream::from_std(reader).unwrap();
            reader.read_exact(&mut [0u8]).await.unwrap();
        };
        (writer, read)
    }
    for rt in [one_worker(), current_thread()] {
        let order = RunOrder::default();
        let (writers, tasks) = spawn_waiting(&rt, &order, socket);
        let write_all = move || {
            for mut writer in writers {
                writer.write_all(b"x").unwrap();
            }
        };
        if rt.handle().runtime_flavor() == RuntimeFlavor::CurrentThread {
            write_all();
        } else {
            let (release, holder) = hold_the_worker(&rt);
            write_all();
            drop(release);
            rt.block_on(holder).unwrap();
        }
        join_all(&rt, tasks);
        assert_eq!(order.get(), ["high", "normal", "low"]);
    }
}

#[test]
fn metrics_count_queued_tasks_and_polls_by_priority() {
    let rt = one_worker();
    let metrics = rt.metrics();
    let (release, holder) = hold_the_worker(&rt);
    let mut tasks = Vec::new();
    for (priority, count) in [
        (Priority::High, 2),
        (Priority::Normal, 1),
        (Priority::Low, 3),
    ] {
        for _ in 0..count {
            tasks.push(spawn_on(rt.handle(), priority, async {}));
        }
    }
    assert_eq!(metrics.priority_queue_depth(Priority::High), 2);
    assert_eq!(metrics.priority_queue_depth(Priority::Normal), 1);
    assert_eq!(metrics.priority_queue_depth(Priority::Low), 3);
    drop(release);
    rt.block_on(holder).unwrap();
    join_all(&rt, tasks);
    for priority in HIGHEST_FIRST {
        assert_eq!(metrics.priority_queue_depth(priority), 0);
    }
    assert_eq!(metrics.priority_poll_count(Priority::High), 2);
    // The holder, then the task.
    assert_eq!(metrics.priority_poll_count(Priority::Normal), 2);
    assert_eq!(metrics.priority_poll_count(Priority::Low), 3);
}
