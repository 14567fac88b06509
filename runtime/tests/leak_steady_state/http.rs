//! rt::hyper: requests on one keep-alive connection, and connections opened
//! and closed (`--features hyper`).

use super::{Runtime, steady_for};
use http_body_util::{BodyExt, Empty, Full};
use hyper::body::{Bytes, Incoming};
use hyper::client::conn::{http1 as client1, http2 as client2};
use hyper::server::conn::{http1, http2};
use hyper::service::service_fn;
use hyper::{Request, Response};
use rt::hyper::{Executor, Io};
use rt::net::{TcpListener, TcpStream};
use std::convert::Infallible;
use std::net::SocketAddr;

/// Serves every connection to the returned address, HTTP/2 if `h2`,
/// HTTP/1.1 otherwise, until the returned task is aborted.
async fn server(h2: bool) -> (SocketAddr, rt::task::JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let serving = rt::spawn(async move {
        loop {
            let (stream, _) = listener.accept().await.unwrap();
            rt::spawn(async move {
                let hello = service_fn(|_request: Request<Incoming>| async {
                    Ok::<_, Infallible>(Response::new(Full::new(Bytes::from_static(b"hello"))))
                });
                let _ = if h2 {
                    http2::Builder::new(Executor::new())
                        .serve_connection(Io::new(stream), hello)
                        .await
                } else {
                    http1::Builder::new()
                        .serve_connection(Io::new(stream), hello)
                        .await
                };
            });
        }
    });
    (addr, serving)
}

fn get() -> Request<Empty<Bytes>> {
    Request::builder()
        .uri("http://localhost/")
        .body(Empty::new())
        .unwrap()
}

async fn answer(response: Response<Incoming>) {
    let body = response.into_body().collect().await.unwrap().to_bytes();
    assert_eq!(&body[..], b"hello");
}

pub(super) fn connections(runtime: &Runtime) {
    let (addr, serving) = runtime.block_on(server(false));
    let stream = runtime.block_on(TcpStream::connect(addr)).unwrap();
    let (sender, connection) = runtime
        .block_on(client1::handshake(Io::new(stream)))
        .unwrap();
    let connection = runtime.spawn(connection);
    let sender = rt::sync::Mutex::new(sender);
    steady_for(50, "http1 keep-alive request", runtime, || async {
        let mut sender = sender.lock().await;
        // The connection task takes the last response's end in its own
        // time: wait until it can take another request.
        sender.ready().await.unwrap();
        answer(sender.send_request(get()).await.unwrap()).await;
    });
    drop(sender);
    runtime.block_on(connection).unwrap().unwrap();
    steady_for(50, "http1 connection", runtime, || async {
        let stream = TcpStream::connect(addr).await.unwrap();
        let (mut sender, connection) = client1::handshake(Io::new(stream)).await.unwrap();
        let connection = rt::spawn(connection);
        answer(sender.send_request(get()).await.unwrap()).await;
        drop(sender);
        connection.await.unwrap().unwrap();
    });
    serving.abort();
    let _ = runtime.block_on(serving);

    let (addr, serving) = runtime.block_on(server(true));
    let stream = runtime.block_on(TcpStream::connect(addr)).unwrap();
    let (sender, connection) = runtime
        .block_on(client2::handshake(Executor::new(), Io::new(stream)))
        .unwrap();
    let connection = runtime.spawn(connection);
    steady_for(50, "http2 request on one connection", runtime, || {
        let mut sender = sender.clone();
        async move {
            answer(sender.send_request(get()).await.unwrap()).await;
        }
    });
    drop(sender);
    runtime.block_on(connection).unwrap().unwrap();
    steady_for(50, "http2 connection", runtime, || async {
        let stream = TcpStream::connect(addr).await.unwrap();
        let (mut sender, connection) = client2::handshake(Executor::new(), Io::new(stream))
            .await
            .unwrap();
        let connection = rt::spawn(connection);
        answer(sender.send_request(get()).await.unwrap()).await;
        drop(sender);
        connection.await.unwrap().unwrap();
    });
    serving.abort();
    let _ = runtime.block_on(serving);
}
