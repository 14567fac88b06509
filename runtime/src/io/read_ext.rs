//! `AsyncReadExt`: tokio's reading methods on every futures-io reader.

use futures_io::AsyncRead;
use futures_util::io::{Chain, Read, ReadExact, ReadToEnd, ReadVectored, Take};
use std::future::Future;
use std::io::{self, IoSliceMut};

/// Reads `N` bytes exactly (`UnexpectedEof` if the reader ends first).
async fn read_array<R, const N: usize>(reader: &mut R) -> io::Result<[u8; N]>
where
    R: AsyncRead + Unpin + ?Sized,
{
    let mut bytes = [0; N];
    futures_util::AsyncReadExt::read_exact(reader, &mut bytes).await?;
    Ok(bytes)
}

/// The most of a `BufMut`'s spare capacity one `read_buf` poll zeroes and
/// reads into: enough for a large transfer to take few reads. The zeroing
/// is paid whatever arrives: a short message read into a large, empty
/// `BytesMut` costs a 64 KiB `memset` as well as the read.
#[cfg(feature = "bytes")]
const READ_BUF_MAX: usize = 64 * 1024;

/// One method per number type and byte order: `read_<ty>[_le]` decodes
/// `from_<order>_bytes` of exactly `size_of::<ty>()` bytes.
macro_rules! read_number {
    ($($name:ident -> $ty:ty, $from:ident, $what:literal, $bytes:literal;)*) => {$(
        #[doc = concat!("Reads ", $what, ".")]
        ///
        /// Waits for every byte it needs. Not cancel safe: dropped halfway,
        /// the bytes read so far are lost.
        ///
        /// # Errors
        ///
        /// `UnexpectedEof` if the reader ends first, or the reader's error.
        ///
        /// # Examples
        ///
        /// ```
        /// use rt::io::AsyncReadExt;
        ///
        /// # let rt = rt::runtime::Runtime::new().unwrap();
        /// # rt.block_on(async {
        #[doc = concat!("let mut reader = rt::io::Cursor::new(", $bytes, ");")]
        #[doc = concat!("let value = reader.", stringify!($name), "().await.unwrap();")]
        #[doc = concat!("assert_eq!(value, ", stringify!($ty), "::", stringify!($from), "(", $bytes, "));")]
        /// assert!(reader.read_u8().await.is_err(), "nothing is left");
        /// # });
        /// ```
        fn $name(&mut self) -> impl Future<Output = io::Result<$ty>> + '_
        where
            Self: Unpin,
        {
            async move { Ok(<$ty>::$from(read_array(self).await?)) }
        }
    )*};
}

/// tokio's reading methods for every [`AsyncRead`] (futures-io's trait,
/// which every reader in `rt` and most of the ecosystem implements): `read`,
/// `read_exact`, `read_to_end`, `read_to_string`, `take`, `chain`, and
/// `read_u8` to `read_f64` in big- and little-endian (`_le`) byte order;
/// with the `bytes` feature, `read_buf` into a `bytes::BufMut`.
///
/// The methods have tokio's names and signatures, so code written for
/// `tokio::io::AsyncReadExt` compiles with `rt::io::AsyncReadExt`.
/// Unlike `futures_util::AsyncReadExt`, there is no `split` method: a
/// by-value trait method would take precedence over the inherent,
/// lock-free `TcpStream::split`/`UnixStream::split`. For the lock-based
/// split of any reader-writer, call the free function [`split`](super::split).
///
/// Import this trait *or* `futures_util::AsyncReadExt`, not both: with
/// both in scope, the methods they share (`read`, `read_exact`, ...) are
/// ambiguous and fail to compile. To call the other trait's methods
/// anyway, use the fully qualified form
/// (`futures_util::AsyncReadExt::read_exact(&mut reader, &mut buf)`).
///
/// # Examples
///
/// ```
/// use rt::io::{AsyncReadExt, AsyncWriteExt};
///
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let (mut a, mut b) = rt::net::UnixStream::pair().unwrap();
/// a.write_u32(7).await.unwrap();
/// a.write_all(b"seven").await.unwrap();
/// a.shutdown().await.unwrap();
/// let len = b.read_u32().await.unwrap();
/// let mut text = String::new();
/// b.read_to_string(&mut text).await.unwrap();
/// assert_eq!((len, text.as_str()), (7, "seven"));
/// # });
/// ```
pub trait AsyncReadExt: AsyncRead {
    /// Reads some bytes into `buf`, returning how many (`0` at
    /// end-of-file, or when `buf` is empty). Cancel safe: dropped before
    /// it finishes, it read nothing.
    ///
    /// # Errors
    ///
    /// The reader's error.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::AsyncReadExt;
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut reader: &[u8] = b"abc";
    /// let mut buf = [0; 2];
    /// assert_eq!(reader.read(&mut buf).await.unwrap(), 2);
    /// assert_eq!(reader.read(&mut buf).await.unwrap(), 1);
    /// assert_eq!(reader.read(&mut buf).await.unwrap(), 0);
    /// # });
    /// ```
    fn read<'a>(&'a mut self, buf: &'a mut [u8]) -> Read<'a, Self>
    where
        Self: Unpin,
    {
        futures_util::AsyncReadExt::read(self, buf)
    }

