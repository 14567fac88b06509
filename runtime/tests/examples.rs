//! The ported examples (`examples/proxy.rs`, `chat.rs`, `udp_echo.rs`),
//! driven over loopback: each example's `serve` is included from its file
//! and run on a port-0 socket, on every scheduler.

mod support;

#[allow(dead_code)]
#[path = "../examples/chat.rs"]
mod chat;
#[allow(dead_code)]
#[path = "../examples/proxy.rs"]
mod proxy;
#[allow(dead_code)]
#[path = "../examples/udp_echo.rs"]
mod udp_echo;

use rt::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, Lines};
use rt::net::{TcpListener, TcpStream, UdpSocket, tcp};
use std::net::SocketAddr;
use support::block_on_each;

/// Echoes each connection until the client half-closes, then closes.
async fn echo_upstream() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    rt::spawn(async move {
        loop {
            let (mut stream, _) = listener.accept().await.unwrap();
            rt::spawn(async move {
                let (mut read, mut write) = stream.split();
                rt::io::copy(&mut read, &mut write).await.unwrap();
                write.shutdown().await.unwrap();
            });
        }
    });
    addr
}

async fn start_proxy(upstream: String) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    rt::spawn(proxy::serve(listener, upstream));
    addr
}

#[test]
fn proxy_forwards_several_connections_to_an_echo_server() {
    block_on_each(|_| async {
        let upstream = echo_upstream().await;
        let proxy = start_proxy(upstream.to_string()).await;
        let clients: Vec<_> = (0..4u8)
            .map(|i| {
                rt::spawn(async move {
                    let mut stream = TcpStream::connect(proxy).await.unwrap();
                    let sent: Vec<u8> = (0..200_000u32).map(|n| (n as u8) ^ i).collect();
                    let (mut read, mut write) = stream.split();
                    let ((), echoed) = rt::join!(
                        async {
                            write.write_all(&sent).await.unwrap();
                            // Half-close: the proxy passes it to the echo
                            // server, whose close comes back as end-of-file.
                            write.shutdown().await.unwrap();
                        },
                        async {
                            let mut echoed = Vec::new();
                            read.read_to_end(&mut echoed).await.unwrap();
                            echoed
                        },
                    );
                    echoed == sent
                })
            })
            .collect();
        for client in clients {
            assert!(client.await.unwrap(), "a client got back other bytes");
        }
    });
}

#[test]
fn proxy_closes_the_client_when_upstream_refuses() {
    block_on_each(|_| async {
        let closed = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let upstream = closed.local_addr().unwrap();
        drop(closed);
        let proxy = start_proxy(upstream.to_string()).await;
        let mut stream = TcpStream::connect(proxy).await.unwrap();
        let mut got = Vec::new();
        // End-of-file (or a reset), not a hang.
        let _ = stream.read_to_end(&mut got).await;
        assert!(got.is_empty());
    });
}

/// A chat client: its line reader and its write half.
struct ChatClient {
    lines: Lines<BufReader<tcp::OwnedReadHalf>>,
    write: tcp::OwnedWriteHalf,
}

impl ChatClient {
    async fn join(server: SocketAddr, name: &str) -> ChatClient {
        let (read, write) = TcpStream::connect(server).await.unwrap().into_split();
        let mut client = ChatClient {
            lines: BufReader::new(read).lines(),
            write,
        };
        assert_eq!(client.next().await.as_deref(), Some("your name?"));
        client.say(name).await;
        client
    }

    async fn say(&mut self, line: &str) {
        self.write
            .write_all(format!("{line}\n").as_bytes())
            .await
            .unwrap();
    }

    async fn next(&mut self) -> Option<String> {
        self.lines.next_line().await.unwrap()
    }

    /// Reads lines until `expected`; fails if the server closes first.
    async fn expect(&mut self, expected: &str) {
        loop {
            match self.next().await {
                Some(line) if line == expected => return,
                Some(_) => {}
                None => panic!("the server closed before sending `{expected}`"),
            }
        }
    }
}

#[test]
fn chat_relays_lines_to_everyone_else() {
    block_on_each(|_| async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let server = listener.local_addr().unwrap();
        rt::spawn(chat::serve(listener));

        let mut alice = ChatClient::join(server, "alice").await;
        let mut bob = ChatClient::join(server, "bob").await;
        alice.expect("* bob joined").await;
        let mut carol = ChatClient::join(server, "carol").await;
        // Everyone has subscribed once these arrive.
        alice.expect("* carol joined").await;
        bob.expect("* carol joined").await;

        alice.say("hello all").await;
        bob.expect("alice: hello all").await;
        carol.expect("alice: hello all").await;
        carol.say("hi alice").await;
        // Alice never gets her own line back: the next one she reads is
        // carol's.
        assert_eq!(alice.next().await.as_deref(), Some("carol: hi alice"));

        drop(bob);
        alice.expect("* bob left").await;
        carol.expect("* bob left").await;
    });
}

#[test]
fn udp_echo_sends_every_datagram_back() {
    block_on_each(|_| async {
        let server = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let server_addr = server.local_addr().unwrap();
        rt::spawn(udp_echo::serve(server));
        let client = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let mut buf = vec![0; 65_536];
        for size in [0usize, 1, 1_400, 60_000] {
            let datagram: Vec<u8> = (0..size).map(|n| n as u8).collect();
            client.send_to(&datagram, server_addr).await.unwrap();
            let (n, from) = client.recv_from(&mut buf).await.unwrap();
            assert_eq!(from, server_addr);
            assert!(buf[..n] == datagram[..], "size {size}");
        }
    });
}
