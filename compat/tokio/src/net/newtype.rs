//! The parts every socket newtype shares: `From` both ways to rt's type,
//! inherent methods forwarding to rt's whose shape is already tokio's
//! (addresses, options, `readable`/`writable`/`ready`, `try_*`,
//! `async_io`, ...: [`forward!`], so tokio's path syntax works too),
//! `AsRawFd`/`AsFd`, and for streams tokio's `AsyncRead` (straight into
//! the `ReadBuf`'s uninitialised part, through rt's `poll_read_uninit`)
//! and `AsyncWrite` (rt's futures-io writes; `poll_shutdown` shuts the
//! write side down).

/// `From` both ways, `AsRawFd`, `AsFd` and `Debug` for
/// `$Type { inner: $Rt }`.
macro_rules! socket_newtype {
    ($Type:ident, $Rt:ty) => {
        impl From<$Rt> for $Type {
            fn from(inner: $Rt) -> $Type {
                $Type { inner }
            }
        }

        impl From<$Type> for $Rt {
            fn from(socket: $Type) -> $Rt {
                socket.inner
            }
        }

        impl ::std::os::fd::AsRawFd for $Type {
            fn as_raw_fd(&self) -> ::std::os::fd::RawFd {
                ::std::os::fd::AsRawFd::as_raw_fd(&self.inner)
            }
        }

        impl ::std::os::fd::AsFd for $Type {
            fn as_fd(&self) -> ::std::os::fd::BorrowedFd<'_> {
                ::std::os::fd::AsFd::as_fd(&self.inner)
            }
        }

        impl ::std::fmt::Debug for $Type {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                ::std::fmt::Debug::fmt(&self.inner, f)
            }
        }
    };
}

/// For a socket not yet bound, connected or listening (`TcpSocket`,
/// `UnixSocket`), beside [`socket_newtype!`]: `Deref` to rt's, whose
/// option methods have tokio's shape, and descriptor ownership both ways
/// (`IntoRawFd`, `FromRawFd`), as tokio's have.
macro_rules! configurable_socket {
    ($Type:ident, $Rt:ty) => {
        /// rt's option methods, whose shape is tokio's.
        impl ::std::ops::Deref for $Type {
            type Target = $Rt;

            fn deref(&self) -> &$Rt {
                &self.inner
            }
        }

        impl ::std::os::fd::IntoRawFd for $Type {
            fn into_raw_fd(self) -> ::std::os::fd::RawFd {
                ::std::os::fd::IntoRawFd::into_raw_fd(self.inner)
            }
        }

        impl ::std::os::fd::FromRawFd for $Type {
            /// # Safety
            ///
            /// `fd` must be an open socket of this kind that nothing else
            /// owns.
            unsafe fn from_raw_fd(fd: ::std::os::fd::RawFd) -> $Type {
                // SAFETY: the caller's contract, passed on.
                $Type::from(unsafe { <$Rt as ::std::os::fd::FromRawFd>::from_raw_fd(fd) })
            }
        }
    };
}

/// tokio's `AsyncRead` for `$Type`, reading through `|$s| $stream` (an rt
/// stream with `poll_read_uninit`), and `AsyncWrite` through `$Type`'s
/// `inner` (futures-io's `AsyncWrite`), vectored.
macro_rules! stream_io {
    (read: $Read:ty => |$s:ident| $stream:expr) => {
        impl $crate::io::AsyncRead for $Read {
            fn poll_read(
                self: ::std::pin::Pin<&mut Self>,
                cx: &mut ::std::task::Context<'_>,
                buf: &mut $crate::io::ReadBuf<'_>,
            ) -> ::std::task::Poll<::std::io::Result<()>> {
                let $s = &*self;
                $crate::io::forward::poll_read_uninit(buf, |unfilled| {
                    $stream.poll_read_uninit(cx, unfilled)
                })
            }
        }
    };
    (write: $Write:ty) => {
        $crate::io::forward::forward_async_write!($Write, inner, vectored: true);
    };
}

