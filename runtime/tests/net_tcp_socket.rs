//! `TcpSocket`: options set before connecting or listening, and kept.

mod support;

use support::on_both;

use rt::io::{AsyncReadExt, AsyncWriteExt};
use rt::net::{TcpListener, TcpSocket};
use socket2::{Domain, SockRef, Socket, Type};
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

#[test]
fn a_socket_from_std_keeps_its_options_and_listens_and_connects_even_if_blocking() {
    on_both(|| async {
        // Made with socket2 and left in blocking mode, as a caller might.
        let made = |domain| {
            let raw = Socket::new(domain, Type::STREAM, None).unwrap();
            raw.set_reuse_address(true).unwrap();
            assert!(!raw.nonblocking().unwrap());
            TcpSocket::from_std_stream(raw.into())
        };
        let server = made(Domain::IPV4);
        assert!(server.reuseaddr().unwrap());
        server.bind(localhost()).unwrap();
        let listener = server.listen(16).unwrap();
        let addr = listener.local_addr().unwrap();
        assert!(SockRef::from(&listener).nonblocking().unwrap());

        let client = made(Domain::IPV4);
        client.set_nodelay(true).unwrap();
        let mut client = client.connect(addr).await.unwrap();
        assert!(SockRef::from(&client).nonblocking().unwrap());
        assert!(client.nodelay().unwrap());
        assert!(SockRef::from(&client).reuse_address().unwrap());
        let (mut server, from) = listener.accept().await.unwrap();
        assert_eq!(from, client.local_addr().unwrap());
        // Nothing to read: the stream waits instead of blocking the thread.
        assert_eq!(
            client.try_read(&mut [0; 4]).unwrap_err().kind(),
            ErrorKind::WouldBlock
        );
        client.write_all(b"ping").await.unwrap();
        let mut buf = [0; 4];
        server.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"ping");
        server.write_all(b"pong").await.unwrap();
        client.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"pong");

        // The family check asks the socket itself.
        if let Ok(raw) = Socket::new(Domain::IPV6, Type::STREAM, None) {
            let v6 = TcpSocket::from_std_stream(raw.into());
            let err = v6.bind(localhost()).unwrap_err();
            assert!(err.to_string().contains("TcpSocket::new_v4"), "{err}");
        }
    });
}

#[cfg(any(target_os = "android", target_os = "fuchsia", target_os = "linux"))]
#[test]
fn binding_to_a_device_that_does_not_exist_fails_naming_it() {
    let socket = TcpSocket::new_v4().unwrap();
    let err = socket.bind_device(Some(b"rt-no-such0")).unwrap_err();
    assert!(err.to_string().contains("`rt-no-such0`"), "{err}");
    // The OS error stays reachable as the source: ENODEV, or EPERM where
    // binding at all needs CAP_NET_RAW (before Linux 5.7).
    let os = err
        .get_ref()
        .and_then(|e| e.source())
        .and_then(|e| e.downcast_ref::<std::io::Error>())
        .and_then(std::io::Error::raw_os_error);
    assert!(
        matches!(os, Some(libc::ENODEV | libc::EPERM)),
        "{err}: {os:?}"
    );
    assert_eq!(socket.device().unwrap(), None);
}

