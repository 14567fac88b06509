//! `BufReader`: an `AsyncBufRead` over any reader, through a buffer it
//! reads into. The buffer is allocated uninitialised and zeroed once, on
//! the first fill: as tokio's, the reader is handed a fully initialised
//! `ReadBuf`, so a reader that `advance`s it without writing is sound.

use crate::io::{AsyncBufRead, AsyncRead, AsyncSeek, AsyncWrite, ReadBuf, SeekFrom};
use pin_project_lite::pin_project;
use std::io::{self, IoSlice};
use std::mem::MaybeUninit;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

/// The default buffer size of `BufReader` and `BufWriter`.
pub(crate) const DEFAULT_BUF_SIZE: usize = 8 * 1024;

pin_project! {
    /// Buffers reads from a reader, for small reads and
    /// [`AsyncBufRead`]'s methods (`read_line`, `lines`, ...). Writes pass
    /// through.
    ///
    /// # Examples
    ///
    /// ```
    /// use tokio::io::{AsyncBufReadExt, BufReader};
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut reader = BufReader::new(&b"one\ntwo\n"[..]);
    /// let mut line = String::new();
    /// reader.read_line(&mut line).await.unwrap();
    /// assert_eq!(line, "one\n");
    /// assert_eq!(reader.buffer(), b"two\n");
    /// # });
    /// ```
    #[derive(Debug)]
    pub struct BufReader<R> {
        #[pin]
        inner: R,
        buf: Box<[MaybeUninit<u8>]>,
        pos: usize,
        cap: usize,
        // How much of `buf` a read initialised (reads need not zero it).
        initialized: usize,
        seek_state: SeekState,
    }
}

/// Where a seek through the buffer stands.
#[derive(Debug, Clone, Copy)]
enum SeekState {
    /// No seek started.
    Init,
    /// `start_seek` was called; the inner seek starts on the next poll.
    Start(SeekFrom),
    /// A relative seek too far back for one `i64`: the first part
    /// (`Current(-buffered)`) is running, this offset follows.
    PendingOverflowed(i64),
    /// The inner seek is running.
    Pending,
}

impl<R: AsyncRead> BufReader<R> {
    /// Wraps `inner` with a buffer of 8 KiB.
    pub fn new(inner: R) -> BufReader<R> {
        BufReader::with_capacity(DEFAULT_BUF_SIZE, inner)
    }

    /// Wraps `inner` with a buffer of `capacity` bytes.
    ///
    /// # Panics
    ///
    /// If `capacity` is 0 (as tokio's).
    ///
    /// # Examples
    ///
    /// ```
    /// let reader = tokio::io::BufReader::with_capacity(16, &b""[..]);
    /// assert!(reader.buffer().is_empty());
    /// ```
    #[track_caller]
    pub fn with_capacity(capacity: usize, inner: R) -> BufReader<R> {
        assert!(capacity > 0, "capacity must be greater than zero");
        BufReader {
            inner,
            buf: Box::new_uninit_slice(capacity),
            pos: 0,
            cap: 0,
            initialized: 0,
            seek_state: SeekState::Init,
        }
    }
}

/// A `BufReader`'s buffer with its bookkeeping, moved between readers.
#[derive(Debug)]
pub(crate) struct Buffer {
    buf: Box<[MaybeUninit<u8>]>,
    pos: usize,
    cap: usize,
    initialized: usize,
}

impl<R> BufReader<R> {
    /// The reader and its buffer, contents included.
    pub(crate) fn into_parts(self) -> (R, Buffer) {
        let buffer = Buffer {
            buf: self.buf,
            pos: self.pos,
            cap: self.cap,
            initialized: self.initialized,
        };
        (self.inner, buffer)
    }

    /// A reader over `inner` with `buffer` (what it holds is read first).
    pub(crate) fn from_parts(inner: R, buffer: Buffer) -> BufReader<R> {
        BufReader {
            inner,
            buf: buffer.buf,
            pos: buffer.pos,
            cap: buffer.cap,
            initialized: buffer.initialized,
            seek_state: SeekState::Init,
        }
    }

    /// The reader.
    pub fn get_ref(&self) -> &R {
        &self.inner
    }

    /// The reader, mutably (reading from it directly skips the buffer).
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.inner
    }

    /// The reader, pinned.
    pub fn get_pin_mut(self: Pin<&mut Self>) -> Pin<&mut R> {
        self.project().inner
    }

    /// Unwraps the reader; buffered bytes are lost.
    pub fn into_inner(self) -> R {
        self.inner
    }

    /// The bytes buffered and not yet consumed.
    pub fn buffer(&self) -> &[u8] {
        let buffered = &self.buf[self.pos..self.cap];
        // SAFETY: `..cap` was filled by a read, so it is initialised.
        unsafe { &*(buffered as *const [MaybeUninit<u8>] as *const [u8]) }
    }

    fn discard_buffer(self: Pin<&mut Self>) {
        let me = self.project();
        *me.pos = 0;
        *me.cap = 0;
    }
}

