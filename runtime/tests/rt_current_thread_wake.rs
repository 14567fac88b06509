//! Wakes that reach a current-thread runtime from other threads while its
//! `block_on` thread is running, about to park or parked: none is lost.

use futures_channel::oneshot;
use rt::runtime::{Builder, Runtime};
use std::sync::{Arc, Barrier};
use std::thread;

fn current_thread() -> Runtime {
    Builder::new_current_thread().build().unwrap()
}

#[test]
fn main_future_woken_from_another_thread() {
    let rt = current_thread();
    for round in 0..200 {
        let (tx, rx) = oneshot::channel();
        let sender = thread::spawn(move || tx.send(round).unwrap());
        assert_eq!(rt.block_on(rx).unwrap(), round);
        sender.join().unwrap();
    }
}

#[test]
fn task_spawned_from_another_thread_runs_while_block_on_waits() {
    let rt = current_thread();
    for round in 0..200 {
        let (tx, rx) = oneshot::channel();
        let handle = rt.handle().clone();
        let spawner = thread::spawn(move || {
            handle.spawn(async move { tx.send(round).unwrap() });
        });
        assert_eq!(rt.block_on(rx).unwrap(), round);
        spawner.join().unwrap();
    }
}

#[test]
fn many_threads_spawning_at_once_are_all_run() {
    let rt = current_thread();
    let threads = 4;
    let per_thread = 250;
    let barrier = Arc::new(Barrier::new(threads));
    let spawners: Vec<_> = (0..threads)
        .map(|_| {
            let handle = rt.handle().clone();
            let barrier = barrier.clone();
            thread::spawn(move || {
                barrier.wait();
                (0..per_thread)
                    .map(|i| handle.spawn(async move { i }))
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let total: usize = rt.block_on(async {
        let mut total = 0;
        for spawner in spawners {
            for task in spawner.join().unwrap() {
                total += task.await.unwrap();
            }
        }
        total
    });
    assert_eq!(total, threads * (0..per_thread).sum::<usize>());
}
