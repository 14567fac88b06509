//! `join`: one stream from a reader and a writer (tokio's `io::join`),
//! for APIs that take a single `AsyncRead + AsyncWrite`, such as a
//! process's stdout and stdin or the two ends of two pipes.

use futures_io::{AsyncBufRead, AsyncRead, AsyncWrite};
use pin_project_lite::pin_project;
use std::io::{self, IoSlice, IoSliceMut};
use std::pin::Pin;
use std::task::{Context, Poll};

/// Joins `reader` and `writer` into one stream: reads come from the
/// reader, writes go to the writer.
///
/// # Examples
///
/// ```
/// use rt::io::{AsyncReadExt, AsyncWriteExt};
///
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let (mut client, server) = rt::io::duplex(64);
/// let (from_client, to_client) = rt::io::split(server);
/// let mut echo = rt::io::join(from_client, to_client);
/// client.write_all(b"hi").await.unwrap();
/// let mut buf = [0; 2];
/// echo.read_exact(&mut buf).await.unwrap();
/// echo.write_all(&buf).await.unwrap();
/// client.read_exact(&mut buf).await.unwrap();
/// assert_eq!(&buf, b"hi");
/// # });
/// ```
pub fn join<R, W>(reader: R, writer: W) -> Join<R, W>
where
    R: AsyncRead,
    W: AsyncWrite,
{
    Join { reader, writer }
}

pin_project! {
    /// A reader and a writer as one stream, from [`join`].
    ///
    /// # Examples
    ///
    /// See [`join`].
    #[derive(Debug)]
    pub struct Join<R, W> {
        #[pin]
        reader: R,
        #[pin]
        writer: W,
    }
}

impl<R, W> Join<R, W> {
    /// The reader and the writer.
    ///
    /// # Examples
    ///
    /// ```
    /// let joined = rt::io::join(rt::io::empty(), rt::io::sink());
    /// let (_reader, _writer) = joined.into_inner();
    /// ```
    pub fn into_inner(self) -> (R, W) {
        (self.reader, self.writer)
    }

    /// The reader.
    ///
    /// # Examples
    ///
    /// ```
    /// let joined = rt::io::join(rt::io::Cursor::new(vec![1u8]), rt::io::sink());
    /// assert_eq!(joined.reader().position(), 0);
    /// ```
    pub fn reader(&self) -> &R {
        &self.reader
    }

    /// The writer.
    ///
    /// # Examples
    ///
    /// ```
    /// let joined = rt::io::join(rt::io::empty(), rt::io::Cursor::new(Vec::<u8>::new()));
    /// assert!(joined.writer().get_ref().is_empty());
    /// ```
    pub fn writer(&self) -> &W {
        &self.writer
    }

    /// The reader, mutably.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut joined = rt::io::join(rt::io::Cursor::new(vec![1u8]), rt::io::sink());
    /// joined.reader_mut().set_position(1);
    /// ```
    pub fn reader_mut(&mut self) -> &mut R {
        &mut self.reader
    }

    /// The writer, mutably.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut joined = rt::io::join(rt::io::empty(), rt::io::Cursor::new(Vec::<u8>::new()));
    /// joined.writer_mut().get_mut().push(1);
    /// ```
    pub fn writer_mut(&mut self) -> &mut W {
        &mut self.writer
    }

    /// The reader, pinned.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut joined = rt::io::join(rt::io::empty(), rt::io::sink());
    /// let _reader = std::pin::Pin::new(&mut joined).reader_pin_mut();
    /// ```
    pub fn reader_pin_mut(self: Pin<&mut Self>) -> Pin<&mut R> {
        self.project().reader
    }

    /// The writer, pinned.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut joined = rt::io::join(rt::io::empty(), rt::io::sink());
    /// let _writer = std::pin::Pin::new(&mut joined).writer_pin_mut();
    /// ```
    pub fn writer_pin_mut(self: Pin<&mut Self>) -> Pin<&mut W> {
        self.project().writer
    }
}

impl<R: AsyncRead, W> AsyncRead for Join<R, W> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.project().reader.poll_read(cx, buf)
    }

    fn poll_read_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &mut [IoSliceMut<'_>],
    ) -> Poll<io::Result<usize>> {
        self.project().reader.poll_read_vectored(cx, bufs)
    }
}

impl<R: AsyncBufRead, W> AsyncBufRead for Join<R, W> {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        self.project().reader.poll_fill_buf(cx)
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        self.project().reader.consume(amt);
    }
}

impl<R, W: AsyncWrite> AsyncWrite for Join<R, W> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.project().writer.poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.project().writer.poll_write_vectored(cx, bufs)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.project().writer.poll_flush(cx)
    }

    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.project().writer.poll_close(cx)
    }
}
