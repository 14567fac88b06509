use super::{SocketAddr, abstract_name};
use crate::io::registered::{ReadShutDown, Registered};
use crate::io::sys;
use crate::net::datagram_io::{DatagramSys, SendTo};
use rt_reactor::{Direction, Interest, Ready};
use socket2::{SockAddr, SockRef};
use std::fmt;
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, RawFd};
use std::path::Path;

/// A Unix-domain datagram socket.
///
/// All methods take `&self`, so one socket can be shared (e.g. in an `Arc`)
/// by any number of tasks: receivers waiting in `recv` at once, senders
/// waiting in `send` for room in a full peer queue. Each waiting call has a
/// place of its own and readiness wakes them all; dropping a waiting call
/// frees its place. The `poll_*` methods have no future to own a place:
/// they wait in one slot per direction, where the last caller's waker
/// wins.
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
        UnixDatagram::assuming(sys, Ready::EMPTY)
    }

    #[track_caller]
    fn assuming(sys: mio::net::UnixDatagram, assumed: Ready) -> io::Result<UnixDatagram> {
        Ok(UnixDatagram {
            io: Registered::assuming(sys, Interest::READABLE | Interest::WRITABLE, assumed)?,
        })
    }

    /// The socket's registration, for the readiness methods.
    pub(super) fn registered(&self) -> &Registered<mio::net::UnixDatagram> {
        &self.io
    }

    /// The receives of this file and of `datagram_buf.rs` go through these
    /// two (the datagram macros' through `DatagramSys::recv_end`, the same
    /// rule): once the read side is shut down and the queue is empty, they
    /// return 0 bytes (from the unnamed address) as a blocking `recv(2)`
    /// does (`io::registered::ReadShutDown`), where waiting would never end.
    pub(super) async fn async_recv_io<R: ReadShutDown>(
        &self,
        op: impl FnMut(&mio::net::UnixDatagram) -> io::Result<R>,
    ) -> io::Result<R> {
        self.io.async_recv_ending(op, R::if_read_closed).await
    }

    #[cfg(feature = "bytes")]
    pub(super) fn try_recv_io<R: ReadShutDown>(
        &self,
        op: impl FnOnce(&mio::net::UnixDatagram) -> io::Result<R>,
    ) -> io::Result<R> {
        self.io.try_recv_ending(op, R::if_read_closed)
    }

    /// The `bytes` receives of `datagram_buf.rs`.
    #[cfg(feature = "bytes")]
    async fn bytes_recv<B: bytes::BufMut + ?Sized>(&self, buf: &mut B) -> io::Result<usize> {
        self.async_recv_io(|sys| crate::net::datagram_buf::receive(sys, buf))
            .await
    }

    #[cfg(feature = "bytes")]
    async fn bytes_recv_from<B: bytes::BufMut + ?Sized>(
        &self,
        buf: &mut B,
    ) -> io::Result<(usize, SocketAddr)> {
        self.async_recv_io(|sys| crate::net::datagram_buf::receive_from(sys, buf, std_address))
            .await
    }

    #[cfg(feature = "bytes")]
    fn bytes_try_recv<B: bytes::BufMut + ?Sized>(&self, buf: &mut B) -> io::Result<usize> {
        self.try_recv_io(|sys| crate::net::datagram_buf::receive(sys, buf))
    }

    #[cfg(feature = "bytes")]
    fn bytes_try_recv_from<B: bytes::BufMut + ?Sized>(
        &self,
        buf: &mut B,
    ) -> io::Result<(usize, SocketAddr)> {
        self.try_recv_io(|sys| crate::net::datagram_buf::receive_from(sys, buf, std_address))
    }

    /// Binds a socket to the file `path` (which must not exist).
    ///
    /// On Linux and Android a path that starts with a NUL byte, `"\0name"`,
    /// names `name` in the abstract namespace (no file), as in tokio.
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
        #[cfg(feature = "sim")]
        crate::sim::refuse("`UnixDatagram::bind`")?;
        let addr = abstract_name::socket_addr(path.as_ref())?;
        UnixDatagram::new(mio::net::UnixDatagram::bind_addr(&addr)?)
    }

    /// Binds a socket to `addr`: a path (which must not exist), or on
    /// Linux and Android an abstract name.
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
    /// use rt::net::unix::SocketAddr;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let path = std::env::temp_dir().join(format!("rt-doc-udba-{}.sock", std::process::id()));
    ///     let _ = std::fs::remove_file(&path);
    ///     let addr = SocketAddr::from_pathname(&path).unwrap();
    ///     let socket = rt::net::UnixDatagram::bind_addr(&addr).unwrap();
    ///     assert_eq!(socket.local_addr().unwrap().as_pathname(), Some(path.as_path()));
    ///     std::fs::remove_file(&path).unwrap();
    /// });
    /// ```
    #[track_caller]
    pub fn bind_addr(addr: &SocketAddr) -> io::Result<UnixDatagram> {
        #[cfg(feature = "sim")]
        crate::sim::refuse("`UnixDatagram::bind_addr`")?;
        UnixDatagram::new(mio::net::UnixDatagram::bind_addr(addr)?)
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
        #[cfg(feature = "sim")]
        crate::sim::refuse("`UnixDatagram::unbound`")?;
        UnixDatagram::new(mio::net::UnixDatagram::unbound()?)
    }

    /// A connected pair of sockets (`socketpair`).
    ///
    /// Both ends start out writable (their buffers are empty), before the
    /// reactor's first event, as in tokio; each becomes readable when its
    /// peer sends.
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
        #[cfg(feature = "sim")]
        crate::sim::refuse("`UnixDatagram::pair`")?;
        let (a, b) = mio::net::UnixDatagram::pair()?;
        // Empty buffers: writable now; readable once the peer sends.
        Ok((
            UnixDatagram::assuming(a, Ready::WRITABLE)?,
            UnixDatagram::assuming(b, Ready::WRITABLE)?,
        ))
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
        #[cfg(feature = "sim")]
        crate::sim::refuse("`UnixDatagram::from_std`")?;
        socket.set_nonblocking(true)?;
        UnixDatagram::new(mio::net::UnixDatagram::from_std(socket))
    }

    /// Deregisters the socket and returns it as a (non-blocking) `std`
    /// one.
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
    ///     let (a, b) = rt::net::UnixDatagram::pair().unwrap();
    ///     let a = a.into_std().unwrap();
    ///     a.send(b"std").unwrap();
    ///     assert_eq!(b.recv(&mut [0; 8]).await.unwrap(), 3);
    /// });
    /// ```
    pub fn into_std(self) -> io::Result<std::os::unix::net::UnixDatagram> {
        Ok(self.io.into_inner()?.into())
    }

    /// Sets the default peer for `send`/`recv`: the socket at `path`
    /// (an abstract name if it starts with NUL, see [`bind`](UnixDatagram::bind)).
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
        abstract_name::connect_to_path(self.io.get_ref(), path.as_ref())
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
        self.async_recv_io(|sys| sys.recv(buf)).await
    }

    /// Sends a datagram to the socket at `path` (an abstract name if it
    /// starts with NUL, see [`bind`](UnixDatagram::bind)).
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
            .async_io(Direction::Write, |sys| sys.send_to_target(buf, path))
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
        self.async_recv_io(|sys| sys.recv_from(buf)).await
    }

    /// Receives the next datagram and the address it came from without
    /// removing it from the queue: the next receive returns it again.
    ///
    /// # Errors
    ///
    /// The OS error of `recvfrom(MSG_PEEK)`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, b) = rt::net::UnixDatagram::pair().unwrap();
    ///     a.send(b"again").await.unwrap();
    ///     let mut buf = [0; 8];
    ///     let (n, from) = b.peek_from(&mut buf).await.unwrap();
    ///     assert!(from.is_unnamed());
    ///     assert_eq!(b.recv(&mut buf).await.unwrap(), n);
    /// });
    /// ```
    pub async fn peek_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        self.async_recv_io(|sys| peek_from(sys, buf)).await
    }

    /// Takes the socket's pending error (`SO_ERROR`), clearing it.
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
    ///     let (a, _b) = rt::net::UnixDatagram::pair().unwrap();
    ///     assert!(a.take_error().unwrap().is_none());
    /// });
    /// ```
    pub fn take_error(&self) -> io::Result<Option<io::Error>> {
        self.io.get_ref().take_error()
    }

    /// Shuts down the read side, the write side or both (`shutdown(2)`):
    /// after `Write`, sends fail with `BrokenPipe`. After `Read`, the
    /// datagrams already queued are still received, then every receive
    /// (`recv`, `recv_from`, `peek_from`, their `poll_*`, `try_*` and
    /// `*_buf` forms) returns 0 bytes at once, from the unnamed address,
    /// as a blocking `recv(2)` does on Linux, instead of waiting for a
    /// datagram that cannot come (the kernel refuses the peer's sends).
    ///
    /// # Errors
    ///
    /// The OS error of `shutdown`.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::net::Shutdown;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, b) = rt::net::UnixDatagram::pair().unwrap();
    ///     a.shutdown(Shutdown::Write).unwrap();
    ///     let err = a.send(b"late").await.unwrap_err();
    ///     assert_eq!(err.kind(), std::io::ErrorKind::BrokenPipe);
    ///
    ///     b.shutdown(Shutdown::Read).unwrap();
    ///     assert_eq!(b.recv(&mut [0; 8]).await.unwrap(), 0);
    /// });
    /// ```
    pub fn shutdown(&self, how: std::net::Shutdown) -> io::Result<()> {
        self.io.get_ref().shutdown(how)
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

impl DatagramSys for mio::net::UnixDatagram {
    type Addr = SocketAddr;

    fn recv(&self, buf: &mut [u8]) -> io::Result<usize> {
        mio::net::UnixDatagram::recv(self, buf)
    }

    fn send(&self, buf: &[u8]) -> io::Result<usize> {
        mio::net::UnixDatagram::send(self, buf)
    }

    fn recv_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        mio::net::UnixDatagram::recv_from(self, buf)
    }

    fn peek_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        peek_from(self, buf)
    }

    #[inline]
    fn recv_from_end(&self, ready: Ready) -> Option<(usize, SocketAddr)> {
        <(usize, SocketAddr)>::if_read_closed(ready)
    }
}

