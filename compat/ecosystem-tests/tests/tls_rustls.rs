//! HTTPS on rt through the facade: tokio-rustls (rustls on `ring`) under
//! hyper's HTTP/1.1 server, a self-signed certificate made by rcgen, and
//! two clients: reqwest's rustls client trusting that root (many
//! concurrent requests) and tokio-rustls' own client (the close
//! handshake). Clients that leave mid-handshake and mid-body cost the
//! server only that connection; a graceful shutdown finishes the request
//! in flight and ends each connection with a TLS `close_notify`.

use bytes::Bytes;
use futures::StreamExt;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use hyper_util::server::graceful::GracefulShutdown;
use rt_ecosystem_tests::{assert_rt_runs, bounded, rt_task_ids, rt_tasks_spawned_in};
use rustls::pki_types::{CertificateDer, PrivatePkcs8KeyDer, ServerName};
use std::convert::Infallible;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, mpsc, oneshot};
use tokio_rustls::{TlsAcceptor, TlsConnector};
use tokio_util::sync::CancellationToken;

const HOST: &str = "localhost";

/// rustls on `ring` (0.23.48 deprecated ring's provider only for its lack
/// of post-quantum key exchange, which these tests do not need).
#[allow(deprecated)]
fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// A self-signed certificate for `localhost` and the server's TLS
/// configuration presenting it.
fn certificate() -> (CertificateDer<'static>, TlsAcceptor) {
    let certified = rcgen::generate_simple_self_signed(vec![HOST.to_owned()]).unwrap();
    let cert = certified.cert.der().clone();
    let key = PrivatePkcs8KeyDer::from(certified.signing_key.serialize_der());
    let config = rustls::ServerConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![cert.clone()], key.into())
        .unwrap();
    (cert, TlsAcceptor::from(Arc::new(config)))
}

fn client_config(root: &CertificateDer<'static>) -> rustls::ClientConfig {
    let mut roots = rustls::RootCertStore::empty();
    roots.add(root.clone()).unwrap();
    rustls::ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth()
}

/// How each accepted connection ended, as the server saw it.
#[derive(Debug)]
enum Outcome {
    Handshake(io::ErrorKind),
    Served(Result<(), String>),
}

/// Sends on a oneshot when dropped: the server let go of a response body.
struct DropSignal(Option<oneshot::Sender<()>>);

impl Drop for DropSignal {
    fn drop(&mut self) {
        if let Some(signal) = self.0.take() {
            let _ = signal.send(());
        }
    }
}

/// What the test hands the server's routes.
struct Routes {
    /// `/endless`: sends here when its body is dropped.
    endless_dropped: std::sync::Mutex<Option<oneshot::Sender<()>>>,
    /// `/wait`: announces itself, then answers once a permit is added.
    waiting: mpsc::UnboundedSender<()>,
    release: Semaphore,
}

type Body = BoxBody<Bytes, Infallible>;

async fn route(
    routes: Arc<Routes>,
    request: Request<Incoming>,
) -> Result<Response<Body>, Infallible> {
    let in_rt = tokio::task::try_id().is_some_and(|id| rt_task_ids().contains(&id));
    let body = match request.uri().path() {
        "/endless" => {
            let guard = DropSignal(routes.endless_dropped.lock().unwrap().take());
            let chunk = Bytes::from(vec![b'x'; 64 * 1024]);
            let chunks = futures::stream::repeat(chunk).map(move |chunk| {
                let _keep = &guard;
                Ok(Frame::data(chunk))
            });
            BodyExt::boxed(StreamBody::new(chunks))
        }
        "/wait" => {
            routes.waiting.send(()).unwrap();
            routes.release.acquire().await.unwrap().forget();
            Full::new(Bytes::from_static(b"released")).boxed()
        }
        _ => {
            let body = request.into_body().collect().await.unwrap().to_bytes();
            Full::new(body).boxed()
        }
    };
    Ok(Response::builder()
        .header("x-task-in-rt-dump", in_rt.to_string())
        .body(body)
        .unwrap())
}

struct Server {
    addr: SocketAddr,
    root: CertificateDer<'static>,
    outcomes: mpsc::UnboundedReceiver<Outcome>,
    waiting: mpsc::UnboundedReceiver<()>,
    routes: Arc<Routes>,
    stop: CancellationToken,
    /// Ends after the graceful shutdown, with the connections it waited for.
    task: tokio::task::JoinHandle<usize>,
}

