//! An I/O error with what was being done prefixed to its message, keeping
//! its kind and the original error as its `source()`: for errors whose OS
//! text alone ("No such device") does not say which file, device or host
//! it was about.

use std::error::Error;
use std::fmt;
use std::io;

/// `error` with `context` prefixed to its message; same kind, and `error`
/// itself (its OS error code included) as the source.
pub(crate) fn context_error(context: String, error: io::Error) -> io::Error {
    io::Error::new(
        error.kind(),
        ContextError {
            context,
            source: error,
        },
    )
}

/// An I/O error and what was being done when it happened.
#[derive(Debug)]
struct ContextError {
    context: String,
    source: io::Error,
}

impl fmt::Display for ContextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.context, self.source)
    }
}

impl Error for ContextError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        Some(&self.source)
    }
}
