//! The io utilities: buffered wrappers, lines, copy, duplex, split, join,
//! empty/repeat/sink, on both runtime flavours.

mod support;

use std::io::{Cursor, SeekFrom};
use tokio::io::{
    AsyncBufReadExt, AsyncReadExt, AsyncSeekExt, AsyncWriteExt, BufReader, BufStream, BufWriter,
};

#[test]
fn buf_reader_lines_and_split() {
    support::on_both_flavours(|| async {
        let reader = BufReader::with_capacity(4, &b"first\r\nsecond\nthird"[..]);
        let mut lines = reader.lines();
        let mut all = Vec::new();
        while let Some(line) = lines.next_line().await.unwrap() {
            all.push(line);
        }
        assert_eq!(all, ["first", "second", "third"]);

        let mut parts = AsyncBufReadExt::split(BufReader::new(&b"a,,b"[..]), b',');
        let mut got = Vec::new();
        while let Some(part) = parts.next_segment().await.unwrap() {
            got.push(part);
        }
        assert_eq!(got, [b"a".to_vec(), Vec::new(), b"b".to_vec()]);
    });
}

#[test]
fn lines_is_cancel_safe() {
    support::on_both_flavours(|| async {
        let (mut write, read) = tokio::io::duplex(64);
        let mut lines = BufReader::new(read).lines();
        write.write_all(b"par").await.unwrap();
        // The first call reads "par" and is then dropped while waiting.
        let mut call = Box::pin(lines.next_line());
        assert!(futures_poll_once(call.as_mut()).await.is_none());
        drop(call);
        write.write_all(b"tial\n").await.unwrap();
        assert_eq!(lines.next_line().await.unwrap().as_deref(), Some("partial"));
    });
}

/// Polls `future` once: `Some` if it completed.
async fn futures_poll_once<F: std::future::Future + Unpin>(mut future: F) -> Option<F::Output> {
    std::future::poll_fn(|cx| {
        std::task::Poll::Ready(match std::pin::Pin::new(&mut future).poll(cx) {
            std::task::Poll::Ready(output) => Some(output),
            std::task::Poll::Pending => None,
        })
    })
    .await
}

#[test]
fn buf_reader_seek_accounts_for_the_buffer() {
    support::block_on(async {
        let mut reader = BufReader::with_capacity(4, Cursor::new(b"0123456789".to_vec()));
        assert_eq!(reader.read_u8().await.unwrap(), b'0');
        // The inner cursor is at 4; the caller is at 1.
        assert_eq!(reader.buffer(), b"123");
        assert_eq!(reader.seek(SeekFrom::Current(2)).await.unwrap(), 3);
        assert_eq!(reader.read_u8().await.unwrap(), b'3');
        assert_eq!(reader.seek(SeekFrom::Start(9)).await.unwrap(), 9);
        assert_eq!(reader.read_u8().await.unwrap(), b'9');
    });
}

#[test]
fn buf_reader_seek_after_a_failed_one_starts_afresh() {
    // Too far back for one `i64`: the inner reader moves back over the
    // buffer, then refuses the rest. The seek fails, and leaves nothing
    // behind for the next one, which `seek` starts with a `poll_complete`.
    support::block_on(async {
        let mut reader = BufReader::with_capacity(2, Cursor::new(b"0123456789".to_vec()));
        assert_eq!(reader.seek(SeekFrom::Start(3)).await.unwrap(), 3);
        assert_eq!(reader.fill_buf().await.unwrap(), b"34");
        assert!(reader.seek(SeekFrom::Current(i64::MIN)).await.is_err());
        assert_eq!(reader.fill_buf().await.unwrap(), b"34");
        assert_eq!(reader.seek(SeekFrom::Current(1)).await.unwrap(), 4);
        assert_eq!(reader.fill_buf().await.unwrap(), b"45");
    });
}

/// A seeker whose operation in progress failed: `poll_complete` reports
/// it, once, and `start_seek` counts the seeks started.
struct FailedBefore {
    failure: Option<std::io::Error>,
    started: usize,
}

impl tokio::io::AsyncSeek for FailedBefore {
    fn start_seek(mut self: std::pin::Pin<&mut Self>, _: SeekFrom) -> std::io::Result<()> {
        self.started += 1;
        Ok(())
    }

