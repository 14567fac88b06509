//! QUIC on rt through the facade: quinn's tokio runtime (`runtime-tokio`)
//! drives the facade's `UdpSocket` with `poll_recv_ready`, `writable` and
//! `try_io`, sends and receives with quinn-udp's `sendmsg`/`recvmsg` on the
//! socket's fd (GSO, GRO and ECN where the kernel has them), and keeps its
//! timers in one `Sleep` that it resets. An endpoint pair on loopback
//! with an rcgen certificate: concurrent bidirectional streams, a few MiB
//! checked byte for byte, datagrams, a close and the error the peer sees,
//! an idle timeout on the paused clock, and endpoints dropped with their
//! connections open.

use quinn::crypto::rustls::{QuicClientConfig, QuicServerConfig};
use quinn::{ClientConfig, Connection, ConnectionError, Endpoint, ServerConfig, TransportConfig};
use rt_ecosystem_tests::{assert_rt_runs, bounded, rt_tasks_spawned_in};
use rustls::pki_types::{CertificateDer, PrivatePkcs8KeyDer};
use std::net::UdpSocket;
use std::sync::Arc;
use std::time::Duration;

const HOST: &str = "localhost";

/// rustls on `ring` (0.23.48 deprecated ring's provider only for its lack
/// of post-quantum key exchange, which these tests do not need), TLS 1.3
/// alone as QUIC asks.
#[allow(deprecated)]
fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// Both sides' transport: `idle` as the idle timeout, no keep-alive.
fn transport(idle: Duration) -> Arc<TransportConfig> {
    let mut transport = TransportConfig::default();
    transport.max_idle_timeout(Some(idle.try_into().unwrap()));
    transport.max_concurrent_bidi_streams(256u32.into());
    Arc::new(transport)
}

/// A server endpoint with a self-signed certificate for `localhost`, and
/// a client endpoint trusting it.
fn endpoints(idle: Duration) -> (Endpoint, Endpoint) {
    let certified = rcgen::generate_simple_self_signed(vec![HOST.to_owned()]).unwrap();
    let cert = certified.cert.der().clone();
    let key = PrivatePkcs8KeyDer::from(certified.signing_key.serialize_der());
    let tls = rustls::ServerConfig::builder_with_provider(provider())
        .with_protocol_versions(&[&rustls::version::TLS13])
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![cert.clone()], key.into())
        .unwrap();
    let mut server_config =
        ServerConfig::with_crypto(Arc::new(QuicServerConfig::try_from(tls).unwrap()));
    server_config.transport_config(transport(idle));
    let server = Endpoint::server(server_config, "127.0.0.1:0".parse().unwrap()).unwrap();

    let mut roots = rustls::RootCertStore::empty();
    roots.add(CertificateDer::clone(&cert)).unwrap();
    let tls = rustls::ClientConfig::builder_with_provider(provider())
        .with_protocol_versions(&[&rustls::version::TLS13])
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let mut client_config = ClientConfig::new(Arc::new(QuicClientConfig::try_from(tls).unwrap()));
    client_config.transport_config(transport(idle));
    let mut client = Endpoint::client("127.0.0.1:0".parse().unwrap()).unwrap();
    client.set_default_client_config(client_config);
    (server, client)
}

/// A connection, seen from the server and from the client.
async fn connect(server: &Endpoint, client: &Endpoint) -> (Connection, Connection) {
    let addr = server.local_addr().unwrap();
    let connecting = client.connect(addr, HOST).unwrap();
    let accepted = async {
        let incoming = server.accept().await.unwrap();
        incoming.await.unwrap()
    };
    let (server_side, client_side) =
        bounded("the handshake", futures::future::join(accepted, connecting)).await;
    (server_side, client_side.unwrap())
}

/// Byte `i` of a transfer tagged `tag`: no two positions in a few MiB
/// alike in a way a misplaced chunk could hide.
fn pattern(tag: u32, len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| ((i as u32).wrapping_mul(2_654_435_761) >> 13).wrapping_add(tag) as u8)
        .collect()
}

/// The server's side: each bidirectional stream is answered with its
/// request reversed, from a task of its own.
fn echo_reversed(connection: Connection) -> tokio::task::JoinHandle<ConnectionError> {
    tokio::spawn(async move {
        loop {
            let (mut send, mut recv) = match connection.accept_bi().await {
                Ok(stream) => stream,
                Err(e) => return e,
            };
            tokio::spawn(async move {
                let mut request = recv.read_to_end(16 << 20).await.unwrap();
                request.reverse();
                send.write_all(&request).await.unwrap();
                send.finish().unwrap();
            });
        }
    })
}

