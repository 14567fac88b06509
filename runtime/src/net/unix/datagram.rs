use super::SocketAddr;
use crate::io::registered::Registered;
use rt_reactor::{Direction, Interest};
use std::fmt;
use std::io;
use std::path::Path;

/// A Unix-domain datagram socket.
///
/// All methods take `&self`, so one socket can be shared (e.g. in an `Arc`)
/// by any number of tasks: receivers waiting in `recv` at once, senders
/// waiting in `send` for room in a full peer queue. Each waiting call has a
/// place of its own and readiness wakes them all; dropping a waiting call
/// frees its place.
///
/// # Examples
///
/// ```
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let (a, b) = rt::net::UnixDatagram::pair().unwrap();
///     a.send(b"one").await.unwrap();
///     let mut buf = [0; 8];
///     let n = b.recv(&mut buf).await.unwrap();
///     assert_eq!(&buf[..n], b"one");
/// });
/// ```
pub struct UnixDatagram {
    io: Registered<mio::net::UnixDatagram>,
}

impl UnixDatagram {
    #[track_caller]
    fn new(sys: mio::net::UnixDatagram) -> io::Result<UnixDatagram> {
        Ok(UnixDatagram {
            io: Registered::new(sys, Interest::READABLE | Interest::WRITABLE)?,
        })
    }

    /// Binds a socket to the file `path` (which must not exist).
    ///
    /// # Errors
    ///
    /// The OS error of `bind`.
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
    ///     let path = std::env::temp_dir().join(format!("rt-doc-udb-{}.sock", std::process::id()));
    ///     let _ = std::fs::remove_file(&path);
    ///     let server = rt::net::UnixDatagram::bind(&path).unwrap();
    ///     let client = rt::net::UnixDatagram::unbound().unwrap();
    ///     client.send_to(b"hey", &path).await.unwrap();
    ///     let mut buf = [0; 8];
    ///     let (n, _from) = server.recv_from(&mut buf).await.unwrap();
    ///     assert_eq!(&buf[..n], b"hey");
    ///     std::fs::remove_file(&path).unwrap();
    /// });
    /// ```
    #[track_caller]
    pub fn bind(path: impl AsRef<Path>) -> io::Result<UnixDatagram> {
        UnixDatagram::new(mio::net::UnixDatagram::bind(path)?)
    }

    /// A socket bound to no address.
    ///
    /// # Errors
    ///
    /// The OS error of `socket`.
    ///
    /// # Panics
    ///
    /// Panics outside a runtime with I/O enabled.
    ///
    /// # Examples
    ///
    /// See [`UnixDatagram::bind`].
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let socket = rt::net::UnixDatagram::unbound().unwrap();
    ///     assert!(socket.local_addr().unwrap().is_unnamed());
    /// });
    /// ```
    #[track_caller]
    pub fn unbound() -> io::Result<UnixDatagram> {
        UnixDatagram::new(mio::net::UnixDatagram::unbound()?)
    }

