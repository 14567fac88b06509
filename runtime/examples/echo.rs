//! A TCP echo server on 127.0.0.1.
//!
//! ```text
//! cargo run --release --example echo            # port 8080
//! cargo run --release --example echo -- 9000    # or PORT=9000
//! ```
//!
//! Each connection is echoed on its own task until the client shuts down
//! its write side (a half-closed connection still gets every byte back),
//! then the server closes its side. A connection reset or any other error
//! ends that connection only. When `accept` fails because the process is
//! out of descriptors (`EMFILE`/`ENFILE`) or memory, the server logs it and
//! backs off (doubling up to one second) instead of spinning or exiting.

use rt::io::{AsyncReadExt, AsyncWriteExt};
use rt::net::{TcpListener, TcpStream};
use std::io;
use std::net::SocketAddr;
use std::time::Duration;

fn port() -> u16 {
    let arg = std::env::args()
        .nth(1)
        .or_else(|| std::env::var("PORT").ok());
    match arg {
        None => 8080,
        Some(text) => text.parse().unwrap_or_else(|_| {
            eprintln!("echo: `{text}` is not a port number (0-65535)");
            std::process::exit(2);
        }),
    }
}

fn main() -> io::Result<()> {
    let runtime = rt::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(serve(SocketAddr::from(([127, 0, 0, 1], port()))))
}

async fn serve(addr: SocketAddr) -> io::Result<()> {
    let listener = TcpListener::bind(addr).await?;
    println!("echo: listening on {}", listener.local_addr()?);
    let mut backoff = Duration::from_millis(10);
    loop {
        match listener.accept().await {
            Ok((stream, peer)) => {
                backoff = Duration::from_millis(10);
                rt::spawn(async move {
                    if let Err(e) = echo(stream).await {
                        eprintln!("echo: {peer}: {e}");
                    }
                });
            }
            Err(e) if is_resource_shortage(&e) => {
                eprintln!("echo: accept: {e}; retrying in {backoff:?}");
                sleep(backoff).await;
                backoff = (backoff * 2).min(Duration::from_secs(1));
            }
            // A connection that failed before we got to it (e.g. aborted by
            // the client): nothing to do but take the next one.
            Err(e) => eprintln!("echo: accept: {e}"),
        }
    }
}

/// Echoes until the client half-closes, then closes our side.
async fn echo(mut stream: TcpStream) -> io::Result<()> {
    stream.set_nodelay(true)?;
    let mut buf = vec![0u8; 16 << 10];
    loop {
        let n = stream.read(&mut buf).await?;
        if n == 0 {
            break;
        }
        stream.write_all(&buf[..n]).await?;
    }
    stream.close().await
}

fn is_resource_shortage(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EMFILE | libc::ENFILE | libc::ENOBUFS | libc::ENOMEM)
    )
}

/// Waits `duration` without blocking a worker: a helper thread sleeps and
/// completes a oneshot. (Back-off is rare; it does not need the timer.)
async fn sleep(duration: Duration) {
    let (tx, rx) = futures_channel::oneshot::channel();
    std::thread::spawn(move || {
        std::thread::sleep(duration);
        // The receiver only goes away if the server stopped waiting.
        let _ = tx.send(());
    });
    // The sender only drops after sending.
    let _ = rx.await;
}
