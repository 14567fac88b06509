//! How the newtypes over rt's I/O types implement tokio's traits: reads go
//! through the rt type's `poll_read_uninit` straight into the `ReadBuf`'s
//! unfilled part (the kernel or a memory copy writes there; nothing is
//! zeroed first), writes through its futures-io `AsyncWrite`, with tokio's
//! `poll_shutdown` as futures-io's `poll_close`.

use crate::io::ReadBuf;
use std::io;
use std::mem::MaybeUninit;
use std::task::{Poll, ready};

/// Reads with `read` into `buf`'s unfilled part and advances `buf` past
/// what it reports.
///
/// # Panics
///
/// If `read` reports more bytes than it was given.
pub(crate) fn poll_read_uninit(
    buf: &mut ReadBuf<'_>,
    read: impl FnOnce(&mut [MaybeUninit<u8>]) -> Poll<io::Result<usize>>,
) -> Poll<io::Result<()>> {
    if buf.remaining() == 0 {
        // A read into no room would read as end-of-file.
        return Poll::Ready(Ok(()));
    }
    // SAFETY: `read` (an rt receive or copy) only writes initialised bytes
    // into the unfilled part; it never de-initialises any.
    let unfilled = unsafe { buf.unfilled_mut() };
    let room = unfilled.len();
    let n = ready!(read(unfilled))?;
    assert!(
        n <= room,
        "rt: a read reported more bytes than it was given"
    );
    // SAFETY: `read` initialised the first `n` unfilled bytes.
    unsafe { buf.assume_init(n) };
    buf.advance(n);
    Poll::Ready(Ok(()))
}

/// `tokio::io::AsyncWrite` for a newtype whose `$field` implements
/// futures-io's `AsyncWrite` and is `Unpin`; `vectored` is what
/// `is_write_vectored` says.
#[allow(unused_macros)] // Not every feature set uses it.
macro_rules! forward_async_write {
    ($ty:ty, $field:ident, vectored: $vectored:expr) => {
        impl $crate::io::AsyncWrite for $ty {
            fn poll_write(
                self: ::std::pin::Pin<&mut Self>,
                cx: &mut ::std::task::Context<'_>,
                buf: &[u8],
            ) -> ::std::task::Poll<::std::io::Result<usize>> {
                ::rt::io::AsyncWrite::poll_write(
                    ::std::pin::Pin::new(&mut self.get_mut().$field),
                    cx,
                    buf,
                )
            }

            fn poll_write_vectored(
                self: ::std::pin::Pin<&mut Self>,
                cx: &mut ::std::task::Context<'_>,
                bufs: &[::std::io::IoSlice<'_>],
            ) -> ::std::task::Poll<::std::io::Result<usize>> {
                ::rt::io::AsyncWrite::poll_write_vectored(
                    ::std::pin::Pin::new(&mut self.get_mut().$field),
                    cx,
                    bufs,
                )
            }

            fn is_write_vectored(&self) -> bool {
                $vectored
            }

            fn poll_flush(
                self: ::std::pin::Pin<&mut Self>,
                cx: &mut ::std::task::Context<'_>,
            ) -> ::std::task::Poll<::std::io::Result<()>> {
                ::rt::io::AsyncWrite::poll_flush(
                    ::std::pin::Pin::new(&mut self.get_mut().$field),
                    cx,
                )
            }

            fn poll_shutdown(
                self: ::std::pin::Pin<&mut Self>,
                cx: &mut ::std::task::Context<'_>,
            ) -> ::std::task::Poll<::std::io::Result<()>> {
                ::rt::io::AsyncWrite::poll_close(
                    ::std::pin::Pin::new(&mut self.get_mut().$field),
                    cx,
                )
            }
        }
    };
}

/// `tokio::io::AsyncRead` for a newtype whose `$field` has
/// `poll_read_uninit(cx, &mut [MaybeUninit<u8>])`.
#[allow(unused_macros)] // Only `io-util`'s in-memory streams and `Repeat`, and `io-std`'s stdin, use it.
macro_rules! forward_async_read {
    ($ty:ty, $field:ident) => {
        impl $crate::io::AsyncRead for $ty {
            fn poll_read(
                self: ::std::pin::Pin<&mut Self>,
                cx: &mut ::std::task::Context<'_>,
                buf: &mut $crate::io::ReadBuf<'_>,
            ) -> ::std::task::Poll<::std::io::Result<()>> {
                let me = self.get_mut();
                $crate::io::forward::poll_read_uninit(buf, |unfilled| {
                    me.$field.poll_read_uninit(cx, unfilled)
                })
            }
        }
    };
}

#[allow(unused_imports)] // Not every feature set uses both.
pub(crate) use forward_async_read;
#[allow(unused_imports)]
pub(crate) use forward_async_write;
