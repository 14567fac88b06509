//! rt's errors with the OS's error code, as tokio returns them. rt names
//! the path or device in some errors' messages by wrapping the OS error
//! (kept as its `source`), which hides its `raw_os_error`; tokio code reads
//! that (tower-http's `ServeDir` answers 404 rather than 500 for a path
//! through a file by `raw_os_error() == Some(ENOTDIR)`; a server checks a
//! socket path's `EADDRINUSE`).

use std::io;

/// The OS error that rt's `error` wraps, as `std` returns it; `error`
/// itself when it is one already, or wraps none (invalid UTF-8, say).
pub(crate) fn os_error(error: io::Error) -> io::Error {
    if error.raw_os_error().is_some() {
        return error;
    }
    let code = error
        .get_ref()
        .and_then(|context| context.source())
        .and_then(|source| source.downcast_ref::<io::Error>())
        .and_then(io::Error::raw_os_error);
    code.map_or(error, io::Error::from_raw_os_error)
}
