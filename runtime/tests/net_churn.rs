//! The reactor under churn and at scale: 100k short-lived connections
//! (orderly closes, half-closes, resets from either side) leave no
//! registration behind; thousands of idle connections closed at once;
//! thousands of connections ready at once, many more than one turn's
//! batch of events, each answered; sockets registered in the cells of
//! sockets whose events were pending; many acceptors sharing a listener
//! through churn.

mod support;

use futures_util::FutureExt;
use rt::io::{AsyncReadExt, AsyncWriteExt};
use rt::net::{TcpListener, TcpStream, UnixStream};
use rt::runtime::{Builder, Runtime};
use std::collections::HashMap;
use std::io::ErrorKind;
use std::net::{Shutdown, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// How one churned connection ends.
#[derive(Clone, Copy, Debug)]
enum Ending {
    /// The client closes after the reply; the server reads the end.
    ClientCloses,
    /// The client shuts its write side after the request; the server
    /// replies after reading the end.
    HalfClose,
    /// The client resets (`SO_LINGER` 0) after the reply.
    ClientResets,
    /// The server resets after the reply.
    ServerResets,
}

impl Ending {
    fn of(i: usize) -> Ending {
        [
            Ending::ClientCloses,
            Ending::HalfClose,
            Ending::ClientResets,
            Ending::ServerResets,
        ][i % 4]
    }
}

/// One request byte, whose low two bits say the ending (so the server
/// knows it), answered with the byte plus one.
async fn serve(mut stream: TcpStream) {
    let mut request = [0u8; 1];
    stream.read_exact(&mut request).await.unwrap();
    let ending = Ending::of(request[0] as usize);
    if let Ending::HalfClose = ending {
        let mut rest = Vec::new();
        assert_eq!(stream.read_to_end(&mut rest).await.unwrap(), 0);
    }
    stream
        .write_all(&[request[0].wrapping_add(1)])
        .await
        .unwrap();
    match ending {
        Ending::ClientCloses | Ending::ClientResets => {
            // Wait for the client's end: an orderly one or a reset.
            let mut rest = [0u8; 1];
            match stream.read(&mut rest).await {
                Ok(0) => {}
                Ok(n) => panic!("{n} unexpected bytes"),
                Err(e) => assert_eq!(e.kind(), ErrorKind::ConnectionReset, "{e}"),
            }
        }
        Ending::HalfClose => {}
        Ending::ServerResets => stream.set_linger(Some(Duration::ZERO)).unwrap(),
    }
}

async fn client(addr: SocketAddr, i: usize) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let ending = Ending::of(i);
    let byte = i as u8;
    stream.write_all(&[byte]).await.unwrap();
    if let Ending::HalfClose = ending {
        stream.shutdown_std(Shutdown::Write).unwrap();
    }
    let mut reply = [0u8; 1];
    stream.read_exact(&mut reply).await.unwrap();
    assert_eq!(reply[0], byte.wrapping_add(1));
    match ending {
        Ending::ClientResets => stream.set_linger(Some(Duration::ZERO)).unwrap(),
        Ending::ServerResets => {
            let mut rest = [0u8; 1];
            match stream.read(&mut rest).await {
                Ok(0) => {}
                Ok(n) => panic!("{n} unexpected bytes"),
                Err(e) => assert_eq!(e.kind(), ErrorKind::ConnectionReset, "{e}"),
            }
        }
        Ending::ClientCloses | Ending::HalfClose => {}
    }
}

