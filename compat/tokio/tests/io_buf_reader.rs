//! `BufReader`'s contract details from tokio's io_buf_reader.rs: the
//! buffer handed to the reader is initialised, capacity 0 panics, and
//! `poll_complete` waits for the inner reader's pending operation.

mod support;

use std::io::{self, Cursor, SeekFrom};
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::io::{
    AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncSeek, AsyncSeekExt, BufReader, ReadBuf,
};

/// A reader that only `advance`s the buffer (never writes it): sound only
/// if the buffer is initialised.
struct ShortReader {
    lengths: Vec<usize>,
}

impl AsyncRead for ShortReader {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if !self.lengths.is_empty() {
            buf.advance(self.lengths.remove(0));
        }
        Poll::Ready(Ok(()))
    }
}

#[test]
fn short_reads_into_an_initialised_buffer() {
    support::on_both_flavours(|| async {
        let mut reader = BufReader::new(ShortReader {
            lengths: vec![0, 1, 2, 0, 1, 0],
        });
        let mut buf = [0, 0];
        for expected in [0, 1, 2, 0, 1, 0, 0] {
            assert_eq!(reader.read(&mut buf).await.unwrap(), expected);
        }
    });
}

#[test]
#[should_panic(expected = "capacity must be greater than zero")]
fn zero_capacity_panics() {
    BufReader::with_capacity(0, &b"data"[..]);
}

#[test]
#[should_panic(expected = "capacity must be greater than zero")]
fn zero_capacity_buf_stream_panics() {
    tokio::io::BufStream::with_capacity(0, 8, Cursor::new(Vec::new()));
}

/// A seekable reader whose next `poll_complete` is pending once.
struct PendingOperation {
    inner: Cursor<&'static [u8]>,
    pending: bool,
}

impl AsyncRead for PendingOperation {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl AsyncSeek for PendingOperation {
    fn start_seek(mut self: Pin<&mut Self>, pos: SeekFrom) -> io::Result<()> {
        assert!(!self.pending, "previous operation is still pending");
        Pin::new(&mut self.inner).start_seek(pos)
    }

    fn poll_complete(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        if self.pending {
            self.pending = false;
            cx.waker().wake_by_ref();
            Poll::Pending
        } else {
            Pin::new(&mut self.inner).poll_complete(cx)
        }
    }
}

#[test]
fn seek_waits_for_pending_operation() {
    support::on_both_flavours(|| async {
        let inner = PendingOperation {
            inner: Cursor::new(b"abcd"),
            pending: false,
        };
        let mut reader = BufReader::with_capacity(2, inner);
        assert_eq!(reader.fill_buf().await.unwrap(), b"ab");
        reader.get_mut().pending = true;

        let mut polls = 0;
        std::future::poll_fn(|cx| {
            polls += 1;
            Pin::new(&mut reader).poll_complete(cx)
        })
        .await
        .unwrap();
        assert_eq!(
            polls, 2,
            "poll_complete did not wait for the inner operation"
        );

        assert_eq!(reader.buffer(), b"ab");
        assert_eq!(reader.seek(SeekFrom::Current(1)).await.unwrap(), 1);
        assert!(reader.buffer().is_empty());
        assert_eq!(reader.fill_buf().await.unwrap(), b"bc");
    });
}
