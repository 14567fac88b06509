//! The readiness and `&self` I/O methods that
//! [`TcpStream`](crate::net::TcpStream) and
//! [`UnixStream`](crate::net::UnixStream) share, with one body each over
//! the stream's `registered()` I/O (its registration's named operations,
//! or `TcpStream`'s dispatch of the same names). Each type's file invokes the
//! macro inside its `impl` block with each method's `# Examples` section;
//! where a method's description differs between the types, the
//! invocation gives its whole text before `# Examples` too, and the macro
//! adds the heading. The bodies the datagram types share as well
//! (`ready`, `readable`, `writable`, the `poll_*_ready` pair, `try_io`,
//! `async_io`) come from `registered_io.rs`:
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

macro_rules! stream_io {
    ($( $(#[$about:meta])* $method:ident { $(#[$example:meta])* } )*) => {$(
        crate::net::stream_io::stream_io! {
            @method $method [$(#[$about])*] [$(#[$example])*]
        }
    )*};

    // The methods whose description differs between the types.
    (@method ready [$($about:tt)+] [$($example:tt)*]) => {
        crate::net::registered_io::registered_io! {
            ready
            $($about)+
            #[doc = ""]
            #[doc = "# Examples"]
            #[doc = ""]
            $($example)*
        }
    };
    (@method poll_read_ready [$($about:tt)+] [$($example:tt)*]) => {
        crate::net::registered_io::registered_io! {
            poll_ready poll_read_ready, Read
            $($about)+
            #[doc = ""]
            #[doc = "# Examples"]
            #[doc = ""]
            $($example)*
        }
    };
    (@method poll_write_ready [$($about:tt)+] [$($example:tt)*]) => {
        crate::net::registered_io::registered_io! {
            poll_ready poll_write_ready, Write
            $($about)+
            #[doc = ""]
            #[doc = "# Examples"]
            #[doc = ""]
            $($example)*
        }
    };
    (@method try_read [$($about:tt)+] [$($example:tt)*]) => {
        $($about)+
        #[doc = ""]
        #[doc = "# Examples"]
        #[doc = ""]
        $($example)*
        pub fn try_read(&self, buf: &mut [u8]) -> ::std::io::Result<usize> {
            self.registered().try_read(buf)
        }
    };
    (@method try_io [$($about:tt)+] [$($example:tt)*]) => {
        crate::net::registered_io::registered_io! {
            try_io
            $($about)+
            #[doc = ""]
            #[doc = "# Examples"]
            #[doc = ""]
            $($example)*
        }
    };


    // The methods documented alike for both types.
    (@method readable [] [$($example:tt)*]) => {
        crate::net::registered_io::registered_io! {
            readable
            #[doc = crate::net::registered_io::doc_text!(
                [
                    "Waits until the stream is readable (data, end-of-file or an error).",
                    "Any number of tasks may wait at once; readiness wakes them all."
                ],
                errors: "Fails once the runtime's I/O driver has shut down."
            )]
            #[doc = ""]
            $($example)*
        }
    };
    (@method writable [] [$($example:tt)*]) => {
        crate::net::registered_io::registered_io! {
            writable
            #[doc = crate::net::registered_io::doc_text!(
                [
                    "Waits until the stream is writable.",
                    "Any number of tasks may wait at once; readiness wakes them all."
                ],
                errors: "Fails once the runtime's I/O driver has shut down."
            )]
            #[doc = ""]
            $($example)*
        }
    };
    (@method try_read_buf [] [$($example:tt)*]) => {
        #[doc = crate::net::registered_io::doc_text!(
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
            self.registered().try_read_buf(buf)
        }
    };
    (@method try_write [] [$($example:tt)*]) => {
        #[doc = crate::net::registered_io::doc_text!(
            ["Writes once without waiting."],
            errors: "`WouldBlock` if the socket buffer is full (or writability was not \
                     reported yet), or the OS error of `write`."
        )]
        #[doc = ""]
        $($example)*
        pub fn try_write(&self, buf: &[u8]) -> ::std::io::Result<usize> {
            self.registered().try_write(buf)
        }
    };
    (@method try_read_vectored [] [$($example:tt)*]) => {
        #[doc = crate::net::registered_io::doc_text!(
            ["Reads once without waiting, into several buffers (`readv`)."],
            errors: "`WouldBlock` if no data is ready, or the OS error of `readv`."
        )]
        #[doc = ""]
        $($example)*
        pub fn try_read_vectored(
            &self,
            bufs: &mut [::std::io::IoSliceMut<'_>],
        ) -> ::std::io::Result<usize> {
            self.registered().try_read_vectored(bufs)
        }
    };
    (@method try_write_vectored [] [$($example:tt)*]) => {
        #[doc = crate::net::registered_io::doc_text!(
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
            self.registered().try_write_vectored(bufs)
        }
    };
    (@method async_io [] [$($example:tt)*]) => {
        crate::net::registered_io::registered_io! { async_io $($example)* }
    };

}

pub(crate) use stream_io;
