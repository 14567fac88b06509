//! What a run returns: a [`SimReport`] when every client finished, a
//! [`SimError`] naming the seed and what failed otherwise.

use std::error::Error;
use std::fmt;
use std::time::Duration;

/// The boxed error a host's or client's future may return.
pub(crate) type BoxError = Box<dyn Error + Send + Sync + 'static>;

/// Where a run stood when it ended: the numbers both outcomes carry.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RunStats {
    pub(crate) seed: u64,
    pub(crate) trace_hash: u64,
    pub(crate) elapsed: Duration,
    pub(crate) polls: u64,
    pub(crate) messages: u64,
}

/// A run in which every client finished: how it went.
///
/// # Examples
///
/// ```
/// let mut sim = rt::sim::Sim::new(7);
/// sim.client("sleeper", async {
///     rt::time::sleep(std::time::Duration::from_secs(30)).await;
///     Ok::<_, std::io::Error>(())
/// });
/// let report = sim.run().unwrap();
/// assert_eq!(report.elapsed(), std::time::Duration::from_secs(30));
/// assert_eq!(report.seed(), 7);
/// ```
#[derive(Clone, Debug)]
pub struct SimReport {
    stats: RunStats,
}

impl SimReport {
    pub(crate) fn new(stats: RunStats) -> SimReport {
        SimReport { stats }
    }

    /// The seed the run used.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut sim = rt::sim::Sim::new(3);
    /// sim.client("c", async { Ok::<_, std::io::Error>(()) });
    /// assert_eq!(sim.run().unwrap().seed(), 3);
    /// ```
    pub fn seed(&self) -> u64 {
        self.stats.seed
    }

    /// The hash of the schedule: every poll (by each task's per-run
    /// sequence number) and every jump of the clock, in order. Two runs
    /// with the same hash ran the same schedule.
    ///
    /// # Examples
    ///
    /// ```
    /// let run = |seed| {
    ///     let mut sim = rt::sim::Sim::new(seed);
    ///     sim.client("c", async {
    ///         let a = rt::spawn(async { rt::task::yield_now().await });
    ///         let b = rt::spawn(async { rt::task::yield_now().await });
    ///         a.await.unwrap();
    ///         b.await.unwrap();
    ///         Ok::<_, std::io::Error>(())
    ///     });
    ///     sim.run().unwrap().trace_hash()
    /// };
    /// assert_eq!(run(1), run(1));
    /// ```
    pub fn trace_hash(&self) -> u64 {
        self.stats.trace_hash
    }

    /// Simulated time from the start of the run to its end.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut sim = rt::sim::Sim::new(1);
    /// sim.client("c", async { Ok::<_, std::io::Error>(()) });
    /// assert_eq!(sim.run().unwrap().elapsed(), std::time::Duration::ZERO);
    /// ```
    pub fn elapsed(&self) -> Duration {
        self.stats.elapsed
    }

    /// How many task polls the run made.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut sim = rt::sim::Sim::new(1);
    /// sim.client("c", async { Ok::<_, std::io::Error>(()) });
    /// assert_eq!(sim.run().unwrap().polls(), 1);
    /// ```
    pub fn polls(&self) -> u64 {
        self.stats.polls
    }

    /// How many messages the simulated network delivered: TCP segments
    /// (handshakes, data, ends, resets) and UDP datagrams that reached
    /// their endpoint (not those a partition held or lost).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut sim = rt::sim::Sim::new(1);
    /// sim.client("c", async {
    ///     let socket = rt::net::UdpSocket::bind("0.0.0.0:4000").await?;
    ///     socket.send_to(b"self", "c:4000").await?;
    ///     socket.recv(&mut [0; 8]).await?;
    ///     Ok::<_, std::io::Error>(())
    /// });
    /// assert_eq!(sim.run().unwrap().messages(), 1);
    /// ```
    pub fn messages(&self) -> u64 {
        self.stats.messages
    }
}

