//! `Receiver`: the reading end of a pipe, registered for readability.

use super::fd::{End, check};
use crate::io::registered::Registered;
use crate::net::registered_io::{doc_text, registered_io};
use futures_io::AsyncRead;
use rt_reactor::{Direction, Interest};
use std::fmt;
use std::fs::File;
use std::io::{self, IoSliceMut, Read};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::pin::Pin;
use std::task::{Context, Poll};

/// The reading end of a Unix pipe: made by [`pipe`](super::pipe),
/// [`OpenOptions::open_receiver`](super::OpenOptions::open_receiver) (a
/// FIFO), or from a descriptor. Reads wait in the reactor while the pipe
/// is empty, and return end-of-file (`Ok(0)`) once every sending end is
/// closed and the bytes are read.
///
/// It implements [`AsyncRead`] (use [`AsyncReadExt`](crate::io::AsyncReadExt)),
/// and has tokio's readiness surface: [`ready`](Receiver::ready),
/// [`readable`](Receiver::readable), [`poll_read_ready`](Receiver::poll_read_ready),
/// the `try_` methods.
///
/// # Examples
///
/// ```
/// use rt::io::{AsyncReadExt, AsyncWriteExt};
/// use rt::net::unix::pipe;
///
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let (mut tx, mut rx) = pipe::pipe().unwrap();
///     tx.write_all(b"last").await.unwrap();
///     drop(tx);
///     let mut buf = Vec::new();
///     rx.read_to_end(&mut buf).await.unwrap();
///     assert_eq!(buf, b"last");
///     assert_eq!(rx.read(&mut [0; 4]).await.unwrap(), 0);
/// });
/// ```
pub struct Receiver {
    io: Registered<mio::unix::pipe::Receiver>,
}

impl Receiver {
    #[track_caller]
    pub(super) fn from_mio(receiver: mio::unix::pipe::Receiver) -> io::Result<Receiver> {
        Ok(Receiver {
            io: Registered::new(receiver, Interest::READABLE)?,
        })
    }

    fn registered(&self) -> &Registered<mio::unix::pipe::Receiver> {
        &self.io
    }

    /// An end from an open FIFO (or pipe) `file`: checked to be a pipe
    /// opened for reading, made non-blocking, and registered.
    ///
    /// # Errors
    ///
    /// `InvalidInput` if `file` is not a pipe or not open for reading; the
    /// OS error of checking it or of the registration.
    ///
    /// # Panics
    ///
    /// Panics outside a runtime with I/O enabled.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let regular = std::fs::File::open("Cargo.toml").unwrap();
    ///     let err = rt::net::unix::pipe::Receiver::from_file(regular).unwrap_err();
    ///     assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
    /// });
    /// ```
    #[track_caller]
    pub fn from_file(file: File) -> io::Result<Receiver> {
        Receiver::from_owned_fd(file.into())
    }

    /// As [`from_file`](Receiver::from_file), from a descriptor (an
    /// anonymous pipe's reading end, say).
    ///
    /// # Errors
    ///
    /// As [`from_file`](Receiver::from_file).
    ///
    /// # Panics
    ///
    /// Panics outside a runtime with I/O enabled.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::AsyncReadExt;
    /// use std::io::Write;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (reader, mut writer) = std::io::pipe().unwrap();
    ///     let mut rx = rt::net::unix::pipe::Receiver::from_owned_fd(reader.into()).unwrap();
    ///     writer.write_all(b"from std").unwrap();
    ///     drop(writer);
    ///     let mut text = String::new();
    ///     rx.read_to_string(&mut text).await.unwrap();
    ///     assert_eq!(text, "from std");
    /// });
    /// ```
    #[track_caller]
    pub fn from_owned_fd(fd: OwnedFd) -> io::Result<Receiver> {
        let fd = check(fd, End::Receiver)?;
        let receiver = mio::unix::pipe::Receiver::from(fd);
        receiver.set_nonblocking(true)?;
        Receiver::from_mio(receiver)
    }

