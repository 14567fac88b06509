//! The example HTTP server's `serve` (runtime/examples/http_server.rs)
//! stopped under load, as operators stop servers: a graceful shutdown
//! with 64 HTTP/2 streams in flight whose 256 KiB answers only fit through
//! the windows and sockets a piece at a time; a shutdown while HTTP/1.1
//! clients keep connecting (every request the server took is answered,
//! no connection is left open); and the runtime dropped while every
//! connection is writing a response its client never reads. And a
//! connection closed by the shutdown while the client's bytes are still
//! unread in the server's socket: the example closes lingering, or the
//! kernel resets the connection and drops the unsent end of the answer.

#[allow(dead_code)]
#[path = "../examples/http_server.rs"]
mod http_server;
mod support;
#[path = "support/http.rs"]
mod support_http;

use http_body_util::{BodyExt, Full};
use hyper::body::{Body as HttpBody, Bytes, Frame, Incoming};
use hyper::client::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use rt::hyper::Io;
use rt::io::{AsyncReadExt, AsyncWriteExt};
use rt::net::{TcpListener, TcpSocket, TcpStream};
use rt::sync::{Notify, mpsc, oneshot};
use std::convert::Infallible;
use std::io::{ErrorKind, Read, Write};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;
use support::{DropCounter, DropGuard, Pattern, on_both};
use support_http::{BoxError, body_of, http2_client, request};

/// Long enough never to be reached on a loaded machine; the tests never
/// wait for it unless something is broken.
const GRACE: Duration = Duration::from_secs(60);

/// A listener on a free port of 127.0.0.1.
async fn loopback_listener() -> TcpListener {
    TcpListener::bind("127.0.0.1:0").await.unwrap()
}

/// `serve` on `listener` with `service`, run by a task until `stop` is
/// sent (or dropped).
fn start<S, B>(
    listener: TcpListener,
    service: S,
) -> (
    std::net::SocketAddr,
    oneshot::Sender<()>,
    rt::task::JoinHandle<http_server::Draining>,
)
where
    S: hyper::service::Service<Request<Incoming>, Response = Response<B>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Into<BoxError>,
    B: HttpBody + Send + 'static,
    B::Data: Send,
    B::Error: Into<BoxError>,
{
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let serving = rt::spawn(http_server::serve(listener, service, async move {
        let _ = stopped.await;
    }));
    (addr, stop, serving)
}

/// Reports on `held` that a request is waiting, then waits until
/// `release` notifies its waiters.
async fn hold_until_released(held: &mpsc::UnboundedSender<()>, release: &Notify) {
    let released = release.notified();
    let _ = held.send(());
    released.await;
}

/// The body `/big/{n}` answers: `BIG` bytes of the pattern seeded `n`.
const BIG: usize = 256 << 10;

