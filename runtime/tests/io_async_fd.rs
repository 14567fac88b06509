//! `AsyncFd` on a pipe, on both schedulers.

mod support;

use rt::io::{AsyncFd, Interest};
use std::fs::File;
use std::io::{ErrorKind, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd};
use support::on_both;

/// A non-blocking pipe: (read end, write end).
fn pipe() -> (AsyncFd<File>, AsyncFd<File>) {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: `fds` is a valid array of two descriptors for pipe2 to fill.
    let rc = unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_NONBLOCK | libc::O_CLOEXEC) };
    assert_eq!(rc, 0, "{}", std::io::Error::last_os_error());
    // SAFETY: pipe2 succeeded, so both are open descriptors owned by nobody
    // else; each is wrapped exactly once.
    let (reader, writer) = unsafe { (File::from_raw_fd(fds[0]), File::from_raw_fd(fds[1])) };
    (
        AsyncFd::with_interest(reader, Interest::READABLE).unwrap(),
        AsyncFd::with_interest(writer, Interest::WRITABLE).unwrap(),
    )
}

async fn read_some(fd: &AsyncFd<File>, buf: &mut [u8]) -> std::io::Result<usize> {
    loop {
        let mut guard = fd.readable().await?;
        if let Ok(result) = guard.try_io(|fd| fd.get_ref().read(buf)) {
            return result;
        }
    }
}

async fn write_all(fd: &AsyncFd<File>, mut data: &[u8]) -> std::io::Result<()> {
    while !data.is_empty() {
        let mut guard = fd.writable().await?;
        if let Ok(result) = guard.try_io(|fd| fd.get_ref().write(data)) {
            data = &data[result?..];
        }
    }
    Ok(())
}

#[test]
fn pipe_transfer_larger_than_the_pipe_buffer() {
    const TOTAL: usize = 1 << 20;
    on_both(|| async {
        let (reader, writer) = pipe();
        let producer = rt::spawn(async move {
            let data: Vec<u8> = (0..TOTAL).map(|i| (i % 251) as u8).collect();
            write_all(&writer, &data).await.unwrap();
            // Dropping the writer closes the pipe: the reader sees EOF.
        });
        let mut received = Vec::with_capacity(TOTAL);
        let mut buf = vec![0u8; 8192];
        loop {
            let n = read_some(&reader, &mut buf).await.unwrap();
            if n == 0 {
                break;
            }
            received.extend_from_slice(&buf[..n]);
        }
        producer.await.unwrap();
        assert_eq!(received.len(), TOTAL);
        assert!(
            received
                .iter()
                .enumerate()
                .all(|(i, &b)| b == (i % 251) as u8)
        );
    });
}

#[test]
fn clear_ready_makes_the_next_wait_wait() {
    on_both(|| async {
        let (reader, writer) = pipe();
        writer.get_ref().write_all(b"one").unwrap();
        let mut guard = reader.readable().await.unwrap();
        assert!(guard.ready().is_readable());
        let mut buf = [0u8; 8];
        assert_eq!(guard.get_inner().read(&mut buf).unwrap(), 3);
        let err = guard.get_inner().read(&mut buf).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::WouldBlock);
        guard.clear_ready();

        // Now `readable` must wait for new data, written by another task.
        let writer_task = rt::spawn(async move {
            write_all(&writer, b"two").await.unwrap();
            writer
        });
        let n = read_some(&reader, &mut buf).await.unwrap();
        assert_eq!(&buf[..n], b"two");
        drop(writer_task.await.unwrap());
        assert_eq!(read_some(&reader, &mut buf).await.unwrap(), 0);
    });
}

#[test]
fn into_inner_deregisters() {
    on_both(|| async {
        let (reader, _writer) = pipe();
        let raw = reader.get_ref().as_raw_fd();
        let inner = reader.into_inner();
        assert_eq!(inner.as_raw_fd(), raw);
        // The descriptor can be registered again.
        let again = AsyncFd::new(inner).unwrap();
        drop(again);
    });
}
