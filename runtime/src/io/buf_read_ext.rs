//! `AsyncBufReadExt`, its `Lines` and its `Split`: tokio's
//! buffered-reading methods on every futures-io buffered reader. `Lines`
//! and `Split` collect a segment up to a delimiter with one loop,
//! `poll_segment`.

use futures_io::AsyncBufRead;
use futures_util::io::{FillBuf, ReadLine, ReadUntil};
use pin_project_lite::pin_project;
use std::future::poll_fn;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

/// tokio's methods for every [`AsyncBufRead`] (futures-io's trait, which
/// [`BufReader`](super::BufReader) implements): `fill_buf`, `consume`,
/// `read_until`, `read_line`, `lines` and `split`.
///
/// Import this trait *or* `futures_util::AsyncBufReadExt`, not both: the
/// methods they share are then ambiguous. Note that [`lines`] here returns
/// tokio's [`Lines`] (`next_line().await`), which is also a `Stream` of
/// lines, like futures-util's.
///
/// [`lines`]: AsyncBufReadExt::lines
///
/// # Examples
///
/// ```
/// use rt::io::{AsyncBufReadExt, BufReader};
///
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let mut reader = BufReader::new(&b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"[..]);
/// let mut request_line = String::new();
/// reader.read_line(&mut request_line).await.unwrap();
/// assert_eq!(request_line, "GET / HTTP/1.1\r\n");
/// let mut headers = reader.lines();
/// assert_eq!(headers.next_line().await.unwrap().as_deref(), Some("Host: x"));
/// assert_eq!(headers.next_line().await.unwrap().as_deref(), Some(""));
/// assert_eq!(headers.next_line().await.unwrap(), None);
/// # });
/// ```
pub trait AsyncBufReadExt: AsyncBufRead {
    /// The buffered bytes, reading more first if there are none (empty at
    /// end-of-file). Call [`consume`](AsyncBufReadExt::consume) with how
    /// many of them were used.
    ///
    /// # Errors
    ///
    /// The reader's error.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::{AsyncBufReadExt, BufReader};
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut reader = BufReader::new(&b"abc"[..]);
    /// assert_eq!(reader.fill_buf().await.unwrap(), b"abc");
    /// reader.consume(2);
    /// assert_eq!(reader.fill_buf().await.unwrap(), b"c");
    /// # });
    /// ```
    fn fill_buf(&mut self) -> FillBuf<'_, Self>
    where
        Self: Unpin,
    {
        futures_util::AsyncBufReadExt::fill_buf(self)
    }

    /// Marks `amt` of the bytes [`fill_buf`](AsyncBufReadExt::fill_buf)
    /// returned as used.
    ///
    /// # Examples
    ///
    /// See [`fill_buf`](AsyncBufReadExt::fill_buf).
    ///
    /// ```
    /// use rt::io::{AsyncBufReadExt, BufReader};
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut reader = BufReader::new(&b"skip:keep"[..]);
    /// reader.fill_buf().await.unwrap();
    /// reader.consume(5);
    /// let mut rest = String::new();
    /// reader.read_line(&mut rest).await.unwrap();
    /// assert_eq!(rest, "keep");
    /// # });
    /// ```
    fn consume(&mut self, amt: usize)
    where
        Self: Unpin,
    {
        Pin::new(self).consume(amt);
    }

    /// Reads up to and including `byte` (or to end-of-file), appending to
    /// `buf`; returns how many bytes it appended (`0` at end-of-file).
    ///
    /// # Errors
    ///
    /// The reader's error.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::{AsyncBufReadExt, BufReader};
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut reader = BufReader::new(&b"key=value"[..]);
    /// let mut key = Vec::new();
    /// assert_eq!(reader.read_until(b'=', &mut key).await.unwrap(), 4);
    /// assert_eq!(key, b"key=");
    /// # });
    /// ```
    fn read_until<'a>(&'a mut self, byte: u8, buf: &'a mut Vec<u8>) -> ReadUntil<'a, Self>
    where
        Self: Unpin,
    {
        futures_util::AsyncBufReadExt::read_until(self, byte, buf)
    }

    /// Reads a line, including its `\n` (if it has one), appending it to
    /// `buf`; returns how many bytes it appended (`0` at end-of-file).
    /// Not cancel safe: dropped halfway, the part of the line read so far
    /// is lost; use [`lines`](AsyncBufReadExt::lines) in a `select!` loop.
    ///
    /// # Errors
    ///
    /// `InvalidData` if the line is not UTF-8, or the reader's error.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::{AsyncBufReadExt, BufReader};
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut reader = BufReader::new(&b"one\ntwo"[..]);
    /// let mut line = String::new();
    /// reader.read_line(&mut line).await.unwrap();
    /// reader.read_line(&mut line).await.unwrap();
    /// assert_eq!(line, "one\ntwo");
    /// assert_eq!(reader.read_line(&mut line).await.unwrap(), 0);
    /// # });
    /// ```
    fn read_line<'a>(&'a mut self, buf: &'a mut String) -> ReadLine<'a, Self>
    where
        Self: Unpin,
    {
        futures_util::AsyncBufReadExt::read_line(self, buf)
    }

    /// The reader's lines, without their `\n` or `\r\n`, one per
    /// [`Lines::next_line`] call.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::{AsyncBufReadExt, BufReader};
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut lines = BufReader::new(&b"a\r\nb\nc"[..]).lines();
    /// let mut all = Vec::new();
    /// while let Some(line) = lines.next_line().await.unwrap() {
    ///     all.push(line);
    /// }
    /// assert_eq!(all, ["a", "b", "c"]);
    /// # });
    /// ```
    fn lines(self) -> Lines<Self>
    where
        Self: Sized,
    {
        Lines {
            reader: self,
            line: Vec::new(),
        }
    }

    /// The reader's segments separated by `delimiter`, without it, one
    /// per [`Split::next_segment`] call: a line-based reader for any
    /// delimiter (NUL-separated records, say), yielding bytes.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::{AsyncBufReadExt, BufReader};
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut fields = BufReader::new(&b"a\0bc\0\0d"[..]).split(b'\0');
    /// let mut all = Vec::new();
    /// while let Some(field) = fields.next_segment().await.unwrap() {
    ///     all.push(field);
    /// }
    /// assert_eq!(all, [&b"a"[..], b"bc", b"", b"d"]);
    /// # });
    /// ```
    fn split(self, delimiter: u8) -> Split<Self>
    where
        Self: Sized,
    {
        Split {
            reader: self,
            delimiter,
            segment: Vec::new(),
        }
    }
}

impl<R: AsyncBufRead + ?Sized> AsyncBufReadExt for R {}

pin_project! {
    /// The lines of a buffered reader, from
    /// [`AsyncBufReadExt::lines`]: call [`next_line`](Lines::next_line), or
    /// use it as a `Stream` of `io::Result<String>`.
    ///
    /// Cancel safe: a `next_line()` dropped before it finishes keeps the
    /// part of the line it has read, and the next call goes on from there,
    /// so it can be a `select!` branch in a loop.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let (mut a, b) = rt::net::UnixStream::pair().unwrap();
    /// a.write_all(b"hello\nworld\n").await.unwrap();
    /// drop(a);
    /// let mut lines = BufReader::new(b).lines();
    /// assert_eq!(lines.next_line().await.unwrap().as_deref(), Some("hello"));
    /// assert_eq!(lines.next_line().await.unwrap().as_deref(), Some("world"));
    /// assert_eq!(lines.next_line().await.unwrap(), None);
    /// # });
    /// ```
    #[derive(Debug)]
    #[must_use = "`Lines` reads nothing until `next_line` is awaited"]
    pub struct Lines<R> {
        #[pin]
        reader: R,
        // The part of the current line read so far.
        line: Vec<u8>,
    }
}

impl<R: AsyncBufRead> Lines<R> {
    /// The next line, without its `\n` or `\r\n`; `None` at end-of-file.
    /// A last line without a `\n` is still returned.
    ///
    /// # Errors
    ///
    /// `InvalidData` if the line is not UTF-8 (the line is skipped), or
    /// the reader's error.
    ///
    /// # Examples
    ///
    /// See [`Lines`].
    ///
    /// ```
    /// use rt::io::{AsyncBufReadExt, BufReader};
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut lines = BufReader::new(&b"only\n"[..]).lines();
    /// assert_eq!(lines.next_line().await.unwrap().as_deref(), Some("only"));
    /// assert_eq!(lines.next_line().await.unwrap(), None);
    /// # });
    /// ```
    pub async fn next_line(&mut self) -> io::Result<Option<String>>
    where
        R: Unpin,
    {
        poll_fn(|cx| Pin::new(&mut *self).poll_next_line(cx)).await
    }

    /// Polls for the next line: what [`next_line`](Lines::next_line)
    /// waits on.
    ///
    /// # Errors
    ///
    /// As for [`next_line`](Lines::next_line).
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::{AsyncBufReadExt, BufReader};
    /// use std::task::{Context, Poll, Waker};
    ///
    /// let mut lines = BufReader::new(&b"x\n"[..]).lines();
    /// let mut cx = Context::from_waker(Waker::noop());
    /// let polled = std::pin::Pin::new(&mut lines).poll_next_line(&mut cx);
    /// assert!(matches!(polled, Poll::Ready(Ok(Some(line))) if line == "x"));
    /// ```
    pub fn poll_next_line(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<Option<String>>> {
        let this = self.project();
        if !ready!(poll_segment(this.reader, cx, b'\n', this.line))? {
            return Poll::Ready(Ok(None));
        }
        Poll::Ready(take_line(this.line).map(Some))
    }

    /// The reader.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::{AsyncBufReadExt, BufReader};
    ///
    /// let lines = BufReader::new(&b"x"[..]).lines();
    /// assert_eq!(lines.get_ref().buffer(), b"");
    /// ```
    pub fn get_ref(&self) -> &R {
        &self.reader
    }

    /// The reader, mutably. Reading from it directly skips the lines it
    /// reads, and any part of a line `Lines` already holds stays there.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::{AsyncBufReadExt, BufReader};
    ///
    /// let mut lines = BufReader::new(&b"x"[..]).lines();
    /// assert_eq!(lines.get_mut().get_ref(), b"x");
    /// ```
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.reader
    }

    /// The reader, giving up any part of a line read but not returned yet.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut lines = BufReader::new(&b"header\nbody"[..]).lines();
    /// lines.next_line().await.unwrap();
    /// let mut body = String::new();
    /// lines.into_inner().read_to_string(&mut body).await.unwrap();
    /// assert_eq!(body, "body");
    /// # });
    /// ```
    pub fn into_inner(self) -> R {
        self.reader
    }
}

/// Reads into `segment` up to and including `delimiter`, keeping what it
/// read across `Pending` (which makes `Lines` and `Split` cancel safe).
/// `true` once a segment is complete: delimited, or the last one before
/// end-of-file; `false` at end-of-file with nothing collected.
fn poll_segment<R: AsyncBufRead>(
    mut reader: Pin<&mut R>,
    cx: &mut Context<'_>,
    delimiter: u8,
    segment: &mut Vec<u8>,
) -> Poll<io::Result<bool>> {
    loop {
        let available = ready!(reader.as_mut().poll_fill_buf(cx))?;
        if available.is_empty() {
            return Poll::Ready(Ok(!segment.is_empty()));
        }
        let (used, complete) = match available.iter().position(|&b| b == delimiter) {
            Some(end) => (end + 1, true),
            None => (available.len(), false),
        };
        segment.extend_from_slice(&available[..used]);
        reader.as_mut().consume(used);
        if complete {
            return Poll::Ready(Ok(true));
        }
    }
}

/// The line collected so far, without its line ending, leaving `line`
/// empty for the next one.
fn take_line(line: &mut Vec<u8>) -> io::Result<String> {
    let mut bytes = std::mem::take(line);
    if bytes.last() == Some(&b'\n') {
        bytes.pop();
        if bytes.last() == Some(&b'\r') {
            bytes.pop();
        }
    }
    String::from_utf8(bytes).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            "`Lines::next_line`: the line is not valid UTF-8",
        )
    })
}

