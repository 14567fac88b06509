//! `AsyncFd` readiness by interest: reading or writing at once, errors
//! alone, priority data; the mutable guards, `try_io`/`async_io` on the
//! `AsyncFd`, and `try_new` handing the value back. On both schedulers.

mod support;

use rt::io::{AsyncFd, Interest, Ready};
use rt::time::timeout;
use std::io::{ErrorKind, Read, Write};
use std::os::unix::net::UnixStream;
use std::sync::Arc;
use std::time::Duration;
use support::{WakeCounter, on_both, poll_once, spawn_all_waiting, tracked};

/// A non-blocking Unix stream pair: (wrapped end, plain peer).
fn wrapped_pair() -> (AsyncFd<UnixStream>, UnixStream) {
    let (a, b) = UnixStream::pair().unwrap();
    a.set_nonblocking(true).unwrap();
    (AsyncFd::new(a).unwrap(), b)
}

/// Waits until `fd` is writable, then writes until a write would block,
/// which clears the write readiness: the next wait for it blocks until the
/// peer reads.
async fn fill_and_clear(fd: &AsyncFd<UnixStream>) {
    let chunk = [0u8; 64 * 1024];
    let mut guard = fd.writable().await.unwrap();
    let full = guard.try_io(|fd| -> std::io::Result<()> {
        loop {
            let _partial = fd.get_ref().write(&chunk)?;
        }
    });
    assert!(full.is_err(), "the writes went on until one would block");
}

#[test]
fn ready_for_reading_or_writing_answers_with_the_side_that_became_ready() {
    on_both(|| async {
        let (fd, mut peer) = wrapped_pair();
        fill_and_clear(&fd).await;

        let both = Arc::new(fd);
        let waiter = spawn_all_waiting(vec![{
            let fd = both.clone();
            async move {
                fd.ready(Interest::READABLE | Interest::WRITABLE)
                    .await
                    .unwrap()
                    .ready()
            }
        }])
        .await
        .pop()
        .unwrap();
        peer.write_all(b"x").unwrap();
        let ready = waiter.await.unwrap();
        assert!(ready.is_readable(), "got {ready:?}");
        assert!(
            !ready.is_writable(),
            "the send buffer is still full: {ready:?}"
        );
    });
}

#[test]
fn ready_for_writing_does_not_return_for_readability() {
    on_both(|| async {
        let (fd, mut peer) = wrapped_pair();
        fill_and_clear(&fd).await;
        peer.write_all(b"x").unwrap();
        // Readable now, but a writer keeps waiting.
        drop(fd.readable().await.unwrap());
        let mut write = Box::pin(fd.ready(Interest::WRITABLE));
        assert!(poll_once(&mut write).is_pending());
        drop(write);
        // Draining the peer makes room.
        let mut sink = vec![0u8; 1 << 20];
        peer.set_nonblocking(true).unwrap();
        while peer.read(&mut sink).is_ok() {}
        let ready = fd.ready(Interest::WRITABLE).await.unwrap().ready();
        assert!(ready.is_writable());
    });
}

#[test]
fn ready_for_errors_alone_reports_a_refused_datagram() {
    on_both(|| async {
        // A port nobody listens on: bind one and close it.
        let closed = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        let target = closed.local_addr().unwrap();
        drop(closed);
        let socket = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        socket.set_nonblocking(true).unwrap();
        socket.connect(target).unwrap();
        let fd = Arc::new(AsyncFd::with_interest(socket, Interest::ERROR).unwrap());
        let waiter = spawn_all_waiting(vec![{
            let fd = fd.clone();
            async move { fd.ready(Interest::ERROR).await.unwrap().ready() }
        }])
        .await
        .pop()
        .unwrap();
        // The "port unreachable" this draws queues an error on the socket.
        fd.get_ref().send(b"anyone?").unwrap();
        assert_eq!(waiter.await.unwrap(), Ready::ERROR);
        let error = fd
            .get_ref()
            .take_error()
            .unwrap()
            .expect("an error was queued");
        assert_eq!(error.kind(), ErrorKind::ConnectionRefused);
    });
}

