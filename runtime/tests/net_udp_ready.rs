//! `UdpSocket`'s readiness, `poll_*` and `try_*` methods, peeking, and
//! its options (broadcast, multicast, TTL, type of service) through rt and
//! through `socket2`. On both schedulers.

mod support;

use rt::io::{Interest, Ready};
use rt::net::UdpSocket;
use std::future::poll_fn;
use std::io::ErrorKind;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;
use support::{on_both, spawn_all_waiting};

async fn bound() -> UdpSocket {
    UdpSocket::bind("127.0.0.1:0").await.unwrap()
}

#[test]
fn ready_says_writable_at_once_and_readable_once_a_datagram_is_in() {
    on_both(|| async {
        let socket = Arc::new(bound().await);
        let me = socket.local_addr().unwrap();
        let ready = socket
            .ready(Interest::READABLE | Interest::WRITABLE)
            .await
            .unwrap();
        assert!(ready.is_writable() && !ready.is_readable(), "{ready:?}");
        let waiter = spawn_all_waiting(vec![{
            let socket = socket.clone();
            async move { socket.ready(Interest::READABLE).await.unwrap() }
        }])
        .await
        .pop()
        .unwrap();
        let sender = bound().await;
        sender.send_to(b"ping", me).await.unwrap();
        assert!(waiter.await.unwrap().is_readable());
        let mut buf = [0u8; 8];
        let (n, from) = socket.try_recv_from(&mut buf).unwrap();
        assert_eq!(
            (&buf[..n], from),
            (&b"ping"[..], sender.local_addr().unwrap())
        );
    });
}

#[test]
fn try_methods_would_block_without_readiness_and_move_datagrams_with_it() {
    on_both(|| async {
        let a = bound().await;
        let b = bound().await;
        let (a_addr, b_addr) = (a.local_addr().unwrap(), b.local_addr().unwrap());
        let mut buf = [0u8; 8];
        assert_eq!(
            b.try_recv_from(&mut buf).unwrap_err().kind(),
            ErrorKind::WouldBlock
        );
        assert_eq!(
            b.try_peek_from(&mut buf).unwrap_err().kind(),
            ErrorKind::WouldBlock
        );
        a.writable().await.unwrap();
        assert_eq!(a.try_send_to(b"one", b_addr).unwrap(), 3);
        b.readable().await.unwrap();
        assert_eq!(b.try_peek_from(&mut buf).unwrap(), (3, a_addr));
        assert_eq!(b.try_recv_from(&mut buf).unwrap(), (3, a_addr));
        assert_eq!(&buf[..3], b"one");
        // The queue is empty: the try would block, which clears readiness.
        assert_eq!(
            b.try_recv_from(&mut buf).unwrap_err().kind(),
            ErrorKind::WouldBlock
        );

        a.connect(b_addr).await.unwrap();
        b.connect(a_addr).await.unwrap();
        assert_eq!(a.try_send(b"two").unwrap(), 3);
        b.readable().await.unwrap();
        assert_eq!(b.try_recv(&mut buf).unwrap(), 3);
        assert_eq!(&buf[..3], b"two");
        assert_eq!(
            b.try_recv(&mut buf).unwrap_err().kind(),
            ErrorKind::WouldBlock
        );
    });
}

