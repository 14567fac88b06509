//! Turning descriptors and `std` files into a [`File`] and back without
//! waiting: the `From`/`FromRawFd` impls (each is [`File::from_std`]) and
//! [`File::try_into_std`], which succeeds only when no operation is in
//! flight and no bytes are buffered.

use super::{File, State};
use std::fs::File as StdFile;
use std::os::fd::{FromRawFd, OwnedFd, RawFd};
use std::sync::Arc;

impl File {
    /// The `std` file at once, if that loses nothing: no operation in
    /// flight, no write waiting to report its error, no bytes read ahead,
    /// and no blocking job still holding the file. Otherwise the `File`
    /// comes back unchanged; [`into_std`](File::into_std) waits for all
    /// that instead.
    ///
    /// # Errors
    ///
    /// The `File` itself, when it cannot be taken apart now.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::AsyncWriteExt;
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let path = std::env::temp_dir().join(format!("rt-try-into-std-doc-{}", std::process::id()));
    /// let mut file = rt::fs::File::create(&path).await.unwrap();
    /// file.write_all(b"data").await.unwrap();
    /// // The write returned at once and is still in flight.
    /// let mut file = file.try_into_std().unwrap_err();
    /// file.flush().await.unwrap();
    /// let std = file.try_into_std().unwrap();
    /// assert_eq!(std.metadata().unwrap().len(), 4);
    /// # rt::fs::remove_file(&path).await.unwrap();
    /// # });
    /// ```
    pub fn try_into_std(mut self) -> Result<StdFile, File> {
        let settled = self.last_write_err.is_none()
            // An idle file without a buffer lost it with a cancelled
            // operation (see `poll_complete`): nothing is read ahead.
            && matches!(&self.state, State::Idle(buf) if buf.as_ref().is_none_or(|b| b.unread() == 0));
        if !settled {
            return Err(self);
        }
        match Arc::try_unwrap(self.std) {
            Ok(std) => Ok(std),
            Err(shared) => {
                self.std = shared;
                Err(self)
            }
        }
    }
}

/// Wraps an open `std` file, as [`File::from_std`].
///
/// # Examples
///
/// ```
/// let file = rt::fs::File::from(std::fs::File::open("Cargo.toml").unwrap());
/// # drop(file);
/// ```
impl From<StdFile> for File {
    fn from(std: StdFile) -> File {
        File::from_std(std)
    }
}

/// Wraps an open file descriptor, as [`File::from_std`].
///
/// # Examples
///
/// ```
/// use std::os::fd::OwnedFd;
/// let fd = OwnedFd::from(std::fs::File::open("Cargo.toml").unwrap());
/// let file = rt::fs::File::from(fd);
/// # drop(file);
/// ```
impl From<OwnedFd> for File {
    fn from(fd: OwnedFd) -> File {
        File::from_std(StdFile::from(fd))
    }
}

/// Adopts an open file descriptor, as [`File::from_std`].
impl FromRawFd for File {
    /// # Safety
    ///
    /// `fd` must be an open file descriptor that nothing else owns: the
    /// `File` closes it when dropped.
    unsafe fn from_raw_fd(fd: RawFd) -> File {
        // SAFETY: the caller hands over an open descriptor it owns (this
        // function's contract), which the `std` file then owns and closes.
        File::from_std(unsafe { StdFile::from_raw_fd(fd) })
    }
}
