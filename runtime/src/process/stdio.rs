//! The parent's ends of a child's standard streams: non-blocking pipes
//! registered with the reactor, as `futures-io` streams.

use crate::io::registered::Registered;
use futures_io::{AsyncRead, AsyncWrite};
use mio::unix::pipe::{Receiver, Sender};
use rt_reactor::{Direction, Interest};
use std::fmt;
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::pin::Pin;
use std::process::Stdio;
use std::task::{Context, Poll};

/// A pipe end, either direction.
trait PipeEnd: mio::event::Source + AsRawFd + Into<OwnedFd> {
    fn set_nonblocking(&self, nonblocking: bool) -> io::Result<()>;
}

impl PipeEnd for Sender {
    fn set_nonblocking(&self, nonblocking: bool) -> io::Result<()> {
        Sender::set_nonblocking(self, nonblocking)
    }
}

impl PipeEnd for Receiver {
    fn set_nonblocking(&self, nonblocking: bool) -> io::Result<()> {
        Receiver::set_nonblocking(self, nonblocking)
    }
}

/// Registers a pipe end with the current runtime's reactor, non-blocking.
#[track_caller]
fn register<E: PipeEnd>(end: E, interest: Interest) -> io::Result<Registered<E>> {
    end.set_nonblocking(true)?;
    Registered::new(end, interest)
}

/// Deregisters a pipe end and hands it back in blocking mode.
fn into_blocking_fd<E: PipeEnd>(pipe: Registered<E>) -> io::Result<OwnedFd> {
    let end = pipe.into_inner()?;
    end.set_nonblocking(false)?;
    Ok(end.into())
}

/// The writing end of a child's standard input.
///
/// Writes wait in the reactor while the pipe is full. The child sees the
/// end of its input when this is dropped or closed
/// ([`AsyncWriteExt::close`](crate::io::AsyncWriteExt::close)).
///
/// # Examples
///
/// ```
/// use rt::io::{AsyncReadExt, AsyncWriteExt};
/// use rt::process::Command;
/// use std::process::Stdio;
///
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let mut child = Command::new("cat")
///         .stdin(Stdio::piped())
///         .stdout(Stdio::piped())
///         .spawn()
///         .unwrap();
///     let mut stdin = child.stdin.take().unwrap();
///     stdin.write_all(b"meow").await.unwrap();
///     stdin.close().await.unwrap();
///     let mut echoed = String::new();
///     child.stdout.take().unwrap().read_to_string(&mut echoed).await.unwrap();
///     assert_eq!(echoed, "meow");
///     assert!(child.wait().await.unwrap().success());
/// });
/// ```
pub struct ChildStdin {
    /// `None` once closed.
    pipe: Option<Registered<Sender>>,
}

/// The reading end of a child's standard output.
///
/// # Examples
///
/// ```
/// use rt::io::AsyncReadExt;
/// use rt::process::Command;
/// use std::process::Stdio;
///
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let mut child = Command::new("echo").arg("hi").stdout(Stdio::piped()).spawn().unwrap();
///     let mut out = String::new();
///     child.stdout.take().unwrap().read_to_string(&mut out).await.unwrap();
///     assert_eq!(out, "hi\n");
///     child.wait().await.unwrap();
/// });
/// ```
pub struct ChildStdout {
    pipe: Registered<Receiver>,
}

/// The reading end of a child's standard error.
///
/// # Examples
///
/// ```
/// use rt::io::AsyncReadExt;
/// use rt::process::Command;
/// use std::process::Stdio;
///
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let mut child = Command::new("sh")
///         .args(["-c", "echo oops >&2"])
///         .stderr(Stdio::piped())
///         .spawn()
///         .unwrap();
///     let mut err = String::new();
///     child.stderr.take().unwrap().read_to_string(&mut err).await.unwrap();
///     assert_eq!(err, "oops\n");
///     child.wait().await.unwrap();
/// });
/// ```
pub struct ChildStderr {
    pipe: Registered<Receiver>,
}

impl ChildStdin {
    #[track_caller]
    pub(crate) fn new(stdin: std::process::ChildStdin) -> io::Result<ChildStdin> {
        Ok(ChildStdin {
            pipe: Some(register(Sender::from(stdin), Interest::WRITABLE)?),
        })
    }

