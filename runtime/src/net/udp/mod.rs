//! UDP: [`UdpSocket`], its core (`socket.rs`), its readiness and
//! non-blocking I/O (`socket_io.rs`) and its socket options
//! (`socket_options.rs`).

mod recv_uninit;
mod socket;
mod socket_io;
mod socket_options;

pub use socket::UdpSocket;
