//! Feature `bytes`: `AsyncReadExt::read_buf` and
//! `AsyncWriteExt::write_buf`/`write_all_buf` over rt's streams and other
//! readers and writers, on both schedulers, over loopback. The sockets'
//! own methods are in `net_bytes.rs`.

mod support;

use bytes::{Buf, BufMut, Bytes, BytesMut};
use rt::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use rt::net::UnixStream;
use std::collections::VecDeque;
use std::io::{self, IoSlice};
use std::pin::Pin;
use std::task::{Context, Poll};
use support::{
    Checksum, Kind, Pattern, expect_panic, on_both, report_pending, spawn_write_all, tcp_pair,
};

const MIB: usize = 1 << 20;

// ---- AsyncReadExt::read_buf ----

/// A 1 MiB transfer read with `read_buf` into a `BytesMut` that starts
/// with no capacity at all: it grows as it fills, and every byte arrives
/// in order.
#[test]
fn read_buf_grows_an_empty_bytes_mut_through_a_large_transfer() {
    on_both(|| async {
        let data = Pattern::bytes(1, MIB);
        let (client, mut server) = tcp_pair().await;
        let writer = spawn_write_all(client, data.clone());
        let mut buf = BytesMut::new();
        let mut reads = 0;
        loop {
            let before = buf.len();
            let n = server.read_buf(&mut buf).await.unwrap();
            assert_eq!(buf.len(), before + n, "read_buf advances by what it read");
            assert!(n <= 64 * 1024, "one read fills at most 64 KiB, got {n}");
            if n == 0 {
                break;
            }
            reads += 1;
        }
        writer.await.unwrap();
        assert!(reads > 1, "1 MiB in 64 KiB reads takes many");
        assert_eq!(buf.len(), MIB);
        assert!(buf[..] == data[..], "the transfer arrived intact");
    });
}

/// The framed-reader pattern: one `BytesMut` with spare capacity, drained
/// after every read, so the same capacity is read into again and again
/// (never grown); 1 MiB arrives intact.
#[test]
fn read_buf_reuses_the_spare_capacity_of_a_drained_bytes_mut() {
    on_both(|| async {
        let data = Pattern::bytes(2, MIB);
        let (client, mut server) = tcp_pair().await;
        let writer = spawn_write_all(client, data.clone());
        let mut buf = BytesMut::with_capacity(4096);
        let capacity = buf.capacity();
        let mut received = Checksum::new();
        let mut total = 0;
        loop {
            let n = server.read_buf(&mut buf).await.unwrap();
            if n == 0 {
                break;
            }
            assert_eq!(buf.len(), n);
            received.update(&buf);
            buf.clear();
            total += n;
            assert_eq!(buf.capacity(), capacity, "the drained capacity is reused");
        }
        writer.await.unwrap();
        assert_eq!(total, MIB);
        assert_eq!(received, Checksum::of(&data));
    });
}

/// End-of-file: `read_buf` returns 0 and leaves the buffer as it was,
/// every time it is asked again.
#[test]
fn read_buf_at_end_of_file_returns_zero_and_leaves_the_buffer_alone() {
    on_both(|| async {
        let (mut a, mut b) = UnixStream::pair().unwrap();
        a.write_all(b"last").await.unwrap();
        a.shutdown().await.unwrap();
        let mut buf = BytesMut::from(&b">"[..]);
        assert_eq!(b.read_buf(&mut buf).await.unwrap(), 4);
        for _ in 0..3 {
            assert_eq!(b.read_buf(&mut buf).await.unwrap(), 0);
        }
        assert_eq!(&buf[..], b">last");
    });
}

/// A `&mut [u8]` is a `BufMut` too: `read_buf` fills it from the front and
/// moves it past what it read. Once it has no room left, `read_buf`
/// returns 0 at once, without reading: the bytes still waiting stay in
/// the socket.
#[test]
fn read_buf_into_a_slice_fills_it_then_returns_zero_without_reading() {
    on_both(|| async {
        let (mut a, mut b) = UnixStream::pair().unwrap();
        a.write_all(b"0123456789abc").await.unwrap();
        let mut storage = [0u8; 10];
        let mut room: &mut [u8] = &mut storage;
        let mut total = 0;
        while total < 10 {
            total += b.read_buf(&mut room).await.unwrap();
        }
        assert_eq!(total, 10);
        assert!(room.is_empty());
        assert_eq!(
            b.read_buf(&mut room).await.unwrap(),
            0,
            "no room: nothing read"
        );
        assert_eq!(&storage, b"0123456789");
        let mut rest = [0u8; 3];
        b.read_exact(&mut rest).await.unwrap();
        assert_eq!(
            &rest, b"abc",
            "the bytes beyond the room stayed in the socket"
        );
    });
}

