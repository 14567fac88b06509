//! `AsyncWriteExt`: tokio's writing methods on every futures-io writer.

use futures_io::AsyncWrite;
use futures_util::io::{Close, Flush, Write, WriteAll, WriteAllVectored, WriteVectored};
use std::future::Future;
use std::io::{self, IoSlice};
#[cfg(feature = "bytes")]
use std::task::Poll;

/// One write of `src`'s chunks (at most [`MAX_WRITE_SLICES`] of them, a
/// `writev` for a socket), then `src` advanced past what was written.
#[cfg(feature = "bytes")]
fn poll_write_buf<W, B>(
    writer: &mut W,
    cx: &mut std::task::Context<'_>,
    src: &mut B,
) -> Poll<io::Result<usize>>
where
    W: AsyncWrite + Unpin + ?Sized,
    B: bytes::Buf + ?Sized,
{
    let mut slices = [IoSlice::new(&[]); MAX_WRITE_SLICES];
    let count = src.chunks_vectored(&mut slices);
    let slices = &slices[..count];
    let offered: usize = slices.iter().map(|slice| slice.len()).sum();
    let written = std::task::ready!(std::pin::Pin::new(writer).poll_write_vectored(cx, slices))?;
    assert!(
        written <= offered,
        "rt: a writer's poll_write_vectored reported {written} bytes written of {offered}"
    );
    src.advance(written);
    Poll::Ready(Ok(written))
}

/// How many of a `Buf`'s chunks one `write_buf` offers the writer: a
/// `Buf::chain` of a header and a body needs two; a deep chain is written
/// 64 chunks at a time.
#[cfg(feature = "bytes")]
const MAX_WRITE_SLICES: usize = 64;

/// One method per number type and byte order: `write_<ty>[_le]` writes
/// `to_<order>_bytes` of the value.
macro_rules! write_number {
    ($($name:ident($ty:ty), $to:ident, $what:literal, $value:literal, $bytes:literal;)*) => {$(
        #[doc = concat!("Writes ", $what, ".")]
        ///
        /// Not cancel safe: dropped halfway, part of the value may have
        /// been written.
        ///
        /// # Errors
        ///
        /// `WriteZero` if the writer accepts no more bytes, or the
        /// writer's error.
        ///
        /// # Examples
        ///
        /// ```
        /// use rt::io::AsyncWriteExt;
        ///
        /// # let rt = rt::runtime::Runtime::new().unwrap();
        /// # rt.block_on(async {
        /// let mut out = Vec::new();
        #[doc = concat!("out.", stringify!($name), "(", $value, ").await.unwrap();")]
        #[doc = concat!("assert_eq!(out, ", $bytes, ");")]
        /// # });
        /// ```
        fn $name(&mut self, n: $ty) -> impl Future<Output = io::Result<()>> + '_
        where
            Self: Unpin,
        {
            async move { futures_util::AsyncWriteExt::write_all(self, &n.$to()).await }
        }
    )*};
}

/// tokio's writing methods for every [`AsyncWrite`] (futures-io's trait):
/// `write`, `write_all`, `write_vectored`, `write_all_vectored`, `flush`,
/// `shutdown` (and its futures-io name, `close`), and `write_u8` to
/// `write_f64` in big- and little-endian (`_le`) byte order; with the
/// `bytes` feature, `write_buf` and `write_all_buf` from a `bytes::Buf`.
///
/// The methods have tokio's names and signatures, so code written for
/// `tokio::io::AsyncWriteExt` compiles with `rt::io::AsyncWriteExt`.
/// `shutdown` and `close` are the same call: for a socket, they shut the
/// write side down (the peer reads end-of-file; this side can still read).
///
/// Import this trait *or* `futures_util::AsyncWriteExt`, not both: the
/// methods they share are then ambiguous.
///
/// # Examples
///
/// ```
/// use rt::io::{AsyncReadExt, AsyncWriteExt};
///
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let (mut a, mut b) = rt::net::UnixStream::pair().unwrap();
/// a.write_u16_le(0x0102).await.unwrap();
/// a.write_all(b"!").await.unwrap();
/// a.flush().await.unwrap();
/// a.shutdown().await.unwrap();
/// let mut got = Vec::new();
/// b.read_to_end(&mut got).await.unwrap();
/// assert_eq!(got, [2, 1, b'!']);
/// # });
/// ```
pub trait AsyncWriteExt: AsyncWrite {
    /// Writes some of `buf`, returning how many bytes were written.
    /// Cancel safe: dropped before it finishes, it wrote nothing.
    ///
    /// # Errors
    ///
    /// The writer's error.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::AsyncWriteExt;
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut out = Vec::new();
    /// assert_eq!(out.write(b"abc").await.unwrap(), 3);
    /// assert_eq!(out, b"abc");
    /// # });
    /// ```
    fn write<'a>(&'a mut self, buf: &'a [u8]) -> Write<'a, Self>
    where
        Self: Unpin,
    {
        futures_util::AsyncWriteExt::write(self, buf)
    }

