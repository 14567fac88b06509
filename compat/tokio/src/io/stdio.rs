//! `stdin`, `stdout`, `stderr`: the process's standard streams, over rt's
//! (which do their blocking reads and writes on the blocking pool; a read
//! copies straight into the `ReadBuf`'s uninitialised part).

use crate::io::forward::{forward_async_read, forward_async_write};

/// Newtypes over rt's standard streams, whose traits are futures-io's.
macro_rules! stdio {
    ($($(#[$doc:meta])* $ty:ident, $make:ident;)*) => {$(
        $(#[$doc])*
        #[derive(Debug)]
        pub struct $ty {
            inner: rt::io::$ty,
        }

        #[doc = concat!("The process's ", stringify!($make), ", as [`", stringify!($ty), "`].")]
        ///
        /// # Panics
        ///
        /// Outside an rt runtime (its operations run on the blocking pool).
        pub fn $make() -> $ty {
            $ty { inner: rt::io::$make() }
        }

        impl From<rt::io::$ty> for $ty {
            fn from(inner: rt::io::$ty) -> $ty {
                $ty { inner }
            }
        }

        impl From<$ty> for rt::io::$ty {
            fn from(stream: $ty) -> rt::io::$ty {
                stream.inner
            }
        }

        impl std::os::fd::AsRawFd for $ty {
            fn as_raw_fd(&self) -> std::os::fd::RawFd {
                std::os::fd::AsRawFd::as_raw_fd(&self.inner)
            }
        }

        impl std::os::fd::AsFd for $ty {
            fn as_fd(&self) -> std::os::fd::BorrowedFd<'_> {
                std::os::fd::AsFd::as_fd(&self.inner)
            }
        }
    )*};
}

stdio! {
    /// The process's standard input, from [`stdin`]. Reads happen on the
    /// blocking pool; a read still running there when its future is dropped
    /// completes anyway and its bytes are kept for the next read.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use tokio::io::AsyncReadExt;
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut input = String::new();
    /// tokio::io::stdin().read_to_string(&mut input).await.unwrap();
    /// # });
    /// ```
    Stdin, stdin;
    /// The process's standard output, from [`stdout`]. Writes happen on the
    /// blocking pool; flush before exiting.
    ///
    /// # Examples
    ///
    /// ```
    /// use tokio::io::AsyncWriteExt;
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut out = tokio::io::stdout();
    /// out.write_all(b"hello\n").await.unwrap();
    /// out.flush().await.unwrap();
    /// # });
    /// ```
    Stdout, stdout;
    /// The process's standard error, from [`stderr`]. Writes happen on the
    /// blocking pool; flush before exiting.
    ///
    /// # Examples
    ///
    /// ```
    /// use tokio::io::AsyncWriteExt;
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut err = tokio::io::stderr();
    /// err.write_all(b"oops\n").await.unwrap();
    /// err.flush().await.unwrap();
    /// # });
    /// ```
    Stderr, stderr;
}

forward_async_read!(Stdin, inner);
forward_async_write!(Stdout, inner, vectored: false);
forward_async_write!(Stderr, inner, vectored: false);
