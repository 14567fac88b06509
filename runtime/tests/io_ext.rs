//! rt's own `AsyncReadExt`, `AsyncWriteExt` and `AsyncBufReadExt` on
//! sockets: tokio's method names, numbers in both byte orders, `shutdown`
//! as `close`, `lines().next_line()`, and `stream.split()` resolving to the
//! socket's own lock-free split.

mod support;

use rt::io::{
    AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader, Lines, Split,
};
use rt::net::UnixStream;
use std::io::{ErrorKind, IoSlice};
use std::pin::Pin;
use std::task::{Context, Poll};
use support::{Checksum, Pattern, block_on_each, tcp_pair};

/// Writes one of every number, in both byte orders, from one task and
/// reads them back in another.
#[test]
fn numbers_round_trip_in_both_byte_orders() {
    block_on_each(|_| async {
        let (mut a, mut b) = tcp_pair().await;
        let writer = rt::spawn(async move {
            a.write_u8(0xab).await.unwrap();
            a.write_i8(-3).await.unwrap();
            a.write_u16(0x0102).await.unwrap();
            a.write_u16_le(0x0102).await.unwrap();
            a.write_i16(-300).await.unwrap();
            a.write_i16_le(-300).await.unwrap();
            a.write_u32(0xdead_beef).await.unwrap();
            a.write_u32_le(0xdead_beef).await.unwrap();
            a.write_i32(-70_000).await.unwrap();
            a.write_i32_le(-70_000).await.unwrap();
            a.write_u64(u64::MAX - 1).await.unwrap();
            a.write_u64_le(u64::MAX - 1).await.unwrap();
            a.write_i64(i64::MIN).await.unwrap();
            a.write_i64_le(i64::MIN).await.unwrap();
            a.write_u128(u128::MAX / 3).await.unwrap();
            a.write_u128_le(u128::MAX / 3).await.unwrap();
            a.write_i128(i128::MIN + 7).await.unwrap();
            a.write_i128_le(i128::MIN + 7).await.unwrap();
            a.write_f32(1.5).await.unwrap();
            a.write_f32_le(-0.25).await.unwrap();
            a.write_f64(std::f64::consts::PI).await.unwrap();
            a.write_f64_le(f64::MAX).await.unwrap();
            a.shutdown().await.unwrap();
        });
        assert_eq!(b.read_u8().await.unwrap(), 0xab);
        assert_eq!(b.read_i8().await.unwrap(), -3);
        assert_eq!(b.read_u16().await.unwrap(), 0x0102);
        assert_eq!(b.read_u16_le().await.unwrap(), 0x0102);
        assert_eq!(b.read_i16().await.unwrap(), -300);
        assert_eq!(b.read_i16_le().await.unwrap(), -300);
        assert_eq!(b.read_u32().await.unwrap(), 0xdead_beef);
        assert_eq!(b.read_u32_le().await.unwrap(), 0xdead_beef);
        assert_eq!(b.read_i32().await.unwrap(), -70_000);
        assert_eq!(b.read_i32_le().await.unwrap(), -70_000);
        assert_eq!(b.read_u64().await.unwrap(), u64::MAX - 1);
        assert_eq!(b.read_u64_le().await.unwrap(), u64::MAX - 1);
        assert_eq!(b.read_i64().await.unwrap(), i64::MIN);
        assert_eq!(b.read_i64_le().await.unwrap(), i64::MIN);
        assert_eq!(b.read_u128().await.unwrap(), u128::MAX / 3);
        assert_eq!(b.read_u128_le().await.unwrap(), u128::MAX / 3);
        assert_eq!(b.read_i128().await.unwrap(), i128::MIN + 7);
        assert_eq!(b.read_i128_le().await.unwrap(), i128::MIN + 7);
        assert_eq!(b.read_f32().await.unwrap(), 1.5);
        assert_eq!(b.read_f32_le().await.unwrap(), -0.25);
        assert_eq!(b.read_f64().await.unwrap(), std::f64::consts::PI);
        assert_eq!(b.read_f64_le().await.unwrap(), f64::MAX);
        // The writer shut down its side: end-of-file mid-number is an error.
        let err = b.read_u32().await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::UnexpectedEof);
        writer.await.unwrap();
    });
}

