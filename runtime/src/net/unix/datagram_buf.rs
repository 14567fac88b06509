//! `UnixDatagram`'s receives into a `bytes::BufMut` (feature `bytes`):
//! tokio's `recv_buf`, `recv_buf_from` and their `try_` forms. The kernel
//! writes each datagram straight into the buffer's spare capacity
//! (`io::sys::recv_buf`, `recv_buf_from`): nothing is zeroed first.
//!
//! A datagram longer than the spare chunk (`BufMut::chunk_mut`) is cut to
//! it and the rest is discarded, as with a slice too short for `recv`. A
//! full `Vec<u8>` or `BytesMut` (`Vec::new()` included) offers a 64-byte
//! chunk: reserve room for the largest datagram expected first.

use super::datagram::std_address;
use super::{SocketAddr, UnixDatagram};
use crate::io::sys;
use bytes::BufMut;
use rt_reactor::Direction;
use socket2::SockRef;
use std::io;
use std::os::fd::AsRawFd;

impl UnixDatagram {
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
    ///     let (a, b) = rt::net::UnixDatagram::pair().unwrap();
    ///     a.send(b"ping").await.unwrap();
    ///     let mut buf = bytes::BytesMut::with_capacity(1024);
    ///     assert_eq!(b.recv_buf(&mut buf).await.unwrap(), 4);
    ///     assert_eq!(&buf[..], b"ping");
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
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, b) = rt::net::UnixDatagram::pair().unwrap();
    ///     a.send(b"hi").await.unwrap();
    ///     let mut buf = Vec::with_capacity(1024);
    ///     let (n, from) = b.recv_buf_from(&mut buf).await.unwrap();
    ///     assert_eq!(n, 2);
    ///     assert!(from.is_unnamed());
    ///     assert_eq!(buf, b"hi");
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
    /// of `buf` without waiting, as [`recv_buf`](UnixDatagram::recv_buf).
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
    ///     let (a, b) = rt::net::UnixDatagram::pair().unwrap();
    ///     let mut buf = Vec::with_capacity(1024);
    ///     let err = b.try_recv_buf(&mut buf).unwrap_err();
    ///     assert_eq!(err.kind(), std::io::ErrorKind::WouldBlock);
    ///     a.send(b"now").await.unwrap();
    ///     b.readable().await.unwrap();
    ///     assert_eq!(b.try_recv_buf(&mut buf).unwrap(), 3);
    ///     assert_eq!(buf, b"now");
    /// });
    /// ```
    pub fn try_recv_buf<B: BufMut + ?Sized>(&self, buf: &mut B) -> io::Result<usize> {
        self.registered().try_io(Direction::Read, |socket| {
            sys::recv_buf(socket.as_raw_fd(), buf)
        })
    }

    /// Receives a datagram and its sender into the spare capacity of `buf`
    /// without waiting, as [`recv_buf_from`](UnixDatagram::recv_buf_from).
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
    ///     let (a, b) = rt::net::UnixDatagram::pair().unwrap();
    ///     let mut buf = Vec::with_capacity(1024);
    ///     a.send(b"now").await.unwrap();
    ///     b.readable().await.unwrap();
    ///     let (n, from) = b.try_recv_buf_from(&mut buf).unwrap();
    ///     assert_eq!((n, from.is_unnamed()), (3, true));
    ///     assert_eq!(buf, b"now");
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

/// One `recvfrom` into `buf`'s spare capacity, with the sender as `std`'s
/// Unix-domain address.
fn receive_from<B: BufMut + ?Sized>(
    socket: &mio::net::UnixDatagram,
    buf: &mut B,
) -> io::Result<(usize, SocketAddr)> {
    let (received, sender) = sys::recv_buf_from(SockRef::from(socket), buf)?;
    Ok((received, std_address(&sender)?))
}
