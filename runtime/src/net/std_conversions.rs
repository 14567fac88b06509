//! `TryFrom<std's socket>` for every rt socket that has a `from_std`, so
//! `std_listener.try_into()?` ports from tokio as it is. Each impl is
//! that type's `from_std`: the socket is switched to non-blocking and
//! registered with the current runtime's reactor.

use super::{TcpListener, TcpStream, UdpSocket, UnixDatagram, UnixListener, UnixStream};
use std::io;

/// `impl TryFrom<$Std> for $Rt` through `$Rt::from_std`.
macro_rules! try_from_std {
    ($($Rt:ident: $Std:ty;)*) => {$(
        #[doc = concat!(
            "Registers a `std` socket, as [`", stringify!($Rt), "::from_std`] does ",
            "(whose docs hold: the socket is switched to non-blocking; this ",
            "panics outside a runtime with I/O enabled).",
        )]
        impl TryFrom<$Std> for $Rt {
            type Error = io::Error;

            #[track_caller]
            fn try_from(socket: $Std) -> io::Result<$Rt> {
                $Rt::from_std(socket)
            }
        }
    )*};
}

try_from_std! {
    TcpStream: std::net::TcpStream;
    TcpListener: std::net::TcpListener;
    UdpSocket: std::net::UdpSocket;
    UnixStream: std::os::unix::net::UnixStream;
    UnixListener: std::os::unix::net::UnixListener;
    UnixDatagram: std::os::unix::net::UnixDatagram;
}
