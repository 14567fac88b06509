//! `rt::hyper::Compat` over a futures-io stream that misbehaves the way
//! real ones do (a TLS stream, a stream behind a rate limiter): a
//! deterministic script makes reads and writes short, makes some of them
//! `Pending` (woken at once, or later by another task), and moves vectored
//! writes across slice boundaries, stopping mid-slice. HTTP/1.1 with and
//! without hyper's vectored writes, and HTTP/2 with concurrent streams,
//! must carry every byte intact on both schedulers.

mod support;
#[path = "support/http.rs"]
mod support_http;

use futures_io::{AsyncRead, AsyncWrite};
use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::{http1, http2};
use hyper::service::service_fn;
use hyper::{Request, Response};
use rt::hyper::{Compat, Executor, Timer};
use rt::net::UnixStream;
use std::convert::Infallible;
use std::io::{self, IoSlice};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};
use support::{Pattern, on_both};
use support_http::{body_of, request};

/// What a script did, to show it did misbehave.
#[derive(Debug, Default)]
struct Misbehaviour {
    pendings: AtomicUsize,
    short_reads: AtomicUsize,
    short_writes: AtomicUsize,
    /// Vectored writes that ended inside a slice after the first.
    split_vectored_writes: AtomicUsize,
}

impl Misbehaviour {
    fn count(counter: &AtomicUsize) {
        counter.fetch_add(1, Ordering::Relaxed);
    }

    fn get(counter: &AtomicUsize) -> usize {
        counter.load(Ordering::Relaxed)
    }
}

/// A stream whose every read and write follows a seeded script (see the
/// module docs) before reaching the Unix stream underneath.
struct Scripted {
    inner: UnixStream,
    /// xorshift state: the script.
    state: u64,
    seen: Arc<Misbehaviour>,
}

impl Scripted {
    fn new(inner: UnixStream, seed: u64, seen: Arc<Misbehaviour>) -> Scripted {
        Scripted {
            inner,
            state: seed | 1,
            seen,
        }
    }

    fn next(&mut self) -> u64 {
        let mut x = self.state;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.state = x;
        x
    }

    /// One call in four is `Pending`: half of those wake the task at once,
    /// half from another task once it has run.
    fn maybe_pending(&mut self, cx: &mut Context<'_>) -> bool {
        let roll = self.next() % 8;
        if roll >= 2 {
            return false;
        }
        Misbehaviour::count(&self.seen.pendings);
        if roll == 0 {
            cx.waker().wake_by_ref();
        } else {
            let waker = cx.waker().clone();
            rt::spawn(async move {
                rt::task::yield_now().await;
                waker.wake();
            });
        }
        true
    }

    /// How many bytes of `len` this call may move: often all, often a few
    /// kilobytes, sometimes a handful.
    fn limit(&mut self, len: usize) -> usize {
        let cap = match self.next() % 4 {
            0 => usize::MAX,
            1 => 1 + (self.next() % 8) as usize,
            _ => 1 + (self.next() % 4096) as usize,
        };
        len.min(cap)
    }
}

impl AsyncRead for Scripted {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        if self.maybe_pending(cx) {
            return Poll::Pending;
        }
        let limit = self.limit(buf.len());
        if limit < buf.len() {
            Misbehaviour::count(&self.seen.short_reads);
        }
        Pin::new(&mut self.inner).poll_read(cx, &mut buf[..limit])
    }
}

impl AsyncWrite for Scripted {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if self.maybe_pending(cx) {
            return Poll::Pending;
        }
        let limit = self.limit(buf.len());
        if limit < buf.len() {
            Misbehaviour::count(&self.seen.short_writes);
        }
        Pin::new(&mut self.inner).poll_write(cx, &buf[..limit])
    }

    /// A real vectored write of at most the script's limit: whole slices,
    /// then part of the one where the limit falls.
    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        if self.maybe_pending(cx) {
            return Poll::Pending;
        }
        let total: usize = bufs.iter().map(|buf| buf.len()).sum();
        let mut room = self.limit(total);
        let mut slices = Vec::with_capacity(bufs.len());
        for buf in bufs {
            if room == 0 {
                break;
            }
            let take = buf.len().min(room);
            slices.push(IoSlice::new(&buf[..take]));
            room -= take;
            if take < buf.len() && slices.len() > 1 {
                Misbehaviour::count(&self.seen.split_vectored_writes);
            }
        }
        Pin::new(&mut self.inner).poll_write_vectored(cx, &slices)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.maybe_pending(cx) {
            return Poll::Pending;
        }
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_close(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.maybe_pending(cx) {
            return Poll::Pending;
        }
        Pin::new(&mut self.inner).poll_close(cx)
    }
}

/// A connected pair of scripted streams (client, server), both scripts
/// reporting to `seen`.
fn scripted_pair(seed: u64, seen: &Arc<Misbehaviour>) -> (Compat<Scripted>, Compat<Scripted>) {
    let (client, server) = UnixStream::pair().unwrap();
    (
        Compat::new(Scripted::new(client, seed, Arc::clone(seen))),
        Compat::new(Scripted::new(
            server,
            seed.rotate_left(17) ^ 0x9e37,
            Arc::clone(seen),
        )),
    )
}

