//! The readiness and non-`async` I/O methods that
//! [`UdpSocket`](crate::net::UdpSocket) and
//! [`UnixDatagram`](crate::net::UnixDatagram) share, with one body each
//! over the named operations of the socket's `registered()` I/O (below, for
//! a registration of a `DatagramSys`; UDP's dispatch adds a simulated
//! socket's), and the documentation they share. Each type's file invokes
//! the macro inside its `impl` block with what differs: the `send_to`
//! target, a few
//! phrases, and each method's `# Examples` section (for the methods whose
//! description differs, the description too). The bodies the stream
//! types share as well (`ready`, `readable`, `writable`, the `poll_*_ready`
//! pair, `try_io`, `async_io`) come from `registered_io.rs`.
//!
//! ```text
//! datagram_io! {
//!     socket: UdpSocket, address: SocketAddr,
//!     target: target: SocketAddr => target (what the socket's `SendTo` takes),
//!     to: "`target`", full: "the socket buffer is full";
//!
//!     /// A description, where the method's differs between the types.
//!     method_name {
//!         /// The doc example(s).
//!     }
//!     ...
//! }
//! ```

macro_rules! datagram_io {
    (
        socket: $Socket:ident, address: $Addr:ty,
        target: $target:ident: $Target:ty => $to:expr,
        to: $to_doc:literal, full: $full:literal;
        $(
            $(#[$about:meta])*
            $method:ident { $(#[$example:meta])* }
        )*
    ) => {$(
        crate::net::datagram_io::datagram_io! {
            @method $method [$(#[$about])*] [$(#[$example])*] $Socket, $Addr,
            $target: $Target => $to, $to_doc, $full
        }
    )*};

    (@method ready [] [$($example:tt)*] $($rest:tt)*) => {
        crate::net::registered_io::registered_io! {
            ready
            #[doc = crate::net::registered_io::doc_text!(
                [
                    "Waits until the socket has any of the readiness of `interest` \
                     (`Interest::READABLE | Interest::WRITABLE`: either), and says which; \
                     then the `try_*` methods, which clear the readiness when they would block.",
                    "A pending error (`ERROR`: a datagram the peer refused) also counts as \
                     readable or writable, for the sides `interest` asks for: the operation \
                     returns the error at once.",
                    "Any number of tasks may wait at once, each in a place of its own; \
                     dropping the future frees it."
                ],
                errors: "Fails once the runtime's I/O driver has shut down."
            )]
            #[doc = ""]
            $($example)*
        }
    };
    (@method readable [] [$($example:tt)*] $($rest:tt)*) => {
        crate::net::registered_io::registered_io! {
            readable
            #[doc = crate::net::registered_io::doc_text!(
                [
                    "Waits until a datagram (or an error) can be received.",
                    "Any number of tasks may wait at once; readiness wakes them all."
                ],
                errors: "Fails once the runtime's I/O driver has shut down."
            )]
            #[doc = ""]
            $($example)*
        }
    };
    (@method writable [$($about:tt)+] [$($example:tt)*] $($rest:tt)*) => {
        crate::net::registered_io::registered_io! {
            writable
            $($about)+
            #[doc = ""]
            #[doc = crate::net::registered_io::doc_text!(
                ["Any number of tasks may wait at once; readiness wakes them all."],
                errors: "Fails once the runtime's I/O driver has shut down."
            )]
            #[doc = ""]
            $($example)*
        }
    };
    (@method poll_recv_ready [$($about:tt)+] [$($example:tt)*] $($rest:tt)*) => {
        crate::net::registered_io::registered_io! {
            poll_ready poll_recv_ready, Read
            $($about)+
            #[doc = ""]
            #[doc = crate::net::registered_io::doc_text!(
                [],
                errors: "Fails once the runtime's I/O driver has shut down."
            )]
            #[doc = ""]
            $($example)*
        }
    };
    (@method poll_send_ready [] [$($example:tt)*] $($rest:tt)*) => {
        crate::net::registered_io::registered_io! {
            poll_ready poll_send_ready, Write
            #[doc = crate::net::registered_io::doc_text!(
                [
                    "Polls for send readiness, in the write direction's shared slot (the \
                     last caller's waker wins)."
                ],
                errors: "Fails once the runtime's I/O driver has shut down."
            )]
            #[doc = ""]
            $($example)*
        }
    };
    (@method poll_recv [] [$($example:tt)*] $Socket:ident, $($rest:tt)*) => {
        #[doc = crate::net::registered_io::doc_text!(
            [concat!(
                "Polls to receive a datagram from the connected peer, as [`recv`](",
                stringify!($Socket), "::recv), in the read direction's shared slot ",
                "(the last waker wins)."
            )],
            errors: "The OS error of `recv`."
        )]
        #[doc = ""]
        $($example)*
        pub fn poll_recv(
            &self,
            cx: &mut ::std::task::Context<'_>,
            buf: &mut [u8],
        ) -> ::std::task::Poll<::std::io::Result<usize>> {
            self.registered().poll_recv(cx, buf)
        }
    };
    (@method poll_send [] [$($example:tt)*] $Socket:ident, $($rest:tt)*) => {
        #[doc = crate::net::registered_io::doc_text!(
            [concat!(
                "Polls to send a datagram to the connected peer, as [`send`](",
                stringify!($Socket), "::send), in the write direction's shared slot ",
                "(the last waker wins)."
            )],
            errors: "The OS error of `send`."
        )]
        #[doc = ""]
        $($example)*
        pub fn poll_send(
            &self,
            cx: &mut ::std::task::Context<'_>,
            buf: &[u8],
        ) -> ::std::task::Poll<::std::io::Result<usize>> {
            self.registered().poll_send(cx, buf)
        }
    };
    (@method poll_recv_from [] [$($example:tt)*] $Socket:ident, $Addr:ty, $($rest:tt)*) => {
        #[doc = crate::net::registered_io::doc_text!(
            [concat!(
                "Polls to receive a datagram and its sender, as [`recv_from`](",
                stringify!($Socket), "::recv_from), in the read direction's shared ",
                "slot (the last waker wins)."
            )],
            errors: "The OS error of `recvfrom`."
        )]
        #[doc = ""]
        $($example)*
        pub fn poll_recv_from(
            &self,
            cx: &mut ::std::task::Context<'_>,
            buf: &mut [u8],
        ) -> ::std::task::Poll<::std::io::Result<(usize, $Addr)>> {
            self.registered().poll_recv_from(cx, buf)
        }
    };
    (
        @method poll_send_to [] [$($example:tt)*] $Socket:ident, $Addr:ty,
        $target:ident: $Target:ty => $to:expr, $to_doc:literal, $full:literal
    ) => {
        #[doc = crate::net::registered_io::doc_text!(
            [concat!(
                "Polls to send a datagram to ", $to_doc, ", as [`send_to`](",
                stringify!($Socket), "::send_to), in the write direction's shared ",
                "slot (the last waker wins)."
            )],
            errors: "The OS error of `sendto`."
        )]
        #[doc = ""]
        $($example)*
        pub fn poll_send_to(
            &self,
            cx: &mut ::std::task::Context<'_>,
            buf: &[u8],
            $target: $Target,
        ) -> ::std::task::Poll<::std::io::Result<usize>> {
            self.registered().poll_send_to(cx, buf, $to)
        }
    };
    (
        @method poll_peek_from [] [$($example:tt)*] $Socket:ident, $Addr:ty,
        $target:ident: $Target:ty => $to:expr, $($rest:tt)*
    ) => {
        #[doc = crate::net::registered_io::doc_text!(
            [concat!(
                "Polls to peek at the next datagram and its sender, as [`peek_from`](",
                stringify!($Socket), "::peek_from), in the read direction's shared ",
                "slot (the last waker wins)."
            )],
            errors: "The OS error of `recvfrom(MSG_PEEK)`."
        )]
        #[doc = ""]
        $($example)*
        pub fn poll_peek_from(
            &self,
            cx: &mut ::std::task::Context<'_>,
            buf: &mut [u8],
        ) -> ::std::task::Poll<::std::io::Result<(usize, $Addr)>> {
            self.registered().poll_peek_from(cx, buf)
        }
    };
    (@method try_recv [] [$($example:tt)*] $($rest:tt)*) => {
        #[doc = crate::net::registered_io::doc_text!(
            ["Receives a datagram from the connected peer without waiting."],
            errors: "`WouldBlock` if none is ready (or readiness was not reported yet), \
                     or the OS error of `recv`."
        )]
        #[doc = ""]
        $($example)*
        pub fn try_recv(&self, buf: &mut [u8]) -> ::std::io::Result<usize> {
            self.registered().try_recv(buf)
        }
    };
    (
        @method try_send [] [$($example:tt)*] $Socket:ident, $Addr:ty,
        $target:ident: $Target:ty => $to:expr, $to_doc:literal, $full:literal
    ) => {
        #[doc = crate::net::registered_io::doc_text!(
            ["Sends a datagram to the connected peer without waiting."],
            errors: concat!(
                "`WouldBlock` if ", $full, " (or writability was not reported yet), ",
                "or the OS error of `send`."
            )
        )]
        #[doc = ""]
        $($example)*
        pub fn try_send(&self, buf: &[u8]) -> ::std::io::Result<usize> {
            self.registered().try_send(buf)
        }
    };
    (@method try_recv_from [] [$($example:tt)*] $Socket:ident, $Addr:ty, $($rest:tt)*) => {
        #[doc = crate::net::registered_io::doc_text!(
            ["Receives a datagram and its sender without waiting."],
            errors: "`WouldBlock` if none is ready (or readiness was not reported yet), \
                     or the OS error of `recvfrom`."
        )]
        #[doc = ""]
        $($example)*
        pub fn try_recv_from(&self, buf: &mut [u8]) -> ::std::io::Result<(usize, $Addr)> {
            self.registered().try_recv_from(buf)
        }
    };
    (
        @method try_send_to [] [$($example:tt)*] $Socket:ident, $Addr:ty,
        $target:ident: $Target:ty => $to:expr, $to_doc:literal, $full:literal
    ) => {
        #[doc = crate::net::registered_io::doc_text!(
            [concat!("Sends a datagram to ", $to_doc, " without waiting.")],
            errors: concat!(
                "`WouldBlock` if ", $full, " (or writability was not reported yet), ",
                "or the OS error of `sendto`."
            )
        )]
        #[doc = ""]
        $($example)*
        pub fn try_send_to(&self, buf: &[u8], $target: $Target) -> ::std::io::Result<usize> {
            self.registered().try_send_to(buf, $to)
        }
    };
    (
        @method try_peek_from [] [$($example:tt)*] $Socket:ident, $Addr:ty,
        $target:ident: $Target:ty => $to:expr, $($rest:tt)*
    ) => {
        #[doc = crate::net::registered_io::doc_text!(
            ["Peeks at the next datagram and its sender without waiting."],
            errors: "`WouldBlock` if none is ready (or readiness was not reported yet), \
                     or the OS error of `recvfrom(MSG_PEEK)`."
        )]
        #[doc = ""]
        $($example)*
        pub fn try_peek_from(&self, buf: &mut [u8]) -> ::std::io::Result<(usize, $Addr)> {
            self.registered().try_peek_from(buf)
        }
    };
    (@method try_io [$($about:tt)+] [$($example:tt)*] $($rest:tt)*) => {
        crate::net::registered_io::registered_io! {
            try_io
            $($about)+
            #[doc = ""]
            #[doc = crate::net::registered_io::doc_text!(
                [],
                errors: "`WouldBlock` if the readiness was not reported (`op` is not run) or \
                         `op` would block; otherwise `op`'s error."
            )]
            #[doc = ""]
            $($example)*
        }
    };
    (@method async_io [] [$($example:tt)*] $($rest:tt)*) => {
        crate::net::registered_io::registered_io! { async_io $($example)* }
    };

}

