//! Time errors.

use std::fmt;

/// A timer failure, with tokio's three kinds: the timer has shut down,
/// it is at capacity, or the duration is out of its range.
///
/// rt's own operations do not return it (a sleep outside a runtime
/// panics, naming the fix, and rt's wheel has no entry limit); it exists
/// so that code written against tokio's `time::error::Error` (building,
/// matching or reporting one) compiles and behaves the same.
///
/// # Examples
///
/// ```
/// use rt::time::error::Error;
///
/// let err = Error::at_capacity();
/// assert!(err.is_at_capacity() && !err.is_shutdown() && !err.is_invalid());
/// assert_eq!(err.to_string(), "the timer is at capacity: no new entry can be added now");
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Error(ErrorKind);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ErrorKind {
    Shutdown,
    AtCapacity,
    Invalid,
}

impl Error {
    /// The timer has shut down (its runtime is gone): a permanent error.
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(rt::time::error::Error::shutdown().is_shutdown());
    /// ```
    pub fn shutdown() -> Error {
        Error(ErrorKind::Shutdown)
    }

    /// Whether this is the [`shutdown`](Error::shutdown) error.
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(!rt::time::error::Error::invalid().is_shutdown());
    /// ```
    pub fn is_shutdown(&self) -> bool {
        self.0 == ErrorKind::Shutdown
    }

    /// The timer cannot take another entry now: a transient error.
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(rt::time::error::Error::at_capacity().is_at_capacity());
    /// ```
    pub fn at_capacity() -> Error {
        Error(ErrorKind::AtCapacity)
    }

    /// Whether this is the [`at_capacity`](Error::at_capacity) error.
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(!rt::time::error::Error::shutdown().is_at_capacity());
    /// ```
    pub fn is_at_capacity(&self) -> bool {
        self.0 == ErrorKind::AtCapacity
    }

    /// The duration is beyond what the timer can represent.
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(rt::time::error::Error::invalid().is_invalid());
    /// ```
    pub fn invalid() -> Error {
        Error(ErrorKind::Invalid)
    }

    /// Whether this is the [`invalid`](Error::invalid) error.
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(!rt::time::error::Error::at_capacity().is_invalid());
    /// ```
    pub fn is_invalid(&self) -> bool {
        self.0 == ErrorKind::Invalid
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self.0 {
            ErrorKind::Shutdown => {
                "the timer has shut down: its rt runtime is gone, so no timer operation can \
                 complete"
            }
            ErrorKind::AtCapacity => "the timer is at capacity: no new entry can be added now",
            ErrorKind::Invalid => "the duration is beyond the timer's range",
        })
    }
}

impl std::error::Error for Error {}

/// The error of [`timeout`](crate::time::timeout) and
/// [`timeout_at`](crate::time::timeout_at): the deadline passed before the
/// future completed.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
///
/// let rt = rt::runtime::Builder::new_current_thread().start_paused(true).build().unwrap();
/// let result = rt.block_on(async {
///     rt::time::timeout(Duration::from_secs(1), std::future::pending::<()>()).await
/// });
/// let elapsed: rt::time::error::Elapsed = result.unwrap_err();
/// assert_eq!(elapsed.to_string(), "deadline has elapsed");
/// let io: std::io::Error = elapsed.into();
/// assert_eq!(io.kind(), std::io::ErrorKind::TimedOut);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Elapsed(());

impl Elapsed {
    pub(crate) fn new() -> Elapsed {
        Elapsed(())
    }
}

impl fmt::Display for Elapsed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("deadline has elapsed")
    }
}

impl std::error::Error for Elapsed {}

impl From<Elapsed> for std::io::Error {
    fn from(elapsed: Elapsed) -> std::io::Error {
        std::io::Error::new(std::io::ErrorKind::TimedOut, elapsed)
    }
}
