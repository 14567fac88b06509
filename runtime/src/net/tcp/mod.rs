//! TCP: [`TcpListener`], [`TcpStream`], the halves of a split stream, and
//! [`TcpSocket`] to set options before connecting or listening.

mod dispatch;
mod listener;
mod listener_io;
mod read_uninit;
mod socket;
#[cfg(feature = "sim")]
mod socket_sim;
mod split;
mod stream;
mod stream_io;
mod stream_options;

pub use listener::{Incoming, TcpListener};
pub use socket::TcpSocket;
pub use split::{OwnedReadHalf, OwnedWriteHalf, ReadHalf, ReuniteError, WriteHalf};
pub use stream::TcpStream;
