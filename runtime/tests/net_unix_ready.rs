//! Unix-domain sockets' readiness, `poll_*` and `try_*` methods, peeking,
//! peer credentials, addresses (`bind_addr`, `connect_addr`, abstract
//! names), conversions and the reunited halves. On both schedulers.

mod support;

use rt::io::{AsyncReadExt, AsyncWriteExt, Interest};
use rt::net::unix::SocketAddr;
use rt::net::{UnixDatagram, UnixListener, UnixStream};
use std::future::poll_fn;
use std::io::{ErrorKind, IoSlice, IoSliceMut, Read, Write};
use std::path::PathBuf;
use std::sync::Arc;
use support::{on_both, spawn_all_waiting};

fn socket_path(name: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("rt-ready-{name}-{}.sock", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}

#[test]
fn stream_ready_for_either_side_says_which_side_is_ready() {
    on_both(|| async {
        let (a, b) = UnixStream::pair().unwrap();
        support::check_ready_for_either_side!(Arc::new(a), b).await;
    });
}

#[test]
fn stream_try_and_poll_methods_move_bytes() {
    on_both(|| async {
        let (a, b) = UnixStream::pair().unwrap();
        let err = b.try_read(&mut [0; 4]).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::WouldBlock);
        poll_fn(|cx| a.poll_write_ready(cx)).await.unwrap();
        let n = a
            .try_write_vectored(&[IoSlice::new(b"ab"), IoSlice::new(b"cd")])
            .unwrap();
        assert_eq!(n, 4);
        assert_eq!(a.try_write(b"e").unwrap(), 1);
        poll_fn(|cx| b.poll_read_ready(cx)).await.unwrap();
        let (mut x, mut y) = ([0u8; 1], [0u8; 8]);
        let n = b
            .try_read_vectored(&mut [IoSliceMut::new(&mut x), IoSliceMut::new(&mut y)])
            .unwrap();
        assert_eq!(n, 5);
        assert_eq!((&x, &y[..4]), (b"a", &b"bcde"[..]));
        // Empty now: the try would block and clears the readiness.
        assert_eq!(
            b.try_read(&mut y).unwrap_err().kind(),
            ErrorKind::WouldBlock
        );
        let b = Arc::new(b);
        let reader = spawn_all_waiting(vec![{
            let b = b.clone();
            async move {
                // `readable` may report readiness that is gone by the read
                // (on the multi-thread runtime the two writes above can
                // each raise an edge, and the second may be delivered
                // after the clear): retry on `WouldBlock`, as tokio's docs
                // prescribe.
                let mut buf = [0u8; 8];
                loop {
                    b.readable().await.unwrap();
                    match b.try_read(&mut buf) {
                        Ok(n) => break buf[..n].to_vec(),
                        Err(e) if e.kind() == ErrorKind::WouldBlock => continue,
                        Err(e) => panic!("{e}"),
                    }
                }
            }
        }])
        .await
        .pop()
        .unwrap();
        a.writable().await.unwrap();
        a.try_write(b"late").unwrap();
        assert_eq!(reader.await.unwrap(), b"late");
    });
}

#[test]
fn peer_credentials_are_this_process() {
    on_both(|| async {
        let (a, _b) = UnixStream::pair().unwrap();
        let cred = a.peer_cred().unwrap();
        // SAFETY: getuid and getgid have no preconditions.
        let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
        assert_eq!((cred.uid(), cred.gid()), (uid, gid));
        if cfg!(any(target_os = "linux", target_os = "android")) {
            assert_eq!(cred.pid(), Some(std::process::id() as i32));
        }
        // Through a listener too.
        let path = socket_path("cred");
        let listener = UnixListener::bind(&path).unwrap();
        let client = UnixStream::connect(&path).await.unwrap();
        let (server, _) = listener.accept().await.unwrap();
        assert_eq!(server.peer_cred().unwrap().uid(), uid);
        assert_eq!(client.peer_cred().unwrap().uid(), uid);
        std::fs::remove_file(&path).unwrap();
    });
}

