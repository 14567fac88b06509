//! The file server the `tower_http_fs*` tests share: a directory of files
//! around the buffer sizes, the router a user would write over it
//! (tower-http's `ServeDir`, `ServeFile` and gzip `CompressionLayer` in
//! axum), hyper-util's server reporting each connection's end, the
//! clients, and the checks (bodies byte for byte, descriptors left open).

#![allow(dead_code)] // Each test file uses its own part.

use axum::Router;
use axum::http::{HeaderMap, StatusCode, header};
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use hyper_util::service::TowerToHyperService;
use rt_ecosystem_tests::bounded;
use std::io::Read;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc;
use tower_http::compression::CompressionLayer;
use tower_http::services::{ServeDir, ServeFile};

/// File sizes on both sides of the buffer sizes a body meets: 8 KiB and
/// 16 KiB (the usual reader and writer buffers), 64 KiB (`ServeDir`'s
/// chunk), 2 MiB (the most one blocking read of the facade's file moves),
/// and a few MiB.
pub(crate) const SIZES: &[usize] = &[
    0,
    1,
    8 * 1024 - 1,
    8 * 1024,
    8 * 1024 + 1,
    16 * 1024 - 1,
    16 * 1024,
    16 * 1024 + 1,
    64 * 1024 - 1,
    64 * 1024,
    64 * 1024 + 1,
    2 * 1024 * 1024 - 1,
    2 * 1024 * 1024,
    2 * 1024 * 1024 + 1,
    3 * 1024 * 1024 + 123,
];

/// The file every range test reads: a few MiB, past the 2 MiB boundary.
pub(crate) const BIG: &str = "big.bin";

/// `len` bytes that differ with `seed` and repeat with no short period, so
/// a byte from the wrong offset or the wrong file shows.
pub(crate) fn pattern(seed: u64, len: usize) -> Vec<u8> {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut bytes = Vec::with_capacity(len + 8);
    while bytes.len() < len {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        bytes.extend_from_slice(&state.to_le_bytes());
    }
    bytes.truncate(len);
    bytes
}

pub(crate) fn sized_name(len: usize) -> String {
    format!("sized-{len}.bin")
}

pub(crate) fn gzip(data: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut encoder, data).unwrap();
    encoder.finish().unwrap()
}

pub(crate) fn gunzip(data: &[u8]) -> Vec<u8> {
    let mut plain = Vec::new();
    flate2::read::GzDecoder::new(data)
        .read_to_end(&mut plain)
        .unwrap();
    plain
}

/// A directory to serve, removed when dropped.
pub(crate) struct Site {
    pub(crate) root: PathBuf,
}

