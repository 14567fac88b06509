//! [`File`]: rt's file in a newtype for tokio's `AsyncRead`, `AsyncWrite`
//! and `AsyncSeek`, and tokio's `&self` methods (`sync_all`, `set_len`,
//! `try_clone`, ...), which rt has on `&mut self`: the file sits behind an
//! async mutex those methods lock (the I/O traits, on `&mut self`, reach
//! it without locking).

use super::OpenOptions;
use crate::io::{AsyncRead, AsyncSeek, AsyncWrite, ReadBuf, SeekFrom};
use std::fs::{Metadata, Permissions};
use std::io::{self, IoSlice};
use std::path::Path;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

/// An open file, with reads and writes on the blocking pool. A newtype
/// over `rt::fs::File` for tokio's traits; reads copy straight from the
/// blocking read's buffer into a `ReadBuf`'s uninitialised part.
///
/// # Examples
///
/// ```
/// use tokio::io::{AsyncReadExt, AsyncSeekExt, AsyncWriteExt};
///
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let path = std::env::temp_dir().join(format!("facade-file-{}", std::process::id()));
/// let mut file = tokio::fs::File::create(&path).await.unwrap();
/// file.write_all(b"hello").await.unwrap();
/// file.sync_all().await.unwrap();
/// let mut file = tokio::fs::File::open(&path).await.unwrap();
/// file.seek(std::io::SeekFrom::Start(1)).await.unwrap();
/// let mut rest = String::new();
/// file.read_to_string(&mut rest).await.unwrap();
/// assert_eq!(rest, "ello");
/// tokio::fs::remove_file(&path).await.unwrap();
/// # });
/// ```
pub struct File {
    inner: rt::sync::Mutex<rt::fs::File>,
    /// A seek asked for by `start_seek`, done by `poll_complete` (or by
    /// the next operation, if its `Seek` future was dropped). Behind a
    /// lock only so that operations on `&self` can take it too.
    seek: std::sync::Mutex<Option<SeekFrom>>,
    /// Where the last seek made put the file (0 before any): what a
    /// `poll_complete` with no seek started answers, as tokio's, without a
    /// trip to the blocking pool (the trait leaves that answer
    /// unspecified; `seek` always starts its own seek after it).
    sought: std::sync::atomic::AtomicU64,
    /// The descriptor, which never changes: lent without the lock.
    fd: std::os::fd::RawFd,
    /// rt's `max_buf_size`, read without the lock.
    max_buf_size: usize,
}

/// tokio's shape: `tokio::fs::File { std: <std's File Debug>, .. }`.
impl std::fmt::Debug for File {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use std::os::fd::FromRawFd;
        // SAFETY: `fd` is the open descriptor of the file `self` owns, open
        // while `self` is borrowed; the `ManuallyDrop` never closes it.
        let std = std::mem::ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(self.fd) });
        f.debug_struct("tokio::fs::File")
            .field("std", &*std)
            .field("max_buf_size", &self.max_buf_size)
            .finish_non_exhaustive()
    }
}

impl From<rt::fs::File> for File {
    fn from(file: rt::fs::File) -> File {
        File {
            fd: std::os::fd::AsRawFd::as_raw_fd(&file),
            max_buf_size: file.max_buf_size(),
            inner: rt::sync::Mutex::new(file),
            seek: std::sync::Mutex::new(None),
            sought: std::sync::atomic::AtomicU64::new(0),
        }
    }
}

impl From<File> for rt::fs::File {
    fn from(file: File) -> rt::fs::File {
        file.inner.into_inner()
    }
}

impl From<std::fs::File> for File {
    fn from(std: std::fs::File) -> File {
        File::from_std(std)
    }
}

/// Takes ownership of an open descriptor, as tokio's `File` does.
impl From<std::os::fd::OwnedFd> for File {
    fn from(fd: std::os::fd::OwnedFd) -> File {
        File::from_std(std::fs::File::from(fd))
    }
}

impl File {
    /// Opens `path` for reading.
    ///
    /// # Errors
    ///
    /// The OS error of `open`.
    pub async fn open(path: impl AsRef<Path>) -> io::Result<File> {
        rt::fs::File::open(path)
            .await
            .map(File::from)
            .map_err(crate::os_error::os_error)
    }

    /// Creates (or truncates) `path` and opens it for writing.
    ///
    /// # Errors
    ///
    /// The OS error of `open`.
    pub async fn create(path: impl AsRef<Path>) -> io::Result<File> {
        rt::fs::File::create(path)
            .await
            .map(File::from)
            .map_err(crate::os_error::os_error)
    }

    /// Creates `path`, failing if it exists, and opens it for reading and
    /// writing.
    ///
    /// # Errors
    ///
    /// `AlreadyExists`, or the OS error of `open`.
    pub async fn create_new<P: AsRef<Path>>(path: P) -> io::Result<File> {
        rt::fs::File::create_new(path)
            .await
            .map(File::from)
            .map_err(crate::os_error::os_error)
    }

