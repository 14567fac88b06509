//! `UdpSocket`'s socket options: broadcast, multicast membership, loop
//! and hop limit, time-to-live, type of service, traffic class and device binding.

use super::UdpSocket;
use socket2::SockRef;
use std::io;
use std::net::{Ipv4Addr, Ipv6Addr};

impl UdpSocket {
    /// Whether `SO_BROADCAST` is set.
    ///
    /// # Errors
    ///
    /// The OS error of `getsockopt`.
    ///
    /// # Examples
    ///
    /// See [`UdpSocket::set_broadcast`].
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let socket = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     assert!(!socket.broadcast().unwrap());
    /// });
    /// ```
    pub fn broadcast(&self) -> io::Result<bool> {
        self.sys().broadcast()
    }

    /// Sets `SO_BROADCAST`: the socket may send to a broadcast address.
    ///
    /// # Errors
    ///
    /// The OS error of `setsockopt`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let socket = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     socket.set_broadcast(true).unwrap();
    ///     assert!(socket.broadcast().unwrap());
    /// });
    /// ```
    pub fn set_broadcast(&self, on: bool) -> io::Result<()> {
        self.sys().set_broadcast(on)
    }

    /// Whether IPv4 multicast datagrams this socket sends loop back to
    /// this host (`IP_MULTICAST_LOOP`; on by default).
    ///
    /// # Errors
    ///
    /// The OS error of `getsockopt`.
    ///
    /// # Examples
    ///
    /// See [`UdpSocket::set_multicast_loop_v4`].
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let socket = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     assert!(socket.multicast_loop_v4().unwrap());
    /// });
    /// ```
    pub fn multicast_loop_v4(&self) -> io::Result<bool> {
        self.sys().multicast_loop_v4()
    }

    /// Sets `IP_MULTICAST_LOOP`.
    ///
    /// # Errors
    ///
    /// The OS error of `setsockopt`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let socket = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     socket.set_multicast_loop_v4(false).unwrap();
    ///     assert!(!socket.multicast_loop_v4().unwrap());
    /// });
    /// ```
    pub fn set_multicast_loop_v4(&self, on: bool) -> io::Result<()> {
        self.sys().set_multicast_loop_v4(on)
    }

    /// The time-to-live of the IPv4 multicast datagrams this socket sends
    /// (`IP_MULTICAST_TTL`; 1 by default: the local network only).
    ///
    /// # Errors
    ///
    /// The OS error of `getsockopt`.
    ///
    /// # Examples
    ///
    /// See [`UdpSocket::set_multicast_ttl_v4`].
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let socket = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     assert_eq!(socket.multicast_ttl_v4().unwrap(), 1);
    /// });
    /// ```
    pub fn multicast_ttl_v4(&self) -> io::Result<u32> {
        self.sys().multicast_ttl_v4()
    }

    /// Sets `IP_MULTICAST_TTL`.
    ///
    /// # Errors
    ///
    /// The OS error of `setsockopt`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let socket = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     socket.set_multicast_ttl_v4(8).unwrap();
    ///     assert_eq!(socket.multicast_ttl_v4().unwrap(), 8);
    /// });
    /// ```
    pub fn set_multicast_ttl_v4(&self, ttl: u32) -> io::Result<()> {
        self.sys().set_multicast_ttl_v4(ttl)
    }

