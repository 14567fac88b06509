//! The facade's TCP types: echo through tokio's traits on both runtime
//! flavours, the halves, `poll_peek` into uninitialised memory, and the
//! conversions to rt's types.

mod support;

use std::mem::MaybeUninit;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, ReadBuf};
use tokio::net::{TcpListener, TcpSocket, TcpStream};

#[test]
fn echo_server_through_tokio_traits() {
    support::on_both_flavours(|| async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let server = rt::spawn(async move {
            for _ in 0..2 {
                let (mut stream, _) = listener.accept().await.unwrap();
                rt::spawn(async move {
                    let (mut read, mut write) = stream.split();
                    tokio::io::copy(&mut read, &mut write).await.unwrap();
                    write.shutdown().await.unwrap();
                });
            }
        });
        for _ in 0..2 {
            let mut client = TcpStream::connect(addr).await.unwrap();
            let payload: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
            let (mut read, mut write) = client.split();
            let (sent, echoed) = futures_join(
                async {
                    write.write_all(&payload).await.unwrap();
                    write.shutdown().await.unwrap();
                },
                async {
                    let mut got = Vec::new();
                    read.read_to_end(&mut got).await.unwrap();
                    got
                },
            )
            .await;
            let () = sent;
            assert_eq!(echoed, payload);
        }
        server.await.unwrap();
    });
}

/// Polls both futures until both are done.
async fn futures_join<A: std::future::Future, B: std::future::Future>(
    a: A,
    b: B,
) -> (A::Output, B::Output) {
    let mut a = std::pin::pin!(a);
    let mut b = std::pin::pin!(b);
    let (mut ra, mut rb) = (None, None);
    std::future::poll_fn(|cx| {
        if ra.is_none() {
            if let std::task::Poll::Ready(v) = a.as_mut().poll(cx) {
                ra = Some(v);
            }
        }
        if rb.is_none() {
            if let std::task::Poll::Ready(v) = b.as_mut().poll(cx) {
                rb = Some(v);
            }
        }
        if ra.is_some() && rb.is_some() {
            std::task::Poll::Ready((ra.take().unwrap(), rb.take().unwrap()))
        } else {
            std::task::Poll::Pending
        }
    })
    .await
}

#[test]
fn owned_halves_from_two_tasks_and_reunite() {
    support::on_both_flavours(|| async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let (server, _) = listener.accept().await.unwrap();
        let (read, mut write) = client.into_split();
        let writer = rt::spawn(async move {
            write.write_all(b"line one\nline two\n").await.unwrap();
            write
        });
        let (server_read, mut server_write) = server.into_split();
        let mut lines = BufReader::new(server_read).lines();
        assert_eq!(
            lines.next_line().await.unwrap().as_deref(),
            Some("line one")
        );
        assert_eq!(
            lines.next_line().await.unwrap().as_deref(),
            Some("line two")
        );
        server_write.write_all(b"ok").await.unwrap();
        let write = writer.await.unwrap();
        let mut client = read.reunite(write).unwrap();
        let mut buf = [0; 2];
        client.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"ok");
        // Dropping the server's owned write half shuts its write side.
        drop(server_write);
        assert_eq!(client.read(&mut buf).await.unwrap(), 0);
    });
}

#[test]
fn reunite_with_another_streams_half_hands_both_back() {
    support::block_on(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let a = TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let b = TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let (a_read, _a_write) = a.into_split();
        let (_b_read, b_write) = b.into_split();
        let err = a_read.reunite(b_write).unwrap_err();
        assert_eq!(
            err.to_string(),
            "tried to reunite halves that are not from the same socket"
        );
    });
}

#[test]
fn peek_fills_uninitialised_memory_and_keeps_the_data() {
    support::on_both_flavours(|| async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let mut client = TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let (mut server, _) = listener.accept().await.unwrap();
        client.write_all(b"peeked").await.unwrap();
        let mut memory = [MaybeUninit::<u8>::uninit(); 16];
        let mut buf = ReadBuf::uninit(&mut memory);
        let mut n = 0;
        while n < 6 {
            buf.clear();
            n = std::future::poll_fn(|cx| server.poll_peek(cx, &mut buf))
                .await
                .unwrap();
        }
        assert_eq!(buf.filled(), b"peeked");
        // The kernel initialised exactly what it wrote: nothing was zeroed.
        assert_eq!(buf.initialized().len(), 6);
        let mut got = [0; 6];
        server.read_exact(&mut got).await.unwrap();
        assert_eq!(&got, b"peeked");
        let (mut read, _write) = server.split();
        client.write_all(b"x").await.unwrap();
        let mut one = [0; 1];
        assert_eq!(read.peek(&mut one).await.unwrap(), 1);
    });
}

#[test]
fn a_read_into_uninitialised_memory_initialises_only_what_arrived() {
    support::block_on(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let mut client = TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let (mut server, _) = listener.accept().await.unwrap();
        client.write_all(b"abc").await.unwrap();
        let mut memory = [MaybeUninit::<u8>::uninit(); 64];
        let mut buf = ReadBuf::uninit(&mut memory);
        while buf.filled().len() < 3 {
            std::future::poll_fn(|cx| {
                tokio::io::AsyncRead::poll_read(std::pin::Pin::new(&mut server), cx, &mut buf)
            })
            .await
            .unwrap();
        }
        assert_eq!(buf.filled(), b"abc");
        // No zeroing: the rest of the buffer was never touched.
        assert_eq!(buf.initialized().len(), 3);
    });
}

