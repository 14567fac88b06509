//! deadpool's managed pool on rt through the facade (`Runtime::Tokio1`:
//! its wait, create and recycle timeouts on the facade's timer), pooling
//! TCP connections to a line server in the test. Connections are bounded
//! and reused; a wait and a slow handshake time out; a task aborted while
//! waiting for a connection, or while holding one, leaves the pool whole;
//! a connection the server closed fails its recycle check and is replaced.

use deadpool::Runtime;
use deadpool::managed::{
    self, Metrics, Object, Pool, PoolError, RecycleError, RecycleResult, TimeoutType,
};
use futures::{SinkExt, StreamExt};
use rt_ecosystem_tests::{assert_rt_runs, bounded};
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio_util::codec::{Framed, LinesCodec};

type Line = Framed<TcpStream, LinesCodec>;

/// A line server: greets each connection with `hello` (unless `greet` is
/// false: then it never answers), echoes each line, closes on `quit`.
/// Counts the connections it accepted.
async fn line_server(greet: bool) -> (SocketAddr, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let accepted = Arc::new(AtomicUsize::new(0));
    let server = tokio::spawn({
        let accepted = accepted.clone();
        async move {
            loop {
                let (stream, _) = listener.accept().await.unwrap();
                accepted.fetch_add(1, Ordering::SeqCst);
                tokio::spawn(async move {
                    let mut lines = Framed::new(stream, LinesCodec::new());
                    if !greet {
                        return std::future::pending().await;
                    }
                    lines.send("hello").await.unwrap();
                    while let Some(Ok(line)) = lines.next().await {
                        if line == "quit" {
                            return;
                        }
                        lines.send(line).await.unwrap();
                    }
                });
            }
        }
    });
    assert_rt_runs(server.id());
    (addr, accepted)
}

/// Connects and waits for the greeting; recycles after a `ping` round trip.
struct LineManager {
    addr: SocketAddr,
}

impl managed::Manager for LineManager {
    type Type = Line;
    type Error = std::io::Error;

    async fn create(&self) -> Result<Line, Self::Error> {
        let mut lines = Framed::new(TcpStream::connect(self.addr).await?, LinesCodec::new());
        match lines.next().await {
            Some(Ok(greeting)) if greeting == "hello" => Ok(lines),
            other => Err(std::io::Error::other(format!("greeting: {other:?}"))),
        }
    }

    async fn recycle(&self, lines: &mut Line, _: &Metrics) -> RecycleResult<Self::Error> {
        let alive = lines.send("ping").await.is_ok()
            && matches!(lines.next().await, Some(Ok(pong)) if pong == "ping");
        if alive {
            Ok(())
        } else {
            Err(RecycleError::message("the server closed the connection"))
        }
    }
}

fn pool(addr: SocketAddr, max_size: usize, timeout: Option<Duration>) -> Pool<LineManager> {
    Pool::builder(LineManager { addr })
        .max_size(max_size)
        .runtime(Runtime::Tokio1)
        .wait_timeout(timeout)
        .create_timeout(timeout)
        .recycle_timeout(timeout)
        .build()
        .unwrap()
}

async fn echo(lines: &mut Object<LineManager>, line: String) {
    lines.send(line.clone()).await.unwrap();
    assert_eq!(lines.next().await.unwrap().unwrap(), line);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn connections_are_bounded_and_reused() {
    let (addr, accepted) = line_server(true).await;
    let pool = pool(addr, 2, Some(Duration::from_secs(60)));
    let users = (0..16).map(|user| {
        let pool = pool.clone();
        tokio::spawn(async move {
            for round in 0..4 {
                let mut lines = pool.get().await.unwrap();
                echo(&mut lines, format!("user {user} round {round}")).await;
            }
        })
    });
    for user in bounded("16 users", futures::future::join_all(users)).await {
        user.unwrap();
    }
    let status = pool.status();
    assert!(
        status.size <= 2 && status.available == status.size,
        "{status:?}"
    );
    assert_eq!(accepted.load(Ordering::SeqCst), status.size);
}

#[tokio::test]
async fn waiting_for_a_connection_times_out() {
    let (addr, _) = line_server(true).await;
    let pool = pool(addr, 1, Some(Duration::from_secs(5)));
    let held = pool.get().await.unwrap();
    // Paused once the connection is made: the wait timeout fires when the
    // runtime has nothing else to do, not by the wall clock.
    tokio::time::pause();
    match pool.get().await {
        Err(PoolError::Timeout(TimeoutType::Wait)) => {}
        other => panic!("a wait past the timeout: {:?}", other.map(|_| ())),
    }
    let id = Object::id(&held);
    drop(held);
    assert_eq!(Object::id(&pool.get().await.unwrap()), id);
}

#[tokio::test(start_paused = true)]
async fn a_silent_server_is_a_create_timeout() {
    let (addr, _) = line_server(false).await;
    let pool = pool(addr, 1, Some(Duration::from_secs(5)));
    match pool.get().await {
        Err(PoolError::Timeout(TimeoutType::Create)) => {}
        other => panic!("no greeting: {:?}", other.map(|_| ())),
    }
    assert_eq!(pool.status().size, 0);
}

#[tokio::test]
async fn aborted_tasks_leave_the_pool_whole() {
    let (addr, accepted) = line_server(true).await;
    let pool = pool(addr, 1, None);
    let held = pool.get().await.unwrap();
    let id = Object::id(&held);

    // A task waiting for the one connection, aborted while it waits.
    let waiter = tokio::spawn({
        let pool = pool.clone();
        async move { drop(pool.get().await) }
    });
    bounded("the waiter queued", async {
        while pool.status().waiting == 0 {
            tokio::task::yield_now().await;
        }
    })
    .await;
    waiter.abort();
    assert!(waiter.await.unwrap_err().is_cancelled());
    assert_eq!(pool.status().waiting, 0);

    // The connection goes back and straight to the next caller.
    drop(held);
    let mut lines = bounded("the connection", pool.get()).await.unwrap();
    assert_eq!(Object::id(&lines), id);
    echo(&mut lines, "after the abort".to_owned()).await;
    drop(lines);

    // A task holding the connection, aborted: the connection comes back.
    let (got_tx, got) = oneshot::channel();
    let holder = tokio::spawn({
        let pool = pool.clone();
        async move {
            let lines = pool.get().await.unwrap();
            got_tx.send(Object::id(&lines)).unwrap();
            std::future::pending::<()>().await;
        }
    });
    assert_eq!(got.await.unwrap(), id);
    holder.abort();
    assert!(holder.await.unwrap_err().is_cancelled());
    assert_eq!(pool.status().available, 1);
    let mut lines = bounded("the connection", pool.get()).await.unwrap();
    echo(&mut lines, "after the holder's abort".to_owned()).await;
    assert_eq!(accepted.load(Ordering::SeqCst), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_connection_is_replaced() {
    let (addr, accepted) = line_server(true).await;
    let pool = pool(addr, 1, Some(Duration::from_secs(60)));
    let mut lines = pool.get().await.unwrap();
    let first = Object::id(&lines);
    lines.send("quit".to_owned()).await.unwrap();
    // The server has closed it once the stream ends.
    assert!(bounded("the close", lines.next()).await.is_none());
    drop(lines);
    let mut lines = bounded("a new connection", pool.get()).await.unwrap();
    assert_ne!(Object::id(&lines), first);
    echo(&mut lines, "on the new connection".to_owned()).await;
    assert_eq!(accepted.load(Ordering::SeqCst), 2);
    assert_eq!(pool.status().size, 1);
}
