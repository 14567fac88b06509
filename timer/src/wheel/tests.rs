//! The wheel against a reference model: a plain list of (deadline, id)
//! pairs, fired by sorting. Random insert/remove/advance sequences from a
//! tiny seeded PRNG, plus targeted cascades across every level boundary and
//! far-future deadlines.

use super::*;

/// `real` normally, `miri` under Miri, which runs about a hundred times
/// slower: fewer seeds and steps, the same checks.
const fn miri_or(real: u64, miri: u64) -> u64 {
    if cfg!(miri) { miri } else { real }
}

/// xorshift64*: deterministic, no dependencies.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// A span whose magnitude is spread over every level and beyond.
    fn span(&mut self) -> u64 {
        let bits = self.below(44) as u32;
        self.below(1u64 << bits) + self.below(3)
    }
}

/// The wheel plus the model, checked against each other at every step.
struct Checked {
    wheel: Wheel<u64>,
    /// (deadline, id, key) of every live entry.
    model: Vec<(u64, u64, Key)>,
    next_id: u64,
}

impl Checked {
    fn new() -> Checked {
        Checked {
            wheel: Wheel::new(),
            model: Vec::new(),
            next_id: 0,
        }
    }

    fn insert(&mut self, deadline: u64) {
        let id = self.next_id;
        self.next_id += 1;
        let key = self.wheel.insert(deadline, id);
        assert_eq!(self.wheel.deadline(key), Some(deadline));
        self.model.push((deadline, id, key));
        assert_eq!(self.wheel.len(), self.model.len());
    }

    fn remove_at(&mut self, position: usize) {
        let (_, id, key) = self.model.swap_remove(position);
        let next_before = self.wheel.next_deadline();
        let (value, emptied) = self.wheel.remove_reporting(key);
        assert_eq!(value, id);
        if !emptied {
            // The timer skips its next-deadline search on this answer.
            assert_eq!(self.wheel.next_deadline(), next_before);
        }
        assert_eq!(self.wheel.deadline(key), None);
        assert_eq!(self.wheel.len(), self.model.len());
    }

    /// Polls up to `now`; the wheel must return exactly the model's entries
    /// due by `now`, in non-decreasing deadline order.
    fn advance(&mut self, now: u64) {
        let mut fired = Vec::new();
        while let Some(expired) = self.wheel.poll(now) {
            assert!(expired.deadline <= now, "fired early: {expired:?} at {now}");
            assert_eq!(self.wheel.deadline(expired.key), None);
            fired.push((expired.deadline, expired.value));
        }
        assert!(
            fired.windows(2).all(|pair| pair[0].0 <= pair[1].0),
            "out of order: {fired:?}"
        );
        let mut expected: Vec<_> = self
            .model
            .iter()
            .filter(|entry| entry.0 <= now)
            .map(|entry| (entry.0, entry.1))
            .collect();
        self.model.retain(|entry| entry.0 > now);
        fired.sort_unstable();
        expected.sort_unstable();
        assert_eq!(fired, expected, "wrong entries fired at {now}");
        assert!(self.wheel.elapsed() >= now);
        assert_eq!(self.wheel.len(), self.model.len());
        self.check_next_deadline();
    }

    fn check_next_deadline(&self) {
        let earliest = self.model.iter().map(|entry| entry.0).min();
        match (self.wheel.next_deadline(), earliest) {
            (None, None) => {}
            (Some(next), Some(earliest)) => {
                assert!(next <= earliest, "next {next} after earliest {earliest}");
                assert!(next >= self.wheel.elapsed());
                if earliest >> SLOT_BITS == self.wheel.elapsed() >> SLOT_BITS {
                    assert_eq!(next, earliest, "level-0 deadlines are exact");
                }
            }
            other => panic!("next_deadline/model mismatch: {other:?}"),
        }
    }

    /// Hops from deadline to deadline: each hop fires exactly what is due.
    fn run_to_empty(&mut self) {
        let mut hops = 0;
        while let Some(next) = self.wheel.next_deadline() {
            self.advance(next);
            hops += 1;
            assert!(hops < 1_000_000, "the wheel does not make progress");
        }
        assert!(self.model.is_empty());
    }
}

