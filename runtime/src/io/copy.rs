//! `copy` and `copy_buf`: one reader into one writer until end-of-file,
//! flushing the writer whenever the reader has to wait, as tokio's do.
//!
//! futures-util's `copy` and `copy_buf` flush only at the end, so bytes
//! copied into a buffering writer (a `BufWriter`, a TLS stream) sat there
//! while the reader waited, and a request-reply protocol proxied through
//! them never got its reply. `copy` is one direction of
//! [`copy_bidirectional`](super::copy_bidirectional) (its `Transfer`),
//! flushing instead of shutting the writer down at the end.

use super::copy_bidirectional::{AtEnd, Transfer};
use crate::task::poll_proceed;
use futures_io::{AsyncBufRead, AsyncRead, AsyncWrite};
use std::future::poll_fn;
use std::io;
use std::pin::{Pin, pin};
use std::task::{Poll, ready};

/// The buffer size of [`copy`], tokio's and futures-util's.
const COPY_BUF_SIZE: usize = 8 * 1024;

/// Copies everything `reader` reads into `writer` until `reader` reaches
/// end-of-file, then flushes `writer`; returns how many bytes it copied.
/// The writer is not shut down (for that, and for both directions of a
/// proxy, see [`copy_bidirectional`](super::copy_bidirectional)).
///
/// Whenever the reader has nothing yet, the writer is flushed, so bytes do
/// not wait in a buffering writer for more input, as in tokio. Each poll
/// that moves bytes spends a unit of the task's cooperative budget, as
/// tokio's does. Pass `&mut reader` to keep using the reader afterwards.
///
/// # Errors
///
/// The first error of either side (`Interrupted` is retried), or
/// `WriteZero` if the writer accepts no more bytes.
///
/// # Examples
///
/// ```
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let mut reader: &[u8] = b"hello";
/// let mut writer = Vec::new();
/// assert_eq!(rt::io::copy(&mut reader, &mut writer).await.unwrap(), 5);
/// assert_eq!(writer, b"hello");
/// # });
/// ```
pub async fn copy<R, W>(reader: R, writer: &mut W) -> io::Result<u64>
where
    R: AsyncRead,
    W: AsyncWrite + Unpin + ?Sized,
{
    let mut reader = pin!(reader);
    let mut transfer = Transfer::new(COPY_BUF_SIZE, AtEnd::Flush);
    poll_fn(|cx| transfer.poll(cx, &mut reader, &mut *writer)).await
}

/// Copies everything a buffered `reader` holds and reads into `writer`,
/// straight from the reader's buffer, until end-of-file, then flushes
/// `writer`; returns how many bytes it copied. As [`copy`], it flushes the
/// writer whenever the reader has to wait, and leaves it open.
///
/// # Errors
///
/// The first error of either side (`Interrupted` is retried), or
/// `WriteZero` if the writer accepts no more bytes.
///
/// # Examples
///
/// ```
/// use rt::io::BufReader;
///
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let reader = BufReader::new(&b"line one\nline two\n"[..]);
/// let mut writer = Vec::new();
/// assert_eq!(rt::io::copy_buf(reader, &mut writer).await.unwrap(), 18);
/// assert_eq!(writer, b"line one\nline two\n");
/// # });
/// ```
pub async fn copy_buf<R, W>(reader: R, writer: &mut W) -> io::Result<u64>
where
    R: AsyncBufRead,
    W: AsyncWrite + Unpin + ?Sized,
{
    let mut reader = pin!(reader);
    let mut copied = 0;
    let mut need_flush = false;
    poll_fn(|cx| {
        // Each poll that moves bytes spends a unit of the task's budget.
        let coop = ready!(poll_proceed(cx));
        loop {
            let available = match reader.as_mut().poll_fill_buf(cx) {
                Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::Interrupted => continue,
                Poll::Ready(available) => available?,
                Poll::Pending => {
                    if need_flush {
                        ready!(Pin::new(&mut *writer).poll_flush(cx))?;
                        need_flush = false;
                    }
                    return Poll::Pending;
                }
            };
            coop.made_progress();
            if available.is_empty() {
                ready!(Pin::new(&mut *writer).poll_flush(cx))?;
                return Poll::Ready(Ok(copied));
            }
            let n = match ready!(Pin::new(&mut *writer).poll_write(cx, available)) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                written => written?,
            };
            if n == 0 {
                return Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::WriteZero,
                    "`copy_buf`: the writer accepted no bytes",
                )));
            }
            reader.as_mut().consume(n);
            copied += n as u64;
            need_flush = true;
        }
    })
    .await
}