impl<R: AsyncBufRead> futures_util::Stream for Lines<R> {
    type Item = io::Result<String>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.poll_next_line(cx).map(Result::transpose)
    }
}

pin_project! {
    /// The segments of a buffered reader separated by a delimiter byte,
    /// from [`AsyncBufReadExt::split`]: call
    /// [`next_segment`](Split::next_segment), or use it as a `Stream` of
    /// `io::Result<Vec<u8>>`.
    ///
    /// Cancel safe, as [`Lines`] is: a `next_segment()` dropped before it
    /// finishes keeps the part it has read for the next call.
    ///
    /// # Examples
    ///
    /// ```
    /// use futures_util::StreamExt;
    /// use rt::io::{AsyncBufReadExt, BufReader};
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let records = BufReader::new(&b"1;2;3"[..]).split(b';');
    /// let all: Vec<_> = records.map(Result::unwrap).collect().await;
    /// assert_eq!(all, [b"1", b"2", b"3"]);
    /// # });
    /// ```
    #[derive(Debug)]
    #[must_use = "`Split` reads nothing until `next_segment` is awaited"]
    pub struct Split<R> {
        #[pin]
        reader: R,
        delimiter: u8,
        // The part of the current segment read so far.
        segment: Vec<u8>,
    }
}

impl<R: AsyncBufRead> Split<R> {
    /// The next segment, without its delimiter; `None` at end-of-file. A
    /// last segment without a delimiter is still returned.
    ///
    /// # Errors
    ///
    /// The reader's error.
    ///
    /// # Examples
    ///
    /// See [`AsyncBufReadExt::split`].
    ///
    /// ```
    /// use rt::io::{AsyncBufReadExt, BufReader};
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut split = BufReader::new(&b"k=v"[..]).split(b'=');
    /// assert_eq!(split.next_segment().await.unwrap().as_deref(), Some(&b"k"[..]));
    /// assert_eq!(split.next_segment().await.unwrap().as_deref(), Some(&b"v"[..]));
    /// assert_eq!(split.next_segment().await.unwrap(), None);
    /// # });
    /// ```
    pub async fn next_segment(&mut self) -> io::Result<Option<Vec<u8>>>
    where
        R: Unpin,
    {
        poll_fn(|cx| Pin::new(&mut *self).poll_next_segment(cx)).await
    }

    /// Polls for the next segment: what
    /// [`next_segment`](Split::next_segment) waits on.
    ///
    /// # Errors
    ///
    /// The reader's error.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::{AsyncBufReadExt, BufReader};
    /// use std::task::{Context, Poll, Waker};
    ///
    /// let mut split = BufReader::new(&b"x,"[..]).split(b',');
    /// let mut cx = Context::from_waker(Waker::noop());
    /// let polled = std::pin::Pin::new(&mut split).poll_next_segment(&mut cx);
    /// assert!(matches!(polled, Poll::Ready(Ok(Some(segment))) if segment == b"x"));
    /// ```
    pub fn poll_next_segment(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<Option<Vec<u8>>>> {
        let this = self.project();
        if !ready!(poll_segment(this.reader, cx, *this.delimiter, this.segment))? {
            return Poll::Ready(Ok(None));
        }
        let mut segment = std::mem::take(this.segment);
        if segment.last() == Some(this.delimiter) {
            segment.pop();
        }
        Poll::Ready(Ok(Some(segment)))
    }
}

impl<R: AsyncBufRead> futures_util::Stream for Split<R> {
    type Item = io::Result<Vec<u8>>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.poll_next_segment(cx).map(Result::transpose)
    }
}
