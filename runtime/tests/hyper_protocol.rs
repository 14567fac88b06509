//! hyper on rt in the protocol corners server authors reach: trailers on
//! requests (HTTP/1.1 chunked and HTTP/2) and responses, a client's
//! RST_STREAM ending the server's streamed body, an HTTP/1.1 upgrade
//! carrying bytes both ways through hyper's `Upgraded`, an HTTP/2 client
//! vanishing mid-request-body, more HTTP/2 streams than the server's
//! concurrency limit with bodies past the flow-control window, pipelined
//! HTTP/1.1 requests, `Compat` over a small in-memory duplex, services that
//! `block_in_place`, a sender outliving its connection's runtime,
//! `Handle::block_on` from another thread, a head trickled past the header
//! read timeout on the paused clock, and `Timer::reset` from another
//! thread waking a parked driver.

mod support;
#[path = "support/http.rs"]
mod support_http;

use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::{Body as HttpBody, Bytes, Frame, Incoming};
use hyper::service::service_fn;
use hyper::{HeaderMap, Request, Response};
use rt::hyper::{Executor, Io, Timer};
use rt::net::{TcpListener, TcpStream, UnixStream};
use rt::sync::mpsc;
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use support::{DropCounter, on_both};

fn trailers() -> HeaderMap {
    let mut t = HeaderMap::new();
    t.insert("x-checksum", "abc".parse().unwrap());
    t
}

type FrameResult = Result<Frame<Bytes>, Infallible>;

struct Frames(mpsc::UnboundedReceiver<FrameResult>);
impl HttpBody for Frames {
    type Data = Bytes;
    type Error = Infallible;
    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<FrameResult>> {
        self.0.poll_recv(cx)
    }
}

async fn echo_trailers(request: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let collected = request.into_body().collect().await.unwrap();
    let t = collected.trailers().cloned();
    let body = collected.to_bytes();
    let answer = format!(
        "{} {:?}",
        body.len(),
        t.map(|t| t.get("x-checksum").cloned())
    );
    Ok(Response::new(Full::new(Bytes::from(answer))))
}

#[test]
fn request_trailers_reach_the_server_http1_and_http2() {
    on_both(|| async {
        for h2 in [false, true] {
            let (client, server) = UnixStream::pair().unwrap();
            rt::spawn(async move {
                if h2 {
                    hyper::server::conn::http2::Builder::new(Executor::new())
                        .serve_connection(Io::new(server), service_fn(echo_trailers))
                        .await
                        .unwrap();
                } else {
                    hyper::server::conn::http1::Builder::new()
                        .serve_connection(Io::new(server), service_fn(echo_trailers))
                        .await
                        .unwrap();
                }
            });
            let (tx, rx) = mpsc::unbounded_channel();
            let req = Request::post("http://localhost/")
                .header("te", "trailers")
                .header("trailer", "x-checksum")
                .body(Frames(rx))
                .unwrap();
            let response = if h2 {
                let (mut s, c) =
                    hyper::client::conn::http2::handshake(Executor::new(), Io::new(client))
                        .await
                        .unwrap();
                rt::spawn(c);
                let r = rt::spawn(async move { s.send_request(req).await });
                for i in 0..10 {
                    tx.send(Ok(Frame::data(Bytes::from(vec![i as u8; 1000]))))
                        .unwrap();
                    rt::task::yield_now().await;
                }
                tx.send(Ok(Frame::trailers(trailers()))).unwrap();
                drop(tx);
                r.await.unwrap().unwrap()
            } else {
                let (mut s, c) = hyper::client::conn::http1::handshake(Io::new(client))
                    .await
                    .unwrap();
                rt::spawn(c);
                let r = rt::spawn(async move { s.send_request(req).await });
                for i in 0..10 {
                    tx.send(Ok(Frame::data(Bytes::from(vec![i as u8; 1000]))))
                        .unwrap();
                    rt::task::yield_now().await;
                }
                tx.send(Ok(Frame::trailers(trailers()))).unwrap();
                drop(tx);
                r.await.unwrap().unwrap()
            };
            let body = response.into_body().collect().await.unwrap().to_bytes();
            assert_eq!(body, "10000 Some(Some(\"abc\"))", "h2={h2}");
        }
    });
}

