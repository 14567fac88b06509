//! Feature `bytes`: the sockets' methods over `bytes` buffers
//! (`try_read_buf` on streams and their read halves, `recv_buf`,
//! `recv_buf_from` and their `try_` forms on datagram sockets), on both
//! schedulers, over loopback.

mod support;

use bytes::{BufMut, BytesMut};
use rt::io::AsyncWriteExt;
use rt::net::{UdpSocket, UnixDatagram, UnixStream};
use std::io;
use std::sync::Arc;
use support::{Checksum, Kind, Pattern, on_both, report_pending, spawn_write_all, tcp_pair};

const MIB: usize = 1 << 20;

// ---- try_read_buf on streams and their halves ----

/// `try_read_buf` with nothing to read: `WouldBlock`, and the buffer
/// (contents and length) untouched; then, once data is readable, it
/// appends it; at end-of-file, `Ok(0)`. On TCP and Unix streams and on
/// their borrowed and owned read halves.
#[test]
fn try_read_buf_would_block_leaves_the_buffer_then_appends() {
    /// Checks one reader against `peer` (its other end).
    macro_rules! check {
        ($reader:expr, $peer:expr) => {{
            let reader = &$reader;
            let mut buf = BytesMut::with_capacity(64);
            buf.put_slice(b"old:");
            let err = reader.try_read_buf(&mut buf).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::WouldBlock);
            assert_eq!(&buf[..], b"old:", "WouldBlock leaves the buffer untouched");
            $peer.write_all(b"new").await.unwrap();
            $peer.shutdown().await.unwrap();
            loop {
                reader.readable().await.unwrap();
                match reader.try_read_buf(&mut buf) {
                    Ok(0) => break,
                    Ok(_) => {}
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                    Err(e) => panic!("try_read_buf: {e}"),
                }
            }
            assert_eq!(&buf[..], b"old:new");
        }};
    }
    on_both(|| async {
        let (mut peer, stream) = tcp_pair().await;
        check!(stream, peer);
        let (mut peer, stream) = UnixStream::pair().unwrap();
        check!(stream, peer);

        let (mut peer, mut stream) = tcp_pair().await;
        let (read, _write) = stream.split();
        check!(read, peer);
        let (mut peer, stream) = tcp_pair().await;
        let (read, _write) = stream.into_split();
        check!(read, peer);

        let (mut peer, mut stream) = UnixStream::pair().unwrap();
        let (read, _write) = stream.split();
        check!(read, peer);
        let (mut peer, stream) = UnixStream::pair().unwrap();
        let (read, _write) = stream.into_split();
        check!(read, peer);
    });
}

/// `try_read_buf` into a `Vec<u8>` with no capacity (it grows by 64 bytes
/// per call, as tokio's does) and into a slice, which takes only what
/// fits; a 1 MiB transfer arrives intact either way.
#[test]
fn try_read_buf_moves_a_large_transfer_into_a_vec_and_a_slice() {
    on_both(|| async {
        let data = Pattern::bytes(4, MIB);
        let (client, server) = tcp_pair().await;
        let writer = spawn_write_all(client, data.clone());
        let mut received = Checksum::new();
        let mut total = 0;
        let mut storage = vec![0u8; 100 * 1024];
        loop {
            server.readable().await.unwrap();
            let mut room: &mut [u8] = &mut storage;
            match server.try_read_buf(&mut room) {
                Ok(0) => break,
                Ok(n) => {
                    assert_eq!(room.len(), storage.len() - n);
                    received.update(&storage[..n]);
                    total += n;
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => panic!("try_read_buf: {e}"),
            }
        }
        writer.await.unwrap();
        assert_eq!((total, received), (MIB, Checksum::of(&data)));

        let data = Pattern::bytes(5, MIB);
        let (client, server) = tcp_pair().await;
        let writer = spawn_write_all(client, data.clone());
        let mut buf = Vec::new();
        loop {
            server.readable().await.unwrap();
            match server.try_read_buf(&mut buf) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => panic!("try_read_buf: {e}"),
            }
        }
        writer.await.unwrap();
        assert!(buf == data, "the transfer arrived intact");
    });
}

// ---- datagram sockets ----

/// `recv_buf_from` says who sent each datagram and appends it to the
/// buffer; `recv_buf` on a connected socket appends what its peer sends.
#[test]
fn udp_recv_buf_from_names_the_sender_and_fills_the_buffer() {
    on_both(|| async {
        let receiver = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let to = receiver.local_addr().unwrap();
        let a = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let b = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        a.send_to(b"from a", to).await.unwrap();
        b.send_to(b"from b", to).await.unwrap();
        let mut buf = BytesMut::with_capacity(1500);
        let (n, from) = receiver.recv_buf_from(&mut buf).await.unwrap();
        assert_eq!((n, from), (6, a.local_addr().unwrap()));
        let (n, from) = receiver.recv_buf_from(&mut buf).await.unwrap();
        assert_eq!((n, from), (6, b.local_addr().unwrap()));
        assert_eq!(&buf[..], b"from afrom b");

        receiver.connect(a.local_addr().unwrap()).await.unwrap();
        a.send_to(b"!", to).await.unwrap();
        assert_eq!(receiver.recv_buf(&mut buf).await.unwrap(), 1);
        assert_eq!(&buf[..], b"from afrom b!");
    });
}

