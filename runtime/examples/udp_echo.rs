//! A UDP echo service: every datagram is sent back to where it came from.
//!
//! ```text
//! cargo run --example udp_echo            # 127.0.0.1:8082
//! nc -u 127.0.0.1 8082
//! ```

use rt::net::UdpSocket;
use std::io;

#[rt::main]
async fn main() -> io::Result<()> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:8082".to_owned());
    let socket = UdpSocket::bind(&addr).await?;
    println!("udp_echo: listening on {}", socket.local_addr()?);
    serve(socket).await
}

/// Echoes datagrams forever. A failed send (the peer's port was closed, and
/// the OS reported it) is logged and skipped.
pub(crate) async fn serve(socket: UdpSocket) -> io::Result<()> {
    // The largest UDP payload.
    let mut buf = vec![0; 65_507];
    loop {
        let (n, peer) = match socket.recv_from(&mut buf).await {
            Ok(received) => received,
            // An ICMP error from an earlier send surfaces on a later receive.
            Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => continue,
            Err(e) => return Err(e),
        };
        if let Err(e) = socket.send_to(&buf[..n], peer).await {
            eprintln!("udp_echo: {peer}: {e}");
        }
    }
}