/// Held by each test: together they would need more descriptors than
/// the limit allows, and each sizes itself to the whole limit.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn one_at_a_time() -> MutexGuard<'static, ()> {
    ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn two_workers() -> Runtime {
    Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// `connections` short-lived connections, `concurrency` at a time, on a
/// two-worker runtime: every one is answered, and once all are closed the
/// reactor holds exactly the registrations it held before.
#[test]
fn churned_connections_leave_no_registration_behind() {
    let _one = one_at_a_time();
    let mut connections = support::miri_or(100_000, 100);
    // Half the connections leave the client's port in TIME_WAIT; without
    // `tcp_tw_reuse` (Linux's default, 2, enables it on loopback) those
    // ports are not reused for a minute, and the ephemeral range (about
    // 28k ports) would run out.
    let tw_reuse = std::fs::read_to_string("/proc/sys/net/ipv4/tcp_tw_reuse");
    if tw_reuse.is_ok_and(|value| value.trim() == "0") {
        connections = connections.min(20_000);
        eprintln!("tcp_tw_reuse is 0: {connections} connections, to stay within the port range");
    }
    let concurrency = 64;
    if !fd_limit_allows(4 * concurrency) {
        return;
    }
    let rt = two_workers();
    let metrics = rt.metrics();
    rt.block_on(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let baseline = metrics.io_driver_registrations();
        let server = rt::spawn(async move {
            let mut handlers = Vec::with_capacity(connections);
            for _ in 0..connections {
                let (stream, _) = listener.accept().await.unwrap();
                handlers.push(rt::spawn(serve(stream)));
            }
            for handler in handlers {
                handler.await.unwrap();
            }
        });
        let clients: Vec<_> = (0..concurrency)
            .map(|c| {
                rt::spawn(async move {
                    for i in (c..connections).step_by(concurrency) {
                        client(addr, i).await;
                    }
                })
            })
            .collect();
        for client in clients {
            client.await.unwrap();
        }
        server.await.unwrap();
        // The listener went with the server task.
        assert_eq!(metrics.io_driver_registrations(), baseline - 1);
    });
    assert_eq!(metrics.num_alive_tasks(), 0);
}

/// Whether the descriptor limit (raised to its maximum) leaves room for
/// `descriptors` open at once, with headroom for the test harness; if not,
/// says so (the test is then skipped).
fn fd_limit_allows(descriptors: usize) -> bool {
    let limit = support::raise_fd_limit();
    let enough = limit >= descriptors as u64 + 200;
    if !enough {
        eprintln!("skipped: descriptor limit {limit} too low");
    }
    enough
}

/// As many connections as the descriptor limit allows (two descriptors
/// each, plus headroom), at most `wanted`; `None` (with the reason
/// printed) if that is too few to test anything.
fn connections_within_fd_limit(wanted: usize) -> Option<usize> {
    let limit = support::raise_fd_limit();
    let fit = (limit.saturating_sub(300) / 2) as usize;
    if fit < 1000 {
        eprintln!("skipped: descriptor limit {limit} leaves room for {fit} connections");
        return None;
    }
    if fit < wanted {
        eprintln!("descriptor limit {limit}: {fit} connections instead of {wanted}");
    }
    Some(fit.min(wanted))
}

/// Opens `n` connections to a listener on the current runtime: the
/// client ends and the accepted ends, in the same order.
async fn open(n: usize) -> (Vec<TcpStream>, Vec<TcpStream>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let mut clients = Vec::with_capacity(n);
    // Accepted ends by their peer's address (accepts come in any order).
    let mut accepted = HashMap::with_capacity(n);
    // Batches below the listener's queue (1024), so none overflows it.
    for start in (0..n).step_by(512) {
        let batch = (n - start).min(512);
        let connects: Vec<_> = (0..batch)
            .map(|_| rt::spawn(TcpStream::connect(addr)))
            .collect();
        for _ in 0..batch {
            let (stream, peer) = listener.accept().await.unwrap();
            accepted.insert(peer, stream);
        }
        for connect in connects {
            clients.push(connect.await.unwrap().unwrap());
        }
    }
    let servers = clients
        .iter()
        .map(|client| accepted.remove(&client.local_addr().unwrap()).unwrap())
        .collect();
    (clients, servers)
}