#[test]
fn random_sequences_match_the_model() {
    for seed in 1..=miri_or(40, 2) {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let mut checked = Checked::new();
        for _ in 0..miri_or(600, 200) {
            match rng.below(10) {
                0..=4 => {
                    let deadline = checked.wheel.elapsed() + rng.span();
                    checked.insert(deadline);
                }
                5..=6 if !checked.model.is_empty() => {
                    let position = rng.below(checked.model.len() as u64) as usize;
                    checked.remove_at(position);
                }
                7 => {
                    if let Some(next) = checked.wheel.next_deadline() {
                        checked.advance(next);
                    }
                }
                _ => {
                    let now = checked.wheel.elapsed() + rng.span();
                    checked.advance(now);
                }
            }
        }
        checked.run_to_empty();
    }
}

#[test]
fn cascades_across_every_level_boundary() {
    for level in 1..=LEVELS as u32 {
        let boundary = 1u64 << (SLOT_BITS * level);
        let mut checked = Checked::new();
        for deadline in [boundary - 1, boundary, boundary + 1, 2 * boundary - 1] {
            checked.insert(deadline);
        }
        // One tick before, at, and after the boundary, then the rest.
        checked.advance(boundary - 2);
        assert_eq!(checked.model.len(), 4);
        checked.advance(boundary - 1);
        assert_eq!(checked.model.len(), 3);
        checked.advance(boundary);
        assert_eq!(checked.model.len(), 2);
        checked.run_to_empty();
    }
}

#[test]
// Minutes under Miri, for arithmetic the normal run checks (the wheel has
// no unsafe code); the other tests cover it under Miri.
#[cfg_attr(miri, ignore)]
fn boundaries_reached_tick_by_tick_near_each_level() {
    // Start just before each boundary so small steps cross it.
    for level in 1..=LEVELS as u32 {
        let boundary = 1u64 << (SLOT_BITS * level);
        let mut checked = Checked::new();
        let start = boundary.saturating_sub(70);
        checked.advance(start);
        for offset in 0..140 {
            checked.insert(start + offset);
        }
        for now in start..start + 142 {
            checked.advance(now);
        }
        assert!(checked.model.is_empty());
    }
}

#[test]
// Minutes under Miri, for arithmetic the normal run checks (the wheel has
// no unsafe code); the other tests cover it under Miri.
#[cfg_attr(miri, ignore)]
fn far_future_deadlines_are_clamped_not_lost() {
    let mut checked = Checked::new();
    let far = [
        MAX_SPAN - 1,
        MAX_SPAN,
        MAX_SPAN + 1,
        3 * MAX_SPAN + 12_345,
        40 * MAX_SPAN + 7,
        (1 << 50) + 3,
    ];
    for deadline in far {
        checked.insert(deadline);
    }
    checked.insert(5);
    checked.advance(5);
    checked.advance(MAX_SPAN / 2);
    checked.insert(MAX_SPAN / 2 + 2 * MAX_SPAN);
    checked.run_to_empty();
}

#[test]
fn big_jumps_fire_everything_due_in_order() {
    let mut rng = Rng(7);
    let mut checked = Checked::new();
    for _ in 0..miri_or(2_000, 200) {
        let deadline = rng.span();
        checked.insert(deadline);
    }
    checked.advance(1 << 30);
    checked.advance(1 << 45);
    assert!(checked.model.is_empty());
}

#[test]
fn already_due_entries_fire_on_the_next_poll() {
    let mut wheel = Wheel::new();
    assert!(wheel.poll(100).is_none());
    wheel.insert(40, 'a');
    wheel.insert(100, 'b');
    assert_eq!(wheel.next_deadline(), Some(100));
    let mut fired: Vec<_> = std::iter::from_fn(|| wheel.poll(100))
        .map(|e| e.value)
        .collect();
    fired.sort();
    assert_eq!(fired, ['a', 'b']);
}

#[test]
fn keys_are_reused_after_removal() {
    let mut wheel = Wheel::new();
    let a = wheel.insert(10, 1);
    wheel.remove(a);
    let b = wheel.insert(20, 2);
    assert_eq!(a, b);
    assert_eq!(wheel.deadline(b), Some(20));
}

#[test]
#[should_panic(expected = "names no entry")]
fn removing_twice_panics() {
    let mut wheel = Wheel::new();
    let key = wheel.insert(10, ());
    wheel.remove(key);
    wheel.remove(key);
}

/// Removes and returns one entry, picked at random, from the model's
/// scheduled and held lists (at least one of them not empty).
fn take_any(
    rng: &mut Rng,
    scheduled: &mut Vec<(u64, u64, Key)>,
    held: &mut Vec<(u64, u64, Key)>,
) -> (u64, u64, Key) {
    let pick = rng.below((scheduled.len() + held.len()) as u64) as usize;
    if pick < scheduled.len() {
        scheduled.swap_remove(pick)
    } else {
        held.swap_remove(pick - scheduled.len())
    }
}

