//! The rest of `rt::net`'s TCP surface inside a simulation: readiness,
//! `try_*`, peeking, vectored I/O, options, tokio's and hyper's traits;
//! what needs a real socket, refused by name; and sockets that outlive
//! their host's crash, which must not touch the restarted host's.

#![cfg(feature = "sim")]

use rt::io::{AsyncReadExt, AsyncWriteExt, Interest};
use rt::net::{TcpListener, TcpStream, UdpSocket};
use rt::sim::Sim;
use std::io::{self, IoSlice, IoSliceMut};
use std::sync::Mutex;
use std::time::Duration;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// A connected pair on one node: (the connector's end, the acceptor's).
async fn pair() -> io::Result<(TcpStream, TcpStream)> {
    let listener = TcpListener::bind("0.0.0.0:0").await?;
    let addr = listener.local_addr()?;
    let connect = rt::spawn(async move { TcpStream::connect(addr).await });
    let (accepted, _) = listener.accept().await?;
    Ok((connect.await.map_err(io::Error::other)??, accepted))
}

#[test]
fn readiness_try_calls_peek_and_vectored_io() {
    let mut sim = Sim::new(1);
    sim.client("c", async {
        let (client, server) = pair().await?;
        let mut buf = [0; 8];
        let nothing = server.try_read(&mut buf).unwrap_err();
        assert_eq!(nothing.kind(), io::ErrorKind::WouldBlock);
        client.writable().await?;
        assert_eq!(client.try_write(b"hel")?, 3);
        let bufs = [IoSlice::new(b"lo"), IoSlice::new(b" world")];
        assert_eq!(client.try_write_vectored(&bufs)?, 8);
        let ready = server
            .ready(Interest::READABLE | Interest::WRITABLE)
            .await?;
        assert!(ready.is_writable());
        server.readable().await?;
        assert_eq!(server.peek(&mut buf).await?, 8);
        assert_eq!(&buf, b"hello wo");
        let (mut head, mut tail) = ([0; 2], [0; 20]);
        let mut bufs = [IoSliceMut::new(&mut head), IoSliceMut::new(&mut tail)];
        assert_eq!(server.try_read_vectored(&mut bufs)?, 11);
        assert_eq!((&head, &tail[..9]), (b"he", &b"llo world"[..]));
        let pending = std::future::poll_fn(|cx| server.poll_read_ready(cx));
        assert!(
            rt::time::timeout(Duration::from_millis(100), pending)
                .await
                .is_err(),
            "nothing more to read"
        );
        client.shutdown_std(std::net::Shutdown::Write)?;
        server.readable().await?;
        assert_eq!(server.try_read(&mut buf)?, 0, "end of file");
        Ok::<_, BoxError>(())
    });
    sim.run().unwrap();
}

#[test]
fn options_are_recorded_and_a_zero_linger_closes_with_a_reset() {
    let mut sim = Sim::new(2);
    sim.client("c", async {
        let (mut client, server) = pair().await?;
        assert!(!client.nodelay()?);
        client.set_nodelay(true)?;
        assert!(client.nodelay()?);
        assert_eq!(client.ttl()?, 64);
        client.set_ttl(12)?;
        assert_eq!(client.ttl()?, 12);
        assert_eq!(
            client.set_ttl(0).unwrap_err().kind(),
            io::ErrorKind::InvalidInput
        );
        assert!(server.take_error()?.is_none());
        server.set_zero_linger()?;
        assert_eq!(server.linger()?, Some(Duration::ZERO));
        drop(server);
        let reset = client.read(&mut [0; 4]).await.unwrap_err();
        assert_eq!(reset.kind(), io::ErrorKind::ConnectionReset);
        Ok::<_, BoxError>(())
    });
    sim.run().unwrap();
}

