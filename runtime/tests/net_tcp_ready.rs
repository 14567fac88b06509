//! `TcpStream`'s readiness and `&self` I/O: `ready(interest)`, the
//! `poll_*_ready` methods, vectored `try_*`, peeking (also on the read
//! halves), `try_io`/`async_io`, the socket options through `socket2`, and
//! putting owned halves back together. On both schedulers.

mod support;

use rt::io::{AsyncReadExt, AsyncWriteExt, Interest, Ready};
use rt::net::TcpStream;
use std::future::poll_fn;
use std::io::{ErrorKind, IoSlice, IoSliceMut, Read};
use std::sync::Arc;
use std::time::Duration;
use support::{on_both, spawn_all_waiting, tcp_pair};

/// A read through `socket2`, as code with calls rt has no method for does.
fn raw_read(stream: &TcpStream, buf: &mut [u8]) -> std::io::Result<usize> {
    let socket = socket2::SockRef::from(stream);
    (&*socket).read(buf)
}

#[test]
fn ready_for_either_side_says_which_side_is_ready() {
    on_both(|| async {
        let (client, server) = tcp_pair().await;
        support::check_ready_for_either_side!(Arc::new(client), server).await;
    });
}

#[test]
fn ready_for_errors_alone_sees_a_reset_connection() {
    on_both(|| async {
        let (client, server) = tcp_pair().await;
        let server = Arc::new(server);
        let waiter = spawn_all_waiting(vec![{
            let server = server.clone();
            async move { server.ready(Interest::ERROR).await.unwrap() }
        }])
        .await
        .pop()
        .unwrap();
        // Dropping with a zero linger resets the connection.
        client.set_linger(Some(Duration::ZERO)).unwrap();
        drop(client);
        assert_eq!(waiter.await.unwrap(), Ready::ERROR);
        let error = server.take_error().unwrap().expect("the reset is queued");
        assert_eq!(error.kind(), ErrorKind::ConnectionReset);
    });
}

#[test]
fn poll_read_ready_and_poll_write_ready_wait_then_report() {
    on_both(|| async {
        let (client, mut server) = tcp_pair().await;
        poll_fn(|cx| client.poll_write_ready(cx)).await.unwrap();
        assert_eq!(client.try_write(b"hello").unwrap(), 5);
        let client = Arc::new(client);
        let reader = spawn_all_waiting(vec![{
            let client = client.clone();
            async move {
                poll_fn(|cx| client.poll_read_ready(cx)).await.unwrap();
                let mut buf = [0u8; 8];
                let n = client.try_read(&mut buf).unwrap();
                buf[..n].to_vec()
            }
        }])
        .await
        .pop()
        .unwrap();
        server.write_all(b"back").await.unwrap();
        assert_eq!(reader.await.unwrap(), b"back");
        let mut got = [0u8; 5];
        server.read_exact(&mut got).await.unwrap();
        assert_eq!(&got, b"hello");
    });
}

#[test]
fn vectored_tries_move_every_slice() {
    on_both(|| async {
        let (client, server) = tcp_pair().await;
        client.writable().await.unwrap();
        let n = client
            .try_write_vectored(&[
                IoSlice::new(b"head"),
                IoSlice::new(b"-"),
                IoSlice::new(b"body"),
            ])
            .unwrap();
        assert_eq!(n, 9);
        let mut got = Vec::new();
        while got.len() < 9 {
            server.readable().await.unwrap();
            let (mut a, mut b) = ([0u8; 4], [0u8; 16]);
            let mut bufs = [IoSliceMut::new(&mut a), IoSliceMut::new(&mut b)];
            match server.try_read_vectored(&mut bufs) {
                Ok(n) => {
                    let mut joined = a.to_vec();
                    joined.extend_from_slice(&b);
                    got.extend_from_slice(&joined[..n]);
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                Err(e) => panic!("{e}"),
            }
        }
        assert_eq!(got, b"head-body");
        // Nothing left: the next try would block.
        let mut buf = [0u8; 4];
        let err = server
            .try_read_vectored(&mut [IoSliceMut::new(&mut buf)])
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::WouldBlock);
    });
}

#[test]
fn peeking_leaves_the_bytes_for_the_read_on_the_stream_and_its_halves() {
    on_both(|| async {
        let (mut client, server) = tcp_pair().await;
        client.write_all(b"abc").await.unwrap();
        let mut buf = [0u8; 8];
        let n = poll_fn(|cx| server.poll_peek(cx, &mut buf)).await.unwrap();
        assert_eq!(&buf[..n], &b"abc"[..n]);
        let (mut read, write) = server.into_split();
        let n = read.peek(&mut buf).await.unwrap();
        assert_eq!(&buf[..n], &b"abc"[..n]);
        let n = poll_fn(|cx| read.poll_peek(cx, &mut buf)).await.unwrap();
        assert_eq!(&buf[..n], &b"abc"[..n]);
        let mut server = read.reunite(write).unwrap();
        {
            let (mut read, _write) = server.split();
            let n = read.peek(&mut buf).await.unwrap();
            assert_eq!(&buf[..n], &b"abc"[..n]);
        }
        let mut got = [0u8; 3];
        server.read_exact(&mut got).await.unwrap();
        assert_eq!(&got, b"abc");
    });
}

