//! A UDP ping-pong of `UDP_PING_ROUNDS` round trips (default 10,000)
//! between two sockets on 127.0.0.1, on a current-thread runtime: four
//! I/O calls (`send_to`, `recv_from` on each side) per round. For
//! callgrind A/B runs of what a build with rt's `sim` feature adds to
//! each I/O call (the dispatch of `net/udp/dispatch.rs`):
//!
//! ```text
//! cargo build --release -p rt --example udp_ping_loop [--features sim]
//! valgrind --tool=callgrind target/release/examples/udp_ping_loop
//! ```

fn main() {
    let rounds: usize = std::env::var("UDP_PING_ROUNDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10_000);
    let runtime = rt::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async move {
        let a = rt::net::UdpSocket::bind("127.0.0.1:0")
            .await
            .expect("bind a");
        let b = rt::net::UdpSocket::bind("127.0.0.1:0")
            .await
            .expect("bind b");
        let b_addr = b.local_addr().unwrap();
        let echo = rt::spawn(async move {
            let mut buf = [0; 64];
            for _ in 0..rounds {
                let (n, from) = b.recv_from(&mut buf).await.expect("b recv");
                b.send_to(&buf[..n], from).await.expect("b send");
            }
        });
        let mut buf = [0; 64];
        for i in 0..rounds {
            a.send_to(&i.to_le_bytes(), b_addr).await.expect("a send");
            let (n, from) = a.recv_from(&mut buf).await.expect("a recv");
            assert_eq!((n, from), (8, b_addr));
        }
        echo.await.expect("the echo task");
    });
}
