//! The example system `examples/sim_lease_lock.rs` (a lease-based lock
//! service over TCP, with a planted check-then-take race): a sweep finds
//! the double grant within 1000 seeds, its seed replays it exactly, only
//! some seeds fail, and with the bug removed 1000 seeds pass.

#![cfg(feature = "sim")]

#[path = "sim_support/planted.rs"]
mod planted;
#[allow(dead_code)]
#[path = "../examples/sim_lease_lock.rs"]
mod sim_lease_lock;

use rt::sim::SimFailure;

#[test]
fn a_sweep_finds_the_double_grant_and_its_seed_replays_it() {
    planted::a_sweep_finds_it_and_its_seed_replays_it(sim_lease_lock::system, |failure| {
        matches!(failure, SimFailure::Error { node, error }
            if node.starts_with("worker-") && error.to_string().contains("CONFLICT"))
    });
}

#[test]
fn only_some_schedules_grant_twice() {
    let failing = planted::only_some_seeds_fail(sim_lease_lock::system);
    eprintln!("{failing} of 100 seeds grant the lease twice");
}

#[test]
fn with_the_bug_removed_a_thousand_seeds_pass() {
    let report = planted::with_the_bug_removed_a_thousand_seeds_pass(sim_lease_lock::system);
    if std::env::var_os("RT_SIM_SEED").is_none() {
        assert!(report.messages() > 0, "the workers talk over the network");
    }
}
