//! `TcpStream`'s readiness and the I/O it does on `&self`: waiting for
//! an interest, non-blocking `try_*` attempts, peeking, `sendfile`.

use super::TcpStream;
#[cfg(target_os = "linux")]
use crate::io::sys;
use crate::net::stream_io::stream_io;
#[cfg(target_os = "linux")]
use rt_reactor::Direction;
use std::io;
#[cfg(target_os = "linux")]
use std::os::fd::AsRawFd;
use std::task::{Context, Poll};

impl TcpStream {
    stream_io! {
        /// Waits until the stream has any of the readiness of `interest`:
        /// `Interest::READABLE | Interest::WRITABLE` waits for either side, and
        /// the result says which (then [`try_read`](TcpStream::try_read) /
        /// [`try_write`](TcpStream::try_write), which clear the readiness when
        /// they would block).
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
            ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            ///     let mut client = rt::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
            ///     let (server, _) = listener.accept().await.unwrap();
            ///     client.write_all(b"hi").await.unwrap();
            ///     let mut buf = [0; 8];
            ///     loop {
            ///         let ready = server.ready(Interest::READABLE | Interest::WRITABLE).await.unwrap();
            ///         if ready.is_readable() {
            ///             match server.try_read(&mut buf) {
            ///                 Ok(n) => {
            ///                     assert_eq!(&buf[..n], b"hi");
            ///                     break;
            ///                 }
            ///                 Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            ///                 Err(e) => panic!("{e}"),
            ///             }
            ///         } else {
            ///             // Writable only: wait for the data.
            ///             server.readable().await.unwrap();
            ///         }
            ///     }
            /// });
            /// ```
        }

