//! The parts every socket newtype shares: `From` both ways to rt's type,
//! `Deref` to it (rt's methods whose shape is already tokio's: addresses,
//! options, `readable`/`writable`/`ready`, `try_*`, `async_io`, ...),
//! `AsRawFd`/`AsFd`, and for streams tokio's `AsyncRead` (straight into
//! the `ReadBuf`'s uninitialised part, through rt's `poll_read_uninit`)
//! and `AsyncWrite` (rt's futures-io writes; `poll_shutdown` shuts the
//! write side down).

/// `From` both ways, `Deref`, `AsRawFd`, `AsFd` and `Debug` for
/// `$Type { inner: $Rt }`.
macro_rules! socket_newtype {
    ($Type:ident, $Rt:ty) => {
        impl From<$Rt> for $Type {
            fn from(inner: $Rt) -> $Type {
                $Type { inner }
            }
        }

        impl From<$Type> for $Rt {
            fn from(socket: $Type) -> $Rt {
                socket.inner
            }
        }

        /// rt's methods whose shape is tokio's.
        impl ::std::ops::Deref for $Type {
            type Target = $Rt;

            fn deref(&self) -> &$Rt {
                &self.inner
            }
        }

        impl ::std::os::fd::AsRawFd for $Type {
            fn as_raw_fd(&self) -> ::std::os::fd::RawFd {
                ::std::os::fd::AsRawFd::as_raw_fd(&self.inner)
            }
        }

        impl ::std::os::fd::AsFd for $Type {
            fn as_fd(&self) -> ::std::os::fd::BorrowedFd<'_> {
                ::std::os::fd::AsFd::as_fd(&self.inner)
            }
        }

        impl ::std::fmt::Debug for $Type {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                ::std::fmt::Debug::fmt(&self.inner, f)
            }
        }
    };
}

/// tokio's `AsyncRead` for `$Type`, reading through `|$s| $stream` (an rt
/// stream with `poll_read_uninit`), and `AsyncWrite` through `$Type`'s
/// `inner` (futures-io's `AsyncWrite`), vectored.
macro_rules! stream_io {
    (read: $Read:ty => |$s:ident| $stream:expr) => {
        impl $crate::io::AsyncRead for $Read {
            fn poll_read(
                self: ::std::pin::Pin<&mut Self>,
                cx: &mut ::std::task::Context<'_>,
                buf: &mut $crate::io::ReadBuf<'_>,
            ) -> ::std::task::Poll<::std::io::Result<()>> {
                let $s = &*self;
                $crate::io::forward::poll_read_uninit(buf, |unfilled| {
                    $stream.poll_read_uninit(cx, unfilled)
                })
            }
        }
    };
    (write: $Write:ty) => {
        $crate::io::forward::forward_async_write!($Write, inner, vectored: true);
    };
}

pub(crate) use socket_newtype;
pub(crate) use stream_io;