#[test]
fn http2_client_reset_ends_the_servers_streaming_body() {
    on_both(|| async {
        let (client, server) = UnixStream::pair().unwrap();
        let drops = DropCounter::new();
        let (senders_tx, mut senders) = mpsc::unbounded_channel();
        let d = drops.clone();
        rt::spawn(async move {
            hyper::server::conn::http2::Builder::new(Executor::new())
                .serve_connection(
                    Io::new(server),
                    service_fn(move |req: Request<Incoming>| {
                        let (tx, body) = support_http::channel_body(&d);
                        let path = req.uri().path().to_string();
                        if path == "/stream" {
                            senders_tx.send(tx).unwrap();
                        } else {
                            tx.send(Bytes::from_static(b"small")).unwrap();
                        }
                        async move { Ok::<_, Infallible>(Response::new(body)) }
                    }),
                )
                .await
                .unwrap();
        });
        let (mut s, c) = hyper::client::conn::http2::handshake(Executor::new(), Io::new(client))
            .await
            .unwrap();
        rt::spawn(c);
        let response = s
            .send_request(
                Request::get("http://localhost/stream")
                    .body(Full::<Bytes>::default())
                    .unwrap(),
            )
            .await
            .unwrap();
        let tx = senders.recv().await.unwrap();
        let mut body = response.into_body();
        tx.send(Bytes::from(vec![1u8; 100_000])).unwrap();
        let mut got = 0;
        while got < 1000 {
            got += body
                .frame()
                .await
                .unwrap()
                .unwrap()
                .into_data()
                .unwrap()
                .len();
        }
        // Drop the body: h2 sends RST_STREAM(CANCEL); the server's body must be dropped.
        drop(body);
        support_http::yield_until("the server drops the body", || drops.dropped() == 1).await;
        assert!(tx.send(Bytes::from_static(b"x")).is_err());
        // The connection still works.
        let response = s
            .send_request(
                Request::get("http://localhost/small")
                    .body(Full::<Bytes>::default())
                    .unwrap(),
            )
            .await
            .unwrap();
        let _ = response;
    });
}

#[test]
fn http1_upgrade_carries_bytes_both_ways_through_upgraded() {
    on_both(|| async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        rt::spawn(async move {
            let (stream, _) = listener.accept().await.unwrap();
            hyper::server::conn::http1::Builder::new()
                .serve_connection(
                    Io::new(stream),
                    service_fn(|mut req: Request<Incoming>| async move {
                        let up = hyper::upgrade::on(&mut req);
                        rt::spawn(async move {
                            let mut up = up.await.unwrap();
                            let mut buf = vec![0u8; 4096];
                            loop {
                                let n = read(&mut up, &mut buf).await;
                                if n == 0 {
                                    break;
                                }
                                write_all(&mut up, &buf[..n]).await;
                            }
                            std::future::poll_fn(|cx| {
                                hyper::rt::Write::poll_shutdown(Pin::new(&mut up), cx)
                            })
                            .await
                            .unwrap();
                        });
                        let mut r = Response::new(Full::<Bytes>::default());
                        *r.status_mut() = hyper::StatusCode::SWITCHING_PROTOCOLS;
                        r.headers_mut().insert("upgrade", "echo".parse().unwrap());
                        r.headers_mut()
                            .insert("connection", "upgrade".parse().unwrap());
                        Ok::<_, Infallible>(r)
                    }),
                )
                .with_upgrades()
                .await
                .unwrap();
        });
        let stream = TcpStream::connect(addr).await.unwrap();
        let (mut s, c) = hyper::client::conn::http1::handshake(Io::new(stream))
            .await
            .unwrap();
        rt::spawn(async move { c.with_upgrades().await.unwrap() });
        let req = Request::get("/")
            .header("host", "x")
            .header("connection", "upgrade")
            .header("upgrade", "echo")
            .body(Full::<Bytes>::default())
            .unwrap();
        let response = s.send_request(req).await.unwrap();
        assert_eq!(response.status(), 101);
        let mut up = hyper::upgrade::on(response).await.unwrap();
        let data: Vec<u8> = (0..300_000u32).map(|i| (i * 7) as u8).collect();
        let mut echoed = Vec::new();
        let mut sent = 0;
        let mut buf = vec![0u8; 8192];
        // Interleave writes and reads on one task.
        while echoed.len() < data.len() {
            if sent < data.len() {
                let end = (sent + 10_000).min(data.len());
                write_all(&mut up, &data[sent..end]).await;
                sent = end;
            }
            let n = read(&mut up, &mut buf).await;
            assert!(n > 0);
            echoed.extend_from_slice(&buf[..n]);
        }
        assert!(echoed == data);
        std::future::poll_fn(|cx| hyper::rt::Write::poll_shutdown(Pin::new(&mut up), cx))
            .await
            .unwrap();
        assert_eq!(read(&mut up, &mut buf).await, 0);
    });
}

