//! `Sender`: the writing end of a pipe, registered for writability.

use super::fd::{End, check};
use crate::io::registered::Registered;
use crate::net::registered_io::{doc_text, registered_io};
use futures_io::AsyncWrite;
use rt_reactor::{Direction, Interest};
use std::fmt;
use std::fs::File;
use std::io::{self, IoSlice, Write};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::pin::Pin;
use std::task::{Context, Poll};

/// The writing end of a Unix pipe: made by [`pipe`](super::pipe),
/// [`OpenOptions::open_sender`](super::OpenOptions::open_sender) (a FIFO),
/// or from a descriptor. Writes wait in the reactor while the pipe is
/// full, and fail with `BrokenPipe` once no reading end is open. Dropping
/// it closes this end: once every sending end is closed, the reader sees
/// end-of-file.
///
/// It implements [`AsyncWrite`] (use [`AsyncWriteExt`](crate::io::AsyncWriteExt)),
/// and has tokio's readiness surface: [`ready`](Sender::ready),
/// [`writable`](Sender::writable), [`poll_write_ready`](Sender::poll_write_ready),
/// the `try_` methods.
///
/// # Examples
///
/// ```
/// use rt::io::AsyncWriteExt;
/// use rt::net::unix::pipe;
///
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let (mut tx, rx) = pipe::pipe().unwrap();
///     tx.write_all(b"x").await.unwrap();
///     drop(rx);
///     let err = tx.write_all(b"y").await.unwrap_err();
///     assert_eq!(err.kind(), std::io::ErrorKind::BrokenPipe);
/// });
/// ```
pub struct Sender {
    io: Registered<mio::unix::pipe::Sender>,
}

impl Sender {
    #[track_caller]
    pub(super) fn from_mio(sender: mio::unix::pipe::Sender) -> io::Result<Sender> {
        Ok(Sender {
            io: Registered::new(sender, Interest::WRITABLE)?,
        })
    }

    fn registered(&self) -> &Registered<mio::unix::pipe::Sender> {
        &self.io
    }

    /// An end from an open FIFO (or pipe) `file`: checked to be a pipe
    /// opened for writing, made non-blocking, and registered.
    ///
    /// # Errors
    ///
    /// `InvalidInput` if `file` is not a pipe or not open for writing; the
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
    ///     let err = rt::net::unix::pipe::Sender::from_file(regular).unwrap_err();
    ///     assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
    /// });
    /// ```
    #[track_caller]
    pub fn from_file(file: File) -> io::Result<Sender> {
        Sender::from_owned_fd(file.into())
    }

    /// As [`from_file`](Sender::from_file), from a descriptor (an anonymous
    /// pipe's writing end, say).
    ///
    /// # Errors
    ///
    /// As [`from_file`](Sender::from_file).
    ///
    /// # Panics
    ///
    /// Panics outside a runtime with I/O enabled.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::io::Read;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (reader, writer) = std::io::pipe().unwrap();
    ///     let tx = rt::net::unix::pipe::Sender::from_owned_fd(writer.into()).unwrap();
    ///     tx.writable().await.unwrap();
    ///     assert_eq!(tx.try_write(b"ok").unwrap(), 2);
    ///     drop(tx);
    ///     let mut got = String::new();
    ///     { reader }.read_to_string(&mut got).unwrap();
    ///     assert_eq!(got, "ok");
    /// });
    /// ```
    #[track_caller]
    pub fn from_owned_fd(fd: OwnedFd) -> io::Result<Sender> {
        let fd = check(fd, End::Sender)?;
        let sender = mio::unix::pipe::Sender::from(fd);
        sender.set_nonblocking(true)?;
        Sender::from_mio(sender)
    }

    /// As [`from_file`](Sender::from_file) without the checks: `file` must
    /// be a pipe's (or FIFO's) end open for writing and already
    /// non-blocking, or the end misbehaves (a blocking write stalls its
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
    ///     let (tx, _rx) = rt::net::unix::pipe::pipe().unwrap();
    ///     let fd = tx.into_nonblocking_fd().unwrap();
    ///     let tx = rt::net::unix::pipe::Sender::from_file_unchecked(fd.into()).unwrap();
    ///     tx.writable().await.unwrap();
    ///     assert_eq!(tx.try_write(b"a").unwrap(), 1);
    /// });
    /// ```
    #[track_caller]
    pub fn from_file_unchecked(file: File) -> io::Result<Sender> {
        Sender::from_owned_fd_unchecked(file.into())
    }

    /// As [`from_file_unchecked`](Sender::from_file_unchecked), from a
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
    ///     let (tx, _rx) = rt::net::unix::pipe::pipe().unwrap();
    ///     let fd = tx.into_nonblocking_fd().unwrap();
    ///     let tx = rt::net::unix::pipe::Sender::from_owned_fd_unchecked(fd).unwrap();
    ///     tx.writable().await.unwrap();
    ///     assert_eq!(tx.try_write(b"a").unwrap(), 1);
    /// });
    /// ```
    #[track_caller]
    pub fn from_owned_fd_unchecked(fd: OwnedFd) -> io::Result<Sender> {
        Sender::from_mio(mio::unix::pipe::Sender::from(fd))
    }

    registered_io! {
        ready
        /// Waits until the pipe has any of the readiness of `interest`
        /// (writable, or write-closed once no reader is left) and says
        /// which; then [`try_write`](Sender::try_write), which clears the
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
        /// use rt::io::Interest;
        ///
        /// let rt = rt::runtime::Runtime::new().unwrap();
        /// rt.block_on(async {
        ///     let (tx, _rx) = rt::net::unix::pipe::pipe().unwrap();
        ///     assert!(tx.ready(Interest::WRITABLE).await.unwrap().is_writable());
        /// });
        /// ```
    }

