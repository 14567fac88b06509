//! Reads from TCP and Unix streams that come back shorter than the
//! buffer: the stream then forgets its read readiness (the receive queue
//! was emptied), and the next read must still see data that arrives later
//! or that arrived while the short read ran.

mod support;

use rt::io::{AsyncReadExt, AsyncWriteExt};
use rt::net::{TcpStream, UnixStream};
use std::io::Write;
use support::{Checksum, Pattern, on_both, tcp_pair};

/// A reader task reads in a loop through a 64-byte buffer, reporting each
/// read; the peer writes `1..=50` bytes at a time, each once the previous
/// piece was read in full. Every read is short, so the read right after
/// it finds the readiness cleared and must be woken by the next piece.
async fn short_reads_then_more<R, W>(mut reader: R, mut writer: W)
where
    R: futures_io::AsyncRead + Unpin + Send + 'static,
    W: futures_io::AsyncWrite + Unpin,
{
    let (report, mut reads) = rt::sync::mpsc::unbounded_channel();
    let reading = rt::spawn(async move {
        let mut buf = [0; 64];
        loop {
            let n = reader.read(&mut buf).await.unwrap();
            if n == 0 {
                return;
            }
            report.send(buf[..n].to_vec()).unwrap();
        }
    });
    for round in 0..500usize {
        let piece = vec![round as u8; round % 50 + 1];
        writer.write_all(&piece).await.unwrap();
        let mut got = Vec::new();
        while got.len() < piece.len() {
            got.extend(reads.recv().await.unwrap());
        }
        assert_eq!(got, piece);
    }
    drop(writer);
    reading.await.unwrap();
}

#[test]
fn tcp_reads_shorter_than_the_buffer_still_see_later_data() {
    on_both(|| async {
        let (client, server) = tcp_pair().await;
        short_reads_then_more(server, client).await;
    });
}

#[test]
fn unix_reads_shorter_than_the_buffer_still_see_later_data() {
    on_both(|| async {
        let (a, b) = UnixStream::pair().unwrap();
        short_reads_then_more(a, b).await;
    });
}

/// A plain thread writes 4 MiB in uneven pieces while the runtime reads it
/// through a 3000-byte buffer: data keeps landing between a short read and
/// its clear, and none of it may be missed.
#[test]
fn a_stream_written_in_uneven_pieces_arrives_whole() {
    const LEN: usize = 4 << 20;
    on_both(|| async {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let writer = std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            stream.set_nodelay(true).unwrap();
            let mut pattern = Pattern::new(7);
            let mut sent = Checksum::new();
            let mut chunk = vec![0; 7000];
            let mut written = 0;
            let mut size = 1;
            while written < LEN {
                size = (size * 7 + 13) % chunk.len() + 1;
                let piece = &mut chunk[..size.min(LEN - written)];
                pattern.fill(piece);
                stream.write_all(piece).unwrap();
                sent.update(piece);
                written += piece.len();
            }
            sent
        });
        let mut stream = TcpStream::connect(addr).await.unwrap();
        let mut received = Checksum::new();
        let mut buf = vec![0; 3000];
        let mut total = 0;
        loop {
            let n = stream.read(&mut buf).await.unwrap();
            if n == 0 {
                break;
            }
            received.update(&buf[..n]);
            total += n;
        }
        assert_eq!(total, LEN);
        assert_eq!(received, writer.join().unwrap());
    });
}