/// Thousands of connections become readable at once, many more than one
/// turn takes (16 events per turn here, 1024 by default): each gets its
/// reply, on both schedulers.
#[test]
fn every_connection_of_thousands_ready_at_once_is_answered() {
    let _one = one_at_a_time();
    let Some(n) = connections_within_fd_limit(10_000) else {
        return;
    };
    for (name, events_per_tick) in [
        ("current_thread", None),
        ("current_thread", Some(16)),
        ("multi_thread", None),
        ("multi_thread", Some(16)),
    ] {
        eprintln!("-- {name}, events per tick {events_per_tick:?}");
        let mut builder = match name {
            "current_thread" => Builder::new_current_thread(),
            _ => {
                let mut builder = Builder::new_multi_thread();
                builder.worker_threads(2);
                builder
            }
        };
        if let Some(events) = events_per_tick {
            builder.max_io_events_per_tick(events);
        }
        let rt = builder.enable_all().build().unwrap();
        let metrics = rt.metrics();
        rt.block_on(async {
            let baseline = metrics.io_driver_registrations();
            let (clients, servers) = open(n).await;
            assert_eq!(metrics.io_driver_registrations(), baseline + 2 * n);
            // Every server end waits to read before any client writes.
            let handlers: Vec<_> = servers
                .into_iter()
                .map(|mut stream| {
                    rt::spawn(async move {
                        let mut request = [0u8; 4];
                        stream.read_exact(&mut request).await.unwrap();
                        let i = u32::from_le_bytes(request);
                        stream
                            .write_all(&(i ^ 0xa5a5_a5a5).to_le_bytes())
                            .await
                            .unwrap();
                        i
                    })
                })
                .collect();
            rt::task::yield_now().await;
            let mut clients = clients;
            for (i, client) in clients.iter_mut().enumerate() {
                client.write_all(&(i as u32).to_le_bytes()).await.unwrap();
            }
            for (i, handler) in handlers.into_iter().enumerate() {
                assert_eq!(handler.await.unwrap(), i as u32);
            }
            for (i, client) in clients.iter_mut().enumerate() {
                let mut reply = [0u8; 4];
                client.read_exact(&mut reply).await.unwrap();
                assert_eq!(u32::from_le_bytes(reply), i as u32 ^ 0xa5a5_a5a5);
            }
            drop(clients);
            assert_eq!(metrics.io_driver_registrations(), baseline);
        });
    }
}

/// Thousands of idle connections, each end awaited by a reader, all
/// closed at once from the client side: every reader sees the end of the
/// stream and every registration goes.
#[test]
fn thousands_of_idle_connections_closed_at_once() {
    let _one = one_at_a_time();
    let Some(n) = connections_within_fd_limit(10_000) else {
        return;
    };
    for (name, rt) in support::runtimes() {
        eprintln!("-- on the {name} scheduler");
        let metrics = rt.metrics();
        rt.block_on(async {
            let baseline = metrics.io_driver_registrations();
            let (clients, servers) = open(n).await;
            let readers: Vec<_> = servers
                .into_iter()
                .map(|mut stream| {
                    rt::spawn(async move {
                        let mut rest = Vec::new();
                        stream.read_to_end(&mut rest).await.unwrap();
                        rest.len()
                    })
                })
                .collect();
            rt::task::yield_now().await;
            drop(clients);
            for reader in readers {
                assert_eq!(reader.await.unwrap(), 0);
            }
            assert_eq!(metrics.io_driver_registrations(), baseline);
        });
    }
}

