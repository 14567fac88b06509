//! A TCP proxy: every connection to the listening address is forwarded to
//! the upstream address, both ways, until both sides have closed.
//!
//! ```text
//! cargo run --release --example echo -- 8080 &                         # something to proxy to
//! cargo run --release --example proxy -- 127.0.0.1:8081 127.0.0.1:8080
//! nc 127.0.0.1 8081
//! ```
//!
//! Ported from the tokio idiom: `rt::io::copy_bidirectional` copies both
//! directions at once and passes half-closes through (a client that shuts
//! down its write side makes the proxy shut down its write side upstream,
//! and the reply still flows back). A connection that fails ends only that
//! connection.

use rt::io::AsyncWriteExt;
use rt::net::{TcpListener, TcpStream};
use std::io;

#[rt::main]
async fn main() -> io::Result<()> {
    let mut args = std::env::args().skip(1);
    let listen = args.next().unwrap_or_else(|| "127.0.0.1:8081".to_owned());
    let upstream = args.next().unwrap_or_else(|| "127.0.0.1:8080".to_owned());
    let listener = TcpListener::bind(&listen).await?;
    println!("proxy: {} -> {upstream}", listener.local_addr()?);
    serve(listener, upstream).await
}

/// Accepts connections forever, forwarding each to `upstream` on its own
/// task.
pub(crate) async fn serve(listener: TcpListener, upstream: String) -> io::Result<()> {
    loop {
        let (inbound, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            // A connection that failed before we got to it: take the next.
            Err(e) => {
                eprintln!("proxy: accept: {e}");
                continue;
            }
        };
        let upstream = upstream.clone();
        rt::spawn(async move {
            match forward(inbound, &upstream).await {
                Ok((sent, received)) => {
                    println!("proxy: {peer}: {sent} bytes up, {received} bytes down")
                }
                Err(e) => eprintln!("proxy: {peer}: {e}"),
            }
        });
    }
}

/// Connects to `upstream` and copies both ways; returns the byte counts.
async fn forward(mut inbound: TcpStream, upstream: &str) -> io::Result<(u64, u64)> {
    let mut outbound = match TcpStream::connect(upstream).await {
        Ok(outbound) => outbound,
        Err(e) => {
            // Tell the client by closing its connection.
            let _ = inbound.shutdown().await;
            return Err(io::Error::new(
                e.kind(),
                format!("connecting to {upstream}: {e}"),
            ));
        }
    };
    inbound.set_nodelay(true)?;
    outbound.set_nodelay(true)?;
    rt::io::copy_bidirectional(&mut inbound, &mut outbound).await
}
