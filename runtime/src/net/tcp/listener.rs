//! `TcpListener` and its `Incoming` stream; their I/O is `listener_io.rs`.

use super::TcpStream;
use super::listener_io::{Accepted, IncomingWaiter, ListenerIo, real_listener};
use crate::io::registered::Registered;
use crate::net::addr::{ToSocketAddrs, each_addr};
use crate::task::waits::Site;
use futures_util::Stream;
use rt_reactor::Interest;
use socket2::{Domain, Protocol, Socket, Type};
use std::fmt;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, RawFd};
use std::pin::Pin;
use std::task::{Context, Poll};

/// The queue of handshaken connections [`TcpListener::bind`] asks for
/// (`listen(2)`'s backlog; the kernel caps it at `net.core.somaxconn`).
///
/// Not mio's `bind`, whose queue is 128 since mio 1.0.3 (tokio's `bind`
/// inherits it): a burst of more connects than the queue holds overflows
/// it, and with SYN cookies on (Linux's default) the clients past it see
/// their connect succeed while the listener never sees the connection
/// until they send something (a protocol where the server speaks first
/// stalls for good).
const BIND_BACKLOG: i32 = 1024;

/// A non-blocking, close-on-exec listener on `addr`, with `SO_REUSEADDR`
/// (a restarted server rebinds a port whose connections are in
/// `TIME_WAIT`) and a queue of [`BIND_BACKLOG`].
fn bind_listening(addr: SocketAddr) -> io::Result<mio::net::TcpListener> {
    let socket = Socket::new(Domain::for_address(addr), Type::STREAM, Some(Protocol::TCP))?;
    socket.set_nonblocking(true)?;
    socket.set_reuse_address(true)?;
    socket.bind(&addr.into())?;
    socket.listen(BIND_BACKLOG)?;
    Ok(mio::net::TcpListener::from_std(socket.into()))
}

/// A TCP socket listening for connections.
///
/// # Examples
///
/// ```
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
///     let addr = listener.local_addr().unwrap();
///     let client = rt::spawn(async move { rt::net::TcpStream::connect(addr).await.unwrap() });
///     let (_socket, peer) = listener.accept().await.unwrap();
///     assert_eq!(peer, client.await.unwrap().local_addr().unwrap());
/// });
/// ```
pub struct TcpListener {
    io: ListenerIo,
}

// Unwind-safe, as tokio's (and as `UdpSocket`): a real socket's readiness
// is atomics and a simulated one's state sits behind the simulation's
// locks; only the simulation's handle (hooks called, never changed) keeps
// the auto traits off under feature `sim`.
impl std::panic::UnwindSafe for TcpListener {}
impl std::panic::RefUnwindSafe for TcpListener {}

impl TcpListener {
    /// Binds a listener to `addr` (with `SO_REUSEADDR`, and room for 1024
    /// connections waiting to be accepted, or `net.core.somaxconn` if less).
    /// With several addresses, the first that binds wins.
    ///
    /// # Errors
    ///
    /// The OS error of the last address tried (e.g. `AddrInUse`), or
    /// `InvalidInput` for an address that is not `ip:port`.
    ///
    /// # Panics
    ///
    /// Panics outside a runtime with I/O enabled.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    ///     assert_ne!(listener.local_addr().unwrap().port(), 0);
    /// });
    /// ```
    pub async fn bind(addr: impl ToSocketAddrs) -> io::Result<TcpListener> {
        each_addr(addr, |addr| async move {
            #[cfg(feature = "sim")]
            if let Some(bound) =
                crate::sim::in_sim(|sim| crate::sim::SimTcpListener::bind(sim, addr))
            {
                return bound.map(TcpListener::simulated);
            }
            TcpListener::new(bind_listening(addr)?)
        })
        .await
    }

    /// A listener on the simulated network.
    #[cfg(feature = "sim")]
    pub(super) fn simulated(listener: crate::sim::SimTcpListener) -> TcpListener {
        TcpListener {
            io: ListenerIo::Sim(listener),
        }
    }

