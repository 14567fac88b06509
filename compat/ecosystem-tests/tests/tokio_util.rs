//! tokio-util on rt: `CancellationToken` and `TaskTracker` drive tasks
//! that rt's dump lists; `Framed` codecs over the facade's in-memory and
//! TCP streams; `DelayQueue` on a paused clock. Each test runs on both
//! schedulers where it applies.

use futures::{SinkExt, StreamExt};
use rt_ecosystem_tests::{assert_rt_runs, bounded};
use std::time::Duration;
use tokio_util::codec::{Framed, LengthDelimitedCodec, LinesCodec};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

async fn cancellation_and_tracker() {
    let token = CancellationToken::new();
    let tracker = TaskTracker::new();
    let (ready_tx, mut ready_rx) = tokio::sync::mpsc::channel(8);
    let mut ids = Vec::new();
    for i in 0..8u32 {
        let child = token.child_token();
        let ready = ready_tx.clone();
        let handle = tracker.spawn(async move {
            ready.send(()).await.unwrap();
            child.cancelled().await;
            i
        });
        ids.push(handle.id());
    }
    for _ in 0..8 {
        bounded("tasks start", ready_rx.recv()).await.unwrap();
    }
    // The tracked tasks are rt tasks: rt's dump lists every one of them.
    for id in ids {
        assert_rt_runs(id);
    }
    assert_eq!(tracker.len(), 8);
    tracker.close();
    assert!(!tracker.is_empty());
    token.cancel();
    bounded("tracker.wait()", tracker.wait()).await;
    assert!(tracker.is_empty());
    assert!(token.is_cancelled());
}

#[tokio::test]
async fn cancellation_token_and_task_tracker_current_thread() {
    cancellation_and_tracker().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancellation_token_and_task_tracker_multi_thread() {
    cancellation_and_tracker().await;
}

#[tokio::test]
async fn run_until_cancelled() {
    let token = CancellationToken::new();
    let task = tokio::spawn({
        let token = token.clone();
        async move {
            token
                .run_until_cancelled(std::future::pending::<()>())
                .await
        }
    });
    assert_rt_runs(task.id());
    token.cancel();
    assert_eq!(bounded("cancelled task", task).await.unwrap(), None);
}

async fn lines_over_duplex() {
    let (client, server) = tokio::io::duplex(64);
    let mut client = Framed::new(client, LinesCodec::new());
    let mut server = Framed::new(server, LinesCodec::new());
    let echo = tokio::spawn(async move {
        while let Some(line) = server.next().await {
            let line = line.unwrap();
            server.send(line.to_uppercase()).await.unwrap();
        }
    });
    assert_rt_runs(echo.id());
    for word in [
        "alpha",
        "beta",
        "a line longer than the sixty-four byte pipe buffer, split",
    ] {
        client.send(word).await.unwrap();
        let reply = bounded("echoed line", client.next())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(reply, word.to_uppercase());
    }
    drop(client);
    bounded("echo task ends", echo).await.unwrap();
}

#[tokio::test]
async fn framed_lines_over_duplex_current_thread() {
    lines_over_duplex().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn framed_lines_over_duplex_multi_thread() {
    lines_over_duplex().await;
}

async fn length_delimited_over_tcp() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(async move {
        let (stream, _) = listener.accept().await.unwrap();
        let mut framed = Framed::new(stream, LengthDelimitedCodec::new());
        let mut total = 0usize;
        while let Some(frame) = framed.next().await {
            let frame = frame.unwrap();
            total += frame.len();
            framed.send(frame.freeze()).await.unwrap();
        }
        total
    });
    let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let mut framed = Framed::new(stream, LengthDelimitedCodec::new());
    let mut sent = 0;
    for size in [0usize, 1, 1000, 300_000] {
        let payload: bytes::Bytes = (0..size).map(|i| (i % 251) as u8).collect();
        sent += size;
        framed.send(payload.clone()).await.unwrap();
        let echoed = bounded("echoed frame", framed.next())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(echoed, payload);
    }
    drop(framed);
    assert_eq!(bounded("server ends", server).await.unwrap(), sent);
}

#[tokio::test]
async fn framed_length_delimited_over_tcp_current_thread() {
    length_delimited_over_tcp().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn framed_length_delimited_over_tcp_multi_thread() {
    length_delimited_over_tcp().await;
}

/// `DelayQueue` sleeps on rt's timer wheel: on a paused clock the items
/// come out in deadline order at their virtual times.
#[tokio::test(start_paused = true)]
async fn delay_queue_on_a_paused_clock() {
    let start = tokio::time::Instant::now();
    let mut queue = tokio_util::time::DelayQueue::new();
    queue.insert("third", Duration::from_secs(30));
    queue.insert("first", Duration::from_secs(10));
    queue.insert("second", Duration::from_secs(20));
    let mut out = Vec::new();
    while let Some(expired) = queue.next().await {
        out.push((expired.into_inner(), start.elapsed().as_secs()));
    }
    assert_eq!(out, [("first", 10), ("second", 20), ("third", 30)]);
}
