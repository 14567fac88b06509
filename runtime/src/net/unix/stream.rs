use super::split::{OwnedReadHalf, OwnedWriteHalf, ReadHalf, WriteHalf};
use super::{SocketAddr, UCred, abstract_name};
use crate::io::registered::Registered;
use rt_reactor::{Direction, Interest, Ready};
use std::future::poll_fn;
use std::io;
use std::os::fd::AsFd;
use std::path::Path;

/// A Unix-domain stream connection.
///
/// The `AsyncRead`/`AsyncWrite` methods (`poll_read`, `poll_write`, and
/// the split halves') have no future to own a place among the tasks
/// waiting on the socket: each direction has one slot for them, where the
/// last caller's waker wins, so read from one task at a time and write
/// from one task at a time (a reader and a writer may run at once, e.g.
/// through [`split`](UnixStream::split)). [`readable`](UnixStream::readable),
/// [`writable`](UnixStream::writable) and [`ready`](UnixStream::ready) may
/// be awaited by any number of tasks at once: each waits in a place of its
/// own, and readiness wakes them all.
///
/// # Examples
///
/// ```
/// use rt::io::{AsyncReadExt, AsyncWriteExt};
///
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let (mut a, mut b) = rt::net::UnixStream::pair().unwrap();
///     a.write_all(b"hi").await.unwrap();
///     a.close().await.unwrap();
///     let mut got = String::new();
///     b.read_to_string(&mut got).await.unwrap();
///     assert_eq!(got, "hi");
/// });
/// ```
pub struct UnixStream {
    io: Registered<mio::net::UnixStream>,
}

impl UnixStream {
    #[track_caller]
    pub(crate) fn new(sys: mio::net::UnixStream) -> io::Result<UnixStream> {
        UnixStream::assuming(sys, Ready::EMPTY)
    }

    /// A stream `accept` returned: assumed readable and writable from the
    /// start, as `TcpStream`'s accepted streams are.
    pub(crate) fn accepted(sys: mio::net::UnixStream) -> io::Result<UnixStream> {
        UnixStream::assuming(sys, Ready::READABLE | Ready::WRITABLE)
    }

    #[track_caller]
    fn assuming(sys: mio::net::UnixStream, assumed: Ready) -> io::Result<UnixStream> {
        Ok(UnixStream {
            io: Registered::assuming(sys, Interest::READABLE | Interest::WRITABLE, assumed)?,
        })
    }

    /// Connects to the socket at `path`.
    ///
    /// On Linux and Android a path that starts with a NUL byte, `"\0name"`,
    /// names `name` in the abstract namespace (no file), as in tokio.
    ///
    /// # Errors
    ///
    /// The OS error of the connection (e.g. `NotFound`,
    /// `ConnectionRefused`), read from `SO_ERROR` once writable.
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
    ///     let path = std::env::temp_dir().join(format!("rt-doc-usc-{}.sock", std::process::id()));
    ///     let _ = std::fs::remove_file(&path);
    ///     assert!(rt::net::UnixStream::connect(&path).await.is_err());
    ///     let _listener = rt::net::UnixListener::bind(&path).unwrap();
    ///     let stream = rt::net::UnixStream::connect(&path).await.unwrap();
    ///     assert_eq!(stream.peer_addr().unwrap().as_pathname(), Some(path.as_path()));
    ///     std::fs::remove_file(&path).unwrap();
    /// });
    /// ```
    pub async fn connect(path: impl AsRef<Path>) -> io::Result<UnixStream> {
        #[cfg(feature = "sim")]
        crate::sim::refuse("`UnixStream::connect`")?;
        let addr = abstract_name::socket_addr(path.as_ref())?;
        UnixStream::connected(mio::net::UnixStream::connect_addr(&addr)?).await
    }

