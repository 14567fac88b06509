//! Mutex and RwLock: exclusion, fairness, cancellation, contention.

mod support;

use support::{poll_once, runtimes};

use rt::runtime::Builder;
use rt::sync::{
    Mutex, MutexGuard, OwnedRwLockReadGuard, OwnedRwLockWriteGuard, RwLock, RwLockMappedWriteGuard,
    RwLockReadGuard, RwLockWriteGuard,
};
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
fn try_map_keeps_the_lock_either_way_and_owned_mapped_guards_move_between_tasks() {
    use rt::sync::{MappedMutexGuard, OwnedMappedMutexGuard, OwnedMutexGuard};
    let mutex = Mutex::new((vec![1, 2], 0));
    let guard =
        MutexGuard::try_map(mutex.try_lock().unwrap(), |pair| pair.0.get_mut(9)).unwrap_err();
    assert!(
        mutex.try_lock().is_err(),
        "the guard that came back still locks"
    );
    let list = MutexGuard::map(guard, |pair| &mut pair.0);
    let list = MappedMutexGuard::try_map(list, |v| v.get_mut(9)).unwrap_err();
    let mut second = MappedMutexGuard::try_map(list, |v| v.get_mut(1)).unwrap();
    *second = 20;
    assert!(mutex.try_lock().is_err());
    drop(second);
    assert_eq!(mutex.try_lock().unwrap().0, [1, 20]);

    let rt = Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let shared = Arc::new(Mutex::new((String::new(), Some(0u32))));
    rt.block_on(async {
        let guard = shared.clone().lock_owned().await;
        let guard = OwnedMutexGuard::try_map(guard, |pair| pair.1.as_mut().filter(|n| **n > 0))
            .unwrap_err();
        let text = OwnedMutexGuard::map(guard, |pair| &mut pair.0);
        let text = OwnedMappedMutexGuard::try_map(text, |s| s.get_mut(5..)).unwrap_err();
        let mut text: OwnedMappedMutexGuard<_, String> = OwnedMappedMutexGuard::map(text, |s| s);
        // A waiter queues behind the mapped guard...
        let waiter = rt::spawn({
            let shared = shared.clone();
            async move { shared.lock().await.0.clone() }
        });
        // ...which moves into another task and unlocks when dropped there.
        rt::spawn(async move { text.push_str("mapped") })
            .await
            .unwrap();
        assert_eq!(waiter.await.unwrap(), "mapped");
    });
    assert_eq!(
        Arc::strong_count(&shared),
        1,
        "the mapped guard let its Arc go"
    );
    assert_eq!(shared.try_lock().unwrap().0, "mapped");
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

/// The new guards cross threads under the same bounds as tokio's.
fn _lock_guards_are_send_sync() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<rt::sync::OwnedMappedMutexGuard<(Vec<u8>, u8), u8>>();
    send_sync::<rt::sync::MappedMutexGuard<'static, Vec<u8>>>();
    send_sync::<OwnedRwLockReadGuard<Vec<u8>>>();
    send_sync::<OwnedRwLockWriteGuard<Vec<u8>>>();
    send_sync::<RwLockReadGuard<'static, Vec<u8>>>();
    send_sync::<RwLockMappedWriteGuard<'static, Vec<u8>>>();
}

/// ... and no further: an owned mapped mutex guard of a `T` that is `Send`
/// but not `Sync` is not `Sync`, and a mapped write guard of such a `T` is
/// not `Send` (tokio's bounds, which the facade's `async_send_sync.rs`
/// checks; each call below compiles only for a type without the trait).
#[allow(dead_code)]
fn _mapped_guards_have_no_more_than_tokios_bounds(
    owned: rt::sync::OwnedMappedMutexGuard<(std::cell::Cell<u8>, u8), u8>,
    write: RwLockMappedWriteGuard<'static, std::cell::Cell<u8>>,
) {
    trait NotSend<Which> {
        fn not_send(&self) {}
    }
    impl<T: ?Sized> NotSend<()> for T {}
    impl<T: ?Sized + Send> NotSend<u8> for T {}
    trait NotSync<Which> {
        fn not_sync(&self) {}
    }
    impl<T: ?Sized> NotSync<()> for T {}
    impl<T: ?Sized + Sync> NotSync<u8> for T {}
    fn send<T: Send>(_: &T) {}

    send(&owned);
    NotSync::not_sync(&owned);
    NotSend::not_send(&write);
}

