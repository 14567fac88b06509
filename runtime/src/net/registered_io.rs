//! The readiness methods every socket type of `net` has with the same
//! body over its `registered()` registration: `ready`, `readable`,
//! `writable`, the `poll_*_ready` pair, `try_io` and `async_io`. The type
//! macros (`datagram_io.rs`, `stream_io.rs`) pass each method's doc
//! attributes; `async_io`, documented alike everywhere, brings its own
//! text and takes only the examples.

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
        pub async fn readable(&self) -> ::std::io::Result<()> {
            self.registered().ready(::rt_reactor::Direction::Read).await.map(drop)
        }
    };
    (writable $($doc:tt)*) => {
        $($doc)*
        pub async fn writable(&self) -> ::std::io::Result<()> {
            self.registered().ready(::rt_reactor::Direction::Write).await.map(drop)
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
pub(crate) use registered_io;
