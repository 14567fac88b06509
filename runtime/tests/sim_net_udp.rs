//! `rt::net::UdpSocket` inside a simulation: node names as addresses,
//! simulated binds and ports, latency on the simulated clock, seeded
//! loss and duplication, partitions, holds, crashes and restarts as a
//! real socket reports them, deadlocks with held datagrams, and the same
//! trace for the same seed.

#![cfg(feature = "sim")]

use rt::io::Interest;
use rt::net::UdpSocket;
use rt::sim::{Sim, SimFailure};
use std::io;
use std::net::SocketAddr;
use std::time::Duration;

/// A host `server` that echoes every datagram on port 9000.
fn echo_host(sim: &mut Sim) {
    sim.host("server", || async {
        let socket = UdpSocket::bind("0.0.0.0:9000").await?;
        let mut buf = [0; 1500];
        loop {
            let (n, from) = socket.recv_from(&mut buf).await?;
            socket.send_to(&buf[..n], from).await?;
        }
        #[allow(unreachable_code)]
        Ok::<_, io::Error>(())
    });
}

/// Sends `msg` to the echo host and waits at most 1 s for the answer.
async fn ask(socket: &UdpSocket, msg: &[u8]) -> io::Result<Option<Vec<u8>>> {
    socket.send_to(msg, "server:9000").await?;
    let mut buf = [0; 1500];
    match rt::time::timeout(Duration::from_secs(1), socket.recv_from(&mut buf)).await {
        Ok(received) => Ok(Some(buf[..received?.0].to_vec())),
        Err(_elapsed) => Ok(None),
    }
}

#[test]
fn echo_by_host_name_with_simulated_addresses() {
    let mut sim = Sim::new(1);
    echo_host(&mut sim);
    sim.client("client", async {
        let socket = UdpSocket::bind("0.0.0.0:0").await?;
        let local = socket.local_addr()?;
        // Nodes live in RFC 5737's documentation ranges; the server was
        // registered first, the client second; ports 0 are ephemeral.
        assert_eq!(local.ip().to_string(), "192.0.2.2");
        assert!(local.port() >= 49152, "{local}");
        let start = rt::time::Instant::now();
        socket.send_to(b"ping", "server:9000").await?;
        let mut buf = [0; 16];
        let (n, from) = socket.recv_from(&mut buf).await?;
        assert_eq!(&buf[..n], b"ping");
        assert_eq!(from, "192.0.2.1:9000".parse::<SocketAddr>()?);
        // The default latency, 1 ms each way, on the simulated clock.
        assert_eq!(start.elapsed(), Duration::from_millis(2));
        // Connected: `send`/`recv` and the peer's address.
        socket.connect("server:9000").await?;
        assert_eq!(socket.peer_addr()?, from);
        socket.send(b"again").await?;
        let n = socket.recv(&mut buf).await?;
        assert_eq!(&buf[..n], b"again");
        Ok::<_, Box<dyn std::error::Error + Send + Sync>>(())
    });
    sim.run().unwrap();
}

#[test]
fn latency_is_simulated_and_rounds_up_to_the_tick() {
    for (latency, round_trip) in [
        (Duration::from_millis(25), Duration::from_millis(50)),
        (Duration::from_micros(100), Duration::from_millis(2)),
    ] {
        let mut sim = Sim::new(3);
        sim.latency(latency, latency);
        echo_host(&mut sim);
        sim.client("client", async move {
            let socket = UdpSocket::bind("0.0.0.0:0").await?;
            let start = rt::time::Instant::now();
            assert_eq!(ask(&socket, b"x").await?.as_deref(), Some(&b"x"[..]));
            assert_eq!(start.elapsed(), round_trip);
            Ok::<_, io::Error>(())
        });
        sim.run().unwrap();
    }
}

#[test]
fn set_latency_changes_one_link_during_the_run() {
    let mut sim = Sim::new(4);
    echo_host(&mut sim);
    sim.client("client", async {
        let socket = UdpSocket::bind("0.0.0.0:0").await?;
        let start = rt::time::Instant::now();
        ask(&socket, b"x").await?;
        assert_eq!(start.elapsed(), Duration::from_millis(2));
        rt::sim::set_latency(
            "client",
            "server",
            Duration::from_millis(30),
            Duration::from_millis(30),
        );
        let start = rt::time::Instant::now();
        assert_eq!(ask(&socket, b"y").await?.as_deref(), Some(&b"y"[..]));
        assert_eq!(start.elapsed(), Duration::from_millis(60));
        Ok::<_, io::Error>(())
    });
    sim.run().unwrap();
}

