//! One socket shared by several tasks through an `Arc`, in the ways
//! `net_shared_waiters.rs` and `net_shared_loops.rs` leave out: waiters
//! on `ready(interest)` mixed with `readable()`, some of them aborted from
//! another thread; `try_io` and `try_read` clearing the readiness that the
//! others then wait on again; `peek` and `peek_from` seen by every task;
//! several senders and receivers on one UDP socket at once; and a reader
//! and a writer on one stream whose peer resets it. On every scheduler.

mod support;

use futures::FutureExt;
use rt::io::{AsyncFd, Interest};
use rt::net::{TcpStream, UdpSocket, UnixDatagram};
use rt::time::timeout;
use std::io::{ErrorKind, Write};
use std::sync::Arc;
use std::time::Duration;
use support::{on_both, spawn_all_waiting, tcp_pair};

/// A hang guard: far longer than any of these tests needs.
const PATIENCE: Duration = Duration::from_secs(30);

/// A stream pair whose server end has nothing to read and knows it.
async fn idle_pair() -> (TcpStream, Arc<TcpStream>) {
    let (client, server) = tcp_pair().await;
    support::clear_assumed_readability(&server);
    (client, Arc::new(server))
}

#[test]
#[cfg_attr(miri, ignore = "real sockets and the multi-thread runtime")]
fn readiness_waiters_of_every_kind_all_wake_when_some_are_aborted_elsewhere() {
    on_both(|| async {
        let (client, server) = idle_pair().await;
        let mut waiters = Vec::new();
        for i in 0..8 {
            let server = server.clone();
            waiters.push(
                async move {
                    match i % 3 {
                        0 => server.readable().await.unwrap(),
                        1 => {
                            let ready = server.ready(Interest::READABLE).await.unwrap();
                            assert!(ready.is_readable());
                        }
                        _ => {
                            let both = Interest::READABLE | Interest::ERROR;
                            assert!(server.ready(both).await.unwrap().is_readable());
                        }
                    }
                }
                .boxed(),
            );
        }
        let tasks = spawn_all_waiting(waiters).await;
        // Every other waiter is aborted from a thread outside the runtime.
        let aborts: Vec<_> = tasks.iter().step_by(2).map(|t| t.abort_handle()).collect();
        std::thread::spawn(move || aborts.iter().for_each(|a| a.abort()))
            .join()
            .unwrap();
        client.try_write(b"x").unwrap();
        for (i, task) in tasks.into_iter().enumerate() {
            let result = timeout(PATIENCE, task).await.expect("a waiter hung");
            if i % 2 == 1 {
                result.unwrap();
            }
        }
        assert_eq!(server.try_read(&mut [0; 4]).unwrap(), 1);
    });
}

#[test]
#[cfg_attr(miri, ignore = "real sockets and the multi-thread runtime")]
fn a_would_block_from_any_task_makes_every_task_wait_again() {
    on_both(|| async {
        let (client, server) = idle_pair().await;
        client.try_write(b"ab").unwrap();
        server.readable().await.unwrap();
        // One task takes the bytes, another finds none: the readiness is
        // gone for everyone, through each way of waiting.
        assert_eq!(server.try_read(&mut [0; 4]).unwrap(), 2);
        let reader = server.clone();
        rt::spawn(async move {
            let err = reader.try_io(Interest::READABLE, || {
                Err::<(), _>(ErrorKind::WouldBlock.into())
            });
            assert_eq!(err.unwrap_err().kind(), ErrorKind::WouldBlock);
        })
        .await
        .unwrap();
        assert!(server.readable().now_or_never().is_none());
        assert!(server.ready(Interest::READABLE).now_or_never().is_none());
        // Writability was not part of it.
        assert!(server.writable().now_or_never().is_some());
        let both = server.ready(Interest::READABLE | Interest::WRITABLE);
        let ready = both.now_or_never().unwrap().unwrap();
        assert!(ready.is_writable() && !ready.is_readable());

        // And a byte sent afterwards wakes them all again.
        let tasks = spawn_all_waiting(
            (0..3)
                .map(|_| {
                    let server = server.clone();
                    async move { server.readable().await.unwrap() }
                })
                .collect(),
        )
        .await;
        client.try_write(b"c").unwrap();
        for task in tasks {
            timeout(PATIENCE, task).await.unwrap().unwrap();
        }
    });
}

