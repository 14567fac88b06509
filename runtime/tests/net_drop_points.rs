//! Dropping an I/O or timer future at every await point: a timeout or a
//! `select!` in a server drops whatever it raced, at whatever step it had
//! reached. For `read_exact`, `write_all`, `accept`, `connect`,
//! `recv_from`, `sleep` and `timeout`, each test polls a fresh future
//! `n` times (feeding it between polls so each poll gets further), drops
//! it, and checks that
//! - no clone of its waker is left anywhere (a counting waker's count
//!   returns to zero), at once for the futures that wait in a place of
//!   their own, and once the stream is gone for `AsyncRead`/`AsyncWrite`
//!   ones, which wait in the stream's shared slot until the next waker or
//!   edge replaces theirs;
//! - no timer stays armed and no registration stays in the reactor;
//! - the socket still works for a fresh operation.

mod support;

use rt::io::{AsyncReadExt, AsyncWriteExt};
use rt::net::{TcpListener, TcpStream, UdpSocket};
use rt::runtime::Handle;
use rt::time::{Instant, advance, sleep, timeout};
use std::io::ErrorKind;
use std::sync::Arc;
use std::time::Duration;
use support::{WakeCounter, on_both, poll_then_drop, tcp_pair, wait_until};

/// Waits until no clone of `counter`'s waker is held. On a multi-thread
/// runtime a worker that just took the waker out of a waiter list may
/// still hold it for an instant (until it has woken it).
fn assert_no_waker_left(counter: &Arc<WakeCounter>, what: &str) {
    wait_until(&format!("{what} lets go of its waker"), || {
        counter.wakers_alive() == 0
    });
}

/// Timers armed on the current runtime.
fn pending_timers() -> usize {
    Handle::current().metrics().num_pending_timers()
}

/// Waits until `stream` is readable, then reads all it holds (at least
/// one byte).
async fn drain(stream: &TcpStream) {
    let mut buf = vec![0u8; 256 << 10];
    let mut total = 0;
    loop {
        stream.readable().await.unwrap();
        loop {
            match stream.try_read(&mut buf) {
                Ok(0) => panic!("the writer closed the stream"),
                Ok(n) => total += n,
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                Err(e) => panic!("draining: {e}"),
            }
        }
        if total > 0 {
            return;
        }
    }
}

#[test]
fn read_exact_dropped_at_every_step() {
    on_both(|| async {
        let counter = WakeCounter::new();
        let (client, mut server) = tcp_pair().await;
        for polls in 0..=10 {
            let mut buf = [0u8; 8];
            // One more byte before each poll after the first: the eighth
            // feeds the ninth poll, which completes.
            let read = poll_then_drop(&counter, server.read_exact(&mut buf), polls, async |_| {
                client.try_write(b"x").unwrap();
                true
            })
            .await;
            assert_eq!(read.is_some(), polls >= 9, "{polls} polls");
            // Every byte fed was read by the dropped future; a fresh read
            // gets what comes next.
            client.try_write(b"fresh").unwrap();
            let mut fresh = [0u8; 5];
            server.read_exact(&mut fresh).await.unwrap();
            assert_eq!(&fresh, b"fresh", "{polls} polls");
        }
        drop(server);
        assert_no_waker_left(&counter, "a dropped stream");
    });
}

#[test]
fn write_all_dropped_at_every_step() {
    on_both(|| async {
        let counter = WakeCounter::new();
        let (mut client, server) = tcp_pair().await;
        let big = vec![7u8; 1 << 20];
        for polls in 0..=6 {
            // Fill every buffer on the way, so the write waits for room.
            while client.try_write(&big).is_ok() {}
            let write = poll_then_drop(&counter, client.write_all(&big), polls, async |_| {
                drain(&server).await;
                true
            })
            .await;
            if let Some(result) = write {
                result.unwrap();
            }
            // The stream still writes, after what the dropped write left
            // (read meanwhile: the buffers are full).
            let fresh = client.write_all(b"fresh");
            let tail = async {
                let mut tail = Vec::new();
                let mut buf = vec![0u8; 256 << 10];
                while !tail.ends_with(b"fresh") {
                    server.readable().await.unwrap();
                    match server.try_read(&mut buf) {
                        Ok(n) => {
                            tail.extend_from_slice(&buf[..n]);
                            tail.drain(..tail.len().saturating_sub(5));
                        }
                        Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                        Err(e) => panic!("reading the tail: {e}"),
                    }
                }
            };
            let (written, ()) = futures::join!(fresh, tail);
            written.unwrap();
        }
        drop(client);
        assert_no_waker_left(&counter, "a dropped stream");
    });
}

#[test]
fn accept_dropped_at_every_step() {
    on_both(|| async {
        let counter = WakeCounter::new();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let registrations = Handle::current().metrics().io_driver_registrations();
        for polls in 0..=3 {
            let mut clients = Vec::new();
            let accepted = poll_then_drop(&counter, listener.accept(), polls, async |_| {
                clients.push(TcpStream::connect(addr).await.unwrap());
                true
            })
            .await;
            assert_eq!(accepted.is_some(), polls >= 2, "{polls} polls");
            assert_no_waker_left(&counter, "a dropped accept");
            drop(accepted);
            drop(clients);
            // A fresh accept takes the next connection.
            let client = TcpStream::connect(addr).await.unwrap();
            let (server, peer) = listener.accept().await.unwrap();
            assert_eq!(peer, client.local_addr().unwrap());
            drop((client, server));
            assert_eq!(
                Handle::current().metrics().io_driver_registrations(),
                registrations
            );
        }
    });
}

