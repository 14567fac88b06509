//! Where the simulated network answers as Linux's sockets do, beyond the
//! faults (`sim_net_tcp.rs`, `sim_net_udp.rs`): a UDP `send` with no peer,
//! what `connect` does to datagrams already queued and to later ones,
//! binds per address (a loopback bind hears only its own node), a
//! listener's bounded backlog with SYN retransmissions, and a stream
//! closed both ways. Where the real
//! answer does not depend on the machine's routes, the test asks a real
//! socket first and expects the simulated one to answer the same.

#![cfg(feature = "sim")]

use rt::net::{TcpListener, TcpStream, UdpSocket};
use rt::sim::Sim;
use std::io;
use std::net::SocketAddr;
use std::time::Duration;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The errors of `send` and `peer_addr` on an unconnected real socket.
fn real_unconnected_errors() -> (io::Error, io::Error) {
    let runtime = rt::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let socket = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let send = socket.send(b"x").await.unwrap_err();
        let peer = socket.peer_addr().unwrap_err();
        (send, peer)
    })
}

fn same_error(simulated: &io::Error, real: &io::Error) {
    assert_eq!(simulated.kind(), real.kind(), "{simulated} vs {real}");
    assert_eq!(simulated.raw_os_error(), real.raw_os_error());
    assert_eq!(simulated.to_string(), real.to_string());
}

#[test]
fn a_udp_send_with_no_peer_fails_as_on_linux() {
    let (real_send, real_peer) = real_unconnected_errors();
    assert_eq!(real_send.raw_os_error(), Some(libc::EDESTADDRREQ));
    let mut sim = Sim::new(1);
    sim.client("solo", async move {
        let socket = UdpSocket::bind("0.0.0.0:0").await?;
        same_error(&socket.send(b"x").await.unwrap_err(), &real_send);
        same_error(&socket.try_send(b"x").unwrap_err(), &real_send);
        same_error(&socket.peer_addr().unwrap_err(), &real_peer);
        Ok::<_, BoxError>(())
    });
    sim.run().unwrap();
}

/// The next datagram on `socket` and its sender's name.
async fn next(socket: &UdpSocket) -> io::Result<(String, SocketAddr)> {
    let mut buf = [0; 64];
    let (n, from) = socket.recv_from(&mut buf).await?;
    Ok((String::from_utf8_lossy(&buf[..n]).into_owned(), from))
}

#[test]
fn connect_keeps_the_datagrams_already_queued_and_filters_later_ones() {
    for seed in 0..20 {
        let mut sim = Sim::new(seed);
        let (a_sent, a_done) = rt::sync::oneshot::channel::<()>();
        let (b_sent, b_done) = rt::sync::oneshot::channel::<()>();
        let (connected_a, a_may_go) = rt::sync::oneshot::channel::<()>();
        let (connected_b, b_may_go) = rt::sync::oneshot::channel::<()>();
        // Registered first: 192.0.2.1; then `a` .2, `b` .3.
        sim.client("server", async move {
            let socket = UdpSocket::bind("server:5000").await?;
            a_done.await?;
            b_done.await?;
            // Both datagrams arrive 1 ms after their sends (the default
            // latency, in simulated time).
            rt::time::sleep(Duration::from_millis(5)).await;
            socket.connect("a:6000").await?;
            connected_a.send(()).unwrap();
            connected_b.send(()).unwrap();
            // Queued before the connect: received, whoever sent them.
            let mut first_two = vec![next(&socket).await?, next(&socket).await?];
            first_two.sort();
            let a: SocketAddr = "192.0.2.2:6000".parse()?;
            let b: SocketAddr = "192.0.2.3:6000".parse()?;
            assert_eq!(
                first_two,
                [("from a".to_string(), a), ("from b".to_string(), b)]
            );
            // After it, only the peer's: b's second one was dropped.
            assert_eq!(next(&socket).await?, ("a again".to_string(), a));
            rt::time::sleep(Duration::from_millis(5)).await;
            let mut buf = [0; 64];
            let none = socket.try_recv_from(&mut buf).unwrap_err();
            assert_eq!(none.kind(), io::ErrorKind::WouldBlock);
            Ok::<_, BoxError>(())
        });
        for (name, first, again, sent, may_go) in [
            ("a", "from a", "a again", a_sent, a_may_go),
            ("b", "from b", "b again", b_sent, b_may_go),
        ] {
            sim.client(name, async move {
                let socket = UdpSocket::bind("0.0.0.0:6000").await?;
                socket.send_to(first.as_bytes(), "server:5000").await?;
                sent.send(()).unwrap();
                may_go.await?;
                socket.send_to(again.as_bytes(), "server:5000").await?;
                Ok::<_, BoxError>(())
            });
        }
        sim.run().unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    }
}