#[test]
#[cfg_attr(miri, ignore = "real sockets and the multi-thread runtime")]
fn peekers_sharing_a_stream_all_see_the_same_bytes() {
    on_both(|| async {
        let (client, server) = idle_pair().await;
        let tasks = spawn_all_waiting(
            (0..4)
                .map(|_| {
                    let server = server.clone();
                    async move {
                        let mut buf = [0; 8];
                        let n = server.peek(&mut buf).await.unwrap();
                        buf[..n].to_vec()
                    }
                })
                .collect(),
        )
        .await;
        client.try_write(b"peek").unwrap();
        for task in tasks {
            let seen = timeout(PATIENCE, task).await.unwrap().unwrap();
            assert!(b"peek".starts_with(&seen) && !seen.is_empty(), "{seen:?}");
        }
        let mut buf = [0; 8];
        let mut read = 0;
        while read < 4 {
            server.readable().await.unwrap();
            match server.try_read(&mut buf[read..]) {
                Ok(n) => read += n,
                Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                Err(e) => panic!("reading what was peeked: {e}"),
            }
        }
        assert_eq!(&buf[..4], b"peek");
    });
}

#[test]
#[cfg_attr(miri, ignore = "real sockets and the multi-thread runtime")]
fn peekers_sharing_a_udp_socket_all_see_the_datagram_and_it_stays_queued() {
    on_both(|| async {
        let socket = Arc::new(UdpSocket::bind("127.0.0.1:0").await.unwrap());
        let sender = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let from = sender.local_addr().unwrap();
        let tasks = spawn_all_waiting(
            (0..4)
                .map(|_| {
                    let socket = socket.clone();
                    async move {
                        let mut buf = [0; 8];
                        let (n, from) = socket.peek_from(&mut buf).await.unwrap();
                        (buf[..n].to_vec(), from)
                    }
                })
                .collect(),
        )
        .await;
        sender
            .send_to(b"dgram", socket.local_addr().unwrap())
            .await
            .unwrap();
        for task in tasks {
            let (seen, peer) = timeout(PATIENCE, task).await.unwrap().unwrap();
            assert_eq!((seen.as_slice(), peer), (&b"dgram"[..], from));
        }
        let mut buf = [0; 8];
        let (n, peer) = socket.recv_from(&mut buf).await.unwrap();
        assert_eq!((&buf[..n], peer), (&b"dgram"[..], from));
        assert_eq!(
            socket.try_recv_from(&mut buf).unwrap_err().kind(),
            ErrorKind::WouldBlock
        );
    });
}

/// Senders and receivers per socket, and datagrams per sender, few enough
/// that all of them fit the loopback receive buffer at once.
const SENDERS: usize = 4;
const RECEIVERS: usize = 4;
const PER_SENDER: usize = 25;

#[test]
#[cfg_attr(miri, ignore = "real sockets and the multi-thread runtime")]
fn senders_and_receivers_sharing_udp_sockets_move_every_datagram_once() {
    on_both(|| async {
        let inbox = Arc::new(UdpSocket::bind("127.0.0.1:0").await.unwrap());
        let outbox = Arc::new(UdpSocket::bind("127.0.0.1:0").await.unwrap());
        let to = inbox.local_addr().unwrap();
        let total = SENDERS * PER_SENDER;
        let (seen_tx, mut seen_rx) = rt::sync::mpsc::unbounded_channel();
        let receivers = spawn_all_waiting(
            (0..RECEIVERS)
                .map(|_| {
                    let inbox = inbox.clone();
                    let seen = seen_tx.clone();
                    async move {
                        let mut buf = [0; 8];
                        loop {
                            let (n, _) = inbox.recv_from(&mut buf).await.unwrap();
                            if n == 0 {
                                return;
                            }
                            seen.send([buf[0], buf[1]]).unwrap();
                        }
                    }
                })
                .collect(),
        )
        .await;
        drop(seen_tx);
        let senders: Vec<_> = (0..SENDERS as u8)
            .map(|sender| {
                let outbox = outbox.clone();
                rt::spawn(async move {
                    for i in 0..PER_SENDER as u8 {
                        assert_eq!(outbox.send_to(&[sender, i], to).await.unwrap(), 2);
                    }
                })
            })
            .collect();
        for sender in senders {
            sender.await.unwrap();
        }
        let mut counts = [[0u32; PER_SENDER]; SENDERS];
        for _ in 0..total {
            let [sender, i] = timeout(PATIENCE, seen_rx.recv())
                .await
                .expect("a datagram was lost or a receiver is stuck")
                .unwrap();
            counts[usize::from(sender)][usize::from(i)] += 1;
        }
        for _ in 0..RECEIVERS {
            outbox.send_to(&[], to).await.unwrap();
        }
        for receiver in receivers {
            timeout(PATIENCE, receiver).await.unwrap().unwrap();
        }
        assert!(seen_rx.recv().await.is_none());
        assert!(counts.iter().flatten().all(|&n| n == 1), "{counts:?}");
    });
}

