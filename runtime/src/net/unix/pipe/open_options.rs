//! `OpenOptions`: opens a FIFO (a named pipe) as a [`Sender`] or a
//! [`Receiver`].

use super::fd::{End, check};
use super::{Receiver, Sender};
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// How to open a FIFO (made by `mkfifo`) as one end of a pipe: call
/// [`new`](OpenOptions::new), set options, then
/// [`open_receiver`](OpenOptions::open_receiver) or
/// [`open_sender`](OpenOptions::open_sender). The file is opened
/// non-blocking, so neither call waits for the other end:
/// `open_receiver` succeeds with no writer present (once the writers that
/// opened the FIFO have all closed it, reads return end-of-file), and
/// `open_sender` fails with `ENXIO` while no reader has the FIFO open
/// (retry later, or use [`read_write`](OpenOptions::read_write) on Linux).
///
/// # Examples
///
/// ```no_run
/// use rt::io::{AsyncReadExt, AsyncWriteExt};
/// use rt::net::unix::pipe::OpenOptions;
///
/// # async fn dox() -> std::io::Result<()> {
/// // A FIFO made beforehand, e.g. with `mkfifo /tmp/rt-fifo`.
/// let mut rx = OpenOptions::new().open_receiver("/tmp/rt-fifo")?;
/// let mut tx = OpenOptions::new().open_sender("/tmp/rt-fifo")?;
/// tx.write_all(b"named").await?;
/// drop(tx);
/// let mut text = String::new();
/// rx.read_to_string(&mut text).await?;
/// assert_eq!(text, "named");
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug, Default)]
pub struct OpenOptions {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    read_write: bool,
    unchecked: bool,
}

impl OpenOptions {
    /// The default options: open for the end's one direction, and check
    /// that the file is a FIFO.
    ///
    /// # Examples
    ///
    /// ```
    /// let options = rt::net::unix::pipe::OpenOptions::new();
    /// # drop(options);
    /// ```
    pub fn new() -> OpenOptions {
        OpenOptions::default()
    }

    /// Opens the FIFO for reading and writing (Linux only; POSIX leaves it
    /// undefined). A `Sender` opened so holds a reading end too, so it
    /// opens without `ENXIO` when no reader is there yet, and never sees
    /// `BrokenPipe`; but what it writes is lost if it is dropped before a
    /// reader took it. A `Receiver` opened so never reads end-of-file (it
    /// holds a writing end itself), so it keeps waiting across writers that
    /// come and go.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut options = rt::net::unix::pipe::OpenOptions::new();
    /// options.read_write(true);
    /// ```
    #[cfg(any(target_os = "linux", target_os = "android"))]
    pub fn read_write(&mut self, value: bool) -> &mut OpenOptions {
        self.read_write = value;
        self
    }

    /// Skips the check that the file is a FIFO (for a path known to be
    /// one). A file the reactor cannot poll (a regular file) then fails at
    /// registration instead (`EPERM`); a character device that can be
    /// polled opens as an end.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut options = rt::net::unix::pipe::OpenOptions::new();
    /// options.unchecked(true);
    /// ```
    pub fn unchecked(&mut self, value: bool) -> &mut OpenOptions {
        self.unchecked = value;
        self
    }

    /// Opens the FIFO at `path` as a [`Receiver`], registered with the
    /// current runtime's reactor.
    ///
    /// # Errors
    ///
    /// `InvalidInput` if the file is not a FIFO (unless
    /// [`unchecked`](OpenOptions::unchecked)); the OS error of `open`
    /// (`NotFound`, ...) or of the registration.
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
    ///     let err = rt::net::unix::pipe::OpenOptions::new()
    ///         .open_receiver("Cargo.toml")
    ///         .unwrap_err();
    ///     assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
    /// });
    /// ```
    #[track_caller]
    pub fn open_receiver<P: AsRef<Path>>(&self, path: P) -> io::Result<Receiver> {
        let fd = self.open(path.as_ref(), End::Receiver)?;
        Receiver::from_owned_fd_unchecked(fd)
    }

    /// Opens the FIFO at `path` as a [`Sender`], registered with the
    /// current runtime's reactor.
    ///
    /// # Errors
    ///
    /// `ENXIO` (`raw_os_error() == Some(libc::ENXIO)`) if no process has the
    /// FIFO open for reading (unless [`read_write`](OpenOptions::read_write));
    /// `InvalidInput` if the file is not a FIFO (unless
    /// [`unchecked`](OpenOptions::unchecked)); the OS error of `open` or of
    /// the registration.
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
    ///     let err = rt::net::unix::pipe::OpenOptions::new()
    ///         .open_sender("/no/such/fifo")
    ///         .unwrap_err();
    ///     assert_eq!(err.kind(), std::io::ErrorKind::NotFound);
    /// });
    /// ```
    #[track_caller]
    pub fn open_sender<P: AsRef<Path>>(&self, path: P) -> io::Result<Sender> {
        let fd = self.open(path.as_ref(), End::Sender)?;
        Sender::from_owned_fd_unchecked(fd)
    }

    fn open(&self, path: &Path, end: End) -> io::Result<std::os::fd::OwnedFd> {
        let mut options = std::fs::OpenOptions::new();
        options
            .read(end == End::Receiver)
            .write(end == End::Sender)
            .custom_flags(libc::O_NONBLOCK);
        #[cfg(any(target_os = "linux", target_os = "android"))]
        if self.read_write {
            options.read(true).write(true);
        }
        let fd = options.open(path)?.into();
        if self.unchecked {
            Ok(fd)
        } else {
            check(fd, end)
        }
    }
}
