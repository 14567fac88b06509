//! The TCP and UDP workload shapes, written once over a crate path and
//! expanded for rt (`rt_side`) and tokio (`tokio_side`). Shared by the
//! criterion `net` bench and the `ab` example, so both measure the same
//! text.
//!
//! The only runtime-specific line is how each side sets a zero linger
//! (closing with a reset, so a run leaves no `TIME_WAIT` sockets that would
//! use up loopback ports).

use std::time::Duration;

/// Open connections during the echo workloads.
pub(crate) const CONNECTIONS: usize = 16;
/// Round trips per connection per iteration.
pub(crate) const ROUNDS_SMALL: usize = 50;
pub(crate) const ROUNDS_LARGE: usize = 8;
pub(crate) const SMALL: usize = 64;
pub(crate) const LARGE: usize = 64 * 1024;
/// Connections accepted per iteration, and the client tasks opening them.
pub(crate) const ACCEPTS: usize = 64;
pub(crate) const CONNECTORS: usize = 4;
/// Bytes each way through the proxy per iteration, and the chunk size of
/// the client's writes and every read and write outside the proxy.
pub(crate) const PROXY_TOTAL: usize = 256 << 20;
pub(crate) const PROXY_CHUNK: usize = 64 << 10;
/// Datagrams sent per iteration of the shared-socket UDP workload, the
/// receiver tasks sharing the socket, and how many datagrams may be sent
/// and not yet received (so a full receive buffer never drops one).
pub(crate) const DATAGRAMS: usize = 2_000;
pub(crate) const RECEIVERS: usize = 4;
pub(crate) const WINDOW: usize = 32;

pub(crate) fn rt_zero_linger(stream: &rt::net::TcpStream) -> std::io::Result<()> {
    stream.set_linger(Some(Duration::ZERO))
}

pub(crate) fn tokio_zero_linger(stream: &tokio::net::TcpStream) -> std::io::Result<()> {
    stream.set_zero_linger()
}

