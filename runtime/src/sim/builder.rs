//! `Sim`: what a simulation is made of (a seed, hosts, clients, limits)
//! before it runs.

use crate::sim::executor::{Handle, Limits};
use crate::sim::net::{NetConfig, ticks_of};
use crate::sim::nodes::{HostFactory, NodeSpec, RootFuture, Start};
use crate::sim::outcome::{BoxError, SimError, SimReport};
use crate::sim::sweep;
use std::fmt;
use std::future::Future;
use std::time::Duration;

/// The default of [`Sim::max_steps`].
const DEFAULT_MAX_STEPS: u64 = 1_000_000;
/// The default of [`Sim::max_time`].
const DEFAULT_MAX_TIME: Duration = Duration::from_secs(3600);

/// A deterministic simulation: a seed, hosts and clients. [`run`](Sim::run)
/// runs it on the calling thread; the same seed runs the same schedule.
/// See the [module docs](crate::sim) for how, and for a worked example.
///
/// # Examples
///
/// ```
/// use rt::sim::Sim;
/// use std::time::Duration;
///
/// let mut sim = Sim::new(2024);
/// let (tx, rx) = rt::sync::mpsc::channel::<u32>(8);
/// let rx = std::sync::Mutex::new(Some(rx));
/// sim.host("doubler", move || {
///     let mut rx = rx.lock().unwrap().take().expect("started once");
///     async move {
///         while let Some(n) = rx.recv().await {
///             rt::time::sleep(Duration::from_millis(u64::from(n))).await;
///         }
///         Ok::<_, std::io::Error>(())
///     }
/// });
/// sim.client("client", async move {
///     for n in 1..=3 {
///         tx.send(n).await.map_err(|_| "the doubler is gone")?;
///     }
///     Ok::<_, Box<dyn std::error::Error + Send + Sync>>(())
/// });
/// let report = sim.run().unwrap();
/// assert_eq!(report.seed(), 2024);
/// ```
pub struct Sim {
    seed: u64,
    nodes: Vec<NodeSpec>,
    max_steps: u64,
    max_time: Duration,
    net: NetConfig,
}

impl Sim {
    /// A simulation that uses exactly `seed`.
    ///
    /// # Examples
    ///
    /// ```
    /// assert_eq!(rt::sim::Sim::new(7).seed(), 7);
    /// ```
    pub fn new(seed: u64) -> Sim {
        Sim {
            seed,
            nodes: Vec::new(),
            max_steps: DEFAULT_MAX_STEPS,
            max_time: DEFAULT_MAX_TIME,
            net: NetConfig::default(),
        }
    }

    /// A simulation seeded by `RT_SIM_SEED` from the environment (decimal,
    /// or hex after `0x`), or else by a fresh seed, which it prints to
    /// standard error so that a failing run can be replayed.
    ///
    /// # Panics
    ///
    /// Panics if `RT_SIM_SEED` is set but is not a number.
    ///
    /// # Examples
    ///
    /// ```
    /// let sim = rt::sim::Sim::from_env();
    /// if let Ok(seed) = std::env::var("RT_SIM_SEED") {
    ///     assert_eq!(sim.seed().to_string(), seed);
    /// }
    /// ```
    #[track_caller]
    pub fn from_env() -> Sim {
        let seed = sweep::env_seed().unwrap_or_else(|| {
            let seed = sweep::fresh_seed();
            eprintln!("rt::sim: seed {seed} (replay with RT_SIM_SEED={seed})");
            seed
        });
        Sim::new(seed)
    }

    /// The seed this simulation runs with.
    ///
    /// # Examples
    ///
    /// ```
    /// assert_eq!(rt::sim::Sim::new(1).seed(), 1);
    /// ```
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Adds a host: `server` builds its future, at the start of the run
    /// and again at each [`restart`](crate::sim::restart) (so state kept
    /// in the future starts afresh, as in a new process). The future
    /// returning `Err`, or panicking, fails the run; returning `Ok(())`
    /// ends the server (its other tasks go on).
    ///
    /// # Panics
    ///
    /// Panics if a host or client with this name was already added.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut sim = rt::sim::Sim::new(1);
    /// sim.host("idle", || std::future::pending::<Result<(), std::io::Error>>());
    /// sim.client("c", async { Ok::<_, std::io::Error>(()) });
    /// sim.run().unwrap();
    /// ```
    #[track_caller]
    pub fn host<N, F, Fut, E>(&mut self, name: N, mut server: F) -> &mut Sim
    where
        N: Into<String>,
        F: FnMut() -> Fut + Send + 'static,
        Fut: Future<Output = Result<(), E>> + Send + 'static,
        E: Into<BoxError>,
    {
        let factory: HostFactory = Box::new(move || boxed(server()));
        self.add(name.into(), Start::Host(factory))
    }

