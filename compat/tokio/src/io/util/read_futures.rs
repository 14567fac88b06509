//! The futures of `AsyncReadExt`'s methods. Each polls the reader's
//! `poll_read` with a `ReadBuf` over the caller's memory, so a reader that
//! can write into uninitialised memory (rt's sockets) does.

use crate::io::{AsyncRead, ReadBuf};
use std::future::Future;
use std::io;
use std::marker::PhantomPinned;
use std::mem::MaybeUninit;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

/// Polls `reader` once into `buf` and returns how many bytes it appended.
pub(crate) fn poll_read_into<R: AsyncRead + Unpin + ?Sized>(
    reader: &mut R,
    cx: &mut Context<'_>,
    buf: &mut ReadBuf<'_>,
) -> Poll<io::Result<usize>> {
    let before = buf.filled().len();
    ready!(Pin::new(reader).poll_read(cx, buf))?;
    Poll::Ready(Ok(buf.filled().len() - before))
}

/// The future of [`read`](crate::io::AsyncReadExt::read).
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct Read<'a, R: ?Sized> {
    reader: &'a mut R,
    buf: &'a mut [u8],
    // Not `Unpin`, as tokio's: code written for tokio pins it.
    _pin: PhantomPinned,
}

impl<'a, R: ?Sized> Read<'a, R> {
    pub(crate) fn new(reader: &'a mut R, buf: &'a mut [u8]) -> Read<'a, R> {
        Read {
            reader,
            buf,
            _pin: PhantomPinned,
        }
    }
}

impl<R: AsyncRead + Unpin + ?Sized> Future for Read<'_, R> {
    type Output = io::Result<usize>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        // SAFETY: nothing is moved out of the pinned future; its fields are
        // plain references, never pinned themselves.
        let me = unsafe { self.get_unchecked_mut() };
        let mut buf = ReadBuf::new(me.buf);
        poll_read_into(me.reader, cx, &mut buf)
    }
}

/// The future of [`read_exact`](crate::io::AsyncReadExt::read_exact).
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct ReadExact<'a, R: ?Sized> {
    reader: &'a mut R,
    buf: &'a mut [u8],
    filled: usize,
    _pin: PhantomPinned,
}

impl<'a, R: ?Sized> ReadExact<'a, R> {
    pub(crate) fn new(reader: &'a mut R, buf: &'a mut [u8]) -> ReadExact<'a, R> {
        ReadExact {
            reader,
            buf,
            filled: 0,
            _pin: PhantomPinned,
        }
    }
}

pub(crate) fn early_eof() -> io::Error {
    io::Error::new(io::ErrorKind::UnexpectedEof, "early eof")
}

impl<R: AsyncRead + Unpin + ?Sized> Future for ReadExact<'_, R> {
    type Output = io::Result<usize>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        // SAFETY: nothing is moved out of the pinned future; its fields are
        // plain references and a count, never pinned themselves.
        let me = unsafe { self.get_unchecked_mut() };
        while me.filled < me.buf.len() {
            let mut buf = ReadBuf::new(&mut me.buf[me.filled..]);
            let n = ready_retry!(poll_read_into(me.reader, cx, &mut buf));
            if n == 0 {
                return Poll::Ready(Err(early_eof()));
            }
            me.filled += n;
        }
        Poll::Ready(Ok(me.buf.len()))
    }
}

/// The future of `read_u8` ... `read_f64_le`: reads `N` bytes, then
/// converts them.
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct ReadNum<R, T, const N: usize> {
    reader: R,
    bytes: [u8; N],
    filled: usize,
    convert: fn([u8; N]) -> T,
    _pin: PhantomPinned,
}

impl<R, T, const N: usize> ReadNum<R, T, N> {
    pub(crate) fn new(reader: R, convert: fn([u8; N]) -> T) -> ReadNum<R, T, N> {
        ReadNum {
            reader,
            bytes: [0; N],
            filled: 0,
            convert,
            _pin: PhantomPinned,
        }
    }
}

impl<R: AsyncRead + Unpin, T, const N: usize> Future for ReadNum<R, T, N> {
    type Output = io::Result<T>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<T>> {
        // SAFETY: nothing is moved out of the pinned future; the reader is
        // `Unpin` and the other fields are plain data.
        let me = unsafe { self.get_unchecked_mut() };
        while me.filled < N {
            let mut buf = ReadBuf::new(&mut me.bytes[me.filled..]);
            let n = ready_retry!(poll_read_into(&mut me.reader, cx, &mut buf));
            if n == 0 {
                return Poll::Ready(Err(early_eof()));
            }
            me.filled += n;
        }
        Poll::Ready(Ok((me.convert)(me.bytes)))
    }
}

