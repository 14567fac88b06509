//! `lookup_host`: name resolution on the blocking pool.
//!
//! The system resolver (`getaddrinfo`, through std's `ToSocketAddrs`)
//! blocks, so it runs on a blocking-pool thread. Literal addresses never
//! get here: [`ToSocketAddrs`] parses them on the spot.

use super::addr::ToSocketAddrs;
use crate::runtime::context;
use crate::task::TaskMeta;
use std::io;
use std::net::SocketAddr;

/// A name to resolve: `"host:port"`, or a host and a port apart.
#[derive(Debug)]
pub(crate) enum HostName {
    WithPort(String),
    Split(String, u16),
}

impl HostName {
    /// Inside a simulation: the simulated name lookup (a node's name,
    /// `localhost`), never the system resolver.
    #[cfg(feature = "sim")]
    fn resolve_simulated(&self, sim: &crate::sim::Handle) -> io::Result<Vec<SocketAddr>> {
        let (host, port) = match self {
            HostName::WithPort(text) => {
                let parsed = text
                    .rsplit_once(':')
                    .and_then(|(host, port)| Some((host, port.parse::<u16>().ok()?)));
                parsed.ok_or_else(|| {
                    io::Error::new(
                        io::ErrorKind::InvalidInput,
                        format!("`{text}` is not `host:port`"),
                    )
                })?
            }
            HostName::Split(host, port) => (host.as_str(), *port),
        };
        sim.with_net(|net, _| net.resolve(host, port))
            .map(|addr| vec![addr])
    }

    /// On the blocking pool: the system resolver's answer.
    fn resolve(&self) -> io::Result<Vec<SocketAddr>> {
        let result = match self {
            HostName::WithPort(host) => std::net::ToSocketAddrs::to_socket_addrs(host.as_str()),
            HostName::Split(host, port) => {
                std::net::ToSocketAddrs::to_socket_addrs(&(host.as_str(), *port))
            }
        };
        result.map(Iterator::collect).map_err(|e| {
            let name = match self {
                HostName::WithPort(host) => host.clone(),
                HostName::Split(host, port) => format!("{host}` port `{port}"),
            };
            crate::io::context_error::context_error(format!("could not resolve `{name}`"), e)
        })
    }
}

/// Resolves `name` on the current runtime's blocking pool.
///
/// # Panics
///
/// Panics outside a runtime.
pub(crate) async fn resolve(name: HostName) -> io::Result<Vec<SocketAddr>> {
    #[cfg(feature = "sim")]
    if let Some(resolved) = crate::sim::in_sim(|sim| name.resolve_simulated(sim)) {
        return resolved;
    }
    let mut meta = TaskMeta::new();
    let Some(call) = context::with_current(|handle| {
        meta.name_rt_job(handle, "rt::net::lookup_host");
        handle.try_spawn_blocking(move || name.resolve(), meta)
    }) else {
        panic!(
            "`rt::net` resolved a host name outside a runtime: it resolves on the runtime's \
             blocking pool, so await it in a task or inside `Runtime::block_on`"
        );
    };
    crate::blocking::join_job(call?).await
}

/// The socket addresses `host` names: `"example.com:80"`,
/// `"localhost:8080"`, `("example.com", 443)`, or any other
/// [`ToSocketAddrs`] (a literal address comes back as it is). Host names
/// are resolved with the system resolver on the runtime's blocking pool.
///
/// # Errors
///
/// The resolver's error (for an unknown host, or a string without a
/// port), with the name in its message; same
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
/// use std::net::Ipv6Addr;
///
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let addrs: Vec<_> = rt::net::lookup_host("localhost:8080").await.unwrap().collect();
/// assert!(addrs.iter().all(|addr| addr.ip().is_loopback() && addr.port() == 8080));
/// let addrs: Vec<_> = rt::net::lookup_host(("localhost", 53)).await.unwrap().collect();
/// assert!(addrs.iter().all(|addr| addr.ip().is_loopback() && addr.port() == 53));
/// let literal: Vec<_> = rt::net::lookup_host((Ipv6Addr::LOCALHOST, 1)).await.unwrap().collect();
/// assert_eq!(literal, ["[::1]:1".parse().unwrap()]);
/// # });
/// ```
pub async fn lookup_host(host: impl ToSocketAddrs) -> io::Result<std::vec::IntoIter<SocketAddr>> {
    host.to_socket_addrs().await.map(Vec::into_iter)
}