#[test]
#[cfg_attr(miri, ignore = "real sockets and the multi-thread runtime")]
fn unix_datagram_receivers_sharing_a_socket_take_each_datagram_once() {
    on_both(|| async {
        let (a, b) = UnixDatagram::pair().unwrap();
        let b = Arc::new(b);
        let receivers = spawn_all_waiting(
            (0..RECEIVERS)
                .map(|_| {
                    let b = b.clone();
                    async move {
                        let mut got = Vec::new();
                        let mut buf = [0; 4];
                        loop {
                            b.readable().await.unwrap();
                            match b.try_recv(&mut buf) {
                                Ok(0) => return got,
                                Ok(_) => got.push(buf[0]),
                                Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                                Err(e) => panic!("receiving: {e}"),
                            }
                        }
                    }
                })
                .collect(),
        )
        .await;
        for i in 0..100u8 {
            a.send(&[i]).await.unwrap();
        }
        for _ in 0..RECEIVERS {
            a.send(&[]).await.unwrap();
        }
        let mut all = Vec::new();
        for receiver in receivers {
            all.extend(timeout(PATIENCE, receiver).await.unwrap().unwrap());
        }
        all.sort_unstable();
        assert_eq!(all, (0..100).collect::<Vec<u8>>());
    });
}

#[test]
#[cfg_attr(miri, ignore = "real sockets and the multi-thread runtime")]
fn async_fd_waiters_aborted_elsewhere_leave_the_wake_to_the_others() {
    on_both(|| async {
        let (a, mut b) = std::os::unix::net::UnixStream::pair().unwrap();
        a.set_nonblocking(true).unwrap();
        let fd = Arc::new(AsyncFd::new(a).unwrap());
        let tasks = spawn_all_waiting(
            (0..6)
                .map(|i| {
                    let fd = fd.clone();
                    async move {
                        let mut guard = if i % 2 == 0 {
                            fd.readable().await.unwrap()
                        } else {
                            fd.ready(Interest::READABLE).await.unwrap()
                        };
                        assert!(guard.ready().is_readable());
                        guard.retain_ready();
                    }
                    .boxed()
                })
                .collect(),
        )
        .await;
        let aborts: Vec<_> = tasks.iter().take(3).map(|t| t.abort_handle()).collect();
        std::thread::spawn(move || aborts.iter().for_each(|a| a.abort()))
            .join()
            .unwrap();
        b.write_all(b"x").unwrap();
        for task in tasks.into_iter().skip(3) {
            timeout(PATIENCE, task).await.unwrap().unwrap();
        }
        // A guard's `try_io` that finds nothing clears it for every task.
        let mut buf = [0; 4];
        let mut guard = fd.readable().await.unwrap();
        let n = guard
            .try_io(|fd| std::io::Read::read(&mut fd.get_ref(), &mut buf))
            .unwrap()
            .unwrap();
        assert_eq!(n, 1);
        let mut guard = fd.readable().await.unwrap();
        let err = guard.try_io(|fd| std::io::Read::read(&mut fd.get_ref(), &mut buf));
        assert!(err.is_err(), "nothing more to read");
        assert!(fd.readable().now_or_never().is_none());
    });
}

/// Writes until the socket refuses, with `writable()` between tries;
/// returns the error that ended it.
async fn write_until_error(stream: &TcpStream) -> std::io::Error {
    let chunk = [1; 16 * 1024];
    loop {
        if let Err(e) = stream.writable().await {
            return e;
        }
        match stream.try_write(&chunk) {
            Ok(_) => {}
            Err(e) if e.kind() == ErrorKind::WouldBlock => {}
            Err(e) => return e,
        }
    }
}

/// Reads until end-of-file or an error, with `readable()` between tries.
async fn read_until_end(stream: &TcpStream) -> std::io::Result<usize> {
    let mut buf = [0; 16 * 1024];
    let mut total = 0;
    loop {
        stream.readable().await?;
        match stream.try_read(&mut buf) {
            Ok(0) => return Ok(total),
            Ok(n) => total += n,
            Err(e) if e.kind() == ErrorKind::WouldBlock => {}
            Err(e) => return Err(e),
        }
    }
}

