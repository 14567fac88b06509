//! The example system `examples/sim_counter.rs` (a counter replicated
//! through a primary, with a planted lost update): a sweep finds the bug
//! within 1000 seeds, its seed replays it exactly, only some seeds fail,
//! and with the bug removed 1000 seeds pass.

#![cfg(feature = "sim")]

#[path = "sim_support/planted.rs"]
mod planted;
#[allow(dead_code)]
#[path = "../examples/sim_counter.rs"]
mod sim_counter;

use rt::sim::SimFailure;

#[test]
fn a_sweep_finds_the_lost_update_and_its_seed_replays_it() {
    planted::a_sweep_finds_it_and_its_seed_replays_it(sim_counter::system, |failure| {
        matches!(failure, SimFailure::Error { node, error }
            if node == "checker" && error.to_string().starts_with("lost update"))
    });
}

#[test]
fn only_some_interleavings_lose_an_update() {
    let failing = planted::only_some_seeds_fail(sim_counter::system);
    eprintln!("{failing} of 100 seeds lose an update");
}

#[test]
fn with_the_bug_removed_a_thousand_seeds_pass() {
    planted::with_the_bug_removed_a_thousand_seeds_pass(sim_counter::system);
}
