//! HTTP/2 through `rt::hyper::Executor` with many streams open on one
//! connection: all served at once, the connection task aborted from
//! another thread while they wait (the stream tasks it spawned must end
//! and drop their service futures), and the runtime dropped while they
//! wait (nothing may hang or outlive it).

mod support;
#[path = "support/http.rs"]
mod support_http;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::http2;
use hyper::service::service_fn;
use hyper::{Request, Response};
use rt::hyper::{Executor, Io, Timer};
use rt::net::UnixStream;
use rt::sync::{Notify, mpsc};
use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use support::{DropCounter, on_both};
use support_http::{abort_from_another_thread, request, yield_until};

/// How many streams the HTTP/2 tests open at once on one connection.
const STREAMS: usize = 128;

/// An HTTP/2 server on `server` whose service reports each request on
/// `arrived` and waits until `gather` requests are in, then answers each
/// with its own path. Every service future holds a guard from `drops`.
fn serve_http2_gathering(
    server: UnixStream,
    gather: usize,
    arrived: mpsc::UnboundedSender<()>,
    drops: DropCounter,
) -> rt::task::JoinHandle<()> {
    let count = Arc::new(AtomicUsize::new(0));
    let all_in = Arc::new(Notify::new());
    rt::spawn(async move {
        let service = service_fn(move |request: Request<Incoming>| {
            let (count, all_in) = (Arc::clone(&count), Arc::clone(&all_in));
            let (arrived, guard) = (arrived.clone(), drops.guard());
            async move {
                let _guard = guard;
                let gathered = all_in.notified();
                let _ = arrived.send(());
                if count.fetch_add(1, Ordering::SeqCst) + 1 == gather {
                    all_in.notify_waiters();
                } else {
                    gathered.await;
                }
                let path = Bytes::from(request.uri().path().to_owned());
                Ok::<_, Infallible>(Response::new(Full::new(path)))
            }
        });
        // A connection cut off by a dropped runtime ends in an error;
        // one closed by its client ends cleanly.
        let _ = http2::Builder::new(Executor::new())
            .max_concurrent_streams(STREAMS as u32)
            .timer(Timer::new())
            .serve_connection(Io::new(server), service)
            .await;
    })
}

/// Sends `STREAMS` requests at once over one HTTP/2 connection on
/// `client`, each from its own task; returns the tasks.
async fn open_http2_streams(
    client: UnixStream,
) -> Vec<rt::task::JoinHandle<Result<Bytes, hyper::Error>>> {
    let (sender, connection) =
        hyper::client::conn::http2::handshake(Executor::new(), Io::new(client))
            .await
            .unwrap();
    rt::spawn(connection);
    (0..STREAMS)
        .map(|i| {
            let mut sender = sender.clone();
            rt::spawn(async move {
                let response = sender
                    .send_request(request("GET", &format!("/{i}"), ""))
                    .await?;
                Ok(response.into_body().collect().await?.to_bytes())
            })
        })
        .collect()
}

#[test]
fn http2_serves_many_streams_at_once_on_one_connection() {
    on_both(|| async {
        let drops = DropCounter::new();
        let (client, server) = UnixStream::pair().unwrap();
        let (arrived, _) = mpsc::unbounded_channel();
        let serving = serve_http2_gathering(server, STREAMS, arrived, drops.clone());
        let streams = open_http2_streams(client).await;
        for (i, stream) in streams.into_iter().enumerate() {
            assert_eq!(stream.await.unwrap().unwrap(), format!("/{i}"));
        }
        // The last sender went with its task: the connection closes.
        serving.await.unwrap();
        assert_eq!(drops.created(), STREAMS);
        assert_eq!(drops.alive(), 0);
    });
}

#[test]
fn dropping_the_runtime_with_http2_streams_open_leaks_nothing() {
    support::each_runtime(|_, rt| {
        let drops = DropCounter::new();
        let metrics = rt.handle().metrics();
        let streams = rt.block_on(async {
            let (client, server) = UnixStream::pair().unwrap();
            let (arrived_tx, mut arrived) = mpsc::unbounded_channel();
            // Gathering one more request than is ever sent: every stream
            // stays open, its request waiting in the service.
            serve_http2_gathering(server, STREAMS + 1, arrived_tx, drops.clone());
            let streams = open_http2_streams(client).await;
            for _ in 0..STREAMS {
                arrived.recv().await.unwrap();
            }
            streams
        });
        // The two connections, the client's request tasks, and the
        // server's stream tasks (spawned through `Executor`).
        assert!(metrics.num_alive_tasks() >= 2 * STREAMS + 2);
        assert_eq!(drops.alive(), STREAMS);
        support::assert_no_deadlock("dropping the runtime with HTTP/2 streams open", move || {
            drop(rt)
        });
        assert_eq!(metrics.num_alive_tasks(), 0, "tasks outlived the runtime");
        assert_eq!(drops.alive(), 0, "service futures outlived the runtime");
        for stream in streams {
            let error = futures::executor::block_on(stream).unwrap_err();
            assert!(error.is_cancelled(), "{error}");
        }
    });
}

#[test]
fn aborting_an_http2_connection_from_another_thread_ends_its_stream_tasks() {
    on_both(|| async {
        let metrics = rt::runtime::Handle::current().metrics();
        let alive_before = metrics.num_alive_tasks();
        let drops = DropCounter::new();
        let (client, server) = UnixStream::pair().unwrap();
        let (arrived_tx, mut arrived) = mpsc::unbounded_channel();
        let serving = serve_http2_gathering(server, STREAMS + 1, arrived_tx, drops.clone());
        let streams = open_http2_streams(client).await;
        for _ in 0..STREAMS {
            arrived.recv().await.unwrap();
        }
        // Every request waits in the server's stream tasks (spawned
        // through `Executor`); the connection task goes.
        abort_from_another_thread(serving.abort_handle());
        assert!(serving.await.unwrap_err().is_cancelled());
        for stream in streams {
            assert!(stream.await.unwrap().is_err());
        }
        // The stream tasks saw their connection go and dropped the
        // service futures; nothing is left running.
        yield_until("the service futures are dropped", || drops.alive() == 0).await;
        yield_until("every task has ended", || {
            metrics.num_alive_tasks() == alive_before
        })
        .await;
        assert_eq!(drops.created(), STREAMS);
    });
}
