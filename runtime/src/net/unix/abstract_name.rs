//! Abstract socket names written as paths.
//!
//! On Linux and Android a Unix-domain socket can be named in the abstract
//! namespace: no file, the name goes away with the last socket bound to
//! it. tokio (and the C API) let a path spell one: a path whose first byte
//! is NUL, `"\0name"`, names `name` there. rt reads paths the same way in
//! every call that takes one (`UnixListener::bind`, `UnixStream::connect`,
//! `UnixDatagram::bind`, `connect`, `send_to` and its `try_`/`poll_`
//! forms; `UnixSocket`'s calls go through `socket2`, which reads them so
//! already). Elsewhere such a path stays a path, which `std` refuses
//! ("paths must not contain interior null bytes").
//!
//! The `*_addr` forms (`bind_addr`, `connect_addr`) take a [`SocketAddr`]
//! built with `SocketAddr::from_abstract_name` (std's `SocketAddrExt`,
//! which `rt::net::unix` re-exports on Linux and Android).

use super::SocketAddr;
use crate::net::datagram_io::SendTo;
use std::io;
use std::path::Path;

/// The abstract name `path` spells: its bytes after a leading NUL. `None`
/// for any other path, and on platforms without an abstract namespace.
pub(super) fn abstract_name(path: &Path) -> Option<&[u8]> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        use std::os::unix::ffi::OsStrExt;
        path.as_os_str().as_bytes().strip_prefix(b"\0")
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        let _ = path;
        None
    }
}

/// The address `path` names: an abstract one if it starts with NUL (on
/// Linux and Android), otherwise the filesystem path.
///
/// # Errors
///
/// `InvalidInput` for a name or path too long for `sockaddr_un`, or a
/// path with a NUL byte inside.
pub(super) fn socket_addr(path: &Path) -> io::Result<SocketAddr> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    if let Some(name) = abstract_name(path) {
        #[cfg(target_os = "android")]
        use std::os::android::net::SocketAddrExt;
        #[cfg(target_os = "linux")]
        use std::os::linux::net::SocketAddrExt;
        return SocketAddr::from_abstract_name(name);
    }
    SocketAddr::from_pathname(path)
}

/// Sends to the socket a path names (see the module docs): an abstract
/// name through `socket2`, since neither `mio` nor `std` sends to one
/// from a path; any other path through `mio`'s `send_to`, as before.
impl SendTo<&Path> for mio::net::UnixDatagram {
    fn send_to_target(&self, buf: &[u8], path: &Path) -> io::Result<usize> {
        if abstract_name(path).is_some() {
            socket2::SockRef::from(self).send_to(buf, &socket2::SockAddr::unix(path)?)
        } else {
            self.send_to(buf, path)
        }
    }
}

/// Connects `socket` to the socket `path` names (see the module docs).
pub(super) fn connect_to_path(socket: &mio::net::UnixDatagram, path: &Path) -> io::Result<()> {
    if abstract_name(path).is_some() {
        socket2::SockRef::from(socket).connect(&socket2::SockAddr::unix(path)?)
    } else {
        socket.connect(path)
    }
}
