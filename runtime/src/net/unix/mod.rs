//! Unix-domain sockets: [`UnixListener`], [`UnixStream`] and the halves of
//! a split stream, [`UnixDatagram`] (its receives into a `bytes::BufMut`
//! in `datagram_buf.rs`, feature `bytes`), and [`UCred`] (a stream peer's
//! credentials).

mod datagram;
#[cfg(feature = "bytes")]
mod datagram_buf;
mod datagram_io;
mod listener;
mod split;
mod stream;
mod stream_io;
mod ucred;

pub use datagram::UnixDatagram;
pub use listener::UnixListener;
pub use split::{OwnedReadHalf, OwnedWriteHalf, ReadHalf, ReuniteError, WriteHalf};
pub use std::os::unix::net::SocketAddr;
pub use stream::UnixStream;
pub use ucred::UCred;
