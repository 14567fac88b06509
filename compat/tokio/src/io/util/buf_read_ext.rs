//! `AsyncBufReadExt`: the `async fn`s over any [`AsyncBufRead`], and the
//! futures of `read_until`, `read_line` and `fill_buf`.

use super::lines::{Lines, Split};
use super::read_futures::append_utf8;
use crate::io::AsyncBufRead;
use std::future::Future;
use std::io;
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

/// Appends to `buf` from `reader` up to and including `byte` (or to
/// end-of-file), counting the bytes appended in `read`; returns (and
/// resets) the count. What was appended stays in `buf` if the caller stops
/// polling: a later call goes on from there.
pub(crate) fn poll_read_until<R: AsyncBufRead + ?Sized>(
    mut reader: Pin<&mut R>,
    cx: &mut Context<'_>,
    byte: u8,
    buf: &mut Vec<u8>,
    read: &mut usize,
) -> Poll<io::Result<usize>> {
    loop {
        let (done, used) = {
            let available = ready_retry!(reader.as_mut().poll_fill_buf(cx));
            match available.iter().position(|&b| b == byte) {
                Some(i) => {
                    buf.extend_from_slice(&available[..=i]);
                    (true, i + 1)
                }
                None => {
                    buf.extend_from_slice(available);
                    (available.is_empty(), available.len())
                }
            }
        };
        reader.as_mut().consume(used);
        *read += used;
        if done {
            return Poll::Ready(Ok(std::mem::take(read)));
        }
    }
}

/// Reading methods for every [`AsyncBufRead`].
///
/// # Examples
///
/// ```
/// use tokio::io::AsyncBufReadExt;
///
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let mut lines = (&b"one\ntwo\n"[..]).lines();
/// assert_eq!(lines.next_line().await.unwrap().as_deref(), Some("one"));
/// assert_eq!(lines.next_line().await.unwrap().as_deref(), Some("two"));
/// assert_eq!(lines.next_line().await.unwrap(), None);
/// # });
/// ```
pub trait AsyncBufReadExt: AsyncBufRead {
    /// Appends to `buf` up to and including `byte` (or to end-of-file);
    /// returns how many bytes were appended (`0`: end-of-file). Bytes
    /// appended before a cancellation stay in `buf`.
    ///
    /// # Errors
    ///
    /// The reader's error.
    ///
    /// # Examples
    ///
    /// ```
    /// use tokio::io::AsyncBufReadExt;
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut reader: &[u8] = b"a,b";
    /// let mut buf = Vec::new();
    /// assert_eq!(reader.read_until(b',', &mut buf).await.unwrap(), 2);
    /// assert_eq!(buf, b"a,");
    /// # });
    /// ```
    fn read_until<'a>(&'a mut self, byte: u8, buf: &'a mut Vec<u8>) -> ReadUntil<'a, Self>
    where
        Self: Unpin,
    {
        ReadUntil {
            reader: self,
            byte,
            buf,
            read: 0,
            _pin: PhantomPinned,
        }
    }

    /// Appends a line (with its `\n`, if any) to `buf`; returns how many
    /// bytes were appended (`0`: end-of-file).
    ///
    /// # Errors
    ///
    /// `InvalidData` if the line is not UTF-8 (`buf` is then unchanged; the
    /// inner error is the `Utf8Error` of `buf` followed by the line), or
    /// the reader's error (the bytes read before it are appended if they
    /// are UTF-8).
    ///
    /// # Examples
    ///
    /// ```
    /// use tokio::io::AsyncBufReadExt;
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut reader: &[u8] = b"hi\nthere";
    /// let mut line = String::new();
    /// reader.read_line(&mut line).await.unwrap();
    /// assert_eq!(line, "hi\n");
    /// # });
    /// ```
    fn read_line<'a>(&'a mut self, buf: &'a mut String) -> ReadLine<'a, Self>
    where
        Self: Unpin,
    {
        ReadLine {
            reader: self,
            dst: buf,
            bytes: Vec::new(),
            read: 0,
            _pin: PhantomPinned,
        }
    }

    /// The segments of the reader separated by `byte`, as a
    /// [`Split`].
    ///
    /// # Examples
    ///
    /// ```
    /// use tokio::io::AsyncBufReadExt;
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut parts = AsyncBufReadExt::split(&b"a,b"[..], b',');
    /// assert_eq!(parts.next_segment().await.unwrap(), Some(b"a".to_vec()));
    /// assert_eq!(parts.next_segment().await.unwrap(), Some(b"b".to_vec()));
    /// assert_eq!(parts.next_segment().await.unwrap(), None);
    /// # });
    /// ```
    fn split(self, byte: u8) -> Split<Self>
    where
        Self: Sized + Unpin,
    {
        Split::new(self, byte)
    }

