//! The I/O half's public types are `Send`, `Sync` and `Unpin` where
//! tokio's are, so code that spawns or pins them compiles as against
//! tokio.

fn send_sync_unpin<T: Send + Sync + Unpin>() {}

#[test]
fn io_types_are_send_sync_unpin() {
    send_sync_unpin::<tokio::net::TcpListener>();
    send_sync_unpin::<tokio::net::TcpStream>();
    send_sync_unpin::<tokio::net::TcpSocket>();
    send_sync_unpin::<tokio::net::tcp::ReadHalf<'static>>();
    send_sync_unpin::<tokio::net::tcp::WriteHalf<'static>>();
    send_sync_unpin::<tokio::net::tcp::OwnedReadHalf>();
    send_sync_unpin::<tokio::net::tcp::OwnedWriteHalf>();
    send_sync_unpin::<tokio::net::UdpSocket>();
    send_sync_unpin::<tokio::net::UnixListener>();
    send_sync_unpin::<tokio::net::UnixStream>();
    send_sync_unpin::<tokio::net::unix::OwnedReadHalf>();
    send_sync_unpin::<tokio::net::unix::OwnedWriteHalf>();
    send_sync_unpin::<tokio::net::UnixDatagram>();
    send_sync_unpin::<tokio::net::UnixSocket>();
    send_sync_unpin::<tokio::net::unix::pipe::Sender>();
    send_sync_unpin::<tokio::net::unix::pipe::Receiver>();
    send_sync_unpin::<tokio::fs::File>();
    send_sync_unpin::<tokio::fs::OpenOptions>();
    send_sync_unpin::<tokio::process::Command>();
    send_sync_unpin::<tokio::process::Child>();
    send_sync_unpin::<tokio::process::ChildStdin>();
    send_sync_unpin::<tokio::process::ChildStdout>();
    send_sync_unpin::<tokio::process::ChildStderr>();
    send_sync_unpin::<tokio::io::DuplexStream>();
    send_sync_unpin::<tokio::io::SimplexStream>();
    send_sync_unpin::<tokio::io::ReadHalf<tokio::io::DuplexStream>>();
    send_sync_unpin::<tokio::io::WriteHalf<tokio::io::DuplexStream>>();
    send_sync_unpin::<tokio::io::BufReader<tokio::net::TcpStream>>();
    send_sync_unpin::<tokio::io::BufWriter<tokio::net::TcpStream>>();
    send_sync_unpin::<tokio::io::BufStream<tokio::net::TcpStream>>();
    send_sync_unpin::<tokio::io::Lines<tokio::io::BufReader<tokio::net::TcpStream>>>();
    send_sync_unpin::<tokio::io::Empty>();
    send_sync_unpin::<tokio::io::Sink>();
    send_sync_unpin::<tokio::io::Repeat>();
    send_sync_unpin::<tokio::io::Stdin>();
    send_sync_unpin::<tokio::io::Stdout>();
    send_sync_unpin::<tokio::io::Stderr>();
    send_sync_unpin::<tokio::io::ReadBuf<'static>>();
}
