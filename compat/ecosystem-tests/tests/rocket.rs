//! Rocket 0.5 on rt through the facade, as an app is written: routes with
//! path and query parameters, JSON in and out, catchers, managed state
//! under 32 concurrent requests, streamed responses (`TextStream!` on an
//! interval, `ByteStream!` fed by a channel in lockstep with the client,
//! SSE), a client leaving mid-stream, uploads read with `Data::open` to
//! their limit, `FileServer` and `NamedFile` (the facade's `fs`), graceful
//! shutdown from a route and from the handle with a request in flight,
//! Rocket's own runtimes (`#[rocket::main]`, `#[rocket::async_test]`, the
//! blocking local client's) and both local clients. Each app binds
//! 127.0.0.1 port 0 and reports its port from a liftoff fairing.

use rocket::config::{Config, LogLevel, Shutdown as ShutdownConfig};
use rocket::data::{Data, Limits, ToByteUnit};
use rocket::fairing::AdHoc;
use rocket::fs::{FileServer, NamedFile};
use rocket::http::Status;
use rocket::response::stream::{ByteStream, Event, EventStream, TextStream};
use rocket::serde::json::Json;
use rocket::{Build, Ignite, Request, Rocket, Shutdown, State};
use rocket::{catch, catchers, get, post, routes};
use rt_ecosystem_tests::{
    assert_rt_runs, bounded, listener_closed, rt_task_ids, rt_tasks_spawned_in,
};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, HashSet};
use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{Barrier, Semaphore, mpsc, oneshot};
use tokio::task::JoinHandle;

/// How many of the current runtime's live tasks Rocket's server spawned:
/// in its own source (its request tasks; from 0.5.2 its connection tasks
/// too) or in hyper 0.14's (0.5.0 and 0.5.1 serve with hyper 0.14's
/// `Server`, whose default executor spawns each connection's task; no
/// other crate here runs hyper 0.14).
fn rocket_tasks() -> usize {
    rt_tasks_spawned_in("/rocket-0.5") + rt_tasks_spawned_in("/hyper-0.14")
}

const CONCURRENT: usize = 32;
const UPLOAD_LIMIT: usize = 4 << 20;
const CHUNK_LEN: usize = 8192;

#[derive(Debug, Serialize, Deserialize, PartialEq)]
struct Order {
    item: String,
    count: u32,
}

#[derive(Debug, Serialize, Deserialize)]
struct Receipt {
    item: String,
    total: u32,
    /// The handler's task is in rt's dump.
    in_rt: bool,
}

/// Where a handler ran, as `/where` reports it.
#[derive(Debug, Serialize, Deserialize)]
struct Place {
    thread: String,
    /// The handler's own task is in rt's dump (there is none under the
    /// local clients, which run the handler in the caller's future).
    in_rt: bool,
    /// A task the handler spawned: its thread, and whether rt's dump has it.
    spawned_thread: String,
    spawned_in_rt: bool,
    /// The thread `spawn_blocking` ran on.
    blocking_thread: String,
    /// How many of the runtime's live tasks Rocket's source spawned.
    rocket_tasks: usize,
}

/// The server's side of what a test hands its handlers.
struct Shared {
    hits: AtomicUsize,
    /// Each `/count/<i>`'s `i`, pushed under the facade's mutex.
    seen: tokio::sync::Mutex<Vec<u32>>,
    /// `/count` waits here for all the others.
    gather: Barrier,
    /// `/chunks` streams what arrives here.
    chunks: Mutex<Option<mpsc::UnboundedReceiver<Vec<u8>>>>,
    /// A stream's generator sends its name here when it is dropped.
    dropped: mpsc::UnboundedSender<&'static str>,
    /// `/wait` announces itself, then answers once a permit is added.
    waiting: mpsc::UnboundedSender<()>,
    release: Arc<Semaphore>,
}

/// The test's side.
struct Handles {
    chunks: mpsc::UnboundedSender<Vec<u8>>,
    dropped: mpsc::UnboundedReceiver<&'static str>,
    waiting: mpsc::UnboundedReceiver<()>,
    release: Arc<Semaphore>,
}

