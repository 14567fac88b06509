//! The registered-I/O layer of [`TcpStream`](super::TcpStream): its one
//! I/O field, `TcpIo`, and the operations on it that every method of the
//! stream and its halves calls. The operations it shares with
//! `UnixStream` (`net/stream_common.rs`, `net/stream_io.rs`,
//! `net/registered_io.rs`, the `AsyncRead`/`AsyncWrite` impls) have the
//! names of `Registered`'s own, so the shared macros call them on either
//! type; the TCP-only ones (`peek`, options) are below.
//!
//! Without the `sim` feature `TcpIo` is the real registration and the
//! TCP-only operations are its calls on the mio socket, as they always
//! were: the code compiles as before. With it, `TcpIo` is an enum of the
//! real registration and a simulated stream (`rt::sim`), chosen once when
//! the stream is made (a connect looks at the thread's runtime once; an
//! accepted stream is what its listener is), and each operation matches
//! it once (the readiness ones, `try_io`/`async_io` and `real` with
//! `UdpIo`'s, from `net/sim_dispatch.rs`). What needs the real socket is refused on a simulated one: an
//! `Unsupported` error naming the API where it returns a `Result`
//! (`try_io`, `async_io`, `into_std`, `send_file`, `quickack`), a panic
//! saying so for the descriptor (`as_fd`, `as_raw_fd`, so
//! `socket2::SockRef` too). The listener's layer is `listener_io.rs`.

use crate::io::registered::Registered;
use rt_reactor::Direction;
use socket2::SockRef;
use std::future::Future;
use std::io;
use std::mem::MaybeUninit;
use std::net::{Shutdown, SocketAddr};
use std::task::{Context, Poll};
use std::time::Duration;

/// The stream's I/O: see the module docs.
#[cfg(not(feature = "sim"))]
pub(crate) type TcpIo = Registered<mio::net::TcpStream>;

/// The stream's I/O: see the module docs.
#[cfg(feature = "sim")]
pub(crate) enum TcpIo {
    Real(Registered<mio::net::TcpStream>),
    Sim(crate::sim::SimTcpStream),
}

/// The I/O of a stream on a real registration.
#[cfg(not(feature = "sim"))]
pub(super) fn real_io(io: Registered<mio::net::TcpStream>) -> TcpIo {
    io
}

/// The I/O of a stream on a real registration.
#[cfg(feature = "sim")]
pub(super) fn real_io(io: Registered<mio::net::TcpStream>) -> TcpIo {
    TcpIo::Real(io)
}

/// The TCP-only operations on the real registration (the only ones
/// without the feature). The futures are the registration's own, so a
/// stream method awaits exactly what it awaited before.
impl Registered<mio::net::TcpStream> {
    pub(crate) fn local_addr(&self) -> io::Result<SocketAddr> {
        self.get_ref().local_addr()
    }

