//! An HTTP hello server on rt, through hyper and hyper-util.
//!
//! ```text
//! cargo run --release -p rt --features hyper --example http_server                  # 127.0.0.1:3000
//! cargo run --release -p rt --features hyper --example http_server -- 0.0.0.0:8080
//! curl http://127.0.0.1:3000/            # HTTP/1.1
//! curl --http2-prior-knowledge http://127.0.0.1:3000/
//! ```
//!
//! Each connection speaks HTTP/1.1 (keep-alive) or HTTP/2, whichever the
//! client opens with (hyper-util's `auto::Builder`), on its own task.
//! `rt::hyper::Io` hands hyper the socket, `Executor` runs HTTP/2's stream
//! tasks and `Timer` its timeouts on rt.
//!
//! Ctrl-C shuts down gracefully:
//! 1. the listener closes (new connections are refused);
//! 2. every open connection is told to finish: a request in flight gets
//!    its response (HTTP/1.1 with `connection: close`, HTTP/2 with a
//!    GOAWAY), an idle keep-alive connection closes at once;
//! 3. the server waits for them, at most `GRACE`; connections still open
//!    then are dropped with the runtime.
//!
//! Every connection closes lingering (`LingeringIo`): after its last byte
//! the server sends FIN and reads what the client still sends until the
//! client closes too (at most `LINGER`). Closing a socket with unread
//! bytes resets the connection instead, and a reset throws away whatever
//! of the last response the kernel had not sent yet.
//!
//! `serve` and `Draining` are also what `tests/hyper_server.rs` runs.

use futures::future::{self, Either};
use http_body_util::Full;
use hyper::body::{Body, Bytes, Incoming};
use hyper::rt::{Read, ReadBuf, ReadBufCursor, Write};
use hyper::service::{Service, service_fn};
use hyper::{Request, Response};
use hyper_util::server::conn::auto;
use rt::hyper::{Executor, Io, Timer};
use rt::net::{TcpListener, TcpStream};
use rt::sync::watch;
use rt::time::Sleep;
use std::convert::Infallible;
use std::error::Error;
use std::future::{Future, pending};
use std::io::{self, IoSlice};
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use std::time::Duration;

/// How long a graceful shutdown waits for open connections.
const GRACE: Duration = Duration::from_secs(10);

/// How long a closing connection waits for its client to close too.
const LINGER: Duration = Duration::from_secs(2);

#[allow(dead_code)] // `tests/hyper_server.rs` includes this file for `serve`.
fn main() -> io::Result<()> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:3000".to_owned());
    let runtime = rt::runtime::Runtime::new()?;
    runtime.block_on(async {
        let listener = TcpListener::bind(addr.as_str()).await?;
        println!(
            "http_server: listening on http://{}",
            listener.local_addr()?
        );
        let draining = serve(listener, service_fn(hello), ctrl_c()).await;
        println!(
            "http_server: shutting down, waiting up to {GRACE:?} for {} open connection(s)",
            draining.open_connections()
        );
        match draining.finish(GRACE).await {
            Ok(()) => println!("http_server: every connection finished"),
            Err(left) => println!("http_server: {left} connection(s) still open; closing them"),
        }
        Ok(())
    })
}

async fn hello(_request: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    Ok(Response::new(Full::new(Bytes::from_static(
        b"Hello, world!\n",
    ))))
}

/// Completes on the first Ctrl-C (never, if the handler cannot be set).
async fn ctrl_c() {
    if let Err(e) = rt::signal::ctrl_c().await {
        eprintln!("http_server: cannot listen for Ctrl-C ({e}); stop the server another way");
        pending::<()>().await;
    }
}

