//! `net::unix::pipe`: anonymous pipes and FIFOs carry bytes in order,
//! report end-of-file when the last sender closes and `BrokenPipe` when
//! the last receiver does (also to a writer already waiting on a full
//! pipe), and check and convert the descriptors they are made from.

mod support;

use rt::io::{AsyncReadExt, AsyncWriteExt};
use rt::net::unix::pipe::{self, OpenOptions, Receiver, Sender};
use std::io::{ErrorKind, Read, Write};
use std::os::fd::{AsFd, AsRawFd};
use support::{each_runtime, mkfifo, scratch_dir};

/// More than a pipe holds (64 KiB on Linux): the writer must wait for the
/// reader.
const PAYLOAD: usize = 1 << 20;

fn payload() -> Vec<u8> {
    (0..PAYLOAD).map(|i| (i % 251) as u8).collect()
}

fn is_nonblocking(fd: &impl AsRawFd) -> bool {
    // SAFETY: F_GETFL on a descriptor the caller keeps open for the call.
    let flags = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_GETFL) };
    assert!(flags >= 0);
    flags & libc::O_NONBLOCK != 0
}

#[test]
fn a_pipe_carries_a_megabyte_in_order_then_eof() {
    each_runtime(|_, rt| {
        rt.block_on(async {
            let (mut tx, mut rx) = pipe::pipe().unwrap();
            let writer = rt::spawn(async move {
                tx.write_all(&payload()).await.unwrap();
                tx.flush().await.unwrap();
                // Dropped: the last sender closes.
            });
            let mut received = Vec::new();
            rx.read_to_end(&mut received).await.unwrap();
            writer.await.unwrap();
            assert_eq!(received.len(), PAYLOAD);
            assert!(received == payload(), "bytes changed or reordered");
            assert_eq!(rx.read(&mut [0; 16]).await.unwrap(), 0);
        });
    });
}

#[test]
fn writes_fail_with_broken_pipe_once_the_receiver_is_gone() {
    each_runtime(|_, rt| {
        rt.block_on(async {
            let (mut tx, rx) = pipe::pipe().unwrap();
            drop(rx);
            let err = tx.write_all(b"nobody listens").await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::BrokenPipe);
            tx.writable().await.unwrap();
            assert_eq!(
                tx.try_write(b"x").unwrap_err().kind(),
                ErrorKind::BrokenPipe
            );
        });
    });
}

#[test]
fn a_writer_waiting_on_a_full_pipe_wakes_with_broken_pipe() {
    each_runtime(|_, rt| {
        rt.block_on(async {
            let (mut tx, rx) = pipe::pipe().unwrap();
            // Fill the pipe until it would block.
            tx.writable().await.unwrap();
            let chunk = [1u8; 4096];
            loop {
                match tx.try_write(&chunk) {
                    Ok(_) => {}
                    Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                    Err(e) => panic!("filling the pipe: {e}"),
                }
            }
            let (started, waiting) = rt::sync::oneshot::channel();
            let writer = rt::spawn(async move {
                started.send(()).unwrap();
                tx.write_all(b"more").await
            });
            waiting.await.unwrap();
            rt::task::yield_now().await;
            drop(rx);
            let err = writer.await.unwrap().unwrap_err();
            assert_eq!(err.kind(), ErrorKind::BrokenPipe);
        });
    });
}

#[test]
fn try_read_and_try_write_with_readiness() {
    each_runtime(|_, rt| {
        rt.block_on(async {
            let (tx, rx) = pipe::pipe().unwrap();
            let mut buf = [0; 8];
            assert_eq!(
                rx.try_read(&mut buf).unwrap_err().kind(),
                ErrorKind::WouldBlock
            );
            tx.writable().await.unwrap();
            assert_eq!(tx.try_write(b"ping").unwrap(), 4);
            rx.readable().await.unwrap();
            assert_eq!(rx.try_read(&mut buf).unwrap(), 4);
            assert_eq!(&buf[..4], b"ping");
            drop(tx);
            rx.readable().await.unwrap();
            assert_eq!(rx.try_read(&mut buf).unwrap(), 0);
        });
    });
}

#[test]
fn a_fifo_opened_by_path_carries_bytes() {
    each_runtime(|_, rt| {
        let dir = scratch_dir("pipe-fifo", &rt);
        let fifo = dir.join("fifo");
        mkfifo(&fifo);
        rt.block_on(async {
            // No reader yet: a write-only open fails with ENXIO.
            let err = OpenOptions::new().open_sender(&fifo).unwrap_err();
            assert_eq!(err.raw_os_error(), Some(libc::ENXIO));
            let mut rx = OpenOptions::new().open_receiver(&fifo).unwrap();
            let mut tx = OpenOptions::new().open_sender(&fifo).unwrap();
            let writer = rt::spawn(async move {
                tx.write_all(&payload()).await.unwrap();
            });
            let mut received = Vec::new();
            rx.read_to_end(&mut received).await.unwrap();
            writer.await.unwrap();
            assert!(received == payload());
        });
        std::fs::remove_dir_all(&dir).unwrap();
    });
}

