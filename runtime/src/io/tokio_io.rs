//! Feature `tokio-io`: tokio's `AsyncRead`/`AsyncWrite` for rt's streams
//! and files, each forwarding to the type's futures-io implementation.
//!
//! tokio is a dependency with no features here: its I/O traits and
//! `ReadBuf`, never its runtime. A tokio read fills a `ReadBuf`, whose
//! unfilled part may be uninitialised; the futures-io read needs an
//! initialised `&mut [u8]`, so the part it reads into is zeroed first
//! (`ReadBuf::initialize_unfilled`, which skips what an earlier read of the
//! same buffer already initialised).

use crate::fs::File;
use crate::io::{DuplexStream, SimplexStream};
use crate::net::{TcpStream, UnixStream, tcp, unix};
use std::io::{self, IoSlice};
use std::pin::Pin;
use std::task::{Context, Poll, ready};

/// `tokio::io::AsyncRead` for each type, through its
/// `futures_io::AsyncRead`.
macro_rules! tokio_read {
    ($($ty:ty),* $(,)?) => {$(
        impl tokio::io::AsyncRead for $ty {
            fn poll_read(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &mut tokio::io::ReadBuf<'_>,
            ) -> Poll<io::Result<()>> {
                let n = ready!(futures_io::AsyncRead::poll_read(
                    self,
                    cx,
                    buf.initialize_unfilled()
                ))?;
                buf.advance(n);
                Poll::Ready(Ok(()))
            }
        }
    )*};
}

/// `tokio::io::AsyncWrite` for each type, through its
/// `futures_io::AsyncWrite`; tokio's `shutdown` is futures-io's `close`.
/// `vectored` says whether the type writes several buffers in one call
/// (sockets do: `writev`; a file gathers them into its one buffer).
macro_rules! tokio_write {
    ($($ty:ty => vectored: $vectored:literal),* $(,)?) => {$(
        impl tokio::io::AsyncWrite for $ty {
            fn poll_write(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &[u8],
            ) -> Poll<io::Result<usize>> {
                futures_io::AsyncWrite::poll_write(self, cx, buf)
            }

            fn poll_write_vectored(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                bufs: &[IoSlice<'_>],
            ) -> Poll<io::Result<usize>> {
                futures_io::AsyncWrite::poll_write_vectored(self, cx, bufs)
            }

            fn is_write_vectored(&self) -> bool {
                $vectored
            }

            fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                futures_io::AsyncWrite::poll_flush(self, cx)
            }

            fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                futures_io::AsyncWrite::poll_close(self, cx)
            }
        }
    )*};
}

tokio_read!(
    TcpStream,
    tcp::OwnedReadHalf,
    tcp::ReadHalf<'_>,
    UnixStream,
    unix::OwnedReadHalf,
    unix::ReadHalf<'_>,
    File,
    DuplexStream,
    SimplexStream,
);

tokio_write!(
    TcpStream => vectored: true,
    tcp::OwnedWriteHalf => vectored: true,
    tcp::WriteHalf<'_> => vectored: true,
    UnixStream => vectored: true,
    unix::OwnedWriteHalf => vectored: true,
    unix::WriteHalf<'_> => vectored: true,
    File => vectored: true,
    DuplexStream => vectored: false,
    SimplexStream => vectored: false,
);