fn shared() -> (Shared, Handles) {
    let (chunks_tx, chunks) = mpsc::unbounded_channel();
    let (dropped_tx, dropped) = mpsc::unbounded_channel();
    let (waiting_tx, waiting) = mpsc::unbounded_channel();
    let release = Arc::new(Semaphore::new(0));
    let shared = Shared {
        hits: AtomicUsize::new(0),
        seen: tokio::sync::Mutex::new(Vec::new()),
        gather: Barrier::new(CONCURRENT),
        chunks: Mutex::new(Some(chunks)),
        dropped: dropped_tx,
        waiting: waiting_tx,
        release: release.clone(),
    };
    let handles = Handles {
        chunks: chunks_tx,
        dropped,
        waiting,
        release,
    };
    (shared, handles)
}

/// Sends its name when dropped: a stream's generator let go.
struct DropSignal(mpsc::UnboundedSender<&'static str>, &'static str);

impl Drop for DropSignal {
    fn drop(&mut self) {
        // The test may be gone already (it failed); nothing to tell then.
        let _ = self.0.send(self.1);
    }
}

fn thread_name() -> String {
    std::thread::current().name().unwrap_or_default().to_owned()
}

fn task_in_rt() -> bool {
    tokio::task::try_id().is_some_and(|id| rt_task_ids().contains(&id))
}

#[get("/hello/<name>?<times>")]
fn hello(name: &str, times: Option<usize>) -> String {
    vec![format!("hello, {name}"); times.unwrap_or(1)].join("\n")
}

#[post("/order", format = "json", data = "<order>")]
fn order(order: Json<Order>) -> Json<Receipt> {
    let order = order.into_inner();
    Json(Receipt {
        total: order.count * 3,
        item: order.item,
        in_rt: task_in_rt(),
    })
}

/// Every request waits for all [`CONCURRENT`], then takes the facade's
/// mutex across an await: its answer is its place in line.
#[get("/count/<i>")]
async fn count(i: u32, shared: &State<Shared>) -> String {
    shared.hits.fetch_add(1, Ordering::SeqCst);
    shared.gather.wait().await;
    let mut seen = shared.seen.lock().await;
    seen.push(i);
    tokio::task::yield_now().await;
    seen.len().to_string()
}

#[get("/tally")]
async fn tally(shared: &State<Shared>) -> Json<(usize, Vec<u32>)> {
    let seen = shared.seen.lock().await.clone();
    Json((shared.hits.load(Ordering::SeqCst), seen))
}

#[get("/where")]
async fn place() -> Json<Place> {
    let (spawned_thread, spawned_in_rt) = tokio::spawn(async { (thread_name(), task_in_rt()) })
        .await
        .unwrap();
    Json(Place {
        thread: thread_name(),
        in_rt: task_in_rt(),
        spawned_thread,
        spawned_in_rt,
        blocking_thread: tokio::task::spawn_blocking(thread_name).await.unwrap(),
        rocket_tasks: rocket_tasks(),
    })
}

/// `n` lines, one per tick of the facade's interval.
#[get("/ticks/<n>")]
fn ticks(n: u32) -> TextStream![String] {
    TextStream! {
        let mut interval = tokio::time::interval(Duration::from_millis(2));
        for i in 0..n {
            interval.tick().await;
            yield format!("tick {i}\n");
        }
    }
}

/// What the test sends, as it sends it, until it stops sending.
#[get("/chunks")]
fn chunks(shared: &State<Shared>) -> ByteStream![Vec<u8>] {
    let mut chunks = shared.chunks.lock().unwrap().take().unwrap();
    let signal = DropSignal(shared.dropped.clone(), "chunks");
    ByteStream! {
        let _signal = signal;
        while let Some(chunk) = chunks.recv().await {
            yield chunk;
        }
    }
}

#[get("/events")]
fn events() -> EventStream![] {
    EventStream! {
        let mut interval = tokio::time::interval(Duration::from_millis(2));
        for count in 0..3 {
            interval.tick().await;
            let order = Order { item: "sse".into(), count };
            yield Event::json(&order).event("order").id(count.to_string());
        }
    }
}

/// The body back, read to its end through `Data::open`; 413 past the limit.
#[post("/upload", data = "<data>")]
async fn upload(data: Data<'_>) -> Result<Vec<u8>, Status> {
    let body = data
        .open(UPLOAD_LIMIT.bytes())
        .into_bytes()
        .await
        .map_err(|_| Status::BadRequest)?;
    if !body.is_complete() {
        return Err(Status::PayloadTooLarge);
    }
    Ok(body.into_inner())
}