#[cfg(any(target_os = "linux", target_os = "android"))]
#[test]
fn ready_for_priority_reports_urgent_tcp_data() {
    on_both(|| async {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (server, _) = listener.accept().unwrap();
        server.set_nonblocking(true).unwrap();
        let fd = Arc::new(AsyncFd::with_interest(server, Interest::PRIORITY).unwrap());
        let waiter = spawn_all_waiting(vec![{
            let fd = fd.clone();
            async move { fd.ready(Interest::PRIORITY).await.unwrap().ready() }
        }])
        .await
        .pop()
        .unwrap();
        socket2::SockRef::from(&client)
            .send_out_of_band(b"!")
            .unwrap();
        assert!(waiter.await.unwrap().is_priority());
    });
}

#[test]
fn try_new_hands_the_value_back_when_the_poller_refuses_it() {
    on_both(|| async {
        let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
        let file = std::fs::File::open(manifest).unwrap();
        let error = AsyncFd::try_new(file).unwrap_err();
        assert!(error.to_string().contains("registering"), "{error}");
        let (file, cause) = error.into_parts();
        assert_eq!(cause.kind(), ErrorKind::PermissionDenied);
        let mut text = String::new();
        (&file).read_to_string(&mut text).unwrap();
        assert!(text.contains("[package]"));
        // The conversion to `io::Error` keeps the cause.
        let error = AsyncFd::try_with_interest(file, Interest::READABLE).unwrap_err();
        assert_eq!(
            std::io::Error::from(error).kind(),
            ErrorKind::PermissionDenied
        );
    });
}

#[test]
fn mutable_guards_run_operations_that_need_the_value_mutably() {
    on_both(|| async {
        let (mut fd, mut peer) = wrapped_pair();
        peer.write_all(b"abc").unwrap();
        let mut buf = [0u8; 8];
        let n = loop {
            let mut guard = fd.readable_mut().await.unwrap();
            if let Ok(result) = guard.try_io(|fd| fd.get_mut().read(&mut buf)) {
                break result.unwrap();
            }
        };
        assert_eq!(&buf[..n], b"abc");
        // The read emptied the socket: the next try clears the readiness.
        let mut guard = fd.ready_mut(Interest::READABLE).await.unwrap();
        assert!(guard.try_io(|fd| fd.get_mut().read(&mut buf)).is_err());
        assert!(guard.ready().is_empty());
        let mut guard = fd.writable_mut().await.unwrap();
        guard.get_inner_mut().write_all(b"z").unwrap();
        guard.retain_ready();
        let mut got = [0u8; 1];
        peer.read_exact(&mut got).unwrap();
        assert_eq!(&got, b"z");
    });
}

#[test]
fn clear_ready_matching_forgets_only_the_named_states() {
    on_both(|| async {
        let (fd, mut peer) = wrapped_pair();
        peer.write_all(b"x").unwrap();
        // Wait until both sides are reported.
        let ready = Ready::READABLE | Ready::WRITABLE;
        let mut guard = loop {
            let guard = fd
                .ready(Interest::READABLE | Interest::WRITABLE)
                .await
                .unwrap();
            if guard.ready().contains(ready) {
                break guard;
            }
            drop(guard);
            drop(fd.readable().await.unwrap());
        };
        guard.clear_ready_matching(Ready::WRITABLE);
        assert!(guard.ready().is_readable() && !guard.ready().is_writable());
        drop(guard);
        // Readability was kept: this returns at once, without writability.
        let ready = fd.ready(Interest::READABLE).await.unwrap().ready();
        assert!(ready.is_readable());
        let mut write = Box::pin(fd.ready(Interest::WRITABLE));
        assert!(poll_once(&mut write).is_pending());
    });
}

