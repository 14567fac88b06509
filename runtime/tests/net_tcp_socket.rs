//! `TcpSocket`: options set before connecting or listening, and kept.

mod support;

use support::on_both;

use rt::io::{AsyncReadExt, AsyncWriteExt};
use rt::net::{TcpListener, TcpSocket};
use std::io::ErrorKind;
use std::net::SocketAddr;
use std::time::Duration;

fn localhost() -> SocketAddr {
    "127.0.0.1:0".parse().unwrap()
}

#[test]
fn a_configured_listener_and_client_exchange_bytes() {
    on_both(|| async {
        let socket = TcpSocket::new_v4().unwrap();
        socket.set_reuseaddr(true).unwrap();
        socket.set_recv_buffer_size(128 * 1024).unwrap();
        socket.bind(localhost()).unwrap();
        let listener = socket.listen(16).unwrap();
        let addr = listener.local_addr().unwrap();

        let client = TcpSocket::new_v4().unwrap();
        client.set_nodelay(true).unwrap();
        client.set_keepalive(true).unwrap();
        // The client's own address, chosen before connecting.
        client.bind(localhost()).unwrap();
        let client_addr = client.local_addr().unwrap();
        let mut client = client.connect(addr).await.unwrap();
        let (mut server, peer) = listener.accept().await.unwrap();
        assert_eq!(peer, client_addr);
        assert_eq!(client.local_addr().unwrap(), client_addr);
        // Options set on the socket are the stream's.
        assert!(client.nodelay().unwrap());

        client.write_all(b"ping").await.unwrap();
        let mut buf = [0; 4];
        server.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"ping");
    });
}

#[test]
fn reuseport_lets_two_listeners_share_a_port_and_without_it_the_second_bind_fails() {
    on_both(|| async {
        let first = TcpSocket::new_v4().unwrap();
        first.set_reuseport(true).unwrap();
        first.bind(localhost()).unwrap();
        let addr = first.local_addr().unwrap();
        let first = first.listen(16).unwrap();

        let second = TcpSocket::new_v4().unwrap();
        second.set_reuseport(true).unwrap();
        second.bind(addr).unwrap();
        let second = second.listen(16).unwrap();
        assert_eq!(second.local_addr().unwrap(), addr);

        let third = TcpSocket::new_v4().unwrap();
        let err = third.bind(addr).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::AddrInUse, "{err}");

        // Connections go to one listener or the other.
        let _client = rt::net::TcpStream::connect(addr).await.unwrap();
        let accepted =
            futures::future::select(Box::pin(first.accept()), Box::pin(second.accept())).await;
        let (stream, _) = accepted.factor_first().0.unwrap();
        assert_eq!(stream.local_addr().unwrap(), addr);
    });
}

#[test]
fn options_read_back_as_set() {
    let socket = TcpSocket::new_v4().unwrap();
    for on in [true, false] {
        socket.set_reuseaddr(on).unwrap();
        assert_eq!(socket.reuseaddr().unwrap(), on);
        socket.set_reuseport(on).unwrap();
        assert_eq!(socket.reuseport().unwrap(), on);
        socket.set_keepalive(on).unwrap();
        assert_eq!(socket.keepalive().unwrap(), on);
        socket.set_nodelay(on).unwrap();
        assert_eq!(socket.nodelay().unwrap(), on);
    }
    socket.set_send_buffer_size(100_000).unwrap();
    assert!(socket.send_buffer_size().unwrap() >= 100_000);
    socket.set_linger(Some(Duration::ZERO)).unwrap();
    assert_eq!(socket.linger().unwrap(), Some(Duration::ZERO));
    // Whole seconds, a fraction rounded up: half a second is not a reset.
    socket.set_linger(Some(Duration::from_millis(500))).unwrap();
    assert_eq!(socket.linger().unwrap(), Some(Duration::from_secs(1)));
    socket.set_linger(None).unwrap();
    assert_eq!(socket.linger().unwrap(), None);
    let err = socket.set_recv_buffer_size(u32::MAX).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
}

#[test]
fn an_address_of_the_other_family_is_refused_with_the_fix() {
    let v4 = TcpSocket::new_v4().unwrap();
    let err = v4.bind("[::1]:0".parse().unwrap()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
    assert!(err.to_string().contains("TcpSocket::new_v6"), "{err}");
    if let Ok(v6) = TcpSocket::new_v6() {
        let rt = rt::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let err = rt
            .block_on(v6.connect("127.0.0.1:1".parse().unwrap()))
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
        assert!(err.to_string().contains("TcpSocket::new_v4"), "{err}");
    }
}

#[test]
fn connecting_to_a_closed_port_is_refused() {
    on_both(|| async {
        let listener = TcpListener::bind(localhost()).await.unwrap();
        let addr = listener.local_addr().unwrap();
        drop(listener);
        let err = TcpSocket::new_v4()
            .unwrap()
            .connect(addr)
            .await
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::ConnectionRefused, "{err}");
    });
}

#[test]
fn an_ipv6_socket_binds_and_reports_its_address() {
    let Ok(socket) = TcpSocket::new_v6() else {
        eprintln!("skipped: IPv6 sockets are not available here");
        return;
    };
    match socket.bind("[::1]:0".parse().unwrap()) {
        Ok(()) => {
            let addr = socket.local_addr().unwrap();
            assert!(addr.is_ipv6() && addr.ip().is_loopback(), "{addr}");
            assert_ne!(addr.port(), 0);
        }
        Err(e) if e.kind() == ErrorKind::AddrNotAvailable => {
            eprintln!("skipped: no IPv6 loopback here ({e})");
        }
        Err(e) => panic!("binding [::1]:0: {e}"),
    }
}

#[test]
fn type_of_service_and_traffic_class_read_back_and_the_stream_keeps_them() {
    on_both(|| async {
        let listener = TcpListener::bind(localhost()).await.unwrap();
        let socket = TcpSocket::new_v4().unwrap();
        socket.set_tos_v4(0x20).unwrap();
        assert_eq!(socket.tos_v4().unwrap(), 0x20);
        assert!(socket.take_error().unwrap().is_none());
        let stream = socket
            .connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        assert_eq!(socket2::SockRef::from(&stream).tos_v4().unwrap(), 0x20);
        if let Ok(v6) = TcpSocket::new_v6() {
            v6.set_tclass_v6(0x28).unwrap();
            assert_eq!(v6.tclass_v6().unwrap(), 0x28);
        }
    });
}
