//! `rt::net::UdpSocket`'s readiness, `try_*`, `poll_*` and peeking
//! inside a simulation, with a real socket's semantics: `WouldBlock` with
//! nothing queued, readiness that completes when a datagram arrives (and
//! never across a partition), peeks that leave the datagram queued, a
//! connected socket that takes only its peer's datagrams, several tasks
//! sharing one socket, and the same trace for the same seed.

#![cfg(feature = "sim")]

use futures::FutureExt;
use rt::io::Interest;
use rt::net::UdpSocket;
use rt::sim::Sim;
use std::collections::BTreeSet;
use std::future::poll_fn;
use std::io;
use std::mem::MaybeUninit;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The address of `name:port`, as the simulation resolves it.
async fn addr_of(name: &str, port: u16) -> io::Result<SocketAddr> {
    let mut addrs = rt::net::lookup_host((name, port)).await?;
    Ok(addrs.next().expect("a node name resolves"))
}

/// A host `name` that sends `msg` from port `port` to `receiver:6000`
/// after `delay`, then idles.
fn sender(sim: &mut Sim, name: &'static str, port: u16, delay: u64, msg: &'static [u8]) {
    sim.host(name, move || async move {
        let socket = UdpSocket::bind(("0.0.0.0", port)).await?;
        rt::time::sleep(Duration::from_millis(delay)).await;
        socket.send_to(msg, "receiver:6000").await?;
        std::future::pending::<()>().await;
        Ok::<_, io::Error>(())
    });
}

/// What one receiving task saw: a datagram's first byte, or a
/// `WouldBlock` after its readiness (another task took the datagram).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Seen {
    Datagram(u8),
    WouldBlock,
}

/// Two tasks of host `sink` share one socket (an `Arc`), each looping on
/// `readable`, a yield, then `try_recv_from`; a client sends 20 datagrams. Returns
/// what each task saw, in order, and the run's trace hash.
fn two_readers(seed: u64) -> (Vec<(usize, Seen)>, u64) {
    let mut sim = Sim::new(seed);
    sim.latency(Duration::from_millis(1), Duration::from_millis(5));
    let (tx, rx) = std::sync::mpsc::channel();
    sim.host("sink", move || {
        let tx = tx.clone();
        async move {
            let socket = Arc::new(UdpSocket::bind("0.0.0.0:7000").await?);
            let mut readers = Vec::new();
            for reader in 0..2 {
                let (socket, tx) = (socket.clone(), tx.clone());
                readers.push(rt::spawn(async move {
                    let mut buf = [0; 8];
                    loop {
                        socket.readable().await?;
                        // Work between the readiness and the receive:
                        // the other reader may take the datagram first.
                        rt::task::yield_now().await;
                        match socket.try_recv_from(&mut buf) {
                            Ok((n, _)) => {
                                assert_eq!(n, 1);
                                tx.send((reader, Seen::Datagram(buf[0]))).unwrap();
                            }
                            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                                tx.send((reader, Seen::WouldBlock)).unwrap();
                            }
                            Err(e) => return Err::<(), _>(e),
                        }
                    }
                }));
            }
            for reader in readers {
                reader.await.map_err(io::Error::other)??;
            }
            Ok::<_, io::Error>(())
        }
    });
    sim.client("source", async {
        let socket = UdpSocket::bind("0.0.0.0:0").await?;
        socket.connect("sink:7000").await?;
        for i in 0..20u8 {
            socket.writable().await?;
            assert_eq!(socket.try_send(&[i])?, 1);
            if i % 3 == 0 {
                rt::time::sleep(Duration::from_millis(2)).await;
            }
        }
        rt::time::sleep(Duration::from_secs(1)).await;
        Ok::<_, io::Error>(())
    });
    let report = sim.run().unwrap();
    (rx.try_iter().collect(), report.trace_hash())
}

