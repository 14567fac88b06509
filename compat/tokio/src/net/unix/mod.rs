//! Unix-domain sockets: newtypes over rt's listener, stream, halves,
//! datagram socket and unconfigured socket, with tokio's traits and method
//! shapes; rt's `SocketAddr` and `UCred` re-exported.

mod datagram;
mod listener;
pub mod pipe;
mod socket;
mod split;
mod stream;

pub use datagram::UnixDatagram;
pub use listener::UnixListener;
pub use rt::net::unix::{SocketAddr, UCred, gid_t, pid_t, uid_t};
pub use socket::UnixSocket;
pub use split::{OwnedReadHalf, OwnedWriteHalf, ReadHalf, ReuniteError, WriteHalf};
pub use stream::UnixStream;
