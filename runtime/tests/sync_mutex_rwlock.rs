//! Mutex and RwLock: exclusion, fairness, cancellation, contention.

mod support;

use support::{poll_once, runtimes};

use rt::runtime::Builder;
use rt::sync::{Mutex, MutexGuard, RwLock};
use std::sync::Arc;
use std::task::Poll;

#[test]
fn mutex_lock_is_fifo() {
    let mutex = Mutex::new(Vec::new());
    let held = mutex.try_lock().unwrap();
    let mut waiters: Vec<_> = (0..4).map(|_| Box::pin(mutex.lock())).collect();
    for waiter in &mut waiters {
        assert!(poll_once(waiter).is_pending());
    }
    // Queued waiters come before a newcomer's try_lock.
    drop(held);
    assert!(mutex.try_lock().is_err());
    for (i, waiter) in waiters.iter_mut().enumerate() {
        match poll_once(waiter) {
            Poll::Ready(mut guard) => guard.push(i),
            Poll::Pending => panic!("waiter {i} not served in order"),
        }
    }
    drop(waiters);
    assert_eq!(mutex.into_inner(), [0, 1, 2, 3]);
}

#[test]
fn dropped_lock_futures_leak_nothing() {
    let mutex = Mutex::new(0);
    let held = mutex.try_lock().unwrap();
    let mut queued = Box::pin(mutex.lock());
    let mut granted = Box::pin(mutex.lock());
    let mut last = Box::pin(mutex.lock());
    assert!(poll_once(&mut queued).is_pending());
    assert!(poll_once(&mut granted).is_pending());
    assert!(poll_once(&mut last).is_pending());
    drop(queued); // cancelled while waiting
    drop(held); // the lock goes to `granted`...
    drop(granted); // ...which is cancelled before it looks
    assert!(poll_once(&mut last).is_ready());
    drop(last);
    assert!(mutex.try_lock().is_ok());
}

#[test]
fn mapped_and_owned_guards() {
    let mutex = Mutex::new((1, String::from("a")));
    let mut text = MutexGuard::map(mutex.try_lock().unwrap(), |pair| &mut pair.1);
    text.push('b');
    assert!(mutex.try_lock().is_err());
    drop(text);
    assert_eq!(mutex.try_lock().unwrap().1, "ab");

    let rt = Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let shared = Arc::new(Mutex::new(0));
    rt.block_on(async {
        let mut guard = shared.clone().lock_owned().await;
        let waiter = rt::spawn({
            let shared = shared.clone();
            async move { *shared.lock().await }
        });
        rt::spawn(async move { *guard = 9 }).await.unwrap();
        assert_eq!(waiter.await.unwrap(), 9);
    });
}

#[test]
fn mutex_counts_exactly_under_contention() {
    const TASKS: usize = 20;
    const ROUNDS: usize = 100;
    for (_, rt) in runtimes() {
        let count = Arc::new(Mutex::new(0usize));
        rt.block_on(async {
            let tasks: Vec<_> = (0..TASKS)
                .map(|_| {
                    let count = count.clone();
                    rt::spawn(async move {
                        for _ in 0..ROUNDS {
                            let mut guard = count.lock().await;
                            let seen = *guard;
                            rt::task::yield_now().await; // hold across a yield
                            *guard = seen + 1;
                        }
                    })
                })
                .collect();
            for task in tasks {
                task.await.unwrap();
            }
            assert_eq!(*count.lock().await, TASKS * ROUNDS);
        });
    }
}

#[test]
fn readers_share_and_writers_exclude() {
    let lock = RwLock::new(0);
    let a = lock.try_read().unwrap();
    let b = lock.try_read().unwrap();
    assert_eq!(*a + *b, 0);
    assert!(lock.try_write().is_err());
    drop((a, b));
    let mut w = lock.try_write().unwrap();
    *w = 1;
    assert!(lock.try_read().is_err());
    drop(w);
    assert_eq!(*lock.try_read().unwrap(), 1);
}

#[test]
fn a_waiting_writer_is_not_starved_by_readers() {
    let lock = RwLock::new(0);
    let reader = lock.try_read().unwrap();
    let mut writer = Box::pin(lock.write());
    assert!(poll_once(&mut writer).is_pending());
    // Readers arriving after the writer wait behind it.
    assert!(lock.try_read().is_err());
    let mut late_readers: Vec<_> = (0..3).map(|_| Box::pin(lock.read())).collect();
    for late in &mut late_readers {
        assert!(poll_once(late).is_pending());
    }
    drop(reader);
    let mut guard = match poll_once(&mut writer) {
        Poll::Ready(guard) => guard,
        Poll::Pending => panic!("writer should hold the lock once the reader left"),
    };
    *guard = 5;
    for late in &mut late_readers {
        assert!(poll_once(late).is_pending());
    }
    drop(guard);
    // All queued readers enter together.
    let guards: Vec<_> = late_readers
        .iter_mut()
        .map(|late| match poll_once(late) {
            Poll::Ready(guard) => guard,
            Poll::Pending => panic!("queued reader not admitted after the writer"),
        })
        .collect();
    assert!(guards.iter().all(|g| **g == 5));
}

#[test]
fn dropped_write_future_lets_readers_in() {
    let lock = RwLock::new(());
    let reader = lock.try_read().unwrap();
    let mut writer = Box::pin(lock.write());
    let mut late = Box::pin(lock.read());
    assert!(poll_once(&mut writer).is_pending());
    assert!(poll_once(&mut late).is_pending());
    drop(writer);
    assert!(poll_once(&mut late).is_ready());
    drop(reader);
}

#[test]
fn rwlock_keeps_its_invariant_under_contention() {
    for (_, rt) in runtimes() {
        let lock = Arc::new(RwLock::new((0usize, 0usize)));
        rt.block_on(async {
            let mut tasks = Vec::new();
            for i in 0..12 {
                let lock = lock.clone();
                tasks.push(rt::spawn(async move {
                    for _ in 0..50 {
                        if i % 3 == 0 {
                            let mut guard = lock.write().await;
                            guard.0 += 1;
                            rt::task::yield_now().await;
                            guard.1 += 1;
                        } else {
                            let guard = lock.read().await;
                            assert_eq!(guard.0, guard.1);
                            rt::task::yield_now().await;
                            assert_eq!(guard.0, guard.1);
                        }
                    }
                }));
            }
            for task in tasks {
                task.await.unwrap();
            }
            assert_eq!(*lock.read().await, (200, 200));
        });
    }
}
