//! `copy_bidirectional`: both directions of a proxy in one future.
//!
//! Each direction is a [`Transfer`]: a buffer, filled by one side's
//! reads and drained by the other side's writes. The protocol of one
//! direction:
//!
//! 1. while the buffer holds bytes, write them to the other side;
//! 2. when it is empty, read into it; `0` bytes is end-of-file
//!    (`Interrupted`, from a read or a write, is retried, as in tokio);
//! 3. while a write is `Pending` and the buffer has room after its bytes,
//!    keep reading into that room (the reader is not idle while the
//!    writer is slow);
//! 4. whenever the reader is `Pending` with bytes written since the last
//!    flush, flush the writer (a `BufWriter` in the path would otherwise
//!    sit on them);
//! 5. at end-of-file with the buffer drained, flush, then shut the
//!    writer down (`poll_close`): the peer on that side reads
//!    end-of-file, while the other direction goes on until its own
//!    end-of-file. ([`copy`](super::copy), one direction on its own,
//!    flushes and leaves the writer open, as tokio's.)
//!
//! The future finishes when both directions have shut down, or at the
//! first error of either.

use crate::task::{RestoreOnPending, poll_proceed};
use futures_io::{AsyncRead, AsyncWrite};
use std::future::poll_fn;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

/// The buffer size of each direction of [`copy_bidirectional`]: big enough
/// that a bulk transfer moves 64 KiB per read and write call, as a socket
/// buffer holds; use [`copy_bidirectional_with_sizes`] for many idle
/// connections, where memory matters more.
const DEFAULT_BUF_SIZE: usize = 64 * 1024;

/// Copies from `a` to `b` and from `b` to `a` at the same time, until both
/// have reached end-of-file; returns how many bytes went each way,
/// `(a_to_b, b_to_a)`.
///
/// When one side reaches end-of-file, its data is flushed to the other side
/// and the other side's write half is shut down (`close`), so the peer
/// there sees end-of-file too, while the opposite direction keeps flowing:
/// a proxy in the middle of a connection passes half-closes through.
///
/// Each direction has its own 64 KiB buffer; see
/// [`copy_bidirectional_with_sizes`] to choose them.
///
/// # Errors
///
/// The first read, write, flush or shutdown error of either direction; the
/// copy stops there (a read or write that is `Interrupted` is retried). A
/// writer that accepts no bytes is `WriteZero`.
///
/// # Examples
///
/// A TCP proxy: everything the client sends reaches the server, and back.
///
/// ```
/// use rt::io::{AsyncReadExt, AsyncWriteExt};
/// use rt::net::{TcpListener, TcpStream};
///
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let server = TcpListener::bind("127.0.0.1:0").await.unwrap();
/// let server_addr = server.local_addr().unwrap();
/// rt::spawn(async move {
///     let (mut conn, _) = server.accept().await.unwrap();
///     let mut request = Vec::new();
///     conn.read_to_end(&mut request).await.unwrap();
///     conn.write_all(&request).await.unwrap();
/// });
///
/// let proxy = TcpListener::bind("127.0.0.1:0").await.unwrap();
/// let proxy_addr = proxy.local_addr().unwrap();
/// let proxied = rt::spawn(async move {
///     let (mut inbound, _) = proxy.accept().await.unwrap();
///     let mut outbound = TcpStream::connect(server_addr).await.unwrap();
///     rt::io::copy_bidirectional(&mut inbound, &mut outbound).await.unwrap()
/// });
///
/// let mut client = TcpStream::connect(proxy_addr).await.unwrap();
/// client.write_all(b"hello through the proxy").await.unwrap();
/// client.shutdown().await.unwrap();
/// let mut reply = String::new();
/// client.read_to_string(&mut reply).await.unwrap();
/// assert_eq!(reply, "hello through the proxy");
/// assert_eq!(proxied.await.unwrap(), (23, 23));
/// # });
/// ```
pub async fn copy_bidirectional<A, B>(a: &mut A, b: &mut B) -> io::Result<(u64, u64)>
where
    A: AsyncRead + AsyncWrite + Unpin + ?Sized,
    B: AsyncRead + AsyncWrite + Unpin + ?Sized,
{
    copy_bidirectional_with_sizes(a, b, DEFAULT_BUF_SIZE, DEFAULT_BUF_SIZE).await
}

