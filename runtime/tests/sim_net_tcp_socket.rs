//! `rt::net::TcpSocket` inside a simulation: a socket configured before it
//! connects or listens (made by rt, or built by socket2 and adopted with
//! `from_std_stream`, as hyper-util's `HttpConnector` does) connects and
//! listens on the simulated network with the options the network acts on;
//! what would need the machine's address is refused naming the fix.

#![cfg(feature = "sim")]

use rt::io::{AsyncReadExt, AsyncWriteExt};
use rt::net::{TcpListener, TcpSocket};
use rt::sim::Sim;
use socket2::{Domain, Protocol, Socket, Type};
use std::io;
use std::net::SocketAddr;
use std::time::Duration;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The address of node `name`'s port `port`, by the simulated lookup.
async fn node(name: &str, port: u16) -> io::Result<SocketAddr> {
    let mut addrs = rt::net::lookup_host((name, port)).await?;
    Ok(addrs.next().expect("a node has an address"))
}

/// A host `server` listening through a `TcpSocket` on port 8080 that
/// answers each connection's bytes with their length, then closes.
fn length_host(sim: &mut Sim) {
    sim.host("server", || async {
        let socket = TcpSocket::new_v4()?;
        socket.set_reuseaddr(true)?;
        socket.bind("0.0.0.0:8080".parse().unwrap())?;
        assert_eq!(socket.local_addr()?, "0.0.0.0:8080".parse().unwrap());
        let listener = socket.listen(128)?;
        assert_eq!(listener.local_addr()?, node("server", 8080).await?);
        loop {
            let (mut stream, _) = listener.accept().await?;
            rt::spawn(async move {
                let mut got = Vec::new();
                stream.read_to_end(&mut got).await?;
                stream.write_all(got.len().to_string().as_bytes()).await?;
                Ok::<_, io::Error>(())
            });
        }
        #[allow(unreachable_code)]
        Ok::<_, io::Error>(())
    });
}

#[test]
fn a_configured_socket_listens_and_connects_on_the_simulated_network() {
    let mut sim = Sim::new(1);
    length_host(&mut sim);
    sim.client("client", async {
        let socket = TcpSocket::new_v4()?;
        socket.set_nodelay(true)?;
        socket.set_keepalive(true)?;
        let mut stream = socket.connect(node("server", 8080).await?).await?;
        assert!(stream.nodelay()?, "the stream keeps the socket's nodelay");
        assert_eq!(stream.peer_addr()?, node("server", 8080).await?);
        assert_eq!(stream.local_addr()?.ip(), node("client", 0).await?.ip());
        stream.write_all(b"twelve bytes").await?;
        stream.shutdown().await?;
        let mut answer = String::new();
        stream.read_to_string(&mut answer).await?;
        assert_eq!(answer, "12");
        Ok::<_, BoxError>(())
    });
    sim.run().unwrap_or_else(|e| panic!("{e}"));
}

/// What hyper-util's `HttpConnector` does: a socket2 socket, options set
/// on it, converted into a std stream and adopted unconnected.
fn built_by_socket2() -> io::Result<TcpSocket> {
    let socket = Socket::new(Domain::IPV4, Type::STREAM, Some(Protocol::TCP))?;
    socket.set_nonblocking(true)?;
    socket.set_keepalive(true)?;
    Ok(TcpSocket::from_std_stream(socket.into()))
}

