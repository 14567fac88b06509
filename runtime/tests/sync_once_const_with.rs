//! `OnceCell::const_new_with` and `SetOnce::const_new_with`: statics that
//! start initialised, and the storage behind both (written once, dropped
//! once, taken out).

mod support;

use rt::sync::{OnceCell, SetOnce, SetOnceError};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use support::each_runtime;

static LIMIT: OnceCell<u32> = OnceCell::const_new_with(64);
static MODE: SetOnce<&str> = SetOnce::const_new_with("fast");

#[test]
fn a_static_once_cell_starts_initialised() {
    assert!(LIMIT.initialized());
    assert_eq!(LIMIT.get(), Some(&64));
    each_runtime(|_, rt| {
        let seen = rt.block_on(async {
            let tasks: Vec<_> = (0..8)
                .map(|_| {
                    rt::spawn(async {
                        *LIMIT
                            .get_or_init(|| async { panic!("the initialiser ran on a set cell") })
                            .await
                    })
                })
                .collect();
            let mut seen = Vec::new();
            for task in tasks {
                seen.push(task.await.unwrap());
            }
            seen
        });
        assert_eq!(seen, vec![64; 8]);
    });
    assert!(LIMIT.set(1).unwrap_err().is_already_init_err());
}

#[test]
fn a_static_set_once_starts_set() {
    assert_eq!(MODE.get(), Some(&"fast"));
    assert_eq!(MODE.set("slow"), Err(SetOnceError("slow")));
    each_runtime(|_, rt| {
        assert_eq!(rt.block_on(async { *MODE.wait().await }), "fast");
    });
}

/// Counts its drops.
struct Counted(Arc<AtomicUsize>);

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn values_are_dropped_exactly_once() {
    let drops = Arc::new(AtomicUsize::new(0));
    drop(OnceCell::const_new_with(Counted(drops.clone())));
    assert_eq!(drops.load(Ordering::SeqCst), 1);
    drop(SetOnce::const_new_with(Counted(drops.clone())));
    assert_eq!(drops.load(Ordering::SeqCst), 2);

    // Taken out: dropped by its new owner, not by the cell.
    let mut cell = OnceCell::const_new_with(Counted(drops.clone()));
    let taken = cell.take().expect("the cell held a value");
    assert!(!cell.initialized());
    drop(cell);
    assert_eq!(drops.load(Ordering::SeqCst), 2);
    drop(taken);
    assert_eq!(drops.load(Ordering::SeqCst), 3);

    // Set after a take, then handed out by `into_inner`.
    let mut cell = OnceCell::const_new_with(Counted(drops.clone()));
    drop(cell.take());
    assert!(cell.set(Counted(drops.clone())).is_ok());
    let inner = cell.into_inner().expect("set again");
    assert_eq!(drops.load(Ordering::SeqCst), 4);
    drop(inner);
    assert_eq!(drops.load(Ordering::SeqCst), 5);

    // An empty cell drops nothing; an unset `SetOnce` neither.
    drop(OnceCell::<Counted>::new());
    drop(SetOnce::<Counted>::new());
    assert_eq!(drops.load(Ordering::SeqCst), 5);
}

#[test]
fn racing_setters_of_a_set_once_store_exactly_one_value() {
    for _ in 0..50 {
        let once = Arc::new(SetOnce::new());
        let barrier = Arc::new(std::sync::Barrier::new(4));
        let threads: Vec<_> = (0..4)
            .map(|i| {
                let once = once.clone();
                let barrier = barrier.clone();
                std::thread::spawn(move || {
                    barrier.wait();
                    once.set(format!("value {i}")).is_ok()
                })
            })
            .collect();
        let wins: Vec<bool> = threads.into_iter().map(|t| t.join().unwrap()).collect();
        assert_eq!(wins.iter().filter(|won| **won).count(), 1);
        let winner = wins.iter().position(|won| *won).unwrap();
        assert_eq!(once.get(), Some(&format!("value {winner}")));
    }
}
