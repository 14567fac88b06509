//! `AsyncBufRead`: reading from an internal buffer, and its
//! implementations for the std types tokio implements it for.

use super::AsyncRead;
use std::io;
use std::ops::DerefMut;
use std::pin::Pin;
use std::task::{Context, Poll};

/// An [`AsyncRead`] with an internal buffer: look at what is buffered
/// ([`poll_fill_buf`](AsyncBufRead::poll_fill_buf)), then say how much of
/// it was used ([`consume`](AsyncBufRead::consume)).
///
/// Use [`AsyncBufReadExt`](crate::io::AsyncBufReadExt) for the `async fn`s
/// (`read_line`, `lines`, ...).
///
/// # Examples
///
/// ```
/// use std::pin::Pin;
/// use std::task::{Context, Poll};
/// use tokio::io::AsyncBufRead;
///
/// let mut source: &[u8] = b"ab";
/// let mut cx = Context::from_waker(std::task::Waker::noop());
/// let Poll::Ready(Ok(buffered)) = Pin::new(&mut source).poll_fill_buf(&mut cx) else {
///     unreachable!()
/// };
/// assert_eq!(buffered, b"ab");
/// Pin::new(&mut source).consume(1);
/// assert_eq!(source, b"b");
/// ```
pub trait AsyncBufRead: AsyncRead {
    /// The buffered bytes, reading more first if none are buffered; empty
    /// at end-of-file.
    ///
    /// # Errors
    ///
    /// The reader's I/O error.
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>>;

    /// Marks `amt` buffered bytes as used: the next
    /// [`poll_fill_buf`](AsyncBufRead::poll_fill_buf) starts after them.
    fn consume(self: Pin<&mut Self>, amt: usize);
}

/// Forwards both methods to the type pointed at.
macro_rules! deref_async_buf_read {
    () => {
        fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
            Pin::new(&mut **self.get_mut()).poll_fill_buf(cx)
        }

        fn consume(mut self: Pin<&mut Self>, amt: usize) {
            Pin::new(&mut **self).consume(amt)
        }
    };
}

impl<T: ?Sized + AsyncBufRead + Unpin> AsyncBufRead for Box<T> {
    deref_async_buf_read!();
}

impl<T: ?Sized + AsyncBufRead + Unpin> AsyncBufRead for &mut T {
    deref_async_buf_read!();
}

impl<P> AsyncBufRead for Pin<P>
where
    P: DerefMut,
    P::Target: AsyncBufRead,
{
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        self.as_deref_mut().poll_fill_buf(cx)
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        self.as_deref_mut().consume(amt)
    }
}

impl AsyncBufRead for &[u8] {
    fn poll_fill_buf(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        Poll::Ready(Ok(*self.get_mut()))
    }

    fn consume(mut self: Pin<&mut Self>, amt: usize) {
        *self = &self[amt.min(self.len())..];
    }
}

impl<T: AsRef<[u8]> + Unpin> AsyncBufRead for io::Cursor<T> {
    fn poll_fill_buf(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        Poll::Ready(io::BufRead::fill_buf(self.get_mut()))
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        io::BufRead::consume(self.get_mut(), amt)
    }
}
