//! hyper-util on rt through the facade: the auto (HTTP/1.1 + HTTP/2)
//! server with `TokioIo` and `TokioExecutor`, the legacy client with
//! `TokioTimer`; a multi-MiB body echoed intact over each protocol, on
//! both schedulers. The echo handler reports whether its task is in rt's
//! dump.

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Request, Response};
use hyper_util::client::legacy::Client;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use rt_ecosystem_tests::{assert_rt_runs, bounded, rt_task_ids};
use std::convert::Infallible;
use std::time::Duration;

async fn echo(request: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let version = format!("{:?}", request.version());
    let body = request.into_body().collect().await.unwrap().to_bytes();
    let in_rt = tokio::task::try_id().is_some_and(|id| rt_task_ids().contains(&id));
    Ok(Response::builder()
        .header("x-version", version)
        .header("x-task-in-rt-dump", in_rt.to_string())
        .body(Full::new(body))
        .unwrap())
}

async fn echo_big_body(http2: bool) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(async move {
        loop {
            let (stream, _) = listener.accept().await.unwrap();
            tokio::spawn(async move {
                let service = hyper::service::service_fn(echo);
                auto::Builder::new(TokioExecutor::new())
                    .serve_connection(TokioIo::new(stream), service)
                    .await
                    .unwrap();
            });
        }
    });
    assert_rt_runs(server.id());

    let client: Client<_, Full<Bytes>> = Client::builder(TokioExecutor::new())
        .pool_timer(TokioTimer::new())
        .pool_idle_timeout(Duration::from_secs(30))
        .http2_only(http2)
        .build_http();
    let body: Bytes = (0..5 * 1024 * 1024u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    for _ in 0..2 {
        let request = Request::post(format!("http://{addr}/echo"))
            .body(Full::new(body.clone()))
            .unwrap();
        let response = bounded("echo request", client.request(request))
            .await
            .unwrap();
        let headers = response.headers().clone();
        let echoed = bounded("echo body", response.into_body().collect())
            .await
            .unwrap()
            .to_bytes();
        assert_eq!(echoed.len(), body.len());
        assert!(echoed == body, "the echoed body differs");
        let expected = if http2 { "HTTP/2.0" } else { "HTTP/1.1" };
        assert_eq!(headers["x-version"], expected);
        assert_eq!(headers["x-task-in-rt-dump"], "true");
    }
    server.abort();
    assert!(server.await.unwrap_err().is_cancelled());
}

#[tokio::test]
async fn http1_current_thread() {
    echo_big_body(false).await;
}

#[tokio::test]
async fn http2_current_thread() {
    echo_big_body(true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http1_multi_thread() {
    echo_big_body(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http2_multi_thread() {
    echo_big_body(true).await;
}