    /// As [`from_file`](Receiver::from_file) without the checks: `file`
    /// must be a pipe's (or FIFO's) end open for reading and already
    /// non-blocking, or the end misbehaves (a blocking read stalls its
    /// worker).
    ///
    /// # Errors
    ///
    /// The OS error of the registration.
    ///
    /// # Panics
    ///
    /// Panics outside a runtime with I/O enabled.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (_tx, rx) = rt::net::unix::pipe::pipe().unwrap();
    ///     let fd = rx.into_nonblocking_fd().unwrap();
    ///     let rx = rt::net::unix::pipe::Receiver::from_file_unchecked(fd.into()).unwrap();
    ///     assert_eq!(rx.try_read(&mut [0; 1]).unwrap_err().kind(), std::io::ErrorKind::WouldBlock);
    /// });
    /// ```
    #[track_caller]
    pub fn from_file_unchecked(file: File) -> io::Result<Receiver> {
        Receiver::from_owned_fd_unchecked(file.into())
    }

    /// As [`from_file_unchecked`](Receiver::from_file_unchecked), from a
    /// descriptor.
    ///
    /// # Errors
    ///
    /// The OS error of the registration.
    ///
    /// # Panics
    ///
    /// Panics outside a runtime with I/O enabled.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (_tx, rx) = rt::net::unix::pipe::pipe().unwrap();
    ///     let fd = rx.into_nonblocking_fd().unwrap();
    ///     let rx = rt::net::unix::pipe::Receiver::from_owned_fd_unchecked(fd).unwrap();
    ///     assert_eq!(rx.try_read(&mut [0; 1]).unwrap_err().kind(), std::io::ErrorKind::WouldBlock);
    /// });
    /// ```
    #[track_caller]
    pub fn from_owned_fd_unchecked(fd: OwnedFd) -> io::Result<Receiver> {
        Receiver::from_mio(mio::unix::pipe::Receiver::from(fd))
    }

    registered_io! {
        ready
        /// Waits until the pipe has any of the readiness of `interest`
        /// (readable, or read-closed once no sender is left) and says
        /// which; then [`try_read`](Receiver::try_read), which clears the
        /// readiness when it would block.
        ///
        /// Any number of tasks may wait at once, each in a place of its own.
        ///
        /// # Errors
        ///
        /// Fails once the runtime's I/O driver has shut down.
        ///
        /// # Examples
        ///
        /// ```
        /// use rt::io::{AsyncWriteExt, Interest};
        ///
        /// let rt = rt::runtime::Runtime::new().unwrap();
        /// rt.block_on(async {
        ///     let (mut tx, rx) = rt::net::unix::pipe::pipe().unwrap();
        ///     tx.write_all(b"x").await.unwrap();
        ///     assert!(rx.ready(Interest::READABLE).await.unwrap().is_readable());
        /// });
        /// ```
    }