#[test]
fn poll_methods_receive_and_send_from_a_task_polling_them() {
    on_both(|| async {
        let socket = Arc::new(bound().await);
        let me = socket.local_addr().unwrap();
        let peer = bound().await;
        let peer_addr = peer.local_addr().unwrap();
        let receiver = spawn_all_waiting(vec![{
            let socket = socket.clone();
            async move {
                poll_fn(|cx| socket.poll_recv_ready(cx)).await.unwrap();
                let mut buf = [0u8; 16];
                let (n, peeked_from) = poll_fn(|cx| socket.poll_peek_from(cx, &mut buf))
                    .await
                    .unwrap();
                let (m, from) = poll_fn(|cx| socket.poll_recv_from(cx, &mut buf))
                    .await
                    .unwrap();
                assert_eq!((n, peeked_from), (m, from));
                (buf[..m].to_vec(), from)
            }
        }])
        .await
        .pop()
        .unwrap();
        poll_fn(|cx| peer.poll_send_ready(cx)).await.unwrap();
        let sent = poll_fn(|cx| peer.poll_send_to(cx, b"polled", me))
            .await
            .unwrap();
        assert_eq!(sent, 6);
        assert_eq!(receiver.await.unwrap(), (b"polled".to_vec(), peer_addr));

        socket.connect(peer_addr).await.unwrap();
        peer.connect(me).await.unwrap();
        assert_eq!(poll_fn(|cx| peer.poll_send(cx, b"conn")).await.unwrap(), 4);
        let mut buf = [0u8; 8];
        let n = poll_fn(|cx| socket.poll_recv(cx, &mut buf)).await.unwrap();
        assert_eq!(&buf[..n], b"conn");
    });
}

#[test]
fn peek_from_leaves_the_datagram_for_the_receive() {
    on_both(|| async {
        let socket = bound().await;
        let me = socket.local_addr().unwrap();
        socket.send_to(b"first", me).await.unwrap();
        socket.send_to(b"second", me).await.unwrap();
        let mut buf = [0u8; 16];
        for _ in 0..2 {
            let (n, from) = socket.peek_from(&mut buf).await.unwrap();
            assert_eq!((&buf[..n], from), (&b"first"[..], me));
        }
        assert_eq!(socket.recv_from(&mut buf).await.unwrap().0, 5);
        let (n, _) = socket.peek_from(&mut buf).await.unwrap();
        assert_eq!(&buf[..n], b"second");
    });
}

#[test]
fn peek_on_a_connected_socket_leaves_the_datagram_for_the_receive() {
    on_both(|| async {
        let (a, b) = (bound().await, bound().await);
        a.connect(b.local_addr().unwrap()).await.unwrap();
        b.connect(a.local_addr().unwrap()).await.unwrap();
        let mut buf = [0u8; 16];
        assert_eq!(
            b.try_peek(&mut buf).unwrap_err().kind(),
            ErrorKind::WouldBlock
        );
        a.send(b"first").await.unwrap();
        a.send(b"second").await.unwrap();
        let n = b.peek(&mut buf).await.unwrap();
        assert_eq!(&buf[..n], b"first");
        let n = poll_fn(|cx| b.poll_peek(cx, &mut buf)).await.unwrap();
        assert_eq!(&buf[..n], b"first");
        assert_eq!(b.try_peek(&mut buf).unwrap(), 5);
        // A short buffer gets the start; the datagram stays whole.
        let mut short = [0u8; 2];
        assert_eq!(b.peek(&mut short).await.unwrap(), 2);
        assert_eq!(&short, b"fi");
        let n = b.recv(&mut buf).await.unwrap();
        assert_eq!(&buf[..n], b"first");
        let n = b.try_peek(&mut buf).unwrap();
        assert_eq!(&buf[..n], b"second");
        assert_eq!(b.try_recv(&mut buf).unwrap(), 6);
        assert_eq!(
            b.try_peek(&mut buf).unwrap_err().kind(),
            ErrorKind::WouldBlock
        );
    });
}

#[test]
fn tasks_peeking_at_once_all_see_the_datagram_and_it_stays() {
    on_both(|| async {
        let socket = Arc::new(bound().await);
        socket.connect(socket.local_addr().unwrap()).await.unwrap();
        let peekers = spawn_all_waiting(
            (0..3)
                .map(|_| {
                    let socket = socket.clone();
                    async move {
                        let mut buf = [0u8; 8];
                        let n = socket.peek(&mut buf).await.unwrap();
                        buf[..n].to_vec()
                    }
                })
                .collect(),
        )
        .await;
        socket.send(b"shared").await.unwrap();
        for peeker in peekers {
            assert_eq!(peeker.await.unwrap(), b"shared");
        }
        let mut buf = [0u8; 8];
        let n = socket.recv(&mut buf).await.unwrap();
        assert_eq!(&buf[..n], b"shared");
    });
}

