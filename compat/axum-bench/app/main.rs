//! The axum hello app that `compat/axum-bench/` builds twice, on real
//! tokio (`tokio/Cargo.toml`) and with tokio patched to rt's facade
//! (`rt/Cargo.toml`), from this one source.
//!
//! `axum::serve` on a `tokio::net::TcpListener` bound to an ephemeral port
//! of 127.0.0.1, a multi-thread runtime with `WORKERS` workers (the first
//! argument; 2 by default), `TCP_NODELAY` on every connection (as
//! `http_load`'s hyper servers). It prints `port <N>` once listening and
//! exits when its stdin closes: the protocol of `http_load`'s servers,
//! whose driver (`--axum DIR`) loads it.

use axum::Router;
use axum::routing::get;
use axum::serve::ListenerExt;
use std::io::{self, Read, Write};

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
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
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
