//! A static-file server as users write one: tower-http's `ServeDir` and
//! `ServeFile` (their reads, seeks and metadata are the facade's
//! `tokio::fs::File`, streamed by tokio-util's `ReaderStream`) in an axum
//! router, with tower-http's gzip `CompressionLayer`, served by
//! hyper-util's connection builder on the facade's `TcpListener` and
//! fetched with reqwest. Every body is compared with the file's bytes.
//! Both schedulers.

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
const SIZES: &[usize] = &[
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
const BIG: &str = "big.bin";

/// `len` bytes that differ with `seed` and repeat with no short period, so
/// a byte from the wrong offset or the wrong file shows.
fn pattern(seed: u64, len: usize) -> Vec<u8> {
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

fn sized_name(len: usize) -> String {
    format!("sized-{len}.bin")
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut encoder, data).unwrap();
    encoder.finish().unwrap()
}

fn gunzip(data: &[u8]) -> Vec<u8> {
    let mut plain = Vec::new();
    flate2::read::GzDecoder::new(data)
        .read_to_end(&mut plain)
        .unwrap();
    plain
}

/// A directory to serve, removed when dropped.
struct Site {
    root: PathBuf,
}

impl Site {
    /// The files: every size in `SIZES`, `BIG`, `page.txt` with a gzip
    /// sibling `page.txt.gz`, `docs/index.html`.
    fn new() -> Site {
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

    fn path(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }

    fn bytes(&self, name: &str) -> Vec<u8> {
        std::fs::read(self.path(name)).unwrap()
    }

    /// The router a user would write: the directory at the root (with
    /// precompressed siblings), the same directory read in 8 KiB chunks
    /// under `/chunk8k` and with an index page for unknown paths under
    /// `/app`, one file under `/single`, gzip on top.
    fn router(&self) -> Router {
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
struct Server {
    addr: SocketAddr,
    closed: mpsc::UnboundedReceiver<()>,
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
    async fn start(app: Router) -> Server {
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

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Aborts every connection task, as a server shutting down does.
    fn abort_connections(&self) {
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
async fn fetch(
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

async fn get(client: &reqwest::Client, url: &str) -> (StatusCode, HeaderMap, Vec<u8>) {
    fetch(client, reqwest::Method::GET, url, &[]).await
}

fn header_str(headers: &HeaderMap, name: header::HeaderName) -> Option<&str> {
    headers.get(name).map(|value| value.to_str().unwrap())
}

/// Asserts a body equals `expected` without printing megabytes.
#[track_caller]
fn assert_body(what: &str, body: &[u8], expected: &[u8]) {
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

/// Every size, whole, from the 64 KiB and the 8 KiB `ServeDir`; HEAD
/// gives the length and no body.
async fn whole_files() {
    let site = Site::new();
    let server = Server::start(site.router()).await;
    let client = reqwest::Client::new();
    for &len in SIZES {
        let name = sized_name(len);
        let expected = site.bytes(&name);
        for prefix in ["", "/chunk8k"] {
            let url = server.url(&format!("{prefix}/{name}"));
            let (status, headers, body) = get(&client, &url).await;
            assert_eq!(status, StatusCode::OK, "{url}");
            assert_eq!(
                header_str(&headers, header::CONTENT_LENGTH),
                Some(len.to_string().as_str()),
                "{url}"
            );
            assert_body(&url, &body, &expected);

            let (status, headers, body) = fetch(&client, reqwest::Method::HEAD, &url, &[]).await;
            assert_eq!(status, StatusCode::OK, "HEAD {url}");
            assert_eq!(
                header_str(&headers, header::CONTENT_LENGTH),
                Some(len.to_string().as_str()),
                "HEAD {url}"
            );
            assert!(body.is_empty(), "HEAD {url}: a body of {}", body.len());
        }
    }
    let (status, _, body) = get(&client, &server.url("/single")).await;
    assert_eq!(status, StatusCode::OK);
    assert_body("/single", &body, &site.bytes("page.txt"));
}

/// `Range`: single ranges at the start, middle (across the 2 MiB mark)
/// and end, open-ended and suffix ranges, and the unsatisfiable ones.
async fn ranges() {
    let site = Site::new();
    let server = Server::start(site.router()).await;
    let client = reqwest::Client::new();
    let data = site.bytes(BIG);
    let len = data.len() as u64;
    let mib2 = 2 * 1024 * 1024;
    // (header, first byte, last byte)
    let cases = [
        ("bytes=0-0".to_owned(), 0, 0),
        ("bytes=0-99".to_owned(), 0, 99),
        ("bytes=1-65536".to_owned(), 1, 65536),
        (
            format!("bytes={}-{}", mib2 - 10, mib2 + 10),
            mib2 - 10,
            mib2 + 10,
        ),
        (format!("bytes=70000-{}", mib2 + 70000), 70000, mib2 + 70000),
        (
            format!("bytes={}-{}", len - 100, len - 1),
            len - 100,
            len - 1,
        ),
        (format!("bytes={}-", len - 5000), len - 5000, len - 1),
        ("bytes=123456-".to_owned(), 123_456, len - 1),
        ("bytes=-500".to_owned(), len - 500, len - 1),
        (format!("bytes=-{}", mib2 + 1), len - mib2 - 1, len - 1),
        // Past the end: up to the last byte.
        (
            format!("bytes={}-{}", len - 10, len + 1000),
            len - 10,
            len - 1,
        ),
    ];
    for prefix in ["", "/chunk8k"] {
        let url = server.url(&format!("{prefix}/{BIG}"));
        for (range, first, last) in &cases {
            let (status, headers, body) = fetch(
                &client,
                reqwest::Method::GET,
                &url,
                &[(header::RANGE, range)],
            )
            .await;
            assert_eq!(status, StatusCode::PARTIAL_CONTENT, "{url} {range}");
            assert_eq!(
                header_str(&headers, header::CONTENT_RANGE),
                Some(format!("bytes {first}-{last}/{len}").as_str()),
                "{url} {range}"
            );
            assert_body(
                &format!("{url} {range}"),
                &body,
                &data[*first as usize..=*last as usize],
            );
        }
        // Starting past the end, or a suffix longer than the file (which
        // tower-http refuses rather than serving the whole file).
        for range in [
            format!("bytes={len}-"),
            format!("bytes={}-{}", len + 1, len + 9),
            format!("bytes=-{}", len + 1),
        ] {
            let (status, headers, _) = fetch(
                &client,
                reqwest::Method::GET,
                &url,
                &[(header::RANGE, &range)],
            )
            .await;
            assert_eq!(status, StatusCode::RANGE_NOT_SATISFIABLE, "{url} {range}");
            assert_eq!(
                header_str(&headers, header::CONTENT_RANGE),
                Some(format!("bytes */{len}").as_str()),
                "{url} {range}"
            );
        }
    }
    // Ranges of the small files, on both sides of each boundary.
    for &size in SIZES.iter().filter(|&&size| size > 1) {
        let name = sized_name(size);
        let data = site.bytes(&name);
        let half = size / 2;
        for (range, first, last) in [
            (format!("bytes={half}-"), half, size - 1),
            (format!("bytes=1-{}", size - 2), 1, size - 2),
            ("bytes=-1".to_owned(), size - 1, size - 1),
        ] {
            let url = server.url(&format!("/{name}"));
            let (status, _, body) = fetch(
                &client,
                reqwest::Method::GET,
                &url,
                &[(header::RANGE, &range)],
            )
            .await;
            assert_eq!(status, StatusCode::PARTIAL_CONTENT, "{url} {range}");
            assert_body(&format!("{url} {range}"), &body, &data[first..=last]);
        }
    }
    // The empty file: tower-http answers `bytes=0-` with a 206 of no bytes
    // (`bytes 0-0/0`, length 0) rather than a 416; what matters here is
    // that no byte comes back.
    let url = server.url(&format!("/{}", sized_name(0)));
    let (status, headers, body) = fetch(
        &client,
        reqwest::Method::GET,
        &url,
        &[(header::RANGE, "bytes=0-")],
    )
    .await;
    assert!(status.is_success(), "{url}: {status}");
    assert_eq!(header_str(&headers, header::CONTENT_LENGTH), Some("0"));
    assert!(body.is_empty(), "{url}: {} bytes", body.len());
}

/// `If-Modified-Since` and `If-Unmodified-Since` against the file's
/// modification time, on GET and HEAD.
async fn conditional_requests() {
    let site = Site::new();
    let server = Server::start(site.router()).await;
    let client = reqwest::Client::new();
    let url = server.url(&format!("/{}", sized_name(16 * 1024)));
    let (status, headers, _) = get(&client, &url).await;
    assert_eq!(status, StatusCode::OK);
    let last_modified = header_str(&headers, header::LAST_MODIFIED)
        .expect("a Last-Modified header")
        .to_owned();
    let long_ago = "Thu, 01 Jan 1998 00:00:00 GMT";
    for method in [reqwest::Method::GET, reqwest::Method::HEAD] {
        let (status, _, body) = fetch(
            &client,
            method.clone(),
            &url,
            &[(header::IF_MODIFIED_SINCE, &last_modified)],
        )
        .await;
        assert_eq!(status, StatusCode::NOT_MODIFIED, "{method}");
        assert!(body.is_empty());
        let (status, _, body) = fetch(
            &client,
            method.clone(),
            &url,
            &[(header::IF_MODIFIED_SINCE, long_ago)],
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{method}");
        if method == reqwest::Method::GET {
            assert_body(&url, &body, &site.bytes(&sized_name(16 * 1024)));
        }
        let (status, _, _) = fetch(
            &client,
            method.clone(),
            &url,
            &[(header::IF_UNMODIFIED_SINCE, long_ago)],
        )
        .await;
        assert_eq!(status, StatusCode::PRECONDITION_FAILED, "{method}");
    }
}

/// A missing file is 404, a directory serves its `index.html` (after a
/// redirect to the slash form), a precompressed sibling is sent as is to
/// a client that accepts gzip, and other bodies are gzipped on the fly.
async fn directory_precompressed_and_gzip() {
    let site = Site::new();
    let server = Server::start(site.router()).await;
    let client = reqwest::Client::new();

    let (status, _, _) = get(&client, &server.url("/no-such-file")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // A path through a file fails with ENOTDIR and one with a NUL byte
    // with `InvalidInput`: tower-http tells both from other errors (a 500)
    // by the error the facade returns.
    for path in ["/page.txt/below", "/page%00.txt"] {
        for method in [reqwest::Method::GET, reqwest::Method::HEAD] {
            if path.contains('%') && method == reqwest::Method::HEAD {
                // tower-http answers HEAD with a NUL byte with a 500 on
                // tokio too: its metadata path does not check for it.
                continue;
            }
            let (status, _, _) = fetch(&client, method.clone(), &server.url(path), &[]).await;
            assert_eq!(status, StatusCode::NOT_FOUND, "{method} {path}");
        }
    }
    let (status, _, body) = get(&client, &server.url("/app/no/such/page")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_body("the app's fallback", &body, &site.bytes("docs/index.html"));
    let (status, _, body) = get(&client, &server.url("/app/page.txt")).await;
    assert_eq!(status, StatusCode::OK);
    assert_body("/app/page.txt", &body, &site.bytes("page.txt"));
    let (status, _, body) = get(&client, &server.url("/docs/")).await;
    assert_eq!(status, StatusCode::OK);
    assert_body("/docs/", &body, &site.bytes("docs/index.html"));
    // reqwest follows the redirect to `/docs/`.
    let response = bounded("GET /docs", client.get(server.url("/docs")).send())
        .await
        .unwrap();
    assert_eq!(response.url().path(), "/docs/");
    let body = bounded("GET /docs body", response.bytes()).await.unwrap();
    assert_body("/docs", &body, &site.bytes("docs/index.html"));

    let gzip_ok = [(header::ACCEPT_ENCODING, "gzip")];
    let page = site.bytes("page.txt");
    for url in [server.url("/page.txt"), server.url("/single")] {
        let (status, headers, body) = fetch(&client, reqwest::Method::GET, &url, &gzip_ok).await;
        assert_eq!(status, StatusCode::OK, "{url}");
        assert_eq!(
            header_str(&headers, header::CONTENT_ENCODING),
            Some("gzip"),
            "{url}"
        );
        assert_body(&url, &gunzip(&body), &page);
    }
    // The precompressed file itself, byte for byte.
    let (_, _, body) = fetch(
        &client,
        reqwest::Method::GET,
        &server.url("/page.txt"),
        &gzip_ok,
    )
    .await;
    assert_body("/page.txt.gz", &body, &site.bytes("page.txt.gz"));
    let (_, headers, body) = get(&client, &server.url("/page.txt")).await;
    assert_eq!(header_str(&headers, header::CONTENT_ENCODING), None);
    assert_body("/page.txt plain", &body, &page);

    // Compressed on the fly: every size, and the big file.
    let mut names: Vec<String> = SIZES.iter().map(|&len| sized_name(len)).collect();
    names.push(BIG.to_owned());
    for name in names {
        let url = server.url(&format!("/{name}"));
        let (status, headers, body) = fetch(&client, reqwest::Method::GET, &url, &gzip_ok).await;
        assert_eq!(status, StatusCode::OK, "{url}");
        let expected = site.bytes(&name);
        if header_str(&headers, header::CONTENT_ENCODING) == Some("gzip") {
            assert_body(&url, &gunzip(&body), &expected);
        } else {
            // tower-http leaves bodies of 32 bytes or less alone.
            assert!(expected.len() <= 32, "{url}: not compressed");
            assert_body(&url, &body, &expected);
        }
    }
}

/// Many clients at once fetch ranges of one file (each its own reqwest
/// client, so its own connections).
async fn concurrent_ranges() {
    let site = Site::new();
    let server = Server::start(site.router()).await;
    let data = Arc::new(site.bytes(BIG));
    let len = data.len();
    let mut clients = tokio::task::JoinSet::new();
    for client_index in 0..16usize {
        let url = server.url(&format!("/{BIG}"));
        let data = data.clone();
        clients.spawn(async move {
            let client = reqwest::Client::new();
            for request in 0..6usize {
                let start = (client_index * 196_613 + request * 524_309) % len;
                let end =
                    (start + 1 + (client_index * 7919 + request * 104_729) % 300_000).min(len) - 1;
                let range = format!("bytes={start}-{end}");
                let (status, _, body) = fetch(
                    &client,
                    reqwest::Method::GET,
                    &url,
                    &[(header::RANGE, &range)],
                )
                .await;
                assert_eq!(status, StatusCode::PARTIAL_CONTENT, "{range}");
                assert_body(&range, &body, &data[start..=end]);
            }
        });
    }
    while let Some(joined) = bounded("the concurrent clients", clients.join_next()).await {
        joined.unwrap();
    }
}

/// How many of this process's descriptors are open on `path`.
fn fds_open_on(path: &Path) -> usize {
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
async fn blocking_pool_idle() {
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

/// A client that reads the start of a body and goes away: the server's
/// connection ends, its response body (and the file in it) is dropped,
/// and no descriptor stays open on the file. Whole, ranged and gzipped
/// bodies. The client is hyper-util's, with a small receive buffer (which
/// also stops the kernel growing it): the file is far larger than what
/// the socket buffers and hyper hold, so the server is still sending
/// when the client leaves.
async fn client_disconnects_mid_body() {
    use http_body_util::BodyExt;
    use hyper_util::client::legacy::{Client, connect::HttpConnector};

    let site = Site::new();
    let name = "large.bin";
    let path = site.path(name);
    std::fs::write(&path, pattern(7, 24 * 1024 * 1024)).unwrap();
    let mut server = Server::start(site.router()).await;
    let uri: hyper::Uri = server.url(&format!("/{name}")).parse().unwrap();
    let requests: [&[(header::HeaderName, &str)]; 3] = [
        &[],
        &[(header::RANGE, "bytes=1000-")],
        &[(header::ACCEPT_ENCODING, "gzip")],
    ];
    for headers in requests {
        let mut connector = HttpConnector::new();
        connector.set_recv_buffer_size(Some(16 * 1024));
        let client = Client::builder(TokioExecutor::new())
            .build::<_, http_body_util::Empty<bytes::Bytes>>(connector);
        let mut request = hyper::Request::get(uri.clone());
        for (name, value) in headers {
            request = request.header(name, *value);
        }
        let request = request.body(http_body_util::Empty::new()).unwrap();
        let mut response = bounded("the request", client.request(request))
            .await
            .unwrap();
        assert!(response.status().is_success(), "{headers:?}");
        let first = bounded("the first frame", response.body_mut().frame())
            .await
            .unwrap()
            .unwrap();
        assert!(first.data_ref().is_some_and(|data| !data.is_empty()));
        assert_eq!(
            fds_open_on(&path),
            1,
            "{headers:?}: the file is open mid-body"
        );
        drop(response);
        drop(client);
        bounded("the connection closing", server.closed.recv())
            .await
            .unwrap();
        blocking_pool_idle().await;
        assert_eq!(
            fds_open_on(&path),
            0,
            "{headers:?}: the file is still open after its client left"
        );
    }
}

/// Connection tasks aborted while they send a file (a server shutting
/// down): the clients see their bodies fail, and no descriptor stays open.
async fn connections_aborted_mid_body() {
    use http_body_util::BodyExt;

    let site = Site::new();
    let path = site.path("large.bin");
    std::fs::write(&path, pattern(11, 24 * 1024 * 1024)).unwrap();
    let mut server = Server::start(site.router()).await;
    let url = server.url("/large.bin");
    let requests: [&[(header::HeaderName, &str)]; 3] = [
        &[],
        &[(header::RANGE, "bytes=5000000-")],
        &[(header::ACCEPT_ENCODING, "gzip")],
    ];
    let mut responses = Vec::new();
    for headers in requests {
        // One client each: one connection each.
        let client = hyper_client(Some(16 * 1024), false);
        let mut response = bounded("the request", client.request(hyper_request(&url, headers)))
            .await
            .unwrap();
        bounded("the first frame", response.body_mut().frame())
            .await
            .unwrap()
            .unwrap();
        responses.push((client, response));
    }
    assert_eq!(
        fds_open_on(&path),
        requests.len(),
        "the file is open mid-body"
    );
    server.abort_connections();
    for _ in &requests {
        bounded("a connection closing", server.closed.recv())
            .await
            .unwrap();
    }
    for (_client, response) in responses {
        let rest = bounded("the rest of a body", response.into_body().collect()).await;
        assert!(rest.is_err(), "a body cut short ended cleanly");
    }
    blocking_pool_idle().await;
    assert_eq!(fds_open_on(&path), 0, "the file is open after the aborts");
}

/// Many clients at once on one file, half reading it whole, half leaving
/// after the first chunk: the whole ones get every byte, and once every
/// connection is gone no descriptor is open on the file.
async fn many_clients_some_leave() {
    use http_body_util::BodyExt;

    let site = Site::new();
    let mut server = Server::start(site.router()).await;
    let data = Arc::new(site.bytes(BIG));
    let url = server.url(&format!("/{BIG}"));
    let clients = 24;
    let mut tasks = tokio::task::JoinSet::new();
    for client_index in 0..clients {
        let (data, url) = (data.clone(), url.clone());
        tasks.spawn(async move {
            let client = hyper_client(Some(16 * 1024), client_index % 3 == 0);
            let mut response = client.request(hyper_request(&url, &[])).await.unwrap();
            if client_index % 2 == 0 {
                let body = response.into_body().collect().await.unwrap().to_bytes();
                assert_body(&format!("client {client_index}"), &body, &data);
            } else {
                let first = response.body_mut().frame().await.unwrap().unwrap();
                let first = first.into_data().unwrap();
                assert_body("a first chunk", &first, &data[..first.len()]);
            }
        });
    }
    while let Some(joined) = bounded("the clients", tasks.join_next()).await {
        joined.unwrap();
    }
    for _ in 0..clients {
        bounded("a connection closing", server.closed.recv())
            .await
            .unwrap();
    }
    blocking_pool_idle().await;
    assert_eq!(fds_open_on(&site.path(BIG)), 0, "the file is still open");
}

/// A file rewritten, truncated in place and extended between requests:
/// each response is the file as it is then.
async fn file_changed_between_requests() {
    let site = Site::new();
    let server = Server::start(site.router()).await;
    let client = reqwest::Client::new();
    let path = site.path("changing.bin");
    let url = server.url("/changing.bin");

    let first = pattern(1, 300_000);
    std::fs::write(&path, &first).unwrap();
    let (_, _, body) = get(&client, &url).await;
    assert_body("the first version", &body, &first);

    let second = pattern(2, 70_000);
    std::fs::write(&path, &second).unwrap();
    let (_, headers, body) = get(&client, &url).await;
    assert_eq!(header_str(&headers, header::CONTENT_LENGTH), Some("70000"));
    assert_body("rewritten shorter", &body, &second);

    // Truncated in place (the same inode), then a range past the new end.
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(10_000)
        .unwrap();
    let (_, _, body) = get(&client, &url).await;
    assert_body("truncated in place", &body, &second[..10_000]);
    let (status, _, _) = fetch(
        &client,
        reqwest::Method::GET,
        &url,
        &[(header::RANGE, "bytes=20000-")],
    )
    .await;
    assert_eq!(status, StatusCode::RANGE_NOT_SATISFIABLE);

    // Extended in place with new bytes.
    let third = pattern(3, 200_000);
    {
        let mut file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        std::io::Write::write_all(&mut file, &third).unwrap();
    }
    let (_, _, body) = get(&client, &url).await;
    assert_body("extended", &body, &third);
    let (_, _, body) = fetch(
        &client,
        reqwest::Method::GET,
        &url,
        &[(header::RANGE, "bytes=150000-")],
    )
    .await;
    assert_body("extended, ranged", &body, &third[150_000..]);
}

/// Ranges past 2 GiB and 4 GiB of a sparse 5 GiB file (no disk), each
/// around a marker written there: offsets and lengths keep their high
/// bits from the header to the seek.
async fn offsets_past_4_gib() {
    use std::os::unix::fs::FileExt;

    let site = Site::new();
    let path = site.path("sparse.bin");
    let len: u64 = (5 << 30) + 1234;
    let file = std::fs::File::create(&path).unwrap();
    file.set_len(len).unwrap();
    let marks = [(1 << 31) - 4, (1 << 32) - 4, 5 << 30, len - 8];
    for (i, &at) in marks.iter().enumerate() {
        file.write_all_at(&pattern(100 + i as u64, 8), at).unwrap();
    }
    drop(file);
    // The file's bytes from `first` to `last`.
    let expected = |first: u64, last: u64| -> Vec<u8> {
        let mut bytes = vec![0; (last - first + 1) as usize];
        for (i, &at) in marks.iter().enumerate() {
            for (j, byte) in pattern(100 + i as u64, 8).into_iter().enumerate() {
                let offset = at + j as u64;
                if (first..=last).contains(&offset) {
                    bytes[(offset - first) as usize] = byte;
                }
            }
        }
        bytes
    };
    let server = Server::start(site.router()).await;
    let client = reqwest::Client::new();
    let url = server.url("/sparse.bin");
    let (status, headers, _) = fetch(&client, reqwest::Method::HEAD, &url, &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        header_str(&headers, header::CONTENT_LENGTH),
        Some(len.to_string().as_str())
    );
    let mut cases: Vec<(String, u64, u64)> = marks
        .iter()
        .map(|&at| {
            let (first, last) = (at - 100, (at + 100).min(len - 1));
            (format!("bytes={first}-{last}"), first, last)
        })
        .collect();
    cases.push(("bytes=-16".to_owned(), len - 16, len - 1));
    cases.push((format!("bytes={}-", len - 3), len - 3, len - 1));
    for (range, first, last) in cases {
        let (status, headers, body) = fetch(
            &client,
            reqwest::Method::GET,
            &url,
            &[(header::RANGE, &range)],
        )
        .await;
        assert_eq!(status, StatusCode::PARTIAL_CONTENT, "{range}");
        assert_eq!(
            header_str(&headers, header::CONTENT_RANGE),
            Some(format!("bytes {first}-{last}/{len}").as_str())
        );
        assert_body(&range, &body, &expected(first, last));
    }
}

/// hyper-util's client, HTTP/1 with a receive buffer of `recv_buffer`
/// bytes (which also stops the kernel growing it), or HTTP/2.
fn hyper_client(
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

fn hyper_request(
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
async fn until_closed(path: &Path) {
    bounded(&format!("{} closing", path.display()), async {
        while fds_open_on(path) != 0 {
            tokio::task::yield_now().await;
        }
    })
    .await;
}

/// HTTP/2: the whole big file and ranges of it as streams multiplexed on
/// one connection, then a stream the client drops mid-body (a reset):
/// the server lets go of its file while the connection goes on.
async fn http2_streams() {
    use http_body_util::BodyExt;

    let site = Site::new();
    std::fs::write(site.path("large.bin"), pattern(8, 24 * 1024 * 1024)).unwrap();
    let server = Server::start(site.router()).await;
    let client = hyper_client(None, true);
    let data = Arc::new(site.bytes(BIG));
    let len = data.len();
    let url = server.url(&format!("/{BIG}"));
    let mut streams = tokio::task::JoinSet::new();
    for stream in 0..8usize {
        let (client, data, url) = (client.clone(), data.clone(), url.clone());
        streams.spawn(async move {
            let (range, expected) = if stream == 0 {
                (None, &data[..])
            } else {
                let start = stream * 299_993 % len;
                let end = (start + stream * 150_001).min(len - 1);
                (Some(format!("bytes={start}-{end}")), &data[start..=end])
            };
            let headers: Vec<_> = range.iter().map(|r| (header::RANGE, r.as_str())).collect();
            let response = client.request(hyper_request(&url, &headers)).await.unwrap();
            assert!(response.status().is_success(), "{range:?}");
            let body = response.into_body().collect().await.unwrap().to_bytes();
            assert_body(&format!("h2 {range:?}"), &body, expected);
        });
    }
    while let Some(joined) = bounded("the HTTP/2 streams", streams.join_next()).await {
        joined.unwrap();
    }

    let large = site.path("large.bin");
    let mut response = bounded(
        "the h2 request",
        client.request(hyper_request(&server.url("/large.bin"), &[])),
    )
    .await
    .unwrap();
    let first = bounded("the first h2 frame", response.body_mut().frame())
        .await
        .unwrap()
        .unwrap();
    assert!(first.data_ref().is_some_and(|data| !data.is_empty()));
    assert_eq!(fds_open_on(&large), 1, "the file is open mid-stream");
    drop(response);
    until_closed(&large).await;
    // The connection is still good.
    let response = bounded(
        "a request after the reset",
        client.request(hyper_request(&server.url("/page.txt"), &[])),
    )
    .await
    .unwrap();
    let body = bounded("its body", response.into_body().collect())
        .await
        .unwrap()
        .to_bytes();
    assert_body("after the reset", &body, &site.bytes("page.txt"));
}

/// A file truncated while its body is being sent: the body ends early, the
/// client sees an error (fewer bytes than the length announced), every byte
/// it got is the file's, and the server lets go of the file.
async fn file_truncated_mid_body() {
    use http_body_util::BodyExt;

    let site = Site::new();
    let path = site.path("shrinking.bin");
    let data = pattern(9, 24 * 1024 * 1024);
    std::fs::write(&path, &data).unwrap();
    let mut server = Server::start(site.router()).await;
    let client = hyper_client(Some(16 * 1024), false);
    let mut response = bounded(
        "the request",
        client.request(hyper_request(&server.url("/shrinking.bin"), &[])),
    )
    .await
    .unwrap();
    let mut received = Vec::new();
    let first = bounded("the first frame", response.body_mut().frame())
        .await
        .unwrap()
        .unwrap();
    received.extend_from_slice(first.data_ref().unwrap());
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(100_000)
        .unwrap();
    let ended = bounded("the rest of the body", async {
        loop {
            match response.body_mut().frame().await {
                Some(Ok(frame)) => {
                    if let Some(data) = frame.data_ref() {
                        received.extend_from_slice(data);
                    }
                }
                Some(Err(e)) => break Err(e),
                None => break Ok(()),
            }
        }
    })
    .await;
    assert!(ended.is_err(), "a body cut short ended cleanly");
    assert!(received.len() < data.len());
    assert_body(
        "the bytes before the cut",
        &received,
        &data[..received.len()],
    );
    drop(response);
    drop(client);
    bounded("the connection closing", server.closed.recv())
        .await
        .unwrap();
    blocking_pool_idle().await;
    assert_eq!(fds_open_on(&path), 0, "the file is still open");
}

/// A runtime shut down (dropped) while it serves a file: its tasks, the
/// response body among them, are dropped and the blocking reads finish,
/// so no descriptor is left open on the file.
fn runtime_dropped_mid_body(runtime: tokio::runtime::Runtime) {
    use http_body_util::BodyExt;

    let site = Site::new();
    let path = site.path("large.bin");
    std::fs::write(&path, pattern(10, 24 * 1024 * 1024)).unwrap();
    runtime.block_on(async {
        let server = Server::start(site.router()).await;
        let client = hyper_client(Some(16 * 1024), false);
        let mut response = bounded(
            "the request",
            client.request(hyper_request(&server.url("/large.bin"), &[])),
        )
        .await
        .unwrap();
        bounded("the first frame", response.body_mut().frame())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(fds_open_on(&path), 1, "the file is open mid-body");
        // The client and the server stay in the runtime's tasks.
        std::mem::forget((server, client, response));
    });
    drop(runtime);
    assert_eq!(
        fds_open_on(&path),
        0,
        "the file is open after the runtime dropped"
    );
}

#[test]
fn runtime_dropped_mid_body_current_thread() {
    runtime_dropped_mid_body(
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap(),
    );
}

#[test]
fn runtime_dropped_mid_body_multi_thread() {
    runtime_dropped_mid_body(
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap(),
    );
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

on_both_schedulers!(
    whole_files,
    ranges,
    conditional_requests,
    directory_precompressed_and_gzip,
    concurrent_ranges,
    client_disconnects_mid_body,
    file_changed_between_requests,
    http2_streams,
    file_truncated_mid_body,
    offsets_past_4_gib,
    connections_aborted_mid_body,
    many_clients_some_leave,
);