/// No room means no read at all: with nothing to read, `read_buf` into a
/// full slice is still ready at once (0), rather than waiting for data.
#[test]
fn read_buf_without_room_does_not_wait_for_data() {
    on_both(|| async {
        let (_a, mut b) = UnixStream::pair().unwrap();
        let mut room: &mut [u8] = &mut [];
        assert_eq!(b.read_buf(&mut room).await.unwrap(), 0);
        let mut limited = Vec::new().limit(0);
        assert_eq!(b.read_buf(&mut limited).await.unwrap(), 0);
    });
}

/// A reader that records the bytes it was handed and reads `chunk` bytes
/// of `0xab` (or nothing, once `left` is spent).
struct Recording {
    left: usize,
    handed: Vec<Vec<u8>>,
}

impl AsyncRead for Recording {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.handed.push(buf.to_vec());
        let n = buf.len().min(self.left);
        buf[..n].fill(0xab);
        self.left -= n;
        Poll::Ready(Ok(n))
    }
}

/// The generic path hands the reader zeroed memory, never the stale bytes
/// a drained `BytesMut` still holds in its capacity, and at most 64 KiB of
/// it however much room there is.
#[test]
fn read_buf_hands_a_reader_zeroed_memory_at_most_64_kib_of_it() {
    on_both(|| async {
        let mut buf = BytesMut::with_capacity(256 * 1024);
        buf.put_bytes(0x5a, 1000);
        buf.clear();
        let mut reader = Recording {
            left: 100 * 1024,
            handed: Vec::new(),
        };
        assert_eq!(reader.read_buf(&mut buf).await.unwrap(), 64 * 1024);
        assert_eq!(reader.read_buf(&mut buf).await.unwrap(), 36 * 1024);
        assert_eq!(reader.read_buf(&mut buf).await.unwrap(), 0);
        for handed in &reader.handed {
            assert_eq!(handed.len(), 64 * 1024);
            assert!(
                handed.iter().all(|&b| b == 0),
                "the reader got zeroed memory"
            );
        }
        assert_eq!(buf.len(), 100 * 1024);
        assert!(buf.iter().all(|&b| b == 0xab));
    });
}

/// A reader that claims to have read more than it was given is a bug in
/// that reader: a panic naming it, not bytes made up out of nothing.
#[test]
fn read_buf_panics_on_a_reader_that_reports_more_than_it_was_given() {
    struct Lying;
    impl AsyncRead for Lying {
        fn poll_read(
            self: Pin<&mut Self>,
            _cx: &mut Context<'_>,
            buf: &mut [u8],
        ) -> Poll<io::Result<usize>> {
            Poll::Ready(Ok(buf.len() + 1))
        }
    }
    let rt = Kind::CurrentThread.build();
    let message = expect_panic(|| {
        rt.block_on(async {
            let mut buf = BytesMut::with_capacity(16);
            Lying.read_buf(&mut buf).await
        })
    });
    assert!(message.contains("poll_read reported"), "{message}");
}

/// Cancel safety: a `read_buf` dropped while it waits has read nothing,
/// and the buffer is as it was; the data that comes later is all there for
/// the next call.
#[test]
fn read_buf_dropped_while_waiting_leaves_the_buffer_and_the_data() {
    on_both(|| async {
        let (mut a, mut b) = UnixStream::pair().unwrap();
        let mut buf = BytesMut::from(&b"kept"[..]);
        let (waiting_tx, waiting_rx) = rt::sync::oneshot::channel();
        rt::select! {
            _ = report_pending(b.read_buf(&mut buf), waiting_tx) => panic!("nothing was sent"),
            _ = waiting_rx => {}
        }
        assert_eq!(&buf[..], b"kept");
        a.write_all(b" and more").await.unwrap();
        a.shutdown().await.unwrap();
        while b.read_buf(&mut buf).await.unwrap() > 0 {}
        assert_eq!(&buf[..], b"kept and more");
    });
}

// ---- AsyncWriteExt::write_buf / write_all_buf ----

/// `write_all_buf` of a chained `Buf` (a header, then a 1 MiB body) into
/// a socket whose buffers are small: the write waits for the reader
/// (backpressure) and everything arrives intact, in order.
#[test]
fn write_all_buf_of_a_chain_waits_for_the_reader_and_arrives_intact() {
    on_both(|| async {
        let (mut client, mut server) = tcp_pair().await;
        // Small enough that 1 MiB cannot fit in flight; no Nagle, or each
        // small window would wait for a delayed ACK.
        client.set_nodelay(true).unwrap();
        socket2::SockRef::from(&client)
            .set_send_buffer_size(16 * 1024)
            .unwrap();
        socket2::SockRef::from(&server)
            .set_recv_buffer_size(16 * 1024)
            .unwrap();
        let header = Bytes::from_static(b"len=1048576\n");
        let body = Bytes::from(Pattern::bytes(3, MIB));
        let mut expected = header.to_vec();
        expected.extend_from_slice(&body);

        let (waiting_tx, waiting_rx) = rt::sync::oneshot::channel();
        let writer = rt::spawn(async move {
            let mut src = header.chain(body);
            report_pending(client.write_all_buf(&mut src), waiting_tx)
                .await
                .unwrap();
            assert!(!src.has_remaining(), "the whole chain was consumed");
            client.shutdown().await.unwrap();
        });
        // The writer filled the socket's buffers and waits for room.
        waiting_rx.await.unwrap();
        let mut got = Vec::new();
        server.read_to_end(&mut got).await.unwrap();
        writer.await.unwrap();
        assert_eq!(got.len(), expected.len());
        assert!(got == expected, "the chain arrived intact");
    });
}

