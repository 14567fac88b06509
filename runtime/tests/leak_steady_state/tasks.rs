//! Tasks (spawned, joined, aborted, blocking, local) and timers.

use super::{Runtime, settle, steady};
use std::time::Duration;

pub(super) fn tasks(runtime: &Runtime) {
    steady("spawn and complete", runtime, || async {
        rt::spawn(async {}).await.unwrap();
    });
    steady("abort before the first poll", runtime, || async {
        let handle = rt::spawn(async {});
        handle.abort();
        let _ = handle.await;
    });
    steady("abort while pending", runtime, || async {
        let handle = rt::spawn(std::future::pending::<()>());
        rt::task::yield_now().await;
        handle.abort();
        assert!(handle.await.unwrap_err().is_cancelled());
    });
    steady("abort from another thread", runtime, || async {
        let handle = rt::spawn(std::future::pending::<()>());
        let abort = handle.abort_handle();
        std::thread::spawn(move || abort.abort()).join().unwrap();
        assert!(handle.await.unwrap_err().is_cancelled());
    });
    steady("detached task", runtime, || async {
        let (tx, rx) = rt::sync::oneshot::channel();
        drop(rt::spawn(async move { tx.send(()).unwrap() }));
        rx.await.unwrap();
    });
    steady("join set abort_all", runtime, || async {
        let mut set = rt::task::JoinSet::new();
        for _ in 0..4 {
            set.spawn(std::future::pending::<()>());
        }
        set.spawn(async {});
        set.abort_all();
        while set.join_next().await.is_some() {}
    });
    steady("join set dropped", runtime, || async {
        let mut set = rt::task::JoinSet::new();
        for _ in 0..4 {
            set.spawn(std::future::pending::<()>());
        }
        drop(set);
        // Not a backlog of aborted tasks: the run queues' high-water mark
        // would vary with how far behind the workers fall.
        settle().await;
    });
    steady("join set detach_all", runtime, || async {
        let mut set = rt::task::JoinSet::new();
        let (tx, rx) = rt::sync::oneshot::channel();
        set.spawn(async move { tx.send(()).unwrap() });
        set.detach_all();
        rx.await.unwrap();
    });
    steady("spawn_blocking", runtime, || async {
        rt::spawn_blocking(|| ()).await.unwrap();
    });
    steady("spawn aborted mid-poll", runtime, || async {
        let (tx, rx) = std::sync::mpsc::channel();
        let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
        let handle = rt::spawn(async move {
            let abort: rt::task::AbortHandle = rx.recv().unwrap();
            abort.abort();
            drop(go_tx);
            rt::task::yield_now().await;
        });
        tx.send(handle.abort_handle()).unwrap();
        let _ = handle.await;
        let _ = go_rx.recv();
    });
    steady("task waker kept past completion", runtime, || async {
        let waker = rt::spawn(std::future::poll_fn(|cx| {
            std::task::Poll::Ready(cx.waker().clone())
        }))
        .await
        .unwrap();
        waker.wake();
    });
    steady("local set", runtime, || async {
        let local = rt::task::LocalSet::new();
        local
            .run_until(async {
                rt::task::spawn_local(async {}).await.unwrap();
                drop(rt::task::spawn_local(std::future::pending::<()>()));
            })
            .await;
    });
    rt::task_local! {
        static VALUE: Vec<u8>;
    }
    steady("task local scope", runtime, || async {
        VALUE.scope(vec![1; 16], rt::task::yield_now()).await;
    });
}

pub(super) fn timers(runtime: &Runtime) {
    steady("sleep dropped before firing", runtime, || async {
        let mut sleep = Box::pin(rt::time::sleep(Duration::from_secs(60)));
        let _ = futures::poll!(sleep.as_mut());
    });
    steady("sleep reset", runtime, || async {
        let mut sleep = Box::pin(rt::time::sleep(Duration::from_secs(60)));
        for i in 0..10 {
            let _ = futures::poll!(sleep.as_mut());
            sleep
                .as_mut()
                .reset(rt::time::Instant::now() + Duration::from_secs(60 + i));
        }
    });
    steady("timeout around a ready future", runtime, || async {
        rt::time::timeout(Duration::from_secs(60), async {})
            .await
            .unwrap();
    });
    steady("timeout dropped while pending", runtime, || async {
        let timeout = rt::time::timeout(Duration::from_secs(60), std::future::pending::<()>());
        let _ = futures::poll!(Box::pin(timeout));
    });
    steady("sleep dropped on another thread", runtime, || async {
        let mut sleep = Box::pin(rt::time::sleep(Duration::from_secs(60)));
        let _ = futures::poll!(sleep.as_mut());
        std::thread::spawn(move || drop(sleep)).join().unwrap();
    });
    steady("sleep that fires", runtime, || async {
        rt::time::sleep(Duration::ZERO).await;
    });
    steady("interval", runtime, || async {
        let mut interval = rt::time::interval(Duration::from_secs(60));
        interval.tick().await;
        let _ = futures::poll!(Box::pin(interval.tick()));
    });
}
