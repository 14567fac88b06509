//! UDP: [`UdpSocket`], its core (`socket.rs`), its readiness and
//! non-blocking I/O (`socket_io.rs`), its socket options
//! (`socket_options.rs`) and, with the `bytes` feature, its receives into
//! a `bytes::BufMut` (`socket_buf.rs`).

mod socket;
#[cfg(feature = "bytes")]
mod socket_buf;
mod socket_io;
mod socket_options;

pub use socket::UdpSocket;
