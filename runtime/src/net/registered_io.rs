//! The readiness methods every socket type of `net` has with the same
//! body over its `registered()` registration: `ready`, `readable`,
//! `writable`, the `poll_*_ready` pair, `try_io` and `async_io`. The type
//! macros (`datagram_io.rs`, `stream_io.rs`) pass each method's doc
//! attributes; `async_io`, documented alike everywhere, brings its own
//! text and takes only the examples. And `AsyncRead` / `AsyncWrite` for
//! the streams and for the halves of a split stream alike.

/// The doc text of a method up to its `# Examples` heading: the
/// paragraphs given, then `# Errors` and its text.
macro_rules! doc_text {
    ([$($paragraph:expr),*], errors: $errors:expr) => {
        concat!($($paragraph, "\n\n",)* "# Errors\n\n", $errors, "\n\n# Examples")
    };
}

macro_rules! registered_io {
    (ready $($doc:tt)*) => {
        $($doc)*
        pub async fn ready(
            &self,
            interest: ::rt_reactor::Interest,
        ) -> ::std::io::Result<::rt_reactor::Ready> {
            self.registered().ready_for(interest).await
        }
    };
    (readable $($doc:tt)*) => {
        $($doc)*
        #[track_caller]
        pub fn readable(&self) -> impl ::std::future::Future<Output = ::std::io::Result<()>> {
            let site = crate::task::waits::Site::here("readable");
            async move {
                self.registered()
                    .ready_as(::rt_reactor::Direction::Read, site)
                    .await
                    .map(drop)
            }
        }
    };
    (writable $($doc:tt)*) => {
        $($doc)*
        #[track_caller]
        pub fn writable(&self) -> impl ::std::future::Future<Output = ::std::io::Result<()>> {
            let site = crate::task::waits::Site::here("writable");
            async move {
                self.registered()
                    .ready_as(::rt_reactor::Direction::Write, site)
                    .await
                    .map(drop)
            }
        }
    };
    // `poll_recv_ready` / `poll_read_ready` (`Read`) and their write twins.
    (poll_ready $name:ident, $direction:ident $($doc:tt)*) => {
        $($doc)*
        pub fn $name(
            &self,
            cx: &mut ::std::task::Context<'_>,
        ) -> ::std::task::Poll<::std::io::Result<()>> {
            self.registered()
                .poll_ready(cx, ::rt_reactor::Direction::$direction)
                .map_ok(drop)
        }
    };
    (try_io $($doc:tt)*) => {
        $($doc)*
        pub fn try_io<R>(
            &self,
            interest: ::rt_reactor::Interest,
            op: impl FnOnce() -> ::std::io::Result<R>,
        ) -> ::std::io::Result<R> {
            self.registered().try_io_for(interest, |_| op())
        }
    };
    (async_io $($example:tt)*) => {
        #[doc = crate::net::registered_io::doc_text!(
            [
                "Waits for the readiness of `interest` and runs `op`, again and again \
                 until it does not fail with `WouldBlock` (each `WouldBlock` clears \
                 the readiness, so the next wait blocks; a closed state stays, final \
                 as in tokio's, and `op` is then called again after a yield).",
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

/// `AsyncRead` for the reader and `AsyncWrite` for the writer (one type
/// for a stream; the two halves of a split), forwarding to the stream that
/// `|s| expression` gives from `&self`, each in its direction's shared slot
/// of the registration (the last waker wins); closing shuts down the
/// write side.
macro_rules! async_read_write {
    (
        $(#[$read_doc:meta])* read: $reader:ty,
        $(#[$write_doc:meta])* write: $writer:ty => |$s:ident| $stream:expr
    ) => {
        $(#[$read_doc])*
        impl ::futures_io::AsyncRead for $reader {
            fn poll_read(
                self: ::std::pin::Pin<&mut Self>,
                cx: &mut ::std::task::Context<'_>,
                buf: &mut [u8],
            ) -> ::std::task::Poll<::std::io::Result<usize>> {
                let $s = &*self;
                $stream.registered().poll_read(cx, buf)
            }

            fn poll_read_vectored(
                self: ::std::pin::Pin<&mut Self>,
                cx: &mut ::std::task::Context<'_>,
                bufs: &mut [::std::io::IoSliceMut<'_>],
            ) -> ::std::task::Poll<::std::io::Result<usize>> {
                let $s = &*self;
                $stream.registered().poll_read_vectored(cx, bufs)
            }
        }

        $(#[$write_doc])*
        impl ::futures_io::AsyncWrite for $writer {
            fn poll_write(
                self: ::std::pin::Pin<&mut Self>,
                cx: &mut ::std::task::Context<'_>,
                buf: &[u8],
            ) -> ::std::task::Poll<::std::io::Result<usize>> {
                let $s = &*self;
                $stream.registered().poll_write(cx, buf)
            }

            fn poll_write_vectored(
                self: ::std::pin::Pin<&mut Self>,
                cx: &mut ::std::task::Context<'_>,
                bufs: &[::std::io::IoSlice<'_>],
            ) -> ::std::task::Poll<::std::io::Result<usize>> {
                let $s = &*self;
                $stream.registered().poll_write_vectored(cx, bufs)
            }

            fn poll_flush(
                self: ::std::pin::Pin<&mut Self>,
                _cx: &mut ::std::task::Context<'_>,
            ) -> ::std::task::Poll<::std::io::Result<()>> {
                // Writes go straight to the kernel: nothing is buffered here.
                ::std::task::Poll::Ready(Ok(()))
            }

            fn poll_close(
                self: ::std::pin::Pin<&mut Self>,
                _cx: &mut ::std::task::Context<'_>,
            ) -> ::std::task::Poll<::std::io::Result<()>> {
                let $s = &*self;
                ::std::task::Poll::Ready($stream.shutdown_write())
            }
        }
    };
}

pub(crate) use async_read_write;
pub(crate) use doc_text;
pub(crate) use registered_io;
