//! A read that returns fewer bytes than the buffer holds drained the
//! socket, and the stream then waits for the reactor's next edge instead
//! of reading again (and failing with `EAGAIN`). These tests check that
//! this never loses what comes next: data, end-of-file queued behind the
//! data, a reset, on TCP and Unix streams, on both schedulers.

mod support;

use rt::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use rt::net::{TcpListener, TcpStream, UnixStream};
use std::io::Write;
use std::net::Shutdown;
use std::time::Duration;
use support::on_both;

/// A hang guard, never reached when the code is right.
async fn guarded<T>(what: &str, future: impl Future<Output = T>) -> T {
    rt::time::timeout(Duration::from_secs(30), future)
        .await
        .unwrap_or_else(|_| panic!("{what}: no progress (a lost wake-up)"))
}

/// An rt TCP stream and the std stream at its other end.
async fn tcp_pair() -> (TcpStream, std::net::TcpStream) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let peer = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
    let (stream, _) = listener.accept().await.unwrap();
    (stream, peer)
}

/// An rt Unix stream and the std stream at its other end.
fn unix_pair() -> (UnixStream, std::os::unix::net::UnixStream) {
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
        let (stream, mut peer) = tcp_pair().await;
        eof_behind_data(stream, &mut peer).await;
        let (stream, mut peer) = unix_pair();
        eof_behind_data(stream, &mut peer).await;
    });
}

/// Small requests and replies, each read short: every request after the
/// first arrives after the previous read cleared the readiness.
async fn ping_pong<S>(client: S, server: S)
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    const ROUNDS: u32 = 2000;
    let serving = rt::spawn(async move {
        let mut server = server;
        let mut buf = [0u8; 4096];
        loop {
            let n = server.read(&mut buf).await.unwrap();
            if n == 0 {
                break;
            }
            server.write_all(&buf[..n]).await.unwrap();
        }
    });
    let mut client = client;
    let mut reply = [0u8; 4];
    for i in 0..ROUNDS {
        client.write_all(&i.to_le_bytes()).await.unwrap();
        guarded("a reply", client.read_exact(&mut reply))
            .await
            .unwrap();
        assert_eq!(u32::from_le_bytes(reply), i);
    }
    client.close().await.unwrap();
    guarded("the server's end", serving).await.unwrap();
}

#[test]
fn request_reply_after_short_reads_loses_nothing() {
    on_both(|| async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let (server, _) = listener.accept().await.unwrap();
        ping_pong(client, server).await;
        let (client, server) = UnixStream::pair().unwrap();
        ping_pong(client, server).await;
    });
}

#[test]
fn reads_that_fill_the_buffer_leave_the_rest_readable() {
    on_both(|| async {
        let (mut stream, mut peer) = unix_pair();
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
        let (mut stream, peer) = tcp_pair().await;
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
