//! Objects a server keeps for its whole life, used over and over.

use super::{Runtime, steady};
use std::time::Duration;

/// Objects a server keeps for its whole life, used over and over: whatever
/// each use leaves behind accumulates in them.
pub(super) fn long_lived(runtime: &Runtime) {
    use futures::io::AsyncWriteExt;
    use rt::net::{TcpListener, TcpStream, UdpSocket};

    let set = rt::sync::Mutex::new(rt::task::JoinSet::new());
    steady("long-lived join set: spawn and join", runtime, || async {
        let mut set = set.lock().await;
        set.spawn(async {});
        set.spawn_blocking(|| {});
        let abort = set.spawn(std::future::pending());
        abort.abort();
        for _ in 0..3 {
            let _ = set.join_next().await.unwrap();
        }
        set.spawn(async {});
        rt::task::yield_now().await;
        while set.try_join_next().is_none() && !set.is_empty() {
            rt::task::yield_now().await;
        }
    });
    drop(set);

    let local = rt::task::LocalSet::new();
    steady("long-lived local set", runtime, || {
        let local = &local;
        async move {
            let done = local.spawn_local(async {});
            local.run_until(done).await.unwrap();
            drop(local.spawn_local(async {}));
            let pending = local.spawn_local(std::future::pending::<()>());
            pending.abort();
            let _ = local.run_until(pending).await;
        }
    });
    drop(local);

    let (listener, client, server, udp) = runtime.block_on(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let (server, _) = listener.accept().await.unwrap();
        let udp = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        (listener, client, server, udp)
    });
    let client = rt::sync::Mutex::new(client);
    steady(
        "long-lived sockets: readiness waits dropped",
        runtime,
        || async {
            let _ = futures::poll!(Box::pin(listener.accept()));
            let _ = futures::poll!(Box::pin(server.readable()));
            let mut buf = [0; 8];
            let _ = futures::poll!(Box::pin(udp.recv_from(&mut buf)));
            let _ = futures::poll!(Box::pin(udp.readable()));
            let _ = futures::poll!(Box::pin(
                client.lock().await.ready(rt::io::Interest::READABLE)
            ));
        },
    );
    steady(
        "long-lived sockets: readiness waits woken",
        runtime,
        || async {
            let readable = server.readable();
            client.lock().await.write_all(b"x").await.unwrap();
            readable.await.unwrap();
            let mut buf = [0; 8];
            server.try_read(&mut buf).unwrap();
        },
    );
    drop((listener, client, server, udp));

    let interval = runtime.block_on(async {
        let mut interval = rt::time::interval(Duration::from_secs(60));
        interval.tick().await;
        interval
    });
    let interval = rt::sync::Mutex::new(interval);
    steady(
        "long-lived interval: tick dropped and reset",
        runtime,
        || async {
            let mut interval = interval.lock().await;
            let _ = futures::poll!(Box::pin(interval.tick()));
            interval.reset();
        },
    );
    drop(interval);

    let (tx, rx) = rt::sync::broadcast::channel::<u8>(4);
    let rx = rt::sync::Mutex::new(rx);
    steady(
        "long-lived broadcast: lagging receiver",
        runtime,
        || async {
            for i in 0..8 {
                tx.send(i).unwrap();
            }
            let mut rx = rx.lock().await;
            while rx.try_recv().is_ok() || !rx.is_empty() {}
            let _ = futures::poll!(Box::pin(rx.recv()));
        },
    );
    drop((tx, rx));

    let notify = rt::sync::Notify::new();
    steady(
        "long-lived notify: notified dropped after notify_one",
        runtime,
        || {
            let notify = &notify;
            async move {
                let mut first = Box::pin(notify.notified());
                let _ = futures::poll!(first.as_mut());
                notify.notify_one();
                drop(first);
                notify.notified().await;
            }
        },
    );

    let signal = runtime.block_on(async {
        rt::signal::unix::signal(rt::signal::unix::SignalKind::user_defined2()).unwrap()
    });
    let signal = rt::sync::Mutex::new(signal);
    steady("long-lived signal: recv dropped", runtime, || async {
        let _ = futures::poll!(Box::pin(signal.lock().await.recv()));
    });
    drop(signal);

    let child = runtime.block_on(async {
        rt::process::Command::new("cat")
            .stdin(std::process::Stdio::piped())
            .spawn()
    });
    let child = rt::sync::Mutex::new(child.unwrap());
    steady("long-lived child: wait dropped", runtime, || async {
        let _ = futures::poll!(Box::pin(child.lock().await.wait()));
    });
    let mut child = child.into_inner();
    drop(child.stdin.take());
    assert!(runtime.block_on(child.wait()).unwrap().success());
}
