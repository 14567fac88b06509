//! `Io`: rt's own streams as hyper's `Read` + `Write`, reading into
//! hyper's uninitialised buffer.

use crate::net::{TcpStream, UnixStream};
use ::hyper::rt::ReadBufCursor;
use std::io::{self, IoSlice};
use std::mem::MaybeUninit;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

/// The rt streams [`Io`] serves: [`TcpStream`] and [`UnixStream`]. Sealed:
/// `Io` relies on how they read (straight into uninitialised memory);
/// wrap any other stream in [`Compat`](super::Compat).
pub trait Socket: sealed::Sealed {}

/// The operations `Io` needs, private to rt.
mod sealed {
    use std::io::{self, IoSlice};
    use std::mem::MaybeUninit;
    use std::task::{Context, Poll};

    // Public in a private module: nameable only inside rt, so no other
    // crate can implement `Socket`.
    #[allow(unreachable_pub)]
    pub trait Sealed: Unpin {
        /// Receives into the front of `buf` (which the kernel fills) and
        /// returns how many bytes it wrote there.
        fn poll_read_uninit(
            &self,
            cx: &mut Context<'_>,
            buf: &mut [MaybeUninit<u8>],
        ) -> Poll<io::Result<usize>>;
        fn poll_write(&self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>>;
        fn poll_write_vectored(
            &self,
            cx: &mut Context<'_>,
            bufs: &[IoSlice<'_>],
        ) -> Poll<io::Result<usize>>;
        fn shutdown_write(&self) -> io::Result<()>;
    }
}

/// `Socket` for the stream types, each forwarding to its registration.
macro_rules! socket {
    ($($stream:ty),*) => {$(
        impl Socket for $stream {}

        impl sealed::Sealed for $stream {
            fn poll_read_uninit(
                &self,
                cx: &mut Context<'_>,
                buf: &mut [MaybeUninit<u8>],
            ) -> Poll<io::Result<usize>> {
                self.registered().poll_read_uninit(cx, buf)
            }

            fn poll_write(&self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
                self.registered().poll_write(cx, buf)
            }

            fn poll_write_vectored(
                &self,
                cx: &mut Context<'_>,
                bufs: &[IoSlice<'_>],
            ) -> Poll<io::Result<usize>> {
                self.registered().poll_write_vectored(cx, bufs)
            }

            fn shutdown_write(&self) -> io::Result<()> {
                <$stream>::shutdown_write(self)
            }
        }
    )*};
}

socket!(TcpStream, UnixStream);

/// An rt stream ([`TcpStream`] or [`UnixStream`]) as hyper's I/O
/// (`hyper::rt::Read` + `hyper::rt::Write`), for hyper's and hyper-util's
/// connection builders.
///
/// - Reads receive straight into hyper's read buffer, which hyper leaves
///   uninitialised: the kernel writes the bytes, nothing zeroes or copies
///   them first.
/// - Writes are vectored (`is_write_vectored` is `true`): hyper queues a
///   response's head and body as separate buffers, and they leave in one
///   `writev`.
/// - Flushing does nothing (rt's streams buffer nothing); shutting down
///   shuts the write side down, so the peer reads end-of-file.
///
/// Each ready read or write spends one unit of the task's cooperative
/// budget, as the stream's own `AsyncRead`/`AsyncWrite` do.
///
/// # Examples
///
/// ```
/// use rt::hyper::Io;
///
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let (a, _b) = rt::net::UnixStream::pair().unwrap();
///     let mut io = Io::new(a);
///     assert!(hyper::rt::Write::is_write_vectored(&io));
///     io.get_mut().shutdown_std(std::net::Shutdown::Write).unwrap();
///     let _stream: rt::net::UnixStream = io.into_inner();
/// });
/// ```
#[derive(Debug)]
pub struct Io<T> {
    stream: T,
}

impl<T: Socket> Io<T> {
    /// Wraps `stream`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    ///     let stream = rt::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
    ///     let _io = rt::hyper::Io::new(stream);
    /// });
    /// ```
    pub fn new(stream: T) -> Io<T> {
        Io { stream }
    }

    /// The stream.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    ///     let addr = listener.local_addr().unwrap();
    ///     let io = rt::hyper::Io::new(rt::net::TcpStream::connect(addr).await.unwrap());
    ///     assert_eq!(io.get_ref().peer_addr().unwrap(), addr);
    /// });
    /// ```
    pub fn get_ref(&self) -> &T {
        &self.stream
    }

    /// The stream, mutably (to set options; reading or writing around
    /// hyper corrupts its framing).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    ///     let addr = listener.local_addr().unwrap();
    ///     let mut io = rt::hyper::Io::new(rt::net::TcpStream::connect(addr).await.unwrap());
    ///     io.get_mut().set_nodelay(true).unwrap();
    ///     assert!(io.get_ref().nodelay().unwrap());
    /// });
    /// ```
    pub fn get_mut(&mut self) -> &mut T {
        &mut self.stream
    }

    /// Unwraps the stream.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = rt::net::UnixStream::pair().unwrap();
    ///     let stream: rt::net::UnixStream = rt::hyper::Io::new(a).into_inner();
    ///     # drop(stream);
    /// });
    /// ```
    pub fn into_inner(self) -> T {
        self.stream
    }
}

impl<T: Socket> ::hyper::rt::Read for Io<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        mut buf: ReadBufCursor<'_>,
    ) -> Poll<io::Result<()>> {
        if buf.remaining() == 0 {
            // Nothing to read into; a receive of 0 bytes would read as
            // end-of-file.
            return Poll::Ready(Ok(()));
        }
        // SAFETY: the receive only writes bytes into the unfilled part
        // (the kernel's), it never de-initialises any.
        let unfilled = unsafe { buf.as_mut() };
        let room = unfilled.len();
        let received = ready!(self.stream.poll_read_uninit(cx, unfilled))?;
        assert!(
            received <= room,
            "a receive reported more bytes than the buffer holds"
        );
        // SAFETY: the receive initialised the first `received` bytes of
        // the unfilled part, and `received <= room` (checked above).
        unsafe { buf.advance(received) };
        Poll::Ready(Ok(()))
    }
}

impl<T: Socket> ::hyper::rt::Write for Io<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.stream.poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.stream.poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        // Writes go straight to the kernel: nothing is buffered here.
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(self.stream.shutdown_write())
    }
}
