//! `AsyncSeekExt`: `seek`, `rewind` and `stream_position` over any
//! [`AsyncSeek`].

use crate::io::{AsyncSeek, SeekFrom};
use std::future::Future;
use std::io;
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

/// Seeking methods for every [`AsyncSeek`].
///
/// # Examples
///
/// ```
/// use std::io::{Cursor, SeekFrom};
/// use tokio::io::AsyncSeekExt;
///
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let mut cursor = Cursor::new(vec![0u8; 10]);
/// assert_eq!(cursor.seek(SeekFrom::Start(4)).await.unwrap(), 4);
/// assert_eq!(cursor.stream_position().await.unwrap(), 4);
/// cursor.rewind().await.unwrap();
/// assert_eq!(cursor.stream_position().await.unwrap(), 0);
/// # });
/// ```
pub trait AsyncSeekExt: AsyncSeek {
    /// Seeks to `pos`, returning the new position from the start. A seek
    /// still in progress (started by a cancelled call) is finished first.
    ///
    /// # Errors
    ///
    /// The seeker's error (e.g. `InvalidInput` before the start).
    fn seek(&mut self, pos: SeekFrom) -> Seek<'_, Self>
    where
        Self: Unpin,
    {
        Seek {
            seek: self,
            pos: Some(pos),
            _pin: PhantomPinned,
        }
    }

    /// Seeks to the start.
    ///
    /// # Errors
    ///
    /// The seeker's error.
    fn rewind(&mut self) -> Seek<'_, Self>
    where
        Self: Unpin,
    {
        self.seek(SeekFrom::Start(0))
    }

    /// The current position from the start.
    ///
    /// # Errors
    ///
    /// The seeker's error.
    fn stream_position(&mut self) -> Seek<'_, Self>
    where
        Self: Unpin,
    {
        self.seek(SeekFrom::Current(0))
    }
}

impl<S: AsyncSeek + ?Sized> AsyncSeekExt for S {}

/// The future of [`seek`](AsyncSeekExt::seek), `rewind` and
/// `stream_position`.
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct Seek<'a, S: ?Sized> {
    seek: &'a mut S,
    pos: Option<SeekFrom>,
    _pin: PhantomPinned,
}

impl<S: AsyncSeek + Unpin + ?Sized> Future for Seek<'_, S> {
    type Output = io::Result<u64>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        // SAFETY: nothing is moved out of the pinned future; its fields are
        // a reference and plain data, never pinned themselves.
        let me = unsafe { self.get_unchecked_mut() };
        if let Some(pos) = me.pos {
            // Finish any seek in progress, then start ours. Its error (a
            // failed operation it waited for) is this seek's, as tokio's.
            ready!(Pin::new(&mut *me.seek).poll_complete(cx))?;
            Pin::new(&mut *me.seek).start_seek(pos)?;
            me.pos = None;
        }
        Pin::new(&mut *me.seek).poll_complete(cx)
    }
}
