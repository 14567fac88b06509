//! `duplex`: two in-memory streams connected to each other, for tests and
//! for joining two pieces of code that each expect a stream.
//!
//! Each direction is a [`Pipe`] behind its own mutex: a byte queue of at
//! most `max_buf_size` bytes, the waker of a reader waiting for bytes and
//! the waker of a writer waiting for room. A stream reads from one pipe and
//! writes to the other. Wakers are taken out under the lock and woken (or
//! dropped, when one replaces another) after it is released, since a waker
//! may run arbitrary code.

use crate::loom::sync::{Arc, Mutex, MutexGuard};
use crate::task::poll_proceed;
use futures_io::{AsyncRead, AsyncWrite};
use std::collections::VecDeque;
use std::io;
use std::mem::MaybeUninit;
use std::pin::Pin;
use std::task::{Context, Poll, Waker, ready};

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
pub fn duplex(max_buf_size: usize) -> (DuplexStream, DuplexStream) {
    assert!(
        max_buf_size > 0,
        "`rt::io::duplex(0)`: a buffer of 0 bytes could pass nothing; give at least 1"
    );
    let one = Arc::new(Mutex::new(Pipe::new(max_buf_size)));
    let two = Arc::new(Mutex::new(Pipe::new(max_buf_size)));
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
    read: Arc<Mutex<Pipe>>,
    write: Arc<Mutex<Pipe>>,
}

/// One direction: the bytes in flight and who waits on them.
#[derive(Debug)]
struct Pipe {
    bytes: VecDeque<u8>,
    max: usize,
    /// The writing stream shut down or was dropped: end-of-file after the
    /// buffered bytes.
    write_closed: bool,
    /// The reading stream was dropped: writes fail.
    read_closed: bool,
    reader: Option<Waker>,
    writer: Option<Waker>,
}

impl Pipe {
    fn new(max: usize) -> Pipe {
        Pipe {
            bytes: VecDeque::new(),
            max,
            write_closed: false,
            read_closed: false,
            reader: None,
            writer: None,
        }
    }
}

fn lock(pipe: &Mutex<Pipe>) -> MutexGuard<'_, Pipe> {
    pipe.lock().unwrap_or_else(|e| e.into_inner())
}

/// Releases the lock, then wakes `waker` (if any): a waker may run
/// arbitrary code, which must not run under the pipe's lock.
fn unlock_and_wake(pipe: MutexGuard<'_, Pipe>, waker: Option<Waker>) {
    drop(pipe);
    if let Some(waker) = waker {
        waker.wake();
    }
}

/// Stores `cx`'s waker in `slot` unless an equivalent one is there;
/// returns the one it replaced, to be dropped after the lock is released.
fn register(slot: &mut Option<Waker>, cx: &Context<'_>) -> Option<Waker> {
    match slot {
        Some(waker) if waker.will_wake(cx.waker()) => None,
        _ => slot.replace(cx.waker().clone()),
    }
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
        if buf.is_empty() {
            return Poll::Ready(Ok(0));
        }
        let coop = ready!(poll_proceed(cx));
        let mut pipe = lock(&self.read);
        if pipe.bytes.is_empty() {
            if pipe.write_closed {
                coop.made_progress();
                return Poll::Ready(Ok(0));
            }
            let replaced = register(&mut pipe.reader, cx);
            drop(pipe);
            drop(replaced);
            return Poll::Pending;
        }
        let n = buf.len().min(pipe.bytes.len());
        let (front, back) = pipe.bytes.as_slices();
        let from_front = n.min(front.len());
        buf[..from_front].copy_from_slice(as_uninit(&front[..from_front]));
        buf[from_front..n].copy_from_slice(as_uninit(&back[..n - from_front]));
        pipe.bytes.drain(..n);
        let writer = pipe.writer.take();
        unlock_and_wake(pipe, writer);
        coop.made_progress();
        Poll::Ready(Ok(n))
    }
}

/// Initialised bytes seen as memory that may be uninitialised, the type a
/// copy into uninitialised memory takes.
fn as_uninit(bytes: &[u8]) -> &[MaybeUninit<u8>] {
    // SAFETY: `MaybeUninit<u8>` has `u8`'s layout, and a shared slice
    // cannot be used to de-initialise anything.
    unsafe { &*(bytes as *const [u8] as *const [MaybeUninit<u8>]) }
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
        let coop = ready!(poll_proceed(cx));
        let mut pipe = lock(&self.write);
        if pipe.read_closed || pipe.write_closed {
            coop.made_progress();
            let why = if pipe.read_closed {
                "the other `DuplexStream` was dropped"
            } else {
                "this `DuplexStream` was shut down"
            };
            return Poll::Ready(Err(io::Error::new(io::ErrorKind::BrokenPipe, why)));
        }
        if buf.is_empty() {
            return Poll::Ready(Ok(0));
        }
        let room = pipe.max - pipe.bytes.len();
        if room == 0 {
            let replaced = register(&mut pipe.writer, cx);
            drop(pipe);
            drop(replaced);
            return Poll::Pending;
        }
        let n = room.min(buf.len());
        pipe.bytes.extend(&buf[..n]);
        let reader = pipe.reader.take();
        unlock_and_wake(pipe, reader);
        coop.made_progress();
        Poll::Ready(Ok(n))
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        // Written bytes are readable at once: nothing is held back.
        Poll::Ready(Ok(()))
    }

    fn poll_close(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        close_write(&self.write);
        Poll::Ready(Ok(()))
    }
}

/// End-of-file for the reader of `pipe`, once it has read what is there.
fn close_write(pipe: &Mutex<Pipe>) {
    let mut pipe = lock(pipe);
    pipe.write_closed = true;
    let reader = pipe.reader.take();
    unlock_and_wake(pipe, reader);
}

impl Drop for DuplexStream {
    fn drop(&mut self) {
        close_write(&self.write);
        let mut pipe = lock(&self.read);
        pipe.read_closed = true;
        pipe.bytes = VecDeque::new();
        let writer = pipe.writer.take();
        unlock_and_wake(pipe, writer);
    }
}
