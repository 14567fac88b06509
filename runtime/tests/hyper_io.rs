//! `rt::hyper`'s pieces on their own: `Io` over Unix streams, `Compat`
//! over any futures-io stream, `Timer` driving hyper's header read timeout
//! on the paused clock, `Executor` running HTTP/2 on both schedulers, and
//! an upgraded connection handing rt's stream back (`Upgraded::downcast`)
//! with the bytes hyper read past the request head.

mod support;
#[path = "support/http.rs"]
mod support_http;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::{http1, http2};
use hyper::service::service_fn;
use hyper::{Request, Response};
use rt::hyper::{Compat, Executor, Io, Timer};
use rt::io::{AsyncReadExt, AsyncWriteExt};
use rt::net::UnixStream;
use std::convert::Infallible;
use std::time::Duration;
use support::{Pattern, on_both};
use support_http::{body_of, request};

/// Answers the request body with the bytes in reverse order.
async fn reverse(request: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let mut body = request
        .into_body()
        .collect()
        .await
        .unwrap()
        .to_bytes()
        .to_vec();
    body.reverse();
    Ok(Response::new(Full::new(Bytes::from(body))))
}

/// A body of `len` pattern bytes and the same bytes reversed.
fn body_and_reversed(len: usize) -> (Bytes, Bytes) {
    let mut body = vec![0u8; len];
    Pattern::new(len as u64).fill(&mut body);
    let mut reversed = body.clone();
    reversed.reverse();
    (Bytes::from(body), Bytes::from(reversed))
}

/// Serves `server` with `reverse` over HTTP/1.1 and sends three requests
/// with `body` over `client`, then closes the connection.
async fn http1_round_trips<I>(client: I, server: I, body: &Bytes, reversed: &Bytes)
where
    I: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static,
{
    rt::spawn(async move {
        http1::Builder::new()
            .timer(Timer::new())
            .serve_connection(server, service_fn(reverse))
            .await
            .unwrap();
    });
    let (mut sender, connection) = hyper::client::conn::http1::handshake(client).await.unwrap();
    let connection = rt::spawn(connection);
    for _ in 0..3 {
        sender.ready().await.unwrap();
        let response = sender
            .send_request(request("POST", "/", body.clone()))
            .await
            .unwrap();
        assert!(body_of(response).await == reversed);
    }
    drop(sender);
    connection.await.unwrap().unwrap();
}

#[test]
fn io_serves_http1_and_http2_over_unix_streams() {
    on_both(|| async {
        let (body, reversed) = body_and_reversed(300 << 10);

        let (client, server) = UnixStream::pair().unwrap();
        http1_round_trips(Io::new(client), Io::new(server), &body, &reversed).await;

        let (client, server) = UnixStream::pair().unwrap();
        rt::spawn(async move {
            http2::Builder::new(Executor::new())
                .timer(Timer::new())
                .serve_connection(Io::new(server), service_fn(reverse))
                .await
                .unwrap();
        });
        let (sender, connection) =
            hyper::client::conn::http2::handshake(Executor::new(), Io::new(client))
                .await
                .unwrap();
        let connection = rt::spawn(connection);
        // Several streams at once on the one connection.
        let streams: Vec<_> = (0..8)
            .map(|_| {
                let mut sender = sender.clone();
                let body = body.clone();
                rt::spawn(async move {
                    body_of(
                        sender
                            .send_request(request("POST", "/", body))
                            .await
                            .unwrap(),
                    )
                    .await
                })
            })
            .collect();
        for stream in streams {
            assert!(stream.await.unwrap() == reversed);
        }
        drop(sender);
        connection.await.unwrap().unwrap();
    });
}

#[test]
fn compat_serves_any_futures_io_stream() {
    on_both(|| async {
        let (body, reversed) = body_and_reversed(100 << 10);
        // rt's streams stand in for any futures-io stream here.
        let (client, server) = UnixStream::pair().unwrap();
        http1_round_trips(Compat::new(client), Compat::new(server), &body, &reversed).await;
    });
}

#[test]
fn timer_runs_hypers_header_read_timeout_on_the_paused_clock() {
    support_http::paused_runtime().block_on(async {
        let (mut client, server) = UnixStream::pair().unwrap();
        let served = rt::spawn(async move {
            http1::Builder::new()
                .timer(Timer::new())
                .header_read_timeout(Duration::from_secs(5))
                .serve_connection(Io::new(server), service_fn(reverse))
                .await
        });
        let start = rt::time::Instant::now();
        // Half a request head, then nothing.
        client
            .write_all(b"GET / HTTP/1.1\r\nhost: x\r\n")
            .await
            .unwrap();
        let mut rest = Vec::new();
        client.read_to_end(&mut rest).await.unwrap();
        // hyper gave up on the head at the timeout, by rt's clock.
        assert_eq!(start.elapsed(), Duration::from_secs(5));
        let error = served.await.unwrap().unwrap_err();
        assert!(error.is_timeout(), "{error}");
    });
}

