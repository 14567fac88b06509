//! Reads from TCP and Unix streams that come back shorter than the
//! buffer: the stream then forgets its read readiness (the receive queue
//! was emptied), and the next read must still see data that arrives later
//! or that arrived while the short read ran, and end-of-file or a reset
//! queued behind the data.

mod support;

use rt::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use rt::net::{TcpListener, TcpStream, UnixStream};
use std::io::{IoSliceMut, Write};
use std::net::Shutdown;
use std::time::Duration;
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

/// A hang guard, never reached when the code is right.
async fn guarded<T>(what: &str, future: impl Future<Output = T>) -> T {
    rt::time::timeout(Duration::from_secs(30), future)
        .await
        .unwrap_or_else(|_| panic!("{what}: no progress (a lost wake-up)"))
}

/// An rt TCP stream and the std stream at its other end.
async fn tcp_with_std_peer() -> (TcpStream, std::net::TcpStream) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let peer = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
    let (stream, _) = listener.accept().await.unwrap();
    (stream, peer)
}

/// An rt Unix stream and the std stream at its other end.
fn unix_with_std_peer() -> (UnixStream, std::os::unix::net::UnixStream) {
    let (ours, theirs) = std::os::unix::net::UnixStream::pair().unwrap();
    ours.set_nonblocking(true).unwrap();
    (UnixStream::from_std(ours).unwrap(), theirs)
}

/// Data then end-of-file, both queued before the first read: the short
/// read of the data must not hide the end-of-file.
async fn eof_behind_data(
    mut stream: impl AsyncRead + Unpin,
    peer: &mut (impl Write + ShutdownWrite),
) {
    peer.write_all(b"hello").unwrap();
    peer.shutdown_write();
    let mut buf = [0u8; 1024];
    let n = guarded("the data", stream.read(&mut buf)).await.unwrap();
    assert!(n > 0 && n <= 5);
    let mut rest = Vec::new();
    guarded(
        "end-of-file after a short read",
        stream.read_to_end(&mut rest),
    )
    .await
    .unwrap();
    assert_eq!([&buf[..n], &rest[..]].concat(), b"hello");
    // End-of-file stays: reading again returns 0 at once.
    assert_eq!(
        guarded("end-of-file again", stream.read(&mut buf))
            .await
            .unwrap(),
        0
    );
}

trait ShutdownWrite {
    fn shutdown_write(&mut self);
}

impl ShutdownWrite for std::net::TcpStream {
    fn shutdown_write(&mut self) {
        self.shutdown(Shutdown::Write).unwrap();
    }
}

impl ShutdownWrite for std::os::unix::net::UnixStream {
    fn shutdown_write(&mut self) {
        self.shutdown(Shutdown::Write).unwrap();
    }
}

#[test]
fn end_of_file_queued_behind_data_is_seen_after_a_short_read() {
    on_both(|| async {
        let (stream, mut peer) = tcp_with_std_peer().await;
        eof_behind_data(stream, &mut peer).await;
        let (stream, mut peer) = unix_with_std_peer();
        eof_behind_data(stream, &mut peer).await;
    });
}

#[test]
fn reads_that_fill_the_buffer_leave_the_rest_readable() {
    on_both(|| async {
        let (mut stream, mut peer) = unix_with_std_peer();
        let sent: Vec<u8> = (0..100).collect();
        peer.write_all(&sent).unwrap();
        let mut got = Vec::new();
        let mut buf = [0u8; 10];
        while got.len() < sent.len() {
            let n = guarded("the next chunk", stream.read(&mut buf))
                .await
                .unwrap();
            assert!(n > 0);
            got.extend_from_slice(&buf[..n]);
        }
        assert_eq!(got, sent);
        drop(peer);
        assert_eq!(
            guarded("end-of-file", stream.read(&mut buf)).await.unwrap(),
            0
        );
    });
}

#[test]
fn a_reset_after_a_short_read_is_reported() {
    on_both(|| async {
        let (mut stream, peer) = tcp_with_std_peer().await;
        let mut peer = peer;
        peer.write_all(b"partial").unwrap();
        let mut buf = [0u8; 1024];
        let n = guarded("the data", stream.read(&mut buf)).await.unwrap();
        assert!(n > 0);
        // Close with a reset (linger zero).
        socket_linger_zero(&peer);
        drop(peer);
        // The reset (or, if the data raced it, the rest then the reset or
        // end-of-file) arrives; the read does not wait for ever.
        loop {
            match guarded("the reset", stream.read(&mut buf)).await {
                Ok(0) | Err(_) => break,
                Ok(_) => continue,
            }
        }
    });
}

fn socket_linger_zero(stream: &std::net::TcpStream) {
    // Through rt's own option setter on a borrowed duplicate.
    let duplicate = stream.try_clone().unwrap();
    duplicate.set_nonblocking(true).unwrap();
    let rt_stream = TcpStream::from_std(duplicate).unwrap();
    rt_stream.set_linger(Some(Duration::ZERO)).unwrap();
}

/// More slices than one `readv(2)` takes (std passes at most 1024): the
/// read fills the first 1024 one-byte slices and leaves the rest of the
/// bytes queued. It returns fewer bytes than all the slices hold, yet it
/// did not empty the socket, so the next read must still find the rest
/// without a new edge (none comes: the peer sends nothing more).
async fn vectored_read_past_the_slice_limit(mut stream: impl AsyncRead + Unpin, sent: &[u8]) {
    let mut got = Vec::new();
    while got.len() < sent.len() {
        let mut storage = vec![[0u8; 1]; 2048];
        let n = {
            let mut slices: Vec<IoSliceMut<'_>> =
                storage.iter_mut().map(|b| IoSliceMut::new(b)).collect();
            guarded("the rest", stream.read_vectored(&mut slices))
                .await
                .unwrap()
        };
        assert!(n > 0);
        got.extend(storage[..n].iter().map(|b| b[0]));
    }
    assert_eq!(got, sent);
}

#[test]
fn a_vectored_read_into_more_slices_than_the_kernel_takes_leaves_the_rest_readable() {
    let sent: Vec<u8> = (0..1500u32).map(|i| i as u8).collect();
    on_both(|| async {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let stream = TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let (mut peer, _) = listener.accept().unwrap();
        peer.write_all(&sent).unwrap();
        // The edge for the bytes is dispatched before the first read.
        stream.readable().await.unwrap();
        vectored_read_past_the_slice_limit(stream, &sent).await;

        let (stream, mut peer) = unix_with_std_peer();
        peer.write_all(&sent).unwrap();
        stream.readable().await.unwrap();
        vectored_read_past_the_slice_limit(stream, &sent).await;
    });
}
