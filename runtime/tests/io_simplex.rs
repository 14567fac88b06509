//! `io::simplex` and `SimplexStream`: a one-way in-memory stream that
//! carries bytes in order, waits while full, ends at shutdown, spends
//! budget per ready operation.

mod support;

use futures::FutureExt;
use rt::io::{AsyncReadExt, AsyncWriteExt, SimplexStream, simplex};
use support::{SINGLE_POLLER, each, each_runtime};

#[test]
fn carries_more_than_its_buffer_in_order_across_tasks() {
    each_runtime(|_, rt| {
        let received = rt.block_on(async {
            let (mut reader, mut writer) = simplex(7);
            let payload: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
            let expected = payload.clone();
            let producer = rt::spawn(async move {
                writer.write_all(&payload).await.unwrap();
                writer.shutdown().await.unwrap();
            });
            let mut received = Vec::new();
            reader.read_to_end(&mut received).await.unwrap();
            producer.await.unwrap();
            assert_eq!(received, expected);
            received.len()
        });
        assert_eq!(received, 10_000);
    });
}

#[test]
fn a_full_buffer_makes_the_writer_wait_until_the_reader_reads() {
    each_runtime(|_, rt| {
        rt.block_on(async {
            let mut stream = SimplexStream::new_unsplit(3);
            assert_eq!(stream.write(b"abcd").await.unwrap(), 3);
            assert!(
                stream.write(b"d").now_or_never().is_none(),
                "wrote into a full buffer"
            );
            let mut one = [0; 1];
            stream.read_exact(&mut one).await.unwrap();
            assert_eq!(&one, b"a");
            assert_eq!(stream.write(b"de").await.unwrap(), 1);
            let mut rest = [0; 3];
            stream.read_exact(&mut rest).await.unwrap();
            assert_eq!(&rest, b"bcd");
            // Empty and not shut down: a read waits.
            assert!(stream.read(&mut one).now_or_never().is_none());
        });
    });
}

#[test]
fn shutdown_gives_eof_after_the_buffered_bytes_and_breaks_later_writes() {
    each_runtime(|_, rt| {
        rt.block_on(async {
            let (mut reader, mut writer) = simplex(64);
            writer.write_all(b"last words").await.unwrap();
            writer.shutdown().await.unwrap();
            let err = writer.write(b"more").await.unwrap_err();
            assert_eq!(err.kind(), std::io::ErrorKind::BrokenPipe);
            assert!(err.to_string().contains("shut down"));
            let mut text = String::new();
            reader.read_to_string(&mut text).await.unwrap();
            assert_eq!(text, "last words");
            assert_eq!(reader.read(&mut [0; 8]).await.unwrap(), 0);
            // The halves reunite into the stream.
            let stream: SimplexStream = reader.reunite(writer).unwrap();
            drop(stream);
        });
    });
}

#[test]
fn a_reader_waiting_is_woken_by_a_write_from_another_task() {
    each_runtime(|_, rt| {
        rt.block_on(async {
            let (mut reader, mut writer) = simplex(16);
            let read = rt::spawn(async move {
                let mut buf = [0; 5];
                reader.read_exact(&mut buf).await.unwrap();
                buf
            });
            rt::task::yield_now().await;
            writer.write_all(b"wake!").await.unwrap();
            assert_eq!(&read.await.unwrap(), b"wake!");
        });
    });
}

#[test]
fn ready_reads_and_writes_spend_budget() {
    each(&SINGLE_POLLER, |_, rt| {
        let metrics = rt.metrics();
        let before = metrics.budget_forced_yield_count();
        rt.block_on(async {
            rt::spawn(async {
                let mut stream = SimplexStream::new_unsplit(1);
                // Each round is a ready write and a ready read: the budget
                // runs out and the task is made to yield.
                for i in 0..1000u32 {
                    stream.write_all(&[i as u8]).await.unwrap();
                    let mut b = [0; 1];
                    stream.read_exact(&mut b).await.unwrap();
                    assert_eq!(b[0], i as u8);
                }
            })
            .await
            .unwrap();
        });
        assert!(metrics.budget_forced_yield_count() > before);
    });
}

#[test]
#[should_panic(expected = "`rt::io::simplex(0)`")]
fn a_zero_buffer_panics() {
    let _ = simplex(0);
}