    /// Adds a client: the run ends when every client's future has
    /// returned `Ok(())`. `Err`, or a panic, fails the run.
    ///
    /// # Panics
    ///
    /// Panics if a host or client with this name was already added.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut sim = rt::sim::Sim::new(1);
    /// sim.client("adder", async {
    ///     let sum = rt::spawn(async { 1 + 1 }).await?;
    ///     assert_eq!(sum, 2);
    ///     Ok::<_, rt::task::JoinError>(())
    /// });
    /// sim.run().unwrap();
    /// ```
    #[track_caller]
    pub fn client<N, F, E>(&mut self, name: N, client: F) -> &mut Sim
    where
        N: Into<String>,
        F: Future<Output = Result<(), E>> + Send + 'static,
        E: Into<BoxError>,
    {
        self.add(name.into(), Start::Client(boxed(client)))
    }

    #[track_caller]
    fn add(&mut self, name: String, start: Start) -> &mut Sim {
        assert!(
            !self.nodes.iter().any(|node| node.name == name),
            "rt::sim: a host or client named `{name}` was already added; give each a name of \
             its own"
        );
        self.nodes.push(NodeSpec {
            name,
            start,
            location: std::panic::Location::caller(),
        });
        self
    }

    /// Stops the run with [`SimFailure::StepLimit`](crate::sim::SimFailure::StepLimit)
    /// after `steps` steps (a step is a task poll or a jump of the
    /// clock). The default is 1,000,000: a livelock fails instead of
    /// spinning forever.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::sim::{Sim, SimFailure};
    /// let mut sim = Sim::new(1);
    /// sim.max_steps(100).client("spinner", async {
    ///     loop {
    ///         rt::task::yield_now().await;
    ///     }
    ///     #[allow(unreachable_code)]
    ///     Ok::<_, std::io::Error>(())
    /// });
    /// let err = sim.run().unwrap_err();
    /// assert!(matches!(err.failure(), SimFailure::StepLimit { limit: 100 }));
    /// assert_eq!(err.polls(), 100);
    /// ```
    pub fn max_steps(&mut self, steps: u64) -> &mut Sim {
        self.max_steps = steps;
        self
    }

    /// Stops the run with [`SimFailure::TimeLimit`](crate::sim::SimFailure::TimeLimit)
    /// when the clock would jump past `limit` of simulated time. The
    /// default is one hour.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::sim::{Sim, SimFailure};
    /// use std::time::Duration;
    /// let mut sim = Sim::new(1);
    /// sim.max_time(Duration::from_secs(60)).client("sleepy", async {
    ///     rt::time::sleep(Duration::from_secs(61)).await;
    ///     Ok::<_, std::io::Error>(())
    /// });
    /// let err = sim.run().unwrap_err();
    /// assert!(matches!(err.failure(), SimFailure::TimeLimit { .. }));
    /// ```
    pub fn max_time(&mut self, limit: Duration) -> &mut Sim {
        self.max_time = limit;
        self
    }

    /// The latency of every link of the simulated network: each packet
    /// draws one, seeded, in `min..=max` (default: 1 ms both). The clock
    /// moves in whole 1 ms ticks (the timer's resolution), so a latency
    /// rounds up to whole milliseconds, and one below 1 ms (zero too) is
    /// 1 ms; a node's packets to itself (loopback) take no time. Set one
    /// link's latency during the run with
    /// [`set_latency`](crate::sim::set_latency).
    ///
    /// # Panics
    ///
    /// Panics if `max` is below `min`.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let mut sim = rt::sim::Sim::new(1);
    /// sim.latency(Duration::from_millis(5), Duration::from_millis(50));
    /// ```
    #[track_caller]
    pub fn latency(&mut self, min: Duration, max: Duration) -> &mut Sim {
        assert!(
            min <= max,
            "rt::sim: `Sim::latency({min:?}, {max:?})`: the maximum is below the minimum"
        );
        self.net.latency = (ticks_of(min), ticks_of(max));
        self
    }

    /// The chance, in `0.0..=1.0`, that a UDP datagram is lost on its way
    /// (a seeded draw per datagram; default 0: none is lost).
    ///
    /// # Panics
    ///
    /// Panics if `p` is not in `0.0..=1.0`.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut sim = rt::sim::Sim::new(1);
    /// sim.udp_loss(0.1);
    /// ```
    #[track_caller]
    pub fn udp_loss(&mut self, p: f64) -> &mut Sim {
        self.net.udp_loss = probability(p, "udp_loss");
        self
    }