    fn poll_complete(
        mut self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<u64>> {
        std::task::Poll::Ready(self.failure.take().map_or(Ok(7), Err))
    }
}

#[test]
fn seek_returns_the_error_of_the_operation_in_progress() {
    // As tokio's `seek`: the error `poll_complete` gives before the seek
    // starts is the seek's, and the seek is not started.
    support::block_on(async {
        let failure = std::io::Error::other("the write before failed");
        let mut seeker = FailedBefore {
            failure: Some(failure),
            started: 0,
        };
        let error = seeker.seek(SeekFrom::Start(3)).await.unwrap_err();
        assert_eq!(error.to_string(), "the write before failed");
        assert_eq!(seeker.started, 0);
        assert_eq!(seeker.seek(SeekFrom::Start(3)).await.unwrap(), 7);
        assert_eq!(seeker.started, 1);
    });
}

#[test]
fn buf_writer_buffers_until_flush_and_writes_large_directly() {
    support::block_on(async {
        let mut writer = BufWriter::with_capacity(4, Vec::new());
        writer.write_all(b"ab").await.unwrap();
        assert!(writer.get_ref().is_empty());
        writer.write_all(b"cde").await.unwrap();
        // "ab" went out to make room; "cde" is buffered.
        assert_eq!(writer.get_ref(), b"ab");
        writer.write_all(b"0123456789").await.unwrap();
        assert_eq!(writer.get_ref(), b"abcde0123456789");
        writer.write_all(b"z").await.unwrap();
        writer.shutdown().await.unwrap();
        assert_eq!(writer.get_ref(), b"abcde0123456789z");

        let mut seeking = BufWriter::new(Cursor::new(vec![0u8; 4]));
        seeking.write_all(b"ab").await.unwrap();
        seeking.seek(SeekFrom::Start(3)).await.unwrap();
        seeking.write_all(b"c").await.unwrap();
        seeking.flush().await.unwrap();
        assert_eq!(seeking.into_inner().into_inner(), b"ab\0c");
    });
}

#[test]
fn buf_stream_converts_keeping_buffered_bytes() {
    support::block_on(async {
        let (a, mut b) = tokio::io::duplex(64);
        b.write_all(b"one\ntwo\n").await.unwrap();
        let mut nested = BufWriter::new(BufReader::new(a));
        let mut line = String::new();
        nested.read_line(&mut line).await.unwrap();
        nested.write_all(b"unflushed").await.unwrap();
        let mut stream = BufStream::from(nested);
        line.clear();
        stream.read_line(&mut line).await.unwrap();
        assert_eq!(line, "two\n");
        stream.flush().await.unwrap();
        let mut got = [0; 9];
        b.read_exact(&mut got).await.unwrap();
        assert_eq!(&got, b"unflushed");
    });
}

#[test]
fn copy_and_copy_buf_move_everything() {
    support::on_both_flavours(|| async {
        let data: Vec<u8> = (0..200_000u32).map(|i| i as u8).collect();
        let (mut write, mut read) = tokio::io::duplex(1024);
        let expected = data.clone();
        let writer = rt::spawn(async move {
            let mut source: &[u8] = &data;
            tokio::io::copy(&mut source, &mut write).await.unwrap()
        });
        let mut sink = Vec::new();
        let mut buffered = BufReader::new(&mut read);
        let copied = tokio::io::copy_buf(&mut buffered, &mut sink);
        // The reading side first: the writer waits for room in the pipe.
        let got = copied.await.unwrap();
        let sent = writer.await.unwrap();
        assert_eq!((sent, got), (200_000, 200_000));
        assert_eq!(sink, expected);
    });
}

#[test]
fn copy_bidirectional_proxies_and_shuts_down() {
    support::on_both_flavours(|| async {
        let (mut client, mut proxy_client_side) = tokio::io::duplex(16);
        let (mut proxy_server_side, mut server) = tokio::io::duplex(16);
        let proxy = rt::spawn(async move {
            tokio::io::copy_bidirectional_with_sizes(
                &mut proxy_client_side,
                &mut proxy_server_side,
                7,
                5,
            )
            .await
        });
        let request = vec![1u8; 1000];
        let sent = request.clone();
        // The pipeline holds far fewer than 1000 bytes: write from a task.
        let client = rt::spawn(async move {
            client.write_all(&sent).await.unwrap();
            client.shutdown().await.unwrap();
            let mut reply = Vec::new();
            client.read_to_end(&mut reply).await.unwrap();
            reply
        });
        let mut got = Vec::new();
        server.read_to_end(&mut got).await.unwrap();
        assert_eq!(got, request);
        server.write_all(b"reply").await.unwrap();
        server.shutdown().await.unwrap();
        let reply = client.await.unwrap();
        assert_eq!(reply, b"reply");
        assert_eq!(proxy.await.unwrap().unwrap(), (1000, 5));
    });
}

#[test]
fn duplex_peer_drop_is_eof_and_broken_pipe() {
    support::on_both_flavours(|| async {
        let (mut a, b) = tokio::io::duplex(8);
        drop(b);
        let err = a.write_all(b"x").await.unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::BrokenPipe);
        let mut buf = [0; 1];
        assert_eq!(a.read(&mut buf).await.unwrap(), 0);
    });
}