async fn read<T: hyper::rt::Read + Unpin>(io: &mut T, buf: &mut [u8]) -> usize {
    std::future::poll_fn(|cx| {
        let mut rb = hyper::rt::ReadBuf::new(buf);
        match hyper::rt::Read::poll_read(Pin::new(&mut *io), cx, rb.unfilled()) {
            Poll::Ready(Ok(())) => Poll::Ready(rb.filled().len()),
            Poll::Ready(Err(e)) => panic!("{e}"),
            Poll::Pending => Poll::Pending,
        }
    })
    .await
}

async fn write_all<T: hyper::rt::Write + Unpin>(io: &mut T, mut buf: &[u8]) {
    while !buf.is_empty() {
        let n =
            std::future::poll_fn(|cx| hyper::rt::Write::poll_write(Pin::new(&mut *io), cx, buf))
                .await
                .unwrap();
        buf = &buf[n..];
    }
}

#[test]
fn response_trailers_over_http2_and_a_streamed_body() {
    on_both(|| async {
        let (client, server) = UnixStream::pair().unwrap();
        rt::spawn(async move {
            hyper::server::conn::http2::Builder::new(Executor::new())
                .timer(Timer::new())
                .serve_connection(
                    Io::new(server),
                    service_fn(|_req: Request<Incoming>| async move {
                        let frames = vec![
                            Ok::<_, Infallible>(Frame::data(Bytes::from(vec![3u8; 200_000]))),
                            Ok(Frame::trailers(trailers())),
                        ];
                        Ok::<_, Infallible>(Response::new(StreamBody::new(futures::stream::iter(
                            frames,
                        ))))
                    }),
                )
                .await
                .unwrap();
        });
        let (mut s, c) = hyper::client::conn::http2::handshake(Executor::new(), Io::new(client))
            .await
            .unwrap();
        rt::spawn(c);
        let response = s
            .send_request(
                Request::get("http://localhost/")
                    .body(Full::<Bytes>::default())
                    .unwrap(),
            )
            .await
            .unwrap();
        let collected = response.into_body().collect().await.unwrap();
        assert_eq!(collected.trailers().unwrap()["x-checksum"], "abc");
        assert_eq!(collected.to_bytes().len(), 200_000);
    });
}

/// hyper's bounds on I/O, executors and timers, checked at compile time.
fn _hyper_types_are_send_sync_unpin() {
    fn send_sync_unpin<T: Send + Sync + Unpin + 'static>() {}
    send_sync_unpin::<Io<TcpStream>>();
    send_sync_unpin::<Io<UnixStream>>();
    send_sync_unpin::<Executor>();
    send_sync_unpin::<Timer>();
    send_sync_unpin::<rt::hyper::Compat<futures::io::Cursor<Vec<u8>>>>();
}