    /// Reads some bytes into the spare capacity of `buf` (feature `bytes`),
    /// advancing `buf` past them; returns how many. `0` means end-of-file,
    /// or that `buf` has no room left (`!buf.has_remaining_mut()`; a
    /// `BytesMut` or `Vec<u8>` always has room: when full, it grows).
    /// Reads once: into `buf.chunk_mut()`, at most 64 KiB of it. Cancel
    /// safe: dropped before it finishes, it read nothing.
    ///
    /// The cost of the generic reader: `AsyncRead::poll_read` takes
    /// initialised memory, so the part of the chunk it is given (at most
    /// 64 KiB, less if the chunk is smaller) is zeroed first, on every
    /// poll. rt's own sockets also have `try_read_buf` and `recv_buf`,
    /// which receive into the uninitialised capacity directly.
    ///
    /// # Errors
    ///
    /// The reader's error (`buf` is then left as it was).
    ///
    /// # Panics
    ///
    /// If the reader's `poll_read` reports more bytes than it was given.
    ///
    /// # Examples
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rt::io::{AsyncReadExt, AsyncWriteExt};
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let (mut a, mut b) = rt::net::UnixStream::pair().unwrap();
    /// a.write_all(b"hello").await.unwrap();
    /// a.shutdown().await.unwrap();
    /// let mut buf = BytesMut::with_capacity(64);
    /// while b.read_buf(&mut buf).await.unwrap() > 0 {}
    /// assert_eq!(&buf[..], b"hello");
    /// # });
    /// ```
    #[cfg(feature = "bytes")]
    fn read_buf<'a, B>(&'a mut self, buf: &'a mut B) -> impl Future<Output = io::Result<usize>> + 'a
    where
        Self: Unpin,
        B: bytes::BufMut + ?Sized,
    {
        std::future::poll_fn(move |cx| {
            if !buf.has_remaining_mut() {
                return std::task::Poll::Ready(Ok(0));
            }
            crate::io::sys::read_into_zeroed_spare(buf, READ_BUF_MAX, |dst| {
                std::pin::Pin::new(&mut *self).poll_read(cx, dst)
            })
        })
    }