/// What made a run fail; see [`SimError::failure`].
///
/// # Examples
///
/// ```
/// use rt::sim::{Sim, SimFailure};
/// let mut sim = Sim::new(1);
/// sim.client("stuck", async {
///     let (_tx, rx) = rt::sync::oneshot::channel::<()>();
///     let _ = rx.await; // `_tx` lives on, unused: nothing will ever send
///     Ok::<_, std::io::Error>(())
/// });
/// let err = sim.run().unwrap_err();
/// assert!(matches!(err.failure(), SimFailure::Deadlock { waiting } if waiting == &["stuck"]));
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum SimFailure {
    /// A host's or client's future returned `Err`.
    Error {
        /// The host or client.
        node: String,
        /// The error it returned.
        error: BoxError,
    },
    /// A host's or client's future panicked.
    Panic {
        /// The host or client.
        node: String,
        /// The panic's message (or a note that it had none in text).
        message: String,
    },
    /// No task was ready and no timer pending while clients had not
    /// finished: nothing could ever run again.
    Deadlock {
        /// The clients that had not finished.
        waiting: Vec<String>,
    },
    /// The simulation was reached from a thread outside it, a real thread
    /// the code started: a task of it woken, aborted or spawned there,
    /// its handle entered there (`Handle::enter`), one of its timers set
    /// or taken out there (a sleep moved there and polled, reset or
    /// dropped), or one of its sockets used there. When that happens
    /// depends on the machine's timing, which a seed cannot replay.
    OutsideThread {
        /// The woken task's host or client, if known (a task spawned from
        /// outside may have none; a socket's use names none).
        node: Option<String>,
        /// The thread's name, quoted, or its id if it has none. (Boxed:
        /// a `String` here would make every `SimError` a word larger.)
        thread: Box<str>,
    },
    /// The run made [`Sim::max_steps`](crate::sim::Sim::max_steps) steps.
    StepLimit {
        /// The limit.
        limit: u64,
    },
    /// The next timer lay past [`Sim::max_time`](crate::sim::Sim::max_time).
    TimeLimit {
        /// The limit.
        limit: Duration,
    },
}

impl SimFailure {
    /// `true` if this failure, a second run's, is `first` again: the same
    /// text, but for the thread an `OutsideThread` names, which differs
    /// from run to run when it has no name (its id is the process's
    /// count of threads).
    fn replays(&self, first: &SimFailure) -> bool {
        match (self, first) {
            (
                SimFailure::OutsideThread { node, .. },
                SimFailure::OutsideThread { node: first, .. },
            ) => node == first,
            _ => self.to_string() == first.to_string(),
        }
    }
}

/// `error` and its causes (`source()`), `: `-separated, as a user reads
/// them: a library's error often says only its kind (tonic's "transport
/// error") and keeps the cause, which names the fix, as its source. A
/// cause whose text is already there (an error that prints its source)
/// is not repeated.
fn write_chain(f: &mut fmt::Formatter<'_>, error: &(dyn Error + 'static)) -> fmt::Result {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(next) = cause {
        let next_text = next.to_string();
        if !text.contains(&next_text) {
            text.push_str(": ");
            text.push_str(&next_text);
        }
        cause = next.source();
    }
    f.write_str(&text)
}

impl fmt::Display for SimFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimFailure::Error { node, error } => {
                write!(f, "`{node}` returned an error: ")?;
                write_chain(f, &**error)
            }
            SimFailure::Panic { node, message } => write!(f, "`{node}` panicked: {message}"),
            SimFailure::Deadlock { waiting } => write!(
                f,
                "deadlock: no task is ready, no timer pending and no packet in flight, while \
                 client(s) {} have not finished (a thread outside the simulation, if one was \
                 to wake them, is not waited for)",
                waiting
                    .iter()
                    .map(|name| format!("`{name}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            SimFailure::OutsideThread { node, thread } => {
                match node {
                    Some(node) => write!(f, "a task of `{node}` was woken")?,
                    None => write!(
                        f,
                        "the simulation was reached (a task woken or spawned, its handle \
                         entered, one of its timers set, or a simulated socket used)"
                    )?,
                }
                write!(
                    f,
                    " from thread {thread}, outside the simulation: when a real thread does \
                     that depends on the machine's timing, which a seed cannot replay (the run \
                     may as well have ended, or deadlocked, before it came). Keep the work \
                     inside the simulation: a task (`rt::spawn`), or a blocking job \
                     (`rt::task::spawn_blocking`, which runs inline)"
                )
            }
            SimFailure::StepLimit { limit } => write!(
                f,
                "step limit reached: {limit} steps (raise it with `Sim::max_steps`)"
            ),
            SimFailure::TimeLimit { limit } => write!(
                f,
                "time limit reached: the next timer is past {limit:?} of simulated time \
                 (raise it with `Sim::max_time`)"
            ),
        }
    }
}