#[test]
fn connect_dropped_at_every_step() {
    on_both(|| async {
        let counter = WakeCounter::new();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let registrations = Handle::current().metrics().io_driver_registrations();
        for polls in 0..=3 {
            // Between polls nothing needs feeding: the kernel finishes the
            // handshake and the reactor wakes the connect.
            let connected =
                poll_then_drop(&counter, TcpStream::connect(addr), polls, async |_| true).await;
            assert_no_waker_left(&counter, "a dropped connect");
            drop(connected);
            assert_eq!(
                Handle::current().metrics().io_driver_registrations(),
                registrations,
                "{polls} polls: the socket of a dropped connect is still registered"
            );
            // A fresh connect works; connections the dropped ones left in
            // the backlog come first.
            let client = TcpStream::connect(addr).await.unwrap();
            let mut skipped = 0;
            loop {
                match listener.accept().await {
                    Ok((_, peer)) if peer == client.local_addr().unwrap() => break,
                    // The dropped connect's socket, closed or reset.
                    Ok(_) | Err(_) => skipped += 1,
                }
            }
            assert!(
                skipped <= usize::from(polls > 0),
                "{polls} polls: {skipped} left over"
            );
        }
    });
}

#[test]
fn recv_from_dropped_at_every_step() {
    on_both(|| async {
        let counter = WakeCounter::new();
        let socket = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let addr = socket.local_addr().unwrap();
        let sender = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        for polls in 0..=3 {
            let mut buf = [0u8; 16];
            let received =
                poll_then_drop(&counter, socket.recv_from(&mut buf), polls, async |_| {
                    sender.send_to(b"fed", addr).await.unwrap();
                    true
                })
                .await;
            assert_eq!(received.is_some(), polls >= 2, "{polls} polls");
            assert_no_waker_left(&counter, "a dropped recv_from");
            sender.send_to(b"fresh", addr).await.unwrap();
            let (len, from) = socket.recv_from(&mut buf).await.unwrap();
            assert_eq!(
                (&buf[..len], from),
                (&b"fresh"[..], sender.local_addr().unwrap())
            );
        }
    });
}

/// `sleep` and `timeout` on the paused clock, with `advance` between polls.
#[test]
fn sleep_and_timeout_dropped_at_every_step() {
    let rt = rt::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .unwrap();
    rt.block_on(async {
        let counter = WakeCounter::new();
        let timers = pending_timers();
        for polls in 0..=5 {
            // 10 s, 3 s at a time: the fifth poll is the first after it.
            let slept = poll_then_drop(
                &counter,
                sleep(Duration::from_secs(10)),
                polls,
                async |_| {
                    advance(Duration::from_secs(3)).await;
                    false
                },
            )
            .await;
            assert_eq!(slept.is_some(), polls >= 5, "{polls} polls");
            assert_no_waker_left(&counter, "a dropped sleep");
            assert_eq!(
                pending_timers(),
                timers,
                "{polls} polls: a timer stayed armed"
            );
            let start = Instant::now();
            sleep(Duration::from_secs(1)).await;
            assert_eq!(start.elapsed(), Duration::from_secs(1));
        }

        let socket = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let addr = socket.local_addr().unwrap();
        let sender = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        for polls in 0..=5 {
            let mut buf = [0u8; 16];
            let limited = timeout(Duration::from_secs(10), socket.recv_from(&mut buf));
            let outcome = poll_then_drop(&counter, limited, polls, async |_| {
                advance(Duration::from_secs(3)).await;
                false
            })
            .await;
            match outcome {
                Some(result) => assert!(result.is_err() && polls >= 5, "{polls} polls"),
                None => assert!(polls < 5),
            }
            assert_no_waker_left(&counter, "a dropped timeout");
            assert_eq!(
                pending_timers(),
                timers,
                "{polls} polls: a timer stayed armed"
            );
            sender.send_to(b"fresh", addr).await.unwrap();
            let (len, _) = timeout(Duration::from_secs(10), socket.recv_from(&mut buf))
                .await
                .unwrap()
                .unwrap();
            assert_eq!(&buf[..len], b"fresh");
        }
    });
}

/// Without the paused clock (the multi-thread runtime cannot pause it):
/// the sleep is polled without feeding, then dropped.
#[test]
fn sleeps_dropped_after_polls_disarm_on_both_schedulers() {
    on_both(|| async {
        let counter = WakeCounter::new();
        let timers = pending_timers();
        for polls in 0..=3 {
            let hour = sleep(Duration::from_secs(3600));
            assert!(
                poll_then_drop(&counter, hour, polls, async |_| false)
                    .await
                    .is_none()
            );
            assert_no_waker_left(&counter, "a dropped sleep");
            assert_eq!(
                pending_timers(),
                timers,
                "{polls} polls: a timer stayed armed"
            );
            let limited = timeout(Duration::from_secs(3600), std::future::pending::<()>());
            assert!(
                poll_then_drop(&counter, limited, polls, async |_| false)
                    .await
                    .is_none()
            );
            assert_no_waker_left(&counter, "a dropped timeout");
            assert_eq!(
                pending_timers(),
                timers,
                "{polls} polls: a timer stayed armed"
            );
        }
        sleep(Duration::from_millis(1)).await;
    });
}