#[test]
fn owned_guards_move_into_spawned_tasks() {
    for (_, rt) in runtimes() {
        let lock = Arc::new(RwLock::new(Vec::new()));
        rt.block_on(async {
            let mut writer = lock.clone().write_owned().await;
            rt::spawn(async move { writer.push(1) }).await.unwrap();

            let readers: Vec<_> = (0..3)
                .map(|_| {
                    let lock = lock.clone();
                    rt::spawn(async move {
                        let guard = lock.read_owned().await;
                        rt::task::yield_now().await; // held across a yield
                        guard.len()
                    })
                })
                .collect();
            for reader in readers {
                assert_eq!(reader.await.unwrap(), 1);
            }
            assert_eq!(*lock.read().await, [1]);
        });
    }
}

#[test]
fn a_writer_waits_behind_an_owned_read_guard() {
    let lock = Arc::new(RwLock::new(0));
    let reader = lock.clone().try_read_owned().unwrap();
    assert!(Arc::ptr_eq(reader.rwlock(), &lock));
    let mut writer = Box::pin(lock.clone().write_owned());
    assert!(poll_once(&mut writer).is_pending());
    drop(reader);
    let mut guard = match poll_once(&mut writer) {
        Poll::Ready(guard) => guard,
        Poll::Pending => panic!("writer should hold the lock once the owned reader left"),
    };
    *guard = 4;
    assert!(Arc::ptr_eq(guard.rwlock(), &lock));
    drop(guard);
    assert_eq!(*lock.try_read().unwrap(), 4);
}

#[test]
fn try_owned_guards_fail_while_the_lock_is_held() {
    let lock = Arc::new(RwLock::new(()));
    let reader = lock.clone().try_read_owned().unwrap();
    assert!(lock.clone().try_read_owned().is_ok());
    assert!(lock.clone().try_write_owned().is_err());
    drop(reader);

    let writer = lock.clone().try_write_owned().unwrap();
    assert!(lock.clone().try_read_owned().is_err());
    assert!(lock.clone().try_write_owned().is_err());
    drop(writer);

    // A queued writer keeps newcomers out too.
    let reader = lock.clone().try_read_owned().unwrap();
    let mut queued = Box::pin(lock.write());
    assert!(poll_once(&mut queued).is_pending());
    assert!(lock.clone().try_read_owned().is_err());
    drop(queued);
    assert!(lock.clone().try_read_owned().is_ok());
    drop(reader);
    assert!(lock.clone().try_write_owned().is_ok());
}

#[test]
fn mapped_read_guard_sees_its_field_and_releases_on_drop() {
    let lock = RwLock::new((1, String::from("rt")));
    let name = RwLockReadGuard::map(lock.try_read().unwrap(), |pair| &pair.1);
    let number = RwLockReadGuard::map(lock.try_read().unwrap(), |pair| &pair.0);
    assert_eq!(*name, "rt");
    assert_eq!(*number, 1);
    assert!(lock.try_write().is_err());
    drop(name);
    assert!(lock.try_write().is_err());
    drop(number);
    assert!(lock.try_write().is_ok());
}

#[test]
fn mapped_write_guard_changes_only_its_field_and_releases_on_drop() {
    let lock = RwLock::new((1, String::from("a")));
    let mut text = RwLockWriteGuard::map(lock.try_write().unwrap(), |pair| &mut pair.1);
    text.push('b');
    assert_eq!(*text, "ab");
    assert!(lock.try_read().is_err());
    assert!(lock.try_write().is_err());
    drop(text);
    let mut guard = lock.try_write().unwrap();
    assert_eq!(*guard, (1, String::from("ab")));
    guard.0 = 2;
    drop(guard);
    assert_eq!(lock.into_inner(), (2, String::from("ab")));
}