/// Sockets whose peers wrote to them (events pending or being collected)
/// dropped, and as many new ones registered in their cells, round after
/// round: no new socket starts readable (no stale readiness), and each
/// reads what its own peer writes next (no lost wake-up), on both
/// schedulers.
#[test]
fn new_sockets_in_reused_cells_see_only_their_own_readiness() {
    let _one = one_at_a_time();
    let pairs = 500;
    if !fd_limit_allows(4 * pairs) {
        return;
    }
    for (name, rt) in support::runtimes() {
        eprintln!("-- on the {name} scheduler");
        let metrics = rt.metrics();
        rt.block_on(async {
            let baseline = metrics.io_driver_registrations();
            let mut old: Vec<_> = (0..pairs).map(|_| UnixStream::pair().unwrap()).collect();
            for round in 0..40u8 {
                for (_, peer) in &mut old {
                    peer.write_all(&[round]).await.unwrap();
                }
                // Let the driver collect some of those events (all, one
                // of them, or none) before the sockets go.
                if round % 2 == 0 {
                    rt::task::yield_now().await;
                }
                drop(old);
                let new: Vec<_> = (0..pairs).map(|_| UnixStream::pair().unwrap()).collect();
                for (i, (reader, _)) in new.iter().enumerate() {
                    assert!(
                        reader.readable().now_or_never().is_none(),
                        "round {round}: new socket {i} starts readable"
                    );
                }
                // Each new socket waits for its peer's byte, then the
                // pair is the next round's old one.
                let (readers, mut peers): (Vec<_>, Vec<_>) = new.into_iter().unzip();
                let reads: Vec<_> = readers
                    .into_iter()
                    .map(|mut reader| {
                        rt::spawn(async move {
                            let mut byte = [0u8; 1];
                            reader.read_exact(&mut byte).await.unwrap();
                            (reader, byte[0])
                        })
                    })
                    .collect();
                for (i, peer) in peers.iter_mut().enumerate() {
                    peer.write_all(&[i as u8 ^ round]).await.unwrap();
                }
                old = Vec::with_capacity(pairs);
                for ((i, read), peer) in reads.into_iter().enumerate().zip(peers) {
                    let (reader, byte) = read.await.unwrap();
                    assert_eq!(byte, i as u8 ^ round, "round {round}: socket {i}");
                    old.push((reader, peer));
                }
            }
            drop(old);
            assert_eq!(metrics.io_driver_registrations(), baseline);
        });
    }
}

/// Many acceptors on one shared listener (an edge wakes them all; the
/// losers wait again in their own places) through 20k short connections
/// on a two-worker runtime: every connection is accepted exactly once and
/// answered, and the acceptors end with the listener's registration the
/// only one left.
#[test]
fn many_acceptors_share_a_listener_through_churn() {
    let _one = one_at_a_time();
    let connections = support::miri_or(20_000, 50);
    let (acceptors, concurrency) = (32, 64);
    if !fd_limit_allows(4 * concurrency) {
        return;
    }
    let rt = two_workers();
    let metrics = rt.metrics();
    rt.block_on(async {
        let listener = Arc::new(TcpListener::bind("127.0.0.1:0").await.unwrap());
        let addr = listener.local_addr().unwrap();
        let baseline = metrics.io_driver_registrations();
        let remaining = Arc::new(AtomicUsize::new(connections));
        let acceptor_tasks: Vec<_> = (0..acceptors)
            .map(|_| {
                let (listener, remaining) = (listener.clone(), remaining.clone());
                rt::spawn(async move {
                    let mut accepted = 0;
                    // Each takes a ticket before accepting, so exactly
                    // `connections` accepts are made in all.
                    while remaining
                        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
                        .is_ok()
                    {
                        let (mut stream, _) = listener.accept().await.unwrap();
                        let mut request = [0u8; 1];
                        stream.read_exact(&mut request).await.unwrap();
                        stream.write_all(&[request[0] ^ 0xff]).await.unwrap();
                        accepted += 1;
                    }
                    accepted
                })
            })
            .collect();
        let clients: Vec<_> = (0..concurrency)
            .map(|c| {
                rt::spawn(async move {
                    for i in (c..connections).step_by(concurrency) {
                        let mut stream = TcpStream::connect(addr).await.unwrap();
                        stream.write_all(&[i as u8]).await.unwrap();
                        let mut reply = [0u8; 1];
                        stream.read_exact(&mut reply).await.unwrap();
                        assert_eq!(reply[0], i as u8 ^ 0xff);
                    }
                })
            })
            .collect();
        for client in clients {
            client.await.unwrap();
        }
        let mut accepted = 0;
        for acceptor in acceptor_tasks {
            accepted += acceptor.await.unwrap();
        }
        assert_eq!(accepted, connections);
        assert_eq!(metrics.io_driver_registrations(), baseline);
    });
}
