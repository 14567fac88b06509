//! Networking: TCP, UDP and Unix-domain sockets on the runtime's reactor.
//!
//! Every type here registers its socket with the current runtime's I/O
//! driver, so it must be created inside a runtime with I/O enabled
//! ([`Runtime::new`](crate::runtime::Runtime::new) or
//! [`Builder::enable_io`](crate::runtime::Builder::enable_io)); elsewhere it
//! panics with a message saying so. Streams implement
//! [`AsyncRead`](crate::io::AsyncRead) and [`AsyncWrite`](crate::io::AsyncWrite)
//! (including the vectored methods, one `readv`/`writev` per call), and
//! every ready operation (and every ready `poll_*_ready`) spends one unit
//! of the task's cooperative budget. The readiness futures (`readable`,
//! `writable`, `ready`, on the sockets, their halves and
//! [`AsyncFd`](crate::io::AsyncFd)) spend none, as in tokio: the `try_*`
//! call that follows them does the work.
//!
//! A [`TcpSocket`] is created and configured first (`SO_REUSEPORT`,
//! buffer sizes, type of service, a local address to connect from) and
//! registers only when it connects or listens.
//!
//! Besides the `async fn`s and the `AsyncRead`/`AsyncWrite` impls, every
//! socket has tokio's readiness surface: `ready(Interest)` (reading or
//! writing at once, errors alone with [`Interest::ERROR`](crate::io::Interest::ERROR)),
//! `readable`/`writable`, the non-blocking `try_*` methods that clear the
//! readiness when they would block, `try_io`/`async_io` for calls of your
//! own, and the `poll_*` methods for hand-written futures. The `async fn`s
//! on `&self` may be awaited by any number of tasks at once, each in a
//! place of its own; a `poll_*` method waits in one slot per direction
//! where the last caller's waker wins, as each one's docs say. The sockets
//! register for reading and writing; priority readiness
//! ([`Interest::PRIORITY`](crate::io::Interest::PRIORITY), urgent TCP data)
//! needs a registration that asks for it:
//! [`AsyncFd::with_interest`](crate::io::AsyncFd::with_interest).
//!
//! Every socket lends its descriptor (`AsFd`, `AsRawFd`), so
//! `socket2::SockRef::from(&socket)` reaches the options rt has no method
//! for; rt's own socket creation and options are `socket2`'s.
//!
//! Addresses are anything implementing [`ToSocketAddrs`]: a
//! `std::net::SocketAddr`, an `(IpAddr, u16)` pair, a `"host:port"` string,
//! a `("host", port)` pair, or a slice of addresses to try in turn. IP
//! literals are parsed on the spot; host names are resolved by the system
//! resolver on the runtime's blocking pool, as [`lookup_host`] does.
//!
//! # Examples
//!
//! ```
//! use rt::io::{AsyncReadExt, AsyncWriteExt};
//! use rt::net::{TcpListener, TcpStream};
//!
//! let rt = rt::runtime::Runtime::new().unwrap();
//! rt.block_on(async {
//!     let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
//!     let addr = listener.local_addr().unwrap();
//!     let server = rt::spawn(async move {
//!         let (mut socket, _) = listener.accept().await.unwrap();
//!         let mut buf = [0; 5];
//!         socket.read_exact(&mut buf).await.unwrap();
//!         socket.write_all(&buf).await.unwrap();
//!     });
//!     let mut client = TcpStream::connect(addr).await.unwrap();
//!     client.write_all(b"hello").await.unwrap();
//!     let mut buf = [0; 5];
//!     client.read_exact(&mut buf).await.unwrap();
//!     assert_eq!(&buf, b"hello");
//!     server.await.unwrap();
//! });
//! ```

/// Items (socket methods) for the platforms where `socket2` has
/// `IP_TOS`.
macro_rules! cfg_tos_v4 {
    ($($item:item)*) => {$(
        #[cfg(not(any(
            target_os = "fuchsia",
            target_os = "redox",
            target_os = "solaris",
            target_os = "haiku"
        )))]
        $item
    )*};
}