#[test]
fn timer_sleeps_of_duration_max_stay_pending_until_reset() {
    use hyper::rt::Timer as _;
    support_http::paused_runtime().block_on(async {
        let timer = Timer::new();
        let mut sleep = timer.sleep(Duration::MAX);
        // Far in the future, and the paused clock does not jump there
        // while another timer is due first.
        let nearer = rt::time::sleep(Duration::from_secs(3600));
        let raced = futures::future::select(&mut sleep, Box::pin(nearer)).await;
        assert!(matches!(raced, futures::future::Either::Right(_)));
        // Reset to now: due at once.
        timer.reset(&mut sleep, timer.now());
        sleep.await;
    });
}

#[test]
fn aborting_a_connection_task_from_another_thread_fails_its_requests() {
    on_both(|| async {
        let (client, server) = UnixStream::pair().unwrap();
        let (arrived_tx, arrived_rx) = rt::sync::oneshot::channel::<()>();
        let arrived_tx = std::sync::Mutex::new(Some(arrived_tx));
        let serving = rt::spawn(async move {
            let never_answers = service_fn(move |_request: Request<Incoming>| {
                if let Some(tx) = arrived_tx.lock().unwrap().take() {
                    let _ = tx.send(());
                }
                std::future::pending::<Result<Response<Full<Bytes>>, Infallible>>()
            });
            http1::Builder::new()
                .serve_connection(Io::new(server), never_answers)
                .await
        });
        let (mut sender, connection) = hyper::client::conn::http1::handshake(Io::new(client))
            .await
            .unwrap();
        rt::spawn(connection);
        let response = rt::spawn(async move { sender.send_request(request("GET", "/", "")).await });
        arrived_rx.await.unwrap();
        let abort = serving.abort_handle();
        std::thread::spawn(move || abort.abort()).join().unwrap();
        assert!(serving.await.unwrap_err().is_cancelled());
        // The server's side of the socket closed with the task: the
        // request fails instead of waiting for ever.
        assert!(response.await.unwrap().is_err());
    });
}

/// Answers an `upgrade: echo` request with 101 and, on the upgraded
/// connection, takes rt's stream back out of hyper (`Upgraded::downcast`)
/// and echoes: first the bytes hyper had already read past the request
/// head, then everything else until the client stops writing.
async fn upgrade_to_echo(
    mut request: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    assert_eq!(request.headers()["upgrade"], "echo");
    let upgrade = hyper::upgrade::on(&mut request);
    rt::spawn(async move {
        let upgraded = upgrade.await.unwrap();
        let parts = upgraded
            .downcast::<Io<rt::net::TcpStream>>()
            .expect("the upgraded I/O is the server's own `Io`");
        let mut stream = parts.io.into_inner();
        stream.write_all(&parts.read_buf).await.unwrap();
        let mut buf = vec![0u8; 4096];
        loop {
            let n = stream.read(&mut buf).await.unwrap();
            if n == 0 {
                break;
            }
            stream.write_all(&buf[..n]).await.unwrap();
        }
    });
    let mut response = Response::new(Full::new(Bytes::new()));
    *response.status_mut() = hyper::StatusCode::SWITCHING_PROTOCOLS;
    response
        .headers_mut()
        .insert("upgrade", hyper::header::HeaderValue::from_static("echo"));
    response.headers_mut().insert(
        "connection",
        hyper::header::HeaderValue::from_static("upgrade"),
    );
    Ok(response)
}

#[test]
fn an_upgraded_connection_hands_back_the_rt_stream_with_the_bytes_hyper_read_ahead() {
    on_both(|| async {
        let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let served = rt::spawn(async move {
            let (stream, _) = listener.accept().await.unwrap();
            http1::Builder::new()
                .serve_connection(Io::new(stream), service_fn(upgrade_to_echo))
                .with_upgrades()
                .await
        });
        let mut client = rt::net::TcpStream::connect(addr).await.unwrap();
        // The request head and the first bytes of the new protocol in one
        // write: hyper reads them together and must hand the rest over.
        client
            .write_all(
                b"GET / HTTP/1.1\r\nhost: x\r\nconnection: upgrade\r\nupgrade: echo\r\n\r\nearly bytes",
            )
            .await
            .unwrap();
        let mut head = Vec::new();
        while !head.ends_with(b"\r\n\r\n") {
            head.push(client.read_u8().await.unwrap());
        }
        let head = String::from_utf8(head).unwrap();
        assert!(
            head.starts_with("HTTP/1.1 101 Switching Protocols\r\n"),
            "{head}"
        );
        let mut early = [0u8; 11];
        client.read_exact(&mut early).await.unwrap();
        assert_eq!(&early, b"early bytes");
        served.await.unwrap().unwrap();

        let (body, _) = body_and_reversed(200 << 10);
        let (mut reader, mut writer) = client.split();
        let echoed = async {
            let mut echoed = vec![0u8; body.len()];
            reader.read_exact(&mut echoed).await.unwrap();
            echoed
        };
        let sent = async {
            writer.write_all(&body).await.unwrap();
            writer.shutdown().await.unwrap();
        };
        let (echoed, ()) = futures::join!(echoed, sent);
        assert!(echoed == body, "the echo differs");
        let mut rest = Vec::new();
        client.read_to_end(&mut rest).await.unwrap();
        assert!(rest.is_empty());
    });
}