#[test]
fn a_port_is_bound_per_address_and_a_loopback_bind_hears_only_its_node() {
    // The real rule first: a port bound on loopback cannot be bound on
    // every address (`0.0.0.0`) too.
    let runtime = rt::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let real = runtime.block_on(async {
        let loopback = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = loopback.local_addr().unwrap().port();
        TcpListener::bind(("0.0.0.0", port)).await.unwrap_err()
    });
    assert_eq!(real.kind(), io::ErrorKind::AddrInUse);
    let mut sim = Sim::new(2);
    let (loopback_bound, loopback_listening) = rt::sync::oneshot::channel::<()>();
    let (refused, client_refused) = rt::sync::oneshot::channel::<()>();
    let (own_bound, own_listening) = rt::sync::oneshot::channel::<()>();
    // Registered first: 192.0.2.1; the client is 192.0.2.2.
    sim.client("server", async move {
        let loopback = TcpListener::bind("127.0.0.1:8080").await?;
        assert_eq!(
            loopback.local_addr()?,
            "127.0.0.1:8080".parse::<SocketAddr>()?
        );
        let udp = UdpSocket::bind("127.0.0.1:5353").await?;
        loopback_bound.send(()).unwrap();
        let all = TcpListener::bind("0.0.0.0:8080").await.unwrap_err();
        assert_eq!(all.kind(), real.kind());
        let udp_all = UdpSocket::bind("0.0.0.0:5353").await.unwrap_err();
        assert_eq!(udp_all.kind(), io::ErrorKind::AddrInUse);
        // The client's connect found nothing bound to this node's address.
        client_refused.await?;
        // Which is an address of its own: its own bind.
        let own = TcpListener::bind("192.0.2.1:8080").await?;
        let again = TcpListener::bind("192.0.2.1:8080").await.unwrap_err();
        assert_eq!(again.kind(), io::ErrorKind::AddrInUse);
        let udp_own = UdpSocket::bind("server:5353").await?;
        own_bound.send(()).unwrap();
        // Each hears what is sent to its address: the node itself over
        // loopback, the client over the network.
        let local = rt::spawn(TcpStream::connect("127.0.0.1:8080"));
        let (_, from) = loopback.accept().await?;
        assert_eq!(from, local.await??.local_addr()?);
        let (_, from) = own.accept().await?;
        assert_eq!(from.ip().to_string(), "192.0.2.2");
        let mut buf = [0; 16];
        let (n, from) = udp_own.recv_from(&mut buf).await?;
        assert_eq!(&buf[..n], b"to server");
        assert_eq!(from.ip().to_string(), "192.0.2.2");
        // The client's first datagram, sent while only the loopback
        // socket was bound, reached nobody.
        let nothing = udp.try_recv_from(&mut buf).unwrap_err();
        assert_eq!(nothing.kind(), io::ErrorKind::WouldBlock);
        Ok::<_, BoxError>(())
    });
    sim.client("client", async move {
        loopback_listening.await?;
        let no_one = TcpStream::connect("server:8080").await.unwrap_err();
        assert_eq!(no_one.kind(), io::ErrorKind::ConnectionRefused);
        let socket = UdpSocket::bind("0.0.0.0:0").await?;
        socket.send_to(b"lost", "server:5353").await?;
        rt::time::sleep(Duration::from_millis(5)).await;
        refused.send(()).unwrap();
        own_listening.await?;
        let stream = TcpStream::connect("server:8080").await?;
        assert_eq!(stream.peer_addr()?, "192.0.2.1:8080".parse::<SocketAddr>()?);
        socket.send_to(b"to server", "server:5353").await?;
        // A socket bound to loopback sends nowhere else (Linux: EINVAL).
        let loopback = UdpSocket::bind("127.0.0.1:0").await?;
        let unroutable = loopback.send_to(b"x", "server:5353").await.unwrap_err();
        assert_eq!(unroutable.raw_os_error(), Some(libc::EINVAL));
        Ok::<_, BoxError>(())
    });
    sim.run().unwrap();
}