#[test]
#[cfg_attr(miri, ignore = "real sockets and the multi-thread runtime")]
fn a_reader_and_a_writer_sharing_a_stream_both_end_when_the_peer_resets() {
    on_both(|| async {
        let (client, server) = idle_pair().await;
        let writer = {
            let server = server.clone();
            rt::spawn(async move { write_until_error(&server).await })
        };
        let reader = {
            let server = server.clone();
            rt::spawn(async move { read_until_end(&server).await })
        };
        // The peer sends a little, reads nothing, and resets the
        // connection with the writer's bytes still unread.
        client.try_write(b"before the reset").unwrap();
        client.set_linger(Some(Duration::ZERO)).unwrap();
        drop(client);
        let err = timeout(PATIENCE, writer)
            .await
            .expect("writer hung")
            .unwrap();
        assert!(
            matches!(
                err.kind(),
                ErrorKind::ConnectionReset | ErrorKind::BrokenPipe
            ),
            "{err:?}"
        );
        match timeout(PATIENCE, reader)
            .await
            .expect("reader hung")
            .unwrap()
        {
            Ok(_) => {}
            Err(e) => assert_eq!(e.kind(), ErrorKind::ConnectionReset, "{e:?}"),
        }
    });
}

#[test]
#[cfg_attr(miri, ignore = "real sockets and the multi-thread runtime")]
fn owned_halves_in_two_tasks_see_eof_and_finish_writing() {
    on_both(|| async {
        let (client, server) = tcp_pair().await;
        let (read, write) = server.into_split();
        let payload = support::Pattern::bytes(7, 256 * 1024);
        let expected = payload.len();
        let writer = rt::spawn(async move {
            let mut sent = 0;
            while sent < payload.len() {
                write.writable().await.unwrap();
                match write.try_write(&payload[sent..]) {
                    Ok(n) => sent += n,
                    Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                    Err(e) => panic!("writing: {e}"),
                }
            }
            write
        });
        let reader = rt::spawn(async move {
            let mut buf = [0; 4096];
            let mut total = 0;
            loop {
                read.readable().await.unwrap();
                match read.try_read(&mut buf) {
                    Ok(0) => return total,
                    Ok(n) => total += n,
                    Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                    Err(e) => panic!("reading: {e}"),
                }
            }
        });
        // The client echoes nothing: it drains what the server writes,
        // then closes its side, which ends the server's reads.
        let client = Arc::new(client);
        let drained = read_until_bytes(&client, expected).await;
        assert_eq!(drained, expected);
        let write = timeout(PATIENCE, writer).await.unwrap().unwrap();
        drop(client);
        assert_eq!(timeout(PATIENCE, reader).await.unwrap().unwrap(), 0);
        drop(write);
    });
}

/// Reads exactly `want` bytes with `readable()` and `try_read`.
async fn read_until_bytes(stream: &TcpStream, want: usize) -> usize {
    let mut buf = [0; 16 * 1024];
    let mut total = 0;
    while total < want {
        stream.readable().await.unwrap();
        match stream.try_read(&mut buf) {
            Ok(0) => break,
            Ok(n) => total += n,
            Err(e) if e.kind() == ErrorKind::WouldBlock => {}
            Err(e) => panic!("draining: {e}"),
        }
    }
    total
}

#[test]
#[cfg_attr(miri, ignore = "real sockets and the multi-thread runtime")]
fn waiters_aborted_while_the_edge_lands_never_take_it_from_the_rest() {
    on_both(|| async {
        let (client, server) = idle_pair().await;
        let client = Arc::new(client);
        let mut buf = [0; 64];
        for _ in 0..200 {
            let tasks = spawn_all_waiting(
                (0..4)
                    .map(|i| {
                        let server = server.clone();
                        async move {
                            if i % 2 == 0 {
                                server.readable().await.unwrap();
                            } else {
                                server.ready(Interest::READABLE).await.unwrap();
                            }
                        }
                        .boxed()
                    })
                    .collect(),
            )
            .await;
            let aborts: Vec<_> = tasks.iter().take(2).map(|t| t.abort_handle()).collect();
            let writer = client.clone();
            let aborter = std::thread::spawn(move || aborts.iter().for_each(|a| a.abort()));
            writer.try_write(b"x").unwrap();
            for task in tasks.into_iter().skip(2) {
                timeout(PATIENCE, task)
                    .await
                    .expect("a waiter hung")
                    .unwrap();
            }
            aborter.join().unwrap();
            assert_eq!(server.try_read(&mut buf).unwrap(), 1);
            let err = server.try_read(&mut buf).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::WouldBlock);
        }
    });
}

