//! actix-web on rt through the facade. actix-rt builds its own runtimes
//! (a current-thread runtime and a `LocalSet` for the system thread and for
//! each worker thread); actix-server's accept thread polls the listener
//! with mio and hands each accepted `std` socket to a worker, which takes
//! it in with `TcpStream::from_std`. Four workers serve concurrent
//! requests from reqwest (JSON in and out, a streamed response, kept-alive
//! connections, a timer, `rt::spawn` and `spawn_blocking` in a handler);
//! clients leave mid-body and mid-response; `ServerHandle::stop(true)` and
//! SIGTERM end the server after the request in flight is answered; and
//! the server runs on a plain tokio runtime with no actix system too.

use actix_web::{App, HttpRequest, HttpResponse, HttpServer, dev::ServerHandle, web};
use bytes::Bytes;
use futures::StreamExt;
use rt_ecosystem_tests::{
    assert_rt_runs, bounded, listener_closed, rt_task_ids, rt_tasks_spawned_in,
};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::net::SocketAddr;
use std::sync::Mutex;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::{Barrier, Semaphore, mpsc, oneshot};

/// The same on both sides of `/order`.
#[derive(Debug, Serialize, Deserialize, PartialEq)]
struct Order {
    item: String,
    count: u32,
}

#[derive(Debug, Serialize, Deserialize)]
struct Receipt {
    item: String,
    total: u32,
    /// The worker thread's name.
    thread: String,
    /// The handler's task is in rt's dump of the worker's runtime.
    in_rt: bool,
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

/// What the test hands the handlers (shared by every worker).
struct Shared {
    /// `/gather`: each request waits for the others.
    gather: Barrier,
    /// `/wait`: announces itself, then answers once a permit is added.
    waiting: mpsc::UnboundedSender<()>,
    release: Semaphore,
    /// `/upload`: how reading the body ended.
    uploads: mpsc::UnboundedSender<Upload>,
    /// `/endless`: sends here when its body is dropped.
    endless_dropped: Mutex<Option<oneshot::Sender<()>>>,
}

const GATHERED: usize = 4;

fn thread_name() -> String {
    std::thread::current().name().unwrap_or_default().to_owned()
}

fn handler_in_rt() -> bool {
    tokio::task::try_id().is_some_and(|id| rt_task_ids().contains(&id))
}

async fn order(order: web::Json<Order>) -> web::Json<Receipt> {
    let order = order.into_inner();
    web::Json(Receipt {
        total: order.count * 3,
        item: order.item,
        thread: thread_name(),
        in_rt: handler_in_rt(),
    })
}

async fn gather(shared: web::Data<Shared>) -> HttpResponse {
    shared.gather.wait().await;
    HttpResponse::Ok().body(thread_name())
}

/// The client's port: the same on every request of a kept-alive connection.
async fn peer(request: HttpRequest) -> HttpResponse {
    HttpResponse::Ok().body(request.peer_addr().unwrap().port().to_string())
}

/// 64 chunks of 1 KiB, one per timer tick: a chunked body.
async fn stream() -> HttpResponse {
    let chunks = futures::stream::iter(0..64u8).then(|i| async move {
        tokio::time::sleep(Duration::from_millis(1)).await;
        Ok::<_, std::io::Error>(Bytes::from(vec![i; 1024]))
    });
    HttpResponse::Ok().streaming(chunks)
}

/// A timer, a task spawned on the worker's `LocalSet` and a closure on the
/// blocking pool, all from one handler.
async fn work() -> HttpResponse {
    tokio::time::sleep(Duration::from_millis(5)).await;
    let worker = thread_name();
    // `!Send`, as actix lets a spawned task be: it runs on this thread.
    let local = std::rc::Rc::new(20);
    let spawned = actix_web::rt::spawn(async move {
        tokio::task::yield_now().await;
        (*local + 1, thread_name(), handler_in_rt())
    });
    let blocking = actix_web::rt::task::spawn_blocking(|| (21 * 2, thread_name()));
    let (sum, spawned_on, spawned_in_rt) = spawned.await.unwrap();
    let (product, blocking_on) = blocking.await.unwrap();
    assert_eq!((sum, product), (21, 42));
    assert_eq!(spawned_on, worker);
    assert!(spawned_in_rt);
    assert_ne!(blocking_on, worker);
    // actix's own wrapper around the blocking pool.
    let blocked = web::block(|| 7).await.unwrap();
    HttpResponse::Ok().body(format!("{sum} {product} {blocked}"))
}

async fn wait(shared: web::Data<Shared>) -> HttpResponse {
    shared.waiting.send(()).unwrap();
    shared.release.acquire().await.unwrap().forget();
    HttpResponse::Ok().body("released")
}

/// What `/upload` reports of the body it reads.
#[derive(Debug, PartialEq)]
enum Upload {
    /// A chunk of this many bytes.
    Chunk(usize),
    /// The body ended: its length, or the payload's error.
    Done(Result<usize, String>),
    /// The handler was dropped before the body ended.
    Dropped,
}

/// Reports `Dropped` unless the handler got to the end.
struct UploadGuard {
    uploads: mpsc::UnboundedSender<Upload>,
    done: bool,
}

impl Drop for UploadGuard {
    fn drop(&mut self) {
        if !self.done {
            let _ = self.uploads.send(Upload::Dropped);
        }
    }
}

async fn upload(shared: web::Data<Shared>, mut payload: web::Payload) -> HttpResponse {
    let mut guard = UploadGuard {
        uploads: shared.uploads.clone(),
        done: false,
    };
    let mut received = 0;
    let outcome = loop {
        match payload.next().await {
            Some(Ok(chunk)) => {
                received += chunk.len();
                shared.uploads.send(Upload::Chunk(chunk.len())).unwrap();
            }
            Some(Err(e)) => break Err(e.to_string()),
            None => break Ok(received),
        }
    };
    guard.done = true;
    let answer = format!("{outcome:?}");
    shared.uploads.send(Upload::Done(outcome)).unwrap();
    HttpResponse::Ok().body(answer)
}

async fn endless(shared: web::Data<Shared>) -> HttpResponse {
    let guard = DropSignal(shared.endless_dropped.lock().unwrap().take());
    let chunks = futures::stream::repeat(Bytes::from(vec![b'x'; 64 * 1024])).map(move |chunk| {
        let _keep = &guard;
        Ok::<_, std::io::Error>(chunk)
    });
    HttpResponse::Ok().streaming(chunks)
}

struct Server {
    addr: SocketAddr,
    handle: ServerHandle,
    /// The server's future, spawned on the current runtime.
    task: tokio::task::JoinHandle<std::io::Result<()>>,
    waiting: mpsc::UnboundedReceiver<()>,
    uploads: mpsc::UnboundedReceiver<Upload>,
    shared: web::Data<Shared>,
}

/// Four workers; the OS signals only when `signals`.
fn serve(signals: bool, endless_dropped: Option<oneshot::Sender<()>>) -> Server {
    let (waiting_tx, waiting) = mpsc::unbounded_channel();
    let (uploads_tx, uploads) = mpsc::unbounded_channel();
    let shared = web::Data::new(Shared {
        gather: Barrier::new(GATHERED),
        waiting: waiting_tx,
        release: Semaphore::new(0),
        uploads: uploads_tx,
        endless_dropped: Mutex::new(endless_dropped),
    });
    let server = HttpServer::new({
        let shared = shared.clone();
        move || {
            App::new()
                .app_data(shared.clone())
                .route("/order", web::post().to(order))
                .route("/gather", web::get().to(gather))
                .route("/peer", web::get().to(peer))
                .route("/stream", web::get().to(stream))
                .route("/work", web::get().to(work))
                .route("/wait", web::get().to(wait))
                .route("/upload", web::post().to(upload))
                .route("/endless", web::get().to(endless))
        }
    })
    .workers(4)
    .shutdown_timeout(30);
    let server = if signals {
        server
    } else {
        server.disable_signals()
    };
    let server = server.bind(("127.0.0.1", 0)).unwrap();
    let addr = server.addrs()[0];
    let server = server.run();
    let handle = server.handle();
    Server {
        addr,
        handle,
        task: tokio::spawn(server),
        waiting,
        uploads,
        shared,
    }
}

fn url(addr: SocketAddr, path: &str) -> String {
    format!("http://{addr}{path}")
}

#[actix_web::test]
async fn workers_serve_concurrent_requests() {
    let server = serve(false, None);
    assert_rt_runs(server.task.id());
    // actix-rt's system controller, spawned on this thread's `LocalSet`.
    assert!(rt_tasks_spawned_in("/actix-rt-") > 0);
    let client = reqwest::Client::new();

    // JSON in and out, 32 at once.
    let orders = (0..32u32).map(|i| {
        let (client, url) = (client.clone(), url(server.addr, "/order"));
        tokio::spawn(async move {
            let order = Order {
                item: format!("item {i}"),
                count: i,
            };
            let response = client.post(url).json(&order).send().await.unwrap();
            assert_eq!(response.status(), 200);
            let receipt: Receipt = response.json().await.unwrap();
            assert_eq!((receipt.item, receipt.total), (order.item, i * 3));
            assert!(receipt.in_rt, "the handler's task is not in rt's dump");
            receipt.thread
        })
    });
    let mut threads = HashSet::new();
    for order in bounded("32 orders", futures::future::join_all(orders)).await {
        threads.insert(order.unwrap());
    }
    assert!(!threads.contains(&thread_name()), "{threads:?}");

    // Four requests that each wait for the other three: four connections
    // open at once, which the accept thread hands to the workers in turn.
    // A client of their own, with no idle connection to reuse.
    let gather_client = reqwest::Client::new();
    let gathered = (0..GATHERED).map(|_| {
        let (client, url) = (gather_client.clone(), url(server.addr, "/gather"));
        tokio::spawn(async move { client.get(url).send().await.unwrap().text().await.unwrap() })
    });
    let gathered: HashSet<String> =
        bounded("four requests meeting", futures::future::join_all(gathered))
            .await
            .into_iter()
            .map(Result::unwrap)
            .collect();
    assert_eq!(gathered.len(), GATHERED, "{gathered:?}");
    drop(gather_client);

    // One client, one request at a time: one kept-alive connection.
    let keep_alive = reqwest::Client::new();
    let mut ports = HashSet::new();
    for _ in 0..3 {
        let response = bounded(
            "a request",
            keep_alive.get(url(server.addr, "/peer")).send(),
        )
        .await
        .unwrap();
        ports.insert(response.text().await.unwrap());
    }
    assert_eq!(ports.len(), 1, "the connection was not reused: {ports:?}");

    // A streamed (chunked) response, byte for byte.
    let response = bounded("the stream", client.get(url(server.addr, "/stream")).send())
        .await
        .unwrap();
    assert!(response.content_length().is_none());
    assert_eq!(response.headers()["transfer-encoding"], "chunked");
    let body = bounded("the streamed body", response.bytes())
        .await
        .unwrap();
    let expected: Vec<u8> = (0..64u8).flat_map(|i| [i; 1024]).collect();
    assert_eq!(body.len(), expected.len());
    assert!(body == expected);

    // A timer, `rt::spawn`, `spawn_blocking` and `web::block` in a handler.
    let response = bounded("the work", client.get(url(server.addr, "/work")).send())
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.text().await.unwrap(), "21 42 7");