    /// Options to open a file with.
    pub fn options() -> OpenOptions {
        OpenOptions::new()
    }

    /// Wraps a std file.
    pub fn from_std(std: std::fs::File) -> File {
        File::from(rt::fs::File::from_std(std))
    }

    /// Flushes buffered writes, then syncs data and metadata to disk.
    ///
    /// # Errors
    ///
    /// A buffered write's error, or the OS error of `fsync`.
    pub async fn sync_all(&self) -> io::Result<()> {
        let mut file = self.inner.lock().await;
        self.complete_started_seek(&mut file).await;
        file.sync_all().await
    }

    /// Flushes buffered writes, then syncs data to disk.
    ///
    /// # Errors
    ///
    /// A buffered write's error, or the OS error of `fdatasync`.
    pub async fn sync_data(&self) -> io::Result<()> {
        let mut file = self.inner.lock().await;
        self.complete_started_seek(&mut file).await;
        file.sync_data().await
    }

    /// Truncates or extends the file to `size` bytes.
    ///
    /// # Errors
    ///
    /// A buffered write's error, or the OS error of `ftruncate`.
    pub async fn set_len(&self, size: u64) -> io::Result<()> {
        let mut file = self.inner.lock().await;
        self.complete_started_seek(&mut file).await;
        file.set_len(size).await
    }

    /// The file's metadata.
    ///
    /// # Errors
    ///
    /// The OS error of `fstat`.
    pub async fn metadata(&self) -> io::Result<Metadata> {
        self.inner.lock().await.metadata().await
    }

    /// A second handle to the same open file (position shared), with this
    /// one's [`max_buf_size`](File::max_buf_size).
    ///
    /// # Errors
    ///
    /// The OS error of `dup`.
    pub async fn try_clone(&self) -> io::Result<File> {
        let mut file = self.inner.lock().await;
        self.complete_started_seek(&mut file).await;
        let mut clone = File::from(file.try_clone().await?);
        clone.set_max_buf_size(self.max_buf_size);
        Ok(clone)
    }

    /// Sets the file's permissions.
    ///
    /// # Errors
    ///
    /// The OS error of `fchmod`.
    pub async fn set_permissions(&self, perm: Permissions) -> io::Result<()> {
        self.inner.lock().await.set_permissions(perm).await
    }

    /// Sets the file's access and modification times.
    ///
    /// # Errors
    ///
    /// The OS error of `futimens`.
    pub async fn set_times(&self, times: std::fs::FileTimes) -> io::Result<()> {
        self.inner.lock().await.set_times(times).await
    }

    /// Sets the file's modification time.
    ///
    /// # Errors
    ///
    /// The OS error of `futimens`.
    pub async fn set_modified(&self, time: std::time::SystemTime) -> io::Result<()> {
        self.inner.lock().await.set_modified(time).await
    }

    /// The most one read or write moves through the blocking pool (2 MiB
    /// unless set).
    pub fn max_buf_size(&self) -> usize {
        self.max_buf_size
    }

    /// Sets the most one read or write moves.
    ///
    /// # Panics
    ///
    /// If `max_buf_size` is 0 (nothing could move), with tokio's message.
    pub fn set_max_buf_size(&mut self, max_buf_size: usize) {
        assert!(max_buf_size > 0, "`max_buf_size` must be greater than 0");
        self.inner.get_mut().set_max_buf_size(max_buf_size);
        self.max_buf_size = max_buf_size;
    }

    /// The std file, once operations in flight are done. The error of a
    /// buffered write is dropped, as tokio's `into_std` drops it: flush
    /// first to see it.
    ///
    /// # Panics
    ///
    /// If rt cannot hand the file back (the position could not be restored
    /// over bytes read ahead, on a pipe say): tokio's `into_std` has no way
    /// to report it.
    pub async fn into_std(mut self) -> std::fs::File {
        // A seek `start_seek` asked for is in flight in tokio's file, and
        // its `into_std` waits for it: made here first.
        std::future::poll_fn(|cx| self.poll_started_seek(cx)).await;
        let mut file = self.inner.into_inner();
        // rt's `into_std` reports a failed write as its error (and closes
        // the file); collected here, it is gone before that.
        let _write_error = rt::io::AsyncWriteExt::flush(&mut file).await;
        match file.into_std().await {
            Ok(std) => std,
            Err(e) => panic!("rt: File::into_std could not hand the file back ({e})"),
        }
    }

    /// The std file if no operation is in flight; the file back otherwise.
    ///
    /// # Errors
    ///
    /// The file itself, while an operation is in flight.
    // tokio's shape: the file itself comes back as the error.
    #[allow(clippy::result_large_err)]
    pub fn try_into_std(mut self) -> Result<std::fs::File, File> {
        // A seek `start_seek` asked for counts as in flight.
        if self.started_seek().is_some() {
            return Err(self);
        }
        self.inner.into_inner().try_into_std().map_err(File::from)
    }
}

