//! The `AsyncRead` / `AsyncWrite` and `Debug` impls of the halves of a
//! split stream, shared by TCP and Unix-domain streams. Both halves poll
//! the stream's `registered()` I/O on `&self`, each only its own side of
//! it; a write half also calls the stream's `shutdown_write`.

/// `read_half! { Type => |s| expression giving the stream; ... }`
macro_rules! read_half {
    ($($ty:ty => |$s:ident| $stream:expr;)*) => {$(
        impl ::futures_io::AsyncRead for $ty {
            fn poll_read(
                self: ::std::pin::Pin<&mut Self>,
                cx: &mut ::std::task::Context<'_>,
                buf: &mut [u8],
            ) -> ::std::task::Poll<::std::io::Result<usize>> {
                let $s = &*self;
                $stream.registered().poll_read(cx, buf)
            }

            fn poll_read_vectored(
                self: ::std::pin::Pin<&mut Self>,
                cx: &mut ::std::task::Context<'_>,
                bufs: &mut [::std::io::IoSliceMut<'_>],
            ) -> ::std::task::Poll<::std::io::Result<usize>> {
                let $s = &*self;
                $stream.registered().poll_read_vectored(cx, bufs)
            }
        }

        impl ::std::fmt::Debug for $ty {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                let $s = self;
                f.debug_tuple(stringify!($ty)).field(&*$stream).finish()
            }
        }
    )*};
}

/// `write_half! { Type => |s| expression giving the stream; ... }`
macro_rules! write_half {
    ($($ty:ty => |$s:ident| $stream:expr;)*) => {$(
        impl ::futures_io::AsyncWrite for $ty {
            fn poll_write(
                self: ::std::pin::Pin<&mut Self>,
                cx: &mut ::std::task::Context<'_>,
                buf: &[u8],
            ) -> ::std::task::Poll<::std::io::Result<usize>> {
                let $s = &*self;
                $stream.registered().poll_write(cx, buf)
            }

            fn poll_write_vectored(
                self: ::std::pin::Pin<&mut Self>,
                cx: &mut ::std::task::Context<'_>,
                bufs: &[::std::io::IoSlice<'_>],
            ) -> ::std::task::Poll<::std::io::Result<usize>> {
                let $s = &*self;
                $stream.registered().poll_write_vectored(cx, bufs)
            }

            fn poll_flush(self: ::std::pin::Pin<&mut Self>, _cx: &mut ::std::task::Context<'_>) -> ::std::task::Poll<::std::io::Result<()>> {
                ::std::task::Poll::Ready(Ok(()))
            }

            fn poll_close(self: ::std::pin::Pin<&mut Self>, _cx: &mut ::std::task::Context<'_>) -> ::std::task::Poll<::std::io::Result<()>> {
                let $s = &*self;
                ::std::task::Poll::Ready($stream.shutdown_write())
            }
        }

        impl ::std::fmt::Debug for $ty {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                let $s = self;
                f.debug_tuple(stringify!($ty)).field(&*$stream).finish()
            }
        }
    )*};
}

pub(crate) use read_half;
pub(crate) use write_half;