#[test]
fn a_partition_loses_datagrams_until_repaired() {
    let mut sim = Sim::new(5);
    echo_host(&mut sim);
    sim.client("client", async {
        let socket = UdpSocket::bind("0.0.0.0:0").await?;
        assert_eq!(ask(&socket, b"1").await?.as_deref(), Some(&b"1"[..]));
        rt::sim::partition("server", "client");
        assert_eq!(ask(&socket, b"2").await?, None, "lost across the partition");
        rt::sim::repair("server", "client");
        // The lost datagram stays lost: the next answer is for "3".
        assert_eq!(ask(&socket, b"3").await?.as_deref(), Some(&b"3"[..]));
        Ok::<_, io::Error>(())
    });
    sim.run().unwrap();
}

#[test]
fn a_hold_delays_datagrams_until_released() {
    let mut sim = Sim::new(6);
    echo_host(&mut sim);
    sim.client("client", async {
        let socket = UdpSocket::bind("0.0.0.0:0").await?;
        rt::sim::hold("server", "client");
        assert_eq!(ask(&socket, b"late").await?, None, "held");
        rt::sim::release("server", "client");
        let mut buf = [0; 16];
        let n = socket.recv(&mut buf).await?;
        assert_eq!(&buf[..n], b"late");
        Ok::<_, io::Error>(())
    });
    sim.run().unwrap();
}

#[test]
fn a_crashed_host_answers_nothing_until_it_restarts() {
    let mut sim = Sim::new(7);
    echo_host(&mut sim);
    sim.client("client", async {
        let socket = UdpSocket::bind("0.0.0.0:0").await?;
        assert_eq!(ask(&socket, b"a").await?.as_deref(), Some(&b"a"[..]));
        rt::sim::crash("server");
        assert_eq!(ask(&socket, b"b").await?, None, "nobody bound the port");
        rt::sim::restart("server");
        // The restarted server binds port 9000 afresh.
        assert_eq!(ask(&socket, b"c").await?.as_deref(), Some(&b"c"[..]));
        Ok::<_, io::Error>(())
    });
    sim.run().unwrap();
}

#[test]
fn loss_and_duplication_follow_the_settings() {
    for (loss, duplication, copies) in [(1.0, 0.0, 0), (0.0, 1.0, 2), (0.0, 0.0, 1)] {
        let mut sim = Sim::new(8);
        sim.udp_loss(loss).udp_duplication(duplication);
        sim.client("a", async move {
            let rx = UdpSocket::bind("0.0.0.0:7000").await?;
            let tx = UdpSocket::bind("0.0.0.0:0").await?;
            tx.send_to(b"d", "a:7000").await?;
            let mut buf = [0; 4];
            let mut received = 0;
            while rt::time::timeout(Duration::from_secs(1), rx.recv(&mut buf))
                .await
                .is_ok()
            {
                received += 1;
            }
            assert_eq!(received, copies, "loss {loss}, duplication {duplication}");
            Ok::<_, io::Error>(())
        });
        sim.run().unwrap();
    }
}

/// `count` datagrams over a lossy, jittery link: how many arrived.
fn lossy(seed: u64) -> (u64, usize) {
    let mut sim = Sim::new(seed);
    sim.udp_loss(0.3)
        .latency(Duration::from_millis(1), Duration::from_millis(40));
    let (tx, rx) = std::sync::mpsc::channel();
    sim.host("sink", move || {
        let tx = tx.clone();
        async move {
            let socket = UdpSocket::bind("0.0.0.0:5000").await?;
            let mut buf = [0; 4];
            loop {
                let n = socket.recv(&mut buf).await?;
                tx.send(buf[..n].to_vec()).unwrap();
            }
            #[allow(unreachable_code)]
            Ok::<_, io::Error>(())
        }
    });
    sim.client("source", async {
        let socket = UdpSocket::bind("0.0.0.0:0").await?;
        for i in 0..50u8 {
            socket.send_to(&[i], "sink:5000").await?;
            rt::task::yield_now().await;
        }
        rt::time::sleep(Duration::from_secs(1)).await;
        Ok::<_, io::Error>(())
    });
    let report = sim.run().unwrap();
    (report.trace_hash(), rx.try_iter().count())
}