#[test]
fn readable_then_try_recv_on_two_tasks_sharing_one_socket() {
    let mut would_block = 0;
    let mut both_received = 0;
    for seed in 0..20 {
        let (seen, _) = two_readers(seed);
        let datagrams: Vec<u8> = seen
            .iter()
            .filter_map(|(_, seen)| match seen {
                Seen::Datagram(byte) => Some(*byte),
                Seen::WouldBlock => None,
            })
            .collect();
        let mut sorted = datagrams.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..20).collect::<Vec<_>>(), "each exactly once");
        would_block += seen.iter().filter(|(_, s)| *s == Seen::WouldBlock).count();
        let readers: BTreeSet<_> = seen
            .iter()
            .filter(|(_, s)| matches!(s, Seen::Datagram(_)))
            .map(|(reader, _)| reader)
            .collect();
        if readers.len() == 2 {
            both_received += 1;
        }
    }
    // A datagram wakes both readers; when both see it readable, the one
    // that receives second finds the queue empty: `WouldBlock`, and it
    // waits again.
    assert!(
        would_block > 0,
        "the race between the readers never happened"
    );
    assert!(both_received > 0, "one reader always took everything");
}

#[test]
fn try_calls_would_block_with_nothing_queued() {
    let mut sim = Sim::new(2);
    sim.client("client", async {
        let a = UdpSocket::bind("0.0.0.0:0").await?;
        let b = UdpSocket::bind("0.0.0.0:0").await?;
        let mut buf = [0; 8];
        for err in [
            b.try_recv(&mut buf).unwrap_err(),
            b.try_recv_from(&mut buf).unwrap_err(),
            b.try_peek(&mut buf).unwrap_err(),
            b.try_peek_from(&mut buf).unwrap_err(),
            b.try_peek_sender().unwrap_err(),
        ] {
            assert_eq!(err.kind(), io::ErrorKind::WouldBlock, "{err}");
        }
        assert!(b.readable().now_or_never().is_none(), "nothing to read");
        // Always writable: the sends go at once.
        a.writable().now_or_never().expect("writable at once")?;
        let ready = a.ready(Interest::WRITABLE).now_or_never().unwrap()?;
        assert!(ready.is_writable() && !ready.is_readable());
        poll_fn(|cx| a.poll_send_ready(cx))
            .now_or_never()
            .unwrap()?;
        a.connect(b.local_addr()?).await?;
        b.connect(a.local_addr()?).await?;
        assert_eq!(a.try_send(b"one")?, 3);
        // In flight for the link's latency: still nothing to receive.
        let err = b.try_recv(&mut buf).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::WouldBlock);
        b.readable().await?;
        let ready = b.ready(Interest::READABLE | Interest::WRITABLE).await?;
        assert!(ready.is_readable() && ready.is_writable());
        assert_eq!(b.try_recv(&mut buf)?, 3);
        assert_eq!(&buf[..3], b"one");
        let err = b.try_recv(&mut buf).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::WouldBlock, "taken");
        // `try_send_to` and the `poll_*` forms.
        assert_eq!(b.try_send_to(b"two", a.local_addr()?)?, 3);
        poll_fn(|cx| a.poll_recv_ready(cx)).await?;
        let n = poll_fn(|cx| a.poll_recv(cx, &mut buf)).await?;
        assert_eq!(&buf[..n], b"two");
        assert_eq!(poll_fn(|cx| a.poll_send(cx, b"3")).await?, 1);
        let to = b.local_addr()?;
        assert_eq!(poll_fn(|cx| a.poll_send_to(cx, b"45", to)).await?, 2);
        let mut uninit = [MaybeUninit::<u8>::uninit(); 8];
        assert_eq!(poll_fn(|cx| b.poll_recv_uninit(cx, &mut uninit)).await?, 1);
        let (n, from) = poll_fn(|cx| b.poll_recv_from(cx, &mut buf)).await?;
        assert_eq!((&buf[..n], from), (&b"45"[..], a.local_addr()?));
        Ok::<_, BoxError>(())
    });
    sim.run().unwrap();
}