/// `connects` connections opened at once to a listener that accepts
/// `accepted` of them after 500 ms: how many connect, how long the ones
/// that took more than 100 ms took, how many time out.
fn backlog_run(seed: u64, connects: usize, accepted: usize) -> (usize, Vec<Duration>, usize) {
    let mut sim = Sim::new(seed);
    // The host binds on its first poll, at 0 ms: before the SYNs arrive.
    sim.host("server", move || async move {
        let listener = TcpListener::bind("server:8080").await?;
        rt::time::sleep(Duration::from_millis(500)).await;
        let mut kept = Vec::new();
        for _ in 0..accepted {
            kept.push(listener.accept().await?);
        }
        std::future::pending::<()>().await;
        Ok::<_, BoxError>(())
    });
    let (done, results) = std::sync::mpsc::channel();
    sim.client("client", async move {
        let attempts: Vec<_> = (0..connects)
            .map(|_| {
                rt::spawn(async {
                    let start = rt::time::Instant::now();
                    let result = TcpStream::connect("server:8080").await;
                    (result, start.elapsed())
                })
            })
            .collect();
        let (mut connected, mut late, mut timed_out) = (0, Vec::new(), 0);
        let mut streams = Vec::new();
        for attempt in attempts {
            match attempt.await? {
                (Ok(stream), took) => {
                    connected += 1;
                    if took > Duration::from_millis(100) {
                        late.push(took);
                    }
                    streams.push(stream);
                }
                (Err(e), _) if e.kind() == io::ErrorKind::TimedOut => timed_out += 1,
                (Err(e), _) => return Err(e.into()),
            }
        }
        done.send((connected, late, timed_out)).unwrap();
        Ok::<_, BoxError>(())
    });
    sim.run().unwrap();
    results.recv().unwrap()
}

#[test]
fn a_full_backlog_drops_syns_which_are_sent_again_until_the_connect_times_out() {
    // Linux queues the backlog (1024) plus one; the rest wait for room.
    let (connected, late, timed_out) = backlog_run(4, 1030, 0);
    assert_eq!((connected, late.len(), timed_out), (1025, 0, 5));
    // Two accepts at 500 ms make room: two SYNs sent again 1 s after they
    // were dropped (at 1 ms) get in, 1 ms each way; the other three are
    // sent again 2 s later, dropped, and time out at 5 s.
    let (connected, late, timed_out) = backlog_run(5, 1030, 2);
    assert_eq!((connected, timed_out), (1027, 3));
    assert_eq!(late, [Duration::from_millis(1003); 2]);
}

#[test]
fn a_socket_bound_to_the_ipv6_unspecified_address_hears_every_address() {
    let mut sim = Sim::new(6);
    let (bound, listening) = rt::sync::oneshot::channel::<()>();
    sim.client("server", async move {
        let socket = UdpSocket::bind("[::]:7000").await?;
        let taken = UdpSocket::bind("0.0.0.0:7000").await.unwrap_err();
        assert_eq!(taken.kind(), io::ErrorKind::AddrInUse);
        bound.send(()).unwrap();
        let mut buf = [0; 8];
        let (n, from) = socket.recv_from(&mut buf).await?;
        assert_eq!(
            (&buf[..n], from.ip().to_string()),
            (&b"v4"[..], "192.0.2.2".into())
        );
        Ok::<_, BoxError>(())
    });
    sim.client("client", async move {
        listening.await?;
        let socket = UdpSocket::bind("0.0.0.0:0").await?;
        socket.send_to(b"v4", "server:7000").await?;
        Ok::<_, BoxError>(())
    });
    sim.run().unwrap();
}

/// A stream whose side closes first (`shutdown(Write)`), then reads the
/// peer's FIN: its `peer_addr` and `shutdown` then, each as an error kind
/// (or `None` for `Ok`), after what the same calls said before the FIN.
async fn closed_both_ways() -> Vec<Option<io::ErrorKind>> {
    use rt::io::AsyncReadExt;
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let mut first = TcpStream::connect(listener.local_addr().unwrap())
        .await
        .unwrap();
    let (mut second, _) = listener.accept().await.unwrap();
    let kind = |result: io::Result<()>| result.err().map(|e| e.kind());
    first.shutdown_std(std::net::Shutdown::Write).unwrap();
    let mut buf = [0; 4];
    // Each read of end of file waits for the other side's FIN.
    assert_eq!(second.read(&mut buf).await.unwrap(), 0);
    let mut seen = vec![kind(first.peer_addr().map(drop))];
    second.shutdown_std(std::net::Shutdown::Write).unwrap();
    assert_eq!(first.read(&mut buf).await.unwrap(), 0);
    seen.push(kind(first.peer_addr().map(drop)));
    seen.push(kind(first.shutdown_std(std::net::Shutdown::Read)));
    seen
}

#[test]
fn a_stream_closed_both_ways_has_no_peer_as_on_linux() {
    let runtime = rt::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let real = runtime.block_on(closed_both_ways());
    let not_connected = Some(io::ErrorKind::NotConnected);
    assert_eq!(real, [None, not_connected, not_connected]);
    let simulated = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = simulated.clone();
    let mut sim = Sim::new(1);
    sim.client("c", async move {
        *seen.lock().unwrap() = closed_both_ways().await;
        Ok::<_, BoxError>(())
    });
    sim.run().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(*simulated.lock().unwrap(), real);
}
