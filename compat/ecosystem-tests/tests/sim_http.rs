//! An unmodified tokio HTTP stack inside `rt::sim`: `axum::serve` on the
//! facade's `TcpListener` as a host, hyper-util's legacy `Client` with its
//! `HttpConnector` as a client, over the simulated network, on one thread,
//! by a seeded schedule and a simulated clock.
//!
//! The one setting the client needs: a resolver that asks
//! `tokio::net::lookup_host` (which resolves node names inside a
//! simulation and asks the system resolver outside one), given to
//! `HttpConnector::new_with_resolver`. hyper-util's default `GaiResolver`
//! calls the system resolver itself (`getaddrinfo` in `spawn_blocking`),
//! which knows no node names and which no seed replays.
//!
//! reqwest takes the same resolver (`ClientBuilder::dns_resolver`), and
//! tonic's `Endpoint` a connector built with it; tonic's server is given a
//! listener bound inside the simulation (`serve_with_incoming`), since its
//! `serve(addr)` binds one on the machine, which the simulation refuses
//! with an error naming that fix.
//!
//! What is checked: keep-alive reuse, a seed's run replayed exactly (the
//! order of the responses, the simulated instant of each, the
//! `random_u64` draws) and other seeds interleaving otherwise; a
//! partition surfacing as the client's timeout on the simulated clock; a
//! crashed server's refused connect, then the restarted server answering
//! the reconnect; a sweep over seeds finding a lost update planted in a
//! handler, its seed replaying it, and the fixed handler passing.

use axum::Router;
use axum::extract::{ConnectInfo, State};
use axum::routing::{get, post};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::Request;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::connect::dns::Name;
use hyper_util::rt::{TokioExecutor, TokioTimer};
use rt::sim::Sim;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::str::FromStr;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// hyper-util's resolver as a `tower::Service`: `tokio::net::lookup_host`,
/// which inside a simulation resolves node names (and outside one asks
/// the system resolver, as `GaiResolver` does).
#[derive(Clone, Debug)]
struct LookupHost;

impl tower::Service<Name> for LookupHost {
    type Response = std::vec::IntoIter<SocketAddr>;
    type Error = io::Error;
    type Future = Pin<Box<dyn Future<Output = io::Result<Self::Response>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, name: Name) -> Self::Future {
        Box::pin(async move {
            let addrs = tokio::net::lookup_host((name.as_str(), 0)).await?;
            Ok(addrs.collect::<Vec<_>>().into_iter())
        })
    }
}

/// The same resolver, as reqwest takes it.
impl reqwest::dns::Resolve for LookupHost {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let name = Name::from_str(name.as_str());
        let mut lookup = self.clone();
        Box::pin(async move {
            let addrs = tower::Service::call(&mut lookup, name?).await?;
            Ok(Box::new(addrs) as reqwest::dns::Addrs)
        })
    }
}

type HttpClient = Client<HttpConnector<LookupHost>, Full<Bytes>>;

/// hyper-util's legacy client as an application builds it, but for the
/// resolver.
fn http_client() -> HttpClient {
    Client::builder(TokioExecutor::new())
        .pool_timer(TokioTimer::new())
        .build(HttpConnector::new_with_resolver(LookupHost))
}

/// The server's state: which boot of the host this is, and a counter.
#[derive(Clone)]
struct App {
    boot: u32,
    count: Arc<tokio::sync::Mutex<u64>>,
    /// Whether `/incr` holds the lock across its await (the fix) or reads,
    /// awaits and writes back (the planted lost update).
    careful: bool,
}

async fn hello(State(app): State<App>, ConnectInfo(peer): ConnectInfo<SocketAddr>) -> String {
    format!("boot {} peer {peer}", app.boot)
}

/// A read-modify-write across an await (a store call, say).
async fn incr(State(app): State<App>) -> String {
    if app.careful {
        let mut count = app.count.lock().await;
        tokio::time::sleep(Duration::from_millis(2)).await;
        *count += 1;
        return count.to_string();
    }
    let read = *app.count.lock().await;
    tokio::time::sleep(Duration::from_millis(2)).await;
    *app.count.lock().await = read + 1;
    (read + 1).to_string()
}

async fn count(State(app): State<App>) -> String {
    app.count.lock().await.to_string()
}

/// A host `server`: axum on port 80, unmodified. `boots` counts the
/// host's builds (the first run and each restart); state lives in what
/// the closure builds, so a restart starts it afresh.
fn server(sim: &mut Sim, boots: Arc<AtomicU32>, careful: bool) {
    sim.host("server", move || {
        let app = App {
            boot: boots.fetch_add(1, Ordering::SeqCst) + 1,
            count: Arc::default(),
            careful,
        };
        async move {
            let listener = tokio::net::TcpListener::bind("0.0.0.0:80").await?;
            let router = Router::new()
                .route("/hello", get(hello))
                .route("/incr", post(incr))
                .route("/count", get(count))
                .with_state(app);
            axum::serve(
                listener,
                router.into_make_service_with_connect_info::<SocketAddr>(),
            )
            .await
        }
    });
}

