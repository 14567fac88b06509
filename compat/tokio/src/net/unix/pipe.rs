//! Unix pipes and FIFOs: newtypes over rt's `pipe::Sender` and
//! `pipe::Receiver` (tokio's traits; reads straight into a `ReadBuf`'s
//! uninitialised part), and `OpenOptions` giving them.

use crate::net::newtype::{forward, socket_newtype, stream_io};
use std::fs::File;
use std::io;
use std::os::fd::OwnedFd;
use std::path::Path;

/// The writing end of a pipe. A newtype over rt's, for tokio's
/// `AsyncWrite`; `try_write`, `writable`, `ready`, ... forward to rt's.
pub struct Sender {
    inner: rt::net::unix::pipe::Sender,
}

/// The reading end of a pipe. A newtype over rt's, for tokio's
/// `AsyncRead`; `try_read`, `readable`, `ready`, ... forward to rt's.
pub struct Receiver {
    inner: rt::net::unix::pipe::Receiver,
}

socket_newtype!(Sender, rt::net::unix::pipe::Sender);
socket_newtype!(Receiver, rt::net::unix::pipe::Receiver);
stream_io!(read: Receiver => |s| s.inner);
stream_io!(write: Sender);

/// An anonymous pipe: what the sender writes the receiver reads.
///
/// # Errors
///
/// The OS error of `pipe2`.
///
/// # Panics
///
/// Outside an rt runtime with I/O enabled.
///
/// # Examples
///
/// ```
/// use tokio::io::{AsyncReadExt, AsyncWriteExt};
///
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let (mut tx, mut rx) = tokio::net::unix::pipe::pipe().unwrap();
/// tx.write_all(b"through").await.unwrap();
/// drop(tx);
/// let mut got = String::new();
/// rx.read_to_string(&mut got).await.unwrap();
/// assert_eq!(got, "through");
/// # });
/// ```
#[track_caller]
pub fn pipe() -> io::Result<(Sender, Receiver)> {
    let (tx, rx) = rt::net::unix::pipe::pipe()?;
    Ok((tx.into(), rx.into()))
}