/// The `try_` forms: `WouldBlock` with nothing queued, the buffer left as
/// it was; then the datagram and its sender.
#[test]
fn udp_try_recv_buf_would_block_then_receives() {
    on_both(|| async {
        let socket = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let me = socket.local_addr().unwrap();
        let mut buf = BytesMut::from(&b"x"[..]);
        let err = socket.try_recv_buf_from(&mut buf).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::WouldBlock);
        socket.connect(me).await.unwrap();
        let err = socket.try_recv_buf(&mut buf).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::WouldBlock);
        assert_eq!(&buf[..], b"x");
        socket.send(b"yz").await.unwrap();
        socket.readable().await.unwrap();
        assert_eq!(socket.try_recv_buf_from(&mut buf).unwrap(), (2, me));
        socket.send(b"!").await.unwrap();
        socket.readable().await.unwrap();
        assert_eq!(socket.try_recv_buf(&mut buf).unwrap(), 1);
        assert_eq!(&buf[..], b"xyz!");
    });
}

/// Truncation, as tokio documents it: a datagram longer than the buffer's
/// spare chunk is cut to it and the rest is discarded (the next receive
/// gets the next datagram). An empty `Vec` offers a 64-byte chunk; a
/// buffer with no room at all discards the whole datagram and returns 0.
#[test]
fn udp_recv_buf_cuts_a_datagram_to_the_spare_chunk() {
    on_both(|| async {
        let socket = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let me = socket.local_addr().unwrap();
        let long = Pattern::bytes(6, 100);
        for _ in 0..3 {
            socket.send_to(&long, me).await.unwrap();
        }
        socket.send_to(b"next", me).await.unwrap();

        let mut storage = [0u8; 10];
        let mut room: &mut [u8] = &mut storage;
        assert_eq!(socket.recv_buf_from(&mut room).await.unwrap(), (10, me));
        assert_eq!(storage, long[..10]);

        let mut grown = Vec::new();
        assert_eq!(socket.recv_buf_from(&mut grown).await.unwrap(), (64, me));
        assert_eq!(grown, long[..64]);

        let mut none: &mut [u8] = &mut [];
        assert_eq!(socket.recv_buf_from(&mut none).await.unwrap(), (0, me));

        let mut buf = Vec::with_capacity(1500);
        assert_eq!(socket.recv_buf_from(&mut buf).await.unwrap(), (4, me));
        assert_eq!(buf, b"next", "the cut datagrams left nothing behind");
    });
}

/// Several tasks awaiting `recv_buf_from` on one shared socket: every
/// datagram reaches exactly one of them, whole.
#[test]
fn udp_recv_buf_from_shared_by_several_tasks_delivers_each_datagram_once() {
    on_both(|| async {
        let socket = Arc::new(UdpSocket::bind("127.0.0.1:0").await.unwrap());
        let to = socket.local_addr().unwrap();
        let (done_tx, mut done_rx) = rt::sync::mpsc::unbounded_channel();
        let mut receivers = Vec::new();
        for _ in 0..4 {
            let socket = socket.clone();
            let done_tx = done_tx.clone();
            receivers.push(rt::spawn(async move {
                loop {
                    let mut buf = BytesMut::with_capacity(64);
                    let (n, _) = socket.recv_buf_from(&mut buf).await.unwrap();
                    assert_eq!(buf.len(), n);
                    if &buf[..] == b"stop" {
                        return;
                    }
                    done_tx.send(buf.freeze()).unwrap();
                }
            }));
        }
        drop(done_tx);
        let sender = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let mut got = Vec::new();
        // One at a time, each received before the next is sent: loopback
        // UDP queues are not overrun.
        for i in 0..40u32 {
            sender.send_to(&i.to_be_bytes(), to).await.unwrap();
            got.push(done_rx.recv().await.unwrap());
        }
        for _ in 0..4 {
            sender.send_to(b"stop", to).await.unwrap();
        }
        for receiver in receivers {
            receiver.await.unwrap();
        }
        let mut got: Vec<u32> = got
            .into_iter()
            .map(|b| u32::from_be_bytes(b[..].try_into().unwrap()))
            .collect();
        got.sort_unstable();
        assert_eq!(got, (0..40).collect::<Vec<_>>());
    });
}