impl Site {
    /// The files: every size in `SIZES`, `BIG`, `page.txt` with a gzip
    /// sibling `page.txt.gz`, `docs/index.html`.
    pub(crate) fn new() -> Site {
        // Canonical: `/proc/self/fd` links name canonical paths (the
        // temporary directory may be behind a symlink).
        static SITES: AtomicUsize = AtomicUsize::new(0);
        let root = std::env::temp_dir().canonicalize().unwrap().join(format!(
            "rt-tower-http-{}-{}",
            std::process::id(),
            SITES.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("docs")).unwrap();
        for (i, &len) in SIZES.iter().enumerate() {
            std::fs::write(root.join(sized_name(len)), pattern(i as u64, len)).unwrap();
        }
        std::fs::write(root.join(BIG), pattern(99, 3 * 1024 * 1024 + 4321)).unwrap();
        let page = b"precompressed page\n".repeat(500);
        std::fs::write(root.join("page.txt"), &page).unwrap();
        std::fs::write(root.join("page.txt.gz"), gzip(&page)).unwrap();
        std::fs::write(root.join("docs/index.html"), b"<h1>docs</h1>\n").unwrap();
        Site { root }
    }

    pub(crate) fn path(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }

    pub(crate) fn bytes(&self, name: &str) -> Vec<u8> {
        std::fs::read(self.path(name)).unwrap()
    }

    /// The router a user would write: the directory at the root (with
    /// precompressed siblings), the same directory read in 8 KiB chunks
    /// under `/chunk8k` and with an index page for unknown paths under
    /// `/app`, one file under `/single`, gzip on top.
    pub(crate) fn router(&self) -> Router {
        Router::new()
            .route_service("/single", ServeFile::new(self.path("page.txt")))
            // A single-page app: unknown paths get the index page, as a 404.
            .nest_service(
                "/app",
                ServeDir::new(&self.root)
                    .not_found_service(ServeFile::new(self.path("docs/index.html"))),
            )
            .nest_service(
                "/chunk8k",
                ServeDir::new(&self.root).with_buf_chunk_size(8 * 1024),
            )
            .fallback_service(ServeDir::new(&self.root).precompressed_gzip())
            .layer(CompressionLayer::new().gzip(true))
    }
}

impl Drop for Site {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// The server: hyper-util's auto (HTTP/1 and HTTP/2) builder on each
/// accepted connection, each in its own task, which reports on `closed`
/// once it is gone (done, failed or aborted).
pub(crate) struct Server {
    addr: SocketAddr,
    pub(crate) closed: mpsc::UnboundedReceiver<()>,
    connections: Arc<Mutex<Vec<tokio::task::AbortHandle>>>,
    accept: tokio::task::JoinHandle<()>,
}

/// Sends on `Server::closed` when its connection task's future is dropped.
struct ReportClosed(mpsc::UnboundedSender<()>);

impl Drop for ReportClosed {
    fn drop(&mut self) {
        let _ = self.0.send(());
    }
}

impl Server {
    pub(crate) async fn start(app: Router) -> Server {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (closed_tx, closed) = mpsc::unbounded_channel();
        let connections = Arc::new(Mutex::new(Vec::new()));
        let accepted = connections.clone();
        let accept = tokio::spawn(async move {
            loop {
                let (stream, _) = listener.accept().await.unwrap();
                let service = TowerToHyperService::new(app.clone());
                let report = ReportClosed(closed_tx.clone());
                let connection = tokio::spawn(async move {
                    let _report = report;
                    // A client that goes away mid-body ends its connection
                    // with an error: that is the point of some tests.
                    let _ = auto::Builder::new(TokioExecutor::new())
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
                accepted.lock().unwrap().push(connection.abort_handle());
            }
        });
        Server {
            addr,
            closed,
            connections,
            accept,
        }
    }

    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Aborts every connection task, as a server shutting down does.
    pub(crate) fn abort_connections(&self) {
        for connection in self.connections.lock().unwrap().drain(..) {
            connection.abort();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.accept.abort();
    }
}

/// One request: its status, headers and whole body.
pub(crate) async fn fetch(
    client: &reqwest::Client,
    method: reqwest::Method,
    url: &str,
    headers: &[(header::HeaderName, &str)],
) -> (StatusCode, HeaderMap, Vec<u8>) {
    bounded(&format!("{method} {url} {headers:?}"), async {
        let mut request = client.request(method.clone(), url);
        for (name, value) in headers {
            request = request.header(name, *value);
        }
        let response = request.send().await.unwrap();
        let status = response.status();
        let headers = response.headers().clone();
        let body = response.bytes().await.unwrap().to_vec();
        (status, headers, body)
    })
    .await
}

pub(crate) async fn get(client: &reqwest::Client, url: &str) -> (StatusCode, HeaderMap, Vec<u8>) {
    fetch(client, reqwest::Method::GET, url, &[]).await
}

/// A GET of `url` asking for `range` (a `Range` header's value).
pub(crate) async fn get_range(
    client: &reqwest::Client,
    url: &str,
    range: &str,
) -> (StatusCode, HeaderMap, Vec<u8>) {
    fetch(client, reqwest::Method::GET, url, &[(header::RANGE, range)]).await
}

pub(crate) fn header_str(headers: &HeaderMap, name: header::HeaderName) -> Option<&str> {
    headers.get(name).map(|value| value.to_str().unwrap())
}

/// Asserts a body equals `expected` without printing megabytes.
#[track_caller]
pub(crate) fn assert_body(what: &str, body: &[u8], expected: &[u8]) {
    if body != expected {
        let first_difference = body
            .iter()
            .zip(expected)
            .position(|(a, b)| a != b)
            .unwrap_or(body.len().min(expected.len()));
        panic!(
            "{what}: {} bytes, expected {}; first difference at byte {first_difference}",
            body.len(),
            expected.len()
        );
    }
}

/// How many of this process's descriptors are open on `path`.
pub(crate) fn fds_open_on(path: &Path) -> usize {
    std::fs::read_dir("/proc/self/fd")
        .unwrap()
        .filter_map(|entry| std::fs::read_link(entry.ok()?.path()).ok())
        .filter(|target| target == path)
        .count()
}

/// Waits until the runtime's blocking pool has nothing queued or running:
/// a read a dropped file had in flight is done, and has let go of the
/// descriptor. (A condition polled between yields, bounded: the pool
/// reports no event to wait on.)
pub(crate) async fn blocking_pool_idle() {
    let metrics = tokio::__rt::runtime::Handle::current().metrics();
    bounded("the blocking pool going idle", async {
        while metrics.blocking_queue_depth() != 0
            || metrics.num_idle_blocking_threads() != metrics.num_blocking_threads()
        {
            tokio::task::yield_now().await;
        }
    })
    .await;
}

/// hyper-util's client, HTTP/1 with a receive buffer of `recv_buffer`
/// bytes (which also stops the kernel growing it), or HTTP/2.
pub(crate) fn hyper_client(
    recv_buffer: Option<usize>,
    http2: bool,
) -> hyper_util::client::legacy::Client<
    hyper_util::client::legacy::connect::HttpConnector,
    http_body_util::Empty<bytes::Bytes>,
> {
    let mut connector = hyper_util::client::legacy::connect::HttpConnector::new();
    connector.set_recv_buffer_size(recv_buffer);
    hyper_util::client::legacy::Client::builder(TokioExecutor::new())
        .http2_only(http2)
        .build(connector)
}

pub(crate) fn hyper_request(
    uri: &str,
    headers: &[(header::HeaderName, &str)],
) -> hyper::Request<http_body_util::Empty<bytes::Bytes>> {
    let mut request = hyper::Request::get(uri);
    for (name, value) in headers {
        request = request.header(name, *value);
    }
    request.body(http_body_util::Empty::new()).unwrap()
}

/// Waits, between yields and bounded, until no descriptor is open on
/// `path`: for an HTTP/2 stream reset, whose handling in the server
/// sends no signal a test could wait on.
pub(crate) async fn until_closed(path: &Path) {
    bounded(&format!("{} closing", path.display()), async {
        while fds_open_on(path) != 0 {
            tokio::task::yield_now().await;
        }
    })
    .await;
}

macro_rules! on_both_schedulers {
    ($($name:ident),* $(,)?) => {
        mod current_thread {
            $(
                #[tokio::test]
                async fn $name() {
                    super::$name().await;
                }
            )*
        }
        mod multi_thread {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::$name().await;
                }
            )*
        }
    };
}
pub(crate) use on_both_schedulers;
