//! The futures of `AsyncWriteExt`'s methods.

use crate::io::AsyncWrite;
use std::future::Future;
use std::io::{self, IoSlice};
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

/// Gets `&mut Self` out of a pinned future whose fields are never pinned
/// (references, counts, `Unpin` writers).
macro_rules! unpinned {
    ($self:ident) => {
        // SAFETY: nothing is moved out of the pinned future, and none of
        // its fields is structurally pinned: each is a reference, plain
        // data, or an `Unpin` writer.
        unsafe { $self.get_unchecked_mut() }
    };
}

pub(crate) fn write_zero() -> io::Error {
    io::Error::new(io::ErrorKind::WriteZero, "write zero byte into writer")
}

/// The future of [`write`](crate::io::AsyncWriteExt::write).
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct Write<'a, W: ?Sized> {
    writer: &'a mut W,
    buf: &'a [u8],
    _pin: PhantomPinned,
}

impl<'a, W: ?Sized> Write<'a, W> {
    pub(crate) fn new(writer: &'a mut W, buf: &'a [u8]) -> Write<'a, W> {
        Write {
            writer,
            buf,
            _pin: PhantomPinned,
        }
    }
}

impl<W: AsyncWrite + Unpin + ?Sized> Future for Write<'_, W> {
    type Output = io::Result<usize>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        let me = unpinned!(self);
        Pin::new(&mut *me.writer).poll_write(cx, me.buf)
    }
}

/// The future of [`write_vectored`](crate::io::AsyncWriteExt::write_vectored).
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct WriteVectored<'a, 'b, W: ?Sized> {
    writer: &'a mut W,
    bufs: &'a [IoSlice<'b>],
    _pin: PhantomPinned,
}

impl<'a, 'b, W: ?Sized> WriteVectored<'a, 'b, W> {
    pub(crate) fn new(writer: &'a mut W, bufs: &'a [IoSlice<'b>]) -> WriteVectored<'a, 'b, W> {
        WriteVectored {
            writer,
            bufs,
            _pin: PhantomPinned,
        }
    }
}

impl<W: AsyncWrite + Unpin + ?Sized> Future for WriteVectored<'_, '_, W> {
    type Output = io::Result<usize>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        let me = unpinned!(self);
        Pin::new(&mut *me.writer).poll_write_vectored(cx, me.bufs)
    }
}

/// The future of [`write_all`](crate::io::AsyncWriteExt::write_all).
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct WriteAll<'a, W: ?Sized> {
    writer: &'a mut W,
    buf: &'a [u8],
    _pin: PhantomPinned,
}

impl<'a, W: ?Sized> WriteAll<'a, W> {
    pub(crate) fn new(writer: &'a mut W, buf: &'a [u8]) -> WriteAll<'a, W> {
        WriteAll {
            writer,
            buf,
            _pin: PhantomPinned,
        }
    }
}

impl<W: AsyncWrite + Unpin + ?Sized> Future for WriteAll<'_, W> {
    type Output = io::Result<()>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let me = unpinned!(self);
        while !me.buf.is_empty() {
            let n = ready_retry!(Pin::new(&mut *me.writer).poll_write(cx, me.buf));
            if n == 0 {
                return Poll::Ready(Err(write_zero()));
            }
            me.buf = &me.buf[n..];
        }
        Poll::Ready(Ok(()))
    }
}

/// The future of `write_u8` ... `write_f64_le`: writes the number's `N`
/// bytes.
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct WriteNum<W, const N: usize> {
    writer: W,
    bytes: [u8; N],
    written: usize,
    _pin: PhantomPinned,
}

impl<W, const N: usize> WriteNum<W, N> {
    pub(crate) fn new(writer: W, bytes: [u8; N]) -> WriteNum<W, N> {
        WriteNum {
            writer,
            bytes,
            written: 0,
            _pin: PhantomPinned,
        }
    }
}

impl<W: AsyncWrite + Unpin, const N: usize> Future for WriteNum<W, N> {
    type Output = io::Result<()>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let me = unpinned!(self);
        while me.written < N {
            let n = ready_retry!(Pin::new(&mut me.writer).poll_write(cx, &me.bytes[me.written..]));
            if n == 0 {
                return Poll::Ready(Err(write_zero()));
            }
            me.written += n;
        }
        Poll::Ready(Ok(()))
    }
}

/// The future of [`flush`](crate::io::AsyncWriteExt::flush).
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct Flush<'a, W: ?Sized> {
    writer: &'a mut W,
    _pin: PhantomPinned,
}

