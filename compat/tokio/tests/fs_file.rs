//! `fs::File` details from tokio's fs.rs and fs_file.rs: `try_clone`
//! keeps `max_buf_size`, `FromRawFd`.

mod support;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A runtime of either flavour whose blocking pool has one thread, which a
/// test can keep busy so that the file's next job surely waits.
fn one_blocking_thread(current_thread: bool) -> tokio::runtime::Runtime {
    let mut builder = if current_thread {
        tokio::runtime::Builder::new_current_thread()
    } else {
        tokio::runtime::Builder::new_multi_thread()
    };
    builder
        .enable_all()
        .max_blocking_threads(1)
        .build()
        .unwrap()
}

fn temp_path(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("facade-fsfile-{name}-{}", std::process::id()))
}

#[test]
fn try_clone_preserves_max_buf_size() {
    support::on_both_flavours(|| async {
        let path = temp_path("try-clone");
        let mut file = tokio::fs::File::create(&path).await.unwrap();
        file.set_max_buf_size(128);
        let cloned = file.try_clone().await.unwrap();
        assert_eq!(cloned.max_buf_size(), 128);
        tokio::fs::remove_file(&path).await.unwrap();
    });
}

#[test]
fn read_file_from_raw_fd() {
    use std::os::fd::{FromRawFd, IntoRawFd};
    support::on_both_flavours(|| async {
        let path = temp_path("raw-fd");
        let mut file = tokio::fs::File::create(&path).await.unwrap();
        file.write_all(b"hello from a raw fd").await.unwrap();
        file.sync_all().await.unwrap();
        drop(file);

        let file = tokio::fs::File::open(&path).await.unwrap();
        let raw_fd = file.into_std().await.into_raw_fd();
        // SAFETY: `raw_fd` is open and owned by nothing else (into_raw_fd).
        let mut file = unsafe { tokio::fs::File::from_raw_fd(raw_fd) };
        let mut got = String::new();
        file.read_to_string(&mut got).await.unwrap();
        assert_eq!(got, "hello from a raw fd");
        tokio::fs::remove_file(&path).await.unwrap();
    });
}

#[test]
#[should_panic(expected = "`max_buf_size` must be greater than 0")]
fn set_max_buf_size_panics_on_zero() {
    support::block_on(async {
        let path = temp_path("zero-buf");
        let mut file = tokio::fs::File::create(&path).await.unwrap();
        std::fs::remove_file(&path).unwrap();
        file.set_max_buf_size(0);
    });
}

#[test]
fn write_vectored_writes_every_slice() {
    support::on_both_flavours(|| async {
        let path = temp_path("vectored");
        let mut file = tokio::fs::File::create(&path).await.unwrap();
        let bufs = [
            std::io::IoSlice::new(b"hello "),
            std::io::IoSlice::new(b""),
            std::io::IoSlice::new(b"world"),
        ];
        assert_eq!(file.write_vectored(&bufs).await.unwrap(), 11);
        // At most max_buf_size of them.
        file.set_max_buf_size(4);
        assert_eq!(file.write_vectored(&bufs).await.unwrap(), 4);
        file.flush().await.unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"hello worldhell");
        tokio::fs::remove_file(&path).await.unwrap();
    });
}

#[test]
fn debug_shows_the_std_file() {
    support::block_on(async {
        let path = temp_path("debug");
        let file = tokio::fs::File::create(&path).await.unwrap();
        let shown = format!("{file:?}");
        assert!(
            shown.starts_with("tokio::fs::File { std: File { fd:"),
            "{shown}"
        );
        drop(file);
        std::fs::remove_file(&path).unwrap();
    });
}