    #[track_caller]
    fn new(sys: mio::net::TcpListener) -> io::Result<TcpListener> {
        Ok(TcpListener {
            io: real_listener(Registered::new(sys, Interest::READABLE)?),
        })
    }

    /// Wraps a listener bound with `std` (it is switched to non-blocking).
    ///
    /// # Errors
    ///
    /// The OS error of switching modes or of the registration.
    ///
    /// # Panics
    ///
    /// Panics outside a runtime with I/O enabled.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let std = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    ///     let listener = rt::net::TcpListener::from_std(std).unwrap();
    ///     # drop(listener);
    /// });
    /// ```
    #[track_caller]
    pub fn from_std(listener: std::net::TcpListener) -> io::Result<TcpListener> {
        #[cfg(feature = "sim")]
        crate::sim::refuse_naming_fix(
            "`TcpListener::from_std`",
            "; bind the listener inside the simulation with `TcpListener::bind` and hand it \
             to the server (one that binds a std listener itself, as tonic's `Server::serve` \
             does, has a form that takes a listener: `serve_with_incoming`)",
        )?;
        listener.set_nonblocking(true)?;
        TcpListener::new(mio::net::TcpListener::from_std(listener))
    }

    /// Deregisters the listener and returns it as a (non-blocking) `std` one.
    ///
    /// # Errors
    ///
    /// The OS error of the deregistration.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    ///     let addr = listener.local_addr().unwrap();
    ///     let std = listener.into_std().unwrap();
    ///     assert_eq!(std.local_addr().unwrap(), addr);
    /// });
    /// ```
    pub fn into_std(self) -> io::Result<std::net::TcpListener> {
        Ok(self.io.into_inner()?.into())
    }

    /// Waits for and accepts one connection.
    ///
    /// Any number of tasks may wait in `accept` on one listener (shared
    /// through an `Arc`): each waits in a place of its own, a new connection
    /// wakes them all and one of them takes it. Dropping the future (a
    /// timeout) frees its place.
    ///
    /// The stream starts out assumed readable and writable, as in tokio:
    /// its first read and write try the socket at once (the peer's first
    /// bytes are usually there already) instead of waiting for the
    /// reactor's first event; a read that finds nothing clears the
    /// readability.
    ///
    /// # Errors
    ///
    /// The OS error of `accept` (e.g. `EMFILE` when out of descriptors, or
    /// `ECONNABORTED`). The listener stays usable: an error concerns one
    /// connection or a transient resource shortage, so a server should log
    /// it, back off if it is a shortage, and keep accepting.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    ///     let addr = listener.local_addr().unwrap();
    ///     let _client = std::net::TcpStream::connect(addr).unwrap();
    ///     let (stream, _peer) = listener.accept().await.unwrap();
    ///     assert_eq!(stream.local_addr().unwrap(), addr);
    /// });
    /// ```
    #[track_caller]
    pub fn accept(&self) -> impl Future<Output = io::Result<(TcpStream, SocketAddr)>> {
        let site = Site::here("TcpListener::accept");
        async move {
            let mut accept = std::pin::pin!(self.io.accept());
            // The dump names this call, not the listener's read readiness.
            let accepted = std::future::poll_fn(|cx| site.instead_of(|| accept.as_mut().poll(cx)));
            accepted.await.and_then(wrap_accepted)
        }
    }

    /// Polls for one connection.
    ///
    /// A `poll_*` method has no future to own a place among the tasks
    /// waiting on the listener: it waits in one slot shared by all
    /// `poll_accept` callers, where the last caller's waker wins (an
    /// earlier caller's task is not woken). Poll it from one task at a
    /// time; tasks sharing a listener call [`accept`](TcpListener::accept)
    /// (or each use their own [`incoming`](TcpListener::incoming) stream),
    /// which any number of tasks may await at once.
    ///
    /// # Errors
    ///
    /// As [`TcpListener::accept`].
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    ///     let _client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
    ///     let (_stream, _peer) = std::future::poll_fn(|cx| listener.poll_accept(cx)).await.unwrap();
    /// });
    /// ```
    pub fn poll_accept(&self, cx: &mut Context<'_>) -> Poll<io::Result<(TcpStream, SocketAddr)>> {
        self.io
            .poll_accept(cx)
            .map(|accepted| accepted.and_then(wrap_accepted))
    }

