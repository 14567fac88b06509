//! A lease-based lock service over TCP with a planted ordering bug, found
//! by a sweep of simulation seeds (feature `sim`).
//!
//! Host `locksmith` grants a lock as a lease: a worker sends
//! `ACQUIRE <name>` and gets `GRANTED` (for 50 ms) or `BUSY`, and sends
//! `RELEASE` when done. Host `storage` stands for the resource the lock
//! guards: it answers `CONFLICT` when a worker `ENTER`s while another is
//! inside. Three workers each take the lock a few times, over their own
//! connections, on jittery links.
//!
//! The bug: the locksmith checks that the lock is free, then records the
//! grant durably (a seeded 0-2 ms write) before it takes the lock; two
//! `ACQUIRE`s that arrive within that window are both granted. Only some
//! schedules put two requests there. The fix holds the lock's state
//! across the check, the write and the grant.
//!
//! ```sh
//! cargo run --release -p rt --features sim --example sim_lease_lock            # sweep 1000 seeds
//! cargo run --release -p rt --features sim --example sim_lease_lock -- --fixed # the bug removed
//! RT_SIM_SEED=<seed> cargo run -p rt --features sim --example sim_lease_lock  # replay one seed
//! ```
//!
//! It prints the first failing seed (or that every seed passed), and the
//! sweep's throughput: seeds per minute, task polls and delivered
//! network messages per second.

use rt::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use rt::net::{TcpListener, TcpStream};
use rt::sim::{Sim, sweep};
use rt::sync::Mutex;
use std::sync::Arc;
use std::time::{Duration, Instant};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

const WORKERS: usize = 3;
const ROUNDS: usize = 3;
const LEASE: Duration = Duration::from_millis(50);

/// The lock's state at the locksmith: who holds it, until when.
#[derive(Default)]
struct Lease {
    holder: Option<(String, rt::time::Instant)>,
}

impl Lease {
    fn is_free(&self) -> bool {
        self.holder
            .as_ref()
            .is_none_or(|(_, until)| *until <= rt::time::Instant::now())
    }
}

pub(crate) fn system(sim: &mut Sim, fixed: bool) {
    sim.latency(Duration::from_millis(1), Duration::from_millis(4));
    sim.host("locksmith", move || locksmith(fixed));
    sim.host("storage", storage);
    for worker in 0..WORKERS {
        sim.client(format!("worker-{worker}"), work(format!("worker-{worker}")));
    }
}

/// The lock service: one task per connection, one lease shared by all.
async fn locksmith(fixed: bool) -> Result<(), BoxError> {
    let listener = TcpListener::bind("0.0.0.0:7000").await?;
    let lease = Arc::new(Mutex::new(Lease::default()));
    loop {
        let (stream, _) = listener.accept().await?;
        let lease = lease.clone();
        rt::spawn(async move {
            // A connection's end (its worker finished) ends its task.
            let _ = serve_lock(stream, lease, fixed).await;
        });
    }
}

async fn serve_lock(
    stream: TcpStream,
    lease: Arc<Mutex<Lease>>,
    fixed: bool,
) -> Result<(), BoxError> {
    let (read, mut write) = stream.into_split();
    let mut lines = BufReader::new(read).lines();
    while let Some(line) = lines.next_line().await? {
        let reply = match line.split_once(' ') {
            Some(("ACQUIRE", name)) => {
                if acquire(&lease, name, fixed).await {
                    "GRANTED\n"
                } else {
                    "BUSY\n"
                }
            }
            Some(("RELEASE", name)) => {
                let mut state = lease.lock().await;
                if state
                    .holder
                    .as_ref()
                    .is_some_and(|(holder, _)| holder == name)
                {
                    state.holder = None;
                }
                "RELEASED\n"
            }
            _ => return Err(format!("locksmith: bad request {line:?}").into()),
        };
        write.write_all(reply.as_bytes()).await?;
    }
    Ok(())
}

/// Grants the lease to `name` if it is free.
async fn acquire(lease: &Mutex<Lease>, name: &str, fixed: bool) -> bool {
    let durable_write = Duration::from_millis(rt::sim::random_u64() % 3);
    if fixed {
        let mut state = lease.lock().await;
        if !state.is_free() {
            return false;
        }
        rt::time::sleep(durable_write).await;
        state.holder = Some((name.to_owned(), rt::time::Instant::now() + LEASE));
        return true;
    }
    // The planted bug: check, write, then take; another request may pass
    // the check during the write.
    if !lease.lock().await.is_free() {
        return false;
    }
    rt::time::sleep(durable_write).await;
    lease.lock().await.holder = Some((name.to_owned(), rt::time::Instant::now() + LEASE));
    true
}

