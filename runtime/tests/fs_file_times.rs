//! `File::set_times` / `set_modified`: from `&self`, after the operation in
//! flight, so a buffered write cannot land after the new times.

mod support;

use rt::fs::FileTimes;
use rt::io::AsyncWriteExt;
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::time::{Duration, SystemTime};
use support::{each_runtime, mkfifo, poll_once, scratch_dir};

const WRITE: usize = 1 << 20;

fn then() -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000)
}

#[test]
fn set_times_and_set_modified_on_a_regular_file() {
    each_runtime(|_, rt| {
        let dir = scratch_dir("set-times", &rt);
        let path = dir.join("file");
        rt.block_on(async {
            let mut file = rt::fs::File::create(&path).await.unwrap();
            file.write_all(b"payload").await.unwrap();
            let accessed = then() + Duration::from_secs(5);
            file.set_times(FileTimes::new().set_accessed(accessed).set_modified(then()))
                .await
                .unwrap();
            let metadata = std::fs::metadata(&path).unwrap();
            assert_eq!(metadata.modified().unwrap(), then());
            assert_eq!(metadata.accessed().unwrap(), accessed);
            // The buffered write had reached the file first.
            assert_eq!(metadata.len(), 7);

            let later = then() + Duration::from_secs(60);
            file.set_modified(later).await.unwrap();
            let metadata = std::fs::metadata(&path).unwrap();
            assert_eq!(metadata.modified().unwrap(), later);
            // Only the modification time changed.
            assert_eq!(metadata.accessed().unwrap(), accessed);
        });
        std::fs::remove_dir_all(&dir).unwrap();
    });
}

/// A write stuck in flight (a FIFO nobody reads yet): `set_times` waits
/// for it, so the write's own update of the modification time comes
/// first and the times set stay.
#[test]
fn set_times_waits_for_the_write_in_flight() {
    each_runtime(|_, rt| {
        let dir = scratch_dir("set-times-in-flight", &rt);
        let fifo = dir.join("fifo");
        mkfifo(&fifo);
        // The read end first, so opening the write end does not block.
        let mut reader = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&fifo)
            .unwrap();
        let (go, go_rx) = std::sync::mpsc::channel::<()>();
        let drainer = std::thread::spawn(move || {
            go_rx.recv().unwrap();
            let mut buf = vec![0; 64 * 1024];
            let mut total = 0;
            while total < WRITE {
                match reader.read(&mut buf) {
                    Ok(n) => total += n,
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                        std::thread::yield_now()
                    }
                    Err(e) => panic!("reading the FIFO: {e}"),
                }
            }
            total
        });
        rt.block_on(async {
            let mut file = rt::fs::File::options()
                .write(true)
                .open(&fifo)
                .await
                .unwrap();
            // Buffered: returns at once, and the write blocks on the pool
            // (a pipe holds far less than 1 MiB).
            file.write_all(&vec![7; WRITE]).await.unwrap();
            let mut set = Box::pin(file.set_modified(then()));
            assert!(
                poll_once(&mut set).is_pending(),
                "set_times ran before the write ended"
            );
            go.send(()).unwrap();
            set.await.unwrap();
            assert_eq!(file.metadata().await.unwrap().modified().unwrap(), then());
            file.flush().await.unwrap();
        });
        assert_eq!(drainer.join().unwrap(), WRITE);
        std::fs::remove_dir_all(&dir).unwrap();
    });
}
