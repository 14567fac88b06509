//! [`TcpListener`]: a newtype over rt's, whose `accept` hands out the
//! facade's [`TcpStream`].

use super::TcpStream;
use crate::net::ToSocketAddrs;
use crate::net::newtype::{forward, socket_newtype};
use std::io;
use std::net::SocketAddr;
use std::task::{Context, Poll};

/// A TCP listener. A newtype over `rt::net::TcpListener` whose accepted
/// streams are the facade's; `local_addr`, `ttl`, `set_ttl` forward to
/// rt's.
///
/// # Examples
///
/// ```
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
/// let addr = listener.local_addr().unwrap();
/// let client = tokio::net::TcpStream::connect(addr).await.unwrap();
/// let (server, peer) = listener.accept().await.unwrap();
/// assert_eq!(peer, client.local_addr().unwrap());
/// # drop(server);
/// # });
/// ```
pub struct TcpListener {
    inner: rt::net::TcpListener,
}

socket_newtype!(TcpListener, rt::net::TcpListener);

impl TcpListener {
    forward! {
        /// The local address.
        fn local_addr(&self) -> io::Result<SocketAddr>;
        /// `IP_TTL`.
        fn ttl(&self) -> io::Result<u32>;
        /// Sets `IP_TTL`.
        fn set_ttl(&self, ttl: u32) -> io::Result<()>;
    }

    /// Binds to `addr` (the first address that binds).
    ///
    /// # Errors
    ///
    /// The bind error of the last address tried.
    ///
    /// # Panics
    ///
    /// Outside an rt runtime with I/O enabled.
    pub async fn bind<A: ToSocketAddrs>(addr: A) -> io::Result<TcpListener> {
        rt::net::TcpListener::bind(addr)
            .await
            .map(TcpListener::from)
    }

    /// Accepts a connection. Cancel-safe.
    ///
    /// # Errors
    ///
    /// The OS error of `accept`.
    #[track_caller]
    pub fn accept(&self) -> impl Future<Output = io::Result<(TcpStream, SocketAddr)>> {
        let accept = self.inner.accept();
        async move {
            let (stream, addr) = accept.await?;
            Ok((stream.into(), addr))
        }
    }

    /// Polls for a connection (one waker slot: the last caller's wins).
    ///
    /// # Errors
    ///
    /// The OS error of `accept`.
    pub fn poll_accept(&self, cx: &mut Context<'_>) -> Poll<io::Result<(TcpStream, SocketAddr)>> {
        self.inner
            .poll_accept(cx)
            .map_ok(|(stream, addr)| (stream.into(), addr))
    }

    /// Wraps a bound std listener, which must be in non-blocking mode.
    ///
    /// # Errors
    ///
    /// The registration's OS error.
    ///
    /// # Panics
    ///
    /// Outside an rt runtime with I/O enabled.
    #[track_caller]
    pub fn from_std(listener: std::net::TcpListener) -> io::Result<TcpListener> {
        rt::net::TcpListener::from_std(listener).map(TcpListener::from)
    }

    /// Deregisters the listener and hands it back as a std listener.
    ///
    /// # Errors
    ///
    /// The OS error of deregistering.
    pub fn into_std(self) -> io::Result<std::net::TcpListener> {
        self.inner.into_std()
    }
}

impl TryFrom<std::net::TcpListener> for TcpListener {
    type Error = io::Error;

    /// As [`TcpListener::from_std`].
    fn try_from(listener: std::net::TcpListener) -> io::Result<TcpListener> {
        TcpListener::from_std(listener)
    }
}