    /// The buffered bytes, reading more first if none are buffered (empty
    /// at end-of-file). Mark what was used with
    /// [`consume`](AsyncBufReadExt::consume).
    ///
    /// # Errors
    ///
    /// The reader's error.
    ///
    /// # Examples
    ///
    /// ```
    /// use tokio::io::AsyncBufReadExt;
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut reader: &[u8] = b"abc";
    /// assert_eq!(reader.fill_buf().await.unwrap(), b"abc");
    /// reader.consume(2);
    /// assert_eq!(reader.fill_buf().await.unwrap(), b"c");
    /// # });
    /// ```
    fn fill_buf(&mut self) -> FillBuf<'_, Self>
    where
        Self: Unpin,
    {
        FillBuf {
            reader: Some(self),
            _pin: PhantomPinned,
        }
    }

    /// Marks `amt` buffered bytes as used.
    ///
    /// # Examples
    ///
    /// See [`fill_buf`](AsyncBufReadExt::fill_buf).
    fn consume(&mut self, amt: usize)
    where
        Self: Unpin,
    {
        Pin::new(self).consume(amt)
    }

    /// The lines of the reader (without their `\n` or `\r\n`), as a
    /// [`Lines`].
    ///
    /// # Examples
    ///
    /// ```
    /// use tokio::io::AsyncBufReadExt;
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut lines = (&b"a\r\nb"[..]).lines();
    /// assert_eq!(lines.next_line().await.unwrap().as_deref(), Some("a"));
    /// assert_eq!(lines.next_line().await.unwrap().as_deref(), Some("b"));
    /// # });
    /// ```
    fn lines(self) -> Lines<Self>
    where
        Self: Sized,
    {
        Lines::new(self)
    }
}

impl<R: AsyncBufRead + ?Sized> AsyncBufReadExt for R {}

/// The future of [`read_until`](AsyncBufReadExt::read_until).
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct ReadUntil<'a, R: ?Sized> {
    reader: &'a mut R,
    byte: u8,
    buf: &'a mut Vec<u8>,
    read: usize,
    _pin: PhantomPinned,
}

impl<R: AsyncBufRead + Unpin + ?Sized> Future for ReadUntil<'_, R> {
    type Output = io::Result<usize>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        // SAFETY: nothing is moved out of the pinned future; its fields are
        // references and plain data, never pinned themselves.
        let me = unsafe { self.get_unchecked_mut() };
        poll_read_until(Pin::new(&mut *me.reader), cx, me.byte, me.buf, &mut me.read)
    }
}

/// The future of [`read_line`](AsyncBufReadExt::read_line): reads into a
/// byte buffer of its own, then appends it to the string if it is UTF-8.
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct ReadLine<'a, R: ?Sized> {
    reader: &'a mut R,
    dst: &'a mut String,
    bytes: Vec<u8>,
    read: usize,
    _pin: PhantomPinned,
}

impl<R: AsyncBufRead + Unpin + ?Sized> Future for ReadLine<'_, R> {
    type Output = io::Result<usize>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        // SAFETY: nothing is moved out of the pinned future; its fields are
        // references and plain data, never pinned themselves.
        let me = unsafe { self.get_unchecked_mut() };
        let polled = ready!(poll_read_until(
            Pin::new(&mut *me.reader),
            cx,
            b'\n',
            &mut me.bytes,
            &mut me.read
        ));
        let appended = append_utf8(me.dst, std::mem::take(&mut me.bytes));
        match polled {
            // The reader's error wins; what was read before it is kept in
            // `dst` if it is UTF-8 (tokio's contract).
            Err(e) => Poll::Ready(Err(e)),
            Ok(n) => Poll::Ready(appended.map(|()| n)),
        }
    }
}

/// The future of [`fill_buf`](AsyncBufReadExt::fill_buf).
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct FillBuf<'a, R: ?Sized> {
    reader: Option<&'a mut R>,
    _pin: PhantomPinned,
}

impl<'a, R: AsyncBufRead + Unpin + ?Sized> Future for FillBuf<'a, R> {
    type Output = io::Result<&'a [u8]>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&'a [u8]>> {
        // SAFETY: nothing is moved out of the pinned future; its field is
        // a reference, never pinned itself.
        let me = unsafe { self.get_unchecked_mut() };
        let reader: *mut R = me
            .reader
            .take()
            .expect("`fill_buf` future polled after it completed");
        // SAFETY: `reader` came from a `&'a mut R` taken out of the future,
        // so it is valid and unaliased for `'a`. Ready, the slice borrows it
        // for `'a` and the pointer is not used again; pending, the borrow
        // ended and the reference goes back into the future.
        match Pin::new(unsafe { &mut *reader }).poll_fill_buf(cx) {
            Poll::Pending => {
                // SAFETY: as above; the slice borrowing it is gone.
                me.reader = Some(unsafe { &mut *reader });
                Poll::Pending
            }
            ready => ready,
        }
    }
}
