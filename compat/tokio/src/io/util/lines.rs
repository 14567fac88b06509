//! `Lines` and `Split`: streams of a buffered reader's lines or
//! byte-separated segments. Each keeps the partial line it has read in
//! itself, so `next_line`/`next_segment` are cancel-safe: a cancelled call
//! loses nothing, the next call goes on.

use super::buf_read_ext::poll_read_until;
use crate::io::AsyncBufRead;
use pin_project_lite::pin_project;
use std::future::poll_fn;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

pin_project! {
    /// The lines of a buffered reader, from
    /// [`AsyncBufReadExt::lines`](crate::io::AsyncBufReadExt::lines).
    ///
    /// # Examples
    ///
    /// ```
    /// use tokio::io::AsyncBufReadExt;
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut lines = (&b"x\ny"[..]).lines();
    /// let mut all = Vec::new();
    /// while let Some(line) = lines.next_line().await.unwrap() {
    ///     all.push(line);
    /// }
    /// assert_eq!(all, ["x", "y"]);
    /// # });
    /// ```
    #[derive(Debug)]
    #[must_use = "streams do nothing unless polled"]
    pub struct Lines<R> {
        #[pin]
        reader: R,
        buf: Vec<u8>,
        read: usize,
    }
}

impl<R> Lines<R> {
    pub(crate) fn new(reader: R) -> Lines<R> {
        Lines {
            reader,
            buf: Vec::new(),
            read: 0,
        }
    }

    /// The reader.
    pub fn get_ref(&self) -> &R {
        &self.reader
    }

    /// The reader, mutably.
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.reader
    }

    /// The reader, pinned.
    pub fn get_pin_mut(self: Pin<&mut Self>) -> Pin<&mut R> {
        self.project().reader
    }

    /// Unwraps the reader (a partly read line is dropped).
    pub fn into_inner(self) -> R {
        self.reader
    }
}

impl<R: AsyncBufRead> Lines<R> {
    /// The next line, without its `\n` or `\r\n`; `None` at end-of-file.
    /// Cancel-safe.
    ///
    /// # Errors
    ///
    /// `InvalidData` if the line is not UTF-8 (the line is consumed; the
    /// inner error is the `FromUtf8Error` holding its bytes), or the
    /// reader's error.
    pub async fn next_line(&mut self) -> io::Result<Option<String>>
    where
        R: Unpin,
    {
        poll_fn(|cx| Pin::new(&mut *self).poll_next_line(cx)).await
    }

    /// Polls for the next line, as [`next_line`](Lines::next_line).
    ///
    /// # Errors
    ///
    /// `InvalidData` if the line is not UTF-8 (the line is consumed; the
    /// inner error is the `FromUtf8Error` holding its bytes), or the
    /// reader's error.
    pub fn poll_next_line(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<Option<String>>> {
        let me = self.project();
        let n = ready!(poll_read_until(me.reader, cx, b'\n', me.buf, me.read))?;
        if n == 0 && me.buf.is_empty() {
            return Poll::Ready(Ok(None));
        }
        let mut line = std::mem::take(me.buf);
        if line.last() == Some(&b'\n') {
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
        }
        match String::from_utf8(line) {
            Ok(line) => Poll::Ready(Ok(Some(line))),
            // The error holds the line's bytes; the line is consumed.
            Err(e) => Poll::Ready(Err(io::Error::new(io::ErrorKind::InvalidData, e))),
        }
    }
}

pin_project! {
    /// The segments of a buffered reader separated by a byte, from
    /// [`AsyncBufReadExt::split`](crate::io::AsyncBufReadExt::split).
    ///
    /// # Examples
    ///
    /// ```
    /// use tokio::io::AsyncBufReadExt;
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut parts = AsyncBufReadExt::split(&b"1 2"[..], b' ');
    /// assert_eq!(parts.next_segment().await.unwrap(), Some(b"1".to_vec()));
    /// # });
    /// ```
    #[derive(Debug)]
    #[must_use = "streams do nothing unless polled"]
    pub struct Split<R> {
        #[pin]
        reader: R,
        buf: Vec<u8>,
        delim: u8,
        read: usize,
    }
}

impl<R> Split<R> {
    pub(crate) fn new(reader: R, delim: u8) -> Split<R> {
        Split {
            reader,
            buf: Vec::new(),
            delim,
            read: 0,
        }
    }
}

impl<R: AsyncBufRead> Split<R> {
    /// The next segment, without its separator; `None` at end-of-file.
    /// Cancel-safe.
    ///
    /// # Errors
    ///
    /// The reader's error.
    pub async fn next_segment(&mut self) -> io::Result<Option<Vec<u8>>>
    where
        R: Unpin,
    {
        poll_fn(|cx| Pin::new(&mut *self).poll_next_segment(cx)).await
    }

    /// Polls for the next segment, as [`next_segment`](Split::next_segment).
    ///
    /// # Errors
    ///
    /// The reader's error.
    pub fn poll_next_segment(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<Option<Vec<u8>>>> {
        let me = self.project();
        let n = ready!(poll_read_until(me.reader, cx, *me.delim, me.buf, me.read))?;
        if n == 0 && me.buf.is_empty() {
            return Poll::Ready(Ok(None));
        }
        let mut segment = std::mem::take(me.buf);
        if segment.last() == Some(me.delim) {
            segment.pop();
        }
        Poll::Ready(Ok(Some(segment)))
    }
}
