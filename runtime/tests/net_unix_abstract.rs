//! Abstract Unix socket names written as paths (`"\0name"`, Linux and
//! Android), as tokio reads them: `UnixListener::bind`,
//! `UnixStream::connect`, `UnixDatagram::bind`, `connect`, `send_to` and
//! its `try_`/`poll_` forms, and `UnixSocket`; and the abstract-name
//! methods of rt's `SocketAddr` through the re-exported `SocketAddrExt`.
//! On both schedulers.

#![cfg(any(target_os = "linux", target_os = "android"))]

mod support;

use rt::io::{AsyncReadExt, AsyncWriteExt};
use rt::net::unix::{SocketAddr, SocketAddrExt};
use rt::net::{UnixDatagram, UnixListener, UnixSocket, UnixStream};
use std::future::poll_fn;
use std::io::ErrorKind;
use support::on_both;

/// A name unique to this test process, test and runtime: `"\0rt-..."` as
/// a path, and its bytes after the NUL.
fn abstract_path(test: &str) -> (String, Vec<u8>) {
    let flavor = rt::runtime::Handle::current().runtime_flavor();
    let name = format!("rt-abstract-{}-{test}-{flavor:?}", std::process::id());
    (format!("\0{name}"), name.into_bytes())
}

/// tokio's `uds_stream::abstract_socket_name`.
#[test]
fn stream_listener_binds_and_client_connects_by_abstract_name() {
    on_both(|| async {
        let (path, name) = abstract_path("stream");
        let listener = UnixListener::bind(&path).unwrap();
        assert_eq!(
            listener.local_addr().unwrap().as_abstract_name(),
            Some(&name[..])
        );
        let (accepted, client) = rt::join!(listener.accept(), UnixStream::connect(&path));
        let (mut server, _) = accepted.unwrap();
        let mut client = client.unwrap();
        assert_eq!(
            client.peer_addr().unwrap().as_abstract_name(),
            Some(&name[..])
        );
        client.write_all(b"abstract").await.unwrap();
        client.close().await.unwrap();
        let mut got = Vec::new();
        server.read_to_end(&mut got).await.unwrap();
        assert_eq!(got, b"abstract");
        // `as_abstract_name` gives the name without its leading NUL.
        let local = server.into_std().unwrap().local_addr().unwrap();
        assert_eq!(local.as_abstract_name(), Some(&name[..]));
        // No file was made for it.
        assert!(!std::path::Path::new(&path[1..]).exists());
    });
}

#[test]
fn datagram_binds_connects_and_sends_to_abstract_names() {
    on_both(|| async {
        let (path, name) = abstract_path("datagram");
        let (from_path, from_name) = abstract_path("datagram-sender");
        let receiver = UnixDatagram::bind(&path).unwrap();
        let sender = UnixDatagram::bind(&from_path).unwrap();
        let mut buf = [0u8; 16];

        assert_eq!(sender.send_to(b"one", &path).await.unwrap(), 3);
        let (n, from) = receiver.recv_from(&mut buf).await.unwrap();
        assert_eq!(&buf[..n], b"one");
        assert_eq!(from.as_abstract_name(), Some(&from_name[..]));

        sender.writable().await.unwrap();
        assert_eq!(sender.try_send_to(b"two", &path).unwrap(), 3);
        let n = poll_fn(|cx| sender.poll_send_to(cx, b"three", &path))
            .await
            .unwrap();
        assert_eq!(n, 5);
        for expected in [&b"two"[..], b"three"] {
            let (n, _) = receiver.recv_from(&mut buf).await.unwrap();
            assert_eq!(&buf[..n], expected);
        }

        sender.connect(&path).unwrap();
        assert_eq!(
            sender.peer_addr().unwrap().as_abstract_name(),
            Some(&name[..])
        );
        sender.send(b"four").await.unwrap();
        let n = receiver.recv(&mut buf).await.unwrap();
        assert_eq!(&buf[..n], b"four");
    });
}

/// `UnixSocket` takes the same paths (through `socket2`).
#[test]
fn unix_socket_binds_and_connects_by_abstract_name() {
    on_both(|| async {
        let (path, name) = abstract_path("socket");
        let socket = UnixSocket::new_stream().unwrap();
        socket.bind(&path).unwrap();
        let listener = socket.listen(16).unwrap();
        let (accepted, client) = rt::join!(
            listener.accept(),
            UnixSocket::new_stream().unwrap().connect(&path)
        );
        accepted.unwrap();
        assert_eq!(
            client.unwrap().peer_addr().unwrap().as_abstract_name(),
            Some(&name[..])
        );
    });
}

/// The abstract-name constructor (from the re-exported `SocketAddrExt`)
/// and the `*_addr` forms agree with the paths.
#[test]
fn an_address_from_the_name_reaches_a_listener_bound_by_path() {
    on_both(|| async {
        let (path, name) = abstract_path("addr");
        let listener = UnixListener::bind(&path).unwrap();
        let addr = SocketAddr::from_abstract_name(&name).unwrap();
        let (accepted, client) = rt::join!(listener.accept(), UnixStream::connect_addr(&addr));
        accepted.unwrap();
        client.unwrap();
    });
}

/// Only a leading NUL makes a name: one inside a path is still refused,
/// and a name already in use is `AddrInUse`.
#[test]
fn a_nul_inside_a_path_is_refused_and_names_are_exclusive() {
    on_both(|| async {
        let err = UnixListener::bind("rt-abstract\0inside").unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput);
        let (path, _) = abstract_path("exclusive");
        let _first = UnixListener::bind(&path).unwrap();
        let err = UnixListener::bind(&path).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::AddrInUse);
    });
}
