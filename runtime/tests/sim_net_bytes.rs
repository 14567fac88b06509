//! The `bytes` receives of `UdpSocket` (`recv_buf`, `recv_buf_from`,
//! `try_recv_buf`, `try_recv_buf_from`) inside a simulation: into the
//! buffer's spare chunk, the sender reported, a datagram longer than the
//! chunk cut to it, `WouldBlock` with nothing queued, as on a real socket.

#![cfg(all(feature = "sim", feature = "bytes"))]

use bytes::BytesMut;
use rt::net::UdpSocket;
use rt::sim::Sim;
use std::io;
use std::net::SocketAddr;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

#[test]
fn the_bytes_receives_fill_the_spare_chunk_on_a_simulated_socket() {
    let mut sim = Sim::new(1);
    sim.client("solo", async {
        let a = UdpSocket::bind("0.0.0.0:0").await?;
        let b = UdpSocket::bind("0.0.0.0:0").await?;
        a.connect(b.local_addr()?).await?;
        b.connect(a.local_addr()?).await?;
        let mut buf = BytesMut::with_capacity(64);
        let none = b.try_recv_buf(&mut buf).unwrap_err();
        assert_eq!(none.kind(), io::ErrorKind::WouldBlock);
        let none = b.try_recv_buf_from(&mut buf).unwrap_err();
        assert_eq!(none.kind(), io::ErrorKind::WouldBlock);
        assert!(buf.is_empty());

        a.send(b"ping").await?;
        assert_eq!(b.recv_buf(&mut buf).await?, 4);
        a.send(b"pong").await?;
        let (n, from): (usize, SocketAddr) = b.recv_buf_from(&mut buf).await?;
        assert_eq!((n, from), (4, a.local_addr()?));
        assert_eq!(&buf[..], b"pingpong");

        a.send(b"now").await?;
        b.readable().await?;
        assert_eq!(b.try_recv_buf(&mut buf).unwrap(), 3);
        a.send(b"then").await?;
        b.readable().await?;
        assert_eq!(b.try_recv_buf_from(&mut buf)?, (4, a.local_addr()?));
        assert_eq!(&buf[..], b"pingpongnowthen");

        // Longer than the spare chunk: cut to it, the rest discarded.
        let mut small = [0u8; 3];
        let mut room = &mut small[..];
        a.send(b"truncated").await?;
        assert_eq!(b.recv_buf(&mut room).await?, 3);
        assert_eq!(&small, b"tru");
        a.send(b"next").await?;
        let mut buf = Vec::with_capacity(16);
        assert_eq!(b.recv_buf(&mut buf).await?, 4);
        assert_eq!(buf, b"next");
        Ok::<_, BoxError>(())
    });
    sim.run().unwrap();
}
