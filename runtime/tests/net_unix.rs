//! Unix-domain sockets on both schedulers.

mod support;

use std::future::poll_fn;

use rt::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use rt::net::{UnixDatagram, UnixListener, UnixStream};
use std::path::PathBuf;
use support::on_both;

fn socket_path(name: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("rt-{name}-{}.sock", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}

#[test]
fn listener_and_stream_echo() {
    on_both(|| async {
        let path = socket_path("echo");
        let listener = UnixListener::bind(&path).unwrap();
        let server = rt::spawn(async move {
            for _ in 0..20 {
                let (mut stream, _) = listener.accept().await.unwrap();
                rt::spawn(async move {
                    let mut buf = Vec::new();
                    stream.read_to_end(&mut buf).await.unwrap();
                    stream.write_all(&buf).await.unwrap();
                    stream.close().await.unwrap();
                });
            }
        });
        let clients: Vec<_> = (0..20u8)
            .map(|i| {
                let path = path.clone();
                rt::spawn(async move {
                    let mut stream = UnixStream::connect(&path).await.unwrap();
                    let msg = vec![i; 1000 + i as usize];
                    stream.write_all(&msg).await.unwrap();
                    stream.close().await.unwrap();
                    let mut back = Vec::new();
                    stream.read_to_end(&mut back).await.unwrap();
                    assert_eq!(back, msg);
                })
            })
            .collect();
        for client in clients {
            client.await.unwrap();
        }
        server.await.unwrap();
        std::fs::remove_file(&path).unwrap();
    });
}

#[test]
fn connect_to_missing_path_fails() {
    on_both(|| async {
        let path = socket_path("missing");
        let err = UnixStream::connect(&path).await.unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::NotFound);
    });
}

#[test]
fn stream_pair_with_buffered_lines() {
    on_both(|| async {
        let (mut a, b) = UnixStream::pair().unwrap();
        let writer = rt::spawn(async move {
            for i in 0..500 {
                a.write_all(format!("line {i}\n").as_bytes()).await.unwrap();
            }
            a.close().await.unwrap();
        });
        let mut lines = BufReader::new(b).lines();
        let mut count = 0;
        while let Some(line) = futures_util::StreamExt::next(&mut lines).await {
            assert_eq!(line.unwrap(), format!("line {count}"));
            count += 1;
        }
        assert_eq!(count, 500);
        writer.await.unwrap();
    });
}

#[test]
fn datagram_pair_and_paths() {
    on_both(|| async {
        let (a, b) = UnixDatagram::pair().unwrap();
        for i in 0..50u8 {
            a.send(&[i; 7]).await.unwrap();
        }
        let mut buf = [0u8; 16];
        for i in 0..50u8 {
            let n = b.recv(&mut buf).await.unwrap();
            assert_eq!(&buf[..n], &[i; 7]);
        }

        let server_path = socket_path("dgram-server");
        let client_path = socket_path("dgram-client");
        let server = UnixDatagram::bind(&server_path).unwrap();
        let client = UnixDatagram::bind(&client_path).unwrap();
        client.send_to(b"request", &server_path).await.unwrap();
        let (n, from) = server.recv_from(&mut buf).await.unwrap();
        assert_eq!(&buf[..n], b"request");
        assert_eq!(from.as_pathname(), Some(client_path.as_path()));
        server
            .send_to(b"reply", from.as_pathname().unwrap())
            .await
            .unwrap();
        client.connect(&server_path).unwrap();
        let n = client.recv(&mut buf).await.unwrap();
        assert_eq!(&buf[..n], b"reply");
        std::fs::remove_file(&server_path).unwrap();
        std::fs::remove_file(&client_path).unwrap();
    });
}

