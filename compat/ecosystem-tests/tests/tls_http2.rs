//! HTTP/2 over TLS on rt through the facade: tokio-rustls (rustls on
//! `ring`) offering ALPN `h2` and `http/1.1`, hyper-util's auto server
//! serving whichever the client picked, and three clients negotiating h2:
//! reqwest (its `http2` feature), hyper-util's legacy client on
//! hyper-rustls' connector, and h2's own client. Many requests multiplexed
//! on one TLS connection, bodies of several MiB streamed both ways at once
//! (HTTP/2 flow control over TLS records), a stream the client resets
//! while the connection serves on, a graceful shutdown's GOAWAY with a
//! request in flight, and an HTTP/1.1-only client still served.

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Request, Response, Version};
use hyper_util::client::legacy::Client;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use rt_ecosystem_tests::{assert_rt_runs, bounded, rt_task_ids, rt_tasks_spawned_in};
use rustls::pki_types::{CertificateDer, PrivatePkcs8KeyDer, ServerName};
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, mpsc};
use tokio_rustls::{TlsAcceptor, TlsConnector};
use tokio_util::sync::CancellationToken;

const HOST: &str = "localhost";
const H2: &[u8] = b"h2";
const HTTP11: &[u8] = b"http/1.1";

/// rustls on `ring` (0.23.48 deprecated ring's provider only for its lack
/// of post-quantum key exchange, which these tests do not need).
#[allow(deprecated)]
fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// A self-signed certificate for `localhost` and `127.0.0.1` (hyper-rustls
/// names the server by the URL's host), and the server's TLS configuration
/// presenting it and offering `h2` before `http/1.1`.
fn certificate() -> (CertificateDer<'static>, TlsAcceptor) {
    let names = vec![HOST.to_owned(), "127.0.0.1".to_owned()];
    let certified = rcgen::generate_simple_self_signed(names).unwrap();
    let cert = certified.cert.der().clone();
    let key = PrivatePkcs8KeyDer::from(certified.signing_key.serialize_der());
    let mut config = rustls::ServerConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![cert.clone()], key.into())
        .unwrap();
    config.alpn_protocols = vec![H2.to_vec(), HTTP11.to_vec()];
    (cert, TlsAcceptor::from(Arc::new(config)))
}

fn client_config(root: &CertificateDer<'static>, alpn: &[&[u8]]) -> rustls::ClientConfig {
    let mut roots = rustls::RootCertStore::empty();
    roots.add(root.clone()).unwrap();
    let mut config = rustls::ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = alpn.iter().map(|protocol| protocol.to_vec()).collect();
    config
}

/// What the server saw of each connection, in order.
#[derive(Debug, PartialEq)]
enum Event {
    /// The TLS handshake ended with this protocol agreed by ALPN.
    Handshake(Option<Vec<u8>>),
    /// The HTTP connection ended.
    Served(Result<(), String>),
}

/// Sends its path on `announce` when created and `"dropped <path>"` when
/// dropped: a handler arrived, and later let go of its request.
struct Announce {
    path: &'static str,
    announce: mpsc::UnboundedSender<String>,
}

impl Announce {
    fn new(path: &'static str, announce: &mpsc::UnboundedSender<String>) -> Announce {
        announce.send(path.to_owned()).unwrap();
        let announce = announce.clone();
        Announce { path, announce }
    }
}

impl Drop for Announce {
    fn drop(&mut self) {
        // The test may have stopped listening once it saw what it waited for.
        let _ = self.announce.send(format!("dropped {}", self.path));
    }
}

struct Routes {
    /// Each `/wait` and `/hold` handler's arrival and drop.
    announce: mpsc::UnboundedSender<String>,
    /// `/wait` answers once it takes a permit.
    release: Semaphore,
}

type Body = BoxBody<Bytes, hyper::Error>;

fn full(bytes: impl Into<Bytes>) -> Body {
    Full::new(bytes.into())
        .map_err(|never| match never {})
        .boxed()
}