#[test]
fn reunited_halves_are_the_stream_and_halves_of_two_streams_come_back() {
    on_both(|| async {
        let (client, mut server) = tcp_pair().await;
        let (other, _other_server) = tcp_pair().await;
        let (read, write) = client.into_split();
        let (other_read, other_write) = other.into_split();
        let rt::net::tcp::ReuniteError(read, other_write) = read.reunite(other_write).unwrap_err();
        let err = other_read.reunite(write).unwrap_err();
        assert!(err.to_string().contains("same TcpStream"), "{err}");
        let rt::net::tcp::ReuniteError(_other_read, write) = err;
        drop(other_write);
        // Reuniting does not shut the write side down.
        let mut client = write.reunite(read).unwrap();
        client.write_all(b"still open").await.unwrap();
        client.close().await.unwrap();
        let mut got = String::new();
        server.read_to_string(&mut got).await.unwrap();
        assert_eq!(got, "still open");
    });
}

#[test]
fn a_forgotten_write_half_leaves_the_write_side_open() {
    on_both(|| async {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let peer = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let stream = TcpStream::from_std(listener.accept().unwrap().0).unwrap();
        support::check_forgotten_write_half!(stream, peer).await;
    });
}

#[test]
fn try_io_and_async_io_run_socket2_calls_under_the_readiness_rules() {
    // A single poller: no event lands between the first `try_io`'s
    // `WouldBlock` and the second.
    support::on_single_poller(|| async {
        let (mut client, server) = tcp_pair().await;
        let mut buf = [0u8; 16];
        // An accepted stream is assumed readable: the first try runs the
        // call, which finds nothing and clears the assumption.
        let err = server
            .try_io(Interest::READABLE, || raw_read(&server, &mut buf))
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::WouldBlock);
        let err = server
            .try_io(Interest::READABLE, || -> std::io::Result<usize> {
                panic!("nothing was reported readable")
            })
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::WouldBlock);
        let server = Arc::new(server);
        let reader = spawn_all_waiting(vec![{
            let server = server.clone();
            async move {
                let mut buf = [0u8; 16];
                let n = server
                    .async_io(Interest::READABLE, || raw_read(&server, &mut buf))
                    .await
                    .unwrap();
                buf[..n].to_vec()
            }
        }])
        .await
        .pop()
        .unwrap();
        client.write_all(b"first").await.unwrap();
        assert_eq!(reader.await.unwrap(), b"first");
        // That read emptied the socket; a try now would block and clears.
        client.write_all(b"second").await.unwrap();
        server.readable().await.unwrap();
        let n = server
            .try_io(Interest::READABLE, || raw_read(&server, &mut buf))
            .unwrap();
        assert_eq!(&buf[..n], b"second");
    });
}

#[test]
fn options_through_the_stream_and_through_socket2_agree() {
    on_both(|| async {
        let (client, server) = tcp_pair().await;
        client.set_ttl(17).unwrap();
        assert_eq!(client.ttl().unwrap(), 17);
        assert_eq!(socket2::SockRef::from(&client).ttl_v4().unwrap(), 17);
        socket2::SockRef::from(&client).set_keepalive(true).unwrap();
        assert!(socket2::SockRef::from(&client).keepalive().unwrap());
        assert!(client.take_error().unwrap().is_none());
        // Whole seconds, a fraction rounded up: half a second is no reset.
        server.set_linger(Some(Duration::from_millis(500))).unwrap();
        assert_eq!(server.linger().unwrap(), Some(Duration::from_secs(1)));
        server.set_linger(None).unwrap();
        let std = server.into_std().unwrap();
        assert_eq!(std.peer_addr().unwrap(), client.local_addr().unwrap());
        let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        listener.set_ttl(33).unwrap();
        assert_eq!(socket2::SockRef::from(&listener).ttl_v4().unwrap(), 33);
    });
}

#[test]
fn owned_halves_wait_and_try_on_their_own_side() {
    on_both(|| async {
        let (client, mut server) = tcp_pair().await;
        let (read, write) = client.into_split();
        assert_eq!(write.local_addr().unwrap(), read.local_addr().unwrap());
        assert_eq!(
            write.as_ref().peer_addr().unwrap(),
            read.peer_addr().unwrap()
        );
        support::check_owned_halves!(Arc::new(read), write, &mut server).await;
    });
}

#[test]
fn borrowed_halves_wait_try_and_name_addresses_on_their_own_side() {
    on_both(|| async {
        let (mut client, mut server) = tcp_pair().await;
        let (local, peer) = (client.local_addr().unwrap(), client.peer_addr().unwrap());
        let (read, write) = client.split();
        assert_eq!(
            (read.local_addr().unwrap(), read.peer_addr().unwrap()),
            (local, peer)
        );
        assert_eq!(
            (write.local_addr().unwrap(), write.peer_addr().unwrap()),
            (local, peer)
        );
        assert_eq!(read.as_ref().local_addr().unwrap(), local);
        assert_eq!(write.as_ref().peer_addr().unwrap(), peer);

        support::check_split_halves!(&read, &write, &mut server).await;
    });
}

/// tokio's `tcp_stream::try_read_write`: `writable()` stays ready while
/// `try_write` fills the send buffer 4000 bytes at a time (many more
/// writes than the cooperative budget's 128 units), and the reads drain it.
#[test]
fn try_read_write() {
    on_both(|| async {
        let (client, server) = tcp_pair().await;
        support::check_try_read_write!(client, server, &[2u8; 4000], 10).await;
    });
}

/// tokio's `tcp_stream::poll_read_ready`: an accepted stream is readable
/// at the first poll (assumed until a read finds nothing), then follows
/// the reactor's events.
#[test]
fn poll_read_ready_starts_assumed_on_an_accepted_stream() {
    support::on_single_poller(|| async {
        let (client, server) = tcp_pair().await;
        support::check_poll_read_ready!(client, server).await;
    });
}
