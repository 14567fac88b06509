//! `UnixStream`'s readiness and the I/O it does on `&self`: waiting for an
//! interest, the `poll_*_ready` methods, non-blocking `try_*` attempts.

use super::UnixStream;
use crate::net::stream_io::stream_io;

impl UnixStream {
    stream_io! {
        /// Waits until the stream has any of the readiness of `interest`
        /// (`Interest::READABLE | Interest::WRITABLE`: either), and says which;
        /// then [`try_read`](UnixStream::try_read) /
        /// [`try_write`](UnixStream::try_write), which clear the readiness when
        /// they would block.
        ///
        /// A pending error (`ERROR`) also counts as readable or writable, for
        /// the sides `interest` asks for: the operation returns the error at
        /// once.
        ///
        /// Any number of tasks may wait at once, each in a place of its own;
        /// dropping the future frees it.
        ///
        /// # Errors
        ///
        /// Fails once the runtime's I/O driver has shut down.
        ready {
            /// ```
            /// use rt::io::{AsyncWriteExt, Interest};
            ///
            /// let rt = rt::runtime::Runtime::new().unwrap();
            /// rt.block_on(async {
            ///     let (mut a, b) = rt::net::UnixStream::pair().unwrap();
            ///     a.write_all(b"hi").await.unwrap();
            ///     let ready = b.ready(Interest::READABLE).await.unwrap();
            ///     assert!(ready.is_readable());
            ///     assert_eq!(b.try_read(&mut [0; 8]).unwrap(), 2);
            /// });
            /// ```
        }

        readable {
            /// ```
            /// let rt = rt::runtime::Runtime::new().unwrap();
            /// rt.block_on(async {
            ///     let (a, b) = rt::net::UnixStream::pair().unwrap();
            ///     drop(a); // end-of-file is readable
            ///     b.readable().await.unwrap();
            ///     assert_eq!(b.try_read(&mut [0; 8]).unwrap(), 0);
            /// });
            /// ```
        }

        writable {
            /// ```
            /// let rt = rt::runtime::Runtime::new().unwrap();
            /// rt.block_on(async {
            ///     let (a, _b) = rt::net::UnixStream::pair().unwrap();
            ///     a.writable().await.unwrap();
            ///     assert_eq!(a.try_write(b"now").unwrap(), 3);
            /// });
            /// ```
        }

        /// Polls for read readiness, in the read direction's shared slot (the
        /// one `AsyncRead::poll_read` uses): the last caller's waker wins.
        ///
        /// # Errors
        ///
        /// Fails once the runtime's I/O driver has shut down.
        poll_read_ready {
            /// ```
            /// use rt::io::AsyncWriteExt;
            /// use std::future::poll_fn;
            ///
            /// let rt = rt::runtime::Runtime::new().unwrap();
            /// rt.block_on(async {
            ///     let (mut a, b) = rt::net::UnixStream::pair().unwrap();
            ///     a.write_all(b"x").await.unwrap();
            ///     poll_fn(|cx| b.poll_read_ready(cx)).await.unwrap();
            ///     assert_eq!(b.try_read(&mut [0; 4]).unwrap(), 1);
            /// });
            /// ```
        }

        /// Polls for write readiness, in the write direction's shared slot
        /// (`AsyncWrite::poll_write`'s): the last caller's waker wins.
        ///
        /// # Errors
        ///
        /// Fails once the runtime's I/O driver has shut down.
        poll_write_ready {
            /// ```
            /// use std::future::poll_fn;
            ///
            /// let rt = rt::runtime::Runtime::new().unwrap();
            /// rt.block_on(async {
            ///     let (a, _b) = rt::net::UnixStream::pair().unwrap();
            ///     poll_fn(|cx| a.poll_write_ready(cx)).await.unwrap();
            ///     assert_eq!(a.try_write(b"hi").unwrap(), 2);
            /// });
            /// ```
        }

        /// Reads once without waiting.
        ///
        /// # Errors
        ///
        /// `WouldBlock` if no data is ready (or readability was not reported
        /// yet), or the OS error of `read`.
        try_read {
            /// See [`UnixStream::readable`].
            ///
            /// ```
            /// let rt = rt::runtime::Runtime::new().unwrap();
            /// rt.block_on(async {
            ///     let (a, _b) = rt::net::UnixStream::pair().unwrap();
            ///     let err = a.try_read(&mut [0; 4]).unwrap_err();
            ///     assert_eq!(err.kind(), std::io::ErrorKind::WouldBlock);
            /// });
            /// ```
        }

        try_read_buf {
            /// ```
            /// use rt::io::AsyncWriteExt;
            ///
            /// let rt = rt::runtime::Runtime::new().unwrap();
            /// rt.block_on(async {
            ///     let (mut a, b) = rt::net::UnixStream::pair().unwrap();
            ///     let mut buf = Vec::with_capacity(64);
            ///     a.write_all(b"hello").await.unwrap();
            ///     a.shutdown().await.unwrap();
            ///     loop {
            ///         b.readable().await.unwrap();
            ///         match b.try_read_buf(&mut buf) {
            ///             Ok(0) => break,
            ///             Ok(_) => {}
            ///             Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            ///             Err(e) => panic!("{e}"),
            ///         }
            ///     }
            ///     assert_eq!(buf, b"hello");
            /// });
            /// ```
        }

        try_write {
            /// See [`UnixStream::writable`].
            ///
            /// ```
            /// let rt = rt::runtime::Runtime::new().unwrap();
            /// rt.block_on(async {
            ///     let (a, _b) = rt::net::UnixStream::pair().unwrap();
            ///     a.writable().await.unwrap();
            ///     assert_eq!(a.try_write(b"x").unwrap(), 1);
            /// });
            /// ```
        }

        try_read_vectored {
            /// ```
            /// use rt::io::AsyncWriteExt;
            /// use std::io::IoSliceMut;
            ///
            /// let rt = rt::runtime::Runtime::new().unwrap();
            /// rt.block_on(async {
            ///     let (mut a, b) = rt::net::UnixStream::pair().unwrap();
            ///     a.write_all(b"abcdef").await.unwrap();
            ///     b.readable().await.unwrap();
            ///     let (mut head, mut body) = ([0; 2], [0; 8]);
            ///     let n = b
            ///         .try_read_vectored(&mut [IoSliceMut::new(&mut head), IoSliceMut::new(&mut body)])
            ///         .unwrap();
            ///     assert_eq!(n, 6);
            ///     assert_eq!((&head, &body[..4]), (b"ab", &b"cdef"[..]));
            /// });
            /// ```
        }

        try_write_vectored {
            /// ```
            /// use rt::io::AsyncReadExt;
            /// use std::io::IoSlice;
            ///
            /// let rt = rt::runtime::Runtime::new().unwrap();
            /// rt.block_on(async {
            ///     let (a, mut b) = rt::net::UnixStream::pair().unwrap();
            ///     a.writable().await.unwrap();
            ///     let n = a.try_write_vectored(&[IoSlice::new(b"he"), IoSlice::new(b"llo")]).unwrap();
            ///     assert_eq!(n, 5);
            ///     let mut got = [0; 5];
            ///     b.read_exact(&mut got).await.unwrap();
            ///     assert_eq!(&got, b"hello");
            /// });
            /// ```
        }

        /// Runs `op` once, without waiting, if the reactor has reported the
        /// readiness of `interest`; an `op` that would block clears that
        /// readiness, not the closed states (final, as in tokio's). For
        /// socket calls rt has no method for (passing descriptors with
        /// `sendmsg`, say).
        ///
        /// # Errors
        ///
        /// `WouldBlock` if the readiness was not reported (`op` is not run) or
        /// `op` would block; otherwise `op`'s error.
        try_io {
            /// ```
            /// use rt::io::Interest;
            ///
            /// let rt = rt::runtime::Runtime::new().unwrap();
            /// rt.block_on(async {
            ///     let (a, _b) = rt::net::UnixStream::pair().unwrap();
            ///     a.writable().await.unwrap();
            ///     let socket = socket2::SockRef::from(&a);
            ///     let n = a.try_io(Interest::WRITABLE, || socket.send(b"raw")).unwrap();
            ///     assert_eq!(n, 3);
            /// });
            /// ```
        }

        async_io {
            /// ```
            /// use rt::io::Interest;
            ///
            /// let rt = rt::runtime::Runtime::new().unwrap();
            /// rt.block_on(async {
            ///     let (a, _b) = rt::net::UnixStream::pair().unwrap();
            ///     let socket = socket2::SockRef::from(&a);
            ///     let n = a.async_io(Interest::WRITABLE, || socket.send(b"raw")).await.unwrap();
            ///     assert_eq!(n, 3);
            /// });
            /// ```
        }
    }
}
