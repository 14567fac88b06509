//! The halves of a split [`UnixStream`].

use super::UnixStream;

crate::net::halves::stream_halves!(
    UnixStream,
    rt::net::unix,
    rt::net::UnixStream,
    rt::net::unix::SocketAddr
);
