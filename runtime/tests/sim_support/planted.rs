//! The checks the example systems with a planted bug share
//! (`sim_example.rs`, `sim_lease_lock.rs`): each system is built by
//! `system(sim, fixed)`, with the bug when `fixed` is false.

use rt::sim::{Sim, SimFailure, SweepReport, sweep};

/// Builds one of the example systems into a `Sim`.
pub(crate) type System = fn(&mut Sim, bool);

fn run(system: System, seed: u64, fixed: bool) -> Result<rt::sim::SimReport, rt::sim::SimError> {
    let mut sim = Sim::new(seed);
    system(&mut sim, fixed);
    sim.run()
}

/// A sweep of 1000 seeds finds the bug (`is_the_bug` recognises its
/// failure), and rerunning the seed fails identically, five times.
pub(crate) fn a_sweep_finds_it_and_its_seed_replays_it(
    system: System,
    is_the_bug: impl Fn(&SimFailure) -> bool,
) {
    let failure = sweep(0..1000, |sim| system(sim, false))
        .expect_err("a schedule within 1000 seeds trips the planted bug");
    assert!(is_the_bug(failure.failure()), "{failure}");
    for _ in 0..5 {
        let again = run(system, failure.seed(), false).unwrap_err();
        assert_eq!(again.trace_hash(), failure.trace_hash());
        assert_eq!(again.elapsed(), failure.elapsed());
        assert_eq!(again.to_string(), failure.to_string());
    }
}

/// Some of the first 100 seeds fail, not all: how many.
pub(crate) fn only_some_seeds_fail(system: System) -> usize {
    let failing = (0..100)
        .filter(|&seed| run(system, seed, false).is_err())
        .count();
    assert!(0 < failing && failing < 100, "{failing} of 100 seeds fail");
    failing
}

/// With the bug removed, 1000 seeds pass (one, replayed, with
/// `RT_SIM_SEED` set).
pub(crate) fn with_the_bug_removed_a_thousand_seeds_pass(system: System) -> SweepReport {
    let report = sweep(0..1000, |sim| system(sim, true)).unwrap_or_else(|e| panic!("{e}"));
    if std::env::var_os("RT_SIM_SEED").is_none() {
        assert_eq!(report.runs(), 1000);
    }
    report
}
