//! `BufWriter`: buffers writes to any writer, sending them in large
//! writes.

use super::buf_reader::DEFAULT_BUF_SIZE;
use crate::io::{AsyncBufRead, AsyncRead, AsyncSeek, AsyncWrite, ReadBuf, SeekFrom};
use pin_project_lite::pin_project;
use std::io::{self, IoSlice};
use std::pin::Pin;
use std::task::{Context, Poll, ready};

pin_project! {
    /// Buffers writes to a writer: small writes gather in the buffer, which
    /// goes out when full, on [`flush`](crate::io::AsyncWriteExt::flush) and
    /// on [`shutdown`](crate::io::AsyncWriteExt::shutdown). Flush before
    /// dropping it: buffered bytes are lost otherwise. Reads pass through.
    ///
    /// # Examples
    ///
    /// ```
    /// use tokio::io::{AsyncWriteExt, BufWriter};
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut writer = BufWriter::new(Vec::new());
    /// writer.write_all(b"abc").await.unwrap();
    /// assert_eq!(writer.buffer(), b"abc");
    /// writer.flush().await.unwrap();
    /// assert_eq!(writer.into_inner(), b"abc");
    /// # });
    /// ```
    #[derive(Debug)]
    pub struct BufWriter<W> {
        #[pin]
        inner: W,
        buf: Vec<u8>,
        written: usize,
        seek_state: SeekState,
    }
}

/// Where a seek through the writer stands (the buffer is flushed first).
#[derive(Debug, Clone, Copy)]
enum SeekState {
    Init,
    Start(SeekFrom),
    Pending,
}

impl<W: AsyncWrite> BufWriter<W> {
    /// Wraps `inner` with a buffer of 8 KiB.
    pub fn new(inner: W) -> BufWriter<W> {
        BufWriter::with_capacity(DEFAULT_BUF_SIZE, inner)
    }

    /// Wraps `inner` with a buffer of `cap` bytes.
    ///
    /// # Examples
    ///
    /// ```
    /// let writer = tokio::io::BufWriter::with_capacity(16, Vec::new());
    /// assert!(writer.buffer().is_empty());
    /// ```
    pub fn with_capacity(cap: usize, inner: W) -> BufWriter<W> {
        BufWriter {
            inner,
            buf: Vec::with_capacity(cap),
            written: 0,
            seek_state: SeekState::Init,
        }
    }

    /// Writes out the whole buffer.
    fn flush_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let mut me = self.project();
        let mut result = Ok(());
        while *me.written < me.buf.len() {
            match ready!(me.inner.as_mut().poll_write(cx, &me.buf[*me.written..])) {
                Ok(0) => {
                    result = Err(io::Error::new(
                        io::ErrorKind::WriteZero,
                        "failed to write the buffered data",
                    ));
                    break;
                }
                Ok(n) => *me.written += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        if *me.written > 0 {
            me.buf.drain(..*me.written);
        }
        *me.written = 0;
        Poll::Ready(result)
    }
}

impl<W> BufWriter<W> {
    /// The writer and the bytes buffered and not yet written.
    pub(crate) fn into_parts(mut self) -> (W, Vec<u8>) {
        self.buf.drain(..self.written);
        (self.inner, self.buf)
    }

    /// A writer with `buf` (unwritten bytes) buffered already.
    pub(crate) fn from_parts(inner: W, buf: Vec<u8>) -> BufWriter<W> {
        BufWriter {
            inner,
            buf,
            written: 0,
            seek_state: SeekState::Init,
        }
    }

    /// The writer.
    pub fn get_ref(&self) -> &W {
        &self.inner
    }

    /// The writer, mutably (writing to it directly skips the buffer).
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.inner
    }

    /// The writer, pinned.
    pub fn get_pin_mut(self: Pin<&mut Self>) -> Pin<&mut W> {
        self.project().inner
    }

    /// Unwraps the writer; buffered bytes are lost (flush first).
    pub fn into_inner(self) -> W {
        self.inner
    }

    /// The bytes buffered and not yet written.
    pub fn buffer(&self) -> &[u8] {
        &self.buf
    }
}

impl<W: AsyncWrite> AsyncWrite for BufWriter<W> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if self.buf.len() + buf.len() > self.buf.capacity() {
            ready!(self.as_mut().flush_buf(cx))?;
        }
        let me = self.project();
        if buf.len() >= me.buf.capacity() {
            me.inner.poll_write(cx, buf)
        } else {
            me.buf.extend_from_slice(buf);
            Poll::Ready(Ok(buf.len()))
        }
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let total = bufs
            .iter()
            .fold(0usize, |sum, b| sum.saturating_add(b.len()));
        if self.buf.len() + total > self.buf.capacity() {
            ready!(self.as_mut().flush_buf(cx))?;
        }
        let me = self.project();
        if total >= me.buf.capacity() {
            if me.inner.is_write_vectored() {
                return me.inner.poll_write_vectored(cx, bufs);
            }
            let first = bufs
                .iter()
                .find(|b| !b.is_empty())
                .map_or(&[][..], |b| &**b);
            if first.len() >= me.buf.capacity() {
                return me.inner.poll_write(cx, first);
            }
            // Small slices to a writer without vectored writes: fill the
            // (now empty) buffer with as many as fit, the last one in part,
            // rather than writing the first slice alone (tokio's
            // `write_vectored_large_total_on_non_vectored`).
            let mut taken = 0;
            for b in bufs {
                let room = me.buf.capacity() - me.buf.len();
                if room == 0 {
                    break;
                }
                let n = b.len().min(room);
                me.buf.extend_from_slice(&b[..n]);
                taken += n;
            }
            return Poll::Ready(Ok(taken));
        }
        for b in bufs {
            me.buf.extend_from_slice(b);
        }
        Poll::Ready(Ok(total))
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.as_mut().flush_buf(cx))?;
        self.get_pin_mut().poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.as_mut().flush_buf(cx))?;
        self.get_pin_mut().poll_shutdown(cx)
    }
}

/// Seeking writes the buffer out first.
impl<W: AsyncWrite + AsyncSeek> AsyncSeek for BufWriter<W> {
    fn start_seek(self: Pin<&mut Self>, position: SeekFrom) -> io::Result<()> {
        *self.project().seek_state = SeekState::Start(position);
        Ok(())
    }

    fn poll_complete(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        if let SeekState::Start(position) = self.seek_state {
            ready!(self.as_mut().flush_buf(cx))?;
            let me = self.as_mut().project();
            me.inner.start_seek(position)?;
            *me.seek_state = SeekState::Pending;
        }
        let me = self.project();
        match me.seek_state {
            SeekState::Init => Poll::Ready(Ok(0)),
            _ => {
                let result = ready!(me.inner.poll_complete(cx));
                *me.seek_state = SeekState::Init;
                Poll::Ready(result)
            }
        }
    }
}

impl<W: AsyncWrite + AsyncRead> AsyncRead for BufWriter<W> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.get_pin_mut().poll_read(cx, buf)
    }
}

impl<W: AsyncWrite + AsyncBufRead> AsyncBufRead for BufWriter<W> {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        self.get_pin_mut().poll_fill_buf(cx)
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        self.get_pin_mut().consume(amt)
    }
}
