//! Several tasks waiting on one socket in one direction at once: acceptors
//! sharing a listener, receivers and senders sharing a datagram socket,
//! `readable`/`writable` waiters on one stream or `AsyncFd`. Every waiter
//! is parked before the work for it exists, and every one must complete
//! once there is work for it (a waiter list that keeps one waker per
//! direction loses all but the last). Waiters dropped while waiting must
//! leave no waker behind.

mod support;

use rt::io::{AsyncFd, AsyncReadExt, Interest};
use rt::net::{TcpListener, TcpStream, UdpSocket, UnixDatagram};
use rt::task::JoinHandle;
use rt::time::timeout;
use std::future::Future;
use std::io::{ErrorKind, Write};
use std::sync::Arc;
use std::time::Duration;
use support::{Kind, WakeCounter, ms, on_both, spawn_all_waiting, tcp_pair, tracked};

/// Spawns `count` tasks, each running `wait` on its own clone of `shared`,
/// and returns once every one of them is waiting.
async fn spawn_waiting_on<S, W, Fut>(
    shared: &Arc<S>,
    count: usize,
    wait: W,
) -> Vec<JoinHandle<Fut::Output>>
where
    W: Fn(Arc<S>) -> Fut,
    Fut: Future + Send + 'static,
    Fut::Output: Send + 'static,
{
    spawn_all_waiting((0..count).map(|_| wait(shared.clone())).collect()).await
}

async fn acceptors_all_complete(acceptors: usize) {
    let listener = Arc::new(TcpListener::bind("127.0.0.1:0").await.unwrap());
    let addr = listener.local_addr().unwrap();
    let tasks = spawn_waiting_on(&listener, acceptors, |listener| async move {
        listener.accept().await.unwrap().0
    })
    .await;
    let mut clients = Vec::new();
    for _ in 0..acceptors {
        clients.push(TcpStream::connect(addr).await.unwrap());
    }
    let mut accepted = Vec::new();
    for task in tasks {
        accepted.push(task.await.unwrap().peer_addr().unwrap());
    }
    accepted.sort();
    let mut connected: Vec<_> = clients.iter().map(|c| c.local_addr().unwrap()).collect();
    connected.sort();
    assert_eq!(accepted, connected, "each connection accepted exactly once");
}

#[test]
fn two_acceptors_on_one_listener_both_accept() {
    on_both(|| acceptors_all_complete(2));
}

#[test]
fn eight_acceptors_on_one_listener_all_accept() {
    on_both(|| acceptors_all_complete(8));
}

/// Four tasks wait on one shared socket, each to receive one datagram of
/// one byte through `receive`; then `send` sends the bytes 0 to 3. Each
/// receiver must get exactly one of them.
async fn shared_receivers_each_get_one<S, Recv, RecvFut, SendOne, SendFut>(
    socket: Arc<S>,
    receive: Recv,
    send: SendOne,
) where
    Recv: Fn(Arc<S>) -> RecvFut,
    RecvFut: Future<Output = u8> + Send + 'static,
    SendOne: Fn(u8) -> SendFut,
    SendFut: Future<Output = ()>,
{
    let tasks = spawn_waiting_on(&socket, 4, receive).await;
    for id in 0..4u8 {
        send(id).await;
    }
    let mut got = Vec::new();
    for task in tasks {
        got.push(task.await.unwrap());
    }
    got.sort();
    assert_eq!(got, [0, 1, 2, 3]);
}

#[test]
fn udp_receivers_sharing_a_socket_each_get_a_datagram() {
    on_both(|| async {
        let socket = Arc::new(UdpSocket::bind("127.0.0.1:0").await.unwrap());
        let to = socket.local_addr().unwrap();
        let sender = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let receive = |socket: Arc<UdpSocket>| async move {
            let mut buf = [0; 8];
            let (n, _) = socket.recv_from(&mut buf).await.unwrap();
            assert_eq!(n, 1);
            buf[0]
        };
        let send = |id| {
            let sender = &sender;
            async move {
                sender.send_to(&[id], to).await.unwrap();
            }
        };
        shared_receivers_each_get_one(socket, receive, send).await;
    });
}

#[test]
fn unix_datagram_receivers_sharing_a_socket_each_get_a_datagram() {
    on_both(|| async {
        let (a, b) = UnixDatagram::pair().unwrap();
        let receive = |b: Arc<UnixDatagram>| async move {
            let mut buf = [0; 8];
            assert_eq!(b.recv(&mut buf).await.unwrap(), 1);
            buf[0]
        };
        let send = |id| {
            let a = &a;
            async move {
                a.send(&[id]).await.unwrap();
            }
        };
        shared_receivers_each_get_one(Arc::new(b), receive, send).await;
    });
}