/// Answers with the request body.
async fn echo(request: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let body = request.into_body().collect().await.unwrap().to_bytes();
    Ok(Response::new(Full::new(body)))
}

/// `len` pattern bytes from `seed`.
fn pattern(len: usize, seed: u64) -> Bytes {
    let mut body = vec![0u8; len];
    Pattern::new(seed).fill(&mut body);
    Bytes::from(body)
}

const SEEDS: [u64; 4] = [1, 0xdead_beef, 42, 7_777_777];

#[test]
fn http1_over_a_misbehaving_stream_keeps_every_byte_with_and_without_writev() {
    on_both(|| async {
        for writev in [true, false] {
            let seen = Arc::new(Misbehaviour::default());
            for seed in SEEDS {
                let (client, server) = scripted_pair(seed, &seen);
                let (finish, finished) = rt::sync::oneshot::channel::<()>();
                let serving = rt::spawn(async move {
                    let connection = http1::Builder::new()
                        .writev(writev)
                        .timer(Timer::new())
                        .serve_connection(server, service_fn(echo));
                    rt::pin!(connection);
                    rt::select! {
                        served = &mut connection => return served,
                        _ = finished => connection.as_mut().graceful_shutdown(),
                    }
                    connection.await
                });
                let (mut sender, connection) = hyper::client::conn::http1::Builder::new()
                    .writev(writev)
                    .handshake(client)
                    .await
                    .unwrap();
                let connection = rt::spawn(connection);
                // Sizes around hyper's buffer edges, then a large one.
                for (i, len) in [0, 1, 8191, 8192, 8193, 300 << 10].into_iter().enumerate() {
                    let body = pattern(len, seed + i as u64);
                    sender.ready().await.unwrap();
                    let response = sender
                        .send_request(request("POST", "/", body.clone()))
                        .await
                        .unwrap();
                    let echoed = body_of(response).await;
                    assert!(
                        echoed == body,
                        "seed {seed}, writev {writev}: {len} bytes differ"
                    );
                }
                // The server ends the connection, and the client hangs up
                // only after that. The other way round races the script:
                // its `poll_flush` may be `Pending` after the last response
                // is already on the wire, and hyper's server takes an EOF
                // before that flush finishes for a hang-up mid-message
                // (`IncompleteMessage`), though the client had every byte.
                // (Had the server already ended, `serving` tells how.)
                let _ = finish.send(());
                serving.await.unwrap().unwrap();
                drop(sender);
                connection.await.unwrap().unwrap();
            }
            eprintln!("writev {writev}: {seen:?}");
            assert!(Misbehaviour::get(&seen.pendings) > 0);
            assert!(Misbehaviour::get(&seen.short_reads) > 0);
            if writev {
                assert!(Misbehaviour::get(&seen.split_vectored_writes) > 0);
            } else {
                assert!(Misbehaviour::get(&seen.short_writes) > 0);
            }
        }
    });
}

#[test]
fn http2_over_a_misbehaving_stream_keeps_every_byte_of_concurrent_streams() {
    const STREAMS: usize = 16;
    on_both(|| async {
        let seen = Arc::new(Misbehaviour::default());
        for seed in SEEDS {
            let (client, server) = scripted_pair(seed, &seen);
            let serving = rt::spawn(async move {
                http2::Builder::new(Executor::new())
                    .timer(Timer::new())
                    .serve_connection(server, service_fn(echo))
                    .await
            });
            let (sender, connection) =
                hyper::client::conn::http2::handshake(Executor::new(), client)
                    .await
                    .unwrap();
            let connection = rt::spawn(connection);
            let streams: Vec<_> = (0..STREAMS)
                .map(|i| {
                    let mut sender = sender.clone();
                    // Up to 96 KiB: beyond HTTP/2's initial 64 KiB window.
                    let body = pattern(i * (6 << 10) + i, seed ^ i as u64);
                    rt::spawn(async move {
                        let response = sender
                            .send_request(request("POST", "/", body.clone()))
                            .await
                            .unwrap();
                        body_of(response).await == body
                    })
                })
                .collect();
            for (i, stream) in streams.into_iter().enumerate() {
                assert!(stream.await.unwrap(), "seed {seed}: stream {i} differs");
            }
            drop(sender);
            connection.await.unwrap().unwrap();
            // The client hangs up once its streams are done; the server
            // may still have had a frame to send (a window update).
            if let Err(error) = serving.await.unwrap() {
                let kind = std::error::Error::source(&error)
                    .and_then(|cause| cause.downcast_ref::<io::Error>())
                    .map(io::Error::kind);
                assert!(
                    matches!(
                        kind,
                        Some(io::ErrorKind::BrokenPipe | io::ErrorKind::ConnectionReset)
                    ),
                    "seed {seed}: {error:?}"
                );
            }
        }
        eprintln!("{seen:?}");
        assert!(Misbehaviour::get(&seen.pendings) > 0);
        assert!(Misbehaviour::get(&seen.short_reads) > 0);
    });
}
