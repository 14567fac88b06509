//! The simulation's randomness and its trace hash: both pure functions of
//! what went in, so the same seed gives the same draws and the same
//! schedule gives the same hash, on any machine and Rust version (std's
//! hashers promise neither).

/// SplitMix64: a 64-bit state stepped by a fixed odd constant and mixed
/// on the way out. Every seed is a good one (zero included), and streams
/// split from one seed by different constants do not overlap in
/// practice.
#[derive(Clone, Debug)]
pub(crate) struct SimRng {
    state: u64,
}

impl SimRng {
    /// The stream `stream` of `seed` (the scheduler's, the user's, ...).
    pub(crate) fn new(seed: u64, stream: u64) -> SimRng {
        SimRng {
            state: mix(seed ^ mix(stream.wrapping_add(0x5851_F42D_4C95_7F2D))),
        }
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix(self.state)
    }

    /// A number in `0..n` (`n > 0`), by multiply-shift: no modulo bias
    /// worth measuring at the sizes of a ready set.
    pub(crate) fn below(&mut self, n: usize) -> usize {
        debug_assert!(n > 0);
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

/// SplitMix64's finaliser (Stafford's variant 13).
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A running hash of the schedule: every poll (by the task's per-run
/// sequence number) and every clock jump, in order.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TraceHash(u64);

/// What one trace event is, folded into its value so that a poll of task
/// 5 and a jump to tick 5 differ.
#[derive(Clone, Copy, Debug)]
pub(crate) enum TraceEvent {
    Poll(u64),
    ClockJump(u64),
    Crash(u64),
    Restart(u64),
}

impl TraceHash {
    pub(crate) fn new(seed: u64) -> TraceHash {
        // Not `mix(seed)`: an event is folded in as `mix` of its small
        // encoding (`record`), so a small seed equal to the first event's
        // encoding (seed 1 and a first poll of task 0) cancelled out to a
        // hash of 0 whatever came before, and two seeds with different
        // first events could reach the same hash. The constant moves the
        // seeds that cancel far from any sweep's range.
        TraceHash(mix(seed ^ 0xA076_1D64_78BD_642F))
    }

    pub(crate) fn record(&mut self, event: TraceEvent) {
        let (tag, value) = match event {
            TraceEvent::Poll(seq) => (1, seq),
            TraceEvent::ClockJump(tick) => (2, tick),
            TraceEvent::Crash(node) => (3, node),
            TraceEvent::Restart(node) => (4, node),
        };
        self.0 = mix(self.0 ^ mix(value.rotate_left(8) ^ tag));
    }

    pub(crate) fn get(self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::{SimRng, TraceEvent, TraceHash};

    #[test]
    fn streams_of_one_seed_differ_and_repeat() {
        let draws = |seed, stream| {
            let mut rng = SimRng::new(seed, stream);
            (0..4).map(|_| rng.next_u64()).collect::<Vec<_>>()
        };
        assert_eq!(draws(7, 0), draws(7, 0));
        assert_ne!(draws(7, 0), draws(7, 1));
        assert_ne!(draws(7, 0), draws(8, 0));
        assert_ne!(draws(0, 0), vec![0; 4]);
    }

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut rng = SimRng::new(1, 0);
        let mut seen = [false; 5];
        for _ in 0..200 {
            let i = rng.below(5);
            seen[i] = true;
        }
        assert_eq!(seen, [true; 5]);
        assert_eq!(rng.below(1), 0);
    }

    #[test]
    fn trace_hash_tells_event_kinds_and_orders_apart() {
        let hash = |events: &[TraceEvent]| {
            let mut trace = TraceHash::new(3);
            events.iter().for_each(|&event| trace.record(event));
            trace.get()
        };
        let (a, b) = (TraceEvent::Poll(1), TraceEvent::Poll(2));
        assert_ne!(hash(&[a, b]), hash(&[b, a]));
        assert_ne!(
            hash(&[TraceEvent::Poll(5)]),
            hash(&[TraceEvent::ClockJump(5)])
        );
        assert_eq!(hash(&[a, b]), hash(&[a, b]));
    }

    #[test]
    fn no_small_seed_is_cancelled_by_a_first_event() {
        let mut seen = std::collections::BTreeSet::new();
        for seed in 0..1024 {
            for event in [
                TraceEvent::Poll(0),
                TraceEvent::Poll(1),
                TraceEvent::ClockJump(1),
                TraceEvent::Crash(0),
            ] {
                let mut trace = TraceHash::new(seed);
                trace.record(event);
                assert_ne!(trace.get(), 0, "seed {seed}, then {event:?}");
                assert!(
                    seen.insert(trace.get()),
                    "seed {seed}, then {event:?}: a collision"
                );
            }
        }
    }
}