/// Loopback UDP never reports a full send buffer; a connected Unix
/// datagram pair does once the peer's queue is full.
#[test]
fn unix_datagram_senders_blocked_on_a_full_peer_all_send() {
    const FILLER: u8 = 0xff;
    on_both(|| async {
        let (a, b) = std::os::unix::net::UnixDatagram::pair().unwrap();
        a.set_nonblocking(true).unwrap();
        let mut queued = 0;
        loop {
            match a.send(&[FILLER]) {
                Ok(_) => queued += 1,
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                Err(e) => panic!("filling the peer's queue: {e}"),
            }
        }
        let a = Arc::new(UnixDatagram::from_std(a).unwrap());
        let b = UnixDatagram::from_std(b).unwrap();
        let tasks = spawn_all_waiting(
            (0..4u8)
                .map(|id| {
                    let a = a.clone();
                    async move { assert_eq!(a.send(&[id]).await.unwrap(), 1) }
                })
                .collect(),
        )
        .await;
        // Draining the queue makes room for every sender in turn.
        let mut senders_seen = Vec::new();
        let mut fillers = 0;
        while senders_seen.len() < 4 {
            let mut buf = [0; 8];
            assert_eq!(b.recv(&mut buf).await.unwrap(), 1);
            match buf[0] {
                FILLER => fillers += 1,
                id => senders_seen.push(id),
            }
        }
        for task in tasks {
            task.await.unwrap();
        }
        assert_eq!(fillers, queued);
        senders_seen.sort();
        assert_eq!(senders_seen, [0, 1, 2, 3]);
    });
}

#[test]
fn two_tasks_waiting_for_a_stream_to_be_readable_both_wake() {
    on_both(|| async {
        let (client, server) = tcp_pair().await;
        support::clear_assumed_readability(&server);
        let server = Arc::new(server);
        let tasks = spawn_waiting_on(&server, 2, |server| async move {
            server.readable().await.unwrap()
        })
        .await;
        client.try_write(b"x").unwrap();
        for task in tasks {
            task.await.unwrap();
        }
        assert_eq!(server.try_read(&mut [0; 4]).unwrap(), 1);
    });
}

#[test]
fn two_tasks_waiting_for_a_full_stream_to_be_writable_both_wake() {
    on_both(|| async {
        let (client, mut server) = tcp_pair().await;
        // The peer is not reading: fill every buffer on the way.
        let chunk = vec![7; 64 * 1024];
        loop {
            match client.try_write(&chunk) {
                Ok(_) => {}
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                Err(e) => panic!("filling the connection: {e}"),
            }
        }
        let client = Arc::new(client);
        let tasks = spawn_waiting_on(&client, 2, |client| async move {
            client.writable().await.unwrap()
        })
        .await;
        let drain = rt::spawn(async move {
            let mut buf = vec![0; 64 * 1024];
            while server.read(&mut buf).await.unwrap() > 0 {}
        });
        for task in tasks {
            task.await.unwrap();
        }
        drop(client);
        drain.await.unwrap();
    });
}

#[test]
fn two_tasks_waiting_for_an_async_fd_to_be_readable_both_wake() {
    on_both(|| async {
        let (a, mut b) = std::os::unix::net::UnixStream::pair().unwrap();
        a.set_nonblocking(true).unwrap();
        let fd = Arc::new(AsyncFd::new(a).unwrap());
        let tasks = spawn_waiting_on(&fd, 2, |fd| async move {
            fd.readable().await.unwrap().ready().is_readable()
        })
        .await;
        b.write_all(b"x").unwrap();
        for task in tasks {
            assert!(task.await.unwrap());
        }
    });
}

/// `timeout(limit, accept)` `rounds` times on a listener nobody connects
/// to, each accept polled with `counter`'s waker; then a connection still
/// gets accepted.
async fn time_out_accepts(rounds: usize, limit: Duration, counter: &Arc<WakeCounter>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    for _ in 0..rounds {
        let accept = tracked(counter, listener.accept());
        assert!(timeout(limit, accept).await.is_err());
    }
    assert_eq!(
        counter.wakers_alive(),
        0,
        "a timed-out accept left its waker in the listener's waiter list"
    );
    let client = TcpStream::connect(listener.local_addr().unwrap())
        .await
        .unwrap();
    let (server, _) = listener.accept().await.unwrap();
    assert_eq!(server.peer_addr().unwrap(), client.local_addr().unwrap());
}

#[test]
fn accepts_timed_out_ten_thousand_times_leave_no_waker_on_the_paused_clock() {
    let rt = Kind::CurrentThread
        .builder()
        .start_paused(true)
        .build()
        .unwrap();
    let counter = WakeCounter::new();
    rt.block_on(time_out_accepts(10_000, ms(1), &counter));
    assert_eq!(counter.wakes(), 0, "nobody connected during the timeouts");
}

#[test]
fn accepts_timed_out_ten_thousand_times_leave_no_waker() {
    on_both(|| async {
        let counter = WakeCounter::new();
        time_out_accepts(10_000, Duration::ZERO, &counter).await;
    });
}

#[test]
fn dropped_receivers_and_readiness_waiters_leave_no_waker() {
    on_both(|| async {
        let counter = WakeCounter::new();
        let socket = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let (_client, server) = tcp_pair().await;
        support::clear_assumed_readability(&server);
        for _ in 0..1_000 {
            let mut buf = [0; 8];
            let recv = tracked(&counter, socket.recv_from(&mut buf));
            assert!(timeout(Duration::ZERO, recv).await.is_err());
            let readable = tracked(&counter, server.readable());
            assert!(timeout(Duration::ZERO, readable).await.is_err());
            let ready = tracked(&counter, server.ready(Interest::READABLE | Interest::ERROR));
            assert!(timeout(Duration::ZERO, ready).await.is_err());
            let ready = tracked(&counter, socket.ready(Interest::READABLE));
            assert!(timeout(Duration::ZERO, ready).await.is_err());
        }
        assert_eq!(counter.wakers_alive(), 0);
    });
}
