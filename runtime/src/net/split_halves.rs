//! The types of a split stream's halves, for TCP and Unix-domain streams
//! alike: `ReadHalf` and `WriteHalf` (borrowed, from `split`),
//! `OwnedReadHalf` and `OwnedWriteHalf` (from `into_split`), putting the
//! owned halves back together (`reunite`, with its `ReuniteError`), and
//! `forget`. Dropping an `OwnedWriteHalf` shuts down the write side unless
//! `reunite` or `forget` took it. Their readiness surface and trait impls
//! come from `net/halves.rs`.
//!
//! The documentation is shared but for each item's `# Examples` section,
//! which the invocation gives:
//!
//! ```text
//! split_halves! {
//!     stream: TcpStream;
//!     ReadHalf { /// examples }
//!     ...
//! }
//! ```

/// An item's doc text up to its `# Examples` heading: the paragraphs given
/// (one of them may be a `# Errors` section).
macro_rules! doc_text {
    ($($paragraph:expr),+) => {
        concat!($($paragraph, "\n\n",)+ "# Examples")
    };
}

macro_rules! split_halves {
    (
        stream: $Stream:ident;
        ReadHalf { $(#[$read:meta])* }
        WriteHalf { $(#[$write:meta])* }
        OwnedReadHalf { $(#[$owned_read:meta])* }
        OwnedWriteHalf { $(#[$owned_write:meta])* }
        ReuniteError { $(#[$error:meta])* }
        OwnedReadHalf::reunite { $(#[$read_reunite:meta])* }
        OwnedWriteHalf::reunite { $(#[$write_reunite:meta])* }
        OwnedWriteHalf::forget { $(#[$forget:meta])* }
    ) => {
        #[doc = crate::net::split_halves::doc_text!(
            concat!("The read half of [`", stringify!($Stream), "::split`].")
        )]
        #[doc = ""]
        $(#[$read])*
        pub struct ReadHalf<'a>(&'a $Stream);

        #[doc = crate::net::split_halves::doc_text!(concat!(
            "The write half of [`", stringify!($Stream), "::split`]. Closing it shuts ",
            "down the write side of the stream."
        ))]
        #[doc = ""]
        $(#[$write])*
        pub struct WriteHalf<'a>(&'a $Stream);

        #[doc = crate::net::split_halves::doc_text!(
            concat!("The read half of [`", stringify!($Stream), "::into_split`].")
        )]
        #[doc = ""]
        $(#[$owned_read])*
        pub struct OwnedReadHalf {
            inner: crate::loom::sync::Arc<$Stream>,
        }

        #[doc = crate::net::split_halves::doc_text!(concat!(
            "The write half of [`", stringify!($Stream), "::into_split`]. Dropping or ",
            "closing it shuts down the write side, so the peer reads end-of-file."
        ))]
        #[doc = ""]
        $(#[$owned_write])*
        pub struct OwnedWriteHalf {
            inner: crate::loom::sync::Arc<$Stream>,
            /// Cleared by `reunite` and `forget`: the stream lives on.
            shutdown_on_drop: bool,
        }

        #[doc = crate::net::split_halves::doc_text!(
            "The error of [`OwnedReadHalf::reunite`] and [`OwnedWriteHalf::reunite`]: \
             the two halves came from different streams. Both are handed back."
        )]
        #[doc = ""]
        $(#[$error])*
        pub struct ReuniteError(pub OwnedReadHalf, pub OwnedWriteHalf);

        impl ::std::fmt::Debug for ReuniteError {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.debug_tuple("ReuniteError")
                    .field(&self.0)
                    .field(&self.1)
                    .finish()
            }
        }

        impl ::std::fmt::Display for ReuniteError {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(concat!(
                    "tried to reunite halves that are not from the same ",
                    stringify!($Stream)
                ))
            }
        }

        impl ::std::error::Error for ReuniteError {}

        /// `read` and `write` put back together, if they are the halves of
        /// one stream.
        fn reunite(
            read: OwnedReadHalf,
            mut write: OwnedWriteHalf,
        ) -> Result<$Stream, ReuniteError> {
            if !crate::loom::sync::Arc::ptr_eq(&read.inner, &write.inner) {
                return Err(ReuniteError(read, write));
            }
            write.shutdown_on_drop = false;
            drop(write);
            Ok(crate::loom::sync::Arc::try_unwrap(read.inner).unwrap_or_else(|_| {
                unreachable!("the two halves hold the only references to their stream")
            }))
        }

        impl<'a> ReadHalf<'a> {
            pub(crate) fn new(stream: &'a $Stream) -> ReadHalf<'a> {
                ReadHalf(stream)
            }
        }

        impl<'a> WriteHalf<'a> {
            pub(crate) fn new(stream: &'a $Stream) -> WriteHalf<'a> {
                WriteHalf(stream)
            }
        }

        impl OwnedReadHalf {
            pub(crate) fn new(inner: crate::loom::sync::Arc<$Stream>) -> OwnedReadHalf {
                OwnedReadHalf { inner }
            }

            #[doc = crate::net::split_halves::doc_text!(
                "Puts the stream back together from its two halves.",
                "# Errors\n\n[`ReuniteError`], holding both halves, if `other` is the \
                 write half of another stream."
            )]
            #[doc = ""]
            $(#[$read_reunite])*
            pub fn reunite(self, other: OwnedWriteHalf) -> Result<$Stream, ReuniteError> {
                reunite(self, other)
            }
        }

        impl OwnedWriteHalf {
            pub(crate) fn new(inner: crate::loom::sync::Arc<$Stream>) -> OwnedWriteHalf {
                OwnedWriteHalf {
                    inner,
                    shutdown_on_drop: true,
                }
            }

            #[doc = crate::net::split_halves::doc_text!(
                "Puts the stream back together from its two halves.",
                "# Errors\n\n[`ReuniteError`], holding both halves, if `other` is the \
                 read half of another stream."
            )]
            #[doc = ""]
            $(#[$write_reunite])*
            pub fn reunite(self, other: OwnedReadHalf) -> Result<$Stream, ReuniteError> {
                reunite(other, self)
            }

            #[doc = crate::net::split_halves::doc_text!(
                "Drops the write half without shutting down the write side: the stream \
                 stays open for writing until the read half is dropped too (which closes \
                 the socket)."
            )]
            #[doc = ""]
            $(#[$forget])*
            pub fn forget(mut self) {
                self.shutdown_on_drop = false;
            }
        }

        impl Drop for OwnedWriteHalf {
            fn drop(&mut self) {
                if self.shutdown_on_drop {
                    // Like closing a socket, dropping cannot report a
                    // failure; the peer learns of it from the connection
                    // itself.
                    let _ = self.inner.shutdown_write();
                }
            }
        }
    };
}

pub(crate) use doc_text;
pub(crate) use split_halves;
