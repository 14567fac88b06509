//! The axum hello app that `compat/axum-bench/` builds twice, on real
//! tokio (`tokio/Cargo.toml`) and with tokio patched to rt's facade
//! (`rt/Cargo.toml`), from this one source.
//!
//! `axum::serve` on a `tokio::net::TcpListener` bound to an ephemeral port
//! of 127.0.0.1 with a `BACKLOG` listen backlog (`SO_REUSEADDR`; the
//! kernel caps the backlog at `net.core.somaxconn`), a multi-thread
//! runtime with `WORKERS` workers (the first argument; 2 by default),
//! `TCP_NODELAY` on every connection (as `http_load`'s hyper servers,
//! whose listener is the same: `server::BACKLOG` there). It prints `port <N>` once listening and
//! exits when its stdin closes: the protocol of `http_load`'s servers,
//! whose driver (`--axum DIR`) loads it.

use axum::Router;
use axum::routing::get;
use axum::serve::ListenerExt;
use std::io::{self, Read, Write};

/// The listen backlog, `http_load`'s servers' own: a burst of 10,000
/// connections (its scale measurement) does not overflow the queue.
const BACKLOG: u32 = 16_384;

fn main() -> io::Result<()> {
    let workers = match std::env::args().nth(1) {
        None => 2,
        Some(arg) => arg
            .parse()
            .ok()
            .filter(|&n: &usize| n > 0)
            .ok_or_else(|| io::Error::other(format!("bad worker count {arg:?}")))?,
    };
    std::thread::spawn(|| {
        // Whatever ends the read (EOF, an error), the parent is gone.
        let _ = io::stdin().read_to_end(&mut Vec::new());
        std::process::exit(0);
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let socket = tokio::net::TcpSocket::new_v4()?;
        socket.set_reuseaddr(true)?;
        socket.bind("127.0.0.1:0".parse().expect("an address"))?;
        let listener = socket.listen(BACKLOG)?;
        let port = listener.local_addr()?.port();
        let mut stdout = io::stdout().lock();
        writeln!(stdout, "port {port}")?;
        stdout.flush()?;
        drop(stdout);
        let listener = listener.tap_io(|tcp| {
            // A connection that cannot take the option is served anyway.
            let _ = tcp.set_nodelay(true);
        });
        let app = Router::new().route("/", get(|| async { "Hello, World!" }));
        axum::serve(listener, app).await
    })
}