#[test]
fn the_same_seed_delivers_the_same_datagrams() {
    let first = lossy(42);
    assert!(
        first.1 > 0 && first.1 < 50,
        "some lost, some not: {first:?}"
    );
    for _ in 0..20 {
        assert_eq!(lossy(42), first);
    }
    let others: std::collections::BTreeSet<_> = (0..20).map(lossy).collect();
    assert!(others.len() >= 18, "{others:?}");
}

#[test]
fn waiting_for_a_held_datagram_is_a_deadlock() {
    for held in [false, true] {
        let mut sim = Sim::new(9);
        // 50 ms in flight and no timer anywhere: only the packet in
        // flight keeps the run going.
        sim.latency(Duration::from_millis(50), Duration::from_millis(50));
        echo_host(&mut sim);
        sim.client("client", async move {
            let socket = UdpSocket::bind("0.0.0.0:0").await?;
            if held {
                rt::sim::hold("client", "server");
            }
            socket.send_to(b"?", "server:9000").await?;
            let mut buf = [0; 4];
            socket.recv(&mut buf).await?;
            Ok::<_, io::Error>(())
        });
        let outcome = sim.run();
        if held {
            let error = outcome.unwrap_err();
            match error.failure() {
                SimFailure::Deadlock { waiting } => assert_eq!(waiting, &["client"]),
                other => panic!("expected a deadlock, got {other:?}"),
            }
            // The hold keeps the datagram back when it arrives at the
            // link's end, 50 ms on: from then on nothing is in flight.
            assert_eq!(error.elapsed(), Duration::from_millis(50));
        } else {
            assert_eq!(outcome.unwrap().elapsed(), Duration::from_millis(100));
        }
    }
}

#[test]
fn what_needs_a_real_socket_is_refused() {
    let mut sim = Sim::new(10);
    sim.client("client", async {
        let socket = UdpSocket::bind("127.0.0.1:0").await?;
        let try_io = socket.try_io(Interest::READABLE, || Ok(())).unwrap_err();
        assert_eq!(try_io.kind(), io::ErrorKind::Unsupported);
        assert!(try_io.to_string().contains("UdpSocket::try_io"), "{try_io}");
        let async_io = socket.async_io(Interest::READABLE, || Ok(())).await;
        let async_io = async_io.unwrap_err();
        assert_eq!(async_io.kind(), io::ErrorKind::Unsupported);
        assert!(
            async_io.to_string().contains("UdpSocket::async_io"),
            "{async_io}"
        );
        let into = socket.into_std().unwrap_err();
        assert_eq!(into.kind(), io::ErrorKind::Unsupported);
        let unknown = UdpSocket::bind("0.0.0.0:0").await?;
        let lookup = unknown.send_to(b"x", "nowhere:1").await.unwrap_err();
        assert_eq!(lookup.kind(), io::ErrorKind::NotFound, "{lookup}");
        Ok::<_, io::Error>(())
    });
    sim.run().unwrap();
}