impl<R: AsyncRead> AsyncRead for BufReader<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        // A read as large as the buffer bypasses it when it is empty.
        if self.pos == self.cap && buf.remaining() >= self.buf.len() {
            let result = ready!(self.as_mut().get_pin_mut().poll_read(cx, buf));
            self.discard_buffer();
            return Poll::Ready(result);
        }
        let available = ready!(self.as_mut().poll_fill_buf(cx))?;
        let n = available.len().min(buf.remaining());
        buf.put_slice(&available[..n]);
        self.consume(n);
        Poll::Ready(Ok(()))
    }
}

impl<R: AsyncRead> AsyncBufRead for BufReader<R> {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        let me = self.project();
        if *me.pos >= *me.cap {
            let mut buf = ReadBuf::uninit(me.buf);
            // SAFETY: an earlier read initialised the first `initialized`
            // bytes of this same buffer.
            unsafe { buf.assume_init(*me.initialized) };
            // Zero the rest once (a no-op afterwards): the reader gets a
            // fully initialised buffer, as tokio's `BufReader` gives it.
            buf.initialize_unfilled();
            ready!(me.inner.poll_read(cx, &mut buf))?;
            *me.cap = buf.filled().len();
            *me.initialized = buf.initialized().len();
            *me.pos = 0;
        }
        let buffered = &me.buf[*me.pos..*me.cap];
        // SAFETY: `..cap` was filled by a read, so it is initialised.
        Poll::Ready(Ok(unsafe {
            &*(buffered as *const [MaybeUninit<u8>] as *const [u8])
        }))
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        let me = self.project();
        *me.pos = (*me.pos + amt).min(*me.cap);
    }
}

/// Seeking discards the buffer; `SeekFrom::Current` counts from the
/// position of the next byte the caller would read (the inner reader is
/// ahead by the buffered bytes).
impl<R: AsyncRead + AsyncSeek> AsyncSeek for BufReader<R> {
    fn start_seek(self: Pin<&mut Self>, pos: SeekFrom) -> io::Result<()> {
        *self.project().seek_state = SeekState::Start(pos);
        Ok(())
    }

    fn poll_complete(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        loop {
            // Taken, so that a seek that fails leaves no state behind (the
            // next seek starts afresh, as tokio's); put back while waiting.
            let state = std::mem::replace(self.as_mut().project().seek_state, SeekState::Init);
            match state {
                SeekState::Init => {
                    // No seek was started here: `AsyncSeek` callers poll
                    // this first to finish an operation in progress, which
                    // may be the inner reader's own: wait for it.
                    return self.get_pin_mut().poll_complete(cx);
                }
                SeekState::Start(SeekFrom::Current(n)) => {
                    let buffered = (self.cap - self.pos) as i64;
                    let me = self.as_mut().project();
                    match n.checked_sub(buffered) {
                        Some(target) => {
                            me.inner.start_seek(SeekFrom::Current(target))?;
                            *me.seek_state = SeekState::Pending;
                        }
                        None => {
                            me.inner.start_seek(SeekFrom::Current(-buffered))?;
                            *me.seek_state = SeekState::PendingOverflowed(n);
                        }
                    }
                    self.as_mut().discard_buffer();
                }
                SeekState::Start(pos) => {
                    let me = self.as_mut().project();
                    me.inner.start_seek(pos)?;
                    *me.seek_state = SeekState::Pending;
                    self.as_mut().discard_buffer();
                }
                SeekState::PendingOverflowed(_) | SeekState::Pending => {
                    let mut me = self.as_mut().project();
                    let Poll::Ready(result) = me.inner.as_mut().poll_complete(cx) else {
                        *me.seek_state = state;
                        return Poll::Pending;
                    };
                    let SeekState::PendingOverflowed(n) = state else {
                        return Poll::Ready(result);
                    };
                    result?;
                    me.inner.start_seek(SeekFrom::Current(n))?;
                    *me.seek_state = SeekState::Pending;
                }
            }
        }
    }
}

impl<R: AsyncRead + AsyncWrite> AsyncWrite for BufReader<R> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.get_pin_mut().poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.get_pin_mut().poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.get_ref().is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.get_pin_mut().poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.get_pin_mut().poll_shutdown(cx)
    }
}