pub(crate) use datagram_io;

use crate::io::registered::{ReadShutDown, Registered};
use rt_reactor::{Direction, Ready};
use std::io;
use std::task::{Context, Poll};

/// Sends one datagram to a target of the socket's own kind: what the
/// macro's `send_to` methods call. UDP's is `mio`'s `send_to`; a Unix
/// datagram socket's takes a path that may spell an abstract name
/// (`unix::abstract_name`).
pub(crate) trait SendTo<Target> {
    /// Sends `buf` to `target`.
    fn send_to_target(&self, buf: &[u8], target: Target) -> std::io::Result<usize>;
}

impl SendTo<std::net::SocketAddr> for mio::net::UdpSocket {
    fn send_to_target(&self, buf: &[u8], target: std::net::SocketAddr) -> std::io::Result<usize> {
        self.send_to(buf, target)
    }
}

/// The calls of a datagram socket's mio type that the named operations
/// below make: UDP's and Unix-domain's, each with its own address type.
pub(crate) trait DatagramSys: mio::event::Source {
    /// The sender of a received datagram.
    type Addr;

    fn recv(&self, buf: &mut [u8]) -> std::io::Result<usize>;

    fn send(&self, buf: &[u8]) -> std::io::Result<usize>;

    fn recv_from(&self, buf: &mut [u8]) -> std::io::Result<(usize, Self::Addr)>;

