//! Conversion of the address arguments of `bind`/`connect`/`send_to`.
//!
//! The conversion is a future so that it can grow a host-name variant
//! resolved off the worker threads (DNS is blocking) without changing the
//! signatures that take it; today it only parses.

use std::future::Future;
use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6};
use std::pin::Pin;
use std::task::{Context, Poll};

/// Types that name one or more socket addresses: `SocketAddr`,
/// `SocketAddrV4/V6`, `(IpAddr, u16)`, `(Ipv4Addr, u16)`, `(Ipv6Addr, u16)`,
/// `"ip:port"` strings, slices of `SocketAddr`, and references to these.
///
/// Strings are parsed as `ip:port`; they are not resolved through DNS, so
/// a host name is an `InvalidInput` error. Sealed: implemented only here.
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
///     assert!(rt::net::TcpListener::bind("localhost:0").await.is_err());
///     # drop((a, b, c));
/// });
/// ```
pub trait ToSocketAddrs: sealed::ToSocketAddrsPriv {}

pub(crate) mod sealed {
    use super::*;

    /// The conversion itself (not nameable outside the crate).
    #[allow(unreachable_pub)]
    pub trait ToSocketAddrsPriv {
        /// Starts converting `self` into addresses.
        fn to_socket_addrs(&self) -> Resolve;
    }

    /// The addresses, once known.
    #[allow(unreachable_pub)]
    #[derive(Debug)]
    pub struct Resolve(Option<io::Result<Vec<SocketAddr>>>);

    impl Resolve {
        pub(crate) fn ready(result: io::Result<Vec<SocketAddr>>) -> Resolve {
            Resolve(Some(result))
        }
    }

    impl Future for Resolve {
        type Output = io::Result<Vec<SocketAddr>>;

        fn poll(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<Self::Output> {
            Poll::Ready(self.0.take().expect("`Resolve` polled after it completed"))
        }
    }
}

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

fn parse(s: &str) -> io::Result<Vec<SocketAddr>> {
    s.parse::<SocketAddr>().map(|a| vec![a]).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "`{s}` is not an `ip:port` address; host names are not resolved here, \
                 pass an IP address (e.g. \"127.0.0.1:8080\" or \"[::1]:8080\")"
            ),
        )
    })
}

impl ToSocketAddrs for str {}
impl ToSocketAddrsPriv for str {
    fn to_socket_addrs(&self) -> Resolve {
        Resolve::ready(parse(self))
    }
}

impl ToSocketAddrs for String {}
impl ToSocketAddrsPriv for String {
    fn to_socket_addrs(&self) -> Resolve {
        Resolve::ready(parse(self))
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
