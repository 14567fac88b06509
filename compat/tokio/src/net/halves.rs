//! The halves of a split stream, TCP's and Unix's alike: newtypes over
//! rt's halves (tokio's traits instead of futures-io's), `reunite`,
//! `forget` and `ReuniteError`.

/// Declares `ReadHalf`, `WriteHalf`, `OwnedReadHalf`, `OwnedWriteHalf` and
/// `ReuniteError` for `$Stream` over rt's halves in `$rt` (a module path).
macro_rules! stream_halves {
    ($Stream:ident, $rt:path, $RtStream:ty) => {
        use $rt as rt_halves;

        /// The borrowed read half of a stream, from `split`. A newtype over
        /// rt's, for tokio's `AsyncRead`; rt's methods (`readable`,
        /// `try_read`, addresses, ...) through `Deref`.
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

        impl<'a> ::std::ops::Deref for ReadHalf<'a> {
            type Target = rt_halves::ReadHalf<'a>;
            fn deref(&self) -> &rt_halves::ReadHalf<'a> {
                &self.inner
            }
        }

        impl<'a> ::std::ops::Deref for WriteHalf<'a> {
            type Target = rt_halves::WriteHalf<'a>;
            fn deref(&self) -> &rt_halves::WriteHalf<'a> {
                &self.inner
            }
        }

        impl ::std::fmt::Debug for ReadHalf<'_> {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                ::std::fmt::Debug::fmt(&self.inner, f)
            }
        }

        impl ::std::fmt::Debug for WriteHalf<'_> {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                ::std::fmt::Debug::fmt(&self.inner, f)
            }
        }

        impl AsRef<$RtStream> for ReadHalf<'_> {
            fn as_ref(&self) -> &$RtStream {
                self.inner.as_ref()
            }
        }

        impl AsRef<$RtStream> for WriteHalf<'_> {
            fn as_ref(&self) -> &$RtStream {
                self.inner.as_ref()
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

        impl ::std::ops::Deref for OwnedReadHalf {
            type Target = rt_halves::OwnedReadHalf;
            fn deref(&self) -> &rt_halves::OwnedReadHalf {
                &self.inner
            }
        }

        impl ::std::ops::Deref for OwnedWriteHalf {
            type Target = rt_halves::OwnedWriteHalf;
            fn deref(&self) -> &rt_halves::OwnedWriteHalf {
                &self.inner
            }
        }

        impl ::std::fmt::Debug for OwnedReadHalf {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                ::std::fmt::Debug::fmt(&self.inner, f)
            }
        }

        impl ::std::fmt::Debug for OwnedWriteHalf {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                ::std::fmt::Debug::fmt(&self.inner, f)
            }
        }

        impl AsRef<$RtStream> for OwnedReadHalf {
            fn as_ref(&self) -> &$RtStream {
                self.inner.as_ref()
            }
        }

        impl AsRef<$RtStream> for OwnedWriteHalf {
            fn as_ref(&self) -> &$RtStream {
                self.inner.as_ref()
            }
        }

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
