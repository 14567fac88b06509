//! `lookup_host`: name resolution on the blocking pool.
//!
//! The system resolver (`getaddrinfo`, through std's `ToSocketAddrs`)
//! blocks, so it runs on a blocking-pool thread. A literal address is
//! parsed on the spot without touching the pool.

use crate::runtime::context;
use std::io;
use std::net::{SocketAddr, ToSocketAddrs};

/// Resolves `"host:port"` (`"example.com:80"`, `"localhost:8080"`,
/// `"[::1]:443"`) to the socket addresses it names, using the system
/// resolver on the runtime's blocking pool.
///
/// # Errors
///
/// The resolver's error (for an unknown host, or a string without a
/// port), with `host` in its message; same
/// [`ErrorKind`](io::ErrorKind).
///
/// # Panics
///
/// Panics when polled outside a runtime, unless `host` is a literal
/// address.
///
/// # Examples
///
/// ```
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let addrs: Vec<_> = rt::net::lookup_host("localhost:8080").await.unwrap().collect();
/// assert!(addrs.iter().all(|addr| addr.ip().is_loopback() && addr.port() == 8080));
/// # });
/// ```
pub async fn lookup_host(host: impl AsRef<str>) -> io::Result<std::vec::IntoIter<SocketAddr>> {
    let host = host.as_ref();
    if let Ok(addr) = host.parse::<SocketAddr>() {
        return Ok(vec![addr].into_iter());
    }
    let host = host.to_owned();
    let resolve = move || {
        host.to_socket_addrs()
            .map(Iterator::collect::<Vec<_>>)
            .map_err(|e| io::Error::new(e.kind(), format!("could not resolve `{host}`: {e}")))
    };
    let Some(call) = context::with_current(|handle| handle.spawn_blocking(resolve)) else {
        panic!(
            "`rt::net::lookup_host` used outside a runtime: it resolves on the runtime's \
             blocking pool, so await it in a task or inside `Runtime::block_on`"
        );
    };
    match call.await {
        Ok(result) => result.map(Vec::into_iter),
        Err(join_error) => Err(join_error.into()),
    }
}