    /// Connects to the socket at `addr`: a path, or on Linux and Android
    /// an abstract name (`std::os::linux::net::SocketAddrExt`).
    ///
    /// # Errors
    ///
    /// As [`UnixStream::connect`].
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
    ///     let path = std::env::temp_dir().join(format!("rt-doc-usca-{}.sock", std::process::id()));
    ///     let _ = std::fs::remove_file(&path);
    ///     let addr = SocketAddr::from_pathname(&path).unwrap();
    ///     let listener = rt::net::UnixListener::bind_addr(&addr).unwrap();
    ///     let stream = rt::net::UnixStream::connect_addr(&addr).await.unwrap();
    ///     assert_eq!(stream.peer_addr().unwrap().as_pathname(), Some(path.as_path()));
    ///     # drop(listener);
    ///     std::fs::remove_file(&path).unwrap();
    /// });
    /// ```
    pub async fn connect_addr(addr: &SocketAddr) -> io::Result<UnixStream> {
        #[cfg(feature = "sim")]
        crate::sim::refuse("`UnixStream::connect_addr`")?;
        UnixStream::connected(mio::net::UnixStream::connect_addr(addr)?).await
    }

    /// Registers a socket whose non-blocking connect has started, and waits
    /// for its end: writable, then `SO_ERROR` says whether it failed.
    pub(super) async fn connected(sys: mio::net::UnixStream) -> io::Result<UnixStream> {
        let stream = UnixStream::new(sys)?;
        poll_fn(|cx| stream.io.poll_ready(cx, Direction::Write)).await?;
        match stream.io.get_ref().take_error() {
            Ok(Some(e)) | Err(e) => Err(e),
            Ok(None) => Ok(stream),
        }
    }

