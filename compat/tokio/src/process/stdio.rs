//! The child's pipes: newtypes over rt's, for tokio's traits.

use crate::io::forward::forward_async_write;
use std::io;
use std::os::fd::OwnedFd;
use std::process::Stdio;

/// `From` both ways, `AsRawFd`, `AsFd`, `Debug`, `from_std`,
/// `into_owned_fd` and `TryFrom<_> for Stdio`.
macro_rules! pipe_newtype {
    ($($(#[$doc:meta])* $Type:ident, $Std:ty;)*) => {$(
        $(#[$doc])*
        pub struct $Type {
            inner: rt::process::$Type,
        }

        impl From<rt::process::$Type> for $Type {
            fn from(inner: rt::process::$Type) -> $Type {
                $Type { inner }
            }
        }

        impl From<$Type> for rt::process::$Type {
            fn from(pipe: $Type) -> rt::process::$Type {
                pipe.inner
            }
        }

        impl $Type {
            #[doc = concat!("Registers the `", stringify!($Std), "` of a child spawned with `std`.")]
            ///
            /// # Errors
            ///
            /// The OS error of switching to non-blocking mode or of the
            /// registration.
            ///
            /// # Panics
            ///
            /// Outside an rt runtime with I/O enabled.
            #[track_caller]
            pub fn from_std(std: $Std) -> io::Result<$Type> {
                rt::process::$Type::from_std(std).map($Type::from)
            }

            /// Deregisters the pipe and hands it back in blocking mode.
            ///
            /// # Errors
            ///
            /// The OS error of deregistering or of switching modes.
            pub fn into_owned_fd(self) -> io::Result<OwnedFd> {
                self.inner.into_owned_fd()
            }
        }

        impl TryFrom<$Type> for Stdio {
            type Error = io::Error;

            /// The pipe as another child's standard stream.
            fn try_from(pipe: $Type) -> io::Result<Stdio> {
                Stdio::try_from(pipe.inner)
            }
        }

        impl std::os::fd::AsRawFd for $Type {
            fn as_raw_fd(&self) -> std::os::fd::RawFd {
                std::os::fd::AsRawFd::as_raw_fd(&self.inner)
            }
        }

        impl std::os::fd::AsFd for $Type {
            fn as_fd(&self) -> std::os::fd::BorrowedFd<'_> {
                std::os::fd::AsFd::as_fd(&self.inner)
            }
        }

        impl std::fmt::Debug for $Type {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                std::fmt::Debug::fmt(&self.inner, f)
            }
        }
    )*};
}

pipe_newtype! {
    /// The child's standard input, when piped. A newtype over rt's, for
    /// tokio's `AsyncWrite`; shutting it down closes the pipe, so the child
    /// reads end-of-file.
    ChildStdin, std::process::ChildStdin;
    /// The child's standard output, when piped. A newtype over rt's, for
    /// tokio's `AsyncRead` (straight into the `ReadBuf`'s uninitialised
    /// part).
    ChildStdout, std::process::ChildStdout;
    /// The child's standard error, when piped. A newtype over rt's, for
    /// tokio's `AsyncRead` (straight into the `ReadBuf`'s uninitialised
    /// part).
    ChildStderr, std::process::ChildStderr;
}

forward_async_write!(ChildStdin, inner, vectored: true);

/// tokio's `AsyncRead` for the read pipes, through rt's
/// `poll_read_uninit`.
macro_rules! read_pipe {
    ($($Type:ty),*) => {$(
        impl crate::io::AsyncRead for $Type {
            fn poll_read(
                self: std::pin::Pin<&mut Self>,
                cx: &mut std::task::Context<'_>,
                buf: &mut crate::io::ReadBuf<'_>,
            ) -> std::task::Poll<io::Result<()>> {
                let me = &*self;
                crate::io::forward::poll_read_uninit(buf, |unfilled| {
                    me.inner.poll_read_uninit(cx, unfilled)
                })
            }
        }
    )*};
}

read_pipe!(ChildStdout, ChildStderr);
