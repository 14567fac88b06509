//! Narrowing the owned `RwLock` guards: mapped guards that move into
//! tasks, hold the lock there, and release it when dropped, joined or
//! aborted from another thread.

mod support;

use support::{poll_once, runtimes};

use rt::sync::{
    OwnedRwLockMappedWriteGuard, OwnedRwLockReadGuard, OwnedRwLockWriteGuard, RwLock, oneshot,
};
use std::sync::Arc;
use std::task::Poll;

#[allow(dead_code)]
fn _mapped_owned_guards_are_send_sync() {
    fn send_sync<T: Send + Sync + 'static>() {}
    send_sync::<OwnedRwLockReadGuard<(u8, String), String>>();
    send_sync::<OwnedRwLockReadGuard<Vec<u8>, [u8]>>();
    send_sync::<OwnedRwLockMappedWriteGuard<(u8, String), String>>();
    send_sync::<OwnedRwLockMappedWriteGuard<Vec<u8>>>();
}

#[derive(Debug, Default)]
struct Config {
    name: String,
    ports: Vec<u16>,
}

#[test]
fn owned_downgrade_map_admits_queued_readers_but_not_a_queued_writer() {
    let lock = Arc::new(RwLock::new(Config::default()));
    let mut writer = lock.clone().try_write_owned().unwrap();
    let mut queued_reader = Box::pin(lock.clone().read_owned());
    let mut queued_writer = Box::pin(lock.clone().write_owned());
    assert!(poll_once(&mut queued_reader).is_pending());
    assert!(poll_once(&mut queued_writer).is_pending());
    writer.ports.push(80);

    let ports = OwnedRwLockWriteGuard::downgrade_map(writer, |config| config.ports.as_slice());
    assert_eq!(*ports, [80]);
    let reader = match poll_once(&mut queued_reader) {
        Poll::Ready(guard) => guard,
        Poll::Pending => panic!("a reader queued ahead of the writer enters on downgrade"),
    };
    let name = OwnedRwLockReadGuard::map(reader, |config| &config.name);
    assert!(name.is_empty());
    assert!(poll_once(&mut queued_writer).is_pending());
    drop(ports);
    assert!(
        poll_once(&mut queued_writer).is_pending(),
        "one reader is left"
    );
    drop(name);
    match poll_once(&mut queued_writer) {
        Poll::Ready(writer) => {
            let mut name = OwnedRwLockWriteGuard::map(writer, |config| &mut config.name);
            name.push_str("rt");
        }
        Poll::Pending => panic!("the writer enters once every reader left"),
    }
    assert_eq!(lock.try_read().unwrap().name, "rt");
    assert_eq!(Arc::strong_count(&lock), 1, "every guard let its Arc go");
}

/// A mapped write guard moved into a task that parks while holding it;
/// the task is aborted from another thread at that await point. The
/// guard is dropped with the task's future, and a writer task waiting
/// meanwhile gets the lock.
#[test]
fn an_aborted_task_holding_a_mapped_write_guard_releases_the_lock() {
    for (_, rt) in runtimes() {
        rt.block_on(async {
            let lock = Arc::new(RwLock::new(Config::default()));
            let writer = lock.clone().write_owned().await;
            let mut ports = OwnedRwLockWriteGuard::map(writer, |config| &mut config.ports);
            let (holding_tx, holding_rx) = oneshot::channel();
            let holder = rt::spawn(async move {
                ports.push(443);
                holding_tx.send(()).unwrap();
                std::future::pending::<()>().await;
                drop(ports);
            });
            holding_rx.await.unwrap();
            let waiting_writer = {
                let lock = lock.clone();
                rt::spawn(async move {
                    let writer = lock.write_owned().await;
                    let mut name = OwnedRwLockWriteGuard::map(writer, |config| &mut config.name);
                    name.push_str("after abort");
                })
            };
            assert!(lock.try_read().is_err(), "the parked task holds the lock");
            let abort = holder.abort_handle();
            std::thread::spawn(move || abort.abort()).join().unwrap();
            assert!(holder.await.unwrap_err().is_cancelled());
            waiting_writer.await.unwrap();
            let config = lock.try_read().unwrap();
            assert_eq!(
                (config.name.as_str(), config.ports.as_slice()),
                ("after abort", &[443][..])
            );
        });
    }
}

/// Tasks each holding a narrowed read guard of their own; a writer waits
/// until the last of them has dropped its guard.
#[test]
fn a_writer_waits_for_every_mapped_reader_task() {
    for (_, rt) in runtimes() {
        rt.block_on(async {
            let lock = Arc::new(RwLock::new(Config {
                name: "rt".into(),
                ports: vec![80, 443, 8080],
            }));
            let mut releases = Vec::new();
            let mut readers = Vec::new();
            for i in 0..3 {
                let reader = lock.clone().read_owned().await;
                let port = OwnedRwLockReadGuard::map(reader, move |config| &config.ports[i]);
                let (release_tx, release_rx) = oneshot::channel::<()>();
                releases.push(release_tx);
                readers.push(rt::spawn(async move {
                    release_rx.await.unwrap();
                    *port
                }));
            }
            let mut writer = Box::pin(lock.clone().write_owned());
            for release in releases {
                assert!(poll_once(&mut writer).is_pending());
                release.send(()).unwrap();
            }
            let mut seen = Vec::new();
            for reader in readers {
                seen.push(reader.await.unwrap());
            }
            assert_eq!(seen, [80, 443, 8080]);
            let writer = writer.await;
            let whole = OwnedRwLockWriteGuard::into_mapped(writer);
            let mut ports = OwnedRwLockMappedWriteGuard::map(whole, |config| &mut config.ports);
            ports.clear();
            drop(ports);
            assert!(lock.try_read().unwrap().ports.is_empty());
        });
    }
}

/// A future waiting for the write lock, dropped at its await point while
/// a mapped read guard holds the lock, takes nothing: later readers and
/// writers still get in.
#[test]
fn a_dropped_write_future_behind_a_mapped_reader_leaves_the_lock_usable() {
    let lock = Arc::new(RwLock::new(Config::default()));
    let reader = OwnedRwLockReadGuard::map(lock.clone().try_read_owned().unwrap(), |c| &c.name);
    let mut writer = Box::pin(lock.clone().write_owned());
    assert!(poll_once(&mut writer).is_pending());
    assert!(lock.try_read().is_err(), "queued behind the writer");
    drop(writer);
    assert!(lock.try_read().is_ok());
    drop(reader);
    let writer = lock.clone().try_write_owned().unwrap();
    let name = OwnedRwLockWriteGuard::try_map(writer, |c| c.ports.first_mut()).unwrap_err();
    drop(name);
    assert!(lock.try_write().is_ok());
    assert_eq!(Arc::strong_count(&lock), 1);
}

#[test]
fn mapped_owned_guards_format_their_part() {
    let lock = Arc::new(RwLock::new((7, String::from("rt"))));
    let reader = OwnedRwLockReadGuard::map(lock.clone().try_read_owned().unwrap(), |t| &t.1);
    assert_eq!(format!("{reader} {reader:?}"), "rt \"rt\"");
    drop(reader);
    let writer = OwnedRwLockWriteGuard::map(lock.try_write_owned().unwrap(), |t| &mut t.0);
    assert_eq!(format!("{writer} {writer:?}"), "7 7");
}