    /// The chance, in `0.0..=1.0`, that a UDP datagram that is not lost
    /// arrives twice (a seeded draw per datagram; default 0: never).
    ///
    /// # Panics
    ///
    /// Panics if `p` is not in `0.0..=1.0`.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut sim = rt::sim::Sim::new(1);
    /// sim.udp_duplication(0.05);
    /// ```
    #[track_caller]
    pub fn udp_duplication(&mut self, p: f64) -> &mut Sim {
        self.net.udp_duplication = probability(p, "udp_duplication");
        self
    }

    /// How long a TCP connect waits for an answer (across a partition, to
    /// an address no node has) before it fails with `TimedOut`; default
    /// 5 s of simulated time. Rounded up to whole 1 ms ticks, at least
    /// one. (Linux retries a SYN for about two minutes; a shorter wait
    /// keeps simulated runs short, and tests rarely depend on its length.)
    /// `Duration::MAX` is no timeout: the connect waits until the link
    /// heals, and one that nothing else can end is a deadlock.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let mut sim = rt::sim::Sim::new(1);
    /// sim.connect_timeout(Duration::from_millis(300));
    /// sim.host("far", || std::future::pending::<Result<(), std::io::Error>>());
    /// sim.client("c", async {
    ///     rt::sim::partition("c", "far");
    ///     let start = rt::time::Instant::now();
    ///     let err = rt::net::TcpStream::connect("far:80").await.unwrap_err();
    ///     assert_eq!(err.kind(), std::io::ErrorKind::TimedOut);
    ///     assert_eq!(start.elapsed(), Duration::from_millis(300));
    ///     Ok::<_, std::io::Error>(())
    /// });
    /// sim.run().unwrap();
    /// ```
    pub fn connect_timeout(&mut self, timeout: Duration) -> &mut Sim {
        self.net.connect_timeout = ticks_of(timeout);
        self
    }

    /// Runs the simulation on this thread until every client has
    /// finished, then drops whatever tasks are left (the hosts' servers).
    ///
    /// # Errors
    ///
    /// A [`SimError`] when a host or client failed (`Err` or a panic), on
    /// a deadlock, or at a limit; it names the seed, the simulated time
    /// and the trace hash.
    ///
    /// # Panics
    ///
    /// Panics when called inside a runtime (a task, `block_on`, so also
    /// under `#[rt::test]`, or another simulation), and
    /// when no client was added (the run would have no end).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut sim = rt::sim::Sim::new(1);
    /// sim.client("c", async { Ok::<_, std::io::Error>(()) });
    /// assert_eq!(sim.run().unwrap().polls(), 1);
    /// ```
    #[track_caller]
    pub fn run(self) -> Result<SimReport, SimError> {
        assert!(
            !crate::runtime::context::is_entered(),
            "rt::sim: `Sim::run` called inside a runtime (a task, `block_on`, `#[rt::test]` or \
             `#[rt::main]`, or another simulation): a simulation is a runtime of its own and \
             drives the calling thread. Call it from a plain `#[test]` or `fn main`."
        );
        assert!(
            self.nodes
                .iter()
                .any(|node| matches!(node.start, Start::Client(_))),
            "rt::sim: `Sim::run` needs at least one client (`Sim::client`): the run ends when \
             every client has finished"
        );
        let limits = Limits {
            max_steps: self.max_steps,
            max_time: self.max_time,
        };
        let (handle, driver) = Handle::new(self.seed, self.nodes, self.net);
        Handle::run(&handle, driver, limits)
    }
}

/// `p` if it is a probability.
#[track_caller]
fn probability(p: f64, setting: &str) -> f64 {
    assert!(
        (0.0..=1.0).contains(&p),
        "rt::sim: `Sim::{setting}({p})`: a probability is in 0.0..=1.0"
    );
    p
}

fn boxed<F, E>(future: F) -> RootFuture
where
    F: Future<Output = Result<(), E>> + Send + 'static,
    E: Into<BoxError>,
{
    Box::pin(async move { future.await.map_err(Into::into) })
}

impl fmt::Debug for Sim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sim")
            .field("seed", &self.seed)
            .field("nodes", &self.nodes)
            .field("max_steps", &self.max_steps)
            .field("max_time", &self.max_time)
            .field("net", &self.net)
            .finish()
    }
}