    /// A connected pair of streams (`socketpair`).
    ///
    /// Both ends start out writable (their buffers are empty), before the
    /// reactor's first event, as in tokio; each becomes readable when its
    /// peer writes.
    ///
    /// # Errors
    ///
    /// The OS error of `socketpair` or of the registration.
    ///
    /// # Panics
    ///
    /// Panics outside a runtime with I/O enabled.
    ///
    /// # Examples
    ///
    /// See [`UnixStream`].
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, b) = rt::net::UnixStream::pair().unwrap();
    ///     assert!(a.peer_addr().unwrap().is_unnamed() && b.local_addr().unwrap().is_unnamed());
    /// });
    /// ```
    #[track_caller]
    pub fn pair() -> io::Result<(UnixStream, UnixStream)> {
        #[cfg(feature = "sim")]
        crate::sim::refuse("`UnixStream::pair`")?;
        let (a, b) = mio::net::UnixStream::pair()?;
        // Empty buffers: writable now; readable once the peer writes.
        Ok((
            UnixStream::assuming(a, Ready::WRITABLE)?,
            UnixStream::assuming(b, Ready::WRITABLE)?,
        ))
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
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
    ///     let a = rt::net::UnixStream::from_std(a).unwrap();
    ///     # drop(a);
    /// });
    /// ```
    #[track_caller]
    pub fn from_std(stream: std::os::unix::net::UnixStream) -> io::Result<UnixStream> {
        #[cfg(feature = "sim")]
        crate::sim::refuse("`UnixStream::from_std`")?;
        stream.set_nonblocking(true)?;
        UnixStream::new(mio::net::UnixStream::from_std(stream))
    }

    /// Deregisters the stream and returns it as a (non-blocking) `std`
    /// one.
    ///
    /// # Errors
    ///
    /// The OS error of the deregistration.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::io::{Read, Write};
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, b) = rt::net::UnixStream::pair().unwrap();
    ///     let (mut a, mut b) = (a.into_std().unwrap(), b.into_std().unwrap());
    ///     a.write_all(b"std").unwrap();
    ///     b.set_nonblocking(false).unwrap();
    ///     let mut buf = [0; 3];
    ///     b.read_exact(&mut buf).unwrap();
    ///     assert_eq!(&buf, b"std");
    /// });
    /// ```
    pub fn into_std(self) -> io::Result<std::os::unix::net::UnixStream> {
        Ok(self.io.into_inner()?.into())
    }

    /// The credentials of the process at the other end: its user and
    /// group ids, and (where the OS says, as Linux does) its process id,
    /// as they were when the connection was made.
    ///
    /// # Errors
    ///
    /// The OS error of `getsockopt(SO_PEERCRED)` (`getpeereid` on the
    /// BSDs and macOS).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (a, _b) = rt::net::UnixStream::pair().unwrap();
    ///     let cred = a.peer_cred().unwrap();
    ///     // The pair's other end is this very process.
    ///     if let Some(pid) = cred.pid() {
    ///         assert_eq!(pid as u32, std::process::id());
    ///     }
    /// });
    /// ```
    pub fn peer_cred(&self) -> io::Result<UCred> {
        UCred::of_peer(self.as_fd())
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
    ///     let (a, _b) = rt::net::UnixStream::pair().unwrap();
    ///     assert!(a.take_error().unwrap().is_none());
    /// });
    /// ```
    pub fn take_error(&self) -> io::Result<Option<io::Error>> {
        self.io.get_ref().take_error()
    }

    crate::net::stream_common::stream_common! {
        stream: UnixStream, io: Registered<mio::net::UnixStream>, address: SocketAddr;

        /// The local address.
        ///
        /// # Errors
        ///
        /// The OS error of `getsockname`.
        local_addr {
            /// See [`UnixStream::pair`].
            ///
            /// ```
            /// let rt = rt::runtime::Runtime::new().unwrap();
            /// rt.block_on(async {
            ///     let (a, _b) = rt::net::UnixStream::pair().unwrap();
            ///     assert!(a.local_addr().unwrap().as_pathname().is_none());
            /// });
            /// ```
        }

        /// The peer's address.
        ///
        /// # Errors
        ///
        /// The OS error of `getpeername`.
        peer_addr {
            /// See [`UnixStream::connect`].
            ///
            /// ```
            /// let rt = rt::runtime::Runtime::new().unwrap();
            /// rt.block_on(async {
            ///     let (a, _b) = rt::net::UnixStream::pair().unwrap();
            ///     assert!(a.peer_addr().unwrap().is_unnamed());
            /// });
            /// ```
        }

        /// Shuts down the read side, the write side or both, at once: std's
        /// `UnixStream::shutdown`.
        ///
        /// The async `stream.shutdown().await` (tokio's spelling, from
        /// [`AsyncWriteExt`](crate::io::AsyncWriteExt)) shuts down the write
        /// side; this method is named apart from it so that call resolves to
        /// the trait method.
        ///
        /// # Errors
        ///
        /// The OS error of `shutdown`.
        shutdown_std {
            /// ```
            /// use rt::io::AsyncReadExt;
            ///
            /// let rt = rt::runtime::Runtime::new().unwrap();
            /// rt.block_on(async {
            ///     let (a, mut b) = rt::net::UnixStream::pair().unwrap();
            ///     a.shutdown_std(std::net::Shutdown::Write).unwrap();
            ///     assert_eq!(b.read(&mut [0; 4]).await.unwrap(), 0);
            /// });
            /// ```
        }

        split {
            /// ```
            /// use rt::io::{AsyncReadExt, AsyncWriteExt};
            ///
            /// let rt = rt::runtime::Runtime::new().unwrap();
            /// rt.block_on(async {
            ///     let (mut client, mut server) = rt::net::UnixStream::pair().unwrap();
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
            ///     let (client, mut server) = rt::net::UnixStream::pair().unwrap();
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

crate::net::stream_common::stream_common!(impls: UnixStream);

/// The named operations `stream_common!` calls on a stream's I/O (for
/// `TcpStream`, its `dispatch.rs` has the same).
impl Registered<mio::net::UnixStream> {
    fn local_addr(&self) -> io::Result<SocketAddr> {
        self.get_ref().local_addr()
    }

    fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.get_ref().peer_addr()
    }

    fn shutdown(&self, how: std::net::Shutdown) -> io::Result<()> {
        self.get_ref().shutdown(how)
    }
}
