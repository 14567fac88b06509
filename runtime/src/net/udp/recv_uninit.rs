//! `UdpSocket`'s receives into memory that may be uninitialised (a tokio
//! `ReadBuf`'s unfilled part): the kernel writes the datagram straight
//! into the caller's buffer, nothing is zeroed or copied first. For the
//! `tokio` facade (`compat/tokio`) and anyone with such a buffer.

use super::UdpSocket;
use std::io;
use std::mem::MaybeUninit;
use std::net::SocketAddr;
use std::task::{Context, Poll};

impl UdpSocket {
    /// Receives one datagram from the connected peer, as
    /// [`poll_recv`](UdpSocket::poll_recv), into `buf`, which may be
    /// uninitialised; returns its length (cut to `buf`'s).
    ///
    /// # Errors
    ///
    /// The OS error of `recv` (e.g. `ConnectionRefused` after an ICMP
    /// error), or the I/O driver's shutdown.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::future::poll_fn;
    /// use std::mem::MaybeUninit;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let a = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     let b = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     a.connect(b.local_addr().unwrap()).await.unwrap();
    ///     b.connect(a.local_addr().unwrap()).await.unwrap();
    ///     b.send(b"dgram").await.unwrap();
    ///     let mut buf = [MaybeUninit::<u8>::uninit(); 16];
    ///     let n = poll_fn(|cx| a.poll_recv_uninit(cx, &mut buf)).await.unwrap();
    ///     assert_eq!(n, 5);
    /// });
    /// ```
    pub fn poll_recv_uninit(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [MaybeUninit<u8>],
    ) -> Poll<io::Result<usize>> {
        self.registered().poll_recv_uninit(cx, buf)
    }

    /// Receives one datagram and its sender, as
    /// [`poll_recv_from`](UdpSocket::poll_recv_from), into `buf`, which may
    /// be uninitialised.
    ///
    /// # Errors
    ///
    /// The OS error of `recvfrom`, or the I/O driver's shutdown.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::future::poll_fn;
    /// use std::mem::MaybeUninit;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let a = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     let b = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     b.send_to(b"dgram", a.local_addr().unwrap()).await.unwrap();
    ///     let mut buf = [MaybeUninit::<u8>::uninit(); 16];
    ///     let (n, from) = poll_fn(|cx| a.poll_recv_from_uninit(cx, &mut buf)).await.unwrap();
    ///     assert_eq!((n, from), (5, b.local_addr().unwrap()));
    /// });
    /// ```
    pub fn poll_recv_from_uninit(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [MaybeUninit<u8>],
    ) -> Poll<io::Result<(usize, SocketAddr)>> {
        self.registered().poll_recv_from_uninit(cx, buf)
    }

    /// Looks at the next datagram without consuming it, as
    /// [`poll_peek`](UdpSocket::poll_peek), into `buf`, which may be
    /// uninitialised.
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
    ///     let a = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     let b = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     a.connect(b.local_addr().unwrap()).await.unwrap();
    ///     b.send_to(b"dgram", a.local_addr().unwrap()).await.unwrap();
    ///     let mut buf = [MaybeUninit::<u8>::uninit(); 16];
    ///     let n = poll_fn(|cx| a.poll_peek_uninit(cx, &mut buf)).await.unwrap();
    ///     assert_eq!(n, 5);
    ///     assert_eq!(a.recv(&mut [0; 16]).await.unwrap(), 5);
    /// });
    /// ```
    pub fn poll_peek_uninit(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [MaybeUninit<u8>],
    ) -> Poll<io::Result<usize>> {
        self.registered().poll_peek_uninit(cx, buf)
    }

    /// Looks at the next datagram and its sender without consuming it, as
    /// [`poll_peek_from`](UdpSocket::poll_peek_from), into `buf`, which may
    /// be uninitialised.
    ///
    /// # Errors
    ///
    /// The OS error of `recvfrom`, or the I/O driver's shutdown.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::future::poll_fn;
    /// use std::mem::MaybeUninit;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let a = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     let b = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     b.send_to(b"dgram", a.local_addr().unwrap()).await.unwrap();
    ///     let mut buf = [MaybeUninit::<u8>::uninit(); 16];
    ///     let (n, from) = poll_fn(|cx| a.poll_peek_from_uninit(cx, &mut buf)).await.unwrap();
    ///     assert_eq!((n, from), (5, b.local_addr().unwrap()));
    /// });
    /// ```
    pub fn poll_peek_from_uninit(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [MaybeUninit<u8>],
    ) -> Poll<io::Result<(usize, SocketAddr)>> {
        self.registered().poll_peek_from_uninit(cx, buf)
    }
}
