//! Running a simulation over many seeds, and where seeds come from.

use crate::sim::builder::Sim;
use crate::sim::outcome::SimError;
use std::hash::{BuildHasher, RandomState};

/// The environment variable that replays one seed.
const SEED_VAR: &str = "RT_SIM_SEED";

/// What a [`sweep`] that found no failure ran.
///
/// # Examples
///
/// ```
/// let report = rt::sim::sweep(0..10, |sim| {
///     sim.client("c", async { Ok::<_, std::io::Error>(()) });
/// })
/// .unwrap();
/// if std::env::var_os("RT_SIM_SEED").is_none() {
///     assert_eq!(report.runs(), 10);
/// }
/// ```
#[derive(Clone, Copy, Debug)]
pub struct SweepReport {
    runs: u64,
    polls: u64,
    messages: u64,
}

impl SweepReport {
    /// How many seeds ran (one when `RT_SIM_SEED` replayed one).
    ///
    /// # Examples
    ///
    /// ```
    /// let report = rt::sim::sweep([4, 5], |sim| {
    ///     sim.client("c", async { Ok::<_, std::io::Error>(()) });
    /// })
    /// .unwrap();
    /// assert!(report.runs() >= 1);
    /// ```
    pub fn runs(&self) -> u64 {
        self.runs
    }

    /// Task polls over all the runs.
    ///
    /// # Examples
    ///
    /// ```
    /// let report = rt::sim::sweep([4, 5], |sim| {
    ///     sim.client("c", async { Ok::<_, std::io::Error>(()) });
    /// })
    /// .unwrap();
    /// assert_eq!(report.polls(), report.runs());
    /// ```
    pub fn polls(&self) -> u64 {
        self.polls
    }

    /// Messages the simulated network delivered over all the runs (see
    /// [`SimReport::messages`](crate::sim::SimReport::messages)).
    ///
    /// # Examples
    ///
    /// ```
    /// let report = rt::sim::sweep([4, 5], |sim| {
    ///     sim.client("c", async { Ok::<_, std::io::Error>(()) });
    /// })
    /// .unwrap();
    /// assert_eq!(report.messages(), 0);
    /// ```
    pub fn messages(&self) -> u64 {
        self.messages
    }
}

/// Runs the simulation that `build` sets up once per seed of `seeds`, in
/// order, and stops at the first failure, whose [`SimError`] names the
/// seed that replays it. With `RT_SIM_SEED` set in the environment, runs
/// that seed only, whatever `seeds` holds: rerun a failing test with the
/// seed its failure printed, and the same schedule fails the same way.
///
/// Each run builds a new [`Sim`] and calls `build` on it, so the system
/// under test starts afresh every time. A failed seed is run once more at
/// once, and its error says so if that run did not fail the same way:
/// then the seed will not replay the failure (the system keeps state
/// from run to run in a `static`, or depends on a real thread or clock).
///
/// # Errors
///
/// The first failed run's [`SimError`].
///
/// # Panics
///
/// Panics if `RT_SIM_SEED` is set but is not a number, or as
/// [`Sim::run`] does.
///
/// # Examples
///
/// ```
/// // A client that fails for one seed in sixteen, as a rare bug would.
/// let failure = rt::sim::sweep(0..1000, |sim| {
///     sim.client("flaky", async {
///         if rt::sim::random_u64() % 16 == 0 {
///             return Err("unlucky");
///         }
///         Ok(())
///     });
/// })
/// .unwrap_err();
/// println!("replay with RT_SIM_SEED={}", failure.seed());
/// ```
#[track_caller]
pub fn sweep<I, F>(seeds: I, mut build: F) -> Result<SweepReport, SimError>
where
    I: IntoIterator<Item = u64>,
    F: FnMut(&mut Sim),
{
    let mut report = SweepReport {
        runs: 0,
        polls: 0,
        messages: 0,
    };
    let mut run_seed = |seed| {
        let mut sim = Sim::new(seed);
        build(&mut sim);
        sim.run()
    };
    let mut run = |seed| match run_seed(seed) {
        Ok(outcome) => {
            report.runs += 1;
            report.polls += outcome.polls();
            report.messages += outcome.messages();
            Ok(())
        }
        // The promise that the seed replays the failure, checked while
        // the sweep still knows what came before it.
        Err(failure) => Err(failure.checked_against(run_seed(seed))),
    };
    match env_seed() {
        Some(seed) => {
            eprintln!("rt::sim: replaying seed {seed} from {SEED_VAR}");
            run(seed)?;
        }
        None => seeds.into_iter().try_for_each(&mut run)?,
    }
    Ok(report)
}

/// The seed in `RT_SIM_SEED`, if set.
///
/// # Panics
///
/// Panics if it is set but is not a number.
#[track_caller]
pub(crate) fn env_seed() -> Option<u64> {
    let value = std::env::var(SEED_VAR).ok()?;
    match parse_seed(&value) {
        Some(seed) => Some(seed),
        None => panic!(
            "{SEED_VAR}={value:?} is not a seed: give the number a failed simulation printed \
             (decimal, or hex after `0x`)"
        ),
    }
}

fn parse_seed(text: &str) -> Option<u64> {
    let text = text.trim();
    match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

/// A seed no earlier run used: std's per-process random hash keys, mixed
/// with the clock and a counter.
pub(crate) fn fresh_seed() -> u64 {
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let count = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_nanos() as u64);
    RandomState::new().hash_one((count, nanos))
}

#[cfg(test)]
mod tests {
    use super::parse_seed;

    #[test]
    fn seeds_parse_in_decimal_and_hex() {
        assert_eq!(parse_seed("42"), Some(42));
        assert_eq!(parse_seed(" 0x2a\n"), Some(42));
        assert_eq!(parse_seed("0XFF"), Some(255));
        assert_eq!(parse_seed("18446744073709551615"), Some(u64::MAX));
        assert_eq!(parse_seed("forty-two"), None);
        assert_eq!(parse_seed(""), None);
    }
}
