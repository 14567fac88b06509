//! Feature `tokio-io`: tokio-util's codecs run on rt's streams and files.

mod support;

use futures::{SinkExt, StreamExt};
use rt::net::{TcpListener, TcpStream, UnixStream};
use support::{block_on_each, scratch_dir};
use tokio_util::codec::{BytesCodec, Framed, FramedRead, FramedWrite, LinesCodec};

/// An echo server speaking lines through `Framed<TcpStream, LinesCodec>`,
/// one task per connection, with several clients at once.
#[test]
fn framed_line_echo_server() {
    block_on_each(|_| async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let server = rt::spawn(async move {
            for _ in 0..3 {
                let (stream, _) = listener.accept().await.unwrap();
                rt::spawn(async move {
                    let mut lines = Framed::new(stream, LinesCodec::new());
                    while let Some(line) = lines.next().await {
                        let line = line.unwrap();
                        lines.send(line.to_uppercase()).await.unwrap();
                    }
                });
            }
        });
        let clients: Vec<_> = (0..3)
            .map(|i| {
                rt::spawn(async move {
                    let stream = TcpStream::connect(addr).await.unwrap();
                    let mut lines = Framed::new(stream, LinesCodec::new());
                    let mut replies = Vec::new();
                    for word in ["alpha", "beta", "gamma"] {
                        lines.send(format!("{word} {i}")).await.unwrap();
                        replies.push(lines.next().await.unwrap().unwrap());
                    }
                    replies
                })
            })
            .collect();
        for (i, client) in clients.into_iter().enumerate() {
            let replies = client.await.unwrap();
            assert_eq!(
                replies,
                [
                    format!("ALPHA {i}"),
                    format!("BETA {i}"),
                    format!("GAMMA {i}")
                ]
            );
        }
        server.await.unwrap();
    });
}

/// Owned halves: a `FramedRead` and a `FramedWrite` on the two halves of
/// one stream, in different tasks; a long line crosses many reads.
#[test]
fn framed_read_and_write_on_owned_halves() {
    block_on_each(|_| async {
        let (a, b) = UnixStream::pair().unwrap();
        let (a_read, a_write) = a.into_split();
        let long = "x".repeat(300_000);
        let writer = rt::spawn({
            let long = long.clone();
            async move {
                let mut out = FramedWrite::new(a_write, LinesCodec::new());
                out.send("short".to_owned()).await.unwrap();
                out.send(long).await.unwrap();
                // Dropping the write half shuts its side down.
            }
        });
        let mut at_b = Framed::new(b, LinesCodec::new());
        assert_eq!(at_b.next().await.unwrap().unwrap(), "short");
        assert_eq!(at_b.next().await.unwrap().unwrap().len(), long.len());
        assert!(at_b.next().await.is_none(), "end-of-file after the writer");
        writer.await.unwrap();
        at_b.send("back".to_owned()).await.unwrap();
        let mut from_b = FramedRead::new(a_read, LinesCodec::new());
        assert_eq!(from_b.next().await.unwrap().unwrap(), "back");
    });
}

/// `fs::File` and `DuplexStream` work with codecs too.
#[test]
fn framed_on_files_and_duplex() {
    for (name, rt) in support::runtimes() {
        let dir = scratch_dir("tokio_io_file", &rt);
        rt.block_on(async {
            let path = dir.join("lines.txt");
            let file = rt::fs::File::create(&path).await.unwrap();
            let mut out = FramedWrite::new(file, LinesCodec::new());
            for line in ["one", "two", "three"] {
                out.send(line).await.unwrap();
            }
            SinkExt::<&str>::close(&mut out).await.unwrap();
            let file = rt::fs::File::open(&path).await.unwrap();
            let lines: Vec<String> = FramedRead::new(file, LinesCodec::new())
                .map(Result::unwrap)
                .collect()
                .await;
            assert_eq!(lines, ["one", "two", "three"], "{name}");

            let (a, b) = rt::io::duplex(5);
            let mut a = FramedWrite::new(a, BytesCodec::new());
            let sender = rt::spawn(async move {
                a.send(bytes_of("through a narrow pipe")).await.unwrap();
            });
            let mut received = Vec::new();
            let mut b = FramedRead::new(b, BytesCodec::new());
            while let Some(chunk) = b.next().await {
                received.extend_from_slice(&chunk.unwrap());
            }
            sender.await.unwrap();
            assert_eq!(received, b"through a narrow pipe", "{name}");
        });
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

fn bytes_of(s: &'static str) -> tokio_util::bytes::Bytes {
    tokio_util::bytes::Bytes::from_static(s.as_bytes())
}