/// Accepts connections on `listener` and serves each with `service`
/// (HTTP/1.1 or HTTP/2) on its own task, until `shutdown` completes. Then
/// it closes the listener and tells every open connection to finish
/// (steps 1 and 2 of the module docs) and returns: wait for them with
/// [`Draining::finish`].
pub(crate) async fn serve<S, B>(
    listener: TcpListener,
    service: S,
    shutdown: impl Future<Output = ()>,
) -> Draining
where
    S: Service<Request<Incoming>, Response = Response<B>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Into<Box<dyn Error + Send + Sync>>,
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn Error + Send + Sync>>,
{
    let mut builder = auto::Builder::new(Executor::new());
    builder.http1().timer(Timer::new()).keep_alive(true);
    builder.http2().timer(Timer::new());
    let builder = Arc::new(builder);
    // Every connection task holds a receiver: `true` means "finish", and
    // the last receiver dropped means every connection has finished.
    let (stop, _) = watch::channel(false);

    let mut shutdown = pin!(shutdown);
    let mut backoff = Duration::from_millis(10);
    loop {
        let accepted = {
            let accept = pin!(listener.accept());
            match future::select(shutdown.as_mut(), accept).await {
                Either::Left(((), _)) => break,
                Either::Right((accepted, _)) => accepted,
            }
        };
        match accepted {
            Ok((stream, _peer)) => {
                backoff = Duration::from_millis(10);
                let builder = Arc::clone(&builder);
                let service = service.clone();
                let mut stop = stop.subscribe();
                // One connection: served until it ends, or finished
                // gracefully once `stop` turns `true`.
                rt::spawn(async move {
                    // Responses are small and latency matters more than
                    // packet count.
                    if let Err(e) = stream.set_nodelay(true) {
                        eprintln!("http_server: set_nodelay: {e}");
                    }
                    let mut connection =
                        pin!(builder.serve_connection(LingeringIo::new(stream), service));
                    // The stop signal is polled first, so a connection told
                    // to stop while a response is ready still closes after
                    // that response.
                    let stopped = pin!(stop_requested(&mut stop));
                    let result = match future::select(stopped, connection.as_mut()).await {
                        Either::Left(((), _)) => {
                            connection.as_mut().graceful_shutdown();
                            connection.await
                        }
                        Either::Right((result, _)) => result,
                    };
                    if let Err(e) = result {
                        // A client that leaves mid-request ends its
                        // connection only.
                        eprintln!("http_server: connection: {e}");
                    }
                });
            }
            Err(e) if is_resource_shortage(&e) => {
                // Out of descriptors or memory: retrying at once would spin.
                eprintln!("http_server: accept: {e}; retrying in {backoff:?}");
                rt::time::sleep(backoff).await;
                backoff = (backoff * 2).min(Duration::from_secs(1));
            }
            // A connection that failed before it was accepted (e.g. reset
            // by the client): take the next one.
            Err(e) => eprintln!("http_server: accept: {e}"),
        }
    }
    drop(listener);
    // Only fails with no connection left to tell.
    let _ = stop.send(true);
    Draining { stop }
}

/// Completes once `stop` is `true` (or its sender is gone).
async fn stop_requested(stop: &mut watch::Receiver<bool>) {
    while !*stop.borrow_and_update() {
        if stop.changed().await.is_err() {
            return;
        }
    }
}

/// A server that stopped accepting and told its connections to finish.
#[derive(Debug)]
pub(crate) struct Draining {
    stop: watch::Sender<bool>,
}

impl Draining {
    /// How many connections are still open.
    pub(crate) fn open_connections(&self) -> usize {
        self.stop.receiver_count()
    }

    /// Waits until every connection finished (`Ok`), or `grace` passed
    /// (`Err` with how many are still open).
    pub(crate) async fn finish(self, grace: Duration) -> Result<(), usize> {
        match rt::time::timeout(grace, self.stop.closed()).await {
            Ok(()) => Ok(()),
            Err(_elapsed) => Err(self.stop.receiver_count()),
        }
    }
}

fn is_resource_shortage(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EMFILE | libc::ENFILE | libc::ENOBUFS | libc::ENOMEM)
    )
}

/// A connection's socket as hyper's I/O, closing lingering: hyper's
/// shutdown (after the last response) sends FIN, then reads and discards
/// until the client closes its side, the client resets, or `LINGER`
/// passes. The socket is then never closed with the client's bytes unread
/// (pipelined requests, HTTP/2 WINDOW_UPDATEs and acks in flight), which
/// would reset the connection and lose the unsent end of the response.
struct LingeringIo {
    io: Io<TcpStream>,
    /// Set once FIN is sent: the end of the wait for the client.
    linger: Option<Pin<Box<Sleep>>>,
}

impl LingeringIo {
    fn new(stream: TcpStream) -> LingeringIo {
        LingeringIo {
            io: Io::new(stream),
            linger: None,
        }
    }
}

impl Read for LingeringIo {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: ReadBufCursor<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl Write for LingeringIo {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let linger = match &mut this.linger {
            Some(linger) => linger,
            None => {
                ready!(Pin::new(&mut this.io).poll_shutdown(cx))?;
                this.linger.insert(Box::pin(rt::time::sleep(LINGER)))
            }
        };
        let mut discard = [0; 4096];
        loop {
            if linger.as_mut().poll(cx).is_ready() {
                // The client kept its side open: close anyway.
                return Poll::Ready(Ok(()));
            }
            let mut read = ReadBuf::new(&mut discard);
            match Pin::new(&mut this.io).poll_read(cx, read.unfilled()) {
                // The client closed its side: nothing is left unread.
                Poll::Ready(Ok(())) if read.filled().is_empty() => return Poll::Ready(Ok(())),
                Poll::Ready(Ok(())) => {}
                // A reset: the connection is gone, nothing to protect.
                Poll::Ready(Err(_reset)) => return Poll::Ready(Ok(())),
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}