/// Appends to `vec` from `reader` until end-of-file, reading into the
/// vector's spare capacity (uninitialised: nothing is zeroed). `read` counts
/// the bytes appended so far; `initialized` how many bytes past `vec.len()`
/// an earlier poll's reader initialised (so a reader that zeroes what it
/// reads into does not zero them twice); `start_capacity` is the vector's
/// capacity when the operation began.
pub(crate) fn poll_read_to_end<R: AsyncRead + Unpin + ?Sized>(
    reader: &mut R,
    cx: &mut Context<'_>,
    vec: &mut Vec<u8>,
    read: &mut usize,
    initialized: &mut usize,
    start_capacity: usize,
) -> Poll<io::Result<usize>> {
    loop {
        if vec.capacity() - vec.len() < 32 {
            if vec.capacity() == start_capacity {
                // Little room left in the caller's own allocation: probe
                // with a small read on the stack before growing it, so a
                // vector that already has room for everything is never
                // reallocated just to find end-of-file (tokio's contract).
                let mut probe = [MaybeUninit::<u8>::uninit(); 32];
                let mut probe_buf = ReadBuf::uninit(&mut probe);
                match Pin::new(&mut *reader).poll_read(cx, &mut probe_buf) {
                    Poll::Ready(Ok(())) => {}
                    Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                    Poll::Pending => return Poll::Pending,
                }
                let got = probe_buf.filled();
                if got.is_empty() {
                    return Poll::Ready(Ok(std::mem::take(read)));
                }
                vec.extend_from_slice(got);
                *read += got.len();
                // Conservative: the bytes the earlier reader initialised
                // were overwritten or moved with a reallocation.
                *initialized = 0;
                continue;
            }
            let before = vec.capacity();
            vec.reserve(32.max(vec.len()));
            if vec.capacity() != before {
                // A new allocation: what was initialised there is gone.
                *initialized = 0;
            }
        }
        let spare: &mut [MaybeUninit<u8>] = vec.spare_capacity_mut();
        let mut buf = ReadBuf::uninit(spare);
        // SAFETY: the first `initialized` spare bytes were initialised by
        // an earlier read into this same allocation (reset above when it
        // moved).
        unsafe { buf.assume_init(*initialized) };
        let polled = Pin::new(&mut *reader).poll_read(cx, &mut buf);
        let n = buf.filled().len();
        let now_initialized = buf.initialized().len();
        // SAFETY: the reader filled (so initialised) the first `n` spare
        // bytes; a `ReadBuf` never counts more as filled than it holds.
        unsafe { vec.set_len(vec.len() + n) };
        *initialized = now_initialized - n;
        *read += n;
        match polled {
            Poll::Ready(Ok(())) if n == 0 => return Poll::Ready(Ok(std::mem::take(read))),
            Poll::Ready(Ok(())) => {}
            Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::Interrupted => {}
            Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
            Poll::Pending => return Poll::Pending,
        }
    }
}

/// The future of [`read_to_end`](crate::io::AsyncReadExt::read_to_end).
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct ReadToEnd<'a, R: ?Sized> {
    reader: &'a mut R,
    buf: &'a mut Vec<u8>,
    read: usize,
    initialized: usize,
    start_capacity: usize,
    _pin: PhantomPinned,
}

impl<'a, R: ?Sized> ReadToEnd<'a, R> {
    pub(crate) fn new(reader: &'a mut R, buf: &'a mut Vec<u8>) -> ReadToEnd<'a, R> {
        ReadToEnd {
            reader,
            start_capacity: buf.capacity(),
            buf,
            read: 0,
            initialized: 0,
            _pin: PhantomPinned,
        }
    }
}

impl<R: AsyncRead + Unpin + ?Sized> Future for ReadToEnd<'_, R> {
    type Output = io::Result<usize>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        // SAFETY: nothing is moved out of the pinned future; its fields are
        // references and counts, never pinned themselves.
        let me = unsafe { self.get_unchecked_mut() };
        poll_read_to_end(
            me.reader,
            cx,
            me.buf,
            &mut me.read,
            &mut me.initialized,
            me.start_capacity,
        )
    }
}

/// The future of [`read_to_string`](crate::io::AsyncReadExt::read_to_string):
/// reads into a byte buffer of its own, then appends it to the string if
/// it is UTF-8.
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct ReadToString<'a, R: ?Sized> {
    reader: &'a mut R,
    dst: &'a mut String,
    bytes: Vec<u8>,
    read: usize,
    initialized: usize,
    _pin: PhantomPinned,
}

