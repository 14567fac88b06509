//! TCP: [`TcpListener`], [`TcpStream`] and the halves of a split stream.

mod listener;
mod split;
mod stream;

pub use listener::{Incoming, TcpListener};
pub use split::{OwnedReadHalf, OwnedWriteHalf, ReadHalf, WriteHalf};
pub use stream::TcpStream;
