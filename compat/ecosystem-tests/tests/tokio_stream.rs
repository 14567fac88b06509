//! tokio-stream on rt: its timer combinators on a paused clock (rt's
//! timer wheel), `StreamMap`, and the wrappers over the facade's channels
//! and listener.

use rt_ecosystem_tests::{assert_rt_runs, bounded};
use std::time::Duration;
use tokio::time::Instant;
use tokio_stream::wrappers::{
    BroadcastStream, IntervalStream, ReceiverStream, TcpListenerStream, UnboundedReceiverStream,
    WatchStream,
};
use tokio_stream::{StreamExt, StreamMap};

#[tokio::test(start_paused = true)]
async fn interval_stream_ticks_on_virtual_time() {
    let start = Instant::now();
    let ticks: Vec<u64> = IntervalStream::new(tokio::time::interval(Duration::from_secs(5)))
        .take(4)
        .map(|at| at.duration_since(start).as_secs())
        .collect()
        .await;
    assert_eq!(ticks, [0, 5, 10, 15]);
    assert_eq!(start.elapsed(), Duration::from_secs(15));
}

#[tokio::test(start_paused = true)]
async fn timeout_throttle_and_chunks_timeout() {
    // `timeout`: a stream that stalls for 10 s against a 3 s limit.
    let (tx, rx) = tokio::sync::mpsc::channel(4);
    let producer = tokio::spawn(async move {
        tx.send(1).await.unwrap();
        tokio::time::sleep(Duration::from_secs(10)).await;
        tx.send(2).await.unwrap();
    });
    assert_rt_runs(producer.id());
    let items: Vec<Result<i32, _>> = ReceiverStream::new(rx)
        .timeout(Duration::from_secs(3))
        .collect()
        .await;
    assert_eq!(items.len(), 3);
    assert_eq!(items[0].as_ref().ok(), Some(&1));
    assert!(items[1].is_err(), "the 10 s stall timed out");
    assert_eq!(items[2].as_ref().ok(), Some(&2));

    // `throttle`: 3 items at least 2 s apart.
    let start = Instant::now();
    let throttled: Vec<u8> = tokio_stream::iter([1u8, 2, 3])
        .throttle(Duration::from_secs(2))
        .collect()
        .await;
    assert_eq!(throttled, [1, 2, 3]);
    assert!(start.elapsed() >= Duration::from_secs(4));

    // `chunks_timeout`: a full chunk at once, the rest after the deadline.
    let start = Instant::now();
    let chunks: Vec<Vec<u8>> = tokio_stream::iter(1..=5u8)
        .chain(tokio_stream::pending())
        .chunks_timeout(3, Duration::from_secs(7))
        .take(2)
        .collect()
        .await;
    assert_eq!(chunks, [vec![1, 2, 3], vec![4, 5]]);
    assert_eq!(start.elapsed(), Duration::from_secs(7));
}

async fn stream_map_merges_keyed_streams() {
    let mut map = StreamMap::new();
    let mut producers = Vec::new();
    for key in ["a", "b", "c"] {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let producer = tokio::spawn(async move {
            for i in 0..10 {
                tx.send(i).unwrap();
                tokio::task::yield_now().await;
            }
        });
        assert_rt_runs(producer.id());
        producers.push(producer);
        map.insert(key, UnboundedReceiverStream::new(rx));
    }
    let mut seen: Vec<(&str, i32)> = bounded("StreamMap drains", map.collect()).await;
    seen.sort();
    let mut expected: Vec<(&str, i32)> = ["a", "b", "c"]
        .into_iter()
        .flat_map(|key| (0..10).map(move |i| (key, i)))
        .collect();
    expected.sort();
    assert_eq!(seen, expected);
    for producer in producers {
        producer.await.unwrap();
    }
}

#[tokio::test]
async fn stream_map_current_thread() {
    stream_map_merges_keyed_streams().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stream_map_multi_thread() {
    stream_map_merges_keyed_streams().await;
}

#[tokio::test]
async fn broadcast_and_watch_wrappers() {
    let (tx, rx) = tokio::sync::broadcast::channel(2);
    let mut stream = BroadcastStream::new(rx);
    for i in 0..4 {
        tx.send(i).unwrap();
    }
    drop(tx);
    let items: Vec<_> = bounded("broadcast stream", (&mut stream).collect::<Vec<_>>()).await;
    // Capacity 2: the first two were overwritten and reported as lagged.
    assert!(items[0].is_err());
    let values: Vec<i32> = items.into_iter().filter_map(Result::ok).collect();
    assert_eq!(values, [2, 3]);

    let (tx, rx) = tokio::sync::watch::channel(0);
    let mut watch = WatchStream::new(rx);
    assert_eq!(bounded("watch initial", watch.next()).await, Some(0));
    tx.send(5).unwrap();
    assert_eq!(bounded("watch update", watch.next()).await, Some(5));
    drop(tx);
    assert_eq!(bounded("watch closed", watch.next()).await, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tcp_listener_stream_accepts() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let mut incoming = TcpListenerStream::new(listener);
    let clients = tokio::spawn(async move {
        for _ in 0..3 {
            tokio::net::TcpStream::connect(addr).await.unwrap();
        }
    });
    for _ in 0..3 {
        let stream = bounded("accept", incoming.next()).await.unwrap().unwrap();
        assert_eq!(stream.local_addr().unwrap(), addr);
    }
    bounded("clients", clients).await.unwrap();
}