    registered_io! {
        readable
        #[doc = doc_text!(
            [
                "Waits until the pipe is readable (data, or end-of-file once no sender is left).",
                "Any number of tasks may wait at once; readiness wakes them all."
            ],
            errors: "Fails once the runtime's I/O driver has shut down."
        )]
        ///
        /// ```
        /// let rt = rt::runtime::Runtime::new().unwrap();
        /// rt.block_on(async {
        ///     let (tx, rx) = rt::net::unix::pipe::pipe().unwrap();
        ///     drop(tx); // end-of-file is readable
        ///     rx.readable().await.unwrap();
        ///     assert_eq!(rx.try_read(&mut [0; 8]).unwrap(), 0);
        /// });
        /// ```
    }

    registered_io! {
        poll_ready poll_read_ready, Read
        /// Polls for read readiness, in the shared slot `poll_read` uses:
        /// the last caller's waker wins.
        ///
        /// # Errors
        ///
        /// Fails once the runtime's I/O driver has shut down.
        ///
        /// # Examples
        ///
        /// ```
        /// use rt::io::AsyncWriteExt;
        /// use std::future::poll_fn;
        ///
        /// let rt = rt::runtime::Runtime::new().unwrap();
        /// rt.block_on(async {
        ///     let (mut tx, rx) = rt::net::unix::pipe::pipe().unwrap();
        ///     tx.write_all(b"x").await.unwrap();
        ///     poll_fn(|cx| rx.poll_read_ready(cx)).await.unwrap();
        ///     assert_eq!(rx.try_read(&mut [0; 4]).unwrap(), 1);
        /// });
        /// ```
    }

    /// Reads once without waiting; `Ok(0)` is end-of-file (or an empty
    /// `buf`).
    ///
    /// # Errors
    ///
    /// `WouldBlock` if the pipe is empty (or readability was not reported
    /// yet), or another OS error of `read`.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::AsyncWriteExt;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (mut tx, rx) = rt::net::unix::pipe::pipe().unwrap();
    ///     tx.write_all(b"abc").await.unwrap();
    ///     rx.readable().await.unwrap();
    ///     let mut buf = [0; 8];
    ///     assert_eq!(rx.try_read(&mut buf).unwrap(), 3);
    ///     assert_eq!(rx.try_read(&mut buf).unwrap_err().kind(), std::io::ErrorKind::WouldBlock);
    /// });
    /// ```
    pub fn try_read(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.io
            .try_io(Direction::Read, |mut receiver| receiver.read(buf))
    }

    /// Reads once without waiting, into several buffers (`readv`).
    ///
    /// # Errors
    ///
    /// As [`try_read`](Receiver::try_read).
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::AsyncWriteExt;
    /// use std::io::IoSliceMut;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (mut tx, rx) = rt::net::unix::pipe::pipe().unwrap();
    ///     tx.write_all(b"abcd").await.unwrap();
    ///     rx.readable().await.unwrap();
    ///     let (mut a, mut b) = ([0; 1], [0; 8]);
    ///     let n = rx
    ///         .try_read_vectored(&mut [IoSliceMut::new(&mut a), IoSliceMut::new(&mut b)])
    ///         .unwrap();
    ///     assert_eq!((n, &a, &b[..3]), (4, b"a", &b"bcd"[..]));
    /// });
    /// ```
    pub fn try_read_vectored(&self, bufs: &mut [IoSliceMut<'_>]) -> io::Result<usize> {
        self.io
            .try_io(Direction::Read, |mut receiver| receiver.read_vectored(bufs))
    }

    /// Reads once without waiting (feature `bytes`), straight into the
    /// spare capacity of `buf` (nothing is zeroed first), which is advanced
    /// past the bytes read; returns how many. `Ok(0)` is end-of-file (or no
    /// room in `buf`).
    ///
    /// # Errors
    ///
    /// As [`try_read`](Receiver::try_read); `buf` is then left as it was.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::AsyncWriteExt;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (mut tx, rx) = rt::net::unix::pipe::pipe().unwrap();
    ///     tx.write_all(b"bytes").await.unwrap();
    ///     rx.readable().await.unwrap();
    ///     let mut buf = bytes::BytesMut::with_capacity(16);
    ///     assert_eq!(rx.try_read_buf(&mut buf).unwrap(), 5);
    ///     assert_eq!(&buf[..], b"bytes");
    /// });
    /// ```
    #[cfg(feature = "bytes")]
    pub fn try_read_buf<B: bytes::BufMut + ?Sized>(&self, buf: &mut B) -> io::Result<usize> {
        self.io.try_io(Direction::Read, |receiver| {
            crate::io::sys::read_buf(receiver.as_raw_fd(), buf)
        })
    }

    /// Runs `f` (an operation of your own on the descriptor) if the pipe
    /// was reported readable; a `WouldBlock` from `f` clears that
    /// readiness, so the next wait blocks until the reactor reports it
    /// again. A closed state stays, as tokio's (only this end's own
    /// operations find a FIFO reopened). `f` must not use this
    /// `Receiver`'s own I/O methods.
    ///
    /// # Errors
    ///
    /// `WouldBlock` without readability, or `f`'s error.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::AsyncWriteExt;
    /// use std::io::Read;
    /// use std::os::fd::AsFd;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (mut tx, rx) = rt::net::unix::pipe::pipe().unwrap();
    ///     let mut dup = std::fs::File::from(rx.as_fd().try_clone_to_owned().unwrap());
    ///     tx.write_all(b"own").await.unwrap();
    ///     rx.readable().await.unwrap();
    ///     assert_eq!(rx.try_io(|| dup.read(&mut [0; 8])).unwrap(), 3);
    /// });
    /// ```
    pub fn try_io<R>(&self, f: impl FnOnce() -> io::Result<R>) -> io::Result<R> {
        self.io.try_io_for(Interest::READABLE, |_| f())
    }

    /// Deregisters this end and hands its descriptor back in blocking mode
    /// (for a child process's standard stream, or blocking code).
    ///
    /// # Errors
    ///
    /// The OS error of deregistering or of clearing `O_NONBLOCK`.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::AsyncWriteExt;
    /// use std::io::Read;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (mut tx, rx) = rt::net::unix::pipe::pipe().unwrap();
    ///     tx.write_all(b"to std").await.unwrap();
    ///     drop(tx);
    ///     let mut text = String::new();
    ///     std::fs::File::from(rx.into_blocking_fd().unwrap()).read_to_string(&mut text).unwrap();
    ///     assert_eq!(text, "to std");
    /// });
    /// ```
    pub fn into_blocking_fd(self) -> io::Result<OwnedFd> {
        let receiver = self.io.into_inner()?;
        receiver.set_nonblocking(false)?;
        Ok(receiver.into())
    }

    /// Deregisters this end and hands its descriptor back, still
    /// non-blocking.
    ///
    /// # Errors
    ///
    /// The OS error of deregistering.
    ///
    /// # Examples
    ///
    /// See [`from_file_unchecked`](Receiver::from_file_unchecked).
    pub fn into_nonblocking_fd(self) -> io::Result<OwnedFd> {
        Ok(self.io.into_inner()?.into())
    }
}

