//! Unix-domain sockets: [`UnixListener`], [`UnixStream`] and the halves of
//! a split stream, [`UnixDatagram`], [`UnixSocket`] (configured before it
//! listens or connects), [`UCred`] (a stream peer's credentials), and
//! [`pipe`] (anonymous pipes and FIFOs).

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
pub use std::os::unix::net::SocketAddr;
pub use stream::UnixStream;
pub use ucred::{UCred, gid_t, pid_t, uid_t};