async fn call(client: &HttpClient, method: &str, path: &str) -> Result<String, BoxError> {
    let request = Request::builder()
        .method(method)
        .uri(format!("http://server{path}"))
        .body(Full::default())?;
    let response = client.request(request).await?;
    assert!(response.status().is_success(), "{}", response.status());
    let body = response.into_body().collect().await?.to_bytes();
    Ok(String::from_utf8(body.to_vec())?)
}

/// One run of `seed`: five requests in a row on one connection, then four
/// at once; the trace is each response's simulated instant, body and a
/// `random_u64` draw, in the order the responses came, and the run's
/// trace hash.
fn traced_run(seed: u64) -> Vec<String> {
    let trace = Arc::new(Mutex::new(Vec::new()));
    let mut sim = Sim::new(seed);
    sim.latency(Duration::from_millis(1), Duration::from_millis(10));
    server(&mut sim, Arc::default(), true);
    let log = trace.clone();
    sim.client("client", async move {
        let client = http_client();
        let start = tokio::time::Instant::now();
        let record = |what: String| {
            let at = start.elapsed();
            let draw = rt::sim::random_u64();
            log.lock().unwrap().push(format!("{at:?} {what} {draw:x}"));
        };
        let mut peers = Vec::new();
        for _ in 0..5 {
            let body = call(&client, "GET", "/hello").await?;
            peers.push(body.clone());
            record(body);
        }
        peers.dedup();
        assert_eq!(peers.len(), 1, "keep-alive: one connection, {peers:?}");
        // The dependencies' tasks are the simulation's: rt's dump of it
        // lists the connection tasks hyper-util's client and axum spawned.
        let dump = rt::runtime::Handle::current().dump();
        for krate in ["/hyper-util-", "/axum-"] {
            let spawned = dump.tasks().iter();
            let spawned = spawned.filter(|task| task.location().file().contains(krate));
            assert!(spawned.count() > 0, "no task of {krate} in {dump:?}");
        }
        let requests = (0..4).map(|i| {
            let client = client.clone();
            async move { (i, call(&client, "POST", "/incr").await) }
        });
        let mut responses = futures::stream::FuturesUnordered::from_iter(requests);
        while let Some((i, response)) = futures::StreamExt::next(&mut responses).await {
            record(format!("request {i} -> {}", response?));
        }
        Ok::<_, BoxError>(())
    });
    let report = sim.run().unwrap_or_else(|e| panic!("{e}"));
    let mut trace = std::mem::take(&mut *trace.lock().unwrap());
    trace.push(format!("trace hash {:x}", report.trace_hash()));
    trace
}

#[test]
fn keep_alive_requests_and_a_seed_replaying_its_run() {
    let first = traced_run(7);
    assert_eq!(first.len(), 10, "{first:#?}");
    assert_eq!(first, traced_run(7), "the same seed, the same run");
    // Other seeds draw other latencies and schedules: the four concurrent
    // requests finish in other orders, at other instants.
    let orders: std::collections::BTreeSet<Vec<String>> = (0..8)
        .map(|seed| {
            traced_run(seed)[5..9]
                .iter()
                .map(|line| line.split(' ').nth(2).unwrap().to_owned())
                .collect()
        })
        .collect();
    assert!(orders.len() > 1, "eight seeds, one order: {orders:?}");
}

