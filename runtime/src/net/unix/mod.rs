//! Unix-domain sockets: [`UnixListener`], [`UnixStream`] and the halves of
//! a split stream, [`UnixDatagram`], [`UnixSocket`] (configured before it
//! listens or connects), [`UCred`] (a stream peer's credentials), and
//! [`pipe`] (anonymous pipes and FIFOs).

mod abstract_name;
mod datagram;
mod datagram_io;
mod listener;
pub mod pipe;
mod read_uninit;
mod socket;
mod split;
mod stream;
mod stream_io;
mod ucred;

pub use datagram::UnixDatagram;
pub use listener::UnixListener;
pub use socket::UnixSocket;
pub use split::{OwnedReadHalf, OwnedWriteHalf, ReadHalf, ReuniteError, WriteHalf};
/// `SocketAddr::from_abstract_name` and `as_abstract_name`: rt's
/// [`SocketAddr`] is `std`'s, whose abstract-namespace methods live in this
/// extension trait (import it to call them).
#[cfg(target_os = "android")]
pub use std::os::android::net::SocketAddrExt;
/// `SocketAddr::from_abstract_name` and `as_abstract_name`: rt's
/// [`SocketAddr`] is `std`'s, whose abstract-namespace methods live in this
/// extension trait (import it to call them).
#[cfg(target_os = "linux")]
pub use std::os::linux::net::SocketAddrExt;
pub use std::os::unix::net::SocketAddr;
pub use stream::UnixStream;
pub use ucred::{UCred, gid_t, pid_t, uid_t};