#[test]
#[cfg_attr(miri, ignore = "real sockets and the multi-thread runtime")]
fn acceptors_aborted_while_connections_arrive_lose_no_connection() {
    on_both(|| async {
        let listener = Arc::new(rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap());
        let addr = listener.local_addr().unwrap();
        let mut clients = Vec::new();
        let mut accepted = Vec::new();
        for _ in 0..50 {
            let tasks = spawn_all_waiting(
                (0..4)
                    .map(|_| {
                        let listener = listener.clone();
                        async move { listener.accept().await.unwrap().1 }
                    })
                    .collect(),
            )
            .await;
            let aborts: Vec<_> = tasks.iter().take(3).map(|t| t.abort_handle()).collect();
            let aborter = std::thread::spawn(move || aborts.iter().for_each(|a| a.abort()));
            // As many connections as acceptors: those aborted after
            // accepting leave one for the acceptor that is not aborted.
            for _ in 0..4 {
                clients.push(TcpStream::connect(addr).await.unwrap());
            }
            aborter.join().unwrap();
            for task in tasks {
                match timeout(PATIENCE, task).await.expect("an acceptor hung") {
                    Ok(peer) => accepted.push(peer),
                    Err(e) => assert!(e.is_cancelled(), "{e:?}"),
                }
            }
            // What the aborted acceptors did not take is still queued.
            loop {
                let clients_waiting = clients.len() - accepted.len();
                if clients_waiting == 0 {
                    break;
                }
                let (_, peer) = timeout(PATIENCE, listener.accept()).await.unwrap().unwrap();
                accepted.push(peer);
            }
        }
        let mut connected: Vec<_> = clients.iter().map(|c| c.local_addr().unwrap()).collect();
        connected.sort();
        accepted.sort();
        assert_eq!(accepted, connected, "each connection accepted exactly once");
    });
}

#[test]
#[cfg_attr(miri, ignore = "real sockets and the multi-thread runtime")]
fn shared_stream_readers_and_writers_end_on_every_reset() {
    on_both(|| async {
        for _ in 0..30 {
            let (client, server) = tcp_pair().await;
            let server = Arc::new(server);
            let mut tasks = Vec::new();
            for _ in 0..2 {
                let writer = server.clone();
                tasks.push(rt::spawn(async move {
                    write_until_error(&writer).await;
                }));
                let reader = server.clone();
                tasks.push(rt::spawn(async move {
                    let _ = read_until_end(&reader).await;
                }));
            }
            let _ = client.try_write(&[0; 1000]);
            client.set_linger(Some(Duration::ZERO)).unwrap();
            drop(client);
            for task in tasks {
                timeout(PATIENCE, task).await.expect("a task hung").unwrap();
            }
        }
    });
}

/// A connected loopback TCP pair of std streams, the second non-blocking.
fn std_tcp_pair() -> (std::net::TcpStream, std::net::TcpStream) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
    let (server, _) = listener.accept().unwrap();
    server.set_nonblocking(true).unwrap();
    (client, server)
}

