//! `simplex`: a one-way in-memory byte stream, one [`MemPipe`] that the
//! same object (or its two halves) writes and reads.

use super::mem_pipe::{self, MemPipe};
use super::split::split;
use crate::loom::sync::Mutex;
use futures_io::{AsyncRead, AsyncWrite};
use futures_util::io::{ReadHalf, WriteHalf};
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

/// Creates a one-way in-memory stream and splits it: what the write half
/// writes, the read half reads. At most `max_buf_size` bytes are buffered;
/// a writer facing a full buffer waits until the reader takes some.
/// Shutting the write half down (`shutdown`/`close`) makes the reader read
/// end-of-file once it has read what was written before, and later writes
/// fail with `BrokenPipe`. The halves are [`split`](crate::io::split)'s
/// and share the one stream: dropping the write half does not end it (shut
/// it down), and `read_half.reunite(write_half)` gives the
/// [`SimplexStream`] back. tokio's `io::simplex`.
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
/// let (mut reader, mut writer) = rt::io::simplex(4);
/// let producer = rt::spawn(async move {
///     // More than the buffer holds: done as the reader reads.
///     writer.write_all(b"one-way traffic").await.unwrap();
///     writer.shutdown().await.unwrap();
/// });
/// let mut text = String::new();
/// reader.read_to_string(&mut text).await.unwrap();
/// assert_eq!(text, "one-way traffic");
/// producer.await.unwrap();
/// # });
/// ```
#[track_caller]
pub fn simplex(max_buf_size: usize) -> (ReadHalf<SimplexStream>, WriteHalf<SimplexStream>) {
    split(SimplexStream::new_unsplit(max_buf_size))
}

/// A one-way in-memory stream: what is written to it is read back from it,
/// in order, with at most a fixed number of bytes buffered. Made by
/// [`SimplexStream::new_unsplit`], or split into halves by [`simplex`].
///
/// Every ready read or write spends one unit of the task's cooperative
/// budget, as a socket's does.
///
/// # Examples
///
/// ```
/// use rt::io::{AsyncReadExt, AsyncWriteExt, SimplexStream};
///
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let mut stream = SimplexStream::new_unsplit(16);
/// stream.write_all(b"hello").await.unwrap();
/// let mut back = [0; 5];
/// stream.read_exact(&mut back).await.unwrap();
/// assert_eq!(&back, b"hello");
/// # });
/// ```
#[derive(Debug)]
pub struct SimplexStream {
    pipe: Mutex<MemPipe>,
}

impl SimplexStream {
    /// A stream buffering at most `max_buf_size` bytes, not split; see
    /// [`simplex`] for the halves.
    ///
    /// # Panics
    ///
    /// Panics if `max_buf_size` is `0` (no byte could ever pass).
    ///
    /// # Examples
    ///
    /// ```
    /// use futures::FutureExt;
    /// use rt::io::{AsyncWriteExt, SimplexStream};
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut stream = SimplexStream::new_unsplit(2);
    /// assert_eq!(stream.write(b"abc").await.unwrap(), 2);
    /// // Full: the next write waits for a reader.
    /// assert!(stream.write(b"c").now_or_never().is_none());
    /// # });
    /// ```
    #[track_caller]
    pub fn new_unsplit(max_buf_size: usize) -> SimplexStream {
        assert!(
            max_buf_size > 0,
            "`rt::io::simplex(0)`: a buffer of 0 bytes could pass nothing; give at least 1"
        );
        SimplexStream {
            pipe: MemPipe::new(max_buf_size),
        }
    }
}

impl SimplexStream {
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
    ///     let mut pipe = rt::io::SimplexStream::new_unsplit(16);
    ///     pipe.write_all(b"hi").await.unwrap();
    ///     let mut buf = [MaybeUninit::<u8>::uninit(); 8];
    ///     let n = poll_fn(|cx| pipe.poll_read_uninit(cx, &mut buf)).await.unwrap();
    ///     assert_eq!(n, 2);
    /// });
    /// ```
    pub fn poll_read_uninit(
        &mut self,
        cx: &mut Context<'_>,
        buf: &mut [std::mem::MaybeUninit<u8>],
    ) -> Poll<io::Result<usize>> {
        mem_pipe::poll_read(&self.pipe, cx, buf)
    }
}

impl AsyncRead for SimplexStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        mem_pipe::poll_read(&self.pipe, cx, crate::io::sys::as_uninit(buf))
    }
}

impl AsyncWrite for SimplexStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        mem_pipe::poll_write(
            &self.pipe,
            cx,
            buf,
            "the `SimplexStream` was dropped",
            "the `SimplexStream` was shut down",
        )
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        // Written bytes are readable at once: nothing is held back.
        Poll::Ready(Ok(()))
    }

    fn poll_close(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        mem_pipe::close_write(&self.pipe);
        Poll::Ready(Ok(()))
    }
}
