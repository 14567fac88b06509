//! The network model alone, on a hand-driven clock.

use super::{NetConfig, Network, Side, address_of};
use crate::sim::rng::SimRng;
use std::io;
use std::net::SocketAddr;
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
    net.tcp_listen(SERVER, addr("0.0.0.0:8080")).unwrap();
    let to = net.resolve(CLIENT, "server", 8080).unwrap();
    let conn = net.tcp_connect(CLIENT, to, 0).unwrap();
    let mut cx = Context::from_waker(Waker::noop());
    let mut now = 0;
    while net.tcp_poll_connect(conn, &mut cx).is_pending() {
        now = net.next_event().expect("the handshake is in flight");
        advance(net, now);
    }
    let Poll::Ready(Ok((accepted, peer))) = net.tcp_poll_accept(SERVER, 8080, &mut cx) else {
        panic!("the connection waits in the backlog");
    };
    assert_eq!(accepted, conn);
    assert_eq!(peer, net.tcp_addrs(conn, Side::Connector).0);
    (conn, now)
}

fn read(net: &mut Network, conn: usize, side: Side) -> Poll<io::Result<Vec<u8>>> {
    let mut buf = [0; 256];
    let mut cx = Context::from_waker(Waker::noop());
    net.tcp_poll_read(conn, side, &mut cx, &mut buf)
        .map_ok(|n| buf[..n].to_vec())
}

fn write(net: &mut Network, conn: usize, side: Side, bytes: &[u8], now: u64) -> usize {
    let mut cx = Context::from_waker(Waker::noop());
    match net.tcp_poll_write(conn, side, &mut cx, bytes, now) {
        Poll::Ready(Ok(n)) => n,
        other => panic!("write: {other:?}"),
    }
}

#[test]
fn nodes_have_fixed_documentation_addresses_and_names_resolve() {
    assert_eq!(address_of(0).to_string(), "192.0.2.1");
    assert_eq!(address_of(253).to_string(), "192.0.2.254");
    assert_eq!(address_of(254).to_string(), "198.51.100.1");
    let net = network(NetConfig::default());
    assert_eq!(
        net.resolve(CLIENT, "server", 80).unwrap(),
        addr("192.0.2.1:80")
    );
    assert_eq!(
        net.resolve(CLIENT, "localhost", 80).unwrap(),
        addr("192.0.2.2:80")
    );
    assert_eq!(
        net.resolve(CLIENT, "10.1.2.3", 80).unwrap(),
        addr("10.1.2.3:80")
    );
    let unknown = net.resolve(CLIENT, "nobody", 80).unwrap_err();
    assert_eq!(unknown.kind(), io::ErrorKind::NotFound);
}