    fn pipe(&self) -> io::Result<&Registered<Sender>> {
        self.pipe.as_ref().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::BrokenPipe,
                "rt::process: write to a ChildStdin that was closed",
            )
        })
    }

    /// Deregisters the pipe and hands it back in blocking mode, e.g. to be
    /// another child's input.
    ///
    /// # Errors
    ///
    /// Fails if the pipe was closed, or deregistering or switching it back
    /// to blocking mode fails.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::process::Command;
    /// use std::process::Stdio;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let mut child = Command::new("cat").stdin(Stdio::piped()).spawn().unwrap();
    ///     let fd = child.stdin.take().unwrap().into_owned_fd().unwrap();
    ///     drop(fd);
    ///     child.wait().await.unwrap();
    /// });
    /// ```
    pub fn into_owned_fd(mut self) -> io::Result<OwnedFd> {
        let pipe = self.pipe.take().ok_or_else(|| {
            io::Error::new(io::ErrorKind::BrokenPipe, "the ChildStdin was closed")
        })?;
        into_blocking_fd(pipe)
    }
}

macro_rules! reader {
    ($name:ident, $std:ty) => {
        impl $name {
            #[track_caller]
            pub(crate) fn new(std: $std) -> io::Result<$name> {
                Ok($name {
                    pipe: register(Receiver::from(std), Interest::READABLE)?,
                })
            }

            /// Deregisters the pipe and hands it back in blocking mode,
            /// e.g. to be another child's input.
            ///
            /// # Errors
            ///
            /// Fails if deregistering or switching to blocking mode fails.
            ///
            /// # Examples
            ///
            /// See [`Command::stdin`](crate::process::Command::stdin) for
            /// a pipeline built this way.
            pub fn into_owned_fd(self) -> io::Result<OwnedFd> {
                into_blocking_fd(self.pipe)
            }
        }

        impl AsyncRead for $name {
            fn poll_read(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &mut [u8],
            ) -> Poll<io::Result<usize>> {
                self.pipe
                    .poll_io(cx, Direction::Read, |mut pipe| pipe.read(buf))
            }

            fn poll_read_vectored(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                bufs: &mut [io::IoSliceMut<'_>],
            ) -> Poll<io::Result<usize>> {
                self.pipe
                    .poll_io(cx, Direction::Read, |mut pipe| pipe.read_vectored(bufs))
            }
        }

        impl TryFrom<$name> for Stdio {
            type Error = io::Error;

            /// The pipe as another child's standard stream.
            fn try_from(stream: $name) -> io::Result<Stdio> {
                Ok(Stdio::from(stream.into_owned_fd()?))
            }
        }

        impl AsRawFd for $name {
            fn as_raw_fd(&self) -> RawFd {
                self.pipe.get_ref().as_raw_fd()
            }
        }

        impl AsFd for $name {
            fn as_fd(&self) -> BorrowedFd<'_> {
                self.pipe.get_ref().as_fd()
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($name))
                    .field("fd", &self.as_raw_fd())
                    .finish()
            }
        }
    };
}

reader!(ChildStdout, std::process::ChildStdout);
reader!(ChildStderr, std::process::ChildStderr);

impl AsyncWrite for ChildStdin {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.pipe()?
            .poll_io(cx, Direction::Write, |mut pipe| pipe.write(buf))
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.pipe()?
            .poll_io(cx, Direction::Write, |mut pipe| pipe.write_vectored(bufs))
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        // A pipe has no user-space buffer: written bytes are the child's.
        Poll::Ready(Ok(()))
    }

    /// Closes the pipe: the child reads the end of its input.
    fn poll_close(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.pipe = None;
        Poll::Ready(Ok(()))
    }
}

impl TryFrom<ChildStdin> for Stdio {
    type Error = io::Error;

    /// The pipe as another child's standard stream.
    fn try_from(stream: ChildStdin) -> io::Result<Stdio> {
        Ok(Stdio::from(stream.into_owned_fd()?))
    }
}

impl fmt::Debug for ChildStdin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChildStdin")
            .field("fd", &self.pipe.as_ref().map(|p| p.get_ref().as_raw_fd()))
            .finish()
    }
}