/// A read of a file whose runtime has shut down fails (its blocking job
/// is cancelled) instead of spinning: `read_to_end` retries `Interrupted`
/// as tokio's does, so the cancelled job's error must be of another kind.
#[test]
fn read_to_end_after_shutdown_fails_instead_of_retrying() {
    for multi_thread in [false, true] {
        let rt = if multi_thread {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .build()
                .unwrap()
        } else {
            tokio::runtime::Builder::new_current_thread()
                .build()
                .unwrap()
        };
        let path = temp_path(&format!("after-shutdown-{multi_thread}"));
        std::fs::write(&path, b"never read").unwrap();
        let file = rt.block_on(tokio::fs::File::open(&path)).unwrap();
        let handle = rt.handle().clone();
        rt.shutdown_timeout(std::time::Duration::from_secs(1000));
        let (tx, rx) = std::sync::mpsc::channel();
        // On its own thread: a retry loop spins forever, and the test can
        // then only fail by giving up on it.
        std::thread::spawn(move || {
            let mut file = file;
            let mut contents = Vec::new();
            let result = handle.block_on(file.read_to_end(&mut contents));
            tx.send(result.map(|_| contents)).unwrap();
        });
        let result = rx
            .recv_timeout(std::time::Duration::from_secs(30))
            .expect("read_to_end after shutdown never returned: it retries the cancelled read");
        let err = result.expect_err("the runtime is shut down: nothing can be read");
        assert_eq!(err.kind(), std::io::ErrorKind::Other, "{err}");
        std::fs::remove_file(&path).unwrap();
    }
}

/// `into_std` hands the file back even when a buffered write failed, as
/// tokio's does (it waits for the write and drops its error); before, it
/// panicked with "rt: File::into_std could not hand the file back".
#[test]
fn into_std_after_a_failed_write_hands_the_file_back() {
    support::on_both_flavours(|| async {
        let path = temp_path("into-std-failed-write");
        std::fs::write(&path, b"read only").unwrap();
        let mut file = tokio::fs::File::open(&path).await.unwrap();
        // Buffered: accepted now, refused (EBADF) on the blocking pool.
        assert_eq!(file.write(b"x").await.unwrap(), 1);
        let mut std = file.into_std().await;
        let mut contents = String::new();
        std::io::Read::read_to_string(&mut std, &mut contents).unwrap();
        assert_eq!(contents, "read only");
        tokio::fs::remove_file(&path).await.unwrap();
    });
}

/// A seek whose future was dropped once it had started (`start_seek`,
/// then a `poll_complete` that found it in flight), then another
/// operation (a read, or `set_len` on `&self`), then `stream_position`:
/// the operation comes after the seek (tokio's seek is in flight from
/// `start_seek` on, and the next operation waits for it), and the seek is
/// made once, not again by the next seek. The blocking pool has one
/// thread, kept busy meanwhile, so the seek is surely in flight.
#[test]
fn a_dropped_seek_is_completed_by_the_next_operation_and_made_once() {
    use std::future::poll_fn;
    use std::io::SeekFrom;
    use std::pin::Pin;
    use std::task::Poll;
    use tokio::io::{AsyncSeek, AsyncSeekExt};

    for current_thread in [true, false] {
        for then_set_len in [false, true] {
            let rt = one_blocking_thread(current_thread);
            rt.block_on(async {
                let path = temp_path(&format!("dropped-seek-{current_thread}-{then_set_len}"));
                std::fs::write(&path, b"0123456789abcdef").unwrap();
                let mut file = tokio::fs::OpenOptions::new()
                    .read(true)
                    .write(true)
                    .open(&path)
                    .await
                    .unwrap();
                let (release, released) = std::sync::mpsc::channel::<()>();
                let busy = tokio::task::spawn_blocking(move || released.recv().unwrap());
                Pin::new(&mut file)
                    .start_seek(SeekFrom::Current(5))
                    .unwrap();
                let polled = poll_fn(|cx| Poll::Ready(Pin::new(&mut file).poll_complete(cx))).await;
                assert!(polled.is_pending(), "the pool was busy");
                release.send(()).unwrap();
                busy.await.unwrap();

                let at = if then_set_len {
                    file.set_len(12).await.unwrap();
                    5
                } else {
                    let mut next = [0u8; 1];
                    file.read_exact(&mut next).await.unwrap();
                    assert_eq!(&next, b"5");
                    6
                };
                assert_eq!(file.stream_position().await.unwrap(), at);
                tokio::fs::remove_file(&path).await.unwrap();
            });
        }
    }
}

