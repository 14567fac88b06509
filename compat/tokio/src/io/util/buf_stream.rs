//! `BufStream`: a `BufReader` over a `BufWriter`, buffering both
//! directions of a stream.

use super::{BufReader, BufWriter};
use crate::io::{AsyncBufRead, AsyncRead, AsyncSeek, AsyncWrite, ReadBuf, SeekFrom};
use pin_project_lite::pin_project;
use std::io::{self, IoSlice};
use std::pin::Pin;
use std::task::{Context, Poll};

pin_project! {
    /// Buffers both reads and writes of a stream. Flush before dropping it:
    /// buffered writes are lost otherwise.
    ///
    /// # Examples
    ///
    /// ```
    /// use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufStream};
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let (a, b) = tokio::io::duplex(64);
    /// let mut a = BufStream::new(a);
    /// let mut b = BufStream::new(b);
    /// a.write_all(b"hello\n").await.unwrap();
    /// a.flush().await.unwrap();
    /// let mut line = String::new();
    /// b.read_line(&mut line).await.unwrap();
    /// assert_eq!(line, "hello\n");
    /// # });
    /// ```
    #[derive(Debug)]
    pub struct BufStream<RW> {
        #[pin]
        inner: BufReader<BufWriter<RW>>,
    }
}

impl<RW: AsyncRead + AsyncWrite> BufStream<RW> {
    /// Wraps `stream` with 8 KiB buffers each way.
    pub fn new(stream: RW) -> BufStream<RW> {
        BufStream {
            inner: BufReader::new(BufWriter::new(stream)),
        }
    }

    /// Wraps `stream` with buffers of the given sizes.
    ///
    /// # Panics
    ///
    /// If `reader_capacity` is 0 (as tokio's).
    ///
    /// # Examples
    ///
    /// ```
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let (a, _b) = tokio::io::duplex(64);
    /// let stream = tokio::io::BufStream::with_capacity(16, 16, a);
    /// # drop(stream);
    /// # });
    /// ```
    #[track_caller]
    pub fn with_capacity(
        reader_capacity: usize,
        writer_capacity: usize,
        stream: RW,
    ) -> BufStream<RW> {
        BufStream {
            inner: BufReader::with_capacity(
                reader_capacity,
                BufWriter::with_capacity(writer_capacity, stream),
            ),
        }
    }
}

impl<RW> BufStream<RW> {
    /// The stream.
    pub fn get_ref(&self) -> &RW {
        self.inner.get_ref().get_ref()
    }

    /// The stream, mutably (using it directly skips the buffers).
    pub fn get_mut(&mut self) -> &mut RW {
        self.inner.get_mut().get_mut()
    }

    /// The stream, pinned.
    pub fn get_pin_mut(self: Pin<&mut Self>) -> Pin<&mut RW> {
        self.project().inner.get_pin_mut().get_pin_mut()
    }

    /// Unwraps the stream; buffered bytes are lost.
    pub fn into_inner(self) -> RW {
        self.inner.into_inner().into_inner()
    }
}

impl<RW> From<BufReader<BufWriter<RW>>> for BufStream<RW> {
    fn from(inner: BufReader<BufWriter<RW>>) -> BufStream<RW> {
        BufStream { inner }
    }
}

/// Moves both buffers, with their contents, into the other nesting.
impl<RW: AsyncRead + AsyncWrite> From<BufWriter<BufReader<RW>>> for BufStream<RW> {
    fn from(writer: BufWriter<BufReader<RW>>) -> BufStream<RW> {
        let (reader, write_buf) = writer.into_parts();
        let (stream, read_buf) = reader.into_parts();
        BufStream {
            inner: BufReader::from_parts(BufWriter::from_parts(stream, write_buf), read_buf),
        }
    }
}

impl<RW: AsyncRead + AsyncWrite> AsyncWrite for BufStream<RW> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.project().inner.poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.project().inner.poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.project().inner.poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.project().inner.poll_shutdown(cx)
    }
}

impl<RW: AsyncRead + AsyncWrite> AsyncRead for BufStream<RW> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.project().inner.poll_read(cx, buf)
    }
}

impl<RW: AsyncRead + AsyncWrite> AsyncBufRead for BufStream<RW> {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        self.project().inner.poll_fill_buf(cx)
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        self.project().inner.consume(amt)
    }
}

/// Seeking discards the read buffer and writes out the write buffer.
impl<RW: AsyncRead + AsyncWrite + AsyncSeek> AsyncSeek for BufStream<RW> {
    fn start_seek(self: Pin<&mut Self>, position: SeekFrom) -> io::Result<()> {
        self.project().inner.start_seek(position)
    }

    fn poll_complete(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        self.project().inner.poll_complete(cx)
    }
}