#[get("/wait")]
async fn wait(shared: &State<Shared>) -> &'static str {
    shared.waiting.send(()).unwrap();
    shared.release.acquire().await.unwrap().forget();
    "released"
}

#[get("/stop")]
fn stop(shutdown: Shutdown) -> &'static str {
    shutdown.notify();
    "stopping"
}

#[catch(404)]
fn not_found(request: &Request<'_>) -> String {
    format!("nothing at {}", request.uri())
}

#[catch(default)]
fn caught(status: Status, _request: &Request<'_>) -> String {
    format!("caught {}", status.code)
}

/// Port 0 on 127.0.0.1, no signal handling, quiet, a 1 KiB JSON limit;
/// a grace period long enough for any request the tests hold in flight.
fn config() -> Config {
    Config {
        address: Ipv4Addr::LOCALHOST.into(),
        port: 0,
        log_level: LogLevel::Off,
        cli_colors: false,
        limits: Limits::default().limit("json", 1.kibibytes()),
        shutdown: ShutdownConfig {
            ctrlc: false,
            signals: HashSet::new(),
            grace: 30,
            mercy: 30,
            ..ShutdownConfig::default()
        },
        ..Config::debug_default()
    }
}

fn app(shared: Shared) -> Rocket<Build> {
    rocket::custom(config())
        .manage(shared)
        .mount(
            "/",
            routes![
                hello, order, count, tally, place, ticks, chunks, events, upload, wait, stop
            ],
        )
        .register("/", catchers![not_found, caught])
}

/// Sends the bound port and the shutdown handle once Rocket is in orbit.
fn liftoff(ready: impl FnOnce(u16, Shutdown) + Send + Sync + 'static) -> AdHoc {
    AdHoc::on_liftoff("report the port", move |rocket| {
        Box::pin(async move { ready(rocket.config().port, rocket.shutdown()) })
    })
}

/// A launched app, on the current runtime.
struct Launched {
    addr: SocketAddr,
    shutdown: Shutdown,
    launch: JoinHandle<Result<Rocket<Ignite>, rocket::Error>>,
}

async fn launch(rocket: Rocket<Build>) -> Launched {
    let (port_tx, port) = oneshot::channel();
    let rocket = rocket.attach(liftoff(move |port, _| port_tx.send(port).unwrap()));
    let rocket = bounded("ignite", rocket.ignite()).await.unwrap();
    let shutdown = rocket.shutdown();
    let launch = tokio::spawn(rocket.launch());
    assert_rt_runs(launch.id());
    let port = bounded("liftoff", port).await.unwrap();
    Launched {
        addr: (Ipv4Addr::LOCALHOST, port).into(),
        shutdown,
        launch,
    }
}

impl Launched {
    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Waits for the app to be idle, then stops it: `launch()` returns
    /// the rocket.
    ///
    /// Rocket 0.5.2 looks once, as its accept loop ends, for connections
    /// still open, and if there are any waits out the whole grace period
    /// before it looks again (0.5.4 looks every 10 ms; 0.5.0 and 0.5.1's
    /// accept loop, hyper 0.14's graceful `Server`, ends only once every
    /// connection has). So the test waits
    /// first for every task Rocket spawned (connections, requests) to be
    /// gone from rt's dump: the clients were dropped, and each connection
    /// ends on its EOF.
    async fn stop(self) {
        rocket_tasks_gone().await;
        self.shutdown.notify();
        let rocket = bounded("launch() returning", self.launch).await;
        // The rocket back, with the port it was bound to.
        let rocket = rocket.unwrap().unwrap();
        assert_eq!(rocket.config().port, self.addr.port());
    }
}

/// Waits for every task Rocket spawned on the current runtime to end.
async fn rocket_tasks_gone() {
    bounded("Rocket's tasks ending", async {
        while rocket_tasks() > 0 {
            tokio::task::yield_now().await;
        }
    })
    .await;
}

async fn get(client: &reqwest::Client, url: String) -> reqwest::Response {
    bounded(&url.clone(), client.get(url).send()).await.unwrap()
}