/// A byte of urgent (out-of-band) data makes a socket priority-ready (and
/// readable: mio reports `EPOLLPRI` as readable), yet a plain read skips
/// it and would block. That `WouldBlock` says nothing about priority
/// data (the reader never waited for it), and must not clear
/// the readiness a task waiting for `Interest::PRIORITY` on the same
/// descriptor was woken for: as in tokio, a read interest's states do not
/// include priority.
#[test]
#[cfg_attr(miri, ignore = "real sockets and the multi-thread runtime")]
fn a_readers_would_block_leaves_priority_readiness_to_the_task_waiting_for_it() {
    use std::io::Read;
    on_both(|| async {
        let (client, server) = std_tcp_pair();
        let interest = Interest::READABLE | Interest::PRIORITY;
        let fd = Arc::new(AsyncFd::with_interest(server, interest).unwrap());
        // The reader waits first, so an edge wakes it first.
        let reader = {
            let fd = fd.clone();
            async move {
                let mut buf = [0; 8];
                loop {
                    let mut guard = fd.readable().await.unwrap();
                    if let Ok(read) = guard.try_io(|fd| fd.get_ref().read(&mut buf)) {
                        return buf[..read.unwrap()].to_vec();
                    }
                }
            }
            .boxed()
        };
        let urgent = {
            let fd = fd.clone();
            async move {
                let guard = fd.ready(Interest::PRIORITY).await.unwrap();
                vec![u8::from(guard.ready().is_priority())]
            }
            .boxed()
        };
        let mut tasks = spawn_all_waiting(vec![reader, urgent]).await;
        socket2::SockRef::from(&client)
            .send_out_of_band(b"!")
            .unwrap();
        let urgent = tasks.pop().unwrap();
        let seen = timeout(PATIENCE, urgent)
            .await
            .expect("the priority readiness was lost");
        assert_eq!(seen.unwrap(), [1], "woken for priority data");
        (&client).write_all(b"x").unwrap();
        let read = timeout(PATIENCE, tasks.pop().unwrap()).await.unwrap();
        assert_eq!(read.unwrap(), b"x");
    });
}

#[test]
#[cfg_attr(miri, ignore = "real sockets and the multi-thread runtime")]
fn a_full_stream_makes_every_writer_wait_until_the_peer_reads() {
    on_both(|| async {
        let (client, server) = idle_pair().await;
        let chunk = vec![3; 64 * 1024];
        let mut queued = 0;
        loop {
            match server.try_write(&chunk) {
                Ok(n) => queued += n,
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                Err(e) => panic!("filling the connection: {e}"),
            }
        }
        let writers = spawn_all_waiting(
            (0..3)
                .map(|i| {
                    let server = server.clone();
                    async move {
                        if i == 0 {
                            server.writable().await.unwrap();
                        } else {
                            let ready = server.ready(Interest::WRITABLE).await.unwrap();
                            assert!(ready.is_writable());
                        }
                    }
                    .boxed()
                })
                .collect(),
        )
        .await;
        let client = Arc::new(client);
        assert_eq!(read_until_bytes(&client, queued).await, queued);
        for writer in writers {
            timeout(PATIENCE, writer)
                .await
                .expect("a writer hung")
                .unwrap();
        }
    });
}

/// One byte at a time, the next sent as soon as a reader took the last:
/// each byte lands while the readers are between a `WouldBlock` and its
/// clear, or between the clear and their next wait, as often as not. A
/// clear that erased the byte's readiness would leave every reader
/// waiting for good.
#[test]
#[cfg_attr(miri, ignore = "real sockets and the multi-thread runtime")]
fn bytes_sent_one_by_one_to_readers_sharing_a_stream_are_all_read() {
    on_both(|| async {
        let (client, server) = idle_pair().await;
        let (took_tx, mut took_rx) = rt::sync::mpsc::unbounded_channel();
        let readers: Vec<_> = (0..3)
            .map(|_| {
                let server = server.clone();
                let took = took_tx.clone();
                rt::spawn(async move {
                    let mut buf = [0; 16];
                    loop {
                        server.readable().await.unwrap();
                        match server.try_read(&mut buf) {
                            Ok(0) => return,
                            Ok(n) => buf[..n].iter().for_each(|&b| took.send(b).unwrap()),
                            Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                            Err(e) => panic!("reading: {e}"),
                        }
                    }
                })
            })
            .collect();
        drop(took_tx);
        for i in 0..2000u32 {
            let byte = i as u8;
            assert_eq!(client.try_write(&[byte]).unwrap(), 1);
            let took = timeout(PATIENCE, took_rx.recv()).await;
            assert_eq!(took.expect("a byte's readiness was lost"), Some(byte));
        }
        drop(client);
        for reader in readers {
            timeout(PATIENCE, reader).await.unwrap().unwrap();
        }
    });
}