#[test]
fn duplex_reads_into_uninitialised_memory() {
    support::block_on(async {
        let (mut a, mut b) = tokio::io::duplex(8);
        a.write_all(b"abc").await.unwrap();
        // `read_to_end` hands the vector's spare capacity (uninitialised)
        // to the stream.
        a.shutdown().await.unwrap();
        let mut got = Vec::with_capacity(64);
        b.read_to_end(&mut got).await.unwrap();
        assert_eq!(got, b"abc");
    });
}

#[test]
fn split_halves_work_from_two_tasks_and_unsplit() {
    support::on_both_flavours(|| async {
        let (a, mut b) = tokio::io::duplex(4);
        let (mut read, mut write) = tokio::io::split(a);
        let writer = rt::spawn(async move {
            write.write_all(&[5u8; 100]).await.unwrap();
            write
        });
        let mut got = [0u8; 100];
        b.read_exact(&mut got).await.unwrap();
        b.write_all(b"back").await.unwrap();
        let mut back = [0u8; 4];
        read.read_exact(&mut back).await.unwrap();
        assert_eq!(&back, b"back");
        let write = writer.await.unwrap();
        assert!(read.is_pair_of(&write));
        let _a = read.unsplit(write);
    });
}

#[test]
#[should_panic(expected = "Unrelated `split::Write` passed to `split::Read::unsplit`.")]
fn unsplit_with_another_streams_half_panics() {
    support::block_on(async {
        let (read, _) = tokio::io::split(tokio::io::empty());
        let (_, write) = tokio::io::split(tokio::io::empty());
        read.unsplit(write);
    });
}

#[test]
fn join_reads_one_and_writes_the_other() {
    support::block_on(async {
        let mut joined = tokio::io::join(&b"in"[..], Vec::new());
        let mut got = String::new();
        joined.read_to_string(&mut got).await.unwrap();
        joined.write_all(b"out").await.unwrap();
        assert_eq!(joined.writer(), b"out");
        assert_eq!(got, "in");
    });
}

#[test]
fn empty_repeat_sink_spend_budget_so_loops_yield() {
    support::block_on(async {
        // Without budget, this loop would never let the spawned task run.
        let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let seen = flag.clone();
        rt::spawn(async move { seen.store(true, std::sync::atomic::Ordering::SeqCst) });
        let mut sink = tokio::io::sink();
        let mut repeat = tokio::io::repeat(1);
        let mut buf = [0u8; 1];
        // Bounded: the budget (128 units) forces a yield long before.
        let mut iterations = 0;
        while !flag.load(std::sync::atomic::Ordering::SeqCst) && iterations < 10_000 {
            repeat.read_exact(&mut buf).await.unwrap();
            sink.write_all(&buf).await.unwrap();
            iterations += 1;
        }
        assert!(
            flag.load(std::sync::atomic::Ordering::SeqCst),
            "the loop never yielded to the spawned task"
        );
        assert_eq!(buf, [1]);
        let mut empty = tokio::io::empty();
        assert_eq!(empty.read(&mut buf).await.unwrap(), 0);
    });
}

