//! `copy`, `copy_buf` and `copy_bidirectional`: rt's, one implementation
//! for both faces. tokio's readers and writers reach them through
//! [`FuturesIo`], which shows tokio's traits as futures-io's; the copies
//! keep tokio's signatures (by `&mut`) and its 8 KiB buffers.

use crate::io::{AsyncBufRead, AsyncRead, AsyncWrite, ReadBuf};
use std::io::{self, IoSlice};
use std::pin::Pin;
use std::task::{Context, Poll, ready};

/// tokio's default copy buffer size (`copy_bidirectional`'s per direction;
/// rt's own default there is larger).
const COPY_BUF_SIZE: usize = 8 * 1024;

/// A reader or writer with tokio's traits, seen through futures-io's,
/// which rt's copies take. Exists so the copy loops are written once.
#[derive(Debug)]
struct FuturesIo<T>(T);

impl<T: AsyncRead + Unpin> rt::io::AsyncRead for FuturesIo<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        let mut buf = ReadBuf::new(buf);
        ready!(Pin::new(&mut self.get_mut().0).poll_read(cx, &mut buf))?;
        Poll::Ready(Ok(buf.filled().len()))
    }
}

impl<T: AsyncBufRead + Unpin> rt::io::AsyncBufRead for FuturesIo<T> {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        Pin::new(&mut self.get_mut().0).poll_fill_buf(cx)
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        Pin::new(&mut self.get_mut().0).consume(amt)
    }
}

/// tokio's `shutdown` is futures-io's `close`.
impl<T: AsyncWrite + Unpin> rt::io::AsyncWrite for FuturesIo<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().0).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().0).poll_write_vectored(cx, bufs)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().0).poll_flush(cx)
    }

    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().0).poll_shutdown(cx)
    }
}

/// Copies all of `reader` into `writer` (flushing it at the end), returning
/// how many bytes were copied. Whenever the reader has nothing yet, the
/// writer is flushed, so bytes never wait in a buffering writer; an
/// `Interrupted` read or write is retried; each poll that moves bytes
/// spends a unit of the task's cooperative budget.
///
/// # Errors
///
/// The reader's or writer's error; `WriteZero` if the writer takes no
/// more bytes.
///
/// # Examples
///
/// ```
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let mut reader: &[u8] = b"hello";
/// let mut writer = Vec::new();
/// assert_eq!(tokio::io::copy(&mut reader, &mut writer).await.unwrap(), 5);
/// assert_eq!(writer, b"hello");
/// # });
/// ```
pub async fn copy<'a, R, W>(reader: &'a mut R, writer: &'a mut W) -> io::Result<u64>
where
    R: AsyncRead + Unpin + ?Sized,
    W: AsyncWrite + Unpin + ?Sized,
{
    rt::io::copy(FuturesIo(reader), &mut FuturesIo(writer)).await
}

/// Copies all of a buffered `reader` into `writer` straight from the
/// reader's buffer (no buffer of its own), flushing at the end, and
/// whenever the reader has nothing yet, as [`copy`]; returns how many
/// bytes were copied.
///
/// # Errors
///
/// The reader's or writer's error; `WriteZero` if the writer takes no
/// more bytes.
///
/// # Examples
///
/// ```
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let mut reader: &[u8] = b"hello";
/// let mut writer = Vec::new();
/// assert_eq!(tokio::io::copy_buf(&mut reader, &mut writer).await.unwrap(), 5);
/// # });
/// ```
pub async fn copy_buf<'a, R, W>(reader: &'a mut R, writer: &'a mut W) -> io::Result<u64>
where
    R: AsyncBufRead + Unpin + ?Sized,
    W: AsyncWrite + Unpin + ?Sized,
{
    rt::io::copy_buf(FuturesIo(reader), &mut FuturesIo(writer)).await
}

/// Copies both ways between `a` and `b` until both reach end-of-file; when
/// one side ends, the other's write side is shut down. Returns the bytes
/// copied from `a` to `b` and from `b` to `a`. Each direction has an 8 KiB
/// buffer.
///
/// # Errors
///
/// The first error of either direction (the copy then stops).
///
/// # Examples
///
/// ```
/// use tokio::io::{AsyncReadExt, AsyncWriteExt};
///
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let (mut client, mut proxy_a) = tokio::io::duplex(64);
/// let (mut proxy_b, mut server) = tokio::io::duplex(64);
/// let proxy = rt::spawn(async move {
///     tokio::io::copy_bidirectional(&mut proxy_a, &mut proxy_b).await
/// });
/// client.write_all(b"ping").await.unwrap();
/// client.shutdown().await.unwrap();
/// let mut got = Vec::new();
/// server.read_to_end(&mut got).await.unwrap();
/// assert_eq!(got, b"ping");
/// server.shutdown().await.unwrap();
/// assert_eq!(proxy.await.unwrap().unwrap(), (4, 0));
/// # });
/// ```
pub async fn copy_bidirectional<A, B>(a: &mut A, b: &mut B) -> io::Result<(u64, u64)>
where
    A: AsyncRead + AsyncWrite + Unpin + ?Sized,
    B: AsyncRead + AsyncWrite + Unpin + ?Sized,
{
    copy_bidirectional_with_sizes(a, b, COPY_BUF_SIZE, COPY_BUF_SIZE).await
}

/// [`copy_bidirectional`] with a buffer of `a_to_b_buf_size` bytes for the
/// direction from `a` to `b` and one of `b_to_a_buf_size` bytes for the
/// other.
///
/// # Errors
///
/// The first error of either direction (the copy then stops).
///
/// # Panics
///
/// When first polled, if either buffer size is 0 (as tokio's).
///
/// # Examples
///
/// ```
/// use tokio::io::AsyncWriteExt;
///
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let (mut a, mut a_peer) = tokio::io::duplex(64);
/// let (mut b, mut b_peer) = tokio::io::duplex(64);
/// a_peer.shutdown().await.unwrap();
/// b_peer.shutdown().await.unwrap();
/// let copied = tokio::io::copy_bidirectional_with_sizes(&mut a, &mut b, 16, 16).await.unwrap();
/// assert_eq!(copied, (0, 0));
/// # });
/// ```
pub async fn copy_bidirectional_with_sizes<A, B>(
    a: &mut A,
    b: &mut B,
    a_to_b_buf_size: usize,
    b_to_a_buf_size: usize,
) -> io::Result<(u64, u64)>
where
    A: AsyncRead + AsyncWrite + Unpin + ?Sized,
    B: AsyncRead + AsyncWrite + Unpin + ?Sized,
{
    rt::io::copy_bidirectional_with_sizes(
        &mut FuturesIo(a),
        &mut FuturesIo(b),
        a_to_b_buf_size,
        b_to_a_buf_size,
    )
    .await
}
