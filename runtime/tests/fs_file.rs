//! `rt::fs::File`: async reads, writes and seeks through the blocking pool.

mod support;

use support::{SINGLE_POLLER, runtimes, scratch_dir};

use rt::io::{AsyncRead, AsyncReadExt, AsyncSeek, AsyncSeekExt, AsyncWriteExt};
use rt::runtime::{Builder, Runtime};
use std::future::Future;
use std::io::{ErrorKind, IoSlice, SeekFrom};
use std::path::Path;
use std::pin::Pin;
use std::task::Poll;

#[test]
fn write_then_read_back() {
    for (_, rt) in runtimes() {
        let dir = scratch_dir("round-trip", &rt);
        let path = dir.join("f");
        rt.block_on(async {
            let mut file = rt::fs::File::create(&path).await.unwrap();
            for i in 0..100 {
                file.write_all(format!("line {i}\n").as_bytes())
                    .await
                    .unwrap();
            }
            file.sync_all().await.unwrap();
            assert_eq!(file.metadata().await.unwrap().len(), 790);

            let mut contents = String::new();
            let mut file = rt::fs::File::open(&path).await.unwrap();
            file.read_to_string(&mut contents).await.unwrap();
            assert_eq!(contents.lines().count(), 100);
            assert_eq!(contents.lines().nth(42), Some("line 42"));
            // At the end, reads return 0.
            assert_eq!(file.read(&mut [0; 8]).await.unwrap(), 0);
        });
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn seek_read_and_write_positions() {
    for (_, rt) in runtimes() {
        let dir = scratch_dir("seek", &rt);
        let path = dir.join("f");
        std::fs::write(&path, "hello world").unwrap();
        rt.block_on(async {
            let mut file = open_read_write(&path).await;
            assert_eq!(file.seek(SeekFrom::Start(6)).await.unwrap(), 6);
            let mut word = [0; 5];
            file.read_exact(&mut word).await.unwrap();
            assert_eq!(&word, b"world");
            assert_eq!(file.seek(SeekFrom::Current(-5)).await.unwrap(), 6);
            file.write_all(b"WORLD").await.unwrap();
            assert_eq!(file.seek(SeekFrom::End(-11)).await.unwrap(), 0);
            file.write_all(b"J").await.unwrap();
            file.flush().await.unwrap();
        });
        assert_eq!(std::fs::read(&path).unwrap(), b"Jello WORLD");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn unread_bytes_are_given_back_before_a_write() {
    // One blocking thread, for `abandon_a_read`.
    let rt = one_blocking_thread();
    let dir = scratch_dir("read-ahead", &rt);
    let path = dir.join("f");
    std::fs::write(&path, "0123456789").unwrap();
    rt.block_on(async {
        let mut file = open_read_write(&path).await;
        // Start a 10-byte read and give up on it: its bytes land in the
        // file's buffer, ahead of what the caller consumes next.
        abandon_a_read(&mut file, 10).await;
        let mut small = [0; 3];
        file.read_exact(&mut small).await.unwrap();
        assert_eq!(&small, b"012");
        // The write goes where the caller is (3), not where the OS is (10).
        file.write_all(b"X").await.unwrap();
        file.flush().await.unwrap();
        assert_eq!(file.seek(SeekFrom::Current(0)).await.unwrap(), 4);
    });
    assert_eq!(std::fs::read(&path).unwrap(), b"012X456789");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Starts a read of `len` bytes on `file` and gives up on it while the
/// pool's one blocking thread is held busy, so the read is sure to be
/// queued: its bytes land in the file's buffer, read ahead of the logical
/// position. Needs a runtime with `max_blocking_threads(1)`.
async fn abandon_a_read(file: &mut rt::fs::File, len: usize) {
    let held = HeldBlockingThread::hold();
    let mut big = vec![0; len];
    std::future::poll_fn(|cx| {
        assert!(Pin::new(&mut *file).poll_read(cx, &mut big).is_pending());
        Poll::Ready(())
    })
    .await;
    held.release().await;
}

/// Starts a seek to `pos` on `file` and gives up on it while the pool's
/// one blocking thread is held busy, so the seek is sure to be queued (a
/// `select!` against a timeout, say). Needs a runtime with
/// `max_blocking_threads(1)`.
async fn abandon_a_seek(file: &mut rt::fs::File, pos: SeekFrom) {
    let held = HeldBlockingThread::hold();
    std::future::poll_fn(|cx| {
        assert!(Pin::new(&mut *file).poll_seek(cx, pos).is_pending());
        Poll::Ready(())
    })
    .await;
    held.release().await;
}

/// A runtime whose blocking pool has one thread, for
/// [`HeldBlockingThread`].
fn one_blocking_thread() -> Runtime {
    Builder::new_multi_thread()
        .worker_threads(1)
        .max_blocking_threads(1)
        .build()
        .unwrap()
}

/// The blocking pool's one thread, kept busy by a job until
/// [`release`](HeldBlockingThread::release): a file operation started
/// meanwhile is sure to queue behind it.
struct HeldBlockingThread {
    release: std::sync::mpsc::Sender<()>,
    job: rt::task::JoinHandle<()>,
}

impl HeldBlockingThread {
    /// Returns once the job runs.
    fn hold() -> HeldBlockingThread {
        let (started_tx, started_rx) = std::sync::mpsc::channel::<()>();
        let (release, release_rx) = std::sync::mpsc::channel::<()>();
        let job = rt::spawn_blocking(move || {
            started_tx.send(()).unwrap();
            release_rx.recv().unwrap();
        });
        started_rx.recv().unwrap();
        HeldBlockingThread { release, job }
    }

    /// Lets the job end, and waits until it has.
    async fn release(self) {
        self.release.send(()).unwrap();
        self.job.await.unwrap();
    }

    /// Lets the job end without waiting for it (its runtime may have shut
    /// down).
    fn let_go(self) {
        self.release.send(()).unwrap();
    }
}

/// `path` opened for reading and writing.
async fn open_read_write(path: &Path) -> rt::fs::File {
    rt::fs::File::options()
        .read(true)
        .write(true)
        .open(path)
        .await
        .unwrap()
}

#[test]
fn into_std_and_try_clone_start_at_the_logical_position() {
    use std::io::{Read, Seek};
    let rt = one_blocking_thread();
    let dir = scratch_dir("into-std", &rt);
    let path = dir.join("f");
    std::fs::write(&path, "0123456789").unwrap();
    rt.block_on(async {
        let mut options = rt::fs::File::options();
        options.read(true).write(true);
        // Read ahead to 10, consumed to 3: the clone (sharing the OS
        // position, as `dup` does) reads on from 3.
        let mut file = options.open(&path).await.unwrap();
        abandon_a_read(&mut file, 10).await;
        let mut bytes = [0; 3];
        file.read_exact(&mut bytes).await.unwrap();
        assert_eq!(&bytes, b"012");
        let mut clone = file.try_clone().await.unwrap();
        clone.read_exact(&mut bytes).await.unwrap();
        assert_eq!(&bytes, b"345");
        file.read_exact(&mut bytes[..2]).await.unwrap();
        assert_eq!(&bytes[..2], b"67");
        // A write still buffered is on disk once `into_std` returns.
        file.write_all(b"XY").await.unwrap();
        let mut std = file.into_std().await.unwrap();
        assert_eq!(std.stream_position().unwrap(), 10);
        drop(clone);

        // Read ahead, nothing consumed: the std file starts at 0.
        let mut file = options.open(&path).await.unwrap();
        abandon_a_read(&mut file, 10).await;
        std = file.into_std().await.unwrap();
        assert_eq!(std.stream_position().unwrap(), 0);
        let mut contents = String::new();
        std.read_to_string(&mut contents).unwrap();
        assert_eq!(contents, "01234567XY");
    });
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn open_options_mode_and_custom_flags() {
    use std::os::unix::fs::PermissionsExt;
    for (_, rt) in runtimes() {
        let dir = scratch_dir("open-mode", &rt);
        let path = dir.join("private");
        let link = dir.join("link");
        std::os::unix::fs::symlink(&path, &link).unwrap();
        rt.block_on(async {
            let file = rt::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&path)
                .await
                .unwrap();
            let mode = file.metadata().await.unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
            // O_NOFOLLOW refuses to open through the symbolic link.
            let err = rt::fs::OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_NOFOLLOW)
                .open(&link)
                .await
                .unwrap_err();
            // The path context wraps the OS error; its source keeps errno.
            let source = std::error::Error::source(err.get_ref().unwrap())
                .and_then(|e| e.downcast_ref::<std::io::Error>())
                .unwrap();
            assert_eq!(source.raw_os_error(), Some(libc::ELOOP), "{err}");
            // Without the flag it opens the target.
            let mut std = std::fs::OpenOptions::new();
            std.read(true);
            rt::fs::OpenOptions::from(std).open(&link).await.unwrap();
        });
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn file_set_permissions() {
    for (_, rt) in runtimes() {
        let dir = scratch_dir("file-chmod", &rt);
        let path = dir.join("f");
        rt.block_on(async {
            let file = rt::fs::File::create(&path).await.unwrap();
            let mut permissions = file.metadata().await.unwrap().permissions();
            permissions.set_readonly(true);
            file.set_permissions(permissions).await.unwrap();
            assert!(file.metadata().await.unwrap().permissions().readonly());
            assert!(std::fs::metadata(&path).unwrap().permissions().readonly());
        });
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn set_len_truncates_and_extends() {
    for (_, rt) in runtimes() {
        let dir = scratch_dir("set-len", &rt);
        let path = dir.join("f");
        rt.block_on(async {
            let mut file = rt::fs::File::create(&path).await.unwrap();
            file.write_all(b"abcdef").await.unwrap();
            // The buffered write lands before the truncation.
            file.set_len(3).await.unwrap();
            assert_eq!(file.metadata().await.unwrap().len(), 3);
            file.set_len(4096).await.unwrap();
            assert_eq!(file.metadata().await.unwrap().len(), 4096);
            file.sync_data().await.unwrap();
        });
        let data = std::fs::read(&path).unwrap();
        assert_eq!(&data[..3], b"abc");
        assert!(data[3..].iter().all(|&b| b == 0));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn write_errors_surface_on_flush_or_the_next_write() {
    let rt = Builder::new_multi_thread().build().unwrap();
    let dir = scratch_dir("write-error", &rt);
    let path = dir.join("read-only");
    std::fs::write(&path, "data").unwrap();
    rt.block_on(async {
        // Opened for reading only: the OS rejects the write.
        let mut file = rt::fs::File::open(&path).await.unwrap();
        let first = file.write(b"nope").await;
        // The write is accepted into the buffer; its failure comes next.
        assert_eq!(first.unwrap(), 4);
        let err = file.flush().await.unwrap_err();
        // EBADF: the descriptor is not open for writing.
        assert_eq!(err.raw_os_error(), Some(9), "{err}");
        // Reported once.
        file.flush().await.unwrap();
    });
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A bare `poll_seek` (rt's `AsyncSeekExt::seek`, which generic code
/// calls; the tokio facade's seek is one) after a write that fails: the
/// seek is made and the write's error kept for the flush, as tokio's seek
/// keeps it. Before, `poll_seek` returned the write's error as its own
/// and skipped the seek; a caller that drops that result (the facade's
/// `poll_complete` before `start_seek`, as tokio's `seek` does) lost the
/// error, and the flush said `Ok`. `File::seek` still reports it first.
#[test]
fn a_bare_seek_keeps_a_write_error_for_the_flush() {
    for (kind, rt) in runtimes() {
        let dir = scratch_dir("write-error-seek", &rt);
        let path = dir.join("read-only");
        std::fs::write(&path, "data").unwrap();
        rt.block_on(async {
            let mut file = rt::fs::File::open(&path).await.unwrap();
            assert_eq!(file.write(b"nope").await.unwrap(), 4);
            // The trait's seek, not `File::seek` (which shadows it).
            let at = AsyncSeekExt::seek(&mut file, SeekFrom::Start(2)).await;
            assert_eq!(at.unwrap(), 2, "{kind:?}");
            let err = file.flush().await.unwrap_err();
            assert_eq!(err.raw_os_error(), Some(9), "{kind:?}: {err}");
            file.flush().await.unwrap();
            let mut rest = String::new();
            file.read_to_string(&mut rest).await.unwrap();
            assert_eq!(rest, "ta", "{kind:?}");

            // `File::seek` reports the error of a write before it.
            assert_eq!(file.write(b"nope").await.unwrap(), 4);
            let err = file.seek(SeekFrom::Start(0)).await.unwrap_err();
            assert_eq!(err.raw_os_error(), Some(9), "{kind:?}: {err}");
            file.flush().await.unwrap();
        });
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn large_file_through_async_read_and_write() {
    const LEN: usize = 64 * 1024 * 1024;
    let data: Vec<u8> = (0..LEN).map(|i| (i * 31 % 251) as u8).collect();
    let rt = Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let dir = scratch_dir("large", &rt);
    let path = dir.join("big.bin");
    let read = rt.block_on(async {
        let mut file = rt::fs::File::create(&path).await.unwrap();
        // Larger than one chunk per call: the file takes 2 MiB at a time.
        for part in data.chunks(5 * 1024 * 1024) {
            file.write_all(part).await.unwrap();
        }
        file.sync_all().await.unwrap();
        let mut read = Vec::with_capacity(LEN);
        rt::fs::File::open(&path)
            .await
            .unwrap()
            .read_to_end(&mut read)
            .await
            .unwrap();
        read
    });
    assert_eq!(read.len(), LEN);
    assert!(read == data);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn read_to_end_appends_after_buffered_and_existing_bytes() {
    // Exactly two 2 MiB chunks: the end shows only as an empty third read.
    const LEN: usize = 4 * 1024 * 1024;
    let data: Vec<u8> = (0..LEN).map(|i| (i * 7 % 253) as u8).collect();
    for (_, rt) in runtimes() {
        let dir = scratch_dir("read-to-end", &rt);
        let path = dir.join("f");
        std::fs::write(&path, &data).unwrap();
        rt.block_on(async {
            let mut file = rt::fs::File::open(&path).await.unwrap();
            // A small read leaves the rest of its chunk buffered in the file.
            let mut head = [0; 3];
            file.read_exact(&mut head).await.unwrap();
            assert_eq!(head, data[..3]);
            let mut rest = b"prefix".to_vec();
            let n = file.read_to_end(&mut rest).await.unwrap();
            assert_eq!(n, LEN - 3);
            assert_eq!(&rest[..6], b"prefix");
            assert!(rest[6..] == data[3..]);
            // At the end: nothing more, and the position is the file's end.
            let mut empty = Vec::new();
            assert_eq!(file.read_to_end(&mut empty).await.unwrap(), 0);
            assert!(empty.is_empty());
            let end = file.seek(SeekFrom::Current(0)).await.unwrap();
            assert_eq!(end, LEN as u64);

            // From the start into an empty vector: the whole file.
            file.seek(SeekFrom::Start(0)).await.unwrap();
            let mut all = Vec::new();
            assert_eq!(file.read_to_end(&mut all).await.unwrap(), LEN);
            assert!(all == data);
        });
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn read_to_end_given_up_on_keeps_its_bytes_for_the_next_read() {
    const LEN: usize = 5 * 1024 * 1024;
    let data: Vec<u8> = (0..LEN).map(|i| (i * 13 % 241) as u8).collect();
    // One blocking thread, held busy, so the read below is sure to queue.
    let rt = one_blocking_thread();
    let dir = scratch_dir("read-to-end-dropped", &rt);
    let path = dir.join("f");
    std::fs::write(&path, &data).unwrap();
    rt.block_on(async {
        let mut file = rt::fs::File::open(&path).await.unwrap();
        let held = HeldBlockingThread::hold();
        let mut lost = Vec::new();
        {
            let mut read_all = std::pin::pin!(file.read_to_end(&mut lost));
            std::future::poll_fn(|cx| {
                assert!(read_all.as_mut().poll(cx).is_pending());
                Poll::Ready(())
            })
            .await;
        }
        assert!(lost.is_empty());
        held.release().await;
        // The first chunk was read into the file's buffer: a plain read
        // gets it, and then the rest follows in order.
        let mut first = [0; 10];
        file.read_exact(&mut first).await.unwrap();
        assert_eq!(first, data[..10]);
        assert_eq!(file.seek(SeekFrom::Current(0)).await.unwrap(), 10);
        let mut rest = Vec::new();
        AsyncReadExt::read_to_end(&mut file, &mut rest)
            .await
            .unwrap();
        assert!(rest == data[10..]);
    });
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn read_to_end_of_a_pipe_reads_until_the_writer_closes() {
    // A FIFO has no length and no position: the buffer is not sized from
    // them, and the read runs chunk after chunk to the end.
    const LEN: usize = 5 * 1024 * 1024 + 7;
    for (_, rt) in runtimes() {
        let dir = scratch_dir("pipe-read-to-end", &rt);
        let fifo = dir.join("fifo");
        support::mkfifo(&fifo);
        let data: Vec<u8> = (0..LEN).map(|i| (i * 7 % 251) as u8).collect();
        let writer = std::thread::spawn({
            let (fifo, data) = (fifo.clone(), data.clone());
            move || std::fs::write(fifo, data).unwrap()
        });
        let read = rt.block_on(async {
            let mut file = rt::fs::File::open(&fifo).await.unwrap();
            let mut read = Vec::new();
            assert_eq!(file.read_to_end(&mut read).await.unwrap(), LEN);
            read
        });
        writer.join().unwrap();
        assert!(read == data);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn a_dropped_read_to_end_stops_after_the_current_chunk() {
    support::assert_abandoned_fifo_read_stops("dropped-read-to-end", |fifo| {
        let read = rt::spawn(async move {
            let mut file = rt::fs::File::open(&fifo).await.unwrap();
            file.read_to_end(&mut Vec::new()).await.unwrap();
            unreachable!("a FIFO that is still written to has no end");
        });
        async move {
            read.abort();
            assert!(read.await.unwrap_err().is_cancelled());
        }
    });
}

#[test]
fn read_to_string_rejects_invalid_utf8_and_leaves_the_string() {
    for (_, rt) in runtimes() {
        let dir = scratch_dir("read-to-string", &rt);
        let path = dir.join("f");
        std::fs::write(&path, [b'o', b'k', 0xff, 0xfe]).unwrap();
        rt.block_on(async {
            let mut file = rt::fs::File::open(&path).await.unwrap();
            let mut text = String::from("kept");
            let err = file.read_to_string(&mut text).await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidData);
            assert_eq!(text, "kept");
        });
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn lookup_host_resolves_localhost() {
    for (_, rt) in runtimes() {
        rt.block_on(async {
            let addrs: Vec<_> = rt::net::lookup_host("localhost:4242")
                .await
                .unwrap()
                .collect();
            assert!(!addrs.is_empty());
            assert!(
                addrs
                    .iter()
                    .all(|a| a.ip().is_loopback() && a.port() == 4242)
            );

            let literal: Vec<_> = rt::net::lookup_host("[::1]:9").await.unwrap().collect();
            assert_eq!(literal, ["[::1]:9".parse().unwrap()]);

            let err = rt::net::lookup_host("localhost").await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
            assert!(err.to_string().contains("`localhost`"), "{err}");
        });
    }
}

#[test]
fn create_new_refuses_an_existing_file_and_files_convert_to_and_from_std() {
    use std::os::fd::{FromRawFd, IntoRawFd, OwnedFd};
    for (_, rt) in runtimes() {
        let dir = scratch_dir("create-new", &rt);
        let path = dir.join("f");
        rt.block_on(async {
            let mut file = rt::fs::File::create_new(&path).await.unwrap();
            let err = rt::fs::File::create_new(&path).await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::AlreadyExists);
            file.write_all(b"abcdef").await.unwrap();
            // The write returned at once and is in flight until the next
            // operation collects it: the file is not given back yet.
            let mut file = file.try_into_std().unwrap_err();
            file.flush().await.unwrap();
            let std = file.try_into_std().expect("settled after flush");
            assert_eq!(std.metadata().unwrap().len(), 6);

            let mut file = rt::fs::File::from(OwnedFd::from(std));
            file.seek(SeekFrom::Start(0)).await.unwrap();
            let mut two = [0; 2];
            file.read_exact(&mut two).await.unwrap();
            assert_eq!(&two, b"ab");
            let fd = file.try_into_std().unwrap().into_raw_fd();
            // SAFETY: `fd` was just released by `into_raw_fd`; nothing else
            // owns it.
            let mut file = unsafe { rt::fs::File::from_raw_fd(fd) };
            let mut rest = String::new();
            file.read_to_string(&mut rest).await.unwrap();
            assert_eq!(rest, "cdef");
        });
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn a_seek_after_an_abandoned_seek_goes_where_it_was_asked() {
    let rt = one_blocking_thread();
    let dir = scratch_dir("seek-after-abandoned-seek", &rt);
    let path = dir.join("f");
    std::fs::write(&path, "hello world").unwrap();
    rt.block_on(async {
        let mut file = open_read_write(&path).await;
        abandon_a_seek(&mut file, SeekFrom::Start(6)).await;
        // The new seek is applied, and reports its own position, not the
        // abandoned one's.
        assert_eq!(file.seek(SeekFrom::Start(0)).await.unwrap(), 0);
        let mut word = [0; 5];
        file.read_exact(&mut word).await.unwrap();
        assert_eq!(&word, b"hello");
    });
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_file_whose_abandoned_seek_a_read_collected_converts_to_std() {
    let rt = one_blocking_thread();
    let dir = scratch_dir("abandoned-seek-into-std", &rt);
    let path = dir.join("f");
    std::fs::write(&path, "hello world").unwrap();
    rt.block_on(async {
        let mut file = open_read_write(&path).await;
        abandon_a_seek(&mut file, SeekFrom::Start(6)).await;
        // The read waits for the abandoned seek and reads from where it
        // moved the position, to the end: nothing is in flight or buffered.
        let mut word = Vec::new();
        file.read_to_end(&mut word).await.unwrap();
        assert_eq!(word, b"world");
        let std = file
            .try_into_std()
            .expect("a settled file converts at once");
        assert_eq!(std.metadata().unwrap().len(), 11);
    });
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_abandoned_set_len_stays_the_files_operation_in_flight() {
    // One blocking thread, so the truncation is sure to be queued when its
    // future is given up on (a `select!` against a timeout, say).
    let rt = one_blocking_thread();
    let dir = scratch_dir("abandoned-set-len", &rt);
    let path = dir.join("f");
    std::fs::write(&path, "hello world").unwrap();
    rt.block_on(async {
        let mut file = open_read_write(&path).await;
        let held = HeldBlockingThread::hold();
        {
            let mut set_len = std::pin::pin!(file.set_len(0));
            assert!(futures_util::poll!(set_len.as_mut()).is_pending());
        }
        // A flush waits for the operation in flight, which the truncation
        // still is: it must not report the file settled before it ran.
        let mut flush = std::pin::pin!(file.flush());
        assert!(
            futures_util::poll!(flush.as_mut()).is_pending(),
            "flush returned while the abandoned truncation was still queued"
        );
        held.release().await;
        flush.await.unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 0);
        // Later writes land after it, and the file comes apart at once.
        file.write_all(b"abc").await.unwrap();
        file.flush().await.unwrap();
        assert!(
            file.try_into_std().is_ok(),
            "a settled file converts at once"
        );
    });
    assert_eq!(std::fs::read(&path).unwrap(), b"abc");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A write that returned `Ok` is made even if the runtime shuts down
/// before a pool thread takes its job, as with tokio (whose `File` writes
/// are "mandatory" blocking jobs): the pool drops the queued job, which
/// writes as it is dropped, on the thread shutting the runtime down. So
/// are a vectored write and the write of a file dropped meanwhile, and a
/// flush afterwards reports the write's result. Before, the bytes were
/// lost.
#[test]
fn a_queued_write_is_made_when_the_runtime_shuts_down() {
    for kind in SINGLE_POLLER {
        // One blocking thread, held busy: the writes are sure to queue.
        let rt = kind.builder().max_blocking_threads(1).build().unwrap();
        let dir = scratch_dir("queued-write", &rt);
        let kept = dir.join("kept");
        let vectored = dir.join("vectored");
        let dropped = dir.join("dropped");
        let (mut file, held) = rt.block_on(async {
            let mut file = rt::fs::File::create(&kept).await.unwrap();
            let mut by_slices = rt::fs::File::create(&vectored).await.unwrap();
            let mut gone = rt::fs::File::create(&dropped).await.unwrap();
            let held = HeldBlockingThread::hold();
            file.write_all(b"hello").await.unwrap();
            let slices = [IoSlice::new(b""), IoSlice::new(b"by slices")];
            assert_eq!(by_slices.write_vectored(&slices).await.unwrap(), 9);
            drop(by_slices);
            gone.write_all(b"dropped with its write queued")
                .await
                .unwrap();
            (file, held)
        });
        let handle = rt.handle().clone();
        rt.shutdown_background();
        held.let_go();
        assert_eq!(std::fs::read(&kept).unwrap(), b"hello", "{kind:?}");
        let by_slices = std::fs::read(&vectored).unwrap();
        assert_eq!(by_slices, b"by slices", "{kind:?}");
        assert_eq!(
            std::fs::read(&dropped).unwrap(),
            b"dropped with its write queued",
            "{kind:?}"
        );
        handle.block_on(file.flush()).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// A write to a `File` whose runtime has shut down fails with the
/// shutdown error (the blocking pool refuses its job) and writes nothing,
/// as a write to stdout does. Before, it returned `Ok` and the bytes were
/// lost.
#[test]
fn a_write_after_shutdown_fails_with_the_shutdown_error_and_writes_nothing() {
    for kind in SINGLE_POLLER {
        let rt = kind.build();
        let dir = scratch_dir("write-after-shutdown", &rt);
        let path = dir.join("f");
        let mut file = rt.block_on(rt::fs::File::create(&path)).unwrap();
        let handle = rt.handle().clone();
        drop(rt);
        let err = handle.block_on(file.write_all(b"late")).unwrap_err();
        assert!(rt::runtime::is_rt_shutdown_err(&err), "{kind:?}: {err}");
        assert_eq!(std::fs::read(&path).unwrap(), b"", "{kind:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// A vectored write takes every slice, up to `max_buf_size` bytes in all,
/// as one buffered write (tokio's fs_file.rs `write_vectored`): the count
/// is over all the slices. Before, only the first non-empty slice was
/// taken, one blocking job per slice.
#[test]
fn a_vectored_write_takes_every_slice_up_to_the_buffer_size() {
    for (_, rt) in runtimes() {
        let dir = scratch_dir("write-vectored", &rt);
        let path = dir.join("f");
        rt.block_on(async {
            let mut file = rt::fs::File::create(&path).await.unwrap();
            let slices = [
                IoSlice::new(b"hello "),
                IoSlice::new(b""),
                IoSlice::new(b"world"),
            ];
            assert_eq!(file.write_vectored(&slices).await.unwrap(), 11);
            // At most `max_buf_size` bytes, cut inside a slice.
            file.set_max_buf_size(4);
            let slices = [IoSlice::new(b", a"), IoSlice::new(b"nd more")];
            assert_eq!(file.write_vectored(&slices).await.unwrap(), 4);
            // No slice, or only empty ones: nothing to write.
            assert_eq!(file.write_vectored(&[]).await.unwrap(), 0);
            let empty = [IoSlice::new(b""), IoSlice::new(b"")];
            assert_eq!(file.write_vectored(&empty).await.unwrap(), 0);
            file.flush().await.unwrap();
        });
        assert_eq!(std::fs::read(&path).unwrap(), b"hello world, an");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// A seek that fails leaves the position where the caller was, even with
/// bytes read ahead: the file first moves the OS position back over them,
/// then seeks (tokio's file/tests.rs
/// `incomplete_read_followed_by_overflowing_relative_seek`). Before, a
/// relative seek was folded into one `lseek` by `offset - unread`: when
/// that failed the bytes were dropped all the same, so the position jumped
/// to the end of the read-ahead, and an offset near `i64::MIN` overflowed
/// (a panic, "attempt to add with overflow", in debug builds).
#[test]
fn a_failed_seek_after_a_read_ahead_keeps_the_position() {
    let rt = one_blocking_thread();
    let dir = scratch_dir("failed-seek-read-ahead", &rt);
    let path = dir.join("f");
    std::fs::write(&path, "0123456789").unwrap();
    rt.block_on(async {
        let mut file = open_read_write(&path).await;
        let targets = [
            SeekFrom::Current(-3),
            SeekFrom::Current(i64::MIN),
            SeekFrom::End(-11),
        ];
        for target in targets {
            // Ten bytes read ahead, two of them consumed: the caller is at 2.
            abandon_a_read(&mut file, 10).await;
            let mut two = [0; 2];
            file.read_exact(&mut two).await.unwrap();
            let err = file.seek(target).await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidInput, "{target:?}: {err}");
            assert_eq!(file.stream_position().await.unwrap(), 2, "{target:?}");
            file.rewind().await.unwrap();
        }
        let mut rest = String::new();
        file.seek(SeekFrom::Start(2)).await.unwrap();
        file.read_to_string(&mut rest).await.unwrap();
        assert_eq!(rest, "23456789");
    });
    std::fs::remove_dir_all(&dir).unwrap();
}