    /// A stream of accepted connections, for accept loops written with
    /// `StreamExt`. It never ends; each item is one `accept` result. The
    /// stream owns a place among the tasks waiting on the listener, as an
    /// `accept` future does, so several tasks may each poll their own
    /// `incoming()` stream on one listener.
    ///
    /// # Examples
    ///
    /// ```
    /// use futures_util::StreamExt;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    ///     let _client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
    ///     let mut incoming = listener.incoming();
    ///     let stream = incoming.next().await.unwrap().unwrap();
    ///     # drop(stream);
    /// });
    /// ```
    pub fn incoming(&self) -> Incoming<'_> {
        Incoming {
            listener: self,
            waiter: self.io.incoming_waiter(),
        }
    }

    /// The address the listener is bound to.
    ///
    /// # Errors
    ///
    /// The OS error of `getsockname`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    ///     assert!(listener.local_addr().unwrap().ip().is_loopback());
    /// });
    /// ```
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.io.local_addr()
    }

    /// The IP time-to-live (`IP_TTL`) of the connections this listener
    /// accepts.
    ///
    /// # Errors
    ///
    /// The OS error of `getsockopt`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    ///     listener.set_ttl(100).unwrap();
    ///     assert_eq!(listener.ttl().unwrap(), 100);
    /// });
    /// ```
    pub fn ttl(&self) -> io::Result<u32> {
        self.io.ttl()
    }

    /// Sets the IP time-to-live (`IP_TTL`); accepted connections inherit
    /// it.
    ///
    /// # Errors
    ///
    /// The OS error of `setsockopt` (`InvalidInput` above 255).
    ///
    /// # Examples
    ///
    /// See [`TcpListener::ttl`].
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    ///     assert!(listener.set_ttl(0).is_err());
    /// });
    /// ```
    pub fn set_ttl(&self, ttl: u32) -> io::Result<()> {
        self.io.set_ttl(ttl)
    }
}

impl AsRawFd for TcpListener {
    fn as_raw_fd(&self) -> RawFd {
        self.io.get_ref().as_raw_fd()
    }
}

impl AsFd for TcpListener {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.io.get_ref().as_fd()
    }
}

/// The stream returned by [`TcpListener::incoming`].
///
/// # Examples
///
/// ```
/// use futures_util::StreamExt;
///
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
///     let addr = listener.local_addr().unwrap();
///     let _a = std::net::TcpStream::connect(addr).unwrap();
///     let _b = std::net::TcpStream::connect(addr).unwrap();
///     let accepted: Vec<_> = listener.incoming().take(2).collect().await;
///     assert!(accepted.iter().all(|r| r.is_ok()));
/// });
/// ```
#[must_use = "streams do nothing unless polled"]
pub struct Incoming<'a> {
    listener: &'a TcpListener,
    waiter: IncomingWaiter<'a>,
}

impl Stream for Incoming<'_> {
    type Item = io::Result<TcpStream>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let Incoming { listener, waiter } = self.get_mut();
        listener
            .io
            .poll_accept_in(cx, waiter)
            .map(|accepted| Some(accepted.and_then(wrap_accepted).map(|(stream, _)| stream)))
    }
}

/// Makes an accepted connection a stream (a real one registers with the
/// reactor).
fn wrap_accepted((accepted, peer): (Accepted, SocketAddr)) -> io::Result<(TcpStream, SocketAddr)> {
    TcpStream::accepted(accepted).map(|stream| (stream, peer))
}

impl fmt::Debug for TcpListener {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TcpListener")
            .field("local_addr", &self.local_addr().ok())
            .finish()
    }
}

impl fmt::Debug for Incoming<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Incoming")
            .field("listener", self.listener)
            .finish()
    }
}