#[test]
fn bind_addr_and_connect_addr_take_paths_and_abstract_names() {
    on_both(|| async {
        let path = socket_path("addr");
        let addr = SocketAddr::from_pathname(&path).unwrap();
        let listener = UnixListener::bind_addr(&addr).unwrap();
        let mut client = UnixStream::connect_addr(&addr).await.unwrap();
        let (mut server, _) = listener.accept().await.unwrap();
        client.write_all(b"by address").await.unwrap();
        client.close().await.unwrap();
        let mut got = String::new();
        server.read_to_string(&mut got).await.unwrap();
        assert_eq!(got, "by address");
        std::fs::remove_file(&path).unwrap();
        // Nobody listens there any more.
        assert!(UnixStream::connect_addr(&addr).await.is_err());

        #[cfg(target_os = "linux")]
        {
            use std::os::linux::net::SocketAddrExt;
            let name = format!("rt-test-abstract-{}", std::process::id());
            let addr = SocketAddr::from_abstract_name(name.as_bytes()).unwrap();
            let listener = UnixListener::bind_addr(&addr).unwrap();
            let client = UnixStream::connect_addr(&addr).await.unwrap();
            let (server, _) = listener.accept().await.unwrap();
            assert_eq!(
                client.peer_addr().unwrap().as_abstract_name(),
                Some(name.as_bytes())
            );
            drop(server);

            let datagram_name = format!("{name}-datagram");
            let dest = SocketAddr::from_abstract_name(datagram_name.as_bytes()).unwrap();
            let receiver = UnixDatagram::bind_addr(&dest).unwrap();
            let sender =
                UnixDatagram::bind_addr(&SocketAddr::from_abstract_name(name.as_bytes()).unwrap())
                    .unwrap();
            // Sent with std (whose `send_to_addr` takes an address), peeked with rt.
            let std_sender = sender.into_std().unwrap();
            std_sender.send_to_addr(b"abstract", &dest).unwrap();
            let mut buf = [0u8; 16];
            let (n, from) = receiver.peek_from(&mut buf).await.unwrap();
            assert_eq!(&buf[..n], b"abstract");
            assert_eq!(from.as_abstract_name(), Some(name.as_bytes()));
        }
    });
}

#[test]
fn conversions_to_std_keep_the_sockets_working() {
    on_both(|| async {
        let path = socket_path("std");
        let listener = UnixListener::bind(&path).unwrap();
        let std_listener = listener.into_std().unwrap();
        let client = std::os::unix::net::UnixStream::connect(&path).unwrap();
        let listener = UnixListener::from_std(std_listener).unwrap();
        let (server, _) = listener.accept().await.unwrap();
        let mut server = server.into_std().unwrap();
        server.set_nonblocking(false).unwrap();
        (&client).write_all(b"std").unwrap();
        let mut buf = [0u8; 3];
        server.read_exact(&mut buf).unwrap();
        assert_eq!(&buf, b"std");
        // The options rt has no method for, through socket2.
        let stream = UnixStream::from_std(client).unwrap();
        socket2::SockRef::from(&stream)
            .set_send_buffer_size(64 * 1024)
            .unwrap();
        assert!(socket2::SockRef::from(&stream).send_buffer_size().unwrap() >= 64 * 1024);
        assert!(stream.take_error().unwrap().is_none());
        std::fs::remove_file(&path).unwrap();
    });
}

#[test]
fn reunited_unix_halves_are_the_stream_and_mismatched_ones_come_back() {
    on_both(|| async {
        let (a, mut peer) = UnixStream::pair().unwrap();
        let (other, _other_peer) = UnixStream::pair().unwrap();
        let (read, write) = a.into_split();
        let (other_read, other_write) = other.into_split();
        let err = read.reunite(other_write).unwrap_err();
        assert!(err.to_string().contains("same UnixStream"), "{err}");
        let rt::net::unix::ReuniteError(read, _other_write) = err;
        let rt::net::unix::ReuniteError(_other_read, write) =
            write.reunite(other_read).unwrap_err();
        let mut a = write.reunite(read).unwrap();
        a.write_all(b"whole again").await.unwrap();
        a.close().await.unwrap();
        let mut got = String::new();
        peer.read_to_string(&mut got).await.unwrap();
        assert_eq!(got, "whole again");

        let (a, peer) = std::os::unix::net::UnixStream::pair().unwrap();
        support::check_forgotten_write_half!(UnixStream::from_std(a).unwrap(), peer).await;
    });
}