#[test]
fn borrowed_halves_and_their_readiness_reach_the_simulated_stream() {
    let mut sim = Sim::new(3);
    sim.client("c", async {
        let (mut client, mut server) = pair().await?;
        let (mut read, mut write) = client.split();
        write.write_all(b"ping").await?;
        let mut got = [0; 4];
        server.read_exact(&mut got).await?;
        assert_eq!(&got, b"ping");
        server.write_all(b"pong").await?;
        read.readable().await?;
        assert_eq!(read.peek(&mut got).await?, 4);
        assert_eq!(read.try_read(&mut got)?, 4);
        assert_eq!(&got, b"pong");
        assert_eq!(read.peer_addr()?, server.local_addr()?);
        Ok::<_, BoxError>(())
    });
    sim.run().unwrap();
}

#[cfg(feature = "hyper")]
#[test]
fn hyper_serves_http1_over_simulated_tcp_through_rt_hyper_io() {
    use http_body_util::{BodyExt, Full};
    use hyper::body::{Bytes, Incoming};
    use rt::hyper::Io;

    let mut sim = Sim::new(7);
    sim.host("web", || async {
        let listener = TcpListener::bind("0.0.0.0:80").await?;
        loop {
            let (stream, _) = listener.accept().await?;
            rt::spawn(async move {
                let echo =
                    hyper::service::service_fn(|request: hyper::Request<Incoming>| async move {
                        let body = request.into_body().collect().await?.to_bytes();
                        Ok::<_, hyper::Error>(hyper::Response::new(Full::new(body)))
                    });
                let served = hyper::server::conn::http1::Builder::new()
                    .serve_connection(Io::new(stream), echo)
                    .await;
                served.unwrap();
            });
        }
        #[allow(unreachable_code)]
        Ok::<_, io::Error>(())
    });
    sim.client("browser", async {
        let stream = TcpStream::connect("web:80").await?;
        let (mut sender, connection) =
            hyper::client::conn::http1::handshake(Io::new(stream)).await?;
        let connection = rt::spawn(connection);
        let request = hyper::Request::post("/")
            .header("host", "web")
            .body(Full::new(Bytes::from_static(b"simulated")))?;
        let response = sender.send_request(request).await?;
        let body = response.into_body().collect().await?.to_bytes();
        assert_eq!(&body[..], b"simulated");
        drop(sender);
        connection.await??;
        Ok::<_, BoxError>(())
    });
    sim.run().unwrap();
}

#[test]
fn what_needs_a_real_socket_is_refused_by_name() {
    // Real sockets made outside, moved in.
    let std_listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let std_stream = std::net::TcpStream::connect(std_listener.local_addr().unwrap()).unwrap();
    let std_udp = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let mut sim = Sim::new(4);
    sim.client("c", async move {
        let unsupported = |result: io::Error, api: &str| {
            assert_eq!(result.kind(), io::ErrorKind::Unsupported, "{result}");
            assert!(result.to_string().contains(api), "{result} names {api}");
        };
        // A socket the machine made: the error names the fix, the call
        // that makes a simulated one.
        let from_std = TcpStream::from_std(std_stream).unwrap_err();
        unsupported(from_std, "TcpStream::from_std");
        let from_std = TcpStream::from_std(std::net::TcpStream::connect(
            std_listener.local_addr().unwrap(),
        )?)
        .unwrap_err();
        unsupported(
            from_std,
            "connect inside the simulation with `TcpStream::connect`",
        );
        let from_std = TcpListener::from_std(std_listener).unwrap_err();
        unsupported(from_std, "TcpListener::from_std");
        let from_std = TcpListener::from_std(std::net::TcpListener::bind("127.0.0.1:0")?);
        let from_std = from_std.map(drop).unwrap_err();
        unsupported(
            from_std,
            "with `TcpListener::bind` and hand it to the server",
        );
        let from_std = UdpSocket::from_std(std_udp).unwrap_err();
        unsupported(from_std, "UdpSocket::from_std");
        let from_std = UdpSocket::from_std(std::net::UdpSocket::bind("127.0.0.1:0")?);
        let from_std = from_std.map(drop).unwrap_err();
        unsupported(from_std, "inside the simulation with `UdpSocket::bind`");
        let (client, _server) = pair().await?;
        unsupported(
            client.try_io(Interest::READABLE, || Ok(())).unwrap_err(),
            "TcpStream::try_io",
        );
        unsupported(
            client
                .async_io(Interest::READABLE, || Ok(()))
                .await
                .unwrap_err(),
            "TcpStream::async_io",
        );
        unsupported(client.into_std().unwrap_err(), "TcpStream::into_std");
        let listener = TcpListener::bind("0.0.0.0:0").await?;
        unsupported(listener.ttl().unwrap_err(), "TcpListener::ttl");
        unsupported(listener.into_std().unwrap_err(), "TcpListener::into_std");
        unsupported(
            rt::net::UnixStream::connect("/nonexistent")
                .await
                .unwrap_err(),
            "UnixStream::connect",
        );
        unsupported(rt::net::UnixStream::pair().unwrap_err(), "UnixStream::pair");
        unsupported(
            rt::net::UnixListener::bind("/nonexistent").unwrap_err(),
            "UnixListener::bind",
        );
        Ok::<_, BoxError>(())
    });
    sim.run().unwrap();
}