async fn route(
    routes: Arc<Routes>,
    request: Request<Incoming>,
) -> Result<Response<Body>, hyper::Error> {
    let in_rt = tokio::task::try_id().is_some_and(|id| rt_task_ids().contains(&id));
    let version = format!("{:?}", request.version());
    let body = match request.uri().path() {
        // The request body, streamed back as it arrives.
        "/stream-echo" => request.into_body().boxed(),
        "/wait" => {
            let _announce = Announce::new("/wait", &routes.announce);
            routes.release.acquire().await.unwrap().forget();
            full("released")
        }
        // Never answers: only the client's reset ends it.
        "/hold" => {
            let _announce = Announce::new("/hold", &routes.announce);
            std::future::pending::<()>().await;
            unreachable!("a pending future completed")
        }
        _ => full(request.into_body().collect().await?.to_bytes()),
    };
    Ok(Response::builder()
        .header("x-version", version)
        .header("x-task-in-rt-dump", in_rt.to_string())
        .body(body)
        .unwrap())
}

struct Server {
    addr: SocketAddr,
    root: CertificateDer<'static>,
    events: mpsc::UnboundedReceiver<Event>,
    announced: mpsc::UnboundedReceiver<String>,
    routes: Arc<Routes>,
    stop: CancellationToken,
    /// Ends after the graceful shutdown, with the connections it accepted.
    task: tokio::task::JoinHandle<usize>,
}