/// [`copy_bidirectional`] with the buffer size of each direction given:
/// `a_to_b_buf_size` bytes for the copy from `a` to `b`, `b_to_a_buf_size`
/// for the other way (tokio's names, and its panic messages).
///
/// # Errors
///
/// As for [`copy_bidirectional`].
///
/// # Panics
///
/// When first polled, if a size is `0`, naming the parameter.
///
/// # Examples
///
/// ```
/// use rt::io::{AsyncReadExt, AsyncWriteExt};
///
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let (mut a, mut a_peer) = rt::io::duplex(64);
/// let (mut b, mut b_peer) = rt::io::duplex(64);
/// let copy = rt::spawn(async move {
///     rt::io::copy_bidirectional_with_sizes(&mut a, &mut b, 1024, 16).await.unwrap()
/// });
/// a_peer.write_all(b"to b").await.unwrap();
/// a_peer.shutdown().await.unwrap();
/// b_peer.write_all(b"to a!").await.unwrap();
/// b_peer.shutdown().await.unwrap();
/// let (mut at_b, mut at_a) = (String::new(), String::new());
/// b_peer.read_to_string(&mut at_b).await.unwrap();
/// a_peer.read_to_string(&mut at_a).await.unwrap();
/// assert_eq!((at_b.as_str(), at_a.as_str()), ("to b", "to a!"));
/// assert_eq!(copy.await.unwrap(), (4, 5));
/// # });
/// ```
pub async fn copy_bidirectional_with_sizes<A, B>(
    a: &mut A,
    b: &mut B,
    a_to_b_buf_size: usize,
    b_to_a_buf_size: usize,
) -> io::Result<(u64, u64)>
where
    A: AsyncRead + AsyncWrite + Unpin + ?Sized,
    B: AsyncRead + AsyncWrite + Unpin + ?Sized,
{
    // A buffer of 0 bytes could copy nothing.
    assert!(
        a_to_b_buf_size > 0,
        "`a_to_b_buf_size` must be greater than 0"
    );
    assert!(
        b_to_a_buf_size > 0,
        "`b_to_a_buf_size` must be greater than 0"
    );
    let mut a_to_b = Transfer::new(a_to_b_buf_size, AtEnd::Close);
    let mut b_to_a = Transfer::new(b_to_a_buf_size, AtEnd::Close);
    poll_fn(|cx| {
        let a_to_b = a_to_b.poll(cx, &mut *a, &mut *b)?;
        let b_to_a = b_to_a.poll(cx, &mut *b, &mut *a)?;
        let a_to_b = ready!(a_to_b);
        let b_to_a = ready!(b_to_a);
        Poll::Ready(Ok((a_to_b, b_to_a)))
    })
    .await
}

/// What a [`Transfer`] does to its writer once the reader's end-of-file
/// is written (step 5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum AtEnd {
    /// Flush it (`copy`): the caller may write more.
    Flush,
    /// Flush it, then shut it down (`copy_bidirectional`).
    Close,
}

/// One direction of the copy (the protocol is in the module docs).
#[derive(Debug)]
pub(super) struct Transfer {
    /// Allocated on the first read, so a direction that never carries a
    /// byte costs nothing.
    buf: Box<[u8]>,
    size: usize,
    /// `buf[start..end]` is read and not yet written.
    start: usize,
    end: usize,
    read_done: bool,
    need_flush: bool,
    at_end: AtEnd,
    /// Step 5 is done: the writer is flushed (and shut down if asked).
    shut_down: bool,
    copied: u64,
}

impl Transfer {
    pub(super) fn new(size: usize, at_end: AtEnd) -> Transfer {
        Transfer {
            buf: Box::default(),
            size,
            start: 0,
            end: 0,
            read_done: false,
            need_flush: false,
            at_end,
            shut_down: false,
            copied: 0,
        }
    }