#[test]
fn byte_order_is_on_the_wire() {
    block_on_each(|_| async {
        let mut out = Vec::new();
        out.write_u32(0x0102_0304).await.unwrap();
        out.write_u32_le(0x0102_0304).await.unwrap();
        out.write_i16(-2).await.unwrap();
        assert_eq!(out, [1, 2, 3, 4, 4, 3, 2, 1, 0xff, 0xfe]);
    });
}

/// A reader that hands out one byte per read and is `Pending` (having
/// woken its task) before each.
struct Trickle<'a> {
    bytes: &'a [u8],
    ready: bool,
}

impl AsyncRead for Trickle<'_> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<std::io::Result<usize>> {
        self.ready = !self.ready;
        if !self.ready {
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        match (self.bytes.split_first(), buf.first_mut()) {
            (Some((&first, rest)), Some(slot)) => {
                *slot = first;
                self.bytes = rest;
                Poll::Ready(Ok(1))
            }
            _ => Poll::Ready(Ok(0)),
        }
    }
}

/// A number that arrives a byte at a time, with waits between, is read
/// whole; a short one is `UnexpectedEof`.
#[test]
fn a_number_arriving_in_pieces_is_read_whole() {
    block_on_each(|_| async {
        let mut reader = Trickle {
            bytes: &[0x11, 0x22, 0x33, 0x44, 0x55, 0x66],
            ready: true,
        };
        assert_eq!(reader.read_u32().await.unwrap(), 0x1122_3344);
        assert_eq!(reader.read_u16_le().await.unwrap(), 0x6655);
        let mut short = Trickle {
            bytes: &[1, 2, 3],
            ready: true,
        };
        let err = short.read_f32().await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::UnexpectedEof);
    });
}

/// `stream.shutdown().await` (tokio's spelling) is the trait's half-close:
/// the peer reads end-of-file, and the other direction keeps working.
#[test]
fn shutdown_half_closes_like_close() {
    block_on_each(|_| async {
        for use_close in [false, true] {
            let (mut client, mut server) = tcp_pair().await;
            client.write_all(b"request").await.unwrap();
            if use_close {
                client.close().await.unwrap();
            } else {
                client.shutdown().await.unwrap();
            }
            let mut request = Vec::new();
            server.read_to_end(&mut request).await.unwrap();
            assert_eq!(request, b"request");
            server.write_all(b"response").await.unwrap();
            server.shutdown().await.unwrap();
            let mut response = String::new();
            client.read_to_string(&mut response).await.unwrap();
            assert_eq!(response, "response");
        }
    });
}

/// With rt's traits in scope, `stream.split()` is the socket's own split
/// (the types say so), not a lock-based split of the trait.
#[test]
fn split_method_is_the_sockets_lock_free_split() {
    block_on_each(|_| async {
        let (mut client, mut server) = tcp_pair().await;
        let (mut read, mut write): (rt::net::tcp::ReadHalf<'_>, rt::net::tcp::WriteHalf<'_>) =
            server.split();
        client.write_all(b"tcp").await.unwrap();
        let mut buf = [0; 3];
        let ((), ()) = rt::join!(async { read.read_exact(&mut buf).await.unwrap() }, async {
            write.write_all(b"back").await.unwrap()
        },);
        assert_eq!(&buf, b"tcp");
        let mut back = [0; 4];
        client.read_exact(&mut back).await.unwrap();
        assert_eq!(&back, b"back");

        let (mut a, mut b) = UnixStream::pair().unwrap();
        let (mut read, _write): (rt::net::unix::ReadHalf<'_>, rt::net::unix::WriteHalf<'_>) =
            b.split();
        a.write_all(b"unix").await.unwrap();
        let mut buf = [0; 4];
        read.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"unix");

        // The lock-based split of any reader-writer is the free function.
        let (mut read, mut write) = rt::io::split(a);
        write.write_all(b"locked").await.unwrap();
        let mut got = [0; 6];
        b.read_exact(&mut got).await.unwrap();
        assert_eq!(&got, b"locked");
        b.write_all(b"!").await.unwrap();
        assert_eq!(read.read_u8().await.unwrap(), b'!');
        assert!(read.reunite(write).is_ok());
    });
}

