//! TCP: [`TcpListener`], [`TcpStream`], the halves of a split stream, and
//! [`TcpSocket`] to set options before connecting or listening.

mod listener;
#[cfg(target_os = "linux")]
mod socket;
mod split;
mod stream;

pub use listener::{Incoming, TcpListener};
#[cfg(target_os = "linux")]
pub use socket::TcpSocket;
pub use split::{OwnedReadHalf, OwnedWriteHalf, ReadHalf, WriteHalf};
pub use stream::TcpStream;
