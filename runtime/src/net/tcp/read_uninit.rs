//! `TcpStream`'s reads into memory that may be uninitialised (a tokio
//! `ReadBuf`'s unfilled part): the kernel writes the bytes straight into
//! the caller's buffer, nothing is zeroed or copied first. For the `tokio`
//! facade (`compat/tokio`) and anyone with such a buffer.

use super::TcpStream;
use std::io;
use std::mem::MaybeUninit;
use std::task::{Context, Poll};

impl TcpStream {
    /// Reads once, as [`AsyncRead::poll_read`](futures_io::AsyncRead::poll_read),
    /// into `buf`, which may be uninitialised; returns how many bytes the
    /// kernel wrote at its front (`0`: end-of-file, or an empty `buf`).
    /// Waits in the read direction's shared slot, as `poll_read` does: the
    /// last waker wins. The halves of a split stream reach it through
    /// `AsRef<TcpStream>`.
    ///
    /// # Errors
    ///
    /// The OS error of `recv`, or the I/O driver's shutdown.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::AsyncWriteExt;
    /// use std::future::poll_fn;
    /// use std::mem::MaybeUninit;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    ///     let mut client = rt::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
    ///     let (server, _) = listener.accept().await.unwrap();
    ///     client.write_all(b"hi").await.unwrap();
    ///     let mut buf = [MaybeUninit::<u8>::uninit(); 8];
    ///     let n = poll_fn(|cx| server.poll_read_uninit(cx, &mut buf)).await.unwrap();
    ///     assert_eq!(n, 2);
    /// });
    /// ```
    pub fn poll_read_uninit(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [MaybeUninit<u8>],
    ) -> Poll<io::Result<usize>> {
        self.registered().poll_read_uninit(cx, buf)
    }

    /// Receives once without consuming (`MSG_PEEK`), as
    /// [`poll_peek`](TcpStream::poll_peek), into `buf`, which may be
    /// uninitialised; returns how many bytes the kernel wrote at its front.
    ///
    /// # Errors
    ///
    /// The OS error of `recv`, or the I/O driver's shutdown.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::AsyncWriteExt;
    /// use std::future::poll_fn;
    /// use std::mem::MaybeUninit;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    ///     let mut client = rt::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
    ///     let (server, _) = listener.accept().await.unwrap();
    ///     client.write_all(b"hi").await.unwrap();
    ///     let mut buf = [MaybeUninit::<u8>::uninit(); 8];
    ///     let n = poll_fn(|cx| server.poll_peek_uninit(cx, &mut buf)).await.unwrap();
    ///     assert_eq!(n, 2);
    ///     // Still there to read.
    ///     assert_eq!(server.try_read(&mut [0; 8]).unwrap(), 2);
    /// });
    /// ```
    pub fn poll_peek_uninit(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [MaybeUninit<u8>],
    ) -> Poll<io::Result<usize>> {
        self.registered().poll_peek_uninit(cx, buf)
    }
}