/// An HTTPS server: TLS handshake and HTTP/1.1 connection in one task per
/// connection, watched by hyper-util's `GracefulShutdown`; `stop` ends the
/// accept loop and waits for every connection to close.
async fn serve(endless_dropped: Option<oneshot::Sender<()>>) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (root, acceptor) = certificate();
    let (outcome_tx, outcomes) = mpsc::unbounded_channel();
    let (waiting_tx, waiting) = mpsc::unbounded_channel();
    let routes = Arc::new(Routes {
        endless_dropped: std::sync::Mutex::new(endless_dropped),
        waiting: waiting_tx,
        release: Semaphore::new(0),
    });
    let stop = CancellationToken::new();
    let task = tokio::spawn({
        let (routes, stop) = (routes.clone(), stop.clone());
        async move {
            let graceful = GracefulShutdown::new();
            let mut connections = 0;
            loop {
                let stream = tokio::select! {
                    accepted = listener.accept() => accepted.unwrap().0,
                    () = stop.cancelled() => break,
                };
                connections += 1;
                let (acceptor, routes, outcome_tx) =
                    (acceptor.clone(), routes.clone(), outcome_tx.clone());
                let watcher = graceful.watcher();
                tokio::spawn(async move {
                    let tls = match acceptor.accept(stream).await {
                        Ok(tls) => tls,
                        Err(e) => return outcome_tx.send(Outcome::Handshake(e.kind())).unwrap(),
                    };
                    let service =
                        hyper::service::service_fn(move |request| route(routes.clone(), request));
                    let connection = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(tls), service);
                    let served = watcher.watch(connection).await.map_err(|e| e.to_string());
                    outcome_tx.send(Outcome::Served(served)).unwrap();
                });
            }
            bounded("graceful shutdown", graceful.shutdown()).await;
            connections
        }
    });
    assert_rt_runs(task.id());
    Server {
        addr,
        root,
        outcomes,
        waiting,
        routes,
        stop,
        task,
    }
}

impl Server {
    fn reqwest(&self) -> reqwest::Client {
        reqwest::Client::builder()
            .tls_built_in_root_certs(false)
            .add_root_certificate(reqwest::Certificate::from_der(&self.root).unwrap())
            .resolve(HOST, self.addr)
            .build()
            .unwrap()
    }

    fn url(&self, path: &str) -> String {
        format!("https://{HOST}:{}{path}", self.addr.port())
    }

    async fn next_outcome(&mut self) -> Outcome {
        bounded("a connection's outcome", self.outcomes.recv())
            .await
            .unwrap()
    }
}

async fn concurrent_requests() {
    let server = serve(None).await;
    let client = server.reqwest();
    let requests = (0..64u32).map(|i| {
        let (client, url) = (client.clone(), server.url("/echo"));
        tokio::spawn(async move {
            let body = format!("request {i}: ").repeat(1 + i as usize * 100);
            let response = client.post(url).body(body.clone()).send().await.unwrap();
            assert_eq!(response.status(), 200);
            assert_eq!(response.headers()["x-task-in-rt-dump"], "true");
            assert_eq!(response.text().await.unwrap(), body);
        })
    });
    for request in bounded("64 requests", futures::future::join_all(requests)).await {
        request.unwrap();
    }
    // reqwest's pooled connections are driven by tasks hyper-util spawned:
    // rt's.
    assert!(rt_tasks_spawned_in("/hyper-util-") > 0);
    drop(client);
    server.stop.cancel();
    let connections = bounded("the server", server.task).await.unwrap();
    assert!(connections >= 1);
}

