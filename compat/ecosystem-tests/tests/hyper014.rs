//! hyper 0.14 on rt through the facade, as the many crates still on it
//! use it: `Server::bind` (its own `AddrIncoming` on the facade's
//! listener) and `Client::builder().build_http()`, over HTTP/1.1 and
//! HTTP/2 on both schedulers. Concurrent echo requests; a response body
//! streamed from a `Body::channel` in lockstep with the client reading it
//! (each chunk is sent only after the client has the one before, so it
//! cannot be buffered whole); an HTTP/1.1 upgrade to a raw byte stream;
//! graceful shutdown that lets an in-flight request finish.

use hyper::body::{Bytes, HttpBody};
use hyper::service::{make_service_fn, service_fn};
use hyper::{Body, Client, Request, Response, Server, StatusCode};
use hyper014 as hyper;
use rt_ecosystem_tests::{assert_rt_runs, bounded};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot};

const CHUNKS: usize = 50;
const CHUNK_LEN: usize = 4096;

/// What the test hands the server's handlers: the acknowledgements that
/// pace the streamed body, and the in-flight request's two signals.
#[derive(Default)]
struct Shared {
    acks: Mutex<Option<mpsc::UnboundedReceiver<()>>>,
    in_flight: Mutex<Option<(oneshot::Sender<()>, oneshot::Receiver<()>)>>,
}

async fn handle(shared: Arc<Shared>, request: Request<Body>) -> Result<Response<Body>, Infallible> {
    let response = match request.uri().path() {
        "/echo" => {
            let body = hyper::body::to_bytes(request.into_body()).await.unwrap();
            Response::new(Body::from(body))
        }
        "/stream" => {
            let mut acks = shared.acks.lock().unwrap().take().unwrap();
            let (mut sender, body) = Body::channel();
            tokio::spawn(async move {
                for i in 0..CHUNKS {
                    sender.send_data(chunk(i)).await.unwrap();
                    if i + 1 < CHUNKS {
                        acks.recv().await.unwrap();
                    }
                }
            });
            Response::new(body)
        }
        "/upgrade" => {
            tokio::spawn(async move {
                let mut upgraded = hyper::upgrade::on(request).await.unwrap();
                let mut ping = [0; 4];
                upgraded.read_exact(&mut ping).await.unwrap();
                assert_eq!(&ping, b"ping");
                upgraded.write_all(b"pong, then EOF").await.unwrap();
                upgraded.shutdown().await.unwrap();
            });
            Response::builder()
                .status(StatusCode::SWITCHING_PROTOCOLS)
                .header("upgrade", "rt-test")
                .header("connection", "upgrade")
                .body(Body::empty())
                .unwrap()
        }
        "/in-flight" => {
            let (entered, release) = shared.in_flight.lock().unwrap().take().unwrap();
            entered.send(()).unwrap();
            release.await.unwrap();
            Response::new(Body::from("finished after shutdown began"))
        }
        _ => Response::builder()
            .status(StatusCode::NOT_FOUND)
            .body(Body::empty())
            .unwrap(),
    };
    Ok(response)
}

fn chunk(i: usize) -> Bytes {
    Bytes::from(vec![i as u8; CHUNK_LEN])
}

async fn get(
    client: &Client<hyper::client::HttpConnector>,
    addr: SocketAddr,
    path: &str,
) -> Response<Body> {
    let uri = format!("http://{addr}{path}").parse().unwrap();
    bounded(path, client.get(uri)).await.unwrap()
}

