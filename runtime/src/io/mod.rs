//! Asynchronous I/O: the traits, their extension methods, and readiness on
//! any file descriptor.
//!
//! The traits are the runtime-neutral [`AsyncRead`]/[`AsyncWrite`] of
//! `futures-io`, and the extension traits and helpers ([`AsyncReadExt`],
//! [`AsyncWriteExt`], [`copy`], `split`, [`BufReader`], ...) are
//! `futures-util`'s, re-exported here so code written for them runs on `rt`
//! unchanged. [`AsyncFd`] turns any non-blocking file descriptor into
//! something a task can wait on.
//!
//! Every I/O resource registers with the runtime's reactor, so it must be
//! created inside a runtime built with
//! [`Builder::enable_io`](crate::runtime::Builder::enable_io) (or
//! [`Runtime::new`](crate::runtime::Runtime::new), which enables it).
//!
//! # Examples
//!
//! ```
//! use rt::io::{AsyncReadExt, AsyncWriteExt};
//! use rt::net::UnixStream;
//!
//! let rt = rt::runtime::Runtime::new().unwrap();
//! rt.block_on(async {
//!     let (mut a, mut b) = UnixStream::pair().unwrap();
//!     a.write_all(b"ping").await.unwrap();
//!     let mut buf = [0; 4];
//!     b.read_exact(&mut buf).await.unwrap();
//!     assert_eq!(&buf, b"ping");
//! });
//! ```

mod async_fd;
pub(crate) mod registered;
pub(crate) mod sys;

pub use async_fd::{AsyncFd, AsyncFdReadyGuard, TryIoError};
pub use futures_io::{AsyncBufRead, AsyncRead, AsyncSeek, AsyncWrite};
pub use futures_util::io::{
    AsyncBufReadExt, AsyncReadExt, AsyncSeekExt, AsyncWriteExt, BufReader, BufWriter, Cursor,
    ReadHalf, WriteHalf, copy, copy_buf, empty, repeat, sink,
};
pub use rt_reactor::{Interest, Ready};
