//! UDP: [`UdpSocket`], its core (`socket.rs`), its registered-I/O
//! layer (`dispatch.rs`, where a simulation's sockets branch off), its readiness and
//! non-blocking I/O (`socket_io.rs`) and its socket options
//! (`socket_options.rs`).

mod dispatch;
mod recv_uninit;
mod socket;
mod socket_io;
mod socket_options;

pub use socket::UdpSocket;
pub(crate) use socket::read_shut_down_end;
