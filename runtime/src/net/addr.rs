//! Conversion of the address arguments of `bind`/`connect`/`send_to`.
//!
//! The conversion is a future: literal addresses are ready at once, host
//! names are resolved on the blocking pool (DNS blocks), as
//! [`lookup_host`](super::lookup_host) does.

use std::future::Future;
use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6};
use std::pin::Pin;
use std::task::{Context, Poll};

/// Types that name one or more socket addresses, as tokio's and std's
/// `ToSocketAddrs` do: `SocketAddr`, `SocketAddrV4/V6`, `(IpAddr, u16)`,
/// `(Ipv4Addr, u16)`, `(Ipv6Addr, u16)`, `"host:port"` strings (`&str`,
/// `String`), `(&str, u16)` and `(String, u16)` pairs, slices of
/// `SocketAddr` (`&[SocketAddr]`), and references to these.
///
/// A string or host is parsed as an IP address first; anything else
/// (`"localhost:80"`, `("example.com", 443)`) is a host name, resolved by
/// the system resolver on the runtime's blocking pool (as
/// [`lookup_host`](super::lookup_host) does). Sealed: implemented only
/// here.
///
/// # Examples
///
/// ```
/// use std::net::{Ipv4Addr, SocketAddr};
///
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let a = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
///     let b = rt::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await.unwrap();
///     let c = rt::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0))).await.unwrap();
///     let d = rt::net::TcpListener::bind("localhost:0").await.unwrap();
///     assert!(d.local_addr().unwrap().ip().is_loopback());
///     let e = rt::net::TcpListener::bind(("localhost", 0)).await.unwrap();
///     let f = rt::net::TcpListener::bind(("::1", 0)).await.unwrap();
///     assert!(f.local_addr().unwrap().is_ipv6());
///     let both = [a.local_addr().unwrap(), b.local_addr().unwrap()];
///     let g = rt::net::TcpStream::connect(&both[..]).await.unwrap();
///     assert!(rt::net::TcpListener::bind("no port here").await.is_err());
///     # drop((a, b, c, d, e, f, g));
/// });
/// ```
pub trait ToSocketAddrs: sealed::ToSocketAddrsPriv {}

pub(crate) mod sealed {
    use super::*;
    use crate::net::lookup::HostName;

    /// The conversion itself (not nameable outside the crate).
    #[allow(unreachable_pub)]
    pub trait ToSocketAddrsPriv {
        /// Starts converting `self` into addresses.
        fn to_socket_addrs(&self) -> Resolve;
    }

    type Lookup = Pin<Box<dyn Future<Output = io::Result<Vec<SocketAddr>>> + Send + Sync>>;

    /// The addresses: known now, or being resolved on the blocking pool.
    #[allow(unreachable_pub)]
    pub struct Resolve(State);

    enum State {
        Ready(Option<io::Result<Vec<SocketAddr>>>),
        Lookup(Lookup),
    }

    impl Resolve {
        pub(crate) fn ready(result: io::Result<Vec<SocketAddr>>) -> Resolve {
            Resolve(State::Ready(Some(result)))
        }

        pub(crate) fn lookup(name: HostName) -> Resolve {
            Resolve(State::Lookup(Box::pin(super::super::lookup::resolve(name))))
        }
    }

    impl Future for Resolve {
        type Output = io::Result<Vec<SocketAddr>>;

        fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
            match &mut self.0 {
                State::Ready(result) => {
                    Poll::Ready(result.take().expect("`Resolve` polled after it completed"))
                }
                State::Lookup(lookup) => lookup.as_mut().poll(cx),
            }
        }
    }

    impl std::fmt::Debug for Resolve {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            match &self.0 {
                State::Ready(result) => f.debug_tuple("Resolve::Ready").field(result).finish(),
                State::Lookup(_) => f.write_str("Resolve::Lookup(..)"),
            }
        }
    }
}

use crate::net::lookup::HostName;
use sealed::{Resolve, ToSocketAddrsPriv};

macro_rules! direct {
    ($($ty:ty => |$v:ident| $e:expr;)*) => {$(
        impl ToSocketAddrs for $ty {}
        impl ToSocketAddrsPriv for $ty {
            fn to_socket_addrs(&self) -> Resolve {
                let $v = self;
                Resolve::ready(Ok(vec![$e]))
            }
        }
    )*};
}

direct! {
    SocketAddr => |a| *a;
    SocketAddrV4 => |a| SocketAddr::V4(*a);
    SocketAddrV6 => |a| SocketAddr::V6(*a);
    (IpAddr, u16) => |a| SocketAddr::new(a.0, a.1);
    (Ipv4Addr, u16) => |a| SocketAddr::new(IpAddr::V4(a.0), a.1);
    (Ipv6Addr, u16) => |a| SocketAddr::new(IpAddr::V6(a.0), a.1);
}

/// A literal `ip:port` now; otherwise a `host:port` lookup.
fn parse(s: &str) -> Resolve {
    match s.parse::<SocketAddr>() {
        Ok(addr) => Resolve::ready(Ok(vec![addr])),
        Err(_) => Resolve::lookup(HostName::WithPort(s.to_owned())),
    }
}

/// A literal IP address now; otherwise a lookup of `host`.
fn parse_host(host: &str, port: u16) -> Resolve {
    match host.parse::<IpAddr>() {
        Ok(ip) => Resolve::ready(Ok(vec![SocketAddr::new(ip, port)])),
        Err(_) => Resolve::lookup(HostName::Split(host.to_owned(), port)),
    }
}

impl ToSocketAddrs for (&str, u16) {}
impl ToSocketAddrsPriv for (&str, u16) {
    fn to_socket_addrs(&self) -> Resolve {
        parse_host(self.0, self.1)
    }
}

impl ToSocketAddrs for (String, u16) {}
impl ToSocketAddrsPriv for (String, u16) {
    fn to_socket_addrs(&self) -> Resolve {
        parse_host(&self.0, self.1)
    }
}

impl ToSocketAddrs for str {}
impl ToSocketAddrsPriv for str {
    fn to_socket_addrs(&self) -> Resolve {
        parse(self)
    }
}

impl ToSocketAddrs for String {}
impl ToSocketAddrsPriv for String {
    fn to_socket_addrs(&self) -> Resolve {
        parse(self)
    }
}

impl ToSocketAddrs for [SocketAddr] {}
impl ToSocketAddrsPriv for [SocketAddr] {
    fn to_socket_addrs(&self) -> Resolve {
        Resolve::ready(Ok(self.to_vec()))
    }
}

impl<T: ToSocketAddrs + ?Sized> ToSocketAddrs for &T {}
impl<T: ToSocketAddrsPriv + ?Sized> ToSocketAddrsPriv for &T {
    fn to_socket_addrs(&self) -> Resolve {
        (**self).to_socket_addrs()
    }
}

/// Runs `op` on each address in turn; returns the first success or the
/// last error.
pub(crate) async fn each_addr<A, T, F, Fut>(addr: A, mut op: F) -> io::Result<T>
where
    A: ToSocketAddrs,
    F: FnMut(SocketAddr) -> Fut,
    Fut: Future<Output = io::Result<T>>,
{
    let addrs = addr.to_socket_addrs().await?;
    let mut last_error = None;
    for addr in addrs {
        match op(addr).await {
            Ok(value) => return Ok(value),
            Err(e) => last_error = Some(e),
        }
    }
    Err(last_error.unwrap_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "the address list is empty: nothing to bind or connect to",
        )
    }))
}
