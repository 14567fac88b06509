//! Readiness on any Unix file descriptor: rt's `AsyncFd`, whose shape is
//! tokio's, re-exported.

pub use rt::io::{
    AsyncFd, AsyncFdReadyGuard, AsyncFdReadyMutGuard, AsyncFdRegisterError, AsyncFdTryNewError,
    TryIoError,
};
