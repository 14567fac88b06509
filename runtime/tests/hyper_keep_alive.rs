//! HTTP/2 keep-alive pings on rt's `Timer`, on the paused clock: a client
//! that stops answering is closed at the ping interval plus the ping
//! timeout, exactly; one that answers stays connected through an hour of
//! pings, which only holds if the paused clock never jumps to a ping's
//! deadline while the answer is already waiting on the socket.

mod support;
#[path = "support/http.rs"]
mod support_http;

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::http2;
use hyper::service::service_fn;
use hyper::{Request, Response};
use rt::hyper::{Executor, Io, Timer};
use rt::io::{AsyncReadExt, AsyncWriteExt};
use rt::net::UnixStream;
use rt::time::Instant;
use std::convert::Infallible;
use std::time::Duration;
use support_http::{body_of, paused_runtime, request};

const INTERVAL: Duration = Duration::from_secs(10);
const TIMEOUT: Duration = Duration::from_secs(5);

/// An HTTP/2 server on `server` pinging every `INTERVAL` of quiet, and
/// giving up `TIMEOUT` after an unanswered ping.
fn serve_pinging(server: UnixStream) -> rt::task::JoinHandle<hyper::Result<()>> {
    rt::spawn(async move {
        let hello = service_fn(|_request: Request<Incoming>| async {
            Ok::<_, Infallible>(Response::new(Full::new(Bytes::from_static(b"hello"))))
        });
        http2::Builder::new(Executor::new())
            .timer(Timer::new())
            .keep_alive_interval(INTERVAL)
            .keep_alive_timeout(TIMEOUT)
            .serve_connection(Io::new(server), hello)
            .await
    })
}

/// The frame types (and flags) in a stream of HTTP/2 frames.
fn frames(mut bytes: &[u8]) -> Vec<(u8, u8)> {
    let mut frames = Vec::new();
    while bytes.len() >= 9 {
        let len = usize::from(bytes[0]) << 16 | usize::from(bytes[1]) << 8 | usize::from(bytes[2]);
        frames.push((bytes[3], bytes[4]));
        bytes = &bytes[(9 + len).min(bytes.len())..];
    }
    frames
}

const PING: u8 = 6;
const GOAWAY: u8 = 7;
const ACK: u8 = 1;

#[test]
fn an_unresponsive_http2_client_is_closed_at_the_keep_alive_timeout() {
    paused_runtime().block_on(async {
        let (mut client, server) = UnixStream::pair().unwrap();
        let served = serve_pinging(server);
        let start = Instant::now();
        // The client preface and an empty SETTINGS frame; then the client
        // neither reads nor answers anything.
        client
            .write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\0\0\0\x04\0\0\0\0\0")
            .await
            .unwrap();
        let error = served.await.unwrap().unwrap_err();
        assert!(error.is_timeout(), "{error}");
        assert_eq!(start.elapsed(), INTERVAL + TIMEOUT);
        let mut sent = Vec::new();
        client.read_to_end(&mut sent).await.unwrap();
        let frames = frames(&sent);
        assert!(frames.contains(&(PING, 0)), "no ping in {frames:?}");
        assert_eq!(
            frames.last().map(|&(kind, _)| kind),
            Some(GOAWAY),
            "{frames:?}"
        );
    });
}

#[test]
fn an_http2_client_answering_pings_stays_connected_for_an_hour() {
    paused_runtime().block_on(async {
        let (client, server) = UnixStream::pair().unwrap();
        let served = serve_pinging(server);
        let (mut sender, connection) =
            hyper::client::conn::http2::handshake(Executor::new(), Io::new(client))
                .await
                .unwrap();
        let connection = rt::spawn(connection);
        let response = sender.send_request(request("GET", "/", "")).await.unwrap();
        assert_eq!(body_of(response).await, "hello");

        // An hour of quiet: 360 pings, each answered by the client's
        // connection task, on the paused clock.
        let start = Instant::now();
        rt::time::sleep(Duration::from_secs(3600)).await;
        assert_eq!(start.elapsed(), Duration::from_secs(3600));
        assert!(!served.is_finished(), "the server gave up on a live client");
        sender.ready().await.unwrap();
        let response = sender.send_request(request("GET", "/", "")).await.unwrap();
        assert_eq!(body_of(response).await, "hello");

        drop(sender);
        connection.await.unwrap().unwrap();
        served.await.unwrap().unwrap();
    });
}

#[test]
fn frames_reads_types_and_flags() {
    let settings_ack = [0, 0, 0, 4, ACK, 0, 0, 0, 0];
    let ping = [0, 0, 8, PING, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8];
    let bytes = [&settings_ack[..], &ping[..]].concat();
    assert_eq!(frames(&bytes), [(4, ACK), (PING, 0)]);
}