/// A `Buf` of many chunks: one `write_buf` to a socket writes several
/// chunks at once (a `writev`), at most 64 of them; `write_all_buf`
/// writes them all.
#[test]
fn write_buf_writes_up_to_64_chunks_at_once() {
    on_both(|| async {
        let (mut a, mut b) = UnixStream::pair().unwrap();
        let pieces: Vec<Bytes> = (0..100u8).map(|i| Bytes::from(vec![i; 3])).collect();
        let expected: Vec<u8> = pieces.iter().flat_map(|p| p.to_vec()).collect();
        let mut src = Pieces(pieces.into());
        let n = a.write_buf(&mut src).await.unwrap();
        assert_eq!(n, 64 * 3, "one write of the first 64 chunks");
        assert_eq!(src.remaining(), 36 * 3, "advanced past what was written");
        a.write_all_buf(&mut src).await.unwrap();
        assert!(!src.has_remaining());
        assert_eq!(
            a.write_buf(&mut src).await.unwrap(),
            0,
            "empty: nothing to write"
        );
        a.shutdown().await.unwrap();
        let mut got = Vec::new();
        b.read_to_end(&mut got).await.unwrap();
        assert_eq!(got, expected);
    });
}

/// A `Buf` made of separate pieces, each its own chunk.
struct Pieces(VecDeque<Bytes>);

impl Buf for Pieces {
    fn remaining(&self) -> usize {
        self.0.iter().map(Bytes::len).sum()
    }

    fn chunk(&self) -> &[u8] {
        self.0.front().map_or(&[], |piece| piece)
    }

    fn chunks_vectored<'a>(&'a self, dst: &mut [IoSlice<'a>]) -> usize {
        let mut filled = 0;
        for (slot, piece) in dst.iter_mut().zip(&self.0) {
            *slot = IoSlice::new(piece);
            filled += 1;
        }
        filled
    }

    fn advance(&mut self, mut cnt: usize) {
        while cnt > 0 {
            let front = self.0.front_mut().expect("advanced past the end");
            let step = cnt.min(front.len());
            front.advance(step);
            cnt -= step;
            if front.is_empty() {
                self.0.pop_front();
            }
        }
    }
}

/// A writer that takes no more bytes: `write_all_buf` fails with
/// `WriteZero`, and the `Buf` starts at the first byte not written.
#[test]
fn write_all_buf_into_a_full_writer_is_write_zero_and_keeps_the_rest() {
    on_both(|| async {
        let mut storage = [0u8; 4];
        let mut out = rt::io::Cursor::new(&mut storage[..]);
        let mut src = Bytes::from_static(b"ab").chain(Bytes::from_static(b"cdef"));
        let err = out.write_all_buf(&mut src).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::WriteZero);
        assert_eq!(src.copy_to_bytes(src.remaining()), &b"ef"[..]);
        assert_eq!(&storage, b"abcd");
    });
}

/// `Interrupted` is retried by `write_all_buf` (tokio's rule), and passed
/// on by `write_buf`, which writes once.
#[test]
fn write_all_buf_retries_interrupted_and_write_buf_reports_it() {
    /// Fails every other write with `Interrupted`.
    struct Flaky {
        interrupt: bool,
        out: Vec<u8>,
    }
    impl AsyncWrite for Flaky {
        fn poll_write(
            mut self: Pin<&mut Self>,
            _cx: &mut Context<'_>,
            buf: &[u8],
        ) -> Poll<io::Result<usize>> {
            self.interrupt = !self.interrupt;
            if self.interrupt {
                return Poll::Ready(Err(io::ErrorKind::Interrupted.into()));
            }
            let n = buf.len().min(2);
            self.out.extend_from_slice(&buf[..n]);
            Poll::Ready(Ok(n))
        }
        fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }
        fn poll_close(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }
    }
    on_both(|| async {
        let mut flaky = Flaky {
            interrupt: false,
            out: Vec::new(),
        };
        let mut src = Bytes::from_static(b"hello");
        let err = flaky.write_buf(&mut src).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::Interrupted);
        assert_eq!(src.remaining(), 5, "a failed write advances nothing");
        flaky.write_all_buf(&mut src).await.unwrap();
        assert_eq!(flaky.out, b"hello");
    });
}