#[test]
fn http2_graceful_shutdown_drains_64_streams_through_flow_control() {
    const CONNECTIONS: usize = 2;
    const STREAMS_EACH: usize = 32;
    on_both(|| async {
        // `/big/{n}` reports that it holds, waits for `release`, then
        // answers; any other path answers "ok" at once.
        let (held_tx, mut held) = mpsc::unbounded_channel::<()>();
        let release = Arc::new(Notify::new());
        let service = {
            let release = Arc::clone(&release);
            service_fn(move |request: Request<Incoming>| {
                let (held_tx, release) = (held_tx.clone(), Arc::clone(&release));
                async move {
                    let Some(n) = request.uri().path().strip_prefix("/big/") else {
                        return Ok::<_, BoxError>(Response::new(Full::new(Bytes::from("ok"))));
                    };
                    let seed: u64 = n.parse()?;
                    hold_until_released(&held_tx, &release).await;
                    Ok(Response::new(Full::new(Bytes::from(Pattern::bytes(
                        seed, BIG,
                    )))))
                }
            })
        };
        let (addr, stop, serving) = start(loopback_listener().await, service);

        let mut connections = Vec::new();
        let mut streams = Vec::new();
        for c in 0..CONNECTIONS {
            let (sender, connection) = http2_client(addr).await;
            for s in 0..STREAMS_EACH {
                let seed = (c * STREAMS_EACH + s) as u64;
                let mut sender = sender.clone();
                streams.push(rt::spawn(async move {
                    let uri = format!("/big/{seed}");
                    let response = sender.send_request(request("GET", &uri, "")).await;
                    (seed, body_of(response.unwrap()).await)
                }));
            }
            connections.push((sender, connection));
        }
        for _ in 0..CONNECTIONS * STREAMS_EACH {
            held.recv().await.unwrap();
        }
        // hyper's HTTP/2 client task checks the connection again after
        // handing a request to h2, and fails that request if a GOAWAY
        // arrived in between (although h2 still sends it and the server
        // answers it). It takes requests in order: a later request's
        // answer means every held request is past that check.
        for (sender, _) in &mut connections {
            let response = sender.send_request(request("GET", "/ok", "")).await;
            assert_eq!(body_of(response.unwrap()).await, "ok");
        }

        stop.send(()).unwrap();
        let draining = serving.await.unwrap();
        let refused = TcpStream::connect(addr).await.unwrap_err();
        assert_eq!(refused.kind(), ErrorKind::ConnectionRefused);
        assert_eq!(draining.open_connections(), CONNECTIONS);

        // 16 MiB of answers, more than the client's connection windows
        // and the sockets hold: the drain waits on WINDOW_UPDATEs and on
        // writable sockets the whole way.
        release.notify_waiters();
        for stream in streams {
            let (seed, body) = stream.await.unwrap();
            assert_eq!(body.len(), BIG, "stream {seed}");
            assert!(
                body == Pattern::bytes(seed, BIG),
                "stream {seed}: the body differs"
            );
        }
        assert_eq!(draining.finish(GRACE).await, Ok(()));
        for (sender, connection) in connections {
            drop(sender);
            connection.await.unwrap().unwrap();
        }
    });
}

/// What one HTTP/1.1 client saw of its requests, one per connection, made
/// until the server refused its connection.
#[derive(Debug, Default)]
struct ClientTally {
    answered: usize,
    failed: usize,
}

/// Connects, asks for `/count` on a fresh connection and reads the
/// answer, again and again, until a connection is refused.
async fn request_until_refused(addr: std::net::SocketAddr) -> ClientTally {
    let mut tally = ClientTally::default();
    loop {
        let stream = match TcpStream::connect(addr).await {
            Ok(stream) => stream,
            Err(e) if e.kind() == ErrorKind::ConnectionRefused => return tally,
            // Completed in the listener's backlog and reset when the
            // listener closed with it queued.
            Err(e) if e.kind() == ErrorKind::ConnectionReset => {
                tally.failed += 1;
                continue;
            }
            Err(e) => panic!("connecting: {e}"),
        };
        let exchange = async {
            let (mut sender, connection) = http1::handshake(Io::new(stream)).await?;
            rt::spawn(connection);
            let response = sender.send_request(request("GET", "/count", "")).await?;
            Ok::<_, hyper::Error>(response.into_body().collect().await?.to_bytes())
        };
        match exchange.await {
            Ok(body) => {
                assert_eq!(body, "counted");
                tally.answered += 1;
            }
            // Taken by the kernel but never by the server (the listener
            // closed with it queued), or closed by the shutdown before
            // the server read the request.
            Err(_) => tally.failed += 1,
        }
    }
}

