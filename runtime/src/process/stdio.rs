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
    pipe: StdinPipe,
}

/// A `ChildStdin`'s pipe, open or closed.
enum StdinPipe {
    Open(Registered<Sender>),
    /// Closed (`close`/`shutdown`), so the child read the end of its
    /// input. What is kept is the writing end of a fresh pipe whose
    /// reading end is gone: a valid descriptor for the `AsFd`/`AsRawFd`
    /// impls to lend (tokio's `ChildStdin` lends one for as long as it
    /// lives), on which any write fails with `EPIPE`.
    Closed(Sender),
}

impl StdinPipe {
    fn as_fd(&self) -> BorrowedFd<'_> {
        match self {
            StdinPipe::Open(pipe) => pipe.get_ref().as_fd(),
            StdinPipe::Closed(stand_in) => stand_in.as_fd(),
        }
    }
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
    /// Registers the standard input of a child spawned with
    /// `std::process::Command`, so a task can write to it.
    ///
    /// # Errors
    ///
    /// The OS error of switching the pipe to non-blocking mode or of the
    /// registration.
    ///
    /// # Panics
    ///
    /// Panics outside a runtime with I/O enabled.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::AsyncWriteExt;
    /// use std::process::{Command, Stdio};
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let mut child = Command::new("cat").stdin(Stdio::piped()).stdout(Stdio::null()).spawn().unwrap();
    ///     let mut stdin = rt::process::ChildStdin::from_std(child.stdin.take().unwrap()).unwrap();
    ///     stdin.write_all(b"bytes").await.unwrap();
    ///     drop(stdin);
    ///     assert!(child.wait().unwrap().success());
    /// });
    /// ```
    #[track_caller]
    pub fn from_std(stdin: std::process::ChildStdin) -> io::Result<ChildStdin> {
        Ok(ChildStdin {
            pipe: StdinPipe::Open(register(Sender::from(stdin), Interest::WRITABLE)?),
        })
    }

    fn pipe(&self) -> io::Result<&Registered<Sender>> {
        match &self.pipe {
            StdinPipe::Open(pipe) => Ok(pipe),
            StdinPipe::Closed(_) => Err(io::Error::new(
                io::ErrorKind::BrokenPipe,
                "rt::process: write to a ChildStdin that was closed",
            )),
        }
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
    pub fn into_owned_fd(self) -> io::Result<OwnedFd> {
        match self.pipe {
            StdinPipe::Open(pipe) => into_blocking_fd(pipe),
            StdinPipe::Closed(_) => Err(io::Error::new(
                io::ErrorKind::BrokenPipe,
                "the ChildStdin was closed",
            )),
        }
    }
}

macro_rules! reader {
    ($name:ident, $std:ty) => {
        impl $name {
            #[doc = concat!(
                "Registers the `", stringify!($std), "` of a child spawned with ",
                "`std::process::Command`, so a task can read from it.\n\n",
                "# Errors\n\nThe OS error of switching the pipe to non-blocking mode or ",
                "of the registration.\n\n# Panics\n\nPanics outside a runtime with I/O ",
                "enabled.\n\n# Examples\n\n```\n",
                "use rt::io::AsyncReadExt;\n",
                "use std::process::{Command, Stdio};\n\n",
                "let rt = rt::runtime::Runtime::new().unwrap();\n",
                "rt.block_on(async {\n",
                "    let mut child = Command::new(\"sh\").args([\"-c\", \"echo out; echo err >&2\"])\n",
                "        .stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();\n",
                "    let mut stdout = rt::process::ChildStdout::from_std(child.stdout.take().unwrap()).unwrap();\n",
                "    let mut stderr = rt::process::ChildStderr::from_std(child.stderr.take().unwrap()).unwrap();\n",
                "    let (mut out, mut err) = (String::new(), String::new());\n",
                "    stdout.read_to_string(&mut out).await.unwrap();\n",
                "    stderr.read_to_string(&mut err).await.unwrap();\n",
                "    assert_eq!((out.as_str(), err.as_str()), (\"out\\n\", \"err\\n\"));\n",
                "    assert!(child.wait().unwrap().success());\n",
                "});\n```",
            )]
            #[track_caller]
            pub fn from_std(std: $std) -> io::Result<$name> {
                Ok($name {
                    pipe: register(Receiver::from(std), Interest::READABLE)?,
                })
            }

            /// Reads once, as `AsyncRead::poll_read`, into `buf`, which
            /// may be uninitialised (a tokio `ReadBuf`'s unfilled part):
            /// the kernel writes the bytes straight into it, nothing is
            /// zeroed first; returns how many (`0`: the child closed the
            /// pipe, or an empty `buf`).
            ///
            /// # Errors
            ///
            /// The OS error of `read`, or the I/O driver's shutdown.
            ///
            /// # Examples
            ///
            /// ```
            /// use std::future::poll_fn;
            /// use std::mem::MaybeUninit;
            ///
            /// let rt = rt::runtime::Runtime::new().unwrap();
            /// rt.block_on(async {
            ///     let mut child = rt::process::Command::new("echo").arg("hi")
            ///         .stdout(std::process::Stdio::piped()).spawn().unwrap();
            ///     let out = child.stdout.take().unwrap();
            ///     let mut buf = [MaybeUninit::<u8>::uninit(); 8];
            ///     let n = poll_fn(|cx| out.poll_read_uninit(cx, &mut buf)).await.unwrap();
            ///     assert!(n > 0);
            ///     child.wait().await.unwrap();
            /// });
            /// ```
            pub fn poll_read_uninit(
                &self,
                cx: &mut Context<'_>,
                buf: &mut [std::mem::MaybeUninit<u8>],
            ) -> Poll<io::Result<usize>> {
                self.pipe.poll_io(cx, Direction::Read, |pipe| {
                    crate::io::sys::read_uninit(pipe.as_raw_fd(), buf)
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

    /// Closes the pipe: the child reads the end of its input. A stand-in
    /// descriptor (see `StdinPipe::Closed`) is made first; if that fails
    /// the pipe stays open and the error is returned.
    fn poll_close(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if let StdinPipe::Open(_) = self.pipe {
            let (stand_in, reading_end) = mio::unix::pipe::new()?;
            drop(reading_end);
            // Dropping the registration deregisters and closes the pipe.
            self.pipe = StdinPipe::Closed(stand_in);
        }
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

/// The pipe's descriptor. Once the pipe was closed (`close`/`shutdown`)
/// this is a stand-in: the writing end of a pipe nobody reads, so a write
/// to it fails with `EPIPE` (`BrokenPipe`).
impl AsRawFd for ChildStdin {
    fn as_raw_fd(&self) -> RawFd {
        self.pipe.as_fd().as_raw_fd()
    }
}

/// The pipe's descriptor, or its stand-in once closed, as
/// [`AsRawFd`](#impl-AsRawFd-for-ChildStdin) says.
impl AsFd for ChildStdin {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.pipe.as_fd()
    }
}

impl fmt::Debug for ChildStdin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChildStdin")
            .field("fd", &self.as_raw_fd())
            .field("closed", &matches!(self.pipe, StdinPipe::Closed(_)))
            .finish()
    }
}
