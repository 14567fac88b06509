//! How long a latency-sensitive task waits for a worker while every worker
//! is busy with bulk work: a ping task answers a request every 1 ms from
//! a plain thread (a channel round trip), while `LOW_TASKS` tasks loop on
//! `WORK_PER_POLL` of CPU work and `yield_now`. Prints the round trip's
//! p50, p99 and max, and the bulk tasks' polls per second, for:
//!
//! - `rt priorities`: the bulk tasks `Low`, the ping task `High`;
//! - `rt`: every task `Normal` (rt without priorities);
//! - `tokio`: the same tasks on tokio.
//!
//! ```sh
//! cargo run --release -p rt-benches --example priority_latency -- 2000
//! ```
//!
//! The argument is the number of pings per runtime (default 1000). The
//! three runs alternate `ROUNDS` times so all see the same machine.

use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const WORKERS: usize = 2;
const LOW_TASKS: usize = 64;
const WORK_PER_POLL: Duration = Duration::from_micros(20);
const PING_INTERVAL: Duration = Duration::from_millis(1);
const ROUNDS: usize = 3;

/// CPU work for about `WORK_PER_POLL`: `iterations` steps of a hash.
fn burn(iterations: u64) -> u64 {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for i in 0..iterations {
        x = black_box((x ^ i).wrapping_mul(0xBF58_476D_1CE4_E5B9).rotate_left(17));
    }
    x
}

/// The iterations of `burn` that take `WORK_PER_POLL`: the fastest of
/// several probes, since a probe the OS interrupts (a shared machine)
/// reads slow and would make every bulk poll shorter.
fn calibrate() -> u64 {
    let probe = 200_000;
    let fastest = (0..10)
        .map(|_| {
            let start = Instant::now();
            black_box(burn(probe));
            start.elapsed()
        })
        .min()
        .expect("ten probes");
    let per_iteration = fastest.as_secs_f64() / probe as f64;
    (WORK_PER_POLL.as_secs_f64() / per_iteration) as u64
}

/// Sends `pings` requests, one every `PING_INTERVAL`, and returns each
/// round trip: `request` sends one, `replies` receives the answer.
fn ping(pings: usize, request: impl Fn(), replies: &mpsc::Receiver<()>) -> Vec<Duration> {
    let mut round_trips = Vec::with_capacity(pings);
    let mut next = Instant::now();
    for _ in 0..pings {
        next += PING_INTERVAL;
        let sent = Instant::now();
        request();
        replies.recv().expect("the ping task answers");
        round_trips.push(sent.elapsed());
        if let Some(wait) = next.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
    }
    round_trips
}

/// One workload per runtime: the bulk loops, the ping task, the pings.
macro_rules! workload {
    ($name:ident, $krate:ident, $spawn_low:expr, $spawn_high:expr) => {
        fn $name(pings: usize, work: u64) -> (Vec<Duration>, f64) {
            let rt = ::$krate::runtime::Builder::new_multi_thread()
                .worker_threads(WORKERS)
                .enable_all()
                .build()
                .unwrap();
            let _enter = rt.enter();
            let stop = Arc::new(AtomicBool::new(false));
            let polls = Arc::new(AtomicU64::new(0));
            for _ in 0..LOW_TASKS {
                let (stop, polls) = (stop.clone(), polls.clone());
                $spawn_low(async move {
                    while !stop.load(Ordering::Relaxed) {
                        black_box(burn(work));
                        polls.fetch_add(1, Ordering::Relaxed);
                        ::$krate::task::yield_now().await;
                    }
                });
            }
            let (requests, mut incoming) = ::$krate::sync::mpsc::unbounded_channel::<()>();
            let (reply, replies) = mpsc::channel();
            $spawn_high(async move {
                while incoming.recv().await.is_some() {
                    reply.send(()).unwrap();
                }
            });
            let start = Instant::now();
            let polls_before = polls.load(Ordering::Relaxed);
            let round_trips = ping(pings, || requests.send(()).unwrap(), &replies);
            let polls_per_second = (polls.load(Ordering::Relaxed) - polls_before) as f64
                / start.elapsed().as_secs_f64();
            stop.store(true, Ordering::Relaxed);
            (round_trips, polls_per_second)
        }
    };
}

fn rt_with(priority: rt::task::Priority) -> rt::task::Builder<'static> {
    rt::task::Builder::new().priority(priority)
}

workload!(
    rt_priorities,
    rt,
    |f| drop(rt_with(rt::task::Priority::Low).spawn(f).unwrap()),
    |f| drop(rt_with(rt::task::Priority::High).spawn(f).unwrap())
);
workload!(rt_plain, rt, |f| drop(rt::spawn(f)), |f| drop(rt::spawn(f)));
workload!(tokio_plain, tokio, |f| drop(tokio::spawn(f)), |f| drop(
    tokio::spawn(f)
));

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    let pings: usize = std::env::args()
        .nth(1)
        .map_or(1000, |n| n.parse().expect("pings: a number"));
    let work = calibrate();
    type Run = fn(usize, u64) -> (Vec<Duration>, f64);
    let runs: [(&str, Run); 3] = [
        ("rt priorities", rt_priorities),
        ("rt", rt_plain),
        ("tokio", tokio_plain),
    ];
    let mut results: Vec<(Vec<Duration>, Vec<f64>)> = vec![(Vec::new(), Vec::new()); runs.len()];
    for _ in 0..ROUNDS {
        for ((_, run), (round_trips, throughput)) in runs.iter().zip(&mut results) {
            let (more, polls_per_second) = run(pings, work);
            round_trips.extend(more);
            throughput.push(polls_per_second);
        }
    }
    println!(
        "{WORKERS} workers, {LOW_TASKS} bulk tasks of {WORK_PER_POLL:?} per poll, \
         {} pings every {PING_INTERVAL:?} per runtime",
        pings * ROUNDS
    );
    println!("| runtime | p50 | p99 | max | bulk polls/s |");
    println!("| --- | ---: | ---: | ---: | ---: |");
    for ((name, _), (mut round_trips, throughput)) in runs.iter().zip(results) {
        round_trips.sort();
        let micros = |d: Duration| d.as_secs_f64() * 1e6;
        let mean_throughput = throughput.iter().sum::<f64>() / throughput.len() as f64;
        println!(
            "| {name} | {:.0} µs | {:.0} µs | {:.0} µs | {:.0} |",
            micros(percentile(&round_trips, 0.5)),
            micros(percentile(&round_trips, 0.99)),
            micros(*round_trips.last().unwrap()),
            mean_throughput,
        );
    }
}