#[test]
fn socket_listen_connect_and_rt_conversions() {
    support::block_on(async {
        let socket = TcpSocket::new_v4().unwrap();
        socket.set_reuseaddr(true).unwrap();
        socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let listener = socket.listen(8).unwrap();
        let addr = listener.local_addr().unwrap();
        let client = TcpSocket::new_v4().unwrap().connect(addr).await.unwrap();
        client.set_nodelay(true).unwrap();
        assert!(client.nodelay().unwrap());
        let rt_listener: rt::net::TcpListener = listener.into();
        let listener = TcpListener::from(rt_listener);
        let (server, peer) = listener.accept().await.unwrap();
        assert_eq!(peer, client.local_addr().unwrap());
        let rt_stream: rt::net::TcpStream = server.into();
        let server = TcpStream::from(rt_stream);
        assert_eq!(server.peer_addr().unwrap(), peer);
        let std_stream = server.into_std().unwrap();
        let _back = TcpStream::from_std(std_stream).unwrap();
    });
}

#[test]
fn udp_poll_recv_and_peek_into_read_bufs() {
    support::on_both_flavours(|| async {
        let a = tokio::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let b = tokio::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
        b.send_to(b"first", a.local_addr().unwrap()).await.unwrap();
        let mut memory = [MaybeUninit::<u8>::uninit(); 16];
        let mut buf = ReadBuf::uninit(&mut memory);
        let from = std::future::poll_fn(|cx| a.poll_peek_from(cx, &mut buf))
            .await
            .unwrap();
        assert_eq!(
            (buf.filled(), from),
            (&b"first"[..], b.local_addr().unwrap())
        );
        buf.clear();
        let from = std::future::poll_fn(|cx| a.poll_recv_from(cx, &mut buf))
            .await
            .unwrap();
        assert_eq!(
            (buf.filled(), from),
            (&b"first"[..], b.local_addr().unwrap())
        );
        a.connect(b.local_addr().unwrap()).await.unwrap();
        b.send_to(b"second", a.local_addr().unwrap()).await.unwrap();
        buf.clear();
        std::future::poll_fn(|cx| a.poll_peek(cx, &mut buf))
            .await
            .unwrap();
        buf.clear();
        std::future::poll_fn(|cx| a.poll_recv(cx, &mut buf))
            .await
            .unwrap();
        assert_eq!(buf.filled(), b"second");
        assert_eq!(buf.initialized().len(), 6);
    });
}

#[test]
fn udp_recv_into_a_full_read_buf_consumes_the_datagram_as_tokio_does() {
    support::block_on(async {
        let a = tokio::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let b = tokio::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
        b.send_to(b"dropped", a.local_addr().unwrap())
            .await
            .unwrap();
        b.send_to(b"kept", a.local_addr().unwrap()).await.unwrap();
        let mut none: [MaybeUninit<u8>; 0] = [];
        let mut full = ReadBuf::uninit(&mut none);
        let from = std::future::poll_fn(|cx| a.poll_recv_from(cx, &mut full))
            .await
            .unwrap();
        assert_eq!(from, b.local_addr().unwrap());
        let mut buf = [0u8; 16];
        let (n, _) = a.recv_from(&mut buf).await.unwrap();
        assert_eq!(&buf[..n], b"kept");
    });
}

#[test]
fn unix_stream_pair_halves_and_datagrams() {
    support::on_both_flavours(|| async {
        let (mut a, b) = tokio::net::UnixStream::pair().unwrap();
        let (read, _write) = b.into_split();
        let mut reader = BufReader::new(read);
        a.write_all(b"hello\n").await.unwrap();
        let mut line = String::new();
        reader.read_line(&mut line).await.unwrap();
        assert_eq!(line, "hello\n");

        let (x, y) = tokio::net::UnixDatagram::pair().unwrap();
        x.send(b"dgram").await.unwrap();
        let mut memory = [MaybeUninit::<u8>::uninit(); 16];
        let mut buf = ReadBuf::uninit(&mut memory);
        std::future::poll_fn(|cx| y.poll_recv(cx, &mut buf))
            .await
            .unwrap();
        assert_eq!(buf.filled(), b"dgram");
        x.send(b"again").await.unwrap();
        buf.clear();
        let _from = std::future::poll_fn(|cx| y.poll_recv_from(cx, &mut buf))
            .await
            .unwrap();
        assert_eq!(buf.filled(), b"again");
    });
}

#[test]
fn unix_listener_accepts_facade_streams() {
    support::block_on(async {
        let dir = std::env::temp_dir().join(format!("facade-net-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("listener.sock");
        let _ = std::fs::remove_file(&path);
        let listener = tokio::net::UnixListener::bind(&path).unwrap();
        let mut client = tokio::net::UnixStream::connect(&path).await.unwrap();
        let (mut server, _) = listener.accept().await.unwrap();
        client.write_all(b"u").await.unwrap();
        assert_eq!(server.read_u8().await.unwrap(), b'u');
        std::fs::remove_dir_all(&dir).unwrap();
    });
}