#[test]
fn peek_sender_names_each_sender_in_turn_and_leaves_the_datagrams() {
    on_both(|| async {
        let receiver = Arc::new(bound().await);
        let to = receiver.local_addr().unwrap();
        let (first, second) = (bound().await, bound().await);
        let (first_addr, second_addr) = (first.local_addr().unwrap(), second.local_addr().unwrap());
        assert_eq!(
            receiver.try_peek_sender().unwrap_err().kind(),
            ErrorKind::WouldBlock
        );
        // A task waiting for a sender is woken by the first datagram.
        let waiter = spawn_all_waiting(vec![{
            let receiver = receiver.clone();
            async move { receiver.peek_sender().await.unwrap() }
        }])
        .await
        .pop()
        .unwrap();
        first.send_to(b"one", to).await.unwrap();
        assert_eq!(waiter.await.unwrap(), first_addr);
        // An empty datagram has a sender too.
        second.send_to(b"", to).await.unwrap();
        assert_eq!(receiver.peek_sender().await.unwrap(), first_addr);
        assert_eq!(
            poll_fn(|cx| receiver.poll_peek_sender(cx)).await.unwrap(),
            first_addr
        );
        assert_eq!(receiver.try_peek_sender().unwrap(), first_addr);
        let mut buf = [0u8; 8];
        assert_eq!(receiver.recv_from(&mut buf).await.unwrap(), (3, first_addr));
        assert_eq!(receiver.peek_sender().await.unwrap(), second_addr);
        assert_eq!(receiver.try_recv_from(&mut buf).unwrap(), (0, second_addr));
        assert_eq!(
            receiver.try_peek_sender().unwrap_err().kind(),
            ErrorKind::WouldBlock
        );
    });
}

#[test]
fn a_refused_datagram_shows_as_error_readiness() {
    on_both(|| async {
        let closed = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        let target = closed.local_addr().unwrap();
        drop(closed);
        let socket = Arc::new(bound().await);
        socket.connect(target).await.unwrap();
        let waiter = spawn_all_waiting(vec![{
            let socket = socket.clone();
            async move { socket.ready(Interest::ERROR).await.unwrap() }
        }])
        .await
        .pop()
        .unwrap();
        socket.send(b"anyone?").await.unwrap();
        assert_eq!(waiter.await.unwrap(), Ready::ERROR);
        // The receive reports the refusal (and takes it).
        let err = socket.recv(&mut [0u8; 8]).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::ConnectionRefused);
        assert!(socket.take_error().unwrap().is_none());
    });
}

/// tokio's readiness loop, ported as it is: wait for `ready(READABLE)`,
/// receive only if `is_readable()`. A refused datagram wakes the wait with
/// an error alone (`EPOLLERR`, nothing to read); reported as `{ERROR}`,
/// the loop never received, and `ready` returned at once for ever: a spin
/// that never yielded. The error counts as readable, so the receive takes
/// it; the next one finds nothing and the loop waits again.
#[test]
fn a_readiness_loop_receives_the_refusal_of_its_datagram() {
    use futures::FutureExt;
    const ROUNDS: usize = 100;
    on_both(|| async {
        let closed = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        let target = closed.local_addr().unwrap();
        drop(closed);
        let socket = bound().await;
        socket.connect(target).await.unwrap();
        socket.send(b"anyone?").await.unwrap();
        let mut rounds = 0;
        let refused = loop {
            let ready = socket.ready(Interest::READABLE).await.unwrap();
            if ready.is_readable() {
                match socket.try_recv(&mut [0u8; 8]) {
                    Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                    Err(e) => break e,
                    Ok(n) => panic!("received {n} bytes from nobody"),
                }
            }
            rounds += 1;
            assert!(
                rounds < ROUNDS,
                "ready() gave {ready:?} {ROUNDS} times, never readable"
            );
        };
        assert_eq!(refused.kind(), ErrorKind::ConnectionRefused);
        let ready = socket.ready(Interest::READABLE).await.unwrap();
        assert!(ready.is_readable(), "{ready:?}");
        let nothing = socket.try_recv(&mut [0u8; 8]).unwrap_err();
        assert_eq!(nothing.kind(), ErrorKind::WouldBlock);
        assert!(socket.ready(Interest::READABLE).now_or_never().is_none());
    });
}

