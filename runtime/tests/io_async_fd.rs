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

/// Polls `future` by hand, with a waker that does nothing, until it is
/// ready: its output, or `None` if it was still pending after `polls`.
fn ready_within<F: std::future::Future>(polls: usize, future: F) -> Option<F::Output> {
    let mut future = Box::pin(future);
    (0..polls).find_map(|_| match support::poll_once(&mut future) {
        std::task::Poll::Ready(output) => Some(output),
        std::task::Poll::Pending => None,
    })
}

/// `true` if `fd` reads as read-closed without waiting.
fn read_closed_now<T: AsRawFd>(fd: &AsyncFd<T>) -> bool {
    ready_within(1, fd.readable()).is_some_and(|guard| guard.unwrap().ready().is_read_closed())
}

fn would_block<T>() -> std::io::Result<T> {
    Err(ErrorKind::WouldBlock.into())
}

/// A `WouldBlock` from the caller's closure keeps the closed states, in
/// every closure form (`try_io`, `try_io_mut`, `async_io`,
/// `async_io_mut`, the guard's `try_io`), as tokio's: there they are
/// final. The closure may say `WouldBlock` for reasons of its own (a frame
/// not complete yet); rt's forms other than the guard's cleared the
/// read-closed state, so the end of the stream was lost: `readable()`
/// waited for ever, and `async_io` never called the closure again.
#[test]
fn a_closures_would_block_keeps_the_closed_states() {
    on_both(|| async {
        let (a, mut b) = std::os::unix::net::UnixStream::pair().unwrap();
        a.set_nonblocking(true).unwrap();
        let mut fd = AsyncFd::new(a).unwrap();
        b.write_all(b"ab").unwrap();
        drop(b);
        while !fd.readable().await.unwrap().ready().is_read_closed() {
            rt::task::yield_now().await;
        }

        let err = fd.try_io(Interest::READABLE, |_| would_block::<()>());
        assert_eq!(err.unwrap_err().kind(), ErrorKind::WouldBlock);
        assert!(read_closed_now(&fd), "try_io cleared the read-closed state");
        let err = fd.try_io_mut(Interest::READABLE, |_| would_block::<()>());
        assert_eq!(err.unwrap_err().kind(), ErrorKind::WouldBlock);
        assert!(
            read_closed_now(&fd),
            "try_io_mut cleared the read-closed state"
        );
        let mut guard = fd.readable().await.unwrap();
        assert!(guard.try_io(|_| would_block::<()>()).is_err());
        assert!(
            read_closed_now(&fd),
            "the guard's try_io cleared the read-closed state"
        );

        // The closure would block once, then has its frame: `async_io`
        // calls it again, since the kept state ends the wait at once.
        let mut calls = 0;
        let second = |_: &_| {
            calls += 1;
            if calls == 1 { would_block() } else { Ok(calls) }
        };
        let called = ready_within(10, fd.async_io(Interest::READABLE, second));
        assert_eq!(called.expect("async_io waited").unwrap(), 2);
        let mut calls = 0;
        let second = |_: &mut _| {
            calls += 1;
            if calls == 1 { would_block() } else { Ok(calls) }
        };
        let called = ready_within(10, fd.async_io_mut(Interest::READABLE, second));
        assert_eq!(called.expect("async_io_mut waited").unwrap(), 2);

        // The bytes and the end are all still there.
        let mut buf = [0; 4];
        assert_eq!(fd.get_ref().read(&mut buf).unwrap(), 2);
        assert_eq!(fd.get_ref().read(&mut buf).unwrap(), 0);
    });
}

/// The FIFO case of the rule above: a FIFO's read side reopens when a new
/// writer opens it after the last one left, with no event to say so. Only
/// a `WouldBlock` of rt's own read shows it (`rt::net::unix::pipe`'s
/// receiver then waits again: `net_unix_pipe.rs`); a closure's
/// `WouldBlock` proves nothing, so on an `AsyncFd` the FIFO stays
/// read-closed, as in tokio, whose docs say to reopen the FIFO once its
/// writer is gone. Until then `readable()` ends at once.
#[cfg(target_os = "linux")]
#[test]
fn a_fifo_reopened_by_a_new_writer_stays_read_closed_for_a_closure() {
    use std::os::unix::fs::OpenOptionsExt;
    support::each_runtime(|_, rt| {
        let dir = support::scratch_dir("async-fd-fifo-reopened", &rt);
        let fifo = dir.join("fifo");
        support::mkfifo(&fifo);
        rt.block_on(async {
            let mut options = std::fs::OpenOptions::new();
            let reader = options
                .read(true)
                .custom_flags(libc::O_NONBLOCK)
                .open(&fifo);
            let fd = AsyncFd::with_interest(reader.unwrap(), Interest::READABLE).unwrap();
            let mut writer = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
            writer.write_all(b"x").unwrap();
            drop(writer);
            let mut buf = [0; 4];
            assert_eq!(read_some(&fd, &mut buf).await.unwrap(), 1);
            assert_eq!(read_some(&fd, &mut buf).await.unwrap(), 0, "end-of-file");
            // That end-of-file came from the read itself: wait until the
            // reactor has the closed state too (its event may still be on
            // its way, under load), as the closure below is to keep it.
            while !fd.readable().await.unwrap().ready().is_read_closed() {
                rt::task::yield_now().await;
            }

            // A second writer opens the FIFO and has written nothing yet.
            let mut writer = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
            let err = fd.try_io(Interest::READABLE, |mut f| f.read(&mut buf));
            assert_eq!(err.unwrap_err().kind(), ErrorKind::WouldBlock);
            assert!(
                read_closed_now(&fd),
                "a closure's WouldBlock reopened the FIFO"
            );
            writer.write_all(b"y").unwrap();
            let n = fd
                .async_io(Interest::READABLE, |mut f| f.read(&mut buf))
                .await;
            assert_eq!(n.unwrap(), 1);
            assert_eq!(&buf[..1], b"y");
        });
        std::fs::remove_dir_all(&dir).unwrap();
    });
}
