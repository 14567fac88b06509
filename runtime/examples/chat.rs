//! A chat server: every line a client sends goes to every other client.
//!
//! ```text
//! cargo run --example chat            # 127.0.0.1:6142
//! nc 127.0.0.1 6142                   # in several terminals
//! ```
//!
//! A client first sends its name, then chats. Each connection is one task
//! that waits on two things at once with `rt::select!`: the next line from
//! its client (`Lines::next_line`, cancel safe: a line half-read when a
//! message arrives is kept) and the next message on a broadcast channel
//! that all connections share.

use rt::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use rt::net::{TcpListener, TcpStream};
use rt::sync::broadcast::{self, error::RecvError};
use std::io;
use std::net::SocketAddr;

/// A chat line and who sent it (so the sender does not get it back).
#[derive(Clone, Debug)]
struct Message {
    from: SocketAddr,
    text: String,
}

#[rt::main]
async fn main() -> io::Result<()> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:6142".to_owned());
    let listener = TcpListener::bind(&addr).await?;
    println!("chat: listening on {}", listener.local_addr()?);
    serve(listener).await
}

/// Accepts clients forever, one task each.
pub(crate) async fn serve(listener: TcpListener) -> io::Result<()> {
    let (messages, _) = broadcast::channel::<Message>(256);
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(e) => {
                eprintln!("chat: accept: {e}");
                continue;
            }
        };
        // Subscribe before the task starts, so nothing sent from now on is
        // missed.
        let (tx, rx) = (messages.clone(), messages.subscribe());
        rt::spawn(async move {
            if let Err(e) = client(stream, peer, tx, rx).await {
                eprintln!("chat: {peer}: {e}");
            }
        });
    }
}

async fn client(
    mut stream: TcpStream,
    peer: SocketAddr,
    tx: broadcast::Sender<Message>,
    mut rx: broadcast::Receiver<Message>,
) -> io::Result<()> {
    let (reader, mut writer) = stream.split();
    let mut lines = BufReader::new(reader).lines();
    writer.write_all(b"your name?\n").await?;
    let Some(name) = lines.next_line().await? else {
        return Ok(());
    };
    let say = |text: String| {
        // No receiver left only means nobody is listening.
        let _ = tx.send(Message { from: peer, text });
    };
    say(format!("* {name} joined"));
    loop {
        rt::select! {
            line = lines.next_line() => match line? {
                Some(line) => say(format!("{name}: {line}")),
                None => break,
            },
            message = rx.recv() => match message {
                Ok(message) if message.from != peer => {
                    writer.write_all(format!("{}\n", message.text).as_bytes()).await?;
                }
                Ok(_) => {}
                Err(RecvError::Lagged(missed)) => {
                    writer.write_all(format!("* {missed} messages missed\n").as_bytes()).await?;
                }
                Err(RecvError::Closed) => break,
            },
        }
    }
    say(format!("* {name} left"));
    Ok(())
}