/// A seek asked for with `start_seek` alone (no `poll_complete`), then
/// `into_std`: tokio's seek is in flight from `start_seek` on, and
/// `into_std` waits for it, so the std file is where the seek put it.
#[test]
fn a_started_seek_is_made_before_the_file_becomes_std() {
    use std::io::{Seek, SeekFrom};
    use std::pin::Pin;
    use tokio::io::AsyncSeek;

    support::on_both_flavours(|| async {
        let path = temp_path(&format!("started-seek-{:?}", std::thread::current().id()));
        std::fs::write(&path, b"0123456789").unwrap();
        let mut file = tokio::fs::File::open(&path).await.unwrap();
        Pin::new(&mut file)
            .start_seek(SeekFrom::Current(5))
            .unwrap();
        let mut std = file.into_std().await;
        assert_eq!(std.stream_position().unwrap(), 5);
        std::fs::remove_file(&path).unwrap();
    });
}

/// A buffered write that fails, then a seek (`seek`, `rewind` or
/// `stream_position`): as with tokio, the seek waits for the write and is
/// made, and the write's error is kept for the next flush. Before, the
/// seek collected the error and dropped it: the flush said `Ok`, so the
/// lost write was never reported.
#[test]
fn a_write_error_outlives_a_seek_until_the_flush() {
    use std::io::SeekFrom;
    use tokio::io::AsyncSeekExt;

    for seek in [SeekFrom::Start(5), SeekFrom::Current(0), SeekFrom::End(-4)] {
        support::on_both_flavours(move || async move {
            let path = temp_path(&format!(
                "write-error-seek-{seek:?}-{:?}",
                std::thread::current().id()
            ));
            std::fs::write(&path, b"read only").unwrap();
            let mut file = tokio::fs::File::open(&path).await.unwrap();
            // Buffered: accepted now, refused (EBADF) on the blocking pool.
            assert_eq!(file.write(b"x").await.unwrap(), 1);
            let expected = match seek {
                SeekFrom::Start(n) => n,
                SeekFrom::Current(_) => 0,
                SeekFrom::End(_) => 5,
            };
            assert_eq!(file.seek(seek).await.unwrap(), expected, "{seek:?}");
            let err = file.flush().await.unwrap_err();
            assert_eq!(err.raw_os_error(), Some(9), "{seek:?}: {err}");
            // Reported once; the seek was made.
            file.flush().await.unwrap();
            let mut rest = String::new();
            file.read_to_string(&mut rest).await.unwrap();
            assert_eq!(rest, &"read only"[expected as usize..], "{seek:?}");
            std::fs::remove_file(&path).unwrap();
        });
    }
}

/// A `seek` makes one trip to the blocking pool, as tokio's: the
/// `poll_complete` it calls before starting its seek answers, with no
/// seek started, where the last seek put the file (tokio's answer; the
/// trait leaves it unspecified) instead of asking the file. The pool's one
/// thread is kept busy, so a trip there could not finish.
#[test]
fn poll_complete_with_no_seek_started_answers_without_the_pool() {
    use std::future::poll_fn;
    use std::io::SeekFrom;
    use std::pin::Pin;
    use std::task::Poll;
    use tokio::io::{AsyncSeek, AsyncSeekExt};

    for current_thread in [true, false] {
        let rt = one_blocking_thread(current_thread);
        rt.block_on(async {
            let path = temp_path(&format!("bare-poll-complete-{current_thread}"));
            std::fs::write(&path, b"0123456789").unwrap();
            let mut file = tokio::fs::File::open(&path).await.unwrap();
            let before_any = poll_fn(|cx| Pin::new(&mut file).poll_complete(cx)).await;
            assert_eq!(before_any.unwrap(), 0);
            assert_eq!(file.seek(SeekFrom::Start(7)).await.unwrap(), 7);

            let (release, released) = std::sync::mpsc::channel::<()>();
            let busy = tokio::task::spawn_blocking(move || released.recv().unwrap());
            let polled = poll_fn(|cx| Poll::Ready(Pin::new(&mut file).poll_complete(cx))).await;
            assert!(
                matches!(polled, Poll::Ready(Ok(7))),
                "with the pool busy: {polled:?}"
            );
            release.send(()).unwrap();
            busy.await.unwrap();
            // The position is still the file's own for a seek.
            assert_eq!(file.seek(SeekFrom::Current(1)).await.unwrap(), 8);
            tokio::fs::remove_file(&path).await.unwrap();
        });
    }
}