/// A socket whose runtime shuts down while something still waits on it
/// (here: a future driven by another runtime) fails with an error instead
/// of hanging: the driver's shutdown wakes every registration.
#[test]
fn driver_shutdown_wakes_waiters_with_an_error() {
    let owner = rt::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_io()
        .build()
        .unwrap();
    let (mut a, b) = owner.block_on(async { UnixStream::pair().unwrap() });
    let (started_tx, started_rx) = std::sync::mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let other = rt::runtime::Builder::new_current_thread().build().unwrap();
        other.block_on(async move {
            started_tx.send(()).unwrap();
            a.read(&mut [0u8; 8]).await
        })
    });
    started_rx.recv().unwrap();
    drop(owner);
    let result = waiter.join().unwrap();
    assert!(result.is_err(), "expected a shutdown error, got {result:?}");
    drop(b);
}

/// The far end of a pair echoes everything back until the near end closes
/// its write side.
fn unix_echo_pair() -> UnixStream {
    let (near, mut far) = UnixStream::pair().unwrap();
    rt::spawn(async move {
        let (mut read, mut write) = far.split();
        rt::io::copy(&mut read, &mut write).await.unwrap();
        write.close().await.unwrap();
    });
    near
}

#[test]
fn owned_halves_move_to_two_tasks_and_keep_order() {
    const MESSAGES: u32 = 2000;
    on_both(|| async {
        let (mut read, mut write) = unix_echo_pair().into_split();
        // The writer and the reader wait on the same socket at once, each
        // on its own side of the registration.
        let writer = rt::spawn(async move {
            for i in 0..MESSAGES {
                write.write_all(&i.to_le_bytes()).await.unwrap();
                if i % 64 == 0 {
                    rt::task::yield_now().await;
                }
            }
        });
        let reader = rt::spawn(async move {
            let mut buf = [0u8; 4];
            for i in 0..MESSAGES {
                read.read_exact(&mut buf).await.unwrap();
                assert_eq!(u32::from_le_bytes(buf), i);
            }
            read
        });
        writer.await.unwrap();
        // The write half is gone: the echo ends, and so does the stream.
        let mut read = reader.await.unwrap();
        assert_eq!(read.read(&mut [0; 1]).await.unwrap(), 0);
    });
}

#[test]
fn borrowed_halves_write_and_read_a_megabyte_in_one_task() {
    on_both(|| async {
        let mut stream = unix_echo_pair();
        let (mut read, mut write) = stream.split();
        // More than the socket buffers hold: writing alone would block on
        // the echo, which blocks on our unread data.
        let data: Vec<u8> = (0..1 << 20).map(|i: u32| (i % 251) as u8).collect();
        let got = support::echo_through_halves!(&mut read, &mut write, &data).await;
        assert!(got == data, "the echo differs from what was sent");
    });
}

#[test]
fn dropping_the_read_half_leaves_the_write_half_working() {
    on_both(|| async {
        let (a, mut b) = UnixStream::pair().unwrap();
        let (read, mut write) = a.into_split();
        drop(read);
        write.write_all(b"still open").await.unwrap();
        drop(write);
        let mut got = String::new();
        b.read_to_string(&mut got).await.unwrap();
        assert_eq!(got, "still open");
    });
}

#[test]
fn std_sockets_convert_with_try_from() {
    on_both(|| async {
        let path = socket_path("try-from");
        let listener =
            UnixListener::try_from(std::os::unix::net::UnixListener::bind(&path).unwrap()).unwrap();
        assert!(listener.take_error().unwrap().is_none());
        let std_client = std::os::unix::net::UnixStream::connect(&path).unwrap();
        let mut client: UnixStream = std_client.try_into().unwrap();
        let (mut server, _) = listener.accept().await.unwrap();
        client.write_all(b"stream").await.unwrap();
        let mut buf = [0; 6];
        server.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"stream");
        let cred = server.peer_cred().unwrap();
        let pid: Option<rt::net::unix::pid_t> = cred.pid();
        assert_eq!(pid, Some(std::process::id() as rt::net::unix::pid_t));
        std::fs::remove_file(&path).unwrap();

        let (a, b) = std::os::unix::net::UnixDatagram::pair().unwrap();
        let a = UnixDatagram::try_from(a).unwrap();
        let b: UnixDatagram = b.try_into().unwrap();
        a.send(b"datagram").await.unwrap();
        let mut buf = [0; 8];
        assert_eq!(b.recv(&mut buf).await.unwrap(), 8);
        assert_eq!(&buf, b"datagram");
    });
}