#[test]
fn a_socket_built_by_socket2_and_adopted_connects_with_its_options() {
    let mut sim = Sim::new(2);
    length_host(&mut sim);
    sim.client("client", async {
        let socket = built_by_socket2()?;
        assert!(socket.keepalive()?, "options read back from the socket");
        let mut stream = socket.connect(node("server", 8080).await?).await?;
        stream.write_all(b"abc").await?;
        stream.shutdown().await?;
        let mut answer = String::new();
        stream.read_to_string(&mut answer).await?;
        assert_eq!(answer, "3");

        // A zero linger set before the connect makes the close a reset.
        let listener = TcpListener::bind("0.0.0.0:9000").await?;
        let socket = built_by_socket2()?;
        socket.set_zero_linger()?;
        let stream = socket.connect(node("client", 9000).await?).await?;
        assert_eq!(stream.linger()?, Some(Duration::ZERO));
        let (mut accepted, _) = listener.accept().await?;
        drop(stream);
        let reset = accepted.read(&mut [0; 8]).await.unwrap_err();
        assert_eq!(reset.kind(), io::ErrorKind::ConnectionReset, "{reset}");
        Ok::<_, BoxError>(())
    });
    sim.run().unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn a_failed_connect_is_the_simulated_networks_answer() {
    let mut sim = Sim::new(3);
    sim.host("server", std::future::pending::<io::Result<()>>);
    sim.client("client", async {
        let refused = TcpSocket::new_v4()?
            .connect(node("server", 8080).await?)
            .await
            .unwrap_err();
        assert_eq!(
            refused.kind(),
            io::ErrorKind::ConnectionRefused,
            "{refused}"
        );
        rt::sim::partition("client", "server");
        let start = rt::time::Instant::now();
        let timed_out = built_by_socket2()?
            .connect(node("server", 8080).await?)
            .await
            .unwrap_err();
        assert_eq!(timed_out.kind(), io::ErrorKind::TimedOut, "{timed_out}");
        assert_eq!(
            start.elapsed(),
            Duration::from_secs(5),
            "the simulated connect timeout"
        );
        Ok::<_, BoxError>(())
    });
    sim.run().unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn what_would_need_the_machines_address_is_refused_naming_the_fix() {
    let mut sim = Sim::new(4);
    sim.host("server", std::future::pending::<io::Result<()>>);
    sim.client("client", async {
        let server = node("server", 8080).await?;
        let unsupported = |err: io::Error, says: &[&str]| {
            assert_eq!(err.kind(), io::ErrorKind::Unsupported, "{err}");
            for words in says {
                assert!(err.to_string().contains(words), "{err} says {words}");
            }
        };

        // Bound on the machine, then adopted: its address is not a node's.
        let socket = Socket::new(Domain::IPV4, Type::STREAM, None)?;
        socket.bind(&"127.0.0.1:0".parse::<SocketAddr>().unwrap().into())?;
        let adopted = TcpSocket::from_std_stream(socket.into());
        let err = adopted.connect(server).await.unwrap_err();
        unsupported(err, &["bound on the machine", "`TcpSocket::bind`"]);

        // A connection's local address is the simulated network's pick.
        let socket = TcpSocket::new_v4()?;
        socket.bind("0.0.0.0:7000".parse().unwrap())?;
        let err = socket.connect(server).await.unwrap_err();
        unsupported(err, &["after `bind`", "leave out the bind"]);
        // A bind that picks nothing is let through: the connect goes over
        // the simulated network (to a node with no listener here).
        let socket = TcpSocket::new_v4()?;
        socket.bind("0.0.0.0:0".parse().unwrap())?;
        let err = socket.connect(server).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::ConnectionRefused, "{err}");

        // A listener hands no linger to what it accepts.
        let socket = TcpSocket::new_v4()?;
        socket.set_linger(Some(Duration::from_secs(1)))?;
        let err = socket.listen(16).map(drop).unwrap_err();
        unsupported(err, &["linger", "TcpStream::set_linger"]);

        // A second bind fails as Linux's does.
        let socket = TcpSocket::new_v4()?;
        socket.bind("0.0.0.0:7001".parse().unwrap())?;
        let again = socket.bind("0.0.0.0:7002".parse().unwrap()).unwrap_err();
        assert_eq!(again.kind(), io::ErrorKind::InvalidInput, "{again}");
        // The first bind is the listener's, and its port is taken.
        let listener = socket.listen(16)?;
        assert_eq!(listener.local_addr()?.port(), 7001);
        let taken = TcpListener::bind("0.0.0.0:7001")
            .await
            .map(drop)
            .unwrap_err();
        assert_eq!(taken.kind(), io::ErrorKind::AddrInUse, "{taken}");
        Ok::<_, BoxError>(())
    });
    sim.run().unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn a_socket_bound_inside_a_simulation_is_refused_outside() {
    let kept = std::sync::Arc::new(std::sync::Mutex::new(None));
    let mut sim = Sim::new(5);
    let inside = kept.clone();
    sim.client("client", async move {
        let socket = TcpSocket::new_v4()?;
        socket.bind("0.0.0.0:8080".parse().unwrap())?;
        *inside.lock().unwrap() = Some(socket);
        Ok::<_, BoxError>(())
    });
    sim.run().unwrap_or_else(|e| panic!("{e}"));
    let socket = kept.lock().unwrap().take().unwrap();
    let rt = rt::runtime::Runtime::new().unwrap();
    let err = rt.block_on(async { socket.listen(16).map(drop).unwrap_err() });
    assert_eq!(err.kind(), io::ErrorKind::InvalidInput, "{err}");
    assert!(err.to_string().contains("make it again outside"), "{err}");
}

#[test]
fn the_same_seed_connects_along_the_same_schedule() {
    let run = |seed| {
        let mut sim = Sim::new(seed);
        sim.latency(Duration::from_millis(1), Duration::from_millis(20));
        length_host(&mut sim);
        for name in ["a", "b", "c"] {
            sim.client(name, async {
                let mut stream = built_by_socket2()?
                    .connect(node("server", 8080).await?)
                    .await?;
                stream.write_all(b"x").await?;
                stream.shutdown().await?;
                stream.read_to_end(&mut Vec::new()).await?;
                Ok::<_, BoxError>(())
            });
        }
        let report = sim.run().unwrap_or_else(|e| panic!("{e}"));
        (report.trace_hash(), report.elapsed())
    };
    assert_eq!(run(6), run(6));
}
