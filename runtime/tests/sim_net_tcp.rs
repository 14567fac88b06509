//! `rt::net::TcpListener` and `TcpStream` inside a simulation: host names
//! as addresses, simulated binds and ports, and the faults (partitions,
//! holds, crashes, restarts) reported as Linux's sockets report them;
//! several clients on one listener, several tasks on one stream, the same
//! trace for the same seed, deadlocks on held streams.

#![cfg(feature = "sim")]

use rt::io::{AsyncReadExt, AsyncWriteExt};
use rt::net::{TcpListener, TcpStream};
use rt::sim::{Sim, SimFailure};
use std::io;
use std::net::SocketAddr;
use std::time::Duration;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// A host `server` that echoes every connection on port 8080 until its
/// peer ends it, one task per connection.
fn echo_host(sim: &mut Sim) {
    sim.host("server", || async {
        let listener = TcpListener::bind("server:8080").await?;
        loop {
            let (mut stream, _) = listener.accept().await?;
            rt::spawn(async move {
                let mut buf = [0; 1024];
                loop {
                    match stream.read(&mut buf).await {
                        Ok(0) | Err(_) => break,
                        Ok(n) => {
                            if stream.write_all(&buf[..n]).await.is_err() {
                                break;
                            }
                        }
                    }
                }
            });
        }
        #[allow(unreachable_code)]
        Ok::<_, io::Error>(())
    });
}

/// Sends `msg` on `stream` and reads as many bytes back.
async fn round_trip(stream: &mut TcpStream, msg: &[u8]) -> io::Result<Vec<u8>> {
    stream.write_all(msg).await?;
    let mut back = vec![0; msg.len()];
    stream.read_exact(&mut back).await?;
    Ok(back)
}

#[test]
fn echo_by_host_name_with_simulated_addresses() {
    let mut sim = Sim::new(1);
    echo_host(&mut sim);
    sim.client("client", async {
        let start = rt::time::Instant::now();
        let mut stream = TcpStream::connect("server:8080").await?;
        // A handshake is a round trip: 1 ms each way by default.
        assert_eq!(start.elapsed(), Duration::from_millis(2));
        assert_eq!(stream.peer_addr()?, "192.0.2.1:8080".parse::<SocketAddr>()?);
        let local = stream.local_addr()?;
        assert_eq!(local.ip().to_string(), "192.0.2.2");
        assert!(local.port() >= 49152, "an ephemeral port: {local}");
        assert_eq!(round_trip(&mut stream, b"hello").await?, b"hello");
        // The other spellings of an address reach the same listener.
        let by_ip = TcpStream::connect("192.0.2.1:8080").await?;
        let by_pair = TcpStream::connect(("server", 8080)).await?;
        assert_eq!(by_ip.peer_addr()?, by_pair.peer_addr()?);
        Ok::<_, BoxError>(())
    });
    sim.run().unwrap();
}

#[test]
fn binds_to_any_loopback_and_ephemeral_ports_and_localhost_is_the_node_itself() {
    let mut sim = Sim::new(2);
    sim.client("solo", async {
        let any = TcpListener::bind("0.0.0.0:7000").await?;
        assert_eq!(any.local_addr()?, "192.0.2.1:7000".parse::<SocketAddr>()?);
        let ephemeral = TcpListener::bind("127.0.0.1:0").await?;
        assert!(ephemeral.local_addr()?.port() >= 49152);
        let taken = TcpListener::bind("0.0.0.0:7000").await.unwrap_err();
        assert_eq!(taken.kind(), io::ErrorKind::AddrInUse);
        // `localhost` is 127.0.0.1, the node itself.
        let resolved: Vec<_> = rt::net::lookup_host("localhost:7000").await?.collect();
        assert_eq!(resolved, ["127.0.0.1:7000".parse::<SocketAddr>()?]);
        let client = rt::spawn(async { TcpStream::connect("localhost:7000").await });
        let (accepted, peer) = any.accept().await?;
        let client = client.await??;
        assert_eq!(peer, client.local_addr()?);
        assert_eq!(peer.ip().to_string(), "127.0.0.1");
        assert_eq!(accepted.local_addr()?, client.peer_addr()?);
        Ok::<_, BoxError>(())
    });
    sim.run().unwrap();
}

