//! `UnixSocket`: a Unix-domain socket configured before it connects,
//! listens or becomes a datagram socket (a listener's backlog, binding a
//! client to a path). The socket calls are `socket2`'s.

use super::{UnixDatagram, UnixListener, UnixStream};
use crate::io::context_error::context_error;
use socket2::{Domain, SockAddr, Socket, Type};
use std::fmt;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::Path;

/// A Unix-domain socket not yet connected or listening: made with
/// [`new_stream`](UnixSocket::new_stream) or
/// [`new_datagram`](UnixSocket::new_datagram), optionally
/// [`bind`](UnixSocket::bind)-ed, then turned into a [`UnixListener`]
/// ([`listen`](UnixSocket::listen), with the backlog you choose), a
/// [`UnixStream`] ([`connect`](UnixSocket::connect)) or a [`UnixDatagram`]
/// ([`datagram`](UnixSocket::datagram)).
///
/// # Examples
///
/// ```
/// use rt::io::{AsyncReadExt, AsyncWriteExt};
/// use rt::net::UnixSocket;
///
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let path = std::env::temp_dir().join(format!("rt-doc-usock-{}.sock", std::process::id()));
///     let _ = std::fs::remove_file(&path);
///     let socket = UnixSocket::new_stream().unwrap();
///     socket.bind(&path).unwrap();
///     let listener = socket.listen(1024).unwrap();
///
///     let mut client = UnixSocket::new_stream().unwrap().connect(&path).await.unwrap();
///     let (mut server, _) = listener.accept().await.unwrap();
///     client.write_all(b"hi").await.unwrap();
///     let mut buf = [0; 2];
///     server.read_exact(&mut buf).await.unwrap();
///     assert_eq!(&buf, b"hi");
///     std::fs::remove_file(&path).unwrap();
/// });
/// ```
pub struct UnixSocket {
    socket: Socket,
}

impl UnixSocket {
    /// A new stream socket (`SOCK_STREAM`), for
    /// [`listen`](UnixSocket::listen) or [`connect`](UnixSocket::connect).
    ///
    /// # Errors
    ///
    /// The error of the `socket` call.
    ///
    /// # Examples
    ///
    /// See [`UnixSocket`].
    ///
    /// ```
    /// let socket = rt::net::UnixSocket::new_stream().unwrap();
    /// # drop(socket);
    /// ```
    pub fn new_stream() -> io::Result<UnixSocket> {
        UnixSocket::new(Type::STREAM)
    }

    /// A new datagram socket (`SOCK_DGRAM`), for
    /// [`datagram`](UnixSocket::datagram).
    ///
    /// # Errors
    ///
    /// The error of the `socket` call.
    ///
    /// # Examples
    ///
    /// See [`UnixSocket::datagram`].
    ///
    /// ```
    /// let socket = rt::net::UnixSocket::new_datagram().unwrap();
    /// # drop(socket);
    /// ```
    pub fn new_datagram() -> io::Result<UnixSocket> {
        UnixSocket::new(Type::DGRAM)
    }

    fn new(kind: Type) -> io::Result<UnixSocket> {
        #[cfg(feature = "sim")]
        crate::sim::refuse("`UnixSocket`")?;
        let socket = Socket::new(Domain::UNIX, kind, None)?;
        socket.set_nonblocking(true)?;
        Ok(UnixSocket::adopt(socket))
    }

    fn adopt(socket: Socket) -> UnixSocket {
        UnixSocket { socket }
    }

    /// Binds the socket to `path`, which must not exist yet.
    ///
    /// # Errors
    ///
    /// The error of the `bind` call, naming the path:
    /// [`AddrInUse`](io::ErrorKind::AddrInUse) if the path exists, say.
    ///
    /// # Examples
    ///
    /// See [`UnixSocket`].
    ///
    /// ```
    /// let path = std::env::temp_dir();
    /// let err = rt::net::UnixSocket::new_stream().unwrap().bind(&path).unwrap_err();
    /// assert!(err.to_string().contains(&*path.to_string_lossy()), "{err}");
    /// ```
    pub fn bind(&self, path: impl AsRef<Path>) -> io::Result<()> {
        let path = path.as_ref();
        SockAddr::unix(path)
            .and_then(|addr| self.socket.bind(&addr))
            .map_err(|e| context_error(format!("binding to `{}`", path.display()), e))
    }

