//! hyper clients on rt for the `hyper_*` tests, the small services and
//! bodies their servers run, and the helpers the misuse tests share.

#![allow(dead_code)]

use crate::support::{DropCounter, DropGuard};
use http_body_util::{BodyExt, Full};
use hyper::body::{Body as HttpBody, Bytes, Frame, Incoming};
use hyper::client::conn::{http1, http2};
use hyper::{Request, Response};
use rt::hyper::{Executor, Io};
use rt::net::{TcpStream, UnixStream};
use rt::sync::mpsc;
use rt::task::JoinHandle;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};

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

/// A body whose frames come from a channel, so a test decides when each
/// one is sent and can see (through the guard) when hyper drops it.
pub(crate) struct ChannelBody {
    frames: mpsc::UnboundedReceiver<Bytes>,
    _guard: DropGuard,
}

impl HttpBody for ChannelBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        self.frames
            .poll_recv(cx)
            .map(|frame| frame.map(|bytes| Ok(Frame::data(bytes))))
    }
}

/// A `ChannelBody` and the sender feeding it.
pub(crate) fn channel_body(drops: &DropCounter) -> (mpsc::UnboundedSender<Bytes>, ChannelBody) {
    let (tx, frames) = mpsc::unbounded_channel();
    let body = ChannelBody {
        frames,
        _guard: drops.guard(),
    };
    (tx, body)
}

/// Aborts the task behind `abort` from a thread outside the runtime.
pub(crate) fn abort_from_another_thread(abort: rt::task::AbortHandle) {
    std::thread::spawn(move || abort.abort()).join().unwrap();
}

/// Yields until `condition` holds (tasks finishing on other workers, or
/// on this thread once this task yields); fails instead of hanging.
pub(crate) async fn yield_until(what: &str, mut condition: impl FnMut() -> bool) {
    for _ in 0..1_000_000 {
        if condition() {
            return;
        }
        rt::task::yield_now().await;
    }
    panic!("gave up waiting until {what}");
}

/// A boxed error, as hyper's bounds want it.
pub(crate) type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Serves `server` over HTTP/1.1 with `service` on a task of its own and
/// handshakes a client over `client`: the serving task, the client's
/// sender and the client's connection task.
pub(crate) async fn http1_over<S, B>(
    client: UnixStream,
    server: UnixStream,
    service: S,
) -> (
    rt::task::JoinHandle<hyper::Result<()>>,
    http1::SendRequest<B>,
    rt::task::JoinHandle<hyper::Result<()>>,
)
where
    S: hyper::service::HttpService<Incoming> + Send + 'static,
    S::Future: Send,
    S::Error: Into<BoxError>,
    S::ResBody: Send + 'static,
    <S::ResBody as HttpBody>::Data: Send,
    <S::ResBody as HttpBody>::Error: Into<BoxError>,
    B: HttpBody + Send + 'static,
    B::Data: Send,
    B::Error: Into<BoxError>,
{
    let serving = rt::spawn(async move {
        hyper::server::conn::http1::Builder::new()
            .serve_connection(Io::new(server), service)
            .await
    });
    let (sender, connection) = http1::handshake(Io::new(client)).await.unwrap();
    (serving, sender, rt::spawn(connection))
}
