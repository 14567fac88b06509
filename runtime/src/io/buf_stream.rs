//! `BufStream`: one stream buffered both ways, a [`BufReader`] over a
//! [`BufWriter`] (futures-util's) under tokio's name, so
//! `BufStream::new(socket)` ports as it is.

use futures_io::{AsyncBufRead, AsyncRead, AsyncSeek, AsyncWrite};
use futures_util::io::{BufReader, BufWriter};
use pin_project_lite::pin_project;
use std::io::{self, IoSlice, IoSliceMut, SeekFrom};
use std::pin::Pin;
use std::task::{Context, Poll};

pin_project! {
    /// A stream with a read buffer and a write buffer: small reads come
    /// from the read buffer, small writes gather in the write buffer until
    /// it fills or is flushed. Flush (or `shutdown`) before dropping it,
    /// or buffered writes are lost.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::{AsyncBufReadExt, AsyncWriteExt, BufStream};
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let (a, b) = rt::net::UnixStream::pair().unwrap();
    /// let mut client = BufStream::new(a);
    /// let mut server = BufStream::new(b);
    /// client.write_all(b"PING\n").await.unwrap();
    /// client.flush().await.unwrap();
    /// let mut line = String::new();
    /// server.read_line(&mut line).await.unwrap();
    /// assert_eq!(line, "PING\n");
    /// # });
    /// ```
    #[derive(Debug)]
    pub struct BufStream<RW> {
        #[pin]
        inner: BufReader<BufWriter<RW>>,
    }
}

impl<RW: AsyncRead + AsyncWrite> BufStream<RW> {
    /// Buffers `stream` both ways with the default capacities (8 KiB
    /// each).
    ///
    /// # Examples
    ///
    /// See [`BufStream`].
    ///
    /// ```
    /// let stream = rt::io::BufStream::new(rt::io::Cursor::new(Vec::<u8>::new()));
    /// # drop(stream);
    /// ```
    pub fn new(stream: RW) -> BufStream<RW> {
        BufStream {
            inner: BufReader::new(BufWriter::new(stream)),
        }
    }

    /// Buffers `stream` with a read buffer of `reader_capacity` bytes and
    /// a write buffer of `writer_capacity` bytes.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::{AsyncWriteExt, BufStream, Cursor};
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut stream = BufStream::with_capacity(16, 4, Cursor::new(Vec::new()));
    /// stream.write_all(b"ab").await.unwrap();
    /// assert!(stream.get_ref().get_ref().is_empty(), "still buffered");
    /// stream.write_all(b"cdef").await.unwrap();
    /// assert!(!stream.get_ref().get_ref().is_empty(), "the full buffer went out");
    /// # });
    /// ```
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
    /// The stream. Reading or writing it directly bypasses the buffers.
    ///
    /// # Examples
    ///
    /// See [`BufStream::with_capacity`].
    pub fn get_ref(&self) -> &RW {
        self.inner.get_ref().get_ref()
    }

    /// The stream, mutably. Reading or writing it directly bypasses the
    /// buffers.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut stream = rt::io::BufStream::new(rt::io::Cursor::new(vec![1u8]));
    /// stream.get_mut().set_position(1);
    /// ```
    pub fn get_mut(&mut self) -> &mut RW {
        self.inner.get_mut().get_mut()
    }

    /// The stream, pinned.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut stream = rt::io::BufStream::new(rt::io::Cursor::new(vec![1u8]));
    /// let pinned = std::pin::Pin::new(&mut stream).get_pin_mut();
    /// assert_eq!(pinned.position(), 0);
    /// ```
    pub fn get_pin_mut(self: Pin<&mut Self>) -> Pin<&mut RW> {
        self.project().inner.get_pin_mut().get_pin_mut()
    }

    /// The stream, dropping whatever the buffers hold: flush first to
    /// keep buffered writes.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::{AsyncWriteExt, BufStream, Cursor};
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut stream = BufStream::new(Cursor::new(Vec::new()));
    /// stream.write_all(b"kept").await.unwrap();
    /// stream.flush().await.unwrap();
    /// assert_eq!(stream.into_inner().into_inner(), b"kept");
    /// # });
    /// ```
    pub fn into_inner(self) -> RW {
        self.inner.into_inner().into_inner()
    }
}

/// A reader over a writer is what a `BufStream` is made of.
///
/// # Examples
///
/// ```
/// use rt::io::{BufReader, BufStream, BufWriter, Cursor};
/// let stream = BufStream::from(BufReader::new(BufWriter::new(Cursor::new(Vec::<u8>::new()))));
/// # drop(stream);
/// ```
impl<RW> From<BufReader<BufWriter<RW>>> for BufStream<RW> {
    fn from(inner: BufReader<BufWriter<RW>>) -> BufStream<RW> {
        BufStream { inner }
    }
}

impl<RW: AsyncRead + AsyncWrite> AsyncRead for BufStream<RW> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.project().inner.poll_read(cx, buf)
    }

    fn poll_read_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &mut [IoSliceMut<'_>],
    ) -> Poll<io::Result<usize>> {
        self.project().inner.poll_read_vectored(cx, bufs)
    }
}

impl<RW: AsyncRead + AsyncWrite> AsyncBufRead for BufStream<RW> {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        self.project().inner.poll_fill_buf(cx)
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        self.project().inner.consume(amt);
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

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.project().inner.poll_flush(cx)
    }

    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.project().inner.poll_close(cx)
    }
}

/// Seeking flushes the write buffer and drops the read buffer first.
impl<RW: AsyncRead + AsyncWrite + AsyncSeek> AsyncSeek for BufStream<RW> {
    fn poll_seek(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        pos: SeekFrom,
    ) -> Poll<io::Result<u64>> {
        self.project().inner.poll_seek(cx, pos)
    }
}