    /// Reads once into the room after the buffered bytes (`0` bytes marks
    /// end-of-file), retrying `Interrupted` as tokio's copies do.
    fn poll_fill<R>(
        &mut self,
        cx: &mut Context<'_>,
        reader: &mut R,
        coop: &RestoreOnPending,
    ) -> Poll<io::Result<()>>
    where
        R: AsyncRead + Unpin + ?Sized,
    {
        if self.buf.is_empty() {
            self.buf = vec![0; self.size].into_boxed_slice();
        }
        let n = loop {
            match ready!(Pin::new(&mut *reader).poll_read(cx, &mut self.buf[self.end..])) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                read => {
                    coop.made_progress();
                    break read?;
                }
            }
        };
        if n == 0 {
            self.read_done = true;
        }
        self.end += n;
        Poll::Ready(Ok(()))
    }

    /// Drives the protocol: the bytes copied once step 5 is done. A poll
    /// that reads, writes or finishes spends a unit of the task's budget,
    /// as tokio's copies do, so copying between always-ready ends (or a
    /// loop of short copies) still lets other tasks run.
    pub(super) fn poll<R, W>(
        &mut self,
        cx: &mut Context<'_>,
        reader: &mut R,
        writer: &mut W,
    ) -> Poll<io::Result<u64>>
    where
        R: AsyncRead + Unpin + ?Sized,
        W: AsyncWrite + Unpin + ?Sized,
    {
        if self.shut_down {
            return Poll::Ready(Ok(self.copied));
        }
        let coop = ready!(poll_proceed(cx));
        let polled = self.poll_steps(cx, reader, writer, &coop);
        if polled.is_ready() {
            coop.made_progress();
        }
        polled
    }

    fn poll_steps<R, W>(
        &mut self,
        cx: &mut Context<'_>,
        reader: &mut R,
        writer: &mut W,
        coop: &RestoreOnPending,
    ) -> Poll<io::Result<u64>>
    where
        R: AsyncRead + Unpin + ?Sized,
        W: AsyncWrite + Unpin + ?Sized,
    {
        loop {
            // Step 2 (and 4): an empty buffer is refilled.
            if self.start == self.end && !self.read_done {
                self.start = 0;
                self.end = 0;
                if self.poll_fill(cx, reader, coop)?.is_pending() {
                    if self.need_flush {
                        ready!(Pin::new(&mut *writer).poll_flush(cx))?;
                        self.need_flush = false;
                    }
                    return Poll::Pending;
                }
            }
            // Step 1 (and 3): buffered bytes go out.
            while self.start < self.end {
                match Pin::new(&mut *writer).poll_write(cx, &self.buf[self.start..self.end]) {
                    Poll::Ready(Ok(0)) => {
                        return Poll::Ready(Err(io::Error::new(
                            io::ErrorKind::WriteZero,
                            "`rt::io::copy`: the writer accepted no bytes",
                        )));
                    }
                    Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::Interrupted => {}
                    Poll::Ready(Ok(n)) => {
                        self.start += n;
                        self.copied += n as u64;
                        self.need_flush = true;
                        coop.made_progress();
                    }
                    Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                    Poll::Pending => {
                        if self.end < self.buf.len() && !self.read_done {
                            // The reader may make progress meanwhile; its
                            // `Pending` registers its waker too.
                            if self.poll_fill(cx, reader, coop)?.is_ready() {
                                continue;
                            }
                        }
                        return Poll::Pending;
                    }
                }
            }
            // Step 5: end-of-file and everything written.
            if self.read_done && self.start == self.end {
                ready!(Pin::new(&mut *writer).poll_flush(cx))?;
                self.need_flush = false;
                if self.at_end == AtEnd::Close {
                    ready!(Pin::new(&mut *writer).poll_close(cx))?;
                }
                self.shut_down = true;
                return Poll::Ready(Ok(self.copied));
            }
        }
    }
}
