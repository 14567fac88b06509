//! hyper on rt under what real clients and operators do to a server: a
//! connection task aborted from another thread mid-request-body and
//! mid-response-body, a client that half-closes after its request, a
//! client that reads its response one byte at a time (the server must wait
//! for room, not spin), and an idle keep-alive connection closed by hyper's
//! header read timeout on the paused clock. HTTP/2 with many streams is in
//! `hyper_h2_streams.rs`, `Compat` over a misbehaving stream in
//! `hyper_compat_script.rs`.

mod support;
#[path = "support/http.rs"]
mod support_http;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use rt::hyper::{Io, Timer};
use rt::io::{AsyncReadExt, AsyncWriteExt};
use rt::net::{TcpSocket, TcpStream, UnixStream};
use rt::sync::{Notify, mpsc};
use std::convert::Infallible;
use std::future::Future;
use std::net::Shutdown;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use support::{Checksum, DropCounter, Pattern, on_both};
use support_http::{
    abort_from_another_thread, body_of, channel_body, http1_over, request, yield_until,
};

/// `future`, counting its polls in `polls`.
fn counting_polls<F: Future>(
    polls: Arc<AtomicUsize>,
    future: F,
) -> impl Future<Output = F::Output> {
    let mut future = Box::pin(future);
    std::future::poll_fn(move |cx| {
        polls.fetch_add(1, Ordering::SeqCst);
        future.as_mut().poll(cx)
    })
}

#[test]
fn aborting_a_connection_mid_request_body_from_another_thread() {
    on_both(|| async {
        let alive_before = rt::runtime::Handle::current().metrics().num_alive_tasks();
        let (client, server) = UnixStream::pair().unwrap();
        let drops = DropCounter::new();
        // The service reports each piece of the request body it receives.
        let (received_tx, mut received) = mpsc::unbounded_channel::<Bytes>();
        let service_guard = Arc::new(std::sync::Mutex::new(Some(drops.guard())));
        let service = service_fn(move |request: Request<Incoming>| {
            let received = received_tx.clone();
            let guard = service_guard.lock().unwrap().take();
            async move {
                let _guard = guard;
                let mut body = request.into_body();
                while let Some(frame) = body.frame().await {
                    if let Ok(data) = frame.unwrap().into_data() {
                        let _ = received.send(data);
                    }
                }
                Ok::<_, Infallible>(Response::new(Full::new(Bytes::from_static(b"done"))))
            }
        });
        let (serving, mut sender, connection) = http1_over(client, server, service).await;
        let (body_tx, body) = channel_body(&drops);
        let response = rt::spawn(async move {
            sender
                .send_request(Request::post("/").body(body).unwrap())
                .await
        });
        body_tx.send(Bytes::from_static(b"first piece")).unwrap();
        assert_eq!(received.recv().await.unwrap(), "first piece");

        // The service is inside the body now: abort the connection.
        abort_from_another_thread(serving.abort_handle());
        assert!(serving.await.unwrap_err().is_cancelled());
        // The service future (and its guard) went with the task, and the
        // client learns of it instead of waiting for ever.
        assert!(response.await.unwrap().is_err());
        // (hyper hands the error to the request; the connection task may
        // end either way.)
        let _ = connection.await.unwrap();
        // The client's request body was dropped with its connection.
        assert!(body_tx.send(Bytes::from_static(b"late")).is_err());
        assert_eq!(drops.created(), 2);
        assert_eq!(drops.alive(), 0);
        assert!(received.recv().await.is_none());
        yield_until("the aborted tasks are released", || {
            rt::runtime::Handle::current().metrics().num_alive_tasks() == alive_before
        })
        .await;
    });
}

