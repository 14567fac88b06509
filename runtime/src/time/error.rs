//! Time errors.

use std::fmt;

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