#[test]
fn copy_and_copy_buf_spend_budget_so_loops_yield() {
    support::on_both_flavours(|| async {
        // Without budget, these loops would never let the spawned task run
        // (tokio's `copy_is_cooperative`, `copy_buf_is_cooperative`).
        for use_copy_buf in [false, true] {
            let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
            let seen = flag.clone();
            rt::spawn(async move { seen.store(true, std::sync::atomic::Ordering::SeqCst) });
            // Bounded: the budget (128 units) forces a yield long before.
            let mut iterations = 0;
            while !flag.load(std::sync::atomic::Ordering::SeqCst) && iterations < 10_000 {
                let mut reader: &[u8] = b"hello";
                let mut writer = Vec::new();
                let n = if use_copy_buf {
                    tokio::io::copy_buf(&mut reader, &mut writer).await
                } else {
                    tokio::io::copy(&mut reader, &mut writer).await
                };
                assert_eq!((n.unwrap(), &writer[..]), (5, &b"hello"[..]));
                iterations += 1;
            }
            assert!(
                flag.load(std::sync::atomic::Ordering::SeqCst),
                "the copy_buf={use_copy_buf} loop never yielded to the spawned task"
            );
        }
    });
}

#[test]
#[should_panic(expected = "`a_to_b_buf_size` must be greater than 0")]
fn copy_bidirectional_with_sizes_panics_on_zero_a_to_b_buffer() {
    let (mut a, _a_peer) = tokio::io::duplex(8);
    let (mut b, _b_peer) = tokio::io::duplex(8);
    support::block_on(tokio::io::copy_bidirectional_with_sizes(
        &mut a, &mut b, 0, 1,
    ))
    .unwrap();
}

#[test]
#[should_panic(expected = "`b_to_a_buf_size` must be greater than 0")]
fn copy_bidirectional_with_sizes_panics_on_zero_b_to_a_buffer() {
    let (mut a, _a_peer) = tokio::io::duplex(8);
    let (mut b, _b_peer) = tokio::io::duplex(8);
    support::block_on(tokio::io::copy_bidirectional_with_sizes(
        &mut a, &mut b, 1, 0,
    ))
    .unwrap();
}

#[test]
fn read_to_end_does_not_grow_a_vector_with_room() {
    support::block_on(async {
        let arr: Vec<u8> = (0..100).collect();
        // tokio's read_to_end_doesnt_grow_with_capacity, with one read or
        // two (split), into vectors of every capacity around the length.
        for len in [1, 31, 32, 33, 64, 99] {
            let bytes = &arr[..len];
            for split in [0, len / 2] {
                for cap in 0..101 {
                    let mut reader = bytes[..split].chain(&bytes[split..]);
                    let mut buf = Vec::with_capacity(cap);
                    let n = reader.read_to_end(&mut buf).await.unwrap();
                    assert_eq!((n, buf.as_slice()), (len, bytes));
                    if cap >= len {
                        assert_eq!(buf.capacity(), cap, "len {len} split {split}");
                    }
                }
            }
        }
    });
}

/// A writer without vectored writes that takes at most 4 bytes a call.
struct SmallWrites(Vec<u8>);

impl tokio::io::AsyncWrite for SmallWrites {
    fn poll_write(
        mut self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        let n = buf.len().min(4);
        self.0.extend_from_slice(&buf[..n]);
        std::task::Poll::Ready(Ok(n))
    }