/// An HTTPS server: the TLS handshake and hyper-util's auto connection
/// (HTTP/2 or HTTP/1.1, as the client speaks) in one task per
/// connection, watched by `GracefulShutdown`; `stop` ends the accept loop
/// and shuts every connection down gracefully (a GOAWAY on HTTP/2).
async fn serve() -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (root, acceptor) = certificate();
    let (event_tx, events) = mpsc::unbounded_channel();
    let (announce, announced) = mpsc::unbounded_channel();
    let routes = Arc::new(Routes {
        announce,
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
                let (acceptor, routes, event_tx) =
                    (acceptor.clone(), routes.clone(), event_tx.clone());
                let watcher = graceful.watcher();
                tokio::spawn(async move {
                    let tls = acceptor.accept(stream).await.unwrap();
                    let alpn = tls.get_ref().1.alpn_protocol().map(<[u8]>::to_vec);
                    event_tx.send(Event::Handshake(alpn)).unwrap();
                    let service =
                        hyper::service::service_fn(move |request| route(routes.clone(), request));
                    let builder = auto::Builder::new(TokioExecutor::new());
                    let connection = builder.serve_connection(TokioIo::new(tls), service);
                    let served = watcher.watch(connection).await.map_err(|e| e.to_string());
                    event_tx.send(Event::Served(served)).unwrap();
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
        events,
        announced,
        routes,
        stop,
        task,
    }
}

impl Server {
    /// reqwest trusting the server's root; with its `http2` feature it
    /// offers `h2` and `http/1.1` by ALPN.
    fn reqwest(&self) -> reqwest::ClientBuilder {
        reqwest::Client::builder()
            .tls_built_in_root_certs(false)
            .add_root_certificate(reqwest::Certificate::from_der(&self.root).unwrap())
            .resolve(HOST, self.addr)
    }

    fn url(&self, path: &str) -> String {
        format!("https://{HOST}:{}{path}", self.addr.port())
    }

    async fn next_event(&mut self) -> Event {
        bounded("a connection event", self.events.recv())
            .await
            .unwrap()
    }

    async fn next_announced(&mut self) -> String {
        bounded("a handler", self.announced.recv()).await.unwrap()
    }

    /// Stops the server and returns how many connections it accepted.
    async fn stop(self) -> usize {
        self.stop.cancel();
        bounded("the server", self.task).await.unwrap()
    }
}

/// A body of `len` bytes that differs from another `seed`'s at almost
/// every offset.
fn pattern(len: usize, seed: u32) -> Bytes {
    (0..len as u32)
        .map(|i| (i.wrapping_add(seed).wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect()
}

async fn multiplexed_on_one_connection() {
    let mut server = serve().await;
    let client = server.reqwest().build().unwrap();
    // The first request opens the connection (and learns h2 from ALPN);
    // those after it share it.
    let first = client.post(server.url("/echo")).body("first");
    let response = bounded("the first request", first.send()).await.unwrap();
    assert_eq!(response.version(), Version::HTTP_2);
    assert_eq!(response.text().await.unwrap(), "first");
    assert_eq!(
        server.next_event().await,
        Event::Handshake(Some(H2.to_vec()))
    );

    const REQUESTS: usize = 64;
    let requests: Vec<_> = (0..REQUESTS)
        .map(|_| tokio::spawn(client.get(server.url("/wait")).send()))
        .collect();
    // All of them at the server at once: 64 streams in flight on the one
    // connection, each handler in a task hyper spawned through
    // `TokioExecutor`, in rt's dump.
    for _ in 0..REQUESTS {
        assert_eq!(server.next_announced().await, "/wait");
    }
    assert!(rt_tasks_spawned_in("/hyper-util-") >= REQUESTS);
    server.routes.release.add_permits(REQUESTS);
    for request in requests {
        let response = bounded("a multiplexed request", request)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(response.version(), Version::HTTP_2);
        assert_eq!(response.headers()["x-version"], "HTTP/2.0");
        assert_eq!(response.headers()["x-task-in-rt-dump"], "true");
        assert_eq!(response.text().await.unwrap(), "released");
    }
    drop(client);
    assert_eq!(server.stop().await, 1);
}

#[tokio::test]
async fn multiplexed_on_one_connection_current_thread() {
    multiplexed_on_one_connection().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn multiplexed_on_one_connection_multi_thread() {
    multiplexed_on_one_connection().await;
}

/// hyper-util's legacy client on hyper-rustls' connector, ALPN `h2` and
/// `http/1.1`: two bodies of 6 MiB streamed to the server and back at
/// once on one connection: 12 MiB each way through hyper's flow-control
/// windows (its server receives into 1 MiB per connection, its client into
/// 5 MiB), which fill and reopen many times.
async fn large_bodies_both_ways() {
    let mut server = serve().await;
    let https = hyper_rustls::HttpsConnectorBuilder::new()
        .with_tls_config(client_config(&server.root, &[]))
        .https_only()
        .enable_all_versions()
        .build();
    let client: Client<_, Full<Bytes>> = Client::builder(TokioExecutor::new()).build(https);
    let url = format!("https://127.0.0.1:{}/stream-echo", server.addr.port());
    let echo = |body: Bytes| {
        let request = Request::post(&url).body(Full::new(body)).unwrap();
        let client = client.clone();
        async move {
            let response = client.request(request).await.unwrap();
            assert_eq!(response.version(), Version::HTTP_2);
            assert_eq!(response.headers()["x-task-in-rt-dump"], "true");
            response.into_body().collect().await.unwrap().to_bytes()
        }
    };
    // One request first, so that the two after it share its connection.
    assert_eq!(
        bounded("a small echo", echo(pattern(100, 0))).await,
        pattern(100, 0)
    );
    assert_eq!(
        server.next_event().await,
        Event::Handshake(Some(H2.to_vec()))
    );
    // The client's connection task (and its request pipes) are hyper's,
    // spawned through `TokioExecutor`: rt's.
    assert!(rt_tasks_spawned_in("/hyper-util-") >= 1);

    const LEN: usize = 6 * 1024 * 1024;
    let (a, b) = (pattern(LEN, 1), pattern(LEN, 2));
    let (echoed_a, echoed_b) = bounded(
        "two large echoes",
        futures::future::join(echo(a.clone()), echo(b.clone())),
    )
    .await;
    assert_eq!(echoed_a.len(), LEN);
    assert!(echoed_a == a, "the first echoed body differs");
    assert_eq!(echoed_b.len(), LEN);
    assert!(echoed_b == b, "the second echoed body differs");
    drop(client);
    assert_eq!(server.stop().await, 1);
}

#[tokio::test]
async fn large_bodies_both_ways_current_thread() {
    large_bodies_both_ways().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn large_bodies_both_ways_multi_thread() {
    large_bodies_both_ways().await;
}

/// A request whose future the client drops: reqwest (hyper's h2 client)
/// resets its stream, hyper's server drops that handler, and the
/// connection goes on serving the request beside it and the next one.
async fn reset_stream_leaves_the_connection_serving() {
    let mut server = serve().await;
    let client = server.reqwest().build().unwrap();
    let first = client.get(server.url("/echo")).send();
    let response = bounded("the first request", first).await.unwrap();
    assert_eq!(response.version(), Version::HTTP_2);

    let held = tokio::spawn(client.get(server.url("/hold")).send());
    assert_eq!(server.next_announced().await, "/hold");
    let waiting = tokio::spawn(client.get(server.url("/wait")).send());
    assert_eq!(server.next_announced().await, "/wait");
    // The two handlers run in tasks hyper spawned through `TokioExecutor`,
    // as does reqwest's connection: all in rt's dump.
    assert!(rt_tasks_spawned_in("/hyper-util-") >= 3);

    // Dropping the request's future resets its stream (RST_STREAM, CANCEL):
    // the server drops the handler, and only it.
    held.abort();
    assert!(
        bounded("the aborted request", held)
            .await
            .unwrap_err()
            .is_cancelled()
    );
    assert_eq!(server.next_announced().await, "dropped /hold");

    server.routes.release.add_permits(1);
    let response = bounded("the request beside it", waiting)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(response.text().await.unwrap(), "released");
    assert_eq!(server.next_announced().await, "dropped /wait");
    let after = client.post(server.url("/echo")).body("after").send();
    let response = bounded("a request after the reset", after).await.unwrap();
    assert_eq!(response.version(), Version::HTTP_2);
    assert_eq!(response.text().await.unwrap(), "after");

    assert_eq!(
        server.next_event().await,
        Event::Handshake(Some(H2.to_vec()))
    );
    drop(client);
    assert_eq!(server.stop().await, 1);
}

#[tokio::test]
async fn reset_stream_leaves_the_connection_serving_current_thread() {
    reset_stream_leaves_the_connection_serving().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reset_stream_leaves_the_connection_serving_multi_thread() {
    reset_stream_leaves_the_connection_serving().await;
}

/// h2's own client sees the server's graceful shutdown: the request in
/// flight is answered whole, then the connection ends cleanly on the
/// server's GOAWAY (NO_ERROR), after which h2 refuses new streams.
async fn graceful_shutdown_sends_goaway() {
    let mut server = serve().await;
    let connector = TlsConnector::from(Arc::new(client_config(&server.root, &[H2])));
    let tcp = TcpStream::connect(server.addr).await.unwrap();
    let name = ServerName::try_from(HOST).unwrap();
    let tls = bounded("the TLS handshake", connector.connect(name, tcp))
        .await
        .unwrap();
    assert_eq!(tls.get_ref().1.alpn_protocol(), Some(H2));
    let (mut sender, connection) = bounded("the h2 handshake", h2::client::handshake(tls))
        .await
        .unwrap();
    let driver = tokio::spawn(connection);

    let url = server.url("/wait");
    let request = || Request::get(&url).body(()).unwrap();
    let (response, _) = sender.send_request(request(), true).unwrap();
    assert_eq!(server.next_announced().await, "/wait");
    assert_eq!(
        server.next_event().await,
        Event::Handshake(Some(H2.to_vec()))
    );
    // The server's connection task and the handler's, hyper's: rt's.
    assert!(rt_tasks_spawned_in("/hyper-util-") >= 1);

    server.stop.cancel();
    server.routes.release.add_permits(1);
    let response = bounded("the response in flight", response).await.unwrap();
    assert_eq!(response.status(), 200);
    let mut body = response.into_body();
    let mut received = Vec::new();
    while let Some(chunk) = bounded("the body", body.data()).await {
        let chunk = chunk.unwrap();
        body.flow_control().release_capacity(chunk.len()).unwrap();
        received.extend_from_slice(&chunk);
    }
    assert_eq!(received, b"released");

    // The connection ends without error once the stream is done: the
    // server said GOAWAY first (an end without one is an error to h2).
    bounded("the client's connection", driver)
        .await
        .unwrap()
        .unwrap();
    let refused = sender.send_request(request(), true).unwrap_err();
    assert!(refused.is_go_away() && refused.is_remote(), "{refused:?}");
    assert_eq!(refused.reason(), Some(h2::Reason::NO_ERROR));

    // The server's connection task ends too, and the server with it.
    // hyper reports that connection's end as an I/O error (a broken pipe,
    // on real tokio 1.54.1 as on rt) once h2's client, its last stream
    // done after the GOAWAY, has closed the connection: so the client's
    // view above is what shows the shutdown was graceful.
    match server.next_event().await {
        Event::Served(_) => {}
        other => panic!("the connection's end: {other:?}"),
    }
    assert_eq!(server.stop().await, 1);
}

#[tokio::test]
async fn graceful_shutdown_sends_goaway_current_thread() {
    graceful_shutdown_sends_goaway().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn graceful_shutdown_sends_goaway_multi_thread() {
    graceful_shutdown_sends_goaway().await;
}

/// Clients that do not speak HTTP/2 are served HTTP/1.1 by the same
/// server: reqwest limited to HTTP/1.1 (ALPN `http/1.1`), and a TLS client
/// offering no ALPN at all.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http1_clients_still_served() {
    let mut server = serve().await;
    let client = server.reqwest().http1_only().build().unwrap();
    let request = client.post(server.url("/echo")).body("over http/1.1");
    let response = bounded("an HTTP/1.1 request", request.send())
        .await
        .unwrap();
    assert_eq!(response.version(), Version::HTTP_11);
    assert_eq!(response.headers()["x-version"], "HTTP/1.1");
    assert_eq!(response.headers()["x-task-in-rt-dump"], "true");
    assert_eq!(response.text().await.unwrap(), "over http/1.1");
    assert_eq!(
        server.next_event().await,
        Event::Handshake(Some(HTTP11.to_vec()))
    );
    // reqwest's connection task, hyper-util's: rt's.
    assert!(rt_tasks_spawned_in("/hyper-util-") >= 1);
    drop(client);
    assert_eq!(server.next_event().await, Event::Served(Ok(())));

    let connector = TlsConnector::from(Arc::new(client_config(&server.root, &[])));
    let tcp = TcpStream::connect(server.addr).await.unwrap();
    let name = ServerName::try_from(HOST).unwrap();
    let mut tls = bounded("the handshake", connector.connect(name, tcp))
        .await
        .unwrap();
    assert_eq!(tls.get_ref().1.alpn_protocol(), None);
    tls.write_all(b"GET /echo HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut response = Vec::new();
    bounded("the response", tls.read_to_end(&mut response))
        .await
        .unwrap();
    let response = String::from_utf8(response).unwrap();
    assert!(response.starts_with("HTTP/1.1 200 OK\r\n"), "{response}");
    assert!(response.contains("x-version: HTTP/1.1\r\n"), "{response}");
    assert_eq!(server.next_event().await, Event::Handshake(None));
    assert_eq!(server.next_event().await, Event::Served(Ok(())));
    assert_eq!(server.stop().await, 2);
}