#[cfg(target_os = "linux")]
#[test]
fn read_write_opens_a_sender_with_no_reader() {
    each_runtime(|_, rt| {
        let dir = scratch_dir("pipe-fifo-rw", &rt);
        let fifo = dir.join("fifo");
        mkfifo(&fifo);
        rt.block_on(async {
            let mut tx = OpenOptions::new()
                .read_write(true)
                .open_sender(&fifo)
                .unwrap();
            tx.write_all(b"early").await.unwrap();
            let mut rx = OpenOptions::new().open_receiver(&fifo).unwrap();
            let mut buf = [0; 5];
            rx.read_exact(&mut buf).await.unwrap();
            assert_eq!(&buf, b"early");
        });
        std::fs::remove_dir_all(&dir).unwrap();
    });
}

#[test]
fn ends_are_checked_for_a_pipe_in_the_right_direction() {
    each_runtime(|_, rt| {
        let dir = scratch_dir("pipe-checks", &rt);
        let regular = dir.join("regular");
        std::fs::write(&regular, b"not a pipe").unwrap();
        rt.block_on(async {
            let err = OpenOptions::new().open_receiver(&regular).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidInput);
            let file = std::fs::File::open(&regular).unwrap();
            assert_eq!(
                Receiver::from_file(file).unwrap_err().kind(),
                ErrorKind::InvalidInput
            );
            // Unchecked, the FIFO check is skipped: the regular file gets as
            // far as the reactor, which cannot poll it (EPERM from epoll).
            let err = OpenOptions::new()
                .unchecked(true)
                .open_receiver(&regular)
                .unwrap_err();
            assert_eq!(err.raw_os_error(), Some(libc::EPERM));

            // The wrong ends of an anonymous pipe.
            let (reader, writer) = std::io::pipe().unwrap();
            let err = Sender::from_owned_fd(reader.into()).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidInput);
            let err = Receiver::from_owned_fd(writer.into()).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidInput);
        });
        std::fs::remove_dir_all(&dir).unwrap();
    });
}

#[test]
fn ends_from_std_are_made_non_blocking_and_given_back_blocking() {
    each_runtime(|_, rt| {
        rt.block_on(async {
            let (reader, mut writer) = std::io::pipe().unwrap();
            assert!(!is_nonblocking(&reader));
            let rx = Receiver::from_owned_fd(reader.into()).unwrap();
            assert!(is_nonblocking(&rx));
            // Empty: a try_read returns at once instead of blocking.
            assert_eq!(
                rx.try_read(&mut [0; 1]).unwrap_err().kind(),
                ErrorKind::WouldBlock
            );
            writer.write_all(b"std to rt").unwrap();
            rx.readable().await.unwrap();
            let mut buf = [0; 9];
            assert_eq!(rx.try_read(&mut buf).unwrap(), 9);

            let blocking = rx.into_blocking_fd().unwrap();
            assert!(!is_nonblocking(&blocking));
            writer.write_all(b"!").unwrap();
            drop(writer);
            let mut rest = String::new();
            std::fs::File::from(blocking)
                .read_to_string(&mut rest)
                .unwrap();
            assert_eq!(rest, "!");

            let (tx, _rx) = pipe::pipe().unwrap();
            let fd = tx.into_nonblocking_fd().unwrap();
            assert!(is_nonblocking(&fd.as_fd()));
        });
    });
}

#[test]
fn a_child_process_writes_into_a_pipe_end() {
    each_runtime(|_, rt| {
        rt.block_on(async {
            let (tx, mut rx) = pipe::pipe().unwrap();
            let status = rt::process::Command::new("sh")
                .args(["-c", "printf 'from the child'"])
                .stdout(tx.into_blocking_fd().unwrap())
                .status();
            let mut out = String::new();
            rx.read_to_string(&mut out).await.unwrap();
            assert!(status.await.unwrap().success());
            assert_eq!(out, "from the child");
        });
    });
}

