//! Every address form tokio accepts, for `bind`, `connect` and
//! `lookup_host`: literals are parsed on the spot, host names resolved on
//! the blocking pool.

mod support;

use rt::net::{TcpListener, TcpStream, UdpSocket, lookup_host};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use support::{block_on_each, expect_panic};

#[test]
fn host_and_port_pairs_bind_and_connect() {
    block_on_each(|_| async {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await.unwrap();
        let port = listener.local_addr().unwrap().port();
        // A host name, a literal, owned and borrowed strings.
        let a = TcpStream::connect(("localhost", port)).await;
        let b = TcpStream::connect((String::from("127.0.0.1"), port)).await;
        let c = TcpStream::connect((IpAddr::V4(Ipv4Addr::LOCALHOST), port)).await;
        let d = TcpStream::connect((Ipv4Addr::LOCALHOST, port)).await;
        let e = TcpStream::connect(format!("127.0.0.1:{port}")).await;
        for stream in [b, c, d, e] {
            assert_eq!(stream.unwrap().peer_addr().unwrap().port(), port);
        }
        // "localhost" may resolve to ::1 first, where nobody listens: the
        // next address (127.0.0.1) is tried then.
        assert_eq!(a.unwrap().peer_addr().unwrap().port(), port);

        let v6 = TcpListener::bind((Ipv6Addr::LOCALHOST, 0)).await.unwrap();
        let v6_addr = v6.local_addr().unwrap();
        let stream = TcpStream::connect(("::1", v6_addr.port())).await.unwrap();
        assert_eq!(stream.peer_addr().unwrap(), v6_addr);

        let udp = UdpSocket::bind((String::from("localhost"), 0))
            .await
            .unwrap();
        assert!(udp.local_addr().unwrap().ip().is_loopback());
    });
}

/// A slice of addresses is tried in order: the first refuses, the second
/// accepts.
#[test]
fn a_slice_of_addresses_is_tried_in_turn() {
    block_on_each(|_| async {
        let closed = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let refused = closed.local_addr().unwrap();
        drop(closed);
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let open = listener.local_addr().unwrap();
        let addrs: &[SocketAddr] = &[refused, open];
        let stream = TcpStream::connect(addrs).await.unwrap();
        assert_eq!(stream.peer_addr().unwrap(), open);

        let none: &[SocketAddr] = &[];
        let err = TcpStream::connect(none).await.unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
    });
}

#[test]
fn lookup_host_takes_every_address_form() {
    block_on_each(|_| async {
        let by_name: Vec<_> = lookup_host(("localhost", 80)).await.unwrap().collect();
        assert!(!by_name.is_empty());
        assert!(
            by_name
                .iter()
                .all(|a| a.ip().is_loopback() && a.port() == 80)
        );

        let expected = |ip: IpAddr, port| vec![SocketAddr::new(ip, port)];
        let v4 = IpAddr::V4(Ipv4Addr::new(10, 1, 2, 3));
        let v6 = IpAddr::V6(Ipv6Addr::LOCALHOST);
        let got: Vec<_> = lookup_host(("10.1.2.3", 7)).await.unwrap().collect();
        assert_eq!(got, expected(v4, 7));
        let got: Vec<_> = lookup_host((String::from("::1"), 8))
            .await
            .unwrap()
            .collect();
        assert_eq!(got, expected(v6, 8));
        let got: Vec<_> = lookup_host((v4, 9)).await.unwrap().collect();
        assert_eq!(got, expected(v4, 9));
        let got: Vec<_> = lookup_host((Ipv6Addr::LOCALHOST, 10))
            .await
            .unwrap()
            .collect();
        assert_eq!(got, expected(v6, 10));
        let slice = [SocketAddr::new(v4, 1), SocketAddr::new(v6, 2)];
        let got: Vec<_> = lookup_host(&slice[..]).await.unwrap().collect();
        assert_eq!(got, slice);
        let got: Vec<_> = lookup_host(String::from("10.1.2.3:11"))
            .await
            .unwrap()
            .collect();
        assert_eq!(got, expected(v4, 11));

        let err = lookup_host("localhost").await.unwrap_err();
        assert!(err.to_string().contains("`localhost`"), "{err}");
        // The resolver's own error stays reachable, with its kind.
        let source = std::error::Error::source(&err).expect("the resolver's error as the source");
        let source = source.downcast_ref::<std::io::Error>().unwrap();
        assert_eq!(source.kind(), err.kind());
        assert!(!source.to_string().contains("`localhost`"), "{source}");
    });
}

/// Literals need no runtime; a host name does, and says so.
#[test]
fn lookup_outside_a_runtime() {
    let literal: Vec<_> = futures::executor::block_on(lookup_host(("127.0.0.1", 5)))
        .unwrap()
        .collect();
    assert_eq!(literal, ["127.0.0.1:5".parse::<SocketAddr>().unwrap()]);
    let message = expect_panic(|| futures::executor::block_on(lookup_host(("localhost", 5))));
    assert!(message.contains("outside a runtime"), "{message}");
}

/// The address conversion's future (a host lookup included) is `Sync` as
/// tokio's is, so `bind`/`connect`/`send_to`/`lookup_host` futures are too.
#[test]
fn address_futures_are_send_and_sync() {
    fn send_sync<F: std::future::Future + Send + Sync>(_: F) {}
    block_on_each(|_| async {
        send_sync(lookup_host("localhost:80"));
        send_sync(TcpStream::connect(("localhost", 1)));
        send_sync(TcpListener::bind("localhost:0"));
        let socket = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        send_sync(socket.send_to(b"x", "localhost:9"));
    });
}
