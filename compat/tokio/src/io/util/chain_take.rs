//! `Chain` (one reader, then another) and `Take` (at most so many bytes of
//! a reader): the readers of `AsyncReadExt::chain` and `take`.

use crate::io::{AsyncBufRead, AsyncRead, ReadBuf};
use pin_project_lite::pin_project;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

pin_project! {
    /// All of one reader, then all of another, from
    /// [`AsyncReadExt::chain`](crate::io::AsyncReadExt::chain).
    ///
    /// # Examples
    ///
    /// ```
    /// use tokio::io::AsyncReadExt;
    ///
    /// let chain = (&b"a"[..]).chain(&b"b"[..]);
    /// let (first, second) = chain.into_inner();
    /// assert_eq!((first, second), (&b"a"[..], &b"b"[..]));
    /// ```
    #[derive(Debug)]
    #[must_use = "streams do nothing unless polled"]
    pub struct Chain<T, U> {
        #[pin]
        first: T,
        #[pin]
        second: U,
        done_first: bool,
    }
}

impl<T, U> Chain<T, U> {
    pub(crate) fn new(first: T, second: U) -> Chain<T, U> {
        Chain {
            first,
            second,
            done_first: false,
        }
    }

    /// The two readers.
    pub fn get_ref(&self) -> (&T, &U) {
        (&self.first, &self.second)
    }

    /// The two readers, mutably (reading from them directly may confuse
    /// the chain).
    pub fn get_mut(&mut self) -> (&mut T, &mut U) {
        (&mut self.first, &mut self.second)
    }

    /// The two readers, pinned.
    pub fn get_pin_mut(self: Pin<&mut Self>) -> (Pin<&mut T>, Pin<&mut U>) {
        let me = self.project();
        (me.first, me.second)
    }

    /// Unwraps the two readers.
    pub fn into_inner(self) -> (T, U) {
        (self.first, self.second)
    }
}

impl<T: AsyncRead, U: AsyncRead> AsyncRead for Chain<T, U> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let me = self.project();
        if !*me.done_first {
            let before = buf.filled().len();
            ready!(me.first.poll_read(cx, buf))?;
            if buf.filled().len() > before || buf.remaining() == 0 {
                return Poll::Ready(Ok(()));
            }
            *me.done_first = true;
        }
        me.second.poll_read(cx, buf)
    }
}

impl<T: AsyncBufRead, U: AsyncBufRead> AsyncBufRead for Chain<T, U> {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        let me = self.project();
        if !*me.done_first {
            match ready!(me.first.poll_fill_buf(cx))? {
                [] => *me.done_first = true,
                buf => return Poll::Ready(Ok(buf)),
            }
        }
        me.second.poll_fill_buf(cx)
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        let me = self.project();
        if *me.done_first {
            me.second.consume(amt)
        } else {
            me.first.consume(amt)
        }
    }
}

pin_project! {
    /// At most `limit` bytes of a reader, then end-of-file, from
    /// [`AsyncReadExt::take`](crate::io::AsyncReadExt::take).
    ///
    /// # Examples
    ///
    /// ```
    /// use tokio::io::AsyncReadExt;
    ///
    /// let mut take = (&b"abc"[..]).take(2);
    /// assert_eq!(take.limit(), 2);
    /// take.set_limit(1);
    /// assert_eq!(take.limit(), 1);
    /// ```
    #[derive(Debug)]
    #[must_use = "streams do nothing unless polled"]
    pub struct Take<R> {
        #[pin]
        inner: R,
        limit: u64,
    }
}

impl<R> Take<R> {
    pub(crate) fn new(inner: R, limit: u64) -> Take<R> {
        Take { inner, limit }
    }

    /// How many bytes may still be read before end-of-file.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Sets how many bytes may still be read.
    pub fn set_limit(&mut self, limit: u64) {
        self.limit = limit;
    }

    /// The reader.
    pub fn get_ref(&self) -> &R {
        &self.inner
    }

    /// The reader, mutably.
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.inner
    }

    /// The reader, pinned.
    pub fn get_pin_mut(self: Pin<&mut Self>) -> Pin<&mut R> {
        self.project().inner
    }

    /// Unwraps the reader.
    pub fn into_inner(self) -> R {
        self.inner
    }
}

impl<R: AsyncRead> AsyncRead for Take<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if self.limit == 0 {
            return Poll::Ready(Ok(()));
        }
        let me = self.project();
        let max = usize::try_from(*me.limit).unwrap_or(usize::MAX);
        let mut front = buf.take(max);
        let start = front.filled().as_ptr();
        ready!(me.inner.poll_read(cx, &mut front))?;
        assert_eq!(
            start,
            front.filled().as_ptr(),
            "the reader replaced the ReadBuf it was given"
        );
        let n = front.filled().len();
        let initialized = front.initialized().len();
        // SAFETY: the reader initialised the first `initialized` bytes of
        // the unfilled part (`front` is exactly that memory, checked above).
        unsafe { buf.assume_init(initialized) };
        buf.advance(n);
        *me.limit -= n as u64;
        Poll::Ready(Ok(()))
    }
}

impl<R: AsyncBufRead> AsyncBufRead for Take<R> {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        let me = self.project();
        if *me.limit == 0 {
            return Poll::Ready(Ok(&[]));
        }
        let buf = ready!(me.inner.poll_fill_buf(cx))?;
        let max = usize::try_from(*me.limit)
            .unwrap_or(usize::MAX)
            .min(buf.len());
        Poll::Ready(Ok(&buf[..max]))
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        let me = self.project();
        let amt = usize::try_from(*me.limit).unwrap_or(usize::MAX).min(amt);
        *me.limit -= amt as u64;
        me.inner.consume(amt);
    }
}
