//! The network model alone, on a hand-driven clock.

use super::{Binding, NetConfig, Network, Side, Take, address_of};
use crate::sim::rng::SimRng;
use std::io;
use std::net::Shutdown;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll, Wake, Waker};

/// A waker that counts its wakes.
struct Count(AtomicUsize);

impl Wake for Count {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

fn counter() -> (Arc<Count>, Waker) {
    let count = Arc::new(Count(AtomicUsize::new(0)));
    (count.clone(), Waker::from(count))
}

fn network(config: NetConfig) -> Network {
    let names = ["server", "client", "other"].map(String::from);
    Network::new(config, SimRng::new(7, 2), &names)
}

/// Runs the network to `now`, waking what it released.
fn advance(net: &mut Network, now: u64) {
    net.advance(now);
    net.woken.drain(..).for_each(Waker::wake);
}

fn addr(text: &str) -> SocketAddr {
    text.parse().unwrap()
}

const SERVER: usize = 0;
const CLIENT: usize = 1;

/// A connection from CLIENT to a listener on SERVER:8080, accepted.
fn connected(net: &mut Network) -> (usize, u64) {
    let (_, listener) = net.tcp_listen(SERVER, addr("0.0.0.0:8080")).unwrap();
    let to = net.resolve("server", 8080).unwrap();
    let conn = net.tcp_connect(CLIENT, to, 0).unwrap();
    let mut now = 0;
    while net.tcp_poll_connect(conn, Waker::noop()).is_pending() {
        now = net.next_event().expect("the handshake is in flight");
        advance(net, now);
    }
    let Poll::Ready(Ok((accepted, peer))) = net.tcp_poll_accept(listener, Waker::noop()) else {
        panic!("the connection waits in the backlog");
    };
    assert_eq!(accepted, conn);
    assert_eq!(peer, net.tcp_addrs(conn, Side::Connector).0);
    (conn, now)
}

/// A read of up to 256 bytes, waiting with `waker`.
fn read_with(
    net: &mut Network,
    conn: usize,
    side: Side,
    waker: &Waker,
) -> Poll<io::Result<Vec<u8>>> {
    let mut got = Vec::new();
    let copy = |front: &[u8], back: &[u8]| {
        got.extend(front.iter().chain(back).take(256));
        got.len()
    };
    let polled = net.tcp_poll_recv(conn, side, Some(waker), 256, Take::Consume, copy);
    polled.map_ok(|_| got)
}

fn read(net: &mut Network, conn: usize, side: Side) -> Poll<io::Result<Vec<u8>>> {
    read_with(net, conn, side, Waker::noop())
}

/// A write of `bytes`, waiting with `waker`.
fn try_write_with(
    net: &mut Network,
    conn: usize,
    side: Side,
    waker: &Waker,
    bytes: &[u8],
    now: u64,
) -> Poll<io::Result<usize>> {
    net.tcp_poll_send(
        conn,
        side,
        Some(waker),
        bytes.len(),
        |n| bytes[..n].to_vec(),
        now,
    )
}

fn write(net: &mut Network, conn: usize, side: Side, bytes: &[u8], now: u64) -> usize {
    match try_write_with(net, conn, side, Waker::noop(), bytes, now) {
        Poll::Ready(Ok(n)) => n,
        other => panic!("write: {other:?}"),
    }
}

/// The binding of the UDP socket on `node`'s `port` (one with number 0,
/// which no binding has, if there is none).
fn udp_binding(net: &Network, node: usize, port: u16) -> Binding {
    let found = net
        .udp
        .sockets
        .iter()
        .find(|(key, _)| (key.0, key.1) == (node, port));
    let (ip, id) = found.map_or((Ipv4Addr::UNSPECIFIED.into(), 0), |(key, socket)| {
        (key.2, socket.id)
    });
    Binding { node, port, ip, id }
}

fn send_udp(
    net: &mut Network,
    node: usize,
    from: SocketAddr,
    to: SocketAddr,
    bytes: &[u8],
    now: u64,
) -> io::Result<usize> {
    let binding = udp_binding(net, node, from.port());
    net.udp_send_to(binding, Some(to), bytes, now)
}

#[test]
fn nodes_have_fixed_documentation_addresses_and_names_resolve() {
    assert_eq!(address_of(0).to_string(), "192.0.2.1");
    assert_eq!(address_of(253).to_string(), "192.0.2.254");
    assert_eq!(address_of(254).to_string(), "198.51.100.1");
    let net = network(NetConfig::default());
    assert_eq!(net.resolve("server", 80).unwrap(), addr("192.0.2.1:80"));
    assert_eq!(net.resolve("localhost", 80).unwrap(), addr("127.0.0.1:80"));
    assert_eq!(net.resolve("10.1.2.3", 80).unwrap(), addr("10.1.2.3:80"));
    let unknown = net.resolve("nobody", 80).unwrap_err();
    assert_eq!(unknown.kind(), io::ErrorKind::NotFound);
}

#[test]
fn binds_take_ephemeral_ports_in_order_and_refuse_taken_or_foreign_ones() {
    let mut net = network(NetConfig::default());
    let (first, _) = net.tcp_listen(SERVER, addr("0.0.0.0:0")).unwrap();
    let (second, _) = net.tcp_listen(SERVER, addr("127.0.0.1:0")).unwrap();
    assert_eq!(first, addr("192.0.2.1:49152"));
    assert_eq!(second.port(), 49153);
    let taken = net.tcp_listen(SERVER, addr("0.0.0.0:49152")).unwrap_err();
    assert_eq!(taken.kind(), io::ErrorKind::AddrInUse);
    let foreign = net.udp_bind(SERVER, addr("192.0.2.2:53")).unwrap_err();
    assert_eq!(foreign.kind(), io::ErrorKind::AddrNotAvailable);
    // TCP and UDP ports are apart.
    assert_eq!(
        net.udp_bind(SERVER, addr("0.0.0.0:49152"))
            .unwrap()
            .0
            .port(),
        49152
    );
}

#[test]
fn bytes_arrive_in_order_after_the_latency_even_when_it_varies() {
    let mut net = network(NetConfig {
        latency: (1, 20),
        ..NetConfig::default()
    });
    let (conn, now) = connected(&mut net);
    assert!(now >= 2, "a handshake is a round trip");
    for chunk in 0..50u8 {
        write(&mut net, conn, Side::Connector, &[chunk], now);
    }
    assert!(
        read(&mut net, conn, Side::Acceptor).is_pending(),
        "nothing has arrived yet"
    );
    let mut got = Vec::new();
    while let Some(next) = net.next_event() {
        advance(&mut net, next);
        if let Poll::Ready(Ok(bytes)) = read(&mut net, conn, Side::Acceptor) {
            got.extend(bytes);
        }
    }
    assert_eq!(got, (0..50).collect::<Vec<u8>>());
}

#[test]
fn a_connect_to_a_closed_port_is_refused_after_a_round_trip() {
    let mut net = network(NetConfig::default());
    let to = net.resolve("server", 9).unwrap();
    let conn = net.tcp_connect(CLIENT, to, 0).unwrap();
    let (count, waker) = counter();
    let cx = Context::from_waker(&waker);
    assert!(net.tcp_poll_connect(conn, cx.waker()).is_pending());
    advance(&mut net, 1);
    assert!(net.tcp_poll_connect(conn, cx.waker()).is_pending());
    advance(&mut net, 2);
    assert_eq!(count.0.load(Ordering::SeqCst), 1);
    let Poll::Ready(Err(refused)) = net.tcp_poll_connect(conn, cx.waker()) else {
        panic!("refused by now");
    };
    assert_eq!(refused.kind(), io::ErrorKind::ConnectionRefused);
}

#[test]
fn a_connect_across_a_partition_times_out_and_a_late_repair_makes_no_ghost() {
    let mut net = network(NetConfig::default());
    let (_, listener) = net.tcp_listen(SERVER, addr("0.0.0.0:8080")).unwrap();
    net.partition(SERVER, CLIENT);
    let to = net.resolve("server", 8080).unwrap();
    let conn = net.tcp_connect(CLIENT, to, 0).unwrap();
    let cx = Context::from_waker(Waker::noop());
    while let Some(next) = net.next_event() {
        advance(&mut net, next);
    }
    let Poll::Ready(Err(timed_out)) = net.tcp_poll_connect(conn, cx.waker()) else {
        panic!("timed out by now");
    };
    assert_eq!(timed_out.kind(), io::ErrorKind::TimedOut);
    net.repair(SERVER, CLIENT, 6_000);
    while let Some(next) = net.next_event() {
        advance(&mut net, next);
    }
    assert!(net.tcp_poll_accept(listener, Waker::noop()).is_pending());
}

#[test]
fn a_partition_holds_stream_bytes_until_it_heals() {
    let mut net = network(NetConfig::default());
    let (conn, now) = connected(&mut net);
    net.partition(SERVER, CLIENT);
    write(&mut net, conn, Side::Connector, b"held", now);
    for tick in now + 1..now + 100 {
        advance(&mut net, tick);
    }
    assert!(read(&mut net, conn, Side::Acceptor).is_pending());
    net.repair(SERVER, CLIENT, now + 100);
    advance(&mut net, now + 101);
    assert_eq!(
        read(&mut net, conn, Side::Acceptor).map(Result::unwrap),
        Poll::Ready(b"held".to_vec())
    );
}

#[test]
fn half_close_gives_eof_after_the_data_and_the_other_way_stays_open() {
    let mut net = network(NetConfig::default());
    let (conn, now) = connected(&mut net);
    write(&mut net, conn, Side::Connector, b"request", now);
    net.tcp_shutdown(conn, Side::Connector, Shutdown::Write, now)
        .unwrap();
    advance(&mut net, now + 1);
    assert_eq!(
        read(&mut net, conn, Side::Acceptor).map(Result::unwrap),
        Poll::Ready(b"request".to_vec())
    );
    assert_eq!(
        read(&mut net, conn, Side::Acceptor).map(Result::unwrap),
        Poll::Ready(Vec::new())
    );
    let shut = try_write_with(
        &mut net,
        conn,
        Side::Connector,
        Waker::noop(),
        b"more",
        now + 1,
    );
    assert!(matches!(shut, Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::BrokenPipe));
    write(&mut net, conn, Side::Acceptor, b"reply", now + 1);
    advance(&mut net, now + 2);
    assert_eq!(
        read(&mut net, conn, Side::Connector).map(Result::unwrap),
        Poll::Ready(b"reply".to_vec())
    );
}

#[test]
fn a_crash_closes_like_a_killed_process_and_refuses_new_connections() {
    // Nothing unread on the crashed side: its kernel ends the connection
    // with a FIN; the peer reads end of file, and its next write is
    // answered with a reset (then `ConnectionReset`, then `BrokenPipe`).
    let mut net = network(NetConfig::default());
    let (conn, now) = connected(&mut net);
    let (count, waker) = counter();
    assert!(read_with(&mut net, conn, Side::Connector, &waker).is_pending());
    net.crash(SERVER, now);
    advance(&mut net, now + 1);
    assert_eq!(count.0.load(Ordering::SeqCst), 1);
    assert_eq!(
        read(&mut net, conn, Side::Connector).map(Result::unwrap),
        Poll::Ready(Vec::new())
    );
    write(&mut net, conn, Side::Connector, b"anyone?", now + 1);
    advance(&mut net, now + 3);
    let kinds: Vec<_> = (0..2)
        .map(|_| {
            match try_write_with(
                &mut net,
                conn,
                Side::Connector,
                Waker::noop(),
                b"x",
                now + 3,
            ) {
                Poll::Ready(Err(e)) => e.kind(),
                other => panic!("{other:?}"),
            }
        })
        .collect();
    assert_eq!(
        kinds,
        [io::ErrorKind::BrokenPipe, io::ErrorKind::BrokenPipe]
    );
    let to = net.resolve("server", 8080).unwrap();
    let again = net.tcp_connect(CLIENT, to, now + 3).unwrap();
    advance(&mut net, now + 5);
    let refused = net.tcp_poll_connect(again, Waker::noop());
    assert!(matches!(refused, Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::ConnectionRefused));

    // Bytes the crashed process had not read: its kernel resets.
    let mut net = network(NetConfig::default());
    let (conn, now) = connected(&mut net);
    write(&mut net, conn, Side::Connector, b"request", now);
    advance(&mut net, now + 1);
    net.crash(SERVER, now + 1);
    advance(&mut net, now + 2);
    let reset = read(&mut net, conn, Side::Connector);
    assert!(matches!(reset, Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::ConnectionReset));
}

#[test]
fn after_a_reset_reads_get_the_data_then_the_error_once_then_end_of_file() {
    let mut net = network(NetConfig::default());
    let (conn, now) = connected(&mut net);
    write(&mut net, conn, Side::Acceptor, b"last words", now);
    write(&mut net, conn, Side::Connector, b"unread", now);
    advance(&mut net, now + 1);
    // The acceptor leaves with bytes unread: a reset, after its data.
    net.tcp_close(conn, Side::Acceptor, now + 1);
    advance(&mut net, now + 2);
    assert_eq!(
        read(&mut net, conn, Side::Connector).map(Result::unwrap),
        Poll::Ready(b"last words".to_vec())
    );
    let reset = read(&mut net, conn, Side::Connector);
    assert!(matches!(reset, Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::ConnectionReset));
    assert_eq!(
        read(&mut net, conn, Side::Connector).map(Result::unwrap),
        Poll::Ready(Vec::new())
    );
    let write_after = try_write_with(
        &mut net,
        conn,
        Side::Connector,
        Waker::noop(),
        b"x",
        now + 2,
    );
    assert!(matches!(write_after, Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::BrokenPipe));
    assert!(!net.tcp_is_connected(conn, Side::Connector));
    let shutdown = net.tcp_shutdown(conn, Side::Connector, Shutdown::Write, now + 2);
    assert_eq!(shutdown.unwrap_err().kind(), io::ErrorKind::NotConnected);
}

#[test]
fn readiness_follows_data_window_end_of_file_and_errors() {
    use rt_reactor::{Direction, Ready};
    let mut net = network(NetConfig::default());
    let (conn, now) = connected(&mut net);
    let readable = Direction::Read.mask();
    let (count, waker) = counter();
    assert!(
        net.tcp_poll_ready(conn, Side::Acceptor, readable, Some(&waker))
            .is_pending()
    );
    assert_eq!(
        net.tcp_poll_ready(conn, Side::Acceptor, Direction::Write.mask(), None),
        Poll::Ready(Ready::WRITABLE)
    );
    write(&mut net, conn, Side::Connector, b"x", now);
    advance(&mut net, now + 1);
    assert_eq!(count.0.load(Ordering::SeqCst), 1);
    assert_eq!(
        net.tcp_poll_ready(conn, Side::Acceptor, readable, None),
        Poll::Ready(Ready::READABLE)
    );
    net.tcp_shutdown(conn, Side::Connector, Shutdown::Write, now + 1)
        .unwrap();
    advance(&mut net, now + 2);
    assert_eq!(
        net.tcp_poll_ready(conn, Side::Acceptor, readable, None),
        Poll::Ready(Ready::READABLE | Ready::READ_CLOSED)
    );
    net.tcp_set_abort_on_close(conn, Side::Acceptor, true);
    net.tcp_close(conn, Side::Acceptor, now + 2);
    advance(&mut net, now + 3);
    let Poll::Ready(ready) = net.tcp_poll_ready(conn, Side::Connector, Ready::ERROR, None) else {
        panic!("a reset is an error");
    };
    assert!(ready.is_error());
    let error = net.tcp_take_error(conn, Side::Connector).unwrap();
    assert_eq!(error.kind(), io::ErrorKind::ConnectionReset);
    assert!(net.tcp_take_error(conn, Side::Connector).is_none());
}

#[test]
fn a_peek_leaves_the_bytes_and_shutdown_read_ends_reads_after_them() {
    let mut net = network(NetConfig::default());
    let (conn, now) = connected(&mut net);
    write(&mut net, conn, Side::Connector, b"abc", now);
    advance(&mut net, now + 1);
    let mut peeked: Vec<u8> = Vec::new();
    let polled = net.tcp_poll_recv(conn, Side::Acceptor, None, 2, Take::Peek, |front, back| {
        peeked.extend(front.iter().chain(back).take(2));
        peeked.len()
    });
    assert!(matches!(polled, Poll::Ready(Ok(2))));
    assert_eq!(peeked, b"ab");
    net.tcp_shutdown(conn, Side::Acceptor, Shutdown::Read, now + 1)
        .unwrap();
    assert_eq!(
        read(&mut net, conn, Side::Acceptor).map(Result::unwrap),
        Poll::Ready(b"abc".to_vec())
    );
    assert_eq!(
        read(&mut net, conn, Side::Acceptor).map(Result::unwrap),
        Poll::Ready(Vec::new())
    );
}

#[test]
fn sockets_that_outlive_a_crash_touch_nothing_of_the_restarted_host() {
    let mut net = network(NetConfig::default());
    let (_, old_udp) = net.udp_bind(SERVER, addr("0.0.0.0:53")).unwrap();
    let (_, old_listener) = net.tcp_listen(SERVER, addr("0.0.0.0:8080")).unwrap();
    net.crash(SERVER, 0);
    // The restarted host binds the same ports.
    let (server, new_udp) = net.udp_bind(SERVER, addr("0.0.0.0:53")).unwrap();
    let (_, new_listener) = net.tcp_listen(SERVER, addr("0.0.0.0:8080")).unwrap();
    assert_ne!((old_udp, old_listener), (new_udp, new_listener));
    // The old sockets are dead: they neither read nor send...
    let stale = net.udp_poll_recv(old_udp, None, Take::Consume, |_| 0);
    assert!(matches!(stale, Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::NotConnected));
    let sent = net.udp_send_to(old_udp, Some(server), b"x", 0);
    assert_eq!(sent.unwrap_err().kind(), io::ErrorKind::NotConnected);
    let accept = net.tcp_poll_accept(old_listener, Waker::noop());
    assert!(matches!(accept, Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::NotConnected));
    // ... and closing them (their drop) leaves the new ones bound.
    net.udp_close(old_udp);
    net.tcp_close_listener(old_listener, 0);
    let (client, _) = net.udp_bind(CLIENT, addr("0.0.0.0:0")).unwrap();
    send_udp(&mut net, CLIENT, client, server, b"new", 0).unwrap();
    advance(&mut net, 1);
    assert_eq!(
        recv(&mut net, SERVER, 53),
        Poll::Ready((b"new".to_vec(), client))
    );
    let to = net.resolve("server", 8080).unwrap();
    let conn = net.tcp_connect(CLIENT, to, 1).unwrap();
    advance(&mut net, 3);
    assert!(matches!(
        net.tcp_poll_connect(conn, Waker::noop()),
        Poll::Ready(Ok(()))
    ));
    assert!(net.tcp_poll_accept(new_listener, Waker::noop()).is_ready());
}

#[test]
fn dropping_a_stream_with_unread_bytes_resets_its_peer_and_without_them_ends_it() {
    let mut net = network(NetConfig::default());
    let (conn, now) = connected(&mut net);
    write(&mut net, conn, Side::Connector, b"unread", now);
    advance(&mut net, now + 1);
    net.tcp_close(conn, Side::Acceptor, now + 1);
    advance(&mut net, now + 2);
    let reset = read(&mut net, conn, Side::Connector);
    assert!(matches!(reset, Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::ConnectionReset));
}

#[test]
fn a_clean_close_reads_as_end_of_file_and_a_later_write_breaks_the_pipe() {
    let mut net = network(NetConfig::default());
    let (conn, now) = connected(&mut net);
    net.tcp_close(conn, Side::Acceptor, now);
    advance(&mut net, now + 1);
    assert_eq!(
        read(&mut net, conn, Side::Connector).map(Result::unwrap),
        Poll::Ready(Vec::new())
    );
    // Writing to a closed peer: accepted locally, answered with a reset.
    write(&mut net, conn, Side::Connector, b"late", now + 1);
    advance(&mut net, now + 3);
    // The reset came after the peer's FIN (Linux's CLOSE_WAIT): `EPIPE`.
    let broken = try_write_with(
        &mut net,
        conn,
        Side::Connector,
        Waker::noop(),
        b"again",
        now + 3,
    );
    assert!(matches!(broken, Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::BrokenPipe));
}

#[test]
fn a_full_window_makes_the_writer_wait_until_the_peer_reads() {
    let mut net = network(NetConfig::default());
    let (conn, now) = connected(&mut net);
    let big = vec![7u8; super::tcp::WINDOW + 10];
    assert_eq!(
        write(&mut net, conn, Side::Connector, &big, now),
        super::tcp::WINDOW
    );
    let (count, waker) = counter();
    assert!(try_write_with(&mut net, conn, Side::Connector, &waker, &big, now).is_pending());
    advance(&mut net, now + 1);
    assert!(
        matches!(read(&mut net, conn, Side::Acceptor), Poll::Ready(Ok(bytes)) if bytes.len() == 256)
    );
    net.woken.drain(..).for_each(Waker::wake);
    assert_eq!(count.0.load(Ordering::SeqCst), 1);
    assert!(matches!(
        try_write_with(&mut net, conn, Side::Connector, &waker, &big, now + 1),
        Poll::Ready(Ok(256))
    ));
}

fn udp_pair(config: NetConfig) -> (Network, SocketAddr, SocketAddr) {
    let mut net = network(config);
    let (server, _) = net.udp_bind(SERVER, addr("0.0.0.0:53")).unwrap();
    let (client, _) = net.udp_bind(CLIENT, addr("0.0.0.0:0")).unwrap();
    (net, server, client)
}

fn recv(net: &mut Network, node: usize, port: u16) -> Poll<(Vec<u8>, SocketAddr)> {
    let binding = udp_binding(net, node, port);
    let mut payload = Vec::new();
    let copy = |bytes: &[u8]| {
        payload = bytes.to_vec();
        bytes.len()
    };
    net.udp_poll_recv(binding, None, Take::Consume, copy)
        .map(|r| r.map(|(_, from)| (payload, from)).unwrap())
}

#[test]
fn datagrams_arrive_with_their_sender_after_the_latency() {
    let (mut net, server, client) = udp_pair(NetConfig::default());
    send_udp(&mut net, CLIENT, client, server, b"ping", 0).unwrap();
    assert!(recv(&mut net, SERVER, 53).is_pending());
    advance(&mut net, 1);
    assert_eq!(
        recv(&mut net, SERVER, 53),
        Poll::Ready((b"ping".to_vec(), client))
    );
}

#[test]
fn loss_and_duplication_follow_their_rates() {
    let (mut net, server, client) = udp_pair(NetConfig {
        udp_loss: 1.0,
        ..NetConfig::default()
    });
    send_udp(&mut net, CLIENT, client, server, b"lost", 0).unwrap();
    assert_eq!(net.next_event(), None);

    let (mut net, server, client) = udp_pair(NetConfig {
        udp_duplication: 1.0,
        ..NetConfig::default()
    });
    send_udp(&mut net, CLIENT, client, server, b"twice", 0).unwrap();
    advance(&mut net, 1);
    assert!(recv(&mut net, SERVER, 53).is_ready());
    assert!(recv(&mut net, SERVER, 53).is_ready());
    assert!(recv(&mut net, SERVER, 53).is_pending());

    let (mut net, server, client) = udp_pair(NetConfig {
        udp_loss: 0.3,
        ..NetConfig::default()
    });
    for _ in 0..1000 {
        send_udp(&mut net, CLIENT, client, server, b"x", 0).unwrap();
    }
    advance(&mut net, 1);
    let arrived =
        std::iter::from_fn(|| recv(&mut net, SERVER, 53).is_ready().then_some(())).count();
    assert!(
        (600..800).contains(&arrived),
        "{arrived} of 1000 arrived at 30% loss"
    );
}

#[test]
fn a_partition_drops_datagrams_and_a_hold_delays_them_until_release() {
    let (mut net, server, client) = udp_pair(NetConfig::default());
    net.partition(SERVER, CLIENT);
    send_udp(&mut net, CLIENT, client, server, b"dropped", 0).unwrap();
    advance(&mut net, 1);
    net.repair(SERVER, CLIENT, 1);
    advance(&mut net, 5);
    assert!(recv(&mut net, SERVER, 53).is_pending());

    net.hold(SERVER, CLIENT);
    send_udp(&mut net, CLIENT, client, server, b"held", 5).unwrap();
    advance(&mut net, 50);
    assert!(recv(&mut net, SERVER, 53).is_pending());
    net.release(SERVER, CLIENT, 50);
    advance(&mut net, 51);
    assert_eq!(
        recv(&mut net, SERVER, 53),
        Poll::Ready((b"held".to_vec(), client))
    );
}

#[test]
fn a_crash_closes_the_hosts_udp_sockets() {
    let (mut net, server, client) = udp_pair(NetConfig::default());
    net.crash(SERVER, 0);
    send_udp(&mut net, CLIENT, client, server, b"nobody", 0).unwrap();
    advance(&mut net, 1);
    let closed = net.udp_poll_recv(
        Binding {
            node: SERVER,
            port: 53,
            ip: Ipv4Addr::UNSPECIFIED.into(),
            id: 1,
        },
        None,
        Take::Consume,
        |_| 0,
    );
    assert!(matches!(closed, Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::NotConnected));
    // The restarted process binds afresh.
    assert!(net.udp_bind(SERVER, addr("0.0.0.0:53")).is_ok());
}

#[test]
fn the_same_seed_draws_the_same_latencies() {
    let dues = || {
        let mut net = network(NetConfig {
            latency: (1, 100),
            ..NetConfig::default()
        });
        let (server, _) = net.udp_bind(SERVER, addr("0.0.0.0:53")).unwrap();
        let (client, _) = net.udp_bind(CLIENT, addr("0.0.0.0:0")).unwrap();
        let mut dues = Vec::new();
        for _ in 0..20 {
            send_udp(&mut net, CLIENT, client, server, b"x", 0).unwrap();
        }
        while let Some(next) = net.next_event() {
            dues.push(next);
            advance(&mut net, next);
        }
        dues
    };
    let first = dues();
    assert_eq!(dues(), first);
    assert!(
        first.len() > 5,
        "latencies spread over several ticks: {first:?}"
    );
}

#[test]
fn a_links_own_latency_overrides_the_default() {
    let (mut net, server, client) = udp_pair(NetConfig::default());
    net.set_latency(CLIENT, SERVER, 40, 40);
    send_udp(&mut net, CLIENT, client, server, b"slow", 0).unwrap();
    assert_eq!(net.next_event(), Some(40));
}

#[test]
fn closing_a_listener_resets_what_it_did_not_accept_and_frees_its_port() {
    let mut net = network(NetConfig::default());
    let (_, listener) = net.tcp_listen(SERVER, addr("0.0.0.0:8080")).unwrap();
    let to = net.resolve("server", 8080).unwrap();
    let conn = net.tcp_connect(CLIENT, to, 0).unwrap();
    advance(&mut net, 2);
    net.tcp_close_listener(listener, 2);
    advance(&mut net, 3);
    let reset = read(&mut net, conn, Side::Connector);
    assert!(matches!(reset, Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::ConnectionReset));
    assert!(net.tcp_listen(SERVER, addr("0.0.0.0:8080")).is_ok());
}

#[test]
fn a_closed_udp_socket_frees_its_port_and_drops_later_datagrams() {
    let (mut net, server, client) = udp_pair(NetConfig::default());
    net.udp_close(udp_binding(&net, SERVER, 53));
    send_udp(&mut net, CLIENT, client, server, b"late", 0).unwrap();
    advance(&mut net, 1);
    assert_eq!(net.udp_bind(SERVER, addr("0.0.0.0:53")).unwrap().0, server);
    assert!(recv(&mut net, SERVER, 53).is_pending());
}
