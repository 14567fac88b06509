//! `copy`, `copy_buf` and `copy_bidirectional`: moving bytes from readers
//! to writers. `CopyBuffer` is one direction's state: read into its
//! buffer, write it out, flush the writer when the reader has nothing yet
//! (so bytes never sit in a buffering writer while the reader waits).

use crate::io::{AsyncBufRead, AsyncRead, AsyncWrite, ReadBuf};
use std::future::poll_fn;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

/// The default size of a copy's buffer.
const COPY_BUF_SIZE: usize = 8 * 1024;

/// One direction of a copy.
#[derive(Debug)]
pub(crate) struct CopyBuffer {
    read_done: bool,
    need_flush: bool,
    pos: usize,
    cap: usize,
    amt: u64,
    buf: Box<[u8]>,
}

impl CopyBuffer {
    pub(crate) fn new(size: usize) -> CopyBuffer {
        CopyBuffer {
            read_done: false,
            need_flush: false,
            pos: 0,
            cap: 0,
            amt: 0,
            buf: vec![0; size.max(1)].into_boxed_slice(),
        }
    }

    fn poll_fill<R: AsyncRead + ?Sized>(
        &mut self,
        cx: &mut Context<'_>,
        reader: Pin<&mut R>,
    ) -> Poll<io::Result<()>> {
        let mut buf = ReadBuf::new(&mut self.buf);
        buf.set_filled(self.cap);
        let polled = reader.poll_read(cx, &mut buf);
        if let Poll::Ready(Ok(())) = polled {
            let filled = buf.filled().len();
            self.read_done = self.cap == filled;
            self.cap = filled;
        }
        polled
    }

    /// Copies until the reader ends and everything read is written and
    /// flushed; returns the bytes copied.
    pub(crate) fn poll_copy<R, W>(
        &mut self,
        cx: &mut Context<'_>,
        mut reader: Pin<&mut R>,
        mut writer: Pin<&mut W>,
    ) -> Poll<io::Result<u64>>
    where
        R: AsyncRead + ?Sized,
        W: AsyncWrite + ?Sized,
    {
        loop {
            // Read while there is room and the reader has not ended. Each
            // read spends a unit of the task's budget (returned if the
            // read is pending), so copying between always-ready in-memory
            // ends yields to the scheduler like any other I/O (out of
            // budget, the task is woken to run again at once).
            if self.cap < self.buf.len() && !self.read_done {
                let coop = ready!(rt::task::coop::poll_proceed(cx));
                match self.poll_fill(cx, reader.as_mut()) {
                    Poll::Ready(Ok(())) => coop.made_progress(),
                    Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                    Poll::Pending => {
                        if self.pos == self.cap {
                            // Nothing to write: flush while the reader waits.
                            if self.need_flush {
                                ready!(writer.as_mut().poll_flush(cx))?;
                                self.need_flush = false;
                            }
                            return Poll::Pending;
                        }
                    }
                }
            }
            // Write what was read.
            while self.pos < self.cap {
                let n = ready_retry!(
                    writer
                        .as_mut()
                        .poll_write(cx, &self.buf[self.pos..self.cap])
                );
                if n == 0 {
                    return Poll::Ready(Err(io::Error::new(
                        io::ErrorKind::WriteZero,
                        "write zero byte into writer",
                    )));
                }
                self.pos += n;
                self.amt += n as u64;
                self.need_flush = true;
            }
            if self.pos == self.cap {
                self.pos = 0;
                self.cap = 0;
            }
            if self.read_done && self.pos == self.cap {
                ready!(writer.as_mut().poll_flush(cx))?;
                return Poll::Ready(Ok(self.amt));
            }
        }
    }
}

/// Copies all of `reader` into `writer` (flushing it at the end), returning
/// how many bytes were copied.
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
    let mut buf = CopyBuffer::new(COPY_BUF_SIZE);
    poll_fn(|cx| buf.poll_copy(cx, Pin::new(&mut *reader), Pin::new(&mut *writer))).await
}

/// Copies all of a buffered `reader` into `writer` straight from the
/// reader's buffer (no buffer of its own), flushing at the end; returns how
/// many bytes were copied.
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
    let mut amt = 0u64;
    let mut need_flush = false;
    poll_fn(|cx| {
        loop {
            // A unit of budget per round (returned if the reader is
            // pending), so an always-ready reader and writer yield.
            let coop = ready!(rt::task::coop::poll_proceed(cx));
            let buffer = match Pin::new(&mut *reader).poll_fill_buf(cx) {
                Poll::Ready(Ok(buffer)) => buffer,
                Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::Interrupted => continue,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => {
                    // Nothing to read yet: flush what was written, so no
                    // bytes sit in a buffering writer while the reader
                    // waits (maybe for those very bytes).
                    if need_flush {
                        ready!(Pin::new(&mut *writer).poll_flush(cx))?;
                        need_flush = false;
                    }
                    return Poll::Pending;
                }
            };
            coop.made_progress();
            if buffer.is_empty() {
                ready!(Pin::new(&mut *writer).poll_flush(cx))?;
                return Poll::Ready(Ok(amt));
            }
            let n = ready_retry!(Pin::new(&mut *writer).poll_write(cx, buffer));
            if n == 0 {
                return Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::WriteZero,
                    "write zero byte into writer",
                )));
            }
            Pin::new(&mut *reader).consume(n);
            amt += n as u64;
            need_flush = true;
        }
    })
    .await
}

/// One direction of `copy_bidirectional`: copying, then shutting the
/// writer down, then done with the byte count.
#[derive(Debug)]
enum Transfer {
    Running(CopyBuffer),
    ShuttingDown(u64),
    Done(u64),
}

fn poll_transfer<A, B>(
    state: &mut Transfer,
    cx: &mut Context<'_>,
    mut reader: Pin<&mut A>,
    mut writer: Pin<&mut B>,
) -> Poll<io::Result<u64>>
where
    A: AsyncRead + ?Sized,
    B: AsyncWrite + ?Sized,
{
    loop {
        match state {
            Transfer::Running(buf) => {
                let amt = ready!(buf.poll_copy(cx, reader.as_mut(), writer.as_mut()))?;
                *state = Transfer::ShuttingDown(amt);
            }
            Transfer::ShuttingDown(amt) => {
                ready!(writer.as_mut().poll_shutdown(cx))?;
                *state = Transfer::Done(*amt);
            }
            Transfer::Done(amt) => return Poll::Ready(Ok(*amt)),
        }
    }
}

/// Copies both ways between `a` and `b` until both reach end-of-file; when
/// one side ends, the other's write side is shut down. Returns the bytes
/// copied from `a` to `b` and from `b` to `a`.
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
    assert!(
        a_to_b_buf_size > 0,
        "`a_to_b_buf_size` must be greater than 0"
    );
    assert!(
        b_to_a_buf_size > 0,
        "`b_to_a_buf_size` must be greater than 0"
    );
    let mut a_to_b = Transfer::Running(CopyBuffer::new(a_to_b_buf_size));
    let mut b_to_a = Transfer::Running(CopyBuffer::new(b_to_a_buf_size));
    poll_fn(|cx| {
        let a_to_b = poll_transfer(&mut a_to_b, cx, Pin::new(&mut *a), Pin::new(&mut *b))?;
        let b_to_a = poll_transfer(&mut b_to_a, cx, Pin::new(&mut *b), Pin::new(&mut *a))?;
        let a_to_b = ready!(a_to_b);
        let b_to_a = ready!(b_to_a);
        Poll::Ready(Ok((a_to_b, b_to_a)))
    })
    .await
}