/// `recvfrom(MSG_PEEK)` on `socket` (through `socket2`; neither `mio` nor
/// stable `std` has it for Unix-domain sockets).
fn peek_from(socket: &mio::net::UnixDatagram, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
    let (n, from) = SockRef::from(socket).peek_from(sys::as_uninit(buf))?;
    Ok((n, std_address(&from)?))
}

/// A receive with the sender's address, once the read side is shut down:
/// no bytes, from the unnamed address (what a blocking `recvfrom(2)` gives).
impl ReadShutDown for (usize, SocketAddr) {
    fn nothing_more() -> (usize, SocketAddr) {
        // An empty path is how `std` spells the unnamed address; it has no
        // NUL byte and is not too long, the only ways this can fail.
        let unnamed = SocketAddr::from_pathname("").expect("the empty path is a valid address");
        (0, unnamed)
    }
}

/// `addr` (a Unix-domain address from `socket2`) as `std`'s.
fn std_address(addr: &SockAddr) -> io::Result<SocketAddr> {
    if let Some(path) = addr.as_pathname() {
        return SocketAddr::from_pathname(path);
    }
    #[cfg(any(target_os = "linux", target_os = "android"))]
    if let Some(name) = addr.as_abstract_namespace() {
        #[cfg(target_os = "android")]
        use std::os::android::net::SocketAddrExt;
        #[cfg(target_os = "linux")]
        use std::os::linux::net::SocketAddrExt;
        return SocketAddr::from_abstract_name(name);
    }
    // Linux gives a datagram from an unnamed socket no address bytes at
    // all; elsewhere an unnamed address is the family alone.
    if addr.len() == 0 || addr.is_unnamed() {
        // An empty path is how `std` spells the unnamed address (no path
        // bytes after the family).
        return SocketAddr::from_pathname("");
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidData,
        "recvfrom returned an address that is not a Unix-domain one",
    ))
}

impl AsRawFd for UnixDatagram {
    fn as_raw_fd(&self) -> RawFd {
        self.io.get_ref().as_raw_fd()
    }
}

/// For socket options rt has no method for:
/// `socket2::SockRef::from(&socket)`.
impl AsFd for UnixDatagram {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.io.get_ref().as_fd()
    }
}

impl fmt::Debug for UnixDatagram {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UnixDatagram")
            .field("local_addr", &self.local_addr().ok())
            .finish()
    }
}

#[cfg(feature = "bytes")]
crate::net::datagram_buf::datagram_buf! {
    socket: UnixDatagram, address: SocketAddr;
    example: "    let (a, b) = rt::net::UnixDatagram::pair().unwrap();\n";
}