    /// Whether IPv6 multicast datagrams this socket sends loop back to
    /// this host (`IPV6_MULTICAST_LOOP`).
    ///
    /// # Errors
    ///
    /// The OS error of `getsockopt` (on an IPv4 socket, say).
    ///
    /// # Examples
    ///
    /// See [`UdpSocket::set_multicast_loop_v6`].
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     if let Ok(socket) = rt::net::UdpSocket::bind("[::1]:0").await {
    ///         assert!(socket.multicast_loop_v6().unwrap());
    ///     }
    /// });
    /// ```
    pub fn multicast_loop_v6(&self) -> io::Result<bool> {
        self.sys().multicast_loop_v6()
    }

    /// Sets `IPV6_MULTICAST_LOOP`.
    ///
    /// # Errors
    ///
    /// The OS error of `setsockopt`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     if let Ok(socket) = rt::net::UdpSocket::bind("[::1]:0").await {
    ///         socket.set_multicast_loop_v6(false).unwrap();
    ///         assert!(!socket.multicast_loop_v6().unwrap());
    ///     }
    /// });
    /// ```
    pub fn set_multicast_loop_v6(&self, on: bool) -> io::Result<()> {
        self.sys().set_multicast_loop_v6(on)
    }

    /// Joins the IPv4 multicast group `group` on the interface whose
    /// address is `interface` (`Ipv4Addr::UNSPECIFIED`: the system picks).
    ///
    /// # Errors
    ///
    /// The OS error of `setsockopt(IP_ADD_MEMBERSHIP)` (`group` is not a
    /// multicast address, no such interface, already a member).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::net::Ipv4Addr;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let socket = rt::net::UdpSocket::bind("0.0.0.0:0").await.unwrap();
    ///     let group = Ipv4Addr::new(239, 255, 0, 1);
    ///     socket.join_multicast_v4(group, Ipv4Addr::LOCALHOST).unwrap();
    ///     socket.leave_multicast_v4(group, Ipv4Addr::LOCALHOST).unwrap();
    /// });
    /// ```
    pub fn join_multicast_v4(&self, group: Ipv4Addr, interface: Ipv4Addr) -> io::Result<()> {
        self.sys().join_multicast_v4(&group, &interface)
    }

    /// Leaves the IPv4 multicast group `group` on `interface`.
    ///
    /// # Errors
    ///
    /// The OS error of `setsockopt(IP_DROP_MEMBERSHIP)` (not a member).
    ///
    /// # Examples
    ///
    /// See [`UdpSocket::join_multicast_v4`].
    ///
    /// ```
    /// use std::net::Ipv4Addr;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let socket = rt::net::UdpSocket::bind("0.0.0.0:0").await.unwrap();
    ///     let group = Ipv4Addr::new(239, 255, 0, 2);
    ///     assert!(socket.leave_multicast_v4(group, Ipv4Addr::LOCALHOST).is_err());
    /// });
    /// ```
    pub fn leave_multicast_v4(&self, group: Ipv4Addr, interface: Ipv4Addr) -> io::Result<()> {
        self.sys().leave_multicast_v4(&group, &interface)
    }

    /// Joins the IPv6 multicast group `group` on the interface numbered
    /// `interface` (0: the system picks).
    ///
    /// # Errors
    ///
    /// The OS error of `setsockopt(IPV6_ADD_MEMBERSHIP)`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     if let Ok(socket) = rt::net::UdpSocket::bind("[::]:0").await {
    ///         let group = "ff02::1:2".parse().unwrap();
    ///         socket.join_multicast_v6(&group, 0).unwrap();
    ///         socket.leave_multicast_v6(&group, 0).unwrap();
    ///     }
    /// });
    /// ```
    pub fn join_multicast_v6(&self, group: &Ipv6Addr, interface: u32) -> io::Result<()> {
        self.sys().join_multicast_v6(group, interface)
    }

    /// Leaves the IPv6 multicast group `group` on interface `interface`.
    ///
    /// # Errors
    ///
    /// The OS error of `setsockopt(IPV6_DROP_MEMBERSHIP)` (not a member).
    ///
    /// # Examples
    ///
    /// See [`UdpSocket::join_multicast_v6`].
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     if let Ok(socket) = rt::net::UdpSocket::bind("[::]:0").await {
    ///         assert!(socket.leave_multicast_v6(&"ff02::1:3".parse().unwrap(), 0).is_err());
    ///     }
    /// });
    /// ```
    pub fn leave_multicast_v6(&self, group: &Ipv6Addr, interface: u32) -> io::Result<()> {
        self.sys().leave_multicast_v6(group, interface)
    }

    /// The IP time-to-live (`IP_TTL`) of the datagrams this socket sends.
    ///
    /// # Errors
    ///
    /// The OS error of `getsockopt`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let socket = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     socket.set_ttl(60).unwrap();
    ///     assert_eq!(socket.ttl().unwrap(), 60);
    /// });
    /// ```
    pub fn ttl(&self) -> io::Result<u32> {
        self.sys().ttl()
    }

    /// Sets `IP_TTL`.
    ///
    /// # Errors
    ///
    /// The OS error of `setsockopt` (`InvalidInput` above 255).
    ///
    /// # Examples
    ///
    /// See [`UdpSocket::ttl`].
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let socket = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     assert!(socket.set_ttl(300).is_err());
    /// });
    /// ```
    pub fn set_ttl(&self, ttl: u32) -> io::Result<()> {
        self.sys().set_ttl(ttl)
    }

    cfg_tos_v4! {
        /// The type-of-service byte (`IP_TOS`) of the IPv4 datagrams this
        /// socket sends.
        ///
        /// # Errors
        ///
        /// The OS error of `getsockopt`.
        ///
        /// # Examples
        ///
        /// See [`UdpSocket::set_tos_v4`].
        ///
        /// ```
        /// let rt = rt::runtime::Runtime::new().unwrap();
        /// rt.block_on(async {
        ///     let socket = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
        ///     assert_eq!(socket.tos_v4().unwrap(), 0);
        /// });
        /// ```
        pub fn tos_v4(&self) -> io::Result<u32> {
            SockRef::from(self).tos_v4()
        }

        /// Sets `IP_TOS` (DSCP and ECN bits).
        ///
        /// # Errors
        ///
        /// The OS error of `setsockopt` (on an IPv6 socket, say).
        ///
        /// # Examples
        ///
        /// ```
        /// let rt = rt::runtime::Runtime::new().unwrap();
        /// rt.block_on(async {
        ///     let socket = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
        ///     socket.set_tos_v4(0xb8).unwrap(); // expedited forwarding
        ///     assert_eq!(socket.tos_v4().unwrap(), 0xb8);
        /// });
        /// ```
        pub fn set_tos_v4(&self, tos: u32) -> io::Result<()> {
            SockRef::from(self).set_tos_v4(tos)
        }
    }

    cfg_tclass_v6! {
        /// The traffic class (`IPV6_TCLASS`) of the IPv6 datagrams this socket
        /// sends.
        ///
        /// # Errors
        ///
        /// The OS error of `getsockopt` (on an IPv4 socket, say).
        ///
        /// # Examples
        ///
        /// See [`UdpSocket::set_tclass_v6`].
        ///
        /// ```
        /// let rt = rt::runtime::Runtime::new().unwrap();
        /// rt.block_on(async {
        ///     if let Ok(socket) = rt::net::UdpSocket::bind("[::1]:0").await {
        ///         assert_eq!(socket.tclass_v6().unwrap(), 0);
        ///     }
        /// });
        /// ```
        pub fn tclass_v6(&self) -> io::Result<u32> {
            SockRef::from(self).tclass_v6()
        }

        /// Sets `IPV6_TCLASS`: the IPv6 counterpart of
        /// [`set_tos_v4`](UdpSocket::set_tos_v4).
        ///
        /// # Errors
        ///
        /// The OS error of `setsockopt`.
        ///
        /// # Examples
        ///
        /// ```
        /// let rt = rt::runtime::Runtime::new().unwrap();
        /// rt.block_on(async {
        ///     if let Ok(socket) = rt::net::UdpSocket::bind("[::1]:0").await {
        ///         socket.set_tclass_v6(0xb8).unwrap();
        ///         assert_eq!(socket.tclass_v6().unwrap(), 0xb8);
        ///     }
        /// });
        /// ```
        pub fn set_tclass_v6(&self, tclass: u32) -> io::Result<()> {
            SockRef::from(self).set_tclass_v6(tclass)
        }
    }

    cfg_bind_device! {
        /// Binds the socket to the network device named `interface`
        /// (`SO_BINDTODEVICE`; `b"eth0"`, say): it then sends and receives
        /// through that device only, whatever the routing table says.
        /// `None` (or an empty name) removes the binding. Changing a
        /// binding already set needs `CAP_NET_RAW` (before Linux 5.7,
        /// setting one did too).
        ///
        /// # Errors
        ///
        /// The error of the `setsockopt` call, its message naming the
        /// device: `ENODEV` ("No such device") for a name no device has,
        /// `EPERM` (`PermissionDenied`) without the capability it needs.
        ///
        /// # Examples
        ///
        /// ```
        /// let rt = rt::runtime::Runtime::new().unwrap();
        /// rt.block_on(async {
        ///     let socket = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
        ///     let err = socket.bind_device(Some(b"no-such-dev0")).unwrap_err();
        ///     assert!(err.to_string().contains("no-such-dev0"), "{err}");
        ///     assert_eq!(socket.device().unwrap(), None);
        /// });
        /// ```
        pub fn bind_device(&self, interface: Option<&[u8]>) -> io::Result<()> {
            crate::net::device::bind_device(&SockRef::from(self), interface)
        }

        /// The name of the device the socket is bound to
        /// (`SO_BINDTODEVICE`), `None` if unbound.
        ///
        /// # Errors
        ///
        /// The error of the `getsockopt` call.
        ///
        /// # Examples
        ///
        /// See [`UdpSocket::bind_device`].
        pub fn device(&self) -> io::Result<Option<Vec<u8>>> {
            SockRef::from(self).device()
        }
    }

    /// Takes the socket's pending error (`SO_ERROR`), clearing it: for a
    /// connected socket, the refusal an earlier datagram drew.
    ///
    /// # Errors
    ///
    /// The OS error of `getsockopt`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let socket = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    ///     assert!(socket.take_error().unwrap().is_none());
    /// });
    /// ```
    pub fn take_error(&self) -> io::Result<Option<io::Error>> {
        self.sys().take_error()
    }
}