#[test]
fn an_http2_client_gone_mid_request_body_fails_the_servers_read() {
    on_both(|| async {
        {
            let (client, server) = UnixStream::pair().unwrap();
            let (outcome_tx, mut outcome) = mpsc::unbounded_channel::<&'static str>();
            let serving = rt::spawn(async move {
                hyper::server::conn::http2::Builder::new(Executor::new())
                    .serve_connection(
                        Io::new(server),
                        service_fn(move |req: Request<Incoming>| {
                            let outcome_tx = outcome_tx.clone();
                            async move {
                                let mut body = req.into_body();
                                let first = body.frame().await.unwrap().unwrap();
                                assert!(first.is_data());
                                outcome_tx.send("started").unwrap();
                                let end = loop {
                                    match body.frame().await {
                                        None => break "ended",
                                        Some(Err(_)) => break "error",
                                        Some(Ok(_)) => {}
                                    }
                                };
                                outcome_tx.send(end).unwrap();
                                Ok::<_, Infallible>(Response::new(Full::<Bytes>::default()))
                            }
                        }),
                    )
                    .await
            });
            // The client lives on a runtime of its own, on its own thread:
            // dropping that runtime drops every task hyper spawned for the
            // client, and so the socket, mid-body.
            let client = client.into_std().unwrap();
            let (sent_tx, sent_rx) = std::sync::mpsc::channel::<()>();
            let (leave_tx, leave_rx) = std::sync::mpsc::channel::<()>();
            let client_thread = std::thread::spawn(move || {
                let crt = rt::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .unwrap();
                crt.block_on(async move {
                    let client = UnixStream::from_std(client).unwrap();
                    let drops = DropCounter::new();
                    let (tx, body) = support_http::channel_body(&drops);
                    let (mut s, c) =
                        hyper::client::conn::http2::handshake(Executor::new(), Io::new(client))
                            .await
                            .unwrap();
                    rt::spawn(c);
                    let req = Request::post("http://localhost/").body(body).unwrap();
                    let _response = rt::spawn(async move { s.send_request(req).await });
                    tx.send(Bytes::from_static(b"first")).unwrap();
                    sent_tx.send(()).unwrap();
                    rt::task::spawn_blocking(move || leave_rx.recv().unwrap())
                        .await
                        .unwrap();
                    std::mem::forget(tx);
                });
                drop(crt);
            });
            assert_eq!(outcome.recv().await.unwrap(), "started");
            sent_rx.recv().unwrap();
            leave_tx.send(()).unwrap();
            client_thread.join().unwrap();
            assert_eq!(outcome.recv().await.unwrap(), "error");
            // The connection ends too (hyper counts a vanished HTTP/2
            // client as a close, not always as an error).
            let _ = serving.await.unwrap();
        }
    });
}

#[test]
fn http2_streams_beyond_the_concurrency_limit_with_large_bodies_all_complete() {
    on_both(|| async {
        let (client, server) = UnixStream::pair().unwrap();
        rt::spawn(async move {
            hyper::server::conn::http2::Builder::new(Executor::new())
                .max_concurrent_streams(8)
                .timer(Timer::new())
                .serve_connection(
                    Io::new(server),
                    service_fn(|req: Request<Incoming>| async move {
                        let body = req.into_body().collect().await.unwrap().to_bytes();
                        Ok::<_, Infallible>(Response::new(Full::new(body)))
                    }),
                )
                .await
                .unwrap();
        });
        let (sender, c) = hyper::client::conn::http2::handshake(Executor::new(), Io::new(client))
            .await
            .unwrap();
        rt::spawn(c);
        // A first answer means the server's SETTINGS (its limit) arrived:
        // streams opened before that may be refused, as HTTP/2 allows.
        let mut warm_up = sender.clone();
        let req = Request::post("http://localhost/")
            .body(Full::new(Bytes::new()))
            .unwrap();
        warm_up.send_request(req).await.unwrap();
        let tasks: Vec<_> = (0..64u8)
            .map(|i| {
                let mut sender = sender.clone();
                rt::spawn(async move {
                    let body = Bytes::from(vec![i; 150_000 + i as usize]);
                    let req = Request::post("http://localhost/")
                        .body(Full::new(body.clone()))
                        .unwrap();
                    let response = sender.send_request(req).await.unwrap();
                    let got = response.into_body().collect().await.unwrap().to_bytes();
                    assert!(got == body, "stream {i}");
                })
            })
            .collect();
        drop(sender);
        for t in tasks {
            t.await.unwrap();
        }
    });
}