#[test]
fn downgrade_admits_queued_readers_but_not_a_queued_writer() {
    let lock = RwLock::new(0);
    let mut writer = lock.try_write().unwrap();
    let mut queued_reader = Box::pin(lock.read());
    let mut queued_writer = Box::pin(lock.write());
    assert!(poll_once(&mut queued_reader).is_pending());
    assert!(poll_once(&mut queued_writer).is_pending());
    *writer = 3;

    let downgraded = RwLockWriteGuard::downgrade(writer);
    assert_eq!(*downgraded, 3);
    let reader = match poll_once(&mut queued_reader) {
        Poll::Ready(guard) => guard,
        Poll::Pending => panic!("a reader queued ahead of the writer enters on downgrade"),
    };
    assert_eq!(*reader, 3);
    assert!(poll_once(&mut queued_writer).is_pending());
    // Newcomers stay behind the queued writer.
    assert!(lock.try_read().is_err());

    drop(downgraded);
    assert!(poll_once(&mut queued_writer).is_pending());
    drop(reader);
    match poll_once(&mut queued_writer) {
        Poll::Ready(mut guard) => *guard = 4,
        Poll::Pending => panic!("the writer enters once every reader left"),
    }
    drop(queued_writer);
    assert_eq!(*lock.try_read().unwrap(), 4);
}

#[test]
fn owned_downgrade_wakes_a_waiting_reader_task() {
    for (_, rt) in runtimes() {
        let lock = Arc::new(RwLock::new(0));
        rt.block_on(async {
            let mut writer = lock.clone().write_owned().await;
            let reader = rt::spawn({
                let lock = lock.clone();
                async move { *lock.read().await }
            });
            rt::task::yield_now().await; // let the reader queue up
            *writer = 5;
            let downgraded = OwnedRwLockWriteGuard::downgrade(writer);
            // The reader finishes while the downgraded guard is still held.
            assert_eq!(reader.await.unwrap(), 5);
            assert!(lock.try_write().is_err());
            drop(downgraded);
            assert!(lock.try_write().is_ok());
        });
    }
}

/// Spends the task's whole budget without yielding: its next ready
/// operation would make it yield instead.
async fn spend_the_budget() {
    while rt::task::coop::has_budget_remaining() {
        rt::task::coop::consume_budget().await;
    }
}

/// A task out of budget that asks for the lock holds its place in line:
/// a task that asks later does not get the lock first.
#[test]
fn a_locker_out_of_budget_keeps_its_place_in_line() {
    let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    let order = rt.block_on(async {
        let mutex = Arc::new(Mutex::new(Vec::new()));
        let held = mutex.clone().lock_owned().await;
        let lockers: Vec<_> = (0..2)
            .map(|id| {
                let mutex = mutex.clone();
                rt::spawn(async move {
                    if id == 0 {
                        spend_the_budget().await;
                    }
                    mutex.lock().await.push(id);
                })
            })
            .collect();
        // Both lockers ask while the lock is held, the first one first.
        rt::task::yield_now().await;
        drop(held);
        for locker in lockers {
            locker.await.unwrap();
        }
        Arc::try_unwrap(mutex).unwrap().into_inner()
    });
    assert_eq!(order, [0, 1]);
}

static COUNTER: Mutex<u32> = Mutex::const_new(0);

#[test]
fn a_const_mutex_works_as_a_static() {
    *COUNTER.try_lock().unwrap() += 1;
    assert_eq!(*COUNTER.blocking_lock(), 1);
}

#[test]
fn with_max_readers_bounds_the_readers() {
    let lock = RwLock::with_max_readers(0, 2);
    let a = lock.try_read().unwrap();
    let b = lock.try_read().unwrap();
    assert!(lock.try_read().is_err(), "a third reader got in");
    drop(a);
    let c = lock.try_read().unwrap();
    drop((b, c));
    *lock.try_write().unwrap() += 1;
    assert_eq!(lock.into_inner(), 1);
    let message = support::expect_panic(|| RwLock::with_max_readers((), 0));
    assert!(message.contains("max_reads"), "{message}");
}

#[test]
fn downgrade_map_keeps_a_read_lock_on_the_part() {
    let lock = RwLock::new((1, String::from("rt")));
    let mut writer = lock.try_write().unwrap();
    writer.0 = 2;
    let name = RwLockWriteGuard::downgrade_map(writer, |pair| &pair.1);
    assert_eq!(*name, "rt");
    assert_eq!(lock.try_read().unwrap().0, 2, "readers get in");
    assert!(lock.try_write().is_err(), "writers do not");
    drop(name);
    assert!(lock.try_write().is_ok());

    let writer = lock.try_write().unwrap();
    let writer = RwLockWriteGuard::try_downgrade_map(writer, |pair| pair.1.get(5..)).unwrap_err();
    assert!(
        lock.try_read().is_err(),
        "a failed map keeps the write lock"
    );
    let first = RwLockWriteGuard::try_downgrade_map(writer, |pair| pair.1.get(..1)).unwrap();
    assert_eq!(&*first, "r");
    assert!(lock.try_read().is_ok());
}

