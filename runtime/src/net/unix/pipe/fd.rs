//! The checks an end made from an existing descriptor needs: is it a pipe
//! or a FIFO, and was it opened for the end's direction.

use crate::io::sys::status_flags;
use std::fs::File;
use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::fs::FileTypeExt;

/// Which end a descriptor is to become.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum End {
    Sender,
    Receiver,
}

/// Fails with `InvalidInput` unless `fd` is a pipe or a FIFO opened for
/// `end`'s direction (`O_RDWR` serves both).
pub(super) fn check(fd: OwnedFd, end: End) -> io::Result<OwnedFd> {
    let file = File::from(fd);
    if !file.metadata()?.file_type().is_fifo() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "rt: not a pipe or a FIFO",
        ));
    }
    let mode = status_flags(file.as_fd())? & libc::O_ACCMODE;
    let allowed = match end {
        End::Sender => mode == libc::O_WRONLY || mode == libc::O_RDWR,
        End::Receiver => mode == libc::O_RDONLY || mode == libc::O_RDWR,
    };
    if !allowed {
        let why = match end {
            End::Sender => "rt: a pipe `Sender` needs a descriptor opened for writing",
            End::Receiver => "rt: a pipe `Receiver` needs a descriptor opened for reading",
        };
        return Err(io::Error::new(io::ErrorKind::InvalidInput, why));
    }
    Ok(OwnedFd::from(file))
}
