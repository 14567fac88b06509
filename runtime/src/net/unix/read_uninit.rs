//! `UnixStream`'s read and `UnixDatagram`'s receive into memory that may
//! be uninitialised (a tokio `ReadBuf`'s unfilled part): the kernel writes
//! the bytes straight into the caller's buffer, nothing is zeroed or
//! copied first. For the `tokio` facade (`compat/tokio`) and anyone with
//! such a buffer.

use super::{UnixDatagram, UnixStream};
use rt_reactor::Direction;
use std::io;
use std::mem::MaybeUninit;
use std::task::{Context, Poll};

impl UnixStream {
    /// Reads once, as [`AsyncRead::poll_read`](futures_io::AsyncRead::poll_read),
    /// into `buf`, which may be uninitialised; returns how many bytes the
    /// kernel wrote at its front (`0`: end-of-file, or an empty `buf`).
    /// Waits in the read direction's shared slot: the last waker wins. The
    /// halves of a split stream reach it through `AsRef<UnixStream>`.
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
    ///     let (mut a, b) = rt::net::UnixStream::pair().unwrap();
    ///     a.write_all(b"hi").await.unwrap();
    ///     let mut buf = [MaybeUninit::<u8>::uninit(); 8];
    ///     let n = poll_fn(|cx| b.poll_read_uninit(cx, &mut buf)).await.unwrap();
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
}

impl UnixDatagram {
    /// Receives one datagram from the connected peer, as
    /// [`poll_recv`](UnixDatagram::poll_recv), into `buf`, which may be
    /// uninitialised; returns its length (cut to `buf`'s).
    ///
    /// # Errors
    ///
    /// The OS error of `recv`, or the I/O driver's shutdown.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::future::poll_fn;
    /// use std::mem::MaybeUninit;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, b) = rt::net::UnixDatagram::pair().unwrap();
    ///     a.send(b"dgram").await.unwrap();
    ///     let mut buf = [MaybeUninit::<u8>::uninit(); 16];
    ///     let n = poll_fn(|cx| b.poll_recv_uninit(cx, &mut buf)).await.unwrap();
    ///     assert_eq!(n, 5);
    /// });
    /// ```
    pub fn poll_recv_uninit(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [MaybeUninit<u8>],
    ) -> Poll<io::Result<usize>> {
        self.registered().poll_io(cx, Direction::Read, |sys| {
            socket2::SockRef::from(sys).recv(buf)
        })
    }
}