#[test]
fn a_multicast_member_receives_the_group_and_stops_after_leaving() {
    on_both(|| async {
        let group = Ipv4Addr::new(239, 255, 42, 99);
        let member = UdpSocket::bind("0.0.0.0:0").await.unwrap();
        let port = member.local_addr().unwrap().port();
        member
            .join_multicast_v4(group, Ipv4Addr::LOCALHOST)
            .unwrap();
        let sender = bound().await;
        // Send the group's datagrams out of the loopback interface.
        socket2::SockRef::from(&sender)
            .set_multicast_if_v4(&Ipv4Addr::LOCALHOST)
            .unwrap();
        sender.set_multicast_ttl_v4(2).unwrap();
        assert_eq!(sender.multicast_ttl_v4().unwrap(), 2);
        sender.set_multicast_loop_v4(true).unwrap();
        assert!(sender.multicast_loop_v4().unwrap());
        let group_addr = SocketAddr::from((group, port));
        sender.send_to(b"to the group", group_addr).await.unwrap();
        let mut buf = [0u8; 32];
        let (n, _) = member.recv_from(&mut buf).await.unwrap();
        assert_eq!(&buf[..n], b"to the group");

        member
            .leave_multicast_v4(group, Ipv4Addr::LOCALHOST)
            .unwrap();
        assert!(
            member
                .leave_multicast_v4(group, Ipv4Addr::LOCALHOST)
                .is_err()
        );
        sender.send_to(b"unheard", group_addr).await.unwrap();
        // Loopback delivers in order: the marker comes next, not the group's.
        sender
            .send_to(b"marker", (Ipv4Addr::LOCALHOST, port))
            .await
            .unwrap();
        let (n, _) = member.recv_from(&mut buf).await.unwrap();
        assert_eq!(&buf[..n], b"marker");
    });
}

#[test]
fn options_read_back_and_agree_with_socket2() {
    on_both(|| async {
        let socket = bound().await;
        socket.set_broadcast(true).unwrap();
        assert!(socket.broadcast().unwrap());
        assert!(socket2::SockRef::from(&socket).broadcast().unwrap());
        socket.set_ttl(9).unwrap();
        assert_eq!(socket.ttl().unwrap(), 9);
        socket.set_tos_v4(0x28).unwrap();
        assert_eq!(socket.tos_v4().unwrap(), 0x28);
        assert_eq!(socket2::SockRef::from(&socket).tos_v4().unwrap(), 0x28);
        if let Ok(v6) = UdpSocket::bind("[::]:0").await {
            v6.set_tclass_v6(0x28).unwrap();
            assert_eq!(v6.tclass_v6().unwrap(), 0x28);
            v6.set_multicast_loop_v6(false).unwrap();
            assert!(!v6.multicast_loop_v6().unwrap());
            let group = "ff02::1:42".parse().unwrap();
            v6.join_multicast_v6(&group, 0).unwrap();
            v6.leave_multicast_v6(&group, 0).unwrap();
            assert!(v6.leave_multicast_v6(&group, 0).is_err());
        }
        let addr = socket.local_addr().unwrap();
        let std = socket.into_std().unwrap();
        assert_eq!(std.local_addr().unwrap(), addr);
        // Back in rt, it still works.
        let socket = UdpSocket::from_std(std).unwrap();
        socket.send_to(b"again", addr).await.unwrap();
        assert_eq!(socket.recv_from(&mut [0u8; 8]).await.unwrap(), (5, addr));
    });
}