#[tokio::test]
async fn concurrent_requests_current_thread() {
    concurrent_requests().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_requests_multi_thread() {
    concurrent_requests().await;
}

/// A ClientHello for `localhost`, as rustls' client sends it first.
fn client_hello(root: &CertificateDer<'static>) -> Vec<u8> {
    let name = ServerName::try_from(HOST).unwrap();
    let mut client = rustls::ClientConnection::new(Arc::new(client_config(root)), name).unwrap();
    let mut hello = Vec::new();
    client.write_tls(&mut hello).unwrap();
    hello
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clients_leaving_mid_handshake() {
    let mut server = serve(None).await;
    let hello = client_hello(&server.root);

    // Half a ClientHello, then gone.
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    stream.write_all(&hello[..hello.len() / 2]).await.unwrap();
    drop(stream);
    match server.next_outcome().await {
        Outcome::Handshake(kind) => assert_eq!(kind, io::ErrorKind::UnexpectedEof),
        other => panic!("half a ClientHello: {other:?}"),
    }

    // A whole ClientHello; gone once the server's first flight arrives.
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    stream.write_all(&hello).await.unwrap();
    let mut flight = [0; 5];
    bounded("the ServerHello", stream.read_exact(&mut flight))
        .await
        .unwrap();
    assert_eq!(flight[0], 22, "a handshake record: {flight:?}");
    // Closed with the rest of the flight unread, the socket resets.
    drop(stream);
    match server.next_outcome().await {
        Outcome::Handshake(kind) => assert!(
            matches!(
                kind,
                io::ErrorKind::ConnectionReset | io::ErrorKind::UnexpectedEof
            ),
            "{kind:?}"
        ),
        other => panic!("a client gone after the ServerHello: {other:?}"),
    }

    // The server still serves.
    let client = server.reqwest();
    let response = bounded(
        "a request after both",
        client.post(server.url("/echo")).body("after").send(),
    )
    .await
    .unwrap();
    assert_eq!(response.text().await.unwrap(), "after");
    drop(client);
    server.stop.cancel();
    assert_eq!(bounded("the server", server.task).await.unwrap(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_leaving_mid_body() {
    let (dropped_tx, dropped) = oneshot::channel();
    let mut server = serve(Some(dropped_tx)).await;
    let client = server.reqwest();
    let mut response = bounded(
        "the endless response",
        client.get(server.url("/endless")).send(),
    )
    .await
    .unwrap();
    let mut received = 0;
    while received < 256 * 1024 {
        received += bounded("a chunk", response.chunk())
            .await
            .unwrap()
            .unwrap()
            .len();
    }
    // The client leaves with the body unread: its connection closes, the
    // server's writes fail and its connection task drops the body.
    drop(response);
    drop(client);
    bounded("the body dropped", dropped).await.unwrap();
    match server.next_outcome().await {
        Outcome::Served(Err(_)) => {}
        other => panic!("a client gone mid-body: {other:?}"),
    }
    server.stop.cancel();
    assert_eq!(bounded("the server", server.task).await.unwrap(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn graceful_shutdown_sends_close_notify() {
    let mut server = serve(None).await;
    let connector = TlsConnector::from(Arc::new(client_config(&server.root)));
    let name = ServerName::try_from(HOST).unwrap();
    let tcp = TcpStream::connect(server.addr).await.unwrap();
    let mut tls = bounded("the handshake", connector.connect(name, tcp))
        .await
        .unwrap();
    assert!(tls.get_ref().1.protocol_version().is_some());

    // A request in flight when the shutdown starts: its handler waits.
    tls.write_all(b"GET /wait HTTP/1.1\r\nhost: localhost\r\n\r\n")
        .await
        .unwrap();
    bounded("the handler", server.waiting.recv()).await.unwrap();
    server.stop.cancel();
    server.routes.release.add_permits(1);

    // The response comes whole, then the server closes the connection
    // with a close_notify: a clean end of stream. Without it, rustls
    // reports an unexpected EOF.
    let mut response = Vec::new();
    bounded(
        "the response and close_notify",
        tls.read_to_end(&mut response),
    )
    .await
    .unwrap();
    let response = String::from_utf8(response).unwrap();
    assert!(response.starts_with("HTTP/1.1 200 OK\r\n"), "{response}");
    assert!(response.ends_with("\r\n\r\nreleased"), "{response}");
    // And the client's own close_notify goes out in return.
    bounded("the client's close_notify", tls.shutdown())
        .await
        .unwrap();

    match server.next_outcome().await {
        Outcome::Served(Ok(())) => {}
        other => panic!("a connection shut down gracefully: {other:?}"),
    }
    assert_eq!(bounded("the server", server.task).await.unwrap(), 1);
}