#[test]
fn peek_then_recv_returns_the_same_datagram() {
    let mut sim = Sim::new(3);
    sender(&mut sim, "stranger", 7002, 0, b"noise");
    sim.client("receiver", async {
        let socket = UdpSocket::bind("0.0.0.0:6000").await?;
        let me = socket.local_addr()?;
        socket.connect(me).await?;
        // The stranger's datagram arrives first (1 ms): a socket
        // connected to itself does not take it.
        rt::time::sleep(Duration::from_millis(5)).await;
        let err = socket.try_peek(&mut [0; 8]).unwrap_err();
        assert_eq!(
            err.kind(),
            io::ErrorKind::WouldBlock,
            "the stranger's is dropped"
        );
        socket.send(b"first").await?;
        socket.send(b"second").await?;
        let mut buf = [0; 16];
        assert_eq!(socket.peek(&mut buf).await?, 5);
        assert_eq!(&buf[..5], b"first");
        // A peek leaves it queued, and a short buffer truncates the peek
        // only.
        let mut short = [0; 3];
        assert_eq!(socket.try_peek(&mut short)?, 3);
        assert_eq!(&short, b"fir");
        assert_eq!(poll_fn(|cx| socket.poll_peek(cx, &mut buf)).await?, 5);
        let mut uninit = [MaybeUninit::<u8>::uninit(); 2];
        assert_eq!(
            poll_fn(|cx| socket.poll_peek_uninit(cx, &mut uninit)).await?,
            2
        );
        assert_eq!(socket.recv(&mut buf).await?, 5);
        assert_eq!(&buf[..5], b"first");
        assert_eq!(socket.try_peek(&mut buf)?, 6);
        assert_eq!(socket.try_recv(&mut buf)?, 6);
        assert_eq!(&buf[..6], b"second");
        Ok::<_, BoxError>(())
    });
    sim.run().unwrap();
}

#[test]
fn peek_from_and_peek_sender_give_the_sender_address() {
    let mut sim = Sim::new(4);
    sender(&mut sim, "alpha", 7001, 0, b"from-a");
    sender(&mut sim, "beta", 7002, 10, b"from-b");
    sim.client("receiver", async {
        let socket = UdpSocket::bind("0.0.0.0:6000").await?;
        let (alpha, beta) = (addr_of("alpha", 7001).await?, addr_of("beta", 7002).await?);
        let mut buf = [0; 16];
        let (n, from) = socket.peek_from(&mut buf).await?;
        assert_eq!((&buf[..n], from), (&b"from-a"[..], alpha));
        assert_eq!(socket.peek_sender().await?, alpha);
        assert_eq!(socket.try_peek_sender()?, alpha);
        assert_eq!(poll_fn(|cx| socket.poll_peek_sender(cx)).await?, alpha);
        assert_eq!(socket.try_peek_from(&mut buf)?, (6, alpha));
        let mut uninit = [MaybeUninit::<u8>::uninit(); 16];
        let peeked = poll_fn(|cx| socket.poll_peek_from_uninit(cx, &mut uninit)).await?;
        assert_eq!(peeked, (6, alpha));
        assert_eq!(socket.recv_from(&mut buf).await?, (6, alpha));
        // Beta's comes 10 ms later: the peeks wait for it.
        let start = rt::time::Instant::now();
        let (n, from) = poll_fn(|cx| socket.poll_peek_from(cx, &mut buf)).await?;
        assert_eq!((&buf[..n], from), (&b"from-b"[..], beta));
        assert!(
            start.elapsed() >= Duration::from_millis(9),
            "{:?}",
            start.elapsed()
        );
        let received = poll_fn(|cx| socket.poll_recv_from_uninit(cx, &mut uninit)).await?;
        assert_eq!(received, (6, beta));
        Ok::<_, BoxError>(())
    });
    sim.run().unwrap();
}

