//! The errors of `AsyncFd`: an operation that would block, and a
//! registration that failed (handing the value back).

use std::fmt;
use std::io;

/// The error of [`AsyncFdReadyGuard::try_io`](super::AsyncFdReadyGuard::try_io)
/// when the operation would block: the readiness was cleared, wait again.
///
/// # Examples
///
/// ```
/// use rt::io::AsyncFd;
/// use std::io::Read;
///
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
///     a.set_nonblocking(true).unwrap();
///     let fd = AsyncFd::new(a).unwrap();
///     // Writable, but there is nothing to read: the read would block.
///     let mut guard = fd.writable().await.unwrap();
///     let result = guard.try_io(|fd| fd.get_ref().read(&mut [0; 4]));
///     assert!(result.is_err());
/// });
/// ```
#[derive(Debug)]
pub struct TryIoError(pub(super) ());

impl fmt::Display for TryIoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the operation would block; readiness was cleared")
    }
}

impl std::error::Error for TryIoError {}

/// The error of [`AsyncFd::try_new`](super::AsyncFd::try_new) and
/// [`AsyncFd::try_with_interest`](super::AsyncFd::try_with_interest): the
/// registration failed, and the value that was to be wrapped comes back
/// with the cause.
///
/// # Examples
///
/// ```
/// use rt::io::AsyncFd;
///
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     // The poller refuses regular files.
///     let file = std::fs::File::open("Cargo.toml").unwrap();
///     let (file, cause) = AsyncFd::try_new(file).unwrap_err().into_parts();
///     assert_eq!(cause.kind(), std::io::ErrorKind::PermissionDenied);
///     // The file came back, still open.
///     assert!(file.metadata().unwrap().is_file());
/// });
/// ```
pub struct AsyncFdTryNewError<T> {
    inner: T,
    cause: io::Error,
}

impl<T> AsyncFdTryNewError<T> {
    pub(super) fn new(inner: T, cause: io::Error) -> AsyncFdTryNewError<T> {
        AsyncFdTryNewError { inner, cause }
    }

    /// The value that was to be wrapped, and the registration's error.
    ///
    /// # Examples
    ///
    /// See [`AsyncFdTryNewError`].
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let file = std::fs::File::open("Cargo.toml").unwrap();
    ///     let (file, _cause) = rt::io::AsyncFd::try_new(file).unwrap_err().into_parts();
    ///     # drop(file);
    /// });
    /// ```
    pub fn into_parts(self) -> (T, io::Error) {
        (self.inner, self.cause)
    }
}

impl<T> fmt::Display for AsyncFdTryNewError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "registering the descriptor with the reactor failed: {}",
            self.cause
        )
    }
}

impl<T> fmt::Debug for AsyncFdTryNewError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AsyncFdTryNewError")
            .field("cause", &self.cause)
            .finish_non_exhaustive()
    }
}

impl<T> std::error::Error for AsyncFdTryNewError<T> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.cause)
    }
}

/// The registration's error; the value is dropped.
impl<T> From<AsyncFdTryNewError<T>> for io::Error {
    fn from(error: AsyncFdTryNewError<T>) -> io::Error {
        error.cause
    }
}
