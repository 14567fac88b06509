//! `split`: any stream into a read half and a write half that two tasks
//! can use at once. The halves share the stream behind a mutex, held only
//! for the length of one poll.

use crate::io::{AsyncRead, AsyncWrite, ReadBuf};
use std::fmt;
use std::io::{self, IoSlice};
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};

/// The read half of [`split`].
///
/// # Examples
///
/// See [`split`].
pub struct ReadHalf<T> {
    inner: Arc<Mutex<T>>,
}

/// The write half of [`split`].
///
/// # Examples
///
/// See [`split`].
pub struct WriteHalf<T> {
    inner: Arc<Mutex<T>>,
    vectored: bool,
}

/// Splits `stream` into a read half and a write half, each usable from its
/// own task. For sockets, prefer their own `split`/`into_split`, which
/// need no lock.
///
/// # Examples
///
/// ```
/// use tokio::io::{AsyncReadExt, AsyncWriteExt};
///
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let (a, mut b) = tokio::io::duplex(64);
/// let (mut read, mut write) = tokio::io::split(a);
/// write.write_all(b"ping").await.unwrap();
/// let mut buf = [0; 4];
/// b.read_exact(&mut buf).await.unwrap();
/// b.write_all(b"pong").await.unwrap();
/// read.read_exact(&mut buf).await.unwrap();
/// assert_eq!(&buf, b"pong");
/// assert!(read.is_pair_of(&write));
/// let _a = read.unsplit(write);
/// # });
/// ```
pub fn split<T: AsyncRead + AsyncWrite>(stream: T) -> (ReadHalf<T>, WriteHalf<T>) {
    let vectored = stream.is_write_vectored();
    let inner = Arc::new(Mutex::new(stream));
    (
        ReadHalf {
            inner: inner.clone(),
        },
        WriteHalf { inner, vectored },
    )
}

/// Locks the stream (a panic in another half's poll does not poison it:
/// the stream itself holds no invariant of this module's).
fn lock<T>(inner: &Mutex<T>) -> MutexGuard<'_, T> {
    inner.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs `f` on the stream, pinned.
fn with_pinned<T, R>(inner: &Mutex<T>, f: impl FnOnce(Pin<&mut T>) -> R) -> R {
    let mut guard = lock(inner);
    // SAFETY: the stream lives in the `Arc`'s allocation and is never
    // moved out of it while pinned: only `unsplit` takes it out, and that
    // needs `T: Unpin`.
    let pinned = unsafe { Pin::new_unchecked(&mut *guard) };
    f(pinned)
}

impl<T> ReadHalf<T> {
    /// Whether `other` is the write half of the same stream.
    pub fn is_pair_of(&self, other: &WriteHalf<T>) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// Puts the two halves back together.
    ///
    /// # Panics
    ///
    /// If `wr` is the write half of another stream.
    #[track_caller]
    pub fn unsplit(self, wr: WriteHalf<T>) -> T
    where
        T: Unpin,
    {
        assert!(
            self.is_pair_of(&wr),
            "Unrelated `split::Write` passed to `split::Read::unsplit`."
        );
        drop(wr);
        let mutex = Arc::try_unwrap(self.inner)
            .unwrap_or_else(|_| unreachable!("both halves of the pair are given back"));
        mutex.into_inner().unwrap_or_else(|e| e.into_inner())
    }
}

impl<T> WriteHalf<T> {
    /// Whether `other` is the read half of the same stream.
    pub fn is_pair_of(&self, other: &ReadHalf<T>) -> bool {
        other.is_pair_of(self)
    }
}

impl<T: AsyncRead> AsyncRead for ReadHalf<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        with_pinned(&self.inner, |stream| stream.poll_read(cx, buf))
    }
}

impl<T: AsyncWrite> AsyncWrite for WriteHalf<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        with_pinned(&self.inner, |stream| stream.poll_write(cx, buf))
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        with_pinned(&self.inner, |stream| stream.poll_write_vectored(cx, bufs))
    }

    fn is_write_vectored(&self) -> bool {
        self.vectored
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        with_pinned(&self.inner, |stream| stream.poll_flush(cx))
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        with_pinned(&self.inner, |stream| stream.poll_shutdown(cx))
    }
}

impl<T> fmt::Debug for ReadHalf<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("split::ReadHalf").finish()
    }
}

impl<T> fmt::Debug for WriteHalf<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("split::WriteHalf").finish()
    }
}
