//! TCP on loopback: rt vs tokio, `NUM_WORKERS` worker threads each, with
//! both ends of every connection inside the runtime under test.
//!
//! - `net_echo_64b`, `net_echo_64k`: `CONNECTIONS` connections set up once
//!   per runtime, each served by its own echo task; one iteration runs one
//!   client task per connection, each doing `ROUNDS_*` round trips (write a
//!   message, read the echo back) of 64 B or 64 KiB;
//! - `net_accept`: one iteration accepts `ACCEPTS` connections on a
//!   listener bound once, while `CONNECTORS` client tasks connect
//!   `ACCEPTS / CONNECTORS` times each, in sequence.
//!
//! The networking APIs differ by crate path only, so one macro writes both
//! sides from the same text (`rt_side`, `tokio_side`): the shapes cannot
//! drift apart. The only runtime-specific line is how each sets a zero
//! linger (closing with a reset, so a bench run leaves no `TIME_WAIT`
//! sockets that would use up loopback ports).

mod support;

use criterion::{Criterion, criterion_group, criterion_main};
use std::time::Duration;
use support::{BenchRuntime, Flavor, NUM_WORKERS, Rt, Tokio};

const FLAVOR: Flavor = Flavor::MultiThread(NUM_WORKERS);

/// Open connections during the echo workloads.
const CONNECTIONS: usize = 16;
/// Round trips per connection per iteration.
const ROUNDS_SMALL: usize = 50;
const ROUNDS_LARGE: usize = 8;
const SMALL: usize = 64;
const LARGE: usize = 64 * 1024;
/// Connections accepted per iteration, and the client tasks opening them.
const ACCEPTS: usize = 64;
const CONNECTORS: usize = 4;

fn rt_zero_linger(stream: &rt::net::TcpStream) -> std::io::Result<()> {
    stream.set_linger(Some(Duration::ZERO))
}

fn tokio_zero_linger(stream: &tokio::net::TcpStream) -> std::io::Result<()> {
    stream.set_zero_linger()
}

/// The workloads over one crate's `net`, `io` (its `AsyncReadExt` /
/// `AsyncWriteExt`) and `spawn`.
macro_rules! net_workloads {
    ($side:ident, $krate:ident, $zero_linger:ident) => {
        mod $side {
            use super::{CONNECTIONS, CONNECTORS, SMALL};
            use std::net::SocketAddr;
            use std::sync::Arc;
            use $krate::io::{AsyncReadExt, AsyncWriteExt};
            use $krate::net::{TcpListener, TcpStream};

            /// Echoes until the client closes its end.
            async fn echo(mut stream: TcpStream, len: usize) {
                let mut buf = vec![0; len];
                loop {
                    let n = stream.read(&mut buf).await.expect("echo read");
                    if n == 0 {
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
        }
    };
}

net_workloads!(rt_side, rt, rt_zero_linger);
net_workloads!(tokio_side, tokio, tokio_zero_linger);

/// Registers one echo group: messages of `$len` bytes, `$rounds` round trips per
/// connection per iteration.
macro_rules! echo_group {
    ($c:expr, $name:expr, $len:expr, $rounds:expr) => {{
        let mut group = $c.benchmark_group($name);
        support::configure(&mut group);
        echo_group!(@one group, Rt, rt_side, $len, $rounds);
        echo_group!(@one group, Tokio, tokio_side, $len, $rounds);
        group.finish();
    }};
    (@one $group:ident, $runtime:ty, $side:ident, $len:expr, $rounds:expr) => {{
        let runtime = <$runtime>::new(FLAVOR);
        let mut clients = Some(runtime.block_on($side::connect_echo($len)));
        $group.bench_function(<$runtime>::NAME, |b| {
            b.iter(|| {
                let open = clients.take().expect("connections");
                clients = Some(runtime.block_on($side::echo_rounds(open, $len, $rounds)));
            })
        });
        // Closing the clients ends the echo tasks before the runtime goes.
        drop(clients);
        drop(runtime);
    }};
}

fn accept_group(c: &mut Criterion) {
    let mut group = c.benchmark_group("net_accept");
    support::configure(&mut group);
    {
        let runtime = Rt::new(FLAVOR);
        let (listener, addr) = runtime.block_on(rt_side::bind());
        group.bench_function(Rt::NAME, |b| {
            b.iter(|| runtime.block_on(rt_side::accept_batch(listener.clone(), addr, ACCEPTS)))
        });
        drop(listener);
    }
    {
        let runtime = Tokio::new(FLAVOR);
        let (listener, addr) = runtime.block_on(tokio_side::bind());
        group.bench_function(Tokio::NAME, |b| {
            b.iter(|| runtime.block_on(tokio_side::accept_batch(listener.clone(), addr, ACCEPTS)))
        });
        drop(listener);
    }
    group.finish();
}

fn net(c: &mut Criterion) {
    echo_group!(c, "net_echo_64b", SMALL, ROUNDS_SMALL);
    echo_group!(c, "net_echo_64k", LARGE, ROUNDS_LARGE);
    accept_group(c);
}

criterion_group!(benches, net);
criterion_main!(benches);