#[test]
fn aborting_a_connection_mid_response_body_from_another_thread() {
    on_both(|| async {
        let alive_before = rt::runtime::Handle::current().metrics().num_alive_tasks();
        let (client, server) = UnixStream::pair().unwrap();
        let drops = DropCounter::new();
        let (body_tx, body) = channel_body(&drops);
        let body = Arc::new(std::sync::Mutex::new(Some(body)));
        let service = service_fn(move |_request: Request<Incoming>| {
            let body = body.lock().unwrap().take().expect("one request");
            async move { Ok::<_, Infallible>(Response::new(body)) }
        });
        let (serving, mut sender, connection) = http1_over(client, server, service).await;
        let response = sender.send_request(request("GET", "/", "")).await.unwrap();
        let mut response_body = response.into_body();
        // Chunked: the first piece arrives while the body stays open.
        body_tx.send(Bytes::from_static(b"first piece")).unwrap();
        let first = response_body.frame().await.unwrap().unwrap();
        assert_eq!(first.into_data().unwrap(), "first piece");

        abort_from_another_thread(serving.abort_handle());
        assert!(serving.await.unwrap_err().is_cancelled());
        // hyper's response body went with the connection...
        assert_eq!(drops.alive(), 0);
        assert!(body_tx.send(Bytes::from_static(b"late")).is_err());
        // ...and the client sees the body cut short, not a clean end.
        match response_body.frame().await {
            Some(Err(error)) => {
                let cause = std::error::Error::source(&error)
                    .and_then(|cause| cause.downcast_ref::<std::io::Error>())
                    .map(std::io::Error::kind);
                assert_eq!(cause, Some(std::io::ErrorKind::UnexpectedEof), "{error:?}");
            }
            other => panic!("expected the body to fail, got {other:?}"),
        }
        drop(sender);
        let _ = connection.await.unwrap();
        yield_until("the aborted tasks are released", || {
            rt::runtime::Handle::current().metrics().num_alive_tasks() == alive_before
        })
        .await;
    });
}

/// Reads the rest of `stream` and splits it into HTTP/1.1 responses,
/// each (status line, body), bodies framed by `content-length`.
async fn read_responses(stream: &mut TcpStream) -> Vec<(String, Vec<u8>)> {
    let mut all = Vec::new();
    stream.read_to_end(&mut all).await.unwrap();
    let mut responses = Vec::new();
    let mut rest = &all[..];
    while !rest.is_empty() {
        let head_end = rest
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .expect("a complete response head")
            + 4;
        let head = std::str::from_utf8(&rest[..head_end]).unwrap();
        let status = head.lines().next().unwrap().to_owned();
        let length: usize = head
            .lines()
            .find_map(|line| line.strip_prefix("content-length: "))
            .expect("a content-length")
            .trim()
            .parse()
            .unwrap();
        responses.push((status, rest[head_end..head_end + length].to_vec()));
        rest = &rest[head_end + length..];
    }
    responses
}

#[test]
fn a_client_that_half_closes_after_its_requests_still_gets_every_response() {
    on_both(|| async {
        let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let release = Arc::new(Notify::new());
        let (arrived_tx, mut arrived) = mpsc::unbounded_channel::<String>();
        let server_release = Arc::clone(&release);
        let serving = rt::spawn(async move {
            let (stream, _) = listener.accept().await.unwrap();
            let service = service_fn(move |request: Request<Incoming>| {
                let release = Arc::clone(&server_release);
                let arrived = arrived_tx.clone();
                async move {
                    let path = request.uri().path().to_owned();
                    let body = request.into_body().collect().await.unwrap().to_bytes();
                    if path == "/hold" {
                        let released = release.notified();
                        let _ = arrived.send(path.clone());
                        released.await;
                    }
                    let answer = format!("{path} got {} bytes", body.len());
                    Ok::<_, Infallible>(Response::new(Full::new(Bytes::from(answer))))
                }
            });
            http1::Builder::new()
                .half_close(true)
                .timer(Timer::new())
                .serve_connection(Io::new(stream), service)
                .await
        });
        let mut client = TcpStream::connect(addr).await.unwrap();
        // Two pipelined requests, the second held by the service, then the
        // client stops writing for good.
        client
            .write_all(
                b"POST /first HTTP/1.1\r\nhost: x\r\ncontent-length: 5\r\n\r\nhello\
                  GET /hold HTTP/1.1\r\nhost: x\r\n\r\n",
            )
            .await
            .unwrap();
        client.shutdown_std(Shutdown::Write).unwrap();
        assert_eq!(arrived.recv().await.unwrap(), "/hold");
        release.notify_one();
        let responses = read_responses(&mut client).await;
        assert_eq!(
            responses,
            [
                ("HTTP/1.1 200 OK".to_owned(), b"/first got 5 bytes".to_vec()),
                ("HTTP/1.1 200 OK".to_owned(), b"/hold got 0 bytes".to_vec()),
            ]
        );
        // With both requests answered and the client gone, the connection
        // ended cleanly.
        serving.await.unwrap().unwrap();
    });
}

