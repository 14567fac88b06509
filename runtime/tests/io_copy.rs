//! `rt::io::copy`, `copy_buf` and `copy_bidirectional` as tokio's: a
//! writer that buffers is flushed while the reader waits, and
//! `Interrupted` is retried.

use rt::io::{
    AsyncBufRead, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader, BufWriter,
};
use std::io::ErrorKind;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

/// How long a paused-clock test waits for bytes that, if the copy works,
/// arrive with no time passing at all: a deadlock fires the timeout at
/// once (the clock jumps when every task is idle), a passing run never
/// sees it.
const HANG: Duration = Duration::from_secs(3600);

/// Requests through `copy` into a `BufWriter`: the copy flushes the
/// writer while its reader waits for more, so each request reaches the
/// server before the client sends the next (which, in a request-reply
/// protocol, waits for the reply).
#[rt::test(start_paused = true)]
async fn copy_flushes_a_buffering_writer_while_the_reader_waits() {
    let (mut client, mut proxy_in) = rt::io::duplex(64);
    let (proxy_out, mut server) = rt::io::duplex(64);
    let proxy = rt::spawn(async move {
        let mut out = BufWriter::new(proxy_out);
        rt::io::copy(&mut proxy_in, &mut out).await
    });
    for request in [b"ping", b"more"] {
        client.write_all(request).await.unwrap();
        let mut got = [0; 4];
        rt::time::timeout(HANG, server.read_exact(&mut got))
            .await
            .expect("the bytes stayed in the BufWriter while copy waited for its reader")
            .unwrap();
        assert_eq!(&got, request);
    }
    drop(client);
    assert_eq!(proxy.await.unwrap().unwrap(), 8);
}

/// `copy_buf` likewise flushes while its buffered reader waits.
#[rt::test(start_paused = true)]
async fn copy_buf_flushes_a_buffering_writer_while_the_reader_waits() {
    let (mut client, proxy_in) = rt::io::duplex(64);
    let (proxy_out, mut server) = rt::io::duplex(64);
    let proxy = rt::spawn(async move {
        let mut out = BufWriter::new(proxy_out);
        rt::io::copy_buf(BufReader::new(proxy_in), &mut out).await
    });
    client.write_all(b"ping").await.unwrap();
    let mut got = [0; 4];
    rt::time::timeout(HANG, server.read_exact(&mut got))
        .await
        .expect("the bytes stayed in the BufWriter while copy_buf waited for its reader")
        .unwrap();
    assert_eq!(&got, b"ping");
    drop(client);
    assert_eq!(proxy.await.unwrap().unwrap(), 4);
}

/// A reader and a writer that are interrupted (`ErrorKind::Interrupted`)
/// before every call that does something, as a signal would.
struct Interrupting<T> {
    inner: T,
    interrupt_next: bool,
}

impl<T> Interrupting<T> {
    fn new(inner: T) -> Interrupting<T> {
        Interrupting {
            inner,
            interrupt_next: true,
        }
    }

    /// Every other call is interrupted.
    fn interrupted(&mut self) -> bool {
        self.interrupt_next = !self.interrupt_next;
        !self.interrupt_next
    }
}

fn interrupted<T>() -> Poll<std::io::Result<T>> {
    Poll::Ready(Err(ErrorKind::Interrupted.into()))
}

impl<T: AsyncRead + Unpin> AsyncRead for Interrupting<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<std::io::Result<usize>> {
        if self.interrupted() {
            return interrupted();
        }
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<T: AsyncBufRead + Unpin> AsyncBufRead for Interrupting<T> {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<&[u8]>> {
        let this = self.get_mut();
        if this.interrupted() {
            return interrupted();
        }
        Pin::new(&mut this.inner).poll_fill_buf(cx)
    }

    fn consume(mut self: Pin<&mut Self>, amt: usize) {
        Pin::new(&mut self.inner).consume(amt);
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Interrupting<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        if self.interrupted() {
            return interrupted();
        }
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_close(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_close(cx)
    }
}

/// `Interrupted` from a read or a write is retried, as tokio's copies
/// do, not the end of the copy.
#[rt::test]
async fn copies_retry_interrupted_reads_and_writes() {
    let text = b"interrupted, and carrying on";
    let mut out = Interrupting::new(Vec::new());
    let copied = rt::io::copy(Interrupting::new(&text[..]), &mut out).await;
    assert_eq!(copied.unwrap(), text.len() as u64);
    assert_eq!(out.inner, text);

    let mut out = Interrupting::new(Vec::new());
    let reader = Interrupting::new(BufReader::with_capacity(5, &text[..]));
    let copied = rt::io::copy_buf(reader, &mut out).await;
    assert_eq!(copied.unwrap(), text.len() as u64);
    assert_eq!(out.inner, text);

    let (a, mut a_peer) = rt::io::duplex(64);
    let (b, mut b_peer) = rt::io::duplex(64);
    let (mut a, mut b) = (Interrupting::new(a), Interrupting::new(b));
    a_peer.write_all(b"to b").await.unwrap();
    a_peer.shutdown().await.unwrap();
    b_peer.write_all(b"to a!").await.unwrap();
    b_peer.shutdown().await.unwrap();
    let copied = rt::io::copy_bidirectional(&mut a, &mut b).await;
    assert_eq!(copied.unwrap(), (4, 5));
}

/// Runs `copy_once` until the `yield_now` beside it gets a turn, at most
/// 10 000 times; whether it did.
async fn yields_to_others<F: std::future::Future>(mut copy_once: impl FnMut() -> F) -> bool {
    rt::select! {
        biased;
        () = async {
            for _ in 0..10_000 {
                copy_once().await;
            }
        } => false,
        () = rt::task::yield_now() => true,
    }
}

/// Copies between readers and writers that are always ready spend the
/// task's budget, as tokio's do, so a loop of them lets other work run
/// (tokio's `copy_is_cooperative` tests).
#[rt::test]
async fn copies_spend_the_budget() {
    let copy = yields_to_others(|| async {
        let mut writer = Vec::new();
        rt::io::copy(&mut &b"hello"[..], &mut writer).await.unwrap();
    });
    assert!(copy.await, "a loop of `copy` never yielded");
    let copy_buf = yields_to_others(|| async {
        let mut writer = Vec::new();
        rt::io::copy_buf(&b"hello"[..], &mut writer).await.unwrap();
    });
    assert!(copy_buf.await, "a loop of `copy_buf` never yielded");
    let bidirectional = yields_to_others(|| async {
        let mut a = rt::io::Cursor::new(b"to b".to_vec());
        let mut b = rt::io::Cursor::new(b"to a".to_vec());
        rt::io::copy_bidirectional(&mut a, &mut b).await.unwrap();
    });
    assert!(
        bidirectional.await,
        "a loop of `copy_bidirectional` never yielded"
    );
}
