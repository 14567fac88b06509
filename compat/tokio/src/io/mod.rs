//! tokio's I/O traits and utilities on rt.
//!
//! The traits are tokio's own shapes, defined here: [`AsyncRead`] fills a
//! [`ReadBuf`] (whose unfilled part may be uninitialised), [`AsyncWrite`]
//! has `poll_shutdown`, [`AsyncBufRead`] and [`AsyncSeek`] likewise. They
//! are implemented for the std types tokio implements them for (`&[u8]`,
//! `io::Cursor`, `Vec<u8>`, `Box`, `&mut`, `Pin`), for the facade's
//! sockets, files, pipes and child stdio (which read straight into the
//! `ReadBuf`: nothing is zeroed or copied first), and for the utilities
//! here. The extension traits ([`AsyncReadExt`], [`AsyncWriteExt`],
//! [`AsyncBufReadExt`], [`AsyncSeekExt`]) give the `async fn`s.
//!
//! Gated as in tokio: the extension traits and utilities need `io-util`,
//! the standard streams `io-std`, `unix::AsyncFd`, `Interest` and `Ready`
//! `net`.
//!
//! Only tokio's traits: the facade's types do not implement futures-io's
//! `AsyncRead`/`AsyncWrite` (code that imports both sets of extension
//! traits would not compile). rt's own types, with futures-io's traits,
//! convert with `From` both ways.
//!
//! # Examples
//!
//! ```
//! # #[cfg(feature = "io-util")]
//! # {
//! use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
//!
//! # let rt = rt::runtime::Runtime::new().unwrap();
//! # rt.block_on(async {
//! let (client, server) = tokio::io::duplex(64);
//! let (mut client_read, mut client_write) = tokio::io::split(client);
//! client_write.write_all(b"hello\nworld\n").await.unwrap();
//! client_write.shutdown().await.unwrap();
//! let mut lines = BufReader::new(server).lines();
//! assert_eq!(lines.next_line().await.unwrap().as_deref(), Some("hello"));
//! assert_eq!(lines.next_line().await.unwrap().as_deref(), Some("world"));
//! assert_eq!(lines.next_line().await.unwrap(), None);
//! drop(lines);
//! let mut rest = Vec::new();
//! client_read.read_to_end(&mut rest).await.unwrap();
//! assert!(rest.is_empty());
//! # });
//! # }
//! ```

mod async_buf_read;
mod async_read;
mod async_seek;
mod async_write;
#[cfg(any(
    feature = "fs",
    feature = "io-std",
    feature = "io-util",
    feature = "net",
    feature = "process"
))]
pub(crate) mod forward;
#[cfg(feature = "io-util")]
mod join;
#[cfg(feature = "io-util")]
mod mem;
mod read_buf;
#[cfg(feature = "io-util")]
mod split;
#[cfg(feature = "io-std")]
mod stdio;
#[cfg(feature = "net")]
pub mod unix;
#[cfg(feature = "io-util")]
mod util;

pub use async_buf_read::AsyncBufRead;
pub use async_read::AsyncRead;
pub use async_seek::AsyncSeek;
pub use async_write::AsyncWrite;
#[cfg(feature = "io-util")]
pub use join::{Join, join};
#[cfg(feature = "io-util")]
pub use mem::{DuplexStream, SimplexStream, duplex, simplex};
pub use read_buf::ReadBuf;
#[cfg(feature = "net")]
pub use rt::io::{Interest, Ready};
#[cfg(feature = "io-util")]
pub use split::{ReadHalf, WriteHalf, split};
pub use std::io::{Error, ErrorKind, Result, SeekFrom};
#[cfg(feature = "io-std")]
pub use stdio::{Stderr, Stdin, Stdout, stderr, stdin, stdout};
#[cfg(feature = "io-util")]
pub use util::{
    AsyncBufReadExt, AsyncReadExt, AsyncSeekExt, AsyncWriteExt, BufReader, BufStream, BufWriter,
    Chain, Empty, Lines, Repeat, Sink, Split, Take, copy, copy_bidirectional,
    copy_bidirectional_with_sizes, copy_buf, empty, repeat, sink,
};
