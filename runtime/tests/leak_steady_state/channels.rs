//! Every channel and lock, used and cancelled in a loop.

use super::{Runtime, steady};

pub(super) fn channels(runtime: &Runtime) {
    let (tx, rx) = rt::sync::mpsc::channel::<u8>(1);
    let rx = rt::sync::Mutex::new(rx);
    steady("mpsc recv cancelled", runtime, || async {
        let _ = futures::poll!(Box::pin(rx.lock().await.recv()));
    });
    tx.try_send(1).unwrap();
    let tx2 = tx.clone();
    steady("mpsc send cancelled", runtime, || {
        let tx = &tx2;
        async move {
            let _ = futures::poll!(Box::pin(tx.send(2)));
        }
    });
    drop((tx, tx2, rx));
    let (tx, rx) = rt::sync::mpsc::unbounded_channel::<u8>();
    let rx = rt::sync::Mutex::new(rx);
    steady("unbounded recv cancelled", runtime, || async {
        let _ = futures::poll!(Box::pin(rx.lock().await.recv()));
    });
    drop(tx);
    steady("oneshot", runtime, || async {
        let (tx, rx) = rt::sync::oneshot::channel::<Vec<u8>>();
        let mut rx = Box::pin(rx);
        let _ = futures::poll!(rx.as_mut());
        drop(tx);
    });
    let (btx, _brx) = rt::sync::broadcast::channel::<u8>(16);
    steady("broadcast receiver", runtime, || {
        let btx = &btx;
        async move {
            let mut rx = btx.subscribe();
            btx.send(1).unwrap();
            let _ = futures::poll!(Box::pin(rx.recv()));
            let _ = futures::poll!(Box::pin(rx.recv()));
        }
    });
    let (wtx, wrx) = rt::sync::watch::channel(0u8);
    let wrx = rt::sync::Mutex::new(wrx);
    steady("watch changed cancelled", runtime, || async {
        let _ = futures::poll!(Box::pin(wrx.lock().await.changed()));
        let mut other = wrx.lock().await.clone();
        let _ = futures::poll!(Box::pin(other.changed()));
    });
    drop(wtx);
    let notify = rt::sync::Notify::new();
    steady("notified cancelled", runtime, || {
        let notify = &notify;
        async move {
            let _ = futures::poll!(Box::pin(notify.notified()));
        }
    });
    let semaphore = rt::sync::Semaphore::new(0);
    steady("acquire cancelled", runtime, || {
        let semaphore = &semaphore;
        async move {
            let _ = futures::poll!(Box::pin(semaphore.acquire()));
        }
    });
    let mutex = rt::sync::Mutex::new(0);
    let guard = runtime.block_on(mutex.lock());
    steady("lock cancelled", runtime, || {
        let mutex = &mutex;
        async move {
            let _ = futures::poll!(Box::pin(mutex.lock()));
        }
    });
    drop(guard);
    let semaphore = rt::sync::Semaphore::new(1);
    steady("partly served acquire_many cancelled", runtime, || {
        let semaphore = &semaphore;
        async move {
            let _ = futures::poll!(Box::pin(semaphore.acquire_many(2)));
        }
    });
    assert_eq!(semaphore.available_permits(), 1);
    let lock = rt::sync::RwLock::new(0);
    let reader = runtime.block_on(lock.read());
    steady("write cancelled", runtime, || {
        let lock = &lock;
        async move {
            let _ = futures::poll!(Box::pin(lock.write()));
        }
    });
    drop(reader);
    let (tx, rx) = rt::sync::mpsc::channel::<u8>(1);
    tx.try_send(0).unwrap();
    steady("reserve cancelled", runtime, || {
        let tx = &tx;
        async move {
            let _ = futures::poll!(Box::pin(tx.reserve()));
            let _ = futures::poll!(Box::pin(tx.clone().reserve_owned()));
        }
    });
    drop((tx, rx));
    steady("notify_waiters with a pending waiter", runtime, || {
        let notify = &notify;
        async move {
            let mut notified = Box::pin(notify.notified());
            let _ = futures::poll!(notified.as_mut());
            notify.notify_waiters();
            notified.await;
        }
    });
}