/// tokio's readiness loop, ported as it is (its docs' `ready` example):
/// wait for `ready(interest)`, then try the operation if `is_readable()`
/// (or `is_writable()`) says so. A pipe whose other end is gone may report
/// only the closed side: the last sender leaving an empty pipe is a
/// hang-up alone (`EPOLLHUP`, no `EPOLLIN`), the last receiver leaving a
/// full pipe an error alone (`EPOLLERR`, no `EPOLLOUT`). A closed side
/// counts as ready, as in tokio: the read returns end-of-file and the
/// write `BrokenPipe` at once. Were it not, `ready` would return at once
/// for ever (a closed side stays closed) and the loop never try: a spin.
#[test]
fn a_closed_side_counts_as_readable_or_writable_in_the_readiness_loop() {
    use rt::io::Interest;
    const ROUNDS: usize = 100;
    each_runtime(|_, rt| {
        rt.block_on(async {
            let (tx, rx) = pipe::pipe().unwrap();
            drop(tx);
            let mut rounds = 0;
            loop {
                let ready = rx.ready(Interest::READABLE).await.unwrap();
                if ready.is_readable() {
                    match rx.try_read(&mut [0; 8]) {
                        Ok(0) => break,
                        Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                        other => panic!("read from a pipe with no sender: {other:?}"),
                    }
                }
                rounds += 1;
                assert!(
                    rounds < ROUNDS,
                    "ready() gave {ready:?} {ROUNDS} times, never readable"
                );
            }

            let (tx, rx) = pipe::pipe().unwrap();
            tx.writable().await.unwrap();
            loop {
                match tx.try_write(&[1u8; 4096]) {
                    Ok(_) => {}
                    Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                    Err(e) => panic!("filling the pipe: {e}"),
                }
            }
            drop(rx);
            let mut rounds = 0;
            loop {
                let ready = tx.ready(Interest::WRITABLE).await.unwrap();
                if ready.is_writable() {
                    match tx.try_write(b"x") {
                        Err(e) if e.kind() == ErrorKind::BrokenPipe => break,
                        Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                        other => panic!("write to a pipe with no receiver: {other:?}"),
                    }
                }
                rounds += 1;
                assert!(
                    rounds < ROUNDS,
                    "ready() gave {ready:?} {ROUNDS} times, never writable"
                );
            }
        });
    });
}

/// Whether `poll` is ready at its first poll (a noop waker: nothing waits).
fn ready_now<T>(poll: impl FnOnce(&mut std::task::Context<'_>) -> std::task::Poll<T>) -> bool {
    poll(&mut std::task::Context::from_waker(std::task::Waker::noop())).is_ready()
}

/// A FIFO's closed side reopens: a receiver that read end-of-file when the
/// last sender left waits for the next sender's bytes, and a sender that
/// got `BrokenPipe` when the last receiver left waits on a full pipe once
/// a new receiver opens it. Their `WouldBlock` clears the closed state
/// too; left set, every wait after it ended at once and `read` retried
/// without yielding, for ever. (A `WouldBlock` from a closure given to
/// `try_io` proves nothing and keeps it, as tokio's does: only rt's own
/// read reopens the side.)
#[cfg(target_os = "linux")]
#[test]
fn a_fifo_reopened_by_a_new_peer_is_waited_on_again() {
    each_runtime(|_, rt| {
        let dir = scratch_dir("pipe-fifo-reopened", &rt);
        let fifo = dir.join("fifo");
        mkfifo(&fifo);
        rt.block_on(async {
            let mut rx = OpenOptions::new().open_receiver(&fifo).unwrap();
            let mut tx = OpenOptions::new().open_sender(&fifo).unwrap();
            tx.write_all(b"one").await.unwrap();
            drop(tx);
            let mut buf = [0; 3];
            rx.read_exact(&mut buf).await.unwrap();
            assert_eq!(rx.read(&mut buf).await.unwrap(), 0, "end-of-file");
            // That end-of-file came from the read itself: wait until the
            // reactor has the closed state too (its event may still be on
            // its way, under load), as the closure below is to keep it.
            while !rx
                .ready(rt::io::Interest::READABLE)
                .await
                .unwrap()
                .is_read_closed()
            {
                rt::task::yield_now().await;
            }

            // A second sender opens the FIFO and has written nothing yet.
            let mut tx = OpenOptions::new().open_sender(&fifo).unwrap();
            let err = rx.try_io(|| Err::<(), _>(ErrorKind::WouldBlock.into()));
            assert_eq!(err.unwrap_err().kind(), ErrorKind::WouldBlock);
            assert!(
                ready_now(|cx| rx.poll_read_ready(cx)),
                "a closure's WouldBlock cleared the closed state"
            );
            let err = rx.try_read(&mut buf).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::WouldBlock);
            assert!(
                !ready_now(|cx| rx.poll_read_ready(cx)),
                "the receiver still reads as closed after its read would block"
            );
            let reader = rt::spawn(async move {
                let mut buf = [0; 3];
                rx.read_exact(&mut buf).await.map(|()| (buf, rx))
            });
            tx.write_all(b"two").await.unwrap();
            let (buf, rx) = reader.await.unwrap().unwrap();
            assert_eq!(&buf, b"two");

            // The sender's side: the receiver leaves, a new one opens.
            drop(rx);
            let err = tx.write_all(b"x").await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::BrokenPipe);
            let mut rx = OpenOptions::new().open_receiver(&fifo).unwrap();
            let mut sent = 0;
            loop {
                match tx.try_write(&[7; 4096]) {
                    Ok(n) => sent += n,
                    Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                    Err(e) => panic!("filling the reopened pipe: {e}"),
                }
            }
            assert!(
                !ready_now(|cx| tx.poll_write_ready(cx)),
                "the sender still writes as closed after its write would block"
            );
            let writer = rt::spawn(async move { tx.write_all(b"last").await.map(|()| tx) });
            let mut received = vec![0; sent + 4];
            rx.read_exact(&mut received).await.unwrap();
            assert_eq!(&received[sent..], b"last");
            drop(writer.await.unwrap().unwrap());
        });
        std::fs::remove_dir_all(&dir).unwrap();
    });
}
