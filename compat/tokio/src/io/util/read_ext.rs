//! `AsyncReadExt`: the `async fn`s over any [`AsyncRead`], each a future
//! type of its own (a named type, so it is `Send` whenever the reader and
//! buffer are, in generic code too).

#[cfg(feature = "bytes")]
use super::read_futures::ReadBufFuture;
use super::read_futures::{Read, ReadExact, ReadNum, ReadToEnd, ReadToString};
use super::{Chain, Take};
use crate::io::AsyncRead;

/// Declares `read_*` methods for numbers: `name: type, from_bytes`.
macro_rules! read_num {
    ($($(#[$doc:meta])* $name:ident: $ty:ty, $from:ident;)*) => {$(
        $(#[$doc])*
        ///
        /// # Errors
        ///
        /// `UnexpectedEof` if the reader ends first, or the reader's error.
        fn $name(&mut self) -> ReadNum<&mut Self, $ty, { size_of::<$ty>() }>
        where
            Self: Unpin,
        {
            ReadNum::new(self, <$ty>::$from)
        }
    )*};
}

/// Reading methods for every [`AsyncRead`].
///
/// # Examples
///
/// ```
/// use tokio::io::AsyncReadExt;
///
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let mut reader: &[u8] = &[0, 1, b'h', b'i'];
/// assert_eq!(reader.read_u16().await.unwrap(), 1);
/// let mut rest = String::new();
/// reader.read_to_string(&mut rest).await.unwrap();
/// assert_eq!(rest, "hi");
/// # });
/// ```
pub trait AsyncReadExt: AsyncRead {
    /// Reads all of `self`, then all of `next`.
    ///
    /// # Examples
    ///
    /// ```
    /// use tokio::io::AsyncReadExt;
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut both = (&b"ab"[..]).chain(&b"cd"[..]);
    /// let mut all = Vec::new();
    /// both.read_to_end(&mut all).await.unwrap();
    /// assert_eq!(all, b"abcd");
    /// # });
    /// ```
    fn chain<R>(self, next: R) -> Chain<Self, R>
    where
        Self: Sized,
        R: AsyncRead,
    {
        Chain::new(self, next)
    }

    /// Reads once into `buf`, returning how many bytes were read (`0`:
    /// end-of-file, or an empty `buf`). Cancel-safe: nothing is read if
    /// the future is dropped before it completes.
    ///
    /// # Errors
    ///
    /// The reader's error.
    ///
    /// # Examples
    ///
    /// ```
    /// use tokio::io::AsyncReadExt;
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut reader: &[u8] = b"abc";
    /// let mut buf = [0; 2];
    /// assert_eq!(reader.read(&mut buf).await.unwrap(), 2);
    /// assert_eq!(&buf, b"ab");
    /// # });
    /// ```
    fn read<'a>(&'a mut self, buf: &'a mut [u8]) -> Read<'a, Self>
    where
        Self: Unpin,
    {
        Read::new(self, buf)
    }

    /// Reads once into the spare capacity of `buf` (feature `io-util`),
    /// which may be uninitialised (the reader writes into it directly), and
    /// advances `buf` past the bytes read; returns how many (`0`:
    /// end-of-file, or no room left in `buf`).
    ///
    /// # Errors
    ///
    /// The reader's error.
    ///
    /// # Examples
    ///
    /// ```
    /// use tokio::io::AsyncReadExt;
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut reader: &[u8] = b"abc";
    /// let mut buf = Vec::with_capacity(8);
    /// assert_eq!(reader.read_buf(&mut buf).await.unwrap(), 3);
    /// assert_eq!(buf, b"abc");
    /// # });
    /// ```
    #[cfg(feature = "bytes")]
    fn read_buf<'a, B>(&'a mut self, buf: &'a mut B) -> ReadBufFuture<'a, Self, B>
    where
        Self: Unpin,
        B: bytes::BufMut + ?Sized,
    {
        ReadBufFuture::new(self, buf)
    }

    /// Reads exactly `buf.len()` bytes, returning that length.
    ///
    /// # Errors
    ///
    /// `UnexpectedEof` if the reader ends first (what was read is then
    /// in `buf` but unspecified), or the reader's error.
    ///
    /// # Examples
    ///
    /// ```
    /// use tokio::io::AsyncReadExt;
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut reader: &[u8] = b"abc";
    /// let mut buf = [0; 2];
    /// reader.read_exact(&mut buf).await.unwrap();
    /// let err = reader.read_exact(&mut buf).await.unwrap_err();
    /// assert_eq!(err.kind(), std::io::ErrorKind::UnexpectedEof);
    /// # });
    /// ```
    fn read_exact<'a>(&'a mut self, buf: &'a mut [u8]) -> ReadExact<'a, Self>
    where
        Self: Unpin,
    {
        ReadExact::new(self, buf)
    }

    read_num! {
        /// Reads a `u8`.
        ///
        /// # Examples
        ///
        /// ```
        /// use tokio::io::AsyncReadExt;
        ///
        /// # let rt = rt::runtime::Runtime::new().unwrap();
        /// # rt.block_on(async {
        /// let mut reader: &[u8] = &[7];
        /// assert_eq!(reader.read_u8().await.unwrap(), 7);
        /// # });
        /// ```
        read_u8: u8, from_be_bytes;
        /// Reads an `i8`.
        read_i8: i8, from_be_bytes;
        /// Reads a big-endian `u16`.
        read_u16: u16, from_be_bytes;
        /// Reads a big-endian `i16`.
        read_i16: i16, from_be_bytes;
        /// Reads a big-endian `u32`.
        read_u32: u32, from_be_bytes;
        /// Reads a big-endian `i32`.
        read_i32: i32, from_be_bytes;
        /// Reads a big-endian `u64`.
        read_u64: u64, from_be_bytes;
        /// Reads a big-endian `i64`.
        read_i64: i64, from_be_bytes;
        /// Reads a big-endian `u128`.
        read_u128: u128, from_be_bytes;
        /// Reads a big-endian `i128`.
        read_i128: i128, from_be_bytes;
        /// Reads a big-endian IEEE 754 `f32`.
        read_f32: f32, from_be_bytes;
        /// Reads a big-endian IEEE 754 `f64`.
        read_f64: f64, from_be_bytes;
        /// Reads a little-endian `u16`.
        ///
        /// # Examples
        ///
        /// ```
        /// use tokio::io::AsyncReadExt;
        ///
        /// # let rt = rt::runtime::Runtime::new().unwrap();
        /// # rt.block_on(async {
        /// let mut reader: &[u8] = &[1, 0];
        /// assert_eq!(reader.read_u16_le().await.unwrap(), 1);
        /// # });
        /// ```
        read_u16_le: u16, from_le_bytes;
        /// Reads a little-endian `i16`.
        read_i16_le: i16, from_le_bytes;
        /// Reads a little-endian `u32`.
        read_u32_le: u32, from_le_bytes;
        /// Reads a little-endian `i32`.
        read_i32_le: i32, from_le_bytes;
        /// Reads a little-endian `u64`.
        read_u64_le: u64, from_le_bytes;
        /// Reads a little-endian `i64`.
        read_i64_le: i64, from_le_bytes;
        /// Reads a little-endian `u128`.
        read_u128_le: u128, from_le_bytes;
        /// Reads a little-endian `i128`.
        read_i128_le: i128, from_le_bytes;
        /// Reads a little-endian IEEE 754 `f32`.
        read_f32_le: f32, from_le_bytes;
        /// Reads a little-endian IEEE 754 `f64`.
        read_f64_le: f64, from_le_bytes;
    }

    /// Reads to end-of-file, appending to `buf` (straight into its spare
    /// capacity, nothing zeroed first); returns how many bytes were
    /// appended.
    ///
    /// # Errors
    ///
    /// The reader's error; the bytes read before it stay in `buf`.
    ///
    /// # Examples
    ///
    /// ```
    /// use tokio::io::AsyncReadExt;
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut reader: &[u8] = b"abc";
    /// let mut all = b"x".to_vec();
    /// assert_eq!(reader.read_to_end(&mut all).await.unwrap(), 3);
    /// assert_eq!(all, b"xabc");
    /// # });
    /// ```
    fn read_to_end<'a>(&'a mut self, buf: &'a mut Vec<u8>) -> ReadToEnd<'a, Self>
    where
        Self: Unpin,
    {
        ReadToEnd::new(self, buf)
    }

    /// Reads to end-of-file, appending to `dst`; returns how many bytes
    /// were appended.
    ///
    /// # Errors
    ///
    /// `InvalidData` if the bytes are not UTF-8 (`dst` is then unchanged;
    /// the inner error is the `Utf8Error` of `dst` followed by the bytes),
    /// or the reader's error.
    ///
    /// # Examples
    ///
    /// ```
    /// use tokio::io::AsyncReadExt;
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut reader: &[u8] = "héllo".as_bytes();
    /// let mut text = String::new();
    /// reader.read_to_string(&mut text).await.unwrap();
    /// assert_eq!(text, "héllo");
    /// # });
    /// ```
    fn read_to_string<'a>(&'a mut self, dst: &'a mut String) -> ReadToString<'a, Self>
    where
        Self: Unpin,
    {
        ReadToString::new(self, dst)
    }

    /// A reader that reads at most `limit` bytes of `self`, then reports
    /// end-of-file.
    ///
    /// # Examples
    ///
    /// ```
    /// use tokio::io::AsyncReadExt;
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut head = (&b"abcdef"[..]).take(2);
    /// let mut got = Vec::new();
    /// head.read_to_end(&mut got).await.unwrap();
    /// assert_eq!(got, b"ab");
    /// # });
    /// ```
    fn take(self, limit: u64) -> Take<Self>
    where
        Self: Sized,
    {
        Take::new(self, limit)
    }
}

impl<R: AsyncRead + ?Sized> AsyncReadExt for R {}
