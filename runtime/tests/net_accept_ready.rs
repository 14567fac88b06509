//! tokio's `tcp_accept_ready.rs`, ported: an accepted stream starts out
//! assumed readable and writable, so its first read and write try the
//! socket instead of waiting for the reactor's first event, and the first
//! read that finds nothing clears the assumption.
//!
//! Each test runs in a task of its own on the runtimes where one thread
//! both polls the tasks and turns the reactor (current-thread, and
//! multi-thread with one worker): no event is dispatched while the task
//! runs between two awaits that return `Pending`, so what a test sees
//! right after `accept` is the assumed readiness and nothing else, as on
//! the current-thread runtime tokio's tests use.

mod support;

use futures::FutureExt;
use rt::io::{AsyncReadExt, AsyncWriteExt, Interest};
use rt::net::{TcpListener, TcpStream, UnixListener};
use std::future::Future;
use std::io::{ErrorKind, IoSlice, Write};
use std::mem::MaybeUninit;
use std::pin::pin;
use std::task::{Context, Poll, Waker};
use support::{Kind, SINGLE_POLLER, on_single_poller};

/// Waits until `n` bytes are queued on `socket`, with a `MSG_PEEK` that
/// leaves rt's readiness alone, so no test depends on when loopback
/// delivers. The deadline only turns a hang into a failure.
fn wait_until_queued(socket: impl std::os::fd::AsFd, n: usize) {
    let socket = socket2::SockRef::from(&socket);
    let mut buf = [MaybeUninit::<u8>::uninit(); 64];
    assert!(n <= buf.len());
    support::wait_until(
        "the peer's bytes are queued",
        || matches!(socket.peek(&mut buf), Ok(m) if m >= n),
    );
}

/// An accepted stream whose peer wrote `data` before the accept, with
/// `data` queued on it.
async fn accepted_with(data: &[u8]) -> (TcpStream, std::net::TcpStream) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let mut client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
    client.write_all(data).unwrap();
    let (stream, _) = listener.accept().await.unwrap();
    if !data.is_empty() {
        wait_until_queued(&stream, data.len());
    }
    (stream, client)
}

#[test]
fn accepted_stream_reads_without_waiting_for_an_event() {
    on_single_poller(|| async {
        // The peer connects and sends before the accept, as a client
        // racing an overloaded server does.
        let (stream, _client) = accepted_with(b"hello").await;
        // `try_read` never waits: without the assumed readiness it would
        // say `WouldBlock` despite the queued bytes.
        let mut buf = [0u8; 16];
        let n = stream
            .try_read(&mut buf)
            .expect("the bytes were queued before the first read");
        assert_eq!(&buf[..n], b"hello");
        // The first write tries the socket too.
        assert_eq!(stream.try_write(b"world").unwrap(), 5);
    });
}

#[test]
fn accepted_stream_with_no_data_still_waits() {
    on_single_poller(|| async {
        let (stream, mut client) = accepted_with(b"").await;
        // Nothing queued: assumed readable (a false positive) until a read
        // finds nothing; and writable.
        assert!(stream.readable().now_or_never().is_some());
        let mut buf = [0u8; 16];
        let err = stream.try_read(&mut buf).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::WouldBlock);
        assert!(stream.readable().now_or_never().is_none());
        assert_eq!(stream.try_write(b"early").unwrap(), 5);
        // Bytes that arrive later come through the reactor as usual.
        client.write_all(b"later").unwrap();
        loop {
            stream.readable().await.unwrap();
            match stream.try_read(&mut buf) {
                Ok(n) => {
                    assert_eq!(&buf[..n], b"later");
                    break;
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => continue,
                Err(e) => panic!("{e}"),
            }
        }
    });
}

/// The `AsyncRead`/`AsyncWrite` path, which HTTP servers use: the first
/// poll of each is ready.
#[test]
fn first_poll_read_and_write_are_ready() {
    on_single_poller(|| async {
        let (mut stream, _client) = accepted_with(b"hello").await;
        let mut cx = Context::from_waker(Waker::noop());
        let mut buf = [0u8; 16];
        let read = pin!(stream.read(&mut buf)).poll(&mut cx);
        assert!(matches!(read, Poll::Ready(Ok(5))), "{read:?}");
        let write = pin!(stream.write(b"x")).poll(&mut cx);
        assert!(matches!(write, Poll::Ready(Ok(1))), "{write:?}");
    });
}

/// A first read that fills its buffer keeps the stream readable (the
/// short-read rule clears only after a read that left room), so draining
/// goes on without an event.
#[test]
fn full_first_read_keeps_draining() {
    on_single_poller(|| async {
        let (mut stream, _client) = accepted_with(b"helloworld").await;
        let mut cx = Context::from_waker(Waker::noop());
        let mut buf = [0u8; 5];
        for expected in [b"hello", b"world"] {
            let read = pin!(stream.read(&mut buf)).poll(&mut cx);
            assert!(matches!(read, Poll::Ready(Ok(5))), "{read:?}");
            assert_eq!(&buf, expected);
        }
    });
}

