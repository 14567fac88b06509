//! Models of the current-thread scheduler: wakes from other threads reach
//! the thread in `block_on`, and shutdown races them safely.
#![cfg(loom)]

use rt::runtime::Builder;
use rt_loom_tests::channel;

#[test]
fn remote_wake_reaches_block_on() {
    loom::model(|| {
        let rt = Builder::new_current_thread().build().unwrap();
        let (tx, rx) = channel();
        let task = rt.spawn(async move { rx.await * 2 });
        let sender = loom::thread::spawn(move || tx.send(21));
        assert_eq!(rt.block_on(task).unwrap(), 42);
        sender.join().unwrap();
    });
}

#[test]
fn main_future_woken_from_other_thread() {
    loom::model(|| {
        let rt = Builder::new_current_thread().build().unwrap();
        let (tx, rx) = channel();
        let sender = loom::thread::spawn(move || tx.send(9));
        assert_eq!(rt.block_on(rx), 9);
        sender.join().unwrap();
    });
}

#[test]
fn shutdown_races_remote_wake() {
    loom::model(|| {
        let rt = Builder::new_current_thread().build().unwrap();
        let (tx, rx) = channel::<u8>();
        let task = rt.spawn(rx);
        let sender = loom::thread::spawn(move || tx.send(1));
        drop(rt);
        sender.join().unwrap();
        drop(task);
    });
}

/// abort() from another thread while `block_on` runs the task: the task
/// is cancelled (or had completed) and its future is dropped on the
/// `block_on` thread, with the runtime current.
#[test]
fn abort_from_other_thread_during_block_on() {
    loom::model(|| {
        let rt = Builder::new_current_thread().build().unwrap();
        let (tx, rx) = channel::<u8>();
        let task = rt.spawn(async move {
            let value = rx.await;
            assert!(rt::runtime::Handle::try_current().is_ok());
            value
        });
        let abort = task.abort_handle();
        let aborter = loom::thread::spawn(move || abort.abort());
        let sender = loom::thread::spawn(move || tx.send(4));
        match rt.block_on(task) {
            Ok(value) => assert_eq!(value, 4),
            Err(error) => assert!(error.is_cancelled()),
        }
        aborter.join().unwrap();
        sender.join().unwrap();
    });
}
