//! `RT_SIM_SEED` replays one seed: `Sim::from_env` takes it, and `sweep`
//! runs it alone whatever seeds it was given. One test in this binary,
//! since it sets the process's environment.

#![cfg(feature = "sim")]

use rt::sim::{Sim, sweep};

fn system(sim: &mut Sim, seen: std::sync::Arc<std::sync::Mutex<Vec<u64>>>) {
    sim.client("recorder", async move {
        seen.lock().unwrap().push(rt::sim::random_u64());
        Ok::<_, std::io::Error>(())
    });
}

#[test]
fn rt_sim_seed_replays_that_seed_in_from_env_and_sweep() {
    // SAFETY: the only test of this binary, so no other thread reads the
    // environment meanwhile.
    unsafe { std::env::set_var("RT_SIM_SEED", "0x2a") };
    assert_eq!(Sim::from_env().seed(), 42);

    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let report = sweep(1000..2000, |sim| {
        assert_eq!(sim.seed(), 42);
        system(sim, seen.clone());
    })
    .unwrap();
    assert_eq!(report.runs(), 1);
    let mut direct = Sim::new(42);
    let expected = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    system(&mut direct, expected.clone());
    direct.run().unwrap();
    assert_eq!(*seen.lock().unwrap(), *expected.lock().unwrap());

    // SAFETY: as above.
    unsafe { std::env::set_var("RT_SIM_SEED", "not-a-seed") };
    let refused = std::panic::catch_unwind(Sim::from_env).unwrap_err();
    let message = refused.downcast_ref::<String>().unwrap();
    assert!(
        message.contains("RT_SIM_SEED=\"not-a-seed\" is not a seed"),
        "{message}"
    );
}
