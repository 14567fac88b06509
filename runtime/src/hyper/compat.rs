//! `Compat`: any futures-io stream as hyper's `Read` + `Write`.

use futures_io::{AsyncRead, AsyncWrite};
use std::io::{self, IoSlice};
use std::pin::Pin;
use std::task::{Context, Poll, ready};

/// Any `futures-io` stream (a TLS stream, an in-memory test stream, a
/// stream from another crate) as hyper's I/O (`hyper::rt::Read` +
/// `hyper::rt::Write`). For rt's own sockets use [`Io`](super::Io), which
/// costs nothing extra.
///
/// What the adaptation costs:
/// - `AsyncRead` reads into initialised memory and hyper's read buffer is
///   uninitialised, so each read first zero-fills the free part of hyper's
///   buffer (8 KiB to start; hyper grows it when reads fill it): one
///   `memset` per read, nothing copied afterwards.
/// - `futures-io` cannot tell whether a stream's vectored write is real
///   (its default writes only the first buffer), so `Compat` tells hyper
///   writes are not vectored: hyper then copies a message's head and body
///   into one buffer and writes that, rather than making a write per piece.
///
/// Flushing and shutting down are the stream's `poll_flush` and
/// `poll_close`.
///
/// # Examples
///
/// ```
/// use http_body_util::{BodyExt, Empty, Full};
/// use hyper::body::Bytes;
/// use hyper::service::service_fn;
/// use rt::hyper::Compat;
///
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     // Any futures-io stream will do; these happen to be rt's.
///     let (client, server) = rt::net::UnixStream::pair().unwrap();
///     rt::spawn(async move {
///         let hello = service_fn(|_request| async {
///             Ok::<_, std::convert::Infallible>(hyper::Response::new(Full::new(Bytes::from("hi"))))
///         });
///         hyper::server::conn::http1::Builder::new()
///             .serve_connection(Compat::new(server), hello)
///             .await
///             .unwrap();
///     });
///     let (mut sender, connection) =
///         hyper::client::conn::http1::handshake(Compat::new(client)).await.unwrap();
///     rt::spawn(connection);
///     let request = hyper::Request::get("/").body(Empty::<Bytes>::new()).unwrap();
///     let response = sender.send_request(request).await.unwrap();
///     assert_eq!(response.into_body().collect().await.unwrap().to_bytes(), "hi");
/// });
/// ```
#[derive(Debug)]
pub struct Compat<T> {
    stream: T,
}

impl<T> Compat<T>
where
    T: AsyncRead + AsyncWrite + Unpin,
{
    /// Wraps `stream`.
    ///
    /// # Examples
    ///
    /// ```
    /// let stream = futures::io::Cursor::new(Vec::<u8>::new());
    /// let _io = rt::hyper::Compat::new(stream);
    /// ```
    pub fn new(stream: T) -> Compat<T> {
        Compat { stream }
    }

    /// The stream.
    ///
    /// # Examples
    ///
    /// ```
    /// let io = rt::hyper::Compat::new(futures::io::Cursor::new(vec![1u8, 2]));
    /// assert_eq!(io.get_ref().get_ref(), &[1, 2]);
    /// ```
    pub fn get_ref(&self) -> &T {
        &self.stream
    }

    /// The stream, mutably (reading or writing around hyper corrupts its
    /// framing).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut io = rt::hyper::Compat::new(futures::io::Cursor::new(vec![1u8, 2]));
    /// io.get_mut().set_position(1);
    /// assert_eq!(io.get_ref().position(), 1);
    /// ```
    pub fn get_mut(&mut self) -> &mut T {
        &mut self.stream
    }

    /// Unwraps the stream.
    ///
    /// # Examples
    ///
    /// ```
    /// let io = rt::hyper::Compat::new(futures::io::Cursor::new(vec![7u8]));
    /// assert_eq!(io.into_inner().into_inner(), [7]);
    /// ```
    pub fn into_inner(self) -> T {
        self.stream
    }
}

impl<T> ::hyper::rt::Read for Compat<T>
where
    T: AsyncRead + AsyncWrite + Unpin,
{
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        mut buf: ::hyper::rt::ReadBufCursor<'_>,
    ) -> Poll<io::Result<()>> {
        let unfilled = buf.initialize_unfilled();
        let room = unfilled.len();
        let read = ready!(Pin::new(&mut self.get_mut().stream).poll_read(cx, unfilled))?;
        assert!(
            read <= room,
            "the stream's `poll_read` reported {read} bytes read into a {room}-byte buffer"
        );
        // SAFETY: `initialize_unfilled` initialised the whole unfilled
        // part, and `read` is within it (checked above).
        unsafe { buf.advance(read) };
        Poll::Ready(Ok(()))
    }
}

impl<T> ::hyper::rt::Write for Compat<T>
where
    T: AsyncRead + AsyncWrite + Unpin,
{
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write_vectored(cx, bufs)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_close(cx)
    }
}
