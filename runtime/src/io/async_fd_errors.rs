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

/// The error of [`AsyncFd::register`](super::AsyncFd::register) and
/// [`AsyncFd::register_with_interest`](super::AsyncFd::register_with_interest)
/// (and of their other names, `try_new` and `try_with_interest`): the
/// registration failed, and the value that was to be wrapped comes back
/// with the cause ([`into_parts`](AsyncFdRegisterError::into_parts)).
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
///     let error = AsyncFd::register(file).unwrap_err();
///     assert!(error.to_string().contains("registering the descriptor"));
///     let (file, cause) = error.into_parts();
///     assert_eq!(cause.kind(), std::io::ErrorKind::PermissionDenied);
///     // The file came back, still open.
///     assert!(file.metadata().unwrap().is_file());
/// });
/// ```
pub struct AsyncFdRegisterError<T> {
    inner: T,
    cause: io::Error,
}

/// The name [`AsyncFdRegisterError`] had before `AsyncFd::register`
/// (tokio's older name too).
pub type AsyncFdTryNewError<T> = AsyncFdRegisterError<T>;

impl<T> AsyncFdRegisterError<T> {
    pub(super) fn new(inner: T, cause: io::Error) -> AsyncFdRegisterError<T> {
        AsyncFdRegisterError { inner, cause }
    }

    /// The value that was to be wrapped, and the registration's error.
    ///
    /// # Examples
    ///
    /// See [`AsyncFdRegisterError`].
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let file = std::fs::File::open("Cargo.toml").unwrap();
    ///     let (file, _cause) = rt::io::AsyncFd::register(file).unwrap_err().into_parts();
    ///     # drop(file);
    /// });
    /// ```
    pub fn into_parts(self) -> (T, io::Error) {
        (self.inner, self.cause)
    }
}

impl<T> fmt::Display for AsyncFdRegisterError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "registering the descriptor with the reactor failed: {}",
            self.cause
        )?;
        // The two misuses whose OS text does not say what to do.
        match self.cause.raw_os_error() {
            Some(libc::EPERM) => f.write_str(
                " (the poller does not support this kind of descriptor: regular files and \
                 directories are always ready, so read them with `rt::fs` or \
                 `spawn_blocking` instead of an `AsyncFd`)",
            ),
            Some(libc::EEXIST) => f.write_str(
                " (the descriptor is already registered, by another `AsyncFd` or socket: \
                 register each descriptor once, and share that `AsyncFd`)",
            ),
            _ => Ok(()),
        }
    }
}

impl<T> fmt::Debug for AsyncFdRegisterError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AsyncFdRegisterError")
            .field("cause", &self.cause)
            .finish_non_exhaustive()
    }
}

impl<T> std::error::Error for AsyncFdRegisterError<T> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.cause)
    }
}

/// The registration's error; the value is dropped.
impl<T> From<AsyncFdRegisterError<T>> for io::Error {
    fn from(error: AsyncFdRegisterError<T>) -> io::Error {
        error.cause
    }
}