impl std::os::fd::AsRawFd for File {
    fn as_raw_fd(&self) -> std::os::fd::RawFd {
        self.fd
    }
}

/// Takes ownership of an open file descriptor (as `std::fs::File`'s).
///
/// # Examples
///
/// ```
/// use std::os::fd::{FromRawFd, IntoRawFd};
///
/// let std = std::fs::File::open("/dev/null").unwrap();
/// // SAFETY: the descriptor is open and owned by nothing else.
/// let file = unsafe { tokio::fs::File::from_raw_fd(std.into_raw_fd()) };
/// # drop(file);
/// ```
impl std::os::fd::FromRawFd for File {
    unsafe fn from_raw_fd(fd: std::os::fd::RawFd) -> File {
        // SAFETY: the caller guarantees, as `FromRawFd` requires, that `fd`
        // is an open descriptor this call takes sole ownership of.
        File::from_std(unsafe { std::fs::File::from_raw_fd(fd) })
    }
}

impl std::os::fd::AsFd for File {
    fn as_fd(&self) -> std::os::fd::BorrowedFd<'_> {
        // SAFETY: `fd` is the open descriptor of the file `self` owns; it
        // stays open for as long as `self` is borrowed.
        unsafe { std::os::fd::BorrowedFd::borrow_raw(self.fd) }
    }
}

impl File {
    /// Makes the seek `start_seek` asked for, if `poll_complete` has not
    /// collected it (its `Seek` future was dropped): tokio's seek is in
    /// flight from `start_seek` on, and the next operation waits for it
    /// and drops its result. Left in `seek`, it would be made again by
    /// the next `poll_complete`.
    fn poll_started_seek(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        if self.started_seek().is_some() {
            let _ = ready!(Pin::new(self).poll_complete(cx));
        }
        Poll::Ready(())
    }

    /// As `poll_started_seek`, for an operation on `&self` holding `file`,
    /// the locked rt file. Taken first: if this future is dropped, rt's
    /// file still has the seek in flight, and its next operation collects
    /// it.
    async fn complete_started_seek(&self, file: &mut rt::fs::File) {
        let started = self.seek.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(position) = started {
            let sought = std::future::poll_fn(|cx| {
                rt::io::AsyncSeek::poll_seek(Pin::new(&mut *file), cx, position)
            })
            .await;
            if let Ok(at) = sought {
                self.sought.store(at, std::sync::atomic::Ordering::Relaxed);
            }
        }
    }

    fn started_seek(&mut self) -> &mut Option<SeekFrom> {
        self.seek.get_mut().unwrap_or_else(|e| e.into_inner())
    }
}

impl AsyncRead for File {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let me = self.get_mut();
        ready!(me.poll_started_seek(cx));
        let file = me.inner.get_mut();
        crate::io::forward::poll_read_uninit(buf, |unfilled| file.poll_read_uninit(cx, unfilled))
    }
}

impl AsyncWrite for File {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let me = self.get_mut();
        ready!(me.poll_started_seek(cx));
        rt::io::AsyncWrite::poll_write(Pin::new(me.inner.get_mut()), cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let me = self.get_mut();
        ready!(me.poll_started_seek(cx));
        // rt's file takes every slice, up to `max_buf_size`, as tokio's.
        rt::io::AsyncWrite::poll_write_vectored(Pin::new(me.inner.get_mut()), cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let me = self.get_mut();
        ready!(me.poll_started_seek(cx));
        rt::io::AsyncWrite::poll_flush(Pin::new(me.inner.get_mut()), cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        // A file has no write side to shut: flush, as tokio does.
        self.poll_flush(cx)
    }
}

impl AsyncSeek for File {
    fn start_seek(self: Pin<&mut Self>, position: SeekFrom) -> io::Result<()> {
        let started = self.get_mut().started_seek();
        if started.is_some() {
            return Err(io::Error::other(
                "other file operation is pending, call poll_complete before start_seek",
            ));
        }
        *started = Some(position);
        Ok(())
    }

    fn poll_complete(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        let me = self.get_mut();
        let Some(position) = *me.started_seek() else {
            // No seek asked for: where the last one put the file, as
            // tokio's answers (`sought`).
            return Poll::Ready(Ok(me.sought.load(std::sync::atomic::Ordering::Relaxed)));
        };
        let result = ready!(rt::io::AsyncSeek::poll_seek(
            Pin::new(me.inner.get_mut()),
            cx,
            position
        ));
        *me.started_seek() = None;
        if let Ok(at) = result {
            me.sought.store(at, std::sync::atomic::Ordering::Relaxed);
        }
        Poll::Ready(result)
    }
}