    pub(crate) fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.get_ref().peer_addr()
    }

    pub(crate) fn shutdown(&self, how: Shutdown) -> io::Result<()> {
        self.get_ref().shutdown(how)
    }

    pub(super) fn peek<'a>(
        &'a self,
        buf: &'a mut [u8],
    ) -> impl Future<Output = io::Result<usize>> + 'a {
        self.async_io(Direction::Read, |sys| sys.peek(buf))
    }

    pub(super) fn poll_peek(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.poll_io(cx, Direction::Read, |sys| sys.peek(buf))
    }

    pub(super) fn poll_peek_uninit(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [MaybeUninit<u8>],
    ) -> Poll<io::Result<usize>> {
        self.poll_io(cx, Direction::Read, |sys| SockRef::from(sys).peek(buf))
    }

    pub(super) fn nodelay(&self) -> io::Result<bool> {
        self.get_ref().nodelay()
    }

    pub(super) fn set_nodelay(&self, nodelay: bool) -> io::Result<()> {
        self.get_ref().set_nodelay(nodelay)
    }

    pub(super) fn ttl(&self) -> io::Result<u32> {
        self.get_ref().ttl()
    }

    pub(super) fn set_ttl(&self, ttl: u32) -> io::Result<()> {
        self.get_ref().set_ttl(ttl)
    }

    pub(super) fn take_error(&self) -> io::Result<Option<io::Error>> {
        self.get_ref().take_error()
    }

    pub(super) fn linger(&self) -> io::Result<Option<Duration>> {
        SockRef::from(self.get_ref()).linger()
    }

    /// `linger` in whole seconds already.
    pub(super) fn set_linger(&self, linger: Option<Duration>) -> io::Result<()> {
        SockRef::from(self.get_ref()).set_linger(linger)
    }

    /// The end of a non-blocking connect: writable, then `SO_ERROR` says
    /// whether it failed.
    ///
    /// On Linux the writable event of a connecting socket comes only once
    /// the handshake is over, so `SO_ERROR` is the whole answer. Elsewhere
    /// a writable event may come early, so `getpeername` also checks that
    /// the connection is complete (`NotConnected`: wait again).
    pub(super) fn poll_connected(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        loop {
            let event = match self.poll_ready(cx, Direction::Write) {
                Poll::Ready(event) => event?,
                Poll::Pending => return Poll::Pending,
            };
            let sys = self.get_ref();
            if let Some(e) = sys.take_error()? {
                return Poll::Ready(Err(e));
            }
            if cfg!(target_os = "linux") {
                return Poll::Ready(Ok(()));
            }
            match sys.peer_addr() {
                Ok(_) => return Poll::Ready(Ok(())),
                Err(e) if e.kind() == io::ErrorKind::NotConnected => {
                    self.clear_readiness(event);
                }
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
    }

    /// The real registration, for the methods only it supports.
    #[cfg(not(feature = "sim"))]
    pub(super) fn real(&self, _api: &str) -> io::Result<&Registered<mio::net::TcpStream>> {
        Ok(self)
    }
}

// Each operation matches the enum once (see the module docs); the
// readiness ones, `try_io`/`async_io` and `real` are `net/sim_dispatch.rs`'s.
#[cfg(feature = "sim")]
use crate::net::sim_dispatch::each_kind;

#[cfg(feature = "sim")]
crate::net::sim_dispatch::sim_readiness!(TcpIo, mio::net::TcpStream, "TcpStream");

#[cfg(feature = "sim")]
impl TcpIo {
    #[inline]
    pub(crate) fn poll_read(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        each_kind!(TcpIo, self, |io| io.poll_read(cx, buf))
    }

    #[inline]
    pub(crate) fn poll_read_vectored(
        &self,
        cx: &mut Context<'_>,
        bufs: &mut [io::IoSliceMut<'_>],
    ) -> Poll<io::Result<usize>> {
        each_kind!(TcpIo, self, |io| io.poll_read_vectored(cx, bufs))
    }

    #[inline]
    pub(crate) fn poll_read_uninit(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [MaybeUninit<u8>],
    ) -> Poll<io::Result<usize>> {
        each_kind!(TcpIo, self, |io| io.poll_read_uninit(cx, buf))
    }

    #[inline]
    pub(crate) fn poll_write(&self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        each_kind!(TcpIo, self, |io| io.poll_write(cx, buf))
    }

    #[inline]
    pub(crate) fn poll_write_vectored(
        &self,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        each_kind!(TcpIo, self, |io| io.poll_write_vectored(cx, bufs))
    }

    #[inline]
    pub(crate) fn try_read(&self, buf: &mut [u8]) -> io::Result<usize> {
        each_kind!(TcpIo, self, |io| io.try_read(buf))
    }

    #[inline]
    pub(crate) fn try_read_vectored(&self, bufs: &mut [io::IoSliceMut<'_>]) -> io::Result<usize> {
        each_kind!(TcpIo, self, |io| io.try_read_vectored(bufs))
    }

    #[cfg(feature = "bytes")]
    #[inline]
    pub(crate) fn try_read_buf<B: bytes::BufMut + ?Sized>(&self, buf: &mut B) -> io::Result<usize> {
        each_kind!(TcpIo, self, |io| io.try_read_buf(buf))
    }

    #[inline]
    pub(crate) fn try_write(&self, buf: &[u8]) -> io::Result<usize> {
        each_kind!(TcpIo, self, |io| io.try_write(buf))
    }

    #[inline]
    pub(crate) fn try_write_vectored(&self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
        each_kind!(TcpIo, self, |io| io.try_write_vectored(bufs))
    }

    pub(crate) fn local_addr(&self) -> io::Result<SocketAddr> {
        each_kind!(TcpIo, self, |io| io.local_addr())
    }

    pub(crate) fn peer_addr(&self) -> io::Result<SocketAddr> {
        each_kind!(TcpIo, self, |io| io.peer_addr())
    }

    pub(crate) fn shutdown(&self, how: Shutdown) -> io::Result<()> {
        each_kind!(TcpIo, self, |io| io.shutdown(how))
    }

    pub(super) async fn peek(&self, buf: &mut [u8]) -> io::Result<usize> {
        each_kind!(TcpIo, self, |io| io.peek(buf).await)
    }

    pub(super) fn poll_peek(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        each_kind!(TcpIo, self, |io| io.poll_peek(cx, buf))
    }

    pub(super) fn poll_peek_uninit(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [MaybeUninit<u8>],
    ) -> Poll<io::Result<usize>> {
        each_kind!(TcpIo, self, |io| io.poll_peek_uninit(cx, buf))
    }

    pub(super) fn nodelay(&self) -> io::Result<bool> {
        each_kind!(TcpIo, self, |io| io.nodelay())
    }

    pub(super) fn set_nodelay(&self, nodelay: bool) -> io::Result<()> {
        each_kind!(TcpIo, self, |io| io.set_nodelay(nodelay))
    }

    pub(super) fn ttl(&self) -> io::Result<u32> {
        each_kind!(TcpIo, self, |io| io.ttl())
    }

    pub(super) fn set_ttl(&self, ttl: u32) -> io::Result<()> {
        each_kind!(TcpIo, self, |io| io.set_ttl(ttl))
    }

    pub(super) fn take_error(&self) -> io::Result<Option<io::Error>> {
        each_kind!(TcpIo, self, |io| io.take_error())
    }

    pub(super) fn linger(&self) -> io::Result<Option<Duration>> {
        each_kind!(TcpIo, self, |io| io.linger())
    }

    pub(super) fn set_linger(&self, linger: Option<Duration>) -> io::Result<()> {
        each_kind!(TcpIo, self, |io| io.set_linger(linger))
    }

    /// The mio socket, for the descriptor (`AsFd`, `AsRawFd`).
    ///
    /// # Panics
    ///
    /// Panics on a simulated stream, which has no descriptor.
    #[track_caller]
    pub(crate) fn get_ref(&self) -> &mio::net::TcpStream {
        match self {
            TcpIo::Real(real) => real.get_ref(),
            TcpIo::Sim(_) => panic!(
                "{}",
                crate::sim::unsupported(
                    "the descriptor of a `TcpStream` (`as_fd`, `as_raw_fd`, `socket2::SockRef`)"
                )
            ),
        }
    }

    pub(super) fn into_inner(self) -> io::Result<mio::net::TcpStream> {
        match self {
            TcpIo::Real(real) => real.into_inner(),
            TcpIo::Sim(_) => Err(crate::sim::unsupported("`TcpStream::into_std`")),
        }
    }
}
