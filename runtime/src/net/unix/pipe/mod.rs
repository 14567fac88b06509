//! Unix pipes and FIFOs on the reactor, tokio's `net::unix::pipe`:
//! [`pipe`] makes an anonymous pipe, [`OpenOptions`] opens a named one
//! (a FIFO), and [`Sender`] / [`Receiver`] are the two ends, each
//! registered with the runtime's reactor in its one direction.
//!
//! A receiver reads end-of-file (`Ok(0)`) once every sending end is
//! closed and the buffered bytes are read; a sender's writes fail with
//! [`BrokenPipe`](std::io::ErrorKind::BrokenPipe) once every receiving end
//! is closed (Rust ignores `SIGPIPE`, so the process is not killed).
//! Closing means dropping: a pipe has no half-close, so
//! [`AsyncWriteExt::shutdown`](crate::io::AsyncWriteExt::shutdown) on a
//! `Sender` only flushes (nothing is buffered), as in tokio.
//!
//! # Examples
//!
//! ```
//! use rt::io::{AsyncReadExt, AsyncWriteExt};
//! use rt::net::unix::pipe;
//!
//! let rt = rt::runtime::Runtime::new().unwrap();
//! rt.block_on(async {
//!     let (mut tx, mut rx) = pipe::pipe().unwrap();
//!     let writer = rt::spawn(async move {
//!         tx.write_all(b"through the pipe").await.unwrap();
//!         // Dropping `tx` closes the last sending end: end-of-file.
//!     });
//!     let mut text = String::new();
//!     rx.read_to_string(&mut text).await.unwrap();
//!     assert_eq!(text, "through the pipe");
//!     writer.await.unwrap();
//! });
//! ```

mod fd;
mod open_options;
mod receiver;
mod sender;

pub use open_options::OpenOptions;
pub use receiver::Receiver;
pub use sender::Sender;

/// Creates an anonymous pipe and registers both ends with the current
/// runtime's reactor: what the [`Sender`] writes, the [`Receiver`] reads.
/// To hand an end to a child process, turn it into a blocking descriptor
/// first ([`Sender::into_blocking_fd`]); for a child's own standard streams
/// [`Stdio::piped`](std::process::Stdio::piped) is simpler.
///
/// # Errors
///
/// The error of `pipe2`, for example when the process is out of file
/// descriptors.
///
/// # Panics
///
/// Panics outside a runtime with I/O enabled, as every socket does.
///
/// # Examples
///
/// ```
/// use rt::io::AsyncReadExt;
/// use rt::net::unix::pipe;
///
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let (tx, mut rx) = pipe::pipe().unwrap();
///     let status = rt::process::Command::new("echo")
///         .arg("hello")
///         .stdout(tx.into_blocking_fd().unwrap())
///         .status();
///     let mut out = String::new();
///     rx.read_to_string(&mut out).await.unwrap();
///     assert!(status.await.unwrap().success());
///     assert_eq!(out, "hello\n");
/// });
/// ```
#[track_caller]
pub fn pipe() -> std::io::Result<(Sender, Receiver)> {
    let (tx, rx) = mio::unix::pipe::new()?;
    Ok((Sender::from_mio(tx)?, Receiver::from_mio(rx)?))
}

fn _assert_send_sync() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Sender>();
    send_sync::<Receiver>();
    send_sync::<OpenOptions>();
}