#[cfg(any(target_os = "android", target_os = "fuchsia", target_os = "linux"))]
#[test]
fn a_socket_bound_to_lo_connects_and_listens_through_it_and_none_clears_it() {
    on_both(|| async {
        let server = TcpSocket::new_v4().unwrap();
        match server.bind_device(Some(b"lo")) {
            Err(e) if e.kind() == ErrorKind::PermissionDenied => {
                eprintln!(
                    "skipped: binding a socket to `lo` is not permitted here ({e}); \
                     it needs CAP_NET_RAW before Linux 5.7"
                );
                return;
            }
            result => result.unwrap(),
        }
        assert_eq!(server.device().unwrap().as_deref(), Some(&b"lo"[..]));
        server.bind(localhost()).unwrap();
        let listener = server.listen(16).unwrap();
        assert_eq!(
            SockRef::from(&listener).device().unwrap().as_deref(),
            Some(&b"lo"[..])
        );

        let client = TcpSocket::new_v4().unwrap();
        client.bind_device(Some(b"lo")).unwrap();
        let mut client = client
            .connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        assert_eq!(
            SockRef::from(&client).device().unwrap().as_deref(),
            Some(&b"lo"[..])
        );
        let (mut server, _) = listener.accept().await.unwrap();
        client.write_all(b"via lo").await.unwrap();
        let mut buf = [0; 6];
        server.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"via lo");

        // Changing a binding needs CAP_NET_RAW even on recent kernels.
        let unbound = TcpSocket::new_v4().unwrap();
        unbound.bind_device(Some(b"lo")).unwrap();
        match unbound.bind_device(None) {
            Err(e) if e.kind() == ErrorKind::PermissionDenied => {
                assert!(e.to_string().contains("removing"), "{e}");
                eprintln!("skipped clearing the binding: not permitted here ({e})");
            }
            result => {
                result.unwrap();
                assert_eq!(unbound.device().unwrap(), None);
            }
        }
    });
}

#[test]
fn zero_linger_is_kept_by_the_stream_and_resets_the_peer_on_drop() {
    on_both(|| async {
        let listener = TcpListener::bind(localhost()).await.unwrap();
        let socket = TcpSocket::new_v4().unwrap();
        socket.set_zero_linger().unwrap();
        assert_eq!(socket.linger().unwrap(), Some(Duration::ZERO));
        let client = socket
            .connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        assert_eq!(client.linger().unwrap(), Some(Duration::ZERO));
        let (mut server, _) = listener.accept().await.unwrap();
        drop(client);
        let mut buf = [0; 8];
        let err = server.read(&mut buf).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::ConnectionReset);
    });
}

#[test]
fn a_socket_through_a_raw_descriptor_keeps_its_options_and_connects() {
    use std::os::fd::{FromRawFd, IntoRawFd};
    on_both(|| async {
        let listener = TcpListener::bind(localhost()).await.unwrap();
        let socket = TcpSocket::new_v4().unwrap();
        socket.set_keepalive(true).unwrap();
        let fd = socket.into_raw_fd();
        // SAFETY: `fd` is the open TCP socket `into_raw_fd` just gave up;
        // nothing else owns it.
        let socket = unsafe { TcpSocket::from_raw_fd(fd) };
        assert!(socket.keepalive().unwrap());
        let mut client = socket
            .connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let (mut server, _) = listener.accept().await.unwrap();
        client.write_all(b"raw").await.unwrap();
        let mut buf = [0; 3];
        server.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"raw");
    });
}

/// A connect the kernel refuses at once with EADDRNOTAVAIL (here: the
/// local address and port already connected to the same peer, as when
/// ephemeral ports run out) is an error, not a panic or a hang, leaves no
/// registration behind, and the next connect works.
#[test]
fn a_connect_failing_with_eaddrnotavail_is_an_error() {
    for (name, rt) in support::runtimes() {
        eprintln!("-- on the {name} scheduler");
        let metrics = rt.metrics();
        rt.block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let baseline = metrics.io_driver_registrations();
            let first = TcpSocket::new_v4().unwrap();
            first.set_reuseaddr(true).unwrap();
            first.bind(localhost()).unwrap();
            let local = first.local_addr().unwrap();
            let _first = first.connect(addr).await.unwrap();
            // The same four-tuple again.
            let second = TcpSocket::new_v4().unwrap();
            second.set_reuseaddr(true).unwrap();
            second.bind(local).unwrap();
            let err = second.connect(addr).await.unwrap_err();
            assert_eq!(err.raw_os_error(), Some(libc::EADDRNOTAVAIL), "{err}");
            assert_eq!(metrics.io_driver_registrations(), baseline + 1);
            let _third = rt::net::TcpStream::connect(addr).await.unwrap();
            assert_eq!(metrics.io_driver_registrations(), baseline + 2);
        });
    }
}