#[test]
fn a_hyper_sleep_reset_earlier_from_another_thread_wakes_a_parked_driver() {
    use hyper::rt::Timer as _;
    for workers in [1, 2] {
        let rt = rt::runtime::Builder::new_multi_thread()
            .worker_threads(workers)
            .enable_all()
            .build()
            .unwrap();
        let sleep = rt.block_on(async {
            Arc::new(std::sync::Mutex::new(
                Timer::new().sleep(std::time::Duration::from_secs(3600)),
            ))
        });
        let s = sleep.clone();
        let (polled_tx, polled_rx) = std::sync::mpsc::channel();
        let waiter = rt.spawn(async move {
            let mut first = true;
            std::future::poll_fn(|cx| {
                let r = s.lock().unwrap().as_mut().poll(cx);
                if first {
                    first = false;
                    polled_tx.send(()).unwrap();
                }
                r
            })
            .await;
        });
        polled_rx.recv().unwrap();
        let deadline =
            rt.block_on(async { Timer::new().now() }) + std::time::Duration::from_millis(20);
        Timer::new().reset(&mut sleep.lock().unwrap(), deadline);
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        rt.spawn(async move {
            waiter.await.unwrap();
            done_tx.send(()).unwrap();
        });
        // Hangs if the reset left the driver parked on the old deadline.
        done_rx.recv().unwrap();
    }
}

#[test]
fn a_hyper_sleep_reset_earlier_from_another_thread_wakes_a_current_thread_runtime() {
    use hyper::rt::Timer as _;
    let rt = rt::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let sleep = rt.block_on(async {
        Arc::new(std::sync::Mutex::new(
            Timer::new().sleep(std::time::Duration::from_secs(3600)),
        ))
    });
    let now = rt.block_on(async { Timer::new().now() });
    let s = sleep.clone();
    let (polled_tx, polled_rx) = std::sync::mpsc::channel::<()>();
    let resetter = std::thread::spawn(move || {
        polled_rx.recv().unwrap();
        Timer::new().reset(
            &mut s.lock().unwrap(),
            now + std::time::Duration::from_millis(20),
        );
    });
    let s = sleep.clone();
    rt.block_on(async move {
        let mut first = true;
        std::future::poll_fn(|cx| {
            let r = s.lock().unwrap().as_mut().poll(cx);
            if first {
                first = false;
                polled_tx.send(()).unwrap();
            }
            r
        })
        .await;
    });
    resetter.join().unwrap();
}

#[test]
fn header_read_timeout_closes_a_connection_stalled_mid_head_on_the_paused_clock() {
    use rt::io::{AsyncReadExt, AsyncWriteExt};
    const TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);
    support_http::paused_runtime().block_on(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mut served = rt::spawn(async move {
            let (stream, _) = listener.accept().await.unwrap();
            hyper::server::conn::http1::Builder::new()
                .timer(Timer::new())
                .header_read_timeout(TIMEOUT)
                .serve_connection(
                    Io::new(stream),
                    service_fn(|_r: Request<Incoming>| async {
                        Ok::<_, Infallible>(Response::new(Full::<Bytes>::default()))
                    }),
                )
                .await
        });
        let mut client = TcpStream::connect(addr).await.unwrap();
        let start = rt::time::Instant::now();
        client
            .write_all(b"GET / HTTP/1.1\r\nhost: x\r\n")
            .await
            .unwrap();
        // One header byte a second: the timeout is for the whole head, so
        // bytes still arriving do not push it back.
        let mut trickle = b"x-slow: 1234567890".iter();
        let error = loop {
            rt::select! {
                biased;
                served = &mut served => break served.unwrap().unwrap_err(),
                () = rt::time::sleep(std::time::Duration::from_secs(1)) => {
                    let byte = trickle.next().expect("the server waited past its timeout");
                    // Fails once the server has closed; `served` says why.
                    let _ = client.write_all(&[*byte]).await;
                }
            }
        };
        assert!(error.is_timeout(), "{error}");
        assert_eq!(start.elapsed(), TIMEOUT);
        let mut rest = Vec::new();
        let _ = client.read_to_end(&mut rest).await;
        assert!(rest.is_empty(), "no response to a head never finished");
    });
}