#[test]
fn a_socket_connected_to_the_unspecified_address_talks_to_loopback() {
    // Linux takes `0.0.0.0` as loopback, in `connect` as in `send_to`:
    // the peer is `127.0.0.1`, and the replies, which come from there,
    // reach the socket.
    let mut sim = Sim::new(1);
    sim.client("c", async {
        let server = UdpSocket::bind("0.0.0.0:53").await?;
        let client = UdpSocket::bind("0.0.0.0:0").await?;
        client.connect("0.0.0.0:53").await?;
        assert_eq!(client.peer_addr()?, "127.0.0.1:53".parse().unwrap());
        client.send(b"ask").await?;
        let mut buf = [0; 8];
        let (n, from) = server.recv_from(&mut buf).await?;
        server.send_to(&buf[..n], from).await?;
        let n = rt::time::timeout(Duration::from_secs(1), client.recv(&mut buf))
            .await
            .map_err(|_| io::Error::other("the reply from loopback never reached the socket"))??;
        assert_eq!(&buf[..n], b"ask");
        Ok::<_, io::Error>(())
    });
    sim.run().unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn a_connected_socket_hears_of_a_closed_port_as_linux_reports_it() {
    // Linux answers a datagram for a port with no socket with a port
    // unreachable; a socket connected to that port gets
    // `ConnectionRefused` from its next receive or send, once. An
    // unconnected socket (`ask` uses `send_to`) is told nothing.
    let mut sim = Sim::new(7);
    echo_host(&mut sim);
    sim.client("client", async {
        let connected = UdpSocket::bind("0.0.0.0:0").await?;
        connected.connect("server:9000").await?;
        let unconnected = UdpSocket::bind("0.0.0.0:0").await?;
        let mut buf = [0; 8];
        connected.send(b"up").await?;
        assert_eq!(connected.recv(&mut buf).await?, 2);
        rt::sim::crash("server");
        let start = rt::time::Instant::now();
        connected.send(b"down").await?;
        assert_eq!(ask(&unconnected, b"down").await?, None);
        // The answer came back after a round trip; the send that caused
        // it succeeded, the receive reports it, before anything else.
        let refused = connected.recv(&mut buf).await.unwrap_err();
        assert_eq!(
            refused.kind(),
            io::ErrorKind::ConnectionRefused,
            "{refused}"
        );
        assert!(start.elapsed() >= Duration::from_secs(1));
        // Once: the next receive waits again, and a send goes out.
        let waited = rt::time::timeout(Duration::from_millis(100), connected.recv(&mut buf)).await;
        assert!(waited.is_err(), "the error was reported twice: {waited:?}");
        connected.send(b"again").await?;
        connected.readable().await?;
        let refused = connected.send(b"and again").await.unwrap_err();
        assert_eq!(
            refused.kind(),
            io::ErrorKind::ConnectionRefused,
            "{refused}"
        );
        // On loopback, the answer takes no time.
        let local = UdpSocket::bind("127.0.0.1:0").await?;
        local.connect("127.0.0.1:9").await?;
        let sent = rt::time::Instant::now();
        local.send(b"anyone?").await?;
        let refused = local.recv(&mut buf).await.unwrap_err();
        assert_eq!(
            refused.kind(),
            io::ErrorKind::ConnectionRefused,
            "{refused}"
        );
        assert_eq!(sent.elapsed(), Duration::ZERO);
        rt::sim::restart("server");
        connected.send(b"back").await?;
        assert_eq!(connected.recv(&mut buf).await?, 4);
        Ok::<_, io::Error>(())
    });
    sim.run().unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn a_socket_kept_past_its_run_fails_in_the_next_one() {
    // A socket in a `static` (here, a slot the test keeps) outlives its
    // run. Used in a later run, it must fail, not send into a network
    // nothing drives (lost without an error) and wait forever there, so
    // that a run's result never depends on the runs before it.
    let kept = std::sync::Arc::new(std::sync::Mutex::new(None::<UdpSocket>));
    let slot = kept.clone();
    let mut sim = Sim::new(1);
    sim.client("client", async move {
        *slot.lock().unwrap() = Some(UdpSocket::bind("0.0.0.0:5000").await?);
        Ok::<_, io::Error>(())
    });
    sim.run().unwrap();
    let old = kept.lock().unwrap().take().unwrap();
    let mut sim = Sim::new(1);
    sim.client("client", async move {
        let sent = old.send_to(b"x", "127.0.0.1:5001").await.unwrap_err();
        assert_eq!(sent.kind(), io::ErrorKind::NotConnected, "{sent}");
        assert!(sent.to_string().contains("its simulation ended"), "{sent}");
        let mut buf = [0; 4];
        let received = old.recv_from(&mut buf).await.unwrap_err();
        assert_eq!(received.kind(), io::ErrorKind::NotConnected, "{received}");
        Ok::<_, io::Error>(())
    });
    sim.run().unwrap_or_else(|e| panic!("{e}"));
}
