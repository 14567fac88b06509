//! `AsyncRead`: tokio's read trait, which fills a `ReadBuf`, and its
//! implementations for the std types tokio implements it for.

use super::ReadBuf;
use std::io;
use std::ops::DerefMut;
use std::pin::Pin;
use std::task::{Context, Poll};

/// Reads bytes asynchronously into a [`ReadBuf`].
///
/// `poll_read` appends what it read to the buffer's filled part and returns
/// `Ready(Ok(()))`; leaving the filled part as it was means end-of-file
/// (when the buffer had room). `Pending` means it will wake the task when
/// data may be available. Use [`AsyncReadExt`](crate::io::AsyncReadExt)
/// for the `async fn`s.
///
/// # Examples
///
/// ```
/// use std::pin::Pin;
/// use std::task::{Context, Poll};
/// use tokio::io::{AsyncRead, ReadBuf};
///
/// let mut source: &[u8] = b"hello";
/// let mut memory = [0u8; 3];
/// let mut buf = ReadBuf::new(&mut memory);
/// let mut cx = Context::from_waker(std::task::Waker::noop());
/// let polled = Pin::new(&mut source).poll_read(&mut cx, &mut buf);
/// assert!(matches!(polled, Poll::Ready(Ok(()))));
/// assert_eq!(buf.filled(), b"hel");
/// ```
pub trait AsyncRead {
    /// Reads into `buf`'s unfilled part, advancing its filled part past
    /// what was read.
    ///
    /// # Errors
    ///
    /// The reader's I/O error.
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>>;
}

/// Forwards to the type pointed at.
macro_rules! deref_async_read {
    () => {
        fn poll_read(
            mut self: Pin<&mut Self>,
            cx: &mut Context<'_>,
            buf: &mut ReadBuf<'_>,
        ) -> Poll<io::Result<()>> {
            Pin::new(&mut **self).poll_read(cx, buf)
        }
    };
}

impl<T: ?Sized + AsyncRead + Unpin> AsyncRead for Box<T> {
    deref_async_read!();
}

impl<T: ?Sized + AsyncRead + Unpin> AsyncRead for &mut T {
    deref_async_read!();
}

impl<P> AsyncRead for Pin<P>
where
    P: DerefMut,
    P::Target: AsyncRead,
{
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.as_deref_mut().poll_read(cx, buf)
    }
}

/// Reads from the front of the slice, which shrinks past what was read.
impl AsyncRead for &[u8] {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let n = self.len().min(buf.remaining());
        let (read, rest) = self.split_at(n);
        buf.put_slice(read);
        *self = rest;
        Poll::Ready(Ok(()))
    }
}

/// Reads from the cursor's position, which moves past what was read.
impl<T: AsRef<[u8]> + Unpin> AsyncRead for io::Cursor<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let data = self.get_ref().as_ref();
        let start = usize::try_from(self.position())
            .unwrap_or(usize::MAX)
            .min(data.len());
        let n = (data.len() - start).min(buf.remaining());
        buf.put_slice(&data[start..start + n]);
        self.set_position((start + n) as u64);
        Poll::Ready(Ok(()))
    }
}