#[test]
fn a_connect_to_a_port_nobody_listens_on_is_refused() {
    let mut sim = Sim::new(3);
    echo_host(&mut sim);
    sim.client("client", async {
        let refused = TcpStream::connect("server:9").await.unwrap_err();
        assert_eq!(
            refused.kind(),
            io::ErrorKind::ConnectionRefused,
            "{refused}"
        );
        let unknown = TcpStream::connect("nowhere:80").await.unwrap_err();
        assert_eq!(unknown.kind(), io::ErrorKind::NotFound, "{unknown}");
        Ok::<_, BoxError>(())
    });
    sim.run().unwrap();
}

#[test]
fn a_partition_holds_the_bytes_until_repaired_and_a_connect_across_it_times_out() {
    let mut sim = Sim::new(4);
    echo_host(&mut sim);
    sim.client("client", async {
        let mut stream = TcpStream::connect("server:8080").await?;
        assert_eq!(round_trip(&mut stream, b"before").await?, b"before");
        rt::sim::partition("client", "server");
        stream.write_all(b"during").await?;
        let mut buf = [0; 6];
        let waited = rt::time::timeout(Duration::from_secs(30), stream.read_exact(&mut buf)).await;
        assert!(waited.is_err(), "nothing crosses a partition");
        // A new connection across it times out after the connect timeout.
        let start = rt::time::Instant::now();
        let timed_out = TcpStream::connect("server:8080").await.unwrap_err();
        assert_eq!(timed_out.kind(), io::ErrorKind::TimedOut, "{timed_out}");
        assert_eq!(start.elapsed(), Duration::from_secs(5));
        rt::sim::repair("client", "server");
        // The held bytes go through, in order, and the echo comes back.
        stream.read_exact(&mut buf).await?;
        assert_eq!(&buf, b"during");
        assert_eq!(round_trip(&mut stream, b"after").await?, b"after");
        Ok::<_, BoxError>(())
    });
    sim.run().unwrap();
}

#[test]
fn a_connect_timeout_of_duration_max_is_none() {
    let mut sim = Sim::new(4);
    sim.connect_timeout(Duration::MAX);
    echo_host(&mut sim);
    sim.client("client", async {
        // Not at the run's first tick: the deadline is counted from now.
        rt::time::sleep(Duration::from_millis(3)).await;
        rt::sim::partition("client", "server");
        let connect = rt::spawn(TcpStream::connect("server:8080"));
        rt::time::sleep(Duration::from_secs(600)).await;
        rt::sim::repair("client", "server");
        let mut stream = connect.await??;
        assert_eq!(round_trip(&mut stream, b"late").await?, b"late");
        Ok::<_, BoxError>(())
    });
    sim.run().unwrap_or_else(|e| panic!("{e}"));

    // With nothing left to heal the link, the wait is a deadlock, not a
    // jump to the end of time.
    let mut sim = Sim::new(4);
    sim.connect_timeout(Duration::MAX);
    echo_host(&mut sim);
    sim.client("client", async {
        rt::time::sleep(Duration::from_millis(3)).await;
        rt::sim::partition("client", "server");
        TcpStream::connect("server:8080").await?;
        Ok::<_, BoxError>(())
    });
    let stuck = sim.run().unwrap_err();
    assert!(
        matches!(stuck.failure(), SimFailure::Deadlock { waiting } if waiting == &["client"]),
        "{stuck}"
    );
}