/// A failed run: what failed, with the seed that replays it, the
/// simulated time it failed at and the trace hash of its schedule.
///
/// Its `Display` says all of that, and how to replay the run
/// (`RT_SIM_SEED=<seed>`).
///
/// # Examples
///
/// ```
/// let mut sim = rt::sim::Sim::new(42);
/// sim.client("client", async {
///     rt::time::sleep(std::time::Duration::from_millis(1500)).await;
///     Err::<(), _>("no reply")
/// });
/// let err = sim.run().unwrap_err();
/// assert_eq!(err.seed(), 42);
/// assert_eq!(err.elapsed(), std::time::Duration::from_millis(1500));
/// let text = err.to_string();
/// assert!(text.contains("`client` returned an error: no reply"), "{text}");
/// assert!(text.contains("RT_SIM_SEED=42"), "{text}");
/// ```
#[derive(Debug)]
pub struct SimError {
    stats: RunStats,
    failure: SimFailure,
    /// Where to look when the run stopped at a deadlock or a limit (a
    /// thin box, as `not_replayed`).
    stuck: Option<Box<Stuck>>,
    /// Set by [`sweep`](crate::sim::sweep) when the seed, run again at
    /// once, did not fail the same way. (A thin box: `Result`s carry a
    /// `SimError`, which clippy's `result_large_err` keeps small.)
    not_replayed: Option<Box<NotReplayed>>,
}

/// How a failed seed's second run ended, when not as its first.
#[derive(Debug)]
struct NotReplayed(String);

/// What a run stopped at a deadlock or a limit leaves to look at.
#[derive(Debug, Default)]
struct Stuck {
    /// The clients that had not finished, named after a limit (a
    /// deadlock names them itself): a deadlock that a periodic timer
    /// keeps from being seen as one ends at a limit, and they are where
    /// to look.
    unfinished: Vec<String>,
    /// The tasks with no waker left (`executor.rs`, `lost_wakers`),
    /// described.
    lost_wakers: Vec<String>,
}

impl SimError {
    pub(crate) fn new(
        stats: RunStats,
        failure: SimFailure,
        unfinished: Vec<String>,
        lost_wakers: Vec<String>,
    ) -> SimError {
        let stuck = match failure {
            SimFailure::StepLimit { .. } | SimFailure::TimeLimit { .. } => Stuck {
                unfinished,
                lost_wakers,
            },
            SimFailure::Deadlock { .. } => Stuck {
                unfinished: Vec::new(),
                lost_wakers,
            },
            _ => Stuck::default(),
        };
        let stuck = (!stuck.unfinished.is_empty() || !stuck.lost_wakers.is_empty())
            .then(|| Box::new(stuck));
        SimError {
            stats,
            failure,
            stuck,
            not_replayed: None,
        }
    }

    /// This failure, checked against `again`, a second run of its seed:
    /// unless that failed the same way (the same failure, along the same
    /// schedule), the error says so, since its seed will not replay it.
    pub(crate) fn checked_against(mut self, again: Result<SimReport, SimError>) -> SimError {
        let ended = match again {
            Ok(report) => format!("passed (trace hash {:#018x})", report.trace_hash()),
            Err(again)
                if again.trace_hash() == self.trace_hash()
                    && again.failure.replays(&self.failure) =>
            {
                return self;
            }
            Err(again) => format!(
                "failed otherwise: {} (trace hash {:#018x})",
                again.failure,
                again.trace_hash()
            ),
        };
        self.not_replayed = Some(Box::new(NotReplayed(ended)));
        self
    }