/// Inherent methods that forward to `self.inner`'s method of the same name
/// and arguments (awaiting it for `async fn`s), so tokio's path syntax
/// (`TcpStream::peek(&s, buf)`) works, not only method calls. Generics go in brackets: `fn try_read_buf[B: BufMut](...)`.
macro_rules! forward {
    ($(
        $(#[$m:meta])*
        $(@$async:ident)? fn $name:ident $([$($g:tt)*])? (&self $(, $arg:ident: $ty:ty)* $(,)?) -> $ret:ty;
    )*) => {$(
        $crate::net::newtype::forward!(@one [$(#[$m])*] [$($async)?] $name [$($($g)*)?] [$($arg: $ty),*] $ret);
    )*};
    (@one [$($m:tt)*] [] $name:ident [$($g:tt)*] [$($arg:ident: $ty:ty),*] $ret:ty) => {
        $($m)*
        pub fn $name<$($g)*>(&self $(, $arg: $ty)*) -> $ret {
            self.inner.$name($($arg),*)
        }
    };
    (@one [$($m:tt)*] [async] $name:ident [$($g:tt)*] [$($arg:ident: $ty:ty),*] $ret:ty) => {
        $($m)*
        #[track_caller]
        pub fn $name<$($g)*>(&self $(, $arg: $ty)*) -> impl std::future::Future<Output = $ret> {
            self.inner.$name($($arg),*)
        }
    };
}

/// The methods a connected stream (`TcpStream`, `UnixStream`) shares with
/// tokio's: addresses, readiness, `try_*` I/O, `try_io`/`async_io`.
macro_rules! stream_methods {
    ($Addr:ty) => {
        $crate::net::newtype::forward! {
            /// The local address.
            fn local_addr(&self) -> ::std::io::Result<$Addr>;
            /// The peer's address.
            fn peer_addr(&self) -> ::std::io::Result<$Addr>;
            /// Takes the socket's pending error (`SO_ERROR`).
            fn take_error(&self) -> ::std::io::Result<Option<::std::io::Error>>;
            /// Waits for any of `interest`'s readiness.
            @async fn ready(&self, interest: $crate::io::Interest) -> ::std::io::Result<$crate::io::Ready>;
            /// Waits until the stream is readable.
            @async fn readable(&self) -> ::std::io::Result<()>;
            /// Polls for read readiness.
            fn poll_read_ready(&self, cx: &mut ::std::task::Context<'_>) -> ::std::task::Poll<::std::io::Result<()>>;
            /// Reads without waiting (`WouldBlock` when nothing is ready).
            fn try_read(&self, buf: &mut [u8]) -> ::std::io::Result<usize>;
            /// Reads into several buffers without waiting.
            fn try_read_vectored(&self, bufs: &mut [::std::io::IoSliceMut<'_>]) -> ::std::io::Result<usize>;
            /// Reads into a `BufMut`'s spare capacity without waiting.
            #[cfg(feature = "bytes")]
            fn try_read_buf[B: ::bytes::BufMut](&self, buf: &mut B) -> ::std::io::Result<usize>;
            /// Waits until the stream is writable.
            @async fn writable(&self) -> ::std::io::Result<()>;
            /// Polls for write readiness.
            fn poll_write_ready(&self, cx: &mut ::std::task::Context<'_>) -> ::std::task::Poll<::std::io::Result<()>>;
            /// Writes without waiting (`WouldBlock` when the socket is full).
            fn try_write(&self, buf: &[u8]) -> ::std::io::Result<usize>;
            /// Writes several buffers without waiting.
            fn try_write_vectored(&self, bufs: &[::std::io::IoSlice<'_>]) -> ::std::io::Result<usize>;
            /// Runs `f` on the socket if `interest` is ready, clearing readiness on `WouldBlock`.
            fn try_io[R](&self, interest: $crate::io::Interest, f: impl FnOnce() -> ::std::io::Result<R>) -> ::std::io::Result<R>;
            /// Runs `f` each time `interest` is ready until it does not return `WouldBlock`.
            @async fn async_io[R](&self, interest: $crate::io::Interest, f: impl FnMut() -> ::std::io::Result<R>) -> ::std::io::Result<R>;
        }
    };
}

/// The methods a datagram socket (`UdpSocket`, `UnixDatagram`) shares with
/// tokio's: addresses, readiness, sends and receives into slices or
/// `BufMut`s, `try_io`/`async_io`.
macro_rules! datagram_methods {
    ($Addr:ty) => {
        $crate::net::newtype::forward! {
            /// The local address.
            fn local_addr(&self) -> ::std::io::Result<$Addr>;
            /// The connected peer's address.
            fn peer_addr(&self) -> ::std::io::Result<$Addr>;
            /// Takes the socket's pending error (`SO_ERROR`).
            fn take_error(&self) -> ::std::io::Result<Option<::std::io::Error>>;
            /// Waits for any of `interest`'s readiness.
            @async fn ready(&self, interest: $crate::io::Interest) -> ::std::io::Result<$crate::io::Ready>;
            /// Waits until the socket is writable.
            @async fn writable(&self) -> ::std::io::Result<()>;
            /// Polls for send readiness.
            fn poll_send_ready(&self, cx: &mut ::std::task::Context<'_>) -> ::std::task::Poll<::std::io::Result<()>>;
            /// Waits until the socket is readable.
            @async fn readable(&self) -> ::std::io::Result<()>;
            /// Polls for receive readiness.
            fn poll_recv_ready(&self, cx: &mut ::std::task::Context<'_>) -> ::std::task::Poll<::std::io::Result<()>>;
            /// Sends a datagram to the connected peer.
            @async fn send(&self, buf: &[u8]) -> ::std::io::Result<usize>;
            /// Polls a send to the connected peer.
            fn poll_send(&self, cx: &mut ::std::task::Context<'_>, buf: &[u8]) -> ::std::task::Poll<::std::io::Result<usize>>;
            /// Sends to the connected peer without waiting.
            fn try_send(&self, buf: &[u8]) -> ::std::io::Result<usize>;
            /// Receives a datagram from the connected peer.
            @async fn recv(&self, buf: &mut [u8]) -> ::std::io::Result<usize>;
            /// Receives from the connected peer without waiting.
            fn try_recv(&self, buf: &mut [u8]) -> ::std::io::Result<usize>;
            /// Receives into a `BufMut`'s spare capacity without waiting.
            #[cfg(feature = "bytes")]
            fn try_recv_buf[B: ::bytes::BufMut](&self, buf: &mut B) -> ::std::io::Result<usize>;
            /// Receives into a `BufMut`'s spare capacity.
            #[cfg(feature = "bytes")]
            @async fn recv_buf[B: ::bytes::BufMut](&self, buf: &mut B) -> ::std::io::Result<usize>;
            /// Receives a datagram and its sender into a `BufMut` without waiting.
            #[cfg(feature = "bytes")]
            fn try_recv_buf_from[B: ::bytes::BufMut](&self, buf: &mut B) -> ::std::io::Result<(usize, $Addr)>;
            /// Receives a datagram and its sender into a `BufMut`.
            #[cfg(feature = "bytes")]
            @async fn recv_buf_from[B: ::bytes::BufMut](&self, buf: &mut B) -> ::std::io::Result<(usize, $Addr)>;
            /// Receives a datagram and its sender.
            @async fn recv_from(&self, buf: &mut [u8]) -> ::std::io::Result<(usize, $Addr)>;
            /// Receives a datagram and its sender without waiting.
            fn try_recv_from(&self, buf: &mut [u8]) -> ::std::io::Result<(usize, $Addr)>;
            /// Runs `f` on the socket if `interest` is ready, clearing readiness on `WouldBlock`.
            fn try_io[R](&self, interest: $crate::io::Interest, f: impl FnOnce() -> ::std::io::Result<R>) -> ::std::io::Result<R>;
            /// Runs `f` each time `interest` is ready until it does not return `WouldBlock`.
            @async fn async_io[R](&self, interest: $crate::io::Interest, f: impl FnMut() -> ::std::io::Result<R>) -> ::std::io::Result<R>;
        }
    };
}

pub(crate) use configurable_socket;
pub(crate) use datagram_methods;
pub(crate) use forward;
pub(crate) use socket_newtype;
pub(crate) use stream_io;
pub(crate) use stream_methods;
