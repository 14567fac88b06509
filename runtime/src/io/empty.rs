//! `empty`, `repeat` and `sink`: readers and writers with nothing behind
//! them. They are always ready, so each ready poll spends a unit of the
//! task's cooperative budget (as tokio's do): a loop over one still yields
//! to other tasks, and a `timeout` around such a loop still fires.

use crate::task::coop::poll_proceed;
use futures_io::{AsyncBufRead, AsyncRead, AsyncSeek, AsyncWrite};
use std::fmt;
use std::io::{self, IoSlice, IoSliceMut, SeekFrom};
use std::mem::MaybeUninit;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

/// Spends one unit of the task's budget: `Pending` (the task woken to run
/// again) once it is spent.
fn poll_budget(cx: &mut Context<'_>) -> Poll<()> {
    ready!(poll_proceed(cx)).made_progress();
    Poll::Ready(())
}

/// A reader that is always at end-of-file, a writer that drops what it is
/// given, and a seeker always at position 0, from [`empty`] (tokio's
/// `Empty`).
///
/// # Examples
///
/// ```
/// use rt::io::{AsyncReadExt, AsyncWriteExt};
///
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let mut buf = Vec::new();
///     assert_eq!(rt::io::empty().read_to_end(&mut buf).await.unwrap(), 0);
///     assert_eq!(rt::io::empty().write(b"gone").await.unwrap(), 4);
/// });
/// ```
pub struct Empty {
    _private: (),
}

/// A reader that is always at end-of-file, and a writer that drops what it
/// is given.
///
/// # Examples
///
/// See [`Empty`].
pub fn empty() -> Empty {
    Empty { _private: () }
}

impl AsyncRead for Empty {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        _buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        ready!(poll_budget(cx));
        Poll::Ready(Ok(0))
    }
}

impl AsyncBufRead for Empty {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        ready!(poll_budget(cx));
        Poll::Ready(Ok(&[]))
    }

    fn consume(self: Pin<&mut Self>, _amt: usize) {}
}

/// As [`Sink`]'s: every write takes all of its bytes.
impl AsyncWrite for Empty {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut sink()).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut sink()).poll_write_vectored(cx, bufs)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut sink()).poll_flush(cx)
    }

    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut sink()).poll_close(cx)
    }
}

/// Seeking anywhere succeeds, at position 0.
impl AsyncSeek for Empty {
    fn poll_seek(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        _pos: SeekFrom,
    ) -> Poll<io::Result<u64>> {
        ready!(poll_budget(cx));
        Poll::Ready(Ok(0))
    }
}

impl fmt::Debug for Empty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad("Empty { .. }")
    }
}

/// A reader that yields one byte over and over, from [`repeat`].
///
/// # Examples
///
/// ```
/// use rt::io::AsyncReadExt;
///
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let mut buf = [0; 3];
///     rt::io::repeat(7).read_exact(&mut buf).await.unwrap();
///     assert_eq!(buf, [7, 7, 7]);
/// });
/// ```
pub struct Repeat {
    byte: u8,
}

/// A reader that fills every buffer with `byte`, for ever.
///
/// # Examples
///
/// See [`Repeat`].
pub fn repeat(byte: u8) -> Repeat {
    Repeat { byte }
}

impl Repeat {
    /// Fills `buf`, which may be uninitialised, with the byte; returns its
    /// length. What [`AsyncRead::poll_read`] does, for a caller whose
    /// buffer is not initialised yet (nothing is zeroed first). Spends a
    /// unit of the task's cooperative budget: `Pending` once it is spent.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::future::poll_fn;
    /// use std::mem::MaybeUninit;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let mut repeat = rt::io::repeat(b'x');
    ///     let mut buf = [MaybeUninit::<u8>::uninit(); 3];
    ///     let n = poll_fn(|cx| repeat.poll_read_uninit(cx, &mut buf)).await.unwrap();
    ///     assert_eq!(n, 3);
    /// });
    /// ```
    pub fn poll_read_uninit(
        &mut self,
        cx: &mut Context<'_>,
        buf: &mut [MaybeUninit<u8>],
    ) -> Poll<io::Result<usize>> {
        ready!(poll_budget(cx));
        for slot in buf.iter_mut() {
            slot.write(self.byte);
        }
        Poll::Ready(Ok(buf.len()))
    }
}

impl AsyncRead for Repeat {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.get_mut()
            .poll_read_uninit(cx, crate::io::sys::as_uninit(buf))
    }

    fn poll_read_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &mut [IoSliceMut<'_>],
    ) -> Poll<io::Result<usize>> {
        ready!(poll_budget(cx));
        let mut filled = 0;
        for buf in bufs {
            buf.fill(self.byte);
            filled += buf.len();
        }
        Poll::Ready(Ok(filled))
    }
}

impl fmt::Debug for Repeat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Repeat").field("byte", &self.byte).finish()
    }
}

/// A writer that takes and drops everything, from [`sink`].
///
/// # Examples
///
/// ```
/// use rt::io::AsyncWriteExt;
///
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     assert_eq!(rt::io::sink().write(b"gone").await.unwrap(), 4);
/// });
/// ```
pub struct Sink {
    _private: (),
}

/// A writer that accepts every write and drops the bytes.
///
/// # Examples
///
/// See [`Sink`].
pub fn sink() -> Sink {
    Sink { _private: () }
}

impl AsyncWrite for Sink {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        ready!(poll_budget(cx));
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        ready!(poll_budget(cx));
        Poll::Ready(Ok(bufs.iter().map(|buf| buf.len()).sum()))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(poll_budget(cx));
        Poll::Ready(Ok(()))
    }

    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(poll_budget(cx));
        Poll::Ready(Ok(()))
    }
}

impl fmt::Debug for Sink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad("Sink { .. }")
    }
}
