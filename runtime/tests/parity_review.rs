//! Review of the tokio-parity additions: each test pins a behaviour a
//! port from tokio 1.54 relies on.

mod support;

use rt::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use rt::process::Command;
use std::io::{self, Write};
use std::os::fd::{AsFd, AsRawFd};
use std::process::Stdio;
use support::{expect_panic, on_both};

/// tokio's `ChildStdin` lends its descriptor for as long as it lives (its
/// `shutdown` leaves the pipe open), so `as_raw_fd`/`as_fd` never panic.
/// rt's `shutdown` closes the pipe so the child sees the end of its input;
/// after that the descriptor lent must still be a valid one, on which a
/// write fails as on a closed pipe, instead of a panic.
#[test]
fn child_stdin_lends_a_descriptor_after_shutdown() {
    on_both(|| async {
        let mut child = Command::new("cat")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let mut stdout = child.stdout.take().unwrap();
        stdin.write_all(b"before").await.unwrap();
        stdin.shutdown().await.unwrap();

        // The child saw the end of its input.
        let mut echoed = Vec::new();
        stdout.read_to_end(&mut echoed).await.unwrap();
        assert_eq!(echoed, b"before");
        assert!(child.wait().await.unwrap().success());

        // The descriptor is still lent, and writing to it fails.
        assert!(stdin.as_raw_fd() >= 0);
        let lent = stdin.as_fd().try_clone_to_owned().unwrap();
        let err = std::fs::File::from(lent).write(b"after").unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::BrokenPipe, "{err}");
        let err = stdin.write(b"after").await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::BrokenPipe, "{err}");
        // A second shutdown is as harmless as tokio's.
        stdin.shutdown().await.unwrap();
        assert!(format!("{stdin:?}").contains("ChildStdin"));
    });
}

/// `TryFrom<std socket>` outside a runtime panics naming the fix (tokio
/// panics there too) instead of handing back a socket that never wakes.
#[test]
fn try_from_a_std_socket_outside_a_runtime_panics_naming_the_fix() {
    let std_listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let message = expect_panic(move || rt::net::TcpListener::try_from(std_listener));
    assert!(message.contains("enable_io"), "{message}");
    let (ours, _theirs) = std::os::unix::net::UnixStream::pair().unwrap();
    let message = expect_panic(move || rt::net::UnixStream::try_from(ours));
    assert!(message.contains("enable_io"), "{message}");
}

/// A blocking `std` socket converted with `try_into` is switched to
/// non-blocking: `try_read` with nothing to read says `WouldBlock` rather
/// than blocking the worker.
#[test]
fn try_from_switches_a_blocking_std_socket_to_non_blocking() {
    on_both(|| async {
        let (ours, mut theirs) = std::os::unix::net::UnixStream::pair().unwrap();
        let ours: rt::net::UnixStream = ours.try_into().unwrap();
        let err = ours.try_read(&mut [0; 4]).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::WouldBlock);
        theirs.write_all(b"ok").unwrap();
        ours.readable().await.unwrap();
        let mut buf = [0; 2];
        assert_eq!(ours.try_read(&mut buf).unwrap(), 2);
        assert_eq!(&buf, b"ok");
    });
}

/// `split` as tokio's: a lone delimiter is one empty segment, a delimiter
/// as the last byte of a full buffer ends its segment, and the bytes
/// after the last delimiter are a final segment.
#[test]
fn split_segments_at_buffer_edges_as_tokio_does() {
    on_both(|| async {
        let segments = |input: &'static [u8]| async move {
            let mut split = BufReader::with_capacity(2, input).split(b',');
            let mut all = Vec::new();
            while let Some(segment) = split.next_segment().await.unwrap() {
                all.push(String::from_utf8(segment).unwrap());
            }
            all
        };
        assert!(segments(b"").await.is_empty());
        assert_eq!(segments(b",").await, [""]);
        assert_eq!(segments(b"a,").await, ["a"]);
        assert_eq!(segments(b"ab,cd,,e").await, ["ab", "cd", "", "e"]);
    });
}

/// A `UnixSocket` adopted from a descriptor of another kind (here
/// `SOCK_SEQPACKET`) is refused by `listen` and `datagram` with an error
/// that names the kind it is, not a kind it is not.
#[test]
fn unix_socket_of_another_kind_is_refused_naming_its_kind() {
    use std::os::fd::{FromRawFd, IntoRawFd};
    let socket = || {
        let seqpacket = socket2::Socket::new(socket2::Domain::UNIX, socket2::Type::SEQPACKET, None)
            .unwrap()
            .into_raw_fd();
        // SAFETY: `seqpacket` is an open socket descriptor this test owns
        // and hands over.
        unsafe { rt::net::UnixSocket::from_raw_fd(seqpacket) }
    };
    on_both(move || async move {
        for err in [
            socket().listen(8).unwrap_err(),
            socket().datagram().unwrap_err(),
            socket().connect("/no/such/socket").await.unwrap_err(),
        ] {
            assert_eq!(err.kind(), io::ErrorKind::InvalidInput, "{err}");
            let message = err.to_string();
            assert!(message.contains("a SOCK_SEQPACKET socket"), "{message}");
        }
    });
}

/// A `File` whose write was still queued when its runtime shut down: the
/// write had returned `Ok`, so the shutdown makes it (a mandatory job, as
/// tokio's), `flush` reports that, and with nothing in flight and nothing
/// buffered `try_into_std` hands the `std` file over, as tokio's does once
/// the job is gone.
#[test]
fn try_into_std_after_a_write_made_at_shutdown_hands_the_file_over() {
    let path =
        std::env::temp_dir().join(format!("rt-parity-made-at-shutdown-{}", std::process::id()));
    let rt = rt::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .max_blocking_threads(1)
        .build()
        .unwrap();
    let (release, held) = std::sync::mpsc::channel::<()>();
    let (started, is_started) = std::sync::mpsc::channel();
    let mut file = rt.block_on(async {
        let mut file = rt::fs::File::create(&path).await.unwrap();
        // The pool's one thread is held, so the write below stays queued.
        let _holder = rt::task::spawn_blocking(move || {
            started.send(()).unwrap();
            let _ = held.recv();
        });
        is_started.recv().unwrap();
        file.write_all(b"made").await.unwrap();
        file
    });
    rt.shutdown_background();
    drop(release);
    let other = rt::runtime::Builder::new_current_thread().build().unwrap();
    other.block_on(file.flush()).unwrap();
    let std = file
        .try_into_std()
        .expect("nothing in flight, nothing buffered");
    assert_eq!(std::fs::read(&path).unwrap(), b"made");
    drop(std);
    std::fs::remove_file(&path).unwrap();
}