    /// `recvfrom(MSG_PEEK)`.
    fn peek_from(&self, buf: &mut [u8]) -> std::io::Result<(usize, Self::Addr)>;

    /// What a receive returns instead of waiting when it finds nothing
    /// under `ready`: once the read side is shut down, no bytes
    /// (`io::registered::ReadShutDown`), as a blocking `recv(2)`.
    #[inline]
    fn recv_end(ready: Ready) -> Option<usize> {
        usize::if_read_closed(ready)
    }

    /// [`recv_end`](DatagramSys::recv_end) for the receives that give the
    /// sender's address too (which depends on the socket).
    fn recv_from_end(&self, ready: Ready) -> Option<(usize, Self::Addr)>;
}

impl DatagramSys for mio::net::UdpSocket {
    type Addr = std::net::SocketAddr;

    fn recv(&self, buf: &mut [u8]) -> std::io::Result<usize> {
        mio::net::UdpSocket::recv(self, buf)
    }

    fn send(&self, buf: &[u8]) -> std::io::Result<usize> {
        mio::net::UdpSocket::send(self, buf)
    }

    fn recv_from(&self, buf: &mut [u8]) -> std::io::Result<(usize, Self::Addr)> {
        mio::net::UdpSocket::recv_from(self, buf)
    }

