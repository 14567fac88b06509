use super::{SocketAddr, UnixStream, abstract_name};
use crate::io::registered::Registered;
use crate::task::waits::Site;
use rt_reactor::{Direction, Interest};
use std::fmt;
use std::future::Future;
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, RawFd};
use std::path::Path;
use std::task::{Context, Poll};

/// A Unix-domain socket listening for connections.
///
/// # Examples
///
/// ```
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let path = std::env::temp_dir().join(format!("rt-doc-ul-{}.sock", std::process::id()));
///     let _ = std::fs::remove_file(&path);
///     let listener = rt::net::UnixListener::bind(&path).unwrap();
///     let client = rt::net::UnixStream::connect(&path).await.unwrap();
///     let (_server, _addr) = listener.accept().await.unwrap();
///     # drop(client);
///     std::fs::remove_file(&path).unwrap();
/// });
/// ```
pub struct UnixListener {
    io: Registered<mio::net::UnixListener>,
}

impl UnixListener {
    /// Binds a listener to the socket file `path` (which must not exist).
    ///
    /// On Linux and Android a path that starts with a NUL byte, `"\0name"`,
    /// names `name` in the abstract namespace (no file), as in tokio.
    ///
    /// # Errors
    ///
    /// The OS error of `bind`/`listen` (e.g. `AddrInUse` if `path` exists).
    ///
    /// # Panics
    ///
    /// Panics outside a runtime with I/O enabled.
    ///
    /// # Examples
    ///
    /// See [`UnixListener`].
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let path = std::env::temp_dir().join(format!("rt-doc-ulb-{}.sock", std::process::id()));
    ///     let _ = std::fs::remove_file(&path);
    ///     let listener = rt::net::UnixListener::bind(&path).unwrap();
    ///     assert_eq!(listener.local_addr().unwrap().as_pathname(), Some(path.as_path()));
    ///     std::fs::remove_file(&path).unwrap();
    /// });
    /// ```
    ///
    /// An abstract name (Linux and Android):
    ///
    /// ```
    /// # #[cfg(target_os = "linux")] {
    /// use rt::net::unix::SocketAddrExt;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let path = format!("\0rt-doc-abstract-bind-{}", std::process::id());
    ///     let listener = rt::net::UnixListener::bind(&path).unwrap();
    ///     let _client = rt::net::UnixStream::connect(&path).await.unwrap();
    ///     let (_server, _) = listener.accept().await.unwrap();
    ///     let name = listener.local_addr().unwrap();
    ///     assert_eq!(name.as_abstract_name(), Some(&path.as_bytes()[1..]));
    /// });
    /// # }
    /// ```
    #[track_caller]
    pub fn bind(path: impl AsRef<Path>) -> io::Result<UnixListener> {
        #[cfg(feature = "sim")]
        crate::sim::refuse("`UnixListener::bind`")?;
        let addr = abstract_name::socket_addr(path.as_ref())?;
        UnixListener::new(mio::net::UnixListener::bind_addr(&addr)?)
    }

    /// Binds a listener to `addr`: a path (which must not exist), or on
    /// Linux and Android an abstract name, which needs no file
    /// (`std::os::linux::net::SocketAddrExt::from_abstract_name`).
    ///
    /// # Errors
    ///
    /// The OS error of `bind`/`listen` (e.g. `AddrInUse`).
    ///
    /// # Panics
    ///
    /// Panics outside a runtime with I/O enabled.
    ///
    /// # Examples
    ///
    /// ```
    /// # #[cfg(target_os = "linux")] {
    /// use std::os::linux::net::SocketAddrExt;
    /// use rt::net::unix::SocketAddr;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let name = format!("rt-doc-abstract-{}", std::process::id());
    ///     let addr = SocketAddr::from_abstract_name(name.as_bytes()).unwrap();
    ///     let listener = rt::net::UnixListener::bind_addr(&addr).unwrap();
    ///     let _client = rt::net::UnixStream::connect_addr(&addr).await.unwrap();
    ///     let (_server, _) = listener.accept().await.unwrap();
    /// });
    /// # }
    /// ```
    #[track_caller]
    pub fn bind_addr(addr: &SocketAddr) -> io::Result<UnixListener> {
        #[cfg(feature = "sim")]
        crate::sim::refuse("`UnixListener::bind_addr`")?;
        UnixListener::new(mio::net::UnixListener::bind_addr(addr)?)
    }

