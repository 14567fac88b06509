//! What [`TcpStream`](crate::net::TcpStream) and
//! [`UnixStream`](crate::net::UnixStream) share besides their readiness
//! surface (`stream_io.rs`): the addresses, `shutdown_std`, `split` and
//! `into_split` with one body each, and the `AsyncRead`, `AsyncWrite`
//! (`registered_io.rs`'s, as for the halves), `AsRawFd`, `AsFd` and
//! `Debug` impls over the stream's `io` field (the registration, or for
//! `TcpStream` its dispatch over a simulated stream, `tcp/dispatch.rs`,
//! whose operations have the same names). Inside the type's `impl` block, the methods (for those
//! whose description differs, the invocation gives the whole text before
//! `# Examples`; for the others, only the examples):
//!
//! ```text
//! stream_common! {
//!     stream: TcpStream, io: TcpIo, address: SocketAddr;
//!     /// The local address of the connection. ...
//!     local_addr { /// examples }
//!     peer_addr { ... } shutdown_std { ... } split { ... } into_split { ... }
//! }
//! ```
//!
//! and at module level the trait impls: `stream_common!(impls: TcpStream);`.

macro_rules! stream_common {
    (
        stream: $Stream:ident, io: $Io:ty, address: $Addr:ty;
        $(#[$local_addr:meta])+ local_addr { $(#[$local_addr_example:meta])* }
        $(#[$peer_addr:meta])+ peer_addr { $(#[$peer_addr_example:meta])* }
        $(#[$shutdown:meta])+ shutdown_std { $(#[$shutdown_example:meta])* }
        split { $(#[$split_example:meta])* }
        into_split { $(#[$into_split_example:meta])* }
    ) => {
        $(#[$local_addr])+
        #[doc = ""]
        #[doc = "# Examples"]
        #[doc = ""]
        $(#[$local_addr_example])*
        pub fn local_addr(&self) -> ::std::io::Result<$Addr> {
            self.io.local_addr()
        }

        $(#[$peer_addr])+
        #[doc = ""]
        #[doc = "# Examples"]
        #[doc = ""]
        $(#[$peer_addr_example])*
        pub fn peer_addr(&self) -> ::std::io::Result<$Addr> {
            self.io.peer_addr()
        }

        $(#[$shutdown])+
        #[doc = ""]
        #[doc = "# Examples"]
        #[doc = ""]
        $(#[$shutdown_example])*
        pub fn shutdown_std(&self, how: ::std::net::Shutdown) -> ::std::io::Result<()> {
            self.io.shutdown(how)
        }

        #[doc = concat!(
            "Splits the stream into a read half and a write half borrowing it, usable ",
            "from two concurrent futures of one task. No lock: each half uses its own ",
            "side of the registration.\n\n",
            "`stream.split()` is this method with rt's ",
            "[`AsyncReadExt`](crate::io::AsyncReadExt) in scope (it has no `split`). ",
            "With `futures_util::AsyncReadExt` in scope instead, that trait's by-value, ",
            "lock-based `split` takes precedence: write `", stringify!($Stream),
            "::split(&mut stream)` there.\n\n# Examples",
        )]
        #[doc = ""]
        $(#[$split_example])*
        pub fn split(&mut self) -> (ReadHalf<'_>, WriteHalf<'_>) {
            (ReadHalf::new(self), WriteHalf::new(self))
        }

        #[doc = concat!(
            "Splits the stream into owned halves that can move to different tasks. ",
            "Dropping the write half shuts down the write side.\n\n# Examples",
        )]
        #[doc = ""]
        $(#[$into_split_example])*
        pub fn into_split(self) -> (OwnedReadHalf, OwnedWriteHalf) {
            let shared = crate::loom::sync::Arc::new(self);
            (
                OwnedReadHalf::new(shared.clone()),
                OwnedWriteHalf::new(shared),
            )
        }

        /// Shuts the write side down; a peer that already left is not an
        /// error here (there is nobody left to tell).
        pub(crate) fn shutdown_write(&self) -> ::std::io::Result<()> {
            match self.shutdown_std(::std::net::Shutdown::Write) {
                Err(e) if e.kind() == ::std::io::ErrorKind::NotConnected => Ok(()),
                result => result,
            }
        }

        /// The stream's I/O, which both halves of a split use on `&self`,
        /// each on its own side.
        pub(crate) fn registered(&self) -> &$Io {
            &self.io
        }
    };

    (impls: $Stream:ident) => {
        crate::net::registered_io::async_read_write! {
            #[doc = concat!(
                "Waits in the read direction's shared slot: the last waker wins (see [`",
                stringify!($Stream), "`]).",
            )]
            read: $Stream,
            #[doc = concat!(
                "Waits in the write direction's shared slot: the last waker wins (see [`",
                stringify!($Stream), "`]).",
            )]
            write: $Stream => |stream| stream
        }

        impl ::std::os::fd::AsRawFd for $Stream {
            fn as_raw_fd(&self) -> ::std::os::fd::RawFd {
                ::std::os::fd::AsRawFd::as_raw_fd(self.io.get_ref())
            }
        }

        /// For socket options rt has no method for:
        /// `socket2::SockRef::from(&stream)`.
        impl ::std::os::fd::AsFd for $Stream {
            fn as_fd(&self) -> ::std::os::fd::BorrowedFd<'_> {
                ::std::os::fd::AsFd::as_fd(self.io.get_ref())
            }
        }

        impl ::std::fmt::Debug for $Stream {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.debug_struct(stringify!($Stream))
                    .field("local_addr", &self.local_addr().ok())
                    .field("peer_addr", &self.peer_addr().ok())
                    .finish()
            }
        }
    };
}

pub(crate) use stream_common;
