//! `AsyncSeek`: tokio's two-step seek (start, then poll for the result),
//! and its implementations for the std types tokio implements it for.

use std::io::{self, SeekFrom};
use std::ops::DerefMut;
use std::pin::Pin;
use std::task::{Context, Poll};

/// Seeks asynchronously, in two steps: [`start_seek`](AsyncSeek::start_seek)
/// asks for the move, [`poll_complete`](AsyncSeek::poll_complete) waits
/// for it and returns the new position.
///
/// Use [`AsyncSeekExt`](crate::io::AsyncSeekExt) for `seek`, `rewind` and
/// `stream_position`.
///
/// # Examples
///
/// ```
/// use std::io::{Cursor, SeekFrom};
/// use std::pin::Pin;
/// use std::task::{Context, Poll};
/// use tokio::io::AsyncSeek;
///
/// let mut cursor = Cursor::new(vec![0u8; 10]);
/// let mut cx = Context::from_waker(std::task::Waker::noop());
/// Pin::new(&mut cursor).start_seek(SeekFrom::End(-2)).unwrap();
/// let polled = Pin::new(&mut cursor).poll_complete(&mut cx);
/// assert!(matches!(polled, Poll::Ready(Ok(8))));
/// ```
pub trait AsyncSeek {
    /// Starts a seek to `position`.
    ///
    /// # Errors
    ///
    /// An error if a seek is in progress already, or the seeker's error.
    fn start_seek(self: Pin<&mut Self>, position: SeekFrom) -> io::Result<()>;

    /// Waits for the seek started last and returns the new position from
    /// the start (the current position if no seek was started).
    ///
    /// # Errors
    ///
    /// The seeker's I/O error.
    fn poll_complete(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>>;
}

/// Forwards both methods to the type pointed at.
macro_rules! deref_async_seek {
    () => {
        fn start_seek(mut self: Pin<&mut Self>, position: SeekFrom) -> io::Result<()> {
            Pin::new(&mut **self).start_seek(position)
        }

        fn poll_complete(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
            Pin::new(&mut **self).poll_complete(cx)
        }
    };
}

impl<T: ?Sized + AsyncSeek + Unpin> AsyncSeek for Box<T> {
    deref_async_seek!();
}

impl<T: ?Sized + AsyncSeek + Unpin> AsyncSeek for &mut T {
    deref_async_seek!();
}

impl<P> AsyncSeek for Pin<P>
where
    P: DerefMut,
    P::Target: AsyncSeek,
{
    fn start_seek(self: Pin<&mut Self>, position: SeekFrom) -> io::Result<()> {
        self.as_deref_mut().start_seek(position)
    }

    fn poll_complete(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        self.as_deref_mut().poll_complete(cx)
    }
}

/// A cursor seeks at once; `poll_complete` reports its position.
impl<T: AsRef<[u8]> + Unpin> AsyncSeek for io::Cursor<T> {
    fn start_seek(self: Pin<&mut Self>, position: SeekFrom) -> io::Result<()> {
        io::Seek::seek(self.get_mut(), position).map(drop)
    }

    fn poll_complete(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        Poll::Ready(Ok(self.get_mut().position()))
    }
}