    #[track_caller]
    fn new(sys: mio::net::UnixListener) -> io::Result<UnixListener> {
        Ok(UnixListener {
            io: Registered::new(sys, Interest::READABLE)?,
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
    ///     let path = std::env::temp_dir().join(format!("rt-doc-ulf-{}.sock", std::process::id()));
    ///     let _ = std::fs::remove_file(&path);
    ///     let std = std::os::unix::net::UnixListener::bind(&path).unwrap();
    ///     let listener = rt::net::UnixListener::from_std(std).unwrap();
    ///     # drop(listener);
    ///     std::fs::remove_file(&path).unwrap();
    /// });
    /// ```
    #[track_caller]
    pub fn from_std(listener: std::os::unix::net::UnixListener) -> io::Result<UnixListener> {
        #[cfg(feature = "sim")]
        crate::sim::refuse("`UnixListener::from_std`")?;
        listener.set_nonblocking(true)?;
        UnixListener::new(mio::net::UnixListener::from_std(listener))
    }

    /// Deregisters the listener and returns it as a (non-blocking) `std`
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
    ///     let path = std::env::temp_dir().join(format!("rt-doc-uli-{}.sock", std::process::id()));
    ///     let _ = std::fs::remove_file(&path);
    ///     let listener = rt::net::UnixListener::bind(&path).unwrap();
    ///     let std = listener.into_std().unwrap();
    ///     assert_eq!(std.local_addr().unwrap().as_pathname(), Some(path.as_path()));
    ///     std::fs::remove_file(&path).unwrap();
    /// });
    /// ```
    pub fn into_std(self) -> io::Result<std::os::unix::net::UnixListener> {
        Ok(self.io.into_inner()?.into())
    }

    /// Waits for and accepts one connection.
    ///
    /// Any number of tasks may wait in `accept` on one listener (shared
    /// through an `Arc`): each waits in a place of its own, a new connection
    /// wakes them all and one of them takes it. Dropping the future frees
    /// its place.
    ///
    /// The stream starts out assumed readable and writable, as
    /// [`TcpListener::accept`](crate::net::TcpListener::accept)'s do.
    ///
    /// # Errors
    ///
    /// The OS error of `accept` (e.g. `EMFILE`); the listener stays usable.
    ///
    /// # Examples
    ///
    /// See [`UnixListener`].
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let path = std::env::temp_dir().join(format!("rt-doc-ula-{}.sock", std::process::id()));
    ///     let _ = std::fs::remove_file(&path);
    ///     let listener = rt::net::UnixListener::bind(&path).unwrap();
    ///     let _client = std::os::unix::net::UnixStream::connect(&path).unwrap();
    ///     let (stream, _) = listener.accept().await.unwrap();
    ///     # drop(stream);
    ///     std::fs::remove_file(&path).unwrap();
    /// });
    /// ```
    #[track_caller]
    pub fn accept(&self) -> impl Future<Output = io::Result<(UnixStream, SocketAddr)>> {
        let site = Site::here("UnixListener::accept");
        async move {
            let accept = self
                .io
                .async_io(Direction::Read, mio::net::UnixListener::accept);
            let mut accept = std::pin::pin!(accept);
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
    /// time; tasks sharing a listener call [`accept`](UnixListener::accept),
    /// which any number of tasks may await at once.
    ///
    /// # Errors
    ///
    /// As [`UnixListener::accept`].
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let path = std::env::temp_dir().join(format!("rt-doc-ulp-{}.sock", std::process::id()));
    ///     let _ = std::fs::remove_file(&path);
    ///     let listener = rt::net::UnixListener::bind(&path).unwrap();
    ///     let _client = std::os::unix::net::UnixStream::connect(&path).unwrap();
    ///     let accepted = std::future::poll_fn(|cx| listener.poll_accept(cx)).await;
    ///     assert!(accepted.is_ok());
    ///     std::fs::remove_file(&path).unwrap();
    /// });
    /// ```
    pub fn poll_accept(&self, cx: &mut Context<'_>) -> Poll<io::Result<(UnixStream, SocketAddr)>> {
        self.io
            .poll_io(cx, Direction::Read, mio::net::UnixListener::accept)
            .map(|accepted| accepted.and_then(wrap_accepted))
    }

    /// The address the listener is bound to.
    ///
    /// # Errors
    ///
    /// The OS error of `getsockname`.
    ///
    /// # Examples
    ///
    /// See [`UnixListener::bind`].
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let path = std::env::temp_dir().join(format!("rt-doc-ull-{}.sock", std::process::id()));
    ///     let _ = std::fs::remove_file(&path);
    ///     let listener = rt::net::UnixListener::bind(&path).unwrap();
    ///     assert!(listener.local_addr().unwrap().as_pathname().is_some());
    ///     std::fs::remove_file(&path).unwrap();
    /// });
    /// ```
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.io.get_ref().local_addr()
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
    ///     let path = std::env::temp_dir().join(format!("rt-doc-ulte-{}.sock", std::process::id()));
    ///     let _ = std::fs::remove_file(&path);
    ///     let listener = rt::net::UnixListener::bind(&path).unwrap();
    ///     assert!(listener.take_error().unwrap().is_none());
    ///     std::fs::remove_file(&path).unwrap();
    /// });
    /// ```
    pub fn take_error(&self) -> io::Result<Option<io::Error>> {
        self.io.get_ref().take_error()
    }
}

impl AsRawFd for UnixListener {
    fn as_raw_fd(&self) -> RawFd {
        self.io.get_ref().as_raw_fd()
    }
}

impl AsFd for UnixListener {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.io.get_ref().as_fd()
    }
}

/// Registers an accepted connection with the reactor.
fn wrap_accepted(
    (sys, addr): (mio::net::UnixStream, SocketAddr),
) -> io::Result<(UnixStream, SocketAddr)> {
    UnixStream::accepted(sys).map(|stream| (stream, addr))
}

impl fmt::Debug for UnixListener {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UnixListener")
            .field("local_addr", &self.local_addr().ok())
            .finish()
    }
}
