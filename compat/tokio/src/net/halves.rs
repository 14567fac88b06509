//! The halves of a split stream, TCP's and Unix's alike: newtypes over
//! rt's halves (tokio's traits instead of futures-io's), `reunite`,
//! `forget` and `ReuniteError`.

/// Declares `ReadHalf`, `WriteHalf`, `OwnedReadHalf`, `OwnedWriteHalf` and
/// `ReuniteError` for `$Stream` over rt's halves in `$rt` (a module path).
///
/// What the borrowed and the owned half share (the read methods, the
/// write methods, `Debug`, `AsRef`) is written once and implemented for
/// each type of a list: `@impl_each [types] { items }` (inherent) and
/// `@impl_each [types] Trait, { items }`.
macro_rules! stream_halves {
    (@impl_each [$($Half:ty),*] $body:tt) => {$(
        impl $Half $body
    )*};
    (@impl_each [$($Half:ty),*] $Trait:path, $body:tt) => {$(
        impl $Trait for $Half $body
    )*};
    ($Stream:ident, $rt:path, $RtStream:ty, $Addr:ty) => {
        use $rt as rt_halves;

        /// The borrowed read half of a stream, from `split`. A newtype over
        /// rt's, for tokio's `AsyncRead`; `readable`, `try_read`, addresses,
        /// ... forward to rt's.
        pub struct ReadHalf<'a> {
            inner: rt_halves::ReadHalf<'a>,
        }

        /// The borrowed write half of a stream, from `split`; shutting it
        /// down shuts the stream's write side down. A newtype over rt's, for
        /// tokio's `AsyncWrite`.
        pub struct WriteHalf<'a> {
            inner: rt_halves::WriteHalf<'a>,
        }

        /// The owned read half of a stream, from `into_split`. A newtype
        /// over rt's, for tokio's `AsyncRead`.
        pub struct OwnedReadHalf {
            inner: rt_halves::OwnedReadHalf,
        }

        /// The owned write half of a stream, from `into_split`; dropping or
        /// shutting it down shuts the stream's write side down. A newtype
        /// over rt's, for tokio's `AsyncWrite`.
        pub struct OwnedWriteHalf {
            inner: rt_halves::OwnedWriteHalf,
        }

        /// The error of `reunite`: the two halves came from different
        /// streams. Both are handed back.
        #[derive(Debug)]
        pub struct ReuniteError(pub OwnedReadHalf, pub OwnedWriteHalf);

        impl ::std::fmt::Display for ReuniteError {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str("tried to reunite halves that are not from the same socket")
            }
        }

        impl ::std::error::Error for ReuniteError {}

        impl<'a> From<rt_halves::ReadHalf<'a>> for ReadHalf<'a> {
            fn from(inner: rt_halves::ReadHalf<'a>) -> ReadHalf<'a> {
                ReadHalf { inner }
            }
        }

        impl<'a> From<rt_halves::WriteHalf<'a>> for WriteHalf<'a> {
            fn from(inner: rt_halves::WriteHalf<'a>) -> WriteHalf<'a> {
                WriteHalf { inner }
            }
        }

        impl From<rt_halves::OwnedReadHalf> for OwnedReadHalf {
            fn from(inner: rt_halves::OwnedReadHalf) -> OwnedReadHalf {
                OwnedReadHalf { inner }
            }
        }

        impl From<OwnedReadHalf> for rt_halves::OwnedReadHalf {
            fn from(half: OwnedReadHalf) -> rt_halves::OwnedReadHalf {
                half.inner
            }
        }

        impl From<rt_halves::OwnedWriteHalf> for OwnedWriteHalf {
            fn from(inner: rt_halves::OwnedWriteHalf) -> OwnedWriteHalf {
                OwnedWriteHalf { inner }
            }
        }

        impl From<OwnedWriteHalf> for rt_halves::OwnedWriteHalf {
            fn from(half: OwnedWriteHalf) -> rt_halves::OwnedWriteHalf {
                half.inner
            }
        }

        $crate::net::halves::stream_halves!(@impl_each
            [ReadHalf<'_>, WriteHalf<'_>, OwnedReadHalf, OwnedWriteHalf]
            ::std::fmt::Debug, {
                fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                    ::std::fmt::Debug::fmt(&self.inner, f)
                }
            }
        );

        $crate::net::halves::stream_halves!(@impl_each
            [ReadHalf<'_>, WriteHalf<'_>, OwnedReadHalf, OwnedWriteHalf]
            AsRef<$RtStream>, {
                fn as_ref(&self) -> &$RtStream {
                    self.inner.as_ref()
                }
            }
        );

        $crate::net::halves::stream_halves!(@impl_each [ReadHalf<'_>, OwnedReadHalf] {
            $crate::net::newtype::forward! {
                /// Waits for any of `interest`'s readiness.
                @async fn ready(&self, interest: $crate::io::Interest) -> ::std::io::Result<$crate::io::Ready>;
                /// Waits until the stream is readable.
                @async fn readable(&self) -> ::std::io::Result<()>;
                /// Reads without waiting (`WouldBlock` when nothing is ready).
                fn try_read(&self, buf: &mut [u8]) -> ::std::io::Result<usize>;
                /// Reads into several buffers without waiting.
                fn try_read_vectored(&self, bufs: &mut [::std::io::IoSliceMut<'_>]) -> ::std::io::Result<usize>;
                /// Reads into a `BufMut`'s spare capacity without waiting.
                #[cfg(feature = "bytes")]
                fn try_read_buf[B: ::bytes::BufMut](&self, buf: &mut B) -> ::std::io::Result<usize>;
                /// The peer's address.
                fn peer_addr(&self) -> ::std::io::Result<$Addr>;
                /// The local address.
                fn local_addr(&self) -> ::std::io::Result<$Addr>;
            }
        });

        $crate::net::halves::stream_halves!(@impl_each [WriteHalf<'_>, OwnedWriteHalf] {
            $crate::net::newtype::forward! {
                /// Waits for any of `interest`'s readiness.
                @async fn ready(&self, interest: $crate::io::Interest) -> ::std::io::Result<$crate::io::Ready>;
                /// Waits until the stream is writable.
                @async fn writable(&self) -> ::std::io::Result<()>;
                /// Writes without waiting (`WouldBlock` when the socket is full).
                fn try_write(&self, buf: &[u8]) -> ::std::io::Result<usize>;
                /// Writes several buffers without waiting.
                fn try_write_vectored(&self, bufs: &[::std::io::IoSlice<'_>]) -> ::std::io::Result<usize>;
                /// The peer's address.
                fn peer_addr(&self) -> ::std::io::Result<$Addr>;
                /// The local address.
                fn local_addr(&self) -> ::std::io::Result<$Addr>;
            }
        });

        impl OwnedReadHalf {
            /// Puts the stream back together with its write half.
            ///
            /// # Errors
            ///
            /// [`ReuniteError`], with both halves, if `other` is the write
            /// half of another stream.
            pub fn reunite(self, other: OwnedWriteHalf) -> Result<$Stream, ReuniteError> {
                self.inner
                    .reunite(other.inner)
                    .map($Stream::from)
                    .map_err(|e| ReuniteError(e.0.into(), e.1.into()))
            }
        }

        impl OwnedWriteHalf {
            /// Puts the stream back together with its read half.
            ///
            /// # Errors
            ///
            /// [`ReuniteError`], with both halves, if `other` is the read
            /// half of another stream.
            pub fn reunite(self, other: OwnedReadHalf) -> Result<$Stream, ReuniteError> {
                other.reunite(self)
            }

            /// Drops the half without shutting the write side down.
            pub fn forget(self) {
                self.inner.forget()
            }
        }

        $crate::net::newtype::stream_io!(read: ReadHalf<'_> => |s| ::std::convert::AsRef::<$RtStream>::as_ref(&s.inner));
        $crate::net::newtype::stream_io!(read: OwnedReadHalf => |s| ::std::convert::AsRef::<$RtStream>::as_ref(&s.inner));
        $crate::net::newtype::stream_io!(write: WriteHalf<'_>);
        $crate::net::newtype::stream_io!(write: OwnedWriteHalf);
    };
}

pub(crate) use stream_halves;