/// As above for datagrams, to receivers of both kinds: `recv_from`, and
/// `readable()` with `try_recv_from`.
#[test]
#[cfg_attr(miri, ignore = "real sockets and the multi-thread runtime")]
fn datagrams_sent_one_by_one_to_receivers_sharing_a_socket_are_all_received() {
    on_both(|| async {
        let inbox = Arc::new(UdpSocket::bind("127.0.0.1:0").await.unwrap());
        let outbox = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let to = inbox.local_addr().unwrap();
        let (took_tx, mut took_rx) = rt::sync::mpsc::unbounded_channel();
        let receivers: Vec<_> = (0..4)
            .map(|i| {
                let inbox = inbox.clone();
                let took = took_tx.clone();
                rt::spawn(async move {
                    let mut buf = [0; 4];
                    loop {
                        let n = if i % 2 == 0 {
                            inbox.recv_from(&mut buf).await.unwrap().0
                        } else {
                            inbox.readable().await.unwrap();
                            match inbox.try_recv_from(&mut buf) {
                                Ok((n, _)) => n,
                                Err(e) if e.kind() == ErrorKind::WouldBlock => continue,
                                Err(e) => panic!("receiving: {e}"),
                            }
                        };
                        if n == 0 {
                            return;
                        }
                        took.send(buf[0]).unwrap();
                    }
                })
            })
            .collect();
        drop(took_tx);
        for i in 0..2000u32 {
            let byte = i as u8;
            outbox.send_to(&[byte], to).await.unwrap();
            let took = timeout(PATIENCE, took_rx.recv()).await;
            assert_eq!(took.expect("a datagram's readiness was lost"), Some(byte));
        }
        for _ in 0..receivers.len() {
            outbox.send_to(&[], to).await.unwrap();
        }
        for receiver in receivers {
            timeout(PATIENCE, receiver).await.unwrap().unwrap();
        }
    });
}

/// A thread outside the runtime may wait on a shared socket too (with an
/// executor of its own), beside the runtime's tasks, as with tokio while
/// the runtime runs: the reactor wakes whichever waker it holds.
#[test]
#[cfg_attr(miri, ignore = "real sockets and the multi-thread runtime")]
fn a_thread_outside_the_runtime_and_tasks_wait_on_one_socket_together() {
    on_both(|| async {
        let socket = Arc::new(UdpSocket::bind("127.0.0.1:0").await.unwrap());
        let to = socket.local_addr().unwrap();
        let (waiting_tx, waiting_rx) = rt::sync::oneshot::channel();
        let outside = {
            let socket = socket.clone();
            std::thread::spawn(move || {
                futures::executor::block_on(async {
                    let mut recv = std::pin::pin!(async {
                        let mut buf = [0; 4];
                        socket.recv_from(&mut buf).await.unwrap().0
                    });
                    // Poll once so the wait is registered before saying so.
                    assert!(futures::poll!(recv.as_mut()).is_pending());
                    waiting_tx.send(()).unwrap();
                    recv.await
                })
            })
        };
        waiting_rx.await.unwrap();
        let inside = spawn_all_waiting(vec![{
            let socket = socket.clone();
            async move {
                let mut buf = [0; 4];
                socket.recv_from(&mut buf).await.unwrap().0
            }
        }])
        .await;
        let sender = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        sender.send_to(b"ab", to).await.unwrap();
        sender.send_to(b"abc", to).await.unwrap();
        let mut sizes = vec![];
        for task in inside {
            sizes.push(
                timeout(PATIENCE, task)
                    .await
                    .expect("the task hung")
                    .unwrap(),
            );
        }
        let outside = rt::task::spawn_blocking(move || outside.join().unwrap());
        sizes.push(
            timeout(PATIENCE, outside)
                .await
                .expect("the thread hung")
                .unwrap(),
        );
        sizes.sort_unstable();
        assert_eq!(sizes, [2, 3]);
    });
}

/// The peer sends its bytes and shuts its write side down while our
/// writer is still sending: our reader sees every byte and then
/// end-of-file, and our writer, sharing the stream, goes on undisturbed
/// until the peer has read all it sent.
#[test]
#[cfg_attr(miri, ignore = "real sockets and the multi-thread runtime")]
fn a_peer_half_closing_ends_the_reader_and_not_the_writer() {
    use rt::io::{AsyncReadExt, AsyncWriteExt};
    on_both(|| async {
        let (mut client, server) = tcp_pair().await;
        let server = Arc::new(server);
        let to_us = support::Pattern::bytes(1, 300 * 1024);
        let to_peer = support::Pattern::bytes(2, 300 * 1024);
        let reader = {
            let server = server.clone();
            rt::spawn(async move { read_until_end(&server).await.unwrap() })
        };
        let writer = {
            let server = server.clone();
            let to_peer = to_peer.clone();
            rt::spawn(async move {
                let mut sent = 0;
                while sent < to_peer.len() {
                    server.writable().await.unwrap();
                    match server.try_write(&to_peer[sent..]) {
                        Ok(n) => sent += n,
                        Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                        Err(e) => panic!("writing after the peer half-closed: {e}"),
                    }
                }
            })
        };
        let (mut peer_read, mut peer_write) = client.split();
        let peer_sends = async {
            peer_write.write_all(&to_us).await.unwrap();
            peer_write.shutdown().await.unwrap();
        };
        let mut received = Vec::new();
        let peer_reads = async {
            let mut buf = vec![0; 64 * 1024];
            while received.len() < to_peer.len() {
                let n = peer_read.read(&mut buf).await.unwrap();
                assert!(n > 0, "our writer's bytes ended early");
                received.extend_from_slice(&buf[..n]);
            }
        };
        timeout(PATIENCE, futures::future::join(peer_sends, peer_reads))
            .await
            .expect("the transfer hung");
        assert!(
            received == to_peer,
            "the peer got other bytes than were sent"
        );
        let read = timeout(PATIENCE, reader).await.expect("the reader hung");
        assert_eq!(read.unwrap(), to_us.len());
        timeout(PATIENCE, writer).await.unwrap().unwrap();
        drop(client);
    });
}