    /// The seed of the failed run: `Sim::new(seed)` (or `RT_SIM_SEED`)
    /// replays it.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut sim = rt::sim::Sim::new(5);
    /// sim.client("c", async { Err::<(), _>("boom") });
    /// assert_eq!(sim.run().unwrap_err().seed(), 5);
    /// ```
    pub fn seed(&self) -> u64 {
        self.stats.seed
    }

    /// What failed.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::sim::{Sim, SimFailure};
    /// let mut sim = Sim::new(5);
    /// sim.client("c", async { Err::<(), _>("boom") });
    /// let err = sim.run().unwrap_err();
    /// assert!(matches!(err.failure(), SimFailure::Error { node, .. } if node == "c"));
    /// ```
    pub fn failure(&self) -> &SimFailure {
        &self.failure
    }

    /// The simulated time at which the run failed.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut sim = rt::sim::Sim::new(5);
    /// sim.client("c", async { Err::<(), _>("boom") });
    /// assert_eq!(sim.run().unwrap_err().elapsed(), std::time::Duration::ZERO);
    /// ```
    pub fn elapsed(&self) -> Duration {
        self.stats.elapsed
    }

    /// The hash of the schedule up to the failure (see
    /// [`SimReport::trace_hash`]): a replay that fails with the same hash
    /// followed the same schedule.
    ///
    /// # Examples
    ///
    /// ```
    /// let run = || {
    ///     let mut sim = rt::sim::Sim::new(9);
    ///     sim.client("c", async { Err::<(), _>("boom") });
    ///     sim.run().unwrap_err().trace_hash()
    /// };
    /// assert_eq!(run(), run());
    /// ```
    pub fn trace_hash(&self) -> u64 {
        self.stats.trace_hash
    }

    /// How many task polls the run made before it failed.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut sim = rt::sim::Sim::new(5);
    /// sim.client("c", async { Err::<(), _>("boom") });
    /// assert_eq!(sim.run().unwrap_err().polls(), 1);
    /// ```
    pub fn polls(&self) -> u64 {
        self.stats.polls
    }

    /// How many messages the simulated network delivered before the run
    /// failed (see [`SimReport::messages`]).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut sim = rt::sim::Sim::new(5);
    /// sim.client("c", async { Err::<(), _>("boom") });
    /// assert_eq!(sim.run().unwrap_err().messages(), 0);
    /// ```
    pub fn messages(&self) -> u64 {
        self.stats.messages
    }
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let RunStats {
            seed,
            trace_hash,
            elapsed,
            polls,
            ..
        } = self.stats;
        write!(f, "simulation failed: {}", self.failure)?;
        if let Some(stuck) = self.stuck.as_deref() {
            if !stuck.unfinished.is_empty() {
                let names: Vec<String> =
                    stuck.unfinished.iter().map(|n| format!("`{n}`")).collect();
                write!(f, ", while client(s) {} had not finished", names.join(", "))?;
            }
            if !stuck.lost_wakers.is_empty() {
                write!(
                    f,
                    "; nothing could ever wake {}: each returned `Pending` with no waker of it \
                     left (a future must hand `cx.waker()` to whatever will make it ready)",
                    stuck.lost_wakers.join(", ")
                )?;
            }
        }
        write!(
            f,
            "; seed {seed} (replay with RT_SIM_SEED={seed}), at simulated time {elapsed:?} \
             after {polls} polls, trace hash {trace_hash:#018x}"
        )?;
        if let Some(NotReplayed(ended)) = self.not_replayed.as_deref() {
            write!(
                f,
                ". But this seed did not replay: run again at once, it {ended}. The system \
                 depends on something outside the simulation, which a seed cannot replay: state \
                 kept in a `static` (or by the closure that builds the system) from an earlier \
                 run, a real thread, the real clock, or another source of randomness"
            )?;
        }
        Ok(())
    }
}

impl Error for SimError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match &self.failure {
            SimFailure::Error { error, .. } => Some(&**error),
            _ => None,
        }
    }
}
