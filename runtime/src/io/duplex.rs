//! `duplex`: two in-memory streams connected to each other, for tests and
//! for joining two pieces of code that each expect a stream.
//!
//! Each direction is a [`MemPipe`] behind its own mutex (see
//! `mem_pipe.rs`): a stream reads from one pipe and writes to the other.

use super::mem_pipe::{self, MemPipe};
use crate::loom::sync::{Arc, Mutex};
use futures_io::{AsyncRead, AsyncWrite};
use std::io;
use std::mem::MaybeUninit;
use std::pin::Pin;
use std::task::{Context, Poll};

/// Creates a pair of connected in-memory streams: what one writes, the
/// other reads. Each direction buffers at most `max_buf_size` bytes; a
/// writer facing a full buffer waits until the reader takes some.
///
/// Shutting a stream down (`shutdown`/`close`) makes the other read
/// end-of-file once it has read what was written before. Dropping a stream
/// does that too, and makes the other's writes fail with `BrokenPipe`.
///
/// # Panics
///
/// Panics if `max_buf_size` is `0` (no byte could ever pass).
///
/// # Examples
///
/// ```
/// use rt::io::{AsyncReadExt, AsyncWriteExt};
///
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let (mut client, mut server) = rt::io::duplex(16);
/// let echo = rt::spawn(async move {
///     let mut buf = [0; 5];
///     server.read_exact(&mut buf).await.unwrap();
///     server.write_all(&buf).await.unwrap();
/// });
/// client.write_all(b"hello").await.unwrap();
/// let mut reply = [0; 5];
/// client.read_exact(&mut reply).await.unwrap();
/// assert_eq!(&reply, b"hello");
/// echo.await.unwrap();
/// # });
/// ```
#[track_caller]
pub fn duplex(max_buf_size: usize) -> (DuplexStream, DuplexStream) {
    assert!(
        max_buf_size > 0,
        "`rt::io::duplex(0)`: a buffer of 0 bytes could pass nothing; give at least 1"
    );
    let one = Arc::new(MemPipe::new(max_buf_size));
    let two = Arc::new(MemPipe::new(max_buf_size));
    (
        DuplexStream {
            read: one.clone(),
            write: two.clone(),
        },
        DuplexStream {
            read: two,
            write: one,
        },
    )
}

/// One end of an in-memory stream pair made by [`duplex`]: implements
/// [`AsyncRead`] and [`AsyncWrite`].
///
/// Every ready read or write spends one unit of the task's cooperative
/// budget, as a socket's does.
///
/// # Examples
///
/// ```
/// use rt::io::{AsyncReadExt, AsyncWriteExt};
///
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let (mut a, mut b) = rt::io::duplex(4);
/// // More than the buffer holds: the write finishes as the reader reads.
/// let writer = rt::spawn(async move { a.write_all(b"0123456789").await.unwrap() });
/// let mut got = Vec::new();
/// let mut buf = [0; 3];
/// while got.len() < 10 {
///     let n = b.read(&mut buf).await.unwrap();
///     got.extend_from_slice(&buf[..n]);
/// }
/// assert_eq!(got, b"0123456789");
/// writer.await.unwrap();
/// // `a` was dropped: end-of-file.
/// assert_eq!(b.read(&mut buf).await.unwrap(), 0);
/// # });
/// ```
#[derive(Debug)]
pub struct DuplexStream {
    read: Arc<Mutex<MemPipe>>,
    write: Arc<Mutex<MemPipe>>,
}

impl DuplexStream {
    /// Reads like [`AsyncRead::poll_read`] into memory that may be
    /// uninitialised (a tokio `ReadBuf`'s unfilled part, say): the bytes
    /// are copied straight into the front of `buf`, nothing is zeroed
    /// first; returns how many. `Ok(0)` is end-of-file (or an empty `buf`).
    ///
    /// # Errors
    ///
    /// None today: the `Result` is `AsyncRead`'s shape.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::AsyncWriteExt;
    /// use std::future::poll_fn;
    /// use std::mem::MaybeUninit;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (mut a, mut b) = rt::io::duplex(16);
    ///     a.write_all(b"hi").await.unwrap();
    ///     let mut buf = [MaybeUninit::<u8>::uninit(); 8];
    ///     let n = poll_fn(|cx| b.poll_read_uninit(cx, &mut buf)).await.unwrap();
    ///     assert_eq!(n, 2);
    ///     // SAFETY: the read initialised the first `n` bytes.
    ///     assert_eq!(unsafe { buf[0].assume_init() }, b'h');
    /// });
    /// ```
    pub fn poll_read_uninit(
        &mut self,
        cx: &mut Context<'_>,
        buf: &mut [MaybeUninit<u8>],
    ) -> Poll<io::Result<usize>> {
        mem_pipe::poll_read(&self.read, cx, buf)
    }
}

impl AsyncRead for DuplexStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.get_mut()
            .poll_read_uninit(cx, crate::io::sys::as_uninit(buf))
    }
}

impl AsyncWrite for DuplexStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        mem_pipe::poll_write(
            &self.write,
            cx,
            buf,
            "the other `DuplexStream` was dropped",
            "this `DuplexStream` was shut down",
        )
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        // Written bytes are readable at once: nothing is held back.
        Poll::Ready(Ok(()))
    }

    fn poll_close(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        mem_pipe::close_write(&self.write);
        Poll::Ready(Ok(()))
    }
}

impl Drop for DuplexStream {
    fn drop(&mut self) {
        mem_pipe::close_write(&self.write);
        mem_pipe::close_read(&self.read);
    }
}
