//! A job queue as a tokio user writes it: many producers on a bounded
//! `mpsc`, workers limited by a `Semaphore`, CPU work on `spawn_blocking`
//! and `block_in_place`, jobs that panic, a job aborted from another
//! thread while it waits, and `JoinSet::shutdown` at the end.

use rt::sync::{Semaphore, mpsc, oneshot};
use rt::task::JoinSet;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::Poll;

const PRODUCERS: u64 = 8;
const JOBS_EACH: u64 = 50;
const WORKERS: usize = 3;

/// Counts the jobs running at once and remembers the most seen.
#[derive(Default)]
struct Running {
    now: AtomicUsize,
    most: AtomicUsize,
}

impl Running {
    fn enter(&self) {
        let now = self.now.fetch_add(1, Ordering::SeqCst) + 1;
        self.most.fetch_max(now, Ordering::SeqCst);
    }

    fn leave(&self) {
        self.now.fetch_sub(1, Ordering::SeqCst);
    }
}

fn cpu_work(job: u64) -> u64 {
    (0..=job % 100).sum::<u64>() + job
}

#[rt::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_job_runs_once_within_the_worker_limit() {
    let (jobs, mut queue) = mpsc::channel::<u64>(4);
    for producer in 0..PRODUCERS {
        let jobs = jobs.clone();
        rt::spawn(async move {
            for i in 0..JOBS_EACH {
                jobs.send(producer * 1000 + i).await.unwrap();
            }
        });
    }
    drop(jobs);

    let limit = Arc::new(Semaphore::new(WORKERS));
    let running = Arc::new(Running::default());
    let mut workers = JoinSet::new();
    while let Some(job) = queue.recv().await {
        let permit = limit.clone().acquire_owned().await.unwrap();
        let running = running.clone();
        workers.spawn(async move {
            running.enter();
            let out = match job % 3 {
                0 => rt::task::spawn_blocking(move || cpu_work(job))
                    .await
                    .unwrap(),
                1 => rt::task::block_in_place(|| cpu_work(job)),
                _ => cpu_work(job),
            };
            running.leave();
            drop(permit);
            out
        });
    }

    let mut total = 0;
    let mut done = 0;
    while let Some(out) = workers.join_next().await {
        total += out.unwrap();
        done += 1;
    }
    let expected: u64 = (0..PRODUCERS)
        .flat_map(|p| (0..JOBS_EACH).map(move |i| cpu_work(p * 1000 + i)))
        .sum();
    assert_eq!((done, total), (PRODUCERS * JOBS_EACH, expected));
    assert!(running.most.load(Ordering::SeqCst) <= WORKERS);
    assert_eq!(limit.available_permits(), WORKERS);
}

#[rt::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_job_reports_its_payload_and_the_others_finish() {
    let mut workers = JoinSet::new();
    for job in 0..10u32 {
        workers.spawn(async move {
            rt::task::yield_now().await;
            assert_ne!(job, 3, "job 3 failed");
            job
        });
    }
    let mut finished = Vec::new();
    let mut panics = Vec::new();
    while let Some(out) = workers.join_next().await {
        match out {
            Ok(job) => finished.push(job),
            Err(e) => panics.push(e.into_panic()),
        }
    }
    finished.sort_unstable();
    assert_eq!(finished, [0, 1, 2, 4, 5, 6, 7, 8, 9]);
    let [payload] = &panics[..] else {
        panic!("{} panics", panics.len())
    };
    let message = payload.downcast_ref::<String>().unwrap();
    assert!(message.contains("job 3 failed"), "{message}");
}

/// Aborted from a plain thread while it waits, a job ends cancelled and
/// drops what it held (here, the only sender of its result), while the
/// job beside it is untouched.
#[rt::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_aborted_from_another_thread_while_it_waits_is_cancelled() {
    for _ in 0..50 {
        let (started_tx, started) = oneshot::channel::<()>();
        let (result_tx, result) = oneshot::channel::<u32>();
        let (_never_tx, never) = oneshot::channel::<()>();
        let job = rt::spawn(async move {
            started_tx.send(()).unwrap();
            let _ = never.await;
            result_tx.send(1).unwrap();
        });
        let beside = rt::spawn(async { 2 });
        started.await.unwrap();
        let abort = job.abort_handle();
        std::thread::spawn(move || abort.abort()).join().unwrap();
        assert!(job.await.unwrap_err().is_cancelled());
        assert!(
            result.await.is_err(),
            "the aborted job's sender was dropped"
        );
        assert_eq!(beside.await.unwrap(), 2);
    }
}

/// `shutdown` aborts the jobs that wait and waits for a blocking job
/// that already runs (it cannot be stopped), as tokio's.
#[rt::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_cancels_waiting_jobs_and_waits_for_a_running_blocking_one() {
    let mut workers = JoinSet::new();
    let (running_tx, running) = oneshot::channel::<()>();
    let (release, released) = std::sync::mpsc::channel::<()>();
    let finished = Arc::new(AtomicUsize::new(0));
    let blocking_finished = finished.clone();
    workers.spawn_blocking(move || {
        running_tx.send(()).unwrap();
        released.recv().unwrap();
        blocking_finished.fetch_add(1, Ordering::SeqCst);
    });
    for _ in 0..5 {
        workers.spawn(std::future::pending::<()>());
    }
    running.await.unwrap();
    {
        let shutdown = workers.shutdown();
        rt::pin!(shutdown);
        // The blocking job holds the shutdown until it is released.
        let first = std::future::poll_fn(|cx| Poll::Ready(shutdown.as_mut().poll(cx))).await;
        assert!(first.is_pending());
        assert_eq!(finished.load(Ordering::SeqCst), 0);
        release.send(()).unwrap();
        shutdown.await;
    }
    assert_eq!(finished.load(Ordering::SeqCst), 1);
    assert!(workers.is_empty());
}
