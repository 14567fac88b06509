//! `TcpStream`: connecting, the conversions and what it shares with
//! `UnixStream`; its I/O is `dispatch.rs`.

use super::dispatch::{TcpIo, real_io};
use super::listener_io::{Accepted, accepted_io};
use super::split::{OwnedReadHalf, OwnedWriteHalf, ReadHalf, WriteHalf};
use crate::io::registered::Registered;
use crate::net::addr::{ToSocketAddrs, each_addr};
use rt_reactor::Interest;
use std::future::poll_fn;
use std::io;
use std::net::SocketAddr;

/// A TCP connection.
///
/// Reads and writes go through
/// [`AsyncRead`](futures_io::AsyncRead)/[`AsyncWrite`](futures_io::AsyncWrite) (use
/// [`AsyncReadExt`](crate::io::AsyncReadExt) /
/// [`AsyncWriteExt`](crate::io::AsyncWriteExt)); closing (`close()`) shuts
/// down the write side, so the peer reads end-of-file while this side can
/// still read. A reader task and a writer task can use the stream at once
/// through [`split`](TcpStream::split) or
/// [`into_split`](TcpStream::into_split).
///
/// The `AsyncRead`/`AsyncWrite` methods (`poll_read`, `poll_write`, and
/// the split halves') have no future to own a place among the tasks
/// waiting on the socket: each direction has one slot for them, where the
/// last caller's waker wins, so read from one task at a time and write
/// from one task at a time. [`readable`](TcpStream::readable),
/// [`writable`](TcpStream::writable) and [`peek`](TcpStream::peek) may be
/// awaited by any number of tasks at once: each waits in a place of its
/// own, and readiness wakes them all.
///
/// # Examples
///
/// ```
/// use rt::io::{AsyncReadExt, AsyncWriteExt};
///
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
///     let mut client = rt::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
///     let (mut server, _) = listener.accept().await.unwrap();
///     client.write_all(b"ping").await.unwrap();
///     client.close().await.unwrap();
///     let mut got = Vec::new();
///     server.read_to_end(&mut got).await.unwrap();
///     assert_eq!(got, b"ping");
/// });
/// ```
pub struct TcpStream {
    io: TcpIo,
}

// Unwind-safe, as tokio's (and as `UdpSocket`): a real socket's readiness
// is atomics and a simulated one's state sits behind the simulation's
// locks; only the simulation's handle (hooks called, never changed) keeps
// the auto traits off under feature `sim`.
impl std::panic::UnwindSafe for TcpStream {}
impl std::panic::RefUnwindSafe for TcpStream {}

impl TcpStream {
    /// Registers `sys` with the reactor (it is connected, or connecting:
    /// then `connected` waits for the end of the handshake).
    #[track_caller]
    pub(super) fn register(
        sys: mio::net::TcpStream,
    ) -> io::Result<Registered<mio::net::TcpStream>> {
        Registered::new(sys, Interest::READABLE | Interest::WRITABLE)
    }

    /// Waits for the end of the connect of `io`, then makes it a stream.
    pub(super) async fn connected(io: Registered<mio::net::TcpStream>) -> io::Result<TcpStream> {
        poll_fn(|cx| io.poll_connected(cx)).await?;
        Ok(TcpStream { io: real_io(io) })
    }

    /// A stream `accept` returned. A real one is assumed readable and
    /// writable from the start (`Registered::assuming`), as in tokio, so
    /// its first read and write try the socket instead of waiting for the
    /// reactor's first event (which under load can queue behind every
    /// other connection's); a read that finds nothing clears the
    /// assumption.
    pub(super) fn accepted(accepted: Accepted) -> io::Result<TcpStream> {
        Ok(TcpStream {
            io: accepted_io(accepted)?,
        })
    }

    /// Connects to `addr`, trying each address in turn.
    ///
    /// # Errors
    ///
    /// The connection error of the last address tried (read from
    /// `SO_ERROR` once the socket becomes writable), e.g.
    /// `ConnectionRefused`, or `InvalidInput` for an address that is not
    /// `ip:port`.
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
    ///     let addr = listener.local_addr().unwrap();
    ///     let stream = rt::net::TcpStream::connect(addr).await.unwrap();
    ///     assert_eq!(stream.peer_addr().unwrap(), addr);
    ///     drop(listener);
    ///     // Nobody listens there any more.
    ///     let refused = rt::net::TcpStream::connect(addr).await.unwrap_err();
    ///     assert_eq!(refused.kind(), std::io::ErrorKind::ConnectionRefused);
    /// });
    /// ```
    pub async fn connect(addr: impl ToSocketAddrs) -> io::Result<TcpStream> {
        each_addr(addr, TcpStream::connect_addr).await
    }

    /// Inside a simulation, the connect goes over the simulated network
    /// (one look at the thread's runtime per address tried).
    async fn connect_addr(addr: SocketAddr) -> io::Result<TcpStream> {
        #[cfg(feature = "sim")]
        if let Some(connect) =
            crate::sim::in_sim(|sim| crate::sim::SimTcpStream::connect(sim.clone(), addr))
        {
            return Ok(TcpStream::simulated(connect.await?));
        }
        let io = TcpStream::register(mio::net::TcpStream::connect(addr)?)?;
        TcpStream::connected(io).await
    }