/// A short first read (fewer bytes than the buffer had room for) clears
/// the assumed readability: the next read waits for the reactor instead of
/// making a syscall that could only say `WouldBlock`.
#[test]
fn short_first_read_clears_the_assumption() {
    on_single_poller(|| async {
        let (mut stream, _client) = accepted_with(b"hello").await;
        let mut cx = Context::from_waker(Waker::noop());
        let mut buf = [0u8; 16];
        let read = pin!(stream.read(&mut buf)).poll(&mut cx);
        assert!(matches!(read, Poll::Ready(Ok(5))), "{read:?}");
        assert!(stream.readable().now_or_never().is_none());
    });
}

/// After the runtime is gone, operations report the driver's shutdown
/// rather than hang, whatever readiness was assumed; but a `try_*` whose
/// readiness was recorded before the shutdown still tries the socket, as
/// tokio's does, so bytes queued before it are read. The read that finds
/// nothing clears that readiness; the shutdown bit survives it, and every
/// later operation reports the shutdown.
#[test]
fn later_reads_after_runtime_drop_report_shutdown() {
    for kind in SINGLE_POLLER {
        if !support::kind_selected(kind) {
            continue;
        }
        let runtime = kind.build();
        let (mut stream, _client) = runtime.block_on(accepted_with(b"hello"));
        drop(runtime);
        let mut buf = [0u8; 5];
        assert_eq!(stream.try_read(&mut buf).unwrap(), 5, "on {kind:?}");
        assert_eq!(&buf, b"hello");
        let err = stream.try_read(&mut buf).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::WouldBlock, "{err}");
        let err = stream.try_read(&mut buf).unwrap_err();
        assert!(err.to_string().contains("shut down"), "{err}");
        let again = Kind::CurrentThread.build();
        again.block_on(async {
            let read = stream.read(&mut buf).now_or_never();
            let err = read.expect("the read reports at once").unwrap_err();
            assert!(err.to_string().contains("shut down"), "{err}");
        });
    }
}

#[test]
fn unix_accepted_stream_reads_without_an_event() {
    on_single_poller(|| async {
        let path = std::env::temp_dir().join(format!(
            "rt-accept-ready-{}-{:?}.sock",
            std::process::id(),
            rt::runtime::Handle::current().runtime_flavor()
        ));
        let _ = std::fs::remove_file(&path);
        let listener = UnixListener::bind(&path).unwrap();
        let mut client = std::os::unix::net::UnixStream::connect(&path).unwrap();
        client.write_all(b"hello").unwrap();
        let (stream, _) = listener.accept().await.unwrap();
        wait_until_queued(&stream, 5);
        let mut buf = [0u8; 16];
        assert_eq!(stream.try_read(&mut buf).unwrap(), 5);
        assert_eq!(stream.try_write(b"back").unwrap(), 4);
        std::fs::remove_file(&path).unwrap();
    });
}

/// `peek` goes through `async_io`: ready at the first poll.
#[test]
fn peek_first_poll_ready() {
    on_single_poller(|| async {
        let (stream, _client) = accepted_with(b"hello").await;
        let mut cx = Context::from_waker(Waker::noop());
        let mut buf = [0u8; 16];
        let peek = pin!(stream.peek(&mut buf)).poll(&mut cx);
        assert!(matches!(peek, Poll::Ready(Ok(5))), "{peek:?}");
    });
}

/// A vectored write goes through the write direction's shared slot:
/// ready at the first poll.
#[test]
fn write_vectored_first_poll_ready() {
    on_single_poller(|| async {
        let (mut stream, _client) = accepted_with(b"").await;
        let mut cx = Context::from_waker(Waker::noop());
        let bufs = [IoSlice::new(b"ab"), IoSlice::new(b"cd")];
        let write = pin!(stream.write_vectored(&bufs)).poll(&mut cx);
        assert!(matches!(write, Poll::Ready(Ok(4))), "{write:?}");
    });
}

/// An `async_io` whose closure finds the assumed readiness wrong clears
/// it, waits for the reactor, and calls the closure again once bytes
/// arrive.
#[test]
fn async_io_would_block_falls_back_to_waiting() {
    on_single_poller(|| async {
        let (stream, mut client) = accepted_with(b"").await;
        let calls = std::sync::atomic::AtomicUsize::new(0);
        let recv = stream.async_io(Interest::READABLE, || {
            calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let mut buf = [MaybeUninit::<u8>::uninit(); 8];
            socket2::SockRef::from(&stream).recv(&mut buf)
        });
        let mut recv = pin!(recv);
        assert!(recv.as_mut().now_or_never().is_none());
        assert_eq!(
            calls.load(std::sync::atomic::Ordering::SeqCst),
            1,
            "the assumed readiness was tried once"
        );
        client.write_all(b"xyz").unwrap();
        assert_eq!(recv.await.unwrap(), 3);
        assert!(calls.load(std::sync::atomic::Ordering::SeqCst) >= 2);
    });
}