impl<'a, W: ?Sized> Flush<'a, W> {
    pub(crate) fn new(writer: &'a mut W) -> Flush<'a, W> {
        Flush {
            writer,
            _pin: PhantomPinned,
        }
    }
}

impl<W: AsyncWrite + Unpin + ?Sized> Future for Flush<'_, W> {
    type Output = io::Result<()>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let me = unpinned!(self);
        Pin::new(&mut *me.writer).poll_flush(cx)
    }
}

/// The future of [`shutdown`](crate::io::AsyncWriteExt::shutdown).
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct Shutdown<'a, W: ?Sized> {
    writer: &'a mut W,
    _pin: PhantomPinned,
}

impl<'a, W: ?Sized> Shutdown<'a, W> {
    pub(crate) fn new(writer: &'a mut W) -> Shutdown<'a, W> {
        Shutdown {
            writer,
            _pin: PhantomPinned,
        }
    }
}

impl<W: AsyncWrite + Unpin + ?Sized> Future for Shutdown<'_, W> {
    type Output = io::Result<()>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let me = unpinned!(self);
        Pin::new(&mut *me.writer).poll_shutdown(cx)
    }
}

/// At most this many of a `Buf`'s chunks go out in one vectored write.
#[cfg(feature = "bytes")]
const MAX_VECTORED_CHUNKS: usize = 64;

/// One write of `buf`'s bytes (several chunks at once when the writer
/// writes vectored), advancing `buf` past what was written.
#[cfg(feature = "bytes")]
pub(crate) fn poll_write_buf<W, B>(
    writer: &mut W,
    cx: &mut Context<'_>,
    buf: &mut B,
) -> Poll<io::Result<usize>>
where
    W: AsyncWrite + Unpin + ?Sized,
    B: bytes::Buf + ?Sized,
{
    if !buf.has_remaining() {
        return Poll::Ready(Ok(0));
    }
    let n = if writer.is_write_vectored() {
        let mut slices = [IoSlice::new(&[]); MAX_VECTORED_CHUNKS];
        let count = buf.chunks_vectored(&mut slices);
        ready!(Pin::new(&mut *writer).poll_write_vectored(cx, &slices[..count]))?
    } else {
        ready!(Pin::new(&mut *writer).poll_write(cx, buf.chunk()))?
    };
    buf.advance(n);
    Poll::Ready(Ok(n))
}

/// The future of [`write_buf`](crate::io::AsyncWriteExt::write_buf).
#[cfg(feature = "bytes")]
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct WriteBuf<'a, W, B> {
    writer: &'a mut W,
    buf: &'a mut B,
    _pin: PhantomPinned,
}

#[cfg(feature = "bytes")]
impl<'a, W, B> WriteBuf<'a, W, B> {
    pub(crate) fn new(writer: &'a mut W, buf: &'a mut B) -> WriteBuf<'a, W, B> {
        WriteBuf {
            writer,
            buf,
            _pin: PhantomPinned,
        }
    }
}

#[cfg(feature = "bytes")]
impl<W: AsyncWrite + Unpin, B: bytes::Buf> Future for WriteBuf<'_, W, B> {
    type Output = io::Result<usize>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        let me = unpinned!(self);
        poll_write_buf(me.writer, cx, me.buf)
    }
}

/// The future of [`write_all_buf`](crate::io::AsyncWriteExt::write_all_buf).
#[cfg(feature = "bytes")]
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct WriteAllBuf<'a, W, B> {
    writer: &'a mut W,
    buf: &'a mut B,
    _pin: PhantomPinned,
}

#[cfg(feature = "bytes")]
impl<'a, W, B> WriteAllBuf<'a, W, B> {
    pub(crate) fn new(writer: &'a mut W, buf: &'a mut B) -> WriteAllBuf<'a, W, B> {
        WriteAllBuf {
            writer,
            buf,
            _pin: PhantomPinned,
        }
    }
}

#[cfg(feature = "bytes")]
impl<W: AsyncWrite + Unpin, B: bytes::Buf> Future for WriteAllBuf<'_, W, B> {
    type Output = io::Result<()>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let me = unpinned!(self);
        while me.buf.has_remaining() {
            if ready_retry!(poll_write_buf(me.writer, cx, me.buf)) == 0 {
                return Poll::Ready(Err(write_zero()));
            }
        }
        Poll::Ready(Ok(()))
    }
}