        /// Polls for read readiness.
        ///
        /// A `poll_*` method has no future to own a place among the tasks
        /// waiting on the stream: it waits in the read direction's shared slot,
        /// the one `AsyncRead::poll_read` uses, where the last caller's waker
        /// wins. Poll it from the one task reading; tasks sharing a stream
        /// await [`readable`](TcpStream::readable).
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
            ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            ///     let mut client = rt::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
            ///     let (server, _) = listener.accept().await.unwrap();
            ///     client.write_all(b"x").await.unwrap();
            ///     poll_fn(|cx| server.poll_read_ready(cx)).await.unwrap();
            ///     assert_eq!(server.try_read(&mut [0; 4]).unwrap(), 1);
            /// });
            /// ```
        }

        /// Polls for write readiness.
        ///
        /// As [`poll_read_ready`](TcpStream::poll_read_ready), in the write
        /// direction's shared slot (`AsyncWrite::poll_write`'s): the last
        /// caller's waker wins.
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
            ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            ///     let client = rt::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
            ///     poll_fn(|cx| client.poll_write_ready(cx)).await.unwrap();
            ///     assert_eq!(client.try_write(b"hi").unwrap(), 2);
            /// });
            /// ```
        }
    }

    /// Receives data without removing it from the queue: the next read
    /// returns the same bytes. Waits until data (or end-of-file) arrives.
    ///
    /// # Errors
    ///
    /// The OS error of `recv(MSG_PEEK)`.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::{AsyncReadExt, AsyncWriteExt};
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    ///     let mut client = rt::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
    ///     let (mut server, _) = listener.accept().await.unwrap();
    ///     client.write_all(b"abc").await.unwrap();
    ///     let mut buf = [0; 3];
    ///     let n = server.peek(&mut buf).await.unwrap();
    ///     assert_eq!(&buf[..n], &b"abc"[..n]);
    ///     server.read_exact(&mut buf[..n]).await.unwrap();
    ///     assert_eq!(&buf[..n], &b"abc"[..n]);
    /// });
    /// ```
    pub async fn peek(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.registered().peek(buf).await
    }

    stream_io! {
        readable {
            /// ```
            /// use rt::io::AsyncWriteExt;
            ///
            /// let rt = rt::runtime::Runtime::new().unwrap();
            /// rt.block_on(async {
            ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            ///     let mut client = rt::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
            ///     let (server, _) = listener.accept().await.unwrap();
            ///     client.write_all(b"x").await.unwrap();
            ///     server.readable().await.unwrap();
            ///     let mut buf = [0; 4];
            ///     assert_eq!(server.try_read(&mut buf).unwrap(), 1);
            /// });
            /// ```
        }

        writable {
            /// ```
            /// let rt = rt::runtime::Runtime::new().unwrap();
            /// rt.block_on(async {
            ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            ///     let client = rt::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
            ///     client.writable().await.unwrap();
            ///     assert_eq!(client.try_write(b"hello").unwrap(), 5);
            /// });
            /// ```
        }

        /// Reads once without waiting.
        ///
        /// # Errors
        ///
        /// `WouldBlock` if no data is ready, or the OS error of `read`.
        try_read {
            /// See [`TcpStream::readable`].
            ///
            /// ```
            /// let rt = rt::runtime::Runtime::new().unwrap();
            /// rt.block_on(async {
            ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            ///     let client = rt::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
            ///     let err = client.try_read(&mut [0; 4]).unwrap_err();
            ///     assert_eq!(err.kind(), std::io::ErrorKind::WouldBlock);
            /// });
            /// ```
        }

        try_read_buf {
            /// ```
            /// use bytes::BytesMut;
            /// use rt::io::AsyncWriteExt;
            ///
            /// let rt = rt::runtime::Runtime::new().unwrap();
            /// rt.block_on(async {
            ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            ///     let mut client = rt::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
            ///     let (server, _) = listener.accept().await.unwrap();
            ///     let mut buf = BytesMut::with_capacity(64);
            ///     let err = server.try_read_buf(&mut buf).unwrap_err();
            ///     assert_eq!(err.kind(), std::io::ErrorKind::WouldBlock);
            ///     client.write_all(b"hello").await.unwrap();
            ///     while buf.len() < 5 {
            ///         server.readable().await.unwrap();
            ///         match server.try_read_buf(&mut buf) {
            ///             Ok(n) => assert!(n > 0),
            ///             Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            ///             Err(e) => panic!("{e}"),
            ///         }
            ///     }
            ///     assert_eq!(&buf[..], b"hello");
            /// });
            /// ```
        }

        try_write {
            /// See [`TcpStream::writable`].
            ///
            /// ```
            /// let rt = rt::runtime::Runtime::new().unwrap();
            /// rt.block_on(async {
            ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            ///     let client = rt::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
            ///     client.writable().await.unwrap();
            ///     assert_eq!(client.try_write(b"hi").unwrap(), 2);
            /// });
            /// ```
        }
    }

    /// Sends up to `len` bytes of `file`, starting at `offset`, straight
    /// from the page cache to the socket (`sendfile(2)`), waiting for the
    /// socket to become writable as needed. Returns the number of bytes
    /// sent: `len`, or less if the file ends first. The file's own position
    /// is not used or changed.
    ///
    /// # Errors
    ///
    /// The OS error of `sendfile` (e.g. `BrokenPipe` when the peer is
    /// gone); bytes sent before the error are lost to the count.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::AsyncReadExt;
    /// use std::io::Write;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let path = std::env::temp_dir().join(format!("rt-doc-sendfile-{}", std::process::id()));
    ///     let mut file = std::fs::File::options()
    ///         .read(true).write(true).create(true).truncate(true)
    ///         .open(&path)
    ///         .unwrap();
    ///     std::fs::remove_file(&path).unwrap();
    ///     file.write_all(b"zero-copy").unwrap();
    ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    ///     let client = rt::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
    ///     let (mut server, _) = listener.accept().await.unwrap();
    ///     assert_eq!(client.send_file(&file, 5, 100).await.unwrap(), 4);
    ///     drop(client);
    ///     let mut got = Vec::new();
    ///     server.read_to_end(&mut got).await.unwrap();
    ///     assert_eq!(got, b"copy");
    /// });
    /// ```
    #[cfg(target_os = "linux")]
    pub async fn send_file(
        &self,
        file: &std::fs::File,
        offset: u64,
        len: usize,
    ) -> io::Result<usize> {
        let io = self.registered().real("`TcpStream::send_file`")?;
        let mut sent = 0;
        while sent < len {
            let at = offset + sent as u64;
            let n = io
                .async_io(Direction::Write, |sys| {
                    sys::sendfile(sys.as_raw_fd(), file.as_raw_fd(), at, len - sent)
                })
                .await?;
            if n == 0 {
                break;
            }
            sent += n;
        }
        Ok(sent)
    }

    stream_io! {
        try_read_vectored {
            /// ```
            /// use rt::io::AsyncWriteExt;
            /// use std::io::IoSliceMut;
            ///
            /// let rt = rt::runtime::Runtime::new().unwrap();
            /// rt.block_on(async {
            ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            ///     let mut client = rt::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
            ///     let (server, _) = listener.accept().await.unwrap();
            ///     client.write_all(b"abcdef").await.unwrap();
            ///     server.readable().await.unwrap();
            ///     let (mut head, mut body) = ([0; 2], [0; 8]);
            ///     let mut bufs = [IoSliceMut::new(&mut head), IoSliceMut::new(&mut body)];
            ///     let n = server.try_read_vectored(&mut bufs).unwrap();
            ///     assert!(n >= 1);
            ///     assert_eq!(head[0], b'a');
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
            ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            ///     let client = rt::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
            ///     let (mut server, _) = listener.accept().await.unwrap();
            ///     client.writable().await.unwrap();
            ///     let n = client.try_write_vectored(&[IoSlice::new(b"he"), IoSlice::new(b"llo")]).unwrap();
            ///     assert_eq!(n, 5);
            ///     let mut got = [0; 5];
            ///     server.read_exact(&mut got).await.unwrap();
            ///     assert_eq!(&got, b"hello");
            /// });
            /// ```
        }
    }

    /// Polls for a peek at the data waiting: as [`peek`](TcpStream::peek),
    /// in the read direction's shared slot, where the last caller's waker
    /// wins (see [`poll_read_ready`](TcpStream::poll_read_ready)).
    ///
    /// # Errors
    ///
    /// The OS error of `recv(MSG_PEEK)`.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::AsyncWriteExt;
    /// use std::future::poll_fn;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    ///     let mut client = rt::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
    ///     let (server, _) = listener.accept().await.unwrap();
    ///     client.write_all(b"x").await.unwrap();
    ///     let mut buf = [0; 4];
    ///     let n = poll_fn(|cx| server.poll_peek(cx, &mut buf)).await.unwrap();
    ///     assert_eq!(&buf[..n], b"x");
    /// });
    /// ```
    pub fn poll_peek(&self, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>> {
        self.registered().poll_peek(cx, buf)
    }

    stream_io! {
        /// Runs `op` once, without waiting, if the reactor has reported the
        /// readiness of `interest`; an `op` that would block clears that
        /// readiness, not the closed states (final, as in tokio's). For
        /// socket calls rt has no method for (`recvmsg` through
        /// [`socket2::SockRef`], say).
        ///
        /// # Errors
        ///
        /// `WouldBlock` if the readiness was not reported (`op` is not run) or
        /// `op` would block; otherwise `op`'s error.
        try_io {
            /// ```
            /// use rt::io::{AsyncWriteExt, Interest};
            /// use std::io::Read;
            ///
            /// let rt = rt::runtime::Runtime::new().unwrap();
            /// rt.block_on(async {
            ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            ///     let mut client = rt::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
            ///     let (server, _) = listener.accept().await.unwrap();
            ///     client.write_all(b"raw").await.unwrap();
            ///     server.readable().await.unwrap();
            ///     let socket = socket2::SockRef::from(&server);
            ///     let mut buf = [0; 8];
            ///     let n = server.try_io(Interest::READABLE, || (&*socket).read(&mut buf)).unwrap();
            ///     assert_eq!(&buf[..n], b"raw");
            /// });
            /// ```
        }

        async_io {
            /// ```
            /// use rt::io::{AsyncWriteExt, Interest};
            /// use std::io::Read;
            ///
            /// let rt = rt::runtime::Runtime::new().unwrap();
            /// rt.block_on(async {
            ///     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            ///     let mut client = rt::net::TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
            ///     let (server, _) = listener.accept().await.unwrap();
            ///     let socket = socket2::SockRef::from(&server);
            ///     let mut buf = [0; 8];
            ///     let writer = rt::spawn(async move { client.write_all(b"later").await.unwrap() });
            ///     let n = server
            ///         .async_io(Interest::READABLE, || (&*socket).read(&mut buf))
            ///         .await
            ///         .unwrap();
            ///     assert!(n > 0 && b"later".starts_with(&buf[..n]));
            ///     writer.await.unwrap();
            /// });
            /// ```
        }
    }
}
