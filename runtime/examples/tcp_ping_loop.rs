//! A TCP ping-pong of `TCP_PING_ROUNDS` round trips (default 10,000)
//! over one loopback connection, on a current-thread runtime: four I/O
//! calls (`write_all` and `read_exact` of 8 bytes on each side) per
//! round. For callgrind A/B runs of what a build with rt's `sim` feature
//! adds to each I/O call (the dispatch of `net/tcp/dispatch.rs`):
//!
//! ```text
//! cargo build --release -p rt --example tcp_ping_loop [--features sim]
//! valgrind --tool=callgrind target/release/examples/tcp_ping_loop
//! ```

use rt::io::{AsyncReadExt, AsyncWriteExt};

fn main() {
    let rounds: usize = std::env::var("TCP_PING_ROUNDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10_000);
    let runtime = rt::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async move {
        let listener = rt::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().unwrap();
        let echo = rt::spawn(async move {
            let (mut stream, _) = listener.accept().await.expect("accept");
            let mut buf = [0; 8];
            for _ in 0..rounds {
                stream.read_exact(&mut buf).await.expect("echo read");
                stream.write_all(&buf).await.expect("echo write");
            }
        });
        let mut stream = rt::net::TcpStream::connect(addr).await.expect("connect");
        stream.set_nodelay(true).expect("nodelay");
        let mut buf = [0; 8];
        for i in 0..rounds {
            stream.write_all(&i.to_le_bytes()).await.expect("write");
            stream.read_exact(&mut buf).await.expect("read");
            assert_eq!(buf, i.to_le_bytes());
        }
        echo.await.expect("the echo task");
    });
}