    /// Reads some bytes into `bufs`, in order (one `readv` for a socket).
    ///
    /// # Errors
    ///
    /// The reader's error.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::AsyncReadExt;
    /// use std::io::IoSliceMut;
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut reader: &[u8] = b"abcd";
    /// let (mut head, mut tail) = ([0; 1], [0; 3]);
    /// let mut bufs = [IoSliceMut::new(&mut head), IoSliceMut::new(&mut tail)];
    /// assert_eq!(reader.read_vectored(&mut bufs).await.unwrap(), 4);
    /// assert_eq!((&head, &tail), (b"a", b"bcd"));
    /// # });
    /// ```
    fn read_vectored<'a>(&'a mut self, bufs: &'a mut [IoSliceMut<'a>]) -> ReadVectored<'a, Self>
    where
        Self: Unpin,
    {
        futures_util::AsyncReadExt::read_vectored(self, bufs)
    }

    /// Fills `buf` completely. Not cancel safe: dropped halfway, the bytes
    /// read so far are lost.
    ///
    /// # Errors
    ///
    /// `UnexpectedEof` if the reader ends first, or the reader's error.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::AsyncReadExt;
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut reader: &[u8] = b"abc";
    /// let mut buf = [0; 2];
    /// reader.read_exact(&mut buf).await.unwrap();
    /// assert_eq!(&buf, b"ab");
    /// let err = reader.read_exact(&mut buf).await.unwrap_err();
    /// assert_eq!(err.kind(), std::io::ErrorKind::UnexpectedEof);
    /// # });
    /// ```
    fn read_exact<'a>(&'a mut self, buf: &'a mut [u8]) -> ReadExact<'a, Self>
    where
        Self: Unpin,
    {
        futures_util::AsyncReadExt::read_exact(self, buf)
    }

    /// Reads everything up to end-of-file, appending it to `buf`; returns
    /// how many bytes it appended.
    ///
    /// # Errors
    ///
    /// The reader's error (the bytes read before it stay in `buf`).
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::AsyncReadExt;
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut reader: &[u8] = b"everything";
    /// let mut buf = b">".to_vec();
    /// assert_eq!(reader.read_to_end(&mut buf).await.unwrap(), 10);
    /// assert_eq!(buf, b">everything");
    /// # });
    /// ```
    fn read_to_end<'a>(&'a mut self, buf: &'a mut Vec<u8>) -> ReadToEnd<'a, Self>
    where
        Self: Unpin,
    {
        futures_util::AsyncReadExt::read_to_end(self, buf)
    }

    /// Reads everything up to end-of-file as UTF-8, appending it to `buf`;
    /// returns how many bytes it appended. Not cancel safe: dropped
    /// halfway, the bytes read so far are lost (`buf` keeps its text).
    ///
    /// # Errors
    ///
    /// `InvalidData` if the bytes are not UTF-8, or the reader's error.
    /// Either way `buf` is left as it was, as tokio's, and the bytes read
    /// are lost.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::AsyncReadExt;
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut reader: &[u8] = "grüß".as_bytes();
    /// let mut text = String::new();
    /// reader.read_to_string(&mut text).await.unwrap();
    /// assert_eq!(text, "grüß");
    /// # });
    /// ```
    fn read_to_string<'a>(
        &'a mut self,
        buf: &'a mut String,
    ) -> impl Future<Output = io::Result<usize>> + 'a
    where
        Self: Unpin,
    {
        // Read into bytes of its own, not into `buf`: futures-util's
        // `read_to_string` takes the string's text out while it reads and
        // loses it on invalid UTF-8 or when dropped.
        async move {
            let mut bytes = Vec::new();
            let n = futures_util::AsyncReadExt::read_to_end(self, &mut bytes).await?;
            let text = String::from_utf8(bytes)
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.utf8_error()))?;
            if buf.is_empty() {
                *buf = text;
            } else {
                buf.push_str(&text);
            }
            Ok(n)
        }
    }

    /// A reader that reads at most `limit` bytes from this one, then
    /// reports end-of-file. Take `&mut reader` to keep using the reader
    /// afterwards.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::AsyncReadExt;
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut reader: &[u8] = b"headerbody";
    /// let mut header = Vec::new();
    /// (&mut reader).take(6).read_to_end(&mut header).await.unwrap();
    /// assert_eq!((header.as_slice(), reader), (&b"header"[..], &b"body"[..]));
    /// # });
    /// ```
    fn take(self, limit: u64) -> Take<Self>
    where
        Self: Sized,
    {
        futures_util::AsyncReadExt::take(self, limit)
    }

    /// A reader that reads this one to its end, then `next`.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::AsyncReadExt;
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut both = (&b"one, "[..]).chain(&b"two"[..]);
    /// let mut text = String::new();
    /// both.read_to_string(&mut text).await.unwrap();
    /// assert_eq!(text, "one, two");
    /// # });
    /// ```
    fn chain<R: AsyncRead>(self, next: R) -> Chain<Self, R>
    where
        Self: Sized,
    {
        futures_util::AsyncReadExt::chain(self, next)
    }

    read_number! {
        read_u8 -> u8, from_be_bytes, "a `u8` (one byte)", "[0xfe]";
        read_i8 -> i8, from_be_bytes, "a `i8` (one byte)", "[0xfe]";
        read_u16 -> u16, from_be_bytes, "a big-endian `u16`", "[1, 2]";
        read_i16 -> i16, from_be_bytes, "a big-endian `i16`", "[0xff, 2]";
        read_u32 -> u32, from_be_bytes, "a big-endian `u32`", "[1, 2, 3, 4]";
        read_i32 -> i32, from_be_bytes, "a big-endian `i32`", "[0xff, 2, 3, 4]";
        read_u64 -> u64, from_be_bytes, "a big-endian `u64`", "[1, 2, 3, 4, 5, 6, 7, 8]";
        read_i64 -> i64, from_be_bytes, "a big-endian `i64`", "[0xff, 2, 3, 4, 5, 6, 7, 8]";
        read_u128 -> u128, from_be_bytes, "a big-endian `u128`", "[1; 16]";
        read_i128 -> i128, from_be_bytes, "a big-endian `i128`", "[0xff; 16]";
        read_f32 -> f32, from_be_bytes, "a big-endian `f32`", "[0x40, 0x49, 0x0f, 0xdb]";
        read_f64 -> f64, from_be_bytes, "a big-endian `f64`", "[0x40, 9, 0x21, 0xfb, 0x54, 0x44, 0x2d, 0x18]";
        read_u16_le -> u16, from_le_bytes, "a little-endian `u16`", "[1, 2]";
        read_i16_le -> i16, from_le_bytes, "a little-endian `i16`", "[2, 0xff]";
        read_u32_le -> u32, from_le_bytes, "a little-endian `u32`", "[1, 2, 3, 4]";
        read_i32_le -> i32, from_le_bytes, "a little-endian `i32`", "[4, 3, 2, 0xff]";
        read_u64_le -> u64, from_le_bytes, "a little-endian `u64`", "[1, 2, 3, 4, 5, 6, 7, 8]";
        read_i64_le -> i64, from_le_bytes, "a little-endian `i64`", "[8, 7, 6, 5, 4, 3, 2, 0xff]";
        read_u128_le -> u128, from_le_bytes, "a little-endian `u128`", "[1; 16]";
        read_i128_le -> i128, from_le_bytes, "a little-endian `i128`", "[0xff; 16]";
        read_f32_le -> f32, from_le_bytes, "a little-endian `f32`", "[0xdb, 0x0f, 0x49, 0x40]";
        read_f64_le -> f64, from_le_bytes, "a little-endian `f64`", "[0x18, 0x2d, 0x44, 0x54, 0xfb, 0x21, 9, 0x40]";
    }
}

impl<R: AsyncRead + ?Sized> AsyncReadExt for R {}
