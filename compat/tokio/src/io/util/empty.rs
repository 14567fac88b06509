//! `empty`, `repeat` and `sink`: readers and writers with nothing behind
//! them: rt's, with tokio's traits. Each ready poll spends a unit of the
//! task's cooperative budget, so a loop over one still yields to other
//! tasks. `Repeat` reads straight into the `ReadBuf`'s uninitialised room
//! (rt's `poll_read_uninit`), nothing zeroed first.

use crate::io::forward::{forward_async_read, forward_async_write};
use crate::io::{AsyncBufRead, AsyncRead, AsyncSeek, ReadBuf, SeekFrom};
use std::fmt;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

/// A reader at end-of-file and a writer that takes and drops everything,
/// from [`empty`]. rt's `Empty` with tokio's traits.
///
/// # Examples
///
/// ```
/// use tokio::io::{AsyncReadExt, AsyncWriteExt};
///
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let mut empty = tokio::io::empty();
/// let mut buf = Vec::new();
/// assert_eq!(empty.read_to_end(&mut buf).await.unwrap(), 0);
/// assert_eq!(empty.write(b"gone").await.unwrap(), 4);
/// # });
/// ```
pub struct Empty {
    inner: rt::io::Empty,
}

/// A reader that is always at end-of-file, and a writer that drops what it
/// is given.
///
/// # Examples
///
/// See [`Empty`].
pub fn empty() -> Empty {
    Empty {
        inner: rt::io::empty(),
    }
}

impl From<rt::io::Empty> for Empty {
    fn from(inner: rt::io::Empty) -> Empty {
        Empty { inner }
    }
}

impl From<Empty> for rt::io::Empty {
    fn from(empty: Empty) -> rt::io::Empty {
        empty.inner
    }
}

impl AsyncRead for Empty {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        _buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        // End-of-file reads nothing, so it needs none of `buf`'s room.
        ready!(rt::io::AsyncRead::poll_read(
            Pin::new(&mut self.get_mut().inner),
            cx,
            &mut []
        ))?;
        Poll::Ready(Ok(()))
    }
}

impl AsyncBufRead for Empty {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        rt::io::AsyncBufRead::poll_fill_buf(Pin::new(&mut self.get_mut().inner), cx)
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        rt::io::AsyncBufRead::consume(Pin::new(&mut self.get_mut().inner), amt)
    }
}

forward_async_write!(Empty, inner, vectored: true);

/// Seeking anywhere succeeds at position 0: rt's `Empty` is at 0 wherever
/// it is asked to go, so the position need not be kept.
impl AsyncSeek for Empty {
    fn start_seek(self: Pin<&mut Self>, _position: SeekFrom) -> io::Result<()> {
        Ok(())
    }

    fn poll_complete(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        rt::io::AsyncSeek::poll_seek(
            Pin::new(&mut self.get_mut().inner),
            cx,
            SeekFrom::Current(0),
        )
    }
}

impl fmt::Debug for Empty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.inner, f)
    }
}

/// A reader that yields one byte over and over, from [`repeat`]. rt's
/// `Repeat` with tokio's `AsyncRead`.
///
/// # Examples
///
/// ```
/// use tokio::io::AsyncReadExt;
///
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let mut buf = [0; 3];
/// tokio::io::repeat(b'z').read_exact(&mut buf).await.unwrap();
/// assert_eq!(&buf, b"zzz");
/// # });
/// ```
pub struct Repeat {
    inner: rt::io::Repeat,
}

/// A reader that fills every buffer with `byte`, forever.
///
/// # Examples
///
/// See [`Repeat`].
pub fn repeat(byte: u8) -> Repeat {
    Repeat {
        inner: rt::io::repeat(byte),
    }
}

impl From<rt::io::Repeat> for Repeat {
    fn from(inner: rt::io::Repeat) -> Repeat {
        Repeat { inner }
    }
}

impl From<Repeat> for rt::io::Repeat {
    fn from(repeat: Repeat) -> rt::io::Repeat {
        repeat.inner
    }
}

forward_async_read!(Repeat, inner);

impl fmt::Debug for Repeat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.inner, f)
    }
}

/// A writer that takes and drops everything, from [`sink`]. rt's `Sink`
/// with tokio's `AsyncWrite`.
///
/// # Examples
///
/// ```
/// use tokio::io::AsyncWriteExt;
///
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let mut sink = tokio::io::sink();
/// assert_eq!(sink.write(b"gone").await.unwrap(), 4);
/// # });
/// ```
pub struct Sink {
    inner: rt::io::Sink,
}

/// A writer that takes everything it is given and drops it.
///
/// # Examples
///
/// See [`Sink`].
pub fn sink() -> Sink {
    Sink {
        inner: rt::io::sink(),
    }
}

impl From<rt::io::Sink> for Sink {
    fn from(inner: rt::io::Sink) -> Sink {
        Sink { inner }
    }
}

impl From<Sink> for rt::io::Sink {
    fn from(sink: Sink) -> rt::io::Sink {
        sink.inner
    }
}

forward_async_write!(Sink, inner, vectored: true);

impl fmt::Debug for Sink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.inner, f)
    }
}
