//! Processes and sockets: TCP, UDP and Unix, opened, used and closed.

use super::{Runtime, steady, steady_for};
use std::time::Duration;

pub(super) fn processes(runtime: &Runtime) {
    steady_for(50, "process spawn and wait", runtime, || async {
        let status = rt::process::Command::new("true").status().await.unwrap();
        assert!(status.success());
    });
    steady_for(50, "process with piped output", runtime, || async {
        let output = rt::process::Command::new("echo")
            .arg("x")
            .output()
            .await
            .unwrap();
        assert_eq!(output.stdout, b"x\n");
    });
    steady_for(50, "process child dropped", runtime, || async {
        let child = rt::process::Command::new("true").spawn().unwrap();
        let pid = child.id().expect("a child just spawned has its id");
        drop(child);
        wait_until_reaped(pid).await;
    });
    let dir = std::env::temp_dir().join(format!("rt-leak-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("file");
    steady_for(50, "fs write and read", runtime, || {
        let path = &path;
        async move {
            rt::fs::write(path, b"data").await.unwrap();
            assert_eq!(rt::fs::read(path).await.unwrap(), b"data");
            let file = rt::fs::File::open(path).await.unwrap();
            drop(file);
        }
    });
    std::fs::remove_dir_all(&dir).unwrap();
}

pub(super) fn sockets(runtime: &Runtime) {
    use futures::io::{AsyncReadExt, AsyncWriteExt};
    use rt::net::{TcpListener, TcpStream, UdpSocket, UnixStream};

    let listener = runtime.block_on(TcpListener::bind("127.0.0.1:0")).unwrap();
    let addr = listener.local_addr().unwrap();
    steady("tcp connect, accept, close", runtime, || {
        let listener = &listener;
        async move {
            let client = TcpStream::connect(addr).await.unwrap();
            let (mut server, _) = listener.accept().await.unwrap();
            drop(client);
            let mut buf = [0; 8];
            assert_eq!(server.read(&mut buf).await.unwrap(), 0);
        }
    });
    steady("tcp readable dropped mid-wait", runtime, || {
        let listener = &listener;
        async move {
            let mut client = TcpStream::connect(addr).await.unwrap();
            let (server, _) = listener.accept().await.unwrap();
            let _ = futures::poll!(Box::pin(server.readable()));
            client.write_all(b"x").await.unwrap();
            server.readable().await.unwrap();
        }
    });
    steady("tcp split and reunite", runtime, || {
        let listener = &listener;
        async move {
            let client = TcpStream::connect(addr).await.unwrap();
            let (server, _) = listener.accept().await.unwrap();
            let (read, write) = client.into_split();
            let client = read.reunite(write).unwrap();
            drop((client, server));
        }
    });
    steady("tcp dropped before accept", runtime, || {
        let listener = &listener;
        async move {
            drop(TcpStream::connect(addr).await.unwrap());
            drop(listener.accept().await.unwrap());
        }
    });
    drop(listener);
    steady("udp bind and drop", runtime, || async {
        let socket = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let mut buf = [0; 8];
        let _ = futures::poll!(Box::pin(socket.recv(&mut buf)));
    });
    steady("signal listener", runtime, || async {
        let mut signal =
            rt::signal::unix::signal(rt::signal::unix::SignalKind::user_defined1()).unwrap();
        let _ = futures::poll!(Box::pin(signal.recv()));
    });
    steady("unix pair", runtime, || async {
        let (mut a, mut b) = UnixStream::pair().unwrap();
        a.write_all(b"x").await.unwrap();
        let mut buf = [0; 1];
        b.read_exact(&mut buf).await.unwrap();
    });
}

/// Waits until the process `pid`, a dropped child, is reaped (its `/proc`
/// entry, kept while it runs or is a zombie, is gone). Its reaper task
/// holds the child's registration until then, so on a loaded machine,
/// where `true` can take a while to exit, a round that did not wait would
/// read as leaking registrations. Bounded: a child never reaped fails.
async fn wait_until_reaped(pid: u32) {
    let entry = format!("/proc/{pid}");
    for _ in 0..10_000 {
        if !std::path::Path::new(&entry).exists() {
            return;
        }
        rt::time::sleep(Duration::from_millis(1)).await;
    }
    panic!("process child dropped: child {pid} was never reaped");
}