impl Receiver {
    /// Reads once, as `AsyncRead::poll_read`, into `buf`, which may be
    /// uninitialised (a tokio `ReadBuf`'s unfilled part): the kernel writes
    /// the bytes straight into it, nothing is zeroed first; returns how
    /// many (`0`: no sender is left, or an empty `buf`). Waits in the read
    /// direction's shared slot: the last waker wins.
    ///
    /// # Errors
    ///
    /// The OS error of `read`, or the I/O driver's shutdown.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::AsyncWriteExt;
    /// use std::future::poll_fn;
    /// use std::mem::MaybeUninit;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (mut tx, rx) = rt::net::unix::pipe::pipe().unwrap();
    ///     tx.write_all(b"hi").await.unwrap();
    ///     let mut buf = [MaybeUninit::<u8>::uninit(); 8];
    ///     let n = poll_fn(|cx| rx.poll_read_uninit(cx, &mut buf)).await.unwrap();
    ///     assert_eq!(n, 2);
    /// });
    /// ```
    pub fn poll_read_uninit(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [std::mem::MaybeUninit<u8>],
    ) -> Poll<io::Result<usize>> {
        self.io.poll_io(cx, Direction::Read, |receiver| {
            crate::io::sys::read_uninit(receiver.as_raw_fd(), buf)
        })
    }
}

impl AsyncRead for Receiver {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.io
            .poll_io(cx, Direction::Read, |mut receiver| receiver.read(buf))
    }

    fn poll_read_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &mut [IoSliceMut<'_>],
    ) -> Poll<io::Result<usize>> {
        self.io.poll_io(cx, Direction::Read, |mut receiver| {
            receiver.read_vectored(bufs)
        })
    }
}

impl AsFd for Receiver {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.io.get_ref().as_fd()
    }
}

impl AsRawFd for Receiver {
    fn as_raw_fd(&self) -> RawFd {
        self.io.get_ref().as_raw_fd()
    }
}

impl fmt::Debug for Receiver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Receiver")
            .field("fd", &self.as_raw_fd())
            .finish()
    }
}