#[test]
fn try_io_and_async_io_send_through_socket2() {
    on_both(|| async {
        let socket = bound().await;
        let me = socket.local_addr().unwrap();
        let sent = socket
            .async_io(Interest::WRITABLE, || {
                socket2::SockRef::from(&socket).send_to(b"raw", &me.into())
            })
            .await
            .unwrap();
        assert_eq!(sent, 3);
        socket.readable().await.unwrap();
        let mut buf = [0u8; 8];
        let n = socket
            .try_io(Interest::READABLE, || {
                socket.try_recv_from(&mut buf).map(|(n, _)| n)
            })
            .unwrap();
        assert_eq!(&buf[..n], b"raw");
    });
}

/// A UDP socket whose read side is shut down (through `socket2`, rt has
/// no method for it) reports read-closed, yet a non-blocking receive says
/// `WouldBlock`, where a blocking one returns no bytes. Every receive and
/// peek returns that instead of waiting, as the blocking call does, and
/// as rt's Unix datagram sockets do: rt's waited for ever (it cleared the
/// closed state and no event came again); tokio's spins for ever inside
/// the receive. On Linux the socket still queues datagrams that arrive,
/// and the receives take them.
#[test]
fn a_receive_after_shutting_down_the_read_side_returns_no_bytes() {
    on_both(|| async {
        let socket = Arc::new(bound().await);
        let peer = bound().await;
        socket.connect(peer.local_addr().unwrap()).await.unwrap();
        socket2::SockRef::from(&*socket)
            .shutdown(std::net::Shutdown::Read)
            .unwrap();
        let ready = socket.ready(Interest::READABLE).await.unwrap();
        assert!(ready.is_read_closed(), "{ready:?}");

        let nobody = SocketAddr::from((Ipv4Addr::UNSPECIFIED, 0));
        let mut buf = [0; 8];
        let received = rt::time::timeout(Duration::from_secs(30), socket.recv(&mut buf))
            .await
            .expect("recv waited for ever");
        assert_eq!(received.unwrap(), 0);
        assert_eq!(socket.recv_from(&mut buf).await.unwrap(), (0, nobody));
        assert_eq!(socket.peek_from(&mut buf).await.unwrap(), (0, nobody));
        assert_eq!(socket.peek(&mut buf).await.unwrap(), 0);
        assert_eq!(socket.peek_sender().await.unwrap(), nobody);
        assert_eq!(socket.try_recv(&mut buf).unwrap(), 0);
        assert_eq!(socket.try_recv_from(&mut buf).unwrap(), (0, nobody));
        assert_eq!(socket.try_peek(&mut buf).unwrap(), 0);
        assert_eq!(socket.try_peek_sender().unwrap(), nobody);
        assert_eq!(
            poll_fn(|cx| socket.poll_recv(cx, &mut buf)).await.unwrap(),
            0
        );
        let from = poll_fn(|cx| socket.poll_recv_from(cx, &mut buf)).await;
        assert_eq!(from.unwrap(), (0, nobody));
        assert_eq!(
            poll_fn(|cx| socket.poll_peek(cx, &mut buf)).await.unwrap(),
            0
        );
        let sender = poll_fn(|cx| socket.poll_peek_sender(cx)).await;
        assert_eq!(sender.unwrap(), nobody);
        #[cfg(feature = "bytes")]
        {
            let mut bytes = bytes::BytesMut::with_capacity(8);
            assert_eq!(socket.recv_buf(&mut bytes).await.unwrap(), 0);
            assert_eq!(socket.recv_buf_from(&mut bytes).await.unwrap(), (0, nobody));
        }

        peer.send_to(b"late", socket.local_addr().unwrap())
            .await
            .unwrap();
        socket.readable().await.unwrap();
        let mut late = [0; 8];
        loop {
            match socket.recv(&mut late).await.unwrap() {
                0 => rt::task::yield_now().await,
                n => break assert_eq!(&late[..n], b"late"),
            }
        }
    });
}