#[test]
fn a_downgrade_in_a_lock_with_few_readers_admits_the_rest() {
    let lock = Arc::new(RwLock::with_max_readers(5, 3));
    let writer = lock.clone().try_write_owned().unwrap();
    let reader = OwnedRwLockWriteGuard::downgrade(writer);
    let others = (lock.try_read().unwrap(), lock.try_read().unwrap());
    assert!(lock.try_read().is_err());
    drop((reader, others));
    assert!(lock.try_write().is_ok());
}

#[test]
fn locks_from_values_display_through_their_guards_and_name_their_mutex() {
    let mutex: Mutex<u32> = 5.into();
    {
        let guard = mutex.try_lock().unwrap();
        assert!(std::ptr::eq(MutexGuard::mutex(&guard), &mutex));
        assert_eq!(format!("{guard:>3}"), "  5");
        let mapped = MutexGuard::map(guard, |n| n);
        assert_eq!(mapped.to_string(), "5");
    }
    let owned = Arc::new(mutex).try_lock_owned().unwrap();
    assert_eq!(owned.to_string(), "5");
    drop(owned);

    let lock = Arc::new(RwLock::from(String::from("rt")));
    assert_eq!(lock.try_read().unwrap().to_string(), "rt");
    let write = lock.try_write().unwrap();
    assert_eq!(write.to_string(), "rt");
    let mapped: RwLockMappedWriteGuard<'_, str> = RwLockWriteGuard::map(write, |s| s.as_mut_str());
    assert_eq!(format!("[{mapped}]"), "[rt]");
    drop(mapped);
    assert_eq!(lock.clone().try_read_owned().unwrap().to_string(), "rt");
    assert_eq!(lock.clone().try_write_owned().unwrap().to_string(), "rt");
}

#[test]
fn rwlock_guards_narrow_with_try_map_and_keep_the_lock_either_way() {
    let lock = RwLock::new((vec![1, 2], String::new()));
    let read = RwLockReadGuard::try_map(lock.try_read().unwrap(), |t| t.0.get(9)).unwrap_err();
    assert!(
        lock.try_write().is_err(),
        "the returned read guard still reads"
    );
    let second = RwLockReadGuard::try_map(read, |t| t.0.get(1)).unwrap();
    assert_eq!(*second, 2);
    assert!(lock.try_read().is_ok(), "readers share");
    drop(second);

    let write =
        RwLockWriteGuard::try_map(lock.try_write().unwrap(), |t| t.0.get_mut(9)).unwrap_err();
    assert!(
        lock.try_read().is_err(),
        "the returned write guard still writes"
    );
    let whole = RwLockWriteGuard::into_mapped(write);
    let text = RwLockMappedWriteGuard::try_map(whole, |t| t.1.get_mut(3..)).unwrap_err();
    let mut text = RwLockMappedWriteGuard::map(text, |t| &mut t.1);
    text.push_str("narrowed");
    assert!(lock.try_read().is_err());
    drop(text);
    let read = lock.try_read().unwrap();
    assert_eq!(
        (read.0.as_slice(), read.1.as_str()),
        (&[1, 2][..], "narrowed")
    );
}

#[test]
fn a_const_rwlock_with_max_readers_queues_the_reader_past_the_limit() {
    static POOL: RwLock<u8> = RwLock::const_with_max_readers(7, 2);
    let first = POOL.try_read().unwrap();
    let second = POOL.try_read().unwrap();
    let mut third = Box::pin(POOL.read());
    assert!(poll_once(&mut third).is_pending(), "two readers at most");
    drop(first);
    match poll_once(&mut third) {
        Poll::Ready(guard) => assert_eq!(*guard, 7),
        Poll::Pending => panic!("a reader left: the third gets in"),
    }
    drop(second);
}