    /// A connected pair of sockets (`socketpair`).
    ///
    /// # Errors
    ///
    /// The OS error of `socketpair`.
    ///
    /// # Panics
    ///
    /// Panics outside a runtime with I/O enabled.
    ///
    /// # Examples
    ///
    /// See [`UnixDatagram`].
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, b) = rt::net::UnixDatagram::pair().unwrap();
    ///     # drop((a, b));
    /// });
    /// ```
    #[track_caller]
    pub fn pair() -> io::Result<(UnixDatagram, UnixDatagram)> {
        let (a, b) = mio::net::UnixDatagram::pair()?;
        Ok((UnixDatagram::new(a)?, UnixDatagram::new(b)?))
    }

    /// Wraps a `std` socket (it is switched to non-blocking).
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
    ///     let std = std::os::unix::net::UnixDatagram::unbound().unwrap();
    ///     let socket = rt::net::UnixDatagram::from_std(std).unwrap();
    ///     # drop(socket);
    /// });
    /// ```
    #[track_caller]
    pub fn from_std(socket: std::os::unix::net::UnixDatagram) -> io::Result<UnixDatagram> {
        socket.set_nonblocking(true)?;
        UnixDatagram::new(mio::net::UnixDatagram::from_std(socket))
    }

    /// Sets the default peer for `send`/`recv`.
    ///
    /// # Errors
    ///
    /// The OS error of `connect`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let path = std::env::temp_dir().join(format!("rt-doc-udc-{}.sock", std::process::id()));
    ///     let _ = std::fs::remove_file(&path);
    ///     let server = rt::net::UnixDatagram::bind(&path).unwrap();
    ///     let client = rt::net::UnixDatagram::unbound().unwrap();
    ///     client.connect(&path).unwrap();
    ///     client.send(b"x").await.unwrap();
    ///     assert_eq!(server.recv(&mut [0; 4]).await.unwrap(), 1);
    ///     std::fs::remove_file(&path).unwrap();
    /// });
    /// ```
    pub fn connect(&self, path: impl AsRef<Path>) -> io::Result<()> {
        self.io.get_ref().connect(path)
    }

    /// Sends a datagram to the connected peer.
    ///
    /// # Errors
    ///
    /// The OS error of `send`.
    ///
    /// # Examples
    ///
    /// See [`UnixDatagram`].
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = rt::net::UnixDatagram::pair().unwrap();
    ///     assert_eq!(a.send(b"abc").await.unwrap(), 3);
    /// });
    /// ```
    pub async fn send(&self, buf: &[u8]) -> io::Result<usize> {
        self.io
            .async_io(Direction::Write, |sys| sys.send(buf))
            .await
    }

    /// Receives a datagram from the connected peer.
    ///
    /// # Errors
    ///
    /// The OS error of `recv`.
    ///
    /// # Examples
    ///
    /// See [`UnixDatagram`].
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, b) = rt::net::UnixDatagram::pair().unwrap();
    ///     a.send(b"abc").await.unwrap();
    ///     assert_eq!(b.recv(&mut [0; 8]).await.unwrap(), 3);
    /// });
    /// ```
    pub async fn recv(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.io.async_io(Direction::Read, |sys| sys.recv(buf)).await
    }

    /// Sends a datagram to the socket at `path`.
    ///
    /// # Errors
    ///
    /// The OS error of `sendto`.
    ///
    /// # Examples
    ///
    /// See [`UnixDatagram::bind`].
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let socket = rt::net::UnixDatagram::unbound().unwrap();
    ///     let missing = std::env::temp_dir().join("rt-doc-no-such.sock");
    ///     assert!(socket.send_to(b"x", &missing).await.is_err());
    /// });
    /// ```
    pub async fn send_to(&self, buf: &[u8], path: impl AsRef<Path>) -> io::Result<usize> {
        let path = path.as_ref();
        self.io
            .async_io(Direction::Write, |sys| sys.send_to(buf, path))
            .await
    }

    /// Receives a datagram and the address it came from.
    ///
    /// # Errors
    ///
    /// The OS error of `recvfrom`.
    ///
    /// # Examples
    ///
    /// See [`UnixDatagram::bind`].
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, b) = rt::net::UnixDatagram::pair().unwrap();
    ///     a.send(b"hi").await.unwrap();
    ///     let (n, from) = b.recv_from(&mut [0; 8]).await.unwrap();
    ///     assert_eq!(n, 2);
    ///     assert!(from.is_unnamed());
    /// });
    /// ```
    pub async fn recv_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        self.io
            .async_io(Direction::Read, |sys| sys.recv_from(buf))
            .await
    }

    /// The local address.
    ///
    /// # Errors
    ///
    /// The OS error of `getsockname`.
    ///
    /// # Examples
    ///
    /// See [`UnixDatagram::unbound`].
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = rt::net::UnixDatagram::pair().unwrap();
    ///     assert!(a.local_addr().unwrap().is_unnamed());
    /// });
    /// ```
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.io.get_ref().local_addr()
    }

    /// The connected peer's address.
    ///
    /// # Errors
    ///
    /// `NotConnected` if not connected.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let socket = rt::net::UnixDatagram::unbound().unwrap();
    ///     assert!(socket.peer_addr().is_err());
    /// });
    /// ```
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.io.get_ref().peer_addr()
    }
}

impl fmt::Debug for UnixDatagram {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UnixDatagram")
            .field("local_addr", &self.local_addr().ok())
            .finish()
    }
}
