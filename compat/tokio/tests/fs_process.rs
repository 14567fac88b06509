//! The facade's `fs::File` (tokio's traits, `&self` methods), process
//! pipes, Unix pipes and `simplex`, on both runtime flavours.

mod support;

use std::io::SeekFrom;
use std::mem::MaybeUninit;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncSeekExt, AsyncWriteExt, BufReader, ReadBuf};

fn temp_path(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("facade-{name}-{}", std::process::id()))
}

#[test]
fn file_writes_seeks_reads_and_self_methods() {
    support::on_both_flavours(|| async {
        let path = temp_path(&format!("file-{:?}", std::thread::current().id()));
        let mut file = tokio::fs::File::create(&path).await.unwrap();
        file.write_all(b"0123456789").await.unwrap();
        file.flush().await.unwrap();
        file.sync_all().await.unwrap();
        file.set_len(8).await.unwrap();
        assert_eq!(file.metadata().await.unwrap().len(), 8);
        drop(file);

        let mut file = tokio::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&path)
            .await
            .unwrap();
        assert_eq!(file.seek(SeekFrom::Start(2)).await.unwrap(), 2);
        assert_eq!(file.read_u8().await.unwrap(), b'2');
        assert_eq!(file.stream_position().await.unwrap(), 3);
        let mut rest = String::new();
        file.read_to_string(&mut rest).await.unwrap();
        assert_eq!(rest, "34567");
        let clone = file.try_clone().await.unwrap();
        let std = clone.into_std().await;
        assert_eq!(std.metadata().unwrap().len(), 8);
        let rt_file: rt::fs::File = file.into();
        let _back = tokio::fs::File::from(rt_file);
        tokio::fs::remove_file(&path).await.unwrap();
    });
}

#[test]
fn file_max_buf_size_bounds_each_read_and_write() {
    support::block_on(async {
        let path = temp_path("bufsize");
        let mut file = tokio::fs::File::create(&path).await.unwrap();
        assert_eq!(file.max_buf_size(), 2 * 1024 * 1024);
        file.set_max_buf_size(3);
        assert_eq!(file.max_buf_size(), 3);
        assert_eq!(file.write(b"abcdef").await.unwrap(), 3);
        file.flush().await.unwrap();
        let mut file = tokio::fs::File::open(&path).await.unwrap();
        file.set_max_buf_size(2);
        let mut buf = [0; 8];
        assert_eq!(file.read(&mut buf).await.unwrap(), 2);
        tokio::fs::remove_file(&path).await.unwrap();
    });
}

#[test]
fn file_reads_into_uninitialised_memory() {
    support::block_on(async {
        let path = temp_path("uninit");
        tokio::fs::write(&path, b"abc").await.unwrap();
        let mut file = tokio::fs::File::open(&path).await.unwrap();
        let mut memory = [MaybeUninit::<u8>::uninit(); 64];
        let mut buf = ReadBuf::uninit(&mut memory);
        std::future::poll_fn(|cx| {
            tokio::io::AsyncRead::poll_read(std::pin::Pin::new(&mut file), cx, &mut buf)
        })
        .await
        .unwrap();
        assert_eq!(buf.filled(), b"abc");
        // Copied in, nothing zeroed: only the three bytes are initialised.
        assert_eq!(buf.initialized().len(), 3);
        tokio::fs::remove_file(&path).await.unwrap();
    });
}

#[test]
fn child_pipes_have_tokio_traits() {
    support::on_both_flavours(|| async {
        let mut child = tokio::process::Command::new("cat")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        stdin.write_all(b"one\ntwo\n").await.unwrap();
        stdin.shutdown().await.unwrap();
        drop(stdin);
        let mut lines = BufReader::new(stdout).lines();
        assert_eq!(lines.next_line().await.unwrap().as_deref(), Some("one"));
        assert_eq!(lines.next_line().await.unwrap().as_deref(), Some("two"));
        assert_eq!(lines.next_line().await.unwrap(), None);
        assert!(child.wait().await.unwrap().success());
    });
}

#[test]
fn wait_with_output_collects_the_facade_pipes() {
    support::on_both_flavours(|| async {
        let child = tokio::process::Command::new("sh")
            .args(["-c", "echo out; echo err >&2; exit 3"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let output = child.wait_with_output().await.unwrap();
        assert_eq!(output.stdout, b"out\n");
        assert_eq!(output.stderr, b"err\n");
        assert_eq!(output.status.code(), Some(3));
        let status = tokio::process::Command::new("true").status().await.unwrap();
        assert!(status.success());
    });
}

#[test]
fn a_missing_program_is_std_s_os_error() {
    support::block_on(async {
        let std_error = std::process::Command::new("facade-no-such-program")
            .spawn()
            .unwrap_err();
        let error = tokio::process::Command::new("facade-no-such-program")
            .spawn()
            .unwrap_err();
        assert_eq!(error.kind(), std::io::ErrorKind::NotFound);
        assert!(std_error.raw_os_error().is_some(), "{std_error:?}");
        assert_eq!(error.raw_os_error(), std_error.raw_os_error(), "{error:?}");
    });
}

#[test]
fn unix_pipe_and_simplex_pass_bytes_one_way() {
    support::on_both_flavours(|| async {
        let (mut tx, mut rx) = tokio::net::unix::pipe::pipe().unwrap();
        let writer = rt::spawn(async move {
            tx.write_all(&[7u8; 200_000]).await.unwrap();
        });
        let mut got = Vec::new();
        rx.read_to_end(&mut got).await.unwrap();
        writer.await.unwrap();
        assert_eq!(got.len(), 200_000);
        assert!(got.iter().all(|&b| b == 7));

        let (mut read, mut write) = tokio::io::simplex(8);
        let writer = rt::spawn(async move {
            write.write_all(b"simplex stream").await.unwrap();
            write.shutdown().await.unwrap();
        });
        let mut text = String::new();
        read.read_to_string(&mut text).await.unwrap();
        writer.await.unwrap();
        assert_eq!(text, "simplex stream");
    });
}