#[test]
fn fifty_pipelined_requests_in_one_write_get_fifty_responses() {
    use rt::io::{AsyncReadExt, AsyncWriteExt};
    on_both(|| async {
        let (mut client, server) = UnixStream::pair().unwrap();
        rt::spawn(async move {
            hyper::server::conn::http1::Builder::new()
                .pipeline_flush(true)
                .serve_connection(
                    Io::new(server),
                    service_fn(|r: Request<Incoming>| async move {
                        let p = r.uri().path().to_owned();
                        let body = r.into_body().collect().await.unwrap().to_bytes();
                        Ok::<_, Infallible>(Response::new(Full::new(Bytes::from(format!(
                            "{p}:{}",
                            body.len()
                        )))))
                    }),
                )
                .await
                .unwrap();
        });
        let mut all = Vec::new();
        for i in 0..50 {
            let body = vec![b'a'; i * 37];
            all.extend_from_slice(
                format!(
                    "POST /{i} HTTP/1.1\r\nhost: x\r\ncontent-length: {}\r\n\r\n",
                    body.len()
                )
                .as_bytes(),
            );
            all.extend_from_slice(&body);
        }
        all.extend_from_slice(b"GET /last HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n");
        client.write_all(&all).await.unwrap();
        let mut out = Vec::new();
        client.read_to_end(&mut out).await.unwrap();
        let text = String::from_utf8(out).unwrap();
        for i in 0..50 {
            assert!(text.contains(&format!("/{i}:{}", i * 37)), "missing {i}");
        }
        assert!(text.contains("/last:0"));
        assert_eq!(text.matches("HTTP/1.1 200 OK").count(), 51);
    });
}

#[test]
fn http1_and_http2_over_a_small_duplex_through_compat_echo_large_bodies() {
    on_both(|| async {
        for h2 in [false, true] {
            let (client, server) = rt::io::duplex(1024);
            let echo = service_fn(|r: Request<Incoming>| async move {
                let body = r.into_body().collect().await.unwrap().to_bytes();
                Ok::<_, Infallible>(Response::new(Full::new(body)))
            });
            rt::spawn(async move {
                if h2 {
                    hyper::server::conn::http2::Builder::new(Executor::new())
                        .serve_connection(rt::hyper::Compat::new(server), echo)
                        .await
                        .unwrap();
                } else {
                    hyper::server::conn::http1::Builder::new()
                        .serve_connection(rt::hyper::Compat::new(server), echo)
                        .await
                        .unwrap();
                }
            });
            let body: Bytes = (0..1_000_000u32)
                .map(|i| (i % 251) as u8)
                .collect::<Vec<_>>()
                .into();
            let req = Request::post("http://localhost/")
                .body(Full::new(body.clone()))
                .unwrap();
            let response = if h2 {
                let (mut s, c) = hyper::client::conn::http2::handshake(
                    Executor::new(),
                    rt::hyper::Compat::new(client),
                )
                .await
                .unwrap();
                rt::spawn(c);
                s.send_request(req).await.unwrap()
            } else {
                let (mut s, c) =
                    hyper::client::conn::http1::handshake(rt::hyper::Compat::new(client))
                        .await
                        .unwrap();
                rt::spawn(c);
                s.send_request(req).await.unwrap()
            };
            let got = response.into_body().collect().await.unwrap().to_bytes();
            assert!(got == body, "h2={h2}");
        }
    });
}

#[test]
fn a_request_sent_after_the_connections_runtime_was_dropped_fails() {
    for h2 in [false, true] {
        let server_rt = support::Kind::MultiThread(1).build();
        let (client, server) = std::os::unix::net::UnixStream::pair().unwrap();
        client.set_nonblocking(true).unwrap();
        server.set_nonblocking(true).unwrap();
        server_rt.spawn(async move {
            let server = UnixStream::from_std(server).unwrap();
            let svc = service_fn(|_r: Request<Incoming>| async {
                Ok::<_, Infallible>(Response::new(Full::new(Bytes::from_static(b"hi"))))
            });
            if h2 {
                let _ = hyper::server::conn::http2::Builder::new(Executor::new())
                    .serve_connection(Io::new(server), svc)
                    .await;
            } else {
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(Io::new(server), svc)
                    .await;
            }
        });
        let client_rt = support::Kind::MultiThread(2).build();
        enum Sender {
            H1(hyper::client::conn::http1::SendRequest<Full<Bytes>>),
            H2(hyper::client::conn::http2::SendRequest<Full<Bytes>>),
        }
        let mut sender = client_rt.block_on(async move {
            let client = UnixStream::from_std(client).unwrap();
            if h2 {
                let (s, c) =
                    hyper::client::conn::http2::handshake(Executor::new(), Io::new(client))
                        .await
                        .unwrap();
                rt::spawn(c);
                Sender::H2(s)
            } else {
                let (s, c) = hyper::client::conn::http1::handshake(Io::new(client))
                    .await
                    .unwrap();
                rt::spawn(c);
                Sender::H1(s)
            }
        });
        drop(client_rt);
        let other = support::Kind::CurrentThread.build();
        let req = Request::get("http://localhost/")
            .body(Full::new(Bytes::new()))
            .unwrap();
        let result = other.block_on(async {
            match &mut sender {
                Sender::H1(s) => s.send_request(req).await.map(|_| ()),
                Sender::H2(s) => s.send_request(req).await.map(|_| ()),
            }
        });
        assert!(result.is_err(), "h2={h2}");
        drop(server_rt);
    }
}