    /// Writes some of `bufs`, in order (one `writev` for a socket).
    ///
    /// # Errors
    ///
    /// The writer's error.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::AsyncWriteExt;
    /// use std::io::IoSlice;
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let (mut a, _b) = rt::net::UnixStream::pair().unwrap();
    /// let bufs = [IoSlice::new(b"head"), IoSlice::new(b"tail")];
    /// assert_eq!(a.write_vectored(&bufs).await.unwrap(), 8);
    /// # });
    /// ```
    fn write_vectored<'a>(&'a mut self, bufs: &'a [IoSlice<'a>]) -> WriteVectored<'a, Self>
    where
        Self: Unpin,
    {
        futures_util::AsyncWriteExt::write_vectored(self, bufs)
    }

    /// Writes all of `buf`. Not cancel safe: dropped halfway, part of
    /// `buf` may have been written.
    ///
    /// # Errors
    ///
    /// `WriteZero` if the writer accepts no more bytes, or the writer's
    /// error.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::AsyncWriteExt;
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut buf = [0u8; 4];
    /// let mut out = rt::io::Cursor::new(&mut buf[..]);
    /// out.write_all(b"ab").await.unwrap();
    /// let err = out.write_all(b"cde").await.unwrap_err();
    /// assert_eq!(err.kind(), std::io::ErrorKind::WriteZero);
    /// # });
    /// ```
    fn write_all<'a>(&'a mut self, buf: &'a [u8]) -> WriteAll<'a, Self>
    where
        Self: Unpin,
    {
        futures_util::AsyncWriteExt::write_all(self, buf)
    }

    /// Writes all of `bufs`, in order, advancing the slices past what is
    /// written (so `bufs` is left empty or pointing at unwritten bytes).
    ///
    /// # Errors
    ///
    /// `WriteZero` if the writer accepts no more bytes, or the writer's
    /// error.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::{AsyncReadExt, AsyncWriteExt};
    /// use std::io::IoSlice;
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let (mut a, mut b) = rt::net::UnixStream::pair().unwrap();
    /// let mut bufs = [IoSlice::new(b"head "), IoSlice::new(b"and tail")];
    /// a.write_all_vectored(&mut bufs).await.unwrap();
    /// a.shutdown().await.unwrap();
    /// let mut got = String::new();
    /// b.read_to_string(&mut got).await.unwrap();
    /// assert_eq!(got, "head and tail");
    /// # });
    /// ```
    fn write_all_vectored<'a>(
        &'a mut self,
        bufs: &'a mut [IoSlice<'a>],
    ) -> WriteAllVectored<'a, Self>
    where
        Self: Unpin,
    {
        futures_util::AsyncWriteExt::write_all_vectored(self, bufs)
    }

    /// Writes some of `src` (feature `bytes`), advancing it past what was
    /// written; returns how many bytes (`0` if `src` is empty, or the
    /// writer accepts no more). One write: a `writev` for a socket, over
    /// up to 64 of `src`'s chunks (a `Buf::chain` is one call). Cancel
    /// safe: dropped before it finishes, it wrote nothing.
    ///
    /// # Errors
    ///
    /// The writer's error (`src` is then left as it was).
    ///
    /// # Panics
    ///
    /// If the writer reports more bytes written than it was given.
    ///
    /// # Examples
    ///
    /// ```
    /// use bytes::Buf;
    /// use rt::io::AsyncWriteExt;
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut out = Vec::new();
    /// let mut src = (&b"head, "[..]).chain(&b"tail"[..]);
    /// while src.has_remaining() {
    ///     out.write_buf(&mut src).await.unwrap();
    /// }
    /// assert_eq!(out, b"head, tail");
    /// # });
    /// ```
    #[cfg(feature = "bytes")]
    fn write_buf<'a, B>(
        &'a mut self,
        src: &'a mut B,
    ) -> impl Future<Output = io::Result<usize>> + 'a
    where
        Self: Unpin,
        B: bytes::Buf + ?Sized,
    {
        std::future::poll_fn(move |cx| {
            if !src.has_remaining() {
                return Poll::Ready(Ok(0));
            }
            poll_write_buf(&mut *self, cx, src)
        })
    }

    /// Writes all of `src` (feature `bytes`), advancing it as the writes
    /// go: one `writev` per write for a socket, over up to 64 of `src`'s
    /// chunks. `Interrupted` errors are retried. Not cancel safe in that
    /// part of `src` may have been written when it is dropped, but `src`
    /// has then been advanced past exactly that part.
    ///
    /// # Errors
    ///
    /// `WriteZero` if the writer accepts no more bytes, or the writer's
    /// error; `src` then starts at the first byte not written.
    ///
    /// # Panics
    ///
    /// If the writer reports more bytes written than it was given.
    ///
    /// # Examples
    ///
    /// ```
    /// use bytes::{Buf, Bytes};
    /// use rt::io::{AsyncReadExt, AsyncWriteExt};
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let (mut a, mut b) = rt::net::UnixStream::pair().unwrap();
    /// let mut frame = Bytes::from_static(b"\x00\x05").chain(Bytes::from_static(b"hello"));
    /// a.write_all_buf(&mut frame).await.unwrap();
    /// assert!(!frame.has_remaining());
    /// a.shutdown().await.unwrap();
    /// let mut got = Vec::new();
    /// b.read_to_end(&mut got).await.unwrap();
    /// assert_eq!(got, b"\x00\x05hello");
    /// # });
    /// ```
    #[cfg(feature = "bytes")]
    fn write_all_buf<'a, B>(
        &'a mut self,
        src: &'a mut B,
    ) -> impl Future<Output = io::Result<()>> + 'a
    where
        Self: Unpin,
        B: bytes::Buf + ?Sized,
    {
        std::future::poll_fn(move |cx| {
            while src.has_remaining() {
                match std::task::ready!(poll_write_buf(&mut *self, cx, src)) {
                    Ok(0) => {
                        return Poll::Ready(Err(io::Error::new(
                            io::ErrorKind::WriteZero,
                            "write_all_buf: the writer accepted no more bytes",
                        )));
                    }
                    Ok(_) => {}
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Poll::Ready(Err(e)),
                }
            }
            Poll::Ready(Ok(()))
        })
    }

    /// Flushes whatever the writer buffers (a `BufWriter`'s buffer); a
    /// socket buffers nothing, so for one this is ready at once.
    ///
    /// # Errors
    ///
    /// The writer's error.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::{AsyncWriteExt, BufWriter};
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut out = BufWriter::new(Vec::new());
    /// out.write_all(b"buffered").await.unwrap();
    /// assert!(out.get_ref().is_empty());
    /// out.flush().await.unwrap();
    /// assert_eq!(out.get_ref(), b"buffered");
    /// # });
    /// ```
    fn flush(&mut self) -> Flush<'_, Self>
    where
        Self: Unpin,
    {
        futures_util::AsyncWriteExt::flush(self)
    }

    /// Flushes, then shuts the writer down: tokio's name for futures-io's
    /// [`close`](AsyncWriteExt::close), and the same call. For a socket
    /// it shuts down the write side, so the peer reads end-of-file while
    /// this side can still read.
    ///
    /// # Errors
    ///
    /// The writer's error.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::{AsyncReadExt, AsyncWriteExt};
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let (mut a, mut b) = rt::net::UnixStream::pair().unwrap();
    /// a.shutdown().await.unwrap();
    /// assert_eq!(b.read(&mut [0; 8]).await.unwrap(), 0);
    /// // The other direction still works.
    /// b.write_all(b"reply").await.unwrap();
    /// let mut got = [0; 5];
    /// a.read_exact(&mut got).await.unwrap();
    /// assert_eq!(&got, b"reply");
    /// # });
    /// ```
    fn shutdown(&mut self) -> Close<'_, Self>
    where
        Self: Unpin,
    {
        futures_util::AsyncWriteExt::close(self)
    }

    /// Flushes, then shuts the writer down: futures-io's name for
    /// [`shutdown`](AsyncWriteExt::shutdown), and the same call.
    ///
    /// # Errors
    ///
    /// The writer's error.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::{AsyncReadExt, AsyncWriteExt};
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let (mut a, mut b) = rt::net::UnixStream::pair().unwrap();
    /// a.write_all(b"last words").await.unwrap();
    /// a.close().await.unwrap();
    /// let mut got = Vec::new();
    /// b.read_to_end(&mut got).await.unwrap();
    /// assert_eq!(got, b"last words");
    /// # });
    /// ```
    fn close(&mut self) -> Close<'_, Self>
    where
        Self: Unpin,
    {
        futures_util::AsyncWriteExt::close(self)
    }

    write_number! {
        write_u8(u8), to_be_bytes, "a `u8` (one byte)", "0xfe", "[0xfe]";
        write_i8(i8), to_be_bytes, "an `i8` (one byte)", "-2", "[0xfe]";
        write_u16(u16), to_be_bytes, "a big-endian `u16`", "0x0102", "[1, 2]";
        write_i16(i16), to_be_bytes, "a big-endian `i16`", "-2", "[0xff, 0xfe]";
        write_u32(u32), to_be_bytes, "a big-endian `u32`", "0x01020304", "[1, 2, 3, 4]";
        write_i32(i32), to_be_bytes, "a big-endian `i32`", "-2", "[0xff, 0xff, 0xff, 0xfe]";
        write_u64(u64), to_be_bytes, "a big-endian `u64`", "1", "[0, 0, 0, 0, 0, 0, 0, 1]";
        write_i64(i64), to_be_bytes, "a big-endian `i64`", "-1", "[0xff; 8]";
        write_u128(u128), to_be_bytes, "a big-endian `u128`", "u128::MAX", "[0xff; 16]";
        write_i128(i128), to_be_bytes, "a big-endian `i128`", "0", "[0; 16]";
        write_f32(f32), to_be_bytes, "a big-endian `f32`", "1.0", "[0x3f, 0x80, 0, 0]";
        write_f64(f64), to_be_bytes, "a big-endian `f64`", "1.0", "[0x3f, 0xf0, 0, 0, 0, 0, 0, 0]";
        write_u16_le(u16), to_le_bytes, "a little-endian `u16`", "0x0102", "[2, 1]";
        write_i16_le(i16), to_le_bytes, "a little-endian `i16`", "-2", "[0xfe, 0xff]";
        write_u32_le(u32), to_le_bytes, "a little-endian `u32`", "0x01020304", "[4, 3, 2, 1]";
        write_i32_le(i32), to_le_bytes, "a little-endian `i32`", "-2", "[0xfe, 0xff, 0xff, 0xff]";
        write_u64_le(u64), to_le_bytes, "a little-endian `u64`", "1", "[1, 0, 0, 0, 0, 0, 0, 0]";
        write_i64_le(i64), to_le_bytes, "a little-endian `i64`", "-1", "[0xff; 8]";
        write_u128_le(u128), to_le_bytes, "a little-endian `u128`", "1", "[1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]";
        write_i128_le(i128), to_le_bytes, "a little-endian `i128`", "-1", "[0xff; 16]";
        write_f32_le(f32), to_le_bytes, "a little-endian `f32`", "1.0", "[0, 0, 0x80, 0x3f]";
        write_f64_le(f64), to_le_bytes, "a little-endian `f64`", "1.0", "[0, 0, 0, 0, 0, 0, 0xf0, 0x3f]";
    }
}

impl<W: AsyncWrite + ?Sized> AsyncWriteExt for W {}
