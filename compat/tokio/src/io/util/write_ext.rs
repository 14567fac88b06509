//! `AsyncWriteExt`: the `async fn`s over any [`AsyncWrite`], each a named
//! future type (so it is `Send` whenever the writer is, in generic code
//! too).

use super::write_futures::{Flush, Shutdown, Write, WriteAll, WriteNum, WriteVectored};
#[cfg(feature = "bytes")]
use super::write_futures::{WriteAllBuf, WriteBuf};
use crate::io::AsyncWrite;
use std::io::IoSlice;

/// Declares `write_*` methods for numbers: `name: type, to_bytes`.
macro_rules! write_num {
    ($($(#[$doc:meta])* $name:ident: $ty:ty, $to:ident;)*) => {$(
        $(#[$doc])*
        ///
        /// # Errors
        ///
        /// `WriteZero` if the writer takes no more bytes, or the writer's
        /// error.
        fn $name(&mut self, n: $ty) -> WriteNum<&mut Self, { size_of::<$ty>() }>
        where
            Self: Unpin,
        {
            WriteNum::new(self, n.$to())
        }
    )*};
}

/// Writing methods for every [`AsyncWrite`].
///
/// # Examples
///
/// ```
/// use tokio::io::AsyncWriteExt;
///
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let mut out = Vec::new();
/// out.write_u16(1).await.unwrap();
/// out.write_all(b"hi").await.unwrap();
/// assert_eq!(out, [0, 1, b'h', b'i']);
/// # });
/// ```
pub trait AsyncWriteExt: AsyncWrite {
    /// Writes some of `src` once, returning how many bytes were written.
    ///
    /// # Errors
    ///
    /// The writer's error.
    ///
    /// # Examples
    ///
    /// ```
    /// use tokio::io::AsyncWriteExt;
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut out = Vec::new();
    /// assert_eq!(out.write(b"abc").await.unwrap(), 3);
    /// # });
    /// ```
    fn write<'a>(&'a mut self, src: &'a [u8]) -> Write<'a, Self>
    where
        Self: Unpin,
    {
        Write::new(self, src)
    }

    /// Writes from several buffers once (one `writev` where the writer
    /// supports it), returning how many bytes were written.
    ///
    /// # Errors
    ///
    /// The writer's error.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::io::IoSlice;
    /// use tokio::io::AsyncWriteExt;
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut out = Vec::new();
    /// let n = out.write_vectored(&[IoSlice::new(b"ab"), IoSlice::new(b"cd")]).await.unwrap();
    /// assert_eq!(n, 4);
    /// assert_eq!(out, b"abcd");
    /// # });
    /// ```
    fn write_vectored<'a, 'b>(&'a mut self, bufs: &'a [IoSlice<'b>]) -> WriteVectored<'a, 'b, Self>
    where
        Self: Unpin,
    {
        WriteVectored::new(self, bufs)
    }

    /// Writes some of `src` once (feature `io-util`), advancing it past
    /// what was written; returns how many bytes. A writer that writes
    /// vectored gets several of `src`'s chunks in one call.
    ///
    /// # Errors
    ///
    /// The writer's error.
    ///
    /// # Examples
    ///
    /// ```
    /// use tokio::io::AsyncWriteExt;
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut out = Vec::new();
    /// let mut src = std::io::Cursor::new(b"abc".to_vec());
    /// assert_eq!(out.write_buf(&mut src).await.unwrap(), 3);
    /// assert_eq!(out, b"abc");
    /// # });
    /// ```
    #[cfg(feature = "bytes")]
    fn write_buf<'a, B>(&'a mut self, src: &'a mut B) -> WriteBuf<'a, Self, B>
    where
        Self: Sized + Unpin,
        B: bytes::Buf,
    {
        WriteBuf::new(self, src)
    }

    /// Writes all of `src` (feature `io-util`), advancing it as it goes.
    ///
    /// # Errors
    ///
    /// `WriteZero` if the writer takes no more bytes, or the writer's
    /// error.
    ///
    /// # Examples
    ///
    /// ```
    /// use bytes::Buf;
    /// use tokio::io::AsyncWriteExt;
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut out = Vec::new();
    /// let mut src = (&b"ab"[..]).chain(&b"cd"[..]);
    /// out.write_all_buf(&mut src).await.unwrap();
    /// assert_eq!(out, b"abcd");
    /// # });
    /// ```
    #[cfg(feature = "bytes")]
    fn write_all_buf<'a, B>(&'a mut self, src: &'a mut B) -> WriteAllBuf<'a, Self, B>
    where
        Self: Sized + Unpin,
        B: bytes::Buf,
    {
        WriteAllBuf::new(self, src)
    }

    /// Writes all of `src`.
    ///
    /// # Errors
    ///
    /// `WriteZero` if the writer takes no more bytes, or the writer's
    /// error.
    ///
    /// # Examples
    ///
    /// ```
    /// use tokio::io::AsyncWriteExt;
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut memory = [0u8; 2];
    /// let mut out = std::io::Cursor::new(&mut memory[..]);
    /// out.write_all(b"ab").await.unwrap();
    /// let err = out.write_all(b"c").await.unwrap_err();
    /// assert_eq!(err.kind(), std::io::ErrorKind::WriteZero);
    /// # });
    /// ```
    fn write_all<'a>(&'a mut self, src: &'a [u8]) -> WriteAll<'a, Self>
    where
        Self: Unpin,
    {
        WriteAll::new(self, src)
    }

    write_num! {
        /// Writes a `u8`.
        ///
        /// # Examples
        ///
        /// ```
        /// use tokio::io::AsyncWriteExt;
        ///
        /// # let rt = rt::runtime::Runtime::new().unwrap();
        /// # rt.block_on(async {
        /// let mut out = Vec::new();
        /// out.write_u8(7).await.unwrap();
        /// assert_eq!(out, [7]);
        /// # });
        /// ```
        write_u8: u8, to_be_bytes;
        /// Writes an `i8`.
        write_i8: i8, to_be_bytes;
        /// Writes a big-endian `u16`.
        write_u16: u16, to_be_bytes;
        /// Writes a big-endian `i16`.
        write_i16: i16, to_be_bytes;
        /// Writes a big-endian `u32`.
        write_u32: u32, to_be_bytes;
        /// Writes a big-endian `i32`.
        write_i32: i32, to_be_bytes;
        /// Writes a big-endian `u64`.
        write_u64: u64, to_be_bytes;
        /// Writes a big-endian `i64`.
        write_i64: i64, to_be_bytes;
        /// Writes a big-endian `u128`.
        write_u128: u128, to_be_bytes;
        /// Writes a big-endian `i128`.
        write_i128: i128, to_be_bytes;
        /// Writes a big-endian IEEE 754 `f32`.
        write_f32: f32, to_be_bytes;
        /// Writes a big-endian IEEE 754 `f64`.
        write_f64: f64, to_be_bytes;
        /// Writes a little-endian `u16`.
        ///
        /// # Examples
        ///
        /// ```
        /// use tokio::io::AsyncWriteExt;
        ///
        /// # let rt = rt::runtime::Runtime::new().unwrap();
        /// # rt.block_on(async {
        /// let mut out = Vec::new();
        /// out.write_u16_le(1).await.unwrap();
        /// assert_eq!(out, [1, 0]);
        /// # });
        /// ```
        write_u16_le: u16, to_le_bytes;
        /// Writes a little-endian `i16`.
        write_i16_le: i16, to_le_bytes;
        /// Writes a little-endian `u32`.
        write_u32_le: u32, to_le_bytes;
        /// Writes a little-endian `i32`.
        write_i32_le: i32, to_le_bytes;
        /// Writes a little-endian `u64`.
        write_u64_le: u64, to_le_bytes;
        /// Writes a little-endian `i64`.
        write_i64_le: i64, to_le_bytes;
        /// Writes a little-endian `u128`.
        write_u128_le: u128, to_le_bytes;
        /// Writes a little-endian `i128`.
        write_i128_le: i128, to_le_bytes;
        /// Writes a little-endian IEEE 754 `f32`.
        write_f32_le: f32, to_le_bytes;
        /// Writes a little-endian IEEE 754 `f64`.
        write_f64_le: f64, to_le_bytes;
    }

    /// Flushes what the writer buffers.
    ///
    /// # Errors
    ///
    /// The writer's error.
    ///
    /// # Examples
    ///
    /// ```
    /// use tokio::io::{AsyncWriteExt, BufWriter};
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut out = BufWriter::new(Vec::new());
    /// out.write_all(b"hi").await.unwrap();
    /// assert!(out.get_ref().is_empty());
    /// out.flush().await.unwrap();
    /// assert_eq!(out.get_ref(), b"hi");
    /// # });
    /// ```
    fn flush(&mut self) -> Flush<'_, Self>
    where
        Self: Unpin,
    {
        Flush::new(self)
    }

    /// Flushes, then shuts the writer down (a socket's write side: the
    /// peer reads end-of-file).
    ///
    /// # Errors
    ///
    /// The writer's error.
    ///
    /// # Examples
    ///
    /// ```
    /// use tokio::io::AsyncWriteExt;
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut out = Vec::new();
    /// out.write_all(b"bye").await.unwrap();
    /// out.shutdown().await.unwrap();
    /// # });
    /// ```
    fn shutdown(&mut self) -> Shutdown<'_, Self>
    where
        Self: Unpin,
    {
        Shutdown::new(self)
    }
}

impl<W: AsyncWrite + ?Sized> AsyncWriteExt for W {}