async fn streams_both_ways(server: Endpoint, client: Endpoint) {
    let (server_side, client_side) = connect(&server, &client).await;
    let echo = echo_reversed(server_side.clone());
    assert_rt_runs(echo.id());
    // quinn's endpoint and connection drivers, spawned by its tokio
    // runtime: rt's tasks.
    assert!(rt_tasks_spawned_in("/quinn-") >= 2);

    // 100 streams at once, each its own size.
    let streams = (0..100u32).map(|i| {
        let connection = client_side.clone();
        tokio::spawn(async move {
            let (mut send, mut recv) = connection.open_bi().await.unwrap();
            let request = pattern(i, 1 + i as usize * 397);
            send.write_all(&request).await.unwrap();
            send.finish().unwrap();
            let mut response = recv.read_to_end(1 << 20).await.unwrap();
            response.reverse();
            assert!(response == request, "stream {i}");
        })
    });
    for stream in bounded("100 streams", futures::future::join_all(streams)).await {
        stream.unwrap();
    }

    // 4 MiB each way on one stream, written while the answer is read.
    let (mut send, mut recv) = client_side.open_bi().await.unwrap();
    let request = pattern(7, 4 << 20);
    let writer = tokio::spawn({
        let request = request.clone();
        async move {
            for chunk in request.chunks(100_003) {
                send.write_all(chunk).await.unwrap();
            }
            send.finish().unwrap();
        }
    });
    let mut response = bounded("4 MiB back", recv.read_to_end(8 << 20))
        .await
        .unwrap();
    writer.await.unwrap();
    response.reverse();
    assert_eq!(response.len(), request.len());
    assert!(response == request, "4 MiB came back changed");

    // Datagrams (unreliable, but loopback with room to spare loses none).
    assert!(client_side.max_datagram_size().is_some());
    for i in 0..3u8 {
        client_side
            .send_datagram(vec![i; 100 + usize::from(i)].into())
            .unwrap();
        let datagram = bounded("a datagram", server_side.read_datagram())
            .await
            .unwrap();
        assert_eq!(&datagram[..], &vec![i; 100 + usize::from(i)][..]);
    }
    server_side.send_datagram(b"back"[..].into()).unwrap();
    let datagram = bounded("a datagram back", client_side.read_datagram())
        .await
        .unwrap();
    assert_eq!(&datagram[..], b"back");

    client_side.close(0u32.into(), b"done");
    bounded("the echo's end", echo).await.unwrap();
    bounded("the client idle", client.wait_idle()).await;
}

#[tokio::test]
async fn streams_both_ways_current_thread() {
    let (server, client) = endpoints(Duration::from_secs(30));
    streams_both_ways(server, client).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn streams_both_ways_multi_thread() {
    let (server, client) = endpoints(Duration::from_secs(30));
    streams_both_ways(server, client).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closed_by_the_peer() {
    let (server, client) = endpoints(Duration::from_secs(30));
    let (server_side, client_side) = connect(&server, &client).await;

    // A stream the server is reading when the client closes.
    let (mut send, _recv) = client_side.open_bi().await.unwrap();
    send.write_all(b"partial").await.unwrap();
    let (_, mut recv) = bounded("the stream", server_side.accept_bi())
        .await
        .unwrap();
    let mut first = [0; 7];
    recv.read_exact(&mut first).await.unwrap();
    assert_eq!(&first, b"partial");

    client_side.close(42u32.into(), b"bye");
    let closed = bounded("the close", server_side.closed()).await;
    match &closed {
        ConnectionError::ApplicationClosed(close) => {
            assert_eq!(close.error_code, 42u32.into());
            assert_eq!(&close.reason[..], b"bye");
        }
        other => panic!("the server saw {other:?}"),
    }
    // The read in progress and any new stream fail with the same error.
    match recv.read_to_end(1024).await {
        Err(quinn::ReadToEndError::Read(quinn::ReadError::ConnectionLost(e))) => {
            assert_eq!(e, closed)
        }
        other => panic!("a read after the close: {other:?}"),
    }
    assert_eq!(server_side.open_bi().await.unwrap_err(), closed);
    // The side that closed sees its own close.
    assert_eq!(
        client_side.open_uni().await.unwrap_err(),
        ConnectionError::LocallyClosed
    );
    bounded("the client idle", client.wait_idle()).await;
    bounded("the server idle", server.wait_idle()).await;
}

/// quinn's timers on the paused clock (`Instant`s from the facade's
/// `time::Instant`, one `Sleep` reset as they move): a connection that
/// carries nothing times out on both sides after the idle timeout, which
/// the clock passes at once.
#[tokio::test(start_paused = true)]
async fn idle_timeout_on_the_paused_clock() {
    // Under `bounded`'s 60 s, which the clock would reach first otherwise.
    let idle = Duration::from_secs(30);
    let (server, client) = endpoints(idle);
    let (server_side, client_side) = connect(&server, &client).await;
    let start = tokio::time::Instant::now();
    let (server_closed, client_closed) = bounded(
        "both idle timeouts",
        futures::future::join(server_side.closed(), client_side.closed()),
    )
    .await;
    assert_eq!(server_closed, ConnectionError::TimedOut);
    assert_eq!(client_closed, ConnectionError::TimedOut);
    let elapsed = start.elapsed();
    // The timeout counts from the last packet, within the handshake's
    // last round trip (instant here): 30 s, and not much more.
    assert!(elapsed >= idle - Duration::from_secs(1), "{elapsed:?}");
    assert!(elapsed <= idle + Duration::from_secs(5), "{elapsed:?}");
}

/// Dropping an `Endpoint` leaves its connections working; dropping the
/// last handle of a connection closes it (code 0), and once nothing is
/// left the endpoint's driver ends and its socket is closed.
#[tokio::test(start_paused = true)]
async fn endpoints_dropped_with_connections_open() {
    let (server, client) = endpoints(Duration::from_secs(30));
    let server_addr = server.local_addr().unwrap();
    let (server_side, client_side) = connect(&server, &client).await;
    let echo = echo_reversed(server_side);
    drop(server);
    drop(client);

    let (mut send, mut recv) = client_side.open_bi().await.unwrap();
    send.write_all(b"still here").await.unwrap();
    send.finish().unwrap();
    let response = bounded("a stream after the drops", recv.read_to_end(64))
        .await
        .unwrap();
    assert_eq!(response, b"ereh llits");

    drop((send, recv, client_side));
    match bounded("the server's side closed", echo).await.unwrap() {
        ConnectionError::ApplicationClosed(close) => assert_eq!(close.error_code, 0u32.into()),
        other => panic!("the server saw {other:?}"),
    }
    // Both drivers end (after the draining period, on the paused clock),
    // and the server's port is free again.
    bounded("quinn's tasks ended", async {
        while rt_tasks_spawned_in("/quinn-") > 0 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    UdpSocket::bind(server_addr).unwrap();
}
