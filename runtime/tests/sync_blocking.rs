//! The `blocking_*` methods: synchronous threads and `spawn_blocking` jobs
//! exchanging values with tasks, and a clear panic when called from async
//! code.

mod support;

use support::{each_runtime, expect_panic};

use rt::sync::{Mutex, Semaphore, broadcast, mpsc, oneshot};
use std::sync::Arc;

#[test]
fn plain_threads_send_to_and_receive_from_tasks() {
    each_runtime(|_, rt| {
        let (to_task, mut task_rx) = mpsc::channel::<u32>(2);
        let (to_thread, mut thread_rx) = mpsc::unbounded_channel::<u32>();
        // A task doubles what the thread sends it.
        let doubler = rt.spawn(async move {
            while let Some(n) = task_rx.recv().await {
                to_thread.send(n * 2).unwrap();
            }
        });
        let thread = std::thread::spawn(move || {
            let mut got = Vec::new();
            for n in 0..10 {
                to_task.blocking_send(n).unwrap();
                got.push(thread_rx.blocking_recv().unwrap());
            }
            drop(to_task);
            assert_eq!(thread_rx.blocking_recv(), None, "the task is gone");
            got
        });
        // The current-thread runtime runs the task only inside `block_on`.
        rt.block_on(doubler).unwrap();
        let got = thread.join().unwrap();
        assert_eq!(got, (0..10).map(|n| n * 2).collect::<Vec<_>>());
    });
}

#[test]
fn oneshot_broadcast_and_mutex_from_a_spawn_blocking_job() {
    each_runtime(|_, rt| {
        rt.block_on(async {
            let (reply_tx, reply_rx) = oneshot::channel();
            let (news_tx, mut news_rx) = broadcast::channel(4);
            let mutex = Arc::new(Mutex::new(0));
            let held = mutex.clone().lock_owned().await;
            let shared = mutex.clone();
            let job = rt::task::spawn_blocking(move || {
                let reply = reply_rx.blocking_recv();
                let news = news_rx.blocking_recv();
                // Waits for the task below to drop its guard.
                let mut guard = shared.blocking_lock();
                *guard += 1;
                (reply, news, *guard)
            });
            reply_tx.send("reply").unwrap();
            news_tx.send("news").unwrap();
            // The task held the lock first; the job takes it after.
            let mut held = held;
            *held = 10;
            drop(held);
            let (reply, news, value) = job.await.unwrap();
            assert_eq!(reply, Ok("reply"));
            assert_eq!(news, Ok("news"));
            assert_eq!(value, 11);
            assert_eq!(*mutex.lock().await, 11);
        });
    });
}

#[test]
fn a_thread_writes_through_an_rwlock_a_task_reads() {
    each_runtime(|_, rt| {
        let lock = Arc::new(rt::sync::RwLock::new(Vec::new()));
        let (done_tx, done_rx) = oneshot::channel();
        let writer = lock.clone();
        let thread = std::thread::spawn(move || {
            writer.blocking_write().extend([1, 2, 3]);
            done_tx.send(()).unwrap();
            writer.blocking_read().len()
        });
        let seen = rt.block_on(async {
            done_rx.await.unwrap();
            lock.read().await.clone()
        });
        assert_eq!(seen, [1, 2, 3]);
        assert_eq!(thread.join().unwrap(), 3);
    });
}

#[test]
fn blocking_calls_from_async_code_panic_and_say_what_to_do() {
    each_runtime(|_, rt| {
        let (_tx, mut rx) = mpsc::channel::<()>(1);
        let message = expect_panic(|| rt.block_on(async { rx.blocking_recv() }));
        assert!(
            message.contains("`mpsc::Receiver::blocking_recv` was called from async code")
                && message.contains("spawn_blocking"),
            "{message}"
        );
        let mutex = Mutex::new(());
        let message = expect_panic(|| rt.block_on(async { drop(mutex.blocking_lock()) }));
        assert!(message.contains("`Mutex::blocking_lock`"), "{message}");
        let lock = rt::sync::RwLock::new(());
        let message = expect_panic(|| rt.block_on(async { drop(lock.blocking_write()) }));
        assert!(message.contains("`RwLock::blocking_write`"), "{message}");
        let owned = Arc::new(Mutex::new(()));
        let message = expect_panic(|| rt.block_on(async { drop(owned.blocking_lock_owned()) }));
        assert!(
            message.contains("`Mutex::blocking_lock_owned`"),
            "{message}"
        );
        let semaphore = Arc::new(Semaphore::new(1));
        let message =
            expect_panic(|| rt.block_on(async { drop(semaphore.blocking_acquire_owned()) }));
        assert!(
            message.contains("`Semaphore::blocking_acquire_owned`"),
            "{message}"
        );
        let (_tx, mut rx) = mpsc::unbounded_channel::<()>();
        let message =
            expect_panic(|| rt.block_on(async { rx.blocking_recv_many(&mut Vec::new(), 1) }));
        assert!(
            message.contains("`mpsc::UnboundedReceiver::blocking_recv_many`"),
            "{message}"
        );
    });
}

#[test]
fn owned_guards_and_permits_taken_by_a_thread_wait_for_a_task_to_let_go() {
    each_runtime(|_, rt| {
        let mutex = Arc::new(Mutex::new(Vec::new()));
        let semaphore = Arc::new(Semaphore::new(2));
        let (held_tx, held_rx) = std::sync::mpsc::channel();
        let (release_tx, release_rx) = oneshot::channel::<()>();
        let (task_mutex, task_semaphore) = (mutex.clone(), semaphore.clone());
        let task = rt.spawn(async move {
            let mut guard = task_mutex.lock_owned().await;
            let permits = task_semaphore.acquire_many_owned(2).await.unwrap();
            held_tx.send(()).unwrap();
            release_rx.await.unwrap();
            guard.push("task");
            drop((guard, permits));
        });
        let thread = std::thread::spawn(move || {
            held_rx.recv().unwrap();
            release_tx.send(()).unwrap();
            // Both wait for the task's guard and permits to drop.
            let permits = semaphore.clone().blocking_acquire_many_owned(2).unwrap();
            let mut guard = mutex.blocking_lock_owned();
            guard.push("thread");
            drop(permits);
            let permit = semaphore.blocking_acquire_owned().unwrap();
            assert_eq!(permit.num_permits(), 1);
            guard.clone()
        });
        rt.block_on(task).unwrap();
        assert_eq!(thread.join().unwrap(), ["task", "thread"]);
    });
}

#[test]
fn a_thread_receives_batches_a_task_sends() {
    each_runtime(|_, rt| {
        let (tx, mut rx) = mpsc::channel::<u32>(4);
        let (go_tx, go_rx) = oneshot::channel::<()>();
        let sender = rt.spawn(async move {
            go_rx.await.unwrap();
            for n in 0..10 {
                tx.send(n).await.unwrap();
            }
        });
        let thread = std::thread::spawn(move || {
            go_tx.send(()).unwrap();
            let mut got = Vec::new();
            while rx.blocking_recv_many(&mut got, 3) > 0 {}
            got
        });
        rt.block_on(sender).unwrap();
        assert_eq!(thread.join().unwrap(), (0..10).collect::<Vec<_>>());
    });
}
