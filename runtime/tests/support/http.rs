//! hyper clients on rt for the `hyper_*` tests, and the small services
//! their servers run.

#![allow(dead_code)]

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::client::conn::{http1, http2};
use hyper::{Request, Response};
use rt::hyper::{Executor, Io};
use rt::net::TcpStream;
use rt::task::JoinHandle;
use std::net::SocketAddr;

/// What the test clients send: a whole body at once.
pub(crate) type Body = Full<Bytes>;

/// An HTTP/1.1 client connection to `addr`, its connection task spawned
/// (its handle yields how the connection ended).
pub(crate) async fn http1_client(
    addr: SocketAddr,
) -> (http1::SendRequest<Body>, JoinHandle<hyper::Result<()>>) {
    let stream = TcpStream::connect(addr).await.expect("connecting");
    let (sender, connection) = http1::handshake(Io::new(stream))
        .await
        .expect("HTTP/1.1 handshake");
    (sender, rt::spawn(connection))
}

/// An HTTP/2 (prior knowledge) client connection to `addr`, its connection
/// task spawned.
pub(crate) async fn http2_client(
    addr: SocketAddr,
) -> (http2::SendRequest<Body>, JoinHandle<hyper::Result<()>>) {
    let stream = TcpStream::connect(addr).await.expect("connecting");
    let (sender, connection) = http2::handshake(Executor::new(), Io::new(stream))
        .await
        .expect("HTTP/2 handshake");
    (sender, rt::spawn(connection))
}

/// A request for `uri` (a path; HTTP/2 also gets a scheme and authority)
/// with `body`.
pub(crate) fn request(method: &str, uri: &str, body: impl Into<Bytes>) -> Request<Body> {
    Request::builder()
        .method(method)
        .uri(format!("http://localhost{uri}"))
        .header("host", "localhost")
        .body(Full::new(body.into()))
        .expect("a valid request")
}

/// The whole body of `response`.
pub(crate) async fn body_of(response: Response<Incoming>) -> Bytes {
    response
        .into_body()
        .collect()
        .await
        .expect("reading the response body")
        .to_bytes()
}

/// A current-thread runtime with I/O whose clock starts paused.
pub(crate) fn paused_runtime() -> rt::runtime::Runtime {
    rt::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .expect("building the runtime")
}
