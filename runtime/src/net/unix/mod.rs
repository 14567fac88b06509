//! Unix-domain sockets: [`UnixListener`], [`UnixStream`], [`UnixDatagram`].

mod datagram;
mod listener;
mod stream;

pub use datagram::UnixDatagram;
pub use listener::UnixListener;
pub use std::os::unix::net::SocketAddr;
pub use stream::UnixStream;