#[test]
#[should_panic(expected = "the descriptor of a `TcpStream`")]
fn the_descriptor_of_a_simulated_stream_panics_naming_it() {
    let mut sim = Sim::new(5);
    sim.client("c", async {
        let (client, _server) = pair().await?;
        let _ = std::os::fd::AsRawFd::as_raw_fd(&client);
        Ok::<_, BoxError>(())
    });
    // The panic fails the client; `unwrap` panics with its message.
    sim.run().unwrap();
}

/// Sockets a crashed host left in a static: they must neither close nor
/// read the sockets its restart binds on the same ports.
static KEPT_UDP: Mutex<Option<UdpSocket>> = Mutex::new(None);
static KEPT_LISTENER: Mutex<Option<TcpListener>> = Mutex::new(None);

#[test]
fn sockets_kept_past_a_crash_leave_the_restarted_hosts_alone() {
    let mut sim = Sim::new(6);
    sim.host("server", || async {
        let udp = UdpSocket::bind("0.0.0.0:9000").await?;
        let listener = TcpListener::bind("0.0.0.0:8080").await?;
        if KEPT_UDP.lock().unwrap().is_none() {
            // The first incarnation stashes its sockets away and serves
            // nothing.
            *KEPT_UDP.lock().unwrap() = Some(udp);
            *KEPT_LISTENER.lock().unwrap() = Some(listener);
            return std::future::pending::<Result<(), io::Error>>().await;
        }
        let mut buf = [0; 16];
        loop {
            rt::select! {
                received = udp.recv_from(&mut buf) => {
                    let (n, from) = received?;
                    udp.send_to(&buf[..n], from).await?;
                }
                accepted = listener.accept() => {
                    let (mut stream, _) = accepted?;
                    stream.write_all(b"hi").await?;
                }
            }
        }
    });
    sim.client("client", async {
        rt::time::sleep(Duration::from_millis(5)).await;
        rt::sim::restart("server");
        rt::time::sleep(Duration::from_millis(5)).await;
        // The old sockets are dead...
        let old_udp = KEPT_UDP.lock().unwrap().take().unwrap();
        let stale = old_udp.recv(&mut [0; 4]).await.unwrap_err();
        assert_eq!(stale.kind(), io::ErrorKind::NotConnected, "{stale}");
        let old_listener = KEPT_LISTENER.lock().unwrap().take().unwrap();
        let stale = old_listener.accept().await.unwrap_err();
        assert_eq!(stale.kind(), io::ErrorKind::NotConnected, "{stale}");
        // ... and dropping them closes nothing of the new process's.
        drop((old_udp, old_listener));
        let socket = UdpSocket::bind("0.0.0.0:0").await?;
        socket.send_to(b"echo", "server:9000").await?;
        let mut buf = [0; 4];
        socket.recv(&mut buf).await?;
        assert_eq!(&buf, b"echo");
        let mut stream = TcpStream::connect("server:8080").await?;
        let mut hi = [0; 2];
        stream.read_exact(&mut hi).await?;
        assert_eq!(&hi, b"hi");
        Ok::<_, BoxError>(())
    });
    sim.run().unwrap();
}
