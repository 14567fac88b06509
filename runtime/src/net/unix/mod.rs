//! Unix-domain sockets: [`UnixListener`], [`UnixStream`] and the halves of
//! a split stream, [`UnixDatagram`].

mod datagram;
mod listener;
mod split;
mod stream;

pub use datagram::UnixDatagram;
pub use listener::UnixListener;
pub use split::{OwnedReadHalf, OwnedWriteHalf, ReadHalf, WriteHalf};
pub use std::os::unix::net::SocketAddr;
pub use stream::UnixStream;