#[test]
fn datagram_try_poll_and_peek_methods() {
    on_both(|| async {
        let path = socket_path("dgram");
        let server = Arc::new(UnixDatagram::bind(&path).unwrap());
        let client_path = socket_path("dgram-client");
        let client = UnixDatagram::bind(&client_path).unwrap();
        let mut buf = [0u8; 16];
        assert_eq!(
            server.try_recv_from(&mut buf).unwrap_err().kind(),
            ErrorKind::WouldBlock
        );
        assert_eq!(
            server.try_peek_from(&mut buf).unwrap_err().kind(),
            ErrorKind::WouldBlock
        );
        let ready = server
            .ready(Interest::READABLE | Interest::WRITABLE)
            .await
            .unwrap();
        assert!(ready.is_writable() && !ready.is_readable());

        let receiver = spawn_all_waiting(vec![{
            let server = server.clone();
            async move {
                poll_fn(|cx| server.poll_recv_ready(cx)).await.unwrap();
                let mut buf = [0u8; 16];
                let (n, peeked) = poll_fn(|cx| server.poll_peek_from(cx, &mut buf))
                    .await
                    .unwrap();
                let (m, from) = poll_fn(|cx| server.poll_recv_from(cx, &mut buf))
                    .await
                    .unwrap();
                assert_eq!(n, m);
                assert_eq!(peeked.as_pathname(), from.as_pathname());
                (buf[..m].to_vec(), from.as_pathname().map(|p| p.to_owned()))
            }
        }])
        .await
        .pop()
        .unwrap();
        poll_fn(|cx| client.poll_send_ready(cx)).await.unwrap();
        let n = poll_fn(|cx| client.poll_send_to(cx, b"polled", &path))
            .await
            .unwrap();
        assert_eq!(n, 6);
        let (got, from) = receiver.await.unwrap();
        assert_eq!(
            (got.as_slice(), from),
            (&b"polled"[..], Some(client_path.clone()))
        );

        client.writable().await.unwrap();
        assert_eq!(client.try_send_to(b"tried", &path).unwrap(), 5);
        server.readable().await.unwrap();
        let (n, from) = server.try_peek_from(&mut buf).unwrap();
        assert_eq!(from.as_pathname(), Some(client_path.as_path()));
        assert_eq!(server.try_recv_from(&mut buf).unwrap().0, n);
        assert_eq!(&buf[..n], b"tried");

        client.connect(&path).unwrap();
        assert_eq!(
            poll_fn(|cx| client.poll_send(cx, b"conn")).await.unwrap(),
            4
        );
        let (n, from) = server.peek_from(&mut buf).await.unwrap();
        assert_eq!((n, from.as_pathname()), (4, Some(client_path.as_path())));
        assert_eq!(
            poll_fn(|cx| server.poll_recv(cx, &mut buf)).await.unwrap(),
            4
        );
        assert_eq!(client.try_send(b"x").unwrap(), 1);
        server.readable().await.unwrap();
        assert_eq!(server.try_recv(&mut buf).unwrap(), 1);
        std::fs::remove_file(&path).unwrap();
        std::fs::remove_file(&client_path).unwrap();

        // An unnamed sender peeks as unnamed.
        let (a, b) = UnixDatagram::pair().unwrap();
        a.send(b"anon").await.unwrap();
        let (n, from) = b.peek_from(&mut buf).await.unwrap();
        assert!(n == 4 && from.is_unnamed());
        let std = a.into_std().unwrap();
        std.send(b"std").unwrap();
        assert_eq!(b.recv(&mut buf).await.unwrap(), 4);
        assert_eq!(b.recv(&mut buf).await.unwrap(), 3);
    });
}

#[test]
fn try_io_and_async_io_on_unix_sockets() {
    on_both(|| async {
        let (a, b) = UnixStream::pair().unwrap();
        let err = b
            .try_io(Interest::READABLE, || -> std::io::Result<()> {
                panic!("nothing was reported readable")
            })
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::WouldBlock);
        let socket = socket2::SockRef::from(&a);
        let n = a
            .async_io(Interest::WRITABLE, || socket.send(b"raw"))
            .await
            .unwrap();
        assert_eq!(n, 3);
        b.readable().await.unwrap();
        let peer = socket2::SockRef::from(&b);
        let mut buf = [0u8; 8];
        let n = b
            .try_io(Interest::READABLE, || (&*peer).read(&mut buf))
            .unwrap();
        assert_eq!(&buf[..n], b"raw");

        let (x, y) = UnixDatagram::pair().unwrap();
        let socket = socket2::SockRef::from(&x);
        assert_eq!(
            x.async_io(Interest::WRITABLE, || socket.send(b"dg"))
                .await
                .unwrap(),
            2
        );
        y.readable().await.unwrap();
        assert_eq!(
            y.try_io(Interest::READABLE, || y.try_recv(&mut buf))
                .unwrap(),
            2
        );
    });
}

#[test]
fn owned_unix_halves_wait_and_try_on_their_own_side() {
    on_both(|| async {
        let (a, mut b) = UnixStream::pair().unwrap();
        let (read, write) = a.into_split();
        assert!(write.local_addr().unwrap().is_unnamed());
        assert!(write.as_ref().peer_addr().unwrap().is_unnamed());
        support::check_owned_halves!(Arc::new(read), write, &mut b).await;
    });
}

