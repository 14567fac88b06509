//! UDP on both schedulers.

mod support;

use rt::net::UdpSocket;
use std::sync::Arc;
use support::on_both;

#[test]
fn send_to_and_recv_from() {
    on_both(|| async {
        let a = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let b = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let b_addr = b.local_addr().unwrap();
        let receiver = rt::spawn(async move {
            let mut buf = [0u8; 64];
            let mut got = Vec::new();
            for _ in 0..10 {
                let (n, from) = b.recv_from(&mut buf).await.unwrap();
                got.push((buf[..n].to_vec(), from));
            }
            got
        });
        for i in 0..10u8 {
            assert_eq!(a.send_to(&[i; 3], b_addr).await.unwrap(), 3);
        }
        let got = receiver.await.unwrap();
        let a_addr = a.local_addr().unwrap();
        // Loopback UDP neither drops nor reorders these few datagrams.
        for (i, (data, from)) in got.into_iter().enumerate() {
            assert_eq!(data, vec![i as u8; 3]);
            assert_eq!(from, a_addr);
        }
    });
}

#[test]
fn connected_send_and_recv_ping_pong() {
    on_both(|| async {
        let a = Arc::new(UdpSocket::bind("127.0.0.1:0").await.unwrap());
        let b = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        a.connect(b.local_addr().unwrap()).await.unwrap();
        b.connect(a.local_addr().unwrap()).await.unwrap();
        assert_eq!(a.peer_addr().unwrap(), b.local_addr().unwrap());
        let echo = rt::spawn(async move {
            let mut buf = [0u8; 16];
            for _ in 0..100 {
                let n = b.recv(&mut buf).await.unwrap();
                b.send(&buf[..n]).await.unwrap();
            }
        });
        let mut buf = [0u8; 16];
        for i in 0..100u32 {
            a.send(&i.to_le_bytes()).await.unwrap();
            let n = a.recv(&mut buf).await.unwrap();
            assert_eq!(&buf[..n], &i.to_le_bytes());
        }
        echo.await.unwrap();
    });
}

#[test]
fn datagram_longer_than_buffer_is_truncated() {
    on_both(|| async {
        let a = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        a.send_to(&[5u8; 100], a.local_addr().unwrap())
            .await
            .unwrap();
        let mut small = [0u8; 10];
        let (n, _) = a.recv_from(&mut small).await.unwrap();
        assert_eq!(n, 10);
        assert_eq!(small, [5u8; 10]);
    });
}

#[test]
fn a_std_socket_converts_with_try_from() {
    on_both(|| async {
        let std_socket = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        let a: UdpSocket = std_socket.try_into().unwrap();
        let b = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        a.send_to(b"std", b.local_addr().unwrap()).await.unwrap();
        let mut buf = [0; 8];
        let (n, from) = b.recv_from(&mut buf).await.unwrap();
        assert_eq!((&buf[..n], from), (&b"std"[..], a.local_addr().unwrap()));
    });
}

#[cfg(any(target_os = "android", target_os = "fuchsia", target_os = "linux"))]
#[test]
fn binding_to_a_device_that_does_not_exist_fails_naming_it() {
    on_both(|| async {
        let socket = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let err = socket.bind_device(Some(b"rt-no-such0")).unwrap_err();
        assert!(err.to_string().contains("`rt-no-such0`"), "{err}");
        // ENODEV, or EPERM where binding at all needs CAP_NET_RAW.
        assert!(
            err.kind() == std::io::ErrorKind::PermissionDenied
                || err.to_string().contains("No such device"),
            "{err}"
        );
        assert_eq!(socket.device().unwrap(), None);
    });
}

#[cfg(any(target_os = "android", target_os = "fuchsia", target_os = "linux"))]
#[test]
fn sockets_bound_to_lo_exchange_datagrams_and_none_clears_the_binding() {
    on_both(|| async {
        let a = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        match a.bind_device(Some(b"lo")) {
            Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
                eprintln!("skipped: binding a socket to `lo` is not permitted here ({e})");
                return;
            }
            result => result.unwrap(),
        }
        assert_eq!(a.device().unwrap().as_deref(), Some(&b"lo"[..]));
        let b = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        b.bind_device(Some(b"lo")).unwrap();
        a.send_to(b"via lo", b.local_addr().unwrap()).await.unwrap();
        let mut buf = [0; 8];
        let (n, _) = b.recv_from(&mut buf).await.unwrap();
        assert_eq!(&buf[..n], b"via lo");

        // Changing a binding needs CAP_NET_RAW even on recent kernels.
        match a.bind_device(None) {
            Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
                assert!(e.to_string().contains("removing"), "{e}");
                eprintln!("skipped clearing the binding: not permitted here ({e})");
            }
            result => {
                result.unwrap();
                assert_eq!(a.device().unwrap(), None);
            }
        }
    });
}
