//! Asynchronous I/O: the traits, their extension methods, and readiness on
//! any file descriptor.
//!
//! The traits are the runtime-neutral [`AsyncRead`]/[`AsyncWrite`] of
//! `futures-io`, which most of the ecosystem implements. The extension
//! traits [`AsyncReadExt`], [`AsyncWriteExt`], [`AsyncBufReadExt`] and
//! [`AsyncSeekExt`] are rt's own, implemented for every futures-io type, with tokio's method
//! names (`read_u32`, `write_all`, `shutdown`, `lines().next_line()`,
//! `rewind`), so
//! code written against `tokio::io` ports by renaming. [`split`] is a free
//! function as in tokio, [`copy_bidirectional`] proxies two streams,
//! [`duplex`] makes an in-memory stream pair, [`simplex`] a one-way one, and [`stdin`], [`stdout`],
//! [`stderr`] are the standard streams (on the blocking pool); [`empty`],
//! [`repeat`] and [`sink`] are rt's own, since, always ready, they spend
//! the task's cooperative budget as tokio's do (futures-util's never yield,
//! so a loop over one starved the other tasks), and so are [`copy`] and
//! [`copy_buf`], which flush the writer while the reader waits, as tokio's
//! do (futures-util's flush only at the end); the helpers
//! [`BufReader`], [`BufWriter`], [`Cursor`], ... are `futures-util`'s,
//! re-exported. Read from memory through [`Cursor`] or a `&[u8]`, not
//! `std::io::Cursor`: tokio's traits are implemented for that one,
//! futures-io's cannot be, so it is no reader here. The halves of
//! [`split`] go back together with [`ReadHalf::reunite`] (tokio's
//! `unsplit`).
//! [`AsyncFd`] turns any non-blocking file descriptor into something a
//! task can wait on (also at tokio's path, [`unix::AsyncFd`]). `Error`,
//! `ErrorKind`, `Result` and `SeekFrom` are `std::io`'s, re-exported as
//! tokio does, so `rt::io::Result<()>` reads as `tokio::io::Result<()>`.
//!
//! # rt's extension traits or futures-util's
//!
//! Import one set, not both: `futures_util::AsyncReadExt` and
//! `rt::io::AsyncReadExt` (likewise the write and buffered-read traits)
//! share method names, so with both in scope `reader.read(..)` is
//! ambiguous and does not compile. rt's have tokio's extras (`read_u32`,
//! `shutdown`, `Lines::next_line`) and no by-value `split`, so
//! `stream.split()` on a `TcpStream` or `UnixStream` is the socket's
//! lock-free split; futures-util's have its extras (`into_sink`,
//! `split` by value). To call the other set's method in one place, use
//! the qualified form: `futures_util::AsyncReadExt::split(stream)`.
//!
//! # `bytes` buffers (feature `bytes`)
//!
//! With the `bytes` feature, `AsyncReadExt::read_buf` reads into a
//! `bytes::BufMut` and `AsyncWriteExt::write_buf` / `write_all_buf` write
//! a `bytes::Buf`, for every reader and writer; the sockets have `try_read_buf` (streams
//! and their read halves) and `recv_buf`, `recv_buf_from` and their `try_`
//! forms (datagram sockets), which receive straight into the buffer's
//! uninitialised capacity. `read_buf` zeroes the capacity it reads into
//! first, as `AsyncRead::poll_read` takes initialised memory.
//!
//! # tokio's I/O traits (feature `tokio-io`)
//!
//! With the `tokio-io` feature, [`TcpStream`](crate::net::TcpStream),
//! [`UnixStream`](crate::net::UnixStream), their split and owned halves,
//! [`fs::File`](crate::fs::File), [`DuplexStream`] and [`SimplexStream`] also implement
//! `tokio::io::AsyncRead` and `tokio::io::AsyncWrite`, so crates written
//! against those traits (tokio-util's `Framed` codecs, tokio-rustls, ...)
//! take rt's streams directly. tokio comes in with no features: its traits
//! only, never its runtime. (`tokio::io::AsyncReadExt` would then clash
//! with rt's `AsyncReadExt` on these types, as futures-util's does:
//! import one.)
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
mod async_fd_errors;
mod async_fd_guard;
mod buf_read_ext;
mod buf_stream;
pub(crate) mod context_error;
mod copy;
mod copy_bidirectional;
mod duplex;
mod empty;
mod join;
mod mem_pipe;
mod read_ext;
pub(crate) mod registered;
mod seek_ext;
mod simplex;
mod split;
mod stdio;
pub(crate) mod sys;
#[cfg(feature = "tokio-io")]
mod tokio_io;
pub mod unix;
mod write_ext;

pub use async_fd::AsyncFd;
pub use async_fd_errors::{AsyncFdRegisterError, AsyncFdTryNewError, TryIoError};
pub use async_fd_guard::{AsyncFdReadyGuard, AsyncFdReadyMutGuard};
pub use buf_read_ext::{AsyncBufReadExt, Lines, Split};
pub use buf_stream::BufStream;
pub use copy::{copy, copy_buf};
pub use copy_bidirectional::{copy_bidirectional, copy_bidirectional_with_sizes};
pub use duplex::{DuplexStream, duplex};
pub use empty::{Empty, Repeat, Sink, empty, repeat, sink};
pub use futures_io::{AsyncBufRead, AsyncRead, AsyncSeek, AsyncWrite};
pub use futures_util::io::{BufReader, BufWriter, Chain, Cursor, ReadHalf, Take, WriteHalf};
pub use join::{Join, join};
pub use read_ext::AsyncReadExt;
pub use rt_reactor::{Interest, Ready};
pub use seek_ext::AsyncSeekExt;
pub use simplex::{SimplexStream, simplex};
pub use split::split;
pub use std::io::{Error, ErrorKind, Result, SeekFrom};
pub use stdio::{Stderr, Stdin, Stdout, stderr, stdin, stdout};
pub use write_ext::AsyncWriteExt;
