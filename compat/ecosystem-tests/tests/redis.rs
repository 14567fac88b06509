//! redis-rs on rt through the facade (`tokio-comp`: its multiplexed
//! connection's driver task, its codec on the facade's `TcpStream`, its
//! timeouts on the facade's timer), against a RESP responder written here.
//! Many tasks share one multiplexed connection; a pipeline; a reply later
//! than the response timeout is an error, and the late reply is discarded
//! rather than handed to the next command; `ConnectionManager` reconnects
//! after the server drops the connection.

use redis::aio::{ConnectionManager, ConnectionManagerConfig, MultiplexedConnection};
use redis::{AsyncCommands, AsyncConnectionConfig, Client};
use rt_ecosystem_tests::{assert_rt_runs, bounded, rt_tasks_spawned_in};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;
use tokio::sync::{Notify, mpsc};

/// What the test sees of the responder.
struct Responder {
    addr: SocketAddr,
    /// Each command's name (uppercase) as the responder reads it.
    commands: mpsc::UnboundedReceiver<String>,
    /// Lets `GET late` answer.
    release: Arc<Notify>,
    accepted: Arc<Mutex<usize>>,
}

/// One command: a RESP array of bulk strings, or `None` at the end.
async fn read_command<R: tokio::io::AsyncBufRead + Unpin>(reader: &mut R) -> Option<Vec<Vec<u8>>> {
    let mut line = String::new();
    if reader.read_line(&mut line).await.ok()? == 0 {
        return None;
    }
    let count: usize = line.trim_end().strip_prefix('*')?.parse().ok()?;
    let mut args = Vec::with_capacity(count);
    for _ in 0..count {
        line.clear();
        reader.read_line(&mut line).await.ok()?;
        let len: usize = line.trim_end().strip_prefix('$')?.parse().ok()?;
        let mut arg = vec![0; len + 2];
        reader.read_exact(&mut arg).await.ok()?;
        arg.truncate(len);
        args.push(arg);
    }
    Some(args)
}

fn bulk(value: &[u8]) -> Vec<u8> {
    let mut out = format!("${}\r\n", value.len()).into_bytes();
    out.extend_from_slice(value);
    out.extend_from_slice(b"\r\n");
    out
}

/// SET, GET, INCRBY (redis-rs' `incr`) and PING on one map shared by
/// every connection; any other command (the client's `CLIENT SETINFO`) is
/// answered `+OK`. `GET late` answers once `release` is notified; `BYE`
/// closes the connection without an answer.
async fn responder() -> Responder {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (commands_tx, commands) = mpsc::unbounded_channel();
    let release = Arc::new(Notify::new());
    let accepted = Arc::new(Mutex::new(0));
    let data = Arc::new(Mutex::new(HashMap::<Vec<u8>, Vec<u8>>::new()));
    let server = tokio::spawn({
        let (release, accepted) = (release.clone(), accepted.clone());
        async move {
            loop {
                let (stream, _) = listener.accept().await.unwrap();
                *accepted.lock().unwrap() += 1;
                let (commands_tx, release, data) =
                    (commands_tx.clone(), release.clone(), data.clone());
                tokio::spawn(async move {
                    let (read, mut write) = stream.into_split();
                    let mut read = BufReader::new(read);
                    while let Some(args) = read_command(&mut read).await {
                        let name = String::from_utf8_lossy(&args[0]).to_uppercase();
                        let _ = commands_tx.send(name.clone());
                        let reply = match (name.as_str(), &args[1..]) {
                            ("PING", _) => b"+PONG\r\n".to_vec(),
                            ("SET", [key, value, ..]) => {
                                data.lock().unwrap().insert(key.clone(), value.clone());
                                b"+OK\r\n".to_vec()
                            }
                            ("GET", [key]) if key == b"late" => {
                                release.notified().await;
                                bulk(b"too late")
                            }
                            ("GET", [key]) => match data.lock().unwrap().get(key) {
                                Some(value) => bulk(value),
                                None => b"$-1\r\n".to_vec(),
                            },
                            ("INCRBY", [key, by]) => {
                                let by: i64 = String::from_utf8_lossy(by).parse().unwrap();
                                let mut data = data.lock().unwrap();
                                let value =
                                    data.entry(key.clone()).or_insert_with(|| b"0".to_vec());
                                let n: i64 =
                                    String::from_utf8_lossy(value).parse::<i64>().unwrap() + by;
                                *value = n.to_string().into_bytes();
                                format!(":{n}\r\n").into_bytes()
                            }
                            ("BYE", _) => return,
                            _ => b"+OK\r\n".to_vec(),
                        };
                        if write.write_all(&reply).await.is_err() {
                            return;
                        }
                    }
                });
            }
        }
    });
    assert_rt_runs(server.id());
    Responder {
        addr,
        commands,
        release,
        accepted,
    }
}