impl<'a, R: ?Sized> ReadToString<'a, R> {
    pub(crate) fn new(reader: &'a mut R, dst: &'a mut String) -> ReadToString<'a, R> {
        ReadToString {
            reader,
            dst,
            bytes: Vec::new(),
            read: 0,
            initialized: 0,
            _pin: PhantomPinned,
        }
    }
}

/// Appends `bytes` to `dst` if they are UTF-8; otherwise leaves `dst`
/// unchanged and returns an `InvalidData` error whose inner error is the
/// [`std::str::Utf8Error`] of `dst` followed by `bytes` (so its
/// `valid_up_to` counts `dst`'s bytes too, as tokio's does).
pub(crate) fn append_utf8(dst: &mut String, bytes: Vec<u8>) -> io::Result<()> {
    match String::from_utf8(bytes) {
        Ok(text) => {
            dst.push_str(&text);
            Ok(())
        }
        Err(e) => {
            let mut all = Vec::with_capacity(dst.len() + e.as_bytes().len());
            all.extend_from_slice(dst.as_bytes());
            all.extend_from_slice(e.as_bytes());
            let utf8 = match std::str::from_utf8(&all) {
                Err(utf8) => utf8,
                Ok(_) => unreachable!("invalid UTF-8 after a valid prefix stays invalid"),
            };
            Err(io::Error::new(io::ErrorKind::InvalidData, utf8))
        }
    }
}

impl<R: AsyncRead + Unpin + ?Sized> Future for ReadToString<'_, R> {
    type Output = io::Result<usize>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        // SAFETY: nothing is moved out of the pinned future; its fields are
        // references, a vector and counts, never pinned themselves.
        let me = unsafe { self.get_unchecked_mut() };
        let n = ready!(poll_read_to_end(
            me.reader,
            cx,
            &mut me.bytes,
            &mut me.read,
            &mut me.initialized,
            0
        ))?;
        append_utf8(me.dst, std::mem::take(&mut me.bytes))?;
        Poll::Ready(Ok(n))
    }
}

/// The future of [`read_buf`](crate::io::AsyncReadExt::read_buf): one read
/// into the buffer's spare capacity, which may be uninitialised.
#[cfg(feature = "bytes")]
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct ReadBufFuture<'a, R: ?Sized, B: ?Sized> {
    reader: &'a mut R,
    buf: &'a mut B,
    _pin: PhantomPinned,
}

#[cfg(feature = "bytes")]
impl<'a, R: ?Sized, B: ?Sized> ReadBufFuture<'a, R, B> {
    pub(crate) fn new(reader: &'a mut R, buf: &'a mut B) -> ReadBufFuture<'a, R, B> {
        ReadBufFuture {
            reader,
            buf,
            _pin: PhantomPinned,
        }
    }
}

#[cfg(feature = "bytes")]
impl<R, B> Future for ReadBufFuture<'_, R, B>
where
    R: AsyncRead + Unpin + ?Sized,
    B: bytes::BufMut + ?Sized,
{
    type Output = io::Result<usize>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        // SAFETY: nothing is moved out of the pinned future; its fields are
        // plain references.
        let me = unsafe { self.get_unchecked_mut() };
        poll_read_buf(me.reader, cx, me.buf)
    }
}

/// One read into `buf`'s spare capacity (its `chunk_mut`), advancing it
/// past what was read.
///
/// # Panics
///
/// If the reader replaced the `ReadBuf`'s memory (a broken reader): the
/// bytes it reports are then not in `buf`.
#[cfg(feature = "bytes")]
pub(crate) fn poll_read_buf<R, B>(
    reader: &mut R,
    cx: &mut Context<'_>,
    buf: &mut B,
) -> Poll<io::Result<usize>>
where
    R: AsyncRead + Unpin + ?Sized,
    B: bytes::BufMut + ?Sized,
{
    if !buf.has_remaining_mut() {
        return Poll::Ready(Ok(0));
    }
    let n = {
        let chunk = buf.chunk_mut();
        // SAFETY: `UninitSlice` is memory that may be uninitialised, which
        // the `ReadBuf` never de-initialises.
        let spare = unsafe { chunk.as_uninit_slice_mut() };
        let start = spare.as_ptr();
        let mut read_buf = ReadBuf::uninit(spare);
        ready!(Pin::new(reader).poll_read(cx, &mut read_buf))?;
        assert_eq!(
            start,
            read_buf.filled().as_ptr().cast(),
            "the reader replaced the ReadBuf it was given"
        );
        read_buf.filled().len()
    };
    // SAFETY: the reader initialised (filled) the first `n` bytes of the
    // chunk, checked above to be `buf`'s own memory.
    unsafe { buf.advance_mut(n) };
    Poll::Ready(Ok(n))
}
