//! A replicated counter with a planted ordering bug, found by a sweep of
//! simulation seeds (feature `sim`).
//!
//! A primary host applies increments that replicas forward to it; each
//! replica serves a client and, to answer fast, reads the primary's
//! value, thinks, and writes back that value plus one instead of sending
//! "+1" (the bug: two replicas interleaving between the read and the
//! write lose an update). A checker client compares the final count with
//! the number of increments acknowledged.
//!
//! ```sh
//! cargo run --release -p rt --features sim --example sim_counter            # sweep 1000 seeds
//! cargo run --release -p rt --features sim --example sim_counter -- --fixed # the bug removed
//! RT_SIM_SEED=<seed> cargo run -p rt --features sim --example sim_counter  # replay one seed
//! ```
//!
//! It prints the first failing seed (or that every seed passed), and the
//! sweep's throughput: seeds per minute and task polls per second.

use rt::sim::{Sim, sweep};
use rt::sync::{mpsc, oneshot};
use std::time::{Duration, Instant};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

const REPLICAS: usize = 3;
const INCREMENTS_PER_CLIENT: u32 = 4;

/// What a replica asks of the primary.
enum Request {
    Read(oneshot::Sender<u32>),
    Write(u32, oneshot::Sender<()>),
    Add(u32, oneshot::Sender<()>),
}

pub(crate) fn system(sim: &mut Sim, fixed: bool) {
    let (primary_tx, primary_rx) = mpsc::channel::<Request>(16);
    // The primary's inbox is built once; a restart would find it taken.
    let inbox = std::sync::Mutex::new(Some(primary_rx));
    sim.host("primary", move || {
        let inbox = inbox.lock().unwrap().take();
        async move {
            let mut inbox = inbox.ok_or("the primary restarted, which this example never does")?;
            let mut value = 0u32;
            while let Some(request) = inbox.recv().await {
                // Storage latency: a seeded 0-2 ms per request.
                let delay = rt::sim::random_u64() % 3;
                rt::time::sleep(Duration::from_millis(delay)).await;
                match request {
                    Request::Read(reply) => {
                        let _ = reply.send(value);
                    }
                    Request::Write(new, reply) => {
                        value = new;
                        let _ = reply.send(());
                    }
                    Request::Add(delta, reply) => {
                        value += delta;
                        let _ = reply.send(());
                    }
                }
            }
            Ok::<_, BoxError>(())
        }
    });

    let (ack_tx, mut ack_rx) = mpsc::unbounded_channel::<()>();
    for replica in 0..REPLICAS {
        let (to_replica, requests) = mpsc::channel::<oneshot::Sender<()>>(4);
        let primary = primary_tx.clone();
        sim.host(format!("replica-{replica}"), {
            let requests = std::sync::Mutex::new(Some(requests));
            move || {
                let requests = requests.lock().unwrap().take();
                let primary = primary.clone();
                async move {
                    let mut requests = requests.ok_or("a replica restarted")?;
                    while let Some(done) = requests.recv().await {
                        increment(&primary, fixed).await?;
                        let _ = done.send(());
                    }
                    Ok::<_, BoxError>(())
                }
            }
        });
        let ack = ack_tx.clone();
        sim.client(format!("client-{replica}"), async move {
            for _ in 0..INCREMENTS_PER_CLIENT {
                // Users arrive now and then: replicas rarely overlap.
                let pause = rt::sim::random_u64() % 200;
                rt::time::sleep(Duration::from_millis(pause)).await;
                let (done, acked) = oneshot::channel();
                to_replica.send(done).await.map_err(|_| "replica gone")?;
                acked.await?;
                ack.send(()).map_err(|_| "checker gone")?;
            }
            Ok::<_, BoxError>(())
        });
    }
    drop(ack_tx);

    sim.client("checker", async move {
        let mut acknowledged = 0;
        while ack_rx.recv().await.is_some() {
            acknowledged += 1;
        }
        let (reply, value) = oneshot::channel();
        primary_tx
            .send(Request::Read(reply))
            .await
            .map_err(|_| "primary gone")?;
        let value = value.await?;
        if value != acknowledged {
            return Err(format!(
                "lost update: {acknowledged} increments acknowledged, counter is {value}"
            )
            .into());
        }
        Ok::<_, BoxError>(())
    });
}

/// One increment through the primary: the buggy read-then-write, or the
/// fixed single `Add`.
async fn increment(primary: &mpsc::Sender<Request>, fixed: bool) -> Result<(), BoxError> {
    let gone = |_| "primary gone";
    if fixed {
        let (reply, done) = oneshot::channel();
        primary.send(Request::Add(1, reply)).await.map_err(gone)?;
        return Ok(done.await?);
    }
    let (reply, value) = oneshot::channel();
    primary.send(Request::Read(reply)).await.map_err(gone)?;
    let value = value.await?;
    rt::task::yield_now().await;
    let (reply, done) = oneshot::channel();
    primary
        .send(Request::Write(value + 1, reply))
        .await
        .map_err(gone)?;
    Ok(done.await?)
}

fn main() {
    let fixed = std::env::args().any(|arg| arg == "--fixed");
    let seeds = 1000u64;
    let start = Instant::now();
    let outcome = sweep(0..seeds, |sim| system(sim, fixed));
    let took = start.elapsed();
    match outcome {
        Ok(report) => {
            let minutes = took.as_secs_f64() / 60.0;
            println!(
                "all {} seeds passed in {took:.2?}: {:.0} seeds/minute, {:.0} polls/second \
                 ({} polls)",
                report.runs(),
                report.runs() as f64 / minutes,
                report.polls() as f64 / took.as_secs_f64(),
                report.polls()
            );
        }
        Err(failure) => {
            println!("found in {took:.2?}: {failure}");
            std::process::exit(1);
        }
    }
}