    fn poll_flush(
        self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn poll_shutdown(
        self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::task::Poll::Ready(Ok(()))
    }
}

#[test]
fn buf_writer_vectored_large_total_on_non_vectored_fills_the_buffer() {
    support::on_both_flavours(|| async {
        // tokio's write_vectored_large_total_on_non_vectored.
        let msg = b"foo bar baz";
        let mut w = BufWriter::with_capacity(8, SmallWrites(Vec::new()));
        let bufs = [
            std::io::IoSlice::new(&msg[0..4]),
            std::io::IoSlice::new(&msg[4..8]),
            std::io::IoSlice::new(&msg[8..]),
        ];
        assert_eq!(w.write_vectored(&bufs).await.unwrap(), 8);
        assert_eq!(w.buffer(), &msg[..8]);
        let rest = [std::io::IoSlice::new(&msg[8..])];
        assert_eq!(w.write_vectored(&rest).await.unwrap(), 3);
        assert_eq!(w.get_ref().0, &msg[..8]);
        assert_eq!(w.buffer(), &msg[8..]);
    });
}

/// tokio's `read_to_end_uninit` reader: checks, on every call, how much of
/// the unfilled buffer is initialised (carried over between calls, and 0
/// in a fresh buffer), initialising one byte more than it fills at first,
/// then filling initialised bytes only.
struct UninitCheck {
    num_init: usize,
    calls: usize,
}

impl tokio::io::AsyncRead for UninitCheck {
    fn poll_read(
        self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let me = self.get_mut();
        let real_num_init = buf.initialized().len() - buf.filled().len();
        assert_eq!(real_num_init, me.num_init, "call {}", me.calls);
        me.calls += 1;
        if me.calls <= 24 {
            buf.initialize_unfilled_to(me.num_init + 2);
            buf.advance(1);
            me.num_init += 1;
        } else if me.calls <= 33 {
            buf.advance(1);
            me.num_init -= 1;
            if me.calls == 33 {
                // 31 bytes left of 64: the next read goes to new memory.
                me.num_init = 0;
            }
        }
        std::task::Poll::Ready(Ok(()))
    }
}

#[test]
fn read_to_end_carries_the_initialised_count() {
    support::on_both_flavours(|| async {
        let mut buf = Vec::with_capacity(64);
        let mut reader = UninitCheck {
            num_init: 0,
            calls: 0,
        };
        assert_eq!(reader.read_to_end(&mut buf).await.unwrap(), 33);
        assert_eq!(buf.len(), 33);
    });
}

/// A writer that holds everything written until flushed into a duplex end.
struct FlushToDuplex {
    held: Vec<u8>,
    writer: tokio::io::DuplexStream,
}

impl tokio::io::AsyncWrite for FlushToDuplex {
    fn poll_write(
        self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        self.get_mut().held.extend_from_slice(buf);
        std::task::Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let me = self.get_mut();
        while !me.held.is_empty() {
            let n = std::task::ready!(std::pin::Pin::new(&mut me.writer).poll_write(cx, &me.held))?;
            me.held.drain(..n);
        }
        std::pin::Pin::new(&mut me.writer).poll_flush(cx)
    }

    fn poll_shutdown(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.writer).poll_shutdown(cx)
    }
}

#[test]
fn copy_and_copy_buf_flush_the_writer_while_the_reader_waits() {
    support::on_both_flavours(|| async {
        // tokio's io_copy proxy/proxy_buf: the copy feeds its own reader
        // through a writer that holds bytes until flushed.
        for use_copy_buf in [false, true] {
            let (rd, wd) = tokio::io::duplex(1024);
            let mut wd = FlushToDuplex {
                held: Vec::new(),
                writer: wd,
            };
            wd.write_all(&[0x42; 512]).await.unwrap();
            wd.flush().await.unwrap();
            let n = if use_copy_buf {
                let mut rd = BufReader::new(rd).take(1024);
                tokio::io::copy_buf(&mut rd, &mut wd).await.unwrap()
            } else {
                let mut rd = rd.take(1024);
                tokio::io::copy(&mut rd, &mut wd).await.unwrap()
            };
            assert_eq!(n, 1024);
        }
    });
}

#[test]
fn copy_bidirectional_reads_on_while_the_writer_is_full() {
    // tokio tops its buffer up while a write waits: a client that sends its
    // whole request before it reads the reply does not stall the proxy,
    // even with the server not reading yet.
    let runtime = rt::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .unwrap();
    runtime.block_on(async {
        let (mut client, mut proxy_client_side) = tokio::io::duplex(4);
        let (mut proxy_server_side, mut server) = tokio::io::duplex(4);
        let proxy = rt::spawn(async move {
            tokio::io::copy_bidirectional_with_sizes(
                &mut proxy_client_side,
                &mut proxy_server_side,
                64,
                64,
            )
            .await
        });
        // 32 bytes: more than the two pipes hold, less than they and the
        // proxy's buffer do. The clock is paused, so the timeout fires
        // only once every task is stuck: it detects the stall, not a delay.
        let request = [7u8; 32];
        let sent = rt::time::timeout(
            std::time::Duration::from_secs(3600),
            client.write_all(&request),
        )
        .await;
        assert!(
            sent.is_ok(),
            "the proxy stopped reading the client while the server's pipe was full"
        );
        client.shutdown().await.unwrap();
        let mut got = Vec::new();
        server.read_to_end(&mut got).await.unwrap();
        assert_eq!(got, request);
        server.shutdown().await.unwrap();
        assert_eq!(proxy.await.unwrap().unwrap(), (32, 0));
    });
}