async fn text(client: &reqwest::Client, url: String) -> (u16, String) {
    let response = get(client, url).await;
    let status = response.status().as_u16();
    (status, bounded("a body", response.text()).await.unwrap())
}

/// A request's `/where`: the handler's task is rt's, and so are Rocket's
/// connection and request tasks.
async fn assert_served_by_rt(client: &reqwest::Client, app: &Launched) {
    let place: Place = get(client, app.url("/where")).await.json().await.unwrap();
    assert!(place.in_rt && place.spawned_in_rt, "{place:?}");
    assert!(place.rocket_tasks >= 2, "{place:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn routes_json_catchers_and_state_under_concurrent_requests() {
    let (shared, _handles) = shared();
    let app = launch(app(shared)).await;
    let client = reqwest::Client::new();
    assert_served_by_rt(&client, &app).await;

    let hello = text(&client, app.url("/hello/rocket%20man?times=2")).await;
    assert_eq!(hello, (200, "hello, rocket man\nhello, rocket man".into()));
    assert_eq!(text(&client, app.url("/hello/x")).await.1, "hello, x");
    // An optional query value that does not parse is `None`; a path
    // segment that does not parse forwards with 422, here to no other route.
    assert_eq!(
        text(&client, app.url("/hello/x?times=many")).await.1,
        "hello, x"
    );
    let bad = text(&client, app.url("/count/many")).await;
    assert_eq!(bad, (422, "caught 422".into()));
    let missing = text(&client, app.url("/nowhere")).await;
    assert_eq!(missing, (404, "nothing at /nowhere".into()));

    let order = Order {
        item: "fuel".into(),
        count: 7,
    };
    let response = client.post(app.url("/order")).json(&order);
    let response = bounded("the order", response.send()).await.unwrap();
    assert_eq!(response.status(), 200);
    let receipt: Receipt = response.json().await.unwrap();
    assert_eq!((receipt.item.as_str(), receipt.total), ("fuel", 21));
    assert!(receipt.in_rt);
    // Past the 1 KiB JSON limit, and not JSON: the default catcher.
    let big = Order {
        item: "x".repeat(2000),
        count: 1,
    };
    let response = client.post(app.url("/order")).json(&big).send();
    let response = bounded("the big order", response).await.unwrap();
    assert_eq!(response.status(), 413);
    assert_eq!(response.text().await.unwrap(), "caught 413");
    let response = client
        .post(app.url("/order"))
        .header("content-type", "application/json")
        .body("{\"item\": 1}")
        .send();
    assert_eq!(bounded("bad JSON", response).await.unwrap().status(), 422);

    // 32 at once, all in their handlers together, in line for the mutex.
    let requests = (0..CONCURRENT as u32).map(|i| {
        let (client, url) = (client.clone(), app.url(&format!("/count/{i}")));
        tokio::spawn(async move { text(&client, url).await })
    });
    let places: BTreeSet<usize> = bounded("32 requests", futures::future::join_all(requests))
        .await
        .into_iter()
        .map(|answer| {
            let (status, place) = answer.unwrap();
            assert_eq!(status, 200);
            place.parse().unwrap()
        })
        .collect();
    assert_eq!(places, (1..=CONCURRENT).collect());
    let (hits, mut seen): (usize, Vec<u32>) =
        get(&client, app.url("/tally")).await.json().await.unwrap();
    seen.sort_unstable();
    assert_eq!(hits, CONCURRENT);
    assert_eq!(seen, (0..CONCURRENT as u32).collect::<Vec<_>>());

    drop(client);
    app.stop().await;
}

#[tokio::test]
async fn streams_and_a_client_leaving_mid_stream() {
    let (shared, mut handles) = shared();
    let app = launch(app(shared)).await;
    let client = reqwest::Client::new();
    assert_served_by_rt(&client, &app).await;

    let (status, ticks) = text(&client, app.url("/ticks/20")).await;
    assert_eq!(status, 200);
    let expected: String = (0..20).map(|i| format!("tick {i}\n")).collect();
    assert_eq!(ticks, expected);

    // In lockstep: each chunk is sent only once the client has the one
    // before, so none can be buffered whole.
    let mut response = get(&client, app.url("/chunks")).await;
    assert_eq!(response.status(), 200);
    let mut received = Vec::new();
    for i in 0..4u8 {
        handles.chunks.send(vec![i; CHUNK_LEN]).unwrap();
        while received.len() < (usize::from(i) + 1) * CHUNK_LEN {
            let chunk = bounded("a chunk", response.chunk()).await.unwrap().unwrap();
            received.extend_from_slice(&chunk);
        }
        assert_eq!(received.len(), (usize::from(i) + 1) * CHUNK_LEN);
        assert!(received[usize::from(i) * CHUNK_LEN..] == [i; CHUNK_LEN]);
    }
    // The client leaves (with its pool: no connection is left) while the
    // generator waits for a fifth chunk. Rocket 0.5.2 notices only when it
    // next writes (0.5.4 watches for the close as it waits): once the
    // connection's task is gone from rt's dump, leaving the request's task
    // alone, the fifth chunk fails to go out and the generator is dropped.
    drop((response, client));
    bounded("the connection's task ended", async {
        while rocket_tasks() > 1 {
            tokio::task::yield_now().await;
        }
    })
    .await;
    // Already closed where Rocket watched for the close itself.
    let _ = handles.chunks.send(vec![4; CHUNK_LEN]);
    let dropped = bounded("the generator dropped", handles.dropped.recv()).await;
    assert_eq!(dropped, Some("chunks"));

    let client = reqwest::Client::new();
    let response = get(&client, app.url("/events")).await;
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let events = bounded("the events", response.text()).await.unwrap();
    let events: Vec<(String, String, Order)> = events
        .split("\n\n")
        .filter(|event| !event.is_empty())
        .map(|event| {
            let field = |name: &str| {
                let prefix = format!("{name}:");
                let line = event.lines().find(|line| line.starts_with(&prefix));
                line.unwrap_or_else(|| panic!("no {name} in {event:?}"))[prefix.len()..]
                    .trim()
                    .to_owned()
            };
            let data = serde_json::from_str(&field("data")).unwrap();
            (field("event"), field("id"), data)
        })
        .collect();
    let expected: Vec<_> = (0..3)
        .map(|count| {
            let order = Order {
                item: "sse".into(),
                count,
            };
            ("order".to_owned(), count.to_string(), order)
        })
        .collect();
    assert_eq!(events, expected);

    drop(client);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uploads_read_to_the_end_and_over_the_limit() {
    let (shared, _handles) = shared();
    let app = launch(app(shared)).await;
    let client = reqwest::Client::new();
    assert_served_by_rt(&client, &app).await;

    let body: Vec<u8> = (0..UPLOAD_LIMIT).map(|i| (i * 31 % 251) as u8).collect();
    let response = client.post(app.url("/upload")).body(body.clone()).send();
    let response = bounded("the upload", response).await.unwrap();
    assert_eq!(response.status(), 200);
    let echoed = bounded("the echo", response.bytes()).await.unwrap();
    assert_eq!(echoed.len(), body.len());
    assert!(echoed == body, "the echo differs");

    // One byte over: Rocket stops reading at the limit and answers 413.
    let mut over = body;
    over.push(7);
    let response = client.post(app.url("/upload")).body(over).send();
    let response = bounded("the upload over the limit", response)
        .await
        .unwrap();
    assert_eq!(response.status(), 413);
    assert_eq!(response.text().await.unwrap(), "caught 413");

    drop(client);
    app.stop().await;
}

/// A directory of its own under the temporary directory, removed on drop.
struct Site(PathBuf);

impl Drop for Site {
    fn drop(&mut self) {
        // Best effort: a leftover directory fails nothing.
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

struct SiteRoot(PathBuf);

#[get("/<name>")]
async fn named(name: &str, root: &State<SiteRoot>) -> Option<NamedFile> {
    NamedFile::open(root.0.join(name)).await.ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn file_server_and_named_file() {
    let site = Site(std::env::temp_dir().join(format!("rt-rocket-{}", std::process::id())));
    std::fs::create_dir_all(site.0.join("docs")).unwrap();
    let big: Vec<u8> = (0..(1 << 20) + 7).map(|i: usize| (i % 253) as u8).collect();
    std::fs::write(site.0.join("big.bin"), &big).unwrap();
    std::fs::write(site.0.join("page.html"), "<h1>page</h1>").unwrap();
    std::fs::write(site.0.join("docs/index.html"), "<h1>docs</h1>").unwrap();

    let (shared, _handles) = shared();
    let rocket = app(shared)
        .manage(SiteRoot(site.0.clone()))
        .mount("/static", FileServer::from(&site.0))
        .mount("/named", routes![named]);
    let app = launch(rocket).await;
    let client = reqwest::Client::new();
    assert_served_by_rt(&client, &app).await;

    let response = get(&client, app.url("/static/big.bin")).await;
    assert_eq!(response.status(), 200);
    let bytes = bounded("the big file", response.bytes()).await.unwrap();
    assert_eq!(bytes.len(), big.len());
    assert!(bytes == big, "the file differs");

    let response = get(&client, app.url("/named/page.html")).await;
    assert_eq!(
        response.headers()["content-type"],
        "text/html; charset=utf-8"
    );
    assert_eq!(response.text().await.unwrap(), "<h1>page</h1>");
    // A directory serves its index.
    let docs = text(&client, app.url("/static/docs/")).await;
    assert_eq!(docs, (200, "<h1>docs</h1>".into()));
    let missing = text(&client, app.url("/static/missing.txt")).await;
    assert_eq!(missing, (404, "nothing at /static/missing.txt".into()));
    assert_eq!(text(&client, app.url("/named/missing.txt")).await.0, 404);

    drop(client);
    app.stop().await;
}

/// A request is in its handler when shutdown is asked for (from the
/// `/stop` route, or from the handle): no new connection is taken,
/// `launch()` waits, the request gets its whole answer, then `launch()`
/// returns the rocket. A grace period of 10 s: Rocket 0.5.2, finding the
/// connection in flight open as its accept loop ends, returns from
/// `launch()` only once the grace period is over (see [`Launched::stop`];
/// 0.5.0 and 0.5.1, on hyper 0.14's graceful `Server`, end the accept
/// loop only once the connections are done); the request is answered well
/// within it, even on a loaded machine, and a request still in flight
/// after it would be cut (its connection shut down). A mercy period of
/// 5 s (from 30): a connection still closing after the grace period (the
/// `/stop` request's, under load) holds `launch()` until the mercy
/// period's end.
async fn graceful_shutdown(from_a_route: bool) {
    let (shared, mut handles) = shared();
    let grace = Config {
        shutdown: ShutdownConfig {
            grace: 10,
            mercy: 5,
            ..config().shutdown
        },
        ..config()
    };
    let app = launch(app(shared).configure(grace)).await;
    let client = reqwest::Client::new();
    assert_served_by_rt(&client, &app).await;

    let in_flight = tokio::spawn({
        let (client, url) = (client.clone(), app.url("/wait"));
        async move { text(&client, url).await }
    });
    bounded("the handler", handles.waiting.recv())
        .await
        .unwrap();
    if from_a_route {
        // A client of its own: its connection is not the one in flight.
        let stopping = text(&reqwest::Client::new(), app.url("/stop")).await;
        assert_eq!(stopping, (200, "stopping".into()));
    } else {
        app.shutdown.clone().notify();
    }
    listener_closed(app.addr).await;
    assert!(!app.launch.is_finished());
    assert!(!in_flight.is_finished());

    handles.release.add_permits(1);
    let answer = bounded("the request in flight", in_flight).await.unwrap();
    assert_eq!(answer, (200, "released".into()));
    drop(client);
    let rocket = bounded("launch() returning", app.launch)
        .await
        .unwrap()
        .unwrap();
    // The rocket back, with the port it was bound to.
    assert_eq!(rocket.config().port, app.addr.port());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn graceful_shutdown_from_a_route() {
    graceful_shutdown(true).await;
}

#[tokio::test]
async fn graceful_shutdown_from_the_handle() {
    graceful_shutdown(false).await;
}

/// What a binary's `main` is: `#[rocket::main]` runs it on a runtime
/// Rocket builds (its worker count, threads named `rocket-worker-thread`).
/// `main` takes no arguments: it reports its port through `READY`.
mod binary {
    use super::{Shutdown, app, liftoff, shared};
    use rocket::{Ignite, Rocket};
    use std::sync::Mutex;
    use std::sync::mpsc::Sender;
    use tokio::runtime::Handle;

    /// The port, the shutdown handle and the runtime.
    pub(super) type Ready = (u16, Shutdown, Handle);
    pub(super) static READY: Mutex<Option<Sender<Ready>>> = Mutex::new(None);

    #[rocket::main]
    pub(super) async fn main() -> Rocket<Ignite> {
        let ready = Mutex::new(READY.lock().unwrap().take().unwrap());
        let (shared, _handles) = shared();
        let report = liftoff(move |port, shutdown| {
            let ready = ready.lock().unwrap();
            ready.send((port, shutdown, Handle::current())).unwrap();
        });
        app(shared).attach(report).launch().await.unwrap()
    }
}

#[test]
fn rocket_main_builds_its_own_runtime() {
    let (ready_tx, ready) = std::sync::mpsc::channel();
    *binary::READY.lock().unwrap() = Some(ready_tx);
    let server = std::thread::spawn(binary::main);
    let (port, shutdown, handle) = ready.recv_timeout(rt_ecosystem_tests::BOUND).unwrap();

    // The client on Rocket's runtime too, from this thread.
    let place: Place = handle.block_on(async {
        let client = reqwest::Client::new();
        let url = format!("http://127.0.0.1:{port}/where");
        let place = get(&client, url).await.json().await.unwrap();
        drop(client);
        // Idle before the stop, as in `Launched::stop`.
        rocket_tasks_gone().await;
        place
    });
    assert_eq!(place.thread, "rocket-worker-thread", "{place:?}");
    assert_eq!(place.spawned_thread, "rocket-worker-thread", "{place:?}");
    // Rocket reads this name to tell its own runtime from a custom one.
    assert_eq!(place.blocking_thread, "rocket-worker-thread", "{place:?}");
    assert!(place.in_rt && place.spawned_in_rt, "{place:?}");
    assert!(place.rocket_tasks >= 2, "{place:?}");

    shutdown.notify();
    let rocket = server.join().unwrap();
    assert_eq!(rocket.config().port, port);
}

/// `#[rocket::async_test]`: a runtime Rocket builds for tests (one worker,
/// `rocket-worker-test-thread`), with the asynchronous local client, which
/// dispatches in the caller's future without a socket.
#[rocket::async_test]
async fn local_asynchronous_client() {
    use rocket::local::asynchronous::Client;
    let (shared, _handles) = shared();
    let client = Client::tracked(app(shared)).await.unwrap();
    let hello = client.get("/hello/local?times=2").dispatch().await;
    assert_eq!(hello.status(), Status::Ok);
    let hello = hello.into_string().await.unwrap();
    assert_eq!(hello, "hello, local\nhello, local");

    let order = Order {
        item: "local".into(),
        count: 2,
    };
    let receipt = client.post("/order").json(&order).dispatch().await;
    let receipt: Receipt = receipt.into_json().await.unwrap();
    assert_eq!(receipt.total, 6);
    let missing = client.get("/nowhere").dispatch().await;
    assert_eq!(missing.status(), Status::NotFound);

    let place: Place = client
        .get("/where")
        .dispatch()
        .await
        .into_json()
        .await
        .unwrap();
    assert_eq!(
        place.spawned_thread, "rocket-worker-test-thread",
        "{place:?}"
    );
    assert!(place.spawned_in_rt, "{place:?}");
    assert_eq!(place.blocking_thread, "rocket-worker-test-thread");
}

/// The blocking local client builds its own runtime (one worker,
/// `rocket-local-client-worker-thread`) and blocks on it per request.
#[test]
fn local_blocking_client() {
    use rocket::local::blocking::Client;
    let (shared, _handles) = shared();
    let client = Client::tracked(app(shared)).unwrap();
    let hello = client.get("/hello/blocking").dispatch();
    assert_eq!(hello.into_string().unwrap(), "hello, blocking");
    let order = Order {
        item: "blocking".into(),
        count: 5,
    };
    let receipt: Receipt = client
        .post("/order")
        .json(&order)
        .dispatch()
        .into_json()
        .unwrap();
    assert_eq!(receipt.total, 15);

    let place: Place = client.get("/where").dispatch().into_json().unwrap();
    assert_eq!(place.spawned_thread, "rocket-local-client-worker-thread");
    assert!(place.spawned_in_rt, "{place:?}");
    let ticks = client.get("/ticks/3").dispatch().into_string().unwrap();
    assert_eq!(ticks, "tick 0\ntick 1\ntick 2\n");
    drop(client);
}