/// The response body the slow reader gets: big enough to fill the
/// server's (shrunk) send buffer many times over.
const SLOW_BODY: usize = 256 << 10;
const RCVBUF: usize = 4096;

/// Reads `stream` to its end one byte per `read`, as a client on a bad
/// link would: returns the head and the checksum and length of the body.
fn read_byte_by_byte(mut stream: std::net::TcpStream) -> (String, Checksum, usize) {
    use std::io::Read;
    let mut head = Vec::new();
    let mut body = Checksum::new();
    let mut body_len = 0;
    let mut byte = [0u8; 1];
    loop {
        match stream.read(&mut byte).unwrap() {
            0 => break,
            _ if !head.ends_with(b"\r\n\r\n") => head.push(byte[0]),
            _ => {
                body.update(&byte);
                body_len += 1;
            }
        }
    }
    (String::from_utf8(head).unwrap(), body, body_len)
}

#[test]
fn a_client_reading_one_byte_at_a_time_gets_every_byte_and_the_server_waits_without_spinning() {
    on_both(|| async {
        let socket = TcpSocket::new_v4().unwrap();
        // The smallest send buffer the kernel allows: the response stalls
        // on it again and again.
        socket.set_send_buffer_size(4096).unwrap();
        socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let listener = socket.listen(16).unwrap();
        let addr = listener.local_addr().unwrap();

        let mut body = vec![0u8; SLOW_BODY];
        Pattern::new(7).fill(&mut body);
        let mut expected = Checksum::new();
        expected.update(&body);
        let body = Bytes::from(body);

        let reader = std::thread::spawn(move || {
            use std::io::Write;
            // A small receive window, set before the handshake so the
            // window scale matches it.
            let socket =
                socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
            socket.set_recv_buffer_size(RCVBUF).unwrap();
            socket.connect(&addr.into()).unwrap();
            let mut stream = std::net::TcpStream::from(socket);
            stream
                .write_all(b"GET / HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")
                .unwrap();
            read_byte_by_byte(stream)
        });

        let (stream, _) = listener.accept().await.unwrap();
        let polls = Arc::new(AtomicUsize::new(0));
        let service = service_fn(move |_request: Request<Incoming>| {
            let body = body.clone();
            async move { Ok::<_, Infallible>(Response::new(Full::new(body))) }
        });
        let serving = http1::Builder::new().serve_connection(Io::new(stream), service);
        counting_polls(Arc::clone(&polls), serving).await.unwrap();
        let (head, checksum, len) = reader.join().unwrap();
        assert!(head.starts_with("HTTP/1.1 200 OK\r\n"), "{head}");
        assert_eq!((len, checksum), (SLOW_BODY, expected));

        // Each poll after the first waited for the kernel to free room in
        // the send buffer, which takes the reader hundreds of reads; a
        // server that spun would be polled about once per byte read.
        let polls = polls.load(Ordering::SeqCst);
        eprintln!("the connection was polled {polls} times for {SLOW_BODY} bytes");
        assert!(
            polls <= SLOW_BODY / 256,
            "the connection was polled {polls} times for {SLOW_BODY} bytes: it spins while the \
             client is slow"
        );
    });
}

#[test]
fn header_read_timeout_closes_an_idle_keep_alive_connection_on_the_paused_clock() {
    const TIMEOUT: Duration = Duration::from_secs(5);
    support_http::paused_runtime().block_on(async {
        let start = rt::time::Instant::now();
        let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let served = rt::spawn(async move {
            let (stream, _) = listener.accept().await.unwrap();
            let echo_path = service_fn(|request: Request<Incoming>| async move {
                let path = Bytes::from(request.uri().path().to_owned());
                Ok::<_, Infallible>(Response::new(Full::new(path)))
            });
            http1::Builder::new()
                .timer(Timer::new())
                .header_read_timeout(TIMEOUT)
                .serve_connection(Io::new(stream), echo_path)
                .await
        });
        let (mut sender, connection) = support_http::http1_client(addr).await;
        let response = sender.send_request(request("GET", "/1", "")).await.unwrap();
        assert_eq!(body_of(response).await, "/1");
        // The exchange moved no time: the request was work, not idleness.
        assert_eq!(start.elapsed(), Duration::ZERO);
        // Idle for less than the timeout (on the paused clock, at once),
        // then a second request: its head, read in time, stops the timer,
        // and the next idle spell starts it afresh.
        rt::time::sleep(TIMEOUT - Duration::from_secs(1)).await;
        sender.ready().await.unwrap();
        let response = sender.send_request(request("GET", "/2", "")).await.unwrap();
        assert_eq!(body_of(response).await, "/2");
        let idle_since = rt::time::Instant::now();

        // Nothing more: the server closes the connection at the timeout.
        connection.await.unwrap().unwrap();
        assert_eq!(idle_since.elapsed(), TIMEOUT);
        let error = served.await.unwrap().unwrap_err();
        assert!(error.is_timeout(), "{error}");
    });
}