#[test]
fn a_shutdown_while_clients_keep_connecting_answers_every_request_it_took() {
    const CLIENTS: usize = 8;
    const SERVED_BEFORE_STOP: usize = 40;
    on_both(|| async {
        // Counts the requests it answers and reports each one.
        let counted = Arc::new(AtomicUsize::new(0));
        let (served_tx, mut served) = mpsc::unbounded_channel::<()>();
        let service = {
            let counted = Arc::clone(&counted);
            service_fn(move |_request: Request<Incoming>| {
                counted.fetch_add(1, Ordering::SeqCst);
                let _ = served_tx.send(());
                async { Ok::<_, Infallible>(Response::new(Full::new(Bytes::from("counted")))) }
            })
        };
        let (addr, stop, serving) = start(loopback_listener().await, service);
        let clients: Vec<_> = (0..CLIENTS)
            .map(|_| rt::spawn(request_until_refused(addr)))
            .collect();
        // Stop while the clients are connecting and asking.
        for _ in 0..SERVED_BEFORE_STOP {
            served.recv().await.unwrap();
        }
        stop.send(()).unwrap();
        let draining = serving.await.unwrap();
        // Every connection the server took ends: the idle ones at once,
        // the ones with a request after answering it.
        assert_eq!(draining.finish(GRACE).await, Ok(()));

        let (mut answered, mut failed) = (0, 0);
        for client in clients {
            let tally = client.await.unwrap();
            answered += tally.answered;
            failed += tally.failed;
        }
        eprintln!("{answered} requests answered, {failed} connections failed");
        assert!(answered >= SERVED_BEFORE_STOP);
        // A request the service answered reached its client.
        assert_eq!(answered, counted.load(Ordering::SeqCst));
    });
}

/// What `CountedBody` sends, a frame at a time.
static FRAME: [u8; 64 << 10] = [7; 64 << 10];

/// A response body of `left` bytes, a 64 KiB frame per poll, that says on
/// `progress` once it has handed hyper `report_after` bytes, and holds a
/// guard so the test sees when hyper drops it.
struct CountedBody {
    left: usize,
    produced: usize,
    report_after: usize,
    progress: Option<mpsc::UnboundedSender<()>>,
    _guard: DropGuard,
}

impl HttpBody for CountedBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        if self.left == 0 {
            return Poll::Ready(None);
        }
        let len = FRAME.len().min(self.left);
        self.left -= len;
        self.produced += len;
        if self.produced >= self.report_after {
            if let Some(progress) = self.progress.take() {
                let _ = progress.send(());
            }
        }
        Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(&FRAME[..len])))))
    }
}

#[test]
fn dropping_the_runtime_while_every_connection_writes_to_a_full_socket() {
    const CONNECTIONS: usize = 8;
    // Far more than the socket buffers hold: with clients that never
    // read, every connection ends up waiting for room to write.
    const RESPONSE: usize = 1 << 30;
    const REPORT_AFTER: usize = 512 << 10;
    support::each_runtime(|_, rt| {
        let drops = DropCounter::new();
        let metrics = rt.handle().metrics();
        let (stop, clients) = rt.block_on(async {
            let (progress_tx, mut progress) = mpsc::unbounded_channel();
            let service = {
                let drops = drops.clone();
                service_fn(move |_request: Request<Incoming>| {
                    let body = CountedBody {
                        left: RESPONSE,
                        produced: 0,
                        report_after: REPORT_AFTER,
                        progress: Some(progress_tx.clone()),
                        _guard: drops.guard(),
                    };
                    async { Ok::<_, Infallible>(Response::new(body)) }
                })
            };
            let (addr, stop, _serving) = start(loopback_listener().await, service);
            // Blocking clients that send a request and never read: the
            // loopback connect completes in the listener's backlog and the
            // request fits in the socket buffer.
            let clients: Vec<_> = (0..CONNECTIONS)
                .map(|_| {
                    let mut client = std::net::TcpStream::connect(addr).unwrap();
                    client
                        .write_all(b"GET / HTTP/1.1\r\nhost: localhost\r\n\r\n")
                        .unwrap();
                    client
                })
                .collect();
            for _ in 0..CONNECTIONS {
                progress.recv().await.unwrap();
            }
            (stop, clients)
        });
        // Every response is part-way out (or waiting for room).
        assert_eq!(drops.alive(), CONNECTIONS);
        support::assert_no_deadlock("dropping the runtime mid-write", move || drop(rt));
        assert_eq!(metrics.num_alive_tasks(), 0, "tasks outlived the runtime");
        assert_eq!(drops.alive(), 0, "response bodies outlived the runtime");
        drop(stop);
        // The runtime closed every server socket: each client reads what
        // was sent before the drop, then the end of the stream.
        support::assert_no_deadlock("reading to the closed end", move || {
            for mut client in clients {
                let mut received = Vec::new();
                match client.read_to_end(&mut received) {
                    Ok(_) => {}
                    Err(e) => assert_eq!(e.kind(), ErrorKind::ConnectionReset),
                }
                assert!(received.starts_with(b"HTTP/1.1 200 OK\r\n"));
                assert!(received.len() >= REPORT_AFTER / 2 && received.len() < RESPONSE);
            }
        });
    });
}

