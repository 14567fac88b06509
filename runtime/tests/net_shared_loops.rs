//! Sockets shared by several tasks that loop over them, as server workers
//! do: readers and writers sharing an `Arc<TcpStream>` through
//! `readable()`/`writable()` and `try_read`/`try_write`, receivers sharing
//! an `Arc<UdpSocket>` (some awaiting `recv_from`, some looping on
//! `readable()` + `try_recv_from`), and acceptors looping on one
//! `Arc<TcpListener>`. Every byte, datagram and connection must reach
//! exactly one task, and every task must see the end: a lost wake-up
//! hangs a task, a duplicated one shows in the counts. On every scheduler.

mod support;

use rt::io::{AsyncReadExt, AsyncWriteExt};
use rt::net::{TcpListener, TcpStream, UdpSocket};
use rt::sync::mpsc;
use std::io::ErrorKind;
use std::sync::Arc;
use support::{Pattern, block_on_each, tcp_pair};

/// How many bytes of each value `bytes` holds.
fn histogram(bytes: &[u8], into: &mut [u64; 256]) {
    for &b in bytes {
        into[b as usize] += 1;
    }
}

#[test]
fn readers_sharing_a_stream_read_every_byte_exactly_once() {
    const TOTAL: usize = 4 << 20;
    block_on_each(|_| async {
        for readers in [2, 4] {
            let (mut client, server) = tcp_pair().await;
            let server = Arc::new(server);
            let tasks: Vec<_> = (0..readers)
                .map(|_| {
                    let server = Arc::clone(&server);
                    rt::spawn(async move {
                        let mut seen = [0u64; 256];
                        let mut buf = vec![0u8; 16 << 10];
                        loop {
                            server.readable().await.unwrap();
                            match server.try_read(&mut buf) {
                                // End of stream: every reader sees it.
                                Ok(0) => return seen,
                                Ok(n) => histogram(&buf[..n], &mut seen),
                                Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                                Err(e) => panic!("try_read: {e}"),
                            }
                        }
                    })
                })
                .collect();
            let mut sent = vec![0u8; TOTAL];
            Pattern::new(readers as u64).fill(&mut sent);
            let mut expected = [0u64; 256];
            histogram(&sent, &mut expected);
            // In pieces, so the readers wait between them.
            for piece in sent.chunks(100_003) {
                client.write_all(piece).await.unwrap();
            }
            client.shutdown().await.unwrap();
            let mut read = [0u64; 256];
            for task in tasks {
                for (total, seen) in read.iter_mut().zip(task.await.unwrap()) {
                    *total += seen;
                }
            }
            assert_eq!(read, expected, "{readers} readers");
        }
    });
}

#[test]
fn writers_sharing_a_stream_each_write_exactly_their_bytes() {
    const EACH: usize = 1 << 20;
    block_on_each(|_| async {
        for writers in [2, 4] {
            let (mut client, server) = tcp_pair().await;
            let server = Arc::new(server);
            let tasks: Vec<_> = (0..writers)
                .map(|writer| {
                    let server = Arc::clone(&server);
                    rt::spawn(async move {
                        // Every byte this task writes is its own number, so
                        // the reader can count them whatever the interleaving.
                        let chunk = vec![writer as u8; 7_001];
                        let mut left = EACH;
                        while left > 0 {
                            server.writable().await.unwrap();
                            match server.try_write(&chunk[..left.min(chunk.len())]) {
                                Ok(n) => left -= n,
                                Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                                Err(e) => panic!("try_write: {e}"),
                            }
                        }
                    })
                })
                .collect();
            let reader = rt::spawn(async move {
                let mut seen = [0u64; 256];
                let mut buf = vec![0u8; 64 << 10];
                loop {
                    match client.read(&mut buf).await.unwrap() {
                        0 => return seen,
                        n => histogram(&buf[..n], &mut seen),
                    }
                }
            });
            for task in tasks {
                task.await.unwrap();
            }
            server.shutdown_std(std::net::Shutdown::Write).unwrap();
            let seen = reader.await.unwrap();
            for (writer, &count) in seen.iter().enumerate().take(writers) {
                assert_eq!(count, EACH as u64, "writer {writer} of {writers}");
            }
            assert_eq!(seen.iter().sum::<u64>(), (writers * EACH) as u64);
        }
    });
}

/// Datagram ids: data are `0..DATAGRAMS`, a receiver stops at `STOP`.
const DATAGRAMS: u32 = 2_000;
const STOP: u32 = u32::MAX;
/// Datagrams in flight at once: loopback UDP drops what overflows the
/// receive buffer, so the sender waits for each batch to be received.
const BATCH: u32 = 50;