#[test]
fn aborting_many_connections_mid_response_at_once_releases_every_socket() {
    const CONNECTIONS: usize = 32;
    on_both(|| async {
        let metrics = rt::runtime::Handle::current().metrics();
        let registrations = metrics.io_driver_registrations();
        let drops = DropCounter::new();
        let mut servers = rt::task::JoinSet::new();
        let mut aborts = Vec::new();
        let mut clients = Vec::new();
        for _ in 0..CONNECTIONS {
            let (client, server) = UnixStream::pair().unwrap();
            let (body_tx, body) = channel_body(&drops);
            let body = Arc::new(std::sync::Mutex::new(Some(body)));
            let service = service_fn(move |_request: Request<Incoming>| {
                let body = body.lock().unwrap().take().expect("one request");
                async move { Ok::<_, Infallible>(Response::new(body)) }
            });
            aborts.push(servers.spawn(async move {
                http1::Builder::new()
                    .serve_connection(Io::new(server), service)
                    .await
            }));
            let (mut sender, connection) = hyper::client::conn::http1::handshake(Io::new(client))
                .await
                .unwrap();
            let connection = rt::spawn(connection);
            let response = sender.send_request(request("GET", "/", "")).await.unwrap();
            let mut body = response.into_body();
            body_tx.send(Bytes::from_static(b"first piece")).unwrap();
            let first = body.frame().await.unwrap().unwrap();
            assert_eq!(first.into_data().unwrap(), "first piece");
            clients.push((sender, connection, body, body_tx));
        }
        // Every connection is mid-response: abort them all at once.
        std::thread::spawn(move || aborts.into_iter().for_each(|abort| abort.abort()))
            .join()
            .unwrap();
        let mut cancelled = 0;
        while let Some(ended) = servers.join_next().await {
            assert!(ended.unwrap_err().is_cancelled());
            cancelled += 1;
        }
        assert_eq!(cancelled, CONNECTIONS);
        assert_eq!(
            drops.alive(),
            0,
            "response bodies outlived their connections"
        );
        for (sender, connection, mut body, body_tx) in clients {
            assert!(matches!(body.frame().await, Some(Err(_))));
            assert!(body_tx.is_closed());
            drop((sender, body));
            let _ = connection.await.unwrap();
        }
        assert_eq!(metrics.io_driver_registrations(), registrations);
    });
}

#[test]
fn a_client_resetting_during_a_blocked_response_ends_the_connection_with_an_error() {
    on_both(|| async {
        let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let served = rt::spawn(async move {
            let (stream, _) = listener.accept().await.unwrap();
            // Far more than the socket buffers hold: the response waits
            // for the client to read.
            let big = Bytes::from(vec![b'x'; 32 << 20]);
            let service = service_fn(move |_request: Request<Incoming>| {
                let big = big.clone();
                async move { Ok::<_, Infallible>(Response::new(Full::new(big))) }
            });
            http1::Builder::new()
                .serve_connection(Io::new(stream), service)
                .await
        });
        let mut client = TcpStream::connect(addr).await.unwrap();
        client
            .write_all(b"GET / HTTP/1.1\r\nhost: x\r\n\r\n")
            .await
            .unwrap();
        let mut some = vec![0u8; 64 << 10];
        client.read_exact(&mut some).await.unwrap();
        // Gone with unread bytes: the kernel resets the connection.
        client.set_linger(Some(Duration::ZERO)).unwrap();
        drop(client);
        let error = served.await.unwrap().unwrap_err();
        let kind = std::error::Error::source(&error)
            .and_then(|cause| cause.downcast_ref::<std::io::Error>())
            .map(std::io::Error::kind);
        assert!(
            matches!(
                kind,
                Some(std::io::ErrorKind::ConnectionReset | std::io::ErrorKind::BrokenPipe)
            ),
            "{error:?}"
        );
    });
}
