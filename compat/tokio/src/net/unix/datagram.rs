//! [`UnixDatagram`]: a newtype over rt's, for tokio's `poll_recv` and
//! `poll_recv_from`, which receive into a `ReadBuf`.

use super::SocketAddr;
use crate::io::ReadBuf;
use crate::net::newtype::{datagram_methods, forward, socket_newtype};
use std::io;
use std::path::Path;
use std::task::{Context, Poll, ready};

/// A Unix-domain datagram socket. A newtype over `rt::net::UnixDatagram`
/// for tokio's `ReadBuf`-taking receives; the rest (`send`, `recv`,
/// `send_to`, `recv_from`, `connect`, `try_*`, ...) forwards to rt's.
///
/// # Examples
///
/// ```
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let (a, b) = tokio::net::UnixDatagram::pair().unwrap();
/// a.send(b"hi").await.unwrap();
/// let mut buf = [0; 8];
/// let n = b.recv(&mut buf).await.unwrap();
/// assert_eq!(&buf[..n], b"hi");
/// # });
/// ```
pub struct UnixDatagram {
    inner: rt::net::UnixDatagram,
}

socket_newtype!(UnixDatagram, rt::net::UnixDatagram);

impl UnixDatagram {
    datagram_methods!(SocketAddr);

    forward! {
        /// Connects the socket to the socket at `path`.
        fn connect[P: AsRef<Path>](&self, path: P) -> io::Result<()>;
        /// Sends a datagram to the socket at `target`.
        @async fn send_to[P: AsRef<Path>](&self, buf: &[u8], target: P) -> io::Result<usize>;
        /// Polls a send of a datagram to the socket at `target`.
        fn poll_send_to[P: AsRef<Path>](&self, cx: &mut Context<'_>, buf: &[u8], target: P) -> Poll<io::Result<usize>>;
        /// Sends to the socket at `target` without waiting.
        fn try_send_to[P: AsRef<Path>](&self, buf: &[u8], target: P) -> io::Result<usize>;
        /// Shuts down the read side, the write side or both.
        fn shutdown(&self, how: std::net::Shutdown) -> io::Result<()>;
    }

    /// A socket bound to `path`.
    ///
    /// # Errors
    ///
    /// The OS error of `bind`.
    ///
    /// # Panics
    ///
    /// Outside an rt runtime with I/O enabled.
    #[track_caller]
    pub fn bind<P: AsRef<Path>>(path: P) -> io::Result<UnixDatagram> {
        rt::net::UnixDatagram::bind(path).map(UnixDatagram::from)
    }

    /// A socket bound to no address.
    ///
    /// # Errors
    ///
    /// The OS error of `socket`.
    ///
    /// # Panics
    ///
    /// Outside an rt runtime with I/O enabled.
    #[track_caller]
    pub fn unbound() -> io::Result<UnixDatagram> {
        rt::net::UnixDatagram::unbound().map(UnixDatagram::from)
    }

    /// Two sockets connected to each other.
    ///
    /// # Errors
    ///
    /// The OS error of `socketpair`.
    ///
    /// # Panics
    ///
    /// Outside an rt runtime with I/O enabled.
    #[track_caller]
    pub fn pair() -> io::Result<(UnixDatagram, UnixDatagram)> {
        let (a, b) = rt::net::UnixDatagram::pair()?;
        Ok((a.into(), b.into()))
    }

    /// Wraps a std socket, which must be in non-blocking mode.
    ///
    /// # Errors
    ///
    /// The registration's OS error.
    ///
    /// # Panics
    ///
    /// Outside an rt runtime with I/O enabled.
    #[track_caller]
    pub fn from_std(datagram: std::os::unix::net::UnixDatagram) -> io::Result<UnixDatagram> {
        rt::net::UnixDatagram::from_std(datagram).map(UnixDatagram::from)
    }

    /// Deregisters the socket and hands it back as a std socket.
    ///
    /// # Errors
    ///
    /// The OS error of deregistering.
    pub fn into_std(self) -> io::Result<std::os::unix::net::UnixDatagram> {
        self.inner.into_std()
    }

    /// Receives a datagram from the connected peer into `buf`'s unfilled
    /// part (straight into its uninitialised memory).
    ///
    /// # Errors
    ///
    /// The OS error of `recv`.
    pub fn poll_recv(&self, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        crate::net::udp::poll_recv_datagram(buf, |unfilled| {
            self.inner
                .poll_recv_uninit(cx, unfilled)
                .map_ok(|n| (n, ()))
        })
    }

    /// Receives a datagram and its sender into `buf`'s unfilled part. The
    /// sender's address (which may be unnamed or abstract) comes from the
    /// std receive, which takes initialised memory: the bytes of `buf` not
    /// initialised yet are zeroed first.
    ///
    /// # Errors
    ///
    /// The OS error of `recvfrom`.
    pub fn poll_recv_from(
        &self,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<SocketAddr>> {
        let (n, from) = ready!(self.inner.poll_recv_from(cx, buf.initialize_unfilled()))?;
        buf.advance(n);
        Poll::Ready(Ok(from))
    }
}

impl TryFrom<std::os::unix::net::UnixDatagram> for UnixDatagram {
    type Error = io::Error;

    /// As [`UnixDatagram::from_std`].
    fn try_from(datagram: std::os::unix::net::UnixDatagram) -> io::Result<UnixDatagram> {
        UnixDatagram::from_std(datagram)
    }
}
