//! The readiness and non-`async` I/O methods that
//! [`UdpSocket`](crate::net::UdpSocket) and
//! [`UnixDatagram`](crate::net::UnixDatagram) share, with one body each
//! over the socket's `registered()` mio socket, and the documentation they
//! share. The receives go through the type's own `poll_recv_io` and
//! `try_recv_io` (a Unix datagram socket's end once its read side is shut
//! down: `io::registered::ReadShutDown`). Each type's file invokes the
//! macro inside its `impl` block with
//! what differs: the `send_to` target, the `peek_from` function, a few
//! phrases, and each method's `# Examples` section (for the methods whose
//! description differs, the description too). The bodies the stream
//! types share as well (`ready`, `readable`, `writable`, the `poll_*_ready`
//! pair, `try_io`, `async_io`) come from `registered_io.rs`.
//!
//! ```text
//! datagram_io! {
//!     socket: UdpSocket, address: SocketAddr,
//!     target: target: SocketAddr => target (what the socket's `SendTo` takes),
//!     peek_from: mio::net::UdpSocket::peek_from,
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
        peek_from: $peek_from:expr,
        to: $to_doc:literal, full: $full:literal;
        $(
            $(#[$about:meta])*
            $method:ident { $(#[$example:meta])* }
        )*
    ) => {$(
        crate::net::datagram_io::datagram_io! {
            @method $method [$(#[$about])*] [$(#[$example])*] $Socket, $Addr,
            $target: $Target => $to, $peek_from, $to_doc, $full
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
            self.poll_recv_io(cx, |sys| sys.recv(buf))
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
            self.registered()
                .poll_io(cx, ::rt_reactor::Direction::Write, |sys| sys.send(buf))
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
            self.poll_recv_io(cx, |sys| sys.recv_from(buf))
        }
    };
    (
        @method poll_send_to [] [$($example:tt)*] $Socket:ident, $Addr:ty,
        $target:ident: $Target:ty => $to:expr, $peek_from:expr, $to_doc:literal, $full:literal
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
            let to = $to;
            self.registered()
                .poll_io(cx, ::rt_reactor::Direction::Write, |sys| {
                    crate::net::datagram_io::SendTo::send_to_target(sys, buf, to)
                })
        }
    };
    (
        @method poll_peek_from [] [$($example:tt)*] $Socket:ident, $Addr:ty,
        $target:ident: $Target:ty => $to:expr, $peek_from:expr, $($rest:tt)*
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
            self.poll_recv_io(cx, |sys| $peek_from(sys, buf))
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
            self.try_recv_io(|sys| sys.recv(buf))
        }
    };
    (
        @method try_send [] [$($example:tt)*] $Socket:ident, $Addr:ty,
        $target:ident: $Target:ty => $to:expr, $peek_from:expr, $to_doc:literal, $full:literal
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
            self.registered()
                .try_io(::rt_reactor::Direction::Write, |sys| sys.send(buf))
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
            self.try_recv_io(|sys| sys.recv_from(buf))
        }
    };
    (
        @method try_send_to [] [$($example:tt)*] $Socket:ident, $Addr:ty,
        $target:ident: $Target:ty => $to:expr, $peek_from:expr, $to_doc:literal, $full:literal
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
            let to = $to;
            self.registered()
                .try_io(::rt_reactor::Direction::Write, |sys| {
                    crate::net::datagram_io::SendTo::send_to_target(sys, buf, to)
                })
        }
    };
    (
        @method try_peek_from [] [$($example:tt)*] $Socket:ident, $Addr:ty,
        $target:ident: $Target:ty => $to:expr, $peek_from:expr, $($rest:tt)*
    ) => {
        #[doc = crate::net::registered_io::doc_text!(
            ["Peeks at the next datagram and its sender without waiting."],
            errors: "`WouldBlock` if none is ready (or readiness was not reported yet), \
                     or the OS error of `recvfrom(MSG_PEEK)`."
        )]
        #[doc = ""]
        $($example)*
        pub fn try_peek_from(&self, buf: &mut [u8]) -> ::std::io::Result<(usize, $Addr)> {
            self.try_recv_io(|sys| $peek_from(sys, buf))
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