    drop((client, keep_alive));
    bounded("the stop", server.handle.stop(true)).await;
    bounded("the server", server.task).await.unwrap().unwrap();
}

#[actix_web::test]
async fn graceful_stop_answers_the_request_in_flight() {
    let mut server = serve(false, None);
    let client = reqwest::Client::new();
    let in_flight = tokio::spawn(client.get(url(server.addr, "/wait")).send());
    bounded("the handler", server.waiting.recv()).await.unwrap();

    // The stop waits for the workers, which wait for the handler.
    let stop = tokio::spawn(server.handle.stop(true));
    // The accept thread stops first: no new connection is taken.
    listener_closed(server.addr).await;
    assert!(!stop.is_finished());
    server.shared.release.add_permits(1);

    let response = bounded("the response", in_flight).await.unwrap().unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.text().await.unwrap(), "released");
    // The workers wait for every connection to close.
    drop(client);
    bounded("the stop", stop).await.unwrap();
    bounded("the server", server.task).await.unwrap().unwrap();
}

#[actix_web::test]
async fn clients_leaving_mid_request_and_mid_response() {
    let (dropped_tx, dropped) = oneshot::channel();
    let mut server = serve(false, Some(dropped_tx));

    // Headers and 1000 of 100000 bytes, read by the handler.
    let half_a_body = async |uploads: &mut mpsc::UnboundedReceiver<Upload>| {
        let mut stream = TcpStream::connect(server.addr).await.unwrap();
        stream
            .write_all(b"POST /upload HTTP/1.1\r\nhost: x\r\ncontent-length: 100000\r\n\r\n")
            .await
            .unwrap();
        stream.write_all(&[b'y'; 1000]).await.unwrap();
        let mut read = 0;
        while read < 1000 {
            match bounded("a chunk read", uploads.recv()).await.unwrap() {
                Upload::Chunk(len) => read += len,
                other => panic!("{other:?}"),
            }
        }
        stream
    };
    // Then a reset: actix-http's read fails, and the connection's task
    // ends, dropping the handler mid-body.
    let stream = half_a_body(&mut server.uploads).await;
    stream.set_zero_linger().unwrap();
    drop(stream);
    let outcome = bounded("the handler's end", server.uploads.recv()).await;
    assert_eq!(outcome, Some(Upload::Dropped));
    // Then a FIN: actix-http ends the payload where the stream ends, short
    // as it is (its dispatcher feeds the payload its end on a read of 0).
    drop(half_a_body(&mut server.uploads).await);
    let outcome = bounded("the handler's end", server.uploads.recv()).await;
    assert_eq!(outcome, Some(Upload::Done(Ok(1000))));

    // A whole body: read to its end.
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    stream
        .write_all(b"POST /upload HTTP/1.1\r\nhost: x\r\ncontent-length: 5\r\nconnection: close\r\n\r\nhello")
        .await
        .unwrap();
    let mut response = String::new();
    bounded("the response", stream.read_to_string(&mut response))
        .await
        .unwrap();
    assert!(response.ends_with("Ok(5)"), "{response}");
    assert_eq!(server.uploads.recv().await, Some(Upload::Chunk(5)));
    assert_eq!(server.uploads.recv().await, Some(Upload::Done(Ok(5))));

    // An endless response, left after 256 KiB: the server drops its body.
    let client = reqwest::Client::new();
    let mut response = bounded(
        "the endless response",
        client.get(url(server.addr, "/endless")).send(),
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
    drop(response);
    drop(client);
    bounded("the body dropped", dropped).await.unwrap();

    bounded("the stop", server.handle.stop(true)).await;
    bounded("the server", server.task).await.unwrap().unwrap();
}

/// SIGTERM, as a service manager sends it: a graceful stop (actix-server's
/// signal listener, on this thread's runtime) that answers the request in
/// flight, then stops the system. Only this test's server listens for
/// signals.
#[test]
fn sigterm_stops_gracefully() {
    let system = actix_web::rt::System::new();
    system.block_on(async {
        let mut server = serve(true, None);
        let client = reqwest::Client::new();
        // A first answer: the server's first poll, which set up its
        // signal listeners on this thread, is over.
        let response = bounded("a request", client.get(url(server.addr, "/peer")).send())
            .await
            .unwrap();
        assert_eq!(response.status(), 200);

        let in_flight = tokio::spawn(client.get(url(server.addr, "/wait")).send());
        bounded("the handler", server.waiting.recv()).await.unwrap();
        let kill = std::process::Command::new("kill")
            .args(["-TERM", &std::process::id().to_string()])
            .status()
            .unwrap();
        assert!(kill.success());
        listener_closed(server.addr).await;
        assert!(!server.task.is_finished());
        server.shared.release.add_permits(1);
        let response = bounded("the response", in_flight).await.unwrap().unwrap();
        assert_eq!(response.text().await.unwrap(), "released");
        drop(client);
        bounded("the server", server.task).await.unwrap().unwrap();
    });
    // After a signal, actix-server stops the system too.
    system.run().unwrap();
}

/// No actix system: actix-server starts its workers on threads of its own
/// and builds their services with `Handle::block_on` on this runtime.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_tokio_runtime_without_a_system() {
    let server = serve(false, None);
    assert_rt_runs(server.task.id());
    let client = reqwest::Client::new();
    let response = bounded(
        "the order",
        client
            .post(url(server.addr, "/order"))
            .json(&Order {
                item: "one".into(),
                count: 2,
            })
            .send(),
    )
    .await
    .unwrap();
    let receipt: Receipt = response.json().await.unwrap();
    assert_eq!(receipt.total, 6);
    assert!(receipt.in_rt);
    assert!(
        receipt.thread.starts_with("actix-server worker"),
        "{receipt:?}"
    );
    let response = bounded("the work", client.get(url(server.addr, "/work")).send())
        .await
        .unwrap();
    assert_eq!(response.text().await.unwrap(), "21 42 7");
    drop(client);
    bounded("the stop", server.handle.stop(true)).await;
    bounded("the server", server.task).await.unwrap().unwrap();
}
