//! `AsyncSeekExt`: tokio's seeking methods on every futures-io seeker.

use futures_io::AsyncSeek;
use futures_util::io::Seek;
use std::io::SeekFrom;

/// tokio's seeking methods (`seek`, `rewind`, `stream_position`) for every
/// [`AsyncSeek`] type, rt's [`File`](crate::fs::File) and
/// [`Cursor`](crate::io::Cursor) among them. Each future resolves to the new
/// position, in bytes from the start.
///
/// It shares `seek` and `stream_position` with futures-util's
/// `AsyncSeekExt`: import one of the two (see the [module docs](crate::io)).
///
/// # Examples
///
/// ```
/// use rt::io::{AsyncReadExt, AsyncSeekExt, Cursor, SeekFrom};
///
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let mut cursor = Cursor::new(b"hello world".to_vec());
/// assert_eq!(cursor.seek(SeekFrom::Start(6)).await.unwrap(), 6);
/// let mut word = String::new();
/// cursor.read_to_string(&mut word).await.unwrap();
/// assert_eq!(word, "world");
/// assert_eq!(cursor.stream_position().await.unwrap(), 11);
/// cursor.rewind().await.unwrap();
/// assert_eq!(cursor.stream_position().await.unwrap(), 0);
/// # });
/// ```
pub trait AsyncSeekExt: AsyncSeek {
    /// Moves the position to `pos`; resolves to the new position.
    ///
    /// # Errors
    ///
    /// The seeker's error, for example `InvalidInput` for a position
    /// before the start.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::{AsyncSeekExt, Cursor, SeekFrom};
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut cursor = Cursor::new([0u8; 10]);
    /// assert_eq!(cursor.seek(SeekFrom::End(-3)).await.unwrap(), 7);
    /// assert!(cursor.seek(SeekFrom::Current(-8)).await.is_err());
    /// # });
    /// ```
    fn seek(&mut self, pos: SeekFrom) -> Seek<'_, Self>
    where
        Self: Unpin,
    {
        futures_util::AsyncSeekExt::seek(self, pos)
    }

    /// Moves the position back to the start (`seek(SeekFrom::Start(0))`);
    /// resolves to `0`.
    ///
    /// # Errors
    ///
    /// The seeker's error.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::{AsyncReadExt, AsyncSeekExt, AsyncWriteExt};
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let path = std::env::temp_dir().join(format!("rt-rewind-doc-{}", std::process::id()));
    /// let mut file = rt::fs::File::options()
    ///     .read(true).write(true).create(true).truncate(true)
    ///     .open(&path).await.unwrap();
    /// file.write_all(b"written then read").await.unwrap();
    /// assert_eq!(file.rewind().await.unwrap(), 0);
    /// let mut back = String::new();
    /// file.read_to_string(&mut back).await.unwrap();
    /// assert_eq!(back, "written then read");
    /// # rt::fs::remove_file(&path).await.unwrap();
    /// # });
    /// ```
    fn rewind(&mut self) -> Seek<'_, Self>
    where
        Self: Unpin,
    {
        AsyncSeekExt::seek(self, SeekFrom::Start(0))
    }

    /// The current position (`seek(SeekFrom::Current(0))`).
    ///
    /// # Errors
    ///
    /// The seeker's error.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::{AsyncReadExt, AsyncSeekExt, Cursor};
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut cursor = Cursor::new(b"abcdef");
    /// cursor.read_exact(&mut [0; 4]).await.unwrap();
    /// assert_eq!(cursor.stream_position().await.unwrap(), 4);
    /// # });
    /// ```
    fn stream_position(&mut self) -> Seek<'_, Self>
    where
        Self: Unpin,
    {
        AsyncSeekExt::seek(self, SeekFrom::Current(0))
    }
}

impl<S: AsyncSeek + ?Sized> AsyncSeekExt for S {}