#[test]
fn no_readiness_across_a_partition_until_it_is_repaired() {
    let mut sim = Sim::new(5);
    sim.host("server", || async {
        let socket = UdpSocket::bind("0.0.0.0:9000").await?;
        let mut buf = [0; 64];
        loop {
            socket.readable().await?;
            match socket.try_recv_from(&mut buf) {
                Ok((n, from)) => {
                    socket.writable().await?;
                    socket.try_send_to(&buf[..n], from)?;
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(e),
            }
        }
        #[allow(unreachable_code)]
        Ok::<_, io::Error>(())
    });
    sim.client("client", async {
        let socket = UdpSocket::bind("0.0.0.0:0").await?;
        socket.connect("server:9000").await?;
        let mut buf = [0; 64];
        rt::sim::partition("client", "server");
        socket.try_send(b"lost")?;
        let start = rt::time::Instant::now();
        let waited = rt::time::timeout(Duration::from_secs(1), socket.readable()).await;
        assert!(waited.is_err(), "no datagram crosses a partition");
        assert_eq!(start.elapsed(), Duration::from_secs(1), "the timeout fired");
        let polled = poll_fn(|cx| socket.poll_recv_ready(cx));
        assert!(
            rt::time::timeout(Duration::from_secs(1), polled)
                .await
                .is_err()
        );
        let ready = socket.ready(Interest::READABLE);
        assert!(
            rt::time::timeout(Duration::from_secs(1), ready)
                .await
                .is_err()
        );
        let err = socket.try_recv(&mut buf).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::WouldBlock);
        rt::sim::repair("client", "server");
        socket.try_send(b"found")?;
        let start = rt::time::Instant::now();
        rt::time::timeout(Duration::from_secs(1), socket.readable())
            .await
            .expect("the echo arrives once repaired")?;
        assert_eq!(start.elapsed(), Duration::from_millis(2), "one round trip");
        let n = socket.try_recv(&mut buf)?;
        assert_eq!(&buf[..n], b"found");
        Ok::<_, BoxError>(())
    });
    sim.run().unwrap();
}

/// A pinger that sends with `try_send` and waits with `readable` and
/// `try_recv`, with a timeout, over a lossy, jittery link to an echo
/// server that peeks before it receives: the answers it got, and the
/// run's trace hash.
fn lossy_pings(seed: u64) -> (Vec<Option<u8>>, u64) {
    let mut sim = Sim::new(seed);
    sim.udp_loss(0.2)
        .udp_duplication(0.1)
        .latency(Duration::from_millis(1), Duration::from_millis(30));
    sim.host("server", || async {
        let socket = UdpSocket::bind("0.0.0.0:9000").await?;
        let mut buf = [0; 8];
        loop {
            let from = socket.peek_sender().await?;
            let (n, really) = socket.try_recv_from(&mut buf)?;
            assert_eq!(from, really);
            socket.try_send_to(&buf[..n], from)?;
        }
        #[allow(unreachable_code)]
        Ok::<_, io::Error>(())
    });
    let (tx, rx) = std::sync::mpsc::channel();
    sim.client("client", async move {
        let socket = UdpSocket::bind("0.0.0.0:0").await?;
        socket.connect("server:9000").await?;
        let mut buf = [0; 8];
        for i in 0..30u8 {
            socket.try_send(&[i])?;
            let answer = rt::time::timeout(Duration::from_millis(40), async {
                loop {
                    socket.readable().await?;
                    match socket.try_recv(&mut buf) {
                        Ok(_) => return Ok::<_, io::Error>(buf[0]),
                        Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                        Err(e) => return Err(e),
                    }
                }
            })
            .await;
            tx.send(answer.ok().transpose()?).unwrap();
        }
        Ok::<_, io::Error>(())
    });
    let report = sim.run().unwrap();
    (rx.try_iter().collect(), report.trace_hash())
}

#[test]
fn the_same_seed_gives_the_same_trace_with_readiness_and_try_calls() {
    let first = lossy_pings(77);
    let answered = first.0.iter().flatten().count();
    assert!(
        answered > 0 && answered < 30,
        "some lost, some not: {first:?}"
    );
    for _ in 0..20 {
        assert_eq!(lossy_pings(77), first);
    }
    let hashes: BTreeSet<_> = (0..20).map(|seed| lossy_pings(seed).1).collect();
    assert!(hashes.len() >= 18, "{hashes:?}");
    let readers = two_readers(11);
    assert_eq!(two_readers(11), readers);
}
