//! The I/O utilities retry an operation that fails with
//! `ErrorKind::Interrupted` (as tokio's do) instead of returning the error.

mod support;

use std::io::{self, ErrorKind};
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::io::{
    AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufWriter,
    ReadBuf,
};

/// A reader (and buffered reader) that fails with `Interrupted` before
/// every read, then hands out at most 3 bytes.
struct Flaky {
    data: Vec<u8>,
    pos: usize,
    interrupt_next: bool,
}

impl Flaky {
    fn new(data: &[u8]) -> Flaky {
        Flaky {
            data: data.to_vec(),
            pos: 0,
            interrupt_next: true,
        }
    }

    /// `Some(error)` every other call.
    fn interrupt(&mut self) -> Option<io::Error> {
        self.interrupt_next = !self.interrupt_next;
        (!self.interrupt_next).then(|| ErrorKind::Interrupted.into())
    }
}

impl AsyncRead for Flaky {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if let Some(e) = self.interrupt() {
            return Poll::Ready(Err(e));
        }
        let end = (self.pos + 3).min(self.data.len());
        let n = (end - self.pos).min(buf.remaining());
        let start = self.pos;
        buf.put_slice(&self.data[start..start + n]);
        self.pos += n;
        Poll::Ready(Ok(()))
    }
}

impl AsyncBufRead for Flaky {
    fn poll_fill_buf(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        let me = self.get_mut();
        if let Some(e) = me.interrupt() {
            return Poll::Ready(Err(e));
        }
        let end = (me.pos + 3).min(me.data.len());
        Poll::Ready(Ok(&me.data[me.pos..end]))
    }

    fn consume(mut self: Pin<&mut Self>, amt: usize) {
        self.pos += amt;
    }
}

/// A writer that fails with `Interrupted` before every write, then takes
/// at most 3 bytes.
struct FlakyWriter {
    written: Vec<u8>,
    interrupt_next: bool,
}

impl FlakyWriter {
    fn new() -> FlakyWriter {
        FlakyWriter {
            written: Vec::new(),
            interrupt_next: true,
        }
    }
}

impl AsyncWrite for FlakyWriter {
    fn poll_write(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.interrupt_next = !self.interrupt_next;
        if !self.interrupt_next {
            return Poll::Ready(Err(ErrorKind::Interrupted.into()));
        }
        let n = buf.len().min(3);
        self.written.extend_from_slice(&buf[..n]);
        Poll::Ready(Ok(n))
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

#[test]
fn read_futures_retry_interrupted() {
    support::on_both_flavours(|| async {
        let mut buf = [0; 5];
        let n = Flaky::new(b"hello!").read_exact(&mut buf).await.unwrap();
        assert_eq!((n, &buf), (5, b"hello"));

        let mut reader = Flaky::new(&[0, 0, 1, 2, 0xff]);
        assert_eq!(reader.read_u32().await.unwrap(), 0x102);
        assert_eq!(reader.read_u8().await.unwrap(), 0xff);

        let mut all = Vec::new();
        let n = Flaky::new(b"to the end").read_to_end(&mut all).await;
        assert_eq!((n.unwrap(), &all[..]), (10, &b"to the end"[..]));

        let mut text = String::new();
        let n = Flaky::new(b"some text").read_to_string(&mut text).await;
        assert_eq!((n.unwrap(), &text[..]), (9, "some text"));

        let mut reader = Flaky::new(b"one line\nnext");
        let mut line = Vec::new();
        assert_eq!(reader.read_until(b'\n', &mut line).await.unwrap(), 9);
        assert_eq!(line, b"one line\n");
    });
}

#[test]
fn write_futures_retry_interrupted() {
    support::on_both_flavours(|| async {
        let mut writer = FlakyWriter::new();
        writer.write_all(b"all of it").await.unwrap();
        writer.write_u32(0x0102_0304).await.unwrap();
        let mut bytes = &b"buf"[..];
        writer.write_all_buf(&mut bytes).await.unwrap();
        assert_eq!(writer.written, b"all of it\x01\x02\x03\x04buf");

        let mut buffered = BufWriter::new(FlakyWriter::new());
        buffered.write_all(b"buffered bytes").await.unwrap();
        buffered.flush().await.unwrap();
        assert_eq!(buffered.get_ref().written, b"buffered bytes");
    });
}

#[test]
fn copies_retry_interrupted() {
    support::on_both_flavours(|| async {
        let mut writer = FlakyWriter::new();
        let n = tokio::io::copy(&mut Flaky::new(b"copied bytes"), &mut writer).await;
        assert_eq!(
            (n.unwrap(), &writer.written[..]),
            (12, &b"copied bytes"[..])
        );

        let mut writer = FlakyWriter::new();
        let n = tokio::io::copy_buf(&mut Flaky::new(b"from the buffer"), &mut writer).await;
        assert_eq!(
            (n.unwrap(), &writer.written[..]),
            (15, &b"from the buffer"[..])
        );
    });
}