/// The workloads over one crate's `net`, `io` (its `AsyncReadExt` /
/// `AsyncWriteExt`) and `spawn`.
macro_rules! net_workloads {
    ($side:ident, $krate:ident, $zero_linger:ident) => {
        pub(crate) mod $side {
            use super::{CONNECTIONS, CONNECTORS, PROXY_CHUNK, RECEIVERS, SMALL, WINDOW};
            use std::net::SocketAddr;
            use std::sync::Arc;
            use $krate::io::{AsyncReadExt, AsyncWriteExt};
            use $krate::net::{TcpListener, TcpStream, UdpSocket};
            use $krate::sync::Semaphore;

            /// Echoes in reads of up to `len` bytes until the client
            /// closes its end, then closes this end (a client that already
            /// left makes that fail, which does not matter).
            async fn echo(mut stream: TcpStream, len: usize) {
                let mut buf = vec![0; len];
                loop {
                    let n = stream.read(&mut buf).await.expect("echo read");
                    if n == 0 {
                        let _ = stream.shutdown().await;
                        return;
                    }
                    stream.write_all(&buf[..n]).await.expect("echo write");
                }
            }

            /// Opens `CONNECTIONS` connections, each with an echo task for
            /// messages of `len` bytes on the server side; returns the
            /// client ends.
            pub(crate) async fn connect_echo(len: usize) -> Vec<TcpStream> {
                let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
                let addr = listener.local_addr().expect("local_addr");
                let server = $krate::spawn(async move {
                    for _ in 0..CONNECTIONS {
                        let (stream, _) = listener.accept().await.expect("accept");
                        stream.set_nodelay(true).expect("set_nodelay");
                        drop($krate::spawn(echo(stream, len)));
                    }
                });
                let mut clients = Vec::with_capacity(CONNECTIONS);
                for _ in 0..CONNECTIONS {
                    let stream = TcpStream::connect(addr).await.expect("connect");
                    stream.set_nodelay(true).expect("set_nodelay");
                    clients.push(stream);
                }
                server.await.expect("accept task");
                clients
            }

            /// One client task per connection, `rounds` round trips of
            /// `len` bytes each; gives the connections back for the next
            /// iteration.
            pub(crate) async fn echo_rounds(
                clients: Vec<TcpStream>,
                len: usize,
                rounds: usize,
            ) -> Vec<TcpStream> {
                let tasks: Vec<_> = clients
                    .into_iter()
                    .map(|mut stream| {
                        $krate::spawn(async move {
                            let message = vec![7u8; len];
                            let mut echoed = vec![0u8; len];
                            for _ in 0..rounds {
                                if len <= SMALL {
                                    stream.write_all(&message).await.expect("write");
                                    stream.read_exact(&mut echoed).await.expect("read");
                                } else {
                                    // Large messages: read while writing, or
                                    // both ends could block on full buffers.
                                    let (mut read, mut write) = TcpStream::split(&mut stream);
                                    let (written, read) = futures_lite::future::zip(
                                        write.write_all(&message),
                                        read.read_exact(&mut echoed),
                                    )
                                    .await;
                                    written.expect("write");
                                    read.expect("read");
                                }
                            }
                            stream
                        })
                    })
                    .collect();
                let mut clients = Vec::with_capacity(tasks.len());
                for task in tasks {
                    clients.push(task.await.expect("client task"));
                }
                clients
            }

            /// Starts an echo server (64 KiB reads, until end-of-file,
            /// then it closes its side) and a proxy in front of it that
            /// forwards each connection with `io::copy_bidirectional`;
            /// returns the proxy's address. Both run until the runtime is
            /// dropped.
            pub(crate) async fn start_proxy() -> SocketAddr {
                let upstream = TcpListener::bind("127.0.0.1:0").await.expect("bind");
                let upstream_addr = upstream.local_addr().expect("local_addr");
                drop($krate::spawn(async move {
                    loop {
                        let (stream, _) = upstream.accept().await.expect("accept");
                        drop($krate::spawn(echo(stream, PROXY_CHUNK)));
                    }
                }));
                let proxy = TcpListener::bind("127.0.0.1:0").await.expect("bind");
                let proxy_addr = proxy.local_addr().expect("local_addr");
                drop($krate::spawn(async move {
                    loop {
                        let (mut inbound, _) = proxy.accept().await.expect("accept");
                        drop($krate::spawn(async move {
                            let mut outbound =
                                TcpStream::connect(upstream_addr).await.expect("connect");
                            $krate::io::copy_bidirectional(&mut inbound, &mut outbound)
                                .await
                                .expect("copy_bidirectional");
                        }));
                    }
                }));
                proxy_addr
            }

            /// One connection through the proxy: `total` bytes written in
            /// `PROXY_CHUNK` writes, then a half-close; the echo read back
            /// concurrently until end-of-file.
            pub(crate) async fn proxy_transfer(proxy: SocketAddr, total: usize) {
                let stream = TcpStream::connect(proxy).await.expect("connect");
                let (mut read, mut write) = stream.into_split();
                let writer = $krate::spawn(async move {
                    let chunk = vec![7u8; PROXY_CHUNK];
                    let mut left = total;
                    while left > 0 {
                        let n = left.min(PROXY_CHUNK);
                        write.write_all(&chunk[..n]).await.expect("write");
                        left -= n;
                    }
                    write.shutdown().await.expect("shutdown");
                    write
                });
                let mut buf = vec![0u8; PROXY_CHUNK];
                let mut received = 0;
                loop {
                    let n = read.read(&mut buf).await.expect("read");
                    if n == 0 {
                        break;
                    }
                    received += n;
                }
                assert_eq!(received, total, "bytes back through the proxy");
                drop(writer.await.expect("writer task"));
            }

            pub(crate) async fn bind() -> (Arc<TcpListener>, SocketAddr) {
                let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
                let addr = listener.local_addr().expect("local_addr");
                (Arc::new(listener), addr)
            }

            /// Accepts `accepts` connections while `CONNECTORS` tasks open
            /// them. Each client closes with a reset as soon as it is
            /// connected; the server ends stay open until the batch is
            /// done, so no reset reaches a client still connecting.
            pub(crate) async fn accept_batch(
                listener: Arc<TcpListener>,
                addr: SocketAddr,
                accepts: usize,
            ) {
                let server = $krate::spawn(async move {
                    let mut accepted = Vec::with_capacity(accepts);
                    for _ in 0..accepts {
                        let (stream, _) = listener.accept().await.expect("accept");
                        super::$zero_linger(&stream).expect("set linger");
                        accepted.push(stream);
                    }
                    accepted
                });
                let clients: Vec<_> = (0..CONNECTORS)
                    .map(|_| {
                        $krate::spawn(async move {
                            for _ in 0..accepts / CONNECTORS {
                                let stream = TcpStream::connect(addr).await.expect("connect");
                                super::$zero_linger(&stream).expect("set linger");
                            }
                        })
                    })
                    .collect();
                for client in clients {
                    client.await.expect("connect task");
                }
                drop(server.await.expect("accept task"));
            }

            /// A receiving socket to share, and a socket connected to it.
            pub(crate) async fn udp_pair() -> (Arc<UdpSocket>, UdpSocket) {
                let receiver = UdpSocket::bind("127.0.0.1:0").await.expect("bind");
                let sender = UdpSocket::bind("127.0.0.1:0").await.expect("bind");
                let to = receiver.local_addr().expect("local_addr");
                sender.connect(to).await.expect("connect");
                (Arc::new(receiver), sender)
            }

            /// `RECEIVERS` tasks wait in `recv_from` on one shared socket
            /// while this task sends it `datagrams` datagrams of 64 B, at
            /// most `WINDOW` of them not yet received, then one empty
            /// datagram per receiver to stop it.
            pub(crate) async fn udp_shared_recv(
                receiver: &Arc<UdpSocket>,
                sender: &UdpSocket,
                datagrams: usize,
            ) {
                let window = Arc::new(Semaphore::new(WINDOW));
                let receivers: Vec<_> = (0..RECEIVERS)
                    .map(|_| {
                        let (receiver, window) = (receiver.clone(), window.clone());
                        $krate::spawn(async move {
                            let mut buf = [0u8; 2 * SMALL];
                            let mut received = 0;
                            loop {
                                let (n, _) = receiver.recv_from(&mut buf).await.expect("recv_from");
                                window.add_permits(1);
                                if n == 0 {
                                    return received;
                                }
                                received += 1;
                            }
                        })
                    })
                    .collect();
                let message = [7u8; SMALL];
                for _ in 0..datagrams {
                    window.acquire().await.expect("never closed").forget();
                    sender.send(&message).await.expect("send");
                }
                for _ in 0..RECEIVERS {
                    window.acquire().await.expect("never closed").forget();
                    sender.send(&[]).await.expect("send");
                }
                let mut received = 0;
                for task in receivers {
                    received += task.await.expect("receiver task");
                }
                assert_eq!(received, datagrams, "every datagram received once");
            }
        }
    };
}

net_workloads!(rt_side, rt, rt_zero_linger);
net_workloads!(tokio_side, tokio, tokio_zero_linger);
