//! The readiness and `&self` I/O methods that
//! [`TcpStream`](crate::net::TcpStream) and
//! [`UnixStream`](crate::net::UnixStream) share, with one body each over
//! the stream's `registered()` mio socket. Each type's file invokes the
//! macro inside its `impl` block with each method's `# Examples` section;
//! where a method's description differs between the types, the
//! invocation gives its whole text before `# Examples` too, and the macro
//! adds the heading:
//!
//! ```text
//! stream_io! {
//!     /// A description and `# Errors`, where they differ.
//!     method_name {
//!         /// The doc example(s).
//!     }
//!     ...
//! }
//! ```

/// The doc text of a method up to its `# Examples` heading: the
/// paragraphs given, then `# Errors` and its text.
macro_rules! doc_text {
    ([$($paragraph:expr),*], errors: $errors:expr) => {
        concat!($($paragraph, "\n\n",)* "# Errors\n\n", $errors, "\n\n# Examples")
    };
}

macro_rules! stream_io {
    ($( $(#[$about:meta])* $method:ident { $(#[$example:meta])* } )*) => {$(
        crate::net::stream_io::stream_io! {
            @method $method [$(#[$about])*] [$(#[$example])*]
        }
    )*};

    // The methods whose description differs between the types.
    (@method ready [$($about:tt)+] [$($example:tt)*]) => {
        $($about)+
        #[doc = ""]
        #[doc = "# Examples"]
        #[doc = ""]
        $($example)*
        pub async fn ready(
            &self,
            interest: ::rt_reactor::Interest,
        ) -> ::std::io::Result<::rt_reactor::Ready> {
            self.registered().ready_for(interest).await
        }
    };
    (@method poll_read_ready [$($about:tt)+] [$($example:tt)*]) => {
        $($about)+
        #[doc = ""]
        #[doc = "# Examples"]
        #[doc = ""]
        $($example)*
        pub fn poll_read_ready(
            &self,
            cx: &mut ::std::task::Context<'_>,
        ) -> ::std::task::Poll<::std::io::Result<()>> {
            self.registered()
                .poll_ready(cx, ::rt_reactor::Direction::Read)
                .map_ok(drop)
        }
    };
    (@method poll_write_ready [$($about:tt)+] [$($example:tt)*]) => {
        $($about)+
        #[doc = ""]
        #[doc = "# Examples"]
        #[doc = ""]
        $($example)*
        pub fn poll_write_ready(
            &self,
            cx: &mut ::std::task::Context<'_>,
        ) -> ::std::task::Poll<::std::io::Result<()>> {
            self.registered()
                .poll_ready(cx, ::rt_reactor::Direction::Write)
                .map_ok(drop)
        }
    };
    (@method try_read [$($about:tt)+] [$($example:tt)*]) => {
        $($about)+
        #[doc = ""]
        #[doc = "# Examples"]
        #[doc = ""]
        $($example)*
        pub fn try_read(&self, buf: &mut [u8]) -> ::std::io::Result<usize> {
            self.registered()
                .try_io(::rt_reactor::Direction::Read, |mut sys| {
                    ::std::io::Read::read(&mut sys, buf)
                })
        }
    };
    (@method try_io [$($about:tt)+] [$($example:tt)*]) => {
        $($about)+
        #[doc = ""]
        #[doc = "# Examples"]
        #[doc = ""]
        $($example)*
        pub fn try_io<R>(
            &self,
            interest: ::rt_reactor::Interest,
            op: impl FnOnce() -> ::std::io::Result<R>,
        ) -> ::std::io::Result<R> {
            self.registered().try_io_for(interest, |_| op())
        }
    };

    // The methods documented alike for both types.
    (@method readable [] [$($example:tt)*]) => {
        #[doc = crate::net::stream_io::doc_text!(
            [
                "Waits until the stream is readable (data, end-of-file or an error).",
                "Any number of tasks may wait at once; readiness wakes them all."
            ],
            errors: "Fails once the runtime's I/O driver has shut down."
        )]
        #[doc = ""]
        $($example)*
        pub async fn readable(&self) -> ::std::io::Result<()> {
            self.registered().ready(::rt_reactor::Direction::Read).await.map(drop)
        }
    };
    (@method writable [] [$($example:tt)*]) => {
        #[doc = crate::net::stream_io::doc_text!(
            [
                "Waits until the stream is writable.",
                "Any number of tasks may wait at once; readiness wakes them all."
            ],
            errors: "Fails once the runtime's I/O driver has shut down."
        )]
        #[doc = ""]
        $($example)*
        pub async fn writable(&self) -> ::std::io::Result<()> {
            self.registered().ready(::rt_reactor::Direction::Write).await.map(drop)
        }
    };
    (@method try_read_buf [] [$($example:tt)*]) => {
        #[doc = crate::net::stream_io::doc_text!(
            [
                "Reads once without waiting (feature `bytes`), straight into the spare \
                 capacity of `buf` (its `chunk_mut`: a full `BytesMut` or `Vec<u8>` grows \
                 by 64 bytes first), which is advanced past the bytes read; returns how \
                 many. `Ok(0)` is end-of-file (or no room in `buf`). The kernel writes \
                 into the uninitialised capacity: nothing is zeroed first."
            ],
            errors: "`WouldBlock` if no data is ready (or readiness was not reported yet), \
                     or the OS error of `recv`; `buf` is then left as it was."
        )]
        #[doc = ""]
        $($example)*
        #[cfg(feature = "bytes")]
        pub fn try_read_buf<B: ::bytes::BufMut + ?Sized>(
            &self,
            buf: &mut B,
        ) -> ::std::io::Result<usize> {
            self.registered()
                .try_io(::rt_reactor::Direction::Read, |sys| {
                    crate::io::sys::recv_buf(::std::os::fd::AsRawFd::as_raw_fd(sys), buf)
                })
        }
    };
    (@method try_write [] [$($example:tt)*]) => {
        #[doc = crate::net::stream_io::doc_text!(
            ["Writes once without waiting."],
            errors: "`WouldBlock` if the socket buffer is full (or writability was not \
                     reported yet), or the OS error of `write`."
        )]
        #[doc = ""]
        $($example)*
        pub fn try_write(&self, buf: &[u8]) -> ::std::io::Result<usize> {
            self.registered()
                .try_io(::rt_reactor::Direction::Write, |mut sys| {
                    ::std::io::Write::write(&mut sys, buf)
                })
        }
    };
    (@method try_read_vectored [] [$($example:tt)*]) => {
        #[doc = crate::net::stream_io::doc_text!(
            ["Reads once without waiting, into several buffers (`readv`)."],
            errors: "`WouldBlock` if no data is ready, or the OS error of `readv`."
        )]
        #[doc = ""]
        $($example)*
        pub fn try_read_vectored(
            &self,
            bufs: &mut [::std::io::IoSliceMut<'_>],
        ) -> ::std::io::Result<usize> {
            self.registered()
                .try_io(::rt_reactor::Direction::Read, |mut sys| {
                    ::std::io::Read::read_vectored(&mut sys, bufs)
                })
        }
    };
    (@method try_write_vectored [] [$($example:tt)*]) => {
        #[doc = crate::net::stream_io::doc_text!(
            ["Writes once without waiting, from several buffers (`writev`)."],
            errors: "`WouldBlock` if the socket buffer is full (or writability was not \
                     reported yet), or the OS error of `writev`."
        )]
        #[doc = ""]
        $($example)*
        pub fn try_write_vectored(
            &self,
            bufs: &[::std::io::IoSlice<'_>],
        ) -> ::std::io::Result<usize> {
            self.registered()
                .try_io(::rt_reactor::Direction::Write, |mut sys| {
                    ::std::io::Write::write_vectored(&mut sys, bufs)
                })
        }
    };
    (@method async_io [] [$($example:tt)*]) => {
        #[doc = crate::net::stream_io::doc_text!(
            [
                "Waits for the readiness of `interest` and runs `op`, again and again \
                 until it does not fail with `WouldBlock` (each `WouldBlock` clears \
                 the readiness, so the next wait blocks).",
                "Any number of tasks may wait at once, each in a place of its own."
            ],
            errors: "`op`'s error other than `WouldBlock`, or the I/O driver's shutdown."
        )]
        #[doc = ""]
        $($example)*
        pub async fn async_io<R>(
            &self,
            interest: ::rt_reactor::Interest,
            mut op: impl FnMut() -> ::std::io::Result<R>,
        ) -> ::std::io::Result<R> {
            self.registered().async_io_for(interest, |_| op()).await
        }
    };
}

pub(crate) use doc_text;
pub(crate) use stream_io;