/// The held-entry API against a model of two lists: scheduled entries and
/// held ones. Expired entries move to the held list, keeping key and value.
#[test]
fn held_entries_match_the_model() {
    for seed in 1..=miri_or(30, 2) {
        let mut rng = Rng(seed.wrapping_mul(0xD1B5_4A32_D192_ED03));
        let mut wheel = Wheel::new();
        // (deadline, id, key)
        let mut scheduled: Vec<(u64, u64, Key)> = Vec::new();
        let mut held: Vec<(u64, u64, Key)> = Vec::new();
        for id in 0..miri_or(800, 200) {
            let deadline = wheel.elapsed() + rng.span();
            match rng.below(12) {
                0..=2 => scheduled.push((deadline, id, wheel.insert(deadline, id))),
                3 => held.push((deadline, id, wheel.insert_held(deadline, id))),
                4..=5 if !scheduled.is_empty() || !held.is_empty() => {
                    // Reschedule a scheduled or held entry.
                    let (_, id, key) = take_any(&mut rng, &mut scheduled, &mut held);
                    wheel.reschedule(key, deadline);
                    scheduled.push((deadline, id, key));
                }
                6 if !scheduled.is_empty() => {
                    let pick = rng.below(scheduled.len() as u64) as usize;
                    let (_, id, key) = scheduled.swap_remove(pick);
                    wheel.unschedule(key, deadline);
                    held.push((deadline, id, key));
                }
                7..=8 if !scheduled.is_empty() || !held.is_empty() => {
                    let (_, id, key) = take_any(&mut rng, &mut scheduled, &mut held);
                    assert_eq!(wheel.remove(key), id);
                    assert_eq!(wheel.get(key), None);
                }
                _ => {
                    let now = wheel.elapsed() + rng.span();
                    let mut fired = Vec::new();
                    while let Some(key) = wheel.poll_held(now) {
                        let deadline = wheel.deadline(key).unwrap();
                        assert!(deadline <= now, "fired early: {deadline} at {now}");
                        fired.push((deadline, *wheel.get(key).unwrap(), key));
                    }
                    let mut expected: Vec<_> =
                        scheduled.iter().copied().filter(|e| e.0 <= now).collect();
                    scheduled.retain(|e| e.0 > now);
                    fired.sort_unstable();
                    expected.sort_unstable();
                    assert_eq!(fired, expected, "wrong entries fired at {now}");
                    held.extend(fired);
                }
            }
            assert_eq!(wheel.len(), scheduled.len());
            for &(deadline, id, key) in scheduled.iter().chain(&held) {
                assert_eq!(wheel.get(key), Some(&id));
                assert_eq!(wheel.deadline(key), Some(deadline));
            }
        }
        // Held entries never fire; everything scheduled does.
        let mut fired = 0;
        while wheel.poll_held(u64::MAX >> 2).is_some() {
            fired += 1;
        }
        assert_eq!(fired, scheduled.len());
        let keys: Vec<_> = scheduled.iter().chain(&held).map(|e| e.2).collect();
        for key in keys {
            wheel.remove(key);
        }
        assert!(wheel.drain().next().is_none());
    }
}

#[test]
fn unschedule_all_holds_every_scheduled_entry() {
    let mut wheel = Wheel::new();
    let a = wheel.insert(3, 'a');
    let b = wheel.insert_held(4, 'b');
    let c = wheel.insert(1 << 40, 'c');
    assert_eq!(wheel.unschedule_all().collect::<Vec<_>>(), [a, c]);
    assert!(wheel.is_empty() && wheel.poll(1 << 45).is_none());
    for (key, value) in [(a, 'a'), (b, 'b'), (c, 'c')] {
        assert_eq!(wheel.remove(key), value);
    }
}

#[test]
fn remove_reports_a_list_it_empties() {
    let mut wheel = Wheel::new();
    let a = wheel.insert(5_000, 'a');
    let b = wheel.insert(5_001, 'b');
    let next = wheel.next_deadline();
    assert_eq!(wheel.remove_reporting(a), ('a', false));
    assert_eq!(wheel.next_deadline(), next);
    assert_eq!(wheel.remove_reporting(b), ('b', true));
    assert_eq!(wheel.next_deadline(), None);
    let held = wheel.insert_held(3, 'h');
    assert_eq!(wheel.remove_reporting(held), ('h', false));
}