#[test]
fn http2_services_that_block_in_place_all_answer() {
    for workers in [1, 2] {
        let rt = support::Kind::MultiThread(workers).build();
        rt.block_on(async {
            let (client, server) = UnixStream::pair().unwrap();
            rt::spawn(async move {
                hyper::server::conn::http2::Builder::new(Executor::new())
                    .serve_connection(
                        Io::new(server),
                        service_fn(|r: Request<Incoming>| async move {
                            let body = r.into_body().collect().await.unwrap().to_bytes();
                            let n = rt::task::block_in_place(|| {
                                body.iter().map(|&b| b as usize).sum::<usize>()
                            });
                            Ok::<_, Infallible>(Response::new(Full::new(Bytes::from(
                                n.to_string(),
                            ))))
                        }),
                    )
                    .await
                    .unwrap();
            });
            let (sender, c) =
                hyper::client::conn::http2::handshake(Executor::new(), Io::new(client))
                    .await
                    .unwrap();
            rt::spawn(c);
            let tasks: Vec<_> = (0..32usize)
                .map(|i| {
                    let mut sender = sender.clone();
                    rt::spawn(async move {
                        let req = Request::post("http://localhost/")
                            .body(Full::new(Bytes::from(vec![1u8; i * 1000])))
                            .unwrap();
                        let r = sender.send_request(req).await.unwrap();
                        let got = r.into_body().collect().await.unwrap().to_bytes();
                        assert_eq!(got, (i * 1000).to_string());
                    })
                })
                .collect();
            drop(sender);
            for t in tasks {
                t.await.unwrap();
            }
        });
    }
}

#[test]
fn handle_block_on_from_another_thread_while_block_on_serves() {
    let rt = support::Kind::CurrentThread.build();
    let listener = rt.block_on(TcpListener::bind("127.0.0.1:0")).unwrap();
    let addr = listener.local_addr().unwrap();
    let handle = rt.handle().clone();
    let (done_tx, done_rx) = rt::sync::oneshot::channel::<()>();
    let client = std::thread::spawn(move || {
        let r = handle.block_on(async move {
            let mut out = Vec::new();
            for i in 0..20 {
                let (mut s, c) = support_http::http1_client(addr).await;
                let resp = s
                    .send_request(support_http::request("GET", &format!("/{i}"), ""))
                    .await
                    .unwrap();
                out.push(support_http::body_of(resp).await);
                drop(s);
                c.await.unwrap().unwrap();
            }
            out
        });
        done_tx.send(()).unwrap();
        r
    });
    rt.block_on(async move {
        let server = rt::spawn(async move {
            loop {
                let (stream, _) = listener.accept().await.unwrap();
                rt::spawn(async move {
                    hyper::server::conn::http1::Builder::new()
                        .serve_connection(
                            Io::new(stream),
                            service_fn(|r: Request<Incoming>| async move {
                                Ok::<_, Infallible>(Response::new(Full::new(Bytes::from(
                                    r.uri().path().to_owned(),
                                ))))
                            }),
                        )
                        .await
                        .unwrap();
                });
            }
        });
        done_rx.await.unwrap();
        server.abort();
    });
    let out = client.join().unwrap();
    assert_eq!(out.len(), 20);
    assert_eq!(out[19], "/19");
}
