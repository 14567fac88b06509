//! `duplex` and `simplex`: in-memory streams, over rt's `DuplexStream`
//! and `SimplexStream`.

use crate::io::AsyncWrite;
use crate::io::forward::forward_async_read;
use std::io::{self, IoSlice};
use std::pin::Pin;
use std::task::{Context, Poll};

/// Writes the slices of `bufs` in order with `write`, one after the other,
/// until one is written short or `write` is not ready; returns the total
/// (`Pending` or the error only if nothing was written). A memory copy has
/// no system call to save, so this is a real vectored write for the
/// in-memory streams: all slices that fit go in one call.
fn poll_write_slices(
    bufs: &[IoSlice<'_>],
    mut write: impl FnMut(&[u8]) -> Poll<io::Result<usize>>,
) -> Poll<io::Result<usize>> {
    if bufs.iter().all(|buf| buf.is_empty()) {
        // Nothing to write, but a closed stream still says so, as an empty
        // `poll_write` does.
        return write(&[]);
    }
    let mut total = 0;
    for buf in bufs.iter().filter(|buf| !buf.is_empty()) {
        match write(buf) {
            Poll::Ready(Ok(n)) => {
                total += n;
                if n < buf.len() {
                    break;
                }
            }
            // Report what went in; the error or the wait comes again on the
            // next call (the wake registered now is merely spurious then).
            Poll::Ready(Err(_)) | Poll::Pending if total > 0 => break,
            other => return other,
        }
    }
    Poll::Ready(Ok(total))
}

/// tokio's `AsyncWrite` for an in-memory stream newtype over an rt stream
/// (futures-io `AsyncWrite`) in field `inner`, with a vectored write of all
/// the slices.
macro_rules! in_memory_async_write {
    ($ty:ty) => {
        impl AsyncWrite for $ty {
            fn poll_write(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &[u8],
            ) -> Poll<io::Result<usize>> {
                rt::io::AsyncWrite::poll_write(Pin::new(&mut self.get_mut().inner), cx, buf)
            }

            fn poll_write_vectored(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                bufs: &[IoSlice<'_>],
            ) -> Poll<io::Result<usize>> {
                let inner = &mut self.get_mut().inner;
                poll_write_slices(bufs, |buf| {
                    rt::io::AsyncWrite::poll_write(Pin::new(&mut *inner), cx, buf)
                })
            }

            fn is_write_vectored(&self) -> bool {
                true
            }

            fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                rt::io::AsyncWrite::poll_flush(Pin::new(&mut self.get_mut().inner), cx)
            }

            fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                rt::io::AsyncWrite::poll_close(Pin::new(&mut self.get_mut().inner), cx)
            }
        }
    };
}

/// One end of an in-memory stream pair, from [`duplex`]. A newtype over
/// rt's `DuplexStream` because tokio's traits differ from the futures-io
/// ones rt's implements. Dropping one end makes the other read end-of-file
/// and fail writes with `BrokenPipe`; shutting one down makes the other
/// read end-of-file.
///
/// # Examples
///
/// ```
/// use tokio::io::{AsyncReadExt, AsyncWriteExt};
///
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let (mut a, mut b) = tokio::io::duplex(64);
/// a.write_all(b"ping").await.unwrap();
/// let mut buf = [0; 4];
/// b.read_exact(&mut buf).await.unwrap();
/// assert_eq!(&buf, b"ping");
/// drop(a);
/// assert_eq!(b.read(&mut buf).await.unwrap(), 0);
/// # });
/// ```
#[derive(Debug)]
pub struct DuplexStream {
    inner: rt::io::DuplexStream,
}

/// Two streams joined to each other: what one writes the other reads. Each
/// direction holds at most `max_buf_size` bytes; a writer waits for room.
///
/// # Panics
///
/// If `max_buf_size` is 0.
///
/// # Examples
///
/// See [`DuplexStream`].
#[track_caller]
pub fn duplex(max_buf_size: usize) -> (DuplexStream, DuplexStream) {
    let (a, b) = rt::io::duplex(max_buf_size);
    (DuplexStream::from(a), DuplexStream::from(b))
}

impl From<rt::io::DuplexStream> for DuplexStream {
    fn from(inner: rt::io::DuplexStream) -> DuplexStream {
        DuplexStream { inner }
    }
}

impl From<DuplexStream> for rt::io::DuplexStream {
    fn from(stream: DuplexStream) -> rt::io::DuplexStream {
        stream.inner
    }
}

forward_async_read!(DuplexStream, inner);
in_memory_async_write!(DuplexStream);

/// A one-way in-memory pipe: what is written is read back. A newtype over
/// rt's `SimplexStream`, for tokio's traits; [`simplex`] splits one into
/// its two ends.
///
/// # Examples
///
/// ```
/// use tokio::io::{AsyncReadExt, AsyncWriteExt};
///
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let mut pipe = tokio::io::SimplexStream::new_unsplit(16);
/// pipe.write_all(b"loop").await.unwrap();
/// let mut buf = [0; 4];
/// pipe.read_exact(&mut buf).await.unwrap();
/// assert_eq!(&buf, b"loop");
/// # });
/// ```
#[derive(Debug)]
pub struct SimplexStream {
    inner: rt::io::SimplexStream,
}

impl SimplexStream {
    /// A pipe holding at most `max_buf_size` bytes, both ends in one value.
    ///
    /// # Panics
    ///
    /// If `max_buf_size` is 0.
    #[track_caller]
    pub fn new_unsplit(max_buf_size: usize) -> SimplexStream {
        SimplexStream {
            inner: rt::io::SimplexStream::new_unsplit(max_buf_size),
        }
    }
}

impl From<rt::io::SimplexStream> for SimplexStream {
    fn from(inner: rt::io::SimplexStream) -> SimplexStream {
        SimplexStream { inner }
    }
}

impl From<SimplexStream> for rt::io::SimplexStream {
    fn from(stream: SimplexStream) -> rt::io::SimplexStream {
        stream.inner
    }
}

forward_async_read!(SimplexStream, inner);
in_memory_async_write!(SimplexStream);

/// A one-way in-memory pipe of at most `max_buf_size` bytes, as its read
/// end and its write end. Dropping or shutting down the write end makes
/// the reader see end-of-file; dropping the read end fails writes with
/// `BrokenPipe`.
///
/// # Panics
///
/// If `max_buf_size` is 0.
///
/// # Examples
///
/// ```
/// use tokio::io::{AsyncReadExt, AsyncWriteExt};
///
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let (mut read, mut write) = tokio::io::simplex(16);
/// write.write_all(b"one way").await.unwrap();
/// write.shutdown().await.unwrap();
/// let mut got = String::new();
/// read.read_to_string(&mut got).await.unwrap();
/// assert_eq!(got, "one way");
/// # });
/// ```
#[track_caller]
pub fn simplex(
    max_buf_size: usize,
) -> (
    crate::io::ReadHalf<SimplexStream>,
    crate::io::WriteHalf<SimplexStream>,
) {
    crate::io::split(SimplexStream::new_unsplit(max_buf_size))
}