    fn peek_from(&self, buf: &mut [u8]) -> std::io::Result<(usize, Self::Addr)> {
        mio::net::UdpSocket::peek_from(self, buf)
    }

    #[inline]
    fn recv_from_end(&self, ready: Ready) -> Option<(usize, Self::Addr)> {
        crate::net::udp::read_shut_down_end(self, ready)
    }
}

/// The operations the macro's methods call, each the registration's
/// `poll_io` (the read or write direction's shared slot) or `try_io` over
/// one call of the socket: what the methods did inline before a UDP
/// socket could be simulated.
impl<E: DatagramSys> Registered<E> {
    #[inline]
    pub(crate) fn poll_recv(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.poll_recv_ending(cx, |sys| sys.recv(buf), E::recv_end)
    }

    #[inline]
    pub(crate) fn poll_send(&self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        self.poll_io(cx, Direction::Write, |sys| sys.send(buf))
    }

    #[inline]
    pub(crate) fn poll_recv_from(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<(usize, E::Addr)>> {
        self.poll_recv_ending(
            cx,
            |sys| sys.recv_from(buf),
            |r| self.get_ref().recv_from_end(r),
        )
    }

    #[inline]
    pub(crate) fn poll_send_to<T: Copy>(
        &self,
        cx: &mut Context<'_>,
        buf: &[u8],
        target: T,
    ) -> Poll<io::Result<usize>>
    where
        E: SendTo<T>,
    {
        self.poll_io(cx, Direction::Write, |sys| sys.send_to_target(buf, target))
    }

    #[inline]
    pub(crate) fn poll_peek_from(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<(usize, E::Addr)>> {
        self.poll_recv_ending(
            cx,
            |sys| sys.peek_from(buf),
            |r| self.get_ref().recv_from_end(r),
        )
    }

    #[inline]
    pub(crate) fn try_recv(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.try_recv_ending(|sys| sys.recv(buf), E::recv_end)
    }

    #[inline]
    pub(crate) fn try_send(&self, buf: &[u8]) -> io::Result<usize> {
        self.try_io(Direction::Write, |sys| sys.send(buf))
    }

    #[inline]
    pub(crate) fn try_recv_from(&self, buf: &mut [u8]) -> io::Result<(usize, E::Addr)> {
        self.try_recv_ending(
            |sys| sys.recv_from(buf),
            |r| self.get_ref().recv_from_end(r),
        )
    }

    #[inline]
    pub(crate) fn try_send_to<T>(&self, buf: &[u8], target: T) -> io::Result<usize>
    where
        E: SendTo<T>,
    {
        self.try_io(Direction::Write, |sys| sys.send_to_target(buf, target))
    }

    #[inline]
    pub(crate) fn try_peek_from(&self, buf: &mut [u8]) -> io::Result<(usize, E::Addr)> {
        self.try_recv_ending(
            |sys| sys.peek_from(buf),
            |r| self.get_ref().recv_from_end(r),
        )
    }
}