/// Vectored writes of more than a socket buffer holds: every byte arrives
/// in order and the slices are left advanced past the end.
#[test]
fn write_all_vectored_sends_every_slice() {
    block_on_each(|_| async {
        let (mut a, mut b) = tcp_pair().await;
        let mut parts = vec![vec![0u8; 300_000], vec![0u8; 1], vec![0u8; 700_000]];
        let mut pattern = Pattern::new(7);
        let mut sent = Checksum::new();
        for part in &mut parts {
            pattern.fill(part);
            sent.update(part);
        }
        let reader = rt::spawn(async move {
            let mut got = Vec::new();
            b.read_to_end(&mut got).await.unwrap();
            let mut checksum = Checksum::new();
            checksum.update(&got);
            (got.len(), checksum)
        });
        let mut slices: Vec<IoSlice<'_>> = parts.iter().map(|p| IoSlice::new(p)).collect();
        a.write_all_vectored(&mut slices).await.unwrap();
        a.shutdown().await.unwrap();
        let (len, checksum) = reader.await.unwrap();
        assert_eq!(len, 1_000_001);
        assert!(checksum == sent);
    });
}

#[test]
fn lines_split_on_newlines_across_partial_writes() {
    block_on_each(|_| async {
        let (mut a, b) = UnixStream::pair().unwrap();
        let writer = rt::spawn(async move {
            for chunk in [&b"fir"[..], b"st\r\nsec", b"ond\n\nlast without newline"] {
                a.write_all(chunk).await.unwrap();
                rt::task::yield_now().await;
            }
        });
        let mut lines = BufReader::with_capacity(4, b).lines();
        let mut got = Vec::new();
        while let Some(line) = lines.next_line().await.unwrap() {
            got.push(line);
        }
        assert_eq!(got, ["first", "second", "", "last without newline"]);
        writer.await.unwrap();
    });
}

#[test]
fn lines_reject_invalid_utf8_and_go_on() {
    block_on_each(|_| async {
        let mut lines = BufReader::new(&b"ok\n\xff\xfe\nafter\n"[..]).lines();
        assert_eq!(lines.next_line().await.unwrap().as_deref(), Some("ok"));
        let err = lines.next_line().await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidData);
        assert_eq!(lines.next_line().await.unwrap().as_deref(), Some("after"));
        assert_eq!(lines.next_line().await.unwrap(), None);
    });
}

/// `next_line` as a `select!` branch that loses while a line is half
/// read: the part read so far is kept, and the next call finishes it.
#[test]
fn next_line_is_cancel_safe_in_select() {
    block_on_each(|_| async {
        let (mut a, b) = UnixStream::pair().unwrap();
        let mut lines: Lines<BufReader<UnixStream>> = BufReader::new(b).lines();
        a.write_all(b"hel").await.unwrap();
        // `next_line` takes the partial line and waits; the other branch
        // wins, dropping it, and sends the rest.
        let mut interrupted = 0;
        let line = loop {
            rt::select! {
                biased;
                line = lines.next_line() => break line.unwrap(),
                () = std::future::ready(()), if interrupted == 0 => {
                    interrupted += 1;
                    a.write_all(b"lo\n").await.unwrap();
                }
            }
        };
        assert_eq!(line.as_deref(), Some("hello"));
        assert_eq!(interrupted, 1);
    });
}