    /// A stream over a simulated connection.
    #[cfg(feature = "sim")]
    pub(super) fn simulated(stream: crate::sim::SimTcpStream) -> TcpStream {
        TcpStream {
            io: TcpIo::Sim(stream),
        }
    }

    /// Wraps a connected `std` stream (it is switched to non-blocking).
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
    ///     let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    ///     let std = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
    ///     let stream = rt::net::TcpStream::from_std(std).unwrap();
    ///     # drop(stream);
    /// });
    /// ```
    #[track_caller]
    pub fn from_std(stream: std::net::TcpStream) -> io::Result<TcpStream> {
        #[cfg(feature = "sim")]
        crate::sim::refuse_naming_fix(
            "`TcpStream::from_std`",
            "; connect inside the simulation with `TcpStream::connect` or `TcpSocket::connect`",
        )?;
        stream.set_nonblocking(true)?;
        let io = TcpStream::register(mio::net::TcpStream::from_std(stream))?;
        Ok(TcpStream { io: real_io(io) })
    }

    /// Deregisters the stream and returns it as a (non-blocking) `std` one.
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
    ///     let stream = rt::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
    ///     let std = stream.into_std().unwrap();
    ///     assert_eq!(std.peer_addr().unwrap(), listener.local_addr().unwrap());
    /// });
    /// ```
    pub fn into_std(self) -> io::Result<std::net::TcpStream> {
        Ok(self.io.into_inner()?.into())
    }

    crate::net::stream_common::stream_common! {
        stream: TcpStream, io: TcpIo, address: SocketAddr;

        /// The local address of the connection.
        ///
        /// # Errors
        ///
        /// The OS error of `getsockname`.
        local_addr {
            /// ```
            /// let rt = rt::runtime::Runtime::new().unwrap();
            /// rt.block_on(async {
            ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            ///     let stream = rt::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
            ///     assert!(stream.local_addr().unwrap().ip().is_loopback());
            /// });
            /// ```
        }

        /// The address of the peer.
        ///
        /// # Errors
        ///
        /// The OS error of `getpeername` (`NotConnected` once the peer is gone).
        peer_addr {
            /// ```
            /// let rt = rt::runtime::Runtime::new().unwrap();
            /// rt.block_on(async {
            ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            ///     let addr = listener.local_addr().unwrap();
            ///     let stream = rt::net::TcpStream::connect(addr).await.unwrap();
            ///     assert_eq!(stream.peer_addr().unwrap(), addr);
            /// });
            /// ```
        }

        /// Shuts down the read side, the write side or both, at once: std's
        /// `TcpStream::shutdown`. Shutting down the write side sends
        /// end-of-file to the peer.
        ///
        /// The async `stream.shutdown().await` (tokio's spelling, from
        /// [`AsyncWriteExt`](crate::io::AsyncWriteExt)) shuts down the write
        /// side; this method is named apart from it so that call resolves to
        /// the trait method.
        ///
        /// # Errors
        ///
        /// The OS error of `shutdown` (`NotConnected` if the peer is gone).
        shutdown_std {
            /// ```
            /// use rt::io::AsyncReadExt;
            /// use std::net::Shutdown;
            ///
            /// let rt = rt::runtime::Runtime::new().unwrap();
            /// rt.block_on(async {
            ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            ///     let client = rt::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
            ///     let (mut server, _) = listener.accept().await.unwrap();
            ///     client.shutdown_std(Shutdown::Write).unwrap();
            ///     assert_eq!(server.read(&mut [0; 8]).await.unwrap(), 0);
            /// });
            /// ```
        }

        split {
            /// ```
            /// use rt::io::{AsyncReadExt, AsyncWriteExt};
            ///
            /// let rt = rt::runtime::Runtime::new().unwrap();
            /// rt.block_on(async {
            ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            ///     let mut client = rt::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
            ///     let (mut server, _) = listener.accept().await.unwrap();
            ///     let (mut read, mut write) = server.split();
            ///     client.write_all(b"echo").await.unwrap();
            ///     rt::io::copy(&mut (&mut read).take(4), &mut write).await.unwrap();
            ///     let mut buf = [0; 4];
            ///     client.read_exact(&mut buf).await.unwrap();
            ///     assert_eq!(&buf, b"echo");
            /// });
            /// ```
        }

        into_split {
            /// ```
            /// use rt::io::{AsyncReadExt, AsyncWriteExt};
            ///
            /// let rt = rt::runtime::Runtime::new().unwrap();
            /// rt.block_on(async {
            ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            ///     let client = rt::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
            ///     let (mut server, _) = listener.accept().await.unwrap();
            ///     let (mut read, mut write) = client.into_split();
            ///     let writer = rt::spawn(async move { write.write_all(b"bye").await.unwrap() });
            ///     let mut got = [0; 3];
            ///     server.read_exact(&mut got).await.unwrap();
            ///     assert_eq!(&got, b"bye");
            ///     writer.await.unwrap();
            ///     server.write_all(b"ok").await.unwrap();
            ///     let mut reply = [0; 2];
            ///     read.read_exact(&mut reply).await.unwrap();
            ///     assert_eq!(&reply, b"ok");
            /// });
            /// ```
        }
    }
}

crate::net::stream_common::stream_common!(impls: TcpStream);