#[test]
fn unix_socket_listens_connects_from_a_bound_path_and_names_misuse() {
    use rt::net::UnixSocket;
    on_both(|| async {
        let server_path = socket_path("usock-server");
        let client_path = socket_path("usock-client");
        let socket = UnixSocket::new_stream().unwrap();
        socket.bind(&server_path).unwrap();
        let listener = socket.listen(8).unwrap();

        let client = UnixSocket::new_stream().unwrap();
        client.bind(&client_path).unwrap();
        let mut client = client.connect(&server_path).await.unwrap();
        let (mut server, peer) = listener.accept().await.unwrap();
        assert_eq!(peer.as_pathname(), Some(client_path.as_path()));
        client.write_all(b"bound").await.unwrap();
        let mut buf = [0; 5];
        server.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"bound");

        let err = UnixSocket::new_datagram().unwrap().listen(8).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
        assert!(err.to_string().contains("new_stream"), "{err}");
        let err = UnixSocket::new_stream().unwrap().datagram().unwrap_err();
        assert!(err.to_string().contains("new_datagram"), "{err}");
        let err = UnixSocket::new_stream()
            .unwrap()
            .bind(&server_path)
            .unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::AddrInUse);

        let receiver = UnixSocket::new_datagram().unwrap();
        let dgram_path = socket_path("usock-dgram");
        receiver.bind(&dgram_path).unwrap();
        let receiver = receiver.datagram().unwrap();
        let sender = UnixDatagram::unbound().unwrap();
        sender.send_to(b"dgram", &dgram_path).await.unwrap();
        let mut buf = [0; 5];
        assert_eq!(receiver.recv(&mut buf).await.unwrap(), 5);
        assert_eq!(&buf, b"dgram");
        for path in [server_path, client_path, dgram_path] {
            std::fs::remove_file(path).unwrap();
        }
    });
}

/// After `shutdown(Write)` sends fail; after `shutdown(Read)` the
/// datagrams already queued are still received, then every receive
/// (waiting, `poll_*` or `try_*`, with or without the sender's address)
/// returns 0 bytes, as a blocking `recv(2)` does, instead of waiting
/// forever; and a peer's sends to the shut socket fail.
#[test]
fn datagram_shutdown_stops_sends_and_ends_receives() {
    on_both(|| async {
        let (a, _b) = UnixDatagram::pair().unwrap();
        a.shutdown(std::net::Shutdown::Write).unwrap();
        let err = a.send(b"late").await.unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::BrokenPipe);

        let (c, d) = UnixDatagram::pair().unwrap();
        c.send(b"queued").await.unwrap();
        d.shutdown(std::net::Shutdown::Read).unwrap();
        let mut buf = [0; 8];
        assert_eq!(
            d.recv(&mut buf).await.unwrap(),
            6,
            "queued before the shutdown"
        );
        assert_eq!(d.recv(&mut buf).await.unwrap(), 0);
        let (n, from) = d.recv_from(&mut buf).await.unwrap();
        assert_eq!(n, 0);
        assert!(from.is_unnamed());
        assert_eq!(d.peek_from(&mut buf).await.unwrap().0, 0);
        assert_eq!(poll_fn(|cx| d.poll_recv(cx, &mut buf)).await.unwrap(), 0);
        assert_eq!(d.try_recv(&mut buf).unwrap(), 0);
        assert_eq!(d.try_recv_from(&mut buf).unwrap().0, 0);
        assert!(
            c.send(b"refused").await.is_err(),
            "the peer cannot send to it"
        );
    });
}