impl Sender {
    forward! {
        /// Waits for any of `interest`'s readiness.
        @async fn ready(&self, interest: crate::io::Interest) -> io::Result<crate::io::Ready>;
        /// Waits until the pipe is writable.
        @async fn writable(&self) -> io::Result<()>;
        /// Polls for write readiness.
        fn poll_write_ready(&self, cx: &mut std::task::Context<'_>) -> std::task::Poll<io::Result<()>>;
        /// Writes without waiting (`WouldBlock` when the pipe is full).
        fn try_write(&self, buf: &[u8]) -> io::Result<usize>;
        /// Writes several buffers without waiting.
        fn try_write_vectored(&self, buf: &[io::IoSlice<'_>]) -> io::Result<usize>;
        /// Runs `f` on the pipe if it is writable, clearing readiness on `WouldBlock`.
        fn try_io[R](&self, f: impl FnOnce() -> io::Result<R>) -> io::Result<R>;
    }
}

impl Receiver {
    forward! {
        /// Waits for any of `interest`'s readiness.
        @async fn ready(&self, interest: crate::io::Interest) -> io::Result<crate::io::Ready>;
        /// Waits until the pipe is readable.
        @async fn readable(&self) -> io::Result<()>;
        /// Polls for read readiness.
        fn poll_read_ready(&self, cx: &mut std::task::Context<'_>) -> std::task::Poll<io::Result<()>>;
        /// Reads without waiting (`WouldBlock` when nothing is ready).
        fn try_read(&self, buf: &mut [u8]) -> io::Result<usize>;
        /// Reads into several buffers without waiting.
        fn try_read_vectored(&self, bufs: &mut [io::IoSliceMut<'_>]) -> io::Result<usize>;
        /// Reads into a `BufMut`'s spare capacity without waiting.
        #[cfg(feature = "bytes")]
        fn try_read_buf[B: bytes::BufMut](&self, buf: &mut B) -> io::Result<usize>;
        /// Runs `f` on the pipe if it is readable, clearing readiness on `WouldBlock`.
        fn try_io[R](&self, f: impl FnOnce() -> io::Result<R>) -> io::Result<R>;
    }
}

/// Constructors and conversions that forward to rt's.
macro_rules! pipe_end {
    ($Type:ident, $what:literal) => {
        impl $Type {
            #[doc = concat!("Registers `file`, which must be a pipe or FIFO opened for ", $what, ".")]
            ///
            /// # Errors
            ///
            /// `InvalidInput` if it is not, or the OS error of the
            /// registration.
            #[track_caller]
            pub fn from_file(file: File) -> io::Result<$Type> {
                rt::net::unix::pipe::$Type::from_file(file).map($Type::from)
            }

            /// As `from_file`, from an owned descriptor.
            ///
            /// # Errors
            ///
            /// As `from_file`.
            #[track_caller]
            pub fn from_owned_fd(fd: OwnedFd) -> io::Result<$Type> {
                rt::net::unix::pipe::$Type::from_owned_fd(fd).map($Type::from)
            }

            /// As `from_file`, without checking the file's type or mode.
            ///
            /// # Errors
            ///
            /// The OS error of the registration.
            #[track_caller]
            pub fn from_file_unchecked(file: File) -> io::Result<$Type> {
                rt::net::unix::pipe::$Type::from_file_unchecked(file).map($Type::from)
            }

            /// As `from_owned_fd`, without checking the file's type or mode.
            ///
            /// # Errors
            ///
            /// The OS error of the registration.
            #[track_caller]
            pub fn from_owned_fd_unchecked(fd: OwnedFd) -> io::Result<$Type> {
                rt::net::unix::pipe::$Type::from_owned_fd_unchecked(fd).map($Type::from)
            }

            /// Deregisters the end and hands it back in blocking mode.
            ///
            /// # Errors
            ///
            /// The OS error of deregistering or switching modes.
            pub fn into_blocking_fd(self) -> io::Result<OwnedFd> {
                self.inner.into_blocking_fd()
            }

            /// Deregisters the end and hands it back, still non-blocking.
            ///
            /// # Errors
            ///
            /// The OS error of deregistering.
            pub fn into_nonblocking_fd(self) -> io::Result<OwnedFd> {
                self.inner.into_nonblocking_fd()
            }
        }
    };
}

pipe_end!(Sender, "writing");
pipe_end!(Receiver, "reading");

/// Options for opening a FIFO as a [`Sender`] or [`Receiver`]. A newtype
/// over rt's, whose ends are the facade's.
#[derive(Clone, Debug, Default)]
pub struct OpenOptions {
    inner: rt::net::unix::pipe::OpenOptions,
}

impl OpenOptions {
    /// The default options.
    pub fn new() -> OpenOptions {
        OpenOptions {
            inner: rt::net::unix::pipe::OpenOptions::new(),
        }
    }

    /// Opens the FIFO for reading and writing (Linux), so opening never
    /// waits for a peer.
    pub fn read_write(&mut self, value: bool) -> &mut OpenOptions {
        self.inner.read_write(value);
        self
    }

    /// Skips checking that the file is a FIFO.
    pub fn unchecked(&mut self, value: bool) -> &mut OpenOptions {
        self.inner.unchecked(value);
        self
    }

    /// Opens the FIFO at `path` for reading.
    ///
    /// # Errors
    ///
    /// The OS error of `open`, or `InvalidInput` if it is not a FIFO.
    pub fn open_receiver<P: AsRef<Path>>(&self, path: P) -> io::Result<Receiver> {
        self.inner.open_receiver(path).map(Receiver::from)
    }

    /// Opens the FIFO at `path` for writing.
    ///
    /// # Errors
    ///
    /// The OS error of `open` (`ENXIO` with no reader, unless
    /// `read_write`), or `InvalidInput` if it is not a FIFO.
    pub fn open_sender<P: AsRef<Path>>(&self, path: P) -> io::Result<Sender> {
        self.inner.open_sender(path).map(Sender::from)
    }
}