/// The guarded resource: notices two workers inside at once.
async fn storage() -> Result<(), BoxError> {
    let listener = TcpListener::bind("0.0.0.0:9000").await?;
    let inside: Arc<Mutex<Option<String>>> = Arc::default();
    loop {
        let (stream, _) = listener.accept().await?;
        let inside = inside.clone();
        rt::spawn(async move {
            let _ = serve_storage(stream, inside).await;
        });
    }
}

async fn serve_storage(
    stream: TcpStream,
    inside: Arc<Mutex<Option<String>>>,
) -> Result<(), BoxError> {
    let (read, mut write) = stream.into_split();
    let mut lines = BufReader::new(read).lines();
    while let Some(line) = lines.next_line().await? {
        let reply = match line.split_once(' ') {
            Some(("ENTER", name)) => {
                let mut inside = inside.lock().await;
                match inside.as_deref() {
                    Some(other) => format!("CONFLICT {other} is inside\n"),
                    None => {
                        *inside = Some(name.to_owned());
                        "OK\n".to_owned()
                    }
                }
            }
            Some(("LEAVE", name)) => {
                let mut inside = inside.lock().await;
                if inside.as_deref() == Some(name) {
                    *inside = None;
                }
                "OK\n".to_owned()
            }
            _ => return Err(format!("storage: bad request {line:?}").into()),
        };
        write.write_all(reply.as_bytes()).await?;
    }
    Ok(())
}

/// A connection that sends one line and reads one back.
struct Line {
    lines: rt::io::Lines<BufReader<rt::net::tcp::OwnedReadHalf>>,
    write: rt::net::tcp::OwnedWriteHalf,
}

impl Line {
    async fn connect(addr: &str) -> Result<Line, BoxError> {
        let (read, write) = TcpStream::connect(addr).await?.into_split();
        Ok(Line {
            lines: BufReader::new(read).lines(),
            write,
        })
    }

    async fn ask(&mut self, request: &str) -> Result<String, BoxError> {
        self.write
            .write_all(format!("{request}\n").as_bytes())
            .await?;
        let answer = self.lines.next_line().await?;
        answer.ok_or_else(|| format!("no answer to {request:?}: the connection ended").into())
    }
}

/// A worker: takes the lock `ROUNDS` times and uses the resource under it.
async fn work(name: String) -> Result<(), BoxError> {
    let mut lock = Line::connect("locksmith:7000").await?;
    let mut storage = Line::connect("storage:9000").await?;
    for _ in 0..ROUNDS {
        // Workers arrive now and then.
        rt::time::sleep(Duration::from_millis(rt::sim::random_u64() % 300)).await;
        while lock.ask(&format!("ACQUIRE {name}")).await? != "GRANTED" {
            rt::time::sleep(Duration::from_millis(1 + rt::sim::random_u64() % 5)).await;
        }
        let entered = storage.ask(&format!("ENTER {name}")).await?;
        if entered != "OK" {
            return Err(format!("{name} holds the lease, but {entered}").into());
        }
        rt::time::sleep(Duration::from_millis(rt::sim::random_u64() % 5)).await;
        storage.ask(&format!("LEAVE {name}")).await?;
        lock.ask(&format!("RELEASE {name}")).await?;
    }
    Ok(())
}

fn main() {
    let fixed = std::env::args().any(|arg| arg == "--fixed");
    let seeds = 1000u64;
    let start = Instant::now();
    let outcome = sweep(0..seeds, |sim| system(sim, fixed));
    let took = start.elapsed();
    match outcome {
        Ok(report) => {
            let secs = took.as_secs_f64();
            println!(
                "all {} seeds passed in {took:.2?}: {:.0} seeds/minute, {:.0} polls/second and \
                 {:.0} messages/second ({} polls, {} messages)",
                report.runs(),
                report.runs() as f64 * 60.0 / secs,
                report.polls() as f64 / secs,
                report.messages() as f64 / secs,
                report.polls(),
                report.messages()
            );
        }
        Err(failure) => {
            println!("found in {took:.2?}: {failure}");
            std::process::exit(1);
        }
    }
}