/// `split(delimiter)` across partial writes, with empty segments, and as
/// a `select!` branch that loses halfway (the part read is kept).
#[test]
fn split_segments_on_a_delimiter_across_partial_writes_and_cancellation() {
    block_on_each(|_| async {
        let (mut a, b) = UnixStream::pair().unwrap();
        let mut segments: Split<BufReader<UnixStream>> = BufReader::with_capacity(3, b).split(0);
        a.write_all(b"fi").await.unwrap();
        let mut interrupted = 0;
        let first = loop {
            rt::select! {
                biased;
                segment = segments.next_segment() => break segment.unwrap(),
                () = std::future::ready(()), if interrupted == 0 => {
                    interrupted += 1;
                    a.write_all(b"rst\0").await.unwrap();
                }
            }
        };
        assert_eq!((first.as_deref(), interrupted), (Some(&b"first"[..]), 1));
        a.write_all(b"\0sec\xffond\0tail").await.unwrap();
        drop(a);
        let mut rest = Vec::new();
        while let Some(segment) = segments.next_segment().await.unwrap() {
            rest.push(segment);
        }
        assert_eq!(rest, [&b""[..], b"sec\xffond", b"tail"]);
    });
}

/// The futures of the numeric methods borrow the reader or writer and are
/// `Send` when it is, so a task can await them.
#[test]
fn generic_reader_and_writer_futures_are_send() {
    async fn relay<R, W>(mut from: R, mut to: W) -> std::io::Result<u64>
    where
        R: AsyncRead + Unpin + Send,
        W: AsyncWrite + Unpin + Send,
    {
        let n = from.read_u64_le().await?;
        to.write_u64(n).await?;
        to.flush().await?;
        Ok(n)
    }
    block_on_each(|_| async {
        let (mut a, b) = UnixStream::pair().unwrap();
        let (c, mut d) = UnixStream::pair().unwrap();
        a.write_u64_le(99).await.unwrap();
        let task = rt::spawn(relay(b, c));
        assert_eq!(task.await.unwrap().unwrap(), 99);
        assert_eq!(d.read_u64().await.unwrap(), 99);
    });
}

/// A reader that hands out its bytes, then fails: an I/O error after
/// some of the text has been read.
struct FailsAfter(&'static [u8]);

impl AsyncRead for FailsAfter {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<std::io::Result<usize>> {
        if self.0.is_empty() {
            return Poll::Ready(Err(std::io::Error::other("connection reset")));
        }
        let n = buf.len().min(self.0.len());
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Poll::Ready(Ok(n))
    }
}

/// `read_to_string` appends to what the string holds; when it fails (the
/// bytes are not UTF-8, or the reader errs), the string is left as it
/// was, as tokio's and std's.
#[test]
fn read_to_string_keeps_the_strings_text_when_it_fails() {
    block_on_each(|_| async {
        let mut reader: &[u8] = b"fine, then \xff";
        let mut text = String::from("kept: ");
        let err = reader.read_to_string(&mut text).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidData);
        assert_eq!(text, "kept: ");

        let mut reader = FailsAfter("half a char: \u{e9}".as_bytes().split_last().unwrap().1);
        let err = reader.read_to_string(&mut text).await.unwrap_err();
        assert_eq!(err.to_string(), "connection reset");
        assert_eq!(text, "kept: ");

        let mut reader = FailsAfter(b"whole");
        let err = reader.read_to_string(&mut text).await.unwrap_err();
        assert_eq!(err.to_string(), "connection reset");
        assert_eq!(text, "kept: ");

        let mut reader: &[u8] = b"and appended";
        assert_eq!(reader.read_to_string(&mut text).await.unwrap(), 12);
        assert_eq!(text, "kept: and appended");
    });
}