async fn serve(http2: bool) {
    let shared = Arc::new(Shared::default());
    let make_service = {
        let shared = shared.clone();
        make_service_fn(move |_connection| {
            let shared = shared.clone();
            async move {
                Ok::<_, Infallible>(service_fn(move |request| handle(shared.clone(), request)))
            }
        })
    };
    let (stop_tx, stop_rx) = oneshot::channel::<()>();
    let server = Server::bind(&"127.0.0.1:0".parse().unwrap())
        .http2_only(http2)
        .serve(make_service);
    let addr = server.local_addr();
    let server = tokio::spawn(server.with_graceful_shutdown(async {
        stop_rx.await.unwrap();
    }));
    assert_rt_runs(server.id());
    let client = Client::builder().http2_only(http2).build_http::<Body>();

    // Concurrent echoes: HTTP/2 streams, or a pool of HTTP/1.1
    // connections.
    let mut echoes = tokio::task::JoinSet::new();
    for i in 0..20usize {
        let client = client.clone();
        echoes.spawn(async move {
            let body = vec![i as u8; i * 3000];
            let request = Request::post(format!("http://{addr}/echo"))
                .body(Body::from(body.clone()))
                .unwrap();
            let response = client.request(request).await.unwrap();
            assert_eq!(response.status(), StatusCode::OK);
            let expected = if http2 {
                hyper::Version::HTTP_2
            } else {
                hyper::Version::HTTP_11
            };
            assert_eq!(response.version(), expected);
            let echoed = hyper::body::to_bytes(response.into_body()).await.unwrap();
            assert!(echoed == body, "echo {i} differs");
        });
    }
    bounded("echoes", async {
        while let Some(result) = echoes.join_next().await {
            result.unwrap();
        }
    })
    .await;
    assert_eq!(
        get(&client, addr, "/nowhere").await.status(),
        StatusCode::NOT_FOUND
    );

    // The streamed body, in lockstep.
    let (ack_tx, ack_rx) = mpsc::unbounded_channel();
    *shared.acks.lock().unwrap() = Some(ack_rx);
    let mut body = get(&client, addr, "/stream").await.into_body();
    let mut received = Vec::new();
    for i in 0..CHUNKS {
        while received.len() < (i + 1) * CHUNK_LEN {
            let data = bounded("a chunk", body.data()).await.unwrap().unwrap();
            received.extend_from_slice(&data);
        }
        assert_eq!(
            received.len(),
            (i + 1) * CHUNK_LEN,
            "chunk {i} ran into the next"
        );
        assert!(
            received[i * CHUNK_LEN..] == chunk(i)[..],
            "chunk {i} differs"
        );
        if i + 1 < CHUNKS {
            ack_tx.send(()).unwrap();
        }
    }
    // Then the end (over HTTP/2 an empty DATA frame may carry it).
    while let Some(data) = bounded("end of the body", body.data()).await {
        assert!(data.unwrap().is_empty(), "data after the last chunk");
    }

    if !http2 {
        let request = Request::get(format!("http://{addr}/upgrade"))
            .header("upgrade", "rt-test")
            .header("connection", "upgrade")
            .body(Body::empty())
            .unwrap();
        let response = bounded("upgrade", client.request(request)).await.unwrap();
        assert_eq!(response.status(), StatusCode::SWITCHING_PROTOCOLS);
        let mut upgraded = bounded("upgraded", hyper::upgrade::on(response))
            .await
            .unwrap();
        upgraded.write_all(b"ping").await.unwrap();
        let mut reply = String::new();
        bounded("read to EOF", upgraded.read_to_string(&mut reply))
            .await
            .unwrap();
        assert_eq!(reply, "pong, then EOF");
    }

    // Graceful shutdown: the server stops while a request is in its
    // handler, and that request still gets its whole response.
    let (entered_tx, entered_rx) = oneshot::channel();
    let (release_tx, release_rx) = oneshot::channel();
    *shared.in_flight.lock().unwrap() = Some((entered_tx, release_rx));
    let in_flight = tokio::spawn({
        let client = client.clone();
        async move {
            let response = get(&client, addr, "/in-flight").await;
            hyper::body::to_bytes(response.into_body()).await.unwrap()
        }
    });
    bounded("handler entered", entered_rx).await.unwrap();
    stop_tx.send(()).unwrap();
    // The server cannot finish while its connection has a request in a
    // handler.
    assert!(!server.is_finished());
    release_tx.send(()).unwrap();
    let body = bounded("in-flight response", in_flight).await.unwrap();
    assert_eq!(&body[..], b"finished after shutdown began");
    drop(client);
    bounded("graceful shutdown", server).await.unwrap().unwrap();
}

#[tokio::test]
async fn http1_current_thread() {
    serve(false).await;
}

#[tokio::test]
async fn http2_current_thread() {
    serve(true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http1_multi_thread() {
    serve(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http2_multi_thread() {
    serve(true).await;
}