/// Items (socket methods) for the platforms where `socket2` has
/// `IPV6_TCLASS`.
macro_rules! cfg_tclass_v6 {
    ($($item:item)*) => {$(
        #[cfg(any(
            target_os = "android",
            target_os = "dragonfly",
            target_os = "freebsd",
            target_os = "fuchsia",
            target_os = "linux",
            target_os = "macos",
            target_os = "netbsd",
            target_os = "openbsd",
            target_os = "cygwin",
            target_os = "illumos"
        ))]
        $item
    )*};
}

/// Items (socket methods) for the platforms with `SO_BINDTODEVICE`.
macro_rules! cfg_bind_device {
    ($($item:item)*) => {$(
        #[cfg(any(target_os = "android", target_os = "fuchsia", target_os = "linux"))]
        $item
    )*};
}

/// Items (socket methods) for the platforms with `TCP_QUICKACK`.
macro_rules! cfg_quickack {
    ($($item:item)*) => {$(
        #[cfg(any(
            target_os = "android",
            target_os = "fuchsia",
            target_os = "linux",
            target_os = "cygwin"
        ))]
        $item
    )*};
}

/// `AsRawFd`, `AsFd`, `IntoRawFd` and `FromRawFd` for a socket not yet
/// registered, held as `socket: socket2::Socket` (`TcpSocket`,
/// `UnixSocket`) and made from one by `adopt`; `$what` names the
/// descriptor `from_raw_fd` takes.
macro_rules! unregistered_socket_fd {
    ($Socket:ident, $what:literal) => {
        impl ::std::os::fd::AsRawFd for $Socket {
            fn as_raw_fd(&self) -> ::std::os::fd::RawFd {
                ::std::os::fd::AsRawFd::as_raw_fd(&self.socket)
            }
        }

        /// For socket options rt has no method for:
        /// `socket2::SockRef::from(&socket)`.
        impl ::std::os::fd::AsFd for $Socket {
            fn as_fd(&self) -> ::std::os::fd::BorrowedFd<'_> {
                ::std::os::fd::AsFd::as_fd(&self.socket)
            }
        }

        impl ::std::os::fd::IntoRawFd for $Socket {
            fn into_raw_fd(self) -> ::std::os::fd::RawFd {
                ::std::os::fd::IntoRawFd::into_raw_fd(self.socket)
            }
        }

        #[doc = concat!("Adopts ", $what, ".")]
        impl ::std::os::fd::FromRawFd for $Socket {
            #[doc = concat!(
                        "# Safety\n\n`fd` must be ", $what, " that nothing else owns: the `",
                        stringify!($Socket), "` closes it when dropped.",
                    )]
            unsafe fn from_raw_fd(fd: ::std::os::fd::RawFd) -> $Socket {
                use ::socket2::Socket;
                // SAFETY: the caller hands over an open socket descriptor
                // it owns (this function's contract), which `Socket` then
                // owns and closes.
                let socket = unsafe { Socket::from_raw_fd(fd) };
                $Socket::adopt(socket)
            }
        }
    };
}

mod addr;
#[cfg(feature = "bytes")]
mod datagram_buf;
mod datagram_io;
#[cfg(any(target_os = "android", target_os = "fuchsia", target_os = "linux"))]
mod device;
mod halves;
mod lookup;
mod registered_io;
#[cfg(feature = "sim")]
mod sim_dispatch;
mod split_halves;
mod std_conversions;
mod stream_common;
mod stream_io;
pub mod tcp;
mod udp;
pub mod unix;

pub use addr::ToSocketAddrs;
pub use lookup::lookup_host;
pub use tcp::{TcpListener, TcpSocket, TcpStream};
pub use udp::UdpSocket;
pub use unix::{UnixDatagram, UnixListener, UnixSocket, UnixStream};
