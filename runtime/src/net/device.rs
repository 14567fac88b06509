//! `SO_BINDTODEVICE` (Linux, Android, Fuchsia): the one body behind
//! `TcpSocket::bind_device` and `UdpSocket::bind_device`, so both report a
//! failure the same way, naming the device.

use crate::io::context_error::context_error;
use socket2::Socket;
use std::io;

/// Binds `socket` to the device named `interface` (`None` or an empty
/// name removes the binding); an error says which device it was.
pub(super) fn bind_device(socket: &Socket, interface: Option<&[u8]>) -> io::Result<()> {
    socket.bind_device(interface).map_err(|e| {
        let what = match interface {
            Some(name) if !name.is_empty() => format!(
                "binding the socket to device `{}`",
                String::from_utf8_lossy(name)
            ),
            _ => "removing the socket's device binding".to_owned(),
        };
        context_error(what, e)
    })
}