#[test]
fn cutting_every_pair_of_nodes_leaves_each_nodes_loopback_alone() {
    let mut sim = Sim::new(4);
    sim.connect_timeout(Duration::from_secs(1));
    echo_host(&mut sim);
    sim.client("client", async {
        // A loop over every pair meets each node with itself: loopback
        // is no link, so neither a partition nor a hold touches it.
        for a in ["client", "server"] {
            for b in ["client", "server"] {
                rt::sim::partition(a, b);
                rt::sim::hold(a, b);
            }
        }
        let across = TcpStream::connect("server:8080").await.unwrap_err();
        assert_eq!(across.kind(), io::ErrorKind::TimedOut, "{across}");
        let listener = TcpListener::bind("127.0.0.1:9000").await?;
        let (mut stream, (mut accepted, _)) =
            futures::future::try_join(TcpStream::connect("localhost:9000"), listener.accept())
                .await?;
        stream.write_all(b"self").await?;
        let mut buf = [0; 4];
        accepted.read_exact(&mut buf).await?;
        assert_eq!(&buf, b"self");
        let socket = rt::net::UdpSocket::bind("127.0.0.1:0").await?;
        socket.send_to(b"me", socket.local_addr()?).await?;
        let n = rt::time::timeout(Duration::from_secs(1), socket.recv(&mut buf)).await??;
        assert_eq!(&buf[..n], b"me");
        Ok::<_, BoxError>(())
    });
    sim.run().unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn a_hold_delays_a_stream_and_release_delivers_in_order() {
    let mut sim = Sim::new(5);
    echo_host(&mut sim);
    sim.client("client", async {
        let mut stream = TcpStream::connect("server:8080").await?;
        rt::sim::hold("client", "server");
        for chunk in [&b"one "[..], b"two ", b"three"] {
            stream.write_all(chunk).await?;
        }
        rt::time::sleep(Duration::from_secs(1)).await;
        rt::sim::release("client", "server");
        let mut got = [0; 13];
        stream.read_exact(&mut got).await?;
        assert_eq!(&got, b"one two three");
        Ok::<_, BoxError>(())
    });
    sim.run().unwrap();
}

#[test]
fn a_server_crash_mid_stream_resets_the_client_and_the_restarted_server_accepts_again() {
    let mut sim = Sim::new(6);
    // The server reads a 4-byte header, then dies before reading the
    // body: the crash finds bytes unread, so its kernel resets.
    sim.host("server", || async {
        let listener = TcpListener::bind("0.0.0.0:8080").await?;
        loop {
            let (mut stream, _) = listener.accept().await?;
            let mut header = [0; 4];
            stream.read_exact(&mut header).await?;
            stream.write_all(b"ok").await?;
            if &header == b"boom" {
                std::future::pending::<()>().await;
            }
        }
        #[allow(unreachable_code)]
        Ok::<_, io::Error>(())
    });
    sim.client("client", async {
        let mut stream = TcpStream::connect("server:8080").await?;
        stream.write_all(b"boom").await?;
        let mut ok = [0; 2];
        stream.read_exact(&mut ok).await?;
        stream.write_all(b"body the server never reads").await?;
        rt::time::sleep(Duration::from_millis(10)).await;
        rt::sim::crash("server");
        let reset = stream.read(&mut [0; 8]).await.unwrap_err();
        assert_eq!(reset.kind(), io::ErrorKind::ConnectionReset, "{reset}");
        // The error is reported once, as Linux does; then end of file,
        // and writes find the pipe broken.
        assert_eq!(stream.read(&mut [0; 8]).await?, 0);
        let broken = stream.write_all(b"more").await.unwrap_err();
        assert_eq!(broken.kind(), io::ErrorKind::BrokenPipe, "{broken}");
        // Down: nothing listens there.
        let refused = TcpStream::connect("server:8080").await.unwrap_err();
        assert_eq!(refused.kind(), io::ErrorKind::ConnectionRefused);
        rt::sim::restart("server");
        let mut again = TcpStream::connect("server:8080").await?;
        again.write_all(b"fine").await?;
        again.read_exact(&mut ok).await?;
        assert_eq!(&ok, b"ok");
        Ok::<_, BoxError>(())
    });
    sim.run().unwrap();
}

#[test]
fn a_crash_with_nothing_unread_ends_the_stream_and_the_next_write_is_answered_by_a_reset() {
    let mut sim = Sim::new(7);
    echo_host(&mut sim);
    sim.client("client", async {
        let mut stream = TcpStream::connect("server:8080").await?;
        assert_eq!(round_trip(&mut stream, b"x").await?, b"x");
        rt::sim::crash("server");
        // A killed process's kernel closes its sockets: end of file.
        assert_eq!(stream.read(&mut [0; 8]).await?, 0);
        // The write goes out; the dead end answers with a reset, which
        // fails the next write (`EPIPE`: the peer had ended its side).
        stream.write_all(b"anyone?").await?;
        rt::time::sleep(Duration::from_millis(10)).await;
        let broken = stream.write_all(b"again").await.unwrap_err();
        assert_eq!(broken.kind(), io::ErrorKind::BrokenPipe, "{broken}");
        let gone = stream.peer_addr().unwrap_err();
        assert_eq!(gone.kind(), io::ErrorKind::NotConnected);
        Ok::<_, BoxError>(())
    });
    sim.run().unwrap();
}

#[test]
fn half_close_delivers_end_of_file_after_the_buffered_bytes_and_the_reply_still_flows() {
    let mut sim = Sim::new(8);
    sim.host("server", || async {
        let listener = TcpListener::bind("0.0.0.0:8080").await?;
        let (mut stream, _) = listener.accept().await?;
        let mut request = Vec::new();
        stream.read_to_end(&mut request).await?;
        stream
            .write_all(format!("{} bytes", request.len()).as_bytes())
            .await?;
        stream.close().await?;
        Ok::<_, io::Error>(())
    });
    sim.client("client", async {
        let mut stream = TcpStream::connect("server:8080").await?;
        stream.write_all(&[7; 100_000]).await?;
        stream.shutdown_std(std::net::Shutdown::Write)?;
        let write_after = stream.write(b"late").await.unwrap_err();
        assert_eq!(write_after.kind(), io::ErrorKind::BrokenPipe);
        let mut reply = String::new();
        stream.read_to_string(&mut reply).await?;
        assert_eq!(reply, "100000 bytes");
        Ok::<_, BoxError>(())
    });
    sim.run().unwrap();
}

#[test]
fn dropping_a_stream_with_unread_bytes_resets_the_peer_as_linux_does() {
    let mut sim = Sim::new(9);
    sim.host("server", || async {
        let listener = TcpListener::bind("0.0.0.0:8080").await?;
        let (mut stream, _) = listener.accept().await?;
        let mut first = [0; 1];
        stream.read_exact(&mut first).await?;
        stream.write_all(b"bye").await?;
        rt::time::sleep(Duration::from_millis(5)).await;
        drop(stream); // the rest of the request is unread
        std::future::pending::<()>().await;
        Ok::<_, io::Error>(())
    });
    sim.client("client", async {
        let mut stream = TcpStream::connect("server:8080").await?;
        stream.write_all(b"12345").await?;
        let mut bye = [0; 3];
        stream.read_exact(&mut bye).await?;
        let reset = stream.read(&mut [0; 8]).await.unwrap_err();
        assert_eq!(reset.kind(), io::ErrorKind::ConnectionReset);
        Ok::<_, BoxError>(())
    });
    sim.run().unwrap();
}

#[test]
fn many_clients_share_one_listener() {
    let mut sim = Sim::new(10);
    echo_host(&mut sim);
    for i in 0..8u8 {
        sim.client(format!("client-{i}"), async move {
            let mut stream = TcpStream::connect("server:8080").await?;
            for round in 0..5u8 {
                let msg = [i, round, i ^ round];
                assert_eq!(round_trip(&mut stream, &msg).await?, msg);
            }
            Ok::<_, BoxError>(())
        });
    }
    sim.run().unwrap();
}

#[test]
fn acceptor_tasks_share_a_listener_and_halves_of_a_stream_run_on_different_tasks() {
    let mut sim = Sim::new(11);
    sim.host("server", || async {
        let listener = std::sync::Arc::new(TcpListener::bind("0.0.0.0:8080").await?);
        let mut acceptors = Vec::new();
        for _ in 0..3 {
            let listener = listener.clone();
            acceptors.push(rt::spawn(async move {
                let (stream, _) = listener.accept().await?;
                // Split: a reader task counts, a writer task answers.
                let (mut read, mut write) = stream.into_split();
                let (tx, mut rx) = rt::sync::mpsc::channel::<usize>(4);
                let reader = rt::spawn(async move {
                    let mut buf = [0; 64];
                    loop {
                        let n = read.read(&mut buf).await?;
                        if n == 0 || tx.send(n).await.is_err() {
                            return Ok::<_, io::Error>(());
                        }
                    }
                });
                while let Some(n) = rx.recv().await {
                    write.write_all(format!("{n};").as_bytes()).await?;
                }
                write.close().await?;
                reader.await.map_err(io::Error::other)?
            }));
        }
        for acceptor in acceptors {
            acceptor.await.map_err(io::Error::other)??;
        }
        Ok::<_, io::Error>(())
    });
    for name in ["a", "b", "c"] {
        sim.client(name, async {
            let mut stream = TcpStream::connect("server:8080").await?;
            stream.write_all(b"12345").await?;
            rt::time::sleep(Duration::from_millis(20)).await;
            stream.write_all(b"678").await?;
            stream.close().await?;
            let mut answer = String::new();
            stream.read_to_string(&mut answer).await?;
            assert_eq!(answer, "5;3;");
            Ok::<_, BoxError>(())
        });
    }
    sim.run().unwrap();
}

/// A TCP scenario with jittery links: its trace hash and what the
/// clients saw, in the order they saw it.
fn scenario(seed: u64) -> (u64, Vec<String>) {
    let mut sim = Sim::new(seed);
    sim.latency(Duration::from_millis(1), Duration::from_millis(15));
    echo_host(&mut sim);
    let (tx, rx) = std::sync::mpsc::channel();
    for name in ["a", "b", "c"] {
        let tx = tx.clone();
        sim.client(name, async move {
            let mut stream = TcpStream::connect("server:8080").await?;
            for i in 0..4 {
                let msg = format!("{name}{i}");
                let back = round_trip(&mut stream, msg.as_bytes()).await?;
                tx.send(String::from_utf8(back)?).unwrap();
            }
            Ok::<_, BoxError>(())
        });
    }
    let report = sim.run().unwrap();
    (report.trace_hash(), rx.try_iter().collect())
}

#[test]
fn the_same_seed_runs_the_same_tcp_schedule_100_times() {
    let first = scenario(77);
    assert_eq!(first.1.len(), 12);
    for _ in 0..100 {
        assert_eq!(scenario(77), first);
    }
    let hashes: std::collections::BTreeSet<_> = (0..100).map(|seed| scenario(seed).0).collect();
    assert!(hashes.len() >= 90, "{} distinct of 100", hashes.len());
}

#[test]
fn waiting_on_a_held_stream_is_a_deadlock() {
    for held in [false, true] {
        let mut sim = Sim::new(12);
        echo_host(&mut sim);
        sim.client("client", async move {
            let mut stream = TcpStream::connect("server:8080").await?;
            if held {
                rt::sim::hold("client", "server");
            }
            round_trip(&mut stream, b"?").await?;
            Ok::<_, BoxError>(())
        });
        let outcome = sim.run();
        if held {
            let error = outcome.unwrap_err();
            match error.failure() {
                SimFailure::Deadlock { waiting } => assert_eq!(waiting, &["client"]),
                other => panic!("expected a deadlock, got {other:?}"),
            }
            assert!(error.to_string().contains("seed 12"), "{error}");
        } else {
            outcome.unwrap();
        }
    }
}