/// A `try_io` closure that peeks for a 4-byte header and says
/// `WouldBlock` while fewer bytes are queued (the frame is not complete).
fn try_peek_header(stream: &TcpStream) -> std::io::Result<usize> {
    stream.try_io(Interest::READABLE, || {
        let mut header = [std::mem::MaybeUninit::new(0); 4];
        match socket2::SockRef::from(stream).peek(&mut header)? {
            4 => Ok(4),
            _ => Err(ErrorKind::WouldBlock.into()),
        }
    })
}

/// The server side of a pair whose peer sent half a header (2 bytes) and
/// closed, once the server has seen the close.
async fn half_header_then_closed() -> Arc<TcpStream> {
    let (client, server) = idle_pair().await;
    client.try_write(b"ab").unwrap();
    drop(client);
    while !server
        .ready(Interest::READABLE)
        .await
        .unwrap()
        .is_read_closed()
    {
        rt::task::yield_now().await;
    }
    server
}

/// The peer sends half a header and closes. A framing task's `try_io`
/// finds the frame incomplete and says `WouldBlock`: that clears the
/// readability, but a socket's closed read side is final (tokio keeps it
/// too), so the task reading the same stream still sees the bytes and
/// then end-of-file instead of waiting forever.
#[test]
#[cfg_attr(miri, ignore = "real sockets and the multi-thread runtime")]
fn a_try_io_would_block_after_the_peer_closed_leaves_the_end_to_the_reader() {
    on_both(|| async {
        let server = half_header_then_closed().await;
        let framer = server.clone();
        let err = rt::spawn(async move { try_peek_header(&framer) })
            .await
            .unwrap()
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::WouldBlock);
        let reader = server.clone();
        let read = rt::spawn(async move { read_until_end(&reader).await.unwrap() });
        let read = timeout(PATIENCE, read)
            .await
            .expect("the end-of-file was lost");
        assert_eq!(read.unwrap(), 2);
    });
}

/// As above, through `async_io`: the peer sends half a header and closes;
/// a framing task's closure says `WouldBlock` once (then, say, it decides
/// on what it has). rt's `async_io` cleared the read-closed state with
/// that `WouldBlock`, so it waited for ever instead of calling the closure
/// again, and the reader sharing the stream lost the end of it. Now the
/// state is kept, as by `try_io` and tokio's `async_io`.
#[test]
#[cfg_attr(miri, ignore = "real sockets and the multi-thread runtime")]
fn an_async_io_would_block_after_the_peer_closed_leaves_the_end_to_the_reader() {
    on_both(|| async {
        let server = half_header_then_closed().await;
        let framer = server.clone();
        let framed = rt::spawn(async move {
            let mut calls = 0;
            let frame = || {
                calls += 1;
                match calls {
                    1 => Err(ErrorKind::WouldBlock.into()),
                    _ => Ok(calls),
                }
            };
            framer.async_io(Interest::READABLE, frame).await
        });
        let framed = timeout(PATIENCE, framed)
            .await
            .expect("async_io waited after its closure's WouldBlock");
        assert_eq!(framed.unwrap().unwrap(), 2);
        let reader = server.clone();
        let read = rt::spawn(async move { read_until_end(&reader).await.unwrap() });
        let read = timeout(PATIENCE, read)
            .await
            .expect("the end-of-file was lost");
        assert_eq!(read.unwrap(), 2);
    });
}