    registered_io! {
        writable
        #[doc = doc_text!(
            [
                "Waits until the pipe is writable (or no reader is left).",
                "Any number of tasks may wait at once; readiness wakes them all."
            ],
            errors: "Fails once the runtime's I/O driver has shut down."
        )]
        ///
        /// ```
        /// let rt = rt::runtime::Runtime::new().unwrap();
        /// rt.block_on(async {
        ///     let (tx, _rx) = rt::net::unix::pipe::pipe().unwrap();
        ///     tx.writable().await.unwrap();
        ///     assert_eq!(tx.try_write(b"now").unwrap(), 3);
        /// });
        /// ```
    }

    registered_io! {
        poll_ready poll_write_ready, Write
        /// Polls for write readiness, in the shared slot `poll_write` uses:
        /// the last caller's waker wins.
        ///
        /// # Errors
        ///
        /// Fails once the runtime's I/O driver has shut down.
        ///
        /// # Examples
        ///
        /// ```
        /// use std::future::poll_fn;
        ///
        /// let rt = rt::runtime::Runtime::new().unwrap();
        /// rt.block_on(async {
        ///     let (tx, _rx) = rt::net::unix::pipe::pipe().unwrap();
        ///     poll_fn(|cx| tx.poll_write_ready(cx)).await.unwrap();
        ///     assert_eq!(tx.try_write(b"hi").unwrap(), 2);
        /// });
        /// ```
    }

    /// Writes once without waiting; returns how many bytes the pipe took.
    ///
    /// # Errors
    ///
    /// `WouldBlock` if the pipe is full (or writability was not reported
    /// yet), `BrokenPipe` once no reader is left, or another OS error of
    /// `write`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (tx, rx) = rt::net::unix::pipe::pipe().unwrap();
    ///     tx.writable().await.unwrap();
    ///     assert_eq!(tx.try_write(b"abc").unwrap(), 3);
    ///     rx.readable().await.unwrap();
    ///     assert_eq!(rx.try_read(&mut [0; 8]).unwrap(), 3);
    /// });
    /// ```
    pub fn try_write(&self, buf: &[u8]) -> io::Result<usize> {
        self.io
            .try_io(Direction::Write, |mut sender| sender.write(buf))
    }

    /// Writes once without waiting, from several buffers (`writev`).
    ///
    /// # Errors
    ///
    /// As [`try_write`](Sender::try_write).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::io::IoSlice;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (tx, _rx) = rt::net::unix::pipe::pipe().unwrap();
    ///     tx.writable().await.unwrap();
    ///     let n = tx.try_write_vectored(&[IoSlice::new(b"ab"), IoSlice::new(b"cd")]).unwrap();
    ///     assert_eq!(n, 4);
    /// });
    /// ```
    pub fn try_write_vectored(&self, bufs: &[IoSlice<'_>]) -> io::Result<usize> {
        self.io
            .try_io(Direction::Write, |mut sender| sender.write_vectored(bufs))
    }

    /// Runs `f` (an operation of your own on the descriptor) if the pipe
    /// was reported writable; a `WouldBlock` from `f` clears that
    /// readiness, so the next wait blocks until the reactor reports it
    /// again. A closed state stays, as tokio's (only this end's own
    /// operations find a FIFO reopened). `f` must not use this
    /// `Sender`'s own I/O methods.
    ///
    /// # Errors
    ///
    /// `WouldBlock` without writability, or `f`'s error.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::io::Write;
    /// use std::os::fd::AsFd;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (tx, _rx) = rt::net::unix::pipe::pipe().unwrap();
    ///     let mut dup = std::fs::File::from(tx.as_fd().try_clone_to_owned().unwrap());
    ///     tx.writable().await.unwrap();
    ///     assert_eq!(tx.try_io(|| dup.write(b"own")).unwrap(), 3);
    /// });
    /// ```
    pub fn try_io<R>(&self, f: impl FnOnce() -> io::Result<R>) -> io::Result<R> {
        self.io.try_io_for(Interest::WRITABLE, |_| f())
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
    /// See [`pipe`](super::pipe).
    pub fn into_blocking_fd(self) -> io::Result<OwnedFd> {
        let sender = self.io.into_inner()?;
        sender.set_nonblocking(false)?;
        Ok(sender.into())
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
    /// See [`from_file_unchecked`](Sender::from_file_unchecked).
    pub fn into_nonblocking_fd(self) -> io::Result<OwnedFd> {
        Ok(self.io.into_inner()?.into())
    }
}

impl AsyncWrite for Sender {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.io
            .poll_io(cx, Direction::Write, |mut sender| sender.write(buf))
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.io.poll_io(cx, Direction::Write, |mut sender| {
            sender.write_vectored(bufs)
        })
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        // Writes go straight to the kernel: nothing is buffered here.
        Poll::Ready(Ok(()))
    }

    /// Nothing to do: a pipe has no half-close; drop the `Sender` to close
    /// it (tokio's `poll_shutdown` does the same).
    fn poll_close(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

impl AsFd for Sender {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.io.get_ref().as_fd()
    }
}

impl AsRawFd for Sender {
    fn as_raw_fd(&self) -> RawFd {
        self.io.get_ref().as_raw_fd()
    }
}

impl fmt::Debug for Sender {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sender")
            .field("fd", &self.as_raw_fd())
            .finish()
    }
}