#[test]
fn a_connection_closed_by_the_shutdown_with_client_bytes_unread_still_delivers_its_response() {
    // An answer the client's small receive buffer cannot take at once, so
    // most of it is still in the server's (large) send buffer when the
    // server closes the connection.
    const ANSWER: usize = 256 << 10;
    // The paused clock: the server's wait for the client to close, below,
    // ends at once when nothing else can run.
    support_http::paused_runtime().block_on(async {
        let (held_tx, mut held) = mpsc::unbounded_channel::<()>();
        let release = Arc::new(Notify::new());
        let service = {
            let release = Arc::clone(&release);
            service_fn(move |_request: Request<Incoming>| {
                let (held_tx, release) = (held_tx.clone(), Arc::clone(&release));
                async move {
                    hold_until_released(&held_tx, &release).await;
                    // Answer in a later poll, which sees the stop first
                    // (see hyper_server.rs): `connection: close`.
                    rt::task::yield_now().await;
                    let answer = Bytes::from(Pattern::bytes(3, ANSWER));
                    Ok::<_, Infallible>(Response::new(Full::new(answer)))
                }
            })
        };
        let listening = TcpSocket::new_v4().unwrap();
        listening.set_send_buffer_size(4 << 20).unwrap();
        listening.bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let (addr, stop, serving) = start(listening.listen(64).unwrap(), service);
        let connecting = TcpSocket::new_v4().unwrap();
        connecting.set_recv_buffer_size(4 << 10).unwrap();
        let mut client = connecting.connect(addr).await.unwrap();
        client
            .write_all(b"GET /hold HTTP/1.1\r\nhost: localhost\r\n\r\n")
            .await
            .unwrap();
        held.recv().await.unwrap();
        // More bytes than hyper reads while a request is in flight (one
        // read, to notice an early close): the rest stays unread in the
        // server's socket. A client pipelining its next request does this.
        client.write_all(&[b'x'; 32 << 10]).await.unwrap();

        stop.send(()).unwrap();
        let draining = serving.await.unwrap();
        release.notify_waiters();
        // The server answers and closes before the client reads. Closing a
        // socket with unread bytes resets the connection, and a reset
        // throws away what the server's kernel had not sent yet.
        assert_eq!(draining.finish(GRACE).await, Ok(()));
        let mut response = Vec::new();
        client.read_to_end(&mut response).await.unwrap();
        let head_len = response
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .expect("a response head")
            + 4;
        let head = String::from_utf8_lossy(&response[..head_len]).into_owned();
        assert!(head.starts_with("HTTP/1.1 200 OK\r\n"), "{head}");
        assert!(head.contains("connection: close\r\n"), "{head}");
        assert_eq!(response.len() - head_len, ANSWER, "{head}");
        assert!(response[head_len..] == Pattern::bytes(3, ANSWER));
    });
}