    /// Listens for connections with a queue of up to `backlog` pending
    /// ones, and registers the listener with the runtime's reactor.
    ///
    /// # Errors
    ///
    /// `InvalidInput` for a socket that is not `SOCK_STREAM`; the error of the `listen`
    /// call or of the registration.
    ///
    /// # Panics
    ///
    /// Panics outside a runtime with I/O enabled.
    ///
    /// # Examples
    ///
    /// See [`UnixSocket`].
    pub fn listen(self, backlog: u32) -> io::Result<UnixListener> {
        self.expect_kind(Type::STREAM, "listen on")?;
        self.socket
            .listen(i32::try_from(backlog).unwrap_or(i32::MAX))?;
        UnixListener::from_std(OwnedFd::from(self.socket).into())
    }

    /// Connects to the socket at `path` and registers the stream with the
    /// runtime's reactor.
    ///
    /// # Errors
    ///
    /// `InvalidInput` for a socket that is not `SOCK_STREAM`; the error of the connection:
    /// [`NotFound`](io::ErrorKind::NotFound) or
    /// [`ConnectionRefused`](io::ErrorKind::ConnectionRefused) when nothing
    /// listens there, say.
    ///
    /// # Panics
    ///
    /// Panics outside a runtime with I/O enabled.
    ///
    /// # Examples
    ///
    /// See [`UnixSocket`].
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let socket = rt::net::UnixSocket::new_stream().unwrap();
    ///     let err = socket.connect("/no/such/socket").await.unwrap_err();
    ///     assert_eq!(err.kind(), std::io::ErrorKind::NotFound);
    /// });
    /// ```
    pub async fn connect(self, path: impl AsRef<Path>) -> io::Result<UnixStream> {
        self.expect_kind(Type::STREAM, "connect")?;
        let addr = SockAddr::unix(path)?;
        match self.socket.connect(&addr) {
            Ok(()) => {}
            // The connection completes in the background; interrupted, it
            // goes on too (POSIX).
            Err(e)
                if e.raw_os_error() == Some(libc::EINPROGRESS)
                    || e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
        let std = std::os::unix::net::UnixStream::from(OwnedFd::from(self.socket));
        UnixStream::connected(mio::net::UnixStream::from_std(std)).await
    }

    /// Registers the datagram socket with the runtime's reactor.
    ///
    /// # Errors
    ///
    /// `InvalidInput` for a socket that is not `SOCK_DGRAM`; the error of the registration.
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
    ///     let path = std::env::temp_dir().join(format!("rt-doc-usock-dgram-{}.sock", std::process::id()));
    ///     let _ = std::fs::remove_file(&path);
    ///     let socket = rt::net::UnixSocket::new_datagram().unwrap();
    ///     socket.bind(&path).unwrap();
    ///     let receiver = socket.datagram().unwrap();
    ///     let sender = rt::net::UnixDatagram::unbound().unwrap();
    ///     sender.send_to(b"ping", &path).await.unwrap();
    ///     let mut buf = [0; 4];
    ///     receiver.recv(&mut buf).await.unwrap();
    ///     assert_eq!(&buf, b"ping");
    ///     std::fs::remove_file(&path).unwrap();
    /// });
    /// ```
    pub fn datagram(self) -> io::Result<UnixDatagram> {
        self.expect_kind(Type::DGRAM, "make a datagram socket of")?;
        UnixDatagram::from_std(OwnedFd::from(self.socket).into())
    }

    /// Checks that the socket is of the `kind` that `what` needs; the
    /// error names the kind it is (one adopted with `FromRawFd` may be
    /// neither a stream nor a datagram socket).
    fn expect_kind(&self, kind: Type, what: &str) -> io::Result<()> {
        let is = self.socket.r#type()?;
        if is == kind {
            return Ok(());
        }
        let is = match is {
            Type::STREAM => "a SOCK_STREAM",
            Type::DGRAM => "a SOCK_DGRAM",
            Type::SEQPACKET => "a SOCK_SEQPACKET",
            _ => "an unsupported kind of",
        };
        let make = if kind == Type::STREAM {
            "new_stream"
        } else {
            "new_datagram"
        };
        Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("cannot {what} {is} socket: make it with `UnixSocket::{make}`"),
        ))
    }
}

unregistered_socket_fd!(UnixSocket, "an open Unix-domain socket descriptor");

impl fmt::Debug for UnixSocket {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UnixSocket")
            .field("fd", &self.socket.as_raw_fd())
            .field("type", &self.socket.r#type().ok())
            .finish()
    }
}