/// Unix-domain datagrams: `recv_buf_from` names a bound sender's path,
/// `recv_buf` takes a connected peer's datagrams, the `try_` forms would
/// block on an empty queue without touching the buffer, and a datagram is
/// cut to the spare chunk.
#[test]
fn unix_datagram_recv_buf_forms() {
    support::each(&[Kind::CurrentThread, Kind::MultiThread(2)], |_, rt| {
        let dir = support::scratch_dir("io_bytes_unix_datagram", &rt);
        rt.block_on(async {
            let sender_path = dir.join("sender.sock");
            let sender = UnixDatagram::bind(&sender_path).unwrap();
            let receiver_path = dir.join("receiver.sock");
            let receiver = UnixDatagram::bind(&receiver_path).unwrap();

            let mut buf = BytesMut::from(&b"<"[..]);
            let err = receiver.try_recv_buf_from(&mut buf).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::WouldBlock);
            let err = receiver.try_recv_buf(&mut buf).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::WouldBlock);
            assert_eq!(&buf[..], b"<");

            sender.send_to(b"one", &receiver_path).await.unwrap();
            let (n, from) = receiver.recv_buf_from(&mut buf).await.unwrap();
            assert_eq!(n, 3);
            assert_eq!(from.as_pathname(), Some(sender_path.as_path()));

            sender.send_to(b"two", &receiver_path).await.unwrap();
            receiver.readable().await.unwrap();
            let (n, from) = receiver.try_recv_buf_from(&mut buf).unwrap();
            assert_eq!((n, from.as_pathname()), (3, Some(sender_path.as_path())));

            sender.connect(&receiver_path).unwrap();
            receiver.connect(&sender_path).unwrap();
            sender.send(b"three").await.unwrap();
            assert_eq!(receiver.recv_buf(&mut buf).await.unwrap(), 5);
            sender.send(b"four").await.unwrap();
            receiver.readable().await.unwrap();
            assert_eq!(receiver.try_recv_buf(&mut buf).unwrap(), 4);
            assert_eq!(&buf[..], b"<onetwothreefour");

            sender.send(&Pattern::bytes(7, 100)).await.unwrap();
            sender.send(b"next").await.unwrap();
            let mut storage = [0u8; 10];
            let mut room: &mut [u8] = &mut storage;
            assert_eq!(receiver.recv_buf(&mut room).await.unwrap(), 10);
            assert_eq!(storage, Pattern::bytes(7, 100)[..10]);
            let mut rest = Vec::with_capacity(1024);
            assert_eq!(receiver.recv_buf(&mut rest).await.unwrap(), 4);
            assert_eq!(rest, b"next", "the rest of the long datagram was discarded");
        });
        std::fs::remove_dir_all(&dir).unwrap();
    });
}

/// Cancel safety of a datagram receive: a `recv_buf_from` dropped while
/// it waits received nothing and left the buffer alone; the datagram sent
/// afterwards goes whole to the next call.
#[test]
fn recv_buf_from_dropped_while_waiting_loses_nothing() {
    on_both(|| async {
        let socket = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let me = socket.local_addr().unwrap();
        let mut buf = BytesMut::with_capacity(64);
        let (waiting_tx, waiting_rx) = rt::sync::oneshot::channel();
        rt::select! {
            _ = report_pending(socket.recv_buf_from(&mut buf), waiting_tx) => {
                panic!("nothing was sent")
            }
            _ = waiting_rx => {}
        }
        assert!(buf.is_empty());
        socket.send_to(b"later", me).await.unwrap();
        assert_eq!(socket.recv_buf_from(&mut buf).await.unwrap(), (5, me));
        assert_eq!(&buf[..], b"later");
    });
}

// ---- tokio's `tcp_stream::try_read_buf` / `uds_stream::try_read_buf` ----

/// Fills `$client`'s send buffer with `writable()` and `try_write` (each
/// `writable()` ready at once, far past the cooperative budget, which the
/// readiness futures do not spend), then drains it on `$server` with
/// `readable()` and `try_read_buf` into a `Vec` with exactly that room.
macro_rules! check_try_read_buf {
    ($client:expr, $server:expr, $data:expr) => {{
        use futures::FutureExt as _;
        let (client, server) = (&$client, &$server);
        let data: &[u8] = $data;
        let mut written = Vec::new();
        client.writable().await.unwrap();
        loop {
            assert!(client.writable().now_or_never().is_some(), "still writable");
            match client.try_write(data) {
                Ok(n) => written.extend(&data[..n]),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) => panic!("{e}"),
            }
        }
        assert!(
            client.writable().now_or_never().is_none(),
            "the buffer is full"
        );
        let mut read = Vec::with_capacity(written.len());
        while read.len() < written.len() {
            server.readable().await.unwrap();
            match server.try_read_buf(&mut read) {
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                Err(e) => panic!("{e}"),
            }
        }
        assert!(read == written, "the bytes arrived in order");
    }};
}

#[test]
fn tcp_try_read_buf_drains_a_full_send_buffer() {
    on_both(|| async {
        let (client, server) = tcp_pair().await;
        check_try_read_buf!(client, server, &[2u8; 4000]);
    });
}

#[test]
fn unix_try_read_buf_drains_a_full_send_buffer() {
    on_both(|| async {
        let (client, server) = UnixStream::pair().unwrap();
        check_try_read_buf!(client, server, b"hello world");
    });
}