#[test]
fn try_io_on_the_fd_needs_reported_readiness_and_clears_it_on_would_block() {
    on_both(|| async {
        let (fd, mut peer) = wrapped_pair();
        let mut ran = false;
        let err = fd
            .try_io(Interest::READABLE, |_| {
                ran = true;
                Ok(())
            })
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::WouldBlock);
        assert!(!ran, "nothing was reported readable");
        peer.write_all(b"hey").unwrap();
        drop(fd.readable().await.unwrap());
        let mut buf = [0u8; 8];
        let n = fd
            .try_io(Interest::READABLE, |mut s| s.read(&mut buf))
            .unwrap();
        assert_eq!(&buf[..n], b"hey");
        let err = fd
            .try_io(Interest::READABLE, |mut s| s.read(&mut buf))
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::WouldBlock);
        // That cleared the readiness: the next try does not run the op.
        let err = fd.try_io(Interest::READABLE, |_| -> std::io::Result<()> {
            panic!("ran without readiness")
        });
        assert_eq!(err.unwrap_err().kind(), ErrorKind::WouldBlock);
    });
}

#[test]
fn async_io_waits_retries_and_returns_the_result() {
    on_both(|| async {
        let (fd, mut peer) = wrapped_pair();
        let fd = Arc::new(fd);
        let reader = spawn_all_waiting(vec![{
            let fd = fd.clone();
            async move {
                let mut buf = [0u8; 8];
                let n = fd
                    .async_io(Interest::READABLE, |mut s| s.read(&mut buf))
                    .await
                    .unwrap();
                buf[..n].to_vec()
            }
        }])
        .await
        .pop()
        .unwrap();
        peer.write_all(b"data").unwrap();
        assert_eq!(reader.await.unwrap(), b"data");
    });
}

#[test]
fn many_tasks_wait_for_an_interest_on_one_fd_and_dropped_waits_leave_no_waker() {
    on_both(|| async {
        let (fd, mut peer) = wrapped_pair();
        fill_and_clear(&fd).await;
        let fd = Arc::new(fd);
        let counter = WakeCounter::new();
        for _ in 0..1_000 {
            let wait = tracked(&counter, fd.ready(Interest::READABLE | Interest::WRITABLE));
            assert!(timeout(Duration::ZERO, wait).await.is_err());
        }
        assert_eq!(counter.wakers_alive(), 0);
        let tasks = spawn_all_waiting(
            (0..4)
                .map(|_| {
                    let fd = fd.clone();
                    async move {
                        fd.ready(Interest::READABLE | Interest::WRITABLE)
                            .await
                            .unwrap()
                            .ready()
                    }
                })
                .collect(),
        )
        .await;
        peer.write_all(b"x").unwrap();
        for task in tasks {
            assert!(task.await.unwrap().is_readable());
        }
    });
}

/// The readiness futures (`readable`, `writable`, `ready` and their `_mut`
/// forms) spend no cooperative budget, as in tokio: with the budget spent
/// they still answer at once. `poll_write_ready` spends it, so it is
/// `Pending` there.
#[test]
fn readiness_futures_spend_no_budget() {
    use futures::FutureExt;
    on_both(|| async {
        let (mut fd, mut peer) = wrapped_pair();
        peer.write_all(b"x").unwrap();
        drop(fd.readable().await.unwrap());
        while rt::task::coop::has_budget_remaining() {
            assert!(rt::task::consume_budget().now_or_never().is_some());
        }
        assert!(fd.readable().now_or_never().is_some(), "readable()");
        assert!(fd.writable().now_or_never().is_some(), "writable()");
        assert!(fd.ready(Interest::READABLE).now_or_never().is_some());
        assert!(fd.readable_mut().now_or_never().is_some(), "readable_mut()");
        assert!(fd.writable_mut().now_or_never().is_some(), "writable_mut()");
        assert!(fd.ready_mut(Interest::WRITABLE).now_or_never().is_some());
        std::future::poll_fn(|cx| {
            assert!(
                fd.poll_write_ready(cx).is_pending(),
                "poll_write_ready spends budget"
            );
            std::task::Poll::Ready(())
        })
        .await;
    });
}
