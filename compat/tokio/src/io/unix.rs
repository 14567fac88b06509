//! Readiness on any Unix file descriptor: rt's `AsyncFd`, whose shape is
//! tokio's, re-exported.

pub use rt::io::{AsyncFd, AsyncFdReadyGuard, AsyncFdReadyMutGuard, TryIoError};

/// The error of [`AsyncFd::try_new`] and [`AsyncFd::try_with_interest`]:
/// the registration failed, and the value comes back with the error.
pub use rt::io::AsyncFdTryNewError as AsyncFdRegisterError;

#[doc(hidden)]
pub use rt::io::AsyncFdTryNewError;