#[test]
fn borrowed_unix_halves_wait_try_and_name_addresses_on_their_own_side() {
    on_both(|| async {
        let path = socket_path("borrowed-halves");
        let listener = UnixListener::bind(&path).unwrap();
        let mut client = UnixStream::connect(&path).await.unwrap();
        let (mut server, _) = listener.accept().await.unwrap();
        let (read, write) = client.split();
        for (local, peer) in [
            (read.local_addr().unwrap(), read.peer_addr().unwrap()),
            (write.local_addr().unwrap(), write.peer_addr().unwrap()),
        ] {
            assert!(local.is_unnamed(), "{local:?}");
            assert_eq!(peer.as_pathname(), Some(path.as_path()));
        }
        assert_eq!(
            read.as_ref().peer_addr().unwrap().as_pathname(),
            Some(path.as_path())
        );
        assert!(write.as_ref().local_addr().unwrap().is_unnamed());

        support::check_split_halves!(&read, &write, &mut server).await;
        std::fs::remove_file(&path).unwrap();
    });
}

/// tokio's `uds_stream::try_read_write`, over a listener: `writable()`
/// stays ready while `try_write` fills the send buffer (past the
/// cooperative budget), and the reads drain it.
#[test]
fn stream_try_read_write() {
    on_both(|| async {
        let path = socket_path("try-read-write");
        let listener = UnixListener::bind(&path).unwrap();
        let client = UnixStream::connect(&path).await.unwrap();
        let (server, _) = listener.accept().await.unwrap();
        support::check_try_read_write!(client, server, b"hello world", 3).await;
        std::fs::remove_file(&path).unwrap();
    });
}

/// tokio's `uds_stream::poll_read_ready` (which hung on rt: an idle
/// accepted stream never became readable): readable at the first poll
/// (assumed until a read finds nothing), then follows the reactor.
#[test]
fn stream_poll_read_ready_starts_assumed_on_an_accepted_stream() {
    support::on_single_poller(|| async {
        let path = socket_path(&format!(
            "poll-read-ready-{:?}",
            rt::runtime::Handle::current().runtime_flavor()
        ));
        let listener = UnixListener::bind(&path).unwrap();
        let client = UnixStream::connect(&path).await.unwrap();
        let (server, _) = listener.accept().await.unwrap();
        support::check_poll_read_ready!(client, server).await;
        std::fs::remove_file(&path).unwrap();
    });
}

/// tokio's `uds_stream::pair_starts_writable`: both ends of a fresh pair
/// are writable before the reactor's first turn, and not readable until
/// the peer writes.
#[test]
fn stream_pair_starts_writable() {
    use futures::FutureExt;
    support::on_single_poller(|| async {
        let (a, mut b) = UnixStream::pair().unwrap();
        assert!(matches!(a.writable().now_or_never(), Some(Ok(()))));
        assert_eq!(a.try_write(b"hi").unwrap(), 2);
        assert!(matches!(b.write_all(b"yo").now_or_never(), Some(Ok(()))));

        let (c, _d) = UnixStream::pair().unwrap();
        assert!(c.readable().now_or_never().is_none());
        let err = c.try_read(&mut [0u8; 1]).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::WouldBlock);

        // The peer's bytes still arrive through the reactor.
        let mut buf = [0u8; 8];
        let n = loop {
            a.readable().await.unwrap();
            match a.try_read(&mut buf) {
                Ok(n) => break n,
                Err(e) if e.kind() == ErrorKind::WouldBlock => continue,
                Err(e) => panic!("{e}"),
            }
        };
        assert_eq!(&buf[..n], b"yo");
    });
}

/// tokio's `uds_datagram::pair_starts_writable`: `poll_send_ready` is
/// ready on a fresh pair before the reactor's first turn; receiving waits
/// for the peer.
#[test]
fn datagram_pair_starts_writable() {
    use futures::FutureExt;
    support::on_single_poller(|| async {
        let (a, b) = UnixDatagram::pair().unwrap();
        let ready = poll_fn(|cx| a.poll_send_ready(cx)).now_or_never();
        assert!(matches!(ready, Some(Ok(()))), "{ready:?}");
        a.try_send(b"hi").unwrap();
        b.try_send(b"yo").unwrap();

        let (c, _d) = UnixDatagram::pair().unwrap();
        assert!(poll_fn(|cx| c.poll_recv_ready(cx)).now_or_never().is_none());
        let err = c.try_recv(&mut [0u8; 1]).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::WouldBlock);

        // The peer's datagram still arrives through the reactor.
        let mut buf = [0u8; 8];
        let n = loop {
            a.readable().await.unwrap();
            match a.try_recv(&mut buf) {
                Ok(n) => break n,
                Err(e) if e.kind() == ErrorKind::WouldBlock => continue,
                Err(e) => panic!("{e}"),
            }
        };
        assert_eq!(&buf[..n], b"yo");
    });
}
