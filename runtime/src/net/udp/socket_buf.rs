//! `UdpSocket`'s receives into a `bytes::BufMut` (feature `bytes`):
//! tokio's `recv_buf`, `recv_buf_from` and their `try_` forms. The kernel
//! writes each datagram straight into the buffer's spare capacity
//! (`io::sys::recv_buf`, `recv_buf_from`): nothing is zeroed first.
//!
//! A datagram longer than the spare chunk (`BufMut::chunk_mut`) is cut to
//! it and the rest is discarded, as with a slice too short for `recv`. A
//! full `Vec<u8>` or `BytesMut` (`Vec::new()` included) offers a 64-byte
//! chunk: reserve room for the largest datagram expected first.

use super::UdpSocket;
use super::socket::ip_address;
use crate::io::sys;
use bytes::BufMut;
use rt_reactor::Direction;
use socket2::SockRef;
use std::io;
use std::net::SocketAddr;
use std::os::fd::AsRawFd;

impl UdpSocket {
    /// Receives a datagram from the connected peer into the spare capacity
    /// of `buf`, advancing `buf` past it; returns its length. Bytes beyond
    /// the spare chunk are discarded (see the module docs: reserve room
    /// first).
    ///
    /// # Errors
    ///
    /// The OS error of `recv`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let a = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     let b = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     b.connect(a.local_addr().unwrap()).await.unwrap();
    ///     a.send_to(b"ping", b.local_addr().unwrap()).await.unwrap();
    ///     let mut buf = Vec::with_capacity(1500);
    ///     assert_eq!(b.recv_buf(&mut buf).await.unwrap(), 4);
    ///     assert_eq!(buf, b"ping");
    /// });
    /// ```
    pub async fn recv_buf<B: BufMut + ?Sized>(&self, buf: &mut B) -> io::Result<usize> {
        self.registered()
            .async_io(Direction::Read, |socket| {
                sys::recv_buf(socket.as_raw_fd(), buf)
            })
            .await
    }

    /// Receives a datagram and the address it came from into the spare
    /// capacity of `buf`, advancing `buf` past it; returns its length and
    /// the sender. Bytes beyond the spare chunk are discarded (see the
    /// module docs: reserve room first).
    ///
    /// # Errors
    ///
    /// The OS error of `recvfrom`.
    ///
    /// # Examples
    ///
    /// ```
    /// use bytes::BytesMut;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let a = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     let b = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     a.send_to(b"hello", b.local_addr().unwrap()).await.unwrap();
    ///     let mut buf = BytesMut::with_capacity(1500);
    ///     let (n, from) = b.recv_buf_from(&mut buf).await.unwrap();
    ///     assert_eq!((n, from), (5, a.local_addr().unwrap()));
    ///     assert_eq!(&buf[..], b"hello");
    /// });
    /// ```
    pub async fn recv_buf_from<B: BufMut + ?Sized>(
        &self,
        buf: &mut B,
    ) -> io::Result<(usize, SocketAddr)> {
        self.registered()
            .async_io(Direction::Read, |socket| receive_from(socket, buf))
            .await
    }

    /// Receives a datagram from the connected peer into the spare capacity
    /// of `buf` without waiting, as [`recv_buf`](UdpSocket::recv_buf).
    ///
    /// # Errors
    ///
    /// `WouldBlock` if none is ready (or readiness was not reported yet),
    /// or the OS error of `recv`; `buf` is then left as it was.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let socket = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     socket.connect(socket.local_addr().unwrap()).await.unwrap();
    ///     let mut buf = Vec::with_capacity(1500);
    ///     let err = socket.try_recv_buf(&mut buf).unwrap_err();
    ///     assert_eq!(err.kind(), std::io::ErrorKind::WouldBlock);
    ///     socket.send(b"self").await.unwrap();
    ///     socket.readable().await.unwrap();
    ///     assert_eq!(socket.try_recv_buf(&mut buf).unwrap(), 4);
    ///     assert_eq!(buf, b"self");
    /// });
    /// ```
    pub fn try_recv_buf<B: BufMut + ?Sized>(&self, buf: &mut B) -> io::Result<usize> {
        self.registered().try_io(Direction::Read, |socket| {
            sys::recv_buf(socket.as_raw_fd(), buf)
        })
    }

    /// Receives a datagram and its sender into the spare capacity of `buf`
    /// without waiting, as [`recv_buf_from`](UdpSocket::recv_buf_from).
    ///
    /// # Errors
    ///
    /// `WouldBlock` if none is ready (or readiness was not reported yet),
    /// or the OS error of `recvfrom`; `buf` is then left as it was.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let socket = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     let me = socket.local_addr().unwrap();
    ///     let mut buf = Vec::with_capacity(1500);
    ///     socket.send_to(b"x", me).await.unwrap();
    ///     socket.readable().await.unwrap();
    ///     assert_eq!(socket.try_recv_buf_from(&mut buf).unwrap(), (1, me));
    ///     assert_eq!(buf, b"x");
    /// });
    /// ```
    pub fn try_recv_buf_from<B: BufMut + ?Sized>(
        &self,
        buf: &mut B,
    ) -> io::Result<(usize, SocketAddr)> {
        self.registered()
            .try_io(Direction::Read, |socket| receive_from(socket, buf))
    }
}

/// One `recvfrom` into `buf`'s spare capacity, with the sender as an IP
/// address.
fn receive_from<B: BufMut + ?Sized>(
    socket: &mio::net::UdpSocket,
    buf: &mut B,
) -> io::Result<(usize, SocketAddr)> {
    let (received, sender) = sys::recv_buf_from(SockRef::from(socket), buf)?;
    Ok((received, ip_address(&sender)?))
}
