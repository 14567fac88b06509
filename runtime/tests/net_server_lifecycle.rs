//! A line server's whole life as a server author writes it on tokio: a
//! task per client with owned halves, a `broadcast` fan-out, an idle
//! `timeout` per line on the paused clock, and a graceful shutdown
//! announced on a `watch` channel that the accept loop and every
//! connection task (held in a `JoinSet`) obey.

use rt::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use rt::net::{TcpListener, TcpStream};
use rt::sync::{broadcast, mpsc, watch};
use rt::task::JoinSet;
use rt::time::{Duration, Instant, timeout};
use std::io;
use std::net::SocketAddr;

/// How a connection task ended, as the server's `JoinSet` reports it.
#[derive(Debug, PartialEq)]
enum End {
    Eof,
    Idle,
    Shutdown,
}

struct Server {
    idle: Duration,
    lines: broadcast::Sender<(SocketAddr, String)>,
    stop: watch::Receiver<bool>,
    /// Told each accepted peer, so a test knows the client is subscribed.
    accepted: mpsc::UnboundedSender<SocketAddr>,
}

impl Server {
    /// Accepts until the shutdown is announced, then waits for every
    /// connection task to end.
    async fn run(self, listener: TcpListener) -> Vec<io::Result<End>> {
        let mut connections = JoinSet::new();
        let mut stop = self.stop.clone();
        loop {
            rt::select! {
                accepted = listener.accept() => {
                    let (stream, peer) = accepted.unwrap();
                    let rx = self.lines.subscribe();
                    connections.spawn(client(stream, peer, self.lines.clone(), rx, self.stop.clone(), self.idle));
                    self.accepted.send(peer).unwrap();
                }
                _ = stop.changed() => break,
            }
        }
        let mut ends = Vec::new();
        while let Some(end) = connections.join_next().await {
            ends.push(end.unwrap());
        }
        ends
    }
}

async fn client(
    stream: TcpStream,
    peer: SocketAddr,
    tx: broadcast::Sender<(SocketAddr, String)>,
    mut rx: broadcast::Receiver<(SocketAddr, String)>,
    mut stop: watch::Receiver<bool>,
    idle: Duration,
) -> io::Result<End> {
    let (read, mut write) = stream.into_split();
    let mut lines = BufReader::new(read).lines();
    let end = loop {
        rt::select! {
            // The client's own input first: a client that has gone away
            // ends with `Eof` before anything is written to it.
            biased;
            line = timeout(idle, lines.next_line()) => match line {
                Err(_) => {
                    write.write_all(b"idle\n").await?;
                    break End::Idle;
                }
                Ok(line) => match line? {
                    Some(line) => {
                        let _ = tx.send((peer, line));
                    }
                    None => break End::Eof,
                },
            },
            message = rx.recv() => match message {
                Ok((from, text)) if from != peer => {
                    write.write_all(format!("{text}\n").as_bytes()).await?;
                }
                Ok(_) => {}
                Err(broadcast::error::RecvError::Lagged(n)) => {
                    write.write_all(format!("lagged {n}\n").as_bytes()).await?;
                }
                Err(broadcast::error::RecvError::Closed) => break End::Eof,
            },
            _ = stop.changed() => {
                write.write_all(b"shutdown\n").await?;
                break End::Shutdown;
            }
        }
    };
    write.shutdown().await?;
    Ok(end)
}

/// Starts a server on a port-0 listener; returns its address, the
/// shutdown switch, the accepted peers and the server's task.
async fn start(
    idle: Duration,
) -> (
    SocketAddr,
    watch::Sender<bool>,
    mpsc::UnboundedReceiver<SocketAddr>,
    rt::task::JoinHandle<Vec<io::Result<End>>>,
) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop_tx, stop) = watch::channel(false);
    let (accepted, accepted_rx) = mpsc::unbounded_channel();
    let (lines, _) = broadcast::channel(16);
    let server = Server {
        idle,
        lines,
        stop,
        accepted,
    };
    (addr, stop_tx, accepted_rx, rt::spawn(server.run(listener)))
}

async fn connect(
    addr: SocketAddr,
    accepted: &mut mpsc::UnboundedReceiver<SocketAddr>,
) -> TcpStream {
    let stream = TcpStream::connect(addr).await.unwrap();
    let peer = accepted.recv().await.unwrap();
    assert_eq!(peer, stream.local_addr().unwrap());
    stream
}

#[rt::test(start_paused = true)]
async fn an_idle_client_is_dropped_after_the_idle_timeout_on_the_paused_clock() {
    let idle = Duration::from_secs(30);
    let (addr, stop, mut accepted, server) = start(idle).await;
    let mut quiet = connect(addr, &mut accepted).await;
    let start = Instant::now();
    let mut got = String::new();
    quiet.read_to_string(&mut got).await.unwrap();
    assert_eq!(got, "idle\n");
    assert_eq!(start.elapsed(), idle);
    stop.send(true).unwrap();
    let ends = server.await.unwrap();
    assert_eq!(
        ends.into_iter().map(Result::unwrap).collect::<Vec<_>>(),
        [End::Idle]
    );
}

#[rt::test(flavor = "multi_thread", worker_threads = 2)]
async fn lines_fan_out_and_a_shutdown_ends_every_connection_mid_line() {
    let (addr, stop, mut accepted, server) = start(Duration::from_secs(3600)).await;
    let mut talker = connect(addr, &mut accepted).await;
    let mut listener = BufReader::new(connect(addr, &mut accepted).await);
    // A client that leaves half a line and goes away.
    let mut leaver = connect(addr, &mut accepted).await;
    leaver.write_all(b"half a li").await.unwrap();
    drop(leaver);
    // One still writing its line when the shutdown comes.
    let mut writer = connect(addr, &mut accepted).await;
    writer.write_all(b"never finish").await.unwrap();

    for i in 0..3 {
        talker
            .write_all(format!("m{i}\n").as_bytes())
            .await
            .unwrap();
    }
    // The leaver's half line comes too, at its end-of-file (`next_line`
    // returns an unterminated last line, as tokio's), in any order with
    // the talker's.
    let mut heard = Vec::new();
    for _ in 0..4 {
        let mut line = String::new();
        listener.read_line(&mut line).await.unwrap();
        heard.push(line);
    }
    let (talked, left): (Vec<_>, Vec<_>) =
        heard.into_iter().partition(|line| line.starts_with('m'));
    assert_eq!(talked, ["m0\n", "m1\n", "m2\n"]);
    assert_eq!(left, ["half a li\n"]);

    stop.send(true).unwrap();
    for mut client in [talker, listener.into_inner(), writer] {
        let mut rest = String::new();
        client.read_to_string(&mut rest).await.unwrap();
        assert!(rest.ends_with("shutdown\n"), "{rest:?}");
    }
    let mut ends: Vec<_> = server
        .await
        .unwrap()
        .into_iter()
        .map(Result::unwrap)
        .collect();
    ends.sort_by_key(|end| format!("{end:?}"));
    assert_eq!(
        ends,
        [End::Eof, End::Shutdown, End::Shutdown, End::Shutdown]
    );
}
