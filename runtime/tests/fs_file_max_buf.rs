//! `File::set_max_buf_size`: one `poll_read` / `poll_write` moves at most
//! that many bytes; whole transfers still arrive intact.

mod support;

use rt::io::{AsyncReadExt, AsyncWriteExt};
use support::{each_runtime, scratch_dir};

#[test]
fn reads_and_writes_move_at_most_the_max_buf_size() {
    each_runtime(|_, rt| {
        let dir = scratch_dir("max-buf", &rt);
        let path = dir.join("file");
        rt.block_on(async {
            let mut file = rt::fs::File::create(&path).await.unwrap();
            assert_eq!(file.max_buf_size(), 2 * 1024 * 1024);
            file.set_max_buf_size(3);
            assert_eq!(file.write(b"abcdefgh").await.unwrap(), 3);
            file.write_all(b"defgh and the rest").await.unwrap();
            file.flush().await.unwrap();
            assert_eq!(std::fs::read(&path).unwrap(), b"abcdefgh and the rest");

            let mut file = rt::fs::File::open(&path).await.unwrap();
            file.set_max_buf_size(2);
            let mut buf = [0; 10];
            assert_eq!(file.read(&mut buf).await.unwrap(), 2);
            assert_eq!(&buf[..2], b"ab");
            let mut rest = Vec::new();
            loop {
                let n = file.read(&mut buf).await.unwrap();
                assert!(n <= 2, "a read of {n} bytes past the max");
                if n == 0 {
                    break;
                }
                rest.extend_from_slice(&buf[..n]);
            }
            assert_eq!(rest, b"cdefgh and the rest");
        });
        std::fs::remove_dir_all(&dir).unwrap();
    });
}

#[test]
#[should_panic(expected = "`File::set_max_buf_size` needs at least 1 byte")]
fn a_zero_max_buf_size_panics() {
    let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    rt.block_on(async {
        let mut file = rt::fs::File::open("Cargo.toml").await.unwrap();
        file.set_max_buf_size(0);
    });
}
