//! `AsyncFd` on a pipe, on both schedulers.

mod support;

use rt::io::{AsyncFd, Interest};
use std::io::{ErrorKind, Read, Write};
use std::os::fd::AsRawFd;
use support::on_both;

fn set_nonblocking(fd: &impl AsRawFd) {
    let fd = fd.as_raw_fd();
    // SAFETY: `fd` is an open descriptor owned by the caller for the call.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    assert!(flags >= 0);
    // SAFETY: as above; only O_NONBLOCK is added.
    assert_eq!(unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) }, 0);
}

fn pipe() -> (AsyncFd<std::io::PipeReader>, AsyncFd<std::io::PipeWriter>) {
    let (reader, writer) = std::io::pipe().unwrap();
    set_nonblocking(&reader);
    set_nonblocking(&writer);
    (
        AsyncFd::with_interest(reader, Interest::READABLE).unwrap(),
        AsyncFd::with_interest(writer, Interest::WRITABLE).unwrap(),
    )
}

async fn read_some(fd: &AsyncFd<std::io::PipeReader>, buf: &mut [u8]) -> std::io::Result<usize> {
    loop {
        let mut guard = fd.readable().await?;
        if let Ok(result) = guard.try_io(|fd| (&*fd.get_ref()).read(buf)) {
            return result;
        }
    }
}

async fn write_all(fd: &AsyncFd<std::io::PipeWriter>, mut data: &[u8]) -> std::io::Result<()> {
    while !data.is_empty() {
        let mut guard = fd.writable().await?;
        if let Ok(result) = guard.try_io(|fd| (&*fd.get_ref()).write(data)) {
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
        assert!(received.iter().enumerate().all(|(i, &b)| b == (i % 251) as u8));
    });
}

#[test]
fn clear_ready_makes_the_next_wait_wait() {
    on_both(|| async {
        let (reader, writer) = pipe();
        (&*writer.get_ref()).write_all(b"one").unwrap();
        let mut guard = reader.readable().await.unwrap();
        assert!(guard.ready().is_readable());
        let mut buf = [0u8; 8];
        assert_eq!((&*guard.get_inner()).read(&mut buf).unwrap(), 3);
        let err = (&*guard.get_inner()).read(&mut buf).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::WouldBlock);
        guard.clear_ready();
        drop(guard);

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