#[test]
fn receivers_sharing_a_udp_socket_get_every_datagram_exactly_once() {
    const RECEIVERS: usize = 4;
    block_on_each(|_| async {
        let socket = Arc::new(UdpSocket::bind("127.0.0.1:0").await.unwrap());
        let addr = socket.local_addr().unwrap();
        let (got_tx, mut got) = mpsc::unbounded_channel::<u32>();
        let receivers: Vec<_> = (0..RECEIVERS)
            .map(|receiver| {
                let (socket, got) = (Arc::clone(&socket), got_tx.clone());
                rt::spawn(async move {
                    let mut buf = [0u8; 8];
                    let mut data = 0usize;
                    loop {
                        // Half of them await `recv_from`, half loop on
                        // readiness and `try_recv_from`.
                        let len = if receiver % 2 == 0 {
                            socket.recv_from(&mut buf).await.unwrap().0
                        } else {
                            socket.readable().await.unwrap();
                            match socket.try_recv_from(&mut buf) {
                                Ok((len, _)) => len,
                                Err(e) if e.kind() == ErrorKind::WouldBlock => continue,
                                Err(e) => panic!("try_recv_from: {e}"),
                            }
                        };
                        assert_eq!(len, 4);
                        let id = u32::from_le_bytes(buf[..4].try_into().unwrap());
                        if id == STOP {
                            return data;
                        }
                        data += 1;
                        got.send(id).unwrap();
                    }
                })
            })
            .collect();
        drop(got_tx);
        let sender = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let mut seen = vec![false; DATAGRAMS as usize];
        for batch in (0..DATAGRAMS).step_by(BATCH as usize) {
            for id in batch..batch + BATCH {
                sender.send_to(&id.to_le_bytes(), addr).await.unwrap();
            }
            for _ in 0..BATCH {
                let id = got.recv().await.unwrap() as usize;
                assert!(!seen[id], "datagram {id} was received twice");
                seen[id] = true;
            }
        }
        for _ in 0..RECEIVERS {
            sender.send_to(&STOP.to_le_bytes(), addr).await.unwrap();
        }
        let mut received = 0;
        for receiver in receivers {
            received += receiver.await.unwrap();
        }
        assert_eq!(received, DATAGRAMS as usize);
        assert!(got.recv().await.is_none());
    });
}

#[test]
fn acceptors_looping_on_one_listener_accept_every_connection_exactly_once() {
    const ACCEPTORS: usize = 4;
    const CONNECTIONS: u32 = 300;
    block_on_each(|_| async {
        let listener = Arc::new(TcpListener::bind("127.0.0.1:0").await.unwrap());
        let addr = listener.local_addr().unwrap();
        let (got_tx, mut got) = mpsc::unbounded_channel::<u32>();
        let acceptors: Vec<_> = (0..ACCEPTORS)
            .map(|_| {
                let (listener, got) = (Arc::clone(&listener), got_tx.clone());
                rt::spawn(async move {
                    let mut accepted = 0usize;
                    loop {
                        let (mut stream, _) = listener.accept().await.unwrap();
                        // Each client says who it is first.
                        let id = stream.read_u32().await.unwrap();
                        if id == STOP {
                            return accepted;
                        }
                        accepted += 1;
                        got.send(id).unwrap();
                    }
                })
            })
            .collect();
        drop(got_tx);
        let mut seen = vec![false; CONNECTIONS as usize];
        // In batches, so the listen backlog never overflows.
        for batch in (0..CONNECTIONS).step_by(BATCH as usize) {
            for id in batch..(batch + BATCH).min(CONNECTIONS) {
                let mut client = TcpStream::connect(addr).await.unwrap();
                client.write_u32(id).await.unwrap();
            }
            for _ in batch..(batch + BATCH).min(CONNECTIONS) {
                let id = got.recv().await.unwrap() as usize;
                assert!(!seen[id], "connection {id} was accepted twice");
                seen[id] = true;
            }
        }
        for _ in 0..ACCEPTORS {
            let mut client = TcpStream::connect(addr).await.unwrap();
            client.write_u32(STOP).await.unwrap();
        }
        let mut accepted = 0;
        for acceptor in acceptors {
            accepted += acceptor.await.unwrap();
        }
        assert_eq!(accepted, CONNECTIONS as usize);
        assert!(got.recv().await.is_none());
    });
}