impl Responder {
    fn client(&self) -> Client {
        Client::open(format!("redis://{}/", self.addr)).unwrap()
    }

    /// A multiplexed connection whose timeouts do not fire on a loaded
    /// machine, unless `response_timeout` is given.
    async fn connection(&self, response_timeout: Option<Duration>) -> MultiplexedConnection {
        let config = AsyncConnectionConfig::new()
            .set_connection_timeout(Some(Duration::from_secs(60)))
            .set_response_timeout(Some(response_timeout.unwrap_or(Duration::from_secs(60))));
        let client = self.client();
        let connection = client.get_multiplexed_async_connection_with_config(&config);
        bounded("the connection", connection).await.unwrap()
    }

    async fn wait_for(&mut self, command: &str) {
        while bounded(command, self.commands.recv()).await.unwrap() != command {}
    }
}

async fn shared_connection() {
    let responder = responder().await;
    let connection = responder.connection(None).await;
    // The connection's driver, spawned by redis-rs, is an rt task.
    assert_eq!(rt_tasks_spawned_in("/redis-"), 1);
    let users = (0..32).map(|user| {
        let mut connection = connection.clone();
        tokio::spawn(async move {
            let key = format!("user:{user}");
            let () = connection.set(&key, format!("value {user}")).await.unwrap();
            for _ in 0..8 {
                let _: i64 = connection.incr("counter", 1).await.unwrap();
            }
            let value: String = connection.get(&key).await.unwrap();
            assert_eq!(value, format!("value {user}"));
        })
    });
    for user in bounded("32 users", futures::future::join_all(users)).await {
        user.unwrap();
    }
    let mut connection = connection;
    let counter: i64 = connection.get("counter").await.unwrap();
    assert_eq!(counter, 32 * 8);

    let (a, b, missing): (String, String, Option<String>) = redis::pipe()
        .set("a", "1")
        .ignore()
        .set("b", "2")
        .ignore()
        .get("a")
        .get("b")
        .get("missing")
        .query_async(&mut connection)
        .await
        .unwrap();
    assert_eq!((a.as_str(), b.as_str(), missing), ("1", "2", None));
    assert_eq!(*responder.accepted.lock().unwrap(), 1);
}

#[tokio::test]
async fn one_connection_many_tasks_current_thread() {
    shared_connection().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn one_connection_many_tasks_multi_thread() {
    shared_connection().await;
}

#[tokio::test]
async fn a_late_reply_is_a_timeout_and_is_discarded() {
    let mut responder = responder().await;
    let mut connection = responder.connection(Some(Duration::from_secs(5))).await;
    let () = connection.set("key", "value").await.unwrap();
    // Paused from here: the response timeout fires once the responder
    // holds the reply and nothing else runs.
    tokio::time::pause();
    let error = connection.get::<_, String>("late").await.unwrap_err();
    assert!(error.is_timeout(), "{error:?}");
    responder.wait_for("GET").await;
    responder.release.notify_one();
    // The late reply reaches the connection first; the next command gets
    // its own.
    let value: String = connection.get("key").await.unwrap();
    assert_eq!(value, "value");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connection_manager_reconnects() {
    let mut responder = responder().await;
    let config = ConnectionManagerConfig::new()
        .set_connection_timeout(Some(Duration::from_secs(60)))
        .set_response_timeout(Some(Duration::from_secs(60)));
    let manager = ConnectionManager::new_with_config(responder.client(), config);
    let mut manager = bounded("the manager", manager).await.unwrap();
    let () = manager.set("key", "before").await.unwrap();

    // The server drops the connection in the middle of a command: that
    // command fails, the manager reconnects, and the next one succeeds.
    let error = bounded("BYE", redis::cmd("BYE").query_async::<()>(&mut manager))
        .await
        .unwrap_err();
    assert!(
        error.is_connection_dropped() || error.is_io_error(),
        "{error:?}"
    );
    responder.wait_for("BYE").await;
    let value: String = bounded("GET after", manager.get("key")).await.unwrap();
    assert_eq!(value, "before");
    assert_eq!(*responder.accepted.lock().unwrap(), 2);
}
