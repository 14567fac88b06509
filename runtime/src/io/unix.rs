//! Readiness on Unix file descriptors at tokio's path
//! (`tokio::io::unix::AsyncFd`): the same types as [`crate::io::AsyncFd`]
//! and its guards, so code naming `io::unix::...` ports by renaming.
//!
//! # Examples
//!
//! ```
//! use rt::io::unix::AsyncFd;
//!
//! let rt = rt::runtime::Runtime::new().unwrap();
//! rt.block_on(async {
//!     let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
//!     a.set_nonblocking(true).unwrap();
//!     let fd = AsyncFd::new(a).unwrap();
//!     // A fresh socket has room in its send buffer.
//!     let mut guard = fd.writable().await.unwrap();
//!     assert!(guard.ready().is_writable());
//!     guard.clear_ready();
//! });
//! ```

pub use super::{
    AsyncFd, AsyncFdReadyGuard, AsyncFdReadyMutGuard, AsyncFdRegisterError, AsyncFdTryNewError,
    TryIoError,
};