#[test]
fn binds_take_ephemeral_ports_in_order_and_refuse_taken_or_foreign_ones() {
    let mut net = network(NetConfig::default());
    let first = net.tcp_listen(SERVER, addr("0.0.0.0:0")).unwrap();
    let second = net.tcp_listen(SERVER, addr("127.0.0.1:0")).unwrap();
    assert_eq!(first, addr("192.0.2.1:49152"));
    assert_eq!(second.port(), 49153);
    let taken = net.tcp_listen(SERVER, addr("0.0.0.0:49152")).unwrap_err();
    assert_eq!(taken.kind(), io::ErrorKind::AddrInUse);
    let foreign = net.udp_bind(SERVER, addr("192.0.2.2:53")).unwrap_err();
    assert_eq!(foreign.kind(), io::ErrorKind::AddrNotAvailable);
    // TCP and UDP ports are apart.
    assert_eq!(
        net.udp_bind(SERVER, addr("0.0.0.0:49152")).unwrap().port(),
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
    let to = net.resolve(CLIENT, "server", 9).unwrap();
    let conn = net.tcp_connect(CLIENT, to, 0).unwrap();
    let (count, waker) = counter();
    let mut cx = Context::from_waker(&waker);
    assert!(net.tcp_poll_connect(conn, &mut cx).is_pending());
    advance(&mut net, 1);
    assert!(net.tcp_poll_connect(conn, &mut cx).is_pending());
    advance(&mut net, 2);
    assert_eq!(count.0.load(Ordering::SeqCst), 1);
    let Poll::Ready(Err(refused)) = net.tcp_poll_connect(conn, &mut cx) else {
        panic!("refused by now");
    };
    assert_eq!(refused.kind(), io::ErrorKind::ConnectionRefused);
}

#[test]
fn a_connect_across_a_partition_times_out_and_a_late_repair_makes_no_ghost() {
    let mut net = network(NetConfig::default());
    net.tcp_listen(SERVER, addr("0.0.0.0:8080")).unwrap();
    net.partition(SERVER, CLIENT);
    let to = net.resolve(CLIENT, "server", 8080).unwrap();
    let conn = net.tcp_connect(CLIENT, to, 0).unwrap();
    let mut cx = Context::from_waker(Waker::noop());
    while let Some(next) = net.next_event() {
        advance(&mut net, next);
    }
    let Poll::Ready(Err(timed_out)) = net.tcp_poll_connect(conn, &mut cx) else {
        panic!("timed out by now");
    };
    assert_eq!(timed_out.kind(), io::ErrorKind::TimedOut);
    net.repair(SERVER, CLIENT, 6_000);
    while let Some(next) = net.next_event() {
        advance(&mut net, next);
    }
    assert!(net.tcp_poll_accept(SERVER, 8080, &mut cx).is_pending());
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
    net.tcp_shutdown_write(conn, Side::Connector, now);
    advance(&mut net, now + 1);
    assert_eq!(
        read(&mut net, conn, Side::Acceptor).map(Result::unwrap),
        Poll::Ready(b"request".to_vec())
    );
    assert_eq!(
        read(&mut net, conn, Side::Acceptor).map(Result::unwrap),
        Poll::Ready(Vec::new())
    );
    let mut cx = Context::from_waker(Waker::noop());
    let shut = net.tcp_poll_write(conn, Side::Connector, &mut cx, b"more", now + 1);
    assert!(matches!(shut, Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::BrokenPipe));
    write(&mut net, conn, Side::Acceptor, b"reply", now + 1);
    advance(&mut net, now + 2);
    assert_eq!(
        read(&mut net, conn, Side::Connector).map(Result::unwrap),
        Poll::Ready(b"reply".to_vec())
    );
}

#[test]
fn a_crash_resets_the_peers_and_refuses_new_connections() {
    let mut net = network(NetConfig::default());
    let (conn, now) = connected(&mut net);
    let (count, waker) = counter();
    let mut buf = [0; 8];
    let mut cx = Context::from_waker(&waker);
    assert!(
        net.tcp_poll_read(conn, Side::Connector, &mut cx, &mut buf)
            .is_pending()
    );
    net.crash(SERVER, now);
    advance(&mut net, now + 1);
    assert_eq!(count.0.load(Ordering::SeqCst), 1);
    let reset = read(&mut net, conn, Side::Connector);
    assert!(matches!(reset, Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::ConnectionReset));
    let to = net.resolve(CLIENT, "server", 8080).unwrap();
    let again = net.tcp_connect(CLIENT, to, now + 1).unwrap();
    advance(&mut net, now + 3);
    let refused = net.tcp_poll_connect(again, &mut cx);
    assert!(matches!(refused, Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::ConnectionRefused));
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
fn a_clean_close_reads_as_end_of_file_and_a_later_write_is_reset() {
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
    let mut cx = Context::from_waker(Waker::noop());
    let reset = net.tcp_poll_write(conn, Side::Connector, &mut cx, b"again", now + 3);
    assert!(matches!(reset, Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::ConnectionReset));
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
    let mut cx = Context::from_waker(&waker);
    assert!(
        net.tcp_poll_write(conn, Side::Connector, &mut cx, &big, now)
            .is_pending()
    );
    advance(&mut net, now + 1);
    assert!(
        matches!(read(&mut net, conn, Side::Acceptor), Poll::Ready(Ok(bytes)) if bytes.len() == 256)
    );
    net.woken.drain(..).for_each(Waker::wake);
    assert_eq!(count.0.load(Ordering::SeqCst), 1);
    assert!(matches!(
        net.tcp_poll_write(conn, Side::Connector, &mut cx, &big, now + 1),
        Poll::Ready(Ok(256))
    ));
}

fn udp_pair(config: NetConfig) -> (Network, SocketAddr, SocketAddr) {
    let mut net = network(config);
    let server = net.udp_bind(SERVER, addr("0.0.0.0:53")).unwrap();
    let client = net.udp_bind(CLIENT, addr("0.0.0.0:0")).unwrap();
    (net, server, client)
}

fn recv(net: &mut Network, node: usize, port: u16) -> Poll<(Vec<u8>, SocketAddr)> {
    let mut buf = [0; 64];
    let mut cx = Context::from_waker(Waker::noop());
    net.udp_poll_recv_from(node, port, &mut cx, &mut buf)
        .map(|r| r.map(|(n, from)| (buf[..n].to_vec(), from)).unwrap())
}

#[test]
fn datagrams_arrive_with_their_sender_after_the_latency() {
    let (mut net, server, client) = udp_pair(NetConfig::default());
    net.udp_send_to(CLIENT, client, server, b"ping", 0).unwrap();
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
    net.udp_send_to(CLIENT, client, server, b"lost", 0).unwrap();
    assert_eq!(net.next_event(), None);

    let (mut net, server, client) = udp_pair(NetConfig {
        udp_duplication: 1.0,
        ..NetConfig::default()
    });
    net.udp_send_to(CLIENT, client, server, b"twice", 0)
        .unwrap();
    advance(&mut net, 1);
    assert!(recv(&mut net, SERVER, 53).is_ready());
    assert!(recv(&mut net, SERVER, 53).is_ready());
    assert!(recv(&mut net, SERVER, 53).is_pending());

    let (mut net, server, client) = udp_pair(NetConfig {
        udp_loss: 0.3,
        ..NetConfig::default()
    });
    for _ in 0..1000 {
        net.udp_send_to(CLIENT, client, server, b"x", 0).unwrap();
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
    net.udp_send_to(CLIENT, client, server, b"dropped", 0)
        .unwrap();
    advance(&mut net, 1);
    net.repair(SERVER, CLIENT, 1);
    advance(&mut net, 5);
    assert!(recv(&mut net, SERVER, 53).is_pending());

    net.hold(SERVER, CLIENT);
    net.udp_send_to(CLIENT, client, server, b"held", 5).unwrap();
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
    net.udp_send_to(CLIENT, client, server, b"nobody", 0)
        .unwrap();
    advance(&mut net, 1);
    let mut cx = Context::from_waker(Waker::noop());
    let closed = net.udp_poll_recv_from(SERVER, 53, &mut cx, &mut [0; 8]);
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
        let server = net.udp_bind(SERVER, addr("0.0.0.0:53")).unwrap();
        let client = net.udp_bind(CLIENT, addr("0.0.0.0:0")).unwrap();
        let mut dues = Vec::new();
        for _ in 0..20 {
            net.udp_send_to(CLIENT, client, server, b"x", 0).unwrap();
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
    net.udp_send_to(CLIENT, client, server, b"slow", 0).unwrap();
    assert_eq!(net.next_event(), Some(40));
}

#[test]
fn closing_a_listener_resets_what_it_did_not_accept_and_frees_its_port() {
    let mut net = network(NetConfig::default());
    net.tcp_listen(SERVER, addr("0.0.0.0:8080")).unwrap();
    let to = net.resolve(CLIENT, "server", 8080).unwrap();
    let conn = net.tcp_connect(CLIENT, to, 0).unwrap();
    advance(&mut net, 2);
    net.tcp_close_listener(SERVER, 8080, 2);
    advance(&mut net, 3);
    let reset = read(&mut net, conn, Side::Connector);
    assert!(matches!(reset, Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::ConnectionReset));
    assert!(net.tcp_listen(SERVER, addr("0.0.0.0:8080")).is_ok());
}

#[test]
fn a_closed_udp_socket_frees_its_port_and_drops_later_datagrams() {
    let (mut net, server, client) = udp_pair(NetConfig::default());
    net.udp_close(SERVER, 53);
    net.udp_send_to(CLIENT, client, server, b"late", 0).unwrap();
    advance(&mut net, 1);
    assert_eq!(net.udp_bind(SERVER, addr("0.0.0.0:53")).unwrap(), server);
    assert!(recv(&mut net, SERVER, 53).is_pending());
}
