//! tokio-tungstenite on rt through the facade, as a WebSocket service
//! uses it: an echo server (`accept_async` on the facade's `TcpListener`)
//! and clients (`connect_async`) over loopback. Each client splits its
//! socket into a sink, driven by its own task, and a stream; text and
//! binary messages (64 KiB, several reads each) come back intact and in
//! order; the client starts the close handshake and both sides see its
//! code and reason. Both schedulers.

use futures::{SinkExt, StreamExt};
use rt_ecosystem_tests::{assert_rt_runs, bounded};
use std::net::SocketAddr;
use tokio::net::TcpListener;
use tokio::task::JoinSet;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

const CLIENTS: usize = 4;
const MESSAGES: usize = 200;
const BINARY_LEN: usize = 64 * 1024;

/// What one server connection saw: how many data messages it echoed and
/// the close frame its peer sent.
type Served = (usize, Option<CloseFrame>);

/// Accepts `CLIENTS` connections and echoes every data message back;
/// tungstenite answers the peer's close frame itself.
async fn echo_server(listener: TcpListener) -> Vec<Served> {
    let mut connections = JoinSet::new();
    for _ in 0..CLIENTS {
        let (stream, _) = listener.accept().await.unwrap();
        connections.spawn(async move {
            let mut ws = tokio_tungstenite::accept_async(stream).await.unwrap();
            let mut echoed = 0;
            let mut close = None;
            while let Some(message) = ws.next().await {
                match message.unwrap() {
                    message @ (Message::Text(_) | Message::Binary(_)) => {
                        echoed += 1;
                        ws.send(message).await.unwrap();
                    }
                    Message::Close(frame) => close = frame,
                    _ => {}
                }
            }
            (echoed, close)
        });
    }
    let mut served = Vec::new();
    while let Some(result) = connections.join_next().await {
        served.push(result.unwrap());
    }
    served
}

fn message(client: usize, i: usize) -> Message {
    if i.is_multiple_of(2) {
        Message::text(format!("client {client} message {i}"))
    } else {
        Message::binary(vec![(client * 31 + i) as u8; BINARY_LEN])
    }
}

async fn client(addr: SocketAddr, id: usize) {
    let (ws, response) = tokio_tungstenite::connect_async(format!("ws://{addr}/echo"))
        .await
        .unwrap();
    assert_eq!(response.status(), 101);
    let (mut sink, mut stream) = ws.split();

    // The sink on its own task, the stream read here: both halves in use
    // at once.
    let writer = tokio::spawn(async move {
        for i in 0..MESSAGES {
            sink.send(message(id, i)).await.unwrap();
        }
        sink.send(Message::Close(Some(CloseFrame {
            code: CloseCode::Normal,
            reason: format!("client {id} done").into(),
        })))
        .await
        .unwrap();
    });
    assert_rt_runs(writer.id());

    let mut received = 0;
    let mut close = None;
    while let Some(next) = stream.next().await {
        match next.unwrap() {
            Message::Close(frame) => close = frame,
            echoed => {
                assert_eq!(echoed, message(id, received), "echo {received}");
                received += 1;
            }
        }
    }
    assert_eq!(received, MESSAGES);
    // The server's half of the handshake echoes the client's code.
    let close = close.expect("no close frame from the server");
    assert_eq!(close.code, CloseCode::Normal);
    writer.await.unwrap();
}

async fn echo() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(echo_server(listener));
    assert_rt_runs(server.id());

    let mut clients = JoinSet::new();
    for id in 0..CLIENTS {
        clients.spawn(client(addr, id));
    }
    bounded("clients", async {
        while let Some(result) = clients.join_next().await {
            result.unwrap();
        }
    })
    .await;

    let served = bounded("server", server).await.unwrap();
    assert_eq!(served.len(), CLIENTS);
    let mut reasons: Vec<String> = served
        .into_iter()
        .map(|(echoed, close)| {
            assert_eq!(echoed, MESSAGES);
            let close = close.expect("no close frame from the client");
            assert_eq!(close.code, CloseCode::Normal);
            close.reason.to_string()
        })
        .collect();
    reasons.sort();
    let expected: Vec<String> = (0..CLIENTS).map(|id| format!("client {id} done")).collect();
    assert_eq!(reasons, expected);
}

#[tokio::test]
async fn echo_current_thread() {
    echo().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn echo_multi_thread() {
    echo().await;
}