/// The error's chain, as text, for asserting on its cause.
fn chain(err: &(dyn std::error::Error + 'static)) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[test]
fn a_partition_is_the_clients_timeout_on_the_simulated_clock() {
    let mut sim = Sim::new(11);
    server(&mut sim, Arc::default(), true);
    sim.client("client", async {
        let client = http_client();
        call(&client, "GET", "/hello").await?;
        rt::sim::partition("client", "server");
        let start = tokio::time::Instant::now();
        let request = call(&client, "GET", "/hello");
        let timed_out = tokio::time::timeout(Duration::from_secs(30), request).await;
        assert!(timed_out.is_err(), "no answer across a partition");
        assert_eq!(start.elapsed(), Duration::from_secs(30));
        rt::sim::repair("client", "server");
        let body = call(&client, "GET", "/hello").await?;
        assert!(body.starts_with("boot 1 "), "{body}");
        Ok::<_, BoxError>(())
    });
    let report = sim.run().unwrap_or_else(|e| panic!("{e}"));
    assert!(report.elapsed() >= Duration::from_secs(30));
}

#[test]
fn a_crashed_server_refuses_and_the_restarted_one_answers_the_reconnect() {
    let boots = Arc::new(AtomicU32::new(0));
    let mut sim = Sim::new(12);
    server(&mut sim, boots.clone(), true);
    sim.client("client", async {
        let client = http_client();
        let before = call(&client, "GET", "/hello").await?;
        assert!(before.starts_with("boot 1 "), "{before}");
        rt::sim::crash("server");
        // The crash closed the server's end; once its FIN has come, the
        // pool drops the connection and the next request connects anew.
        tokio::time::sleep(Duration::from_millis(100)).await;
        let err = call(&client, "GET", "/hello").await.unwrap_err();
        let err = err.downcast::<hyper_util::client::legacy::Error>()?;
        assert!(err.is_connect(), "{}", chain(&*err));
        let cause = chain(&*err);
        assert!(cause.contains("connection refused"), "{cause}");
        rt::sim::restart("server");
        let after = call(&client, "GET", "/hello").await?;
        assert!(after.starts_with("boot 2 "), "{after}");
        assert_ne!(before, after, "a new connection: {before} / {after}");
        Ok::<_, BoxError>(())
    });
    sim.run().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(boots.load(Ordering::SeqCst), 2);
}

/// Two clients increment at once, then a checker reads the count.
fn incrementing(sim: &mut Sim, careful: bool) {
    sim.latency(Duration::from_millis(1), Duration::from_millis(4));
    server(sim, Arc::default(), careful);
    let done = Arc::new(tokio::sync::Barrier::new(3));
    for name in ["alice", "bob"] {
        let done = done.clone();
        sim.client(name, async move {
            call(&http_client(), "POST", "/incr").await?;
            done.wait().await;
            Ok::<_, BoxError>(())
        });
    }
    sim.client("checker", async move {
        done.wait().await;
        let count = call(&http_client(), "GET", "/count").await?;
        if count != "2" {
            return Err(format!("lost an update: the count is {count}, not 2").into());
        }
        Ok::<_, BoxError>(())
    });
}

#[test]
fn a_sweep_finds_the_lost_update_in_a_handler_and_its_seed_replays_it() {
    let failure = rt::sim::sweep(0..200, |sim| incrementing(sim, false)).unwrap_err();
    assert!(failure.to_string().contains("lost an update"), "{failure}");
    let mut sim = Sim::new(failure.seed());
    incrementing(&mut sim, false);
    let again = sim.run().unwrap_err();
    assert!(again.to_string().contains("lost an update"), "{again}");
    assert_eq!(again.trace_hash(), failure.trace_hash());

    let fixed = rt::sim::sweep(0..50, |sim| incrementing(sim, true));
    let fixed = fixed.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(fixed.runs(), 50);
}

#[test]
fn reqwest_with_the_resolver_and_its_timeout_on_the_simulated_clock() {
    let mut sim = Sim::new(13);
    server(&mut sim, Arc::default(), true);
    sim.client("client", async {
        let client = reqwest::Client::builder()
            .dns_resolver(Arc::new(LookupHost))
            .build()?;
        let body = client
            .get("http://server/hello")
            .send()
            .await?
            .text()
            .await?;
        assert!(body.starts_with("boot 1 "), "{body}");
        rt::sim::partition("client", "server");
        let start = tokio::time::Instant::now();
        let request = client
            .get("http://server/hello")
            .timeout(Duration::from_secs(5));
        let err = request.send().await.unwrap_err();
        assert!(err.is_timeout(), "{}", chain(&err));
        assert_eq!(start.elapsed(), Duration::from_secs(5));
        Ok::<_, BoxError>(())
    });
    sim.run().unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn tonic_health_check_with_a_listener_and_a_connector_from_the_simulation() {
    use tonic_health::pb::HealthCheckRequest;
    use tonic_health::pb::health_check_response::ServingStatus;
    use tonic_health::pb::health_client::HealthClient;

    let mut sim = Sim::new(14);
    sim.host("server", || async {
        let (reporter, health) = tonic_health::server::health_reporter();
        reporter
            .set_service_status("store", tonic_health::ServingStatus::Serving)
            .await;
        let listener = tokio::net::TcpListener::bind("0.0.0.0:50051").await?;
        let incoming = tonic::transport::server::TcpIncoming::from(listener);
        tonic::transport::Server::builder()
            .add_service(health)
            .serve_with_incoming(incoming)
            .await?;
        Ok::<_, BoxError>(())
    });
    sim.client("client", async {
        let connector = HttpConnector::new_with_resolver(LookupHost);
        let channel = tonic::transport::Endpoint::from_static("http://server:50051")
            .connect_with_connector(connector)
            .await?;
        let request = HealthCheckRequest {
            service: "store".into(),
        };
        let status = HealthClient::new(channel)
            .check(request)
            .await?
            .into_inner();
        assert_eq!(status.status(), ServingStatus::Serving);
        Ok::<_, BoxError>(())
    });
    sim.run().unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn tonics_serve_by_address_is_refused_naming_the_fix() {
    let mut sim = Sim::new(15);
    sim.host("server", || async {
        let (_, health) = tonic_health::server::health_reporter();
        // A std listener bound on the machine (an ephemeral loopback port),
        // then adopted: refused.
        tonic::transport::Server::builder()
            .add_service(health)
            .serve("127.0.0.1:0".parse().unwrap())
            .await
    });
    // A client that outlives the host's first poll.
    sim.client("client", async {
        tokio::time::sleep(Duration::from_secs(1)).await;
        Ok::<_, BoxError>(())
    });
    let err = sim.run().unwrap_err();
    let message = err.to_string();
    assert!(message.contains("`server`"), "{message}");
    assert!(message.contains("`TcpListener::from_std`"), "{message}");
    assert!(message.contains("`serve_with_incoming`"), "{message}");
}
