//! The readiness futures (`readable`, `writable`, `ready`) of every socket
//! type and of the halves of a split stream spend no cooperative budget,
//! as in tokio; the `poll_*_ready` methods and the operations do. A task
//! whose budget is spent still learns that its socket is ready, and the
//! `try_*` call that follows does the work. On both schedulers.

mod support;

use futures::FutureExt;
use rt::io::Interest;
use rt::net::{UdpSocket, UnixDatagram, UnixStream};
use std::future::poll_fn;
use std::io::ErrorKind;
use std::task::Poll;
use support::{on_both, tcp_pair};

/// Spends what is left of the task's budget.
fn spend_the_budget() {
    while rt::task::coop::has_budget_remaining() {
        assert!(rt::task::consume_budget().now_or_never().is_some());
    }
}

/// With the budget spent, each readiness future of `$socket` is ready at
/// once (`$readable` says whether it has data to read, so `readable()` can
/// answer); then `$poll_ready` (a `poll_*_ready` method, which spends
/// budget) is `Pending`, proving the budget really was spent.
macro_rules! check_readiness_is_free {
    ($socket:expr, readable: $readable:expr, $poll_ready:ident) => {{
        let socket = &$socket;
        spend_the_budget();
        assert!(socket.writable().now_or_never().is_some(), "writable()");
        assert!(
            socket.ready(Interest::WRITABLE).now_or_never().is_some(),
            "ready(WRITABLE)"
        );
        if $readable {
            assert!(socket.readable().now_or_never().is_some(), "readable()");
        }
        poll_fn(|cx| {
            assert!(
                socket.$poll_ready(cx).is_pending(),
                "poll_*_ready spends budget"
            );
            Poll::Ready(())
        })
        .await;
        // A fresh budget for the next check.
        rt::task::yield_now().await;
    }};
}

#[test]
fn stream_readiness_futures_spend_no_budget() {
    on_both(|| async {
        let (client, server) = tcp_pair().await;
        client.writable().await.unwrap();
        client.try_write(b"x").unwrap();
        server.readable().await.unwrap();
        check_readiness_is_free!(server, readable: true, poll_write_ready);

        let (a, b) = UnixStream::pair().unwrap();
        a.writable().await.unwrap();
        a.try_write(b"x").unwrap();
        b.readable().await.unwrap();
        check_readiness_is_free!(b, readable: true, poll_write_ready);
    });
}

#[test]
fn halves_readiness_futures_spend_no_budget() {
    on_both(|| async {
        let (client, mut server) = tcp_pair().await;
        client.writable().await.unwrap();
        client.try_write(b"x").unwrap();
        server.readable().await.unwrap();
        {
            let (read, write) = server.split();
            spend_the_budget();
            assert!(read.readable().now_or_never().is_some());
            assert!(read.ready(Interest::READABLE).now_or_never().is_some());
            assert!(write.writable().now_or_never().is_some());
            assert!(write.ready(Interest::WRITABLE).now_or_never().is_some());
            rt::task::yield_now().await;
        }
        let (read, write) = server.into_split();
        spend_the_budget();
        assert!(read.readable().now_or_never().is_some());
        assert!(read.ready(Interest::READABLE).now_or_never().is_some());
        assert!(write.writable().now_or_never().is_some());
        assert!(write.ready(Interest::WRITABLE).now_or_never().is_some());
        rt::task::yield_now().await;

        let (a, mut b) = UnixStream::pair().unwrap();
        a.writable().await.unwrap();
        a.try_write(b"x").unwrap();
        b.readable().await.unwrap();
        {
            let (read, write) = b.split();
            spend_the_budget();
            assert!(read.readable().now_or_never().is_some());
            assert!(read.ready(Interest::READABLE).now_or_never().is_some());
            assert!(write.writable().now_or_never().is_some());
            assert!(write.ready(Interest::WRITABLE).now_or_never().is_some());
            rt::task::yield_now().await;
        }
        let (read, write) = b.into_split();
        spend_the_budget();
        assert!(read.readable().now_or_never().is_some());
        assert!(read.ready(Interest::READABLE).now_or_never().is_some());
        assert!(write.writable().now_or_never().is_some());
        assert!(write.ready(Interest::WRITABLE).now_or_never().is_some());
    });
}

#[test]
fn datagram_readiness_futures_spend_no_budget() {
    on_both(|| async {
        let socket = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        socket.connect(socket.local_addr().unwrap()).await.unwrap();
        socket.writable().await.unwrap();
        socket.try_send(b"x").unwrap();
        socket.readable().await.unwrap();
        check_readiness_is_free!(socket, readable: true, poll_send_ready);

        let (a, b) = UnixDatagram::pair().unwrap();
        a.writable().await.unwrap();
        a.try_send(b"x").unwrap();
        b.readable().await.unwrap();
        check_readiness_is_free!(b, readable: true, poll_send_ready);
    });
}

/// The loop: `writable()` then a 4000-byte `try_write`, on a pair
/// whose peer never reads, far past the budget's 128 units. `writable()`
/// stays ready for as long as the socket takes the writes, and the first
/// `WouldBlock` ends the loop, not the budget.
#[test]
fn writable_then_try_write_runs_until_the_buffer_is_full() {
    const DATA: &[u8] = &[2u8; 4000];
    on_both(|| async {
        let (client, _server) = tcp_pair().await;
        // Room for far more than 128 writes (Linux doubles the value).
        socket2::SockRef::from(&client)
            .set_send_buffer_size(1 << 20)
            .unwrap();
        client.writable().await.unwrap();
        let mut writes = 0;
        loop {
            assert!(
                client.writable().now_or_never().is_some(),
                "writable() turned Pending after {writes} writes that all went through"
            );
            match client.try_write(DATA) {
                Ok(_) => writes += 1,
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                Err(e) => panic!("{e}"),
            }
        }
        assert!(writes > 128, "only {writes} writes filled the buffer");
        assert!(client.writable().now_or_never().is_none());
    });
}
