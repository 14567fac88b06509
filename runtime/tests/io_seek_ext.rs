//! `AsyncSeekExt`: tokio's `seek`, `rewind` and `stream_position` on any
//! futures-io seeker, here a `Cursor` and an `fs::File`.

mod support;

use rt::io::{AsyncReadExt, AsyncSeekExt, AsyncWriteExt, Cursor, SeekFrom};
use support::{each_runtime, scratch_dir};

#[test]
fn rewind_returns_to_the_start_of_a_cursor() {
    each_runtime(|_, rt| {
        rt.block_on(async {
            let mut cursor = Cursor::new(b"abcdef".to_vec());
            let mut first = [0; 4];
            cursor.read_exact(&mut first).await.unwrap();
            assert_eq!(cursor.stream_position().await.unwrap(), 4);
            assert_eq!(cursor.rewind().await.unwrap(), 0);
            assert_eq!(cursor.stream_position().await.unwrap(), 0);
            let mut all = Vec::new();
            cursor.read_to_end(&mut all).await.unwrap();
            assert_eq!(all, b"abcdef");
        });
    });
}

#[test]
fn rewind_a_file_after_a_buffered_write_and_a_read_ahead() {
    each_runtime(|_, rt| {
        let dir = scratch_dir("rewind", &rt);
        let path = dir.join("file");
        rt.block_on(async {
            let mut file = rt::fs::File::options()
                .read(true)
                .write(true)
                .create(true)
                .truncate(true)
                .open(&path)
                .await
                .unwrap();
            // The write is still in flight when `rewind` starts.
            file.write_all(b"0123456789").await.unwrap();
            assert_eq!(file.rewind().await.unwrap(), 0);
            // A small read makes the file read ahead; `rewind` drops that.
            let mut two = [0; 2];
            file.read_exact(&mut two).await.unwrap();
            assert_eq!(&two, b"01");
            assert_eq!(file.stream_position().await.unwrap(), 2);
            assert_eq!(file.rewind().await.unwrap(), 0);
            let mut all = String::new();
            file.read_to_string(&mut all).await.unwrap();
            assert_eq!(all, "0123456789");
            assert_eq!(file.seek(SeekFrom::End(-3)).await.unwrap(), 7);
        });
        std::fs::remove_dir_all(&dir).unwrap();
    });
}
